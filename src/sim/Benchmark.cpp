#include "Benchmark.h"
#include "Scenario.h"
#include "Simulation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
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

BenchResult runBenchmark(const BenchCase& c, const std::function<void(const std::string&)>& progress)
{
    const auto say = [&](const std::string& s) {
        if (progress)
            progress(s);
    };
    if (c.samples < 1)
        throw std::invalid_argument("benchmark samples must be at least 1");
    CubeParams cube;
    cube.bodies = c.bodies;
    cube.seed = c.seed;
    Simulation sim(makeUniformCube(cube), c.params, "cpu");
    sim.setKernel(c.kernel);
    const KernelInfo& k = sim.kernel();

    // Warm-up: allocation, module load, workspace, caches. The first evaluation also sizes the
    // sample count to the budget (each sample is one evaluation and one step, ~2 evaluations).
    const auto t0 = std::chrono::steady_clock::now();
    sim.timedForceEvaluation();
    const double firstSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (int i = 1; i < c.warmup; ++i)
        sim.timedForceEvaluation();
    sim.step(1);
    int samples = c.samples;
    if (firstSeconds > 0) {
        const double fit = std::floor(c.budgetSeconds / (2.0 * firstSeconds));
        samples = int(std::clamp(fit, 1.0, double(c.samples)));
    }
    if (samples < c.samples)
        say("  " + std::to_string(samples) + " of " + std::to_string(c.samples) +
            " samples fit the time budget");

    std::vector<double> force, step;
    force.reserve(std::size_t(samples));
    step.reserve(std::size_t(samples));
    for (int s = 0; s < samples; ++s) {
        force.push_back(sim.timedForceEvaluation());
        sim.step(1);
        step.push_back(sim.lastTiming().msPerStep);
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
    const double n = double(c.bodies);
    r.interactionsPerSecond = r.forceMsMedian > 0 ? n * n / (r.forceMsMedian * 1e-3) : 0;
    r.flopsPerInteraction = k.flopsPerInteraction;
    r.gflops = r.interactionsPerSecond * k.flopsPerInteraction / 1e9;
    r.timer = k.backend == Backend::Cuda ? "CUDA events" : "wall clock";
    r.params = c.params;
    return r;
}

} // namespace nbody
