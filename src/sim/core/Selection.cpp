#include "sim/core/Selection.h"
#include "sim/base/Parallel.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace nbody {

std::optional<BodyIndex> pickBody(std::span<const Float4> positions, const float m[16], double px, double py,
                                  int width, int height, double radiusPx)
{
    if (width <= 0 || height <= 0)
        throw std::invalid_argument("pickBody: the view has no pixels (" + std::to_string(width) + " x " +
                                    std::to_string(height) + ")");
    if (!std::isfinite(radiusPx) || radiusPx < 0)
        throw std::invalid_argument("pickBody: the pick radius must be >= 0 and finite");
    const double r2max = radiusPx * radiusPx;
    const auto n = static_cast<std::ptrdiff_t>(positions.size());
    // Best per thread by (pixel distance², clip w (depth), index), a total order: the merge of the
    // threads' bests gives the same body however the loop was split.
    struct Best {
        double d2 = std::numeric_limits<double>::infinity();
        double w = 0;
        std::ptrdiff_t i = -1;
        bool better(double d2o, double wo, std::ptrdiff_t io) const
        {
            if (i < 0)
                return true;
            if (d2o != d2)
                return d2o < d2;
            if (wo != w)
                return wo < w;
            return io < i;
        }
    };
    Best best;
#pragma omp parallel if (n >= kParallelElementsFrom)
    {
        Best mine;
#pragma omp for schedule(static) nowait
        for (std::ptrdiff_t i = 0; i < n; ++i) {
            const Float4& p = positions[std::size_t(i)];
            const double x = p.x, y = p.y, z = p.z;
            const double cx = m[0] * x + m[4] * y + m[8] * z + m[12];
            const double cy = m[1] * x + m[5] * y + m[9] * z + m[13];
            const double cz = m[2] * x + m[6] * y + m[10] * z + m[14];
            const double cw = m[3] * x + m[7] * y + m[11] * z + m[15];
            if (!(cw > 0) || cz < -cw || cz > cw) // behind the camera or outside the clip planes
                continue;
            const double sx = (cx / cw * 0.5 + 0.5) * width;
            const double sy = (0.5 - cy / cw * 0.5) * height;
            const double d2 = (sx - px) * (sx - px) + (sy - py) * (sy - py);
            if (d2 <= r2max && mine.better(d2, cw, i))
                mine = {d2, cw, i};
        }
#pragma omp critical
        if (mine.i >= 0 && best.better(mine.d2, mine.w, mine.i))
            best = mine;
    }
    if (best.i < 0)
        return std::nullopt;
    return BodyIndex(best.i);
}

BodyReport describeBody(const World& world, BodyIndex index, double G, double eps2)
{
    if (index >= world.size())
        throw std::out_of_range("describeBody: body " + std::to_string(index) + " of " +
                                std::to_string(world.size()));
    const auto& pos = world.positions();
    const auto& vel = world.velocities();
    BodyReport r;
    r.index = index;
    r.id = world.ids()[index];
    r.name = world.name(index);
    r.group = world.groups()[index];
    const Float4 p = pos[index], v = vel[index];
    r.mass = p.w;
    r.position = {p.x, p.y, p.z};
    r.velocity = {v.x, v.y, v.z};
    r.speed = std::sqrt(r.velocity.x * r.velocity.x + r.velocity.y * r.velocity.y + r.velocity.z * r.velocity.z);
    double ax = 0, ay = 0, az = 0;
    double nearest2 = std::numeric_limits<double>::infinity(), bestPull = 0;
    for (std::size_t j = 0; j < world.size(); ++j) {
        if (j == index)
            continue;
        const double dx = double(pos[j].x) - r.position.x, dy = double(pos[j].y) - r.position.y,
                     dz = double(pos[j].z) - r.position.z;
        const double d2 = dx * dx + dy * dy + dz * dz;
        const double s2 = d2 + eps2;
        const double m = pos[j].w;
        if (s2 > 0) {
            const double inv = 1.0 / (s2 * std::sqrt(s2));
            ax += m * dx * inv, ay += m * dy * inv, az += m * dz * inv;
            const double pull = G * m / s2;
            if (pull > bestPull) {
                bestPull = pull;
                r.attractor = BodyIndex(j);
                r.attractorDistance = std::sqrt(d2);
            }
        }
        if (d2 < nearest2) {
            nearest2 = d2;
            r.nearest = BodyIndex(j);
        }
    }
    r.acceleration = {G * ax, G * ay, G * az};
    r.accelerationMagnitude = std::sqrt(r.acceleration.x * r.acceleration.x + r.acceleration.y * r.acceleration.y +
                                        r.acceleration.z * r.acceleration.z);
    if (r.nearest) {
        r.nearestId = world.ids()[*r.nearest];
        r.nearestDistance = std::sqrt(nearest2);
    }
    if (r.attractor) {
        r.attractorId = world.ids()[*r.attractor];
        r.attractorPull = bestPull;
    }
    return r;
}

std::uint32_t followMerges(std::uint32_t id, std::span<const MergeRecord> log)
{
    for (const MergeRecord& m : log)
        if (m.absorbedId == id)
            id = m.survivorId;
    return id;
}

std::optional<BodyIndex> findBodyById(const World& world, std::uint32_t id, std::optional<BodyIndex> hint)
{
    return findBodyById(std::span<const std::uint32_t>(world.ids()), id, hint);
}

std::optional<BodyIndex> findBodyById(std::span<const std::uint32_t> ids, std::uint32_t id,
                                      std::optional<BodyIndex> hint)
{
    if (hint && *hint < ids.size() && ids[*hint] == id)
        return hint;
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] == id)
            return BodyIndex(i);
    return std::nullopt;
}

} // namespace nbody
