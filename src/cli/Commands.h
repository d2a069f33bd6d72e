#pragma once
/// \file Commands.h
/// The subcommands of `nbody`. Each returns the process exit code: 0 success, 1 a run-time
/// failure (GPU error, failed write), 2 bad usage or input (unknown kernel, unreadable file).

#include "Headless.h"

#include "sim/core/Diagnostics.h"
#include "sim/core/SimParams.h"
#include "contracts/World.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nbody::cli {

struct RunOptions {
    SystemOptions system;       ///< the bodies and dt, eps2 (scenario, snapshot file or the cube)
    int steps = 100;
    std::string kernel;         ///< empty: the fastest available (tiled, else cpu)
    std::string output;         ///< snapshot file name pattern ({step}); empty: none (SnapshotOutput.h)
    int every = 0;              ///< write a snapshot when the step is a multiple of this; 0: at the end only
    std::string capture;        ///< PNG path; empty: no capture
    int width = 1024, height = 768;
    LaunchOptions launch;       ///< --block-size … --unroll (0: auto)
    bool noTune = false;        ///< --no-tune: never measure; auto parameters take the defaults
    int progressEvery = 0;      ///< steps between progress lines; 0: about ten lines
    bool cudaGraphs = true;     ///< steps of CUDA kernels replayed from CUDA graphs (SimParams::cudaGraphs)
    bool captureGiven = false;      ///< --capture given (an empty name is an error)
    std::vector<std::string_view> givenStored; ///< stored parameters whose option was given (givenStoredParams)
    bool launchGiven = false;       ///< a launch option was given (else a snapshot's are used)
    bool energy = true;         ///< evaluate energy and momentum (fp64, O(N²)) at start and end
    std::string diagnostics;    ///< CSV of the diagnostics every diagnosticsEvery steps; empty: none
    bool diagnosticsGiven = false; ///< --diagnostics given (an empty name is an error)
    int diagnosticsEvery = 10;  ///< steps between rows of the diagnostics CSV (≥ 1)
    std::string integrator;     ///< integrator id; empty: the scenario's (leapfrog for the cube and files)
    bool reverse = false;       ///< --reverse: steps of −dt, time runs backwards (SimParams::reverse)
    ParamTexts timeSteps;       ///< --timestep, --eta, --max-levels (the parameter table's TimeSteps rows)
    double energyTolerance = kEnergyTolerance; ///< |dE/E0| above this is warned about in the summary (with energy)
    bool strict = false;        ///< exit 1 when the energy tolerance is exceeded
    int hostCopyEvery = 1000;   ///< CUDA kernels: steps between host copies of the state (SimParams::hostCopyInterval)
};


/// `nbody bench`: every selected kernel at every N (see sim/perf/Benchmark.h for what is measured).
struct BenchOptions {
    std::string kernels = "all";  ///< "all" (every kernel available here) or "id,id,…"
    std::string bodies = "8192,65536,262144"; ///< comma-separated N values
    int steps = 10;               ///< timed samples per kernel and N
    int warmup = 2;               ///< untimed force evaluations first
    double budgetSeconds = 60;    ///< per kernel and N: fewer samples, or skipped when predicted longer
    std::uint64_t seed = 42;
    std::string scenario;         ///< "" the uniform cube, else a scenario id (--scenario plummer)
    double G = 1.0;               ///< gravitational constant of the cube (--G)
    LaunchOptions launch;       ///< --block-size … --unroll (0: auto)
    bool noTune = false;          ///< --no-tune: auto parameters take the defaults, nothing is measured
    bool cudaGraphs = true;       ///< steps of CUDA kernels replayed from CUDA graphs (SimParams::cudaGraphs)
    std::string json;             ///< write the results as JSON here ("" = no)
    std::string csv;              ///< write the results as CSV here ("" = no)
    std::string plot;             ///< chart of interactions/s against N, FILE.png or FILE.svg ("" = no)
    std::string reference;        ///< reference series for the chart, CSV label,N,interactions_per_second
    std::string from;             ///< print (and plot) a saved --json file instead of measuring
    /// --contacts: the contact-search rows (sim/collide/Collisions.h) instead of the force kernels:
    /// --kernels names contact searches, --bodies defaults to kContactBenchBodies.
    bool contacts = false;
    bool bodiesGiven = false;     ///< --bodies was given (else --contacts uses its own default)
    double contactsPerBody = 4;   ///< --contacts-per-body: mean touching neighbours (ContactBenchSystem)
};

/// The N values of `nbody bench --contacts` without --bodies.
inline constexpr const char* kContactBenchBodies = "65536,1048576";

/// `nbody tune`: measures and caches the launch parameters of CUDA rows (sim/perf/Tuner.h).
struct TuneCommandOptions {
    std::string kernels = "all";  ///< "all" (every tunable CUDA row available here) or "id,id,…"
    std::string bodies = "8192,65536,262144"; ///< N values; each is tuned at its bucket
    bool force = false;           ///< re-tune entries the cache already has
    TreeOptions tree;             ///< --theta, --leaf-size: the tree rows are tuned with these
};

int runCommand(const RunOptions& o);
int benchCommand(const BenchOptions& o);
/// `nbody bench --contacts` (BenchContacts.cpp): every selected contact search at every N.
int contactBenchCommand(const BenchOptions& o);
/// The machine line of `nbody bench`: the first CUDA device (driver, runtime) and the OpenMP threads.
std::string benchMachineDescription();
/// Exit code 0; 1 when a search failed; 2 for bad options or no CUDA device.
int tuneCommand(const TuneCommandOptions& o);
int kernelsCommand(bool json);
int scenariosCommand(bool json);
int integratorsCommand(bool json);
/// `nbody devices`: the CUDA devices, OpenMP and the headless OpenGL context with whether CUDA-GL
/// interop is available to `nbody run` / `nbody render` (sim/base/MachineInfo.h rows; --json: the same
/// rows under "sections" and the raw values). Returns 0.
int devicesCommand(bool json);

} // namespace nbody::cli
