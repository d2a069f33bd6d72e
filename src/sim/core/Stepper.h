#pragma once
/// \file Stepper.h
/// The one step loop's vocabulary: what a state backend offers the stepper, and the composition
/// of an integrator's substeps out of those operations.
///
/// Every backend — the host's fp32 columns, the host's fp64 state, the device state of a CUDA
/// kernel — offers the same operations: a force evaluation, KDK leapfrog's kick and drift, and the
/// bookkeeping around a step (make the state current, mark it newer, keep a host copy, time the
/// steps). Simulation::step runs one loop over them for every backend:
///
///     gravity     a_n = F(x_n)                  (when the accelerations are stale)
///     integrate   emitSubsteps: per substep w·dt  kickDrift, forces, kick
///                 (a CUDA kernel captures what emitSubsteps emits into a CUDA graph and replays it)
///     advance     t += dt, step += 1; the backend marks its state newer
///     collisions  (SimParams::collisions) touching pairs merge; N changes, the loop ends the call
///     diagnostics (every SimParams::diagnosticsInterval steps)
///     checkpoint  (device: every SimParams::hostCopyInterval steps a host copy of the state)
///
/// A distributed run (src/mpi) decorates the backend's force evaluation with the exchange of the
/// other processes' rows (Simulation::SharedForces), so it steps through the same loop.

#include "sim/core/BlockSteps.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>

namespace nbody {

/// KDK leapfrog's operations on one state (Integrators.h). dt is signed (−dt when time runs
/// backwards) and already multiplied by the substep's weight.
///
/// Block time steps (BlockSteps.h) act on per-body levels and the active set of a substep: the
/// operations below the first three, each on a BlockLevels whose `level` and `active` live where
/// the backend keeps them (the host backends: in the BlockLevels; the device backend: on the GPU,
/// where the active set is selected and the levels are assigned, the histogram coming back to
/// the BlockLevels at every assignment and the levels at the end of a step). The fixed step is
/// their special case of one level (every body active, every kick of dt_max), for which the
/// stepper calls the first three. The host backends and the device backend offer them; the
/// force share (mpirun) does not (the defaults throw std::logic_error; Simulation refuses block
/// steps in a distributed run before a step).
class StepOps {
public:
    virtual ~StepOps() = default;
    /// a = F(x) for every body at the current positions.
    virtual void forces() = 0;
    /// The opening kick and the drift: v += ½ a dt; x += v dt.
    virtual void kickDrift(double dt) = 0;
    /// The closing kick: v += ½ a dt.
    virtual void kick(double dt) = 0;

    /// The active set of the substep: the bodies with level ≥ minLevel (0: every body), in
    /// ascending order. Returns its size.
    virtual std::size_t selectActive(BlockLevels& b, int minLevel);
    /// At tick t of a step of dtMax (t = 0: its start, a synchronisation point): each active
    /// body's level from the criterion's step (criterionStep, BlockSteps.h, with the run's η and
    /// ε², from its current acceleration and position) under nextLevel (LevelRules.h); then
    /// b.histogram counts every body's level.
    virtual void assignLevels(BlockLevels& b, std::uint64_t tick, double dtMax);
    /// a_i = F(x)_i for the active bodies only, each summed over all N bodies: bit for bit the
    /// rows of forces() for a deterministic kernel (a kernel without active rows may evaluate
    /// every row: an inactive body's acceleration is not read before its own step ends).
    virtual void activeForces(BlockLevels& b);
    /// v_i += ½ a_i · dtMax / 2^level[i] for the active bodies i.
    virtual void kickActive(BlockLevels& b, double dtMax);
    /// x += v dt for every body.
    virtual void drift(double dt);
    /// At the end of a step: b.level holds every body's level (N entries).
    virtual void levelsDone(BlockLevels& b);
};

/// One step of an integrator row (weights w_i, Σ w_i = 1) as KDK leapfrog substeps of w_i·dt:
/// the one place the substeps are composed, for every backend and for the CUDA graph capture.
///
/// With `levels` (block time steps; the leapfrog row, dt = dt_max > 0) the step is the KDK
/// scheme with individual steps of BlockSteps.h: at its start (a synchronisation point, every
/// accelerations current) every body gets its level from the criterion and its opening kick;
/// then, from tick to tick at which some step ends, all bodies drift, the active ones get their
/// forces, the closing kick, possibly a new level and the next opening kick; at the last tick
/// every body is active and the step ends synchronised. When every body is on level 0 this is
/// exactly the fixed step below (the same operations in the same order).
void emitSubsteps(StepOps& ops, std::span<const double> weights, double signedDt, BlockLevels* levels = nullptr);

/// A state the stepper advances: StepOps plus the bookkeeping of the loop (see the file comment).
class StateBackend : public StepOps {
public:
    /// Before a call's steps or a force evaluation: the state is where the operations run (the
    /// device state created or uploaded when the host copy is newer).
    virtual void prepare() {}
    /// Runs one whole step's substeps itself and returns true (the device: a CUDA graph replay
    /// of what emitSubsteps emits, or those launches as plain ones); false: the stepper emits them.
    virtual bool runStep(std::span<const double> weights, double signedDt)
    {
        (void)weights;
        (void)signedDt;
        return false;
    }
    /// After each step: the state is one step newer than any copy.
    virtual void stepped() = 0;
    /// After each step's collisions and diagnostics: the host copy a fault falls back to.
    virtual void checkpoint() {}
    /// After a force evaluation outside a step: the accelerations are complete and readable.
    virtual void forcesDone() {}
    /// Clock around a call's steps: milliseconds from startClock() to stopClock() (the GPU's
    /// timeline for the device, the wall clock on the host).
    virtual void startClock() = 0;
    virtual double stopClock() = 0;
    /// One force evaluation, then forcesDone(): its milliseconds on the wall clock (the device:
    /// CUDA events around the launches).
    virtual double timedForces()
    {
        const auto t0 = std::chrono::steady_clock::now();
        forces();
        forcesDone();
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
};

} // namespace nbody
