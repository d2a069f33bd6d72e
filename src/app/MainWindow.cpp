#include "MainWindow.h"

#include "AppSettings.h"
#include "Autosave.h"
#include "DeviceDock.h"
#include "DevicePresenter.h"
#include "DiagnosticsDock.h"
#include "DiagnosticsPresenter.h"
#include "EditPresenter.h"
#include "FilePresenter.h"
#include "KernelDock.h"
#include "KernelPresenter.h"
#include "FieldRange.h"
#include "KeyboardFocus.h"
#include "MessageBar.h"
#include "RecordingPresenter.h"
#include "RunDock.h"
#include "RunPresenter.h"
#include "ScenarioMenus.h"
#include "SelectionDock.h"
#include "SelectionPresenter.h"
#include "StatusPresenter.h"
#include "ValidationDock.h"
#include "ValidationPresenter.h"
#include "ViewDock.h"
#include "ViewPresenter.h"
#include "Viewport.h"
#include "WheelFocus.h"

#include "sim/base/DeviceInfo.h"
#include "sim/core/Integrators.h"
#include "sim/core/KernelRegistry.h"
#include "sim/io/Scenarios.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QGuiApplication>
#include <QMenuBar>
#include <QMessageBox>
#include <QSaveFile>
#include <QScreen>
#include <QSettings>
#include <QToolBar>

#ifndef NBODY_VERSION
#define NBODY_VERSION "unknown"
#endif

namespace nbody::app {

namespace {

QString qstr(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

} // namespace

MainWindow::MainWindow(const StartupConfig& config, const Automation& automation, QWidget* parent)
    : QMainWindow(parent), m_config(config), m_automation(automation), m_notices(this, automation.active())
{
    setWindowTitle(tr("N-Body Sandbox"));
    setStatusBar(new MessageBar(this)); // long messages elided, whole in the tooltip
    m_viewport = new Viewport(this);
    setCentralWidget(m_viewport);
    createDocks();

    // The controller lives on the worker thread; it is deleted there when the thread finishes.
    m_controller = new SimulationController;
    m_controller->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_controller, &QObject::deleteLater);
    m_thread.setObjectName(QStringLiteral("simulation"));

    createPresenters();
    createFileMenu();
    createSimulationMenu();
    createEditMenu();
    createKernelMenus();
    createViewMenu(createToolBar());
    createHelpMenu();
    // Rows made from the registries (kernels, integrators, scenarios) get a mnemonic each, unique
    // in their menu, as the written ones are (tst_shortcuts walks every menu).
    for (QAction* top : menuBar()->actions())
        if (top->menu())
            assignMnemonics(top->menu());
    new KeyboardFocus(this, m_viewport); // keys in a field type; single-key shortcuts elsewhere
    new WheelFocus(this);                // the wheel over a dock scrolls it, not its fields
    new FieldRange(this);                // a number out of range is refused in its field
    if (!m_automation.active()) { // scripted runs neither autosave nor take the session marker
        m_autosave = new Autosave(this, {}, m_automation.useSettings);
        m_file->excludeFromRecent(m_autosave->autosavePath());
    }

    connectController();
    m_thread.start();

    // No worker may still use the mapped buffers when the viewport releases its GL resources.
    m_viewport->setBeforeCleanup([this] {
        if (m_controller && m_thread.isRunning())
            QMetaObject::invokeMethod(m_controller, [] {}, Qt::BlockingQueuedConnection);
    });
    connect(m_viewport, &Viewport::glFailed, this, [this](const QString& message) {
        m_notices.status(tr("OpenGL: %1").arg(message));
        if (m_automation.active())
            exitWith(1, QStringLiteral("OpenGL failed: ") + message);
        else
            m_notices.warn(tr("OpenGL"), message);
    });
    startTimersAndSize();
    // A GPU that this build has no code for: said once, non-modal (stderr in a scripted run).
    if (const std::string& why = nbody::cudaDeviceWithoutCode(); !why.empty())
        m_notices.report(tr("GPU"), tr("The CUDA kernels cannot run on this GPU: %1. The CPU kernels run instead.")
                                        .arg(QString::fromStdString(why)));
    if (m_automation.useSettings)
        restoreSettings(); // before startAutomation: --colour wins over the remembered colour mode
    startAutomation();
}

InitialGeometry initialGeometry(QSize available, QSize wanted, QSize frameAllowance)
{
    InitialGeometry g;
    g.size = wanted.boundedTo(available);
    g.maximized = wanted.width() + frameAllowance.width() > available.width() ||
                  wanted.height() + frameAllowance.height() > available.height();
    return g;
}

MainWindow::~MainWindow()
{
    shutdownController();
    m_viewport->setBeforeCleanup({});
}

// ---- construction ---------------------------------------------------------------------------

void MainWindow::createDocks()
{
    m_runDock = new RunDock(this);
    m_kernelDock = new KernelDock(this);
    if (const nbody::CudaRuntimeInfo cuda = nbody::queryCuda(); !cuda.devices.empty())
        m_kernelDock->setDevice(cuda.devices.front()); // the kernels run on device 0
    m_viewDock = new ViewDock(this);
    m_selectionDock = new SelectionDock(this);
    m_diagnosticsDock = new DiagnosticsDock(this);
    m_validationDock = new ValidationDock(this);
    m_deviceDock = new DeviceDock(this);
    applyDefaultLayout();
}

void MainWindow::applyDefaultLayout()
{
    // The default layout (in a trial at 1366 × 768, six tabs in the right-hand column
    // were elided to "Ke…", "V…", "Valid…"): the controls of a run — Run, Kernel, View and
    // Selection — are tabs of the right-hand column; the measurements — Diagnostics, Validation
    // and Device — are tabs of the bottom area, which has the window's width (its four charts
    // need about 1 100 px, so the bottom-right corner stays with it). Four titles fit the 340 px
    // column and three the bottom area (tst_dock_text checks that none is elided).
    // addDockWidget takes a dock from wherever it is (View → Reset layout), floating included.
    const QList<QDockWidget*> docks = {m_runDock,        m_kernelDock,     m_viewDock,  m_selectionDock,
                                       m_diagnosticsDock, m_validationDock, m_deviceDock};
    for (QDockWidget* dock : docks)
        if (dock->isFloating())
            dock->setFloating(false);
    addDockWidget(Qt::RightDockWidgetArea, m_runDock);
    addDockWidget(Qt::RightDockWidgetArea, m_kernelDock);
    tabifyDockWidget(m_runDock, m_kernelDock); // each gets the full height; Run is in front
    // Word-wrapped labels would ask for ~80 characters. The column keeps this width at least:
    // once the charts below scroll instead of holding the window wide, the layout would
    // otherwise give the view every pixel and squeeze the column to 140 px.
    constexpr int kColumnWidth = 340;
    for (QDockWidget* dock : {static_cast<QDockWidget*>(m_runDock), static_cast<QDockWidget*>(m_kernelDock),
                              static_cast<QDockWidget*>(m_viewDock), static_cast<QDockWidget*>(m_selectionDock)})
        dock->setMinimumWidth(kColumnWidth);
    resizeDocks({m_runDock}, {kColumnWidth}, Qt::Horizontal);
    addDockWidget(Qt::RightDockWidgetArea, m_viewDock);
    tabifyDockWidget(m_kernelDock, m_viewDock); // Run, Kernel and View share the column as tabs
    addDockWidget(Qt::RightDockWidgetArea, m_selectionDock);
    tabifyDockWidget(m_viewDock, m_selectionDock); // and Selection, raised when a body is picked
    addDockWidget(Qt::BottomDockWidgetArea, m_diagnosticsDock);
    addDockWidget(Qt::BottomDockWidgetArea, m_validationDock);
    tabifyDockWidget(m_diagnosticsDock, m_validationDock); // Diagnostics, Validation, Device at the bottom
    addDockWidget(Qt::BottomDockWidgetArea, m_deviceDock);
    tabifyDockWidget(m_validationDock, m_deviceDock);
    for (QDockWidget* dock : docks)
        dock->show();
    m_runDock->raise();
    m_diagnosticsDock->raise();
    // The group's height is the Diagnostics dock's own (the taller hints of the Validation and
    // Device docks took about 30 px from the view at 1366 × 768; they scroll).
    resizeDocks({m_diagnosticsDock}, {m_diagnosticsDock->sizeHint().height()}, Qt::Vertical);
    if (m_toolBar) {
        addToolBar(Qt::TopToolBarArea, m_toolBar);
        m_toolBar->show();
    }
}

void MainWindow::createPresenters()
{
    SimulationController* c = m_controller;
    m_status = new StatusPresenter(this, m_viewport, m_runDock, m_kernelDock, c, m_notices);
    m_recording = new RecordingPresenter(this, m_viewport, c, m_notices);
    m_file = new FilePresenter(this, c, m_notices);
    m_run = new RunPresenter(this, m_runDock, m_viewport, c, m_notices);
    m_view = new ViewPresenter(this, m_viewDock, m_viewport, c);
    m_selection = new SelectionPresenter(this, m_selectionDock, m_viewport, c, m_notices);
    m_edit = new EditPresenter(this, m_viewport, m_runDock, c, m_notices);
    m_kernel = new KernelPresenter(this, m_kernelDock, c, m_notices);
    new DiagnosticsPresenter(this, m_diagnosticsDock, c, m_notices);
    new ValidationPresenter(this, m_validationDock, c);
    m_device = new DevicePresenter(this, m_deviceDock, m_viewport, m_notices);
}

void MainWindow::createFileMenu()
{
    m_quitAction = new QAction(tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_file->openAction());
    file->addMenu(m_file->recentFiles()->menu());
    file->addAction(m_file->saveAction());
    file->addSeparator();
    m_file->addScenarioActions(file);
    file->addSeparator();
    file->addAction(m_recording->exportAction());
    file->addAction(m_recording->recordAction());
    file->setToolTipsVisible(true);
    file->addSeparator();
    file->addAction(m_quitAction);
}

void MainWindow::createSimulationMenu()
{
    QMenu* sim = menuBar()->addMenu(tr("&Simulation"));
    sim->addAction(m_run->startAction());
    sim->addAction(m_run->pauseAction());
    sim->addAction(m_run->stepAction());
    sim->addAction(m_run->reverseAction());
    sim->setToolTipsVisible(true);
    sim->addSeparator();
    sim->addAction(m_run->resetAction());
}

void MainWindow::createEditMenu()
{
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(m_edit->undoAction());
    edit->addAction(m_edit->redoAction());
    edit->addSeparator();
    edit->addActions(m_edit->toolActions());
}

void MainWindow::createKernelMenus()
{
    QMenu* kernel = menuBar()->addMenu(tr("&Kernel"));
    kernel->setToolTipsVisible(true);
    kernel->addActions(m_kernel->menuActions());
    menuBar()->addMenu(m_file->integratorMenu());
}

QToolBar* MainWindow::createToolBar()
{
    QToolBar* bar = addToolBar(tr("Simulation"));
    bar->setObjectName(QStringLiteral("SimulationToolBar"));
    m_toolBar = bar;
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(m_file->openAction());
    bar->addSeparator();
    bar->addAction(m_run->startAction());
    bar->addAction(m_run->pauseAction());
    bar->addAction(m_run->stepAction());
    bar->addAction(m_run->resetAction());
    bar->addSeparator();
    bar->addAction(m_view->resetCameraAction());
    bar->addSeparator();
    bar->addActions(m_edit->toolActions());
    bar->addAction(m_edit->undoAction());
    return bar;
}

void MainWindow::createViewMenu(QToolBar* bar)
{
    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_view->resetCameraAction());
    view->addAction(m_view->fitAction());
    view->addAction(m_view->followAction());
    view->addAction(m_selection->followSelectionAction());
    view->addSeparator();
    auto addToggle = [view](QAction* toggle, const QString& text) {
        toggle->setText(text);
        view->addAction(toggle);
    };
    addToggle(m_runDock->toggleViewAction(), tr("&Run dock"));
    addToggle(m_kernelDock->toggleViewAction(), tr("&Kernel dock"));
    addToggle(m_viewDock->toggleViewAction(), tr("&View dock"));
    addToggle(m_diagnosticsDock->toggleViewAction(), tr("&Diagnostics dock"));
    addToggle(m_validationDock->toggleViewAction(), tr("V&alidation dock"));
    view->addAction(m_validationDock->reportAction());
    addToggle(m_deviceDock->toggleViewAction(), tr("D&evice dock"));
    addToggle(m_selectionDock->toggleViewAction(), tr("Se&lection dock"));
    addToggle(bar->toggleViewAction(), tr("&Toolbar"));
    view->addSeparator();
    m_resetLayoutAction = new QAction(tr("Reset la&yout"), this);
    m_resetLayoutAction->setObjectName(QStringLiteral("resetLayoutAction"));
    m_resetLayoutAction->setStatusTip(tr("Put the docks and the toolbar back where a first start puts them, at the "
                                         "default window size"));
    connect(m_resetLayoutAction, &QAction::triggered, this, [this] {
        applyDefaultLayout();
        applyDefaultSize();
    });
    view->addAction(m_resetLayoutAction);
}

void MainWindow::createHelpMenu()
{
    m_aboutAction = new QAction(tr("&About N-Body Sandbox"), this);
    m_aboutAction->setObjectName(QStringLiteral("aboutAction"));
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::showAbout);
    m_shortcutsAction = new QAction(tr("&Keyboard shortcuts"), this);
    m_shortcutsAction->setObjectName(QStringLiteral("shortcutsAction"));
    m_shortcutsAction->setShortcut(QKeySequence::HelpContents);
    m_shortcutsAction->setStatusTip(tr("Every keyboard shortcut and mouse gesture"));
    connect(m_shortcutsAction, &QAction::triggered, this, &MainWindow::showShortcuts);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(m_shortcutsAction);
    help->addSeparator();
    help->addAction(m_aboutAction);
    help->addAction(m_deviceDock->aboutMachineAction());
}

void MainWindow::connectController()
{
    SimulationController* c = m_controller;
    connect(this, &MainWindow::frameRequested, c, &SimulationController::advance);
    connect(this, &MainWindow::initializeRequested, c, &SimulationController::initialize);
    connect(this, &MainWindow::startRequested, c, &SimulationController::start);
    connect(this, &MainWindow::pauseRequested, c, &SimulationController::pause);
    connect(this, &MainWindow::stepRequested, c, &SimulationController::stepOnce);
    connect(this, &MainWindow::resetRequested, c, &SimulationController::reset);
    connect(this, &MainWindow::kernelRequested, c, &SimulationController::setKernel);
    if (m_autosave)
        m_autosave->connectTo(c);
    // The presenters' run and kernel commands go out as the window's (one way to the controller).
    connect(m_run, &RunPresenter::startRequested, this, &MainWindow::startRequested);
    connect(m_run, &RunPresenter::pauseRequested, this, &MainWindow::pauseRequested);
    connect(m_run, &RunPresenter::stepRequested, this, &MainWindow::stepRequested);
    connect(m_run, &RunPresenter::resetRequested, this, &MainWindow::resetRequested);
    connect(m_kernel, &KernelPresenter::kernelRequested, this, &MainWindow::kernelRequested);
    connect(m_device, &DevicePresenter::continueOnCpuRequested, this, [this] {
        emit kernelRequested(QStringLiteral("cpu"));
        emit startRequested();
    });
    connect(m_recording, &RecordingPresenter::exitRequested, this, &MainWindow::exitWith);

    connect(c, &SimulationController::frameReady, this, &MainWindow::onFrameReady);
    connect(c, &SimulationController::workQueued, this, [this] { m_frameWanted = true; });
    connect(c, &SimulationController::runningChanged, this, &MainWindow::onRunningChanged);
    connect(c, &SimulationController::kernelChanged, this, &MainWindow::onKernelChanged);
    connect(c, &SimulationController::paramsChanged, this, &MainWindow::onParamsChanged);
    connect(c, &SimulationController::bodiesChanged, this, &MainWindow::onBodiesChanged);
    connect(c, &SimulationController::sourceChanged, this,
            [this](const QString& source) { setWindowTitle(tr("%1 — N-Body Sandbox").arg(source)); });
    connect(c, &SimulationController::commandFailed, this, &MainWindow::onCommandFailed);
    connect(c, &SimulationController::startupFailed, this, &MainWindow::onStartupFailed);
    connect(c, &SimulationController::scenarioStarted, this,
            [this](const QString& scenario, bool file, qulonglong bodies) {
                m_scenario = scenario;
                m_scenarioIsFile = file;
                m_scenarioBodies = bodies;
            });
}

void MainWindow::startAutomation()
{
    m_runDock->setStepsPerFrame(m_config.stepsPerFrame);
    m_runDock->setStepsToRun(m_config.stepsToRun);
    emit initializeRequested(m_config);
    if (m_autosave)
        m_autosave->start(); // the timer, and the restore offer after a crash
    if (!m_automation.colourMode.isEmpty())
        m_viewDock->selectColourMode(m_automation.colourMode);
    if (!m_automation.recordTarget.isEmpty()) {
        const QSize size = m_automation.recordSize.isEmpty() ? m_viewport->sizeHint() : m_automation.recordSize;
        if (!m_recording->startRecording(m_automation.recordTarget, size, m_automation.recordEvery, 30.0))
            QTimer::singleShot(0, this, [this] { exitWith(2, QString()); });
    }
}

void MainWindow::startTimersAndSize()
{
    m_frameTimer.setInterval(16);
    connect(&m_frameTimer, &QTimer::timeout, this, &MainWindow::onTick);
    m_frameTimer.start();

    applyDefaultSize();
}

void MainWindow::applyDefaultSize()
{
    // 1280 × 820, or maximised on a smaller screen (a 1366 × 768 laptop): the docks scroll.
    const QScreen* screen = isVisible() && this->screen() ? this->screen() : QGuiApplication::primaryScreen();
    const InitialGeometry g = screen ? initialGeometry(screen->availableGeometry().size())
                                     : InitialGeometry{QSize(1280, 820), false};
    if (g.maximized) {
        resize(g.size);
        setWindowState((windowState() & ~Qt::WindowFullScreen) | Qt::WindowMaximized);
    } else {
        setWindowState(windowState() & ~(Qt::WindowMaximized | Qt::WindowFullScreen));
        resize(g.size);
    }
}

RecentFiles* MainWindow::recentFiles() const
{
    return m_file->recentFiles();
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    // Each part on its own: data that does not fit (another Qt, another set of docks) leaves
    // that part as a first start has it.
    if (const QByteArray geometry = settings.value(QLatin1String(settingsKey::kGeometry)).toByteArray();
        !geometry.isEmpty())
        restoreGeometry(geometry);
    if (const QByteArray state = settings.value(QLatin1String(settingsKey::kState)).toByteArray(); !state.isEmpty())
        restoreState(state);
    settings.beginGroup(QLatin1String(settingsKey::kViewGroup));
    QVariantMap view;
    for (const QString& key : settings.childKeys())
        view.insert(key, settings.value(key));
    settings.endGroup();
    m_viewDock->setValues(view);

    const QStringList gone = m_file->recentFiles()->load();
    if (gone.isEmpty())
        return;
    QStringList names;
    for (const QString& path : gone)
        names << QDir::toNativeSeparators(path);
    const QString text = tr("%n file(s) of File → Open Recent no longer exist and were removed from the list:\n%1",
                            nullptr, int(gone.size()))
                             .arg(names.join(QLatin1Char('\n')));
    // Once the window is up; the list was written back without them, so the next start is silent.
    QTimer::singleShot(0, this, [this, text] {
        m_notices.status(text.section(QLatin1Char('\n'), 0, 0), 30000);
        m_notices.warn(tr("Recent files"), text);
    });
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QLatin1String(settingsKey::kGeometry), saveGeometry());
    settings.setValue(QLatin1String(settingsKey::kState), saveState());
    settings.remove(QLatin1String(settingsKey::kViewGroup));
    settings.beginGroup(QLatin1String(settingsKey::kViewGroup));
    const QVariantMap view = m_viewDock->values();
    for (auto it = view.constBegin(); it != view.constEnd(); ++it)
        settings.setValue(it.key(), it.value());
    settings.endGroup();
    if (!m_scenario.isEmpty()) {
        settings.setValue(QLatin1String(settingsKey::kScenario), m_scenario);
        settings.setValue(QLatin1String(settingsKey::kBodies), m_scenarioBodies);
    }
    // The user's kernel: not the one a scenario runs on of its own accord (the Solar System's
    // fp64 reference), which the next start of that scenario picks again anyway.
    const QString kernel = m_kernel->kernelId();
    const nbody::ScenarioInfo* row = m_scenarioIsFile ? nullptr : nbody::findScenario(m_scenario.toStdString());
    const bool scenariosOwn = row && !row->kernel.empty() && kernel == qstr(row->kernel);
    if (!kernel.isEmpty() && !scenariosOwn)
        settings.setValue(QLatin1String(settingsKey::kKernel), kernel);
}

QList<ShortcutRow> MainWindow::shortcutRows() const
{
    return nbody::app::shortcutRows(menuBar(), m_edit->toolActions());
}

QAction* MainWindow::reverseAction() const
{
    return m_run->reverseAction();
}

void MainWindow::showShortcuts()
{
    if (!m_shortcutsDialog) {
        m_shortcutsDialog = new ShortcutsDialog(shortcutRows(), this);
        m_shortcutsDialog->setAttribute(Qt::WA_DeleteOnClose);
    }
    m_shortcutsDialog->show();
    m_shortcutsDialog->raise();
    m_shortcutsDialog->activateWindow();
}

// ---- frame protocol -------------------------------------------------------------------------

void MainWindow::onTick()
{
    if (!m_controller || !m_viewport->isReady() || m_viewport->frameInFlight())
        return;
    if (!m_running && !m_frameWanted)
        return;
    FrameRequest request;
    if (!m_viewport->beginFrame(&request))
        return;
    m_frameWanted = false;
    request.serial = ++m_serial;
    emit frameRequested(request);
}

void MainWindow::onFrameReady(const FrameResult& result)
{
    m_viewport->finishFrame(result);
    if (result.centre)
        m_viewport->setCentre(glm::vec3(float(result.centre->x), float(result.centre->y), float(result.centre->z)));
    if (result.workPending)
        m_frameWanted = true;
    if (result.needCapacity > 0) {
        onTick(); // the buffers were reallocated: ask again at once
        return;
    }
    if (!result.valid)
        return;
    m_recording->onFrame(result);
    m_selection->onFrame(result);
    m_status->onFrame(result);
    if (!result.error.isEmpty())
        reportFrameError(result);
    checkAutomationDone(result);
}

void MainWindow::reportFrameError(const FrameResult& result)
{
    const QString text = result.error;
    m_notices.status(text.simplified(), 15000);
    if (result.cudaFailed)
        onGpuFault(text);
    else if (m_automation.active())
        Notices::printError(text.simplified());
    else
        m_notices.warn(tr("Simulation error"), text);
    if (m_automation.active() && !result.running)
        exitWith(1, result.cudaFailed ? QStringLiteral("GPU fault: ") + text.simplified() : QString());
}

void MainWindow::checkAutomationDone(const FrameResult& result)
{
    if (!m_automation.active() || m_automationDone)
        return;
    const bool drawn = result.hostPositions || result.deviceDrawn;
    const bool done = m_config.stepsToRun > 0 ? result.runFinished : (drawn && !result.workPending);
    if (done) {
        m_automationDone = true;
        QTimer::singleShot(0, this, &MainWindow::finishAutomation);
    }
}

// ---- controller state -----------------------------------------------------------------------

void MainWindow::onRunningChanged(bool running)
{
    m_running = running; // the Simulation menu's actions follow in RunPresenter
}

void MainWindow::onKernelChanged(const QString& id)
{
    m_status->setKernel(id);
    m_kernel->setKernel(id);
    m_run->setKernel(id);
}

void MainWindow::onParamsChanged(const nbody::SimParams& params)
{
    m_params = params;
    m_run->setParams(params);
    m_kernel->setParams(params);
    m_file->setParams(params);
    m_status->setParams(params);
}

void MainWindow::onBodiesChanged(qulonglong n)
{
    m_status->setBodies(n);
    m_run->setBodies(n);
    m_kernel->setBodies(n);
}

void MainWindow::onCommandFailed(const QString& what, const QString& message)
{
    // The controller kept the previous value: show it again.
    if (m_params)
        onParamsChanged(*m_params);
    onKernelChanged(m_kernel->kernelId());
    const QString text = tr("Could not apply %1: %2").arg(what, message);
    m_notices.status(text, 15000);
    static const QStringList kernelCommands = {QStringLiteral("kernel"), QStringLiteral("block size"),
                                               QStringLiteral("block rows"), QStringLiteral("tile width factor"),
                                               QStringLiteral("bodies per thread"), QStringLiteral("j-split"),
                                               QStringLiteral("unroll"), QStringLiteral("opening angle"),
                                               QStringLiteral("leaf size"), QStringLiteral("tuning")};
    const bool kernelCommand = kernelCommands.contains(what);
    if (kernelCommand)
        m_kernel->showRefusal(text);
    if (m_automation.active())
        Notices::printError(text);
    else if (!kernelCommand)
        m_notices.warn(tr("Not applied"), text);
}

void MainWindow::onStartupFailed(const QString& message)
{
    if (m_automation.active()) {
        exitWith(2, message); // an unreadable --input is bad input, as in the CLI
        return;
    }
    m_notices.status(message, 15000);
    m_notices.warn(tr("Start-up"), tr("%1\n\nThe default system is used instead.").arg(message));
}

void MainWindow::onGpuFault(const QString& text)
{
    // The controller paused at the last host copy; a lost CUDA context makes the CUDA rows
    // unavailable (with the reason) in the Kernel menu and dock.
    m_kernel->refreshAvailability();
    m_device->showGpuFault(text);
}

// ---- user actions ---------------------------------------------------------------------------

void MainWindow::showAbout()
{
    const QString gl = m_viewport->glDescription().isEmpty() ? tr("(no context yet)")
                                                             : m_viewport->glDescription();
    // The integrators from their registry (the Integrator menu's rows).
    QStringList integrators;
    for (const nbody::IntegratorInfo& i : nbody::integratorRegistry())
        integrators << ScenarioMenus::integratorTitle(i).toHtmlEscaped();
    QMessageBox::about(
        this, tr("About N-Body Sandbox"),
        tr("<h3>N-Body Sandbox %1</h3>"
           "<p>An interactive gravitational N-body simulator: all-pairs softened gravity, "
           "symplectic integrators, CPU and CUDA force kernels.</p>"
           "<table>"
           "<tr><td>Integrators:</td><td>%6</td></tr>"
           "<tr><td>Build:</td><td>%2</td></tr>"
           "<tr><td>OpenGL:</td><td>%3</td></tr>"
           "<tr><td>Positions:</td><td>%4</td></tr>"
           "<tr><td>Qt:</td><td>%5</td></tr>"
           "</table>")
            .arg(QStringLiteral(NBODY_VERSION),
                 nbody::builtWithCuda() ? tr("with CUDA") : tr("without CUDA (CPU kernels only)"),
                 gl.toHtmlEscaped(), m_viewport->interopState().toHtmlEscaped(),
                 QString::fromLatin1(qVersion()), integrators.join(QStringLiteral("<br>"))));
}

// ---- scripted runs and shutdown -------------------------------------------------------------

void MainWindow::finishAutomation()
{
    if (m_viewport->frameInFlight()) {
        // The buffers are mapped for a frame: capture once it is back (frames are short).
        QTimer::singleShot(5, this, &MainWindow::finishAutomation);
        return;
    }
    if (m_recording->recording())
        m_recording->stopRecording(); // finalises; a failure exits with 1
    if (m_exiting)
        return;
    if (!m_automation.capturePath.isEmpty()) {
        // Offscreen, like File → Export frame, through the same atomic writer as the command line.
        const QSize size = m_automation.captureSize.isEmpty() ? m_viewport->pixelSize() : m_automation.captureSize;
        if (!m_recording->exportFrame(m_automation.capturePath, size, 92))
            return;
    }
    if (!m_automation.windowCapturePath.isEmpty()) {
        // The window as it is on screen (QWidget::grab also reads the view's framebuffer), in
        // device pixels; written through QSaveFile, so a failed write leaves no partial file.
        const QImage image = grab().toImage();
        QSaveFile file(m_automation.windowCapturePath);
        if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit()) {
            exitWith(1, tr("cannot write the window capture '%1': %2")
                            .arg(m_automation.windowCapturePath, file.errorString()));
            return;
        }
    }
    if (m_automation.quit)
        exitWith(0, QString());
}

void MainWindow::exitWith(int code, const QString& message)
{
    if (m_exiting)
        return; // the first failure decides the exit code
    m_exiting = true;
    m_status->printRunSummary();
    if (!message.isEmpty())
        Notices::printError(message);
    shutdownController();
    QCoreApplication::exit(code);
}

void MainWindow::shutdownController()
{
    m_frameTimer.stop();
    if (!m_thread.isRunning())
        return;
    if (m_controller)
        m_controller->requestInterrupt(); // direct: a frame in progress stops at its next chunk
    if (m_controller)
        QMetaObject::invokeMethod(m_controller, &SimulationController::shutdown,
                                  Qt::BlockingQueuedConnection);
    m_thread.quit();
    m_thread.wait();
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (m_automation.useSettings)
        saveSettings();
    m_validationDock->cancel(); // its thread is joined when the dock is destroyed
    if (m_recording->recording())
        m_recording->stopRecording(); // finalise what was recorded
    shutdownController();
    event->accept();
}

} // namespace nbody::app
