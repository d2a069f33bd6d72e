#pragma once
/// \file CpuKernels.h
/// Host force kernels (OpenMP). Both loop over all j for each i (N² interactions, one pass per
/// body, no shared state between threads: deterministic for any thread count).

#include "KernelRegistry.h"

#include <vector>

namespace nbody {

/// `cpu`: fp32 arithmetic on the fp32 state (pos, acc: N Float4), one OpenMP thread per chunk of
/// bodies. 20 flops per interaction.
void cpuForcesFp32(const HostForceArgs& args);

/// `reference`: fp64 arithmetic on the fp64 state (pos, acc: N Double4). 30 flops per interaction.
void cpuForcesFp64(const HostForceArgs& args);

/// The fp64 reference used by tests and validation: out[i] = G Σ_j m_j r_ij / (r² + ε²)^{3/2}
/// evaluated in double precision. pos: N Float4 or N Double4 (x, y, z, mass). Returns N Double3.
std::vector<Double3> referenceAccelerations(const Float4* pos, std::size_t n, double eps2, double G);
std::vector<Double3> referenceAccelerations(const Double4* pos, std::size_t n, double eps2, double G);
/// The same for the bodies `which` only (each summed over all N): out[s] is the acceleration of
/// body which[s]. For checks of large N against a sample. Throws std::out_of_range for an index ≥ n.
std::vector<Double3> referenceAccelerationsAt(const Float4* pos, std::size_t n, const std::vector<std::size_t>& which,
                                              double eps2, double G);

} // namespace nbody
