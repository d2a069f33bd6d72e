#pragma once
/// \file World.h
/// The simulated system as an entity-component store: bodies are entities (dense indices
/// 0..N-1 with a stable id each), components are contiguous columns of equal length, so a
/// column can be handed to a kernel as one array (structure of arrays).

#include "contracts/Types.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace nbody {

/// Body groups (a component): where a body came from, used for colouring and statistics.
enum class Group : std::uint8_t { Generic = 0, DarkMatter = 1, Star = 2, Gas = 3 };

/// Entity-component store of N bodies.
///
/// Columns (all of length N):
///  - position: Float4 (x, y, z, mass) — length and mass units;
///  - velocity: Float4 (vx, vy, vz, 0) — length / time;
///  - acceleration: Float4 (ax, ay, az, 0) — length / time², valid when `accelerationsValid`;
///  - id: uint32 (stable across removals), group: Group;
///  - radius: float, length units, ≥ 0 and finite (0 by default: a point mass that collides
///    only when SimParams::collisions is on and it lies inside a body of positive radius;
///    sim/collide/Collisions.h).
///
/// One sparse component: a name for the few bodies that have one (the Solar System's Sun and
/// planets), keyed by id, so a million unnamed bodies cost nothing. The view labels them.
class World {
public:
    World() = default;

    std::size_t size() const { return m_position.size(); }
    bool empty() const { return m_position.empty(); }

    /// Appends a body and returns its index. Throws std::invalid_argument when a value is
    /// not finite, the mass is negative or the radius is negative.
    BodyIndex addBody(Float4 positionMass, Float4 velocity, Group group = Group::Generic,
                      std::uint32_t id = kAutoId, float radius = 0.f);
    /// Removes the bodies at `indices` (any order, duplicates ignored) from every column; the
    /// others keep their order and ids, and the indices after a removed body shift down.
    /// Returns the number removed. Throws std::out_of_range for an index >= size() (nothing is
    /// removed then). Accelerations become stale.
    std::size_t removeBodies(std::vector<BodyIndex> indices);
    /// Reserves room for n bodies in every column.
    void reserve(std::size_t n);
    /// Removes every body.
    void clear();

    std::vector<Float4>& positions() { return m_position; }
    const std::vector<Float4>& positions() const { return m_position; }
    std::vector<Float4>& velocities() { return m_velocity; }
    const std::vector<Float4>& velocities() const { return m_velocity; }
    std::vector<Float4>& accelerations() { return m_acceleration; }
    const std::vector<Float4>& accelerations() const { return m_acceleration; }
    const std::vector<std::uint32_t>& ids() const { return m_id; }
    /// The id the next body added without one (kAutoId) gets: above every id this World has used.
    std::uint32_t nextId() const { return m_nextId; }
    /// Makes the next automatic id at least `id`, so a World rebuilt from another (the bodies of
    /// an undo put back in their places) never hands out an id the other had used.
    void reserveIdsBelow(std::uint32_t id) { m_nextId = std::max(m_nextId, id); }
    /// Replaces every body's id (a reader that learns the ids after the bodies). Throws
    /// std::invalid_argument when the count differs from size() or an id is kAutoId.
    void setIds(std::vector<std::uint32_t> ids);
    const std::vector<Group>& groups() const { return m_group; }
    /// The radius column: N floats, length units (see the class comment). Writers keep it
    /// finite and ≥ 0 (validate() checks).
    std::vector<float>& radii() { return m_radius; }
    const std::vector<float>& radii() const { return m_radius; }
    /// Sets body `index`'s radius. Throws std::out_of_range for index >= size(),
    /// std::invalid_argument for a negative or non-finite radius.
    void setRadius(BodyIndex index, float radius);
    /// The largest radius (0 when empty or when every radius is 0).
    float maxRadius() const;

    /// Names body `index` ("Earth"; empty: no name). Throws std::out_of_range for index >= size().
    void setName(BodyIndex index, std::string name);
    /// The name of body `index`, empty when it has none (or index >= size()).
    std::string name(BodyIndex index) const;
    /// (index, name) of every named body, in index order; empty when no body has a name. O(N)
    /// when some do, O(1) when none.
    std::vector<std::pair<BodyIndex, std::string>> namedBodies() const;
    bool hasNames() const { return !m_names.empty(); } ///< some body has a name

    /// Smallest and largest mass (0, 0 when empty).
    std::pair<float, float> massRange() const;
    /// Checks every column: equal lengths, finite values, non-negative masses and radii. Returns an empty
    /// string when valid, otherwise a message naming the first bad body and field.
    std::string validate() const;

    double time = 0.0;           ///< simulated time, time units
    std::uint64_t step = 0;      ///< steps taken since the system was created or loaded
    bool accelerationsValid = false; ///< accelerations hold F(positions) for the current positions

    static constexpr std::uint32_t kAutoId = 0xffffffffu;

private:
    std::vector<Float4> m_position;
    std::vector<Float4> m_velocity;
    std::vector<Float4> m_acceleration;
    std::vector<std::uint32_t> m_id;
    std::vector<Group> m_group;
    std::vector<float> m_radius;
    std::map<std::uint32_t, std::string> m_names; ///< id → name (sparse)
    std::uint32_t m_nextId = 0;
};

/// The fp64 copy of the dynamical state that fp64 kernels (Layout::Double4) advance: N Double4
/// each; position = (x, y, z, mass), velocity and acceleration = (x, y, z, 0).
struct Fp64State {
    std::vector<Double4> position;
    std::vector<Double4> velocity;
    std::vector<Double4> acceleration;
    std::size_t size() const { return position.size(); }
};

/// The World's fp32 columns widened to fp64 (exact).
Fp64State widen(const World& world);
/// Writes the fp64 state into the World's fp32 columns (rounded to nearest); sizes must match.
void narrowInto(const Fp64State& state, World& world);

/// Total mass and centre of mass (fp64). For a world without mass the centre is the geometric
/// centre; for an empty world both are 0.
struct MassCentre {
    double mass = 0;
    Double3 centre;
};
MassCentre centreOfMass(const World& world);

/// A sphere that frames the bodies for a camera: centre = centre of mass, radius = the largest
/// distance from it when that is within 1.5 times the distance within which 98 % of the bodies
/// lie, else that 98 % distance (so a few escapers do not shrink the view). {0,0,0}, 1 for an
/// empty world.
struct FramingSphere {
    double x = 0, y = 0, z = 0;
    double radius = 1;
};
FramingSphere framingSphere(const World& world);

} // namespace nbody

namespace nbody {

/// The radius of a uniform sphere of mass `mass` and density `density` (mass / length³):
/// r = (3 m / (4 π ρ))^{1/3}. Throws std::invalid_argument for a negative or non-finite mass or
/// a density that is not positive and finite.
double radiusFromDensity(double mass, double density);

} // namespace nbody
