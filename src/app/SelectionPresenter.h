#pragma once
/// \file SelectionPresenter.h
/// The selection: picking in the view, the Selection dock and View → Follow selected body.

#include "FrameProtocol.h"

#include <QObject>

class QAction;
class QMainWindow;

namespace nbody::app {

class Notices;
class SelectionDock;
class SimulationController;
class Viewport;

/// Owns the Follow selected body action (kept in step with the dock's Follow box). Connects the
/// viewport's picks and Esc, and the dock's Clear, to the controller's selectAt and
/// clearSelection; each frame's selection report (onFrame) fills the dock, which is raised for a
/// new pick, and the status bar says what was picked or why the selection ended.
class SelectionPresenter : public QObject {
    Q_OBJECT
public:
    SelectionPresenter(QMainWindow* window, SelectionDock* dock, Viewport* viewport, SimulationController* controller,
                       Notices& notices);

    QAction* followSelectionAction() const { return m_followSelectionAction; }
    /// A valid frame: its selection report, or the end of the selection.
    void onFrame(const FrameResult& result);

signals:
    void clearSelectionRequested();

private:
    void createFollowAction(QMainWindow* window);

    SelectionDock* m_dock;
    Notices& m_notices;
    QAction* m_followSelectionAction = nullptr;
};

} // namespace nbody::app
