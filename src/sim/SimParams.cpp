#include "SimParams.h"

#include <sstream>

namespace nbody {

std::string describe(const SimParams& p)
{
    std::ostringstream s;
    s << "G=" << p.G << " eps2=" << p.eps2 << " dt=" << p.dt << " block=" << p.blockSize
      << " tile x" << p.tileWidthFactor << " rows=" << p.blockRows << " integrator=" << p.integrator;
    return s.str();
}

} // namespace nbody
