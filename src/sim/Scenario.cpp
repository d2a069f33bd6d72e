#include "Scenario.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace nbody {

namespace {

/// xoshiro256** (Blackman & Vigna 2018) seeded by SplitMix64: a small generator whose output is
/// the same on every platform and compiler, so a seed names one system everywhere.
class Xoshiro256 {
public:
    explicit Xoshiro256(std::uint64_t seed)
    {
        for (auto& w : m_s) {
            seed += 0x9e3779b97f4a7c15ull;
            std::uint64_t z = seed;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            w = z ^ (z >> 31);
        }
    }
    std::uint64_t next()
    {
        const std::uint64_t result = rotl(m_s[1] * 5, 7) * 9;
        const std::uint64_t t = m_s[1] << 17;
        m_s[2] ^= m_s[0]; m_s[3] ^= m_s[1]; m_s[1] ^= m_s[2]; m_s[0] ^= m_s[3];
        m_s[2] ^= t;
        m_s[3] = rotl(m_s[3], 45);
        return result;
    }
    /// Uniform in [0, 1) with 53 random bits.
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t m_s[4];
};

} // namespace

World makeUniformCube(const CubeParams& p)
{
    if (p.bodies == 0)
        throw std::invalid_argument("the number of bodies must be at least 1 (got 0)");
    if (p.bodies > kMaxBodies)
        throw std::invalid_argument("the number of bodies " + std::to_string(p.bodies) +
                                    " exceeds the limit of " + std::to_string(kMaxBodies));
    if (!(p.halfWidth > 0) || !std::isfinite(p.halfWidth))
        throw std::invalid_argument("the cube's half width must be positive and finite");
    if (!(p.massMin >= 0) || !(p.massMax >= p.massMin) || !std::isfinite(p.massMax))
        throw std::invalid_argument("the mass range must satisfy 0 <= massMin <= massMax < inf");
    Xoshiro256 rng(p.seed);
    World w;
    w.reserve(p.bodies);
    for (std::size_t i = 0; i < p.bodies; ++i) {
        Float4 pm;
        pm.x = float(rng.uniform(-p.halfWidth, p.halfWidth));
        pm.y = float(rng.uniform(-p.halfWidth, p.halfWidth));
        pm.z = float(rng.uniform(-p.halfWidth, p.halfWidth));
        pm.w = float(rng.uniform(p.massMin, p.massMax));
        w.addBody(pm, Float4{});
    }
    return w;
}

ScaleDefaults deriveScaleDefaults(const World& world, double G)
{
    if (world.empty())
        throw std::invalid_argument("cannot derive a time step for an empty system");
    const auto& pos = world.positions();
    const MassCentre mc = centreOfMass(world);
    const double m = mc.mass;
    if (!(m > 0))
        throw std::invalid_argument("cannot derive a time step: the total mass is zero");
    const double cx = mc.centre.x, cy = mc.centre.y, cz = mc.centre.z;
    double r2 = 0;
    for (const Float4& p : pos) {
        const double dx = p.x - cx, dy = p.y - cy, dz = p.z - cz;
        r2 += dx * dx + dy * dy + dz * dz;
    }
    ScaleDefaults s{};
    s.totalMass = m;
    s.rmsRadius = std::sqrt(r2 / double(pos.size()));
    if (!(s.rmsRadius > 0))
        s.rmsRadius = 1.0; // all bodies at one point: any scale will do, keep it finite
    s.dynamicalTime = std::sqrt(s.rmsRadius * s.rmsRadius * s.rmsRadius / (G * m));
    s.dt = float(s.dynamicalTime / 1000.0);
    const double eps = s.rmsRadius * std::pow(double(pos.size()), -1.0 / 3.0) / 4.0;
    s.eps2 = float(eps * eps);
    return s;
}

} // namespace nbody
