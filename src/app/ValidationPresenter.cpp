#include "ValidationPresenter.h"

#include "SimulationController.h"
#include "ValidationDock.h"

namespace nbody::app {

ValidationPresenter::ValidationPresenter(QObject* parent, ValidationDock* dock, SimulationController* c)
    : QObject(parent)
{
    connect(dock, &ValidationDock::systemRequested, c, &SimulationController::requestValidationSystem);
    connect(c, &SimulationController::validationSystemReady, dock, &ValidationDock::setSystem);
    connect(c, &SimulationController::commandFailed, dock, [dock](const QString& what, const QString& why) {
        if (what == QLatin1String("validation system"))
            dock->systemFailed(why);
    });
    connect(c, &SimulationController::bodiesChanged, dock, &ValidationDock::setBodies);
    connect(c, &SimulationController::kernelChanged, dock, &ValidationDock::setKernel);
    connect(c, &SimulationController::paramsChanged, dock, &ValidationDock::setParams);
}

} // namespace nbody::app
