#include "sim/perf/StepPrediction.h"

#include "sim/base/DeviceInfo.h"
#include "sim/base/Format.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace nbody {

std::string formatStepTime(double seconds)
{
    if (seconds < 1.0)
        return formatString("%.3g ms", seconds * 1e3);
    if (seconds < 3600.0)
        return formatString("%.3g s", seconds);
    return formatString("%.3g h", seconds / 3600.0);
}

std::string describeStepPrediction(const StepPrediction& p)
{
    if (!p.valid())
        return {};
    std::string scaled;
    if (p.from.bodies != p.bodies)
        scaled = p.method == ForceMethod::Tree ? ", scaled as N log N" : ", scaled as N²";
    const double rate = p.secondsPerStep > 0 ? 1.0 / p.secondsPerStep : 0.0;
    return formatString("%s per step on %s (about %.3g steps/s), from an evaluation of %s measured at N = %zu on %s%s",
                        formatStepTime(p.secondsPerStep).c_str(), p.kernel.c_str(), rate,
                        formatStepTime(p.from.ms * 1e-3).c_str(), p.from.bodies, p.kernel.c_str(), scaled.c_str());
}

StepPredictor::StepPredictor(Probe probe, double probeSeconds) : m_probe(std::move(probe)), m_probeSeconds(probeSeconds)
{
    if (!m_probe)
        m_probe = [](const KernelInfo& k, std::size_t n) { return timeForceEvaluation(k, n, {}, 42, {}, nullptr, 0.05); };
}

double StepPredictor::time(const KernelInfo& k, std::size_t n)
{
    auto& timings = m_timings[std::string(k.id)];
    if (const auto it = timings.find(n); it != timings.end())
        return it->second;
    const double ms = m_probe(k, n);
    timings[n] = ms;
    return ms;
}

namespace {

std::size_t deviceFill(const KernelInfo& k)
{
    if (k.backend != Backend::Cuda)
        return std::numeric_limits<std::size_t>::max();
    int sms = 0;
    if (const CudaRuntimeInfo cuda = queryCuda(); !cuda.devices.empty())
        sms = cuda.devices.front().multiprocessors;
    return probeLimit(k.backend, sms);
}

} // namespace

StepPrediction StepPredictor::predict(const KernelInfo& k, std::size_t n, int evaluationsPerStep)
{
    StepPrediction p;
    p.kernel = std::string(k.id);
    p.bodies = std::max<std::size_t>(n, 1);
    p.evaluationsPerStep = std::max(evaluationsPerStep, 1);
    p.method = k.method;
    const std::size_t top = std::min(p.bodies, deviceFill(k));
    EvaluationTiming t;
    const auto& held = m_timings[std::string(k.id)];
    for (const auto& [bodies, ms] : held)
        if (bodies <= top)
            t = EvaluationTiming{bodies, ms};
    if (t.bodies == 0) {
        const std::size_t first = std::min(top, kFirstProbeBodies);
        t = EvaluationTiming{first, time(k, first)};
    }
    while (t.bodies < top) {
        const std::size_t next = std::min(top, t.bodies * 4);
        if (t.ms * 1e-3 * evaluationScale(t.bodies, next, k.method) > m_probeSeconds)
            break;
        t = EvaluationTiming{next, time(k, next)};
    }
    p.from = t;
    p.secondsPerStep = std::max(t.ms, 0.0) * 1e-3 * evaluationScale(t.bodies, p.bodies, k.method) * p.evaluationsPerStep;
    return p;
}

StepPrediction StepPredictor::sizeForStepRate(const KernelInfo& k, int evaluationsPerStep, double stepsPerSecond,
                                              std::size_t minimum, std::size_t maximum)
{
    if (!(stepsPerSecond > 0) || !std::isfinite(stepsPerSecond))
        throw std::invalid_argument("the step rate must be positive and finite");
    if (minimum > maximum)
        throw std::invalid_argument("the smallest N is above the largest");
    const double budget = 1.0 / stepsPerSecond;
    // The largest multiple of 512 within the range whose step the timing predicts within the budget.
    const auto size = [&](const StepPrediction& from) {
        const auto fits = [&](std::size_t n) {
            return std::max(from.from.ms, 0.0) * 1e-3 * evaluationScale(from.from.bodies, n, k.method) *
                       from.evaluationsPerStep <= budget;
        };
        std::size_t lo = std::max<std::size_t>(minimum / 512, 1), hi = maximum / 512;
        if (hi < lo || !fits(lo * 512))
            return minimum;
        while (lo < hi) { // the largest multiple m with fits(512 m)
            const std::size_t mid = lo + (hi - lo + 1) / 2;
            if (fits(mid * 512))
                lo = mid;
            else
                hi = mid - 1;
        }
        return std::clamp(lo * 512, minimum, maximum);
    };
    StepPrediction p = predict(k, std::min(maximum, std::max(minimum, kFirstProbeBodies)), evaluationsPerStep);
    for (int round = 0; round < 2; ++round) {
        const std::size_t n = size(p);
        p = predict(k, n, evaluationsPerStep); // timed at that N (or as near as the probe time allows)
    }
    return p;
}

StepPrediction StepPredictor::sizeStartSystem(const KernelInfo& k, int evaluationsPerStep, double stepsPerSecond,
                                              std::size_t maximum, std::size_t treeMaximum)
{
    StepPrediction best = sizeForStepRate(k, evaluationsPerStep, stepsPerSecond, 1024, maximum);
    if (k.method == ForceMethod::Tree)
        return best;
    const double budget = 1.0 / stepsPerSecond;
    for (const KernelInfo& t : kernelRegistry()) {
        if (t.method != ForceMethod::Tree || t.backend != k.backend || !availability(t).available)
            continue;
        try {
            StepPrediction p = sizeForStepRate(t, evaluationsPerStep, stepsPerSecond, 1024, std::max<std::size_t>(1024, treeMaximum));
            if (p.secondsPerStep > budget)
                continue; // the smallest N, and still slower than the rate
            const bool larger = p.bodies > best.bodies;
            const bool quicker = p.bodies == best.bodies && p.secondsPerStep < best.secondsPerStep;
            if (best.method == ForceMethod::Tree ? !(larger || quicker) : !larger)
                continue; // no larger system than all pairs (or an earlier tree) reach
            if (best.method != ForceMethod::Tree && predict(k, p.bodies, evaluationsPerStep).secondsPerStep <= p.secondsPerStep)
                continue; // all pairs would be as quick at the tree's N
            best = std::move(p);
        } catch (const std::exception&) {
            // a row that cannot run here is not chosen
        }
    }
    return best;
}

std::vector<StepPrediction> StepPredictor::fasterTrees(const StepPrediction& allPairs)
{
    std::vector<StepPrediction> faster;
    if (allPairs.method == ForceMethod::Tree || allPairs.bodies < 4096)
        return faster;
    for (const KernelInfo& k : kernelRegistry()) {
        if (k.method != ForceMethod::Tree || !availability(k).available)
            continue;
        try {
            StepPrediction t = predict(k, allPairs.bodies, allPairs.evaluationsPerStep);
            if (t.secondsPerStep < allPairs.secondsPerStep)
                faster.push_back(std::move(t));
        } catch (const std::exception&) {
            // a row that cannot run this system is not offered
        }
    }
    std::sort(faster.begin(), faster.end(),
              [](const StepPrediction& a, const StepPrediction& b) { return a.secondsPerStep < b.secondsPerStep; });
    return faster;
}

} // namespace nbody
