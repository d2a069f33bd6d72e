#include "sim/core/BlockSteps.h"
#include "sim/core/SimParams.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace nbody {

double criterionStep(double eta, double eps2, double accelerationMagnitude, double rMin)
{
    const double length = eps2 > 0 ? std::sqrt(eps2) : rMin;
    if (!(accelerationMagnitude > 0))
        return std::numeric_limits<double>::infinity(); // no force: the largest step
    return eta * std::sqrt(length / accelerationMagnitude);
}

int firstActiveLevel(std::uint64_t tick, int maxLevels)
{
    return std::max(0, maxLevels - std::countr_zero(tick));
}

int BlockLevels::deepest() const
{
    for (int k = kMaxBlockLevels; k > 0; --k)
        if (histogram[std::size_t(k)] > 0)
            return k;
    return 0;
}

void BlockLevels::selectActive(int minLevel)
{
    active.clear();
    const std::size_t n = level.size();
    for (std::size_t i = 0; i < n; ++i)
        if (level[i] >= minLevel)
            active.push_back(std::uint32_t(i));
}

void BlockLevels::countLevels()
{
    histogram.fill(0);
    for (const std::uint8_t k : level)
        ++histogram[k];
}

std::string levelHistogramText(const BlockLevels& b)
{
    std::string s;
    for (std::size_t k = 0; k < b.histogram.size(); ++k)
        if (b.histogram[k] > 0) {
            if (!s.empty())
                s += ' ';
            s += std::to_string(k) + ':' + std::to_string(b.histogram[k]);
        }
    return s;
}

bool blockSteps(const SimParams& p)
{
    return p.timestep == "block";
}

std::string blockStepsProblem(const SimParams& p)
{
    if (!blockSteps(p))
        return {};
    if (p.integrator != "leapfrog")
        return "block time steps take the KDK leapfrog's individual steps (GADGET-2's scheme); integrator '" +
               p.integrator + "' composes whole steps of every body and is not combined with them: use "
                              "--integrator leapfrog or --timestep fixed";
    return {};
}

} // namespace nbody
