// `nbody run` (Commands.h): options → session → loop → outputs. Under mpirun every rank runs
// the same session and loop (the force evaluation is shared); only rank 0 writes (RootOutput).

#include "Commands.h"
#include "DiagnosticsOutput.h"
#include "DistributedSystem.h"
#include "Headless.h"
#include "SnapshotOutput.h"

#include "gl/CudaGlInterop.h"
#include "gl/EglContext.h"
#include "gl/Renderer.h"
#include "sim/base/Format.h"
#include "sim/base/AtomicFile.h"
#include "sim/base/DeviceInfo.h"
#include "contracts/Errors.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/MemoryBudget.h"
#include "sim/core/ParamTable.h"
#include "sim/core/Simulation.h"
#include "sim/io/Snapshot.h"
#include "sim/perf/Tuner.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <system_error>

namespace nbody::cli {

namespace {

/// What a run writes, written by one process: rank 0 under mpirun, the only process otherwise.
/// The other ranks compute the same state and write nothing.
struct RootOutput {
    bool root = true;
    void snapshot(const std::string& path, const World& w, const RestartParams& p, const Fp64State* exact) const
    {
        if (root)
            writeSnapshot(path, w, &p, {}, exact);
    }
    void diagnostics(DiagnosticsOutput& d, const RunOptions& o) const
    {
        if (root)
            d.write(o.diagnostics, o.diagnosticsEvery);
    }
};

/// Refuses unwritable outputs before anything is simulated. Returns 0 or the exit status (2).
int checkOutputs(const RunOptions& o, const World& world, const RootOutput& out)
{
    if (o.captureGiven && o.capture.empty()) {
        std::cerr << "nbody run: --capture needs a file name\n";
        return 2;
    }
    if (!o.capture.empty() && !(o.capture.size() > 4 && o.capture.compare(o.capture.size() - 4, 4, ".png") == 0)) {
        std::cerr << "nbody run: --capture writes PNG only: give a file name ending in .png (not '" << o.capture
                  << "')\n";
        return 2;
    }
    if (!o.capture.empty() && out.root) {
        // Refuse an unwritable target before simulating anything (and never replace a device).
        if (const WriteTarget t = resolveWriteTarget(o.capture); !t.problem.empty()) {
            std::cerr << "nbody run: cannot write the capture '" << o.capture << "': " << t.problem << "\n";
            return 2;
        }
    }
    if (o.every > 0 && o.output.empty()) {
        std::cerr << "nbody run: --every needs --output FILE\n";
        return 2;
    }
    if (!o.output.empty() && out.root) {
        if (const std::string problem = checkSnapshotOutput(o.output, world.step); !problem.empty()) {
            std::cerr << "nbody run: cannot write snapshots to '" << o.output << "': " << problem << "\n";
            return 2;
        }
    }
    if (o.diagnosticsGiven && out.root) {
        if (const std::string why = DiagnosticsOutput::checkTarget(o.diagnostics); !why.empty()) {
            std::cerr << "nbody run: cannot write the diagnostics '" << o.diagnostics << "': " << why << "\n";
            return 2;
        }
    }
    if (o.strict && !o.energy && !o.diagnosticsGiven) {
        std::cerr << "nbody run: --strict checks the energy change: it cannot be used with --no-energy (unless "
                     "--diagnostics writes the series it checks)\n";
        return 2;
    }
    return 0;
}

/// The run's parameters: the system's, then the options, then a snapshot's stored rows unless
/// their option was given. Returns 0 or the exit status (2).
int runParams(const RunOptions& o, const PreparedSystem& prepared, SimParams& params, bool root)
{
    if (o.diagnosticsGiven)
        params.diagnosticsInterval = o.diagnosticsEvery;
    applyLaunchOptions(o.launch, params);
    params.cudaGraphs = o.cudaGraphs;
    params.hostCopyInterval = o.hostCopyEvery;
    if (!o.launchGiven && (prepared.savedLaunch.first > 0 || prepared.savedLaunch.second > 0)) {
        params.blockSize = prepared.savedLaunch.first;
        params.tileWidthFactor = prepared.savedLaunch.second;
    }
    if (!o.integrator.empty())
        params.integrator = o.integrator; // Simulation refuses an unknown id, naming the known ones
    params.reverse = o.reverse;           // Simulation refuses it together with collisions, saying why
    applyParamTexts(o.timeSteps, params); // and block time steps with --reverse, saying why
    // A snapshot's stored integrator, θ, leaf size, direction and collision switch, unless the
    // option was given (a differing one is reported): the run continues the stored one exactly.
    try {
        applySavedParams("run", o.givenStored, prepared, params, root);
    } catch (const std::invalid_argument& e) {
        std::cerr << "nbody run: " << e.what() << "\n";
        return 2;
    }
    return 0;
}

/// --kernel, else the kernel the snapshot was written with when it can run here (an exact
/// continuation needs the same deterministic kernel), else the scenario's, else the fastest.
std::string runKernel(const RunOptions& o, const PreparedSystem& prepared, bool root)
{
    std::string kernelId = o.kernel;
    if (kernelId.empty() && !prepared.savedKernel.empty()) {
        const KernelInfo* saved = findKernel(prepared.savedKernel);
        if (saved && availability(*saved).available)
            kernelId = prepared.savedKernel;
        else if (root)
            printNote("run", "the snapshot was written with kernel '" + prepared.savedKernel +
                                 "', which cannot run here; using the default");
    }
    if (kernelId.empty())
        kernelId = prepared.scenarioKernel;
    if (kernelId.empty())
        kernelId = defaultKernel("run");
    return kernelId;
}

/// What one run holds while it steps.
struct RunSession {
    std::optional<HeadlessView> view;
    std::unique_ptr<Simulation> sim;
    std::optional<DiagnosticsOutput> diagnostics;
    mpi::Session* mpi = nullptr;
    std::vector<std::string> rangeProblems; ///< the system's quantities beyond the kernel's precision
    std::string units, unitsOfG; ///< the system's (PreparedSystem), written into its snapshots
    /// Runs `f` with the device positions attached when they live in the GL buffers.
    template <class F>
    void withPositions(F&& f)
    {
        if (view)
            view->withPositions(*sim, f);
        else
            f();
    }
};

/// The headless view (before the simulation: a machine that cannot render headless is refused
/// before anything runs), the simulation, its diagnostics series, the run header and the
/// tuning. Returns 0 or the exit status.
int startSession(const RunOptions& o, PreparedSystem& prepared, const std::string& kernelId, const RootOutput& out,
                 RunSession& s)
{
    World& world = prepared.world;
    SimParams& params = prepared.params;
    s.units = prepared.units;
    s.unitsOfG = prepared.unitsOfG;
    if (!o.capture.empty() && out.root) {
        const KernelInfo* wanted = findKernel(kernelId);
        try {
            s.view.emplace(world.size(), wanted && wanted->backend == Backend::Cuda);
        } catch (const std::exception& e) {
            std::cerr << "nbody run: cannot render headless: " << e.what() << "\n";
            return 2;
        }
        // The capture's size against this OpenGL's limits and the memory, before anything runs.
        if (const std::string problem = gl::imageSizeProblem(o.width, o.height); !problem.empty()) {
            std::cerr << "nbody run: cannot capture at --width " << o.width << " --height " << o.height << ": "
                      << problem << "\n";
            return 2;
        }
    }
    try {
        s.sim = std::make_unique<Simulation>(world, std::move(prepared.exact), params, "cpu");
        s.sim->setKernel(kernelId);
        if (s.mpi)
            s.sim->setForceShare(s.mpi->share()); // refuses more processes than bodies
    } catch (const std::invalid_argument& e) {
        std::cerr << "nbody run: " << e.what() << "\n";
        return 2;
    }
    if (o.diagnosticsGiven)
        s.diagnostics.emplace().attach(*s.sim);
    const KernelInfo& k = s.sim->kernel();
    std::printf("System:  %s\n", prepared.what.c_str());
    std::printf("Params:  %s\n", describe(s.sim->params()).c_str()); // θ as a force accuracy picked it
    if (const std::string note = forceAccuracyNote(k, params, s.sim->size()); !note.empty())
        std::printf("Accuracy: %s\n", note.c_str());
    if (out.root) {
        const KernelInfo* kernels[] = {&k};
        printIgnoredOptionNotes("run", kernels, s.sim->params(), {&o.launch.params, &o.timeSteps});
    }
    std::printf("Kernel:  %s (%s, %s, %s)\n", std::string(k.id).c_str(), std::string(k.name).c_str(),
                std::string(toString(k.backend)).c_str(), std::string(toString(k.precision)).c_str());
    if (s.mpi)
        std::printf("MPI:     %s; rank 0 computes bodies [%zu, %zu) of %zu\n", s.mpi->describe().c_str(),
                    s.mpi->share()->rows(world.size()).begin, s.mpi->share()->rows(world.size()).end, world.size());
    s.rangeProblems = warnPrecisionRange("run", *s.sim, out.root);
    if (out.root)
        tuneBeforeRun("run", k, params, world.size(), o.noTune);
    // The same launch parameters on every process (a j-split orders the j-sum).
    shareLaunchParameters(k, params, world.size());
    if (s.mpi)
        s.sim->setParams(params);
    if (s.view) {
        std::printf("OpenGL:  %s\n", s.view->context.description().c_str());
        if (s.view->interop) {
            // With the buffers attached the state moves into them at once: a capture after
            // --steps 0 --no-energy (nothing else touches the device) draws it, not their
            // uninitialised contents.
            s.view->withPositions(*s.sim, [&] { s.sim->setPositionStorage(PositionStorage::External); });
            std::printf("Interop: CUDA-GL interop in use: the kernels read and write the OpenGL buffers "
                        "(positions never cross to the host while stepping)\n");
        } else {
            std::printf("Interop: not in use: %s (positions are uploaded from the host for the capture)\n",
                        s.view->whyNoInterop.c_str());
        }
    }
    std::fflush(stdout);
    return 0;
}

/// Host and device memory at one moment (start, after the warm-up, end): a long run keeps both flat.
struct MemoryReading {
    std::size_t host = 0;
    DeviceMemory device;
    bool deviceKnown = false;
};

MemoryReading readMemory(bool onCuda)
{
    MemoryReading m;
    m.host = residentHostBytes();
    if (onCuda)
        m.deviceKnown = deviceMemory(&m.device);
    return m;
}

/// With block time steps, after the first chunk: a note when the criterion asked some bodies for
/// steps shorter than the deepest level gives at the last step's start (BlockLevels::held, the
/// level assignment's own count): they are held at level L, so --max-levels or --eta is too small
/// for them.
void noteLevelCap(const Simulation& sim)
{
    const BlockLevels& b = sim.blockLevels();
    if (!blockSteps(sim.params()) || b.held <= 0)
        return;
    const auto held = static_cast<std::uint64_t>(b.held);
    printNote("run", formatString("%s %s steps below dt/2^%d at step %llu (the criterion eta sqrt(%s/|a|)); %s "
                                  "held at level %d (raise --max-levels or --eta)",
                                  bodyCount(held).c_str(), held == 1 ? "wants" : "want", b.maxLevels,
                                  static_cast<unsigned long long>(sim.stepCount() - 1),
                                  sim.params().eps2 > 0 ? "eps" : "r_min", held == 1 ? "it is" : "they are",
                                  b.maxLevels));
}

/// What the loop measured.
struct LoopResult {
    double msTotal = 0, msWarm = 0;
    int stepsWarm = 0;
    std::vector<MemoryReading> memory;
    bool blewUp = false;
    /// |ΔE/E₀| at E₀ and every progress line (when `e0` was given to stepLoop); the end's is added after.
    EnergyChangeMaximum energy;
};

/// The steps, in chunks between progress lines and snapshots (--every of the absolute step).
/// With `e0` the energy is evaluated at every progress line and its change joins the running
/// maximum (LoopResult::energy).
LoopResult stepLoop(const RunOptions& o, RunSession& s, const RootOutput& out, const Diagnostics* e0)
{
    Simulation& sim = *s.sim;
    const bool onCuda = sim.kernel().backend == Backend::Cuda;
    LoopResult r;
    if (e0)
        r.energy.add(0.0, e0->time, e0->step);
    r.memory.push_back(readMemory(onCuda));
    std::uint64_t lastWritten = ~std::uint64_t(0);
    const auto writeOutput = [&] {
        std::string path;
        s.withPositions([&] {
            const World& w = sim.world();
            path = expandStepPattern(o.output, w.step);
            // An fp64 kernel's state as it is, for the formats that hold it (HDF5): the restart
            // continues bit for bit; the World is its rounding.
            std::optional<Fp64State> exact;
            if (sim.kernel().layout == Layout::Double4)
                exact = sim.state64();
            RestartParams rp = restartParams(sim.params(), sim.kernel().id);
            rp.units = s.units; // so the system reopens with its units
            rp.unitsOfG = s.unitsOfG;
            out.snapshot(path, w, rp, exact ? &*exact : nullptr);
            lastWritten = w.step;
        });
        std::printf("Snapshot written to %s (step %llu)\n", path.c_str(), static_cast<unsigned long long>(lastWritten));
    };
    const int every = o.progressEvery > 0 ? o.progressEvery : std::max(1, o.steps / 10);
    int progressLeft = every, done = 0;
    while (done < o.steps) {
        int chunk = std::min(progressLeft, o.steps - done);
        if (!o.output.empty() && o.every > 0) {
            const std::uint64_t m = std::uint64_t(o.every);
            chunk = int(std::min<std::uint64_t>(std::uint64_t(chunk), m - sim.stepCount() % m));
        }
        std::string bad;
        s.withPositions([&] {
            sim.step(chunk);
            bad = sim.checkFinite();
        });
        const StepTiming& t = sim.lastTiming();
        r.msTotal += t.msPerStep * chunk;
        if (done > 0) { // the first chunk holds the warm-up (allocation, first forces, module load)
            r.msWarm += t.msPerStep * chunk;
            r.stepsWarm += chunk;
        } else {
            r.memory.push_back(readMemory(onCuda));
            if (out.root)
                noteLevelCap(sim);
        }
        done += chunk;
        progressLeft -= chunk;
        if (progressLeft == 0 || done == o.steps) {
            progressLeft = every;
            std::printf("step %7d / %d  t = %-10.5g  %9.3f ms/step  %10.4g interactions/s\n", done, o.steps, sim.time(),
                        t.msPerStep, t.interactionsPerSecond);
            std::fflush(stdout);
            if (e0 && bad.empty() && done < o.steps) { // the end's evaluation is the summary's
                Diagnostics d;
                s.withPositions([&] { d = sim.measure(); });
                r.energy.add(relativeEnergyChange(*e0, d), d.time, d.step);
            }
        }
        if (!bad.empty()) {
            // A blown-up run (dt far too large, an unsoftened collapse, fp32's range) is a failure,
            // not a result.
            std::string why;
            s.withPositions([&] { why = nonFiniteMessage(done, bad, sim, s.rangeProblems); });
            std::cerr << "nbody run: " << why << "\n";
            r.blewUp = true;
            return r;
        }
        if (!o.output.empty() && o.every > 0 && sim.stepCount() % std::uint64_t(o.every) == 0)
            writeOutput();
    }
    if (!o.output.empty() && lastWritten != sim.stepCount())
        writeOutput();
    return r;
}

void printTiming(const RunOptions& o, const Simulation& sim, const LoopResult& r)
{
    const double n = double(sim.size());
    const double msPerStep = r.stepsWarm > 0 ? r.msWarm / r.stepsWarm : (o.steps > 0 ? r.msTotal / o.steps : 0);
    std::printf("\nSummary (%s, N = %zu, %s, t = %.6g)\n", std::string(sim.kernel().id).c_str(), sim.size(),
                stepCount(std::uint64_t(o.steps)).c_str(), sim.time());
    if (o.steps > 0) {
        std::printf("  time per step:          %.4f ms%s\n", msPerStep,
                    r.stepsWarm > 0 ? " (after the first progress interval)" : "");
        std::printf("  interactions per second: %.4g (N^2 per step)\n", msPerStep > 0 ? n * n / (msPerStep * 1e-3) : 0.0);
        std::printf("  body-force evaluations: %llu\n", static_cast<unsigned long long>(sim.bodyForceEvaluations()));
        if (blockSteps(sim.params()))
            std::printf("  block time steps:       %s (bodies per level at the last step's start, dt/2^k)\n",
                        levelHistogramText(sim.blockLevels()).c_str());
    }
    std::string host, device;
    for (std::size_t i = 0; i < r.memory.size(); ++i) {
        const char* sep = i == 0 ? "" : i + 1 == r.memory.size() ? " at the end" : " after the first interval";
        // Appended piece by piece (GCC 12's -Wrestrict misreads "const char*" + std::string&& here).
        host += i ? ", " : "";
        host += formatBytes(r.memory[i].host);
        host += i == 0 ? " at the start" : sep;
        if (r.memory[i].deviceKnown) {
            device += i ? ", " : "";
            device += formatBytes(r.memory[i].device.usedBytes());
        }
    }
    std::printf("  host memory (RSS):      %s\n", host.c_str());
    if (sim.kernel().backend == Backend::Cuda && !device.empty())
        std::printf("  device memory in use:   %s of %s (cudaMemGetInfo, the whole device)\n", device.c_str(),
                    formatBytes(r.memory.back().device.totalBytes).c_str());
}

/// Rank 0's share of the time in the force exchange (waiting for slower ranks included).
void printExchange(const mpi::Session& session, double msTotal)
{
    const mpi::Session::ExchangeStats x = session.exchangeStats();
    const double msPerGather = x.gathers > 0 ? 1e3 * x.seconds / double(x.gathers) : 0.0;
    const double perRun = msTotal > 0 ? 100.0 * 1e3 * x.seconds / msTotal : 0.0;
    const double bytesEach = x.gathers > 0 ? double(x.bytesReceived) / double(x.gathers) : 0.0;
    if (x.chunks <= 1) {
        std::printf("  force exchange (rank 0): %llu MPI_Allgatherv, %.4f ms each, %.1f %% of the stepping time, "
                    "%.4g bytes received each\n",
                    static_cast<unsigned long long>(x.gathers), msPerGather, perRun, bytesEach);
        return;
    }
    // Pipelined: the time some chunk was in flight, and the part of it rank 0 waited.
    std::printf("  force exchange (rank 0): %llu exchanges in %d chunks (MPI_Iallgatherv), %.4f ms in flight "
                "each, %.4f ms of it waiting (%.1f %% hidden), %.1f %% of the stepping time, %.4g bytes "
                "received each\n",
                static_cast<unsigned long long>(x.gathers), x.chunks,
                x.gathers > 0 ? 1e3 * x.inFlightSeconds / double(x.gathers) : 0.0, msPerGather,
                100.0 * x.hiddenFraction(), perRun, bytesEach);
}

/// The energy lines.
void printEnergy(const Diagnostics& e0, const Diagnostics& e1, bool collisions)
{
    std::printf("  energy:                 E0 = %.9g, E = %.9g, relative change %.3e\n", e0.total, e1.total,
                relativeEnergyChange(e0, e1));
    std::printf("  momentum:               (%.4g, %.4g, %.4g) -> (%.4g, %.4g, %.4g)\n", e0.momentum.x, e0.momentum.y,
                e0.momentum.z, e1.momentum.x, e1.momentum.y, e1.momentum.z);
    std::printf("  angular momentum:       (%.4g, %.4g, %.4g) -> (%.4g, %.4g, %.4g)\n", e0.angularMomentum.x,
                e0.angularMomentum.y, e0.angularMomentum.z, e1.angularMomentum.x, e1.angularMomentum.y,
                e1.angularMomentum.z);
    std::printf("  virial ratio 2K/|W|:    %.6g -> %.6g\n", e0.virialRatio, e1.virialRatio);
    if (collisions)
        std::printf("  energy lost to merges:  %.9g (E + lost: relative change %.3e above)\n",
                    e1.energyLost - e0.energyLost, relativeEnergyChange(e0, e1));
}

/// The final frame as PNG (--capture), on rank 0.
void writeCapture(const RunOptions& o, RunSession& s)
{
    const World& w = s.sim->world();
    gl::RenderStyle style = HeadlessView::style(w);
    std::vector<float> scalars; // group colours (a galaxy's stars and halo) read one float per body
    if (style.source != gl::ColourSource::Mass) {
        style.scalarMax = gl::bodyScalars(style.source, w, scalars, nullptr, s.sim->blockLevels().level);
        s.view->buffers.uploadScalars(scalars.data(), scalars.size());
        style.scalarBuffer = s.view->buffers.scalarBuffer();
    }
    gl::writePng(o.capture,
                 s.view->render(*s.sim, HeadlessView::framing(w, o.width, o.height), style, o.width, o.height));
    std::printf("Capture written to %s (%dx%d)\n", resolveWriteTarget(o.capture).path.c_str(), o.width, o.height);
}

/// The loop and every output after it. Returns the exit status.
int runLoop(const RunOptions& o, RunSession& s, std::size_t bodiesAtStart, const RootOutput& out)
{
    Simulation& sim = *s.sim;
    Diagnostics e0, e1;
    // With --diagnostics the first step() evaluates E0 itself: no second O(N²) evaluation.
    const bool e0FromSeries = s.diagnostics && o.steps > 0;
    if (o.energy && !e0FromSeries) {
        if (sim.size() > 100000 && sim.kernel().backend == Backend::Cpu)
            std::printf("Energy:  evaluating E0 (fp64, O(N^2) on %d CPU threads; --no-energy skips it)...\n",
                        omp_get_max_threads());
        std::fflush(stdout);
        s.withPositions([&] { e0 = sim.measure(); });
    }
    // The running maximum of |ΔE/E₀|: every row of the diagnostics series when one is written,
    // else E₀, one evaluation at each progress line where that is cheap, and the end.
    const bool atProgress = o.energy && !s.diagnostics && energyCheckCheap(sim);
    LoopResult loop = stepLoop(o, s, out, atProgress ? &e0 : nullptr);
    if (loop.blewUp) {
        if (s.diagnostics) // the series up to the failure shows how it came about
            out.diagnostics(*s.diagnostics, o);
        return 1;
    }
    s.withPositions([&] { // synchronises the host copy too
        if (o.energy)
            e1 = sim.measure();
        if (o.energy && e0FromSeries)
            e0 = *sim.initialDiagnostics();
        if (s.diagnostics)
            s.diagnostics->addFinal(sim, [&] { return o.energy ? e1 : sim.measure(); });
        sim.world();
    });
    loop.memory.push_back(readMemory(sim.kernel().backend == Backend::Cuda));
    printTiming(o, sim, loop);
    if (s.mpi && s.mpi->size() > 1)
        printExchange(*s.mpi, loop.msTotal);
    if (sim.params().collisions)
        std::printf("  collisions:             %zu merges (search %s), N %zu -> %zu\n", sim.mergeLog().size(),
                    std::string(sim.contactSearch().id).c_str(), bodiesAtStart, sim.size());
    if (o.energy)
        printEnergy(e0, e1, sim.params().collisions);
    EnergyChangeMaximum energy = loop.energy;
    if (s.diagnostics) {
        energy = energyChangeMaximum(s.diagnostics->samples());
    } else if (o.energy) {
        if (energy.evaluations == 0)
            energy.add(0.0, e0.time, e0.step);
        energy.add(relativeEnergyChange(e0, e1), e1.time, e1.step);
    }
    const double endChange = s.diagnostics && !s.diagnostics->samples().empty()
                                 ? s.diagnostics->samples().back().energyChange
                                 : relativeEnergyChange(e0, e1);
    const bool energyExceeded = (o.energy || s.diagnostics) &&
                                checkEnergyTolerance("run", energy, endChange, o.energyTolerance, o.strict, out.root);
    if (s.diagnostics)
        out.diagnostics(*s.diagnostics, o);
    if (s.view)
        writeCapture(o, s);
    return energyExceeded && o.strict ? 1 : 0;
}

} // namespace

int runCommand(const RunOptions& o)
{
    // Options: the system (rank 0 builds it, the others receive it under mpirun:
    // DistributedSystem.h), its checks and parameters.
    RootOutput out{writesOutputs()};
    PreparedSystem prepared;
    SystemOptions system = o.system;
    system.sizingKernel = o.kernel; // --steps-per-second sizes N for the kernel that will run
    if (const int rc = prepareSharedSystem("run", system, prepared); rc != 0)
        return rc;
    if (const int rc = checkOutputs(o, prepared.world, out); rc != 0)
        return rc;
    if (const int rc = runParams(o, prepared, prepared.params, out.root); rc != 0)
        return rc;
    // Session: the view, the simulation, the header.
    RunSession s;
    s.mpi = distributedSession();
    const std::size_t bodiesAtStart = prepared.world.size();
    if (const int rc = startSession(o, prepared, runKernel(o, prepared, out.root), out, s); rc != 0)
        return rc;
    // Loop and outputs.
    try {
        return runLoop(o, s, bodiesAtStart, out);
    } catch (const CudaError& e) {
        if (s.diagnostics) // the series up to the fault
            out.diagnostics(*s.diagnostics, o);
        return reportRunFault(*s.sim, e, o.output);
    } catch (const std::bad_alloc&) {
        std::cerr << "nbody run: " << outOfMemoryMessage() << "\n";
        return 1;
    } catch (const std::system_error& e) {
        std::cerr << "nbody run: " << systemErrorMessage(e) << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "nbody run: " << e.what() << "\n";
        return 1;
    }
}

} // namespace nbody::cli
