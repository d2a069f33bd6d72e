#pragma once
/// \file Interaction.h
/// The pairwise softened gravitational interaction, written once for the host and the device
/// and used by every kernel (CPU, reference, CUDA).

#include <cmath>

#if defined(__CUDACC__)
#define NB_HD __host__ __device__ __forceinline__
#else
#define NB_HD inline
#endif

namespace nbody {

/// 1/sqrt(x); the device uses the hardware reciprocal square root.
NB_HD float nbRsqrt(float x)
{
#if defined(__CUDA_ARCH__)
    return rsqrtf(x);
#else
    return 1.0f / std::sqrt(x);
#endif
}

NB_HD double nbRsqrt(double x)
{
#if defined(__CUDA_ARCH__)
    return rsqrt(x);
#else
    return 1.0 / std::sqrt(x);
#endif
}

/// 1/sqrt(x) for x > 0 in fp64 at a fraction of the cost of the correctly rounded one on the
/// device: the hardware approximation (MUFU.RSQ64H through PTX rsqrt.approx.ftz.f64, relative
/// error below 2^-22) refined by one third-order Newton step, y ← y + y·e·(1/2 + 3/8·e) with
/// e = 1 − x·y², whose relative error is about (5/16)·(2δ)³ < 2^-60 for δ < 2^-22, below fp64
/// rounding (Householder's method of order 3 on f(y) = 1/y² − x). x = 0 or ∞ gives NaN: callers
/// guard zero distances. 1 MUFU + 5 fp64 operations. The host computes 1/sqrt(x).
NB_HD double nbRsqrtFast(double x)
{
#if defined(__CUDA_ARCH__)
    double y;
    asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
    const double e = fma(-x, y * y, 1.0);
    return fma(y * e, fma(0.375, e, 0.5), y);
#else
    return 1.0 / std::sqrt(x);
#endif
}

/// fp32: the hardware reciprocal square root already is the fast one.
NB_HD float nbRsqrtFast(float x)
{
    return nbRsqrt(x);
}

/// sqrt(x); the host's std::sqrt, the device's correctly rounded sqrt.
NB_HD double nbSqrt(double x)
{
#if defined(__CUDA_ARCH__)
    return sqrt(x);
#else
    return std::sqrt(x);
#endif
}

/// The one implementation of the pair interaction below (call bodyBodyInteraction): with
/// Magnitude, *si also receives the term's magnitude (see the overload with `si`); without, si
/// is not read (nullptr).
template <class T, bool GuardZeroDistance, bool FastRsqrt, bool Magnitude, class P, class A>
NB_HD void bodyBodyInteraction(const P& bi, const P& bj, A& ai, T* si, T eps2)
{
    const T rx = T(bj.x) - T(bi.x);
    const T ry = T(bj.y) - T(bi.y);
    const T rz = T(bj.z) - T(bi.z);
    const T r2 = eps2 + rx * rx + ry * ry + rz * rz;
    T inv;
    if constexpr (GuardZeroDistance)
        inv = r2 > T(0) ? (FastRsqrt ? nbRsqrtFast(r2) : nbRsqrt(r2)) : T(0);
    else
        inv = FastRsqrt ? nbRsqrtFast(r2) : nbRsqrt(r2);
    const T s = T(bj.w) * inv * inv * inv;
    ai.x += rx * s;
    ai.y += ry * s;
    ai.z += rz * s;
    if constexpr (Magnitude) {
        const T d = T(nbSqrt(double(rx * rx + ry * ry + rz * rz)));
        *si += d * (s < T(0) ? -s : s);
    }
}

/// Adds to `ai` the acceleration that body j exerts on body i, without the factor G:
///
///     ai += m_j · r_ij / (|r_ij|² + ε²)^{3/2},   r_ij = x_j − x_i
///
/// (GPU Gems 3 ch. 31, `bodyBodyInteraction`). `bi`, `bj` have members x, y, z (position,
/// length units) and w (mass); `ai` has x, y, z. T is the arithmetic type (float or double).
/// Counted as 20 flops, as in GPU Gems 3 and NVIDIA's nbody sample: 3 (r) + 6 (r² + ε²) +
/// 4 (rsqrt and cube) + 1 (m·) + 6 (accumulate).
///
/// The order of the operations is chosen for the FMA units: ε² enters the first FMA
/// (r² = fma(rz, rz, fma(ry, ry, fma(rx, rx, ε²)))) and s = ((m·inv)·inv)·inv, so a device
/// interaction is 3 FADD + 3 FFMA + 1 rsqrt + 3 FMUL + 3 FFMA (13 issue slots in fp32).
///
/// GuardZeroDistance: a pair at zero distance with ε² = 0 contributes nothing (instead of
/// 0·∞ = NaN), so self-interaction needs no branch. Kernels may drop the guard (one select per
/// interaction) when ε² ≥ kMinUnguardedEps2, where r² + ε² > 0 always and (ε²)^{−3/2} is finite
/// in fp32, so the self-term is 0·finite = 0.
/// FastRsqrt: nbRsqrtFast instead of nbRsqrt (differs for fp64 on the device only).
template <class T, bool GuardZeroDistance = true, bool FastRsqrt = false, class P, class A>
NB_HD void bodyBodyInteraction(const P& bi, const P& bj, A& ai, T eps2)
{
    bodyBodyInteraction<T, GuardZeroDistance, FastRsqrt, false>(bi, bj, ai, static_cast<T*>(nullptr), eps2);
}

/// bodyBodyInteraction that also adds to `si` the magnitude of the term,
///
///     si += |m_j| · |r_ij| / (|r_ij|² + ε²)^{3/2}
///
/// (same arithmetic for ai, bit for bit). Summed over j, S_i = Σ_j |term_j| is the scale of the
/// rounding error of any order of summing the terms (Higham, Accuracy and Stability of Numerical
/// Algorithms, 2nd ed., §4.2: |error| ≤ γ_{N−1} S_i): validation's rounding bound. For the fp64
/// references: 7 flops and a sqrt more per interaction (|r_ij|² without ε²: 5; |r_ij|·|s| and the sum: 2).
template <class T, bool GuardZeroDistance = true, bool FastRsqrt = false, class P, class A>
NB_HD void bodyBodyInteraction(const P& bi, const P& bj, A& ai, T& si, T eps2)
{
    bodyBodyInteraction<T, GuardZeroDistance, FastRsqrt, true>(bi, bj, ai, &si, eps2);
}

/// The smallest ε² for which kernels may call bodyBodyInteraction<T, false>: (1e-24)^{−3/2} =
/// 1e36 < FLT_MAX, so the self-term stays finite.
inline constexpr float kMinUnguardedEps2 = 1e-24f;

/// Pairwise potential of body j at body i, without G: −m_j / sqrt(|r_ij|² + ε²); 0 for a
/// pair at zero distance with ε² = 0 (self-term).
template <class T, class P>
NB_HD T pairPotential(const P& bi, const P& bj, T eps2)
{
    const T rx = T(bj.x) - T(bi.x);
    const T ry = T(bj.y) - T(bi.y);
    const T rz = T(bj.z) - T(bi.z);
    const T r2 = rx * rx + ry * ry + rz * rz + eps2;
    return r2 > T(0) ? -T(bj.w) * nbRsqrt(r2) : T(0);
}

/// Flops per interaction by the convention of GPU Gems 3 ch. 31 / NVIDIA's nbody sample.
inline constexpr int kFlopsPerInteractionFp32 = 20;
/// Flops per interaction in fp64 (the sample's convention: division and sqrt counted apart).
inline constexpr int kFlopsPerInteractionFp64 = 30;

} // namespace nbody
