#pragma once
/// \file Benchmark.h
/// Measures one force kernel at one N (the engine of `nbody bench`): the median time of the
/// force evaluation (CUDA events around the launch(es) for CUDA kernels, the wall clock for CPU
/// kernels) and of the whole KDK step (wall clock, device synchronised), after warm-up.
/// Interactions per second count N² per evaluation, as NVIDIA's nbody sample does; GFLOP/s use
/// the kernel's flops per interaction (20 in fp32, 30 in fp64). A tree row (ForceMethod::Tree)
/// does O(N log N) work, so for it N²/t is only the all-pairs-equivalent rate (what an all-pairs
/// kernel would need to match it), labelled as such, and no GFLOP/s are claimed; every row also
/// reports bodies per second (N/t) and the time per step, which compare honestly across methods.

#include "sim/core/KernelRegistry.h"
#include "sim/core/SimParams.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nbody {

class ForceShare;

struct BenchCase {
    std::string kernel;        ///< registry id
    std::size_t bodies = 8192; ///< N of the system
    std::uint64_t seed = 42;
    /// The system: "" the uniform cube (CubeParams with this seed, params' G, ε², dt), else a
    /// scenario registry id ("plummer") made with N and the seed, with the scenario's G, ε² and
    /// dt (the launch and tree parameters stay params's).
    std::string scenario;
    SimParams params;          ///< G, ε², dt and the launch parameters
    int samples = 10;          ///< timed force evaluations and timed steps, each (≥ 1)
    int warmup = 2;            ///< untimed force evaluations before them (plus one untimed step)
    double budgetSeconds = 60; ///< fewer samples (at least 1) when they would take longer than this
    /// Several processes (ForceShare.h; `mpirun -np P nbody bench`): each computes its rows of
    /// every force evaluation and the share assembles them, so the force and step times include
    /// the exchange. Every process must run the same case: the share's agree() makes the sample
    /// counts the same everywhere. Not owned; nullptr: this process alone.
    ForceShare* share = nullptr;
};

struct BenchResult {
    std::string kernel;
    std::size_t bodies = 0;
    int samples = 0;            ///< timed samples actually taken (≤ BenchCase::samples)
    double forceMsMedian = 0;   ///< median force evaluation, ms
    double forceMsMin = 0;
    double stepMsMedian = 0;    ///< median whole step (kick, drift, forces, kick), ms: each sample
                                ///< is step(stepsPerSample) divided by its steps
    int stepsPerSample = 1;     ///< steps per step sample (about 2 ms of stepping, 1 … 100)
    double interactionsPerSecond = 0; ///< N² / forceMsMedian (for a tree row: the all-pairs equivalent)
    double gflops = 0;          ///< interactionsPerSecond × flops per interaction / 1e9 (0 for a tree row)
    double bodiesPerSecond = 0; ///< N / forceMsMedian: bodies whose force is evaluated per second
    ForceMethod method = ForceMethod::AllPairs; ///< the row's (KernelInfo::method)
    int flopsPerInteraction = 0;
    std::string timer;          ///< "CUDA events" or "wall clock" (always with a share: the exchange is on the host)
    SimParams params;
    /// Processes that shared every force evaluation (ForceShare::processes(); 1 alone).
    int ranks = 1;
    /// Median over the step samples of the time per step inside the force exchange (this
    /// process's: the failure checkpoint and the collective, waiting for slower processes
    /// included), ms; 0 without a share.
    double exchangeMsPerStep = 0;
    /// Median over the step samples of the time per step some chunk of the exchange was in
    /// flight (ExchangeStats::inFlightSeconds), ms: exchangeMsPerStep of it was waited for, the
    /// rest ran behind computation (the pipelined exchange, SimParams::exchangeChunks); 0 without
    /// a share.
    double exchangeInFlightMsPerStep = 0;
    /// The chunks of each exchange (1: one blocking MPI_Allgatherv); 0 without a share.
    int exchangeChunks = 0;
    /// The share of the exchange's time in flight that computation hid, 0..1.
    double exchangeHiddenFraction() const
    {
        return exchangeInFlightMsPerStep > exchangeMsPerStep && exchangeInFlightMsPerStep > 0
                   ? (exchangeInFlightMsPerStep - exchangeMsPerStep) / exchangeInFlightMsPerStep
                   : 0.0;
    }
    /// Median over the step samples of (step time − exchange time) per step, ms: the kernels,
    /// the kicks and drifts; stepMsMedian without a share.
    double computeMsPerStep = 0;
};

class Simulation;
/// The case's system with its kernel set (the uniform cube or the scenario; see BenchCase) and
/// the case's share (BenchCase::share).
/// Throws as runBenchmark.
std::unique_ptr<Simulation> benchmarkSystem(const BenchCase& c);

/// Runs the case. Throws std::invalid_argument for an unknown or unavailable kernel, a refused
/// parameter set or N = 0; CudaError when the GPU fails. `progress` (may be empty) receives
/// one-line messages.
BenchResult runBenchmark(const BenchCase& c, const std::function<void(const std::string&)>& progress = {});

/// A force evaluation timed at `bodies` bodies.
struct EvaluationTiming {
    std::size_t bodies = 0;
    double ms = 0;
};

/// What predictCase() decided.
struct CasePrediction {
    double seconds = 0;    ///< predicted time of the case, s (0: nothing to predict, run it)
    EvaluationTiming from; ///< the timing it scaled from
    int probes = 0;        ///< evaluations predictCase() had timed for it (probe() calls)
};

/// "about 16.3 s predicted from an evaluation of 3.25 s measured at N=65536" (N log N for a
/// tree row: "scaled as N log N"); "" when nothing was predicted (p.seconds = 0): the measured
/// basis of a prediction, printed with every case `nbody bench` runs or skips.
std::string predictionBasis(const CasePrediction& p, ForceMethod method = ForceMethod::AllPairs);

/// "skipped: about 164 s predicted from an evaluation of 8.01 ms measured at N=1024, over the
/// 60 s budget (--budget)" when the prediction exceeds budgetSeconds, else "": the note of a
/// bench row that does not run.
std::string budgetSkipNote(const CasePrediction& p, double budgetSeconds, ForceMethod method = ForceMethod::AllPairs);

/// The first probe of predictCase(): small enough to take well under a second on any CPU.
inline constexpr std::size_t kFirstProbeBodies = 1024;

/// The largest N predictCase() probes at for a row: for CUDA rows the N from which a GPU with
/// `multiprocessors` SMs is filled and an evaluation grows as N² (512 bodies per SM, at least
/// 65 536: `tiled` on an H200 runs within 10 % of its peak rate there, docs/benchmarks.md);
/// for CPU rows kFirstProbeBodies (an OpenMP kernel is throughput-bound from there, so the
/// N = 1024 probe scaled by N² is a good prediction).
std::size_t probeLimit(Backend backend, int multiprocessors);

/// The `limit` of predictCase() for `nbody bench`'s budget: probeLimit() for CUDA rows (the N
/// that fills the device); for CPU rows no limit below the real N. A CPU evaluation at small N is
/// no measure of its throughput either — the OpenMP team's start and, on a busy machine, the
/// threads' waits for a core dominate it: N = 1024 scaled as N² predicted 164 s (491 s on a
/// busier run) for a case whose evaluations take 3.25 s at N = 65 536 — so the probes go on up to
/// the real N while the prediction is over the budget, each within its share of the budget (one
/// at the real N is one evaluation of the case itself, within the whole budget).
std::size_t budgetProbeLimit(Backend backend, int multiprocessors);

/// Predicts the time of a benchmark case at `n` bodies that makes `evaluations` force
/// evaluations, for --budget's skip decision, by scaling a timed evaluation as N². That is an
/// upper bound: below the N that fills a device an evaluation grows more slowly than N² (it is
/// latency-bound), which is why a GPU evaluation timed at N = 1024 alone predicted 234 s for a
/// case at N = 1 048 576 that takes 4 s. So, for a row whose `limit` (probeLimit()) is larger:
///
/// 1. start from `known` (an evaluation of this kernel already timed, e.g. the previous N's
///    median) or else from probe(min(n, kFirstProbeBodies)) — nothing is probed and 0 s is
///    predicted when n ≤ kFirstProbeBodies and there is no `known`;
/// 2. while the prediction exceeds `budgetSeconds` and the timing's N is below min(n, limit),
///    time again at 4× that N (at most min(n, limit): the real N when it is below the limit),
///    unless that probe itself (a warm-up and a timed evaluation, predicted the same way) would
///    take more than a tenth of the budget (the whole budget for a probe at the real N).
///
/// `probe(N)` times one force evaluation at N in ms (warm-up is the caller's) and may throw;
/// predictCase() passes the exception on. Pure apart from probe(): the tests feed it timings.
///
/// `method`: how an evaluation grows with N (evaluationScale): N² for all-pairs rows, N log₂ N
/// for tree rows (Barnes & Hut 1986: N walks of depth ~ log N), so a tree row is not predicted
/// as if it were all-pairs (which would skip `tree` long before N = 16 M).
CasePrediction predictCase(std::size_t n, int evaluations, double budgetSeconds, std::size_t limit,
                           std::optional<EvaluationTiming> known,
                           const std::function<double(std::size_t bodies)>& probe,
                           ForceMethod method = ForceMethod::AllPairs);

/// The factor by which one evaluation's time grows from `from` to `to` bodies: (to/from)² for
/// all pairs, (to log₂ to)/(from log₂ from) for a tree (log₂ taken as at least 1).
double evaluationScale(std::size_t from, std::size_t to, ForceMethod method);

/// One force evaluation of kernel `k` timed at `n` bodies (the uniform cube of `seed`) after an
/// untimed one (module load, allocation), ms: the probe of predictCase() and bodiesForStepRate().
/// With `minSeconds` > 0, evaluations are repeated until that much wall time has passed and
/// their mean is returned: the sustained time, which on a busy machine includes the time the
/// threads wait for a core (a single 0.3 ms evaluation fits in one time slice and measures the
/// idle machine: in the 1366 × 768 trial on two cores shared by several builds, 0.26 ms for 1024
/// bodies at start-up, then 29 ms a step in the run). With a `share` the evaluation is shared
/// (BenchCase::share), one evaluation is timed whatever `minSeconds` (a wall-time loop would
/// make the processes run different numbers of collectives) and the time returned is the largest
/// of every process's (ForceShare::agree), so that every process predicts the same.
/// Throws std::invalid_argument (kernel unavailable, parameters refused), CudaError.
double timeForceEvaluation(const KernelInfo& k, std::size_t n, const SimParams& params, std::uint64_t seed = 42,
                           const std::string& scenario = {}, ForceShare* share = nullptr, double minSeconds = 0);

/// The time of one step at `n` bodies predicted from a timed evaluation: `from`.ms × (n /
/// from.bodies)² × evaluationsPerStep, in seconds (the N² scaling of predictCase(); exact once
/// the kernel is throughput-bound, an upper bound below that).
double predictedStepSeconds(const EvaluationTiming& from, std::size_t n, int evaluationsPerStep);

/// What bodiesForStepRate() chose.
struct StepRateSize {
    std::size_t bodies = 0;      ///< N
    double secondsPerStep = 0;   ///< predicted for N (predictedStepSeconds)
    EvaluationTiming from;       ///< the timing it scaled from
};

/// The largest N (a multiple of 512, within minimum … maximum) whose predicted step takes at most
/// 1 / stepsPerSecond seconds, from the median of `probes` evaluations probe(probeBodies) (ms)
/// scaled as N² (predictedStepSeconds with `evaluationsPerStep`, the integrator's force
/// evaluations): on a busy machine one timing can be a hundred times too fast (seen: 0.2 ms for
/// 1024 bodies on two shared cores where the run then took 30 ms, so 13 824 bodies at 7 s a
/// step). Pure apart from probe(): the tests feed it timings. Throws std::invalid_argument for a
/// rate ≤ 0, minimum > maximum, no probe bodies or probes < 1, and passes probe()'s exceptions on.
StepRateSize bodiesForStepRate(double stepsPerSecond, int evaluationsPerStep, std::size_t minimum,
                               std::size_t maximum, std::size_t probeBodies,
                               const std::function<double(std::size_t bodies)>& probe, int probes = 5);
/// The same for kernel `k` with `params` (its integrator), timed here with timeForceEvaluation()
/// at probeLimit(k.backend, the CUDA device's SMs) bodies: 1024 for CPU rows (throughput-bound
/// from there), at least 65 536 for CUDA rows (a GPU is filled there); each of the three probes
/// is the sustained time over 50 ms (minSeconds).
StepRateSize bodiesForStepRate(const KernelInfo& k, const SimParams& params, double stepsPerSecond,
                               std::size_t minimum = 1024, std::size_t maximum = 65536);

/// Median of the values (the mean of the two middle ones for an even count); 0 when empty.
double median(std::vector<double> values);

} // namespace nbody
