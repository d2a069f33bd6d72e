#pragma once
/// \file Selection.h
/// Picking and inspecting one body (the app's Selection dock): the body under the
/// cursor by CPU projection of the host positions, the report the dock shows (state, the
/// acceleration, the nearest and the most attracting neighbour), and how a selection by stable
/// id (World::ids) follows merges to the surviving body (Simulation::mergeLog).

#include "sim/collide/Collisions.h" // MergeRecord
#include "contracts/Types.h"
#include "contracts/World.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace nbody {

/// The body whose projection by `viewProjection` (4×4, column-major, as OpenGL and GLM store it;
/// the camera's projection × view) lands nearest to the pixel (px, py) of a width × height view
/// (pixels from the top left, y down), among the bodies in front of the camera (clip w > 0, within
/// the near and far planes) whose projection is at most `radiusPx` pixels away; ties go to the
/// body nearer the camera, then to the lower index. nullopt when no body is that close. O(N),
/// OpenMP for large N (about 2 ms for 10⁶ bodies on one core). Throws std::invalid_argument for
/// a view of no pixels or a negative or non-finite radius.
std::optional<BodyIndex> pickBody(std::span<const Float4> positions, const float viewProjection[16], double px,
                                  double py, int width, int height, double radiusPx);

/// What the Selection dock shows about one body, fp64, in the system's units.
struct BodyReport {
    BodyIndex index = 0;         ///< its index now (indices shift when bodies are removed)
    std::uint32_t id = 0;        ///< its stable id (World::ids)
    std::string name;            ///< World::name ("" when it has none)
    Group group = Group::Generic;
    double mass = 0;             ///< mass units
    Double3 position, velocity;  ///< length, length / time
    double speed = 0;            ///< |v|
    /// The softened gravitational acceleration of the body, G Σ_j m_j (x_j − x) / (|x_j − x|² + ε²)^{3/2}
    /// (the force of every kernel's contract, summed in fp64), length / time².
    Double3 acceleration;
    double accelerationMagnitude = 0;
    /// The nearest other body (smallest |x_j − x|); none when N = 1.
    std::optional<BodyIndex> nearest;
    std::uint32_t nearestId = 0;
    double nearestDistance = 0;  ///< length units
    /// The most attracting other body: the largest G m_j / (|x_j − x|² + ε²), the magnitude of
    /// the softened pull of j alone; none when N = 1 or every other body is massless.
    std::optional<BodyIndex> attractor;
    std::uint32_t attractorId = 0;
    double attractorPull = 0;    ///< G m_j / (r² + ε²), length / time²
    double attractorDistance = 0;
};

/// The report of body `index` of `world` with gravitational constant G and softening ε² `eps2`:
/// one O(N) pass in fp64 over the fp32 columns. Throws std::out_of_range for index >= N.
BodyReport describeBody(const World& world, BodyIndex index, double G, double eps2);

/// The id a selection of body `id` has after the merges of `log` (in the order applied): each
/// record that absorbed the body moves the selection to its survivor, so a chain of merges is
/// followed to the end. Unchanged when no record absorbed it.
std::uint32_t followMerges(std::uint32_t id, std::span<const MergeRecord> log);

/// The index of the body with stable id `id` in `world`, or nullopt. `hint`: an index to try
/// first (the last known one), so a selection costs O(1) until bodies are removed or merge, O(N)
/// then.
std::optional<BodyIndex> findBodyById(const World& world, std::uint32_t id, std::optional<BodyIndex> hint = {});
/// The same over a column of ids alone (World::ids, Simulation::ids: no copy of a device state).
std::optional<BodyIndex> findBodyById(std::span<const std::uint32_t> ids, std::uint32_t id,
                                      std::optional<BodyIndex> hint = {});

} // namespace nbody
