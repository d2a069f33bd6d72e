#include "Diagnostics.h"
#include "Interaction.h"

#include <cmath>

namespace nbody {

namespace {

/// K, W, E and P of N bodies: pos (x, y, z, m) and vel (x, y, z, ·) columns of Float4 or Double4.
template <class V>
Diagnostics measure(const std::vector<V>& pos, const std::vector<V>& vel, double G, double eps2)
{
    Diagnostics d;
    const auto n = static_cast<std::ptrdiff_t>(pos.size());
    double k = 0, w = 0, px = 0, py = 0, pz = 0;
#pragma omp parallel for reduction(+ : k, px, py, pz) schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
        const double m = pos[i].w;
        const double vx = vel[i].x, vy = vel[i].y, vz = vel[i].z;
        k += 0.5 * m * (vx * vx + vy * vy + vz * vz);
        px += m * vx; py += m * vy; pz += m * vz;
    }
    // W = -G Σ_{i<j} m_i m_j / sqrt(r² + ε²); rows have different lengths, so schedule dynamically.
#pragma omp parallel for reduction(+ : w) schedule(dynamic, 64)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
        double wi = 0;
        for (std::ptrdiff_t j = i + 1; j < n; ++j)
            wi += pairPotential<double>(pos[i], pos[j], eps2);
        w += double(pos[i].w) * wi;
    }
    d.kinetic = k;
    d.potential = G * w;
    d.total = d.kinetic + d.potential;
    d.momentum = Double3{px, py, pz};
    return d;
}

} // namespace

Diagnostics measureDiagnostics(const World& world, double G, double eps2)
{
    Diagnostics d = measure(world.positions(), world.velocities(), G, eps2);
    d.time = world.time;
    d.step = world.step;
    return d;
}

Diagnostics measureDiagnostics(const Fp64State& state, double time, std::uint64_t step, double G, double eps2)
{
    Diagnostics d = measure(state.position, state.velocity, G, eps2);
    d.time = time;
    d.step = step;
    return d;
}

double relativeEnergyChange(const Diagnostics& initial, const Diagnostics& now)
{
    if (initial.total == 0.0)
        return 0.0;
    return (now.total - initial.total) / std::abs(initial.total);
}

} // namespace nbody
