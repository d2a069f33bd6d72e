#include "SimulationController.h"

#include "sim/Errors.h"
#include "sim/KernelRegistry.h"
#include "sim/Scenario.h"
#include "sim/Scenarios.h"
#include "sim/Simulation.h"
#include "sim/Tipsy.h"
#include "sim/World.h"

#include <QFileInfo>

#include <algorithm>
#include <exception>
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
    c.apply = [this, config] {
        World world;
        QString source;
        bool derive = false;
        SimParams params;
        QString kernelId = config.kernelId;
        if (!config.scenario.isEmpty()) {
            try {
                ScenarioSpec spec = specFor(config.scenario);
                if (const ScenarioInfo* row = findScenario(spec.generator);
                    row && config.bodiesGiven && !row->fixedBodies)
                    spec.bodies = std::size_t(config.bodies);
                BuiltScenario built = buildScenario(spec, params);
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
                world = readTipsy(config.inputFile.toStdString());
                source = QFileInfo(config.inputFile).fileName();
                derive = true;
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
        if (derive) {
            const ScaleDefaults sd = deriveScaleDefaults(world, params.G);
            params.dt = sd.dt;
            params.eps2 = sd.eps2;
        }
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
        m_framingRequested = true;
        emit sourceChanged(m_source);
        if (config.startRunning)
            setRunning(true);
    };
    enqueue(std::move(c));
}

void SimulationController::installWorld(World world, const QString& source, bool deriveParams,
                                        const Fp64State* exact)
{
    if (!m_sim)
        throw std::logic_error("no simulation");
    SimParams params = m_sim->params();
    if (deriveParams) {
        const ScaleDefaults sd = deriveScaleDefaults(world, params.G);
        params.dt = sd.dt;
        params.eps2 = sd.eps2;
    }
    auto initial = std::make_unique<World>(world);
    auto initialExact = exact ? std::make_unique<Fp64State>(*exact) : nullptr;
    const auto range = world.massRange();
    // throws invalid_argument: the current system stays
    m_sim->setWorld(std::move(world), exact ? std::optional<Fp64State>(*exact) : std::nullopt);
    if (deriveParams)
        m_sim->setParams(params);
    m_initialWorld = std::move(initial);
    m_initialExact = std::move(initialExact);
    m_massRange = range;
    m_framingRequested = true;
    if (m_source != source) {
        m_source = source;
        emit sourceChanged(m_source);
    }
}

void SimulationController::reset()
{
    Command c;
    c.what = QStringLiteral("reset");
    c.requiredCapacity = m_initialWorld ? m_initialWorld->size() : 0;
    c.apply = [this] {
        if (m_initialWorld)
            installWorld(World(*m_initialWorld), m_source, false, m_initialExact.get());
        m_stepsRemaining = m_stepsToRun;
    };
    enqueue(std::move(c));
}

void SimulationController::loadFile(const QString& path)
{
    std::shared_ptr<World> world;
    try {
        world = std::make_shared<World>(readTipsy(path.toStdString()));
        (void)deriveScaleDefaults(*world, 1.0); // a system without mass cannot be simulated
    } catch (const std::exception& e) {
        emit loadFailed(path, QString::fromUtf8(e.what()));
        return;
    }
    Command c;
    c.what = QStringLiteral("load");
    c.requiredCapacity = world->size();
    const QString name = QFileInfo(path).fileName();
    c.apply = [this, world, name, path] {
        try {
            installWorld(std::move(*world), name, true);
            m_spec = std::make_unique<ScenarioSpec>(snapshotSpec(path));
        } catch (const std::invalid_argument& e) {
            emit loadFailed(path, QString::fromUtf8(e.what()));
        }
    };
    enqueue(std::move(c));
}

void SimulationController::setKernel(const QString& id)
{
    Command c;
    c.what = QStringLiteral("kernel");
    c.apply = [this, id] { m_sim->setKernel(id.toStdString()); };
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
    m_sim->setParams(params);
    try {
        installWorld(World(built.bodies.world), QString::fromStdString(built.summary), false,
                     built.bodies.exact ? &*built.bodies.exact : nullptr);
    } catch (...) {
        m_sim->setParams(previous);
        throw;
    }
    m_spec = std::make_unique<ScenarioSpec>(spec);
    if (!built.kernel.empty() && built.kernel != std::string(m_sim->kernel().id)) {
        try {
            m_sim->setKernel(built.kernel);
        } catch (const std::invalid_argument& e) {
            // The scenario runs on the current kernel; say why its own could not be used.
            emit commandFailed(QStringLiteral("the scenario's kernel"), QString::fromUtf8(e.what()));
        }
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

void SimulationController::setEps2(double eps2)
{
    changeParams(QStringLiteral("eps2"), [eps2](SimParams& p) { p.eps2 = static_cast<float>(eps2); });
}

void SimulationController::setBlockSize(int blockSize)
{
    changeParams(QStringLiteral("block size"), [blockSize](SimParams& p) { p.blockSize = blockSize; });
}

void SimulationController::setTileWidthFactor(int factor)
{
    changeParams(QStringLiteral("tile width factor"),
                 [factor](SimParams& p) { p.tileWidthFactor = factor; });
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

void SimulationController::requestFraming()
{
    m_framingRequested = true;
    emit workQueued();
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
        m_sim->step(chunk);
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
    const QString kernel = QString::fromUtf8(m_sim->kernel().id.data(),
                                             static_cast<qsizetype>(m_sim->kernel().id.size()));
    if (kernel != m_publishedKernel) {
        m_publishedKernel = kernel;
        emit kernelChanged(kernel);
    }
    const SimParams& p = m_sim->params();
    const bool paramsSame = m_publishedParams && m_publishedParams->G == p.G &&
                            m_publishedParams->eps2 == p.eps2 && m_publishedParams->dt == p.dt &&
                            m_publishedParams->blockSize == p.blockSize &&
                            m_publishedParams->tileWidthFactor == p.tileWidthFactor &&
                            m_publishedParams->diagnosticsInterval == p.diagnosticsInterval &&
                            m_publishedParams->integrator == p.integrator;
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

void SimulationController::advance(const FrameRequest& request)
{
    FrameResult r;
    r.serial = request.serial;

    auto* p0 = reinterpret_cast<Float4*>(request.device0);
    auto* p1 = reinterpret_cast<Float4*>(request.device1);
    const bool interop = p0 && p1;
    const std::size_t capacity = static_cast<std::size_t>(request.capacity);
    bool attached = false;

    // The window in which the caller's buffers may be used ends before frameReady is emitted:
    // the GUI thread unmaps them as soon as it gets the result.
    auto detach = [&] {
        if (attached && m_sim)
            m_sim->detachDevicePositions();
        attached = false;
    };
    auto attach = [&] {
        if (!interop || attached || !m_sim || m_sim->size() > capacity)
            return;
        m_sim->attachDevicePositions(p0, p1, capacity);
        attached = true;
        if (m_sim->positionStorage() != PositionStorage::External)
            m_sim->setPositionStorage(PositionStorage::External); // moves the state in
    };
    auto fallBack = [&](const char* what) {
        r.cudaFailed = true;
        r.error = QString::fromUtf8(what);
        if (m_sim) {
            m_sim->fallBackToCpu();
            try {
                detach();
                if (m_sim->positionStorage() != PositionStorage::Owned)
                    m_sim->setPositionStorage(PositionStorage::Owned);
            } catch (...) {
            }
        }
        attached = false;
    };

    try {
        attach();

        // 1. pending commands, in order
        std::vector<Command> commands;
        commands.swap(m_pending);
        for (Command& c : commands) {
            if (!m_sim && c.what != QLatin1String("start-up"))
                continue;
            if (attached && c.requiredCapacity > capacity) {
                // The next system does not fit the GL buffers: take the state off them before
                // the GUI reallocates (setWorld replaces it anyway, but a failed load keeps it).
                m_sim->setPositionStorage(PositionStorage::Owned);
                detach();
            }
            try {
                c.apply();
            } catch (const CudaError&) {
                throw;
            } catch (const std::exception& e) {
                emit commandFailed(c.what, QString::fromUtf8(e.what()));
            }
        }
        publishState();

        if (m_sim) {
            attach();
            r.valid = true;
            if (m_sim->size() > capacity) {
                r.needCapacity = m_sim->size();
            } else {
                if (!attached && m_sim->positionStorage() == PositionStorage::External &&
                    m_sim->deviceResident()) {
                    // The positions live in GL buffers we were not given (the map failed).
                    fallBack("the CUDA-GL interop buffers are unavailable; continuing on the CPU");
                }
                int steps = 0;
                if (m_running) {
                    steps = m_stepsPerFrame;
                    if (m_stepsToRun > 0)
                        steps = std::min(steps, std::max(0, m_stepsRemaining));
                } else if (m_stepsRequested > 0) {
                    steps = m_stepsRequested; // every Step press counts, however fast
                }
                m_stepsRequested = 0;
                if (steps > 0) {
                    const int done = stepInterruptibly(steps, r.timing);
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
                } else if (m_running && m_stepsToRun > 0) {
                    r.runFinished = true;
                    setRunning(false);
                }
            }
        }
    } catch (const CudaError& e) {
        fallBack(e.what());
        publishState();
    } catch (const std::exception& e) {
        r.error = QString::fromUtf8(e.what());
        setRunning(false);
    }

    // 2. what the GUI needs to draw
    if (m_sim && r.needCapacity == 0) {
        try {
            if (m_framingRequested) {
                r.framing = framingSphere(m_sim->world());
                m_framingRequested = false;
            }
            r.deviceDrawn = attached && m_sim->kernel().backend == Backend::Cuda;
            if (r.deviceDrawn) {
                r.current = m_sim->currentBuffer();
            } else {
                r.current = 0;
                r.hostPositions =
                    std::make_shared<const std::vector<Float4>>(m_sim->world().positions());
            }
        } catch (const CudaError& e) {
            fallBack(e.what());
            publishState();
            r.deviceDrawn = false;
            try {
                r.hostPositions =
                    std::make_shared<const std::vector<Float4>>(m_sim->world().positions());
            } catch (...) {
            }
        } catch (const std::exception& e) {
            if (r.error.isEmpty())
                r.error = QString::fromUtf8(e.what());
        }
    }
    try {
        detach();
    } catch (...) {
    }

    if (m_sim) {
        r.step = m_sim->stepCount();
        r.time = m_sim->time();
        r.bodies = m_sim->size();
        r.kernelId = m_publishedKernel;
    }
    r.massMin = m_massRange.first;
    r.massMax = m_massRange.second;
    r.running = m_running;
    r.workPending = pendingWork() || r.needCapacity != 0;
    emit frameReady(r);
}

} // namespace nbody::app
