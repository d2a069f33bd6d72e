#include "sim/collide/CollisionSystem.h"

#include "contracts/Interaction.h"
#include "sim/base/Parallel.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <stdexcept>
#include <string>

namespace nbody {

namespace {

void checkPairs(std::span<const ContactPair> pairs, std::size_t n)
{
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        const ContactPair& p = pairs[k];
        if (p.i >= p.j || p.j >= n)
            throw std::invalid_argument("merge: pair " + std::to_string(k) + " (" + std::to_string(p.i) + ", " +
                                        std::to_string(p.j) + ") is not i < j < N = " + std::to_string(n));
        if (k > 0 && !(pairs[k - 1].i < p.i || (pairs[k - 1].i == p.i && pairs[k - 1].j < p.j)))
            throw std::invalid_argument("merge: the pairs are not sorted by (i, j) and unique (pair " +
                                        std::to_string(k) + ")");
    }
}

/// Stores an fp64 value in the column's precision.
template <class V>
V store(double x, double y, double z, double w)
{
    using T = decltype(V{}.x);
    return V{T(x), T(y), T(z), T(w)};
}

/// Kinetic energy ½ m v² of a body, fp64.
template <class V>
double kinetic(const V& p, const V& v)
{
    const double vx = v.x, vy = v.y, vz = v.z;
    return 0.5 * double(p.w) * (vx * vx + vy * vy + vz * vz);
}

/// Merges over position / velocity columns of Float4 or Double4 and the radius column; returns
/// the records and the sorted absorbed indices.
template <class V>
std::vector<MergeRecord> mergeColumns(std::vector<V>& pos, std::vector<V>& vel, std::vector<float>& radius,
                                      const std::vector<std::uint32_t>& ids, std::span<const ContactPair> pairs,
                                      double G, double eps2, std::vector<BodyIndex>& absorbedOut)
{
    const std::size_t n = pos.size();
    std::vector<std::uint32_t> parent; // union-find over the bodies in pairs; the root is the lowest index
    std::vector<bool> absorbed;
    std::vector<MergeRecord> records;
    if (pairs.empty())
        return records;
    parent.resize(n);
    std::iota(parent.begin(), parent.end(), 0u);
    absorbed.assign(n, false);
    const auto find = [&](std::uint32_t a) {
        std::uint32_t r = a;
        while (parent[r] != r)
            r = parent[r];
        while (parent[a] != r) { // path compression
            const std::uint32_t next = parent[a];
            parent[a] = r;
            a = next;
        }
        return r;
    };
    const auto nn = static_cast<std::ptrdiff_t>(n);
    for (const ContactPair& p : pairs) {
        const std::uint32_t a = find(p.i), b = find(p.j);
        if (a == b)
            continue; // already one body
        const std::uint32_t s = std::min(a, b), x = std::max(a, b);
        const V ps = pos[s], px = pos[x], vs = vel[s], vx = vel[x];
        const double ms = ps.w, mx = px.w, m = ms + mx;
        // Weights: by mass, or equal for two massless bodies.
        const double ws = m > 0 ? ms / m : 0.5, wx = m > 0 ? mx / m : 0.5;
        const V pNew = store<V>(ws * double(ps.x) + wx * double(px.x), ws * double(ps.y) + wx * double(px.y),
                                ws * double(ps.z) + wx * double(px.z), m);
        const V vNew = store<V>(ws * double(vs.x) + wx * double(vx.x), ws * double(vs.y) + wx * double(vx.y),
                                ws * double(vs.z) + wx * double(vx.z), 0.0);
        const double rs = radius[s], rx = radius[x];
        const float rNew = float(std::cbrt(rs * rs * rs + rx * rx * rx));

        // Energy: the kinetic terms, the pair's mutual term and the terms with every other body,
        // before and after, from the stored values (Diagnostics' expressions, fp64).
        const double dvx = double(vs.x) - double(vx.x), dvy = double(vs.y) - double(vx.y),
                     dvz = double(vs.z) - double(vx.z);
        const double mu = m > 0 ? ms * mx / m : 0.0;
        const double relativeKinetic = 0.5 * mu * (dvx * dvx + dvy * dvy + dvz * dvz);
        const double kineticChange = kinetic(pNew, vNew) - kinetic(ps, vs) - kinetic(px, vx);
        const double mutual = ms * pairPotential<double>(ps, px, eps2); // W_sx / G
        double others = 0;                                             // Σ_k m_k (φ_k(s') − φ_k(s) − φ_k(x)), / G
#pragma omp parallel for reduction(+ : others) schedule(static) if (nn >= kParallelElementsFrom)
        for (std::ptrdiff_t k = 0; k < nn; ++k) {
            if (k == std::ptrdiff_t(s) || k == std::ptrdiff_t(x) || absorbed[std::size_t(k)])
                continue;
            const V& pk = pos[std::size_t(k)];
            others += double(pk.w) * (pairPotential<double>(pk, pNew, eps2) - pairPotential<double>(pk, ps, eps2) -
                                      pairPotential<double>(pk, px, eps2));
        }
        pos[s] = pNew;
        vel[s] = vNew;
        radius[s] = rNew;
        parent[x] = s;
        absorbed[x] = true;

        MergeRecord r;
        r.survivorId = ids[s];
        r.absorbedId = ids[x];
        r.energyLost = relativeKinetic;
        r.energyChange = kineticChange + G * (others - mutual);
        records.push_back(r);
    }
    for (std::size_t i = 0; i < n; ++i)
        if (absorbed[i])
            absorbedOut.push_back(i);
    return records;
}

/// Removes the sorted rows `indices` from a column (stable).
template <class V>
void removeRows(std::vector<V>& column, const std::vector<BodyIndex>& indices)
{
    std::size_t out = 0, next = 0;
    for (std::size_t i = 0; i < column.size(); ++i) {
        if (next < indices.size() && indices[next] == i) {
            ++next;
            continue;
        }
        column[out++] = column[i];
    }
    column.resize(out);
}

void stamp(std::vector<MergeRecord>& records, const World& world)
{
    for (MergeRecord& r : records) {
        r.step = world.step;
        r.time = world.time;
    }
}

} // namespace

std::vector<MergeRecord> mergeContacts(World& world, std::span<const ContactPair> pairs, double G, double eps2)
{
    checkPairs(pairs, world.size());
    std::vector<BodyIndex> absorbed;
    std::vector<MergeRecord> records = mergeColumns(world.positions(), world.velocities(), world.radii(), world.ids(),
                                                    pairs, G, eps2, absorbed);
    world.removeBodies(std::move(absorbed));
    stamp(records, world);
    return records;
}

std::vector<MergeRecord> mergeContacts(World& world, Fp64State& state, std::span<const ContactPair> pairs, double G,
                                       double eps2)
{
    if (state.position.size() != world.size() || state.velocity.size() != world.size() ||
        state.acceleration.size() != world.size())
        throw std::invalid_argument("merge: the fp64 state has " + std::to_string(state.position.size()) +
                                    " bodies, the world " + std::to_string(world.size()));
    checkPairs(pairs, world.size());
    std::vector<BodyIndex> absorbed;
    std::vector<MergeRecord> records =
        mergeColumns(state.position, state.velocity, world.radii(), world.ids(), pairs, G, eps2, absorbed);
    removeRows(state.position, absorbed);
    removeRows(state.velocity, absorbed);
    removeRows(state.acceleration, absorbed);
    world.removeBodies(std::move(absorbed));
    stamp(records, world);
    return records;
}

} // namespace nbody
