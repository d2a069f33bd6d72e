#include "sim/core/Scenario.h"
#include "sim/core/MemoryBudget.h"
#include "sim/base/Random.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace nbody {

World makeUniformCube(const CubeParams& p, const Progress& progress)
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
    checkHostMemory(p.bodies); // before anything is allocated for them
    Xoshiro256 rng(p.seed);
    World w;
    w.reserve(p.bodies);
    for (std::size_t i = 0; i < p.bodies; ++i) {
        progress.every(i, p.bodies);
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
    // dt and eps2 are fp32: a scale far from 1 gives values fp32 cannot hold.
    char scale[160];
    std::snprintf(scale, sizeof scale, "R_rms %.3g, M %.3g, G %.3g, N %zu", s.rmsRadius, m, G, pos.size());
    auto problem = [&](const char* name, const char* rule, double exact) {
        char buf[512];
        std::snprintf(buf, sizeof buf,
                      "%s derived from the system's scale (%s: %s = %.3g) is not representable in fp32: the "
                      "scale is outside fp32's range (about 1.2e-38 to 3.4e38); give %s, or rescale the system",
                      name, scale, rule, exact, name[0] == 'd' ? "--dt" : "--eps2");
        return std::string(buf);
    };
    const double dtExact = s.dynamicalTime / 1000.0;
    if (!std::isfinite(s.dt) || !(s.dt > 0) || !std::isnormal(s.dt))
        s.dtProblem = problem("dt", "t_dyn / 1000", dtExact);
    if (!std::isfinite(s.eps2) || (eps * eps > 0 && !std::isnormal(s.eps2)))
        s.eps2Problem = problem("eps2", "(R_rms N^(-1/3) / 4)^2", eps * eps);
    return s;
}

} // namespace nbody
