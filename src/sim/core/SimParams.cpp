#include "sim/core/SimParams.h"
#include "contracts/Tree.h"

#include <cmath>
#include <sstream>

namespace nbody {

std::string reverseProblem(const SimParams& p)
{
    if (p.reverse && p.timestep == "block")
        return "time cannot run backwards with block time steps: a body changes level at the end of its own "
               "step, so the steps taken forwards are not retraced backwards (the scheme is not "
               "time-symmetric): use --timestep fixed to reverse";
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
