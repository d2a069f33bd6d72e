#include "RunPresenter.h"

#include "Notices.h"
#include "RunDock.h"
#include "SimulationController.h"
#include "Viewport.h"

#include "sim/core/KernelRegistry.h"

#include <QAction>
#include <QMainWindow>
#include <QShortcut>
#include <QSignalBlocker>
#include <QStyle>

namespace nbody::app {

RunPresenter::RunPresenter(QMainWindow* window, RunDock* dock, Viewport* viewport, SimulationController* controller,
                           Notices& notices)
    : QObject(window), m_dock(dock), m_controller(controller), m_notices(notices)
{
    createActions(window);
    createReverseAction(window);
    connectDock(controller);
    connect(viewport, &Viewport::interopStateChanged, dock, &RunDock::setInteropState);
    connect(controller, &SimulationController::runningChanged, this, &RunPresenter::setRunning);
    connect(this, &RunPresenter::reverseRequested, controller, &SimulationController::setReverse);
}

void RunPresenter::createActions(QMainWindow* window)
{
    QStyle* s = window->style();
    m_startAction = new QAction(s->standardIcon(QStyle::SP_MediaPlay), tr("&Start"), window);
    m_startAction->setShortcut(Qt::Key_Space);
    m_startAction->setStatusTip(tr("Run the simulation (Space again pauses)"));
    connect(m_startAction, &QAction::triggered, this, &RunPresenter::startRequested);

    m_pauseAction = new QAction(s->standardIcon(QStyle::SP_MediaPause), tr("&Pause"), window);
    // Space toggles: it starts (Start) and, while running, pauses. Only one of the two actions
    // is enabled at a time, so the key is never ambiguous; in a text field it types (KeyboardFocus).
    m_pauseAction->setShortcuts({QKeySequence(Qt::Key_P), QKeySequence(Qt::Key_Space)});
    m_pauseAction->setStatusTip(tr("Pause the run"));
    m_pauseAction->setEnabled(false);
    connect(m_pauseAction, &QAction::triggered, this, [this] {
        if (m_controller)
            m_controller->requestInterrupt(); // direct: stops a long frame at its next chunk
        emit pauseRequested();
    });

    m_stepAction = new QAction(s->standardIcon(QStyle::SP_MediaSkipForward), tr("S&tep"), window);
    m_stepAction->setShortcut(Qt::Key_N);
    m_stepAction->setStatusTip(tr("Advance one step"));
    connect(m_stepAction, &QAction::triggered, this, &RunPresenter::stepRequested);

    m_resetAction = new QAction(s->standardIcon(QStyle::SP_BrowserReload), tr("&Reset"), window);
    m_resetAction->setShortcut(Qt::CTRL | Qt::Key_R);
    m_resetAction->setStatusTip(tr("Back to the initial state of the system"));
    connect(m_resetAction, &QAction::triggered, this, &RunPresenter::resetRequested);
}

void RunPresenter::createReverseAction(QMainWindow* window)
{
    m_reverseAction = new QAction(tr("Re&verse time"), window);
    m_reverseAction->setObjectName(QStringLiteral("reverseAction"));
    m_reverseAction->setCheckable(true);
    m_reverseAction->setShortcut(Qt::Key_B);
    m_reverseAction->setStatusTip(tr("Run backwards in time from the current state: steps of −dt retrace the "
                                     "trajectory (KDK leapfrog and Yoshida are time-symmetric)"));
    m_reverseAction->setToolTip(m_reverseAction->statusTip());
    connect(m_reverseAction, &QAction::triggered, this, [this](bool on) { emit reverseRequested(on); });
    m_reverseRefused = new QShortcut(m_reverseAction->shortcut(), window);
    m_reverseRefused->setObjectName(QStringLiteral("reverseRefusedShortcut"));
    m_reverseRefused->setEnabled(false); // only while the action is disabled: no ambiguous B
    connect(m_reverseRefused, &QShortcut::activated, this, [this] { m_notices.status(m_reverseWhy, 10000); });
}

void RunPresenter::connectDock(SimulationController* c)
{
    connect(m_dock, &RunDock::stepsToRunEdited, c, &SimulationController::setStepsToRun);
    connect(m_dock, &RunDock::stepsPerFrameEdited, c, &SimulationController::setStepsPerFrame);
    connect(m_dock, &RunDock::dtEdited, c, &SimulationController::setDt);
    connect(m_dock, &RunDock::eps2Edited, c, &SimulationController::setEps2);
    connect(m_dock, &RunDock::collisionsEdited, c, &SimulationController::setCollisions);
    connect(m_dock, &RunDock::paramEdited, c, &SimulationController::setParam); // time steps
    connect(m_dock, &RunDock::gravitationalConstantEdited, c, &SimulationController::setGravitationalConstant);
    connect(c, &SimulationController::stepsToRunChanged, m_dock, &RunDock::setStepsToRun);
    connect(c, &SimulationController::stepsPerFrameChanged, m_dock, &RunDock::setStepsPerFrame);
    connect(c, &SimulationController::sourceChanged, m_dock, &RunDock::setSource);
    connect(c, &SimulationController::unitsChanged, m_dock, &RunDock::setUnitsOfG);
}

void RunPresenter::setRunning(bool running)
{
    m_startAction->setEnabled(!running);
    m_pauseAction->setEnabled(running);
    m_stepAction->setEnabled(!running);
}

void RunPresenter::setParams(const nbody::SimParams& params)
{
    updateReverseAction(params);
    m_dock->setParams(params);
}

void RunPresenter::setKernel(const QString& id)
{
    m_dock->setKernel(nbody::findKernel(id.toStdString()));
}

void RunPresenter::setBodies(qulonglong n)
{
    m_dock->setBodies(n);
}

void RunPresenter::updateReverseAction(const nbody::SimParams& params)
{
    const QSignalBlocker block(m_reverseAction);
    m_reverseAction->setChecked(params.reverse);
    const std::string why = nbody::reverseProblem([&] {
        nbody::SimParams p = params;
        p.reverse = true;
        return p;
    }());
    // Merges cannot be undone: with collisions on, Reverse stays off and says why.
    const bool enable = why.empty() || params.reverse;
    // The status bar's line is short enough to be whole beside the permanent labels at 1366 px
    // (the simulation's sentences, 150 characters and more, were cut to "…cannot be undone): tu"
    // and "…with block time s"); the action's tooltip has the whole sentence.
    m_reverseWhy = enable ? QString()
                   : params.collisions
                       ? tr("Reverse time is unavailable while collisions are on (a merge cannot be undone)")
                   : params.timestep == "block"
                       ? tr("Reverse time is unavailable with block time steps (not time-symmetric): use fixed steps")
                       : tr("Reverse time is unavailable: %1").arg(QString::fromStdString(why));
    if (!enable && m_reverseAction->isEnabled())
        m_notices.status(m_reverseWhy, 10000);
    m_reverseAction->setEnabled(enable);
    m_reverseRefused->setEnabled(!enable);
    const QString tip = why.empty() ? m_reverseAction->statusTip()
                                    : tr("Unavailable: %1").arg(QString::fromStdString(why));
    m_reverseAction->setToolTip(tip);
    m_reverseAction->setWhatsThis(tip);
}

} // namespace nbody::app
