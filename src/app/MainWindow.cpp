#include "MainWindow.h"

#include "Autosave.h"

#include <QGuiApplication>
#include <QScreen>

#include "DeviceDock.h"
#include "KernelDock.h"
#include "DiagnosticsDock.h"
#include "KeyboardFocus.h"
#include "KeyboardHelp.h"
#include "RunDock.h"
#include "SnapshotDialogs.h"
#include "ViewDock.h"
#include "ScenarioMenus.h"
#include "SelectionDock.h"
#include "LaunchPreview.h"
#include "ValidationDock.h"
#include "Viewport.h"

#include "gl/FrameSink.h"
#include "gl/Renderer.h"
#include "sim/base/DeviceInfo.h"
#include "sim/core/Integrators.h"
#include "sim/core/KernelRegistry.h"

#include <QAction>
#include <QActionGroup>
#include <QCheckBox>
#include <QSignalBlocker>
#include <QApplication>
#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QShortcut>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>

#include <cstdio>

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
    : QMainWindow(parent), m_config(config), m_automation(automation)
{
    setWindowTitle(tr("N-Body Sandbox"));
    m_viewport = new Viewport(this);
    setCentralWidget(m_viewport);
    // The default layout (in a trial at 1366 × 768, six tabs in the right-hand column
    // were elided to "Ke…", "V…", "Valid…"): the controls of a run — Run, Kernel, View and
    // Selection — are tabs of the right-hand column; the measurements — Diagnostics, Validation
    // and Device — are tabs of the bottom area, which has the window's width (its four charts
    // need about 1 100 px, so the bottom-right corner stays with it). Four titles fit the 340 px
    // column and three the bottom area (tst_dock_text checks that none is elided).
    m_runDock = new RunDock(this);
    addDockWidget(Qt::RightDockWidgetArea, m_runDock);
    m_kernelDock = new KernelDock(this);
    if (const nbody::CudaRuntimeInfo cuda = nbody::queryCuda(); !cuda.devices.empty())
        m_kernelDock->setDevice(cuda.devices.front()); // the kernels run on device 0
    addDockWidget(Qt::RightDockWidgetArea, m_kernelDock);
    tabifyDockWidget(m_runDock, m_kernelDock); // each gets the full height; Run is in front
    resizeDocks({m_runDock}, {340}, Qt::Horizontal); // word-wrapped labels would ask for ~80 characters
    m_viewDock = new ViewDock(this);
    addDockWidget(Qt::RightDockWidgetArea, m_viewDock);
    tabifyDockWidget(m_kernelDock, m_viewDock); // Run, Kernel and View share the column as tabs
    m_selectionDock = new SelectionDock(this);
    addDockWidget(Qt::RightDockWidgetArea, m_selectionDock);
    tabifyDockWidget(m_viewDock, m_selectionDock); // and Selection, raised when a body is picked
    m_runDock->raise();
    m_diagnosticsDock = new DiagnosticsDock(this);
    addDockWidget(Qt::BottomDockWidgetArea, m_diagnosticsDock);
    m_validationDock = new ValidationDock(this);
    addDockWidget(Qt::BottomDockWidgetArea, m_validationDock);
    tabifyDockWidget(m_diagnosticsDock, m_validationDock); // Diagnostics, Validation, Device at the bottom
    m_deviceDock = new DeviceDock(this);
    addDockWidget(Qt::BottomDockWidgetArea, m_deviceDock);
    tabifyDockWidget(m_validationDock, m_deviceDock);
    m_diagnosticsDock->raise();
    // The group's height is the Diagnostics dock's own (the taller hints of the Validation and
    // Device docks took about 30 px from the view at 1366 × 768; they scroll).
    resizeDocks({m_diagnosticsDock}, {m_diagnosticsDock->sizeHint().height()}, Qt::Vertical);
    m_launchPreview = new LaunchPreview(this);
    connect(m_viewDock, &ViewDock::colourModeChanged, this, [this](const nbody::gl::ColourMode* mode) {
        m_viewport->setColourMode(mode);
        if (mode)
            emit colourSourceRequested(static_cast<int>(mode->source));
    });
    connect(m_viewDock, &ViewDock::pointSizeChanged, m_viewport, &Viewport::setPointSize);
    connect(m_viewDock, &ViewDock::additiveChanged, m_viewport, &Viewport::setAdditive);
    connect(m_viewDock, &ViewDock::legendToggled, m_viewport, &Viewport::setLegendVisible);
    connect(m_viewDock, &ViewDock::axesToggled, m_viewport, &Viewport::setShowAxes);
    connect(m_viewDock, &ViewDock::trailsToggled, m_viewport, &Viewport::setTrails);
    connect(m_viewDock, &ViewDock::trailSecondsChanged, m_viewport, &Viewport::setTrailSeconds);
    connect(m_viewDock, &ViewDock::autoExposureToggled, m_viewport, &Viewport::setAutoExposure);
    connect(m_viewDock, &ViewDock::exposureEvChanged, m_viewport, &Viewport::setExposureEv);
    connect(m_viewDock, &ViewDock::sizeByDistanceToggled, m_viewport, &Viewport::setSizeByDistance);
    connect(m_viewDock, &ViewDock::labelsToggled, m_viewport, &Viewport::setLabelsVisible);
    connect(m_viewport, &Viewport::systemReplaced, m_viewDock, &ViewDock::suggestColourMode);
    connect(m_viewDock, &ViewDock::boundsToggled, this, [this](bool on) {
        m_viewport->setShowBounds(on);
        emit reportBoundsRequested(on);
    });

    m_scenarioMenus = new ScenarioMenus(this);
    createActions();
    createMenusAndToolbar();
    createStatusBar();
    new KeyboardFocus(this, m_viewport); // single-key shortcuts after typing in a dock field
    if (!m_automation.active()) // scripted runs neither autosave nor take the session marker
        m_autosave = new Autosave(this);

    // The controller lives on the worker thread; it is deleted there when the thread finishes.
    m_controller = new SimulationController;
    m_controller->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_controller, &QObject::deleteLater);
    m_thread.setObjectName(QStringLiteral("simulation"));
    connectController();
    m_thread.start();

    // No worker may still use the mapped buffers when the viewport releases its GL resources.
    m_viewport->setBeforeCleanup([this] {
        if (m_controller && m_thread.isRunning())
            QMetaObject::invokeMethod(m_controller, [] {}, Qt::BlockingQueuedConnection);
    });
    connect(m_viewport, &Viewport::interopStateChanged, this, [this](const QString& s) {
        // The status bar names the path ("CUDA-GL interop", "host upload"), whole; the reason
        // why not is in its tooltip, the Run dock and the Device dock.
        m_interopLabel->setText(s.section(QLatin1Char(':'), 0, 0).trimmed());
        m_interopLabel->setToolTip(tr("Positions: %1").arg(s));
        m_runDock->setInteropState(s);
        m_deviceDock->setGlContext(m_viewport->glContextInfo());
    });
    connect(m_viewport, &Viewport::glInitialized, this,
            [this] { m_deviceDock->setGlContext(m_viewport->glContextInfo()); });
    connect(m_viewport, &Viewport::glFailed, this, [this](const QString& message) {
        statusBar()->showMessage(tr("OpenGL: %1").arg(message));
        if (m_automation.active())
            exitWith(1, QStringLiteral("OpenGL failed: ") + message);
        else
            showWarning(tr("OpenGL"), message);
    });

    m_runDock->setStepsPerFrame(config.stepsPerFrame);
    m_runDock->setStepsToRun(config.stepsToRun);
    emit initializeRequested(config);
    if (m_autosave)
        m_autosave->start(); // the timer, and the restore offer after a crash
    if (!m_automation.colourMode.isEmpty())
        m_viewDock->selectColourMode(m_automation.colourMode);
    if (!m_automation.recordTarget.isEmpty()) {
        const QSize size = m_automation.recordSize.isEmpty() ? m_viewport->sizeHint() : m_automation.recordSize;
        if (!startRecording(m_automation.recordTarget, size, m_automation.recordEvery, 30.0))
            QTimer::singleShot(0, this, [this] { exitWith(2, QString()); });
    }

    m_frameTimer.setInterval(16);
    connect(&m_frameTimer, &QTimer::timeout, this, &MainWindow::onTick);
    m_frameTimer.start();
    m_fpsTimer.setInterval(1000);
    connect(&m_fpsTimer, &QTimer::timeout, this, &MainWindow::updateFps);
    m_fpsTimer.start();
    m_fpsClock.start();

    // 1280 × 820, or maximised on a smaller screen (a 1366 × 768 laptop): the docks scroll.
    if (const QScreen* screen = QGuiApplication::primaryScreen()) {
        const InitialGeometry g = initialGeometry(screen->availableGeometry().size());
        resize(g.size);
        if (g.maximized)
            setWindowState(windowState() | Qt::WindowMaximized);
    } else {
        resize(1280, 820);
    }
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

void MainWindow::createActions()
{
    QStyle* s = style();
    m_openAction = new QAction(s->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open snapshot…"), this);
    m_openAction->setShortcut(QKeySequence::Open);
    m_openAction->setStatusTip(tr("Open a snapshot (HDF5, CSV or Tipsy)"));
    connect(m_openAction, &QAction::triggered, this, &MainWindow::openFile);
    m_snapshotSaver = new SnapshotSaver(this);

    m_exportAction = new QAction(tr("E&xport frame…"), this);
    m_exportAction->setShortcut(Qt::CTRL | Qt::Key_E);
    m_exportAction->setStatusTip(tr("Save the view as PNG or JPEG, at the view's size or a chosen one"));
    connect(m_exportAction, &QAction::triggered, this, &MainWindow::exportFrame);

    {
        std::string why;
        if (nbody::gl::findFfmpeg(&why).empty())
            m_ffmpegMissing = QString::fromStdString(why);
    }
    m_recordAction = new QAction(m_ffmpegMissing.isEmpty() ? tr("&Record…")
                                                           : tr("&Record… (image sequences only: ffmpeg not found)"),
                                 this);
    m_recordAction->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_R);
    m_recordAction->setStatusTip(m_ffmpegMissing.isEmpty()
                                     ? tr("Record every k-th step as numbered PNG files or an MP4 video")
                                     : tr("Record every k-th step as numbered PNG files; MP4 needs ffmpeg: %1")
                                           .arg(m_ffmpegMissing));
    m_recordAction->setToolTip(m_recordAction->statusTip());
    connect(m_recordAction, &QAction::triggered, this, &MainWindow::toggleRecording);

    m_quitAction = new QAction(tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    m_startAction = new QAction(s->standardIcon(QStyle::SP_MediaPlay), tr("&Start"), this);
    m_startAction->setShortcut(Qt::Key_Space);
    m_startAction->setStatusTip(tr("Run the simulation"));
    connect(m_startAction, &QAction::triggered, this, &MainWindow::startRequested);

    m_pauseAction = new QAction(s->standardIcon(QStyle::SP_MediaPause), tr("&Pause"), this);
    m_pauseAction->setShortcut(Qt::Key_P);
    m_pauseAction->setEnabled(false);
    connect(m_pauseAction, &QAction::triggered, this, [this] {
        if (m_controller)
            m_controller->requestInterrupt(); // direct: stops a long frame at its next chunk
        emit pauseRequested();
    });

    m_stepAction = new QAction(s->standardIcon(QStyle::SP_MediaSkipForward), tr("S&tep"), this);
    m_stepAction->setShortcut(Qt::Key_N);
    m_stepAction->setStatusTip(tr("Advance one step"));
    connect(m_stepAction, &QAction::triggered, this, &MainWindow::stepRequested);

    m_resetAction = new QAction(s->standardIcon(QStyle::SP_BrowserReload), tr("&Reset"), this);
    m_resetAction->setShortcut(Qt::CTRL | Qt::Key_R);
    m_resetAction->setStatusTip(tr("Back to the initial state of the system"));
    connect(m_resetAction, &QAction::triggered, this, &MainWindow::resetRequested);

    m_resetCameraAction = new QAction(s->standardIcon(QStyle::SP_DesktopIcon), tr("Reset &camera"), this);
    m_resetCameraAction->setShortcut(Qt::Key_F);
    m_resetCameraAction->setStatusTip(tr("Frame the whole system"));
    connect(m_resetCameraAction, &QAction::triggered, this, &MainWindow::framingRequested);

    m_fitAction = new QAction(tr("&Fit to system"), this);
    m_fitAction->setShortcut(Qt::SHIFT | Qt::Key_F);
    m_fitAction->setStatusTip(tr("Frame the whole system, keeping the viewing direction"));
    connect(m_fitAction, &QAction::triggered, this, [this] {
        m_viewport->setFitKeepsDirection(true);
        emit framingRequested();
    });
    m_followAction = new QAction(tr("F&ollow centre of mass"), this);
    m_followAction->setCheckable(true);
    m_followAction->setShortcut(Qt::Key_C);
    m_followAction->setStatusTip(tr("Keep the centre of mass in the middle of the view (copies GPU state to the host "
                                    "each frame)"));
    connect(m_followAction, &QAction::toggled, this, [this](bool on) {
        m_viewport->setFollowCentre(on);
        emit followCentreRequested(on);
    });

    m_followSelectionAction = new QAction(tr("Follow &selected body"), this);
    m_followSelectionAction->setObjectName(QStringLiteral("followSelectionAction"));
    m_followSelectionAction->setCheckable(true);
    m_followSelectionAction->setShortcut(Qt::Key_L);
    m_followSelectionAction->setStatusTip(tr("Keep the selected body (click one in the Navigate tool) in the middle "
                                             "of the view"));
    connect(m_followSelectionAction, &QAction::toggled, this, [this](bool on) { m_viewport->setFollowSelection(on); });

    m_reverseAction = new QAction(tr("Re&verse time"), this);
    m_reverseAction->setObjectName(QStringLiteral("reverseAction"));
    m_reverseAction->setCheckable(true);
    m_reverseAction->setShortcut(Qt::Key_B);
    m_reverseAction->setStatusTip(tr("Run backwards in time from the current state: steps of −dt retrace the "
                                     "trajectory (KDK leapfrog and Yoshida are time-symmetric)"));
    m_reverseAction->setToolTip(m_reverseAction->statusTip());
    connect(m_reverseAction, &QAction::triggered, this, [this](bool on) { emit reverseRequested(on); });
    m_reverseRefused = new QShortcut(m_reverseAction->shortcut(), this);
    m_reverseRefused->setObjectName(QStringLiteral("reverseRefusedShortcut"));
    m_reverseRefused->setEnabled(false); // only while the action is disabled: no ambiguous B
    connect(m_reverseRefused, &QShortcut::activated, this, [this] {
        statusBar()->showMessage(m_reverseWhy, 10000);
    });

    m_toolGroup = new QActionGroup(this);
    m_toolGroup->setExclusive(true);
    const struct {
        Viewport::Tool tool;
        QString text, tip;
        QKeySequence key;
    } tools[] = {
        {Viewport::Tool::Navigate, tr("&Navigate"),
         tr("Left-drag orbits, right-drag pans, the wheel zooms; a click selects a body"),
         QKeySequence(Qt::Key_1)},
        {Viewport::Tool::AddBody, tr("Add &body"),
         tr("Click to add a heavy body there; drag to give it a velocity: the predicted path shows while dragging"),
         QKeySequence(Qt::Key_2)},
        {Viewport::Tool::AddCluster, tr("Add &cluster"),
         tr("Click to add a small Plummer cluster (64 bodies) there; drag to give it a velocity"),
         QKeySequence(Qt::Key_3)},
        {Viewport::Tool::Delete, tr("&Delete region"), tr("Drag a rectangle: the bodies inside are removed"),
         QKeySequence(Qt::Key_4)},
    };
    for (const auto& t : tools) {
        auto* a = new QAction(t.text, m_toolGroup);
        a->setCheckable(true);
        a->setShortcut(t.key);
        a->setStatusTip(t.tip);
        a->setToolTip(t.tip);
        a->setChecked(t.tool == Viewport::Tool::Navigate);
        const Viewport::Tool tool = t.tool;
        connect(a, &QAction::triggered, this, [this, tool] { m_viewport->setTool(tool); });
    }
    m_undoAction = new QAction(tr("&Undo edit"), this);
    m_undoAction->setShortcut(QKeySequence::Undo);
    m_undoAction->setEnabled(false);
    m_undoAction->setStatusTip(tr("Undo the last add or delete (the simulation keeps running)"));
    connect(m_undoAction, &QAction::triggered, this, &MainWindow::undoRequested);

    m_aboutAction = new QAction(tr("&About N-Body Sandbox"), this);
    m_aboutAction->setObjectName(QStringLiteral("aboutAction"));
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::showAbout);
    m_shortcutsAction = new QAction(tr("&Keyboard shortcuts"), this);
    m_shortcutsAction->setObjectName(QStringLiteral("shortcutsAction"));
    m_shortcutsAction->setShortcut(QKeySequence::HelpContents);
    m_shortcutsAction->setStatusTip(tr("Every keyboard shortcut and mouse gesture"));
    connect(m_shortcutsAction, &QAction::triggered, this, &MainWindow::showShortcuts);

    m_kernelGroup = new QActionGroup(this);
    m_kernelGroup->setObjectName(QStringLiteral("kernelGroup"));
    m_kernelGroup->setExclusive(true);
    for (const nbody::KernelInfo& k : nbody::kernelRegistry()) {
        // "Tiled shared memory (CUDA)" -> "Tiled shared memory (CUDA, fp32)"
        QString text = qstr(k.name);
        const QString precision = qstr(nbody::toString(k.precision));
        if (text.endsWith(QLatin1Char(')')))
            text.insert(text.size() - 1, QStringLiteral(", ") + precision);
        else
            text += QStringLiteral(" (") + precision + QStringLiteral(")");
        auto* a = new QAction(text, m_kernelGroup);
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

void MainWindow::createMenusAndToolbar()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openAction);
    file->addAction(m_snapshotSaver->action());
    file->addSeparator();
    m_scenarioMenus->addFileActions(file);
    file->addSeparator();
    file->addAction(m_exportAction);
    file->addAction(m_recordAction);
    file->setToolTipsVisible(true);
    file->addSeparator();
    file->addAction(m_quitAction);

    QMenu* sim = menuBar()->addMenu(tr("&Simulation"));
    sim->addAction(m_startAction);
    sim->addAction(m_pauseAction);
    sim->addAction(m_stepAction);
    sim->addAction(m_reverseAction);
    sim->setToolTipsVisible(true);
    sim->addSeparator();
    sim->addAction(m_resetAction);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(m_undoAction);
    edit->addSeparator();
    edit->addActions(m_toolGroup->actions());

    QMenu* kernel = menuBar()->addMenu(tr("&Kernel"));
    kernel->setToolTipsVisible(true);
    kernel->addActions(m_kernelGroup->actions());
    menuBar()->addMenu(m_scenarioMenus->integratorMenu());

    QToolBar* bar = addToolBar(tr("Simulation"));
    bar->setObjectName(QStringLiteral("SimulationToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(m_openAction);
    bar->addSeparator();
    bar->addAction(m_startAction);
    bar->addAction(m_pauseAction);
    bar->addAction(m_stepAction);
    bar->addAction(m_resetAction);
    bar->addSeparator();
    bar->addAction(m_resetCameraAction);
    bar->addSeparator();
    bar->addActions(m_toolGroup->actions());
    bar->addAction(m_undoAction);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_resetCameraAction);
    view->addAction(m_fitAction);
    view->addAction(m_followAction);
    view->addAction(m_followSelectionAction);
    view->addSeparator();
    QAction* dockToggle = m_runDock->toggleViewAction();
    dockToggle->setText(tr("&Run dock"));
    view->addAction(dockToggle);
    QAction* kernelToggle = m_kernelDock->toggleViewAction();
    kernelToggle->setText(tr("&Kernel dock"));
    view->addAction(kernelToggle);
    QAction* viewDockToggle = m_viewDock->toggleViewAction();
    viewDockToggle->setText(tr("&View dock"));
    view->addAction(viewDockToggle);
    QAction* diagnosticsToggle = m_diagnosticsDock->toggleViewAction();
    diagnosticsToggle->setText(tr("&Diagnostics dock"));
    view->addAction(diagnosticsToggle);
    QAction* validationToggle = m_validationDock->toggleViewAction();
    validationToggle->setText(tr("V&alidation dock"));
    view->addAction(validationToggle);
    view->addAction(m_validationDock->reportAction());
    QAction* deviceToggle = m_deviceDock->toggleViewAction();
    deviceToggle->setText(tr("D&evice dock"));
    view->addAction(deviceToggle);
    QAction* selectionToggle = m_selectionDock->toggleViewAction();
    selectionToggle->setText(tr("Se&lection dock"));
    view->addAction(selectionToggle);
    QAction* barToggle = bar->toggleViewAction();
    barToggle->setText(tr("&Toolbar"));
    view->addAction(barToggle);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(m_shortcutsAction);
    help->addSeparator();
    help->addAction(m_aboutAction);
    help->addAction(m_deviceDock->aboutMachineAction());

    // Rows made from the registries (kernels, integrators, scenarios) get a mnemonic each, unique
    // in their menu, as the written ones are (tst_shortcuts walks every menu).
    for (QAction* top : menuBar()->actions())
        if (top->menu())
            assignMnemonics(top->menu());
}

QList<ShortcutRow> MainWindow::shortcutRows() const
{
    return nbody::app::shortcutRows(menuBar(), m_toolGroup->actions());
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

void MainWindow::createStatusBar()
{
    auto add = [this](const QString& tip, int minWidth) {
        auto* l = new QLabel(this);
        l->setToolTip(tip);
        l->setMinimumWidth(minWidth);
        l->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        statusBar()->addPermanentWidget(l);
        return l;
    };
    m_stepLabel = add(tr("Steps taken since the system was created or loaded"), 90);
    m_timeLabel = add(tr("Simulated time"), 110);
    m_msLabel = add(tr("Time per step: the wall time spent in the simulation's step (device synchronised), "
                       "averaged over the last one to two seconds; and frames drawn per second"),
                    170);
    m_rateLabel = add(tr("Pairwise interactions per second (N² per step)"), 110);
    m_interopLabel = add(QString(), 0);
    m_interopLabel->setObjectName(QStringLiteral("interopLabel"));
    m_interopLabel->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_stepLabel->setObjectName(QStringLiteral("stepLabel"));
    m_timeLabel->setObjectName(QStringLiteral("timeLabel"));
    m_rateLabel->setObjectName(QStringLiteral("rateLabel"));
    m_msLabel->setObjectName(QStringLiteral("msLabel"));
    m_stepLabel->setText(tr("step 0"));
    m_timeLabel->setText(tr("t = 0"));
    showStepTime();
    m_rateLabel->setText(tr("– int/s"));
    m_interopLabel->setText(tr("starting…"));
    m_recordLabel = new QLabel(this);
    m_recordLabel->setStyleSheet(QStringLiteral("QLabel { color: white; background: #d01010; font-weight: bold; "
                                                "padding: 0 6px; border-radius: 3px; }"));
    m_recordLabel->setVisible(false);
    statusBar()->insertPermanentWidget(0, m_recordLabel);
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
    connect(this, &MainWindow::loadRequested, c, &SimulationController::loadFile);
    m_snapshotSaver->connectTo(c);
    if (m_autosave)
        m_autosave->connectTo(c);
    connect(this, &MainWindow::kernelRequested, c, &SimulationController::setKernel);
    connect(this, &MainWindow::framingRequested, c, &SimulationController::requestFraming);
    connect(this, &MainWindow::recordEveryRequested, c, &SimulationController::setRecordEvery);
    connect(this, &MainWindow::followCentreRequested, c, &SimulationController::setFollowCentre);
    connect(this, &MainWindow::undoRequested, c, &SimulationController::undoLastEdit);
    connect(this, &MainWindow::colourSourceRequested, c, &SimulationController::setColourSource);
    connect(this, &MainWindow::reportBoundsRequested, c, &SimulationController::setReportBounds);
    connect(this, &MainWindow::reverseRequested, c, &SimulationController::setReverse);
    connect(this, &MainWindow::clearSelectionRequested, c, &SimulationController::clearSelection);
    connect(this, &MainWindow::launchFieldRequested, this, [c](quint64 serial, qulonglong maxSources) {
        QMetaObject::invokeMethod(c, [=] { c->requestLaunchField(serial, maxSources); }, Qt::QueuedConnection);
    });
    connect(m_viewport, &Viewport::pickRequested, this,
            [c](const std::array<float, 16>& vp, double px, double py, int w, int h, double radius) {
                QMetaObject::invokeMethod(c, [=] { c->selectAt(vp, px, py, w, h, radius); }, Qt::QueuedConnection);
            });
    connect(m_viewport, &Viewport::selectionClearRequested, this, &MainWindow::clearSelectionRequested);
    connect(m_selectionDock, &SelectionDock::clearRequested, this, &MainWindow::clearSelectionRequested);
    connect(m_selectionDock->followBox(), &QCheckBox::toggled, m_followSelectionAction, &QAction::setChecked);
    connect(m_followSelectionAction, &QAction::toggled, m_selectionDock->followBox(), &QCheckBox::setChecked);
    // Aimed launches: the field at the press, the prediction on a worker thread as the drag moves.
    connect(m_viewport, &Viewport::launchDragStarted, this, [this] {
        m_launchPreview->stop();
        m_launchPreview->setDurationTimes(m_runDock->launchPreviewTimes());
        emit launchFieldRequested(++m_launchSerial, 16384);
    });
    connect(c, &SimulationController::launchFieldReady, this,
            [this](std::shared_ptr<const nbody::app::LaunchContext> context) {
                if (context && context->serial == m_launchSerial)
                    m_launchPreview->setContext(std::move(context));
            });
    connect(m_viewport, &Viewport::launchDragMoved, this,
            [this](double x, double y, double z, double dx, double dy, double dz) {
                m_launchPreview->predict({x, y, z}, {dx, dy, dz});
            });
    connect(m_viewport, &Viewport::launchDragEnded, this, [this] {
        ++m_launchSerial; // a field still on its way belongs to the ended drag
        m_launchPreview->stop();
        m_viewport->setLaunchPath({}, QString());
    });
    connect(m_launchPreview, &LaunchPreview::predicted, m_viewport, &Viewport::setLaunchPath);
    // Edits: queued to the worker thread through functors (no metatypes needed for the arguments).
    connect(m_viewport, &Viewport::addRequested, this,
            [c](double x, double y, double z, double dx, double dy, double dz, bool cluster) {
                QMetaObject::invokeMethod(c, [=] { c->addAt(x, y, z, dx, dy, dz, cluster); }, Qt::QueuedConnection);
            });
    connect(m_viewport, &Viewport::removeRequested, this,
            [c](const std::array<float, 16>& vp, float x0, float y0, float x1, float y1) {
                QMetaObject::invokeMethod(c, [=] { c->removeInRegion(vp, x0, y0, x1, y1); }, Qt::QueuedConnection);
            });
    connect(c, &SimulationController::editApplied, this, [this](const QString& what, bool undoable) {
        m_undoAction->setEnabled(undoable);
        statusBar()->showMessage(what, 5000);
    });
    connect(m_scenarioMenus, &ScenarioMenus::newScenarioRequested, c, &SimulationController::newScenario);
    connect(m_scenarioMenus, &ScenarioMenus::openScenarioRequested, c, &SimulationController::openScenario);
    connect(m_scenarioMenus, &ScenarioMenus::saveScenarioRequested, c, &SimulationController::saveScenario);
    connect(m_scenarioMenus, &ScenarioMenus::integratorRequested, c, &SimulationController::setIntegrator);
    connect(c, &SimulationController::scenarioSaved, this,
            [this](const QString& path) { statusBar()->showMessage(tr("Saved %1").arg(path), 10000); });

    connect(m_runDock, &RunDock::stepsToRunEdited, c, &SimulationController::setStepsToRun);
    connect(m_runDock, &RunDock::stepsPerFrameEdited, c, &SimulationController::setStepsPerFrame);
    connect(m_runDock, &RunDock::dtEdited, c, &SimulationController::setDt);
    connect(m_runDock, &RunDock::eps2Edited, c, &SimulationController::setEps2);
    connect(m_runDock, &RunDock::collisionsEdited, c, &SimulationController::setCollisions);
    connect(m_runDock, &RunDock::gravitationalConstantEdited, c, &SimulationController::setGravitationalConstant);
    connect(m_kernelDock, &KernelDock::kernelSelected, this, [this](const QString& id) {
        if (id != m_kernelId)
            emit kernelRequested(id);
    });
    connect(m_kernelDock, &KernelDock::paramEdited, c, &SimulationController::setParam);
    connect(m_kernelDock, &KernelDock::tuneRequested, c, &SimulationController::tuneNow);
    // The tuner runs on the controller's thread; the status bar and the dock say so meanwhile.
    connect(c, &SimulationController::tuningStarted, this, [this](const QString& message) {
        m_kernelDock->setTuning(true);
        statusBar()->showMessage(message);
    });
    connect(c, &SimulationController::tuningFinished, this, [this](const QString& message) {
        m_kernelDock->setTuning(false); // re-reads the cache: the tuned values and their date
        if (message.isEmpty())
            statusBar()->clearMessage();
        else
            statusBar()->showMessage(message, 10000);
    });

    connect(c, &SimulationController::frameReady, this, &MainWindow::onFrameReady);
    connect(c, &SimulationController::workQueued, this, [this] { m_frameWanted = true; });
    connect(c, &SimulationController::runningChanged, this, &MainWindow::onRunningChanged);
    connect(c, &SimulationController::kernelChanged, this, &MainWindow::onKernelChanged);
    connect(c, &SimulationController::paramsChanged, this, &MainWindow::onParamsChanged);
    connect(c, &SimulationController::bodiesChanged, this, &MainWindow::onBodiesChanged);
    connect(c, &SimulationController::stepsToRunChanged, m_runDock, &RunDock::setStepsToRun);
    connect(c, &SimulationController::stepsPerFrameChanged, m_runDock, &RunDock::setStepsPerFrame);
    connect(c, &SimulationController::sourceChanged, this, [this](const QString& source) {
        m_runDock->setSource(source);
        setWindowTitle(tr("%1 — N-Body Sandbox").arg(source));
        statusBar()->clearMessage(); // "Loading …" is over
        restartStepTime(); // the last figures belong to the previous system
    });
    connect(c, &SimulationController::unitsChanged, m_runDock, &RunDock::setUnitsOfG);
    connect(m_diagnosticsDock, &DiagnosticsDock::intervalEdited, c, &SimulationController::setDiagnosticsInterval);
    connect(c, &SimulationController::diagnosticsMeasured, m_diagnosticsDock, &DiagnosticsDock::appendDiagnostics);
    connect(c, &SimulationController::diagnosticsRestarted, m_diagnosticsDock, &DiagnosticsDock::restart);
    connect(c, &SimulationController::paramsChanged, m_diagnosticsDock, &DiagnosticsDock::setParams);
    connect(c, &SimulationController::commandFailed, this, &MainWindow::onCommandFailed);
    connect(c, &SimulationController::loadFailed, this, &MainWindow::onLoadFailed);
    connect(c, &SimulationController::startupFailed, this, &MainWindow::onStartupFailed);
    connect(m_validationDock, &ValidationDock::systemRequested, c, &SimulationController::requestValidationSystem);
    connect(c, &SimulationController::validationSystemReady, m_validationDock, &ValidationDock::setSystem);
    connect(c, &SimulationController::commandFailed, m_validationDock, [this](const QString& what, const QString& why) {
        if (what == QLatin1String("validation system"))
            m_validationDock->systemFailed(why);
    });
    connect(c, &SimulationController::bodiesChanged, m_validationDock, &ValidationDock::setBodies);
    connect(c, &SimulationController::kernelChanged, m_validationDock, &ValidationDock::setKernel);
    connect(c, &SimulationController::kernelChanged, m_scenarioMenus, &ScenarioMenus::setKernel);
    connect(c, &SimulationController::paramsChanged, m_validationDock, &ValidationDock::setParams);
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
    if (m_recording && result.record && (result.hostPositions || result.deviceDrawn))
        recordFrame();
    runPendingExport();

    m_lastSimTime = result.time;
    m_lastStep = result.step;
    if (result.selection) {
        const bool fresh = !m_selectionDock->hasSelection() || m_selectionDock->selectedId() != result.selection->id;
        m_selectionDock->setReport(*result.selection);
        if (fresh) { // a new pick: show what it is
            m_selectionDock->show();
            m_selectionDock->raise();
            statusBar()->showMessage(tr("Selected body %1 (index %2)").arg(result.selection->id).arg(result.selection->index),
                                     5000);
        }
    } else if (result.selectionCleared) {
        m_selectionDock->clear(result.selectionMessage);
        if (!result.selectionMessage.isEmpty())
            statusBar()->showMessage(result.selectionMessage, 8000);
    }
    m_stepLabel->setText(tr("step %L1").arg(result.step));
    m_timeLabel->setText(tr("t = %1").arg(result.time, 0, 'g', 6));
    if (result.step == 0 && result.timing.steps == 0) { // a fresh or reset system
        restartStepTime();
    } else if (result.timing.steps > 0) {
        // The steps of this frame ran on result.kernelId with result.bodies (a switch or an edit
        // applies before them): an average over another kernel or N would describe neither.
        if (result.kernelId != m_stepTimeKernel || result.bodies != m_stepTimeBodies) {
            m_stepTime.clear();
            m_stepTimeKernel = result.kernelId;
            m_stepTimeBodies = result.bodies;
        }
        m_stepTime.add(result.timing.steps, result.timing.msPerStep);
        if (m_runTotals.warmupSteps == 0) {
            m_runClock.start();
            m_runFrames = m_viewport->framesDrawn();
        }
        m_runTotals.add(result.timing.steps, result.timing.msPerStep);
        showStepTime();
    }

    if (!result.error.isEmpty()) {
        const QString text = result.error;
        statusBar()->showMessage(text.simplified(), 15000);
        if (result.cudaFailed)
            onGpuFault(text);
        else if (m_automation.active())
            std::fprintf(stderr, "nbody-sandbox: %s\n", qPrintable(text.simplified()));
        else
            showWarning(tr("Simulation error"), text);
        if (m_automation.active() && !result.running)
            exitWith(1, result.cudaFailed ? QStringLiteral("GPU fault: ") + text.simplified() : QString());
    }

    if (m_automation.active() && !m_automationDone) {
        const bool drawn = result.hostPositions || result.deviceDrawn;
        const bool done = m_config.stepsToRun > 0 ? result.runFinished
                                                  : (drawn && !result.workPending);
        if (done) {
            m_automationDone = true;
            QTimer::singleShot(0, this, &MainWindow::finishAutomation);
        }
    }
}

void MainWindow::updateFps()
{
    const quint64 frames = m_viewport->framesDrawn();
    const qint64 ms = m_fpsClock.restart();
    m_fps = ms > 0 ? double(frames - m_fpsFrames) * 1000.0 / double(ms) : 0.0;
    m_fpsFrames = frames;
    m_stepTime.roll();
    showStepTime();
    updateTimeScale();
}

void MainWindow::showStepTime()
{
    // Paused (nothing stepped in the last two seconds): the last average stays up.
    if (m_stepTime.steps() > 0)
        m_shownMsPerStep = m_stepTime.msPerStep();
    const QString fps = tr("%1 fps").arg(m_fps, 0, 'f', m_fps < 10 ? 1 : 0);
    const double ms = m_shownMsPerStep;
    if (ms < 0) {
        m_msLabel->setText(tr("– ms/step · %1").arg(fps));
        return;
    }
    m_msLabel->setText(tr("%1 ms/step · %2").arg(ms, 0, 'f', ms < 1 ? 3 : ms < 10 ? 2 : 1).arg(fps));
    if (m_stepTime.steps() > 0) {
        const double n = double(m_stepTimeBodies);
        const double rate = ms > 0 ? n * n / (ms * 1e-3) : 0.0;
        m_rateLabel->setText(tr("%1: %2 int/s").arg(m_stepTimeKernel, QString::number(rate, 'e', 2)));
        m_kernelDock->setMeasuredRate(m_stepTimeKernel, rate); // its share of the device's ceiling
    }
}

void MainWindow::restartStepTime()
{
    m_stepTime.clear();
    m_stepTimeKernel.clear();
    m_stepTimeBodies = 0;
    m_shownMsPerStep = -1.0;
    m_runTotals = {};
    m_rateLabel->setText(tr("– int/s"));
    showStepTime();
}

void MainWindow::printRunSummary() const
{
    if (m_runTotals.warmupSteps == 0)
        return;
    const double seconds = m_runClock.isValid() ? double(m_runClock.elapsed()) / 1000.0 : 0.0;
    const double fps = seconds > 0 ? double(m_viewport->framesDrawn() - m_runFrames) / seconds : 0.0;
    const std::uint64_t timed = m_runTotals.steps > 0 ? m_runTotals.steps : m_runTotals.warmupSteps;
    QString diagnostics;
    if (m_params && m_params->diagnosticsInterval > 0)
        diagnostics = QStringLiteral(", diagnostics every %1 steps").arg(m_params->diagnosticsInterval);
    // stdout, one line, so scripts can compare it with `nbody bench`'s step time.
    std::printf("nbody-sandbox: %s, N = %llu: %.4f ms/step over %llu steps%s (time in the simulation's step, "
                "device synchronised%s), %.1f fps\n",
                qPrintable(m_stepTimeKernel), static_cast<unsigned long long>(m_bodies), m_runTotals.msPerStep(),
                static_cast<unsigned long long>(timed),
                m_runTotals.steps > 0 ? " after the first frame" : "", qPrintable(diagnostics), fps);
    std::fflush(stdout);
}

// ---- controller state -----------------------------------------------------------------------

void MainWindow::onRunningChanged(bool running)
{
    m_running = running;
    m_startAction->setEnabled(!running);
    m_pauseAction->setEnabled(running);
    m_stepAction->setEnabled(!running);
}

void MainWindow::onKernelChanged(const QString& id)
{
    if (id != m_kernelId && m_stepTimeKernel != id)
        m_rateLabel->setText(tr("– int/s")); // until a step of the new kernel is timed
    m_kernelId = id;
    for (QAction* a : m_kernelGroup->actions()) {
        if (a->data().toString() == id)
            a->setChecked(true);
    }
    m_runDock->setKernel(nbody::findKernel(id.toStdString()));
    m_kernelDock->setKernel(id);
}

void MainWindow::updateReverseAction(const nbody::SimParams& params)
{
    const QSignalBlocker block(m_reverseAction);
    m_reverseAction->setChecked(params.reverse);
    const std::string why = nbody::reverseProblem([&] {
        nbody::SimParams p = params;
        p.reverse = true;
        return p;
    }());
    // Merges cannot be undone: with collisions on, Reverse stays off and says why.
    const bool enable = why.empty() || params.reverse;
    // The status bar's line is short enough to be whole beside the permanent labels at 1366 px
    // (the simulation's sentence, 150 characters, was cut to "…cannot be undone): tu"); the
    // tooltip has that sentence.
    m_reverseWhy = enable ? QString()
                   : params.collisions
                       ? tr("Reverse time is unavailable while collisions are on (a merge cannot be undone)")
                       : tr("Reverse time is unavailable: %1").arg(QString::fromStdString(why));
    if (!enable && m_reverseAction->isEnabled())
        statusBar()->showMessage(m_reverseWhy, 10000);
    m_reverseAction->setEnabled(enable);
    m_reverseRefused->setEnabled(!enable);
    const QString tip = why.empty() ? m_reverseAction->statusTip()
                                    : tr("Unavailable: %1").arg(QString::fromStdString(why));
    m_reverseAction->setToolTip(tip);
    m_reverseAction->setWhatsThis(tip);
}

void MainWindow::updateTimeScale()
{
    const qint64 ms = m_timeScaleClock.isValid() ? m_timeScaleClock.restart() : 0;
    if (!m_timeScaleClock.isValid())
        m_timeScaleClock.start();
    const bool stepped = m_lastStep != m_timeScaleStep;
    const double rate = ms > 0 ? (m_lastSimTime - m_timeScaleSimTime) * 1000.0 / double(ms) : 0.0;
    m_timeScaleSimTime = m_lastSimTime;
    m_timeScaleStep = m_lastStep;
    const bool reverse = m_params && m_params->reverse;
    m_runDock->setTimeScale(std::abs(rate), reverse, stepped && ms > 0);
}

void MainWindow::onParamsChanged(const nbody::SimParams& params)
{
    m_params = params;
    updateReverseAction(params);
    m_runDock->setParams(params);
    m_kernelDock->setParams(params);
    m_scenarioMenus->setIntegrator(QString::fromStdString(params.integrator));
}

void MainWindow::onBodiesChanged(qulonglong n)
{
    m_bodies = n;
    m_runDock->setBodies(n);
    m_kernelDock->setBodies(n);
}

void MainWindow::onCommandFailed(const QString& what, const QString& message)
{
    // The controller kept the previous value: show it again.
    if (m_params)
        onParamsChanged(*m_params);
    onKernelChanged(m_kernelId);
    const QString text = tr("Could not apply %1: %2").arg(what, message);
    statusBar()->showMessage(text, 15000);
    static const QStringList kernelCommands = {QStringLiteral("kernel"), QStringLiteral("block size"),
                                               QStringLiteral("block rows"), QStringLiteral("tile width factor"),
                                               QStringLiteral("bodies per thread"), QStringLiteral("j-split"),
                                               QStringLiteral("unroll"), QStringLiteral("opening angle"),
                                               QStringLiteral("leaf size"), QStringLiteral("tuning")};
    const bool kernelCommand = kernelCommands.contains(what);
    if (kernelCommand) {
        // The Kernel dock says why next to the value it put back (no dialog to dismiss).
        m_kernelDock->showRefusal(text);
        m_kernelDock->show();
        m_kernelDock->raise();
    }
    if (m_automation.active())
        std::fprintf(stderr, "nbody-sandbox: %s\n", qPrintable(text));
    else if (!kernelCommand)
        showWarning(tr("Not applied"), text);
}

void MainWindow::onLoadFailed(const QString& path, const QString& message)
{
    statusBar()->showMessage(tr("Could not open %1").arg(QFileInfo(path).fileName()), 15000);
    if (m_automation.active()) {
        std::fprintf(stderr, "nbody-sandbox: %s\n", qPrintable(message));
        return;
    }
    QMessageBox::warning(this, tr("Cannot open file"),
                         tr("The file could not be loaded; the current simulation is kept.\n\n%1")
                             .arg(message));
}

void MainWindow::onStartupFailed(const QString& message)
{
    if (m_automation.active()) {
        exitWith(2, message); // an unreadable --input is bad input, as in the CLI
        return;
    }
    statusBar()->showMessage(message, 15000);
    showWarning(tr("Start-up"), tr("%1\n\nThe default system is used instead.").arg(message));
}

// ---- user actions ---------------------------------------------------------------------------

void MainWindow::openFile()
{
    const QString path = askOpenSnapshot(this, m_lastFile.isEmpty() ? QString() : QFileInfo(m_lastFile).absolutePath());
    if (path.isEmpty())
        return;
    m_lastFile = path;
    m_snapshotSaver->setStartDir(QFileInfo(path).absolutePath());
    statusBar()->showMessage(tr("Loading %1…").arg(QFileInfo(path).fileName()), 5000);
    emit loadRequested(path);
}

void MainWindow::exportFrame()
{
    ExportFrameDialog dialog(m_viewport->pixelSize(), m_lastExport, this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_lastExport = dialog.path();
    m_pendingExport = PendingExport{dialog.path(), dialog.frameSize(), dialog.jpegQuality()};
    runPendingExport(); // now, or after the frame in flight
}

bool MainWindow::runPendingExport()
{
    if (!m_pendingExport || m_viewport->frameInFlight())
        return true;
    const PendingExport e = *m_pendingExport;
    m_pendingExport.reset();
    try {
        const nbody::gl::Image image = m_viewport->renderFrame(e.size.width(), e.size.height());
        nbody::gl::writeImage(e.path.toStdString(), image, nbody::gl::ImageFormat::Unknown, e.quality);
    } catch (const std::exception& ex) {
        const QString message = QString::fromUtf8(ex.what());
        statusBar()->showMessage(tr("Export failed: %1").arg(message), 15000);
        if (m_automation.active())
            exitWith(1, message);
        else
            showWarning(tr("Export frame"), message);
        return false;
    }
    statusBar()->showMessage(tr("Saved %1 (%2 × %3)").arg(e.path).arg(e.size.width()).arg(e.size.height()), 10000);
    return true;
}

void MainWindow::toggleRecording()
{
    if (m_recording) {
        stopRecording();
        return;
    }
    RecordDialog dialog(m_viewport->pixelSize(), m_ffmpegMissing, this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    startRecording(dialog.target(), dialog.frameSize(), dialog.every(), dialog.fps());
}

bool MainWindow::startRecording(const QString& target, QSize size, int every, double fps)
{
    nbody::gl::SinkOptions o;
    o.target = target.toStdString();
    o.width = size.width();
    o.height = size.height();
    o.fps = fps;
    try {
        Recording r;
        r.sink = nbody::gl::openFrameSink(o);
        r.size = size;
        r.every = std::max(1, every);
        m_recording = std::move(r);
    } catch (const std::exception& e) {
        const QString message = QString::fromUtf8(e.what());
        statusBar()->showMessage(message, 15000);
        if (m_automation.active())
            std::fprintf(stderr, "nbody-sandbox: %s\n", qPrintable(message));
        else
            showWarning(tr("Record"), message);
        return false;
    }
    emit recordEveryRequested(m_recording->every);
    updateRecordUi();
    return true;
}

void MainWindow::recordFrame()
{
    try {
        m_recording->sink->write(m_viewport->renderFrame(m_recording->size.width(), m_recording->size.height()));
    } catch (const std::exception& e) {
        stopRecording(QString::fromUtf8(e.what()));
        return;
    }
    updateRecordUi();
}

void MainWindow::stopRecording(const QString& failure)
{
    if (!m_recording)
        return;
    emit recordEveryRequested(0);
    Recording r = std::move(*m_recording);
    m_recording.reset();
    updateRecordUi();
    QString problem = failure;
    QString where;
    if (problem.isEmpty()) {
        try {
            where = QString::fromStdString(r.sink->finish());
        } catch (const std::exception& e) {
            problem = QString::fromUtf8(e.what());
        }
    }
    if (!problem.isEmpty()) {
        const QString text = tr("Recording stopped after %n frame(s): %1", nullptr, r.sink->frames()).arg(problem);
        statusBar()->showMessage(text, 30000);
        if (m_automation.active())
            exitWith(1, text);
        else
            showWarning(tr("Record"), text);
        return;
    }
    statusBar()->showMessage(tr("Recorded %n frame(s) to %1", nullptr, r.sink->frames()).arg(where), 15000);
}

void MainWindow::updateRecordUi()
{
    const bool on = m_recording.has_value();
    m_recordLabel->setVisible(on);
    if (on) {
        m_recordLabel->setText(tr("● REC %1").arg(m_recording->sink->frames()));
        m_recordLabel->setToolTip(tr("Recording every %1 step(s) at %2 × %3 to %4")
                                      .arg(m_recording->every)
                                      .arg(m_recording->size.width())
                                      .arg(m_recording->size.height())
                                      .arg(QString::fromStdString(m_recording->sink->options().target)));
    }
    m_recordAction->setText(on ? tr("Stop &recording")
                               : (m_ffmpegMissing.isEmpty() ? tr("&Record…")
                                                            : tr("&Record… (image sequences only: ffmpeg not found)")));
}

void MainWindow::showAbout()
{
    const QString gl = m_viewport->glDescription().isEmpty() ? tr("(no context yet)")
                                                             : m_viewport->glDescription();
    // The integrators from their registry (the Integrator menu's rows).
    QStringList integrators;
    for (const nbody::IntegratorInfo& i : nbody::integratorRegistry())
        integrators << tr("%1 (order %2, %n force evaluation(s) per step)", nullptr, int(i.weights.size()))
                           .arg(qstr(i.name).toHtmlEscaped())
                           .arg(i.order);
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

void MainWindow::onGpuFault(const QString& text)
{
    // The controller paused at the last host copy; a lost CUDA context makes the CUDA rows
    // unavailable (with the reason) in the Kernel menu and dock.
    for (QAction* a : m_kernelGroup->actions())
        if (const nbody::KernelInfo* k = nbody::findKernel(a->data().toString().toStdString())) {
            a->setEnabled(nbody::availability(*k).available);
            a->setToolTip(kernelToolTip(*k));
        }
    m_kernelDock->refreshAvailability();
    m_deviceDock->setGpuFault(text.simplified());
    if (m_automation.active())
        return; // a scripted run exits 1 (onFrameReady)
    if (!m_faultBox) {
        m_faultBox = new QMessageBox(QMessageBox::Critical, tr("GPU fault"), text, QMessageBox::NoButton, this);
        m_faultBox->setObjectName(QStringLiteral("gpuFaultBox"));
        m_faultBox->setAttribute(Qt::WA_DeleteOnClose);
        m_faultBox->setModal(false);
        QPushButton* cpu = m_faultBox->addButton(tr("Continue on the CPU"), QMessageBox::AcceptRole);
        cpu->setObjectName(QStringLiteral("continueOnCpuButton"));
        m_faultBox->addButton(tr("Stay paused"), QMessageBox::RejectRole);
        connect(cpu, &QPushButton::clicked, this, [this] {
            emit kernelRequested(QStringLiteral("cpu"));
            emit startRequested();
        });
    }
    m_faultBox->setText(text);
    m_faultBox->show();
    m_faultBox->raise();
}

void MainWindow::showWarning(const QString& title, const QString& text)
{
    // Non-modal, and one at a time: a burst of failures updates the box instead of stacking.
    if (!m_warningBox) {
        m_warningBox = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
        m_warningBox->setAttribute(Qt::WA_DeleteOnClose);
        m_warningBox->setModal(false);
    }
    m_warningBox->setWindowTitle(title);
    m_warningBox->setText(text);
    m_warningBox->show();
    m_warningBox->raise();
}

// ---- scripted runs and shutdown -------------------------------------------------------------

void MainWindow::finishAutomation()
{
    if (m_viewport->frameInFlight()) {
        // The buffers are mapped for a frame: capture once it is back (frames are short).
        QTimer::singleShot(5, this, &MainWindow::finishAutomation);
        return;
    }
    if (m_recording)
        stopRecording(); // finalises; a failure exits with 1
    if (m_exiting)
        return;
    if (!m_automation.capturePath.isEmpty()) {
        // Offscreen, like File → Export frame, through the same atomic writer as the command line.
        const QSize size = m_automation.captureSize.isEmpty() ? m_viewport->pixelSize() : m_automation.captureSize;
        m_pendingExport = PendingExport{m_automation.capturePath, size, 92};
        if (!runPendingExport())
            return;
    }
    if (m_automation.quit)
        exitWith(0, QString());
}

void MainWindow::exitWith(int code, const QString& message)
{
    if (m_exiting)
        return; // the first failure decides the exit code
    m_exiting = true;
    printRunSummary();
    if (!message.isEmpty())
        std::fprintf(stderr, "nbody-sandbox: %s\n", qPrintable(message));
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
    m_validationDock->cancel(); // its thread is joined when the dock is destroyed
    if (m_recording)
        stopRecording(); // finalise what was recorded
    shutdownController();
    event->accept();
}

} // namespace nbody::app
