#include "sim/core/Diagnostics.h"
#include "contracts/Interaction.h"
#include "sim/base/Parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace nbody {

namespace {

/// The sum over the chunks [b + c·chunk, b + (c + 1)·chunk) ∩ [b, e) of chunkSum(begin, end),
/// each chunk summed by one thread and the chunks' sums added in their order, so the result has
/// the same bits for any number of threads and any schedule (an OpenMP reduction adds the
/// threads' partial sums in the order they finish, over a split that depends on the team).
template <class T, class ChunkSum>
T chunkedSum(std::ptrdiff_t b, std::ptrdiff_t e, std::ptrdiff_t chunk, bool parallel, const ChunkSum& chunkSum)
{
    const std::ptrdiff_t chunks = e > b ? (e - b + chunk - 1) / chunk : 0;
    std::vector<T> partial(static_cast<std::size_t>(chunks));
    // Chunks differ in cost (the pair sum's rows shorten), so they are handed out dynamically.
#pragma omp parallel for schedule(dynamic, 1) if (parallel && chunks > 1)
    for (std::ptrdiff_t c = 0; c < chunks; ++c)
        partial[static_cast<std::size_t>(c)] = chunkSum(b + c * chunk, std::min(e, b + (c + 1) * chunk));
    T total{};
    for (const T& p : partial)
        total += p;
    return total;
}

/// The sums of the bodies i in `rows` of N: pos (x, y, z, m) and vel (x, y, z, ·) columns of
/// Float4 or Double4; the pair sum takes the pairs (i, j > i) with i in the rows. The same bits
/// on any number of OpenMP threads (chunkedSum).
template <class V>
DiagnosticSums sums(const std::vector<V>& pos, const std::vector<V>& vel, double eps2, std::size_t iBegin,
                    std::size_t iEnd)
{
    if (pos.size() != vel.size())
        throw std::invalid_argument("measureSums: positions and velocities differ in length");
    const RowRange rows = rowRange(iBegin, iEnd, pos.size());
    const auto n = static_cast<std::ptrdiff_t>(pos.size());
    const auto b = static_cast<std::ptrdiff_t>(rows.begin), e = static_cast<std::ptrdiff_t>(rows.end);
    DiagnosticSums s = chunkedSum<DiagnosticSums>(b, e, 4096, n >= kParallelElementsFrom,
                                                  [&](std::ptrdiff_t i0, std::ptrdiff_t i1) {
        double m = 0, mx = 0, my = 0, mz = 0, k = 0, px = 0, py = 0, pz = 0, lx = 0, ly = 0, lz = 0;
        for (std::ptrdiff_t i = i0; i < i1; ++i) {
            const double mi = pos[i].w;
            const double x = pos[i].x, y = pos[i].y, z = pos[i].z;
            const double vx = vel[i].x, vy = vel[i].y, vz = vel[i].z;
            m += mi;
            mx += mi * x; my += mi * y; mz += mi * z;
            k += 0.5 * mi * (vx * vx + vy * vy + vz * vz);
            px += mi * vx; py += mi * vy; pz += mi * vz;
            lx += mi * (y * vz - z * vy);
            ly += mi * (z * vx - x * vz);
            lz += mi * (x * vy - y * vx);
        }
        DiagnosticSums c;
        c.mass = m;
        c.massMoment = Double3{mx, my, mz};
        c.kinetic = k;
        c.momentum = Double3{px, py, pz};
        c.angularMomentum = Double3{lx, ly, lz};
        return c;
    });
    // Σ_{i<j} −m_i m_j / sqrt(r² + ε²), in chunks of 64 rows.
    s.pairSum = chunkedSum<double>(b, e, 64, n >= kParallelPairsFrom, [&](std::ptrdiff_t i0, std::ptrdiff_t i1) {
        double w = 0;
        for (std::ptrdiff_t i = i0; i < i1; ++i) {
            double wi = 0;
            for (std::ptrdiff_t j = i + 1; j < n; ++j)
                wi += pairPotential<double>(pos[i], pos[j], eps2);
            w += double(pos[i].w) * wi;
        }
        return w;
    });
    return s;
}

} // namespace

DiagnosticSums measureSums(const std::vector<Float4>& pos, const std::vector<Float4>& vel, double eps2,
                           std::size_t iBegin, std::size_t iEnd)
{
    return sums(pos, vel, eps2, iBegin, iEnd);
}

DiagnosticSums measureSums(const std::vector<Double4>& pos, const std::vector<Double4>& vel, double eps2,
                           std::size_t iBegin, std::size_t iEnd)
{
    return sums(pos, vel, eps2, iBegin, iEnd);
}

DiagnosticSums& operator+=(DiagnosticSums& a, const DiagnosticSums& b)
{
    a.mass += b.mass;
    a.massMoment = Double3{a.massMoment.x + b.massMoment.x, a.massMoment.y + b.massMoment.y,
                           a.massMoment.z + b.massMoment.z};
    a.kinetic += b.kinetic;
    a.momentum = Double3{a.momentum.x + b.momentum.x, a.momentum.y + b.momentum.y, a.momentum.z + b.momentum.z};
    a.angularMomentum = Double3{a.angularMomentum.x + b.angularMomentum.x, a.angularMomentum.y + b.angularMomentum.y,
                                a.angularMomentum.z + b.angularMomentum.z};
    a.pairSum += b.pairSum;
    return a;
}

Diagnostics finishDiagnostics(const DiagnosticSums& s, double G)
{
    Diagnostics d;
    d.kinetic = s.kinetic;
    d.potential = G * s.pairSum;
    d.total = d.kinetic + d.potential;
    d.momentum = s.momentum;
    d.angularMomentum = s.angularMomentum;
    d.mass = s.mass;
    if (s.mass > 0) {
        d.centreOfMass = Double3{s.massMoment.x / s.mass, s.massMoment.y / s.mass, s.massMoment.z / s.mass};
        d.centreOfMassVelocity = Double3{s.momentum.x / s.mass, s.momentum.y / s.mass, s.momentum.z / s.mass};
    }
    d.virialRatio = d.potential != 0.0 ? 2.0 * d.kinetic / std::abs(d.potential) : 0.0;
    return d;
}

Diagnostics measureDiagnostics(const World& world, double G, double eps2)
{
    Diagnostics d = finishDiagnostics(measureSums(world.positions(), world.velocities(), eps2), G);
    d.time = world.time;
    d.step = world.step;
    return d;
}

Diagnostics measureDiagnostics(const Fp64State& state, double time, std::uint64_t step, double G, double eps2)
{
    Diagnostics d = finishDiagnostics(measureSums(state.position, state.velocity, eps2), G);
    d.time = time;
    d.step = step;
    return d;
}

double relativeEnergyChange(const Diagnostics& initial, const Diagnostics& now)
{
    if (initial.total == 0.0)
        return 0.0;
    return ((now.total + now.energyLost) - (initial.total + initial.energyLost)) / std::abs(initial.total);
}

void EnergyChangeMaximum::add(double relativeChange, double atTime, std::uint64_t atStep)
{
    ++evaluations;
    if (std::isnan(magnitude))
        return; // the first non-finite change stays the maximum
    const double m = std::abs(relativeChange);
    if (evaluations == 1 || !(m <= magnitude)) { // NaN is not ≤: it takes over
        magnitude = std::isfinite(m) ? m : std::numeric_limits<double>::quiet_NaN();
        change = relativeChange;
        time = atTime;
        step = atStep;
    }
}

EnergyChangeMaximum energyChangeMaximum(std::span<const Diagnostics> series)
{
    EnergyChangeMaximum m;
    for (const Diagnostics& d : series)
        m.add(d);
    return m;
}

} // namespace nbody
