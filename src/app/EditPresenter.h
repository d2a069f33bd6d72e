#pragma once
/// \file EditPresenter.h
/// The sandbox's tools: the Edit menu, the viewport's add and delete gestures, the Add body
/// tool's predicted path, and Undo edit.

#include <QList>
#include <QObject>

class QAction;
class QActionGroup;
class QMainWindow;

namespace nbody::app {

class LaunchPreview;
class Notices;
class RunDock;
class SimulationController;
class Viewport;

/// Owns the exclusive tool actions (Navigate, Add body, Add cluster, Delete region: keys 1–4),
/// Undo edit and the LaunchPreview. Connects the viewport's add and remove gestures to the
/// controller's edits (queued functors: no metatypes for the arguments), the controller's
/// editApplied to Undo's state and the status bar, and an Add body drag to the prediction: the
/// field is asked for at the press (requestLaunchField, matched by serial), the path predicted
/// on a worker thread as the drag moves, for the Run dock's preview duration.
class EditPresenter : public QObject {
    Q_OBJECT
public:
    EditPresenter(QMainWindow* window, Viewport* viewport, RunDock* runDock, SimulationController* controller,
                  Notices& notices);

    QList<QAction*> toolActions() const;
    QAction* undoAction() const { return m_undoAction; }

signals:
    void undoRequested();
    void launchFieldRequested(quint64 serial, qulonglong maxSources);

private:
    void createActions(QMainWindow* window);
    void connectEdits(SimulationController* controller);
    void connectLaunchPreview(SimulationController* controller);

    Viewport* m_viewport;
    RunDock* m_runDock;
    Notices& m_notices;
    QActionGroup* m_toolGroup = nullptr;
    QAction* m_undoAction = nullptr;
    LaunchPreview* m_launchPreview = nullptr;
    quint64 m_launchSerial = 0;
};

} // namespace nbody::app
