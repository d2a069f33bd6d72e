#pragma once
// The two-body Kepler orbit the integrator tests share: closed-form period and pericentre.

#include "sim/core/Models.h"

#include <cmath>
#include <numbers>
#include <utility>

namespace nbody::test {

/// A Kepler orbit of two bodies with G = 1, total mass M = 4π² (m1 = 0.6 M, m2 = 0.4 M),
/// semi-major axis a = 1 and eccentricity e, so that the period T = 2π sqrt(a³ / (G M)) = 1 and
/// time steps 1/2^k are exact in fp32 (the simulated time lands on whole periods). Starts at
/// pericentre on the x axis, in the centre-of-mass frame: r_p = a (1 − e),
/// v_p = sqrt(G M / a · (1 + e) / (1 − e)) (relative speed).
inline constexpr double kKeplerMass = 4 * std::numbers::pi * std::numbers::pi;

inline double keplerPericentreSpeed(double e)
{
    return std::sqrt(kKeplerMass * (1.0 + e) / (1.0 - e));
}

inline ModelBodies kepler(double e)
{
    const double M = kKeplerMass, m1 = 0.6 * M, m2 = 0.4 * M;
    const double rp = 1.0 - e, vp = keplerPericentreSpeed(e);
    Fp64State s;
    s.position = {{-m2 / M * rp, 0, 0, m1}, {m1 / M * rp, 0, 0, m2}};
    s.velocity = {{0, -m2 / M * vp, 0, 0}, {0, m1 / M * vp, 0, 0}};
    return fromFp64(std::move(s));
}

} // namespace nbody::test
