#pragma once
/// \file ValidationPresenter.h
/// The Validation dock, bound to the SimulationController.

#include <QObject>

namespace nbody::app {

class SimulationController;
class ValidationDock;

/// Connects the dock's request for a copy of the running system to
/// SimulationController::requestValidationSystem and the answer back (validationSystemReady, or
/// a commandFailed for "validation system"), and keeps the dock on the running kernel, the
/// parameters and N that it offers to check.
class ValidationPresenter : public QObject {
    Q_OBJECT
public:
    ValidationPresenter(QObject* parent, ValidationDock* dock, SimulationController* controller);
};

} // namespace nbody::app
