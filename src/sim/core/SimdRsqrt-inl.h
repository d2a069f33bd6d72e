/// \file SimdRsqrt-inl.h
/// The reciprocal square root of the SIMD CPU kernels (`cpu`, CpuForcesSimd.cpp, and `tree-cpu`,
/// TreeCpu.cpp), written once: Highway's estimate refined by Newton–Raphson steps. A per-target
/// Highway header (included after hwy/highway.h by files that foreach_target.h re-includes once
/// per target; the include guard toggles with HWY_TARGET_TOGGLE). The error bound is derived in
/// CpuKernels.h (cpuForcesFp32) and measured by tst_kernels (rsqrtRefinement).

#if defined(NBODY_SIM_SIMD_RSQRT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef NBODY_SIM_SIMD_RSQRT_INL_H_
#undef NBODY_SIM_SIMD_RSQRT_INL_H_
#else
#define NBODY_SIM_SIMD_RSQRT_INL_H_
#endif

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace nbody {
namespace HWY_NAMESPACE {

/// Newton–Raphson steps after hn::ApproximateReciprocalSqrt. x86 rsqrtps has relative error
/// e ≤ 1.5·2^-12, rsqrt14 e ≤ 2^-14: one step leaves ≤ 1.5 e² ≤ 2.0e-7. Highway's EMU128 and
/// SCALAR targets approximate with the 0x5F3759DF bit trick plus one step (e ≈ 1.75e-3): they
/// take a second step (1.5·(4.6e-6)² ≈ 3e-11).
#if HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR
constexpr int kNewtonSteps = 2;
#else
constexpr int kNewtonSteps = 1;
#endif

/// 2/√r2 (twice the reciprocal square root, the ½ of Newton's step left out): the estimate
/// refined by kNewtonSteps steps u ← u·(3 − r2·u²) (halving u before the second). r2 > 0.
template <class D, class V>
HWY_INLINE V TwiceRsqrt(D d, V r2)
{
    namespace hn = hwy::HWY_NAMESPACE;
    V u = hn::ApproximateReciprocalSqrt(r2);
    for (int k = 0; k < kNewtonSteps; ++k) {
        if (k > 0)
            u = hn::Mul(u, hn::Set(d, 0.5f));
        u = hn::Mul(u, hn::NegMulAdd(hn::Mul(r2, u), u, hn::Set(d, 3.0f)));
    }
    return u;
}

/// One softened pair on vectors of bodies i, shared by the `cpu` and `tree-cpu` kernels (the
/// SIMD form of bodyBodyInteraction): a += r · (m/8)·u³ with r = x_j − x_i, r2 = |r|² + ε² (three
/// FMAs from ε²), u = TwiceRsqrt(r2) = 2/√r2, so (m/8)·u³ = m / r2^{3/2} (the ½ of the Newton step
/// folded into m8 = m/8, exactly: a power of two). Guard: a pair at r2 = 0 (the self-term with
/// ε² = 0) adds 0 instead of NaN.
template <bool Guard, class D, class V>
HWY_INLINE void AddPair(D d, V xj, V yj, V zj, V m8j, V xi, V yi, V zi, V eps2, V& ax, V& ay, V& az)
{
    namespace hn = hwy::HWY_NAMESPACE;
    const V dx = hn::Sub(xj, xi);
    const V dy = hn::Sub(yj, yi);
    const V dz = hn::Sub(zj, zi);
    const V r2 = hn::MulAdd(dz, dz, hn::MulAdd(dy, dy, hn::MulAdd(dx, dx, eps2)));
    const V u = TwiceRsqrt(d, r2);
    V s = hn::Mul(hn::Mul(m8j, u), hn::Mul(u, u));
    if constexpr (Guard)
        s = hn::IfThenElseZero(hn::Gt(r2, hn::Zero(d)), s);
    ax = hn::MulAdd(dx, s, ax);
    ay = hn::MulAdd(dy, s, ay);
    az = hn::MulAdd(dz, s, az);
}

} // namespace HWY_NAMESPACE
} // namespace nbody
HWY_AFTER_NAMESPACE();

#endif // NBODY_SIM_SIMD_RSQRT_INL_H_
