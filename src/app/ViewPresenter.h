#pragma once
/// \file ViewPresenter.h
/// The View dock and the View menu's camera actions, bound to the viewport and the controller.

#include <QObject>

class QAction;
class QMainWindow;

namespace nbody::app {

class SimulationController;
class ViewDock;
class Viewport;

/// Owns the Reset camera, Fit to system and Follow centre of mass actions. Connects the View
/// dock's settings to the viewport (colour mode, point size, blending, legend, axes, trails,
/// exposure, size by distance, labels), the colour source and the bounds overlay also to the
/// controller (they make frames carry scalars or bounds), the framing and follow requests to the
/// controller, and a replaced system back to the dock's colour suggestion.
class ViewPresenter : public QObject {
    Q_OBJECT
public:
    ViewPresenter(QMainWindow* window, ViewDock* dock, Viewport* viewport, SimulationController* controller);

    QAction* resetCameraAction() const { return m_resetCameraAction; }
    QAction* fitAction() const { return m_fitAction; }
    QAction* followAction() const { return m_followAction; }

signals:
    void framingRequested();
    void followCentreRequested(bool follow);
    void colourSourceRequested(int source);
    void reportBoundsRequested(bool report);

private:
    void connectDock();
    void createActions(QMainWindow* window);

    ViewDock* m_dock;
    Viewport* m_viewport;
    QAction* m_resetCameraAction = nullptr;
    QAction* m_fitAction = nullptr;
    QAction* m_followAction = nullptr;
};

} // namespace nbody::app
