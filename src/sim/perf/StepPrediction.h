#pragma once
/// \file StepPrediction.h
/// The one prediction of the time per step that the front ends show before a system exists: the
/// app's New from scenario dialog and its question before a very large system, the N the app
/// starts with (sized for a step rate), and `nbody scenario`'s sizing. It is made for the kernel
/// that will run (startKernel, Scenarios.h), from force evaluations of that kernel measured at
/// the real N where one evaluation is short enough to time (at most StepPredictor's probe
/// seconds), else at the largest N reached by fourfold steps within that time (a CPU row) or at
/// the N that fills the device (a CUDA row, probeLimit), and scaled from there as the row's
/// method grows (evaluationScale: N² for all pairs, N log₂ N for a tree). Every prediction says
/// what it was made from (describeStepPrediction).

#include "sim/perf/Benchmark.h"

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace nbody {

/// A predicted time per step.
struct StepPrediction {
    std::string kernel;                          ///< the row it is for
    std::size_t bodies = 0;                      ///< N it is for
    int evaluationsPerStep = 1;                  ///< force evaluations per step (the integrator's)
    double secondsPerStep = 0;                   ///< predicted
    EvaluationTiming from;                       ///< the measured evaluation it scaled from
    ForceMethod method = ForceMethod::AllPairs;  ///< how it scaled (evaluationScale)
    bool valid() const { return from.bodies > 0; }
};

/// "12.3 ms per step on cpu (about 81 steps/s), from an evaluation of 4.1 ms measured at
/// N = 8192 on cpu" (", scaled as N²" or ", scaled as N log N" when N differs from the measured
/// one; seconds above 1000 ms); "" for an invalid prediction.
std::string describeStepPrediction(const StepPrediction& p);

/// A step predicted to take longer than this, in seconds, is never started without the user's
/// word: a step in progress cannot be interrupted (Pause and Quit wait for it), so the app asks
/// before creating such a system and does not rebuild a remembered one at start.
inline constexpr double kSlowStepSeconds = 10.0;

/// The largest N the app starts a generated system with on a tree row (sizeStartSystem): a
/// million bodies, which a tree on a current data-centre GPU steps tens of times a second.
inline constexpr std::size_t kTreeStartBodies = 1048576;

/// "12.3 ms" / "4.56 s" / "2.1 h": a time per step as the predictions print it.
std::string formatStepTime(double seconds);

/// Keeps the force evaluations it timed (per kernel and N) and predicts from them; one instance
/// answers every dialog of a window, so they all show the same numbers. Not thread-safe.
class StepPredictor {
public:
    /// Times one force evaluation of `k` at `bodies` bodies, ms (may throw).
    using Probe = std::function<double(const KernelInfo& k, std::size_t bodies)>;
    /// `probe`: empty for timeForceEvaluation (the uniform cube, sustained over 50 ms);
    /// `probeSeconds`: the longest single evaluation it times (predicted from the last one).
    explicit StepPredictor(Probe probe = {}, double probeSeconds = 0.25);

    /// The time per step of `k` at `n` bodies with `evaluationsPerStep` evaluations per step,
    /// timing what it lacks: from the largest timing it holds for `k` at N ≤ n (else one at
    /// min(n, 1024)), it times again at min(n, 4 × that N) while that evaluation is predicted
    /// within the probe seconds and below the N that fills a CUDA device (probeLimit). Throws
    /// what the probe throws (an unavailable kernel: std::invalid_argument).
    StepPrediction predict(const KernelInfo& k, std::size_t n, int evaluationsPerStep);

    /// The largest N (a multiple of 512 within minimum … maximum) that `k` steps `stepsPerSecond`
    /// times a second: sized from a first timing, timed again at that N (predict), sized again;
    /// the prediction returned is for the N chosen. Throws std::invalid_argument for a rate ≤ 0
    /// or minimum > maximum, and what the probe throws.
    StepPrediction sizeForStepRate(const KernelInfo& k, int evaluationsPerStep, double stepsPerSecond,
                                   std::size_t minimum = 1024, std::size_t maximum = 65536);

    /// The kernel and N a generated start system runs at `stepsPerSecond`: `k` sized within
    /// minimum … maximum (sizeForStepRate), unless a tree row of `k`'s backend that can run here,
    /// sized within minimum … treeMaximum, steps a larger system at that rate and is faster than
    /// `k` at its own N (the tree's work grows as N log N, all pairs' as N², so above some N the
    /// tree is the faster kernel at the accuracy the parameters set): then that tree row at its
    /// N. Several such rows: the one with the largest N, then the quickest step. `k` itself a tree
    /// row: sized like any row. Throws as sizeForStepRate.
    StepPrediction sizeStartSystem(const KernelInfo& k, int evaluationsPerStep, double stepsPerSecond,
                                   std::size_t maximum = 65536, std::size_t treeMaximum = kTreeStartBodies);

    /// The tree rows (ForceMethod::Tree) that can run here and are predicted faster than
    /// `allPairs` at its N, each with its own prediction, fastest first; none when `allPairs` is
    /// itself a tree row or N is below 4096 (where no tree beats all pairs).
    std::vector<StepPrediction> fasterTrees(const StepPrediction& allPairs);

    /// The evaluations timed so far (kernel id → N → ms).
    const std::map<std::string, std::map<std::size_t, double>>& timings() const { return m_timings; }

private:
    double time(const KernelInfo& k, std::size_t n);

    Probe m_probe;
    double m_probeSeconds;
    std::map<std::string, std::map<std::size_t, double>> m_timings;
};

} // namespace nbody
