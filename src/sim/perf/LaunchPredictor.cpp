#include "sim/perf/LaunchPredictor.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace nbody {

LaunchField makeLaunchField(const World& world, double G, double eps2, std::size_t maxSources)
{
    if (maxSources == 0)
        throw std::invalid_argument("makeLaunchField: maxSources must be at least 1");
    if (!std::isfinite(G) || !(G > 0))
        throw std::invalid_argument("makeLaunchField: G must be positive and finite");
    LaunchField f;
    f.G = G;
    f.eps2 = eps2;
    const auto& pos = world.positions();
    const std::size_t n = pos.size();
    const std::size_t k = n <= maxSources ? 1 : (n + maxSources - 1) / maxSources;
    double mAll = 0, cx = 0, cy = 0, cz = 0;
    float mMax = -1;
    std::size_t iMax = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const Float4& p = pos[i];
        mAll += p.w;
        cx += double(p.w) * p.x, cy += double(p.w) * p.y, cz += double(p.w) * p.z;
        if (p.w > mMax)
            mMax = p.w, iMax = i;
    }
    // Every k-th body, and the heaviest body of the whole system always (a star among planets, a
    // black hole in a cluster) with its own mass; the kept rest carries the rest of the mass.
    std::size_t heavySlot = 0;
    double keptRest = 0;
    f.sources.reserve(n / k + 2);
    for (std::size_t i = 0; i < n; ++i) {
        if (i % k != 0 && i != iMax)
            continue;
        if (i == iMax)
            heavySlot = f.sources.size();
        else
            keptRest += pos[i].w;
        f.sources.push_back({pos[i].x, pos[i].y, pos[i].z, pos[i].w});
    }
    if (k > 1 && keptRest > 0) {
        const double scale = (mAll - double(mMax)) / keptRest;
        for (std::size_t s = 0; s < f.sources.size(); ++s)
            if (s != heavySlot)
                f.sources[s].w *= scale;
    }
    f.totalMass = mAll;
    f.centreOfMass = mAll > 0 ? Double3{cx / mAll, cy / mAll, cz / mAll} : Double3{};
    if (n > 0 && mAll > 0 && double(mMax) >= 0.5 * mAll)
        f.dominant = heavySlot;
    return f;
}

Double3 fieldAcceleration(const LaunchField& field, const Double3& x)
{
    double ax = 0, ay = 0, az = 0;
    for (const Double4& s : field.sources) {
        const double dx = s.x - x.x, dy = s.y - x.y, dz = s.z - x.z;
        const double r2 = dx * dx + dy * dy + dz * dz + field.eps2;
        if (!(r2 > 0))
            continue; // on top of an unsoftened source: no defined pull (the kernels' contract)
        const double inv = 1.0 / (r2 * std::sqrt(r2));
        ax += s.w * dx * inv, ay += s.w * dy * inv, az += s.w * dz * inv;
    }
    return {field.G * ax, field.G * ay, field.G * az};
}

LaunchPrediction predictLaunch(const LaunchField& field, const LaunchRequest& q, const std::atomic<bool>* cancel)
{
    if (!std::isfinite(q.duration) || !(q.duration > 0))
        throw std::invalid_argument("predictLaunch: the duration must be positive and finite (got " +
                                    std::to_string(q.duration) + ")");
    if (!std::isfinite(q.dt) || q.dt == 0)
        throw std::invalid_argument("predictLaunch: the time step must be nonzero and finite (got " +
                                    std::to_string(q.dt) + "; negative when time runs backwards)");
    for (double v : {q.position.x, q.position.y, q.position.z, q.velocity.x, q.velocity.y, q.velocity.z})
        if (!std::isfinite(v))
            throw std::invalid_argument("predictLaunch: the start position or velocity is not finite");
    if (q.maxSteps == 0 || q.maxPathPoints < 2)
        throw std::invalid_argument("predictLaunch: maxSteps must be >= 1 and maxPathPoints >= 2");

    // Whole steps covering T: the last one ends at or just past T (a relative 1e-12 of slack so
    // T = n·dt, computed in fp64, is n steps and not n + 1).
    const double want = std::ceil(q.duration / std::abs(q.dt) * (1.0 - 1e-12));
    const std::size_t needed = std::max<std::size_t>(1, std::size_t(std::min(want, 1e18)));
    const std::size_t steps = std::min(needed, q.maxSteps);
    const std::size_t every = (steps + q.maxPathPoints - 2) / (q.maxPathPoints - 1); // ≤ maxPathPoints points

    LaunchPrediction r;
    r.truncated = steps < needed;
    r.speed = std::sqrt(q.velocity.x * q.velocity.x + q.velocity.y * q.velocity.y + q.velocity.z * q.velocity.z);
    r.aroundDominant = field.dominant.has_value();
    const Double3 c = field.dominant ? Double3{field.sources[*field.dominant].x, field.sources[*field.dominant].y,
                                               field.sources[*field.dominant].z}
                                     : field.centreOfMass;
    const auto distance = [&c](const Double3& p) {
        return std::sqrt((p.x - c.x) * (p.x - c.x) + (p.y - c.y) * (p.y - c.y) + (p.z - c.z) * (p.z - c.z));
    };
    Double3 x = q.position, v = q.velocity;
    Double3 a = fieldAcceleration(field, x);
    r.path.reserve(steps / every + 2);
    r.path.push_back(x);
    r.periapsis = distance(x);
    const double h = 0.5 * q.dt; // signed: the kicks and the drift run backwards with a negative dt
    std::size_t s = 0;
    for (; s < steps; ++s) {
        if (cancel && cancel->load(std::memory_order_relaxed)) {
            r.cancelled = true;
            break;
        }
        v = {v.x + h * a.x, v.y + h * a.y, v.z + h * a.z};             // kick ½ a dt
        x = {x.x + q.dt * v.x, x.y + q.dt * v.y, x.z + q.dt * v.z};    // drift dt
        a = fieldAcceleration(field, x);                                // a at the new position
        v = {v.x + h * a.x, v.y + h * a.y, v.z + h * a.z};             // kick ½ a dt
        if (!std::isfinite(x.x) || !std::isfinite(x.y) || !std::isfinite(x.z))
            break; // through an unsoftened source: the path ends where it was last finite
        if (const double d = distance(x); d < r.periapsis) {
            r.periapsis = d;
            r.periapsisTime = double(s + 1) * q.dt;
        }
        if ((s + 1) % every == 0 || s + 1 == steps)
            r.path.push_back(x);
    }
    r.steps = s;
    r.timeCovered = double(s) * q.dt;
    return r;
}

double launchSpeedPerDragLength(const World& world, double G)
{
    const FramingSphere f = framingSphere(world);
    const MassCentre mc = centreOfMass(world);
    return std::sqrt(G * std::max(mc.mass, 1e-30) / f.radius) / f.radius;
}

double dynamicalTime(const World& world, double G)
{
    const FramingSphere f = framingSphere(world);
    const MassCentre mc = centreOfMass(world);
    if (!(mc.mass > 0))
        return std::numeric_limits<double>::infinity();
    return std::sqrt(f.radius * f.radius * f.radius / (G * mc.mass));
}

} // namespace nbody
