#pragma once
/// \file KernelCommon.cuh
/// Device helpers shared by the force kernels: launch limits of the current device, vector
/// construction and accumulation for the three state layouts (float4, float3, double4_32a).

#include "CudaCheck.cuh"
#include "contracts/ForceArgs.h"

#include <cuda_runtime.h>

#include <string>
#include <type_traits>

namespace nbody::gpu {

/// Launch limits of a device, queried once per device (launches check them every step).
struct Limits {
    int maxThreads = 0;    ///< threads per block
    int sharedDefault = 0; ///< shared memory bytes per block without opting in
    int sharedOptin = 0;   ///< shared memory bytes per block after cudaFuncSetAttribute
    int warpSize = 32;
    int multiprocessors = 1; ///< streaming multiprocessors (SMs)
    int maxThreadsPerSM = 2048;
};
/// The current device's limits. Throws CudaError.
Limits deviceLimits();

/// Refuses, before allocating, `bytes` of device memory for `what` that the device does not have
/// free (cudaMemGetInfo): CudaError naming both figures. A failed query is left to cudaMalloc.
void checkDeviceBytes(std::size_t bytes, const std::string& what);

/// "" when blockX × blockY threads can launch on the device, else a message naming the limit.
std::string checkThreads(int blockX, int blockY, const Limits& l);

/// Scalar type of a vector type.
template <class V> struct ScalarOf;
template <> struct ScalarOf<float4> { using type = float; };
template <> struct ScalarOf<float3> { using type = float; };
template <> struct ScalarOf<double4_32a> { using type = double; };
template <> struct ScalarOf<double3> { using type = double; };

/// Builds a position-like vector (x, y, z, w) of type V (w dropped for 3-vectors).
template <class V, class T>
__device__ __forceinline__ V makeVec(T x, T y, T z, T w = T(0))
{
    if constexpr (std::is_same_v<V, float4>)
        return make_float4(x, y, z, w);
    else if constexpr (std::is_same_v<V, double4_32a>)
        return make_double4_32a(x, y, z, w);
    else if constexpr (std::is_same_v<V, float3>)
        return make_float3(x, y, z);
    else
        return make_double3(x, y, z);
}

/// a + b over x, y, z (w, where present, is 0 for velocities, accelerations and partials).
template <class V>
__device__ __forceinline__ V addXyz(const V& a, const V& b)
{
    return makeVec<V>(a.x + b.x, a.y + b.y, a.z + b.z);
}

/// Calls f.template operator()<P, V>() with the device types of the layout: positions P
/// (float4 or double4_32a) and velocities / accelerations V (float4, float3 or double4_32a).
template <class F>
void withLayout(Layout layout, F&& f)
{
    switch (layout) {
    case Layout::Float4: f.template operator()<float4, float4>(); return;
    case Layout::Float3: f.template operator()<float4, float3>(); return;
    case Layout::Double4: f.template operator()<double4_32a, double4_32a>(); return;
    }
}

} // namespace nbody::gpu
