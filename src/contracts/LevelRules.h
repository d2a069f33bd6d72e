#pragma once
/// \file LevelRules.h
/// The two rules of hierarchical block time steps that the host and the device must apply to
/// the same bits (sim/core/BlockSteps.h explains the scheme; the device assigns the levels of a
/// CUDA kernel's state without copying them to the host): the level a criterion's step asks
/// for, and GADGET-2's rule for when a body may change level (V. Springel, "The cosmological
/// simulation code GADGET-2", MNRAS 364, 1105 (2005), §4; timestep.c).

#include "contracts/Interaction.h" // NB_HD

#include <cmath>
#include <cstdint>

namespace nbody {

/// The deepest level SimParams::maxLevels may name: 2^30 ticks of one dt_max.
inline constexpr int kMaxBlockLevels = 30;

/// The shallowest level k in [0, maxLevels] with dtMax / 2^k ≤ dt (maxLevels when none is, also
/// for a NaN dt). Exact: the powers of two are compared as doubles scaled by ldexp, which is
/// exact on the host and the device for the normal doubles of dtMax / 2^k, k ≤ 30.
NB_HD int levelForStep(double dtMax, double dt, int maxLevels)
{
    for (int k = 0; k <= maxLevels; ++k)
        if (ldexp(dtMax, -k) <= dt)
            return k;
    return maxLevels; // the criterion asks for less than the deepest level gives (or dt is NaN)
}

/// GADGET-2's rule for a body whose step of level `current` ends at tick t (of 2^maxLevels per
/// dt_max) and whose criterion asks for level `wanted`: `wanted` when it is deeper or equal, or
/// when t is a multiple of its step 2^(maxLevels − wanted); else `current`.
NB_HD int allowedLevel(int current, int wanted, std::uint64_t tick, int maxLevels)
{
    if (wanted >= current)
        return wanted; // a shorter step: its steps divide the time of the step end
    const std::uint64_t step = std::uint64_t(1) << (maxLevels - wanted);
    return tick % step == 0 ? wanted : current;
}

/// The level of a body whose step ends at tick t with the criterion's step dt: every level is
/// allowed at a synchronisation point (t = 0), else GADGET-2's rule (allowedLevel).
NB_HD int nextLevel(int current, double dtMax, double dt, std::uint64_t tick, int maxLevels)
{
    const int wanted = levelForStep(dtMax, dt, maxLevels);
    return tick == 0 ? wanted : allowedLevel(current, wanted, tick, maxLevels);
}

} // namespace nbody
