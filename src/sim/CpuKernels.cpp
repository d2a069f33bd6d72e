#include "CpuKernels.h"
#include "Interaction.h"

namespace nbody {

namespace {

struct Acc3f { float x = 0, y = 0, z = 0; };
struct Acc3d { double x = 0, y = 0, z = 0; };

template <class T, class Acc, class Out>
void allPairs(const Float4* pos, std::size_t n, T eps2, T G, Out&& store)
{
    const auto count = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < count; ++i) {
        Acc a;
        const Float4 bi = pos[i];
        for (std::size_t j = 0; j < n; ++j)
            bodyBodyInteraction<T>(bi, pos[j], a, eps2);
        store(std::size_t(i), T(G * a.x), T(G * a.y), T(G * a.z));
    }
}

} // namespace

void cpuForcesFp32(const HostForceArgs& a)
{
    allPairs<float, Acc3f>(a.pos, a.n, a.eps2, float(a.G), [&](std::size_t i, float x, float y, float z) {
        a.acc[i] = Float4{x, y, z, 0.f};
    });
}

void cpuForcesFp64(const HostForceArgs& a)
{
    allPairs<double, Acc3d>(a.pos, a.n, double(a.eps2), a.G, [&](std::size_t i, double x, double y, double z) {
        a.acc[i] = Float4{float(x), float(y), float(z), 0.f};
    });
}

std::vector<Double3> referenceAccelerations(const Float4* pos, std::size_t n, double eps2, double G)
{
    std::vector<Double3> out(n);
    allPairs<double, Acc3d>(pos, n, eps2, G, [&](std::size_t i, double x, double y, double z) {
        out[i] = Double3{x, y, z};
    });
    return out;
}

} // namespace nbody
