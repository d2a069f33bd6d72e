#pragma once
/// \file SystemLoader.h
/// Makes a new system beside the running one: File → New from scenario, Open scenario and Open
/// snapshot generate or read the bodies on Qt's thread pool, not on the GUI thread and not on the
/// simulation's, so the window stays interactive and the current system goes on running. The
/// status bar shows a progress bar and a Cancel button while a job runs; Cancel requests a stop
/// that the generators and the reader's steps check (sim/base/Progress.h), and the running
/// system is kept. A finished system is handed to the SimulationController, which installs it at
/// the next frame as it installs any other (installBuiltScenario, installSnapshot).

#include "sim/base/Progress.h"
#include "sim/core/SimParams.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <stop_token>

class QMainWindow;
class QProgressBar;
class QPushButton;

namespace nbody::app {

class Notices;
class SimulationController;

class SystemLoader : public QObject {
    Q_OBJECT
public:
    SystemLoader(QMainWindow* window, SimulationController* controller, Notices& notices);
    /// Stops a job in progress and waits for it (a generator checks its stop every 4096 bodies).
    ~SystemLoader() override;

    /// A job is running.
    bool busy() const { return m_watcher.isRunning(); }
    /// Milliseconds each progress report of a job waits (0: none): a slow generator for tests.
    Q_INVOKABLE void setReportDelay(int ms) { m_reportDelayMs.store(ms); }

public slots:
    /// A system from the scenario registry (N = 0: the row's default) on `kernel` ("": the
    /// scenario's own or the fastest here), as SimulationController::newScenario.
    void newScenario(const QString& id, qulonglong bodies, quint64 seed, const QString& kernel = QString());
    /// A scenario file (JSON), as SimulationController::openScenario.
    void openScenario(const QString& path);
    /// A snapshot file, as SimulationController::loadFile.
    void loadSnapshot(const QString& path);
    /// Stops the job in progress; the current system is kept.
    void cancel();
    /// The current parameters (the launch parameters a scenario keeps).
    void setParams(const nbody::SimParams& params) { m_params = params; }

signals:
    /// The job failed (not when cancelled): what it made (registry id or path) and why.
    void loadFailed(const QString& what, const QString& message);
    /// A job ended: finished (its system queued for the next frame), failed or cancelled.
    void finished(bool cancelled);

private:
    /// Runs on the pool; returns what the GUI thread does with the result (queue it).
    using Job = std::function<std::function<void()>(const nbody::Progress&)>;
    void start(const QString& label, const QString& what, Job job);
    void showProgress(int percent);

    QMainWindow* m_window;
    SimulationController* m_controller;
    Notices& m_notices;
    QProgressBar* m_bar = nullptr;
    QPushButton* m_cancel = nullptr;
    nbody::SimParams m_params;
    std::stop_source m_stop;
    std::atomic<int> m_reportDelayMs{0};
    std::atomic<int> m_lastPercent{-1};
    int m_generation = 0;
    QString m_what;
    struct Outcome {
        std::function<void()> deliver; ///< on success
        QString error;                 ///< on failure
        bool cancelled = false;
    };
    QFutureWatcher<Outcome> m_watcher;
};

} // namespace nbody::app
