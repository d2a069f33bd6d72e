#pragma once
/// \file Headless.h
/// What `nbody run` and `nbody render` share: building the system from the options (the
/// default cube or a snapshot file with its parameters, dt and eps2 checked) and the headless view (EGL context,
/// renderer, ping-pong buffers, CUDA-GL interop when the context is on the CUDA device).

#include "gl/CudaGlInterop.h"
#include "gl/InteropPositions.h"
#include "gl/EglContext.h"
#include "gl/Renderer.h"
#include "ParamOptions.h"
#include "contracts/Errors.h"
#include "sim/core/Simulation.h"
#include "sim/perf/Tuner.h"
#include "contracts/World.h"

namespace CLI { class App; }

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <span>
#include <string_view>
#include <vector>

namespace nbody::cli {

/// The options that choose the system, as `nbody run` and `nbody render` take them.
struct SystemOptions {
    std::string input;          ///< snapshot file in any format (sim/io/Snapshot.h); empty: the default cube
    std::size_t bodies = 8192;  ///< N of the default cube
    std::uint64_t seed = 42;    ///< seed of the default cube
    std::string scenario;       ///< scenario id or file (JSON); empty: `input` or the default cube
    bool bodiesGiven = false;   ///< --bodies given (sets a scenario generator's N; ignored for files)
    bool seedGiven = false;     ///< --seed given
    std::optional<double> dt;   ///< unset: the system's default
    std::optional<double> eps2; ///< unset: the system's default
    std::optional<double> G;    ///< unset: the system's (1, a scenario's, or a file's when it stores one)
    /// > 0 (--steps-per-second): a generator scenario without --bodies gets the N that
    /// `sizingKernel` steps this many times a second (sim/perf/StepPrediction.h, StepPredictor::sizeForStepRate).
    double stepsPerSecond = 0;
    std::string sizingKernel;   ///< the kernel that will run ("" = the scenario's, else the fastest here)
    // ---- the collision system (sim/collide/Collisions.h) ----
    bool collisions = false;          ///< --collisions: on (else the scenario's choice, off by default)
    std::string contactSearch;        ///< --contact-search ID ("" = the scenario's, else auto)
    std::optional<double> radius;     ///< --radius R: every body's radius
    std::optional<double> density;    ///< --density RHO: radii from the masses (r = (3m / 4πρ)^(1/3))
    bool tipsyEpsRadius = false;      ///< --tipsy-eps-radius: a Tipsy input's star eps as radius
};

/// The system a subcommand simulates when neither --scenario nor --input is given (for help texts).
enum class DefaultSystem { Cube, Plummer };

/// Adds the options that choose the system (--scenario, --input, --bodies, --seed, --dt, --eps2, --G)
/// to a subcommand; call noteGiven() after parsing.
void addSystemOptions(CLI::App& command, SystemOptions& o, DefaultSystem d = DefaultSystem::Cube);
/// Records which of --bodies / --seed were given on `command`.
void noteGiven(const CLI::App& command, SystemOptions& o);

struct PreparedSystem {
    World world;
    SimParams params;
    std::string what; ///< one line: "uniform cube: 8192 bodies in ±1e5, …" or the file and its scale
    std::string savedKernel;               ///< the kernel a snapshot was written with ("" if none)
    std::pair<int, int> savedLaunch{0, 0}; ///< and its block size and tile width factor (0: none)
    /// The snapshot's other stored parameters (RestartParams::stored: integrator, θ, leaf size,
    /// reverse, collisions), applied by applySavedParams.
    std::vector<std::pair<std::string, std::string>> savedParams;
    std::optional<Fp64State> exact;        ///< a scenario's exact fp64 state, when it has one
    std::string scenarioKernel;            ///< a scenario's kernel ("" = the default)
    std::string dtProblem, eps2Problem;    ///< derived dt / eps2 not representable (ScaleDefaults)
    /// The system's units label and unit of G (a scenario's, or what a snapshot stores; "" when
    /// unknown): written into the run's snapshots (RestartParams::units, unitsOfG).
    std::string units, unitsOfG;
};

/// The system of `--scenario ID|FILE.json` (with --bodies / --seed for generators). Throws
/// ScenarioError (naming --scenario or --bodies for what they set, else the file and the field),
/// FormatError (snapshot) or std::invalid_argument.
PreparedSystem scenarioSystem(const char* command, const SystemOptions& o);

/// When --steps-per-second was given (o.stepsPerSecond > 0) for a system whose N it does not
/// choose, prints to stderr "nbody <command>: note: --steps-per-second chooses N only for a
/// generator --scenario without --bodies; ignored <why>" (`why`: "with --input", "with
/// --bodies", …). Nothing otherwise. Called where N is decided (prepareSystem, scenarioSystem,
/// validate's default sphere), so the option is never ignored without a word.
void noteStepsPerSecondIgnored(const char* command, const SystemOptions& o, const std::string& why);

/// Builds the system: a scenario, a snapshot file or the default cube. Returns 0, or 2 after
/// printing "nbody <command>: <problem>" to stderr (unreadable file, malformed scenario, both
/// --scenario and --input, N out of range, dt or eps2 not representable in fp32, bodies at one
/// point with eps2 = 0: sim/core/CoincidentBodies.h).
int prepareSystem(const char* command, const SystemOptions& o, PreparedSystem& out);

/// Applies the snapshot's stored parameters (PreparedSystem::savedParams) to `params`, except
/// those in `given` (givenStoredParams: their option was given), and prints the header line
/// "Restart: integrator yoshida4, openingAngle 0.45, … (stored in the snapshot)" and a
/// note of `command` (printNote) for each given option that differs from the stored value. Throws std::invalid_argument
/// for a stored value the table refuses.
void applySavedParams(const char* command, std::span<const std::string_view> given, const PreparedSystem& prepared,
                      SimParams& params, bool print);
/// The keys of the stored parameters (storedParams()) whose option was given on `command`.
std::vector<std::string_view> givenStoredParams(const CLI::App& command);

/// Parses --bodies' "8192,65536" into N values, in the order given (each 1..kMaxBodies).
/// Throws std::invalid_argument naming the item.
std::vector<std::size_t> parseBodyList(const std::string& list);

/// The tree rows' options of run, render, bench, validate and tune: --theta and --leaf-size
/// (SimParams::openingAngle, leafSize; defaults SimParams's). All-pairs rows ignore them.
/// The tree rows' options (--theta, --leaf-size: the Tree group of the parameter table).
struct TreeOptions {
    ParamTexts params;
};
/// Adds the options of the table's Tree rows (ParamOptions.h), each refused outside its range
/// with the row's message.
void addTreeOptions(CLI::App& command, TreeOptions& o);
void applyTreeOptions(const TreeOptions& o, SimParams& p);

/// The launch options of run, render, bench and validate: the Launch and Tree groups of the
/// parameter table (the six launch parameters, 0: auto, the tuned value or the kernel's
/// default; --exchange-chunks; --theta, --leaf-size), applied with applyLaunchOptions().
struct LaunchOptions {
    ParamTexts params;
};
/// For a tree row with a force accuracy in `p` (SimParams::forceAccuracy): the line saying
/// which θ the row's calibration picks and the error it expects ("tree-cpu: theta = 0.5 for
/// force accuracy 1.0e-03 (calibrated p99 7.7e-04, …)"); "" otherwise. Throws
/// std::invalid_argument as chooseOpeningAngle (a target the calibration cannot reach). `bodies`:
/// the system's N (the largest of a sweep), for chooseOpeningAngle's note on larger systems.
std::string forceAccuracyNote(const KernelInfo& k, const SimParams& p, std::size_t bodies);
/// The options of the parameter table given (`given`: the values of run, render, bench or
/// validate) where they have no effect on the run of `kernels` with parameters `p` (the
/// parameters as the run takes them, a snapshot's stored rows applied), as the table declares
/// per row: one line per kind of reason, naming the options in table order, with no "Note: "
/// and no newline; none when every given option takes effect.
///   - A kernel-specific row (ParamInfo::readers Tree, LaunchRows or Cuda) that no kernel of
///     `kernels` reads (paramReadBy): "kernel 'cpu' computes all pairs: --theta, --opening-alpha
///     set the tree rows only and have no effect here"; "kernel 'cpu' runs on the CPU: --block-size
///     sets CUDA launch parameters only and has no effect here"; with a CUDA row among them
///     "kernel 'tiled' does not read --block-rows: it has no effect here (…)". With several
///     kernels an option is named only when none of them reads it ("kernels 'cpu', 'reference' …").
///   - A row whose onlyWith condition is not met in `p` (paramConditionMet): "--eta, --max-levels
///     set block time steps only and have no effect with --timestep fixed".
std::vector<std::string> ignoredOptionNotes(std::span<const KernelInfo* const> kernels, const SimParams& p,
                                            std::initializer_list<const ParamTexts*> given);
/// Prints a note to stderr as "nbody <command>: note: <text>": something the user should know
/// that is not an error (the command goes on; the exit status is unchanged). Every note of the
/// command line is printed through here, in this one form; `text` has no newline.
void printNote(const char* command, const std::string& text);
/// Prints each of ignoredOptionNotes() as a note of `command` (printNote).
void printIgnoredOptionNotes(const char* command, std::span<const KernelInfo* const> kernels, const SimParams& p,
                             std::initializer_list<const ParamTexts*> given);
/// Adds the options of the table's Launch and Tree rows to a subcommand.
void addLaunchOptions(CLI::App& command, LaunchOptions& o);
/// Sets the given ones in p.
void applyLaunchOptions(const LaunchOptions& o, SimParams& p);
/// Adds --no-tune to a subcommand that tunes before it runs.
void addNoTuneOption(CLI::App& command, bool& noTune);
/// How many launch options (--block-size, --block-rows, --tile-factor, --bodies-per-thread,
/// --j-split, --unroll) were given on `command`.
std::size_t launchOptionsGiven(const CLI::App& command);

/// Before a run with row k at n bodies: when k is tunable with `p` (a CUDA row with an auto
/// parameter it reads), the cache lacks the entry and not `noTune`, tunes it (sim/perf/Tuner.h),
/// printing "Tuning <kernel> for N≈<bucket> on <device> (once; cached in <path>) … block 128,
/// …: 1.23e12 interactions/s" to stdout. A failure is a note (printNote: "nbody <command>: note:
/// …; the defaults are used"), never fatal. Then prints "Launch:  <resolved parameters>" for CUDA rows.
void tuneBeforeRun(const char* command, const KernelInfo& k, const SimParams& p, std::size_t n, bool noTune);

/// A GPU fault (CudaError) during `nbody run`: prints "nbody run: GPU fault in kernel '<id>' at
/// step S: <error>" and where the run stands (Simulation::abandonDeviceState: the last good
/// state kept on the host, the steps lost, whether the CUDA context is lost) to stderr; with an
/// `output` pattern writes that state there (the step it holds in {step}), from the host only
/// (no CUDA call). Returns 1 (the exit status of a failed run); never throws.
int reportRunFault(Simulation& sim, const CudaError& e, const std::string& output);

/// Bodies up to which an energy evaluation (fp64, O(N²) on the host) counts as cheap whatever the
/// kernel (about 0.1 s on two cores).
inline constexpr std::size_t kCheapEnergyBodies = 20000;

/// True when one energy evaluation of `sim` costs about as much as a step or less, so `nbody run`
/// and `nbody render` evaluate it at every progress interval for the running maximum of
/// |ΔE/E₀|: on the device (a CUDA kernel measures there), with an all-pairs kernel (a step and
/// the evaluation are both O(N²)), or up to kCheapEnergyBodies bodies. Otherwise (a CPU tree at
/// large N) only E₀ and the end are evaluated, unless a diagnostics series is written.
bool energyCheckCheap(const Simulation& sim);

/// The energy tolerance of `nbody run` and `nbody render` against the running maximum `m` of
/// |ΔE/E₀| over the run's evaluations (sim/core/Diagnostics.h, EnergyChangeMaximum): prints the
/// summary line "  largest energy change:  …" to stdout, and when m exceeds `tolerance` (or is not
/// finite) on rank 0 (`root`) "nbody <command>: warning: the relative energy change 5.300e-01
/// (the largest of 11 evaluations, at step 200, t = 3.14; 1.400e-04 at the end) exceeds the
/// tolerance 0.01 (--energy-tolerance): …" to stderr ("error:" with `strict`). `endChange`:
/// ΔE/E₀ of the last evaluation. Returns whether the tolerance was exceeded.
bool checkEnergyTolerance(const char* command, const EnergyChangeMaximum& m, double endChange, double tolerance,
                          bool strict, bool root);

/// Before the first step: the quantities of the system that lie outside the range of the selected
/// kernel's precision (sim/core/PrecisionRange.h), each printed on rank 0 (`root`) as "nbody
/// <command>: warning: fp32 range: <problem>; kernel 'cpu' computes in fp32: use an fp64 kernel
/// (reference, tiled-fp64) or rescaled units (docs/units.md)". Returns them, for
/// nonFiniteMessage().
std::vector<std::string> warnPrecisionRange(const char* command, Simulation& sim, bool root);

/// The message for a state that turned non-finite after `steps` steps (`bad`: checkFinite's
/// text): which column went first (accelerations, velocities, positions), and why — the first of
/// `rangeProblems` when there are any (the precision, not the time step), else the time step or
/// unsoftened encounters. No "nbody <command>: " prefix, no newline. Reads sim.world() (call it
/// where the positions are reachable).
std::string nonFiniteMessage(int steps, const std::string& bad, Simulation& sim,
                             const std::vector<std::string>& rangeProblems);

/// Adds --no-energy, --energy-tolerance X and --strict to a subcommand (`run`, `render`).
void addEnergyOptions(CLI::App& command, bool& energy, double& tolerance, bool& strict);

/// The fastest kernel available here: the first available CUDA row, else `cpu`. A GPU this
/// build has no code for is a note of `command`.
std::string defaultKernel(const char* command);

/// The largest image side `run --capture` and `render` accept on the command line (pixels; the
/// smallest is 16). No OpenGL draws more than 32768 a side today; the context's own limit and
/// the memory an image needs are checked against it before a run (gl::imageSizeProblem).
inline constexpr int kMaxImageSide = 65536;

/// The headless view. Create it on the thread that renders; it makes its context current.
struct HeadlessView {
    gl::EglContext context;
    gl::Renderer renderer;
    gl::ParticleBuffers buffers;
    std::unique_ptr<gl::CudaGlInterop> interop;
    std::string whyNoInterop;
    gl::ViewHistory history; ///< the exposure carried from frame to frame of a sequence

    /// Buffers for `n` bodies; the interop when `wantInterop` and the context is on a CUDA device.
    /// Throws GlError.
    HeadlessView(std::size_t n, bool wantInterop);

    /// A camera that frames `world` (framingSphere) for a w × h image.
    static gl::OrbitCamera framing(const World& world, int w, int h);
    /// The style of headless pictures: the colour mode gl::defaultColourMode(world) (group where
    /// the system has groups, else mass over `world`'s mass range), smaller sprites above
    /// 100 000 bodies; everything else as in the app (gl::RenderStyle's defaults).
    static gl::RenderStyle style(const World& world);

    /// Renders the current positions of `sim` (from the GL buffer the kernels wrote with interop,
    /// else uploaded from the host) into a w × h image, with the labels of its named bodies (when the positions come from the
    /// host; bodies drawn straight from the interop buffers are not labelled).
    /// `sequence`: a frame of a sequence, whose exposure follows the last frame's (`history`)
    /// as style.exposureAdapt says; else a single picture with its own exposure. With interop
    /// the device positions must be detached (the buffers unmapped). Throws GlError, CudaError.
    gl::Image render(Simulation& sim, const gl::OrbitCamera& camera, const gl::RenderStyle& style, int w, int h,
                     bool sequence = false);

    /// Runs `f` with the device positions attached when they live in the GL buffers.
    template <class F>
    void withPositions(Simulation& sim, F&& f)
    {
        gl::withInteropPositions(interop.get(), sim, std::forward<F>(f));
    }
};

} // namespace nbody::cli
