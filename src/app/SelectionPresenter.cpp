#include "SelectionPresenter.h"

#include "Notices.h"
#include "SelectionDock.h"
#include "SimulationController.h"
#include "Viewport.h"

#include <QAction>
#include <QCheckBox>
#include <QMainWindow>

namespace nbody::app {

SelectionPresenter::SelectionPresenter(QMainWindow* window, SelectionDock* dock, Viewport* viewport,
                                       SimulationController* controller, Notices& notices)
    : QObject(window), m_dock(dock), m_notices(notices)
{
    createFollowAction(window);
    connect(m_followSelectionAction, &QAction::toggled, viewport, [viewport](bool on) { viewport->setFollowSelection(on); });
    SimulationController* c = controller;
    connect(this, &SelectionPresenter::clearSelectionRequested, c, &SimulationController::clearSelection);
    connect(viewport, &Viewport::pickRequested, this,
            [c](const std::array<float, 16>& vp, double px, double py, int w, int h, double radius) {
                QMetaObject::invokeMethod(c, [=] { c->selectAt(vp, px, py, w, h, radius); }, Qt::QueuedConnection);
            });
    connect(viewport, &Viewport::selectionClearRequested, this, &SelectionPresenter::clearSelectionRequested);
    connect(m_dock, &SelectionDock::clearRequested, this, &SelectionPresenter::clearSelectionRequested);
    connect(m_dock->followBox(), &QCheckBox::toggled, m_followSelectionAction, &QAction::setChecked);
    connect(m_followSelectionAction, &QAction::toggled, m_dock->followBox(), &QCheckBox::setChecked);
}

void SelectionPresenter::createFollowAction(QMainWindow* window)
{
    m_followSelectionAction = new QAction(tr("Follow &selected body"), window);
    m_followSelectionAction->setObjectName(QStringLiteral("followSelectionAction"));
    m_followSelectionAction->setCheckable(true);
    m_followSelectionAction->setShortcut(Qt::Key_L);
    m_followSelectionAction->setStatusTip(tr("Keep the selected body (click one in the Navigate tool) in the middle "
                                             "of the view"));
}

void SelectionPresenter::onFrame(const FrameResult& result)
{
    if (result.selection) {
        const bool fresh = !m_dock->hasSelection() || m_dock->selectedId() != result.selection->id;
        m_dock->setReport(*result.selection);
        if (fresh) { // a new pick: show what it is
            m_dock->show();
            m_dock->raise();
            m_notices.status(
                tr("Selected body %1 (index %2)").arg(result.selection->id).arg(result.selection->index), 5000);
        }
    } else if (result.selectionCleared) {
        m_dock->clear(result.selectionMessage);
        if (!result.selectionMessage.isEmpty())
            m_notices.status(result.selectionMessage, 8000);
    }
}

} // namespace nbody::app
