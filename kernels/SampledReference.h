#pragma once
/// \file SampledReference.h
/// The fp64 direct sum for a sample of bodies, on the GPU: the reference that validation
/// compares kernels with at sizes where the whole fp64 N² sum is out of reach (S sampled targets,
/// each against all N). Host API without CUDA headers.
///
/// Method: the targets are spread one per thread, 256 to a block; the j-loop over all N is split
/// into ranges of about 65 536 bodies (at most 64, a function of N alone) along the grid's y, so
/// that a few hundred target blocks still fill the GPU. Each thread accumulates
/// Σ_j m_j r_ij / (|r_ij|² + ε²)^{3/2} and, in a fourth fp64 accumulator, the magnitude sum
/// Σ_j |m_j| |r_ij| / (|r_ij|² + ε²)^{3/2} over its range in fp64 (contracts/Interaction.h's
/// bodyBodyInteraction with the magnitude, the host reference's arithmetic; the self-term and
/// zero distances contribute nothing), the positions staged through shared memory a tile of 256
/// at a time (GPU Gems 3 ch. 31's tiling); a second pass adds the ranges' partials in order and
/// multiplies by G (the magnitude by |G|). Every sum has a fixed order: bit-reproducible for a
/// given N and sample on any device.
/// 27 fp64 flops and a sqrt per interaction (20 for the acceleration, GPU Gems' count, 30 by
/// NVIDIA's fp64 count; 7 for the magnitude: |r_ij|² 5, |r_ij|·|s| and the sum 2), S × N
/// interactions; global traffic N / 256 position tiles per target block. Device memory: the
/// positions (16 or 32 bytes a body), the indices, and (ranges + 1) · S fp64 quadruples
/// (x, y, z: the acceleration; w: the magnitude sum).

#include "contracts/Types.h"

#include <cstddef>
#include <vector>

namespace nbody::gpu {

/// Accelerations of the bodies `which` (each summed over all n), fp64, on the current CUDA
/// device: out[s] is the acceleration of body which[s], length time⁻². pos: n positions (x, y, z,
/// mass) on the host, Float4 (an fp32 state, widened exactly) or Double4. magnitudeSums
/// (optional): resized to which.size(), (*magnitudeSums)[s] = |G| Σ_j |m_j| |r_ij| /
/// (|r_ij|² + ε²)^{3/2} of body which[s] (the host's referenceAccelerationsAt's S). Throws
/// std::out_of_range for an index ≥ n, std::invalid_argument for n above INT32_MAX, CudaError for
/// a failed CUDA call or too little device memory (checked before allocating).
std::vector<Double3> sampledReferenceAccelerations(const Float4* pos, std::size_t n, const std::vector<std::size_t>& which,
                                                   double eps2, double G, std::vector<double>* magnitudeSums = nullptr);
std::vector<Double3> sampledReferenceAccelerations(const Double4* pos, std::size_t n,
                                                   const std::vector<std::size_t>& which, double eps2, double G,
                                                   std::vector<double>* magnitudeSums = nullptr);

} // namespace nbody::gpu
