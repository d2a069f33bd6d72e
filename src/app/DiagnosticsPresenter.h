#pragma once
/// \file DiagnosticsPresenter.h
/// The Diagnostics dock, bound to the SimulationController.

#include <QObject>

namespace nbody::app {

class DiagnosticsDock;
class SimulationController;

/// Connects the dock's interval edit to SimulationController::setDiagnosticsInterval, and the
/// controller's samples, restarts (a new system) and parameters to the dock's charts.
class DiagnosticsPresenter : public QObject {
    Q_OBJECT
public:
    DiagnosticsPresenter(QObject* parent, DiagnosticsDock* dock, SimulationController* controller);
};

} // namespace nbody::app
