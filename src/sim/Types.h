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

/// Three doubles: fp64 accelerations of the reference kernel, momenta.
struct Double3 {
    double x = 0.0, y = 0.0, z = 0.0;
};

/// Index of a body in the World's columns (dense, 0..N-1).
using BodyIndex = std::size_t;

} // namespace nbody
