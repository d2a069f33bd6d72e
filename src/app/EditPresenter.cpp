#include "EditPresenter.h"

#include "LaunchPreview.h"
#include "Notices.h"
#include "RunDock.h"
#include "SimulationController.h"
#include "Viewport.h"

#include <QAction>
#include <QActionGroup>
#include <QMainWindow>

namespace nbody::app {

EditPresenter::EditPresenter(QMainWindow* window, Viewport* viewport, RunDock* runDock,
                             SimulationController* controller, Notices& notices)
    : QObject(window), m_viewport(viewport), m_runDock(runDock), m_notices(notices)
{
    m_launchPreview = new LaunchPreview(window);
    createActions(window);
    connectEdits(controller);
    connectLaunchPreview(controller);
}

void EditPresenter::createActions(QMainWindow* window)
{
    m_toolGroup = new QActionGroup(window);
    m_toolGroup->setExclusive(true);
    const struct {
        Viewport::Tool tool;
        QString text, tip;
        QKeySequence key;
    } tools[] = {
        {Viewport::Tool::Navigate, tr("&Navigate"),
         tr("Left-drag orbits, right-drag pans, the wheel zooms; a click selects a body"),
         QKeySequence(Qt::Key_1)},
        {Viewport::Tool::AddBody, tr("Add &body"),
         tr("Click to add a heavy body there; drag to give it a velocity: the predicted path shows while dragging"),
         QKeySequence(Qt::Key_2)},
        {Viewport::Tool::AddCluster, tr("Add &cluster"),
         tr("Click to add a small Plummer cluster (64 bodies) there; drag to give it a velocity"),
         QKeySequence(Qt::Key_3)},
        {Viewport::Tool::Delete, tr("&Delete region"), tr("Drag a rectangle: the bodies inside are removed"),
         QKeySequence(Qt::Key_4)},
    };
    for (const auto& t : tools) {
        auto* a = new QAction(t.text, m_toolGroup);
        a->setCheckable(true);
        a->setShortcut(t.key);
        a->setStatusTip(t.tip);
        a->setToolTip(t.tip);
        a->setChecked(t.tool == Viewport::Tool::Navigate);
        const Viewport::Tool tool = t.tool;
        connect(a, &QAction::triggered, this, [this, tool] { m_viewport->setTool(tool); });
    }
    m_undoAction = new QAction(tr("&Undo edit"), window);
    m_undoAction->setShortcut(QKeySequence::Undo);
    m_undoAction->setEnabled(false);
    m_undoAction->setStatusTip(tr("Undo the last add or delete (the simulation keeps running)"));
    connect(m_undoAction, &QAction::triggered, this, &EditPresenter::undoRequested);
}

QList<QAction*> EditPresenter::toolActions() const
{
    return m_toolGroup->actions();
}

void EditPresenter::connectEdits(SimulationController* c)
{
    connect(this, &EditPresenter::undoRequested, c, &SimulationController::undoLastEdit);
    // Queued to the worker thread through functors (no metatypes needed for the arguments).
    connect(m_viewport, &Viewport::addRequested, this,
            [c](double x, double y, double z, double dx, double dy, double dz, bool cluster) {
                QMetaObject::invokeMethod(c, [=] { c->addAt(x, y, z, dx, dy, dz, cluster); }, Qt::QueuedConnection);
            });
    connect(m_viewport, &Viewport::removeRequested, this,
            [c](const std::array<float, 16>& vp, float x0, float y0, float x1, float y1) {
                QMetaObject::invokeMethod(c, [=] { c->removeInRegion(vp, x0, y0, x1, y1); }, Qt::QueuedConnection);
            });
    connect(c, &SimulationController::editApplied, this, [this](const QString& what, bool undoable) {
        m_undoAction->setEnabled(undoable);
        m_notices.status(what, 5000);
    });
}

void EditPresenter::connectLaunchPreview(SimulationController* c)
{
    connect(this, &EditPresenter::launchFieldRequested, this, [c](quint64 serial, qulonglong maxSources) {
        QMetaObject::invokeMethod(c, [=] { c->requestLaunchField(serial, maxSources); }, Qt::QueuedConnection);
    });
    // The field at the press, the prediction on a worker thread as the drag moves.
    connect(m_viewport, &Viewport::launchDragStarted, this, [this] {
        m_launchPreview->stop();
        m_launchPreview->setDurationTimes(m_runDock->launchPreviewTimes());
        emit launchFieldRequested(++m_launchSerial, 16384);
    });
    connect(c, &SimulationController::launchFieldReady, this,
            [this](std::shared_ptr<const nbody::app::LaunchContext> context) {
                if (context && context->serial == m_launchSerial)
                    m_launchPreview->setContext(std::move(context));
            });
    connect(m_viewport, &Viewport::launchDragMoved, this,
            [this](double x, double y, double z, double dx, double dy, double dz) {
                m_launchPreview->predict({x, y, z}, {dx, dy, dz});
            });
    connect(m_viewport, &Viewport::launchDragEnded, this, [this] {
        ++m_launchSerial; // a field still on its way belongs to the ended drag
        m_launchPreview->stop();
        m_viewport->setLaunchPath({}, QString());
    });
    connect(m_launchPreview, &LaunchPreview::predicted, m_viewport, &Viewport::setLaunchPath);
}

} // namespace nbody::app
