#pragma once
/// \file SimulationController.h
/// Owns the nbody::Simulation on a worker thread (Qt's mandelbrot pattern). Widgets talk to it
/// only through queued signals and slots; it never touches GL. Commands that change the
/// simulation (reset, load, kernel, parameters) are queued and applied at the start of the next
/// advance(), inside the window where the GUI thread has the interop buffers mapped, so a CUDA
/// kernel working on caller-provided buffers always has them attached (see FrameProtocol.h).

#include "FrameProtocol.h"

#include <QList>
#include <QObject>
#include <QString>

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/io/Snapshot.h"

namespace nbody { class Simulation; class World; struct EditRecord; struct Fp64State; struct ScenarioSpec; struct BuiltScenario; struct KernelInfo; }

namespace nbody::app {

/// How the first system is made (the command line of nbody-sandbox).
struct StartupConfig {
    QString kernelId = QStringLiteral("cpu");
    bool kernelGiven = false;   ///< kernelId was asked for (else a scenario's own kernel wins)
    qulonglong bodies = 8192;   ///< size of the default system (uniform cube)
    bool bodiesGiven = false;   ///< `bodies` was asked for: it also sets a scenario generator's N
    /// `bodies` is the N remembered from the last session (applyRememberedStart), not the command
    /// line's: used only while its step is predicted within kSlowStepSeconds on the kernel that
    /// runs; else the N is sized for sizeForStepsPerSecond and the start summary says why.
    bool bodiesRemembered = false;
    QString inputFile;          ///< snapshot file (Tipsy, CSV, HDF5); empty: the default system
    QString scenario;           ///< scenario id or file (JSON); empty: inputFile or the default system
    int stepsToRun = 0;         ///< 0: until paused
    double dt = 0;              ///< > 0 (--dt): the start system's time step in place of its own
    int stepsPerFrame = 1;
    bool startRunning = false;
    int diagnosticsInterval = 0; ///< steps between diagnostics evaluations (0: none; the app: 10)
    /// CUDA kernels: steps between host copies of the state (SimParams::hostCopyInterval), the
    /// last good state a GPU fault pauses at. 1000: at most 1000 steps lost, for a download of
    /// 48 bytes per body (float4 layout) every 1000 steps, under 0.5 % of the step time at any N
    /// (a step costs at least a graph launch, ~5 µs, and grows as N²; the copy as N). Frames
    /// that draw from host uploads copy the state anyway, every frame.
    int hostCopyInterval = 1000;
    /// > 0: a generator scenario whose N is not given (bodiesGiven false) gets the N that the
    /// kernel that will run steps this many times a second (sim/perf/StepPrediction.h,
    /// StepPredictor::sizeForStepRate: timed at the N it chooses; 1024 … 65 536). The app's start
    /// system (AppSetup.h).
    double sizeForStepsPerSecond = 0;
};

/// The registry id of the start system ("galaxy-collision").
inline constexpr const char* kStartScenario = "galaxy-collision";

/// The system the app starts with when neither a scenario nor a file is asked for (main() calls
/// it): the galaxy collision (two disk galaxies on a parabolic encounter:
/// physical, bound and good-looking) at the N that the chosen kernel steps `stepsPerSecond` times
/// a second (measured at start-up: sizeForStepsPerSecond; 65 536 on a GPU, a few thousand on a
/// laptop's CPU), or at config.bodies when bodiesGiven. The default rate, 25 steps/s, is 20 with
/// a quarter to spare for the diagnostics (every 10 steps) and the drawing. The predecessor's
/// uniform cube stays as `--scenario cube`. A config that names a scenario or a file is left as it is.
void chooseStartSystem(StartupConfig& config, double stepsPerSecond = 25.0);

/// A consistent copy of the running system, for the validation engine (see
/// SimulationController::requestValidationSystem).
struct SystemCopy {
    nbody::World world;                    ///< the state, time and step (synchronised from the device)
    std::optional<nbody::Fp64State> exact; ///< the fp64 state when an fp64 kernel holds it
    nbody::SimParams params;
    QString source;                        ///< what the system is ("uniform cube, 8192 bodies", a file)
    QString kernelId;                      ///< the running kernel
};

class SimulationController : public QObject {
    Q_OBJECT
public:
    /// The most edits the history keeps (the oldest are forgotten first).
    static constexpr std::size_t kMaxUndoEdits = 100;
    explicit SimulationController(QObject* parent = nullptr);
    ~SimulationController() override;

    bool running() const { return m_running; }

    /// Thread-safe, called directly (not queued) from the GUI thread before a queued pause() or
    /// shutdown(): the frame in progress stops stepping at the next chunk boundary (chunks last
    /// about 50 ms, at least one step), so Pause and Quit do not wait for a long batch.
    void requestInterrupt() { m_interrupt.store(true); }

public slots:
    /// Creates the first system (queued as a command). Emits startupFailed() when the input file
    /// cannot be read (the default system is used then).
    void initialize(const nbody::app::StartupConfig& config);
    /// One frame of the protocol: applies pending commands, steps, emits frameReady().
    void advance(const nbody::app::FrameRequest& request);

    void start();
    void pause();
    void setRunning(bool running);
    void stepOnce();
    /// Regenerates the default system or reloads the opened file's initial state, with the
    /// parameters the system was created or opened with (G, ε², dt, the integrator and every
    /// other row of the parameter table that changes the trajectory, nbody::trajectoryParams;
    /// edits keep them): paramsChanged() shows them. The launch parameters, the run's policy
    /// (diagnostics interval, …), the direction of time and the kernel stay as they are.
    void reset();
    /// Reads a snapshot (any format of sim/io/Snapshot.h) now; on success the new system replaces
    /// the current one at the next frame — with the file's G, dt, eps2 and kernel when it stores
    /// them, else dt and eps2 from deriveScaleDefaults — else loadFailed() and the current is kept.
    void loadFile(const QString& path);
    /// Writes the current state and parameters at the next frame (format from the extension,
    /// atomically): snapshotSaved() or saveFailed(); the simulation is unaffected either way.
    void saveSnapshot(const QString& path);
    /// The same write for the autosave (app/Autosave.h): autosaved() or autosaveFailed(), so
    /// File → Save snapshot's messages stay its own.
    void autosave(const QString& path);
    void setKernel(const QString& id);
    /// A system from the scenario registry (N = 0: the row's default), built now: on success it
    /// replaces the current system at the next frame with the scenario's G, ε², dt and
    /// integrator, on `kernel` (the New dialog's choice) or else the scenario's own kernel when
    /// it runs here, else the fastest here (startKernel), with one step per frame and no step
    /// count (a new system's run settings, not the previous system's); else loadFailed(id,
    /// message) and the current is kept.
    void newScenario(const QString& id, qulonglong bodies, quint64 seed, const QString& kernel = QString());
    /// The same for a scenario file (JSON, sim/io/Scenarios.h); errors name the file and the field.
    void openScenario(const QString& path);
    /// A scenario built beside the run (SystemLoader, on Qt's thread pool): installed at the next
    /// frame as newScenario's (`file`: `what` is a scenario file's path, else a registry id).
    void installBuiltScenario(std::shared_ptr<nbody::BuiltScenario> built,
                              std::shared_ptr<const nbody::ScenarioSpec> spec, const QString& what, bool file,
                              const QString& kernel);
    /// A snapshot read beside the run (SystemLoader): installed at the next frame as loadFile's.
    void installSnapshot(const QString& path, std::shared_ptr<nbody::Snapshot> snapshot);
    /// Writes the current system's recipe (generator and arguments, or snapshot path) with the
    /// current G, ε², dt, kernel, integrator and units as a scenario file (atomically):
    /// scenarioSaved(path, note) or commandFailed("save scenario", message). When the system was
    /// edited (added or removed bodies) since its recipe made it, the recipe no longer makes it:
    /// its bodies as they are now go to an HDF5 snapshot beside the file (bodiesFileFor), which
    /// the scenario names instead of the generator, and `note` says so (at the next frame).
    void saveScenario(const QString& path);
    /// "dir/x.bodies.h5" for "dir/x.json": where Save scenario puts an edited system's bodies.
    static QString bodiesFileFor(const QString& scenarioPath);
    /// Selects a row of the integrator registry (commandFailed("integrator", …) for an unknown id).
    void setIntegrator(const QString& id);
    void setDt(double dt);
    void setEps2(double eps2);
    /// Turns the collision system on or off (SimParams::collisions; sim/collide/Collisions.h).
    void setCollisions(bool on);
    /// G, length³ mass⁻¹ time⁻²; refused (commandFailed) unless positive and finite.
    void setGravitationalConstant(double G);
    /// Sets the parameter of row `key` of the parameter table (sim/core/ParamTable.h) from its text:
    /// the launch parameters (0: auto), θ and leaf size, rows declared at run time. Refused
    /// (commandFailed, naming the row and the limit) when the row or Simulation refuses it.
    void setParam(const QString& key, const QString& text);
    /// Re-tunes the running CUDA kernel at the current N's bucket now (on this thread, at the
    /// next frame), even when the cache has the entry: tuningStarted(), then tuningFinished() or
    /// commandFailed("tuning", …).
    void tuneNow();
    /// Steps between diagnostics evaluations (SimParams::diagnosticsInterval; 0: none).
    void setDiagnosticsInterval(int steps);
    /// 0 = until paused; > 0: the next run pauses after that many steps.
    void setStepsToRun(int steps);
    void setStepsPerFrame(int steps);
    /// A frame stops stepping after about this many ms (default 500; 0: never), so a large
    /// "steps per frame" on a slow kernel still redraws twice a second.
    void setFrameBudget(int ms);
    /// Recording: frames end exactly every `every` steps counted from the current step, and the
    /// frames that end there (and the current state first) carry FrameResult::record. 0 stops.
    /// A new or reset system starts the count again from its first step.
    void setRecordEvery(int every);
    // ---- sandbox editing (entities added to and removed from the World; the run goes on) ----
    /// Adds a body (cluster false: mass = the system's largest) or a Plummer cluster of
    /// `clusterBodies` bodies (total mass = that many times the mean mass, scale radius 2 % of
    /// the framing radius R) at (x, y, z), moving with velocity drag / R · sqrt(G M / R): a drag
    /// across the framing radius gives the system's typical (virial) speed, with M its mass.
    /// The GL buffers grow through the frame protocol (FrameResult::needCapacity).
    void addAt(double x, double y, double z, double dragX, double dragY, double dragZ, bool cluster,
               int clusterBodies = 64);
    /// Adds one body of `mass` (mass units; the Add body tool's) and `radius` (length units, ≥ 0)
    /// at (x, y, z), its velocity from the drag as addAt's.
    void addBodyAt(double x, double y, double z, double dragX, double dragY, double dragZ, double mass,
                   double radius);
    /// Removes the bodies whose projection by `viewProjection` (column-major) falls inside the
    /// rectangle of normalised device coordinates (x0, y0)–(x1, y1).
    void removeInRegion(const std::array<float, 16>& viewProjection, float x0, float y0, float x1, float y1);
    /// Undoes the last edit not undone yet (any number of levels, up to kMaxUndoEdits): removes
    /// the added bodies or puts the removed ones back where they were (revertEdit); refused
    /// (commandFailed("undo", …)) when there is none. A new system ends the history.
    void undoLastEdit();
    /// Redoes the last undone edit (until a new edit): the same bodies, ids and state again;
    /// refused (commandFailed("redo", …)) when there is none.
    void redoLastEdit();
    /// Time runs backwards (SimParams::reverse) or forwards; refused (commandFailed("reverse", …),
    /// the message says why) while the collision system is on.
    void setReverse(bool reverse);
    // ---- picking (sim/core/Selection.h) ----
    /// Selects the body whose projection by `viewProjection` (column-major) is nearest the pixel
    /// (px, py) of a width × height view, within radiusPx (pickBody); none there clears the
    /// selection. The selection is by stable id: it survives steps and edits, follows merges to
    /// the survivor (Simulation::mergeLog), and ends when the body is removed or the system is
    /// replaced. Every frame then carries its position, and its report at most 10 times a second.
    void selectAt(const std::array<float, 16>& viewProjection, double px, double py, int width, int height,
                  double radiusPx);
    /// Selects the body with this stable id (nothing when there is none); clearSelection() ends it.
    void selectId(quint32 id);
    void clearSelection();
    /// Emits launchFieldReady() at the next frame with the field of the current bodies (at most
    /// `maxSources` of them, makeLaunchField) for the Add body tool's prediction.
    void requestLaunchField(quint64 serial, qulonglong maxSources = 16384);
    /// Colour source of the view (nbody::gl::ColourSource as int): Speed and Group make every
    /// frame carry FrameResult::scalars (with a CUDA kernel this copies the state to the host).
    void setColourSource(int source);
    /// Every frame reports the bodies' bounds (FrameResult::bounds) while on (a host copy with
    /// a CUDA kernel, as setFollowCentre).
    void setReportBounds(bool report);
    /// Every frame reports the centre of mass (FrameResult::centre) while on. With a CUDA kernel
    /// this copies the state to the host each frame.
    void setFollowCentre(bool follow);
    /// Asks for a framing sphere of the current state in the next frame.
    void requestFraming();
    /// Copies the current system at the next frame (a command, so a GPU state is read while its
    /// buffers are attached) and emits validationSystemReady(); the run is not disturbed.
    void requestValidationSystem();
    /// Destroys the simulation (on this thread). Called blocking before the thread quits.
    void shutdown();

signals:
    void frameReady(const nbody::app::FrameResult& result);
    /// A command needs a frame to be applied (the GUI requests one when idle).
    void workQueued();
    void runningChanged(bool running);
    void kernelChanged(const QString& id);
    void paramsChanged(const nbody::SimParams& params);
    void bodiesChanged(qulonglong bodies);
    void stepsToRunChanged(int steps);
    void stepsPerFrameChanged(int steps);
    void sourceChanged(const QString& description); ///< "uniform cube, 8192 bodies" / file name
    /// The unit of G of the new system ("AU³ M☉⁻¹ day⁻²"; "" when N-body units or unknown:
    /// nbody::unitsOfG of its recipe), after each start-up, load, scenario.
    void unitsChanged(const QString& unitsOfG);
    /// The new system's median and largest mass (mass units), after each start-up, load and
    /// scenario: the Add body tool's default mass.
    void massesChanged(double median, double largest);
    /// A command was refused (the previous value stays); what: "kernel", "dt", "block size", …
    void commandFailed(const QString& what, const QString& message);
    void loadFailed(const QString& path, const QString& message);
    void snapshotSaved(const QString& path, qulonglong bodies, qulonglong step);
    void saveFailed(const QString& path, const QString& message);
    void autosaved(const QString& path, qulonglong bodies, qulonglong step);
    void autosaveFailed(const QString& path, const QString& message);
    void startupFailed(const QString& message);
    /// An edit, an undo or a redo was applied ("added a Plummer cluster of 64 bodies", "undid: …",
    /// "redid: …"); `undoable`: an undo exists.
    void editApplied(const QString& description, bool undoable);
    /// A new edit was applied (not an undo or redo): the Edit menu's undo stack gets it.
    void editRecorded(const QString& description);
    /// The edit history ended (a new system, a reset): nothing is left to undo or redo.
    void editHistoryCleared();
    /// The diagnostics evaluated during a frame (Simulation's observer), in order; emitted
    /// before frameReady() of that frame.
    void diagnosticsMeasured(const QList<nbody::Diagnostics>& samples);
    /// A new system was installed (start-up, reset, load): earlier samples belong to another run.
    void diagnosticsRestarted();
    /// The reference E₀ of ΔE/E₀ was taken again from simulated time `time` on
    /// (nbody::Simulation::energyReferenceResets): a parameter change that changes the energy
    /// (`name` "ε² 0.0025 → 0.000625", "G 1 → 2") or an edit that changes the masses ("body
    /// added", "12 bodies removed"; undo and redo alike). Emitted once the system has samples
    /// (diagnosticsMeasured since the last diagnosticsRestarted), before the next ones.
    void energyReferenceRebased(double time, const QString& name);
    /// Save scenario wrote `path`; `note` says what the user should know ("the system was edited,
    /// so its 2112 bodies … were saved in x.bodies.h5 beside it"), empty when nothing.
    void scenarioSaved(const QString& path, const QString& note);
    /// A scenario became the current system (the start-up's, New from scenario, Open scenario):
    /// its registry id or, with `file`, the absolute path of its scenario file, and its N.
    void scenarioStarted(const QString& scenario, bool file, qulonglong bodies);
    /// A snapshot became the current system (the start-up's --input, Open snapshot, the
    /// autosave's restore): the path it was read from.
    void snapshotOpened(const QString& path);
    /// The tuner started on this thread: "Tuning tiled for N≈8192 on NVIDIA H200 (once per device)…".
    /// It runs when a tunable CUDA kernel (one with a launch parameter on auto) runs at an N bucket
    /// the tuning cache lacks, once per kernel and bucket per session, or on tuneNow().
    void tuningStarted(const QString& message);
    /// It finished: "Tuned tiled for N≈8192: block 128, tile x2: 1.2e12 interactions/s"; the
    /// choice applies from the next force evaluation.
    void tuningFinished(const QString& message);
    /// The answer to requestValidationSystem() (a failure goes to commandFailed("validation system", …)).
    void validationSystemReady(std::shared_ptr<const nbody::app::SystemCopy> system);
    /// The answer to requestLaunchField().
    void launchFieldReady(std::shared_ptr<const nbody::app::LaunchContext> context);
    /// The precision-range check of `nbody run` (sim/core/PrecisionRange.h), run whenever the
    /// system, the kernel's precision, G or eps2 changes: one warning per quantity that does not
    /// fit the kernel's precision ("fp32 range: …; kernel 'cpu' computes in fp32: use an fp64
    /// kernel (…) or rescaled units (docs/units.md)"), one a line; "" when everything fits.
    /// Emitted when it changes. A state that then turns non-finite is said to come from it.
    void precisionRangeChecked(const QString& warnings);

private:
    struct Command {
        std::function<void()> apply;
        std::size_t requiredCapacity = 0; ///< bodies the GL buffers must hold to apply it
        QString what;                     ///< for error messages
        bool makesSystem = false;         ///< runs before there is a system (the start-up); others wait for one
    };
    /// The caller's device position buffers of one frame (FrameRequest), attached to the
    /// simulation around the frame's work and detached before frameReady is emitted.
    struct FrameBuffers {
        nbody::Float4* p0 = nullptr;
        nbody::Float4* p1 = nullptr;
        std::size_t capacity = 0;
        bool attached = false;
        bool interop() const { return p0 && p1; }
    };
    // ---- advance(): one frame, in the order it happens ----
    void attachBuffers(FrameBuffers& b);
    void detachBuffers(FrameBuffers& b);
    /// 1. the queued commands, in order.
    void applyCommands(FrameBuffers& b);
    /// 2. the frame's steps (as many as running, Step presses and the recording allow).
    void stepFrame(const FrameRequest& request, FrameResult& r, FrameBuffers& b);
    /// How many steps this frame takes; `fromPresses` when they are Step presses.
    int stepsForFrame(bool& fromPresses, int& wanted);
    /// After `done` steps: the blow-up check and the run's countdown.
    void afterSteps(int done, bool fromPresses, FrameResult& r);
    /// 3. what the GUI needs to draw: positions (device buffer or host copy), the view's extras.
    void describeFrame(FrameResult& r, FrameBuffers& b);
    void describeView(FrameResult& r);
    /// 4. counters, the recording flag and the diagnostics of the frame; emits frameReady.
    void finishFrame(FrameResult& r);
    /// A GPU fault during the frame: pause at the last good state kept on the host.
    void recoverFromFault(const CudaError& e, FrameResult& r, FrameBuffers& b);
    void enqueue(Command command);
    /// Queues a write of the current state and parameters to `path` (saveSnapshot, autosave);
    /// `saved` or `failed` is emitted with the outcome.
    void enqueueSave(const QString& path, void (SimulationController::*saved)(const QString&, qulonglong, qulonglong),
                     void (SimulationController::*failed)(const QString&, const QString&));
    /// The first system as initialize()'s start-up command makes it (ControllerSystems.cpp).
    struct StartSystem {
        nbody::World world;
        QString source;
        nbody::SimParams params;
        QString kernelId;
        QString scenario; ///< made from config.scenario (scenarioStarted once installed)
        QString file;     ///< read from config.inputFile (snapshotOpened once installed)
    };
    /// The start-up's scenario (config.scenario; N sized for the kernel when asked):
    /// startupFailed() when it cannot be built, `s` then stays empty.
    void startFromScenario(const StartupConfig& config, StartSystem& s);
    /// The start-up's snapshot (config.inputFile): startupFailed() when it cannot be read.
    void startFromFile(const StartupConfig& config, StartSystem& s);
    /// Creates the Simulation of the start-up's system (on `cpu` when the asked kernel refuses
    /// it) and publishes the new system.
    void installStartSystem(const StartupConfig& config, StartSystem s);
    void installWorld(nbody::World world, const QString& source, bool deriveParams,
                      const std::optional<nbody::RestartParams>& fileParams = std::nullopt,
                      const nbody::Fp64State* exact = nullptr);
    /// G, dt, ε² (and the launch parameters) of a system read from a file: what `file` stores,
    /// each on its own, else a new system's (resolveFileParams). Throws std::invalid_argument
    /// for a massless system that needs dt derived.
    static void applyFileParams(nbody::SimParams& params, const nbody::World& world,
                                const std::optional<nbody::RestartParams>& file);
    /// A new edit, or an undo or redo of one.
    enum class EditStep { New, Undo, Redo };
    /// Applies `edit` to a copy of the current system and installs it (same time and step); the
    /// record it returns goes on the undo stack (New, Redo) or the redo stack (Undo).
    void applyEdit(const std::function<nbody::EditRecord(nbody::World&)>& edit, EditStep step);
    /// undoLastEdit / redoLastEdit.
    void revertLastEdit(EditStep step);
    void addEdit(double x, double y, double z, double dragX, double dragY, double dragZ, bool cluster,
                 int clusterBodies, double mass, double radius);
    /// Queues a built scenario (from newScenario/openScenario/initialize) as the next system.
    /// `what`: the registry id, or the path of the scenario file (`file`).
    void enqueueScenario(std::shared_ptr<nbody::BuiltScenario> built, const nbody::ScenarioSpec& spec,
                         const QString& what, bool file, const QString& kernel = QString());
    /// Installs a built scenario with its parameters and run settings on `kernel` ("": startKernel).
    void installScenario(nbody::BuiltScenario& built, const nbody::ScenarioSpec& spec, const QString& kernel);
    void changeParams(const QString& what, const std::function<void(nbody::SimParams&)>& edit);
    /// energyReferenceRebased(now, name) when the simulation discarded E₀ since its count was
    /// `resetsBefore` (energyReferenceResets) and the system has samples.
    void reportRebase(std::uint64_t resetsBefore, const QString& name);
    /// Save scenario's file: the recipe with the current parameters, and for an edited system
    /// its bodies in bodiesFileFor(path), which the recipe then names.
    void writeScenario(const QString& path);
    /// Runs the tuner for the running kernel when it needs it (or always with `force`).
    void tuneIfNeeded(bool force);
    void publishState();
    /// precisionRangeProblems() for the system, the kernel and the parameters in use, when one of
    /// them changed since the last check (precisionRangeChecked when the outcome changes).
    void checkPrecisionRange();
    /// unitsChanged() and massesChanged() for the current system.
    void publishUnits();
    bool pendingWork() const;
    /// `steps` shortened so the frame ends on the next recorded step.
    int clipToRecordedStep(int steps) const;
    /// Steps up to `steps` in chunks, stopping early on requestInterrupt(); returns the steps taken.
    int stepInterruptibly(int steps, nbody::StepTiming& timing);

    std::unique_ptr<nbody::Simulation> m_sim;
    std::unique_ptr<nbody::World> m_initialWorld; ///< for reset()
    /// The parameters the current system was installed with (start-up, new scenario, opened
    /// file): reset() puts their trajectory rows back.
    std::optional<nbody::SimParams> m_systemParams;
    /// Diagnostics were evaluated since the system was installed (the dock has samples): a
    /// re-based E₀ is marked from then on (energyReferenceRebased).
    bool m_sampled = false;
    /// Edits to undo (the last at the back) and undone edits to redo; each record reverts its
    /// edit (revertEdit). A new edit clears the redo stack; a new system both.
    std::vector<nbody::EditRecord> m_undoEdits, m_redoEdits;
    bool m_edited = false; ///< an edit changed the system since its recipe made it (Save scenario)
    std::uint64_t m_editSeed = 1;                  ///< seeds of added clusters
    std::unique_ptr<nbody::Fp64State> m_initialExact; ///< its exact fp64 state, when it has one
    std::unique_ptr<nbody::ScenarioSpec> m_spec;  ///< the recipe of the current system (Save scenario)
    /// The current system's units label and unit of G (BuiltScenario::units, unitsOfG, or what a
    /// snapshot stores): unitsChanged() publishes the unit of G, snapshots store both.
    std::string m_units, m_unitsOfG;
    /// The kernel a scenario switched to (the Solar System's fp64 `reference`), and the one the
    /// user had before; a snapshot opened later goes back to the user's (a loaded
    /// system takes what it stores, else a new system's defaults). Empty once the user picks one.
    std::string m_scenarioKernel, m_kernelBeforeScenario;
    /// When the running kernel is the one a scenario chose for itself (m_scenarioKernel), back to
    /// the kernel before it (or the default where that cannot run here); otherwise nothing.
    void restoreUserKernel();
    QString m_source;
    std::vector<Command> m_pending;
    bool m_running = false;
    std::atomic<bool> m_interrupt{false};
    int m_frameBudgetMs = 500;
    int m_stepsRequested = 0; ///< Step presses not yet taken
    bool m_framingRequested = false;
    bool m_systemReplaced = false; ///< installWorld/start-up ran since the last frame (FrameResult::systemReplaced)
    bool m_firstFrame = true;
    int m_stepsToRun = 0;
    int m_stepsRemaining = 0;
    int m_stepsPerFrame = 1;
    std::pair<float, float> m_massRange{0.f, 1.f};
    bool m_followCentre = false;
    bool m_reportBounds = false;
    int m_colourSource = 0;
    int m_recordEvery = 0;         ///< steps between recorded frames; 0: not recording
    quint64 m_recordOrigin = 0;    ///< step at which recording (or the current system) began
    std::optional<quint64> m_lastRecorded; ///< step of the last frame flagged for recording
    QList<nbody::Diagnostics> m_newDiagnostics; ///< evaluated in this frame, not yet emitted
    /// The selection (selectAt): a stable id, its last known index, merges of the log followed.
    std::optional<std::uint32_t> m_selectedId;
    std::optional<std::size_t> m_selectedIndex;
    std::size_t m_mergesFollowed = 0;
    bool m_selectionChanged = false;   ///< report it in the next frame
    bool m_selectionCleared = false;   ///< the next frame says it ended
    QString m_selectionMessage;
    qint64 m_lastSelectionReportMs = -1000000;
    /// The selection's part of a frame (after the steps): follows merges and removals.
    void reportSelection(FrameResult& r);
    /// Moves the selection along the merges of the log not yet followed (to the survivor).
    void followSelectionMerges();
    std::vector<std::pair<std::string, std::size_t>> m_tuneAttempted; ///< (kernel, bucket) tried this session

    // last published values (signals are emitted only on change)
    QString m_publishedKernel;
    const nbody::KernelInfo* m_publishedKernelRow = nullptr;
    std::optional<nbody::SimParams> m_publishedParams;
    qulonglong m_publishedBodies = 0;
    bool m_rangeCheckDue = true; ///< the system changed (new, reset, edited) since the last range check
    std::optional<std::tuple<int, double, float>> m_rangeCheckedFor; ///< (precision, G, eps2) checked
    std::vector<std::string> m_rangeProblems;                        ///< its outcome
    QString m_publishedRangeWarnings;
};

} // namespace nbody::app

Q_DECLARE_METATYPE(nbody::app::StartupConfig)
Q_DECLARE_METATYPE(std::shared_ptr<const nbody::app::SystemCopy>)
