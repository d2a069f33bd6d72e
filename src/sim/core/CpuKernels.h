#pragma once
/// \file CpuKernels.h
/// Host force kernels (OpenMP). Both loop over all j for each i (N² interactions, one pass per
/// body, no shared state between threads: deterministic for any thread count). `cpu` is SIMD
/// (Highway, CpuForcesSimd.cpp), `reference` plain fp64 (CpuKernels.cpp).

#include "sim/core/KernelRegistry.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace nbody {

/// `cpu`: acc[i] = G Σ_j m_j r_ij / (|r_ij|² + ε²)^{3/2} in fp32, SIMD through Highway
/// (CpuForcesSimd.cpp), all pairs (the structure of GPU Gems 3 ch. 31 on CPU vectors).
///
/// Shapes and units: args.pos N Float4 (x, y, z in length units, w = mass), args.acc N Float4
/// written (ax, ay, az in length/time², w = 0); eps2 in length², G in the model's units; N ≥ 0.
///
/// Layout: the positions are transposed per call into structure-of-arrays x | y | z | m/8
/// (a buffer owned by the calling thread, reused across calls), padded with zero-mass bodies to
/// a whole number of i groups. Vectors run over i (L lanes = 4, 8 or 16 bodies); each j body is
/// broadcast and used by 1 (SSE/AVX2) or 2 (AVX-512) i vectors per iteration; j goes in tiles of
/// 1024 bodies (16 KiB, kept in L1) that each group of 4 i blocks sweeps in turn. OpenMP splits
/// the i groups (static schedule); every i sums j = 0, 1, …, N−1 in order in its own lane, so the
/// result does not depend on the thread count (deterministic), but does on the SIMD target.
///
/// Arithmetic per pair: r = x_j − x_i (3 sub), r² + ε² as three FMAs starting from ε², u ≈ 1/√(r²+ε²)
/// from hn::ApproximateReciprocalSqrt refined by one Newton–Raphson step u ← u(3 − (r²+ε²)u²)/2
/// (the ½ folded into m/8, exact), s = m u³, three FMAs into the sums. Counted as 20 flops per
/// interaction by convention (kFlopsPerInteractionFp32); the kernel issues 16 vector operations
/// plus the reciprocal square root estimate. With ε² < kMinUnguardedEps2 a mask (r² + ε² > 0)
/// makes a pair at zero distance (the self-term) contribute 0 instead of NaN.
///
/// Accuracy: if u₀ = (1 + e)/√x, one Newton step gives u₁ = (1 − 3e²/2 − e³/2)/√x. x86 rsqrtps
/// (SSE/AVX2) has |e| ≤ 1.5·2⁻¹² and AVX-512 rsqrt14 |e| ≤ 2⁻¹⁴, so |u₁√x − 1| ≤ 2.0e-7 (resp.
/// 5.6e-9) before rounding, ≤ 3e-7 with it; measured over every float in [1, 4) (which covers
/// all normal inputs; tst_kernels rsqrtRefinement): 2.05e-7 (AVX2), 2.18e-7 (SSE4, SSSE3),
/// 1.32e-7 (AVX-512), 1.47e-7 (SCALAR). The cube and the mass add ~3 ulp: each term is within
/// ~1e-6 of m/r³; the sum of N terms then rounds like any fp32 sum (≲ √N·6e-8 typical).
/// Highway's EMU128/SCALAR fallbacks estimate with the 0x5F3759DF trick (e ≈ 1.75e-3) and take a
/// second Newton step.
void cpuForcesFp32(const HostForceArgs& args);

/// The Highway targets (HWY_AVX3, HWY_AVX2, …) cpuForcesFp32 was compiled for that this CPU
/// runs, best first; cpuSimdTarget() is the one the run-time dispatch chooses.
std::vector<std::int64_t> cpuSimdTargets();
std::int64_t cpuSimdTarget();
/// "AVX3", "AVX2", "SSE4", "SSSE3", "EMU128", …
std::string cpuSimdTargetName(std::int64_t target);
/// Runs f() with Highway's run-time dispatch restricted to `target` (one of cpuSimdTargets()), so
/// that every SIMD path inside it (the `cpu` and `tree-cpu` kernels) takes that target; returns
/// the target that ran. Rethrows what f throws, after restoring the dispatch. Not thread-safe:
/// it changes Highway's process-wide target mask while it runs (tests).
std::int64_t runOnCpuSimdTarget(std::int64_t target, const std::function<void()>& f);
/// cpuForcesFp32 on one target of cpuSimdTargets() (tests: every compiled path against the
/// reference); returns the target that ran. Not thread-safe: it changes Highway's process-wide
/// target mask while it runs.
std::int64_t cpuForcesFp32OnTarget(const HostForceArgs& args, std::int64_t target);
/// out[k] ≈ 1/√x[k] (k < n) exactly as cpuForcesFp32 computes it on `target` (the estimate and
/// its Newton refinement), for tests of the error bound. Returns the target that ran.
std::int64_t cpuRsqrtOnTarget(const float* x, float* out, std::size_t n, std::int64_t target);

/// Throws std::invalid_argument unless args.active lists ascending rows < n with [iBegin, iEnd)
/// the whole range (the active-row contract of HostForceArgs); the message names the entry.
void checkActiveRows(const HostForceArgs& args);

/// `reference`: fp64 arithmetic on the fp64 state (pos, acc: N Double4). 30 flops per interaction.
void cpuForcesFp64(const HostForceArgs& args);

/// The fp64 reference used by tests and validation: out[i] = G Σ_j m_j r_ij / (r² + ε²)^{3/2}
/// evaluated in double precision. pos: N Float4 or N Double4 (x, y, z, mass). Returns N Double3.
/// magnitudeSums (optional): resized to N and set to S_i = |G| Σ_j |m_j| |r_ij| / (r² + ε²)^{3/2},
/// the sum of the terms' magnitudes (bodyBodyInteraction's magnitude; acceleration units), the
/// scale of the rounding error of any summation of a_i (validation's rounding bound,
/// Validation.h). The accelerations are the same bits with or without it.
std::vector<Double3> referenceAccelerations(const Float4* pos, std::size_t n, double eps2, double G,
                                            std::vector<double>* magnitudeSums = nullptr);
std::vector<Double3> referenceAccelerations(const Double4* pos, std::size_t n, double eps2, double G,
                                            std::vector<double>* magnitudeSums = nullptr);
/// The same for the bodies `which` only (each summed over all N): out[s] is the acceleration of
/// body which[s], (*magnitudeSums)[s] its S. For checks of large N against a sample. Throws
/// std::out_of_range for an index ≥ n.
std::vector<Double3> referenceAccelerationsAt(const Float4* pos, std::size_t n, const std::vector<std::size_t>& which,
                                              double eps2, double G, std::vector<double>* magnitudeSums = nullptr);
std::vector<Double3> referenceAccelerationsAt(const Double4* pos, std::size_t n, const std::vector<std::size_t>& which,
                                              double eps2, double G, std::vector<double>* magnitudeSums = nullptr);

} // namespace nbody
