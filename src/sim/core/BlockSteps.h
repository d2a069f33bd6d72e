#pragma once
/// \file BlockSteps.h
/// Hierarchical block time steps (individual time steps on power-of-two levels): the levels of
/// the bodies, the step criterion and the rules by which a body changes level. The stepper
/// (Stepper.h, emitSubsteps) composes the kicks, drifts and force evaluations of one step out of
/// them; docs/timesteps.md explains the scheme.
///
/// Levels. SimParams::dt is the largest step dt_max. A body on level k takes steps of
/// dt_k = dt_max / 2^k, 0 ≤ k ≤ L = SimParams::maxLevels. Time inside one step of dt_max is
/// counted in ticks of dt_max / 2^L (GADGET-2's integer timeline): level k's steps are
/// s_k = 2^(L−k) ticks, and a body on level k starts and ends its steps at multiples of s_k.
/// At tick t (0 < t ≤ 2^L) the bodies whose step ends are those with k ≥ L − ctz(t): the active
/// set of a substep is every body at or below a level, and t = 2^L (the end of the step, a
/// synchronisation point) makes every body active.
///
/// Scheme: KDK with individual steps (V. Springel, "The cosmological simulation code GADGET-2",
/// MNRAS 364, 1105 (2005), §4): every body takes its own kick–drift–kick leapfrog step; all
/// bodies drift together from one tick at which some step ends to the next; at such a tick the
/// active bodies get their forces (at the common, drifted positions), their closing half kick,
/// possibly a new level, and the opening half kick of their next step. A step in which every
/// body is on level 0 is exactly the fixed-step KDK leapfrog step.
///
/// Criterion: dt_i = η · sqrt(ℓ_i / |a_i|), with ℓ_i = ε = sqrt(ε²) when ε² > 0 (GADGET-2
/// eq. 34, whose η_G relates as η = sqrt(2 η_G)), and ℓ_i = r_min,i, the distance from body i to
/// the nearest other body, when ε² = 0: for a body in the field of a point mass M at r,
/// |a| = GM/r² and dt = η · sqrt(r³ / GM), η times the local dynamical time 1/ω, which stays
/// finite for an unsoftened close approach where sqrt(ε/|a|) would be 0. Both depend on the
/// state at the body's step end alone (no history), so a restart from a synchronisation point
/// assigns the same levels. The level is the shallowest k with dt_max / 2^k ≤ dt_i (L when
/// none is; 0 when |a| = 0).
///
/// Level changes (GADGET-2's rule, timestep.c): a body changes level only at the end of its own
/// step, at tick t. A deeper level (a shorter step) is always allowed (its steps divide t). A
/// shallower one is taken only when t is a multiple of its step s_k'; otherwise the body keeps
/// its level. At a synchronisation point (t = 0 of a step) every level is allowed.

#include "contracts/LevelRules.h" // levelForStep, allowedLevel, nextLevel (host and device)

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace nbody {

struct SimParams;

/// The step the criterion gives a body: η · sqrt(ℓ / |a|) with ℓ = sqrt(ε²) when ε² > 0, else
/// rMin (the distance to the nearest other body). +∞ when |a| = 0; 0 when ℓ = 0 (two bodies at
/// one point with ε² = 0: the deepest level). Units: time for lengths and accelerations in the
/// system's units.
double criterionStep(double eta, double eps2, double accelerationMagnitude, double rMin);

/// The levels of the bodies and the active set of the current substep; owned by the Simulation,
/// filled by the stepper (emitSubsteps) through the state backend's level operations (StepOps,
/// Stepper.h). The host backends keep `level` and `active` here throughout a step; the device
/// backend keeps both on the GPU and fills `level` at the end of a step (`active` stays empty).
/// Between steps (at synchronisation points) `level` holds the levels of the step just taken and
/// `histogram` their counts.
struct BlockLevels {
    int maxLevels = 0;                          ///< L: levels 0..L
    std::vector<std::uint8_t> level;            ///< N: each body's level
    std::vector<std::uint32_t> active;          ///< the active rows of the current substep, ascending
    std::array<std::uint64_t, kMaxBlockLevels + 1> histogram{}; ///< bodies per level (the step's start)
    std::uint64_t substeps = 0;                 ///< ticks with work (force evaluations) in the last step
    /// Bodies whose criterion step at the last synchronisation point (t = 0 of the last step,
    /// where every body is assigned) was shorter than the deepest level's, dt_max / 2^L: they
    /// want a deeper level and are held at L (levelForStep). −1 where that assignment ran on the
    /// device from the accelerations alone (with ε² > 0 the criterion steps stay on the GPU).
    std::int64_t held = -1;

    /// The deepest level any body is on.
    int deepest() const;
    /// active = {i : level[i] ≥ minLevel}, ascending.
    void selectActive(int minLevel);
    /// histogram from `level`.
    void countLevels();
};

/// "0:12 1:30 4:2": the levels that hold bodies in `histogram` with their counts ("" when none
/// does) — the run summary's and the app's status bar's level histogram.
std::string levelHistogramText(const BlockLevels& b);

/// The first active level at tick t (0 < t ≤ 2^L) of a step: L − ctz(t), 0 at t = 2^L.
int firstActiveLevel(std::uint64_t tick, int maxLevels);

/// "" when `p` allows block time steps with its other choices, else why not (the integrator
/// must be the leapfrog; the direction forwards: reverseProblem says so).
std::string blockStepsProblem(const SimParams& p);

/// True when SimParams::timestep is "block".
bool blockSteps(const SimParams& p);

} // namespace nbody
