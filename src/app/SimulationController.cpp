/// \file SimulationController.cpp
/// SimulationController: lifetime, the command queue, the run state, the view's requests and
/// what the controller publishes. The other parts of the class: ControllerSystems.cpp (the
/// system: start-up, reset, files, scenarios), ControllerCommands.cpp (kernel, parameters,
/// edits, selection) and ControllerFrame.cpp (one frame of the protocol).

#include "SimulationController.h"

#include "sim/core/Edits.h"
#include "contracts/Errors.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/PrecisionRange.h"
#include "sim/io/Scenarios.h"
#include "sim/core/Simulation.h"
#include "contracts/World.h"

#include <algorithm>

#include <QStringList>

namespace nbody::app {

SimulationController::SimulationController(QObject* parent) : QObject(parent) {}

SimulationController::~SimulationController() = default;

void chooseStartSystem(StartupConfig& config, double stepsPerSecond)
{
    if (!config.scenario.isEmpty() || !config.inputFile.isEmpty())
        return;
    config.scenario = QString::fromLatin1(kStartScenario);
    config.sizeForStepsPerSecond = stepsPerSecond;
}

void SimulationController::enqueue(Command command)
{
    m_pending.push_back(std::move(command));
    emit workQueued();
}

void SimulationController::setRunning(bool running)
{
    if (running == m_running)
        return;
    m_running = running;
    if (running) {
        m_stepsRemaining = m_stepsToRun;
        emit workQueued();
    }
    emit runningChanged(m_running);
}

void SimulationController::start() { setRunning(true); }

void SimulationController::setFrameBudget(int ms)
{
    m_frameBudgetMs = std::max(0, ms);
}

void SimulationController::pause()
{
    setRunning(false);
    m_stepsRequested = 0;
    m_interrupt.store(false);
}

void SimulationController::stepOnce()
{
    ++m_stepsRequested;
    emit workQueued();
}

void SimulationController::setStepsToRun(int steps)
{
    steps = std::max(0, steps);
    if (steps == m_stepsToRun)
        return;
    m_stepsToRun = steps;
    m_stepsRemaining = steps;
    emit stepsToRunChanged(steps);
}

void SimulationController::setStepsPerFrame(int steps)
{
    steps = std::clamp(steps, 1, 1000);
    if (steps == m_stepsPerFrame)
        return;
    m_stepsPerFrame = steps;
    emit stepsPerFrameChanged(steps);
}

void SimulationController::setColourSource(int source)
{
    m_colourSource = source;
    emit workQueued();
}

void SimulationController::setReportBounds(bool report)
{
    m_reportBounds = report;
    if (report)
        emit workQueued();
}

void SimulationController::setFollowCentre(bool follow)
{
    m_followCentre = follow;
    if (follow)
        emit workQueued();
}

void SimulationController::setRecordEvery(int every)
{
    m_recordEvery = std::max(0, every);
    m_recordOrigin = m_sim ? m_sim->stepCount() : 0;
    m_lastRecorded.reset();
    if (m_recordEvery > 0)
        emit workQueued(); // the first recorded frame is the current state
}

void SimulationController::requestFraming()
{
    m_framingRequested = true;
    emit workQueued();
}

void SimulationController::requestValidationSystem()
{
    Command c;
    c.what = QStringLiteral("validation system");
    c.apply = [this] {
        auto copy = std::make_shared<SystemCopy>();
        try {
            copy->world = m_sim->world(); // synchronised: the current state, time and step
            if (m_sim->kernel().layout == Layout::Double4) // fp32 states are the World itself
                copy->exact = m_sim->state64();
        } catch (const CudaError& e) {
            // The frame pauses at the last host copy (fault); the Validation dock stops waiting.
            emit commandFailed(QStringLiteral("validation system"), QString::fromUtf8(e.what()));
            throw;
        }
        copy->params = m_sim->params();
        copy->source = m_source;
        copy->kernelId = QString::fromUtf8(m_sim->kernel().id.data(), static_cast<qsizetype>(m_sim->kernel().id.size()));
        emit validationSystemReady(std::move(copy));
    };
    enqueue(std::move(c));
}

void SimulationController::shutdown()
{
    m_interrupt.store(false);
    m_pending.clear();
    m_running = false;
    // Nothing is attached between frames, so the simulation holds no pointer into the GL buffers;
    // destroying it here, on its own thread, releases its device memory.
    m_sim.reset();
}

bool SimulationController::pendingWork() const
{
    return !m_pending.empty() || m_stepsRequested > 0 || m_framingRequested;
}

void SimulationController::publishState()
{
    if (!m_sim)
        return;
    if (&m_sim->kernel() != m_publishedKernelRow) { // a pointer compare: no string per frame
        m_publishedKernelRow = &m_sim->kernel();
        const QString kernel = QString::fromUtf8(m_sim->kernel().id.data(),
                                                 static_cast<qsizetype>(m_sim->kernel().id.size()));
        if (kernel != m_publishedKernel) {
            m_publishedKernel = kernel;
            emit kernelChanged(kernel);
        }
    }
    const SimParams& p = m_sim->params();
    const bool paramsSame = m_publishedParams && *m_publishedParams == p; // every parameter
    if (!paramsSame) {
        m_publishedParams = p;
        emit paramsChanged(p);
    }
    const qulonglong n = m_sim->size();
    if (n != m_publishedBodies) {
        m_publishedBodies = n;
        m_rangeCheckDue = true; // merges
        emit bodiesChanged(n);
    }
    checkPrecisionRange();
}

void SimulationController::checkPrecisionRange()
{
    const KernelInfo& k = m_sim->kernel();
    const SimParams& p = m_sim->params();
    const std::tuple<int, double, float> key{int(k.precision), p.G, p.eps2};
    if (!m_rangeCheckDue && m_rangeCheckedFor == key)
        return;
    m_rangeCheckDue = false;
    m_rangeCheckedFor = key;
    m_rangeProblems = precisionRangeProblems(m_sim->world(), p, k.precision);
    QStringList warnings;
    for (const std::string& problem : m_rangeProblems)
        warnings << QString::fromStdString(precisionRangeWarning(problem, k.id, k.precision));
    const QString text = warnings.join(QLatin1Char('\n'));
    if (text != m_publishedRangeWarnings) {
        m_publishedRangeWarnings = text;
        emit precisionRangeChecked(text);
    }
}

void SimulationController::publishUnits()
{
    emit unitsChanged(QString::fromStdString(m_unitsOfG));
    if (!m_sim)
        return;
    // The median mass (the Add body tool's default): the middle of the sorted masses.
    const auto& pos = m_sim->world().positions();
    std::vector<float> masses(pos.size());
    for (std::size_t i = 0; i < pos.size(); ++i)
        masses[i] = pos[i].w;
    double median = 0;
    if (!masses.empty()) {
        const auto mid = masses.begin() + std::ptrdiff_t(masses.size() / 2);
        std::nth_element(masses.begin(), mid, masses.end());
        median = *mid;
    }
    emit massesChanged(median, double(m_sim->world().massRange().second));
}

} // namespace nbody::app
