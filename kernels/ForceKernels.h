#pragma once
/// \file ForceKernels.h
/// Launchers of the CUDA force kernels (host API, no CUDA headers). Each matches the registry's
/// DeviceForceFn / DeviceCheckFn signatures (sim/core/KernelRegistry.h).

#include "contracts/ForceArgs.h"

namespace nbody::gpu {

/// `tiled` — GPU Gems 3 ch. 31 (Nyland, Harris, Prins): one thread per body; the block stages
/// tiles of blockSize × tileWidthFactor positions through shared memory and every thread
/// accumulates its body's acceleration over the tile. Layout: positions float4 (x, y, z, m),
/// accelerations float4 (ax, ay, az, 0). 20 flops per interaction; global traffic
/// N²/(tile width) position loads instead of N²; shared memory 16 · blockSize · factor bytes.
/// Any N ≥ 1 (the last tile is partial; threads past N load but do not store).
void launchTiled(const DeviceForceArgs& args);
/// "" when `tiled` can launch with these parameters on the current device, else a message
/// naming the limit (threads per block, shared memory per block, tile factor range).
std::string checkTiled(const DeviceForceArgs& args);

/// `tiled-fp64`: the same algorithm on the fp64 state: positions double4 (x, y, z, m),
/// accelerations double4, fp64 arithmetic (30 flops per interaction by the sample's count);
/// shared memory 32 · blockSize · factor bytes.
void launchTiledFp64(const DeviceForceArgs& args);
std::string checkTiledFp64(const DeviceForceArgs& args);

// ---- register-blocked all-pairs with a j-split (BlockedForces.cu) ---------------------------
/// `blocked` (fp32, float4 layout) and `blocked-fp64` (double4): B threads per block, R i-bodies
/// per thread in registers, tiles of B j-bodies through shared memory, the loop over a tile
/// unrolled U times, the j-range split S ways across grid rows with a deterministic second pass
/// (workspace S' × N vectors). Parameters: blockSize (B, a multiple of 32), bodiesPerThread (R:
/// 1, 2, 4, 8), unroll (U: 1, 2, 4, 8), jSplit (S ≥ 1). 13 issue slots per interaction in fp32
/// (-ftz=true), 17 fp64 + 1 MUFU in fp64. defaults*() fill auto (0) parameters for the device.
void launchBlocked(const DeviceForceArgs& args);
std::string checkBlocked(const DeviceForceArgs& args);
std::size_t workspaceBlocked(const DeviceForceArgs& args);
void defaultsBlocked(DeviceForceArgs& args);
void launchBlockedFp64(const DeviceForceArgs& args);
std::string checkBlockedFp64(const DeviceForceArgs& args);
std::size_t workspaceBlockedFp64(const DeviceForceArgs& args);
void defaultsBlockedFp64(DeviceForceArgs& args);

// ---- Barnes–Hut tree (TreeForces.cu) ---------------------------------------------------------
/// `tree`: the binary radix tree of contracts/Tree.h rebuilt every call (CUB sort, Karras nodes, fp64
/// moments bottom-up) and walked by one warp per group of 32 bodies. Positions float4 (x, y, z,
/// m) in, accelerations float4 (ax, ay, az, 0) out. Reads openingAngle (θ in (0, 2]) and
/// leafSize (1..tree::kMaxLeafSize); 54 flops per body–cell and 20 per body–body interaction.
void launchTree(const DeviceForceArgs& args);
std::string checkTree(const DeviceForceArgs& args);
std::size_t workspaceTree(const DeviceForceArgs& args);

// ---- 2D decomposition (Reduction2D.cu) -----------------------------------------------------
// Grid over the N×N interaction matrix: blocks of blockSize (j, along x) × blockRows (i, along
// y) threads; each thread computes F pairs (First Add During Load, F = 1, 2, 4) with positions
// float4 (x, y, z, m); the block reduces along x; the partial of each (body, block column) goes
// to a workspace of ceil(N / (blockSize·F)) × N elements that a second kernel sums per body in
// column order, or (atomic) straight into the acceleration with atomicAdd. 20 flops per pair;
// global traffic per pair: two 16-byte position loads (cached), plus per row of a block one
// partial store and one load in the second pass. Shared memory: blockSize × blockRows elements
// (tree) or blockSize / 32 × blockRows (warp shuffle). Any N ≥ 1.
// Each variant has launch / check / workspace functions matching DeviceForceFn, DeviceCheckFn
// and WorkspaceFn.
#define NB_DECLARE_2D(Name)                                                                    \
    void launch##Name(const DeviceForceArgs& args);                                            \
    std::string check##Name(const DeviceForceArgs& args);                                      \
    std::size_t workspace##Name(const DeviceForceArgs& args);

NB_DECLARE_2D(Reduction2D)           ///< F = 1, float4, shared-memory tree, two passes
NB_DECLARE_2D(Reduction2DFadl)       ///< F = 2
NB_DECLARE_2D(Reduction2DFadl4)      ///< F = 4
NB_DECLARE_2D(Reduction2DFloat3)     ///< F = 1, float3 (12-byte) partials and accelerations
NB_DECLARE_2D(Reduction2DFadl4Float3)///< F = 4, float3
NB_DECLARE_2D(Reduction2DAtomic)     ///< F = 1, float4, atomicAdd into the accelerations (non-deterministic)
NB_DECLARE_2D(WarpShuffle)           ///< F = 1, float4, in-block reduction with warp shuffles

#undef NB_DECLARE_2D

// ---- test only (FaultyForces.cu) ------------------------------------------------------------
/// `faulty-test`: the forces of `tiled`, then a one-thread tripwire that counts force evaluations
/// on the device (graph replays included) and, from the K-th of the process on, writes one float
/// out of the accelerations' bounds into the never-mapped first page: a real illegal address, a
/// sticky error that loses the CUDA context. K = NBODY_TEST_FAULT_AFTER (default 50). The registry lists the row only when
/// NBODY_TEST_FAULTY_KERNEL=1 (sim/core/KernelRegistry.h, testFaultyKernelEnabled).
void launchFaulty(const DeviceForceArgs& args);
std::string checkFaulty(const DeviceForceArgs& args);
/// K of launchFaulty: NBODY_TEST_FAULT_AFTER when it is a positive integer, else 50.
unsigned long long faultyEvaluationsBeforeFault();

} // namespace nbody::gpu
