#pragma once
/// \file ScenarioMenus.h
/// The scenario and integrator parts of the main window: File → New from scenario (a submenu of
/// the scenario registry; each row asks for N and the seed in a small dialog), File → Open
/// scenario… / Save scenario… (JSON files, sim/io/Scenarios.h) and the Integrator menu (the rows of
/// the integrator registry). They only emit requests; the SimulationController does the work.

#include "sim/perf/Benchmark.h"
#include "sim/io/Scenarios.h"

#include <QObject>
#include <QString>

#include <map>
#include <optional>

class QAction;
class QActionGroup;
class QMenu;
class QWidget;

namespace nbody {
struct IntegratorInfo;
}

namespace nbody::app {

class ScenarioMenus : public QObject {
    Q_OBJECT
public:
    /// `dialogParent`: the window the dialogs belong to.
    explicit ScenarioMenus(QWidget* dialogParent);

    /// Adds New from scenario, Open scenario… and Save scenario… to `file`.
    void addFileActions(QMenu* file);
    /// The Integrator menu (checkable rows, description as tooltip).
    QMenu* integratorMenu() const { return m_integratorMenu; }
    /// An integrator's row in the Integrator menu and in Help → About: "KDK leapfrog (order 2,
    /// 1 force evaluation per step)".
    static QString integratorTitle(const nbody::IntegratorInfo& i);

public slots:
    /// Checks the row of the current integrator (from the controller's paramsChanged).
    void setIntegrator(const QString& id);
    /// Remembers the folder of the last scenario file for the next dialog.
    void setLastPath(const QString& path) { m_lastPath = path; }
    /// The kernel that runs now (the controller's kernelChanged): the dialogs suggest an N for it.
    void setKernel(const QString& id) { m_kernel = id; }

public:
    /// What the New dialog suggests for `row` with the kernel `kernelId`: the N that it steps
    /// `stepsPerSecond` times a second (sim/perf/Benchmark.h, bodiesForStepRate, from one force
    /// evaluation timed once per kernel and kept), and the timing it scaled from. Without a usable
    /// timing (unknown or unavailable kernel, a probe that failed): the row's default N, no timing.
    struct Suggestion {
        std::size_t bodies = 0;
        std::optional<nbody::EvaluationTiming> timing;
        int evaluationsPerStep = 1; ///< of the row's integrator
        QString kernel;
    };
    Suggestion suggest(const nbody::ScenarioInfo& row, double stepsPerSecond = 25.0);
    /// "12.3 ms per step on cpu (about 81 steps/s), predicted from force evaluations timed at
    /// N = 1024" for `n` bodies; "" without a timing.
    static QString predictionText(const Suggestion& s, std::size_t n);

signals:
    void newScenarioRequested(const QString& id, qulonglong bodies, quint64 seed);
    void openScenarioRequested(const QString& path);
    void saveScenarioRequested(const QString& path);
    void integratorRequested(const QString& id);

private:
    void askAndCreate(const QString& id);
    /// Without a usable GPU kernel, more than 100 000 bodies means minutes per step that Pause
    /// and Quit wait for: asks first. True when the system may be created.
    bool confirmLargeSystem(qulonglong n);
    void openFile();
    void saveFile();

    QWidget* m_parent;
    QMenu* m_newMenu = nullptr;
    QMenu* m_integratorMenu = nullptr;
    QActionGroup* m_integrators = nullptr;
    QAction* m_open = nullptr;
    QAction* m_save = nullptr;
    QString m_lastPath;
    QString m_current;
    QString m_kernel = QStringLiteral("cpu");
    std::map<QString, nbody::EvaluationTiming> m_timings; ///< one timed evaluation per kernel
};

} // namespace nbody::app
