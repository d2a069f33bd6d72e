#pragma once
/// \file DiagnosticSums.h
/// The fp64 sums over the bodies from which every diagnostic follows (sim/core/Diagnostics.h):
/// what the host loop and the device reduction (kernels/DiagnosticsKernels.h) both produce.

#include "contracts/Types.h"

namespace nbody {

/// The sums over the bodies from which every diagnostic follows (finishDiagnostics), in fp64.
/// Positions r and velocities v in length and length / time units, masses m in mass units.
struct DiagnosticSums {
    double mass = 0.0;       ///< M = Σ m
    Double3 massMoment;      ///< Σ m r (centre of mass = Σ m r / M)
    double kinetic = 0.0;    ///< K = ½ Σ m v²
    Double3 momentum;        ///< P = Σ m v
    Double3 angularMomentum; ///< L = Σ m r × v (about the origin)
    double pairSum = 0.0;    ///< Σ_{i<j} −m_i m_j / sqrt(|r_i − r_j|² + ε²): W without the factor G
};

} // namespace nbody
