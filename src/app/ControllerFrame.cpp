/// \file ControllerFrame.cpp
/// SimulationController (its frame): advance() applies the queued commands, steps, describes
/// what the GUI draws and emits frameReady(), in that order; and a GPU fault's recovery.

#include "SimulationController.h"

#include "gl/ColourModes.h"
#include "contracts/Errors.h"
#include "sim/core/PrecisionRange.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/Scenario.h"
#include "sim/core/Selection.h"
#include "sim/core/Simulation.h"
#include "contracts/World.h"

#include <QElapsedTimer>

#include <algorithm>
#include <limits>

namespace nbody::app {

void SimulationController::attachBuffers(FrameBuffers& b)
{
    if (!b.interop() || b.attached || !m_sim || m_sim->size() > b.capacity)
        return;
    m_sim->attachDevicePositions(b.p0, b.p1, b.capacity);
    b.attached = true;
    if (m_sim->positionStorage() != PositionStorage::External)
        m_sim->setPositionStorage(PositionStorage::External); // moves the state in
}

void SimulationController::detachBuffers(FrameBuffers& b)
{
    // The window in which the caller's buffers may be used ends before frameReady is emitted:
    // the GUI thread unmaps them as soon as it gets the result.
    if (b.attached && m_sim)
        m_sim->detachDevicePositions();
    b.attached = false;
}

// A GPU fault (a CudaError: an illegal address, a failed launch, a lost context): the run pauses
// at the last good state kept on the host (Simulation::abandonDeviceState; the device state
// itself when it can still be read), the frame says what happened, and the CPU takes over only
// on request (setKernel("cpu"): the GPU fault box's "Continue on the CPU", DevicePresenter.h).
// The CUDA context is not used again when it is lost, and not reset: the GUI thread's GL
// buffers are still registered with it; the Viewport draws from host uploads once mapping fails.
void SimulationController::recoverFromFault(const CudaError& e, FrameResult& r, FrameBuffers& b)
{
    r.cudaFailed = true;
    setRunning(false);
    if (!m_sim) {
        r.error = QString::fromUtf8(e.what());
        return;
    }
    const QString kernel =
        QString::fromUtf8(m_sim->kernel().id.data(), static_cast<qsizetype>(m_sim->kernel().id.size()));
    const quint64 reached = m_sim->stepCount();
    const std::uint64_t lost = m_sim->abandonDeviceState();
    try {
        detachBuffers(b);
        if (m_sim->positionStorage() != PositionStorage::Owned)
            m_sim->setPositionStorage(PositionStorage::Owned);
    } catch (...) {
    }
    b.attached = false;
    const std::string contextLost = cudaContextLost();
    r.error = tr("The GPU failed while kernel '%1' was running (step %2): %3\n\n"
                 "The run is paused at step %4, the last state kept on the host (%5 steps lost). %6")
                  .arg(kernel)
                  .arg(reached)
                  .arg(QString::fromUtf8(e.what()))
                  .arg(m_sim->stepCount())
                  .arg(lost)
                  .arg(contextLost.empty()
                           ? tr("Start tries the GPU again; the CPU kernel can take over.")
                           : tr("The CUDA context is lost (%1): GPU kernels are unavailable until the "
                                "program restarts; the CPU kernel can take over.")
                                 .arg(QString::fromStdString(contextLost)));
}

void SimulationController::applyCommands(FrameBuffers& b)
{
    std::vector<Command> commands;
    commands.swap(m_pending);
    for (Command& c : commands) {
        if (!m_sim && !c.makesSystem)
            continue;
        if (b.attached && c.requiredCapacity > b.capacity) {
            // The next system does not fit the GL buffers: take the state off them before the
            // GUI reallocates (setWorld replaces it anyway, but a failed load keeps it).
            m_sim->setPositionStorage(PositionStorage::Owned);
            detachBuffers(b);
        }
        try {
            c.apply();
        } catch (const CudaError&) {
            throw;
        } catch (const std::exception& e) {
            emit commandFailed(c.what, QString::fromUtf8(e.what()));
        }
    }
}

int SimulationController::stepsForFrame(bool& fromPresses, int& wanted)
{
    int steps = 0;
    if (m_running) {
        steps = m_stepsPerFrame;
        if (m_stepsToRun > 0)
            steps = std::min(steps, std::max(0, m_stepsRemaining));
    } else if (m_stepsRequested > 0) {
        steps = m_stepsRequested; // every Step press counts, however fast
    }
    fromPresses = !m_running && m_stepsRequested > 0;
    wanted = steps;
    steps = clipToRecordedStep(steps);
    if (!fromPresses)
        m_stepsRequested = 0;
    return steps;
}

int SimulationController::clipToRecordedStep(int steps) const
{
    if (m_recordEvery <= 0 || steps <= 0 || !m_sim)
        return steps;
    const quint64 step = m_sim->stepCount();
    const quint64 since = step >= m_recordOrigin ? step - m_recordOrigin : 0;
    if (since % quint64(m_recordEvery) == 0 && m_lastRecorded != std::optional<quint64>(step))
        return 0; // this state is a recorded frame not yet sent: send it before stepping on
    const quint64 toNext = quint64(m_recordEvery) - since % quint64(m_recordEvery);
    return static_cast<int>(std::min<quint64>(quint64(steps), toNext));
}

int SimulationController::stepInterruptibly(int steps, StepTiming& timing)
{
    // Chunks of about 50 ms (from the last measured time per step), at least one step each.
    constexpr double kChunkMs = 50.0;
    int done = 0;
    double ms = 0.0;
    // A frame also ends after m_frameBudgetMs, so the view and the status bar keep up when a
    // frame of `steps` would take long; the remaining steps come in the next frames.
    while (done < steps && !m_interrupt.load() && (m_frameBudgetMs <= 0 || done == 0 || ms < m_frameBudgetMs)) {
        const double last = m_sim->lastTiming().msPerStep;
        const int chunk = std::clamp(last > 0 ? int(kChunkMs / last) : 1, 1, steps - done);
        const std::size_t merges = m_sim->mergeLog().size();
        m_sim->step(chunk);
        if (m_sim->mergeLog().size() != merges)
            m_massRange = m_sim->world().massRange(); // survivors are heavier: the colour range follows
        ms += m_sim->lastTiming().msPerStep * chunk;
        done += chunk;
    }
    if (done > 0) {
        const double n = double(m_sim->size());
        timing.steps = done;
        timing.msPerStep = ms / done;
        timing.interactionsPerSecond = timing.msPerStep > 0 ? n * n / (timing.msPerStep * 1e-3) : 0.0;
    }
    return done;
}

void SimulationController::afterSteps(int done, bool fromPresses, FrameResult& r)
{
    if (m_sim->size() != m_publishedBodies)
        publishState(); // merges (the collision system) changed N: the docks follow now
    // Presses the frame budget left over follow in the next frames (Pause drops them).
    if (fromPresses)
        m_stepsRequested = std::max(0, m_stepsRequested - done);
    if (const std::string bad = m_sim->checkFinite(); !bad.empty()) {
        // A blown-up system would run on invisibly: stop. The cause is the kernel's precision
        // when the range check found the system outside it, else the time step.
        const QString cause = m_rangeProblems.empty()
                                  ? QStringLiteral("the time step is too large for it")
                                  : QString::fromStdString(precisionRangeCause(m_rangeProblems.front(),
                                                                               m_sim->kernel().precision));
        r.error = QStringLiteral("The system is no longer finite at step %1 (%2): %3. Paused; Reset starts again.")
                      .arg(m_sim->stepCount())
                      .arg(QString::fromStdString(bad), cause);
        setRunning(false);
    }
    if (m_running && m_stepsToRun > 0) {
        m_stepsRemaining -= done;
        if (m_stepsRemaining <= 0) {
            r.runFinished = true;
            setRunning(false);
        }
    }
}

void SimulationController::stepFrame(const FrameRequest& request, FrameResult& r, FrameBuffers& b)
{
    attachBuffers(b);
    r.valid = true;
    if (m_sim->size() > b.capacity) {
        r.needCapacity = m_sim->size();
        return;
    }
    if (!b.attached && m_sim->positionStorage() == PositionStorage::External && m_sim->deviceResident()) {
        // The positions live in GL buffers we were not given (the map failed): the GUI thread
        // read the current one back (FrameRequest::recoveredPositions); the GPU goes on with
        // owned buffers and the frames draw from host uploads.
        if (request.recoveredPositions && request.recoveredPositions->size() == m_sim->size())
            m_sim->adoptDevicePositions(*request.recoveredPositions);
        else
            throw CudaError("the CUDA-GL interop buffers holding the positions can no longer be "
                            "mapped, and the view could not read them back");
    }
    bool fromPresses = false;
    int wanted = 0;
    const int steps = stepsForFrame(fromPresses, wanted);
    if (steps > 0) {
        afterSteps(stepInterruptibly(steps, r.timing), fromPresses, r);
    } else if (wanted == 0 && m_running && m_stepsToRun > 0) {
        r.runFinished = true;
        setRunning(false);
    }
}

void SimulationController::followSelectionMerges()
{
    // Merges since the last look move the selection to the survivor.
    if (!m_selectedId || !m_sim)
        return;
    const std::vector<MergeRecord>& log = m_sim->mergeLog();
    if (m_mergesFollowed > log.size())
        m_mergesFollowed = 0;
    if (m_mergesFollowed < log.size()) {
        const std::uint32_t before = *m_selectedId;
        m_selectedId = followMerges(before, std::span(log).subspan(m_mergesFollowed));
        m_mergesFollowed = log.size();
        if (*m_selectedId != before)
            m_selectionChanged = true;
    }
}

void SimulationController::reportSelection(FrameResult& r)
{
    if (m_selectionCleared) {
        r.selectionCleared = true;
        r.selectionMessage = m_selectionMessage;
        m_selectionCleared = false;
        m_selectionMessage.clear();
    }
    if (!m_selectedId)
        return;
    followSelectionMerges();
    // Every frame: the selected body's row alone (its id looked up on the host, where ids live;
    // with a CUDA kernel one position and velocity copied back, not the state).
    m_selectedIndex = findBodyById(m_sim->ids(), *m_selectedId, m_selectedIndex);
    if (!m_selectedIndex) {
        r.selectionCleared = true;
        r.selectionMessage = tr("The selected body (id %1) is gone: it was removed.").arg(*m_selectedId);
        m_selectedId.reset();
        return;
    }
    const Double4 x = m_sim->body(*m_selectedIndex).position;
    r.selectedPosition = Double3{x.x, x.y, x.z};
    // The report is an O(N) pass: ten times a second is enough to read (1 ms per 10⁵ bodies).
    static const QElapsedTimer clock = [] {
        QElapsedTimer t;
        t.start();
        return t;
    }();
    const qint64 now = clock.elapsed();
    if (m_selectionChanged || now - m_lastSelectionReportMs >= 100) {
        r.selection = describeBody(m_sim->world(), *m_selectedIndex, m_sim->params().G, m_sim->params().eps2);
        m_lastSelectionReportMs = now;
        m_selectionChanged = false;
    }
}

void SimulationController::describeView(FrameResult& r)
{
    if (m_framingRequested) {
        r.framing = framingSphere(m_sim->world());
        m_framingRequested = false;
    }
    if (m_systemReplaced) { // the view clears its trails and picks its default colours
        r.systemReplaced = true;
        const std::string_view mode = gl::defaultColourMode(m_sim->world()).id;
        r.defaultColourMode = QString::fromLatin1(mode.data(), qsizetype(mode.size()));
        m_systemReplaced = false;
    }
    if (m_initialWorld && m_initialWorld->hasNames()) // labels (the Solar System's planets)
        r.labels = std::make_shared<const std::vector<gl::Label>>(gl::namedBodyLabels(m_sim->world()));
    if (m_followCentre)
        r.centre = centreOfMass(m_sim->world()).centre;
    if (m_reportBounds) {
        std::array<float, 6> box{std::numeric_limits<float>::max(),    std::numeric_limits<float>::max(),
                                 std::numeric_limits<float>::max(),    std::numeric_limits<float>::lowest(),
                                 std::numeric_limits<float>::lowest(), std::numeric_limits<float>::lowest()};
        for (const Float4& p : m_sim->world().positions()) {
            box[0] = std::min(box[0], p.x), box[1] = std::min(box[1], p.y), box[2] = std::min(box[2], p.z);
            box[3] = std::max(box[3], p.x), box[4] = std::max(box[4], p.y), box[5] = std::max(box[5], p.z);
        }
        r.bounds = box;
    }
    if (m_colourSource != int(gl::ColourSource::Mass)) {
        // read by the shader per body: speed (0 … 99th percentile), group or time-step level
        auto scalars = std::make_shared<std::vector<float>>();
        r.scalarMin = 0.f;
        r.scalarMax = gl::bodyScalars(static_cast<gl::ColourSource>(m_colourSource), m_sim->world(), *scalars,
                                      &r.groupsPresent, m_sim->blockLevels().level);
        r.scalars = std::move(scalars);
    }
}

void SimulationController::describeFrame(FrameResult& r, FrameBuffers& b)
{
    try {
        describeView(r);
        reportSelection(r);
        r.deviceDrawn = b.attached && m_sim->kernel().backend == Backend::Cuda;
        if (r.deviceDrawn) {
            r.current = m_sim->currentBuffer();
        } else {
            r.current = 0;
            r.hostPositions = std::make_shared<const std::vector<Float4>>(m_sim->world().positions());
        }
    } catch (const CudaError& e) {
        recoverFromFault(e, r, b);
        publishState();
        r.deviceDrawn = false;
        try {
            r.hostPositions = std::make_shared<const std::vector<Float4>>(m_sim->world().positions());
        } catch (...) {
        }
    } catch (const std::exception& e) {
        if (r.error.isEmpty())
            r.error = QString::fromUtf8(e.what());
    }
}

void SimulationController::finishFrame(FrameResult& r)
{
    if (m_sim) {
        r.step = m_sim->stepCount();
        r.time = m_sim->time();
        r.bodies = m_sim->size();
        r.kernelId = m_publishedKernel;
        r.fullDownloads = m_sim->fullDownloads();
        if (blockSteps(m_sim->params()))
            r.levelHistogram = QString::fromStdString(levelHistogramText(m_sim->blockLevels()));
    }
    if (m_sim && r.valid && r.needCapacity == 0 && m_recordEvery > 0) {
        const quint64 step = m_sim->stepCount();
        if (step >= m_recordOrigin && (step - m_recordOrigin) % quint64(m_recordEvery) == 0 &&
            m_lastRecorded != std::optional<quint64>(step)) {
            r.record = true;
            m_lastRecorded = step;
        }
    }
    r.massMin = m_massRange.first;
    r.massMax = m_massRange.second;
    r.running = m_running;
    r.workPending = pendingWork() || r.needCapacity != 0;
    if (!m_newDiagnostics.isEmpty()) {
        emit diagnosticsMeasured(m_newDiagnostics);
        m_newDiagnostics.clear();
    }
    emit frameReady(r);
}

void SimulationController::advance(const FrameRequest& request)
{
    FrameResult r;
    r.serial = request.serial;
    FrameBuffers b;
    b.p0 = reinterpret_cast<Float4*>(request.device0);
    b.p1 = reinterpret_cast<Float4*>(request.device1);
    b.capacity = static_cast<std::size_t>(request.capacity);
    try {
        attachBuffers(b);
        applyCommands(b);
        publishState();
        // A tunable CUDA kernel at an N bucket the cache lacks: measured here, on this thread
        // (the GUI thread goes on; the status bar says so), applied from the next evaluation.
        tuneIfNeeded(false);
        if (m_sim)
            stepFrame(request, r, b);
    } catch (const CudaError& e) {
        recoverFromFault(e, r, b);
        publishState();
    } catch (const std::exception& e) {
        r.error = QString::fromUtf8(e.what());
        setRunning(false);
    }
    if (m_sim && r.needCapacity == 0)
        describeFrame(r, b);
    try {
        detachBuffers(b);
    } catch (...) {
    }
    finishFrame(r);
}

} // namespace nbody::app
