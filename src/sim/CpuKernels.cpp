#include "CpuKernels.h"
#include "Interaction.h"
#include "Parallel.h"

namespace nbody {

namespace {

struct Acc3f { float x = 0, y = 0, z = 0; };
struct Acc3d { double x = 0, y = 0, z = 0; };

/// For each i: store(i, G Σ_j interaction(i, j)) in arithmetic T over positions P.
template <class T, class Acc, class P, class Out>
void allPairs(const P* pos, std::size_t n, T eps2, T G, Out&& store)
{
    const auto count = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(static) if (count >= kParallelPairsFrom)
    for (std::ptrdiff_t i = 0; i < count; ++i) {
        Acc a;
        const P bi = pos[i];
        for (std::size_t j = 0; j < n; ++j)
            bodyBodyInteraction<T>(bi, pos[j], a, eps2);
        store(std::size_t(i), T(G * a.x), T(G * a.y), T(G * a.z));
    }
}

} // namespace

void cpuForcesFp32(const HostForceArgs& a)
{
    auto* acc = static_cast<Float4*>(a.acc);
    allPairs<float, Acc3f>(static_cast<const Float4*>(a.pos), a.n, float(a.eps2), float(a.G),
                           [&](std::size_t i, float x, float y, float z) { acc[i] = Float4{x, y, z, 0.f}; });
}

void cpuForcesFp64(const HostForceArgs& a)
{
    auto* acc = static_cast<Double4*>(a.acc);
    allPairs<double, Acc3d>(static_cast<const Double4*>(a.pos), a.n, a.eps2, a.G,
                            [&](std::size_t i, double x, double y, double z) { acc[i] = Double4{x, y, z, 0.0}; });
}

namespace {

template <class P>
std::vector<Double3> referenceOf(const P* pos, std::size_t n, double eps2, double G)
{
    std::vector<Double3> out(n);
    allPairs<double, Acc3d>(pos, n, eps2, G, [&](std::size_t i, double x, double y, double z) {
        out[i] = Double3{x, y, z};
    });
    return out;
}

} // namespace

std::vector<Double3> referenceAccelerations(const Float4* pos, std::size_t n, double eps2, double G)
{
    return referenceOf(pos, n, eps2, G);
}

std::vector<Double3> referenceAccelerations(const Double4* pos, std::size_t n, double eps2, double G)
{
    return referenceOf(pos, n, eps2, G);
}

} // namespace nbody
