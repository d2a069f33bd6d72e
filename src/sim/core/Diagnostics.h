#pragma once
/// \file Diagnostics.h
/// Conserved quantities and global properties of a system: kinetic, potential and total energy,
/// the relative energy change since t = 0, linear and angular momentum, the centre of mass and
/// its velocity, and the virial ratio 2K/|W|. All are evaluated in fp64 from a few sums over the
/// bodies (DiagnosticSums): on the host with OpenMP (measureDiagnostics) or on the GPU without
/// copying the state back (kernels/DiagnosticsKernels.h, through DeviceState::measure).

#include "sim/core/KernelRegistry.h"
#include "contracts/DiagnosticSums.h"
#include "contracts/World.h"

#include <cstdint>
#include <span>

namespace nbody {

struct Diagnostics {
    double kinetic = 0.0;      ///< K = ½ Σ m v², mass length² time⁻²
    double potential = 0.0;   ///< W = −G Σ_{i<j} m_i m_j / sqrt(r² + ε²) (softened, as the forces)
    double total = 0.0;       ///< E = K + W
    /// (E + energyLost − E0 − energyLost0) / |E0|, E0 the first evaluation of the system
    /// (Simulation: after it was created, loaded, reset, or G / ε² changed) and energyLost0 its
    /// energyLost; without merges (E − E0) / |E0|, the integration error. 0 for that evaluation,
    /// for an evaluation on request before any, and when E0 = 0.
    double energyChange = 0.0;
    /// Energy removed by the collision system's merges since the system was set (cumulative,
    /// energy units): Σ (E_before − E_after) over every merge (−Σ MergeRecord::energyChange), so
    /// E + energyLost is what the integrator conserves. Can be negative: a merge also removes the
    /// pair's (negative) mutual potential. 0 without collisions.
    double energyLost = 0.0;
    Double3 momentum;         ///< P = Σ m v, mass length time⁻¹
    Double3 angularMomentum;  ///< L = Σ m r × v about the origin, mass length² time⁻¹
    double mass = 0.0;        ///< M = Σ m
    Double3 centreOfMass;     ///< Σ m r / M (0 when M = 0), length
    Double3 centreOfMassVelocity; ///< P / M (0 when M = 0), length time⁻¹
    double virialRatio = 0.0; ///< 2K / |W|: 1 in virial equilibrium; 0 when W = 0 (a single body)
    double time = 0.0;        ///< simulated time of the evaluation
    std::uint64_t step = 0;   ///< step of the evaluation
};

/// The largest relative energy change |ΔE/E₀| (the merges' energy counted in, as in
/// Diagnostics::energyChange) with which a run is still trusted: `nbody run` warns above it (the
/// default of its --energy-tolerance), and so does the app over the whole run.
inline constexpr double kEnergyTolerance = 1e-2;

/// The sums of N bodies on the host (fp64, OpenMP; O(N²) for the pair sum, pairs i < j).
/// pos: N (x, y, z, m), vel: N (vx, vy, vz, ·), Float4 or Double4 columns of equal length.
/// [iBegin, iEnd) (default all; kAllRows = N): the sums of those bodies i only, with the pairs
/// (i, j > i) — the rows of all processes of a distributed run add up to the whole (in another
/// order). Throws std::invalid_argument for unequal lengths or a range outside the N bodies.
DiagnosticSums measureSums(const std::vector<Float4>& pos, const std::vector<Float4>& vel, double eps2,
                           std::size_t iBegin = 0, std::size_t iEnd = kAllRows);
DiagnosticSums measureSums(const std::vector<Double4>& pos, const std::vector<Double4>& vel, double eps2,
                           std::size_t iBegin = 0, std::size_t iEnd = kAllRows);
/// Adds every sum of b to a's (fp64).
DiagnosticSums& operator+=(DiagnosticSums& a, const DiagnosticSums& b);

/// Every diagnostic from the sums, with gravitational constant G (time, step and energyChange
/// left at 0).
Diagnostics finishDiagnostics(const DiagnosticSums& sums, double G);

/// Evaluates the diagnostics of `world` on the host (O(N²), fp64) at its time and step.
Diagnostics measureDiagnostics(const World& world, double G, double eps2);
/// The same for the fp64 state of an fp64 kernel, at simulated `time` and `step`.
Diagnostics measureDiagnostics(const Fp64State& state, double time, std::uint64_t step, double G, double eps2);

/// Relative energy change with the merges' energy accounted for,
/// ((E + energyLost) − (E0 + energyLost0)) / |E0|; 0 when E0 is 0.
double relativeEnergyChange(const Diagnostics& initial, const Diagnostics& now);

/// The largest relative energy change |ΔE/E₀| over the evaluations of a run, and where it was:
/// what an energy tolerance is checked against. A run can end close to E₀ after a large
/// excursion (an eccentric orbit's pericentre passage with a step too large for it comes back
/// to within 1e-4 of E₀ after reaching 0.5), so the end alone says too little. A non-finite
/// change is the maximum from then on: it exceeds every tolerance. The one running maximum of the
/// command-line tool (`nbody run`, `nbody render`) and of anything else that checks a tolerance.
struct EnergyChangeMaximum {
    double magnitude = 0.0;    ///< max |ΔE/E₀| so far (NaN from the first non-finite change on)
    double change = 0.0;       ///< ΔE/E₀ (signed) at that evaluation
    double time = 0.0;         ///< simulated time of that evaluation
    std::uint64_t step = 0;    ///< its step
    std::size_t evaluations = 0; ///< evaluations seen (E₀'s included when it was added)

    /// Takes one evaluation's relative change (Diagnostics::energyChange, or relativeEnergyChange).
    void add(double relativeChange, double atTime, std::uint64_t atStep);
    void add(const Diagnostics& d) { add(d.energyChange, d.time, d.step); }
    /// True when the maximum is above `tolerance` or not finite.
    bool exceeds(double tolerance) const { return !(magnitude <= tolerance); }
};

/// The running maximum over a series of evaluations (DiagnosticsRecorder::samples(), each
/// energyChange relative to the series' first).
EnergyChangeMaximum energyChangeMaximum(std::span<const Diagnostics> series);

} // namespace nbody
