#pragma once
/// \file ValidationDock.h
/// The "Validation" dock: runs the validation engine (sim/validate/Validation.h) on chosen kernels of the
/// registry against the fp64 OpenMP reference, off the GUI thread, while the simulation keeps
/// running. The user picks the kernels (a checkable list of every registry row; rows that cannot
/// run here are greyed out with the reason), the system — a copy of the current one (asked from
/// the SimulationController through systemRequested() / setSystem(), so a GPU state is read at a
/// frame boundary) or the default system, a Plummer sphere of N bodies (as `nbody validate
/// --bodies N` makes it) — the number of steps K and of checkpoints, then Start. A progress bar shows the phase and an
/// estimate of the time left; Cancel stops the run at the engine's next chunk (at most
/// max(1, K / checkpoints) steps). The result line says how many kernels passed and links to the
/// report dialog (ValidationReportDialog), which also opens from View → Validation report
/// (reportAction(): disabled until a report exists).
///
/// Errors (an unavailable kernel, invalid parameters, an exception of validate()) are shown in
/// red in the dock. Destroying the dock (closing the app) cancels a run and waits for its thread.

#include "FrameProtocol.h"
#include "SimulationController.h" // SystemCopy

#include "sim/core/SimParams.h"

#include <QDockWidget>
#include <QElapsedTimer>
#include <QPointer>
#include <QString>

#include <functional>
#include <memory>
#include <stop_token>
#include <vector>

class QAction;
class QBoxLayout;
class QComboBox;
class QGroupBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QThread;
class QVBoxLayout;

namespace nbody {
struct KernelInfo;
struct ValidationReport;
struct ValidationProgress;
}

namespace nbody::app {

class ValidationReportDialog;

class ValidationDock : public QDockWidget {
    Q_OBJECT
public:
    /// Where the initial state comes from.
    enum class SystemChoice { Current, Default }; ///< Default: a Plummer sphere of N bodies

    explicit ValidationDock(QWidget* parent = nullptr);
    ~ValidationDock() override;

    /// Adds a row that is not in the registry (a test's faulty kernel): it must outlive the dock.
    /// It is listed after the registry rows, unchecked.
    void addKernelRow(const nbody::KernelInfo* kernel);
    /// Checks exactly the rows whose ids are listed (others unchecked); unknown ids are ignored.
    void setCheckedKernels(const QStringList& ids);
    /// The ids of the checked rows, in list order.
    QStringList checkedKernels() const;
    void setSystemChoice(SystemChoice choice);
    void setDefaultBodies(int n);
    void setSteps(int steps);
    void setCheckpoints(int checkpoints);
    /// Replaces the question asked before a run predicted to take over ten minutes (tests):
    /// called with N and the predicted seconds, returns whether to start.
    void setLongRunConfirmation(std::function<bool(std::size_t, double)> confirm) { m_confirmLongRun = std::move(confirm); }

    bool running() const { return m_phase != Phase::Idle; }
    /// The last finished report (null before the first).
    std::shared_ptr<const nbody::ValidationReport> report() const { return m_report; }
    /// View → Validation report: opens the report dialog; disabled until a report exists.
    QAction* reportAction() const { return m_reportAction; }
    /// The report dialog (made on first use; it shows the latest report).
    ValidationReportDialog* reportDialog();

public slots:
    /// Starts a run with the choices in the dock (does nothing while one runs).
    void start();
    /// Cancels the run (or the wait for the current system); the last report stays.
    void cancel();
    void showReport();
    /// The running kernel (checked by default until the user changes the checks).
    void setKernel(const QString& id);
    /// The running system's parameters: the default system uses its launch parameters.
    void setParams(const nbody::SimParams& params);
    /// The running system's size, for "Current system (N = …)".
    void setBodies(qulonglong n);
    /// The answer to systemRequested() (SimulationController::validationSystemReady).
    void setSystem(std::shared_ptr<const nbody::app::SystemCopy> system);
    /// The current system could not be copied (SimulationController::commandFailed): the wait
    /// ends with the message in red.
    void systemFailed(const QString& message);

signals:
    /// Asks for a copy of the current system (answer: setSystem).
    void systemRequested();
    /// A run ended with a report.
    void reportReady(std::shared_ptr<const nbody::ValidationReport> report);
    /// A run ended without a report: cancelled (message empty) or failed (message says why).
    void runEnded(bool cancelled, const QString& message);

private:
    /// "Kernels": the registry's rows to check, All available and None.
    QGroupBox* createKernelBox(QWidget* parent);
    /// "Run": the system (the current one or a Plummer sphere of N), steps and checkpoints.
    QGroupBox* createRunBox(QWidget* parent);
    /// Start (or Cancel), the progress bar, the status line and the result with its report link.
    void createStartRows(QWidget* parent, QVBoxLayout* column);
    /// Asks whether to start a run of `bodies` predicted to take `seconds` here.
    bool confirmLongRun(std::size_t bodies, double seconds);
    enum class Phase { Idle, WaitingForSystem, Running };
    void launch(std::shared_ptr<const SystemCopy> system);
    void onProgress(const nbody::ValidationProgress& progress);
    void onFinished(std::shared_ptr<const nbody::ValidationReport> report, bool cancelled, const QString& error);
    void joinWorker();
    void setPhase(Phase phase);
    void showError(const QString& message);
    /// Scrolls the dock to the result line (after a report or an error).
    void showResult();
    void updateSystemChoices();
    /// Lays the kernels and the run's settings side by side in the top or bottom dock area,
    /// one above the other elsewhere.
    void followArea();

    QBoxLayout* m_rows = nullptr;
    QListWidget* m_kernels = nullptr;
    QComboBox* m_system = nullptr;
    QSpinBox* m_bodies = nullptr;
    QSpinBox* m_steps = nullptr;
    QSpinBox* m_checkpoints = nullptr;
    QPushButton* m_startButton = nullptr;
    QWidget* m_kernelBox = nullptr;
    std::function<bool(std::size_t, double)> m_confirmLongRun; ///< empty: a message box asks ///< the kernel list and its All / None buttons
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_result = nullptr;
    QAction* m_reportAction = nullptr;
    QPointer<ValidationReportDialog> m_dialog;

    Phase m_phase = Phase::Idle;
    bool m_userChecked = false; ///< the user changed the checks: setKernel() no longer does
    QString m_kernelId;
    qulonglong m_currentBodies = 0;
    nbody::SimParams m_params;
    QThread* m_worker = nullptr;
    std::stop_source m_stop;
    QElapsedTimer m_clock;
    std::shared_ptr<const nbody::ValidationReport> m_report;
};

} // namespace nbody::app
