#include "sim/core/Integrators.h"
#include "sim/base/Registry.h"

#include <array>
#include <cmath>
#include <stdexcept>

namespace nbody {

namespace {

constexpr std::array<double, 1> kLeapfrogWeights{1.0};

// Yoshida (1990), eq. 4.14: w1 = 1 / (2 − 2^{1/3}), w0 = 1 − 2 w1 = −2^{1/3} / (2 − 2^{1/3}).
// 2^{1/3} = 1.2599210498948731647672106...; the values below are the correctly rounded doubles.
constexpr double kCbrt2 = 1.2599210498948731647672106;
constexpr double kYoshidaW1 = 1.0 / (2.0 - kCbrt2);
constexpr double kYoshidaW0 = -kCbrt2 / (2.0 - kCbrt2);
constexpr std::array<double, 3> kYoshidaWeights{kYoshidaW1, kYoshidaW0, kYoshidaW1};

const std::array<IntegratorInfo, 2> kIntegrators{{
    {"leapfrog", "KDK leapfrog",
     "Kick-drift-kick leapfrog (Verlet): one force evaluation per step, second order (energy error "
     "~ dt^2), symplectic and time-reversible. The default.",
     2, kLeapfrogWeights},
    {"yoshida4", "Yoshida 4th order",
     "Yoshida's (1990) fourth-order symplectic composition of three KDK leapfrog substeps with "
     "weights w1 = 1/(2 - 2^(1/3)), w0 = -2^(1/3)/(2 - 2^(1/3)), w1: three force evaluations per "
     "step, energy error ~ dt^4. Worth it when high accuracy is wanted (orbits, few bodies).",
     4, kYoshidaWeights},
}};

} // namespace

std::span<const IntegratorInfo> integratorRegistry()
{
    return kIntegrators;
}

const IntegratorInfo* findIntegrator(std::string_view id)
{
    return findById(kIntegrators, id);
}

std::string knownIntegratorIds()
{
    return joinIds(kIntegrators);
}

const IntegratorInfo& integratorOrThrow(std::string_view id)
{
    if (const IntegratorInfo* i = findIntegrator(id))
        return *i;
    throw std::invalid_argument("unknown integrator '" + std::string(id) + "' (known: " + knownIntegratorIds() + ")");
}

} // namespace nbody
