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

} // namespace HWY_NAMESPACE
} // namespace nbody
HWY_AFTER_NAMESPACE();

#endif // NBODY_SIM_SIMD_RSQRT_INL_H_
