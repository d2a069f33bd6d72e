#include "DiagnosticsPresenter.h"

#include "DiagnosticsDock.h"
#include "Notices.h"
#include "SimulationController.h"

#include "sim/core/Diagnostics.h"

#include <cmath>

namespace nbody::app {

DiagnosticsPresenter::DiagnosticsPresenter(QObject* parent, DiagnosticsDock* dock, SimulationController* c,
                                           Notices& notices)
    : QObject(parent), m_dock(dock), m_notices(notices)
{
    connect(dock, &DiagnosticsDock::intervalEdited, c, &SimulationController::setDiagnosticsInterval);
    connect(c, &SimulationController::diagnosticsMeasured, dock, &DiagnosticsDock::appendDiagnostics);
    connect(c, &SimulationController::diagnosticsRestarted, dock, &DiagnosticsDock::restart);
    connect(c, &SimulationController::energyReferenceRebased, dock, &DiagnosticsDock::markRebase);
    connect(c, &SimulationController::paramsChanged, dock, &DiagnosticsDock::setParams);
    connect(c, &SimulationController::diagnosticsMeasured, this, &DiagnosticsPresenter::check);
    connect(c, &SimulationController::diagnosticsRestarted, this, &DiagnosticsPresenter::restart);
    connect(c, &SimulationController::paramsChanged, this, [this](const nbody::SimParams& p) { m_params = p; });
}

QString DiagnosticsPresenter::energyWarningText(double change, double time, qulonglong step,
                                                const nbody::SimParams& p)
{
    const QString dt = QString::number(double(p.dt), 'g', 4);
    const QString smaller = QString::number(0.5 * double(p.dt), 'g', 4);
    const QString eps2 = QString::number(double(p.eps2), 'g', 4);
    return tr("This run is not to be trusted: its relative energy change |ΔE/E₀| reached %1 at t = %2 (step %3), "
              "above the tolerance %4 that nbody run checks too (energy lost to merges counted in). "
              "Make the time step smaller (Run dock → dt, now %5: try %6) or the softening larger "
              "(ε², now %7), then Reset (Ctrl+R).")
        .arg(std::isfinite(change) ? QString::number(std::abs(change), 'e', 2) : tr("a value that is not finite"))
        .arg(time, 0, 'g', 6)
        .arg(step)
        .arg(nbody::kEnergyTolerance, 0, 'g', 3)
        .arg(dt, smaller, eps2);
}

void DiagnosticsPresenter::check(const QList<nbody::Diagnostics>& samples)
{
    const nbody::EnergyChangeMaximum before = m_max;
    for (const nbody::Diagnostics& d : samples)
        m_max.add(d);
    const bool grew = m_max.step != before.step || m_max.time != before.time ||
                      (std::isnan(m_max.magnitude) && !std::isnan(before.magnitude));
    if (!grew || !m_max.exceeds(nbody::kEnergyTolerance))
        return;
    const QString text = energyWarningText(m_max.change, m_max.time, m_max.step, m_params);
    m_dock->setEnergyWarning(text);
    if (!m_exceeded) {
        m_exceeded = true;
        m_notices.report(tr("Energy not conserved"), text, false); // the run goes on: the keys stay with the window
    }
}

void DiagnosticsPresenter::restart()
{
    m_max = {};
    m_exceeded = false;
    m_dock->setEnergyWarning(QString());
}

} // namespace nbody::app
