#include "contracts/World.h"

#include "contracts/Quantile.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace nbody {

namespace {

bool finite4(const Float4& v)
{
    return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z) && std::isfinite(v.w);
}

} // namespace

BodyIndex World::addBody(Float4 positionMass, Float4 velocity, Group group, std::uint32_t id, float radius)
{
    if (!std::isfinite(radius) || radius < 0.f)
        throw std::invalid_argument("body " + std::to_string(size()) + ": radius " + std::to_string(radius) +
                                    " is negative or not finite");
    if (!finite4(positionMass) || !finite4(velocity))
        throw std::invalid_argument("body " + std::to_string(size()) + ": position, mass or velocity is not finite");
    if (positionMass.w < 0.f)
        throw std::invalid_argument("body " + std::to_string(size()) + ": negative mass");
    velocity.w = 0.f;
    m_position.push_back(positionMass);
    m_velocity.push_back(velocity);
    m_acceleration.push_back(Float4{});
    m_id.push_back(id == kAutoId ? m_nextId : id);
    m_nextId = std::max(m_nextId, m_id.back() + 1);
    m_group.push_back(group);
    m_radius.push_back(radius);
    accelerationsValid = false;
    return size() - 1;
}

std::size_t World::removeBodies(std::vector<BodyIndex> indices)
{
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    if (!indices.empty() && indices.back() >= size())
        throw std::out_of_range("World::removeBodies: index " + std::to_string(indices.back()) + " of " +
                                std::to_string(size()) + " bodies");
    if (indices.empty())
        return 0;
    // Stable compaction of every column in one pass.
    std::size_t out = indices.front(), next = 0;
    for (std::size_t i = indices.front(); i < size(); ++i) {
        if (next < indices.size() && indices[next] == i) {
            ++next;
            if (!m_names.empty())
                m_names.erase(m_id[i]);
            continue;
        }
        m_position[out] = m_position[i];
        m_velocity[out] = m_velocity[i];
        m_acceleration[out] = m_acceleration[i];
        m_id[out] = m_id[i];
        m_group[out] = m_group[i];
        m_radius[out] = m_radius[i];
        ++out;
    }
    m_position.resize(out);
    m_velocity.resize(out);
    m_acceleration.resize(out);
    m_id.resize(out);
    m_group.resize(out);
    m_radius.resize(out);
    accelerationsValid = false;
    return indices.size();
}

void World::reserve(std::size_t n)
{
    m_position.reserve(n);
    m_velocity.reserve(n);
    m_acceleration.reserve(n);
    m_id.reserve(n);
    m_group.reserve(n);
    m_radius.reserve(n);
}

void World::clear()
{
    m_position.clear();
    m_velocity.clear();
    m_acceleration.clear();
    m_id.clear();
    m_group.clear();
    m_radius.clear();
    m_names.clear();
    m_nextId = 0;
    accelerationsValid = false;
}

void World::setIds(std::vector<std::uint32_t> ids)
{
    if (ids.size() != size())
        throw std::invalid_argument("World::setIds: " + std::to_string(ids.size()) + " ids for " +
                                    std::to_string(size()) + " bodies");
    std::uint32_t next = 0;
    for (const std::uint32_t id : ids) {
        if (id == kAutoId)
            throw std::invalid_argument("World::setIds: the id 4294967295 is reserved");
        next = std::max(next, id + 1);
    }
    if (!m_names.empty()) { // names follow their bodies, not the old ids
        std::map<std::uint32_t, std::string> renamed;
        for (std::size_t i = 0; i < m_id.size(); ++i)
            if (const auto it = m_names.find(m_id[i]); it != m_names.end())
                renamed[ids[i]] = it->second;
        m_names = std::move(renamed);
    }
    m_id = std::move(ids);
    m_nextId = next;
}

void World::setRadius(BodyIndex index, float radius)
{
    if (index >= size())
        throw std::out_of_range("World::setRadius: index " + std::to_string(index) + " of " +
                                std::to_string(size()) + " bodies");
    if (!std::isfinite(radius) || radius < 0.f)
        throw std::invalid_argument("body " + std::to_string(index) + ": radius " + std::to_string(radius) +
                                    " is negative or not finite");
    m_radius[index] = radius;
}

float World::maxRadius() const
{
    float r = 0.f;
    for (const float x : m_radius)
        r = std::max(r, x);
    return r;
}

double radiusFromDensity(double mass, double density)
{
    if (!std::isfinite(mass) || mass < 0)
        throw std::invalid_argument("radius from density: the mass must be >= 0 and finite");
    if (!std::isfinite(density) || !(density > 0))
        throw std::invalid_argument("radius from density: the density must be positive and finite (got " +
                                    std::to_string(density) + ")");
    constexpr double kPi = 3.14159265358979323846;
    return std::cbrt(3.0 * mass / (4.0 * kPi * density));
}

void World::setName(BodyIndex index, std::string name)
{
    if (index >= size())
        throw std::out_of_range("World::setName: index " + std::to_string(index) + " of " + std::to_string(size()) +
                                " bodies");
    if (name.empty())
        m_names.erase(m_id[index]);
    else
        m_names[m_id[index]] = std::move(name);
}

std::string World::name(BodyIndex index) const
{
    if (index >= size() || m_names.empty())
        return {};
    const auto it = m_names.find(m_id[index]);
    return it == m_names.end() ? std::string() : it->second;
}

std::vector<std::pair<BodyIndex, std::string>> World::namedBodies() const
{
    std::vector<std::pair<BodyIndex, std::string>> out;
    if (m_names.empty())
        return out;
    for (std::size_t i = 0; i < m_id.size(); ++i)
        if (const auto it = m_names.find(m_id[i]); it != m_names.end())
            out.emplace_back(i, it->second);
    return out;
}

std::pair<float, float> World::massRange() const
{
    if (m_position.empty())
        return {0.f, 0.f};
    auto [lo, hi] = std::minmax_element(m_position.begin(), m_position.end(),
                                        [](const Float4& a, const Float4& b) { return a.w < b.w; });
    return {lo->w, hi->w};
}

std::string World::validate() const
{
    const std::size_t n = m_position.size();
    if (m_velocity.size() != n || m_acceleration.size() != n || m_id.size() != n || m_group.size() != n ||
        m_radius.size() != n)
        return "component columns have different lengths";
    for (std::size_t i = 0; i < n; ++i) {
        if (!finite4(m_position[i]))
            return "body " + std::to_string(i) + ": position or mass is not finite";
        if (!finite4(m_velocity[i]))
            return "body " + std::to_string(i) + ": velocity is not finite";
        if (m_position[i].w < 0.f)
            return "body " + std::to_string(i) + ": negative mass";
        if (!std::isfinite(m_radius[i]) || m_radius[i] < 0.f)
            return "body " + std::to_string(i) + ": radius is negative or not finite";
    }
    return {};
}

MassCentre centreOfMass(const World& world)
{
    MassCentre c;
    const auto& pos = world.positions();
    if (pos.empty())
        return c;
    Double3 weighted, plain;
    for (const Float4& p : pos) {
        c.mass += p.w;
        weighted.x += double(p.w) * p.x;
        weighted.y += double(p.w) * p.y;
        weighted.z += double(p.w) * p.z;
        plain.x += p.x;
        plain.y += p.y;
        plain.z += p.z;
    }
    const double n = double(pos.size());
    c.centre = c.mass > 0 ? Double3{weighted.x / c.mass, weighted.y / c.mass, weighted.z / c.mass}
                          : Double3{plain.x / n, plain.y / n, plain.z / n}; // massless test particles
    return c;
}

FramingSphere framingSphere(const World& world)
{
    FramingSphere f;
    const auto& pos = world.positions();
    if (pos.empty())
        return f;
    const Double3 c = centreOfMass(world).centre;
    f.x = c.x;
    f.y = c.y;
    f.z = c.z;
    std::vector<double> r(pos.size());
    for (std::size_t i = 0; i < pos.size(); ++i) {
        const double dx = pos[i].x - f.x, dy = pos[i].y - f.y, dz = pos[i].z - f.z;
        r[i] = std::sqrt(dx * dx + dy * dy + dz * dz);
    }
    const double rmax = *std::max_element(r.begin(), r.end());
    const double r98 = nearestRankQuantile(r, 0.98);
    // The 98 % radius, or the whole system when its outermost body is within 1.5 times that (a
    // compact system such as the cube: its corners stay in view; escapers do not shrink it).
    f.radius = rmax <= 1.5 * r98 ? rmax : std::max(r98, 1e-6 * rmax);
    if (!(f.radius > 0))
        f.radius = 1;
    return f;
}

Fp64State widen(const World& world)
{
    const auto widen4 = [](const std::vector<Float4>& in) {
        std::vector<Double4> out(in.size());
        for (std::size_t i = 0; i < in.size(); ++i)
            out[i] = Double4{in[i].x, in[i].y, in[i].z, in[i].w};
        return out;
    };
    return {widen4(world.positions()), widen4(world.velocities()), widen4(world.accelerations())};
}

void narrowInto(const Fp64State& state, World& world)
{
    if (state.size() != world.size())
        throw std::logic_error("narrowInto: the fp64 state and the world differ in size");
    const auto narrow4 = [](const std::vector<Double4>& in, std::vector<Float4>& out) {
        for (std::size_t i = 0; i < in.size(); ++i)
            out[i] = Float4{float(in[i].x), float(in[i].y), float(in[i].z), float(in[i].w)};
    };
    narrow4(state.position, world.positions());
    narrow4(state.velocity, world.velocities());
    narrow4(state.acceleration, world.accelerations());
}

} // namespace nbody
