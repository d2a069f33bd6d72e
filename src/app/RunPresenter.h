#pragma once
/// \file RunPresenter.h
/// The Run dock and the Simulation menu's run controls, bound to the SimulationController.

#include "sim/core/SimParams.h"

#include <QObject>
#include <QPointer>
#include <QString>

class QAction;
class QMainWindow;
class QShortcut;

namespace nbody::app {

class Notices;
class RunDock;
class SimulationController;
class Viewport;

/// Owns the Start, Pause, Step, Reset and Reverse time actions (enabled from the controller's
/// runningChanged; Reverse checked from the parameters and disabled, saying why, while collisions
/// are on). Connects the Run dock's edits (steps to run, steps per frame, dt, ε², collisions, G)
/// to the controller and its answers (steps, source, units of G, the positions' path) back to
/// the dock. Start, Pause, Step and Reset go out as its own signals; the window forwards them.
class RunPresenter : public QObject {
    Q_OBJECT
public:
    RunPresenter(QMainWindow* window, RunDock* dock, Viewport* viewport, SimulationController* controller,
                 Notices& notices);

    QAction* startAction() const { return m_startAction; }
    QAction* pauseAction() const { return m_pauseAction; }
    QAction* stepAction() const { return m_stepAction; }
    QAction* resetAction() const { return m_resetAction; }
    QAction* reverseAction() const { return m_reverseAction; }

    void setParams(const nbody::SimParams& params);
    void setKernel(const QString& id);
    void setBodies(qulonglong n);

signals:
    void startRequested();
    void pauseRequested();
    void stepRequested();
    void resetRequested();
    void reverseRequested(bool reverse);

private:
    void createActions(QMainWindow* window);
    void createReverseAction(QMainWindow* window);
    void connectDock(SimulationController* controller);
    void setRunning(bool running);
    /// Simulation → Reverse time: checked from the parameters, disabled (saying why) while the
    /// collision system is on.
    void updateReverseAction(const nbody::SimParams& params);

    RunDock* m_dock;
    QPointer<SimulationController> m_controller;
    Notices& m_notices;
    QAction* m_startAction = nullptr;
    QAction* m_pauseAction = nullptr;
    QAction* m_stepAction = nullptr;
    QAction* m_resetAction = nullptr;
    QAction* m_reverseAction = nullptr;
    /// B while Reverse time is disabled (collisions on): says why in the status bar, instead of
    /// a key that does nothing.
    QShortcut* m_reverseRefused = nullptr;
    QString m_reverseWhy; ///< why Reverse time is disabled; empty while it is enabled
};

} // namespace nbody::app
