#include "Commands.h"
#include "sim/ParamTable.h"
#include "DistributedSystem.h"
#include "Headless.h"

#include "gl/CudaGlInterop.h"
#include "gl/EglContext.h"
#include "gl/Renderer.h"
#include "DiagnosticsOutput.h"
#include "sim/AtomicFile.h"
#include "sim/Collisions.h"
#include "sim/DeviceInfo.h"
#include "sim/Errors.h"
#include "sim/KernelRegistry.h"
#include "sim/MemoryBudget.h"
#include "sim/Simulation.h"
#include "sim/Snapshot.h"
#include "sim/Tuner.h"
#include "SnapshotOutput.h"

#include <nlohmann/json.hpp>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <new>
#include <memory>
#include <optional>

namespace nbody::cli {

int runCommand(const RunOptions& o)
{
    // ---- the system and its parameters ----
    // Several processes (mpirun): rank 0 builds the system, the others receive it; only rank 0
    // checks and writes the outputs (DistributedSystem.h).
    mpi::Session* const mpiSession = distributedSession();
    const bool root = writesOutputs();
    PreparedSystem prepared;
    SystemOptions system = o.system;
    system.sizingKernel = o.kernel; // --steps-per-second sizes N for the kernel that will run
    if (const int rc = prepareSharedSystem("run", system, prepared); rc != 0)
        return rc;
    World& world = prepared.world;
    SimParams& params = prepared.params;
    const std::string& what = prepared.what;
    const std::string& savedKernel = prepared.savedKernel;
    const std::pair<int, int>& savedLaunch = prepared.savedLaunch;
    if (o.captureGiven && o.capture.empty()) {
        std::cerr << "nbody run: --capture needs a file name\n";
        return 2;
    }
    if (!o.capture.empty() && !(o.capture.size() > 4 && o.capture.compare(o.capture.size() - 4, 4, ".png") == 0)) {
        std::cerr << "nbody run: --capture writes PNG only: give a file name ending in .png (not '" << o.capture
                  << "')\n";
        return 2;
    }
    if (!o.capture.empty() && root) {
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
    if (!o.output.empty() && root) {
        if (const std::string problem = checkSnapshotOutput(o.output, world.step); !problem.empty()) {
            std::cerr << "nbody run: cannot write snapshots to '" << o.output << "': " << problem << "\n";
            return 2;
        }
    }
    if (o.diagnosticsGiven) {
        if (const std::string why = root ? DiagnosticsOutput::checkTarget(o.diagnostics) : std::string();
            !why.empty()) {
            std::cerr << "nbody run: cannot write the diagnostics '" << o.diagnostics << "': " << why << "\n";
            return 2;
        }
        params.diagnosticsInterval = o.diagnosticsEvery;
    }
    applyLaunchOptions(o.launch, params);
    params.cudaGraphs = o.cudaGraphs;
    params.hostCopyInterval = o.hostCopyEvery;
    if (!o.launchGiven && (savedLaunch.first > 0 || savedLaunch.second > 0)) {
        params.blockSize = savedLaunch.first;
        params.tileWidthFactor = savedLaunch.second;
    }
    // --kernel, else the kernel the snapshot was written with when it can run here (an exact
    // continuation needs the same deterministic kernel), else the fastest one.
    std::string kernelId = o.kernel;
    if (kernelId.empty() && !savedKernel.empty()) {
        const KernelInfo* saved = findKernel(savedKernel);
        if (saved && availability(*saved).available)
            kernelId = savedKernel;
        else if (root)
            std::fprintf(stderr, "nbody run: note: the snapshot was written with kernel '%s', which cannot run "
                                 "here; using the default\n", savedKernel.c_str());
    }
    if (kernelId.empty())
        kernelId = prepared.scenarioKernel;
    if (kernelId.empty())
        kernelId = defaultKernel();
    if (!o.integrator.empty())
        params.integrator = o.integrator; // Simulation refuses an unknown id, naming the known ones
    params.reverse = o.reverse; // Simulation refuses it together with collisions, saying why
    // A snapshot's stored integrator, θ, leaf size, direction and collision switch, unless the
    // option was given (a differing one is reported): the run continues the stored one exactly.
    try {
        applySavedParams(o.givenStored, prepared, params, root);
    } catch (const std::invalid_argument& e) {
        std::cerr << "nbody run: " << e.what() << "\n";
        return 2;
    }

    // ---- headless view and interop ----
    // The EGL context before the simulation: a machine that cannot render headless is refused
    // before anything runs. (It was moved here while the H200's black captures were suspected
    // to come from the order; they came from an earlier process's CUDA fault, docs/tests.md.)
    std::optional<HeadlessView> view;
    if (!o.capture.empty() && root) {
        const KernelInfo* wanted = findKernel(kernelId);
        try {
            view.emplace(world.size(), wanted && wanted->backend == Backend::Cuda);
        } catch (const std::exception& e) {
            std::cerr << "nbody run: cannot render headless: " << e.what() << "\n";
            return 2;
        }
    }

    std::unique_ptr<Simulation> sim;
    try {
        sim = std::make_unique<Simulation>(world, std::move(prepared.exact), params, "cpu");
        sim->setKernel(kernelId);
        if (mpiSession)
            sim->setForceShare(mpiSession->share()); // refuses more processes than bodies
    } catch (const std::invalid_argument& e) {
        std::cerr << "nbody run: " << e.what() << "\n";
        return 2;
    }
    std::optional<DiagnosticsOutput> diagnostics;
    if (o.diagnosticsGiven)
        diagnostics.emplace().attach(*sim);
    const KernelInfo& k = sim->kernel();
    std::printf("System:  %s\n", what.c_str());
    std::printf("Params:  %s\n", describe(params).c_str());
    std::printf("Kernel:  %s (%s, %s, %s)\n", std::string(k.id).c_str(), std::string(k.name).c_str(),
                std::string(toString(k.backend)).c_str(), std::string(toString(k.precision)).c_str());
    if (mpiSession)
        std::printf("MPI:     %s; rank 0 computes bodies [%zu, %zu) of %zu\n", mpiSession->describe().c_str(),
                    mpiSession->share()->rows(world.size()).begin, mpiSession->share()->rows(world.size()).end,
                    world.size());
    if (root)
        tuneBeforeRun("run", k, params, world.size(), o.noTune);
    // The same launch parameters on every process (a j-split orders the j-sum).
    shareLaunchParameters(k, params, world.size());
    if (mpiSession)
        sim->setParams(params);

    if (view) {
        std::printf("OpenGL:  %s\n", view->context.description().c_str());
        if (view->interop) {
            // With the buffers attached the state moves into them at once: a capture after
            // --steps 0 --no-energy (nothing else touches the device) draws it, not their
            // uninitialised contents.
            view->withPositions(*sim, [&] { sim->setPositionStorage(PositionStorage::External); });
            std::printf("Interop: CUDA-GL interop in use: the kernels read and write the OpenGL buffers "
                        "(positions never cross to the host while stepping)\n");
        } else {
            std::printf("Interop: not in use: %s (positions are uploaded from the host for the capture)\n",
                        view->whyNoInterop.c_str());
        }
    }
    std::fflush(stdout);

    // Runs `f` with the device positions attached when they live in the GL buffers.
    auto withPositions = [&](auto&& f) {
        if (view)
            view->withPositions(*sim, f);
        else
            f();
    };

    if (o.strict && !o.energy) {
        std::cerr << "nbody run: --strict checks the energy change: it cannot be used with --no-energy\n";
        return 2;
    }
    bool energyExceeded = false;
    try {
        Diagnostics e0, e1;
        // With --diagnostics the first step() evaluates E0 itself: no second O(N²) evaluation.
        const bool e0FromSeries = diagnostics && o.steps > 0;
        if (o.energy && !e0FromSeries) {
            if (sim->size() > 100000 && k.backend == Backend::Cpu)
                std::printf("Energy:  evaluating E0 (fp64, O(N^2) on %d CPU threads; --no-energy skips it)...\n",
                            omp_get_max_threads());
            std::fflush(stdout);
            withPositions([&] { e0 = sim->measure(); });
        }
        const int every = o.progressEvery > 0 ? o.progressEvery : std::max(1, o.steps / 10);
        double msTotal = 0, msWarm = 0;
        int stepsWarm = 0, done = 0;
        // Snapshots (--output): at every multiple of --every of the absolute step, and at the end.
        std::uint64_t lastWritten = ~std::uint64_t(0);
        auto writeOutput = [&] {
            std::string path;
            withPositions([&] {
                const World& w = sim->world();
                const SimParams& p = sim->params();
                const RestartParams rp = restartParams(p, sim->kernel().id);
                path = expandStepPattern(o.output, w.step);
                if (root)
                    writeSnapshot(path, w, &rp);
                lastWritten = w.step;
            });
            std::printf("Snapshot written to %s (step %llu)\n", path.c_str(),
                        static_cast<unsigned long long>(lastWritten));
        };
        // Memory at the start, after the first progress interval (the warm-up's allocations: CUDA
        // graphs, workspaces) and at the end: a long run must keep both flat.
        struct MemoryReading {
            std::size_t host = 0;
            DeviceMemory device;
            bool deviceKnown = false;
        };
        const bool onCuda = k.backend == Backend::Cuda;
        auto readMemory = [&] {
            MemoryReading m;
            m.host = residentHostBytes();
            if (onCuda)
                m.deviceKnown = deviceMemory(&m.device);
            return m;
        };
        std::vector<MemoryReading> memory{readMemory()};
        int progressLeft = every;
        while (done < o.steps) {
            int chunk = std::min(progressLeft, o.steps - done);
            if (!o.output.empty() && o.every > 0) {
                const std::uint64_t m = std::uint64_t(o.every);
                const std::uint64_t toNext = m - sim->stepCount() % m;
                chunk = int(std::min<std::uint64_t>(std::uint64_t(chunk), toNext));
            }
            std::string bad;
            withPositions([&] {
                sim->step(chunk);
                bad = sim->checkFinite();
            });
            const StepTiming& t = sim->lastTiming();
            msTotal += t.msPerStep * chunk;
            if (done > 0) { // the first chunk holds the warm-up (allocation, first forces, module load)
                msWarm += t.msPerStep * chunk;
                stepsWarm += chunk;
            }
            if (done == 0)
                memory.push_back(readMemory());
            done += chunk;
            progressLeft -= chunk;
            if (progressLeft == 0 || done == o.steps) {
                progressLeft = every;
                std::printf("step %7d / %d  t = %-10.5g  %9.3f ms/step  %10.4g interactions/s\n", done, o.steps,
                            sim->time(), t.msPerStep, t.interactionsPerSecond);
                std::fflush(stdout);
            }
            if (!bad.empty()) {
                // A blown-up run (dt far too large, an unsoftened collapse) is a failure, not a result.
                std::cerr << "nbody run: the system is no longer finite after " << done << " steps (" << bad
                          << "): the time step is too large for it\n";
                if (diagnostics && root) // the series up to the failure shows how it came about
                    diagnostics->write(o.diagnostics, o.diagnosticsEvery);
                return 1;
            }
            if (!o.output.empty() && o.every > 0 && sim->stepCount() % std::uint64_t(o.every) == 0)
                writeOutput();
        }
        if (!o.output.empty() && lastWritten != sim->stepCount())
            writeOutput();
        withPositions([&] { // synchronises the host copy too
            if (o.energy)
                e1 = sim->measure();
            if (o.energy && e0FromSeries)
                e0 = *sim->initialDiagnostics();
            if (diagnostics)
                diagnostics->addFinal(*sim, [&] { return o.energy ? e1 : sim->measure(); });
            sim->world();
        });
        const double n = double(sim->size());
        const double msPerStep = stepsWarm > 0 ? msWarm / stepsWarm : (o.steps > 0 ? msTotal / o.steps : 0);
        std::printf("\nSummary (%s, N = %zu, %d steps, t = %.6g)\n", std::string(k.id).c_str(), sim->size(), o.steps,
                    sim->time());
        if (o.steps > 0) {
            std::printf("  time per step:          %.4f ms%s\n", msPerStep,
                        stepsWarm > 0 ? " (after the first progress interval)" : "");
            std::printf("  interactions per second: %.4g (N^2 per step)\n",
                        msPerStep > 0 ? n * n / (msPerStep * 1e-3) : 0.0);
        }
        memory.push_back(readMemory());
        {
            std::string host, device;
            for (std::size_t i = 0; i < memory.size(); ++i) {
                const char* sep = i == 0 ? "" : i + 1 == memory.size() ? " at the end" : " after the first interval";
                host += (i ? ", " : "") + formatBytes(memory[i].host) + (i == 0 ? " at the start" : sep);
                if (memory[i].deviceKnown)
                    device += (i ? ", " : "") + formatBytes(memory[i].device.usedBytes());
            }
            std::printf("  host memory (RSS):      %s\n", host.c_str());
            if (onCuda && !device.empty())
                std::printf("  device memory in use:   %s of %s (cudaMemGetInfo, the whole device)\n",
                            device.c_str(), formatBytes(memory.back().device.totalBytes).c_str());
        }
        if (mpiSession && mpiSession->size() > 1) {
            // Rank 0's share of the time in the force exchange (waiting for slower ranks included).
            const mpi::Session::ExchangeStats x = mpiSession->exchangeStats();
            const double msPerGather = x.gathers > 0 ? 1e3 * x.seconds / double(x.gathers) : 0.0;
            const double perRun = msTotal > 0 ? 100.0 * 1e3 * x.seconds / msTotal : 0.0;
            const double bytesEach = x.gathers > 0 ? double(x.bytesReceived) / double(x.gathers) : 0.0;
            if (x.chunks <= 1) {
                std::printf("  force exchange (rank 0): %llu MPI_Allgatherv, %.4f ms each, %.1f %% of the stepping time, "
                            "%.4g bytes received each\n",
                            static_cast<unsigned long long>(x.gathers), msPerGather, perRun, bytesEach);
            } else {
                // Pipelined: the time some chunk was in flight, and the part of it rank 0 waited.
                std::printf("  force exchange (rank 0): %llu exchanges in %d chunks (MPI_Iallgatherv), %.4f ms in flight "
                            "each, %.4f ms of it waiting (%.1f %% hidden), %.1f %% of the stepping time, %.4g bytes "
                            "received each\n",
                            static_cast<unsigned long long>(x.gathers), x.chunks,
                            x.gathers > 0 ? 1e3 * x.inFlightSeconds / double(x.gathers) : 0.0, msPerGather,
                            100.0 * x.hiddenFraction(), perRun, bytesEach);
            }
        }
        if (params.collisions)
            std::printf("  collisions:             %zu merges (search %s), N %zu -> %zu\n", sim->mergeLog().size(),
                        std::string(sim->contactSearch().id).c_str(), world.size(), sim->size());
        if (o.energy) {
            std::printf("  energy:                 E0 = %.9g, E = %.9g, relative change %.3e\n", e0.total, e1.total,
                        relativeEnergyChange(e0, e1));
            std::printf("  momentum:               (%.4g, %.4g, %.4g) -> (%.4g, %.4g, %.4g)\n", e0.momentum.x,
                        e0.momentum.y, e0.momentum.z, e1.momentum.x, e1.momentum.y, e1.momentum.z);
            std::printf("  angular momentum:       (%.4g, %.4g, %.4g) -> (%.4g, %.4g, %.4g)\n",
                        e0.angularMomentum.x, e0.angularMomentum.y, e0.angularMomentum.z, e1.angularMomentum.x,
                        e1.angularMomentum.y, e1.angularMomentum.z);
            std::printf("  virial ratio 2K/|W|:    %.6g -> %.6g\n", e0.virialRatio, e1.virialRatio);
            if (params.collisions)
                std::printf("  energy lost to merges:  %.9g (E + lost: relative change %.3e above)\n",
                            e1.energyLost - e0.energyLost, relativeEnergyChange(e0, e1));
            const double dE = relativeEnergyChange(e0, e1);
            if (!(std::fabs(dE) <= o.energyTolerance)) { // NaN too
                energyExceeded = true;
                std::fflush(stdout);
                if (root) // every process has the same energies: one warning
                    std::fprintf(stderr,
                             "nbody run: %s: the relative energy change %.3e exceeds the tolerance %.3g "
                             "(--energy-tolerance): the run is not to be trusted (the time step is probably too "
                             "large, or close encounters are unsoftened)\n",
                             o.strict ? "error" : "warning", dE, o.energyTolerance);
            }
        }
        if (diagnostics && root)
            diagnostics->write(o.diagnostics, o.diagnosticsEvery);
        if (view) {
            const World& w = sim->world();
            gl::RenderStyle style = HeadlessView::style(w);
            std::vector<float> scalars; // group colours (a galaxy's stars and halo) read one float per body
            if (style.source != gl::ColourSource::Mass) {
                style.scalarMax = gl::bodyScalars(style.source, w, scalars);
                view->buffers.uploadScalars(scalars.data(), scalars.size());
                style.scalarBuffer = view->buffers.scalarBuffer();
            }
            gl::writePng(o.capture, view->render(*sim, HeadlessView::framing(w, o.width, o.height), style, o.width,
                                                 o.height));
        }
        if (view)
            std::printf("Capture written to %s (%dx%d)\n", resolveWriteTarget(o.capture).path.c_str(), o.width,
                        o.height);
    } catch (const CudaError& e) {
        if (diagnostics) // the series up to the fault
            diagnostics->write(o.diagnostics, o.diagnosticsEvery);
        return reportRunFault(*sim, e, o.output);
    } catch (const std::bad_alloc&) {
        std::cerr << "nbody run: " << outOfMemoryMessage() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "nbody run: " << e.what() << "\n";
        return 1;
    }
    return energyExceeded && o.strict ? 1 : 0;
}

namespace {

/// The launch parameters row k reads, by key ("blockSize, tileWidthFactor"); "-" for none.
std::string launchParamNames(const KernelInfo& k, const char* separator)
{
    std::string s;
    for (const ParamInfo& row : paramTable()) // the launch and tree rows of the parameter table it reads
        if ((row.group == ParamGroup::Launch || row.group == ParamGroup::Tree) && paramReadBy(row, k))
            s += (s.empty() ? "" : separator) + std::string(row.key);
    return s.empty() ? "-" : s;
}

} // namespace

int kernelsCommand(bool json)
{
    const TuningDevice device = currentTuningDevice();
    const std::vector<TunedEntry> tuned = device.name.empty() ? std::vector<TunedEntry>{}
                                                              : tuningCache().entriesFor(device);
    if (json) {
        nlohmann::json out;
        out["builtWithCuda"] = builtWithCuda();
        out["tuningCache"] = tuningCache().path();
        out["tuningDevice"] = device.name.empty() ? nlohmann::json() : nlohmann::json{{"name", device.name},
                                                                                      {"driver", device.driverVersion}};
        nlohmann::json rows = nlohmann::json::array();
        for (const KernelInfo& k : kernelRegistry()) {
            const Availability a = availability(k);
            nlohmann::json parameters = nlohmann::json::object();
            for (const ParamInfo& row : paramTable())
                if (row.group == ParamGroup::Launch || row.group == ParamGroup::Tree)
                    parameters[std::string(row.key)] = paramReadBy(row, k);
            nlohmann::json choices = nlohmann::json::array();
            for (const TunedEntry& e : tuned) {
                if (e.kernel != k.id)
                    continue;
                nlohmann::json values = nlohmann::json::object();
                for (const LaunchParamInfo& p : launchParams())
                    if (e.launch[p.param] > 0)
                        values[std::string(p.key)] = e.launch[p.param];
                choices.push_back({{"bucket", e.bucket}, {"params", values}, {"forceMs", e.forceMs},
                                   {"interactionsPerSecond", e.interactionsPerSecond}, {"date", e.date}});
            }
            rows.push_back({{"id", k.id},
                            {"name", k.name},
                            {"description", k.description},
                            {"backend", toString(k.backend)},
                            {"precision", toString(k.precision)},
                            {"layout", toString(k.layout)},
                            {"method", toString(k.method)},
                            {"deterministic", k.deterministic},
                            {"flopsPerInteraction", k.flopsPerInteraction},
                            {"parameters", parameters},
                            {"tuned", choices},
                            {"available", a.available},
                            {"whyNot", a.reason}});
        }
        out["kernels"] = rows;
        nlohmann::json searches = nlohmann::json::array();
        for (const ContactSearchInfo& c : contactSearches())
            searches.push_back({{"id", c.id},
                                {"name", c.name},
                                {"description", c.description},
                                {"backend", toString(c.backend)},
                                {"available", c.find != nullptr}});
        out["contactSearches"] = searches;
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    std::printf("%s\n\n", builtWithCuda() ? "Build: with CUDA kernels" : "Build: CPU-only (built without CUDA)");
    int idWidth = 2, nameWidth = 4, paramWidth = 17;
    for (const KernelInfo& k : kernelRegistry()) {
        idWidth = std::max(idWidth, int(k.id.size()));
        nameWidth = std::max(nameWidth, int(k.name.size()));
        paramWidth = std::max(paramWidth, int(launchParamNames(k, ",").size()));
    }
    std::printf("%-*s  %-*s  %-7s  %-9s  %-7s  %-9s  %-*s  %-9s  %s\n", idWidth, "id", nameWidth, "name", "backend",
                "precision", "layout", "method", paramWidth, "launch parameters", "available", "why not");
    for (const KernelInfo& k : kernelRegistry()) {
        const Availability a = availability(k);
        std::printf("%-*s  %-*s  %-7s  %-9s  %-7s  %-9s  %-*s  %-9s  %s\n", idWidth, std::string(k.id).c_str(),
                    nameWidth, std::string(k.name).c_str(), std::string(toString(k.backend)).c_str(),
                    std::string(toString(k.precision)).c_str(), std::string(toString(k.layout)).c_str(),
                    std::string(toString(k.method)).c_str(), paramWidth, launchParamNames(k, ",").c_str(),
                    a.available ? "yes" : "no", a.reason.c_str());
    }
    // The collision system's contact searches (run --collisions --contact-search ID; auto picks).
    std::printf("\nContact searches (run --collisions --contact-search ID; default auto):\n");
    int searchWidth = 2;
    for (const ContactSearchInfo& c : contactSearches())
        searchWidth = std::max(searchWidth, int(c.id.size()));
    for (const ContactSearchInfo& c : contactSearches())
        std::printf("  %-*s  %-7s  %-9s  %s: %s\n", searchWidth, std::string(c.id).c_str(),
                    std::string(toString(c.backend)).c_str(), c.find ? "available" : "not built",
                    std::string(c.name).c_str(), std::string(c.description).c_str());
    // The tuner's choices for this device (what "auto" launch parameters resolve to).
    if (device.name.empty())
        return 0;
    std::printf("\nTuned launch parameters on %s (driver %s; cache %s):\n", device.name.c_str(),
                cudaVersionString(device.driverVersion).c_str(), tuningCache().path().c_str());
    if (tuned.empty())
        std::printf("  none yet: `nbody tune`, or the first run of a CUDA kernel, measures them\n");
    for (const TunedEntry& e : tuned) {
        const KernelInfo* k = findKernel(e.kernel);
        if (!k)
            continue; // a row this build does not have
        std::printf("  %-*s  N~%-7zu  %-44s  %10.4g interactions/s  %s\n", idWidth, e.kernel.c_str(), e.bucket,
                    describeLaunch(*k, e.launch).c_str(), e.interactionsPerSecond, e.date.c_str());
    }
    return 0;
}

} // namespace nbody::cli
