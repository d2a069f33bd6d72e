#pragma once
/// \file Validation.h
/// The validation engine: runs force kernels and the fp64 OpenMP reference side by side from one
/// initial state, on copies (the running simulation is never touched), and measures how far each
/// kernel's run departs from the reference's.
///
/// It keeps the predecessor program's check (1000 steps on GPU and CPU,
/// then positions, velocities and accelerations compared with a 1 % relative and a 0.01 absolute
/// tolerance per component) and adds what makes a verdict trustworthy:
///  - the force error at step 0, which measures the kernel's accuracy free of chaos;
///  - the growth of the position error over the run (N-body systems are chaotic, so trajectory
///    errors grow exponentially on the order of a crossing time whatever the kernel; a bug shows
///    as a large error from the first steps, chaos as a small one that grows);
///  - the energy and momentum change of each run next to the reference's.
///
/// Error measures (u = a body's position, velocity or acceleration, u_ref the reference's, fp64):
///  - absolute error of body i: |u_i − u_ref,i| (Euclidean norm over x, y, z), in the field's unit;
///  - relative error of body i: |u_i − u_ref,i| / max(|u_ref,i|, floor), floor = 1e-3 · RMS_j |u_ref,j|,
///    so bodies whose reference value nearly vanishes (net force cancelling, a body at the origin)
///    are measured against a thousandth of the typical magnitude instead of almost zero;
///  - the predecessor's per-component criteria, counted over the 3N components (x, y, z):
///    relative miss |u_k − u_ref,k| > 0.01 · min(|u_k|, |u_ref,k|), absolute miss |u_k − u_ref,k| > 0.01.
///
/// A kernel passes when (all thresholds are in ValidationThresholds and written into every report)
///  1. its state stayed finite,
///  2. every body passes at step 0 (all-pairs rows; checkForceBodies): its relative force error
///     ≤ forceFp32 (fp32 kernels) or forceFp64 (fp64 kernels), or its force error is within the
///     rounding bound of its sum, |Δa_i| ≤ k·u·√N·S_i (k = roundingK, u = 2⁻²⁴ or 2⁻⁵³ the
///     unit roundoff of the kernel's precision, S_i = |G| Σ_j |m_j| |r_ij| / (|r_ij|² + ε²)^{3/2}
///     the sum of the terms' magnitudes, from the fp64 reference; docs/validation.md derives it).
///     Tree rows: the p99 and median of the relative errors within treeForceP99, treeForceMedian; and
///  3. its relative energy change after K steps agrees with the reference's:
///     |ΔE/E0 (kernel) − ΔE/E0 (reference)| ≤ max(energy, |ΔE/E0 (reference)|)
///     (the reference's own change is the scale of integration error at this dt; a kernel may
///     differ from it by that much through chaos, not more).
/// The trajectory errors and the predecessor's counts are reported, not judged: after enough
/// crossing times they are large for every correct kernel.

#include "sim/core/KernelRegistry.h"
#include "sim/core/SimParams.h"
#include "contracts/World.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

namespace nbody {

class ForceShare;

/// Pass/fail thresholds (dimensionless).
struct ValidationThresholds {
    /// Step-0 per-body relative force error that an fp32 all-pairs body always passes with. fp32
    /// rounding (unit roundoff u = 6e-8) summed over N terms gives errors ~ √N·u·S_i/|a_i|
    /// relative (S_i/|a_i| ≥ 1, large where the pulls cancel, near a cluster's centre): measured
    /// 1e-6 … 8e-6 at N = 8192 for the kernels of this program (tst_kernels), 4e-4 near the
    /// centre at N = 2²⁰; bodies beyond it are held to the rounding bound (roundingK).
    double forceFp32 = 1e-4;
    /// The same for fp64 kernels (u = 1.1e-16; measured 3e-15 at N = 8192).
    double forceFp64 = 1e-10;
    /// k of the rounding bound |Δa_i| ≤ k·u·√N·S_i that a body beyond forceFp32 / forceFp64 passes
    /// with (all-pairs rows, fp32 and fp64 with their own u; docs/validation.md derives it).
    /// The rounding errors of a sum in any order, and those of each term (≤ c·u·|term|, c ≈ 12),
    /// are a martingale whose steps' bounds square-sum to at most (N + c²)·u²·S_i², so (Azuma–
    /// Hoeffding; Higham and Mary 2019, 2020) a component's error exceeds λ·u·√(N + c²)·S_i with
    /// probability below 2·exp(−λ²/2): λ = 6.5 makes that 1e-9, for a million component sums
    /// (32 768 bodies × 3 × a dozen kernels) a false failure in a thousand runs. A biased rsqrt
    /// (3 × its 4 u error) adds at most 12·u·S_i. 8·√N ≥ 6.5·√(N + 144) + 12 for N ≥ 500.
    /// Measured max_i (kNeeded) of `cpu`: 0.7 at N = 65 537 and 200 003, 4.1 at N = 2²⁰ (32 768
    /// bodies; far-out bodies, whose nearly parallel pulls bias the rounding of a sequential fp32
    /// sum so that its error grows like N, not √N). There, a dropped tile of 256 bodies fails 24 of
    /// them and ε² 10 % too large 290; with k = 16 the wrong ε² would pass.
    double roundingK = 8;
    /// Tree rows (ForceMethod::Tree) approximate by design, so they are held to the accuracy
    /// goal set for the tree, on the distribution instead of the max: step-0 p99 ≤ treeForceP99 and
    /// median ≤ treeForceMedian (a few bodies near a cell's opening boundary may err more). A tree
    /// row run with a force accuracy (SimParams::forceAccuracy) is held to that target instead:
    /// p99 ≤ the target, the median reported (treeForceBounds).
    double treeForceP99 = 1e-3;
    double treeForceMedian = 1e-4;
    /// Smallest allowed |ΔE/E0 (kernel) − ΔE/E0 (reference)| bound (see the file comment).
    double energy = 1e-4;
    /// The predecessor's per-component criteria, reported only.
    double predecessorRelative = 0.01;
    double predecessorAbsolute = 0.01;
};

/// What to validate.
struct ValidationConfig {
    /// Kernels to run (rows of kernelRegistry(), or test rows that outlive the call). The
    /// reference row itself may be listed; it then matches the reference exactly.
    std::vector<const KernelInfo*> kernels;
    std::uint64_t steps = 1000;  ///< K, steps of every run (the predecessor's 1000)
    int checkpoints = 50;        ///< points of the error growth curve besides step 0 (1..K)
    SimParams params;            ///< G, ε², dt, integrator and launch parameters of every run
    ValidationThresholds thresholds;
    std::string system;          ///< one line saying what the initial state is, for the report
    /// Above this N the step-0 force errors are measured on a random sample of forceSample
    /// bodies (seed forceSampleSeed), each against all N in fp64 (referenceAccelerationsAt on the
    /// exact state), instead of all N; the report says so (ForceError::sampled).
    std::size_t forceSampleAbove = 20000;
    std::size_t forceSample = 4096;
    std::uint64_t forceSampleSeed = 14;
    /// true: the fp64 reference runs the K steps too (N² fp64 interactions a step on the CPU) and
    /// every kernel's trajectory is compared with it. false, the sampled check for sizes where
    /// that run is out of reach (millions of bodies): the step-0 force errors on min(forceSample,
    /// N) bodies, each against all N in fp64 on the GPU when one can run it (SampledReference.h),
    /// and each kernel's own energy and momentum change over its K steps, measured at the start
    /// and the end only; the energy criterion is then |ΔE/E₀| ≤ thresholds.energy, and no
    /// trajectory errors are reported.
    bool referenceRun = true;
    /// Several processes (ForceShare.h; `mpirun -np P nbody validate`): every run, the fp64
    /// reference's too, computes this process's rows of each force evaluation and the share
    /// assembles them, so every process holds every run's whole state (bit for bit one process's
    /// with a deterministic kernel) and the energies are reduced over the processes (fp64, another
    /// order of the sums). Every process must call validate() with the same system; a kernel
    /// that throws then stops the whole validation (the exception passes on, so that every
    /// process stops) instead of getting Verdict::Error. Not owned; nullptr: this process alone.
    ForceShare* share = nullptr;
};

/// Max, median and root mean square of N per-body errors.
struct ErrorStats {
    double max = 0;
    double median = 0;
    double rms = 0;
    std::size_t worstBody = 0; ///< index of the body with the max error
};

/// Errors of one field (positions, velocities or accelerations) against the reference.
struct FieldErrors {
    ErrorStats absolute;               ///< per-body |u − u_ref|, the field's unit
    ErrorStats relative;               ///< per-body |u − u_ref| / max(|u_ref|, floor)
    double floor = 0;                  ///< 1e-3 · RMS |u_ref|, the field's unit
    std::size_t components = 0;        ///< 3N
    std::size_t predecessorRelativeMisses = 0; ///< components with |Δ| > 1 % · min(|u|, |u_ref|)
    std::size_t predecessorAbsoluteMisses = 0; ///< components with |Δ| > 0.01
};

/// The per-body rule of all-pairs rows at step 0 (see the file comment, checkForceBodies): body i
/// fails when its relative error > relativeLimit and |Δa_i| > k·u·√N·S_i.
struct ForceBodyCheck {
    std::size_t failing = 0;   ///< bodies that fail both tests
    std::size_t compared = 0;  ///< bodies checked (N, or the sample)
    /// The body most beyond the rule, the max over the bodies of excess (a failing one when any
    /// fails; a non-finite force first): its index in the compared arrays (checkForceBodies),
    /// its body number (KernelValidation::forceBodies).
    std::size_t body = 0;
    /// min(relative / relativeLimit, absolute / bound) of that body: > 1 fails both tests; NaN
    /// for a non-finite force.
    double excess = 0;
    double relative = 0;      ///< its relative error (forceError's measure)
    double relativeLimit = 0; ///< forceFp32 or forceFp64
    double absolute = 0;      ///< its |Δa_i|, acceleration units
    double bound = 0;         ///< its k·u·√N·S_i, acceleration units
    double magnitudeSum = 0;  ///< its S_i, acceleration units
    double k = 0;             ///< roundingK
    double unitRoundoff = 0;  ///< u of the row's precision: 2⁻²⁴ (fp32) or 2⁻⁵³ (fp64)
    std::size_t terms = 0;    ///< N, the terms of each force sum
    /// max_i |Δa_i| / (u·√N·S_i) over the bodies: the k that would have passed every body on the
    /// bound alone (the margin of roundingK; NaN for a non-finite force, ∞ for an error where
    /// S_i = 0).
    double kNeeded = 0;
};

/// The step-0 force error: per-body relative acceleration error (see the file comment).
struct ForceError {
    double max = 0;
    double p99 = 0;    ///< 99th percentile (nearest rank)
    double median = 0;
    std::size_t worstBody = 0;
    double floor = 0;  ///< 1e-3 · RMS |a_ref|, acceleration units
    std::size_t sampled = 0; ///< bodies compared when a sample was (ValidationConfig::forceSample); 0: all N
};

/// One point of the error growth curve.
struct GrowthPoint {
    std::uint64_t step = 0;
    double time = 0;                ///< simulated time, time units
    double maxPositionError = 0;    ///< max_i |x_i − x_ref,i|, length units
    double medianPositionError = 0; ///< median_i |x_i − x_ref,i|
    double rmsPositionError = 0;    ///< RMS_i |x_i − x_ref,i|
    double energyChange = 0;        ///< ΔE/E0 of the kernel's run at this step
    double referenceEnergyChange = 0; ///< ΔE/E0 of the reference's run at this step
};

enum class Verdict { Pass, Fail, Error };

/// The result of one kernel.
struct KernelValidation {
    std::string id;            ///< registry id
    std::string name;          ///< menu text
    Precision precision = Precision::Fp32;
    Backend backend = Backend::Cpu;
    Layout layout = Layout::Float4;
    ForceMethod method = ForceMethod::AllPairs;
    std::string launch;        ///< launch parameters the kernel reads ("block 256, tile ×1"; "" for CPU rows)
    Verdict verdict = Verdict::Error;
    /// Why it failed, one line per failed criterion ("step-0 force error 3.1e-2 > 1e-4 (body 17)"),
    /// or the error that stopped the run (CUDA failure, refused launch); empty when it passed.
    std::vector<std::string> reasons;
    bool finite = true;        ///< the state stayed finite over the whole run
    ForceError force0;         ///< at step 0
    /// At step 0, the per-body rule of all-pairs rows (the verdict's; zero for tree rows).
    ForceBodyCheck forceBodies;
    /// The step-0 forces' momentum error |Σ m a| / Σ m |a| (Newton's third law makes all-pairs
    /// sums cancel up to rounding, ~1e-7 in fp32; a tree does not conserve momentum exactly:
    /// a body's force on a cell's multipole is not the cell's on the body).
    double momentumError0 = 0;
    /// Tree rows: the opening angle θ the run used (a force accuracy picks it per row).
    double openingAngle = 0;
    /// Tree rows: the relative opening criterion's α the run used (0: none; a force accuracy
    /// picks it for tree-cpu).
    double openingAlpha = 0;
    /// Tree rows run with a force accuracy (SimParams::forceAccuracy): the target p99 of the
    /// step-0 relative force error; 0: none.
    double forceAccuracy = 0;
    /// With forceAccuracy: the p99 the calibration table gives for θ (sim/core/ForceAccuracy.h).
    double calibratedP99 = 0;
    /// With forceAccuracy: the step-0 p99 achieved is at most the target.
    bool forceAccuracyMet() const { return forceAccuracy > 0 && force0.p99 <= forceAccuracy; }
    FieldErrors position, velocity, acceleration; ///< after K steps
    std::vector<GrowthPoint> growth; ///< step 0, then the checkpoints up to K
    double energyChange = 0;   ///< ΔE/E0 after K steps
    /// |P(K) − P(0)| / Σ m|v(0)|: momentum change against the system's momentum scale
    /// (the total P is near 0 in a centre-of-mass frame, so it cannot be the scale).
    double momentumChange = 0;
    double seconds = 0;        ///< wall time of the kernel's K steps and checkpoints, s
};

/// Where it ran.
struct ValidationEnvironment {
    std::string device;        ///< "NVIDIA H200 (compute capability 9.0, 132 SMs)" or "no CUDA device: …"
    std::string cuda;          ///< "driver 13.0, runtime 13.0" or "built without CUDA"
    std::string build;         ///< "N-Body Sandbox 0.1.0, GCC 12.2.0, RelWithDebInfo, CUDA 13.0 (sm_90)"
    std::string host;          ///< host name
    int openmpThreads = 0;
    std::string startedUtc;    ///< ISO 8601, "2026-11-30T03:12:45Z"
};

/// The whole report.
struct ValidationReport {
    std::size_t bodies = 0;    ///< N
    std::uint64_t steps = 0;   ///< K
    SimParams params;
    std::string system;        ///< ValidationConfig::system
    ValidationThresholds thresholds;
    ValidationEnvironment environment;
    std::vector<GrowthPoint> referenceGrowth; ///< the reference's energy change at the checkpoints (errors 0)
    double referenceEnergyChange = 0;   ///< ΔE/E0 of the reference after K steps
    double referenceMomentumChange = 0; ///< as KernelValidation::momentumChange
    double referenceSeconds = 0;
    double initialEnergy = 0;  ///< E0 (fp64, from the reference's state), energy units
    std::vector<KernelValidation> kernels;
    /// About the run as a whole, one sentence each: e.g. when the reference itself changed its
    /// energy by more than 1 % (|ΔE/E0| > 0.01: dt or ε² do not suit the system, so the
    /// trajectories compare chaos, not kernels). Empty when there is nothing to say.
    std::vector<std::string> warnings;
    /// ValidationConfig::referenceRun: false for the sampled check (no trajectory errors, and the
    /// reference's energy and momentum figures are not measured).
    bool referenceRun = true;
    /// Where the sampled step-0 reference was computed (SampledReference::where); "" when all N were.
    std::string sampleReference;

    /// True when every kernel passed (and there is at least one).
    bool allPass() const;
};

/// Progress of a run, reported after each chunk of steps.
struct ValidationProgress {
    std::uint64_t step = 0;    ///< steps done by every run
    std::uint64_t steps = 0;   ///< K
    std::string phase;         ///< "step-0 forces", "stepping", "comparing"
    double fraction() const { return steps ? double(step) / double(steps) : 0.0; }
};

/// Thrown by validate() when the stop token was requested; nothing is returned.
class ValidationCancelled : public std::runtime_error {
public:
    ValidationCancelled() : std::runtime_error("validation cancelled") {}
};

/// Runs every kernel of `config` and the fp64 reference (`reference`, OpenMP) from `initial`
/// (with `exact`, the exact fp64 initial state when the system has one; else the World widened)
/// for config.steps KDK steps each, in lockstep between checkpoints, on copies.
///
/// Each kernel runs in its own Simulation; a kernel that throws (CudaError, a refused launch) gets
/// Verdict::Error with the message and the others go on. `progress` (may be empty) is called on
/// the calling thread after each chunk; `stop` is polled between chunks (a chunk is at most
/// max(1, K / checkpoints) steps) and ends the run with ValidationCancelled.
///
/// Throws std::invalid_argument when the world is empty or invalid, no kernel is given, a kernel
/// is unavailable here (message says why), steps is 0 or checkpoints < 1, or the parameters are
/// invalid; ValidationCancelled as said.
ValidationReport validate(const World& initial, const std::optional<Fp64State>& exact,
                          const ValidationConfig& config,
                          const std::function<void(const ValidationProgress&)>& progress = {},
                          std::stop_token stop = {});

/// |Σ m_i a_i| / Σ m_i |a_i| over the bodies (pos: N positions with the mass in w; a: N
/// accelerations; 0 when every force is 0). Throws std::invalid_argument when the sizes differ.
double momentumError(const std::vector<Double4>& pos, const std::vector<Double4>& a);

/// The step-0 force error of accelerations `a` against `ref` (N Double4 each, x, y, z used; w
/// ignored): see the file comment. Throws std::invalid_argument when the sizes differ.
ForceError forceError(const std::vector<Double4>& a, const std::vector<Double4>& ref);
/// The per-body rule of all-pairs rows (see the file comment): a (the kernel's accelerations), ref
/// (the fp64 reference's) and magnitudeSums (S_i, from the reference) of the same bodies (N, or
/// a sample), each force a sum of `terms` = N terms; the relative errors as forceError measures
/// them (floor from ref), u from `precision`, the relative limit and k from `t`. A NaN or infinite
/// force fails. Throws std::invalid_argument when the sizes differ.
ForceBodyCheck checkForceBodies(const std::vector<Double4>& a, const std::vector<Double4>& ref,
                                const std::vector<double>& magnitudeSums, std::size_t terms, Precision precision,
                                const ValidationThresholds& t);
/// "|Δa_i| <= 8 u sqrt(N) S_i": the rounding bound as the reports write it.
std::string roundingBoundText(const ValidationThresholds& t);
/// One line on a failing ForceBodyCheck for the reasons and reports: "3 of 32768 bodies fail both
/// tests, most of all body 17: relative error 4.20e-04 > 1e-04 and |Δa_i| 3.10e-03 > 8 u sqrt(N)
/// S_i = 1.60e-03 (S_i 3.26e+01, N 1048576, u 5.96e-08)"; the body as c.body has it.
std::string describeFailingBodies(const ForceBodyCheck& c);

/// The errors of one field (N Double4 each, x, y, z used) against the reference, with the
/// predecessor's per-component criteria of `t`. Throws std::invalid_argument when the sizes differ.
FieldErrors fieldErrors(const std::vector<Double4>& u, const std::vector<Double4>& ref, const ValidationThresholds& t);

/// Predicted wall time of validate() here, in seconds. The runs on the CPU (the fp64 reference and
/// every CPU kernel listed) make a force evaluation at step 0 and at each of the K steps, timed
/// here on 2048 bodies (measured on the call, a few tenths of a second at most) and scaled to N as
/// N² (all pairs) or N log₂ N (tree rows; evaluationScale, Benchmark.h), plus an energy sum of
/// N²/2 fp64 pairs at the start and at each checkpoint the run has (min(checkpoints, K): a
/// 1-step run has one, not --checkpoints); GPU runs are left out (hundreds of times faster).
/// A guide for refusing or confirming runs that cannot finish in reasonable time, not a benchmark.
/// For the sampled check (`referenceRun` false) the reference makes no run: the CPU kernels'
/// evaluations, two energy sums per run, and the sample's fp64 sum (`sample` × N interactions)
/// when it runs on the CPU (`sampleOnGpu` false).
double estimateValidationSeconds(std::size_t bodies, std::uint64_t steps, int checkpoints,
                                 const std::vector<const KernelInfo*>& kernels, bool referenceRun = true,
                                 std::size_t sample = 0, bool sampleOnGpu = false);
/// Whether the sampled reference runs on the GPU here (SampledReference.h: this build's CUDA
/// kernels can run).
bool sampledReferenceOnGpu();

/// The kernels `--kernel all` means: every available row except `reference` itself, in registry order.
std::vector<const KernelInfo*> availableKernelsToValidate();

/// The bounds a tree row's step-0 force error is held to: {p99, median}. The thresholds'
/// treeForceP99 and treeForceMedian, or for a row run with a force accuracy {the target,
/// infinity} (the median is reported, not judged: the user asked for a p99).
std::pair<double, double> treeForceBounds(const ValidationThresholds& t, const KernelValidation& k);

std::string_view toString(Verdict v); ///< "pass", "fail", "error"

/// Where validation runs: device, CUDA versions, build, host, OpenMP threads, the time now.
ValidationEnvironment currentEnvironment();

} // namespace nbody
