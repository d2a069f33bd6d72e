#include "SimulationController.h"
#include "sim/core/ParamTable.h"

#include "sim/perf/Benchmark.h"
#include "sim/core/Edits.h"
#include "gl/ColourModes.h"
#include "contracts/Errors.h"
#include "sim/core/KernelRegistry.h"
#include "sim/perf/LaunchPredictor.h"
#include "sim/core/Selection.h"
#include "sim/core/Scenario.h"
#include "sim/io/Scenarios.h"
#include "sim/core/Simulation.h"
#include "sim/io/Snapshot.h"
#include "sim/perf/Tuner.h"
#include "contracts/World.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <stdexcept>

namespace nbody::app {

namespace {

QString cubeDescription(std::size_t n)
{
    return QStringLiteral("uniform cube, %1 bodies").arg(n);
}

/// The recipe of a Tipsy file: its absolute path (Save scenario writes it).
ScenarioSpec snapshotSpec(const QString& path)
{
    ScenarioSpec s;
    s.snapshot = QFileInfo(path).absoluteFilePath().toStdString();
    return s;
}

/// A registry id or a scenario file (.json), as on the command line of nbody.
ScenarioSpec specFor(const QString& scenario)
{
    const std::string id = scenario.toStdString();
    if (findScenario(id) || !scenario.endsWith(QLatin1String(".json"), Qt::CaseInsensitive))
        return scenarioSpec(id); // ScenarioError naming the known ids
    return readScenarioFile(id);
}

} // namespace

SimulationController::SimulationController(QObject* parent) : QObject(parent) {}

SimulationController::~SimulationController() = default;

// ---- commands ------------------------------------------------------------------------------

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

void SimulationController::initialize(const StartupConfig& config)
{
    m_stepsPerFrame = std::clamp(config.stepsPerFrame, 1, 1000);
    m_stepsToRun = std::max(0, config.stepsToRun);
    emit stepsPerFrameChanged(m_stepsPerFrame);
    emit stepsToRunChanged(m_stepsToRun);

    Command c;
    c.what = QStringLiteral("start-up");
    c.makesSystem = true;
    c.apply = [this, config] {
        World world;
        QString source;
        SimParams params;
        QString kernelId = config.kernelId;
        if (!config.scenario.isEmpty()) {
            try {
                ScenarioSpec spec = specFor(config.scenario);
                QString sized;
                if (const ScenarioInfo* row = findScenario(spec.generator);
                    row && config.bodiesGiven && !row->fixedBodies) {
                    spec.bodies = std::size_t(config.bodies);
                } else if (row && !row->fixedBodies && !spec.bodies && config.sizeForStepsPerSecond > 0) {
                    // N from the kernel's measured speed: force evaluations timed over 50 ms (median of three), scaled as N².
                    SimParams probe = params;
                    probe.integrator = std::string(row->integrator);
                    const KernelInfo* k = findKernel(kernelId.toStdString());
                    if (k && availability(*k).available) {
                        const StepRateSize s = bodiesForStepRate(*k, probe, config.sizeForStepsPerSecond);
                        spec.bodies = s.bodies;
                        sized = QStringLiteral(" (N sized for %1 steps/s on %2: %3 ms per step predicted)")
                                    .arg(config.sizeForStepsPerSecond)
                                    .arg(kernelId)
                                    .arg(1e3 * s.secondsPerStep, 0, 'f', 1);
                    }
                }
                BuiltScenario built = buildScenario(spec, params);
                built.summary += sized.toStdString();
                world = std::move(built.bodies.world);
                m_initialExact = built.bodies.exact ? std::make_unique<Fp64State>(*built.bodies.exact) : nullptr;
                params = built.params;
                if (!built.kernel.empty() && !config.kernelGiven &&
                    availability(*findKernel(built.kernel)).available)
                    kernelId = QString::fromStdString(built.kernel);
                source = QString::fromStdString(built.summary);
                m_spec = std::make_unique<ScenarioSpec>(spec);
            } catch (const std::exception& e) {
                emit startupFailed(QString::fromUtf8(e.what()));
            }
        } else if (!config.inputFile.isEmpty()) {
            try {
                Snapshot snap = readSnapshot(config.inputFile.toStdString());
                // what the file stores, else a new system's defaults (throws for a massless system)
                applyFileParams(params, snap.world, snap.params);
                world = std::move(snap.world);
                if (snap.exact) // an fp64 run's state (HDF5 in double precision)
                    m_initialExact = std::make_unique<Fp64State>(std::move(*snap.exact));
                source = QFileInfo(config.inputFile).fileName();
                m_spec = std::make_unique<ScenarioSpec>(snapshotSpec(config.inputFile));
            } catch (const std::exception& e) {
                emit startupFailed(QString::fromUtf8(e.what()));
            }
        }
        if (world.empty()) {
            CubeParams cube;
            cube.bodies = static_cast<std::size_t>(config.bodies);
            world = makeUniformCube(cube);
            source = cubeDescription(world.size());
            m_spec = std::make_unique<ScenarioSpec>(scenarioSpec("cube", cube.bodies, cube.seed));
            m_initialExact.reset();
        }
        params.diagnosticsInterval = std::max(0, config.diagnosticsInterval);
        params.hostCopyInterval = std::max(0, config.hostCopyInterval);
        m_initialWorld = std::make_unique<World>(world);
        m_massRange = world.massRange();
        m_source = source;
        try {
            m_sim = std::make_unique<Simulation>(std::move(world),
                                                 m_initialExact ? std::optional<Fp64State>(*m_initialExact)
                                                                : std::nullopt,
                                                 params, kernelId.toStdString());
        } catch (const std::invalid_argument& e) {
            // the kernel was checked by main(); this is the last line of defence
            emit startupFailed(QString::fromUtf8(e.what()));
            m_sim = std::make_unique<Simulation>(World(*m_initialWorld),
                                                 m_initialExact ? std::optional<Fp64State>(*m_initialExact)
                                                                : std::nullopt,
                                                 params, "cpu");
        }
        m_sim->setDiagnosticsObserver([this](const Diagnostics& d) { m_newDiagnostics.append(d); });
        m_newDiagnostics.clear();
        emit diagnosticsRestarted();
        m_framingRequested = true;
        m_systemReplaced = true;
        emit sourceChanged(m_source);
        publishUnits();
        if (config.startRunning)
            setRunning(true);
    };
    enqueue(std::move(c));
}

void SimulationController::applyFileParams(SimParams& params, const World& world,
                                           const std::optional<RestartParams>& file)
{
    // Each parameter the file stores, on its own; the others a new system's (G = 1, dt and ε²
    // derived from the scale with the file's G).
    const FileParams f = resolveFileParams(world, file);
    params.G = f.G;
    params.dt = f.dt;
    params.eps2 = f.eps2;
    if (file && (file->blockSize > 0 || file->tileWidthFactor > 0)) { // 0: auto (not stored)
        params.blockSize = file->blockSize;
        params.tileWidthFactor = file->tileWidthFactor;
    }
    // The stored integrator, θ, leaf size and collision switch continue the file's run; the
    // direction of time stays the Run dock's (a run control, not a property of the system).
    if (file) {
        static constexpr std::string_view keepDirection[] = {"reverse"};
        (void)applyStoredParams(file->stored, params, keepDirection);
    }
}

void SimulationController::installWorld(World world, const QString& source, bool deriveParams,
                                         const std::optional<RestartParams>& fileParams, const Fp64State* exact)
{
    if (!m_sim)
        throw std::logic_error("no simulation");
    SimParams params = m_sim->params();
    if (deriveParams) {
        // A system read from a file: what it stores, else a new system's defaults (G = 1, the
        // leapfrog; dt and ε² derived from its scale), never the previous system's physics.
        const SimParams fresh;
        params.G = fresh.G;
        params.integrator = fresh.integrator;
        applyFileParams(params, world, fileParams);
    }
    auto initial = std::make_unique<World>(world);
    auto initialExact = exact ? std::make_unique<Fp64State>(*exact) : nullptr;
    const auto range = world.massRange();
    // throws invalid_argument: the current system stays
    m_sim->setWorld(std::move(world), exact ? std::optional<Fp64State>(*exact) : std::nullopt);
    if (deriveParams) {
        try {
            m_sim->setParams(params);
        } catch (const std::invalid_argument&) {
            // A file's block size or tile width this device cannot take: keep the current ones.
            params.blockSize = m_sim->params().blockSize;
            params.tileWidthFactor = m_sim->params().tileWidthFactor;
            m_sim->setParams(params);
        }
    }
    // The kernel the snapshot was written with, when it can run here (an exact continuation).
    if (fileParams && !fileParams->kernel.empty() && fileParams->kernel != m_sim->kernel().id) {
        const KernelInfo* k = findKernel(fileParams->kernel);
        if (k && availability(*k).available) {
            try {
                m_sim->setKernel(fileParams->kernel);
            } catch (const std::invalid_argument&) {
                // the current kernel stays (publishState reports which one runs)
            }
        }
    }
    m_initialWorld = std::move(initial);
    m_initialExact = std::move(initialExact);
    m_massRange = range;
    m_lastEdit.reset(); // edits of the previous system cannot be undone on this one
    m_recordOrigin = m_sim->stepCount(); // a recording goes on with the new system from here
    m_lastRecorded.reset();
    m_framingRequested = true;
    m_systemReplaced = true;
    if (m_selectedId) { // ids belong to the system: a new one (or a reset) ends the selection
        m_selectedId.reset();
        m_selectionCleared = true;
        m_selectionMessage = tr("The selection ended: the system was replaced.");
    }
    m_newDiagnostics.clear();
    emit diagnosticsRestarted();
    if (m_source != source) {
        m_source = source;
        emit sourceChanged(m_source);
    }
}

void SimulationController::publishUnits()
{
    emit unitsChanged(m_spec ? QString::fromStdString(unitsOfG(*m_spec)) : QString());
}

void SimulationController::reset()
{
    Command c;
    c.what = QStringLiteral("reset");
    c.requiredCapacity = m_initialWorld ? m_initialWorld->size() : 0;
    c.apply = [this] {
        if (m_initialWorld)
            installWorld(World(*m_initialWorld), m_source, false, std::nullopt, m_initialExact.get());
        m_stepsRemaining = m_stepsToRun;
    };
    enqueue(std::move(c));
}

void SimulationController::loadFile(const QString& path)
{
    std::shared_ptr<World> world;
    std::shared_ptr<const Fp64State> exact; // an fp64 run's state (HDF5 in double precision)
    std::optional<RestartParams> fileParams;
    try {
        Snapshot snap = readSnapshot(path.toStdString()); // any format, detected from the content
        fileParams = snap.params;
        world = std::make_shared<World>(std::move(snap.world));
        if (snap.exact)
            exact = std::make_shared<const Fp64State>(std::move(*snap.exact));
        (void)resolveFileParams(*world, fileParams); // a system without mass cannot be simulated
    } catch (const std::exception& e) {
        emit loadFailed(path, QString::fromUtf8(e.what()));
        return;
    }
    Command c;
    c.what = QStringLiteral("load");
    c.requiredCapacity = world->size();
    const QString name = QFileInfo(path).fileName();
    c.apply = [this, world, exact, name, path, fileParams] {
        try {
            installWorld(std::move(*world), name, true, fileParams, exact.get());
            m_spec = std::make_unique<ScenarioSpec>(snapshotSpec(path));
            publishUnits();
            // A kernel a scenario chose for itself (an fp64 one for the Solar System) does not
            // suit the file: back to the user's, unless the file named its own.
            if (!(fileParams && !fileParams->kernel.empty()))
                restoreUserKernel();
            m_scenarioKernel.clear();
        } catch (const std::invalid_argument& e) {
            emit loadFailed(path, QString::fromUtf8(e.what()));
        }
    };
    enqueue(std::move(c));
}

void SimulationController::saveSnapshot(const QString& path)
{
    enqueueSave(path, &SimulationController::snapshotSaved, &SimulationController::saveFailed);
}

void SimulationController::autosave(const QString& path)
{
    enqueueSave(path, &SimulationController::autosaved, &SimulationController::autosaveFailed);
}

void SimulationController::enqueueSave(const QString& path,
                                       void (SimulationController::*saved)(const QString&, qulonglong, qulonglong),
                                       void (SimulationController::*failed)(const QString&, const QString&))
{
    Command c;
    c.what = QStringLiteral("save");
    c.apply = [this, path, saved, failed] {
        try {
            const World& w = m_sim->world(); // synchronised from the device when a CUDA kernel runs
            const SimParams& p = m_sim->params();
            const RestartParams rp = restartParams(p, m_sim->kernel().id);
            // An fp64 kernel's state as it is (HDF5 keeps it in 64-bit floats: an exact restart).
            std::optional<Fp64State> exact;
            if (m_sim->kernel().layout == Layout::Double4)
                exact = m_sim->state64();
            writeSnapshot(path.toStdString(), w, &rp, {}, exact ? &*exact : nullptr);
            emit(this->*saved)(path, static_cast<qulonglong>(w.size()), static_cast<qulonglong>(w.step));
        } catch (const CudaError&) {
            throw; // the frame pauses at the last host copy (its GPU fault handling)
        } catch (const std::exception& e) {
            emit(this->*failed)(path, QString::fromUtf8(e.what()));
        }
    };
    enqueue(std::move(c));
}

void SimulationController::setKernel(const QString& id)
{
    Command c;
    c.what = QStringLiteral("kernel");
    c.apply = [this, id] {
        m_sim->setKernel(id.toStdString());
        m_scenarioKernel.clear(); // the user's choice from now on
    };
    enqueue(std::move(c));
}

void SimulationController::newScenario(const QString& id, qulonglong bodies, quint64 seed)
{
    try {
        const ScenarioSpec spec =
            scenarioSpec(id.toStdString(), bodies > 0 ? std::optional<std::size_t>(bodies) : std::nullopt, seed);
        enqueueScenario(std::make_shared<BuiltScenario>(buildScenario(spec, m_sim ? m_sim->params() : SimParams{})),
                        spec, id);
    } catch (const std::exception& e) {
        emit loadFailed(id, QString::fromUtf8(e.what()));
    }
}

void SimulationController::openScenario(const QString& path)
{
    try {
        const ScenarioSpec spec = readScenarioFile(path.toStdString());
        enqueueScenario(std::make_shared<BuiltScenario>(buildScenario(spec, m_sim ? m_sim->params() : SimParams{})),
                        spec, path);
    } catch (const std::exception& e) {
        emit loadFailed(path, QString::fromUtf8(e.what()));
    }
}

void SimulationController::enqueueScenario(std::shared_ptr<BuiltScenario> built, const ScenarioSpec& spec,
                                           const QString& what)
{
    Command c;
    c.what = QStringLiteral("scenario");
    c.requiredCapacity = built->bodies.world.size();
    c.apply = [this, built, spec, what] {
        try {
            installScenario(*built, spec);
        } catch (const std::invalid_argument& e) {
            emit loadFailed(what, QString::fromUtf8(e.what()));
        }
    };
    enqueue(std::move(c));
}

void SimulationController::installScenario(BuiltScenario& built, const ScenarioSpec& spec)
{
    // Parameters first (validated against the current system's size by the kernel's limits);
    // they are restored if the new system is refused.
    const SimParams previous = m_sim->params();
    SimParams params = previous;
    params.G = built.params.G;
    params.eps2 = built.params.eps2;
    params.dt = built.params.dt;
    params.integrator = built.params.integrator;
    params.collisions = built.params.collisions;
    params.contactSearch = built.params.contactSearch;
    m_sim->setParams(params);
    try {
        installWorld(World(built.bodies.world), QString::fromStdString(built.summary), false, std::nullopt,
                     built.bodies.exact ? &*built.bodies.exact : nullptr);
    } catch (...) {
        m_sim->setParams(previous);
        throw;
    }
    m_spec = std::make_unique<ScenarioSpec>(spec);
    publishUnits();
    if (built.kernel.empty()) {
        // A scenario without a kernel of its own (the galaxy collision after the Solar System):
        // the user's kernel, not the previous scenario's fp64 one.
        restoreUserKernel();
        m_scenarioKernel.clear();
    } else if (built.kernel != std::string(m_sim->kernel().id)) {
        try {
            const std::string before(m_sim->kernel().id);
            m_sim->setKernel(built.kernel);
            if (m_scenarioKernel.empty())
                m_kernelBeforeScenario = before;
            m_scenarioKernel = built.kernel;
        } catch (const std::invalid_argument& e) {
            // The scenario runs on the current kernel; say why its own could not be used.
            emit commandFailed(QStringLiteral("the scenario's kernel"), QString::fromUtf8(e.what()));
        }
    }
}

void SimulationController::restoreUserKernel()
{
    if (m_scenarioKernel.empty() || m_scenarioKernel != std::string(m_sim->kernel().id))
        return; // no scenario's kernel runs: the user's choice stays
    const KernelInfo* k = findKernel(m_kernelBeforeScenario);
    const std::string back = k && availability(*k).available ? m_kernelBeforeScenario : std::string(defaultKernelId());
    try {
        m_sim->setKernel(back);
    } catch (const std::invalid_argument&) {
        // the scenario's kernel stays (publishState reports which one runs)
    }
}

void SimulationController::saveScenario(const QString& path)
{
    try {
        if (!m_sim || !m_spec)
            throw std::logic_error("there is no system to save");
        ScenarioSpec spec = *m_spec;
        const SimParams& p = m_sim->params();
        spec.G = p.G;
        spec.eps2 = p.eps2;
        spec.dt = p.dt;
        spec.integrator = p.integrator;
        spec.kernel = std::string(m_sim->kernel().id);
        if (p.collisions || spec.collisions)
            spec.collisions = p.collisions;
        spec.params = scenarioParamValues(p); // θ, leaf size, launch parameters … that differ from the defaults
        writeScenarioFile(path.toStdString(), spec);
        emit scenarioSaved(path);
    } catch (const std::exception& e) {
        emit commandFailed(QStringLiteral("save scenario"), QString::fromUtf8(e.what()));
    }
}

void SimulationController::setIntegrator(const QString& id)
{
    changeParams(QStringLiteral("integrator"), [id](SimParams& p) { p.integrator = id.toStdString(); });
}

void SimulationController::changeParams(const QString& what,
                                        const std::function<void(SimParams&)>& edit)
{
    Command c;
    c.what = what;
    c.apply = [this, edit] {
        SimParams p = m_sim->params();
        edit(p);
        m_sim->setParams(p); // throws invalid_argument naming the limit; nothing changes then
    };
    enqueue(std::move(c));
}

void SimulationController::setDt(double dt)
{
    changeParams(QStringLiteral("dt"), [dt](SimParams& p) { p.dt = static_cast<float>(dt); });
}

void SimulationController::setGravitationalConstant(double G)
{
    changeParams(QStringLiteral("G"), [G](SimParams& p) { p.G = G; });
}

void SimulationController::setCollisions(bool on)
{
    changeParams(QStringLiteral("collisions"), [on](SimParams& p) { p.collisions = on; });
}

void SimulationController::setEps2(double eps2)
{
    changeParams(QStringLiteral("eps2"), [eps2](SimParams& p) { p.eps2 = static_cast<float>(eps2); });
}

void SimulationController::setParam(const QString& key, const QString& text)
{
    const ParamInfo* row = findParam(key.toStdString());
    const QString what = row ? QString::fromUtf8(row->label.data(), qsizetype(row->label.size())) : key;
    changeParams(what, [row, key, text](SimParams& p) {
        if (!row)
            throw std::invalid_argument("unknown parameter '" + key.toStdString() + "'");
        if (const std::string why = row->set(text.toStdString(), p); !why.empty())
            throw std::invalid_argument(why);
    });
}

void SimulationController::tuneNow()
{
    Command c;
    c.what = QStringLiteral("tuning");
    c.apply = [this] { tuneIfNeeded(true); };
    enqueue(std::move(c));
}

void SimulationController::tuneIfNeeded(bool force)
{
    if (!m_sim)
        return;
    const KernelInfo& k = m_sim->kernel();
    if (!tunable(k, force ? SimParams{} : m_sim->params()))
        return;
    const TuningDevice device = currentTuningDevice();
    const std::size_t bucket = tuningBucket(m_sim->size());
    const std::pair<std::string, std::size_t> key{std::string(k.id), bucket};
    if (!force) {
        // Once per kernel and bucket per session (a failed search is not retried every frame),
        // and only when the cache lacks the entry.
        if (device.name.empty() || std::find(m_tuneAttempted.begin(), m_tuneAttempted.end(), key) != m_tuneAttempted.end() ||
            tuningCache().find(device, k.id, bucket))
            return;
    }
    m_tuneAttempted.push_back(key);
    const QString id = QString::fromStdString(key.first);
    emit tuningStarted(tr("Tuning %1 for N≈%2 on %3 (once per device)…")
                           .arg(id).arg(bucket).arg(QString::fromStdString(device.name)));
    try {
        const TuneOutcome t = ensureTuned(k, m_sim->params(), m_sim->size(), {}, force);
        QString text = t.entry ? tr("Tuned %1 for N≈%2: %3")
                                     .arg(id)
                                     .arg(bucket)
                                     .arg(QString::fromStdString(describeTuned(k, *t.entry)))
                               : tr("%1 needs no tuning").arg(id);
        if (!t.warning.empty())
            text += QStringLiteral(" (%1)").arg(QString::fromStdString(t.warning));
        emit tuningFinished(text);
    } catch (const CudaError&) {
        emit tuningFinished(QString());
        throw; // the frame pauses at the last host copy (its GPU fault handling)
    } catch (const std::exception& e) {
        emit tuningFinished(QString());
        emit commandFailed(QStringLiteral("tuning"), QString::fromUtf8(e.what()));
    }
}

void SimulationController::setDiagnosticsInterval(int steps)
{
    changeParams(QStringLiteral("diagnostics interval"),
                 [steps](SimParams& p) { p.diagnosticsInterval = steps; });
}

// ---- run state -----------------------------------------------------------------------------

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

// ---- sandbox editing -----------------------------------------------------------------------

void SimulationController::applyEdit(const std::function<EditRecord(World&)>& edit, bool isUndo)
{
    World world = m_sim->world(); // synchronised: the current state, time and step
    EditRecord record = edit(world);
    if (world.empty())
        throw std::invalid_argument("the edit would leave no bodies; nothing was changed");
    const auto range = world.massRange();
    followSelectionMerges(); // setWorld starts a new merge log: follow the old one to its end first
    m_sim->setWorld(std::move(world)); // keeps time and step; throws invalid_argument: nothing changes
    m_mergesFollowed = 0;
    m_massRange = range;
    if (isUndo)
        m_lastEdit.reset();
    else
        m_lastEdit = std::make_unique<EditRecord>(std::move(record));
    emit editApplied(QString::fromStdString(isUndo ? "undid: " + record.description
                                                   : m_lastEdit->description),
                     m_lastEdit != nullptr);
}

void SimulationController::addAt(double x, double y, double z, double dragX, double dragY, double dragZ,
                                 bool cluster, int clusterBodies)
{
    if (!m_sim)
        return;
    Command c;
    c.what = QStringLiteral("add");
    c.requiredCapacity = m_sim->size() + (cluster ? std::size_t(std::max(1, clusterBodies)) : 1);
    c.apply = [=, this] {
        applyEdit(
            [&](World& world) {
                const FramingSphere f = framingSphere(world);
                const MassCentre mc = centreOfMass(world);
                const double G = m_sim->params().G;
                const double speed = launchSpeedPerDragLength(world, G); // as the prediction (LaunchPredictor.h)
                const Double3 v{dragX * speed, dragY * speed, dragZ * speed};
                World bodies;
                std::string what;
                if (cluster) {
                    const std::size_t n = std::size_t(std::max(1, clusterBodies));
                    const double mass = mc.mass / double(world.size()) * double(n);
                    bodies = makePlummerCluster(n, mass, 0.02 * f.radius, Double3{x, y, z}, v, G, m_editSeed++);
                    what = "added a Plummer cluster of " + std::to_string(n) + " bodies";
                } else {
                    bodies.addBody(Float4{float(x), float(y), float(z), world.massRange().second},
                                   Float4{float(v.x), float(v.y), float(v.z), 0.f}, Group::Generic);
                    what = "added a body";
                }
                return addBodies(world, bodies, what);
            },
            false);
    };
    enqueue(std::move(c));
}

void SimulationController::removeInRegion(const std::array<float, 16>& viewProjection, float x0, float y0, float x1,
                                          float y1)
{
    Command c;
    c.what = QStringLiteral("delete");
    c.apply = [=, this] {
        applyEdit(
            [&](World& world) {
                const std::vector<BodyIndex> inside = bodiesInRegion(world, viewProjection.data(), x0, y0, x1, y1);
                return removeBodies(world, inside, "removed " + std::to_string(inside.size()) + " bodies");
            },
            false);
    };
    enqueue(std::move(c));
}

void SimulationController::undoLastEdit()
{
    Command c;
    c.what = QStringLiteral("undo");
    if (m_lastEdit && m_sim && m_lastEdit->kind == EditRecord::Kind::Removed)
        c.requiredCapacity = m_sim->size() + m_lastEdit->removed.size();
    c.apply = [this] {
        if (!m_lastEdit)
            throw std::invalid_argument("there is no edit to undo");
        applyEdit(
            [this](World& world) {
                undoEdit(world, *m_lastEdit);
                return *m_lastEdit;
            },
            true);
    };
    enqueue(std::move(c));
}

void SimulationController::setReverse(bool reverse)
{
    changeParams(QStringLiteral("reverse"), [reverse](SimParams& p) { p.reverse = reverse; });
}

void SimulationController::selectAt(const std::array<float, 16>& viewProjection, double px, double py, int width,
                                    int height, double radiusPx)
{
    Command c;
    c.what = QStringLiteral("select");
    c.apply = [=, this] {
        const World& world = m_sim->world();
        const std::optional<BodyIndex> i =
            pickBody(world.positions(), viewProjection.data(), px, py, width, height, radiusPx);
        if (i) {
            m_selectedId = world.ids()[*i];
            m_selectedIndex = *i;
            m_mergesFollowed = m_sim->mergeLog().size();
            m_selectionChanged = true;
        } else if (m_selectedId) {
            m_selectedId.reset();
            m_selectionCleared = true;
            m_selectionMessage.clear();
        }
    };
    enqueue(std::move(c));
}

void SimulationController::selectId(quint32 id)
{
    Command c;
    c.what = QStringLiteral("select");
    c.apply = [=, this] {
        if (const std::optional<BodyIndex> i = findBodyById(m_sim->ids(), id)) {
            m_selectedId = id;
            m_selectedIndex = *i;
            m_mergesFollowed = m_sim->mergeLog().size();
            m_selectionChanged = true;
        }
    };
    enqueue(std::move(c));
}

void SimulationController::clearSelection()
{
    Command c;
    c.what = QStringLiteral("select");
    c.apply = [this] {
        if (!m_selectedId)
            return;
        m_selectedId.reset();
        m_selectionCleared = true;
        m_selectionMessage.clear();
    };
    enqueue(std::move(c));
}

void SimulationController::requestLaunchField(quint64 serial, qulonglong maxSources)
{
    Command c;
    c.what = QStringLiteral("launch preview");
    c.apply = [=, this] {
        const World& world = m_sim->world();
        const SimParams& p = m_sim->params();
        auto context = std::make_shared<LaunchContext>();
        context->field = makeLaunchField(world, p.G, p.eps2, std::max<qulonglong>(1, maxSources));
        context->speedPerDragLength = launchSpeedPerDragLength(world, p.G);
        context->mass = world.massRange().second;
        context->dynamicalTime = dynamicalTime(world, p.G);
        context->dt = signedTimeStep(p); // the prediction steps as the run will: backwards in reverse
        context->serial = serial;
        emit launchFieldReady(std::move(context));
    };
    enqueue(std::move(c));
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
        emit bodiesChanged(n);
    }
}

// ---- the frame ------------------------------------------------------------------------------

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
// on request (setKernel("cpu"), MainWindow's "Continue on the CPU"). The CUDA context is not used
// again when it is lost, and not reset: the GUI thread's GL buffers are still registered with
// it; the Viewport draws from host uploads once mapping fails.
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

void SimulationController::afterSteps(int done, bool fromPresses, FrameResult& r)
{
    if (m_sim->size() != m_publishedBodies)
        publishState(); // merges (the collision system) changed N: the docks follow now
    // Presses the frame budget left over follow in the next frames (Pause drops them).
    if (fromPresses)
        m_stepsRequested = std::max(0, m_stepsRequested - done);
    if (const std::string bad = m_sim->checkFinite(); !bad.empty()) {
        // A blown-up system (dt far too large) would run on invisibly: stop.
        r.error = QStringLiteral("The system is no longer finite at step %1 (%2): the time step "
                                 "is too large for it. Paused; Reset starts again.")
                      .arg(m_sim->stepCount())
                      .arg(QString::fromStdString(bad));
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
    if (m_colourSource == int(gl::ColourSource::Speed) || m_colourSource == int(gl::ColourSource::Group)) {
        // read by the shader per body: speed (0 … 99th percentile) or group
        auto scalars = std::make_shared<std::vector<float>>();
        r.scalarMin = 0.f;
        r.scalarMax =
            gl::bodyScalars(static_cast<gl::ColourSource>(m_colourSource), m_sim->world(), *scalars, &r.groupsPresent);
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
