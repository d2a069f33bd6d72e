/// \file CpuForcesSimd.cpp
/// The `cpu` kernel: all pairs in fp32 through Highway (hwy/highway.h), compiled once per SIMD
/// target (foreach_target.h: EMU128, SSSE3, SSE4, AVX2, AVX3 on x86-64 with Highway 1.0.3) and
/// chosen at run time (HWY_DYNAMIC_DISPATCH). See CpuKernels.h for the contract and the error
/// bound; docs/performance.md, The CPU kernel for the measurements behind the choices made here.

// Re-included by foreach_target.h once per target (HWY_TARGET_INCLUDE names this file).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "sim/core/CpuForcesSimd.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep

#include <hwy/highway.h>

#include "sim/core/SimdRsqrt-inl.h"

#include "sim/core/CpuKernels.h"
#include "contracts/Interaction.h"
#include "sim/base/Parallel.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

HWY_BEFORE_NAMESPACE();
namespace nbody {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// i vectors per register block: each broadcast j body is used by kRows vectors of i bodies
/// (12 live registers of i positions and sums; fits the 16 of SSE/AVX2). Measured on Zen 4
/// (docs/performance.md, The CPU kernel): 2 beats 1 by 20 % (AVX-512), 3–4 % (AVX2), 15 % (SSE4); 3 and 4 gain
/// nothing more on AVX-512.
constexpr std::size_t kRows = 2;

/// j bodies per tile: 4 floats each, 1024 bodies = 16 KiB, half of a 32 KiB L1d, so a tile
/// stays in L1 while every i block of a group sweeps it.
constexpr std::size_t kTileJ = 1024;
/// i blocks per group (the unit of OpenMP work): a group sweeps each j tile kGroupBlocks times.
constexpr std::size_t kGroupBlocks = 4;

/// Bodies per OpenMP work item on this target (a multiple of the vector width).
std::size_t GroupBodies()
{
    const hn::ScalableTag<float> d;
    return kGroupBlocks * kRows * hn::Lanes(d);
}

/// HWY_TARGET of this compilation (to report which target the dispatch chose).
std::int64_t TargetId() { return HWY_TARGET; }

/// out[k] = TwiceRsqrt(x[k]) / 2 for k < n (tests measure the refinement's error with it).
void RsqrtBatch(const float* HWY_RESTRICT x, float* HWY_RESTRICT out, std::size_t n)
{
    const hn::ScalableTag<float> d;
    const std::size_t L = hn::Lanes(d);
    const auto half = hn::Set(d, 0.5f);
    std::size_t k = 0;
    for (; k + L <= n; k += L)
        hn::StoreU(hn::Mul(half, TwiceRsqrt(d, hn::LoadU(d, x + k))), d, out + k);
    for (; k < n; ++k) { // the tail one lane at a time, through the same code
        const hn::CappedTag<float, 1> d1;
        hn::StoreU(hn::Mul(hn::Set(d1, 0.5f), TwiceRsqrt(d1, hn::LoadU(d1, x + k))), d1, out + k);
    }
}

/// acc[row(k)] = G Σ_j m_j r_kj / (r² + ε²)^{3/2} for the `count` i bodies k whose positions are
/// xi, yi, zi (SoA, padded to whole groups of GroupBodies() with zero-mass bodies whose results
/// are dropped), against the SoA positions x, y, z and m8 = m/8 of the n j bodies; row(k) =
/// rowOf[k], or rowBase + k when rowOf is null. A range [iBegin, iEnd) passes xi = x + iBegin;
/// the active rows of block time steps pass a gathered copy. Groups start at the first i body,
/// so lanes hold other bodies than in a full call, but every lane sums its own body over
/// j = 0, 1, …, n−1 in order with lane-wise operations: the rows are bit-identical.
/// Guard: mask pairs at r² + ε² = 0 to 0 (needed only for ε² < kMinUnguardedEps2).
template <bool Guard>
void Forces(const float* HWY_RESTRICT xs, const float* HWY_RESTRICT yi_, const float* HWY_RESTRICT zi_,
            std::size_t count, const std::uint32_t* rowOf, std::size_t rowBase, const float* HWY_RESTRICT x,
            const float* HWY_RESTRICT y, const float* HWY_RESTRICT z, const float* HWY_RESTRICT m8, std::size_t n,
            float eps2, float G, Float4* HWY_RESTRICT acc)
{
    using D = hn::ScalableTag<float>;
    using V = hn::Vec<D>;
    const D d;
    const std::size_t L = hn::Lanes(d);
    const std::size_t block = kRows * L;
    const std::size_t group = kGroupBlocks * block;
    const auto groups = static_cast<std::ptrdiff_t>((count + group - 1) / group);

#pragma omp parallel for schedule(static) if (std::ptrdiff_t(n) >= kParallelPairsFrom)
    for (std::ptrdiff_t g = 0; g < groups; ++g) {
        const std::size_t i0 = std::size_t(g) * group;
        // Running sums of the group's bodies between j tiles (stored and reloaded exactly, so
        // each i still sums j = 0, 1, …, n−1 in order).
        HWY_ALIGN float sums[3][kGroupBlocks * kRows * (HWY_MAX_BYTES / sizeof(float))] = {};
        const V vEps2 = hn::Set(d, eps2);
        for (std::size_t j0 = 0; j0 < n; j0 += kTileJ) {
            const std::size_t j1 = std::min(n, j0 + kTileJ);
            for (std::size_t b = 0; b < kGroupBlocks; ++b) {
                const std::size_t ib = i0 + b * block;
                V xi[kRows], yi[kRows], zi[kRows], ax[kRows], ay[kRows], az[kRows];
                for (std::size_t r = 0; r < kRows; ++r) {
                    const std::size_t s = (b * kRows + r) * L;
                    xi[r] = hn::LoadU(d, xs + ib + r * L);
                    yi[r] = hn::LoadU(d, yi_ + ib + r * L);
                    zi[r] = hn::LoadU(d, zi_ + ib + r * L);
                    ax[r] = hn::Load(d, sums[0] + s);
                    ay[r] = hn::Load(d, sums[1] + s);
                    az[r] = hn::Load(d, sums[2] + s);
                }
                for (std::size_t j = j0; j < j1; ++j) {
                    const V xj = hn::Set(d, x[j]);
                    const V yj = hn::Set(d, y[j]);
                    const V zj = hn::Set(d, z[j]);
                    const V mj = hn::Set(d, m8[j]);
                    for (std::size_t r = 0; r < kRows; ++r)
                        AddPair<Guard>(d, xj, yj, zj, mj, xi[r], yi[r], zi[r], vEps2, ax[r], ay[r], az[r]);
                }
                for (std::size_t r = 0; r < kRows; ++r) {
                    const std::size_t s = (b * kRows + r) * L;
                    hn::Store(ax[r], d, sums[0] + s);
                    hn::Store(ay[r], d, sums[1] + s);
                    hn::Store(az[r], d, sums[2] + s);
                }
            }
        }
        const std::size_t end = std::min(count, i0 + group);
        for (std::size_t i = i0; i < end; ++i) {
            const std::size_t k = i - i0;
            acc[rowOf ? rowOf[i] : rowBase + i] = Float4{G * sums[0][k], G * sums[1][k], G * sums[2][k], 0.f};
        }
    }
}

void ForcesFp32(const float* xi, const float* yi, const float* zi, std::size_t count, const std::uint32_t* rowOf,
                std::size_t rowBase, const float* x, const float* y, const float* z, const float* m8, std::size_t n,
                float eps2, float G, Float4* acc)
{
    if (eps2 >= kMinUnguardedEps2)
        Forces<false>(xi, yi, zi, count, rowOf, rowBase, x, y, z, m8, n, eps2, G, acc);
    else
        Forces<true>(xi, yi, zi, count, rowOf, rowBase, x, y, z, m8, n, eps2, G, acc);
}

} // namespace HWY_NAMESPACE
} // namespace nbody
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace nbody {

HWY_EXPORT(GroupBodies);
HWY_EXPORT(TargetId);
HWY_EXPORT(ForcesFp32);
HWY_EXPORT(RsqrtBatch);

namespace {

/// The SoA copy of the positions: x | y | z | m/8, each `padded` floats. One per calling
/// thread, grown as needed and reused, so a step allocates nothing once N stops growing.
struct SoaBuffer {
    std::vector<float> data;
    std::size_t padded = 0;
    const float* x() const { return data.data(); }
    const float* y() const { return data.data() + padded; }
    const float* z() const { return data.data() + 2 * padded; }
    const float* m8() const { return data.data() + 3 * padded; }
};

void transpose(const Float4* pos, std::size_t n, std::size_t padded, SoaBuffer& soa)
{
    soa.padded = padded;
    if (soa.data.size() < 4 * padded)
        soa.data.resize(4 * padded);
    float* out = soa.data.data();
    const auto count = static_cast<std::ptrdiff_t>(padded);
#pragma omp parallel for schedule(static) if (count >= kParallelElementsFrom)
    for (std::ptrdiff_t i = 0; i < count; ++i) {
        // Pads: zero-mass bodies at the origin (only ever i bodies, whose results are dropped).
        const Float4 p = std::size_t(i) < n ? pos[i] : Float4{0.f, 0.f, 0.f, 0.f};
        out[i] = p.x;
        out[padded + i] = p.y;
        out[2 * padded + i] = p.z;
        out[3 * padded + i] = p.w * 0.125f; // exact (a power of two)
    }
}

} // namespace

void cpuForcesFp32(const HostForceArgs& a)
{
    const RowRange rows = rowRange(a.iBegin, a.iEnd, a.n);
    if (rows.size() == 0)
        return;
    thread_local SoaBuffer soa;
    const std::size_t group = HWY_DYNAMIC_DISPATCH(GroupBodies)();
    if (a.active) {
        // Block time steps: the active rows' positions gathered into an i buffer of their own
        // (padded to whole groups with zero-mass bodies), summed against all n bodies j.
        checkActiveRows(a);
        if (a.activeCount == 0)
            return;
        thread_local std::vector<float> gathered;
        const std::size_t count = a.activeCount;
        const std::size_t paddedI = (count + group - 1) / group * group;
        gathered.assign(3 * paddedI, 0.f);
        const auto* pos = static_cast<const Float4*>(a.pos);
        for (std::size_t k = 0; k < count; ++k) {
            const Float4& p = pos[a.active[k]];
            gathered[k] = p.x;
            gathered[paddedI + k] = p.y;
            gathered[2 * paddedI + k] = p.z;
        }
        transpose(pos, a.n, (a.n + group - 1) / group * group, soa);
        HWY_DYNAMIC_DISPATCH(ForcesFp32)(gathered.data(), gathered.data() + paddedI, gathered.data() + 2 * paddedI,
                                         count, a.active, 0, soa.x(), soa.y(), soa.z(), soa.m8(), a.n, float(a.eps2),
                                         float(a.G), static_cast<Float4*>(a.acc));
        return;
    }
    // Room for every j body and for the last i group of the range (which starts at rows.begin).
    const std::size_t padded =
        std::max((a.n + group - 1) / group * group, rows.begin + (rows.size() + group - 1) / group * group);
    transpose(static_cast<const Float4*>(a.pos), a.n, padded, soa);
    HWY_DYNAMIC_DISPATCH(ForcesFp32)(soa.x() + rows.begin, soa.y() + rows.begin, soa.z() + rows.begin, rows.size(),
                                     nullptr, rows.begin, soa.x(), soa.y(), soa.z(), soa.m8(), a.n, float(a.eps2),
                                     float(a.G), static_cast<Float4*>(a.acc));
}

std::vector<std::int64_t> cpuSimdTargets()
{
    return hwy::SupportedAndGeneratedTargets(); // the best target first
}

std::int64_t cpuSimdTarget() { return HWY_DYNAMIC_DISPATCH(TargetId)(); }

std::string cpuSimdTargetName(std::int64_t target) { return hwy::TargetName(target); }

namespace {

/// Runs f() with Highway's dispatch restricted to `target`; returns the target that ran.
template <class F>
std::int64_t onTarget(std::int64_t target, F&& f)
{
    hwy::SetSupportedTargetsForTest(target);
    std::int64_t ran = 0;
    try {
        ran = cpuSimdTarget();
        f();
    } catch (...) {
        hwy::SetSupportedTargetsForTest(0);
        throw;
    }
    hwy::SetSupportedTargetsForTest(0);
    return ran;
}

} // namespace

std::int64_t cpuForcesFp32OnTarget(const HostForceArgs& a, std::int64_t target)
{
    return onTarget(target, [&] { cpuForcesFp32(a); });
}

std::int64_t runOnCpuSimdTarget(std::int64_t target, const std::function<void()>& f)
{
    return onTarget(target, f);
}

std::int64_t cpuRsqrtOnTarget(const float* x, float* out, std::size_t n, std::int64_t target)
{
    return onTarget(target, [&] { HWY_DYNAMIC_DISPATCH(RsqrtBatch)(x, out, n); });
}

} // namespace nbody
#endif // HWY_ONCE
