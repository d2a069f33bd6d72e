#pragma once
/// \file CollisionSystem.h
/// The collision system's merge step: perfectly inelastic merging of the touching pairs a
/// contact search found (sim/collide/Collisions.h), applied deterministically. docs/collisions.md has
/// the criterion, the rules and the energy accounting.
///
/// Rules. Pairs are processed in (i, j) order. Each body belongs to a merge group whose survivor
/// is its lowest index (union–find: a pair whose bodies were already absorbed acts on their
/// survivors, so chains A–B, B–C end in A; a pair already in one group is skipped). One merge of
/// the absorbed body x into the survivor s gives s
///   mass      M = m_s + m_x,
///   position  (m_s x_s + m_x x_x) / M   (the centre of mass; the mean when M = 0),
///   velocity  (m_s v_s + m_x v_x) / M   (momentum conserved; the mean when M = 0),
///   radius    cbrt(r_s³ + r_x³)         (volume conserved),
/// computed in fp64 from the stored values and rounded once to the storage precision (fp32 for
/// the World, fp64 for an Fp64State). The survivor keeps its id, index order and group; the
/// absorbed bodies are removed (World::removeBodies) after all pairs, so indices in `pairs`
/// refer to the system before the merges.
///
/// Energy. A merge removes the kinetic energy of the relative motion, ½ μ |v_s − v_x|² with
/// μ = m_s m_x / M (MergeRecord::energyLost), and it changes the potential energy: the pair's
/// softened mutual term −G m_s m_x / sqrt(d² + ε²) disappears, and the two bodies' terms with
/// every other body k, −G m_k (m_s / d_sk' + m_x / d_xk'), become −G m_k M / d_ck' (softened).
/// MergeRecord::energyChange is the exact change E_after − E_before of the whole system's
/// energy (kinetic + softened potential, as Diagnostics measures it) evaluated in fp64 from the
/// stored values before and after the merge (the rounded survivor included), so
/// E + Σ (−energyChange) is what the integrator conserves (Diagnostics::energyLost). O(N) per
/// merge for the terms with the other bodies.

#include "sim/collide/Collisions.h"
#include "contracts/World.h"

#include <span>
#include <vector>

namespace nbody {

/// Merges the touching `pairs` (sorted by (i, j), i < j < world.size(), as contact searches
/// return them) in `world`'s fp32 columns. Returns one record per merge in the order applied,
/// with step and time from `world`; G and eps2 are the gravitational constant and softening ε²
/// of the energy terms. Accelerations become stale when something merged. Throws
/// std::invalid_argument for an unsorted pair list, a pair with i >= j or an index out of range
/// (world unchanged then).
std::vector<MergeRecord> mergeContacts(World& world, std::span<const ContactPair> pairs, double G, double eps2);

/// The same for an fp64 kernel's state: the dynamics (positions with masses, velocities) are
/// merged in `state` (N Double4 each) and the radii in world.radii(); the absorbed bodies leave
/// both (the World's fp32 position and velocity columns are not refreshed: narrowInto them).
/// Throws as above, and std::invalid_argument when the sizes differ.
std::vector<MergeRecord> mergeContacts(World& world, Fp64State& state, std::span<const ContactPair> pairs, double G,
                                       double eps2);

} // namespace nbody
