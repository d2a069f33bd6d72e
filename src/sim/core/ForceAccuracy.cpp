#include "sim/core/ForceAccuracy.h"
#include "sim/base/Format.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace nbody {

namespace {

// Columns: θ, p99, median, α, work (body + 2.4 × cell interactions per body, counted by treeWork
// on the same sphere; the CUDA row's lists at a θ are tree-cpu's, so are its counts).

// tree-cpu: measured with `nbody validate --kernel tree-cpu --scenario plummer --theta T
// --bodies 131072 --steps 1 --reference sampled` (32 768 sampled bodies against all N in fp64;
// CPU, GCC 12, Release, leaf size 16).
constexpr std::array kTreeCpu = {
    AccuracyPoint{0.2, 4.00e-5, 7.13e-6, 0, 38550},
    AccuracyPoint{0.3, 1.80e-4, 2.92e-5, 0, 18576},
    AccuracyPoint{0.4, 4.57e-4, 6.83e-5, 0, 10345},
    AccuracyPoint{0.5, 7.68e-4, 1.21e-4, 0, 6736},
    AccuracyPoint{0.6, 1.62e-3, 2.42e-4, 0, 4608},
    AccuracyPoint{0.75, 3.31e-3, 5.46e-4, 0, 2926},
    AccuracyPoint{0.9, 5.29e-3, 1.00e-3, 0, 2264},
};

// tree-cpu with the relative criterion (θ = 1 its guard): the same command with `--theta 1
// --opening-alpha A`; step 0, so |a_old| is the geometric pre-pass's (docs/tree.md).
constexpr std::array kTreeCpuRelative = {
    AccuracyPoint{1.0, 9.07e-5, 2.74e-5, 0.0002, 8606},
    AccuracyPoint{1.0, 1.68e-4, 5.42e-5, 0.0005, 5778},
    AccuracyPoint{1.0, 2.81e-4, 9.26e-5, 0.001, 4371},
    AccuracyPoint{1.0, 5.20e-4, 1.57e-4, 0.002, 3358},
    AccuracyPoint{1.0, 7.15e-4, 2.07e-4, 0.003, 2928},
    AccuracyPoint{1.0, 9.02e-4, 2.48e-4, 0.004, 2694},
    AccuracyPoint{1.0, 1.09e-3, 2.85e-4, 0.005, 2548},
    AccuracyPoint{1.0, 1.42e-3, 3.45e-4, 0.007, 2371},
    AccuracyPoint{1.0, 1.88e-3, 4.35e-4, 0.01, 2229},
    AccuracyPoint{1.0, 2.91e-3, 6.23e-4, 0.02, 2059},
};

// tree-cpu with the relative criterion and θ = 2 its guard (r_crit = l/2 + δ, so the guard opens
// only cells close to the group and the relative test decides the rest): the same command with
// `--theta 2 --opening-alpha A`. At equal p99 it needs about 12 % fewer pair-equivalents than
// θ = 1 (α 0.0035: 9.08e-4 for 2 378, against α 0.004 at θ = 1: 9.02e-4 for 2 694); its largest
// errors are larger (max 2.7e-3 against 1.7e-3 near p99 1e-3; docs/tree.md).
constexpr std::array kTreeCpuRelativeGuard2 = {
    AccuracyPoint{2.0, 3.00e-4, 9.84e-5, 0.001, 4063},
    AccuracyPoint{2.0, 5.60e-4, 1.70e-4, 0.002, 2997},
    AccuracyPoint{2.0, 6.80e-4, 2.06e-4, 0.0025, 2724},
    AccuracyPoint{2.0, 7.90e-4, 2.36e-4, 0.003, 2527},
    AccuracyPoint{2.0, 9.08e-4, 2.66e-4, 0.0035, 2378},
    AccuracyPoint{2.0, 1.03e-3, 2.93e-4, 0.004, 2260},
    AccuracyPoint{2.0, 1.23e-3, 3.48e-4, 0.005, 2083},
    AccuracyPoint{2.0, 1.44e-3, 3.94e-4, 0.006, 1953},
    AccuracyPoint{2.0, 1.66e-3, 4.44e-4, 0.007, 1852},
    AccuracyPoint{2.0, 2.17e-3, 5.96e-4, 0.01, 1642},
};

// tree (CUDA): measured with the same command and `--kernel tree` on an NVIDIA H200 (N = 131 072,
// leaf size 16). No θ = 0.2 or 0.9 row has been measured on the GPU, nor the relative criterion.
constexpr std::array kTreeGpu = {
    AccuracyPoint{0.3, 1.8e-4, 2.9e-5, 0, 18576},
    AccuracyPoint{0.4, 4.5e-4, 6.8e-5, 0, 10345},
    AccuracyPoint{0.5, 7.3e-4, 1.2e-4, 0, 6736},
    AccuracyPoint{0.6, 1.5e-3, 2.4e-4, 0, 4608},
    AccuracyPoint{0.75, 3.2e-3, 5.4e-4, 0, 2926},
};

// tree (CUDA) at N = 1 048 576: the same command with `--kernel tree --bodies 1048576` on an NVIDIA
// H100 (2026-12-07; `GPU_CHECK_PARTS=tree-anchor scripts/gpu-check.sh remote`, the log in
// docs/data/tree-anchor-h100-2026-12-07.log); work counted by treeWork on the same sphere, the
// relative criterion's with |a_old| from the geometric pre-pass at θ = 1 as at step 0.
constexpr std::array kTreeGpu1M = {
    AccuracyPoint{0.3, 3.16e-4, 4.25e-5, 0, 25461},
    AccuracyPoint{0.4, 7.47e-4, 9.61e-5, 0, 12636},
    AccuracyPoint{0.5, 1.24e-3, 1.83e-4, 0, 7860},
    AccuracyPoint{0.6, 2.11e-3, 3.30e-4, 0, 5247},
    AccuracyPoint{0.75, 4.50e-3, 7.35e-4, 0, 3255},
};
constexpr std::array kTreeGpuRelative1M = {
    AccuracyPoint{1.0, 4.45e-4, 8.14e-5, 0.0005, 5564},
    AccuracyPoint{1.0, 7.24e-4, 1.31e-4, 0.001, 4112},
    AccuracyPoint{1.0, 9.52e-4, 1.71e-4, 0.0015, 3512},
    AccuracyPoint{1.0, 1.15e-3, 2.05e-4, 0.002, 3181},
    AccuracyPoint{1.0, 1.55e-3, 2.67e-4, 0.003, 2821},
    AccuracyPoint{1.0, 2.21e-3, 3.67e-4, 0.005, 2495},
};

constexpr std::string_view kCriterion = "Bonsai (r_crit = l/theta + delta)";
constexpr std::string_view kRelative = "GADGET-2 relative (G M l^2 / d^4 <= alpha |a_old|), theta = 1 the guard";
constexpr std::string_view kRelativeGuard2 = "GADGET-2 relative (G M l^2 / d^4 <= alpha |a_old|), theta = 2 the guard";
constexpr std::string_view kPlummer = "Plummer sphere (scenario plummer, eps2 = 4e-4)";

const std::array kCalibrations = {
    ForceAccuracyCalibration{"tree-cpu", kCriterion, kPlummer, 131072, 42, 16, "CPU, 32768 sampled bodies", kTreeCpu},
    ForceAccuracyCalibration{"tree-cpu", kRelative, kPlummer, 131072, 42, 16, "CPU, 32768 sampled bodies",
                             kTreeCpuRelative},
    ForceAccuracyCalibration{"tree-cpu", kRelativeGuard2, kPlummer, 131072, 42, 16, "CPU, 32768 sampled bodies",
                             kTreeCpuRelativeGuard2},
    ForceAccuracyCalibration{"tree", kCriterion, kPlummer, 131072, 42, 16, "NVIDIA H200", kTreeGpu},
    ForceAccuracyCalibration{"tree", kCriterion, kPlummer, 1048576, 42, 16, "NVIDIA H100", kTreeGpu1M},
    ForceAccuracyCalibration{"tree", kRelative, kPlummer, 1048576, 42, 16, "NVIDIA H100", kTreeGpuRelative1M},
};

std::string sci(double v) { return formatString("%.1e", v); }
std::string thetaText(double theta) { return formatString("%g", theta); }

/// "theta = 0.5", "theta = 1, alpha = 0.004".
std::string settingText(const AccuracyPoint& pt)
{
    std::string t = "theta = " + thetaText(pt.theta);
    if (pt.alpha > 0)
        t += ", alpha = " + formatString("%g", pt.alpha);
    return t;
}

} // namespace

std::span<const ForceAccuracyCalibration> forceAccuracyCalibrations() { return kCalibrations; }

std::size_t calibrationBodies(std::string_view kernelId, std::size_t bodies)
{
    std::size_t above = 0, largest = 0;
    for (const ForceAccuracyCalibration& c : kCalibrations) {
        if (c.kernel != kernelId)
            continue;
        largest = std::max(largest, c.bodies);
        if (c.bodies >= bodies && (above == 0 || c.bodies < above))
            above = c.bodies;
    }
    return above != 0 ? above : largest;
}

const ForceAccuracyCalibration* findForceAccuracyCalibration(std::string_view kernelId, std::size_t bodies)
{
    const std::size_t n = calibrationBodies(kernelId, bodies);
    for (const ForceAccuracyCalibration& c : kCalibrations)
        if (c.kernel == kernelId && c.bodies == n)
            return &c;
    return nullptr;
}

std::vector<AccuracyPoint> accuracyChoices(std::string_view kernelId, std::size_t bodies)
{
    const std::size_t n = calibrationBodies(kernelId, bodies);
    std::vector<AccuracyPoint> all;
    for (const ForceAccuracyCalibration& c : kCalibrations)
        if (c.kernel == kernelId && c.bodies == n)
            all.insert(all.end(), c.points.begin(), c.points.end());
    // Increasing p99, and at equal p99 the cheaper first; then keep each point cheaper than every
    // more accurate one (the others cost more for no better error).
    std::sort(all.begin(), all.end(), [](const AccuracyPoint& a, const AccuracyPoint& b) {
        return a.p99 != b.p99 ? a.p99 < b.p99 : a.work < b.work;
    });
    std::vector<AccuracyPoint> front;
    for (const AccuracyPoint& pt : all)
        if (front.empty() || pt.work < front.back().work)
            front.push_back(pt);
    return front;
}

OpeningAngleChoice chooseOpeningAngle(std::string_view kernelId, double target, std::size_t bodies)
{
    if (!std::isfinite(target) || !(target > 0))
        throw std::invalid_argument("force accuracy (p99) must be positive and finite (got " + formatString("%g", target) +
                                    ")");
    const ForceAccuracyCalibration* c = findForceAccuracyCalibration(kernelId, bodies);
    const std::vector<AccuracyPoint> front = accuracyChoices(kernelId, bodies);
    if (!c || front.empty())
        throw std::invalid_argument("kernel '" + std::string(kernelId) +
                                    "' has no force-accuracy calibration: give the opening angle theta instead");
    const AccuracyPoint& first = front.front();
    if (!(first.p99 <= target))
        throw std::invalid_argument("force accuracy " + sci(target) + " is tighter than " + std::string(kernelId) +
                                    "'s calibration at " + std::to_string(c->bodies) + " bodies reaches: p99 " +
                                    sci(first.p99) + " at " + settingText(first) + ", its smallest; give the opening "
                                    "angle theta below " + thetaText(first.theta) + ", or use an all-pairs kernel");
    OpeningAngleChoice choice;
    for (const AccuracyPoint& pt : front)
        if (pt.p99 <= target)
            choice.point = pt; // increasing p99, decreasing work: the last that meets the target is the cheapest
    choice.calibrationBodies = c->bodies;
    choice.loosest = choice.point.p99 == front.back().p99 && target > front.back().p99;
    choice.note = std::string(kernelId) + ": " + settingText(choice.point) + " for force accuracy " + sci(target) +
                  " (calibrated p99 " + sci(choice.point.p99) + ", median " + sci(choice.point.median) +
                  " on a Plummer sphere of " + std::to_string(c->bodies) + " bodies)";
    if (choice.loosest)
        choice.note += "; the table's cheapest setting, whose p99 is below the target";
    choice.largerThanCalibration = bodies > c->bodies;
    if (choice.largerThanCalibration)
        // Measured with `tree` on Plummer spheres of each N (docs/tree.md, the relative criterion on a GPU).
        choice.note += "; this system has " + std::to_string(bodies) + " bodies, more than the calibration's " +
                       std::to_string(c->bodies) +
                       ", and the error grows with N (p99 at theta = 0.5: 7.3e-04 at 131072 bodies, 1.2e-03 at "
                       "1048576, 1.6e-03 at 8388608), so it can exceed the target: `nbody validate --reference "
                       "sampled` measures it";
    return choice;
}

SimParams withForceAccuracy(const KernelInfo& k, SimParams p, std::size_t bodies)
{
    if (k.method != ForceMethod::Tree || p.forceAccuracy == 0)
        return p;
    const AccuracyPoint pt = chooseOpeningAngle(k.id, p.forceAccuracy, bodies).point;
    p.openingAngle = float(pt.theta);
    p.openingAlpha = pt.alpha;
    return p;
}

} // namespace nbody
