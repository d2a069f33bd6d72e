#pragma once
/// \file ContactTypes.h
/// The contract of a contact search (host or device): the touching test every search applies
/// bit for bit the same way, its input and its output.

#include "contracts/Interaction.h" // NB_HD
#include "contracts/Types.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace nbody {

/// A touching pair of bodies by index, i < j. Searches return them sorted by (i, j), unique.
struct ContactPair {
    std::uint32_t i = 0;
    std::uint32_t j = 0;
    friend bool operator==(const ContactPair&, const ContactPair&) = default;
};

/// True when the spheres (xi, ri) and (xj, rj) overlap: |xj − xi|² < (ri + rj)², in fp32 with
/// this exact order of operations (d² = fma(dz, dz, fma(dy, dy, dx·dx)), s = ri + rj, d² < s·s)
/// on the host and the device, so every search row agrees bit for bit on which pairs touch.
NB_HD bool contactTouching(Float4 xi, float ri, Float4 xj, float rj)
{
    const float dx = xj.x - xi.x;
    const float dy = xj.y - xi.y;
    const float dz = xj.z - xi.z;
#if defined(__CUDA_ARCH__)
    const float d2 = __fmaf_rn(dz, dz, __fmaf_rn(dy, dy, __fmul_rn(dx, dx)));
    const float s = __fadd_rn(ri, rj);
    return d2 < __fmul_rn(s, s);
#else
    const float d2 = std::fma(dz, dz, std::fma(dy, dy, dx * dx));
    const float s = ri + rj;
    return d2 < s * s;
#endif
}

/// Input of a contact search. `position` (N Float4: x, y, z, mass) and `radius` (N floats,
/// length units, ≥ 0 and finite) are in host memory for Backend::Cpu rows and in device memory
/// for Backend::Cuda rows.
///
/// Simulation's collision system (after every step with SimParams::collisions) passes, for a
/// Backend::Cuda row: position = DeviceState::contactPositions(current) (the current position
/// buffer; a float4 rounding of the fp64 state for the Double4 layout), radius =
/// DeviceState::radius(), n = N, maxRadius = World::maxRadius() of the host's radius column
/// (exact), stream = nullptr (the legacy default stream, where the steps run); the pairs come
/// back in host memory. For a Backend::Cpu row, the host World's columns.
struct ContactSearchArgs {
    const Float4* position = nullptr;
    const float* radius = nullptr;
    std::size_t n = 0;
    float maxRadius = 0;    ///< the largest radius (the cell list's cell size is 2 × maxRadius)
    void* stream = nullptr; ///< Cuda rows: the cudaStream_t to run on (nullptr: the default stream)
};

/// Finds every touching pair (contactTouching), sorted by (i, j). Throws std::invalid_argument
/// for bad input (a null column with n > 0), CudaError for a failed CUDA call or launch,
/// std::bad_alloc / std::length_error when the pairs do not fit in memory.
using ContactSearchFn = std::vector<ContactPair> (*)(const ContactSearchArgs&);

} // namespace nbody
