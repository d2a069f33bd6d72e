#include "SampledReference.h"
#include "KernelCommon.cuh"
#include "contracts/Interaction.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace nbody::gpu {

namespace {

/// Threads per block: 256 targets a block, one a thread, and tiles of 256 positions.
constexpr int kThreads = 256;

/// Bodies per j-range: the j-loop is split into ceil(n / kSplitBodies) ranges (at most
/// kMaxSplits) along the grid's y so that a sample of 32 768 targets (128 blocks) still fills
/// every SM. A function of n alone, so that the sums' order, and the bits, do not depend on the
/// device.
constexpr std::size_t kSplitBodies = 65536;
constexpr int kMaxSplits = 64;

/// An fp64 acceleration sum.
struct Acc {
    double x = 0.0, y = 0.0, z = 0.0;
};

/// Pass 1: block (x, y) sums the targets x·256 … x·256+255 over the y-th j-range, positions
/// staged through shared memory a tile at a time; partials[y · S + t] = (Σ a, Σ |term|) without
/// G (x, y, z: the acceleration; w: the magnitude sum).
template <class P>
__global__ void __launch_bounds__(kThreads) sampledPartialsKernel(const P* __restrict__ pos, int n,
                                                                 const int* __restrict__ which, int targets,
                                                                 int rangeSize, double eps2,
                                                                 Double4* __restrict__ partials)
{
    __shared__ P tile[kThreads];
    const int t = blockIdx.x * kThreads + threadIdx.x;
    const P bi = t < targets ? pos[which[t]] : pos[0];
    Acc a;
    double m = 0.0;
    const int begin = blockIdx.y * rangeSize;
    const int end = min(n, begin + rangeSize);
    for (int base = begin; base < end; base += kThreads) {
        if (base + int(threadIdx.x) < end)
            tile[threadIdx.x] = pos[base + threadIdx.x];
        __syncthreads();
        const int count = min(kThreads, end - base);
        for (int k = 0; k < count; ++k)
            bodyBodyInteraction<double>(bi, tile[k], a, m, eps2);
        __syncthreads();
    }
    if (t < targets)
        partials[std::size_t(blockIdx.y) * targets + t] = Double4{a.x, a.y, a.z, m};
}

/// Pass 2: out[t] = (G · Σ_y partials[y · S + t].xyz, |G| · Σ_y partials[y · S + t].w), the
/// ranges in order.
__global__ void __launch_bounds__(kThreads) sampledSumKernel(const Double4* __restrict__ partials, int targets,
                                                            int ranges, double G, Double4* __restrict__ out)
{
    const int t = blockIdx.x * kThreads + threadIdx.x;
    if (t >= targets)
        return;
    Acc a;
    double m = 0.0;
    for (int y = 0; y < ranges; ++y) {
        const Double4 p = partials[std::size_t(y) * targets + t];
        a.x += p.x;
        a.y += p.y;
        a.z += p.z;
        m += p.w;
    }
    out[t] = Double4{G * a.x, G * a.y, G * a.z, fabs(G) * m};
}

/// Device memory freed on every path.
struct DeviceBuffer {
    void* p = nullptr;
    explicit DeviceBuffer(std::size_t bytes) { NB_CUDA_CHECK(cudaMalloc(&p, bytes)); }
    ~DeviceBuffer() { cudaFree(p); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

template <class P>
std::vector<Double3> sampled(const P* pos, std::size_t n, const std::vector<std::size_t>& which, double eps2, double G,
                             std::vector<double>* magnitudeSums)
{
    if (n > std::size_t(INT32_MAX))
        throw std::invalid_argument("the sampled fp64 reference takes at most 2147483647 bodies (got " +
                                    std::to_string(n) + ")");
    std::vector<int> idx(which.size());
    for (std::size_t s = 0; s < which.size(); ++s) {
        if (which[s] >= n)
            throw std::out_of_range("sampledReferenceAccelerations: body " + std::to_string(which[s]) + " of " +
                                    std::to_string(n));
        idx[s] = int(which[s]);
    }
    std::vector<Double3> out(which.size());
    if (magnitudeSums)
        magnitudeSums->assign(which.size(), 0.0);
    if (which.empty() || n == 0)
        return out;
    std::vector<Double4> sums(which.size());
    const int targets = int(idx.size());
    const int ranges = int(std::min<std::size_t>(kMaxSplits, (n + kSplitBodies - 1) / kSplitBodies));
    const int rangeSize = int((n + std::size_t(ranges) - 1) / std::size_t(ranges));
    const std::size_t posBytes = n * sizeof(P), idxBytes = idx.size() * sizeof(int),
                      outBytes = sums.size() * sizeof(Double4), partialBytes = std::size_t(ranges) * outBytes;
    checkDeviceBytes(posBytes + idxBytes + outBytes + partialBytes, "the sampled fp64 reference");
    DeviceBuffer dPos(posBytes), dIdx(idxBytes), dOut(outBytes), dPartials(partialBytes);
    NB_CUDA_CHECK(cudaMemcpy(dPos.p, pos, posBytes, cudaMemcpyHostToDevice));
    NB_CUDA_CHECK(cudaMemcpy(dIdx.p, idx.data(), idxBytes, cudaMemcpyHostToDevice));
    const unsigned blocks = unsigned((targets + kThreads - 1) / kThreads);
    sampledPartialsKernel<P><<<dim3(blocks, unsigned(ranges)), kThreads>>>(
        static_cast<const P*>(dPos.p), int(n), static_cast<const int*>(dIdx.p), targets, rangeSize, eps2,
        static_cast<Double4*>(dPartials.p));
    NB_CUDA_CHECK_LAUNCH("sampledPartialsKernel");
    sampledSumKernel<<<blocks, kThreads>>>(static_cast<const Double4*>(dPartials.p), targets, ranges, G,
                                           static_cast<Double4*>(dOut.p));
    NB_CUDA_CHECK_LAUNCH("sampledSumKernel");
    NB_CUDA_CHECK(cudaMemcpy(sums.data(), dOut.p, outBytes, cudaMemcpyDeviceToHost));
    for (std::size_t s = 0; s < sums.size(); ++s) {
        out[s] = Double3{sums[s].x, sums[s].y, sums[s].z};
        if (magnitudeSums)
            (*magnitudeSums)[s] = sums[s].w;
    }
    return out;
}

} // namespace

std::vector<Double3> sampledReferenceAccelerations(const Float4* pos, std::size_t n, const std::vector<std::size_t>& which,
                                                   double eps2, double G, std::vector<double>* magnitudeSums)
{
    return sampled(pos, n, which, eps2, G, magnitudeSums);
}

std::vector<Double3> sampledReferenceAccelerations(const Double4* pos, std::size_t n,
                                                   const std::vector<std::size_t>& which, double eps2, double G,
                                                   std::vector<double>* magnitudeSums)
{
    return sampled(pos, n, which, eps2, G, magnitudeSums);
}

} // namespace nbody::gpu
