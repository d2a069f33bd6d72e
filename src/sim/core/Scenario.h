#pragma once
/// \file Scenario.h
/// Generators of initial systems.

#include "sim/core/SimParams.h"
#include "contracts/World.h"
#include "sim/base/Progress.h"

#include <string>

namespace nbody {

/// The predecessor's default system: `p.bodies` bodies with positions uniform
/// in [−halfWidth, halfWidth]³, masses uniform in [massMin, massMax], at rest. Deterministic
/// for a given seed on every platform (SplitMix64-seeded xoshiro256** — not std:: distributions,
/// whose output is implementation-defined). Throws std::invalid_argument for N = 0, N above
/// kMaxBodies, a non-positive width or an empty / negative mass range.
/// `progress`: checked every 4096 bodies (Progress.h: throws Cancelled when stopped).
World makeUniformCube(const CubeParams& p, const Progress& progress = {});

/// The largest N any generator or reader accepts (2^28 bodies, 16 GiB of fp32 state columns):
/// larger requests are refused with a message rather than failing an allocation.
inline constexpr std::size_t kMaxBodies = std::size_t(1) << 28;

/// Default time step and softening for a system with no parameters of its own (a loaded
/// file). Rule (docs/units.md): with M the total mass, R the RMS distance of the bodies from the
/// centre of mass and t_dyn = sqrt(R³ / (G M)) the dynamical time,
///     dt = t_dyn / 1000,   ε = R · N^(−1/3) / 4   (a quarter of the mean inter-particle spacing)
/// and ε² = ε². Throws std::invalid_argument for an empty system or zero total mass.
struct ScaleDefaults {
    float dt;
    float eps2;
    double rmsRadius;     ///< R, length units
    double totalMass;     ///< M, mass units
    double dynamicalTime; ///< t_dyn, time units
    /// Empty, or why dt (eps2) is not what the rule gives: the value overflows to infinity or
    /// underflows to 0 in fp32 ("dt derived from the system's scale (…) is 3.5e+41: the scale is
    /// outside fp32's range …"). The front end reports it unless the user gives the parameter.
    std::string dtProblem, eps2Problem;
};
ScaleDefaults deriveScaleDefaults(const World& world, double G);

} // namespace nbody
