#pragma once
/// \file MainWindow.h
/// The main window: it builds the docks, the presenters that bind each of them to the
/// SimulationController (RunPresenter.h, KernelPresenter.h, …), the menus and the toolbar; it
/// paces the frames, and runs the scripted mode of the command line (--steps / --capture /
/// --quit). It owns the worker thread of the SimulationController and talks to it only through
/// queued signals.

#include "FrameProtocol.h"
#include "KeyboardHelp.h"
#include "Notices.h"
#include "SimulationController.h"

#include <QMainWindow>
#include <QPointer>
#include <QThread>
#include <QTimer>

#include <optional>

class QAction;
class QToolBar;

namespace nbody::app {

class Viewport;
class RunDock;
class Autosave;
class KernelDock;
class RecentFiles;
class ViewDock;
class DiagnosticsDock;
class DeviceDock;
class ValidationDock;
class SelectionDock;
class StatusPresenter;
class RecordingPresenter;
class RunPresenter;
class KernelPresenter;
class ViewPresenter;
class SelectionPresenter;
class EditPresenter;
class FilePresenter;
class DevicePresenter;

/// What the command line asks for beyond the first system.
struct Automation {
    QString capturePath; ///< write a PNG or JPEG of the view once the steps are done
    QSize captureSize;   ///< its size in pixels; empty: the view's size
    QString windowCapturePath; ///< write a PNG of the whole window (docks, view, status bar) then
    QString recordTarget; ///< record from the start: a directory (PNG files) or FILE.mp4
    int recordEvery = 1;  ///< steps between recorded frames
    QSize recordSize;     ///< empty: the view's size
    QString colourMode;   ///< a row of nbody::gl::colourModes(); empty: the system's default (group or mass)
    bool quit = false;   ///< exit then (0 on success)
    /// Restore the window's geometry and docks, File → Open Recent and the View dock from
    /// QSettings, and save them (with the scenario and kernel) at close (AppSettings.h).
    /// readCommandLine sets it unless --no-settings or a scripted run (active()).
    bool useSettings = false;
    bool active() const
    {
        return !capturePath.isEmpty() || !windowCapturePath.isEmpty() || !recordTarget.isEmpty() || quit;
    }
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
    QAction* reverseAction() const;
    SelectionDock* selectionDock() const { return m_selectionDock; }
    Viewport* viewport() const { return m_viewport; }
    /// The controller, on its worker thread (for tests: connect to its signals; call its slots queued).
    SimulationController* controller() const { return m_controller; }
    /// File → Open Recent's list.
    RecentFiles* recentFiles() const;
    /// View → Reset layout: the docks where a first start puts them, the toolbar, the default size.
    QAction* resetLayoutAction() const { return m_resetLayoutAction; }
    /// The window's default size (1280 × 820, or maximised on a smaller screen: initialGeometry).
    void applyDefaultSize();
    /// The docks and the toolbar where a first start puts them, all shown, none floating.
    void applyDefaultLayout();

signals:
    // to the controller (queued: it lives on the worker thread)
    void frameRequested(const nbody::app::FrameRequest& request);
    void initializeRequested(const nbody::app::StartupConfig& config);
    void startRequested();
    void pauseRequested();
    void stepRequested();
    void resetRequested();
    void kernelRequested(const QString& id);

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
    void onStartupFailed(const QString& message);
    /// A GPU fault paused the run (FrameResult::cudaFailed): the message, the kernels' new
    /// availability, and "Continue on the CPU" (kernel `cpu`, then Start) or "Stay paused".
    void onGpuFault(const QString& text);
    void showAbout();
    void showShortcuts();

private:
    void createDocks();
    void createPresenters();
    void createFileMenu();
    void createSimulationMenu();
    void createEditMenu();
    void createKernelMenus();
    QToolBar* createToolBar();
    void createViewMenu(QToolBar* bar);
    void createHelpMenu();
    /// With Automation::useSettings: the geometry, docks, recent files and View dock from
    /// QSettings (AppSettings.h); files of the list that are gone are dropped, and said so once.
    void restoreSettings();
    /// With Automation::useSettings: the geometry, docks, scenario, kernel and View dock into QSettings.
    void saveSettings() const;
    /// The window's own commands to the controller, and the presenters' that go through them.
    void connectController();
    void startAutomation();
    void startTimersAndSize();
    void shutdownController();
    /// A frame's error: the status bar, then the GPU fault box, stderr or a warning.
    void reportFrameError(const FrameResult& result);
    /// A scripted run is done once its steps ran (or its first frame was drawn).
    void checkAutomationDone(const FrameResult& result);
    void finishAutomation();
    void exitWith(int code, const QString& message);

    Viewport* m_viewport = nullptr;
    RunDock* m_runDock = nullptr;
    KernelDock* m_kernelDock = nullptr;
    ViewDock* m_viewDock = nullptr;
    DiagnosticsDock* m_diagnosticsDock = nullptr;
    DeviceDock* m_deviceDock = nullptr;
    ValidationDock* m_validationDock = nullptr;
    SelectionDock* m_selectionDock = nullptr;

    StatusPresenter* m_status = nullptr;
    RecordingPresenter* m_recording = nullptr;
    RunPresenter* m_run = nullptr;
    KernelPresenter* m_kernel = nullptr;
    ViewPresenter* m_view = nullptr;
    SelectionPresenter* m_selection = nullptr;
    EditPresenter* m_edit = nullptr;
    FilePresenter* m_file = nullptr;
    DevicePresenter* m_device = nullptr;

    QThread m_thread;
    QPointer<SimulationController> m_controller;
    QTimer m_frameTimer;

    StartupConfig m_config;
    Automation m_automation;
    Notices m_notices;
    bool m_automationDone = false;
    bool m_exiting = false; ///< exitWith() was called

    // GUI-side view of the controller's state (from its change signals)
    bool m_running = false;
    bool m_frameWanted = true; ///< a command or a first upload needs a frame
    quint64 m_serial = 0;
    std::optional<nbody::SimParams> m_params;

    Autosave* m_autosave = nullptr; ///< Autosave.h; null in scripted runs
    QAction* m_quitAction = nullptr;
    QAction* m_aboutAction = nullptr;
    QAction* m_shortcutsAction = nullptr;
    QAction* m_resetLayoutAction = nullptr;
    QToolBar* m_toolBar = nullptr;
    /// The last scenario started (scenarioStarted): a registry id or a scenario file's path, its N.
    QString m_scenario;
    bool m_scenarioIsFile = false;
    qulonglong m_scenarioBodies = 0;
    QPointer<ShortcutsDialog> m_shortcutsDialog;
};

} // namespace nbody::app
