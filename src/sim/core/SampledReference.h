#pragma once
/// \file SampledReference.h
/// The fp64 reference accelerations of a sample of bodies, each summed over all N: on the GPU
/// when this build's CUDA kernels can run here (kernels/SampledReference.h), else with the host's
/// OpenMP loop (CpuKernels.h referenceAccelerationsAt). Validation compares kernels with it at
/// sizes where the whole fp64 N² sum is out of reach: S targets cost S·N interactions, 5.5e11
/// for S = 32 768 at N = 16 777 216 — about a second on an H200, tens of minutes on two cores.

#include "contracts/Types.h"

#include <cstddef>
#include <string>
#include <vector>

namespace nbody {

/// The sample's accelerations and where they were computed.
struct SampledReference {
    std::vector<Double3> acceleration; ///< acceleration[s] of body which[s], length time⁻²
    /// magnitudeSum[s] = |G| Σ_j |m_j| |r_ij| / (|r_ij|² + ε²)^{3/2} of body which[s] (S_i, the
    /// scale of a_i's rounding error: validation's rounding bound), length time⁻².
    std::vector<double> magnitudeSum;
    /// "the GPU (fp64)" or "the CPU (fp64, OpenMP)", with the reason when a usable GPU failed and
    /// the host took over ("the CPU (fp64, OpenMP): the GPU's sum failed: …").
    std::string where;
};

/// G Σ_j m_j r_ij / (|r_ij|² + ε²)^{3/2} and its magnitude sum in fp64 for i in `which` (indices
/// < n), j over all n;
/// pos: n positions (x, y, z, mass), Float4 or Double4. A CUDA error falls back to the host with
/// the reason in `where`. Throws std::out_of_range for an index ≥ n.
SampledReference sampledReference(const Float4* pos, std::size_t n, const std::vector<std::size_t>& which,
                                  double eps2, double G);
SampledReference sampledReference(const Double4* pos, std::size_t n, const std::vector<std::size_t>& which,
                                  double eps2, double G);

} // namespace nbody
