#include "SimParams.h"
#include "Tree.h"

#include <cmath>

#include <sstream>

namespace nbody {

std::string describe(const SimParams& p)
{
    std::ostringstream s;
    const auto launch = [](int v) { return v > 0 ? std::to_string(v) : std::string("auto"); };
    s << "G=" << p.G << " eps2=" << p.eps2 << " dt=" << p.dt << " block=" << launch(p.blockSize)
      << (p.tileWidthFactor > 0 ? " tile x" : " tile ") << launch(p.tileWidthFactor) << " rows=" << launch(p.blockRows) << " i/thread=" << launch(p.bodiesPerThread)
      << " j-split=" << launch(p.jSplit) << " unroll=" << launch(p.unroll) << " integrator=" << p.integrator;
    s << " theta=" << p.openingAngle << " leaf=" << p.leafSize;
    if (!p.cudaGraphs)
        s << " cuda-graphs=off";
    if (p.exchangeChunks > 0)
        s << " exchange-chunks=" << p.exchangeChunks;
    if (p.reverse)
        s << " reverse";
    return s.str();
}

std::string reverseProblem(const SimParams& p)
{
    if (p.reverse && p.collisions)
        return "time cannot run backwards while the collision system merges bodies (a merge cannot be "
               "undone): turn collisions off to reverse";
    return {};
}

std::string treeParamsProblem(double theta, int leafSize)
{
    std::ostringstream s;
    if (!std::isfinite(theta) || !(theta > 0) || theta > kMaxOpeningAngle)
        s << "opening angle theta = " << theta << " is outside (0, " << kMaxOpeningAngle << "]";
    else if (leafSize < 1 || leafSize > tree::kMaxLeafSize)
        s << "leaf size " << leafSize << " is outside 1.." << tree::kMaxLeafSize;
    return s.str();
}

} // namespace nbody
