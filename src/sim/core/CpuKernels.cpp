#include "sim/core/CpuKernels.h"
#include "contracts/Interaction.h"
#include "sim/base/Parallel.h"

// cpuForcesFp32 (the `cpu` row) is in CpuForcesSimd.cpp.

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace nbody {

namespace {

struct Acc3d { double x = 0, y = 0, z = 0; };

/// For each i in [rows.begin, rows.end): store(i, G Σ_j interaction(i, j)) in arithmetic T over
/// positions P, j = 0, 1, …, n−1 in order whatever the range. With Magnitude, also
/// magnitude(i, G Σ_j |interaction(i, j)|) (bodyBodyInteraction's magnitude; the same bits of the sum).
template <class T, class Acc, bool Magnitude = false, class P, class Out, class Mag = std::nullptr_t>
void allPairs(const P* pos, std::size_t n, RowRange rows, T eps2, T G, Out&& store, Mag&& magnitude = nullptr)
{
    const auto begin = static_cast<std::ptrdiff_t>(rows.begin);
    const auto end = static_cast<std::ptrdiff_t>(rows.end);
#pragma omp parallel for schedule(static) if (std::ptrdiff_t(n) >= kParallelPairsFrom)
    for (std::ptrdiff_t i = begin; i < end; ++i) {
        Acc a;
        T s = 0;
        const P bi = pos[i];
        for (std::size_t j = 0; j < n; ++j) {
            if constexpr (Magnitude)
                bodyBodyInteraction<T>(bi, pos[j], a, s, eps2);
            else
                bodyBodyInteraction<T>(bi, pos[j], a, eps2);
        }
        store(std::size_t(i), T(G * a.x), T(G * a.y), T(G * a.z));
        if constexpr (Magnitude)
            magnitude(std::size_t(i), T(std::abs(G) * s));
    }
}

} // namespace

void checkActiveRows(const HostForceArgs& a)
{
    activeRowCount(a.iBegin, a.iEnd, a.n, a.activeCount);
    checkActiveList(a.active, a.activeCount, a.n);
}

void cpuForcesFp64(const HostForceArgs& a)
{
    auto* acc = static_cast<Double4*>(a.acc);
    const auto* pos = static_cast<const Double4*>(a.pos);
    if (a.active) {
        // The listed rows, each summed over j = 0, 1, …, n−1 as allPairs does: the same bits.
        checkActiveRows(a);
        const auto count = static_cast<std::ptrdiff_t>(a.activeCount);
#pragma omp parallel for schedule(static) if (std::ptrdiff_t(a.n) * count >= kParallelPairsFrom * kParallelPairsFrom)
        for (std::ptrdiff_t s = 0; s < count; ++s) {
            const std::size_t i = a.active[s];
            Acc3d sum;
            const Double4 bi = pos[i];
            for (std::size_t j = 0; j < a.n; ++j)
                bodyBodyInteraction<double>(bi, pos[j], sum, a.eps2);
            acc[i] = Double4{a.G * sum.x, a.G * sum.y, a.G * sum.z, 0.0};
        }
        return;
    }
    allPairs<double, Acc3d>(pos, a.n, rowRange(a.iBegin, a.iEnd, a.n), a.eps2, a.G,
                            [&](std::size_t i, double x, double y, double z) { acc[i] = Double4{x, y, z, 0.0}; });
}

namespace {

template <class P>
std::vector<Double3> referenceOf(const P* pos, std::size_t n, double eps2, double G, std::vector<double>* magnitudeSums)
{
    std::vector<Double3> out(n);
    const auto store = [&](std::size_t i, double x, double y, double z) { out[i] = Double3{x, y, z}; };
    if (magnitudeSums) {
        magnitudeSums->assign(n, 0.0);
        allPairs<double, Acc3d, true>(pos, n, RowRange{0, n}, eps2, G, store,
                                      [&](std::size_t i, double s) { (*magnitudeSums)[i] = s; });
    } else {
        allPairs<double, Acc3d>(pos, n, RowRange{0, n}, eps2, G, store);
    }
    return out;
}

} // namespace

std::vector<Double3> referenceAccelerations(const Float4* pos, std::size_t n, double eps2, double G,
                                            std::vector<double>* magnitudeSums)
{
    return referenceOf(pos, n, eps2, G, magnitudeSums);
}

std::vector<Double3> referenceAccelerations(const Double4* pos, std::size_t n, double eps2, double G,
                                            std::vector<double>* magnitudeSums)
{
    return referenceOf(pos, n, eps2, G, magnitudeSums);
}

namespace {

template <class P>
std::vector<Double3> referenceAt(const P* pos, std::size_t n, const std::vector<std::size_t>& which, double eps2, double G,
                                 std::vector<double>* magnitudeSums)
{
    for (std::size_t i : which)
        if (i >= n)
            throw std::out_of_range("referenceAccelerationsAt: body " + std::to_string(i) + " of " + std::to_string(n));
    std::vector<Double3> out(which.size());
    if (magnitudeSums)
        magnitudeSums->assign(which.size(), 0.0);
    const auto count = static_cast<std::ptrdiff_t>(which.size());
#pragma omp parallel for schedule(dynamic, 16)
    for (std::ptrdiff_t s = 0; s < count; ++s) {
        Acc3d a;
        double m = 0;
        const P bi = pos[which[std::size_t(s)]];
        for (std::size_t j = 0; j < n; ++j)
            bodyBodyInteraction<double>(bi, pos[j], a, m, eps2);
        out[std::size_t(s)] = Double3{G * a.x, G * a.y, G * a.z};
        if (magnitudeSums)
            (*magnitudeSums)[std::size_t(s)] = std::abs(G) * m;
    }
    return out;
}

} // namespace

std::vector<Double3> referenceAccelerationsAt(const Float4* pos, std::size_t n, const std::vector<std::size_t>& which,
                                              double eps2, double G, std::vector<double>* magnitudeSums)
{
    return referenceAt(pos, n, which, eps2, G, magnitudeSums);
}

std::vector<Double3> referenceAccelerationsAt(const Double4* pos, std::size_t n, const std::vector<std::size_t>& which,
                                              double eps2, double G, std::vector<double>* magnitudeSums)
{
    return referenceAt(pos, n, which, eps2, G, magnitudeSums);
}

} // namespace nbody
