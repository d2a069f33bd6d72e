#include "sim/perf/Tuner.h"

#include "sim/perf/Benchmark.h"
#include "sim/core/Ceiling.h"
#include "sim/base/DeviceInfo.h"
#include "sim/base/Format.h"
#include "sim/core/Scenario.h"
#include "sim/core/Simulation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <set>
#include <stdexcept>
#include <tuple>

namespace nbody {

namespace {

std::string todayUtc()
{
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char buf[16];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", &utc);
    return buf;
}

} // namespace

// ---- the search -----------------------------------------------------------------------------

std::vector<int> launchCandidates(const KernelInfo& k, LaunchParam p, std::size_t n, const TuningDevice& d,
                                  const LaunchValues& current)
{
    (void)k;
    switch (p) {
    case LaunchParam::BlockSize: {
        const int limit = d.maxThreadsPerBlock > 0 ? d.maxThreadsPerBlock : 1024;
        std::vector<int> out;
        for (int b : {64, 128, 256, 512, 1024})
            if (b <= limit)
                out.push_back(b);
        return out;
    }
    case LaunchParam::BlockRows:
    case LaunchParam::TileWidthFactor: return {1, 2, 4};
    case LaunchParam::BodiesPerThread:
    case LaunchParam::Unroll: return {1, 2, 4, 8};
    case LaunchParam::JSplit: {
        // Powers of two up to about eight blocks per SM, and the splits that make the block
        // count a whole number of SM multiples (k · SMs blocks, k = 1 … 8: balanced waves, which
        // the H200 sweep showed to matter more than the count itself at N ≤ 65 536), each
        // leaving at least one tile per grid row.
        const std::size_t tile = std::size_t(std::max(1, current.blockSize > 0 ? current.blockSize : kDefaultBlockSize));
        const std::size_t perBlock = tile * std::size_t(std::max(1, current.bodiesPerThread));
        const std::size_t iBlocks = std::max<std::size_t>(1, (n + perBlock - 1) / perBlock);
        const std::size_t sms = d.multiprocessors > 0 ? std::size_t(d.multiprocessors) : 32;
        const std::size_t maxSplit = std::max<std::size_t>(1, std::min<std::size_t>(1024, n / tile));
        std::vector<int> out{1};
        for (std::size_t s = 2; s <= maxSplit && iBlocks * s <= 8 * sms; s *= 2)
            out.push_back(int(s));
        for (std::size_t waves = 1; waves <= 8; ++waves)
            if (const std::size_t s = (waves * sms + iBlocks - 1) / iBlocks; s >= 2 && s <= maxSplit)
                out.push_back(int(s));
        if (current.jSplit > 0 && std::size_t(current.jSplit) <= maxSplit)
            out.push_back(current.jSplit);
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return out;
    }
    }
    return {};
}


TuneResult searchLaunch(const KernelInfo& k, std::size_t n, const TuningDevice& d, const LaunchMeasureFn& measure,
                        const LaunchValues& start, const TuneOptions& options)
{
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    TuneResult r;
    // Each distinct combination is measured once; refused ones are remembered as such.
    std::map<std::array<int, 6>, std::optional<double>> seen;
    const auto key = [](const LaunchValues& v) {
        return std::array<int, 6>{v.blockSize, v.blockRows, v.tileWidthFactor, v.bodiesPerThread, v.jSplit, v.unroll};
    };
    const auto time = [&](const LaunchValues& v) -> std::optional<double> {
        const auto [it, fresh] = seen.try_emplace(key(v));
        if (!fresh)
            return it->second;
        try {
            const double ms = measure(v);
            if (std::isfinite(ms) && ms > 0)
                it->second = ms;
            ++r.measured;
        } catch (const std::invalid_argument&) {
            ++r.refused;
        }
        return it->second;
    };

    // The search order: j-split last (its candidates depend on block size and i/thread).
    std::vector<LaunchParam> order;
    for (LaunchParam p : {LaunchParam::BlockSize, LaunchParam::BlockRows, LaunchParam::TileWidthFactor,
                          LaunchParam::BodiesPerThread, LaunchParam::Unroll, LaunchParam::JSplit})
        if (reads(k.params, p))
            order.push_back(p);

    LaunchValues best = start;
    std::optional<double> bestMs = time(best);
    if (!bestMs) {
        // The start is refused (a default beyond this device): take the first candidate that runs.
        for (LaunchParam p : order) {
            for (int c : launchCandidates(k, p, n, d, best)) {
                LaunchValues v = best;
                v[p] = c;
                if (const auto ms = time(v)) {
                    best = v;
                    bestMs = ms;
                    break;
                }
            }
            if (bestMs)
                break;
        }
    }
    if (!bestMs)
        throw std::invalid_argument("kernel '" + std::string(k.id) + "' refused every launch configuration tried");

    for (int pass = 0; pass < options.maxPasses && !r.budgetExhausted; ++pass) {
        bool improved = false;
        for (LaunchParam p : order) {
            for (int c : launchCandidates(k, p, n, d, best)) {
                if (c == best[p])
                    continue;
                if (elapsed() > options.budgetSeconds) {
                    r.budgetExhausted = true;
                    break;
                }
                LaunchValues v = best;
                v[p] = c;
                // Within 1 % counts as noise: the earlier (default-side) value stays.
                if (const auto ms = time(v); ms && *ms < 0.99 * *bestMs) {
                    improved = true;
                    best = v;
                    bestMs = ms;
                }
            }
            if (r.budgetExhausted)
                break;
        }
        if (!improved)
            break;
    }
    r.launch = best;
    r.forceMs = *bestMs;
    const double nd = double(n);
    r.interactionsPerSecond = nd * nd / (r.forceMs * 1e-3);
    r.seconds = elapsed();
    return r;
}

LaunchMeasureFn forceEvaluationTimer(const KernelInfo& k, std::size_t n, int samples)
{
    CubeParams cube;
    cube.bodies = n;
    cube.seed = 42;
    const SimParams base; // launch parameters on auto until the first candidate
    auto sim = std::make_shared<Simulation>(makeUniformCube(cube), base, "cpu");
    sim->setKernel(k);
    return [sim, samples](const LaunchValues& v) {
        SimParams p = sim->params();
        applyLaunchValues(v, p);
        sim->setParams(p); // the row's check refuses → std::invalid_argument
        const auto t0 = std::chrono::steady_clock::now();
        sim->timedForceEvaluation(); // warm-up (module load, workspace)
        const double warm = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        const int count = warm > 50.0 ? 1 : std::max(1, samples);
        std::vector<double> ms;
        for (int i = 0; i < count; ++i)
            ms.push_back(sim->timedForceEvaluation());
        return median(ms);
    };
}

// ---- who tunes -----------------------------------------------------------------------------

bool tunable(const KernelInfo& k, const SimParams& p)
{
    if (k.backend != Backend::Cuda || !k.device)
        return false;
    const LaunchValues v = launchValues(p);
    for (const LaunchParamInfo& q : launchParams())
        if (reads(k.params, q.param) && v[q.param] == 0)
            return availability(k).available;
    return false;
}

TuneOutcome ensureTuned(const KernelInfo& k, const SimParams& p, std::size_t n,
                        const std::function<void(const std::string&)>& progress, bool force)
{
    TuneOutcome out;
    if (!tunable(k, force ? SimParams{} : p))
        return out;
    const TuningDevice d = currentTuningDevice();
    if (d.name.empty())
        return out;
    TuningCache& cache = tuningCache();
    const std::size_t bucket = tuningBucket(n);
    if (!force) {
        if ((out.entry = cache.find(d, k.id, bucket)))
            return out;
    }
    const std::string opening = formatString("Tuning %s for N≈%zu on %s (once; cached in %s) … ",
                                             std::string(k.id).c_str(), bucket, d.name.c_str(),
                                             cache.path().c_str());
    if (progress)
        progress(opening);
    const TuneResult r = searchLaunch(k, bucket, d, forceEvaluationTimer(k, bucket), defaultLaunch(k, bucket));
    TunedEntry e;
    e.device = d.name;
    e.driverVersion = d.driverVersion;
    e.kernel = std::string(k.id);
    e.bucket = bucket;
    e.launch = r.launch;
    e.forceMs = r.forceMs;
    e.interactionsPerSecond = r.interactionsPerSecond;
    e.date = todayUtc();
    try {
        cache.store(e);
    } catch (const std::exception& x) {
        out.warning = std::string(x.what()) + " (the choice is used in this session only)";
    }
    out.ran = true;
    out.entry = e;
    const std::string closing = describeTuned(k, e);
    out.message = opening + closing;
    if (progress)
        progress(closing);
    return out;
}

} // namespace nbody
