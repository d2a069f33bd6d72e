#include "SystemLoader.h"
#include "BodyCount.h"

#include "Notices.h"
#include "SimulationController.h"

#include "sim/io/Scenarios.h"
#include "sim/io/Snapshot.h"

#include <QFileInfo>
#include <QMainWindow>
#include <QMetaObject>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QtConcurrent/QtConcurrentRun>

#include <chrono>
#include <memory>
#include <thread>

namespace nbody::app {

SystemLoader::SystemLoader(QMainWindow* window, SimulationController* controller, Notices& notices)
    : QObject(window), m_window(window), m_controller(controller), m_notices(notices)
{
    setObjectName(QStringLiteral("systemLoader"));
    m_bar = new QProgressBar(window);
    m_bar->setObjectName(QStringLiteral("buildProgress"));
    m_bar->setRange(0, 100);
    m_bar->setMaximumWidth(260);
    m_bar->setToolTip(tr("A new system is being made beside the running one, which goes on until it is ready"));
    m_cancel = new QPushButton(tr("Cancel"), window);
    m_cancel->setObjectName(QStringLiteral("buildCancel"));
    m_cancel->setToolTip(tr("Stop making the new system; the current one is kept"));
    // Permanent widgets (first, left of the readouts): a temporary message does not hide them.
    window->statusBar()->insertPermanentWidget(0, m_bar);
    window->statusBar()->insertPermanentWidget(1, m_cancel);
    m_bar->hide();
    m_cancel->hide();
    connect(m_cancel, &QPushButton::clicked, this, &SystemLoader::cancel);
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, [this] {
        const Outcome o = m_watcher.result();
        m_bar->hide();
        m_cancel->hide();
        if (o.cancelled) {
            m_notices.status(tr("Cancelled: the current system goes on"), 10000);
        } else if (!o.error.isEmpty()) {
            emit loadFailed(m_what, o.error);
        } else if (o.deliver) {
            o.deliver();
        }
        emit finished(o.cancelled);
    });
}

SystemLoader::~SystemLoader()
{
    m_stop.request_stop();
    m_watcher.waitForFinished();
}

void SystemLoader::cancel()
{
    m_stop.request_stop();
}

void SystemLoader::showProgress(int percent)
{
    if (m_watcher.isRunning())
        m_bar->setValue(percent);
}

void SystemLoader::start(const QString& label, const QString& what, Job job)
{
    if (m_watcher.isRunning()) { // the newer request wins
        m_stop.request_stop();
        m_watcher.waitForFinished();
    }
    m_stop = std::stop_source();
    m_what = what;
    m_lastPercent.store(-1);
    m_bar->setValue(0);
    m_bar->setFormat(label + QStringLiteral(" %p%"));
    m_bar->show();
    m_cancel->show();
    const int generation = ++m_generation;
    const auto report = [this, generation](double fraction) {
        if (const int ms = m_reportDelayMs.load(); ms > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        const int percent = int(100.0 * std::clamp(fraction, 0.0, 1.0));
        if (m_lastPercent.exchange(percent) != percent)
            QMetaObject::invokeMethod(this, [this, percent, generation] {
                if (generation == m_generation)
                    showProgress(percent);
            }, Qt::QueuedConnection);
    };
    const nbody::Progress progress(report, m_stop.get_token());
    m_watcher.setFuture(QtConcurrent::run([job = std::move(job), progress]() {
        Outcome o;
        try {
            o.deliver = job(progress);
        } catch (const nbody::Cancelled&) {
            o.cancelled = true;
        } catch (const std::exception& e) {
            o.error = QString::fromUtf8(e.what());
        }
        return o;
    }));
}

void SystemLoader::newScenario(const QString& id, qulonglong bodies, quint64 seed, const QString& kernel)
{
    const nbody::SimParams base = m_params;
    SimulationController* c = m_controller;
    const ScenarioInfo* row = findScenario(id.toStdString());
    const QString label = tr("Making %1%2…")
                              .arg(row ? QString::fromUtf8(row->name.data(), qsizetype(row->name.size())) : id)
                              .arg(bodies > 0 ? tr(", %1").arg(bodyCountGrouped(bodies)) : QString());
    start(label, id, [=](const nbody::Progress& progress) -> std::function<void()> {
        auto spec = std::make_shared<const ScenarioSpec>(
            scenarioSpec(id.toStdString(), bodies > 0 ? std::optional<std::size_t>(bodies) : std::nullopt, seed));
        auto built = std::make_shared<BuiltScenario>(buildScenario(*spec, base, progress));
        progress.check(1.0);
        return [c, built, spec, id, kernel] {
            QMetaObject::invokeMethod(c, [c, built, spec, id, kernel] {
                c->installBuiltScenario(built, spec, id, false, kernel);
            }, Qt::QueuedConnection);
        };
    });
}

void SystemLoader::openScenario(const QString& path)
{
    const nbody::SimParams base = m_params;
    SimulationController* c = m_controller;
    start(tr("Opening %1…").arg(QFileInfo(path).fileName()), path,
          [=](const nbody::Progress& progress) -> std::function<void()> {
              auto spec = std::make_shared<const ScenarioSpec>(readScenarioFile(path.toStdString()));
              auto built = std::make_shared<BuiltScenario>(buildScenario(*spec, base, progress));
              progress.check(1.0);
              return [c, built, spec, path] {
                  QMetaObject::invokeMethod(c, [c, built, spec, path] {
                      c->installBuiltScenario(built, spec, path, true, QString());
                  }, Qt::QueuedConnection);
              };
          });
}

void SystemLoader::loadSnapshot(const QString& path)
{
    SimulationController* c = m_controller;
    start(tr("Loading %1…").arg(QFileInfo(path).fileName()), path,
          [=](const nbody::Progress& progress) -> std::function<void()> {
              progress.check(0);
              auto snap = std::make_shared<Snapshot>(readSnapshot(path.toStdString()));
              progress.check(1.0);
              return [c, snap, path] {
                  QMetaObject::invokeMethod(c, [c, snap, path] { c->installSnapshot(path, snap); },
                                            Qt::QueuedConnection);
              };
          });
}

} // namespace nbody::app
