#include "MainWindow.h"

#include "RunDock.h"
#include "ScenarioMenus.h"
#include "Viewport.h"

#include "gl/Renderer.h"
#include "sim/KernelRegistry.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>

#include <cstdio>
#include <cstring>

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
    m_runDock = new RunDock(this);
    addDockWidget(Qt::RightDockWidgetArea, m_runDock);

    m_scenarioMenus = new ScenarioMenus(this);
    createActions();
    createMenusAndToolbar();
    createStatusBar();

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
        // the full reason goes in the tooltip and the Run dock; the status bar shows its start
        m_interopLabel->setText(
            m_interopLabel->fontMetrics().elidedText(s, Qt::ElideRight, m_interopLabel->maximumWidth()));
        m_interopLabel->setToolTip(s);
        m_runDock->setInteropState(s);
    });
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

    m_frameTimer.setInterval(16);
    connect(&m_frameTimer, &QTimer::timeout, this, &MainWindow::onTick);
    m_frameTimer.start();
    m_fpsTimer.setInterval(1000);
    connect(&m_fpsTimer, &QTimer::timeout, this, &MainWindow::updateFps);
    m_fpsTimer.start();
    m_fpsClock.start();

    resize(1280, 820);
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
    m_openAction = new QAction(s->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open…"), this);
    m_openAction->setShortcut(QKeySequence::Open);
    m_openAction->setStatusTip(tr("Open a Tipsy snapshot"));
    connect(m_openAction, &QAction::triggered, this, &MainWindow::openFile);

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

    m_aboutAction = new QAction(tr("&About N-Body Sandbox"), this);
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::showAbout);

    m_kernelGroup = new QActionGroup(this);
    m_kernelGroup->setExclusive(true);
    for (const nbody::KernelInfo& k : nbody::kernelRegistry()) {
        auto* a = new QAction(qstr(k.name) + QStringLiteral(" (") + qstr(nbody::toString(k.precision)) +
                                  QStringLiteral(")"),
                              m_kernelGroup);
        a->setCheckable(true);
        a->setData(qstr(k.id));
        const nbody::Availability av = nbody::availability(k);
        if (av.available) {
            a->setToolTip(qstr(k.description));
        } else {
            a->setEnabled(false);
            a->setToolTip(qstr(k.description) + QStringLiteral("\n\nUnavailable: ") +
                          QString::fromStdString(av.reason));
        }
        a->setStatusTip(a->toolTip().section(QLatin1Char('\n'), 0, 0));
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
    m_scenarioMenus->addFileActions(file);
    file->addSeparator();
    file->addAction(m_quitAction);

    QMenu* sim = menuBar()->addMenu(tr("&Simulation"));
    sim->addAction(m_startAction);
    sim->addAction(m_pauseAction);
    sim->addAction(m_stepAction);
    sim->addSeparator();
    sim->addAction(m_resetAction);

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

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_resetCameraAction);
    view->addSeparator();
    QAction* dockToggle = m_runDock->toggleViewAction();
    dockToggle->setText(tr("&Run dock"));
    view->addAction(dockToggle);
    QAction* barToggle = bar->toggleViewAction();
    barToggle->setText(tr("&Toolbar"));
    view->addAction(barToggle);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(m_aboutAction);
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
    m_msLabel = add(tr("Wall time per step"), 110);
    m_rateLabel = add(tr("Pairwise interactions per second (N² per step)"), 110);
    m_fpsLabel = add(tr("Frames drawn per second"), 60);
    m_interopLabel = add(QString(), 120);
    m_interopLabel->setMaximumWidth(320);
    m_interopLabel->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_stepLabel->setText(tr("step 0"));
    m_timeLabel->setText(tr("t = 0"));
    m_msLabel->setText(tr("– ms/step"));
    m_rateLabel->setText(tr("– int/s"));
    m_fpsLabel->setText(tr("0 fps"));
    m_interopLabel->setText(tr("starting…"));
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
    connect(this, &MainWindow::kernelRequested, c, &SimulationController::setKernel);
    connect(this, &MainWindow::framingRequested, c, &SimulationController::requestFraming);
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
    connect(m_runDock, &RunDock::blockSizeEdited, c, &SimulationController::setBlockSize);
    connect(m_runDock, &RunDock::tileWidthFactorEdited, c, &SimulationController::setTileWidthFactor);

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
    });
    connect(c, &SimulationController::commandFailed, this, &MainWindow::onCommandFailed);
    connect(c, &SimulationController::loadFailed, this, &MainWindow::onLoadFailed);
    connect(c, &SimulationController::startupFailed, this, &MainWindow::onStartupFailed);
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
    if (result.workPending)
        m_frameWanted = true;
    if (result.needCapacity > 0) {
        onTick(); // the buffers were reallocated: ask again at once
        return;
    }
    if (!result.valid)
        return;

    m_stepLabel->setText(tr("step %L1").arg(result.step));
    m_timeLabel->setText(tr("t = %1").arg(result.time, 0, 'g', 6));
    if (result.step == 0 && result.timing.steps == 0) { // a fresh or reset system
        m_msLabel->setText(tr("– ms/step"));
        m_rateLabel->setText(tr("– int/s"));
    } else if (result.timing.steps > 0) {
        m_msLabel->setText(tr("%1 ms/step").arg(result.timing.msPerStep, 0, 'f',
                                                result.timing.msPerStep < 10 ? 3 : 1));
        m_rateLabel->setText(
            tr("%1 int/s").arg(QString::number(result.timing.interactionsPerSecond, 'e', 2)));
    }

    if (!result.error.isEmpty()) {
        const QString text = result.cudaFailed
                                 ? tr("CUDA failed; continuing with the CPU kernel.\n\n%1").arg(result.error)
                                 : result.error;
        statusBar()->showMessage(text.simplified(), 15000);
        if (m_automation.active())
            std::fprintf(stderr, "nbody-sandbox: %s\n", qPrintable(text.simplified()));
        else
            showWarning(result.cudaFailed ? tr("CUDA error") : tr("Simulation error"), text);
        if (!result.cudaFailed && m_automation.active() && !result.running)
            exitWith(1, QString());
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
    const double fps = ms > 0 ? double(frames - m_fpsFrames) * 1000.0 / double(ms) : 0.0;
    m_fpsFrames = frames;
    m_fpsLabel->setText(tr("%1 fps").arg(fps, 0, 'f', fps < 10 ? 1 : 0));
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
    m_kernelId = id;
    for (QAction* a : m_kernelGroup->actions()) {
        if (a->data().toString() == id)
            a->setChecked(true);
    }
    m_runDock->setKernel(nbody::findKernel(id.toStdString()));
}

void MainWindow::onParamsChanged(const nbody::SimParams& params)
{
    m_params = params;
    m_runDock->setParams(params);
    m_scenarioMenus->setIntegrator(QString::fromStdString(params.integrator));
}

void MainWindow::onBodiesChanged(qulonglong n)
{
    m_runDock->setBodies(n);
}

void MainWindow::onCommandFailed(const QString& what, const QString& message)
{
    // The controller kept the previous value: show it again.
    if (m_params)
        onParamsChanged(*m_params);
    onKernelChanged(m_kernelId);
    const QString text = tr("Could not apply %1: %2").arg(what, message);
    statusBar()->showMessage(text, 15000);
    if (m_automation.active())
        std::fprintf(stderr, "nbody-sandbox: %s\n", qPrintable(text));
    else
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
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Tipsy snapshot"),
        m_lastFile.isEmpty() ? QString() : QFileInfo(m_lastFile).absolutePath(),
        tr("Tipsy snapshots (*.bin *.tipsy *.std *.dat);;All files (*)"));
    if (path.isEmpty())
        return;
    m_lastFile = path;
    statusBar()->showMessage(tr("Loading %1…").arg(QFileInfo(path).fileName()), 5000);
    emit loadRequested(path);
}

void MainWindow::showAbout()
{
    const QString gl = m_viewport->glDescription().isEmpty() ? tr("(no context yet)")
                                                             : m_viewport->glDescription();
    QMessageBox::about(
        this, tr("About N-Body Sandbox"),
        tr("<h3>N-Body Sandbox %1</h3>"
           "<p>An interactive gravitational N-body simulator: all-pairs softened gravity, "
           "kick-drift-kick leapfrog, CPU and CUDA force kernels.</p>"
           "<table>"
           "<tr><td>Build:</td><td>%2</td></tr>"
           "<tr><td>OpenGL:</td><td>%3</td></tr>"
           "<tr><td>Positions:</td><td>%4</td></tr>"
           "<tr><td>Qt:</td><td>%5</td></tr>"
           "</table>")
            .arg(QStringLiteral(NBODY_VERSION),
                 nbody::builtWithCuda() ? tr("with CUDA") : tr("without CUDA (CPU kernels only)"),
                 gl.toHtmlEscaped(), m_viewport->interopState().toHtmlEscaped(),
                 QString::fromLatin1(qVersion())));
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
    if (!m_automation.capturePath.isEmpty()) {
        // The same atomic PNG writer as the command line (nbody::gl::writePng).
        const QImage image = m_viewport->grabFramebuffer().convertToFormat(QImage::Format_RGBA8888);
        if (image.isNull()) {
            exitWith(1, QStringLiteral("cannot write %1: the view could not be grabbed").arg(m_automation.capturePath));
            return;
        }
        nbody::gl::Image out;
        out.width = image.width();
        out.height = image.height();
        out.rgba.resize(std::size_t(out.width) * std::size_t(out.height) * 4);
        for (int y = 0; y < out.height; ++y)
            std::memcpy(out.rgba.data() + std::size_t(y) * std::size_t(out.width) * 4, image.constScanLine(y),
                        std::size_t(out.width) * 4);
        try {
            nbody::gl::writePng(m_automation.capturePath.toStdString(), out);
        } catch (const std::exception& e) {
            exitWith(1, QString::fromUtf8(e.what()));
            return;
        }
        statusBar()->showMessage(tr("Saved %1").arg(m_automation.capturePath), 10000);
    }
    if (m_automation.quit)
        exitWith(0, QString());
}

void MainWindow::exitWith(int code, const QString& message)
{
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
    shutdownController();
    event->accept();
}

} // namespace nbody::app
