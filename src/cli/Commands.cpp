#include "Commands.h"

#include "gl/CudaGlInterop.h"
#include "gl/EglContext.h"
#include "gl/Renderer.h"
#include "sim/AtomicFile.h"
#include "sim/DeviceInfo.h"
#include "sim/Errors.h"
#include "sim/KernelRegistry.h"
#include "sim/Scenario.h"
#include "sim/Simulation.h"
#include "sim/Tipsy.h"

#include <nlohmann/json.hpp>

#include <omp.h>

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

namespace nbody::cli {

namespace {

std::string format(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* f, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, f);
    std::vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

/// The fastest kernel available here: the first available CUDA row, else `cpu`.
std::string defaultKernel()
{
    for (const KernelInfo& k : kernelRegistry())
        if (k.backend == Backend::Cuda && availability(k).available)
            return std::string(k.id);
    return "cpu";
}

/// The headless view: an EGL context, the renderer and the ping-pong buffers, and the CUDA-GL
/// interop when the GL context is on the CUDA device.
struct HeadlessView {
    gl::EglContext context;
    gl::Renderer renderer;
    gl::ParticleBuffers buffers;
    std::unique_ptr<gl::CudaGlInterop> interop;
    std::string whyNoInterop;

    HeadlessView(std::size_t n, bool wantInterop)
    {
        buffers.allocate(n);
        if (wantInterop)
            interop = gl::CudaGlInterop::create(buffers, &whyNoInterop);
        else
            whyNoInterop = "the selected kernel runs on the CPU";
    }

    void capture(const std::string& path, int buffer, std::size_t count, const World& world, int w, int h)
    {
        gl::OrbitCamera camera;
        const FramingSphere f = framingSphere(world);
        camera.fit({float(f.x), float(f.y), float(f.z)}, float(f.radius), float(w) / float(h));
        gl::RenderStyle style;
        const auto [lo, hi] = world.massRange();
        style.massMin = lo;
        style.massMax = hi;
        style.pointSize = count > 100000 ? 1.5f : 3.f;
        gl::OffscreenTarget target(w, h);
        target.bind();
        renderer.draw(buffers.buffer(buffer), count, camera, style, w, h);
        gl::writePng(path, target.read());
    }
};

} // namespace

int runCommand(const RunOptions& o)
{
    // ---- the system and its parameters ----
    World world;
    std::optional<Fp64State> exact;
    SimParams params;
    std::string what, scenarioKernel;
    try {
        if (!o.scenario.empty() && !o.input.empty())
            throw std::invalid_argument("--scenario and --input both name the bodies: give one");
        if (!o.scenario.empty()) {
            RunSystem s = scenarioSystem(o);
            world = std::move(s.world);
            exact = std::move(s.exact);
            params = s.params;
            scenarioKernel = s.kernel;
            what = s.what;
        } else if (!o.input.empty()) {
            world = readTipsy(o.input);
            const ScaleDefaults d = deriveScaleDefaults(world, params.G);
            params.dt = d.dt;
            params.eps2 = d.eps2;
            what = format("%s: %zu bodies (dt %.4g and eps2 %.4g derived from its scale: R_rms %.4g, t_dyn %.4g)",
                          o.input.c_str(), world.size(), double(d.dt), double(d.eps2), d.rmsRadius, d.dynamicalTime);
        } else {
            CubeParams cube;
            cube.bodies = o.bodies;
            cube.seed = o.seed;
            world = makeUniformCube(cube);
            what = format("uniform cube: %zu bodies in +-%.3g, masses %.3g..%.3g, seed %llu", world.size(),
                          cube.halfWidth, cube.massMin, cube.massMax, static_cast<unsigned long long>(cube.seed));
        }
    } catch (const std::exception& e) {
        std::cerr << "nbody run: " << e.what() << "\n";
        return 2;
    }
    if (!o.input.empty() && (o.bodiesGiven || o.seedGiven))
        std::fprintf(stderr, "nbody run: note: --bodies and --seed apply to the default cube; ignored with --input\n");
    // dt and eps2 are fp32 parameters: a value that rounds to 0 or infinity is refused as given.
    for (const auto& [name, value] : {std::pair{"--dt", o.dt}, std::pair{"--eps2", o.eps2}}) {
        if (value && std::isfinite(*value) && *value != 0 &&
            (float(*value) == 0.f || !std::isfinite(float(*value)))) {
            std::cerr << "nbody run: " << name << " " << *value
                      << " is outside the range of fp32 (about 1.2e-38 to 3.4e38)\n";
            return 2;
        }
    }
    if (o.dt)
        params.dt = float(*o.dt); // Simulation refuses 0, negative and non-finite values
    if (o.eps2)
        params.eps2 = float(*o.eps2);
    if (o.captureGiven && o.capture.empty()) {
        std::cerr << "nbody run: --capture needs a file name\n";
        return 2;
    }
    if (!o.capture.empty() && !(o.capture.size() > 4 && o.capture.compare(o.capture.size() - 4, 4, ".png") == 0)) {
        std::cerr << "nbody run: --capture writes PNG only: give a file name ending in .png (not '" << o.capture
                  << "')\n";
        return 2;
    }
    if (!o.capture.empty()) {
        // Refuse an unwritable target before simulating anything (and never replace a device).
        if (const WriteTarget t = resolveWriteTarget(o.capture); !t.problem.empty()) {
            std::cerr << "nbody run: cannot write the capture '" << o.capture << "': " << t.problem << "\n";
            return 2;
        }
    }
    params.blockSize = o.blockSize;
    params.blockRows = o.blockRows;
    params.tileWidthFactor = o.tileWidthFactor;
    if (!o.integrator.empty())
        params.integrator = o.integrator; // Simulation refuses an unknown id, naming the known ones
    const std::string kernelId = !o.kernel.empty() ? o.kernel : !scenarioKernel.empty() ? scenarioKernel : defaultKernel();

    std::unique_ptr<Simulation> sim;
    try {
        sim = std::make_unique<Simulation>(world, std::move(exact), params, "cpu");
        sim->setKernel(kernelId);
    } catch (const std::invalid_argument& e) {
        std::cerr << "nbody run: " << e.what() << "\n";
        return 2;
    }
    const KernelInfo& k = sim->kernel();
    std::printf("System:  %s\n", what.c_str());
    std::printf("Params:  %s\n", describe(params).c_str());
    std::printf("Kernel:  %s (%s, %s, %s)\n", std::string(k.id).c_str(), std::string(k.name).c_str(),
                std::string(toString(k.backend)).c_str(), std::string(toString(k.precision)).c_str());

    // ---- headless view and interop ----
    std::optional<HeadlessView> view;
    if (!o.capture.empty()) {
        try {
            view.emplace(world.size(), k.backend == Backend::Cuda);
        } catch (const std::exception& e) {
            std::cerr << "nbody run: cannot render headless: " << e.what() << "\n";
            return 2;
        }
        std::printf("OpenGL:  %s\n", view->context.description().c_str());
        if (view->interop) {
            sim->setPositionStorage(PositionStorage::External);
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
        if (view && view->interop) {
            gl::CudaGlInterop::Mapping map(*view->interop);
            sim->attachDevicePositions(map.buffer(0), map.buffer(1), map.bytes(0) / sizeof(Float4));
            try {
                f();
            } catch (...) {
                sim->detachDevicePositions();
                throw;
            }
            sim->detachDevicePositions();
        } else {
            f();
        }
    };

    try {
        Diagnostics e0, e1;
        if (o.energy) {
            if (sim->size() > 100000)
                std::printf("Energy:  evaluating E0 (fp64, O(N^2) on %d CPU threads; --no-energy skips it)...\n",
                            omp_get_max_threads());
            std::fflush(stdout);
            withPositions([&] { e0 = sim->measure(); });
        }
        const int every = o.progressEvery > 0 ? o.progressEvery : std::max(1, o.steps / 10);
        double msTotal = 0, msWarm = 0;
        int stepsWarm = 0, done = 0;
        while (done < o.steps) {
            const int chunk = std::min(every, o.steps - done);
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
            done += chunk;
            std::printf("step %7d / %d  t = %-10.5g  %9.3f ms/step  %10.4g interactions/s\n", done, o.steps,
                        sim->time(), t.msPerStep, t.interactionsPerSecond);
            std::fflush(stdout);
            if (!bad.empty()) {
                // A blown-up run (dt far too large, an unsoftened collapse) is a failure, not a result.
                std::cerr << "nbody run: the system is no longer finite after " << done << " steps (" << bad
                          << "): the time step is too large for it\n";
                return 1;
            }
        }
        withPositions([&] { // synchronises the host copy too
            if (o.energy)
                e1 = sim->measure();
            else
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
        if (o.energy) {
            std::printf("  energy:                 E0 = %.9g, E = %.9g, relative change %.3e\n", e0.total, e1.total,
                        relativeEnergyChange(e0, e1));
            std::printf("  momentum:               (%.4g, %.4g, %.4g) -> (%.4g, %.4g, %.4g)\n", e0.momentum.x,
                        e0.momentum.y, e0.momentum.z, e1.momentum.x, e1.momentum.y, e1.momentum.z);
        }
        if (view) {
            const World& w = sim->world();
            int buffer = sim->currentBuffer(); // interop: the kernels left the positions there
            if (!view->interop) {
                buffer = 0;
                view->buffers.upload(0, w.positions().data(), w.size());
            }
            view->capture(o.capture, buffer, w.size(), w, o.width, o.height);
        }
        if (view)
            std::printf("Capture written to %s (%dx%d)\n", resolveWriteTarget(o.capture).path.c_str(), o.width,
                        o.height);
    } catch (const CudaError& e) {
        std::cerr << "nbody run: GPU error: " << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "nbody run: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

int kernelsCommand(bool json)
{
    const CudaRuntimeInfo cuda = queryCuda();
    if (json) {
        nlohmann::json out;
        out["builtWithCuda"] = builtWithCuda();
        nlohmann::json rows = nlohmann::json::array();
        for (const KernelInfo& k : kernelRegistry()) {
            const Availability a = availability(k);
            rows.push_back({{"id", k.id},
                            {"name", k.name},
                            {"description", k.description},
                            {"backend", toString(k.backend)},
                            {"precision", toString(k.precision)},
                            {"deterministic", k.deterministic},
                            {"available", a.available},
                            {"whyNot", a.reason}});
        }
        out["kernels"] = rows;
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    std::printf("%s\n\n", builtWithCuda() ? "Build: with CUDA kernels" : "Build: CPU-only (built without CUDA)");
    std::printf("%-10s %-32s %-7s %-9s %-9s %s\n", "id", "name", "backend", "precision", "available", "why not");
    for (const KernelInfo& k : kernelRegistry()) {
        const Availability a = availability(k);
        std::printf("%-10s %-32s %-7s %-9s %-9s %s\n", std::string(k.id).c_str(), std::string(k.name).c_str(),
                    std::string(toString(k.backend)).c_str(), std::string(toString(k.precision)).c_str(),
                    a.available ? "yes" : "no", a.reason.c_str());
    }
    return 0;
}

int devicesCommand(bool json)
{
    const CudaRuntimeInfo cuda = queryCuda();
    std::string gl, glError;
    try {
        gl::EglContext ctx;
        gl = ctx.description();
    } catch (const std::exception& e) {
        glError = e.what();
    }
    const int threads = omp_get_max_threads();
    if (json) {
        nlohmann::json out;
        out["builtWithCuda"] = cuda.builtWithCuda;
        out["driverVersion"] = cudaVersionString(cuda.driverVersion);
        out["runtimeVersion"] = cudaVersionString(cuda.runtimeVersion);
        out["whyNoDevice"] = cuda.whyNone;
        nlohmann::json devs = nlohmann::json::array();
        for (const CudaDeviceInfo& d : cuda.devices)
            devs.push_back({{"index", d.index},
                            {"name", d.name},
                            {"computeCapability", std::to_string(d.major) + "." + std::to_string(d.minor)},
                            {"multiprocessors", d.multiprocessors},
                            {"globalMemoryBytes", d.globalMemoryBytes},
                            {"sharedMemoryPerBlock", d.sharedMemoryPerBlock},
                            {"sharedMemoryPerBlockOptin", d.sharedMemoryPerBlockOptin},
                            {"maxThreadsPerBlock", d.maxThreadsPerBlock},
                            {"warpSize", d.warpSize},
                            {"clockKHz", d.clockKHz},
                            {"memoryClockKHz", d.memoryClockKHz},
                            {"memoryBusWidthBits", d.memoryBusWidthBits},
                            {"kernelTimeout", d.kernelTimeout}});
        out["cudaDevices"] = devs;
        out["openmpThreads"] = threads;
        out["headlessOpenGL"] = gl;
        out["headlessOpenGLError"] = glError;
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    std::printf("CUDA: %s; driver %s, runtime %s\n", cuda.builtWithCuda ? "built in" : "not built in",
                cudaVersionString(cuda.driverVersion).c_str(), cudaVersionString(cuda.runtimeVersion).c_str());
    if (cuda.devices.empty())
        std::printf("  %s\n", cuda.whyNone.c_str());
    for (const CudaDeviceInfo& d : cuda.devices) {
        std::printf("  [%d] %s, compute capability %d.%d, %d SMs at %.0f MHz, %.1f GiB at %.0f MHz x %d bit\n",
                    d.index, d.name.c_str(), d.major, d.minor, d.multiprocessors, d.clockKHz / 1000.0,
                    double(d.globalMemoryBytes) / (1 << 30), d.memoryClockKHz / 1000.0, d.memoryBusWidthBits);
        std::printf("      shared memory per block %zu B (opt-in %zu B), %d threads per block, warp %d, "
                    "watchdog %s\n",
                    d.sharedMemoryPerBlock, d.sharedMemoryPerBlockOptin, d.maxThreadsPerBlock, d.warpSize,
                    d.kernelTimeout ? "on" : "off");
    }
    std::printf("OpenMP: %d threads\n", threads);
    if (glError.empty())
        std::printf("Headless OpenGL (EGL): %s\n", gl.c_str());
    else
        std::printf("Headless OpenGL (EGL): unavailable: %s\n", glError.c_str());
    return 0;
}

} // namespace nbody::cli
