#pragma once
/// \file Diagnostics.h
/// Conserved quantities of a system, evaluated in fp64 on the host (OpenMP).

#include "Types.h"
#include "World.h"

namespace nbody {

struct Diagnostics {
    double kinetic = 0.0;   ///< K = ½ Σ m v², mass length² time⁻²
    double potential = 0.0; ///< W = −G Σ_{i<j} m_i m_j / sqrt(r² + ε²) (softened, as the forces)
    double total = 0.0;     ///< E = K + W
    Double3 momentum;       ///< P = Σ m v
    double time = 0.0;      ///< simulated time of the evaluation
    std::uint64_t step = 0; ///< step of the evaluation
};

/// Evaluates K, W, E and P of `world` (O(N²) for W, pairs i < j, fp64).
Diagnostics measureDiagnostics(const World& world, double G, double eps2);
/// The same for the fp64 state of an fp64 kernel, at simulated `time` and `step`.
Diagnostics measureDiagnostics(const Fp64State& state, double time, std::uint64_t step, double G, double eps2);

/// Relative energy change (E − E0) / |E0|; 0 when E0 is 0.
double relativeEnergyChange(const Diagnostics& initial, const Diagnostics& now);

} // namespace nbody
