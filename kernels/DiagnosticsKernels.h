#pragma once
/// \file DiagnosticsKernels.h
/// The diagnostics of a device-resident state (sim/core/Diagnostics.h) computed on the GPU, without
/// copying the state back: 96 bytes (twelve fp64 sums) cross to the host. Host API without CUDA
/// headers; the kernels are file-local in DiagnosticsKernels.cu.
///
/// Method: one thread per body i computes its per-body terms (m, m r, ½ m v², m v, m r × v) in
/// fp64 from the widened state and its row of the pair sum, Σ_{j≠i} −m_j / sqrt(|r_ij|² + ε²),
/// walking the bodies in tiles of blockSize positions staged through shared memory (GPU Gems 3
/// ch. 31's tiling). Pair terms are evaluated in the state's precision (fp32 for the float4 and
/// float3 layouts, fp64 for double4) and accumulated in fp64; the row is multiplied by ½ m_i
/// (each pair is met twice). Each block reduces its twelve values with a shared-memory tree and
/// writes one partial per value; a second pass (one block per value) sums the partials with a
/// fixed strided loop and tree. The order of every addition is fixed, so results are
/// bit-reproducible for a given block size. Cost: N² pair terms (twice the host's N²/2, for
/// balanced rows), 12 fp64 values per block of shared-memory traffic.

#include "contracts/DiagnosticSums.h"
#include "contracts/ForceArgs.h"

#include <cstddef>

namespace nbody::gpu {

/// Arguments of launchDiagnostics; pointers are device memory in `layout`.
struct DiagnosticsArgs {
    Layout layout = Layout::Float4;
    const void* pos = nullptr;   ///< N positions (x, y, z, m): float4, or double4 for Layout::Double4
    const void* vel = nullptr;   ///< N velocities: float4, float3 or double4 as the layout says
    std::size_t n = 0;           ///< bodies, 1 ≤ n ≤ INT32_MAX
    double eps2 = 0.0;           ///< softening ε², length² (fp32 layouts round it, as the forces do)
    int blockSize = 0;           ///< threads per block, from diagnosticsBlockSize()
    void* workspace = nullptr;   ///< at least diagnosticsWorkspaceBytes(n, blockSize) bytes
};

/// Threads per block of the diagnostics kernel: `requested`, or for 0 the occupancy
/// calculator's choice for the layout on the current device. Throws std::invalid_argument when
/// the device cannot launch `requested` threads or their shared memory (the message names the
/// limit), CudaError when a CUDA call fails.
int diagnosticsBlockSize(Layout layout, int requested);
/// Bytes of device workspace for n bodies at that block size: 12 fp64 partials per block plus
/// the 12 results.
std::size_t diagnosticsWorkspaceBytes(std::size_t n, int blockSize);

/// Computes the sums on the device and copies them back (synchronises). Throws CudaError.
DiagnosticSums launchDiagnostics(const DiagnosticsArgs& args);

} // namespace nbody::gpu
