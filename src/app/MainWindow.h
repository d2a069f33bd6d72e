#pragma once
/// \file MainWindow.h
/// The main window: menus, toolbar, the Run dock, the status bar, the frame pacing, and the
/// scripted mode of the command line (--steps / --capture / --quit). It owns the worker thread of
/// the SimulationController and talks to it only through queued signals.

#include "FrameProtocol.h"
#include "SimulationController.h"

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

namespace nbody::app {

class Viewport;
class RunDock;
class ScenarioMenus;

/// What the command line asks for beyond the first system.
struct Automation {
    QString capturePath; ///< write a PNG of the view once the steps are done
    bool quit = false;   ///< exit then (0 on success)
    bool active() const { return !capturePath.isEmpty() || quit; }
};

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    MainWindow(const StartupConfig& config, const Automation& automation, QWidget* parent = nullptr);
    ~MainWindow() override;

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
    void openFile();
    void showAbout();
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

    Viewport* m_viewport = nullptr;
    RunDock* m_runDock = nullptr;
    ScenarioMenus* m_scenarioMenus = nullptr;
    QThread m_thread;
    QPointer<SimulationController> m_controller;
    QTimer m_frameTimer;
    QTimer m_fpsTimer;
    QElapsedTimer m_fpsClock;
    quint64 m_fpsFrames = 0;

    StartupConfig m_config;
    Automation m_automation;
    bool m_automationDone = false;

    // GUI-side view of the controller's state (from its change signals)
    bool m_running = false;
    bool m_frameWanted = true; ///< a command or a first upload needs a frame
    quint64 m_serial = 0;
    QString m_kernelId;
    std::optional<nbody::SimParams> m_params;
    QString m_lastFile;

    QAction* m_openAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_startAction = nullptr;
    QAction* m_pauseAction = nullptr;
    QAction* m_stepAction = nullptr;
    QAction* m_resetAction = nullptr;
    QAction* m_resetCameraAction = nullptr;
    QAction* m_aboutAction = nullptr;
    QActionGroup* m_kernelGroup = nullptr;

    QLabel* m_stepLabel = nullptr;
    QLabel* m_timeLabel = nullptr;
    QLabel* m_msLabel = nullptr;
    QLabel* m_rateLabel = nullptr;
    QLabel* m_fpsLabel = nullptr;
    QLabel* m_interopLabel = nullptr;
    QPointer<QMessageBox> m_warningBox;
};

} // namespace nbody::app
