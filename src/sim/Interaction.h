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

/// Adds to `ai` the acceleration that body j exerts on body i, without the factor G:
///
///     ai += m_j · r_ij / (|r_ij|² + ε²)^{3/2},   r_ij = x_j − x_i
///
/// (GPU Gems 3 ch. 31, `bodyBodyInteraction`). `bi`, `bj` have members x, y, z (position,
/// length units) and w (mass); `ai` has x, y, z. T is the arithmetic type (float or double).
/// Counted as 20 flops, as in GPU Gems 3 and NVIDIA's nbody sample: 3 (r) + 6 (r² + ε²) +
/// 4 (rsqrt and cube) + 1 (m·) + 6 (accumulate).
///
/// GuardZeroDistance: a pair at zero distance with ε² = 0 contributes nothing (instead of
/// 0·∞ = NaN), so self-interaction needs no branch. Kernels may drop the guard (one select per
/// interaction) when ε² ≥ kMinUnguardedEps2, where r² + ε² > 0 always and (ε²)^{−3/2} is finite
/// in fp32, so the self-term is 0·finite = 0.
template <class T, bool GuardZeroDistance = true, class P, class A>
NB_HD void bodyBodyInteraction(const P& bi, const P& bj, A& ai, T eps2)
{
    const T rx = T(bj.x) - T(bi.x);
    const T ry = T(bj.y) - T(bi.y);
    const T rz = T(bj.z) - T(bi.z);
    const T r2 = rx * rx + ry * ry + rz * rz + eps2;
    T inv;
    if constexpr (GuardZeroDistance)
        inv = r2 > T(0) ? nbRsqrt(r2) : T(0);
    else
        inv = nbRsqrt(r2);
    const T s = T(bj.w) * inv * inv * inv;
    ai.x += rx * s;
    ai.y += ry * s;
    ai.z += rz * s;
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
