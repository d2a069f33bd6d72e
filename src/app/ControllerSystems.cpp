/// \file ControllerSystems.cpp
/// SimulationController (its part that makes and replaces the system): the start-up system,
/// reset, snapshot files (load, save, autosave) and scenarios (new, open, save).

#include "SimulationController.h"
#include "BodyCount.h"

#include "sim/perf/StepPrediction.h"
#include "sim/core/Integrators.h"
#include "sim/core/Edits.h"
#include "contracts/Errors.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/ParamTable.h"
#include "sim/core/Scenario.h"
#include "sim/io/Scenarios.h"
#include "sim/core/Simulation.h"
#include "sim/io/Snapshot.h"
#include "contracts/World.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <exception>
#include <optional>
#include <stdexcept>

namespace nbody::app {

namespace {

QString cubeDescription(std::size_t n)
{
    return QStringLiteral("uniform cube, %1").arg(bodyCountText(n));
}

/// The recipe of a Tipsy file: its absolute path (Save scenario writes it).
ScenarioSpec snapshotSpec(const QString& path)
{
    ScenarioSpec s;
    s.snapshot = QFileInfo(path).absoluteFilePath().toStdString();
    return s;
}

} // namespace

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
        StartSystem s;
        s.kernelId = config.kernelId;
        if (!config.scenario.isEmpty())
            startFromScenario(config, s);
        else if (!config.inputFile.isEmpty())
            startFromFile(config, s);
        if (s.world.empty()) {
            CubeParams cube;
            cube.bodies = static_cast<std::size_t>(config.bodies);
            s.world = makeUniformCube(cube);
            s.source = cubeDescription(s.world.size());
            m_spec = std::make_unique<ScenarioSpec>(scenarioSpec("cube", cube.bodies, cube.seed));
            m_initialExact.reset();
            m_units.clear();
            m_unitsOfG.clear();
        }
        installStartSystem(config, std::move(s));
    };
    enqueue(std::move(c));
}

void SimulationController::startFromScenario(const StartupConfig& config, StartSystem& s)
{
    try {
        // A registry id or a scenario file (.json), as on the command line of nbody: errors
        // about what --scenario and --bodies set name those options.
        ScenarioSpec spec = scenarioFromOption(config.scenario.toStdString());
        QString sized;
        std::string sizedKernel; // a tree row that sizeStartSystem chose over `runs`
        const ScenarioInfo* row = findScenario(spec.generator);
        // The kernel that will run: the scenario's own unless one was asked for.
        const std::string runs = row && !config.kernelGiven && !row->kernel.empty() ? startKernel(row->kernel)
                                                                                      : s.kernelId.toStdString();
        const KernelInfo* k = findKernel(runs);
        const IntegratorInfo* integrator = row ? findIntegrator(row->integrator) : nullptr;
        const int evaluations = integrator ? int(integrator->weights.size()) : 1;
        StepPredictor predictor;
        bool sizeIt = row && !row->fixedBodies && !spec.bodies && config.sizeForStepsPerSecond > 0;
        if (row && config.bodiesGiven && !row->fixedBodies) {
            if (config.bodiesRemembered)
                spec.bodies = std::size_t(config.bodies);
            else
                setBodiesFromOption(spec, std::size_t(config.bodies));
            sizeIt = false;
            // A remembered N is rebuilt only while its step is quick: the user did not ask for it
            // now, and a step in progress cannot be interrupted.
            if (config.bodiesRemembered && config.sizeForStepsPerSecond > 0 && k && availability(*k).available) {
                std::optional<StepPrediction> p;
                try {
                    p = predictor.predict(*k, std::size_t(config.bodies), evaluations);
                } catch (const std::exception&) {
                    // no prediction: the remembered N, as before
                }
                if (p && p->secondsPerStep > kSlowStepSeconds) {
                    sized = QStringLiteral(" (the last session's %1: %2 per step on %3;")
                                .arg(bodyCountGrouped(config.bodies))
                                .arg(QString::fromStdString(formatStepTime(p->secondsPerStep)), QString::fromStdString(runs));
                    spec.bodies.reset();
                    sizeIt = true;
                }
            }
        }
        if (sizeIt && k && availability(*k).available) {
            // N from the measured speed of the kernel that will run, timed at the N it chooses
            // (StepPredictor::sizeForStepRate, the New dialog's prediction). On a GPU, with no
            // kernel asked for, a tree row that steps a larger system at that rate takes over
            // (sizeStartSystem: up to a million bodies).
            const StepPrediction size = k->backend == Backend::Cuda && !config.kernelGiven
                                            ? predictor.sizeStartSystem(*k, evaluations, config.sizeForStepsPerSecond)
                                            : predictor.sizeForStepRate(*k, evaluations, config.sizeForStepsPerSecond);
            spec.bodies = size.bodies;
            if (size.kernel != runs)
                sizedKernel = size.kernel;
            sized += (sized.isEmpty() ? QStringLiteral(" (") : QStringLiteral(" "))
                     + QStringLiteral("N sized for %1 steps/s: %2)")
                           .arg(config.sizeForStepsPerSecond)
                           .arg(QString::fromStdString(describeStepPrediction(size)));
        }
        BuiltScenario built = buildScenario(spec, s.params);
        built.summary += sized.toStdString();
        s.world = std::move(built.bodies.world);
        m_initialExact = built.bodies.exact ? std::make_unique<Fp64State>(*built.bodies.exact) : nullptr;
        s.params = built.params;
        if (!built.kernel.empty() && !config.kernelGiven && availability(*findKernel(built.kernel)).available)
            s.kernelId = QString::fromStdString(built.kernel);
        if (!sizedKernel.empty())
            s.kernelId = QString::fromStdString(sizedKernel);
        s.source = QString::fromStdString(built.summary);
        s.scenario = config.scenario;
        m_units = built.units;
        m_unitsOfG = built.unitsOfG;
        m_spec = std::make_unique<ScenarioSpec>(spec);
    } catch (const std::exception& e) {
        emit startupFailed(QString::fromUtf8(e.what()));
    }
}

void SimulationController::startFromFile(const StartupConfig& config, StartSystem& s)
{
    try {
        Snapshot snap = readSnapshot(config.inputFile.toStdString());
        // what the file stores, else a new system's defaults (throws for a massless system)
        applyFileParams(s.params, snap.world, snap.params);
        s.world = std::move(snap.world);
        if (snap.exact) // an fp64 run's state (HDF5 in double precision)
            m_initialExact = std::make_unique<Fp64State>(std::move(*snap.exact));
        s.source = QFileInfo(config.inputFile).fileName();
        s.file = config.inputFile;
        m_units = snap.params ? snap.params->units : std::string();
        m_unitsOfG = snap.params ? snap.params->unitsOfG : std::string();
        m_spec = std::make_unique<ScenarioSpec>(snapshotSpec(config.inputFile));
    } catch (const std::exception& e) {
        emit startupFailed(QString::fromUtf8(e.what()));
    }
}

void SimulationController::installStartSystem(const StartupConfig& config, StartSystem s)
{
    if (config.dt > 0)
        s.params.dt = static_cast<float>(config.dt);
    s.params.diagnosticsInterval = std::max(0, config.diagnosticsInterval);
    s.params.hostCopyInterval = std::max(0, config.hostCopyInterval);
    m_initialWorld = std::make_unique<World>(s.world);
    m_massRange = s.world.massRange();
    m_source = s.source;
    try {
        m_sim = std::make_unique<Simulation>(std::move(s.world),
                                             m_initialExact ? std::optional<Fp64State>(*m_initialExact)
                                                            : std::nullopt,
                                             s.params, s.kernelId.toStdString());
    } catch (const std::invalid_argument& e) {
        // the kernel was checked by main(); this is the last line of defence
        emit startupFailed(QString::fromUtf8(e.what()));
        m_sim = std::make_unique<Simulation>(World(*m_initialWorld),
                                             m_initialExact ? std::optional<Fp64State>(*m_initialExact)
                                                            : std::nullopt,
                                             s.params, "cpu");
    }
    m_sim->setDiagnosticsObserver([this](const Diagnostics& d) {
        m_newDiagnostics.append(d);
        m_sampled = true;
    });
    m_systemParams = m_sim->params();
    m_sampled = false;
    m_newDiagnostics.clear();
    emit diagnosticsRestarted();
    m_framingRequested = true;
    m_systemReplaced = true;
    m_rangeCheckDue = true;
    emit sourceChanged(m_source);
    publishUnits();
    if (!s.scenario.isEmpty()) {
        const bool file = !findScenario(s.scenario.toStdString());
        emit scenarioStarted(file ? QFileInfo(s.scenario).absoluteFilePath() : s.scenario, file,
                             qulonglong(m_initialWorld->size()));
    } else if (!s.file.isEmpty()) {
        emit snapshotOpened(s.file);
    }
    if (config.startRunning)
        setRunning(true);
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
    m_systemParams = m_sim->params(); // what Reset puts back (edits keep them)
    m_massRange = range;
    // Edits of the previous system cannot be undone on this one (a reset returns to the recipe's).
    m_undoEdits.clear();
    m_redoEdits.clear();
    m_edited = false;
    emit editHistoryCleared();
    m_recordOrigin = m_sim->stepCount(); // a recording goes on with the new system from here
    m_lastRecorded.reset();
    m_framingRequested = true;
    m_systemReplaced = true;
    m_rangeCheckDue = true;
    if (m_selectedId) { // ids belong to the system: a new one (or a reset) ends the selection
        m_selectedId.reset();
        m_selectionCleared = true;
        m_selectionMessage = tr("The selection ended: the system was replaced.");
    }
    m_newDiagnostics.clear();
    m_sampled = false;
    emit diagnosticsRestarted();
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
        if (m_initialWorld) {
            // The parameters the system came with (G, ε², dt, the integrator, every row that
            // changes the trajectory), set first as installScenario does; the launch parameters,
            // the run's policy and the direction of time (a run control) stay the user's.
            const SimParams previous = m_sim->params();
            SimParams params = previous;
            if (m_systemParams) {
                static constexpr std::string_view keepDirection[] = {"reverse"};
                copyTrajectoryParams(*m_systemParams, params, keepDirection);
            }
            m_sim->setParams(params); // throws invalid_argument: nothing changes
            try {
                installWorld(World(*m_initialWorld), m_source, false, std::nullopt, m_initialExact.get());
            } catch (...) {
                m_sim->setParams(previous);
                throw;
            }
        }
        m_stepsRemaining = m_stepsToRun;
    };
    enqueue(std::move(c));
}

void SimulationController::loadFile(const QString& path)
{
    std::shared_ptr<Snapshot> snap;
    try {
        snap = std::make_shared<Snapshot>(readSnapshot(path.toStdString())); // any format, detected from the content
    } catch (const std::exception& e) {
        emit loadFailed(path, QString::fromUtf8(e.what()));
        return;
    }
    installSnapshot(path, std::move(snap));
}

void SimulationController::installSnapshot(const QString& path, std::shared_ptr<Snapshot> snap)
{
    std::shared_ptr<World> world;
    std::shared_ptr<const Fp64State> exact; // an fp64 run's state (HDF5 in double precision)
    std::optional<RestartParams> fileParams;
    try {
        fileParams = snap->params;
        world = std::make_shared<World>(std::move(snap->world));
        if (snap->exact)
            exact = std::make_shared<const Fp64State>(std::move(*snap->exact));
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
            m_units = fileParams ? fileParams->units : std::string(); // what the file says, else unknown
            m_unitsOfG = fileParams ? fileParams->unitsOfG : std::string();
            publishUnits();
            // A kernel a scenario chose for itself (an fp64 one for the Solar System) does not
            // suit the file: back to the fastest here, unless the file named its own.
            if (!(fileParams && !fileParams->kernel.empty()))
                restoreUserKernel();
            m_scenarioKernel.clear();
            emit snapshotOpened(path);
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
            RestartParams rp = restartParams(p, m_sim->kernel().id);
            rp.units = m_units; // so the reopened system is labelled as this one
            rp.unitsOfG = m_unitsOfG;
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

void SimulationController::newScenario(const QString& id, qulonglong bodies, quint64 seed, const QString& kernel)
{
    try {
        const ScenarioSpec spec =
            scenarioSpec(id.toStdString(), bodies > 0 ? std::optional<std::size_t>(bodies) : std::nullopt, seed);
        enqueueScenario(std::make_shared<BuiltScenario>(buildScenario(spec, m_sim ? m_sim->params() : SimParams{})),
                        spec, id, false, kernel);
    } catch (const std::exception& e) {
        emit loadFailed(id, QString::fromUtf8(e.what()));
    }
}

void SimulationController::openScenario(const QString& path)
{
    try {
        const ScenarioSpec spec = readScenarioFile(path.toStdString());
        enqueueScenario(std::make_shared<BuiltScenario>(buildScenario(spec, m_sim ? m_sim->params() : SimParams{})),
                        spec, path, true);
    } catch (const std::exception& e) {
        emit loadFailed(path, QString::fromUtf8(e.what()));
    }
}

void SimulationController::installBuiltScenario(std::shared_ptr<BuiltScenario> built,
                                                std::shared_ptr<const ScenarioSpec> spec, const QString& what, bool file,
                                                const QString& kernel)
{
    if (built && spec)
        enqueueScenario(std::move(built), *spec, what, file, kernel);
}

void SimulationController::enqueueScenario(std::shared_ptr<BuiltScenario> built, const ScenarioSpec& spec,
                                           const QString& what, bool file, const QString& kernel)
{
    Command c;
    c.what = QStringLiteral("scenario");
    c.requiredCapacity = built->bodies.world.size();
    c.apply = [this, built, spec, what, file, kernel] {
        try {
            installScenario(*built, spec, kernel);
            emit scenarioStarted(file ? QFileInfo(what).absoluteFilePath() : what, file,
                                 qulonglong(built->bodies.world.size()));
        } catch (const std::invalid_argument& e) {
            emit loadFailed(what, QString::fromUtf8(e.what()));
        }
    };
    enqueue(std::move(c));
}

void SimulationController::installScenario(BuiltScenario& built, const ScenarioSpec& spec, const QString& kernel)
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
    m_units = built.units;
    m_unitsOfG = built.unitsOfG;
    publishUnits();
    // The scenario's own kernel, else the fastest here (or what the New dialog chose), never
    // the previous system's: the galaxy collision after the Solar System leaves its fp64 kernel.
    const std::string start = kernel.isEmpty() ? startKernel(built.kernel) : kernel.toStdString();
    if (start != std::string(m_sim->kernel().id)) {
        try {
            m_sim->setKernel(start);
        } catch (const std::invalid_argument& e) {
            // The scenario runs on the current kernel; say why its own could not be used.
            emit commandFailed(QStringLiteral("the scenario's kernel"), QString::fromUtf8(e.what()));
        }
    }
    // A snapshot opened later leaves a scenario's own kernel for the fastest here.
    m_scenarioKernel = built.kernel.empty() ? std::string() : std::string(m_sim->kernel().id);
    m_kernelBeforeScenario = std::string(defaultKernelId());
    // A new system's run settings: one step per frame, until paused.
    setStepsPerFrame(1);
    setStepsToRun(0);
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
    } catch (const std::exception& e) {
        emit commandFailed(QStringLiteral("save scenario"), QString::fromUtf8(e.what()));
        return;
    }
    if (!m_edited) {
        writeScenario(path);
        return;
    }
    // An edited system: its bodies are no longer what the recipe makes, so they are saved with
    // it (a command: a GPU run's state is read while its buffers are attached, as Save snapshot).
    Command c;
    c.what = QStringLiteral("save scenario");
    c.apply = [this, path] { writeScenario(path); };
    enqueue(std::move(c));
}

QString SimulationController::bodiesFileFor(const QString& scenarioPath)
{
    const QFileInfo info(scenarioPath);
    return info.dir().filePath(info.completeBaseName() + QStringLiteral(".bodies.h5"));
}

void SimulationController::writeScenario(const QString& path)
{
    try {
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
        if (spec.units.empty())
            spec.units = m_units;
        QString note;
        if (m_edited) {
            // The edited system as it is now (every body, its names, radii, time and step) in an
            // HDF5 snapshot beside the scenario file, which names it relative to itself: opening
            // the scenario gives this system, not the recipe's.
            const QString bodies = bodiesFileFor(path);
            const World& w = m_sim->world();
            RestartParams rp = restartParams(p, m_sim->kernel().id);
            rp.units = m_units;
            rp.unitsOfG = m_unitsOfG;
            std::optional<Fp64State> exact;
            if (m_sim->kernel().layout == Layout::Double4)
                exact = m_sim->state64();
            writeSnapshot(bodies.toStdString(), w, &rp, "hdf5", exact ? &*exact : nullptr);
            const std::size_t recipeBodies = m_initialWorld ? m_initialWorld->size() : 0;
            spec.generator.clear();
            spec.bodies.reset();
            spec.args = nlohmann::json::object();
            spec.radius = nlohmann::json(); // the snapshot holds the radii
            spec.density.reset();
            spec.snapshot = QFileInfo(bodies).fileName().toStdString();
            spec.snapshotFormat = "hdf5";
            note = tr("the system was edited, so its bodies (%1, t = %2) were saved in %3 beside it, and the "
                      "scenario opens with them (the recipe alone makes %4)")
                       .arg(bodyCountText(w.size()))
                       .arg(w.time, 0, 'g', 6)
                       .arg(QFileInfo(bodies).fileName())
                       .arg(bodyCountText(recipeBodies));
        }
        writeScenarioFile(path.toStdString(), spec);
        emit scenarioSaved(path, note);
    } catch (const CudaError&) {
        throw; // in a command: the frame pauses at the last host copy (its GPU fault handling)
    } catch (const std::exception& e) {
        emit commandFailed(QStringLiteral("save scenario"), QString::fromUtf8(e.what()));
    }
}

} // namespace nbody::app
