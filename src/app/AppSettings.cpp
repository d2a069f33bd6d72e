/// \file AppSettings.cpp
/// The remembered start (see AppSettings.h).

#include "AppSettings.h"

#include "SimulationController.h"

#include "sim/core/KernelRegistry.h"
#include "sim/core/Scenario.h"
#include "sim/io/Scenarios.h"

#include <QFileInfo>
#include <QSettings>

namespace nbody::app {

namespace {

/// A scenario's registry id, or a scenario file (as the command line tells them apart).
bool isScenarioFile(const QString& scenario)
{
    return !findScenario(scenario.toStdString()) && scenario.endsWith(QLatin1String(".json"), Qt::CaseInsensitive);
}

} // namespace

void applyRememberedStart(StartupConfig& config, const QSettings& settings)
{
    if (!config.kernelGiven) {
        const QString id = settings.value(QLatin1String(settingsKey::kKernel)).toString();
        if (const KernelInfo* k = id.isEmpty() ? nullptr : findKernel(id.toStdString()); k && availability(*k).available)
            config.kernelId = id;
    }
    if (!config.scenario.isEmpty() || !config.inputFile.isEmpty())
        return;
    const QString scenario = settings.value(QLatin1String(settingsKey::kScenario)).toString();
    if (scenario.isEmpty())
        return;
    if (isScenarioFile(scenario) ? !QFileInfo(scenario).isFile() : !findScenario(scenario.toStdString()))
        return; // gone (a file) or no longer in the registry: the default start system
    config.scenario = scenario;
    bool ok = false;
    const qulonglong bodies = settings.value(QLatin1String(settingsKey::kBodies)).toULongLong(&ok);
    if (!config.bodiesGiven && ok && bodies >= 1 && bodies <= kMaxBodies) {
        config.bodies = bodies;
        config.bodiesGiven = true;
    }
}

} // namespace nbody::app
