#pragma once
/// \file NiceNumber.h
/// "Nice" numbers for axis ticks (P. Heckbert, "Nice numbers for graph labels", Graphics Gems,
/// 1990): the charts of the app (ChartAxes) and of the validation report share them.

#include <cmath>

namespace nbody {

/// A number of the form 1, 2, 5 × 10^k near x > 0: the nearest (round) or the next one up.
inline double niceNumber(double x, bool round)
{
    const double e = std::floor(std::log10(x));
    const double f = x / std::pow(10.0, e);
    double nf;
    if (round)
        nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
    else
        nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
    return nf * std::pow(10.0, e);
}

} // namespace nbody
