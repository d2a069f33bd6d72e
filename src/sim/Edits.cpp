#include "Edits.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <unordered_set>

namespace nbody {

namespace {

/// Uniform in [0, 1) from the top 53 bits (the same on every platform, unlike std:: distributions).
double uniform(std::mt19937_64& rng)
{
    return double(rng() >> 11) * (1.0 / 9007199254740992.0);
}

/// A direction uniform on the unit sphere, scaled by `length`.
Double3 isotropic(std::mt19937_64& rng, double length)
{
    const double z = 2.0 * uniform(rng) - 1.0;
    const double phi = 2.0 * M_PI * uniform(rng);
    const double s = std::sqrt(std::max(0.0, 1.0 - z * z));
    return {length * s * std::cos(phi), length * s * std::sin(phi), length * z};
}

} // namespace

World makePlummerCluster(std::size_t n, double totalMass, double a, Double3 centre, Double3 velocity, double G,
                         std::uint64_t seed)
{
    if (n == 0)
        throw std::invalid_argument("Plummer cluster: N = 0");
    for (const auto& [name, v] : {std::pair{"mass", totalMass}, std::pair{"scale radius", a}, std::pair{"G", G}})
        if (!(std::isfinite(v) && v > 0))
            throw std::invalid_argument(std::string("Plummer cluster: the ") + name + " must be positive and finite");
    std::mt19937_64 rng(seed);
    std::vector<Double3> x(n), v(n);
    for (std::size_t i = 0; i < n; ++i) {
        double r;
        do { // cumulative mass M(r)/M = r³ / (r² + a²)^(3/2), inverted; truncated at 10 a
            const double u = std::max(uniform(rng), 1e-12);
            r = a / std::sqrt(std::pow(u, -2.0 / 3.0) - 1.0);
        } while (!(r <= 10.0 * a));
        x[i] = isotropic(rng, r);
        // Speed q·v_esc with g(q) ∝ q² (1 − q²)^3.5 by rejection (maximum of g is below 0.1).
        double q, y;
        do {
            q = uniform(rng);
            y = 0.1 * uniform(rng);
        } while (y > q * q * std::pow(1.0 - q * q, 3.5));
        const double vEscape = std::sqrt(2.0 * G * totalMass / std::sqrt(r * r + a * a));
        v[i] = isotropic(rng, q * vEscape);
    }
    Double3 mx, mv; // equal masses: centre of mass = mean
    for (std::size_t i = 0; i < n; ++i) {
        mx = {mx.x + x[i].x, mx.y + x[i].y, mx.z + x[i].z};
        mv = {mv.x + v[i].x, mv.y + v[i].y, mv.z + v[i].z};
    }
    const double inv = 1.0 / double(n);
    World w;
    w.reserve(n);
    const float m = float(totalMass * inv);
    for (std::size_t i = 0; i < n; ++i) {
        w.addBody(Float4{float(x[i].x - mx.x * inv + centre.x), float(x[i].y - mx.y * inv + centre.y),
                         float(x[i].z - mx.z * inv + centre.z), m},
                  Float4{float(v[i].x - mv.x * inv + velocity.x), float(v[i].y - mv.y * inv + velocity.y),
                         float(v[i].z - mv.z * inv + velocity.z), 0.f},
                  Group::Star);
    }
    return w;
}

EditRecord addBodies(World& world, const World& bodies, std::string description)
{
    if (const std::string bad = bodies.validate(); !bad.empty())
        throw std::invalid_argument("cannot add: " + bad);
    EditRecord r;
    r.kind = EditRecord::Kind::Added;
    r.description = std::move(description);
    world.reserve(world.size() + bodies.size());
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        const BodyIndex k = world.addBody(bodies.positions()[i], bodies.velocities()[i], bodies.groups()[i]);
        r.ids.push_back(world.ids()[k]);
    }
    return r;
}

EditRecord removeBodies(World& world, const std::vector<BodyIndex>& indices, std::string description)
{
    EditRecord r;
    r.kind = EditRecord::Kind::Removed;
    r.description = std::move(description);
    std::vector<BodyIndex> sorted = indices;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    if (!sorted.empty() && sorted.back() >= world.size())
        throw std::out_of_range("cannot remove body " + std::to_string(sorted.back()) + " of " +
                                std::to_string(world.size()));
    for (BodyIndex i : sorted) {
        r.removed.addBody(world.positions()[i], world.velocities()[i], world.groups()[i], world.ids()[i]);
        r.ids.push_back(world.ids()[i]);
    }
    world.removeBodies(std::move(sorted));
    return r;
}

std::size_t undoEdit(World& world, const EditRecord& edit)
{
    if (edit.kind == EditRecord::Kind::Added) {
        const std::unordered_set<std::uint32_t> ids(edit.ids.begin(), edit.ids.end());
        std::vector<BodyIndex> indices;
        for (std::size_t i = 0; i < world.size(); ++i)
            if (ids.count(world.ids()[i]))
                indices.push_back(i);
        return world.removeBodies(std::move(indices));
    }
    const World& back = edit.removed;
    world.reserve(world.size() + back.size());
    for (std::size_t i = 0; i < back.size(); ++i)
        world.addBody(back.positions()[i], back.velocities()[i], back.groups()[i], back.ids()[i]);
    return back.size();
}

std::vector<BodyIndex> bodiesInRegion(const World& world, const float m[16], float x0, float y0, float x1, float y1)
{
    const float lx = std::min(x0, x1), hx = std::max(x0, x1), ly = std::min(y0, y1), hy = std::max(y0, y1);
    std::vector<BodyIndex> inside;
    const auto& pos = world.positions();
    for (std::size_t i = 0; i < pos.size(); ++i) {
        const Float4& p = pos[i];
        // clip = M · (x, y, z, 1), column-major
        const float cx = m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12];
        const float cy = m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13];
        const float cw = m[3] * p.x + m[7] * p.y + m[11] * p.z + m[15];
        if (!(cw > 0.f))
            continue; // behind the camera
        const float nx = cx / cw, ny = cy / cw;
        if (nx >= lx && nx <= hx && ny >= ly && ny <= hy)
            inside.push_back(i);
    }
    return inside;
}

} // namespace nbody
