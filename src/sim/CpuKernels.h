#pragma once
/// \file CpuKernels.h
/// Host force kernels (OpenMP). Both loop over all j for each i (N² interactions, one pass per
/// body, no shared state between threads: deterministic for any thread count).

#include "KernelRegistry.h"

#include <vector>

namespace nbody {

/// `cpu`: fp32 arithmetic, one OpenMP thread per chunk of bodies. 20 flops per interaction.
void cpuForcesFp32(const HostForceArgs& args);

/// `reference`: fp64 arithmetic on the fp32 inputs, rounded to fp32 on output.
void cpuForcesFp64(const HostForceArgs& args);

/// The fp64 reference used by tests and validation: out[i] = G Σ_j m_j r_ij / (r² + ε²)^{3/2}
/// evaluated in double precision. pos: N Float4 (x, y, z, mass). Returns N Double3.
std::vector<Double3> referenceAccelerations(const Float4* pos, std::size_t n, double eps2, double G);

} // namespace nbody
