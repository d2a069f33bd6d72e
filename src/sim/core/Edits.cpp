#include "sim/core/Edits.h"
#include "sim/core/Models.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_set>

namespace nbody {

World makePlummerCluster(std::size_t n, double totalMass, double a, Double3 centre, Double3 velocity, double G,
                         std::uint64_t seed)
{
    if (n == 0)
        throw std::invalid_argument("Plummer cluster: N = 0");
    for (const auto& [name, v] : {std::pair{"mass", totalMass}, std::pair{"scale radius", a}, std::pair{"G", G}})
        if (!(std::isfinite(v) && v > 0))
            throw std::invalid_argument(std::string("Plummer cluster: the ") + name + " must be positive and finite");
    // The `plummer` scenario's sampler (Models.h) in Hénon units, truncated at 10 a:
    // M(10 a) / M = 1000 / 101^{3/2}.
    PlummerParams p;
    p.bodies = n;
    p.seed = seed;
    p.massCutoff = 1000.0 / std::pow(101.0, 1.5);
    const ModelBodies model = makePlummer(p);
    // Scaled to mass M, length L = a / a_Hénon and speed sqrt(G M / L) (Hénon units: G = M = 1).
    const double length = a / plummerScaleHenon();
    const double speed = std::sqrt(G * totalMass / length);
    const Fp64State& s = *model.exact; // centre of mass at rest at the origin
    World w;
    w.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Double4& x = s.position[i];
        const Double4& v = s.velocity[i];
        w.addBody(Float4{float(x.x * length + centre.x), float(x.y * length + centre.y), float(x.z * length + centre.z),
                         float(x.w * totalMass)},
                  Float4{float(v.x * speed + velocity.x), float(v.y * speed + velocity.y),
                         float(v.z * speed + velocity.z), 0.f},
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
        const BodyIndex k = world.addBody(bodies.positions()[i], bodies.velocities()[i], bodies.groups()[i],
                                           World::kAutoId, bodies.radii()[i]);
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
        const BodyIndex k = r.removed.addBody(world.positions()[i], world.velocities()[i], world.groups()[i],
                                              world.ids()[i], world.radii()[i]);
        if (world.hasNames())
            if (std::string name = world.name(i); !name.empty())
                r.removed.setName(k, std::move(name));
        r.ids.push_back(world.ids()[i]);
    }
    r.indices = sorted;
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
    if (edit.indices.size() == back.size() && !back.empty() && edit.indices.back() < world.size() + back.size()) {
        // Back where they were: the others keep their order, the removed ones take their old
        // indices (a rebuilt World; every column, names included).
        World merged;
        merged.reserve(world.size() + back.size());
        std::size_t next = 0, kept = 0;
        const auto copy = [&merged](const World& from, std::size_t i) {
            const BodyIndex k = merged.addBody(from.positions()[i], from.velocities()[i], from.groups()[i],
                                               from.ids()[i], from.radii()[i]);
            if (from.hasNames())
                if (std::string name = from.name(i); !name.empty())
                    merged.setName(k, std::move(name));
        };
        for (std::size_t at = 0; at < world.size() + back.size(); ++at) {
            if (next < back.size() && edit.indices[next] == at)
                copy(back, next++);
            else
                copy(world, kept++);
        }
        merged.time = world.time;
        merged.step = world.step;
        merged.reserveIdsBelow(world.nextId()); // an id once used is never handed out again
        world = std::move(merged);
        return back.size();
    }
    world.reserve(world.size() + back.size());
    for (std::size_t i = 0; i < back.size(); ++i) {
        const BodyIndex k =
            world.addBody(back.positions()[i], back.velocities()[i], back.groups()[i], back.ids()[i], back.radii()[i]);
        if (back.hasNames())
            if (std::string name = back.name(i); !name.empty())
                world.setName(k, std::move(name));
    }
    return back.size();
}

EditRecord revertEdit(World& world, const EditRecord& edit)
{
    if (edit.kind == EditRecord::Kind::Added) {
        const std::unordered_set<std::uint32_t> ids(edit.ids.begin(), edit.ids.end());
        std::vector<BodyIndex> indices;
        for (std::size_t i = 0; i < world.size(); ++i)
            if (ids.count(world.ids()[i]))
                indices.push_back(i);
        return removeBodies(world, indices, edit.description);
    }
    EditRecord r;
    r.kind = EditRecord::Kind::Added;
    r.description = edit.description;
    r.ids = edit.ids;
    undoEdit(world, edit);
    return r;
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
