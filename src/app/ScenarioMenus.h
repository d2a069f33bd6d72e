#pragma once
/// \file ScenarioMenus.h
/// The scenario and integrator parts of the main window: File → New from scenario (a submenu of
/// the scenario registry; each row asks for N and the seed in a small dialog), File → Open
/// scenario… / Save scenario… (JSON files, sim/io/Scenarios.h) and the Integrator menu (the rows of
/// the integrator registry). They only emit requests; the SimulationController does the work.

#include "sim/perf/StepPrediction.h"
#include "sim/io/Scenarios.h"

#include <QObject>
#include <QString>

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

public:
    /// What the New dialog suggests for `row`: the kernel a new system of it starts on
    /// (startKernel: the scenario's own when it runs here, else the fastest here) and the N that
    /// kernel steps `stepsPerSecond` times a second (StepPredictor::sizeForStepRate, measured at
    /// that N), with the prediction for it. Without a usable timing (a probe that failed): the
    /// row's default N and no prediction.
    struct Suggestion {
        std::size_t bodies = 0;
        std::optional<nbody::StepPrediction> prediction;
        int evaluationsPerStep = 1; ///< of the row's integrator
        QString kernel;
    };
    Suggestion suggest(const nbody::ScenarioInfo& row, double stepsPerSecond = 25.0);
    /// The prediction for `kernel` at `n` bodies (StepPredictor::predict, the one every dialog
    /// of this window shows); nullopt when the kernel is unknown or cannot be timed.
    std::optional<nbody::StepPrediction> predict(const QString& kernel, std::size_t n, int evaluationsPerStep);
    /// describeStepPrediction as a QString ("" for none).
    static QString predictionText(const std::optional<nbody::StepPrediction>& p);
    /// The predictions shared by the dialogs (tests read and feed it).
    nbody::StepPredictor& predictor() { return m_predictor; }

signals:
    /// `kernel`: the row the dialog chose (the scenario's own, the fastest here or a tree row it
    /// offered); "" lets the controller choose (startKernel).
    void newScenarioRequested(const QString& id, qulonglong bodies, quint64 seed, const QString& kernel = QString());
    void openScenarioRequested(const QString& path);
    void saveScenarioRequested(const QString& path);
    void integratorRequested(const QString& id);

private:
    void askAndCreate(const QString& id);
    /// A step predicted to take longer than ten seconds cannot be interrupted (Pause and Quit
    /// wait for it): asks first, with the dialog's prediction and the faster tree rows' (a button
    /// each, which picks that row: `kernel` changes). True when the system may be created.
    bool confirmLargeSystem(qulonglong n, int evaluationsPerStep, QString& kernel);
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
    nbody::StepPredictor m_predictor; ///< one prediction for every dialog (StepPrediction.h)
};

} // namespace nbody::app
