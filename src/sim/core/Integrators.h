#pragma once
/// \file Integrators.h
/// The integrator registry: time integrators as rows of one table (REBOUND's list of
/// integrators: a table, not a ladder of `if`s). `nbody integrators`, `nbody run --integrator`,
/// the app's Integrator menu and the tests all read it.
///
/// Every row is a symmetric composition of KDK leapfrog substeps: one step of length dt is the
/// substeps w_1·dt, w_2·dt, …, w_k·dt, each a full kick-drift-kick
///
///     v += ½ a(x) w_i dt;   x += v w_i dt;   a = F(x);   v += ½ a(x) w_i dt
///
/// with Σ w_i = 1, so a step costs k force evaluations. Leapfrog itself is the row with the one
/// weight 1 (second order: the energy error scales as dt²). Yoshida's fourth-order integrator
/// (H. Yoshida, "Construction of higher order symplectic integrators", Phys. Lett. A 150, 262,
/// 1990, eq. 4.14; the same as Forest & Ruth 1990) takes three substeps with
///
///     w1 = 1 / (2 − 2^{1/3}),   w0 = −2^{1/3} / (2 − 2^{1/3}),   weights (w1, w0, w1),
///
/// which cancels the dt³ error term of the symmetric product; its energy error scales as dt⁴.
/// Both are symplectic and time-reversible. Because the substeps are plain KDK steps of any
/// length (also negative: w0 ≈ −1.70), the composition runs with every force kernel, on the
/// host and on the device.

#include <span>
#include <string>
#include <string_view>

namespace nbody {

/// One row of the integrator registry.
struct IntegratorInfo {
    std::string_view id;          ///< stable identifier used by the CLI, the app and scenario files
    std::string_view name;        ///< human-readable name
    std::string_view description; ///< one paragraph (tooltip, `nbody integrators`)
    int order;                    ///< order of accuracy: the global error scales as dt^order
    std::span<const double> weights; ///< KDK leapfrog substep lengths in units of dt (sum 1)
};

/// Every integrator, in menu order; the first is the default (`leapfrog`).
std::span<const IntegratorInfo> integratorRegistry();
/// The row with this id, or nullptr.
const IntegratorInfo* findIntegrator(std::string_view id);
/// "leapfrog, yoshida4": the known ids, for error messages.
std::string knownIntegratorIds();
/// The row with this id; throws std::invalid_argument "unknown integrator 'x' (known: …)".
const IntegratorInfo& integratorOrThrow(std::string_view id);

} // namespace nbody
