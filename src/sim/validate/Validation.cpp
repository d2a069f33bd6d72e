#include "sim/validate/Validation.h"
#include "sim/perf/Tuner.h"

#include "sim/base/DeviceInfo.h"
#include "sim/base/Format.h"
#include "sim/core/Diagnostics.h"
#include "sim/perf/Benchmark.h"
#include "sim/core/CpuKernels.h"
#include "sim/core/SampledReference.h"
#include "contracts/Quantile.h"
#include "sim/base/Random.h"
#include "sim/core/Scenario.h"
#include "sim/core/Simulation.h"
#include "sim/core/ForceAccuracy.h"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <memory>

namespace nbody {

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

double norm3(const Double4& v) { return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }

double diffNorm(const Double4& a, const Double4& b)
{
    const double dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
    return std::sqrt(dx * dx + dy * dy + dz * dz);
}

/// 1e-3 · RMS_j |u_j|, never 0 (a field that is 0 everywhere is measured against 1e-300).
double relativeFloor(const std::vector<Double4>& ref)
{
    double sum = 0;
    for (const Double4& r : ref)
        sum += r.x * r.x + r.y * r.y + r.z * r.z;
    const double rms = std::sqrt(sum / double(std::max<std::size_t>(ref.size(), 1)));
    return std::max(1e-3 * rms, 1e-300);
}

/// Max (with its index), median (nearest rank) and RMS of `e` (reordered).
ErrorStats stats(std::vector<double>& e)
{
    ErrorStats s;
    double sum = 0;
    for (std::size_t i = 0; i < e.size(); ++i) {
        sum += e[i] * e[i];
        if (e[i] > s.max || std::isnan(e[i])) {
            s.max = e[i];
            s.worstBody = i;
            if (std::isnan(e[i]))
                break;
        }
    }
    s.rms = e.empty() ? 0 : std::sqrt(sum / double(e.size()));
    if (std::isnan(s.max)) {
        s.median = s.rms = s.max;
        return s;
    }
    s.median = nearestRankQuantile(e, 0.5);
    return s;
}

/// Per-body |x − x_ref| of two states of equal size.
ErrorStats positionErrors(const Fp64State& s, const Fp64State& ref)
{
    std::vector<double> e(s.size());
    for (std::size_t b = 0; b < s.size(); ++b)
        e[b] = diffNorm(s.position[b], ref.position[b]);
    return stats(e);
}

void checkSizes(const std::vector<Double4>& a, const std::vector<Double4>& b)
{
    if (a.size() != b.size())
        throw std::invalid_argument("cannot compare " + std::to_string(a.size()) + " bodies with " +
                                    std::to_string(b.size()) + " reference bodies");
}

/// Σ m |v| of the state: the momentum scale of momentumChange.
double momentumScale(const Fp64State& s)
{
    double sum = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
        sum += s.position[i].w * norm3(s.velocity[i]);
    return sum;
}

double momentumChange(const Diagnostics& now, const Diagnostics& start, double scale)
{
    const double dx = now.momentum.x - start.momentum.x, dy = now.momentum.y - start.momentum.y,
                 dz = now.momentum.z - start.momentum.z;
    const double d = std::sqrt(dx * dx + dy * dy + dz * dz);
    return scale > 0 ? d / scale : d;
}

std::string format(const char* fmt, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

/// The launch parameters row k reads at n bodies as they resolve (auto ones from the tuning cache
/// or the row's defaults, sim/perf/Tuner.h) with their sources; "" for rows that read none.
std::string launchText(const KernelInfo& k, const SimParams& p, std::size_t n)
{
    std::string out;
    try {
        out = describeResolved(k, resolveLaunch(k, p, n));
    } catch (const std::exception&) {
        out = describeLaunch(k, launchValues(p)); // the device could not be asked: as given
    }
    return out == "-" ? std::string() : out;
}

/// The checkpoints 1..K: round(c·K / C) for c = 1..C, without repeats (K always included).
std::vector<std::uint64_t> checkpointSteps(std::uint64_t steps, int checkpoints)
{
    std::vector<std::uint64_t> out;
    const std::uint64_t c = std::min<std::uint64_t>(std::uint64_t(checkpoints), steps);
    for (std::uint64_t i = 1; i <= c; ++i) {
        const std::uint64_t s = (i * steps + c / 2) / c;
        if (out.empty() || s > out.back())
            out.push_back(s);
    }
    if (out.back() != steps)
        out.push_back(steps);
    return out;
}

/// One kernel's run while it goes on.
struct Run {
    const KernelInfo* kernel = nullptr;
    std::unique_ptr<Simulation> sim;
    KernelValidation result;
    Diagnostics start;
    double pScale = 0;
    bool active = true;
    bool errored = false;

    void fail(const std::string& why)
    {
        result.verdict = Verdict::Error;
        errored = true;
        result.reasons.push_back(why);
        active = false;
        sim.reset(); // frees device memory now
    }
};

} // namespace

bool ValidationReport::allPass() const
{
    return !kernels.empty() &&
           std::all_of(kernels.begin(), kernels.end(), [](const KernelValidation& k) { return k.verdict == Verdict::Pass; });
}

std::pair<double, double> treeForceBounds(const ValidationThresholds& t, const KernelValidation& k)
{
    if (k.forceAccuracy > 0)
        return {k.forceAccuracy, std::numeric_limits<double>::infinity()};
    return {t.treeForceP99, t.treeForceMedian};
}

std::string_view toString(Verdict v)
{
    switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Fail: return "fail";
    case Verdict::Error: return "error";
    }
    return "error";
}

namespace {

/// Per-body |a_i − ref_i| / max(|ref_i|, floor): forceError's measure, with the floor of ref.
std::vector<double> relativeForceErrors(const std::vector<Double4>& a, const std::vector<Double4>& ref, double floor)
{
    std::vector<double> e(ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i)
        e[i] = diffNorm(a[i], ref[i]) / std::max(norm3(ref[i]), floor);
    return e;
}

} // namespace

ForceError forceError(const std::vector<Double4>& a, const std::vector<Double4>& ref)
{
    checkSizes(a, ref);
    ForceError f;
    f.floor = relativeFloor(ref);
    std::vector<double> e = relativeForceErrors(a, ref, f.floor);
    const ErrorStats s = stats(e);
    f.max = s.max;
    f.worstBody = s.worstBody;
    if (std::isnan(f.max)) {
        f.p99 = f.median = f.max;
        return f;
    }
    f.median = s.median;
    f.p99 = nearestRankQuantile(e, 0.99);
    return f;
}

ForceBodyCheck checkForceBodies(const std::vector<Double4>& a, const std::vector<Double4>& ref,
                                const std::vector<double>& magnitudeSums, std::size_t terms, Precision precision,
                                const ValidationThresholds& t)
{
    checkSizes(a, ref);
    if (magnitudeSums.size() != ref.size())
        throw std::invalid_argument("cannot check " + std::to_string(ref.size()) + " bodies with " +
                                    std::to_string(magnitudeSums.size()) + " magnitude sums");
    ForceBodyCheck c;
    c.compared = ref.size();
    c.terms = terms;
    c.k = t.roundingK;
    c.unitRoundoff = precision == Precision::Fp64 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
    c.relativeLimit = precision == Precision::Fp64 ? t.forceFp64 : t.forceFp32;
    const double scale = c.k * c.unitRoundoff * std::sqrt(double(terms));
    const std::vector<double> rel = relativeForceErrors(a, ref, relativeFloor(ref));
    bool first = true;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const double absolute = diffNorm(a[i], ref[i]);
        const double bound = scale * magnitudeSums[i];
        // Written so that NaN (a non-finite force) fails and ranks first.
        const bool fails = !(rel[i] <= c.relativeLimit) && !(absolute <= bound);
        const double byRelative = rel[i] / c.relativeLimit;
        const double byBound = bound > 0 ? absolute / bound : (absolute > 0 ? HUGE_VAL : 0.0);
        const double excess = std::isnan(byRelative) || std::isnan(byBound) || !std::isfinite(absolute)
                                  ? std::numeric_limits<double>::quiet_NaN()
                                  : std::min(byRelative, byBound);
        if (fails)
            ++c.failing;
        const double unit = c.unitRoundoff * std::sqrt(double(terms)) * magnitudeSums[i];
        const double needed = std::isnan(absolute) ? absolute
                              : unit > 0           ? absolute / unit
                                                   : (absolute > 0 ? HUGE_VAL : 0.0);
        if (!std::isnan(c.kNeeded) && (std::isnan(needed) || needed > c.kNeeded))
            c.kNeeded = needed;
        if (first || (!std::isnan(c.excess) && (std::isnan(excess) || excess > c.excess))) {
            first = false;
            c.body = i;
            c.excess = excess;
            c.relative = rel[i];
            c.absolute = absolute;
            c.bound = bound;
            c.magnitudeSum = magnitudeSums[i];
        }
    }
    return c;
}

std::string roundingBoundText(const ValidationThresholds& t)
{
    return "|Δa_i| <= " + format("%g", t.roundingK) + " u sqrt(N) S_i";
}

std::string describeFailingBodies(const ForceBodyCheck& c)
{
    return std::to_string(c.failing) + " of " + std::to_string(c.compared) +
           (c.compared == 1 ? " body fails" : " bodies fail") + " both tests, most of all body " +
           std::to_string(c.body) + ": relative error " + format("%.2e", c.relative) + " > " +
           format("%.0e", c.relativeLimit) + " and |Δa_i| " + format("%.2e", c.absolute) + " > " +
           format("%g", c.k) + " u sqrt(N) S_i = " + format("%.2e", c.bound) + " (S_i " +
           format("%.2e", c.magnitudeSum) + ", N " + std::to_string(c.terms) + ", u " +
           format("%.2e", c.unitRoundoff) + ")";
}

FieldErrors fieldErrors(const std::vector<Double4>& u, const std::vector<Double4>& ref, const ValidationThresholds& t)
{
    checkSizes(u, ref);
    FieldErrors f;
    f.floor = relativeFloor(ref);
    f.components = 3 * ref.size();
    std::vector<double> abs(ref.size()), rel(ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i) {
        abs[i] = diffNorm(u[i], ref[i]);
        rel[i] = abs[i] / std::max(norm3(ref[i]), f.floor);
        const double c[3] = {u[i].x, u[i].y, u[i].z};
        const double r[3] = {ref[i].x, ref[i].y, ref[i].z};
        for (int k = 0; k < 3; ++k) {
            const double d = std::abs(c[k] - r[k]);
            // The predecessor's tests (1 % relative, 0.01 absolute), written so that NaN counts as a miss.
            if (!(d <= t.predecessorRelative * std::min(std::abs(c[k]), std::abs(r[k]))))
                ++f.predecessorRelativeMisses;
            if (!(d <= t.predecessorAbsolute))
                ++f.predecessorAbsoluteMisses;
        }
    }
    f.absolute = stats(abs);
    f.relative = stats(rel);
    return f;
}

double momentumError(const std::vector<Double4>& pos, const std::vector<Double4>& a)
{
    checkSizes(a, pos);
    double px = 0, py = 0, pz = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double m = pos[i].w;
        px += m * a[i].x, py += m * a[i].y, pz += m * a[i].z;
        scale += std::abs(m) * norm3(a[i]);
    }
    return scale > 0 ? std::sqrt(px * px + py * py + pz * pz) / scale : 0.0;
}

std::vector<const KernelInfo*> availableKernelsToValidate()
{
    std::vector<const KernelInfo*> out;
    for (const KernelInfo& k : kernelRegistry())
        if (k.id != "reference" && availability(k).available)
            out.push_back(&k);
    return out;
}

bool sampledReferenceOnGpu()
{
    return NBODY_HAVE_CUDA && cudaKernelsUnavailable().empty();
}

double estimateValidationSeconds(std::size_t bodies, std::uint64_t steps, int checkpoints,
                                 const std::vector<const KernelInfo*>& kernels, bool referenceRun, std::size_t sample,
                                 bool sampleOnGpu)
{
    // Rate of a host kernel in interactions per second on a 2048-body cube, timed over at least
    // 50 ms of repeated evaluations (OpenMP has warmed up after the first).
    const auto rate = [](const KernelInfo& k) {
        CubeParams c;
        c.bodies = 2048;
        Simulation sim(makeUniformCube(c), SimParams{}, "cpu");
        sim.setKernel(k);
        sim.computeAccelerations();
        int evaluations = 0;
        const auto t0 = Clock::now();
        do {
            sim.computeAccelerations();
            ++evaluations;
        } while (seconds(t0) < 0.05);
        return double(evaluations) * 2048.0 * 2048.0 / seconds(t0);
    };
    // Every run's energy sums (N²/2 fp64 pairs each: at the start and at every checkpoint the
    // run really has, at most one a step; the sampled check's at the start and the end) at the
    // reference's rate; its evaluations (K + 1) at its own rate, scaled from 2048 bodies as N²
    // (all pairs) or N log₂ N (tree rows, evaluationScale).
    const double n2 = double(bodies) * double(bodies);
    const double energySums =
        referenceRun ? 1.0 + double(checkpointSteps(std::max<std::uint64_t>(steps, 1), std::max(checkpoints, 1)).size())
                     : 2.0;
    const double energyWork = 0.5 * n2 * energySums;
    const double referenceRate = rate(*findKernel("reference"));
    std::vector<const KernelInfo*> cpuRuns;
    if (referenceRun)
        cpuRuns.push_back(findKernel("reference"));
    for (const KernelInfo* k : kernels)
        if (k && k->backend == Backend::Cpu && availability(*k).available)
            cpuRuns.push_back(k);
    double total = !referenceRun && !sampleOnGpu ? double(std::min(sample, bodies)) * double(bodies) / referenceRate : 0;
    for (const KernelInfo* k : cpuRuns) {
        const double r = k->id == "reference" ? referenceRate : rate(*k);
        const double perEvaluation = 2048.0 * 2048.0 / r * evaluationScale(2048, bodies, k->method);
        // The reference makes one more: the magnitude sums S_i of the rounding bound.
        const double evaluations = double(steps) + (k->id == "reference" ? 2.0 : 1.0);
        total += perEvaluation * evaluations + energyWork / referenceRate;
    }
    return total;
}

ValidationEnvironment currentEnvironment()
{
    ValidationEnvironment env;
    const CudaRuntimeInfo cuda = queryCuda();
    if (!cuda.devices.empty()) {
        const CudaDeviceInfo& d = cuda.devices.front();
        env.device = d.name + " (compute capability " + std::to_string(d.major) + "." + std::to_string(d.minor) +
                     ", " + std::to_string(d.multiprocessors) + " SMs)";
    } else {
        env.device = "no CUDA device: " + cuda.whyNone;
    }
    env.cuda = cuda.builtWithCuda ? "driver " + cudaVersionString(cuda.driverVersion) + ", runtime " +
                                        cudaVersionString(cuda.runtimeVersion)
                                  : "built without CUDA";
    env.build = "N-Body Sandbox " NBODY_VERSION;
#if defined(__clang__)
    env.build += ", Clang " __clang_version__;
#elif defined(__GNUC__)
    env.build += ", GCC " __VERSION__;
#endif
    env.build += ", " NBODY_BUILD_TYPE;
#if NBODY_HAVE_CUDA
    env.build += ", CUDA " NBODY_CUDA_VERSION " (architectures " NBODY_CUDA_ARCHITECTURES ")";
#endif
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0)
        env.host = host;
    env.openmpThreads = omp_get_max_threads();
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char iso[32];
    std::strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &utc);
    env.startedUtc = iso;
    return env;
}

ValidationReport validate(const World& initial, const std::optional<Fp64State>& exact, const ValidationConfig& config,
                          const std::function<void(const ValidationProgress&)>& progress, std::stop_token stop)
{
    if (config.kernels.empty())
        throw std::invalid_argument("no kernel to validate");
    if (config.steps == 0)
        throw std::invalid_argument("the number of steps must be at least 1");
    if (config.checkpoints < 1)
        throw std::invalid_argument("the number of checkpoints must be at least 1");
    for (const KernelInfo* k : config.kernels) {
        if (!k)
            throw std::invalid_argument("no kernel to validate (null row)");
        if (const Availability a = availability(*k); !a.available)
            throw std::invalid_argument("kernel '" + std::string(k->id) + "' is not available here: " + a.reason);
    }
    const KernelInfo* referenceRow = findKernel("reference");
    if (!referenceRow)
        throw std::logic_error("the registry has no 'reference' kernel");

    ValidationReport report;
    report.environment = currentEnvironment();
    report.bodies = initial.size();
    report.steps = config.steps;
    report.params = config.params;
    report.params.diagnosticsInterval = 0; // the engine measures at its checkpoints
    report.system = config.system;
    report.thresholds = config.thresholds;
    const SimParams& params = report.params;

    std::uint64_t toldStep = ~std::uint64_t(0);
    std::string toldPhase;
    const auto tell = [&](std::uint64_t step, const char* phase) {
        if (!progress || (step == toldStep && toldPhase == phase))
            return; // only news: a CPU run polls after every step
        toldStep = step;
        toldPhase = phase;
        progress(ValidationProgress{step, config.steps, phase});
    };
    const auto poll = [&] {
        if (stop.stop_requested())
            throw ValidationCancelled();
    };

    // The reference: the fp64 OpenMP kernel on the exact initial state (throws for an invalid
    // system or parameters: the caller's input).
    tell(0, "step-0 forces");
    Simulation reference(initial, exact, params, "cpu");
    reference.setKernel(*referenceRow);
    if (config.share)
        reference.setForceShare(config.share);
    auto refStart = Clock::now();
    // Step-0 reference forces: all N, or (above forceSampleAbove) the sample's, each against all
    // N in fp64 on the exact state (the reference run computes its own forces on its first step).
    // Without the reference's run (the sampled check) the sample is taken whatever N: all N when
    // forceSample does not leave any out.
    const std::size_t n = initial.size();
    const bool referenceRun = config.referenceRun;
    report.referenceRun = referenceRun;
    const bool sampled = referenceRun ? n > config.forceSampleAbove && config.forceSample > 0 && config.forceSample < n
                                      : true;
    std::vector<std::size_t> sample;
    if (sampled) {
        const std::size_t count = config.forceSample > 0 ? std::min(config.forceSample, n) : n;
        sample.resize(n);
        for (std::size_t i = 0; i < n; ++i)
            sample[i] = i;
        Xoshiro256 rng(config.forceSampleSeed);
        for (std::size_t i = 0; i < count && count < n; ++i) // partial Fisher–Yates
            std::swap(sample[i], sample[i + std::size_t(rng.next() % (n - i))]);
        sample.resize(count);
        std::sort(sample.begin(), sample.end());
    } else {
        reference.computeAccelerations();
    }
    Fp64State refState = reference.state64();
    std::vector<Double4> refSample;
    // S_i of the compared bodies for the rounding bound of all-pairs rows (checkForceBodies): the
    // sampled reference sums it with the forces; without a sample, one more fp64 N² sum on the
    // CPU (beside the reference's K + 1 evaluations), only when an all-pairs row is validated.
    std::vector<double> refMagnitude;
    if (sampled) {
        SampledReference at = sampledReference(refState.position.data(), n, sample, params.eps2, params.G);
        report.sampleReference = at.where;
        refSample.resize(at.acceleration.size());
        for (std::size_t s = 0; s < refSample.size(); ++s)
            refSample[s] = Double4{at.acceleration[s].x, at.acceleration[s].y, at.acceleration[s].z, 0};
        refMagnitude = std::move(at.magnitudeSum);
    } else if (std::any_of(config.kernels.begin(), config.kernels.end(),
                           [](const KernelInfo* k) { return k->method != ForceMethod::Tree; })) {
        referenceAccelerations(refState.position.data(), n, params.eps2, params.G, &refMagnitude);
    }
    // The reference's energy: an N²/2 fp64 sum on the CPU, left out of the sampled check (each
    // kernel's run measures its own, on the GPU for the CUDA rows).
    const Diagnostics refStartDiag = referenceRun ? reference.measure() : Diagnostics{};
    report.referenceSeconds += seconds(refStart);
    report.initialEnergy = refStartDiag.total;
    const double refPScale = momentumScale(refState);
    report.referenceGrowth.push_back({0, initial.time, 0, 0, 0, 0, 0});

    // The kernels' runs and their step-0 force errors.
    std::vector<Run> runs;
    runs.reserve(config.kernels.size());
    for (const KernelInfo* k : config.kernels) {
        poll();
        Run& run = runs.emplace_back();
        run.kernel = k;
        KernelValidation& r = run.result;
        r.id = k->id;
        r.name = k->name;
        r.precision = k->precision;
        r.backend = k->backend;
        r.layout = k->layout;
        r.method = k->method;
        r.launch = launchText(*k, params, initial.size());
        const auto t0 = Clock::now();
        try {
            run.sim = std::make_unique<Simulation>(initial, exact, params, "cpu");
            run.sim->setKernel(*k);
            if (k->method == ForceMethod::Tree) { // θ as a force accuracy picked it for this row
                r.openingAngle = run.sim->params().openingAngle;
                r.openingAlpha = run.sim->params().openingAlpha;
                if (params.forceAccuracy > 0) {
                    r.forceAccuracy = params.forceAccuracy;
                    r.calibratedP99 = chooseOpeningAngle(k->id, params.forceAccuracy, initial.size()).point.p99;
                }
            }
            if (config.share)
                run.sim->setForceShare(config.share);
            run.sim->computeAccelerations();
            const std::vector<Double4> a = run.sim->accelerations64();
            const bool allPairs = k->method != ForceMethod::Tree;
            if (sampled) {
                std::vector<Double4> at(sample.size());
                for (std::size_t s = 0; s < sample.size(); ++s)
                    at[s] = a[sample[s]];
                r.force0 = forceError(at, refSample);
                r.force0.worstBody = sample[r.force0.worstBody];
                r.force0.sampled = sample.size();
                if (allPairs) {
                    r.forceBodies = checkForceBodies(at, refSample, refMagnitude, n, k->precision, config.thresholds);
                    r.forceBodies.body = sample[r.forceBodies.body];
                }
            } else {
                r.force0 = forceError(a, refState.acceleration);
                if (allPairs)
                    r.forceBodies =
                        checkForceBodies(a, refState.acceleration, refMagnitude, n, k->precision, config.thresholds);
            }
            r.momentumError0 = momentumError(refState.position, a);
            run.start = run.sim->measure();
            if (!referenceRun && report.initialEnergy == 0)
                report.initialEnergy = run.start.total; // E₀ of the first run (the reference measured none)
            const Fp64State s = run.sim->state64();
            run.pScale = momentumScale(s);
            // fp32 kernels start from the rounding of an exact fp64 state: not quite zero.
            const ErrorStats pe = positionErrors(s, refState);
            r.growth.push_back({0, initial.time, pe.max, pe.median, pe.rms, 0, 0});
        } catch (const ValidationCancelled&) {
            throw;
        } catch (const std::exception& e) {
            if (config.share)
                throw; // the other processes are in (or will reach) a collective this one leaves
            run.fail(e.what());
        }
        r.seconds += seconds(t0);
    }

    // Lockstep between checkpoints: the reference, then each kernel, a chunk at a time.
    std::uint64_t done = 0;
    const std::size_t runCount = runs.size() + 1;
    // The sampled check measures the energy at the end only (an N² sum for each run).
    for (const std::uint64_t checkpoint : checkpointSteps(config.steps, referenceRun ? config.checkpoints : 1)) {
        const int chunk = int(checkpoint - done);
        // Steps of this chunk done by all runs together; progress is their share of the chunk.
        std::uint64_t chunkWork = 0;
        const auto progressWithin = [&] { tell(done + chunkWork / runCount, "stepping"); };
        // A run advances the chunk a step at a time when it is on the CPU (a step of the fp64
        // reference at large N takes seconds), so a stop request is seen after at most one step;
        // GPU runs take the chunk in one call.
        const auto advance = [&](Simulation& sim) {
            if (sim.kernel().backend == Backend::Cuda) {
                poll();
                sim.step(chunk);
                chunkWork += std::uint64_t(chunk);
            } else {
                for (int i = 0; i < chunk; ++i) {
                    poll();
                    sim.step(1);
                    ++chunkWork;
                    progressWithin();
                }
            }
            progressWithin();
        };
        poll();
        double refDE = 0;
        if (referenceRun) {
            refStart = Clock::now();
            advance(reference);
            refState = reference.state64();
            if (const std::string bad = reference.checkFinite(); !bad.empty())
                throw std::invalid_argument("the fp64 reference run became non-finite by step " +
                                            std::to_string(checkpoint) + " (" + bad + "): dt is too large for this system");
            const Diagnostics refDiag = reference.measure();
            refDE = relativeEnergyChange(refStartDiag, refDiag);
            report.referenceGrowth.push_back({checkpoint, reference.time(), 0, 0, 0, refDE, refDE});
            report.referenceSeconds += seconds(refStart);
        } else {
            chunkWork = std::uint64_t(chunk); // the reference's share of the chunk, not run
        }

        for (std::size_t i = 0; i < runs.size(); ++i) {
            Run& run = runs[i];
            if (!run.active)
                continue;
            poll();
            KernelValidation& r = run.result;
            const auto t0 = Clock::now();
            try {
                advance(*run.sim);
                if (const std::string bad = run.sim->checkFinite(); !bad.empty()) {
                    r.finite = false;
                    r.reasons.push_back("the state became non-finite by step " + std::to_string(checkpoint) + " (" +
                                        bad + ")");
                    run.active = false;
                    run.sim.reset();
                } else {
                    const Diagnostics d = run.sim->measure();
                    if (!referenceRun) { // its own energy and momentum only
                        r.energyChange = relativeEnergyChange(run.start, d);
                        r.momentumChange = momentumChange(d, run.start, run.pScale);
                        r.growth.push_back({checkpoint, run.sim->time(), 0, 0, 0, r.energyChange, 0});
                    } else {
                        const Fp64State s = run.sim->state64();
                        const ErrorStats pe = positionErrors(s, refState);
                        GrowthPoint g{checkpoint, run.sim->time(), pe.max, pe.median, pe.rms,
                                      relativeEnergyChange(run.start, d), refDE};
                        r.growth.push_back(g);
                        if (checkpoint == config.steps) {
                            r.position = fieldErrors(s.position, refState.position, report.thresholds);
                            r.velocity = fieldErrors(s.velocity, refState.velocity, report.thresholds);
                            r.acceleration = fieldErrors(s.acceleration, refState.acceleration, report.thresholds);
                            r.energyChange = g.energyChange;
                            r.momentumChange = momentumChange(d, run.start, run.pScale);
                        }
                    }
                }
            } catch (const ValidationCancelled&) {
                throw;
            } catch (const std::exception& ex) {
                if (config.share)
                    throw; // as above
                run.fail("stopped at step " + std::to_string(done) + "..." + std::to_string(checkpoint) + ": " + ex.what());
            }
            r.seconds += seconds(t0);
            chunkWork = std::uint64_t(chunk) * (i + 2); // a failed run's share counts as done
            progressWithin();
        }
        done = checkpoint;
    }
    tell(config.steps, "comparing");

    if (referenceRun) {
        report.referenceEnergyChange = report.referenceGrowth.back().referenceEnergyChange;
        report.referenceMomentumChange = momentumChange(reference.measure(), refStartDiag, refPScale);
    } else {
        report.warnings.push_back(
            "Sampled check: the fp64 reference's own run of " + stepCount(config.steps) +
            " (N^2 fp64 interactions a step) is left out at this size, so trajectories are not compared. "
            "The step-0 force errors are measured on " + std::to_string(sample.size()) + " of the " + bodyCount(n) +
            ", each against all N in fp64 on " + report.sampleReference +
            ", and each kernel's own energy change over its run is held to |dE/E0| <= " +
            format("%.0e", report.thresholds.energy) + ".");
    }

    if (report.initialEnergy == 0)
        report.warnings.push_back("The initial energy E0 is 0 (a single body at rest, or kinetic and potential energy "
                                  "cancelling), so relative energy changes are undefined and shown as 0: the energy "
                                  "criterion cannot fail. The step-0 force errors still measure each kernel's accuracy.");
    else if (referenceRun && !(std::abs(report.referenceEnergyChange) <= 0.01))
        report.warnings.push_back(
            "The fp64 reference itself changed its energy by ΔE/E0 = " + format("%.2e", report.referenceEnergyChange) +
            " over the run: the time step or the softening does not suit this system (close encounters are not "
            "resolved), so the errors after " + stepCount(config.steps) +
            " compare chaos, not kernels. The step-0 force errors still measure each kernel's accuracy.");

    // Verdicts (see the file comment of Validation.h).
    const ValidationThresholds& t = report.thresholds;
    for (Run& run : runs) {
        KernelValidation& r = run.result;
        if (run.errored) { // stopped by an error: its message is the reason
            report.kernels.push_back(std::move(r));
            continue;
        }
        const std::string where = r.force0.sampled ? " (sampled " + bodyCount(r.force0.sampled) + ")" : "";
        if (r.method == ForceMethod::Tree) {
            const auto [p99Bound, medianBound] = treeForceBounds(t, r);
            const std::string what = r.forceAccuracy > 0 ? " (the force accuracy asked for)" : " (tree)";
            if (!(r.force0.p99 <= p99Bound))
                r.reasons.push_back("step-0 force error p99 " + format("%.2e", r.force0.p99) + " > " +
                                    format(r.forceAccuracy > 0 ? "%.2g" : "%.0e", p99Bound) + what + where);
            if (!(r.force0.median <= medianBound))
                r.reasons.push_back("step-0 force error median " + format("%.2e", r.force0.median) + " > " +
                                    format("%.0e", medianBound) + what + where);
        } else if (r.forceBodies.failing > 0) { // all pairs: the per-body rule (checkForceBodies)
            r.reasons.push_back("step-0 force error " + format("%.2e", r.force0.max) + " (worst body " +
                                std::to_string(r.force0.worstBody) + "): " + describeFailingBodies(r.forceBodies) +
                                where);
        }
        if (r.finite && !referenceRun) {
            if (!(std::abs(r.energyChange) <= t.energy))
                r.reasons.push_back("energy change " + format("%.2e", r.energyChange) + " over " +
                                    stepCount(config.steps) + " > " + format("%.1e", t.energy) +
                                    " (sampled check: no reference run)");
        } else if (r.finite) {
            const double bound = std::max(t.energy, std::abs(report.referenceEnergyChange));
            const double diff = std::abs(r.energyChange - report.referenceEnergyChange);
            if (!(diff <= bound))
                r.reasons.push_back("energy change " + format("%.2e", r.energyChange) + " differs from the reference's " +
                                    format("%.2e", report.referenceEnergyChange) + " by " + format("%.2e", diff) +
                                    " > " + format("%.1e", bound));
        }
        r.verdict = r.reasons.empty() ? Verdict::Pass : Verdict::Fail;
        report.kernels.push_back(std::move(r));
    }
    return report;
}

} // namespace nbody
