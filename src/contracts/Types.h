#pragma once
/// \file Types.h
/// Plain vector types shared by the host core and the CUDA kernels. They have the size and
/// alignment of CUDA's float4 / double4, so a column of them can be copied to and from the
/// device and reinterpreted as float4* there.

#include <cstddef>
#include <cstdint>

namespace nbody {

/// Four floats, 16-byte aligned. As a position: x, y, z (length units) and w = mass (mass
/// units). As a velocity or acceleration: x, y, z and w = 0 (padding).
struct alignas(16) Float4 {
    float x = 0.f, y = 0.f, z = 0.f, w = 0.f;
};
static_assert(sizeof(Float4) == 16);

/// Three floats, 12 bytes, no padding: the velocity, acceleration and workspace element of the
/// float3 layout (Layout::Float3), the same size as CUDA's float3.
struct Float3 {
    float x = 0.f, y = 0.f, z = 0.f;
};
static_assert(sizeof(Float3) == 12);

/// Three doubles: fp64 accelerations of the reference kernel, momenta.
struct Double3 {
    double x = 0.0, y = 0.0, z = 0.0;
};

/// Four doubles, 32-byte aligned like CUDA's double4: the fp64 state (Layout::Double4). As a
/// position: x, y, z and w = mass; as a velocity or acceleration: x, y, z and w = 0.
struct alignas(32) Double4 {
    double x = 0.0, y = 0.0, z = 0.0, w = 0.0;
};
static_assert(sizeof(Double4) == 32);

/// Index of a body in the World's columns (dense, 0..N-1).
using BodyIndex = std::size_t;

} // namespace nbody
