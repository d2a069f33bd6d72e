#include "KernelPresenter.h"

#include "KernelDock.h"
#include "Notices.h"
#include "SimulationController.h"

#include "sim/core/KernelRegistry.h"

#include <QAction>
#include <QActionGroup>
#include <QMainWindow>

namespace nbody::app {

namespace {

QString qstr(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

} // namespace

KernelPresenter::KernelPresenter(QMainWindow* window, KernelDock* dock, SimulationController* controller,
                                 Notices& notices)
    : QObject(window), m_dock(dock), m_notices(notices)
{
    createMenuActions(window);
    connect(m_dock, &KernelDock::kernelSelected, this, [this](const QString& id) {
        if (id != m_kernelId)
            emit kernelRequested(id);
    });
    // An opening angle or a relative criterion α typed by hand replaces a force accuracy (which
    // would pick θ and α again from the calibration table, sim/core/ForceAccuracy.h): the accuracy
    // is turned off first, in the controller's order of commands.
    connect(m_dock, &KernelDock::paramEdited, this, [this, controller](const QString& key, const QString& text) {
        const bool alphaOn = key == QLatin1String("openingAlpha") && text.toDouble() > 0;
        if ((key == QLatin1String("openingAngle") || alphaOn) && m_params.forceAccuracy > 0)
            QMetaObject::invokeMethod(controller, [controller] {
                controller->setParam(QStringLiteral("forceAccuracy"), QString());
            });
        QMetaObject::invokeMethod(controller, [controller, key, text] { controller->setParam(key, text); });
    });
    connect(m_dock, &KernelDock::tuneRequested, controller, &SimulationController::tuneNow);
    connectTuner(controller);
}

void KernelPresenter::createMenuActions(QMainWindow* window)
{
    m_group = new QActionGroup(window);
    m_group->setObjectName(QStringLiteral("kernelGroup"));
    m_group->setExclusive(true);
    for (const nbody::KernelInfo& k : nbody::kernelRegistry()) {
        // "Tiled shared memory (CUDA)" -> "Tiled shared memory (CUDA, fp32)"
        QString text = qstr(k.name);
        const QString precision = qstr(nbody::toString(k.precision));
        if (text.endsWith(QLatin1Char(')')))
            text.insert(text.size() - 1, QStringLiteral(", ") + precision);
        else
            text += QStringLiteral(" (") + precision + QStringLiteral(")");
        auto* a = new QAction(text, m_group);
        a->setCheckable(true);
        a->setData(qstr(k.id));
        a->setToolTip(kernelToolTip(k)); // the description (and why not, when unavailable)
        a->setEnabled(nbody::availability(k).available);
        a->setStatusTip(qstr(k.description));
        connect(a, &QAction::triggered, this, [this, a] {
            const QString id = a->data().toString();
            if (id != m_kernelId)
                emit kernelRequested(id);
        });
    }
}

void KernelPresenter::connectTuner(SimulationController* c)
{
    // The tuner runs on the controller's thread; the status bar and the dock say so meanwhile.
    connect(c, &SimulationController::tuningStarted, this, [this](const QString& message) {
        m_dock->setTuning(true);
        m_notices.status(message);
    });
    connect(c, &SimulationController::tuningFinished, this, [this](const QString& message) {
        m_dock->setTuning(false); // re-reads the cache: the tuned values and their date
        if (message.isEmpty())
            m_notices.clearStatus();
        else
            m_notices.status(message, 10000);
    });
}

QList<QAction*> KernelPresenter::menuActions() const
{
    return m_group->actions();
}

void KernelPresenter::setKernel(const QString& id)
{
    m_kernelId = id;
    for (QAction* a : m_group->actions()) {
        if (a->data().toString() == id)
            a->setChecked(true);
    }
    m_dock->setKernel(id);
}

void KernelPresenter::setParams(const nbody::SimParams& params)
{
    m_params = params;
    m_dock->setParams(params);
}

void KernelPresenter::setBodies(qulonglong n)
{
    m_dock->setBodies(n);
}

void KernelPresenter::showRefusal(const QString& text)
{
    m_dock->showRefusal(text);
    m_dock->show();
    m_dock->raise();
}

void KernelPresenter::refreshAvailability()
{
    for (QAction* a : m_group->actions())
        if (const nbody::KernelInfo* k = nbody::findKernel(a->data().toString().toStdString())) {
            a->setEnabled(nbody::availability(*k).available);
            a->setToolTip(kernelToolTip(*k));
        }
    m_dock->refreshAvailability();
}

} // namespace nbody::app
