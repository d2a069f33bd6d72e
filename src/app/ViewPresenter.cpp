#include "ViewPresenter.h"

#include "SimulationController.h"
#include "ViewDock.h"
#include "Viewport.h"

#include "gl/ColourModes.h"

#include <QAction>
#include <QMainWindow>
#include <QStyle>

namespace nbody::app {

ViewPresenter::ViewPresenter(QMainWindow* window, ViewDock* dock, Viewport* viewport, SimulationController* controller)
    : QObject(window), m_dock(dock), m_viewport(viewport)
{
    connectDock();
    createActions(window);
    SimulationController* c = controller;
    connect(this, &ViewPresenter::framingRequested, c, &SimulationController::requestFraming);
    connect(this, &ViewPresenter::followCentreRequested, c, &SimulationController::setFollowCentre);
    connect(this, &ViewPresenter::colourSourceRequested, c, &SimulationController::setColourSource);
    connect(this, &ViewPresenter::reportBoundsRequested, c, &SimulationController::setReportBounds);
}

void ViewPresenter::connectDock()
{
    connect(m_dock, &ViewDock::colourModeChanged, this, [this](const nbody::gl::ColourMode* mode) {
        m_viewport->setColourMode(mode);
        if (mode)
            emit colourSourceRequested(static_cast<int>(mode->source));
    });
    connect(m_dock, &ViewDock::pointSizeChanged, m_viewport, &Viewport::setPointSize);
    connect(m_dock, &ViewDock::additiveChanged, m_viewport, &Viewport::setAdditive);
    connect(m_dock, &ViewDock::legendToggled, m_viewport, &Viewport::setLegendVisible);
    connect(m_dock, &ViewDock::axesToggled, m_viewport, &Viewport::setShowAxes);
    connect(m_dock, &ViewDock::trailsToggled, m_viewport, &Viewport::setTrails);
    connect(m_dock, &ViewDock::trailSecondsChanged, m_viewport, &Viewport::setTrailSeconds);
    connect(m_dock, &ViewDock::autoExposureToggled, m_viewport, &Viewport::setAutoExposure);
    connect(m_dock, &ViewDock::exposureEvChanged, m_viewport, &Viewport::setExposureEv);
    connect(m_dock, &ViewDock::sizeByDistanceToggled, m_viewport, &Viewport::setSizeByDistance);
    connect(m_dock, &ViewDock::subsampleToggled, m_viewport, &Viewport::setSubsampling);
    connect(m_dock, &ViewDock::labelsToggled, m_viewport, &Viewport::setLabelsVisible);
    connect(m_viewport, &Viewport::systemReplaced, m_dock, &ViewDock::suggestColourMode);
    connect(m_dock, &ViewDock::boundsToggled, this, [this](bool on) {
        m_viewport->setShowBounds(on);
        emit reportBoundsRequested(on);
    });
}

void ViewPresenter::createActions(QMainWindow* window)
{
    m_resetCameraAction =
        new QAction(window->style()->standardIcon(QStyle::SP_DesktopIcon), tr("Reset &camera"), window);
    m_resetCameraAction->setShortcut(Qt::Key_F);
    m_resetCameraAction->setStatusTip(tr("Frame the whole system"));
    connect(m_resetCameraAction, &QAction::triggered, this, &ViewPresenter::framingRequested);

    m_fitAction = new QAction(tr("&Fit to system"), window);
    m_fitAction->setShortcut(Qt::SHIFT | Qt::Key_F);
    m_fitAction->setStatusTip(tr("Frame the whole system, keeping the viewing direction"));
    connect(m_fitAction, &QAction::triggered, this, [this] {
        m_viewport->setFitKeepsDirection(true);
        emit framingRequested();
    });
    m_followAction = new QAction(tr("F&ollow centre of mass"), window);
    m_followAction->setCheckable(true);
    m_followAction->setShortcut(Qt::Key_C);
    m_followAction->setStatusTip(tr("Keep the centre of mass in the middle of the view (copies GPU state to the host "
                                    "each frame)"));
    connect(m_followAction, &QAction::toggled, this, [this](bool on) {
        m_viewport->setFollowCentre(on);
        emit followCentreRequested(on);
    });
}

} // namespace nbody::app
