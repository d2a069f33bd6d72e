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
    f.velocities.reserve(n / k + 2);
    const auto& vel = world.velocities();
    for (std::size_t i = 0; i < n; ++i) {
        if (i % k != 0 && i != iMax)
            continue;
        if (i == iMax)
            heavySlot = f.sources.size();
        else
            keptRest += pos[i].w;
        f.sources.push_back({pos[i].x, pos[i].y, pos[i].z, pos[i].w});
        f.velocities.push_back({vel[i].x, vel[i].y, vel[i].z});
    }
    if (k > 1 && keptRest > 0) {
        const double scale = (mAll - double(mMax)) / keptRest;
        for (std::size_t s = 0; s < f.sources.size(); ++s)
            if (s != heavySlot)
                f.sources[s].w *= scale;
    }
    f.subsampled = k > 1;
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

bool launchIsLive(const LaunchField& field, double mass)
{
    return mass > 0 && std::isfinite(mass) && !field.subsampled && field.sources.size() <= kMaxLiveLaunchSources &&
           field.velocities.size() == field.sources.size();
}

double launchPairsPerStep(const LaunchField& field, double mass)
{
    const double n = double(field.sources.size());
    return launchIsLive(field, mass) ? (n + 1) * (n + 1) : std::max(1.0, n);
}

namespace {

/// Accelerations of every body of `x` (x, y, z, m) from all the others, fp64, each sum over
/// j in index order (the force contract, Plummer softening ε²).
void mutualAccelerations(const std::vector<Double4>& x, double G, double eps2, std::vector<Double3>& a)
{
    const std::size_t n = x.size();
    a.assign(n, Double3{});
    for (std::size_t i = 0; i < n; ++i) {
        double ax = 0, ay = 0, az = 0;
        for (std::size_t j = 0; j < n; ++j) {
            if (j == i)
                continue;
            const double dx = x[j].x - x[i].x, dy = x[j].y - x[i].y, dz = x[j].z - x[i].z;
            const double r2 = dx * dx + dy * dy + dz * dz + eps2;
            if (!(r2 > 0))
                continue;
            const double inv = 1.0 / (r2 * std::sqrt(r2));
            ax += x[j].w * dx * inv, ay += x[j].w * dy * inv, az += x[j].w * dz * inv;
        }
        a[i] = {G * ax, G * ay, G * az};
    }
}

} // namespace

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
    if (!std::isfinite(q.mass) || q.mass < 0)
        throw std::invalid_argument("predictLaunch: the mass must be >= 0 and finite (got " + std::to_string(q.mass) +
                                    ")");

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
    if (launchIsLive(field, q.mass)) {
        // The N-body problem with the new body last: everything moves, the periapsis is taken
        // from the dominant body where it is at each step.
        r.testParticle = false;
        std::vector<Double4> xs(field.sources);
        std::vector<Double3> vs(field.velocities);
        xs.push_back({q.position.x, q.position.y, q.position.z, q.mass});
        vs.push_back(q.velocity);
        const std::size_t me = xs.size() - 1;
        const auto centre = [&]() -> Double3 {
            if (field.dominant)
                return {xs[*field.dominant].x, xs[*field.dominant].y, xs[*field.dominant].z};
            double m = 0, cx = 0, cy = 0, cz = 0; // of the others
            for (std::size_t i = 0; i < me; ++i)
                m += xs[i].w, cx += xs[i].w * xs[i].x, cy += xs[i].w * xs[i].y, cz += xs[i].w * xs[i].z;
            return m > 0 ? Double3{cx / m, cy / m, cz / m} : Double3{};
        };
        const auto distanceNow = [&] {
            const Double3 cc = centre();
            const double dx = xs[me].x - cc.x, dy = xs[me].y - cc.y, dz = xs[me].z - cc.z;
            return std::sqrt(dx * dx + dy * dy + dz * dz);
        };
        std::vector<Double3> as;
        mutualAccelerations(xs, field.G, field.eps2, as);
        r.path.reserve(steps / every + 2);
        r.path.push_back(q.position);
        r.periapsis = distanceNow();
        const double h = 0.5 * q.dt;
        std::size_t s = 0;
        for (; s < steps; ++s) {
            if (cancel && cancel->load(std::memory_order_relaxed)) {
                r.cancelled = true;
                break;
            }
            for (std::size_t i = 0; i <= me; ++i) { // kick ½ a dt, drift dt
                vs[i] = {vs[i].x + h * as[i].x, vs[i].y + h * as[i].y, vs[i].z + h * as[i].z};
                xs[i].x += q.dt * vs[i].x, xs[i].y += q.dt * vs[i].y, xs[i].z += q.dt * vs[i].z;
            }
            mutualAccelerations(xs, field.G, field.eps2, as); // a at the new positions
            for (std::size_t i = 0; i <= me; ++i) // kick ½ a dt
                vs[i] = {vs[i].x + h * as[i].x, vs[i].y + h * as[i].y, vs[i].z + h * as[i].z};
            const Double3 x{xs[me].x, xs[me].y, xs[me].z};
            if (!std::isfinite(x.x) || !std::isfinite(x.y) || !std::isfinite(x.z))
                break;
            if (const double d = distanceNow(); d < r.periapsis) {
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
