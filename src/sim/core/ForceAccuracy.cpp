#include "sim/core/ForceAccuracy.h"
#include "sim/base/Format.h"

#include <array>
#include <cmath>
#include <stdexcept>

namespace nbody {

namespace {

// tree-cpu: measured with `nbody validate --kernel tree-cpu --scenario plummer --theta T
// --bodies 131072 --steps 1 --reference sampled` (32 768 sampled bodies against all N in fp64;
// CPU, GCC 12, Release, leaf size 16).
constexpr std::array kTreeCpu = {
    AccuracyPoint{0.2, 4.00e-5, 7.13e-6},
    AccuracyPoint{0.3, 1.80e-4, 2.92e-5},
    AccuracyPoint{0.4, 4.57e-4, 6.83e-5},
    AccuracyPoint{0.5, 7.68e-4, 1.21e-4},
    AccuracyPoint{0.6, 1.62e-3, 2.42e-4},
    AccuracyPoint{0.75, 3.31e-3, 5.46e-4},
    AccuracyPoint{0.9, 5.29e-3, 1.00e-3},
};

// tree (CUDA): measured with the same command and `--kernel tree` on an NVIDIA H200 (N = 131 072,
// leaf size 16). No θ = 0.2 or 0.9 row has been measured on the GPU.
constexpr std::array kTreeGpu = {
    AccuracyPoint{0.3, 1.8e-4, 2.9e-5},
    AccuracyPoint{0.4, 4.5e-4, 6.8e-5},
    AccuracyPoint{0.5, 7.3e-4, 1.2e-4},
    AccuracyPoint{0.6, 1.5e-3, 2.4e-4},
    AccuracyPoint{0.75, 3.2e-3, 5.4e-4},
};

constexpr std::string_view kCriterion = "Bonsai (r_crit = l/theta + delta)";
constexpr std::string_view kPlummer = "Plummer sphere (scenario plummer, eps2 = 4e-4)";

const std::array kCalibrations = {
    ForceAccuracyCalibration{"tree-cpu", kCriterion, kPlummer, 131072, 42, 16, "CPU, 32768 sampled bodies", kTreeCpu},
    ForceAccuracyCalibration{"tree", kCriterion, kPlummer, 131072, 42, 16, "NVIDIA H200", kTreeGpu},
};

std::string sci(double v) { return formatString("%.1e", v); }
std::string thetaText(double theta) { return formatString("%g", theta); }

} // namespace

std::span<const ForceAccuracyCalibration> forceAccuracyCalibrations() { return kCalibrations; }

const ForceAccuracyCalibration* findForceAccuracyCalibration(std::string_view kernelId)
{
    for (const ForceAccuracyCalibration& c : kCalibrations)
        if (c.kernel == kernelId)
            return &c;
    return nullptr;
}

OpeningAngleChoice chooseOpeningAngle(std::string_view kernelId, double target)
{
    if (!std::isfinite(target) || !(target > 0))
        throw std::invalid_argument("force accuracy (p99) must be positive and finite (got " + formatString("%g", target) +
                                    ")");
    const ForceAccuracyCalibration* c = findForceAccuracyCalibration(kernelId);
    if (!c || c->points.empty())
        throw std::invalid_argument("kernel '" + std::string(kernelId) +
                                    "' has no force-accuracy calibration: give the opening angle theta instead");
    const AccuracyPoint& first = c->points.front();
    if (!(first.p99 <= target))
        throw std::invalid_argument("force accuracy " + sci(target) + " is tighter than " + std::string(kernelId) +
                                    "'s calibration reaches: p99 " + sci(first.p99) + " at theta = " +
                                    thetaText(first.theta) + ", its smallest; give the opening angle theta below " +
                                    thetaText(first.theta) + ", or use an all-pairs kernel");
    OpeningAngleChoice choice;
    for (const AccuracyPoint& pt : c->points)
        if (pt.p99 <= target)
            choice.point = pt; // increasing θ: the last that meets the target is the largest
    choice.loosest = choice.point.theta == c->points.back().theta && target > c->points.back().p99;
    choice.note = std::string(kernelId) + ": theta = " + thetaText(choice.point.theta) + " for force accuracy " +
                  sci(target) + " (calibrated p99 " + sci(choice.point.p99) + ", median " + sci(choice.point.median) +
                  " on a Plummer sphere of " + std::to_string(c->bodies) + " bodies)";
    if (choice.loosest)
        choice.note += "; the table's largest theta, whose p99 is below the target";
    return choice;
}

SimParams withForceAccuracy(const KernelInfo& k, SimParams p)
{
    if (k.method != ForceMethod::Tree || p.forceAccuracy == 0)
        return p;
    p.openingAngle = float(chooseOpeningAngle(k.id, p.forceAccuracy).point.theta);
    return p;
}

} // namespace nbody
