#include "SimParams.h"

#include <sstream>

namespace nbody {

std::string describe(const SimParams& p)
{
    std::ostringstream s;
    const auto launch = [](int v) { return v > 0 ? std::to_string(v) : std::string("auto"); };
    s << "G=" << p.G << " eps2=" << p.eps2 << " dt=" << p.dt << " block=" << launch(p.blockSize)
      << (p.tileWidthFactor > 0 ? " tile x" : " tile ") << launch(p.tileWidthFactor) << " rows=" << launch(p.blockRows) << " i/thread=" << launch(p.bodiesPerThread)
      << " j-split=" << launch(p.jSplit) << " unroll=" << launch(p.unroll) << " integrator=" << p.integrator;
    if (!p.cudaGraphs)
        s << " cuda-graphs=off";
    return s.str();
}

} // namespace nbody
