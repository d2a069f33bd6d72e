#pragma once
/// \file Edits.h
/// Sandbox editing of a World: add a body or a small Plummer cluster, remove the bodies inside a
/// screen region, undo the last edit. Edits add and remove entities (World::addBody,
/// World::removeBodies); ids stay stable, so an undo finds its bodies after the system has moved.

#include "contracts/World.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nbody {

/// A Plummer sphere (Plummer 1911) sampled as in Aarseth, Hénon & Wielen (1974): `n` bodies of
/// mass totalMass / n, scale radius `a` (length units), radii truncated at 10 a, velocities from
/// the isotropic distribution function by von Neumann rejection, so the cluster is in virial
/// equilibrium for gravitational constant G; shifted so its centre of mass sits at `centre` and
/// moves with `velocity`. Group Star. The sampler is the `plummer` scenario's (Models.h,
/// makePlummer) scaled from Hénon units; deterministic for a seed. Throws std::invalid_argument for n = 0 or a non-positive or
/// non-finite mass, radius or G.
World makePlummerCluster(std::size_t n, double totalMass, double a, Double3 centre, Double3 velocity, double G,
                         std::uint64_t seed);

/// What one edit did, enough to undo it.
struct EditRecord {
    enum class Kind { Added, Removed };
    Kind kind = Kind::Added;
    std::vector<std::uint32_t> ids; ///< the bodies added or removed
    World removed;                  ///< Removed: their state when they were removed
    /// Removed: their indices at removal time (ascending, as `removed` holds them), so an undo
    /// puts them back where they were; empty: appended at the end.
    std::vector<BodyIndex> indices;
    std::string description;        ///< "added a body", "removed 12 bodies", …
};

/// Appends every body of `bodies` (positions, velocities, groups) to `world` with new ids.
/// Throws std::invalid_argument for a non-finite or negative-mass body (world unchanged).
EditRecord addBodies(World& world, const World& bodies, std::string description);

/// Removes the bodies at `indices`. Throws std::out_of_range for a bad index (world unchanged).
EditRecord removeBodies(World& world, const std::vector<BodyIndex>& indices, std::string description);

/// Undoes `edit` on `world` as it is now: removes the added bodies that are still there, or adds
/// the removed ones back with their ids, names and their state at removal time. Returns the
/// number of bodies added or removed.
std::size_t undoEdit(World& world, const EditRecord& edit);

/// Undoes `edit` on `world` as undoEdit does and returns the edit that undoes this undo (redo):
/// for an Added edit, a Removed record of the bodies it removed (their ids, names and state
/// now); for a Removed edit, an Added record of the ids it brought back. The description stays.
/// So undo and redo are one operation, and any number of levels of both restore the bodies
/// exactly (same ids, state, names and order of the others).
EditRecord revertEdit(World& world, const EditRecord& edit);

/// Indices of the bodies whose projection by `viewProjection` (4×4, column-major, as OpenGL and
/// GLM store it) lies in front of the camera and inside the rectangle [x0, x1] × [y0, y1] of
/// normalised device coordinates (−1…1, y up; the corners may come in any order).
std::vector<BodyIndex> bodiesInRegion(const World& world, const float viewProjection[16], float x0, float y0,
                                      float x1, float y1);

} // namespace nbody
