#pragma once
/// \file DiagnosticsPresenter.h
/// The Diagnostics dock, bound to the SimulationController, and the check of the run's energy.

#include "FrameProtocol.h" // the metatypes of nbody::SimParams and nbody::Diagnostics

#include "sim/core/Diagnostics.h"

#include <QList>
#include <QObject>
#include <QString>

namespace nbody::app {

class DiagnosticsDock;
class Notices;
class SimulationController;

/// Connects the dock's interval edit to SimulationController::setDiagnosticsInterval, and the
/// controller's samples, restarts (a new system), re-based E₀ (markers at the time of a change
/// of G or ε² or of an edit of the bodies) and parameters to the dock's charts.
///
/// It also checks the run's energy as `nbody run` does, over the whole run rather than at its
/// end: the running maximum of |ΔE/E₀| over every evaluation since the system was set (the
/// merges' energy counted in, Diagnostics::energyChange; kept across a re-based E₀ after a change
/// of G or ε²). Above nbody::kEnergyTolerance, the first time for a system, a non-modal warning
/// (Notices::report: stderr in a scripted run) says that the run is not to be trusted and what
/// to do; the dock shows the warning above its charts, with the maximum so far, until the next
/// system or Reset.
class DiagnosticsPresenter : public QObject {
    Q_OBJECT
public:
    DiagnosticsPresenter(QObject* parent, DiagnosticsDock* dock, SimulationController* controller, Notices& notices);

    /// The warning's text for a maximum |ΔE/E₀| of `change` (signed) reached at `time`, `step`,
    /// with the run's `params` (its dt and ε² in the advice).
    static QString energyWarningText(double change, double time, qulonglong step, const nbody::SimParams& params);

private:
    void check(const QList<nbody::Diagnostics>& samples);
    void restart();

    DiagnosticsDock* m_dock;
    Notices& m_notices;
    nbody::SimParams m_params;
    nbody::EnergyChangeMaximum m_max; ///< the running maximum of |ΔE/E₀| since the system was set
    bool m_exceeded = false;   ///< the warning was given for this system
};

} // namespace nbody::app
