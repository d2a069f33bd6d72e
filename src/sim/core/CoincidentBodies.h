#pragma once
/// \file CoincidentBodies.h
/// Bodies at one point without softening. With ε² = 0 the force between two bodies at the same
/// position and their potential energy −G·m_i·m_j/r are infinite; the pairwise interaction
/// (contracts/Interaction.h) gives a pair at zero distance no force, as it does a body's own
/// term, so every kernel would leave such a pair out without a word (E₀ and every step then
/// describe another system). Checked once, before a system runs: the command line refuses it.

#include "contracts/World.h"

#include <cstddef>
#include <string>

namespace nbody {

/// What findCoincidentBodies() found.
struct CoincidentBodies {
    std::size_t first = 0, second = 0; ///< the pair of lowest indices at one point (first < second)
    std::size_t bodies = 0;            ///< bodies that share their point with another; 0: none
    Float4 at{};                       ///< that point (w: first's mass)
    bool found() const { return bodies > 0; }
};

/// The bodies of `world` at exactly the same position (the fp32 positions the kernels read) when
/// `eps2` is 0; none when eps2 is not 0 (softening keeps every force finite). O(N log N): the
/// bodies sorted by position.
CoincidentBodies findCoincidentBodies(const World& world, float eps2);

/// "" when findCoincidentBodies() finds none; else one sentence without a remedy: "bodies 0 and 1
/// are at the same point (0, 0, 0) and eps2 is 0: the force between them and their potential
/// energy are infinite (a pair at zero distance gets no force, as a body's own term does, so the
/// kernels would leave it out and the run would describe another system)", with "(2 bodies share
/// a point with another)" after the point when there are more than two.
std::string coincidentBodiesProblem(const World& world, float eps2);

} // namespace nbody
