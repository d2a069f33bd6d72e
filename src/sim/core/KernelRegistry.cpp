#include "sim/core/KernelRegistry.h"
#include "sim/core/CpuKernels.h"
#include "sim/base/DeviceInfo.h"
#include "contracts/Interaction.h"
#include "sim/core/TreeCpu.h"

#if NBODY_HAVE_CUDA
#include "kernels/ForceKernels.h"
#define NB_GPU(fn) &gpu::fn
#else
#define NB_GPU(fn) nullptr
#endif

#include <array>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>

namespace nbody {

namespace {

// The one table of force kernels. A new kernel is a new row.
constexpr KernelParamUse kNoParams{};
constexpr KernelParamUse kTiledParams{true, false, true};
constexpr KernelParamUse k2DParams{true, true, false};
constexpr KernelParamUse kBlockedParams{true, false, false, true, true, true};

// Issue slots per interaction (KernelInfo::slotsPerInteraction) of the rows compiled without
// -ftz (tiled, tiled-fp64, the 2D family), counted in the sm_90 machine code of the unrolled inner
// loop (nvcc 13.0, -O3, the unguarded interaction that ε² ≥ kMinUnguardedEps2 selects);
// docs/performance.md, "The ceiling". Only the arithmetic is counted: loads, index arithmetic,
// loop control and reductions are what a kernel adds on top, and what its share shows. The
// blocked rows state theirs beside them (13 and 17, -ftz and nbRsqrtFast).
//
// fp32 bodyBodyInteraction (contracts/Interaction.h, ε² folded into the first FMA), 16 fp32 slots:
//   FADD  3  r = x_j − x_i
//   FFMA  6  r² + ε² (3), a += r·s (3)
//   FMUL  5  s = m·inv·inv·inv (3), rsqrtf's denormal fix-up (2, predicated: scale a tiny r²
//            into MUFU's range and the result back)
//   FSETP 1  rsqrtf's fix-up test |r²| < FLT_MIN
//   MUFU  1  MUFU.RSQ (its own 16-lane pipe on sm_90; one issue slot)
// (tiled adds an LDS.128 and ~1.3 slots of loop control per interaction, unrolled 8 times: 18.5
// issue slots in all.) The 2D kernels run the same 16 per pair.
constexpr int kSlotsFp32 = 16;
// fp64 (tiled-fp64, CUDA's rsqrt(double)), 17 fp64-pipe slots: DADD 3 (r), DMUL 5 (m·inv³ 3,
// rsqrt's Newton step 2), DFMA 9 (r² + ε² 3, a += r·s 3, Newton step 3). The MUFU.RSQ64H seed and
// its range check (~10 integer, move and branch slots) issue elsewhere and are not counted.
constexpr int kSlotsFp64 = 17;

#define NB_2D_ROW(id, name, description, layout, deterministic, Fn)                              \
    KernelInfo{id, name, description, Backend::Cuda, Precision::Fp32, layout, deterministic, k2DParams, \
               kFlopsPerInteractionFp32, nullptr, NB_GPU(launch##Fn), NB_GPU(check##Fn), NB_GPU(workspace##Fn), \
               kSlotsFp32}

const std::array kRegistry = {
    KernelInfo{
        "cpu", "CPU (OpenMP)",
        "All pairs on the CPU in fp32, SIMD through Highway (AVX-512, AVX2, SSE4, ... chosen at run time): "
        "positions transposed into x/y/z/m arrays and swept in L1-sized j tiles by vectors of i bodies, "
        "approximate 1/sqrt refined by one Newton step (fp32 accuracy), OpenMP over blocks of i. "
        "Deterministic for any thread count; the choice without a GPU and for small N.",
        Backend::Cpu, Precision::Fp32, Layout::Float4, /*deterministic*/ true, kNoParams,
        kFlopsPerInteractionFp32, &cpuForcesFp32},
    KernelInfo{
        "tree-cpu", "Barnes-Hut tree, CPU (OpenMP)",
        "Barnes-Hut tree code on the CPU, O(N log N), approximate: Morton keys, a parallel sort and "
        "Karras's binary radix tree; fp64 monopole + quadrupole moments per cell; one walk per group of "
        "32 bodies (opening angle theta, Bonsai's criterion) builds a body list and a cell list that "
        "the group's bodies sum with Highway SIMD vectors. Error set by theta (p99 ~1e-4 at the default "
        "0.3); optionally GADGET-2's relative criterion too (alpha, about half the work at p99 1e-3). "
        "Wins over all pairs from a few thousand bodies. Deterministic for any thread count. "
        "Parameters: theta, leaf size, alpha.",
        Backend::Cpu, Precision::Fp32, Layout::Float4, /*deterministic*/ true, kNoParams,
        kFlopsPerInteractionFp32, &cpuTreeForces, nullptr, nullptr, nullptr, 0, nullptr, ForceMethod::Tree},
    KernelInfo{
        "reference", "CPU fp64 reference (OpenMP)",
        "All pairs on the CPU in double precision on the fp64 state (double positions, velocities and "
        "accelerations). The reference every kernel is validated against; scalar, about 18x slower per core "
        "than the SIMD fp32 `cpu` kernel (docs/performance.md, The CPU kernel).",
        Backend::Cpu, Precision::Fp64, Layout::Double4, true, kNoParams, kFlopsPerInteractionFp64, &cpuForcesFp64},
    // First CUDA row: the default kernel on GPUs (defaultKernelId()).
    KernelInfo{
        "blocked", "Register-blocked tiles, j-split (CUDA)",
        "The fastest all-pairs kernel here: each thread keeps several bodies (i) in registers, so "
        "every position read from the shared-memory tile feeds several interactions; softening folded "
        "into the first FMA and denormals flushed (bare hardware rsqrt): 13 issue slots per "
        "interaction. When N is too small to fill the GPU the j-range is split across blocks and "
        "summed by a second, deterministic pass. Parameters (auto: tuned per device and N): block "
        "size, bodies per thread, j-split, unroll.",
        Backend::Cuda, Precision::Fp32, Layout::Float4, true, kBlockedParams, kFlopsPerInteractionFp32, nullptr,
        NB_GPU(launchBlocked), NB_GPU(checkBlocked), NB_GPU(workspaceBlocked), /*slots*/ 13,
        NB_GPU(defaultsBlocked), ForceMethod::AllPairs, /*iSlices*/ true, /*activeRows*/ true},
    KernelInfo{
        "blocked-fp64", "Register-blocked tiles, j-split, fp64 (CUDA)",
        "The blocked kernel on the fp64 state: double positions, velocities and accelerations, with "
        "the reciprocal square root from the hardware approximation refined by one third-order "
        "Newton step to full fp64 accuracy (17 fp64 operations per interaction instead of about 25). "
        "30 flops per interaction by the nbody sample's count. Parameters as for blocked.",
        Backend::Cuda, Precision::Fp64, Layout::Double4, true, kBlockedParams, kFlopsPerInteractionFp64, nullptr,
        NB_GPU(launchBlockedFp64), NB_GPU(checkBlockedFp64), NB_GPU(workspaceBlockedFp64), /*slots*/ 17,
        NB_GPU(defaultsBlockedFp64), ForceMethod::AllPairs, /*iSlices*/ true, /*activeRows*/ true},
    KernelInfo{
        "tiled", "Tiled shared memory (CUDA)",
        "GPU Gems 3 ch. 31: one thread per body; the block stages tiles of blockSize x tile factor "
        "positions through shared memory, so global memory is read N/tile times instead of N. "
        "20 flops per interaction; compute-bound for large N. Parameters: block size, tile width factor.",
        Backend::Cuda, Precision::Fp32, Layout::Float4, true, kTiledParams, kFlopsPerInteractionFp32, nullptr,
        NB_GPU(launchTiled), NB_GPU(checkTiled), nullptr, kSlotsFp32},
    KernelInfo{
        "tree", "Barnes-Hut tree (CUDA)",
        "Barnes & Hut (1986) on the GPU: every evaluation sorts the bodies by Morton key (CUB radix sort), "
        "builds a binary radix tree over them (Karras 2012), sums monopole and quadrupole moments bottom-up "
        "in fp64, and walks the tree once per warp for each group of 32 neighbouring bodies; distant cells "
        "act as one multipole, near ones body by body with the softened interaction. O(N log N): the choice "
        "for N above ~100 000. Approximate: the opening angle theta sets the error (smaller is more accurate "
        "and slower); leaf size sets how many bodies a cell may hold before it is opened; optionally GADGET-2's "
        "relative criterion too (alpha, theta then the guard).",
        Backend::Cuda, Precision::Fp32, Layout::Float4, /*deterministic*/ true, kNoParams, kFlopsPerInteractionFp32,
        nullptr, NB_GPU(launchTree), NB_GPU(checkTree), NB_GPU(workspaceTree), /*slots*/ 0, nullptr,
        ForceMethod::Tree, /*iSlices: every slice would walk the whole tree again*/ false, /*activeRows*/ true},
    NB_2D_ROW("reduction2d", "2D reduction (CUDA)",
              "A 2D grid over the N x N interaction matrix: each thread computes one pair (i = y, j = x); "
              "the block sums its row with a shared-memory tree; one partial per (body, block column) "
              "goes to a workspace of N x N/blockSize float4, summed per body by a second kernel. Exposes "
              "N^2 parallelism, so it fills the GPU at small N, but every pair pays a shared-memory "
              "reduction step and the workspace costs N^2/blockSize x 16 bytes of traffic. "
              "Parameters: block size (threads along j), block rows.",
              Layout::Float4, true, Reduction2D),
    NB_2D_ROW("reduction2d-fadl", "2D reduction, FADL x2 (CUDA)",
              "reduction2d with First Add During Load: each thread computes two pairs and adds them "
              "before the first store, so the tree starts one level lower and the workspace is half "
              "as wide. Halves the reduction and workspace traffic per pair.",
              Layout::Float4, true, Reduction2DFadl),
    NB_2D_ROW("reduction2d-fadl4", "2D reduction, FADL x4 (CUDA)",
              "reduction2d with four pairs per thread added before the first store: the tree starts "
              "two levels lower and the workspace is a quarter as wide. The fastest of the 2D "
              "family at large N.",
              Layout::Float4, true, Reduction2DFadl4),
    NB_2D_ROW("reduction2d-float3", "2D reduction, float3 layout (CUDA)",
              "reduction2d with 12-byte float3 elements for velocities, accelerations, shared partials "
              "and the workspace instead of 16-byte float4: 25 % less memory, but each element is "
              "three 4-byte accesses instead of one aligned 16-byte access. Shows the effect of alignment.",
              Layout::Float3, true, Reduction2DFloat3),
    NB_2D_ROW("reduction2d-fadl4-float3", "2D reduction, FADL x4, float3 layout (CUDA)",
              "reduction2d-fadl4 with the float3 (12-byte) layout, to compare layouts on the "
              "fastest 2D variant.",
              Layout::Float3, true, Reduction2DFadl4Float3),
    NB_2D_ROW("reduction2d-atomic", "2D reduction, atomic finish (CUDA)",
              "reduction2d whose block partials are added straight into the zeroed accelerations "
              "with atomicAdd: no workspace and no second pass, but the order of the additions "
              "varies from run to run, so results are not bit-reproducible.",
              Layout::Float4, false, Reduction2DAtomic),
    NB_2D_ROW("warp-shuffle", "2D reduction, warp shuffles (CUDA)",
              "reduction2d with the in-block sum done by warp shuffles (__shfl_down_sync) instead of "
              "a shared-memory tree: registers exchange values inside each warp and only one value "
              "per warp goes through shared memory. Block size must be a multiple of 32.",
              Layout::Float4, true, WarpShuffle),
    KernelInfo{
        "tiled-fp64", "Tiled shared memory, fp64 (CUDA)",
        "The tiled kernel of GPU Gems 3 ch. 31 on the fp64 state: double positions, velocities and "
        "accelerations and fp64 arithmetic (30 flops per interaction by the nbody sample's count). "
        "For long or close-encounter runs where fp32 round-off matters; speed follows the device's "
        "fp64 throughput. Parameters: block size, tile width factor.",
        Backend::Cuda, Precision::Fp64, Layout::Double4, true, kTiledParams, kFlopsPerInteractionFp64, nullptr,
        NB_GPU(launchTiledFp64), NB_GPU(checkTiledFp64), nullptr, kSlotsFp64},
    // Test only, and last: kernelRegistry() leaves it out unless testFaultyKernelEnabled().
    KernelInfo{
        "faulty-test", "Test only: faults after K evaluations (CUDA)",
        "For tests of the GPU fault handling: the forces of `tiled`, then, from the K-th force evaluation "
        "of the process on (NBODY_TEST_FAULT_AFTER, default 50), a write out of bounds: a real illegal "
        "address, which loses the CUDA context. Listed only with NBODY_TEST_FAULTY_KERNEL=1.",
        // No launch parameters (the tiled defaults: 256 threads, tile x1): never tuned, since the
        // tuner's evaluations would count towards K.
        Backend::Cuda, Precision::Fp32, Layout::Float4, true, kNoParams, kFlopsPerInteractionFp32, nullptr,
        NB_GPU(launchFaulty), NB_GPU(checkFaulty), nullptr, kSlotsFp32},
};

#undef NB_2D_ROW

} // namespace

// deviceForceArgs() is defined with the launch resolution (Launch.cpp: resolveLaunch).

std::string_view toString(Backend b)
{
    return b == Backend::Cpu ? "CPU" : "CUDA";
}

std::string_view toString(Precision p)
{
    return p == Precision::Fp32 ? "fp32" : "fp64";
}

std::string_view toString(Layout l)
{
    switch (l) {
    case Layout::Float4: return "float4";
    case Layout::Float3: return "float3";
    case Layout::Double4: return "double4";
    }
    return "?";
}

std::string_view toString(ForceMethod m)
{
    return m == ForceMethod::AllPairs ? "all pairs" : "tree";
}


bool testFaultyKernelEnabled()
{
    static const bool enabled = [] {
        const char* v = std::getenv("NBODY_TEST_FAULTY_KERNEL");
        return v && std::string_view(v) == "1";
    }();
    return enabled;
}

std::span<const KernelInfo> kernelRegistry()
{
    const std::span<const KernelInfo> all(kRegistry);
    return testFaultyKernelEnabled() ? all : all.first(all.size() - 1);
}

const KernelInfo* findKernel(std::string_view id)
{
    for (const KernelInfo& k : kernelRegistry())
        if (k.id == id)
            return &k;
    return nullptr;
}

std::string_view defaultKernelId()
{
    for (const KernelInfo& k : kernelRegistry())
        if (k.backend == Backend::Cuda && availability(k).available && k.id != "faulty-test")
            return k.id;
    return "cpu";
}

bool builtWithCuda()
{
    return NBODY_HAVE_CUDA != 0;
}

Availability availability(const KernelInfo& k)
{
    if (k.backend == Backend::Cpu)
        return {true, {}};
    // Asked once per process: devices do not come and go while we run. In a CPU-only build it
    // says "built without CUDA".
    std::string why = whyCudaRowUnavailable(k.device != nullptr, "kernel", k.id);
    return {why.empty(), std::move(why)};
}


} // namespace nbody
