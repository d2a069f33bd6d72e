#include "sim/perf/Benchmark.h"
#include "sim/base/Format.h"
#include "sim/base/DeviceInfo.h"
#include "sim/core/Integrators.h"
#include "sim/core/Scenario.h"
#include "sim/io/Scenarios.h"
#include "sim/core/Simulation.h"
#include "sim/core/ForceShare.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace nbody {

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    const std::size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(mid), v.end());
    if (v.size() % 2)
        return v[mid];
    const double upper = v[mid];
    const double lower = *std::max_element(v.begin(), v.begin() + std::ptrdiff_t(mid));
    return 0.5 * (lower + upper);
}

std::size_t probeLimit(Backend backend, int multiprocessors)
{
    if (backend == Backend::Cpu)
        return kFirstProbeBodies;
    return std::max<std::size_t>(65536, 512 * std::size_t(std::max(multiprocessors, 0)));
}

std::size_t budgetProbeLimit(Backend backend, int multiprocessors)
{
    if (backend == Backend::Cpu)
        return std::numeric_limits<std::size_t>::max();
    return probeLimit(backend, multiprocessors);
}

double evaluationScale(std::size_t from, std::size_t to, ForceMethod method)
{
    const double a = double(std::max<std::size_t>(from, 1)), b = double(to);
    if (method == ForceMethod::AllPairs)
        return (b / a) * (b / a);
    return (b * std::max(1.0, std::log2(b))) / (a * std::max(1.0, std::log2(a)));
}

CasePrediction predictCase(std::size_t n, int evaluations, double budgetSeconds, std::size_t limit,
                           std::optional<EvaluationTiming> known,
                           const std::function<double(std::size_t)>& probe, ForceMethod method)
{
    CasePrediction p;
    const auto scaled = [method](const EvaluationTiming& t, std::size_t to, int count) {
        return std::max(t.ms, 0.0) * 1e-3 * evaluationScale(t.bodies, to, method) * count;
    };
    if (!known) {
        if (n <= kFirstProbeBodies)
            return p;
        known = EvaluationTiming{kFirstProbeBodies, probe(kFirstProbeBodies)};
        ++p.probes;
    }
    const std::size_t top = std::min(n, std::max(limit, kFirstProbeBodies));
    for (;;) {
        p.from = *known;
        p.seconds = scaled(*known, n, evaluations);
        if (p.seconds <= budgetSeconds || known->bodies >= top)
            return p;
        const std::size_t next = std::min(top, known->bodies * 4);
        // A probe below the real N may take a tenth of the budget; one at the real N the whole
        // budget (it is what the case would start with).
        if (scaled(*known, next, 2) > (next == n ? budgetSeconds : budgetSeconds / 10))
            return p;
        known = EvaluationTiming{next, probe(next)};
        ++p.probes;
    }
}

std::unique_ptr<Simulation> benchmarkSystem(const BenchCase& c)
{
    std::unique_ptr<Simulation> sim;
    if (c.scenario.empty()) {
        CubeParams cube;
        cube.bodies = c.bodies;
        cube.seed = c.seed;
        sim = std::make_unique<Simulation>(makeUniformCube(cube), c.params, "cpu");
    } else {
        BuiltScenario b = buildScenario(scenarioSpec(c.scenario, c.bodies, c.seed), c.params);
        sim = std::make_unique<Simulation>(std::move(b.bodies.world), b.params, "cpu");
    }
    sim->setKernel(c.kernel);
    if (c.share)
        sim->setForceShare(c.share);
    return sim;
}

double timeForceEvaluation(const KernelInfo& k, std::size_t n, const SimParams& params, std::uint64_t seed,
                           const std::string& scenario, ForceShare* share, double minSeconds)
{
    BenchCase c;
    c.kernel = std::string(k.id);
    c.bodies = n;
    c.seed = seed;
    c.scenario = scenario;
    c.params = params;
    c.share = share;
    const std::unique_ptr<Simulation> sim = benchmarkSystem(c);
    sim->timedForceEvaluation(); // untimed: module load, allocation
    if (share)
        return share->agree(sim->timedForceEvaluation());
    const auto t0 = std::chrono::steady_clock::now();
    double sum = 0;
    int count = 0;
    do {
        sum += sim->timedForceEvaluation();
        ++count;
    } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < minSeconds);
    return sum / count;
}

double predictedStepSeconds(const EvaluationTiming& from, std::size_t n, int evaluationsPerStep)
{
    const double ratio = double(n) / double(std::max<std::size_t>(from.bodies, 1));
    return std::max(from.ms, 0.0) * 1e-3 * ratio * ratio * std::max(evaluationsPerStep, 1);
}

StepRateSize bodiesForStepRate(double stepsPerSecond, int evaluationsPerStep, std::size_t minimum,
                               std::size_t maximum, std::size_t probeBodies,
                               const std::function<double(std::size_t)>& probe, int probes)
{
    if (!(stepsPerSecond > 0) || !std::isfinite(stepsPerSecond))
        throw std::invalid_argument("bodiesForStepRate: the step rate must be positive and finite");
    if (minimum > maximum || probeBodies == 0 || probes < 1)
        throw std::invalid_argument("bodiesForStepRate: minimum above maximum, no probe bodies or no probes");
    std::vector<double> timings;
    for (int i = 0; i < probes; ++i)
        timings.push_back(probe(probeBodies));
    StepRateSize s;
    s.from = EvaluationTiming{probeBodies, median(timings)};
    const double budget = 1.0 / stepsPerSecond;
    const double atProbe = predictedStepSeconds(s.from, probeBodies, evaluationsPerStep);
    // N² scaling: N = probe N × sqrt(budget / predicted time at the probe N).
    double n = atProbe > 0 ? double(probeBodies) * std::sqrt(budget / atProbe) : double(maximum);
    n = std::min(n, double(maximum));
    std::size_t bodies = std::size_t(n) / 512 * 512;
    s.bodies = std::clamp(bodies, minimum, maximum);
    s.secondsPerStep = predictedStepSeconds(s.from, s.bodies, evaluationsPerStep);
    return s;
}

StepRateSize bodiesForStepRate(const KernelInfo& k, const SimParams& params, double stepsPerSecond,
                               std::size_t minimum, std::size_t maximum)
{
    int sms = 0;
    if (k.backend == Backend::Cuda)
        if (const CudaRuntimeInfo cuda = queryCuda(); !cuda.devices.empty())
            sms = cuda.devices.front().multiprocessors;
    const std::size_t probeBodies = std::min(probeLimit(k.backend, sms), std::max<std::size_t>(maximum, 1));
    const int evaluations = int(integratorOrThrow(params.integrator).weights.size());
    return bodiesForStepRate(stepsPerSecond, evaluations, minimum, maximum, probeBodies,
                             [&](std::size_t n) { return timeForceEvaluation(k, n, params, 42, {}, nullptr, 0.05); }, 3);
}

BenchResult runBenchmark(const BenchCase& c, const std::function<void(const std::string&)>& progress)
{
    const auto say = [&](const std::string& s) {
        if (progress)
            progress(s);
    };
    if (c.samples < 1)
        throw std::invalid_argument("benchmark samples must be at least 1");
    const std::unique_ptr<Simulation> owned = benchmarkSystem(c);
    Simulation& sim = *owned;
    const KernelInfo& k = sim.kernel();

    // Warm-up: allocation, module load, workspace, caches. The last warm-up evaluation (the
    // first only when there is one: it includes the module load and allocations) sizes the
    // sample count to the budget (each sample is one evaluation and one step, ~2 evaluations).
    double warmSeconds = 0;
    for (int i = 0; i < std::max(c.warmup, 1); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        sim.timedForceEvaluation();
        warmSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    sim.step(1);
    // Decisions from timings are the slowest process's (ForceShare::agree): every process takes
    // as many samples of as many steps, so they make the same collectives.
    if (c.share)
        warmSeconds = c.share->agree(warmSeconds);
    int samples = c.samples;
    if (warmSeconds > 0) {
        const double fit = std::floor(c.budgetSeconds / (2.0 * warmSeconds));
        samples = int(std::clamp(fit, 1.0, double(c.samples)));
    }
    if (samples < c.samples)
        say("  " + std::to_string(samples) + " of " + std::to_string(c.samples) +
            " samples fit the time budget");

    // A step sample is one call of step(K) over K steps, K sized so that a call lasts about 2 ms
    // (1 … 100 steps): the time per step of a multi-step run (nbody run, render, the app's steps
    // per frame), where the host's launch and synchronisation per call is spread over K steps
    // and, with CUDA graphs, the steps replay without launch gaps. One warm-up call of K first
    // (it captures the graphs).
    double oneStepMs = std::max(1e-3, sim.lastTiming().msPerStep);
    if (c.share)
        oneStepMs = c.share->agree(oneStepMs);
    const int stepsPerSample = int(std::clamp(std::floor(2.0 / oneStepMs), 1.0, 100.0));
    sim.step(stepsPerSample);
    std::vector<double> force, step, exchange, compute, inFlight;
    int chunks = 0;
    force.reserve(std::size_t(samples));
    step.reserve(std::size_t(samples));
    for (int s = 0; s < samples; ++s) {
        force.push_back(sim.timedForceEvaluation());
        const ExchangeStats before = c.share ? c.share->exchanged() : ExchangeStats{};
        sim.step(stepsPerSample);
        const double ms = sim.lastTiming().msPerStep;
        const ExchangeStats after = c.share ? c.share->exchanged() : ExchangeStats{};
        const double exchangeMs = 1e3 * (after.seconds - before.seconds) / stepsPerSample;
        step.push_back(ms);
        exchange.push_back(exchangeMs);
        inFlight.push_back(1e3 * (after.inFlightSeconds - before.inFlightSeconds) / stepsPerSample);
        chunks = after.chunks;
        compute.push_back(std::max(0.0, ms - exchangeMs));
    }
    if (const std::string bad = sim.checkFinite(); !bad.empty())
        throw std::runtime_error("the benchmark system blew up (" + bad + ")");

    BenchResult r;
    r.kernel = std::string(k.id);
    r.bodies = c.bodies;
    r.samples = samples;
    r.forceMsMedian = median(force);
    r.forceMsMin = *std::min_element(force.begin(), force.end());
    r.stepMsMedian = median(step);
    r.stepsPerSample = stepsPerSample;
    r.ranks = c.share ? c.share->processes() : 1;
    r.exchangeMsPerStep = median(exchange);
    r.exchangeInFlightMsPerStep = median(inFlight);
    r.exchangeChunks = c.share ? chunks : 0;
    r.computeMsPerStep = median(compute);
    const double n = double(c.bodies);
    r.interactionsPerSecond = r.forceMsMedian > 0 ? n * n / (r.forceMsMedian * 1e-3) : 0;
    r.bodiesPerSecond = r.forceMsMedian > 0 ? n / (r.forceMsMedian * 1e-3) : 0;
    r.method = k.method;
    r.flopsPerInteraction = k.flopsPerInteraction;
    r.gflops = k.method == ForceMethod::AllPairs ? r.interactionsPerSecond * k.flopsPerInteraction / 1e9 : 0;
    r.timer = k.backend == Backend::Cuda && !c.share ? "CUDA events" : "wall clock";
    r.params = c.params;
    return r;
}

std::string predictionBasis(const CasePrediction& p, ForceMethod method)
{
    if (!(p.seconds > 0))
        return {};
    const double ms = p.from.ms;
    const std::string measured = ms >= 1000 ? formatString("%.3g s", ms * 1e-3) : formatString("%.3g ms", ms);
    return formatString("about %.3g s predicted from an evaluation of %s measured at N=%zu%s", p.seconds,
                        measured.c_str(), p.from.bodies,
                        method == ForceMethod::Tree ? " (scaled as N log N)" : "");
}

std::string budgetSkipNote(const CasePrediction& p, double budgetSeconds, ForceMethod method)
{
    if (!(p.seconds > budgetSeconds))
        return {};
    return "skipped: " + predictionBasis(p, method) + formatString(", over the %.3g s budget (--budget)", budgetSeconds);
}

} // namespace nbody
