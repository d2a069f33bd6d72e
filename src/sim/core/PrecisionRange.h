#pragma once
/// \file PrecisionRange.h
/// Whether a system and its parameters fit the arithmetic of a kernel's precision: the pairwise
/// interaction (contracts/Interaction.h) forms r² = |x_j − x_i|² + ε², 1/(r²)^{3/2}, m_j/(r²)^{3/2}
/// and G · Σ, each of which must stay between the precision's smallest normal and largest
/// value. In fp32 (largest 3.4e38, smallest normal 1.2e-38) that fails long before the
/// positions themselves do: two bodies at ±1e19 give r² = 4e38 (infinity), at ±5e18 a 1/r³ of
/// 1e-57 (0: no force at all), positions of 1e-20 with ε² = 1e-30 a 1/r³ of 1e45 (infinity).
/// Checked before the first step, so the user hears about the precision (and the fp64 rows or
/// rescaled units, docs/units.md) instead of about the time step when the state turns non-finite.

#include "contracts/ForceArgs.h"
#include "contracts/World.h"

#include <string>
#include <string_view>
#include <vector>

namespace nbody {

struct SimParams;

/// The quantities of `world` with parameters `p` that fall outside the range of `precision`,
/// one sentence each, naming the quantity, its value and the limit ("coordinate differences up
/// to 2e+19: r² = 4e+38 exceeds fp32's largest value, 3.4e+38 (it overflows to infinity)").
/// Checks: the largest r² (the bounding box's diagonal) against the largest value; 1/r³ at the
/// largest separation against the smallest normal (forces between distant bodies lose precision,
/// then come out 0); 1/(r² + ε²)^{3/2} and m/(r² + ε²)^{3/2} at the smallest softened separation
/// against the largest value; G · m / (r² + ε²) there; G itself. The smallest separation is exact
/// (fp64, all pairs) up to 4096 bodies and estimated above (neighbours in x order). Empty when
/// everything fits.
std::vector<std::string> precisionRangeProblems(const World& world, const SimParams& p, Precision precision);

/// The largest mass a body may be given with parameters `p` in `precision`: its pull at the
/// softened limit of no separation stays within the precision's range (m/ε³ and G·m/ε² at most
/// its largest value, as precisionRangeProblems() checks them), and the mass itself fits the
/// fp32 mass column (at most 3.4e38). With the default G = 1 and ε² = 0.002 in fp32: 3.4e38 ·
/// 0.002^{3/2} ≈ 3.0e34. Without softening (ε² = 0) only the column's limit.
double largestBodyMass(const SimParams& p, Precision precision);

/// Which column of `world` is not finite, the first in the order a step computes them:
/// "accelerations", "velocities", "positions" or "masses"; "" when all are finite.
std::string firstNonFiniteColumn(const World& world);

/// The ids of the registry's fp64 rows, "reference, tiled-fp64, …" (what to suggest instead).
std::string fp64KernelIds();

/// "fp32" or "fp64".
const char* precisionName(Precision precision);

/// The warning for one of precisionRangeProblems() with kernel `kernelId` of `precision`, what
/// `nbody run` prints and the app shows: "fp32 range: <problem>; kernel 'cpu' computes in fp32:
/// use an fp64 kernel (reference, tiled-fp64) or rescaled units (docs/units.md)".
std::string precisionRangeWarning(const std::string& problem, std::string_view kernelId, Precision precision);

/// Why a state turned non-finite when precisionRangeProblems() named `problem` before: "the fp32
/// range was exceeded, not a time-step problem: <problem>; use an fp64 kernel (reference, …) or
/// rescaled units".
std::string precisionRangeCause(const std::string& problem, Precision precision);

} // namespace nbody
