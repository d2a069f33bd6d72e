// The command line of `nbody`: every subcommand and its options, parsed and run (CommandLine.h).

#include "CommandLine.h"
#include "Commands.h"
#include "DistributedSystem.h"
#include "Headless.h"
#include "RenderCommand.h"
#include "ValidateCommand.h"
#include "sim/base/AtomicFile.h"
#include "sim/core/MemoryBudget.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <new>
#include <system_error>

namespace nbody::cli {

namespace {

/// `nbody run` and its options, filling o.
CLI::App* addRunCommand(CLI::App& app, RunOptions& o)
{
    CLI::App* runCmd = app.add_subcommand("run", "Simulate a system and print progress and a summary");
    addSystemOptions(*runCmd, o.system);
    runCmd->add_option("-s,--steps", o.steps, "Steps to run (>= 0)")->capture_default_str()->check(integerIn(0, 1ull << 30));
    runCmd->add_option("-k,--kernel", o.kernel, "Force kernel id (see `nbody kernels`); default: blocked if a GPU is available, else cpu");
    runCmd->add_option("-o,--output", o.output,
                       "Write snapshots to FILE (format from the extension: .h5/.hdf5, .csv, .bin/.tipsy/.std); "
                       "{step} in the name is replaced by the step number. Written after the last step and "
                       "with --every M whenever the step is a multiple of M");
    runCmd->add_option("--every", o.every, "Steps between snapshots (with --output; 0: only at the end)")
        ->check(integerIn(0, 1ull << 30));
    runCmd->add_option("--integrator", o.integrator, "Time integrator id (see `nbody integrators`); default leapfrog");
    runCmd->add_flag("--reverse", o.reverse,
                     "Run backwards in time: every step advances by -dt (dt itself stays positive). KDK leapfrog and "
                     "yoshida4 are time-symmetric, so --reverse from a snapshot written after S steps retraces them "
                     "to the start, up to rounding");
    // --timestep fixed|block, --eta, --max-levels (with block, --dt is the largest step).
    addParamOptions(*runCmd, o.timeSteps, {ParamGroup::TimeSteps});
    runCmd->add_option("-c,--capture", o.capture, "Write a PNG of the final state (headless, EGL)");
    // The range a command line can ask for; what the OpenGL context draws and the memory allow is
    // checked before the run (gl::imageSizeProblem), where the context is known.
    const std::string sideLimits = " (16 or more, up to the largest side this OpenGL draws: 16384 on Mesa's llvmpipe, "
                                   "32768 on NVIDIA's driver; the size and the memory the capture needs, about 35 "
                                   "bytes a pixel with llvmpipe, are checked before the run)";
    runCmd->add_option("--width", o.width, "Capture width in pixels" + sideLimits)
        ->capture_default_str()->check(integerIn(16, kMaxImageSide));
    runCmd->add_option("--height", o.height, "Capture height in pixels" + sideLimits)
        ->capture_default_str()->check(integerIn(16, kMaxImageSide));
    addLaunchOptions(*runCmd, o.launch);
    addNoTuneOption(*runCmd, o.noTune);
    runCmd->add_option("--progress-every", o.progressEvery, "Steps between progress lines (0: about ten lines)")
        ->check(integerIn(0, 1ull << 30));
    runCmd->add_flag("!--no-cuda-graphs", o.cudaGraphs,
                     "Step CUDA kernels with plain launches instead of replaying a captured CUDA graph");
    addEnergyOptions(*runCmd, o.energy, o.energyTolerance, o.strict);
    CLI::Option* diagnosticsOpt = runCmd->add_option("--diagnostics", o.diagnostics,
                       "Write energies, momenta, centre of mass and virial ratio every --diagnostics-every "
                       "steps to this CSV file (atomic)");
    runCmd->add_option("--host-copy-every", o.hostCopyEvery,
                       "CUDA kernels: steps between copies of the state to the host, the last good state a GPU "
                       "fault falls back to (at most this many steps are lost; 0: only at the end)")
        ->capture_default_str()->check(integerIn(0, 1ull << 30));
    runCmd->add_option("--diagnostics-every", o.diagnosticsEvery, "Steps between rows of the --diagnostics CSV")
        ->capture_default_str()->check(integerIn(1, 1ull << 30))->needs(diagnosticsOpt);
    return runCmd;
}

/// `nbody bench` and its options (measuring and --from / --contacts exclusions), filling o.
CLI::App* addBenchCommand(CLI::App& app, BenchOptions& o)
{
    CLI::App* benchCmd = app.add_subcommand(
        "bench", "Benchmark force kernels: median force and step times, interactions/s, GFLOP/s");
    // --kernel as well: `run`, `render` and `validate` take --kernel, and bench's list accepts one id.
    benchCmd->add_option("-k,--kernels,--kernel", o.kernels, "all (every kernel available here) or a comma-separated list: tiled,cpu")
        ->capture_default_str();
    benchCmd->add_option("-n,--bodies", o.bodies, "Comma-separated N values")->capture_default_str();
    benchCmd->add_option("-s,--steps", o.steps, "Timed samples (force evaluations and steps) per kernel and N")
        ->capture_default_str()->check(integerIn(1, 1000000));
    benchCmd->add_option("--warmup", o.warmup, "Untimed force evaluations before timing")
        ->capture_default_str()->check(integerIn(1, 1000));
    benchCmd->add_option("--budget", o.budgetSeconds,
                         "Seconds allowed per kernel and N: fewer samples, or the case is skipped when "
                         "its predicted time exceeds it")
        ->capture_default_str();
    benchCmd->add_option("--seed", o.seed, "Seed of the uniform cube or the scenario")->capture_default_str();
    benchCmd->add_option("--scenario", o.scenario,
                         "Benchmark a scenario of the registry (plummer, galaxy-collision, ...; see `nbody scenarios`) "
                         "at each N with its G, eps2 and dt, instead of the uniform cube");
    benchCmd->add_option("--G", o.G, "Gravitational constant of the cube (the rate does not depend on it)")
        ->capture_default_str();
    addLaunchOptions(*benchCmd, o.launch);
    addNoTuneOption(*benchCmd, o.noTune);
    benchCmd->add_flag("!--no-cuda-graphs", o.cudaGraphs,
                       "Step CUDA kernels with plain launches instead of replaying a captured CUDA graph "
                       "(compares the launch overhead; results are the same)");
    benchCmd->add_option("--json", o.json, "Also write the results as JSON to this file (atomic)");
    benchCmd->add_option("--csv", o.csv, "Also write the results as CSV to this file (atomic)");
    benchCmd->add_option("--plot", o.plot,
                         "Also plot interactions/s against N (log axes), one series per kernel and the device's "
                         "ceiling per precision, into FILE.png (1600x1000) or FILE.svg (atomic; needs a build "
                         "with NBODY_BUILD_PLOT)");
    benchCmd->add_option("--reference", o.reference,
                         "Reference series for --plot: a CSV of lines label,N,interactions_per_second "
                         "(e.g. \"NVIDIA sample,65536,1.409e12\")");
    CLI::Option* contactsOpt = benchCmd->add_flag(
        "--contacts", o.contacts,
        "Benchmark the contact searches (collision pairs) instead of the force kernels: --kernels names "
        "contact searches (all: every one available here), --bodies defaults to " +
            std::string(kContactBenchBodies) + "; pair tests/s and pairs found (docs/contact-search.md)");
    benchCmd->add_option("--contacts-per-body", o.contactsPerBody,
                         "With --contacts: mean number of bodies each body touches (sets the radii)")
        ->capture_default_str()->check(CLI::Range(1e-6, 1e6))->needs(contactsOpt);
    CLI::Option* fromOpt = benchCmd->add_option(
        "--from", o.from,
        "Print (and with --plot/--csv/--json write) a saved `nbody bench --json` file instead of measuring");
    for (const char* measuring : {"--kernels", "--bodies", "--steps", "--warmup", "--budget", "--seed", "--scenario", "--G", "--block-size",
                                  "--block-rows", "--tile-factor", "--bodies-per-thread", "--j-split", "--unroll",
                                  "--theta", "--leaf-size", "--no-tune"})
        fromOpt->excludes(benchCmd->get_option(measuring));
    for (const char* forces : {"--from", "--scenario", "--G", "--plot", "--reference", "--block-size", "--block-rows",
                               "--tile-factor", "--bodies-per-thread", "--j-split", "--unroll", "--theta", "--leaf-size"})
        contactsOpt->excludes(benchCmd->get_option(forces));
    return benchCmd;
}

/// `nbody render` and its options, filling o.
CLI::App* addRenderCommand(CLI::App& app, RenderOptions& o)
{
    CLI::App* renderCmd = app.add_subcommand(
        "render", "Simulate headless and write a frame every K steps: PNG files in a directory or an MP4 (ffmpeg)");
    addSystemOptions(*renderCmd, o.system);
    renderCmd->add_option("-k,--kernel", o.kernel, "Force kernel id; default: blocked if a GPU is available, else cpu");
    addLaunchOptions(*renderCmd, o.launch);
    addNoTuneOption(*renderCmd, o.noTune);
    renderCmd->add_option("-f,--frames", o.frames, "Frames to write (frame 0 is the initial state)")
        ->required()->check(integerIn(1, 1ull << 24));
    renderCmd->add_option("-e,--every", o.every, "Steps between frames")->capture_default_str()->check(integerIn(1, 1ull << 24));
    renderCmd->add_option("--size", o.size,
                          "Frame size WxH in pixels (each side 16 or more, up to the largest this OpenGL draws; "
                          "checked with the memory the frames need before the run, as run's --width and --height)")->capture_default_str();
    renderCmd->add_option("--fps", o.fps, "Frame rate of an MP4")->capture_default_str()->check(CLI::Range(0.1, 1000.0));
    renderCmd->add_option("-o,--out", o.out, "A directory (frame_00000.png, ...) or FILE.mp4 (through ffmpeg)")->required();
    renderCmd->add_flag("!--no-progress", o.progress, "No progress bar on stderr");
    addEnergyOptions(*renderCmd, o.energy, o.energyTolerance, o.strict);
    renderCmd->add_option("--colour", o.colour,
                          "Colour mode: mass (green to red), speed (blue to yellow), group (default: group where the "
                          "system has groups, such as a galaxy's stars and dark matter, else mass)");
    return renderCmd;
}

/// `nbody tune` and its options, filling o.
CLI::App* addTuneCommand(CLI::App& app, TuneCommandOptions& o)
{
    CLI::App* tuneCmd = app.add_subcommand(
        "tune", "Measure the launch parameters of the CUDA kernels for this device and cache them (docs/tuner.md)");
    // --kernel as well, as bench takes it: `run`, `render` and `validate` call it --kernel.
    tuneCmd->add_option("-k,--kernels,--kernel", o.kernels,
                        "all (every tunable CUDA kernel available here) or a comma-separated list: tiled,blocked")
        ->capture_default_str();
    tuneCmd->add_option("-n,--bodies", o.bodies, "Comma-separated N values (each is tuned at its power-of-two bucket)")
        ->capture_default_str();
    tuneCmd->add_flag("--force", o.force, "Re-tune entries the cache already has");
    addTreeOptions(*tuneCmd, o.tree);
    return tuneCmd;
}

/// A listing subcommand (`nbody kernels`, `scenarios`, `integrators`, `devices`) with its --json flag.
CLI::App* addListCommand(CLI::App& app, const char* name, const char* description, bool& json)
{
    CLI::App* cmd = app.add_subcommand(name, description);
    cmd->add_flag("--json", json, "Print JSON");
    return cmd;
}

/// Parses the command line: 0 when a subcommand is to run, else the exit status (help, version: 0
/// after printing; a parse error: 2 after the message). `done` says which.
int parseCommandLine(CLI::App& app, int argc, char** argv, bool& done)
{
    done = true;
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return 2;
    }
    done = false;
    return 0;
}

} // namespace

int commandMain(int argc, char** argv)
{
    nbody::installTemporaryFileCleanup(); // SIGINT/SIGTERM/SIGHUP leave no temporary files behind
    CLI::App app{"N-Body Sandbox command line: gravitational N-body simulation on the CPU and CUDA GPUs"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("nbody ") + NBODY_VERSION);

    RunOptions run;
    CLI::App* runCmd = addRunCommand(app, run);
    BenchOptions bench;
    CLI::App* benchCmd = addBenchCommand(app, bench);
    RenderOptions render;
    CLI::App* renderCmd = addRenderCommand(app, render);

    ValidateOptions validate;
    CLI::App* validateCmd = addValidateCommand(app, validate);

    TuneCommandOptions tune;
    CLI::App* tuneCmd = addTuneCommand(app, tune);

    bool kernelsJson = false, scenariosJson = false, integratorsJson = false, devicesJson = false;
    CLI::App* kernelsCmd = addListCommand(app, "kernels", "List the registered force kernels", kernelsJson);
    CLI::App* scenariosCmd =
        addListCommand(app, "scenarios", "List the registered scenarios (for run --scenario)", scenariosJson);
    CLI::App* integratorsCmd = addListCommand(app, "integrators", "List the registered time integrators", integratorsJson);
    CLI::App* devicesCmd =
        addListCommand(app, "devices", "List CUDA devices and the headless OpenGL renderer", devicesJson);

    bool done = false;
    if (const int code = parseCommandLine(app, argc, argv, done); done)
        return code;
    // Several processes run `nbody run`, `bench`, `validate` and `render` (docs/mpi.md); `tune`
    // measures one device alone and would write the cache P times: refused.
    if (const nbody::mpi::Session* s = distributedSession(); s && s->size() > 1)
        for (CLI::App* single : {tuneCmd})
            if (*single) {
                std::cerr << "nbody " << single->get_name() << ": runs as one process: start it without mpirun "
                          << "(mpirun -np P supports `nbody run`, `bench`, `validate` and `render`, docs/mpi.md)\n";
                return 2;
            }
    try {
        // The commands that simulate start their OpenMP threads now, before a system is made: a
        // thread that cannot be created later ends the process (libgomp exits), one refused here
        // is a message (startWorkerThreads).
        for (CLI::App* simulating : {runCmd, benchCmd, renderCmd, validateCmd, tuneCmd})
            if (*simulating) {
                try {
                    startWorkerThreads();
                } catch (const std::exception& e) {
                    std::cerr << "nbody " << simulating->get_name() << ": " << e.what() << "\n";
                    return 1;
                }
            }
        if (*runCmd) {
            noteGiven(*runCmd, run.system);
            run.captureGiven = runCmd->count("--capture") > 0;
            run.launchGiven = launchOptionsGiven(*runCmd) > 0;
            run.diagnosticsGiven = runCmd->count("--diagnostics") > 0;
            run.givenStored = givenStoredParams(*runCmd);
            return runCommand(run);
        }
        if (*benchCmd) {
            bench.bodiesGiven = benchCmd->count("--bodies") > 0;
            return benchCommand(bench);
        }
        if (*renderCmd) {
            noteGiven(*renderCmd, render.system);
            return renderCommand(render);
        }
        if (*tuneCmd)
            return tuneCommand(tune);
        if (*validateCmd)
            return validateCommand(*validateCmd, validate);
        if (*kernelsCmd)
            return kernelsCommand(kernelsJson);
        if (*scenariosCmd)
            return scenariosCommand(scenariosJson);
        if (*integratorsCmd)
            return integratorsCommand(integratorsJson);
        if (*devicesCmd)
            return devicesCommand(devicesJson);
    } catch (const std::bad_alloc&) {
        std::cerr << "nbody: error: " << nbody::outOfMemoryMessage() << "\n";
        return 1;
    } catch (const std::system_error& e) {
        std::cerr << "nbody: error: " << nbody::systemErrorMessage(e) << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "nbody: error: " << e.what() << "\n";
        return 1;
    }
    return 2;
}

} // namespace nbody::cli
