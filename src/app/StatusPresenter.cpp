#include "StatusPresenter.h"

#include "KernelDock.h"
#include "Notices.h"
#include "RunDock.h"
#include "SimulationController.h"
#include "Viewport.h"

#include "sim/base/Format.h"

#include <QLabel>
#include <QMainWindow>
#include <QStatusBar>
#include <QStyle>

#include <cmath>
#include <cstdio>

namespace nbody::app {

namespace {

/// A status bar readout: at least `floor` px wide, so that its neighbours keep their places as
/// its figures change, and never narrower than its text (QLabel::setMinimumWidth would let the
/// bar squeeze a longer text to the floor and cut it).
class Readout : public QLabel {
public:
    Readout(int floor, QWidget* parent) : QLabel(parent), m_floor(floor) {}
    QSize sizeHint() const override { return QLabel::sizeHint().expandedTo(QSize(m_floor, 0)); }
    QSize minimumSizeHint() const override { return QLabel::minimumSizeHint().expandedTo(QSize(m_floor, 0)); }

private:
    int m_floor;
};

} // namespace

StatusPresenter::StatusPresenter(QMainWindow* window, Viewport* viewport, RunDock* runDock, KernelDock* kernelDock,
                                 SimulationController* controller, Notices& notices)
    : QObject(window), m_viewport(viewport), m_runDock(runDock), m_kernelDock(kernelDock), m_notices(notices)
{
    createLabels(window);
    connect(viewport, &Viewport::interopStateChanged, this, &StatusPresenter::setInteropState);
    connect(controller, &SimulationController::sourceChanged, this, [this] {
        m_notices.clearStatus(); // "Loading …" is over
        restartStepTime();       // the last figures belong to the previous system
    });
    connect(controller, &SimulationController::precisionRangeChecked, this, &StatusPresenter::showPrecisionRange);
    connect(viewport, &Viewport::drawingChanged, this, [this](const QString& note) {
        m_drawingLabel->setText(note);
        m_drawingLabel->setVisible(!note.isEmpty());
    });
    m_fpsTimer.setInterval(1000);
    connect(&m_fpsTimer, &QTimer::timeout, this, &StatusPresenter::updateFps);
    m_fpsTimer.start();
    m_fpsClock.start();
}

void StatusPresenter::createLabels(QMainWindow* window)
{
    auto add = [window](const QString& tip, int minWidth) {
        auto* l = new Readout(minWidth, window);
        l->setToolTip(tip);
        l->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        window->statusBar()->addPermanentWidget(l);
        return l;
    };
    m_stepLabel = add(tr("Steps taken since the system was created or loaded"), 90);
    m_timeLabel = add(tr("Simulated time"), 110);
    m_msLabel = add(tr("Time per step: the wall time spent in the simulation's step (device synchronised), "
                       "averaged over the last one to two seconds"),
                    90);
    m_stepRateLabel = add(tr("Steps taken per second of wall time over the last second (the steps per frame "
                             "times the frames that stepped; the simulation's pace)"),
                          90);
    m_fpsLabel = add(tr("Frames drawn per second over the last second (the view's pace; a frame may take "
                        "several steps, or none while paused)"),
                     60);
    m_rateLabel = add(tr("Pairwise interactions per second (N² per step)"), 110);
    m_levelsLabel = add(tr("Block time steps: bodies per level k (step dt/2^k) at the last step's start"), 0);
    m_levelsLabel->setObjectName(QStringLiteral("levelsLabel"));
    m_levelsLabel->hide();
    m_interopLabel = add(QString(), 0);
    m_interopLabel->setObjectName(QStringLiteral("interopLabel"));
    m_interopLabel->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_drawingLabel = add(tr("A subsample of the bodies is drawn, each as bright as those it stands for, so that the "
                            "view stays interactive (View dock: Thin out large systems when drawing is slow)"),
                         0);
    m_drawingLabel->setObjectName(QStringLiteral("drawingLabel"));
    m_drawingLabel->hide();
    m_rangeLabel = add(QString(), 0);
    m_rangeLabel->setObjectName(QStringLiteral("precisionRangeLabel"));
    m_rangeLabel->setStyleSheet(QStringLiteral("QLabel { color: #b71c1c; font-weight: bold; }"));
    m_rangeLabel->hide();
    // The last field keeps a layout's margin from the window's right edge: in a maximised
    // window the size grip, which is otherwise there, is hidden, and the text ran to the
    // screen's last pixel, looking cut.
    auto* end = new QWidget(window);
    end->setObjectName(QStringLiteral("statusEndMargin"));
    end->setFixedWidth(window->style()->pixelMetric(QStyle::PM_LayoutRightMargin, nullptr, window));
    window->statusBar()->addPermanentWidget(end);
    m_stepLabel->setObjectName(QStringLiteral("stepLabel"));
    m_timeLabel->setObjectName(QStringLiteral("timeLabel"));
    m_rateLabel->setObjectName(QStringLiteral("rateLabel"));
    m_msLabel->setObjectName(QStringLiteral("msLabel"));
    m_stepRateLabel->setObjectName(QStringLiteral("stepRateLabel"));
    m_fpsLabel->setObjectName(QStringLiteral("fpsLabel"));
    m_stepLabel->setText(tr("step 0"));
    m_timeLabel->setText(tr("t = 0"));
    showStepTime();
    m_rateLabel->setText(tr("– int/s"));
    m_interopLabel->setText(tr("starting…"));
}

void StatusPresenter::setInteropState(const QString& state)
{
    // The status bar names the path ("CUDA-GL interop", "host upload"), whole; the reason
    // why not is in its tooltip, the Run dock and the Device dock.
    m_interopLabel->setText(state.section(QLatin1Char(':'), 0, 0).trimmed());
    m_interopLabel->setToolTip(tr("Positions: %1").arg(state));
    m_interopState = state;
}

void StatusPresenter::showPrecisionRange(const QString& warnings)
{
    m_rangeLabel->setVisible(!warnings.isEmpty());
    m_rangeLabel->setToolTip(warnings);
    if (warnings.isEmpty())
        return;
    // Each warning reads "fp32 range: …; kernel 'cpu' computes in fp32: …".
    m_rangeLabel->setText(tr("outside the %1 range").arg(warnings.section(QLatin1Char(' '), 0, 0)));
    m_notices.status(warnings.section(QLatin1Char('\n'), 0, 0));
    // It comes by itself after an edit (G typed, a kernel chosen): the keys stay where they are.
    m_notices.report(tr("Precision range"),
                     tr("The system does not fit the arithmetic of the kernel: its forces would come out "
                        "infinite or 0 and the state not finite.\n\n%1")
                         .arg(warnings),
                     false);
}

void StatusPresenter::onFrame(const FrameResult& result)
{
    m_lastSimTime = result.time;
    m_lastStep = result.step;
    m_stepLabel->setText(tr("step %L1").arg(result.step));
    m_timeLabel->setText(tr("t = %1").arg(result.time, 0, 'g', 6));
    m_levelsLabel->setVisible(!result.levelHistogram.isEmpty());
    m_levelsLabel->setText(tr("levels %1").arg(result.levelHistogram));
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
        m_stepsSinceTick += quint64(result.timing.steps);
        if (m_runTotals.warmupSteps == 0) {
            m_runClock.start();
            m_runFrames = m_viewport->framesDrawn();
        }
        m_runTotals.add(result.timing.steps, result.timing.msPerStep);
        showStepTime();
    }
}

void StatusPresenter::setKernel(const QString& id)
{
    if (id != m_kernelId && m_stepTimeKernel != id)
        m_rateLabel->setText(tr("– int/s")); // until a step of the new kernel is timed
    m_kernelId = id;
}

void StatusPresenter::updateFps()
{
    const quint64 frames = m_viewport->framesDrawn();
    const qint64 ms = m_fpsClock.restart();
    m_fps = ms > 0 ? double(frames - m_fpsFrames) * 1000.0 / double(ms) : 0.0;
    m_fpsFrames = frames;
    m_stepsPerSecond = ms > 0 ? double(m_stepsSinceTick) * 1000.0 / double(ms) : 0.0;
    m_stepsSinceTick = 0;
    m_stepTime.roll();
    showStepTime();
    updateTimeScale();
}

void StatusPresenter::showStepTime()
{
    // Paused (nothing stepped in the last two seconds): the last average stays up.
    if (m_stepTime.steps() > 0)
        m_shownMsPerStep = m_stepTime.msPerStep();
    m_fpsLabel->setText(tr("%1 fps").arg(m_fps, 0, 'f', m_fps < 10 ? 1 : 0));
    m_stepRateLabel->setText(m_stepsPerSecond < 0 ? tr("– steps/s")
                                                  : tr("%1 steps/s").arg(m_stepsPerSecond, 0, 'f', m_stepsPerSecond < 10 ? 1 : 0));
    const double ms = m_shownMsPerStep;
    if (ms < 0) {
        m_msLabel->setText(tr("– ms/step"));
        return;
    }
    m_msLabel->setText(tr("%1 ms/step").arg(ms, 0, 'f', ms < 1 ? 3 : ms < 10 ? 2 : 1));
    if (m_stepTime.steps() > 0) {
        const double n = double(m_stepTimeBodies);
        const double rate = ms > 0 ? n * n / (ms * 1e-3) : 0.0;
        m_rateLabel->setText(tr("%1: %2 int/s").arg(m_stepTimeKernel, QString::number(rate, 'e', 2)));
        m_kernelDock->setMeasuredRate(m_stepTimeKernel, rate); // its share of the device's ceiling
    }
}

void StatusPresenter::restartStepTime()
{
    m_stepTime.clear();
    m_stepTimeKernel.clear();
    m_stepTimeBodies = 0;
    m_shownMsPerStep = -1.0;
    m_stepsSinceTick = 0;
    m_stepsPerSecond = -1.0;
    m_runTotals = {};
    m_rateLabel->setText(tr("– int/s"));
    showStepTime();
}

void StatusPresenter::updateTimeScale()
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

void StatusPresenter::printRunSummary() const
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
    // The positions' path last: "CUDA-GL interop" when the kernels wrote the drawn buffers.
    std::printf("nbody-sandbox: %s, N = %llu: %.4f ms/step over %s%s (time in the simulation's step, "
                "device synchronised%s), %.1f fps; positions: %s\n",
                qPrintable(m_stepTimeKernel), static_cast<unsigned long long>(m_bodies), m_runTotals.msPerStep(),
                nbody::stepCount(timed).c_str(),
                m_runTotals.steps > 0 ? " after the first frame" : "", qPrintable(diagnostics), fps,
                qPrintable(m_interopState.isEmpty() ? QStringLiteral("not reported") : m_interopState));
    std::fflush(stdout);
}

} // namespace nbody::app
