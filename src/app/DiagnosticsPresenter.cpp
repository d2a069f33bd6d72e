#include "DiagnosticsPresenter.h"

#include "DiagnosticsDock.h"
#include "SimulationController.h"

namespace nbody::app {

DiagnosticsPresenter::DiagnosticsPresenter(QObject* parent, DiagnosticsDock* dock, SimulationController* c)
    : QObject(parent)
{
    connect(dock, &DiagnosticsDock::intervalEdited, c, &SimulationController::setDiagnosticsInterval);
    connect(c, &SimulationController::diagnosticsMeasured, dock, &DiagnosticsDock::appendDiagnostics);
    connect(c, &SimulationController::diagnosticsRestarted, dock, &DiagnosticsDock::restart);
    connect(c, &SimulationController::paramsChanged, dock, &DiagnosticsDock::setParams);
}

} // namespace nbody::app
