#pragma once
/// \file MainWindow.h
/// The main window: menus, toolbar, the Run and Kernel docks, the status bar, the frame pacing, and the
/// scripted mode of the command line (--steps / --capture / --quit). It owns the worker thread of
/// the SimulationController and talks to it only through queued signals.

#include "CaptureDialogs.h"
#include "FrameProtocol.h"
#include "KeyboardHelp.h"
#include "SimulationController.h"
#include "StepTimeAverage.h"

#include <QElapsedTimer>
#include <QMainWindow>
#include <QPointer>
#include <QThread>
#include <QTimer>

#include <optional>

class QAction;
class QActionGroup;
class QLabel;
class QMessageBox;
class QShortcut;

namespace nbody::app {

class Viewport;
class RunDock;
class SnapshotSaver;
class Autosave;
class KernelDock;
class ViewDock;
class DiagnosticsDock;
class DeviceDock;
class ScenarioMenus;
class ValidationDock;
class SelectionDock;
class LaunchPreview;

/// What the command line asks for beyond the first system.
struct Automation {
    QString capturePath; ///< write a PNG or JPEG of the view once the steps are done
    QSize captureSize;   ///< its size in pixels; empty: the view's size
    QString recordTarget; ///< record from the start: a directory (PNG files) or FILE.mp4
    int recordEvery = 1;  ///< steps between recorded frames
    QSize recordSize;     ///< empty: the view's size
    QString colourMode;   ///< a row of nbody::gl::colourModes(); empty: the system's default (group or mass)
    bool quit = false;   ///< exit then (0 on success)
    bool active() const { return !capturePath.isEmpty() || !recordTarget.isEmpty() || quit; }
};

/// The main window's size when it opens.
struct InitialGeometry {
    QSize size;             ///< the window's client size (the frame and title bar come on top)
    bool maximized = false; ///< opened maximised: the window manager fits frame and panels in
};
/// For a screen whose available area (QScreen::availableGeometry, which leaves out panels but
/// not the title bar the window manager adds) is `available`, px: the default 1280 × 820 when
/// it fits with `frameAllowance` px more for a title bar and borders, else the available size
/// and maximised (a 1366 × 768 laptop: a 1280 × 768 client area plus a title bar would run past
/// the bottom of the screen and hide the status bar).
InitialGeometry initialGeometry(QSize available, QSize wanted = QSize(1280, 820),
                                QSize frameAllowance = QSize(16, 48));

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    MainWindow(const StartupConfig& config, const Automation& automation, QWidget* parent = nullptr);
    ~MainWindow() override;
    /// The autosave and crash recovery (Autosave.h); null in scripted runs (Automation::active()).
    Autosave* autosave() const { return m_autosave; }

    /// Help → Keyboard shortcuts' rows: the menus' actions with shortcuts, the tools' mouse
    /// gestures, the view's keys (KeyboardHelp.h).
    QList<ShortcutRow> shortcutRows() const;
    /// The Simulation → Reverse time action and the Selection dock (for tests).
    QAction* reverseAction() const { return m_reverseAction; }
    SelectionDock* selectionDock() const { return m_selectionDock; }
    Viewport* viewport() const { return m_viewport; }

signals:
    // to the controller (queued: it lives on the worker thread)
    void frameRequested(const nbody::app::FrameRequest& request);
    void initializeRequested(const nbody::app::StartupConfig& config);
    void startRequested();
    void pauseRequested();
    void stepRequested();
    void resetRequested();
    void loadRequested(const QString& path);
    void kernelRequested(const QString& id);
    void framingRequested();
    void recordEveryRequested(int every);
    void followCentreRequested(bool follow);
    void undoRequested();
    void colourSourceRequested(int source);
    void reportBoundsRequested(bool report);
    void reverseRequested(bool reverse);
    void clearSelectionRequested();
    void launchFieldRequested(quint64 serial, qulonglong maxSources);

protected:
    void closeEvent(QCloseEvent* event) override;

private slots:
    void onTick();
    void onFrameReady(const nbody::app::FrameResult& result);
    void onRunningChanged(bool running);
    void onKernelChanged(const QString& id);
    void onParamsChanged(const nbody::SimParams& params);
    void onBodiesChanged(qulonglong n);
    void onCommandFailed(const QString& what, const QString& message);
    void onLoadFailed(const QString& path, const QString& message);
    void onStartupFailed(const QString& message);
    /// A GPU fault paused the run (FrameResult::cudaFailed): the message, the kernels' new
    /// availability, and "Continue on the CPU" (kernel `cpu`, then Start) or "Stay paused".
    void onGpuFault(const QString& text);
    void openFile();
    void exportFrame();
    void toggleRecording();
    void showAbout();
    void showShortcuts();
    void updateFps();

private:
    void createActions();
    void createMenusAndToolbar();
    void createStatusBar();
    void connectController();
    void shutdownController();
    void showWarning(const QString& title, const QString& text);
    void finishAutomation();
    void exitWith(int code, const QString& message);
    /// Renders and writes a pending export when no frame is in flight; false after a failure.
    bool runPendingExport();
    /// Opens the sink and asks the controller to flag every `every`-th step; false (with a
    /// message) when the target cannot be used.
    bool startRecording(const QString& target, QSize size, int every, double fps);
    /// Ends the recording: finalises it, or after `failure` reports it (what was written stays).
    void stopRecording(const QString& failure = QString());
    void recordFrame();
    void updateRecordUi();
    /// The status bar's "x ms/step · y fps" from m_stepTime and m_fps.
    void showStepTime();
    /// Forgets the step times (a new system): the status bar shows "–" until the next steps.
    void restartStepTime();
    /// A scripted run's last word on stdout: steps, mean ms/step after the first frame, fps.
    void printRunSummary() const;

    Viewport* m_viewport = nullptr;
    RunDock* m_runDock = nullptr;
    KernelDock* m_kernelDock = nullptr;
    ViewDock* m_viewDock = nullptr;
    DiagnosticsDock* m_diagnosticsDock = nullptr;
    DeviceDock* m_deviceDock = nullptr;
    ScenarioMenus* m_scenarioMenus = nullptr;
    ValidationDock* m_validationDock = nullptr;
    SelectionDock* m_selectionDock = nullptr;
    LaunchPreview* m_launchPreview = nullptr;
    quint64 m_launchSerial = 0;
    /// The time-scale readout: simulated time and wall clock at the last readout.
    QElapsedTimer m_timeScaleClock;
    double m_timeScaleSimTime = 0;
    double m_lastSimTime = 0;
    quint64 m_lastStep = 0;
    quint64 m_timeScaleStep = 0;
    void updateTimeScale();
    /// Simulation → Reverse time: checked from the parameters, disabled (saying why) while the
    /// collision system is on.
    void updateReverseAction(const nbody::SimParams& params);
    QThread m_thread;
    QPointer<SimulationController> m_controller;
    QTimer m_frameTimer;
    QTimer m_fpsTimer;
    QElapsedTimer m_fpsClock;
    quint64 m_fpsFrames = 0;
    double m_fps = 0.0;             ///< frames drawn per second over the last second
    StepTimeAverage m_stepTime;     ///< the status bar's ms/step (time in Simulation::step)
    QString m_stepTimeKernel;       ///< the kernel and N the average belongs to
    qulonglong m_stepTimeBodies = 0;
    double m_shownMsPerStep = -1.0; ///< the figure on display; < 0: none yet
    StepTimeTotals m_runTotals;     ///< since the system was created: printed at a scripted exit
    QElapsedTimer m_runClock;       ///< since the first stepping frame of the system
    quint64 m_runFrames = 0;        ///< frames drawn before it
    qulonglong m_bodies = 0;

    StartupConfig m_config;
    Automation m_automation;
    bool m_automationDone = false;
    bool m_exiting = false; ///< exitWith() was called

    // GUI-side view of the controller's state (from its change signals)
    bool m_running = false;
    bool m_frameWanted = true; ///< a command or a first upload needs a frame
    quint64 m_serial = 0;
    QString m_kernelId;
    std::optional<nbody::SimParams> m_params;
    QString m_lastFile;

    struct PendingExport {
        QString path;
        QSize size;
        int quality = 92;
    };
    std::optional<PendingExport> m_pendingExport;
    QString m_lastExport;
    std::optional<Recording> m_recording;
    QString m_ffmpegMissing; ///< why MP4 recording is unavailable ("" when ffmpeg is there)

    QAction* m_openAction = nullptr;
    SnapshotSaver* m_snapshotSaver = nullptr; ///< File → Save snapshot… (SnapshotDialogs.h)
    Autosave* m_autosave = nullptr;           ///< Autosave.h; null in scripted runs
    QAction* m_exportAction = nullptr;
    QAction* m_recordAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_startAction = nullptr;
    QAction* m_pauseAction = nullptr;
    QAction* m_stepAction = nullptr;
    QAction* m_resetAction = nullptr;
    QAction* m_resetCameraAction = nullptr;
    QAction* m_fitAction = nullptr;
    QAction* m_followAction = nullptr;
    QAction* m_reverseAction = nullptr;
    /// B while Reverse time is disabled (collisions on): says why in the status bar, instead of
    /// a key that does nothing.
    QShortcut* m_reverseRefused = nullptr;
    QString m_reverseWhy; ///< why Reverse time is disabled; empty while it is enabled
    QAction* m_followSelectionAction = nullptr;
    QAction* m_undoAction = nullptr;
    QActionGroup* m_toolGroup = nullptr;
    QAction* m_aboutAction = nullptr;
    QAction* m_shortcutsAction = nullptr;
    QPointer<ShortcutsDialog> m_shortcutsDialog;
    QActionGroup* m_kernelGroup = nullptr;

    QLabel* m_stepLabel = nullptr;
    QLabel* m_timeLabel = nullptr;
    QLabel* m_msLabel = nullptr;
    QLabel* m_rateLabel = nullptr;
    QLabel* m_interopLabel = nullptr;
    QLabel* m_recordLabel = nullptr;
    QPointer<QMessageBox> m_warningBox;
    QPointer<QMessageBox> m_faultBox; ///< "GPU fault": Continue on the CPU / Stay paused
};

} // namespace nbody::app
