#include "RenderCommand.h"
#include "DistributedSystem.h"

#include "gl/ColourModes.h"
#include "gl/FrameSink.h"
#include "contracts/Errors.h"
#include "sim/base/Format.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/MemoryBudget.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <new>
#include <regex>
#include <system_error>

#include <unistd.h>

namespace nbody::cli {

namespace {

/// "1280x720" → (1280, 720); false unless both are in 16..kMaxImageSide.
bool parseSize(const std::string& s, int& w, int& h)
{
    static const std::regex pattern(R"((\d{1,5})[xX](\d{1,5}))");
    std::smatch m;
    if (!std::regex_match(s, m, pattern))
        return false;
    w = std::stoi(m[1]);
    h = std::stoi(m[2]);
    return w >= 16 && h >= 16 && w <= kMaxImageSide && h <= kMaxImageSide;
}

/// A progress bar on stderr: redrawn in place on a terminal (at most 10 times a second),
/// otherwise a line at every tenth of the frames.
class Progress {
public:
    Progress(int total, bool enabled) : m_total(total), m_enabled(enabled), m_tty(::isatty(2) == 1)
    {
        m_start = std::chrono::steady_clock::now();
    }

    void update(int done, std::uint64_t step)
    {
        if (!m_enabled)
            return;
        const auto now = std::chrono::steady_clock::now();
        const double s = std::chrono::duration<double>(now - m_start).count();
        const bool last = done == m_total;
        if (m_tty) {
            if (!last && now - m_last < std::chrono::milliseconds(100))
                return;
        } else if (!last && done * 10 / m_total == m_lastTenth) {
            return;
        }
        m_last = now;
        m_lastTenth = done * 10 / m_total;
        constexpr int width = 30;
        const int filled = m_total > 0 ? done * width / m_total : width;
        const double rate = s > 0 ? done / s : 0.0;
        const double eta = rate > 0 ? (m_total - done) / rate : 0.0;
        std::fprintf(stderr, "%s[%.*s%.*s] %d/%d frames  step %llu  %.1f frames/s  %s %ds%s",
                     m_tty ? "\r" : "", filled, "==============================", width - filled,
                     "                              ", done, m_total, static_cast<unsigned long long>(step), rate,
                     last ? "took" : "ETA", int(last ? s : eta), m_tty && !last ? "" : "\n");
        std::fflush(stderr);
    }

    /// Ends a bar left unfinished on a terminal (before an error message).
    void abandon()
    {
        if (m_enabled && m_tty && m_last != std::chrono::steady_clock::time_point{})
            std::fputc('\n', stderr);
        m_enabled = false;
    }

private:
    int m_total;
    bool m_enabled, m_tty;
    int m_lastTenth = -1;
    std::chrono::steady_clock::time_point m_start, m_last{};
};

} // namespace

namespace {

/// The energy check of a render (--no-energy, --energy-tolerance, --strict): E₀ before the first
/// step, an evaluation at every tenth of the frames where that is cheap (energyCheckCheap) and
/// one after the last frame; their running maximum of |ΔE/E₀| against the tolerance. Every
/// process of a distributed render evaluates at the same frames (the evaluation is collective).
class RenderEnergy {
public:
    RenderEnergy(const RenderOptions& o, const Simulation& sim)
        : m_on(o.energy && o.frames > 1), m_cheap(energyCheckCheap(sim)), m_every(std::max(1, o.frames / 10)),
          m_frames(o.frames), m_tolerance(o.energyTolerance), m_strict(o.strict)
    {
    }
    /// E₀; `measure` runs Simulation::measure() where the positions are reachable.
    template <class Measure>
    void start(Measure&& measure)
    {
        if (!m_on)
            return;
        m_e0 = m_e1 = measure();
        m_max.add(0.0, m_e0.time, m_e0.step);
    }
    /// After frame `frame` (1 … frames − 1) was stepped to.
    template <class Measure>
    void afterFrame(int frame, Measure&& measure)
    {
        if (!m_on || !(frame + 1 == m_frames || (m_cheap && frame % m_every == 0)))
            return;
        m_e1 = measure();
        m_max.add(relativeEnergyChange(m_e0, m_e1), m_e1.time, m_e1.step);
    }
    /// The summary lines and the tolerance (warned on rank 0). Returns the exit status: 1 when
    /// the tolerance was exceeded with --strict, else 0.
    int finish(bool root) const
    {
        if (!m_on)
            return 0;
        if (!root) // rank 0 reports
            return m_max.exceeds(m_tolerance) && m_strict ? 1 : 0;
        const double end = relativeEnergyChange(m_e0, m_e1);
        std::printf("Energy:  E0 = %.9g, E = %.9g, relative change %.3e\n", m_e0.total, m_e1.total, end);
        const bool exceeded = checkEnergyTolerance("render", m_max, end, m_tolerance, m_strict, root);
        std::fflush(stdout);
        return exceeded && m_strict ? 1 : 0;
    }

private:
    bool m_on, m_cheap;
    int m_every, m_frames;
    double m_tolerance;
    bool m_strict;
    Diagnostics m_e0, m_e1;
    EnergyChangeMaximum m_max;
};

/// The steps of render on a process other than rank 0: the same steps in the same chunks (its
/// rows of every force evaluation), no frames. Returns as renderCommand.
int simulateOnly(Simulation& sim, const RenderOptions& o, const std::vector<std::string>& rangeProblems)
{
    RenderEnergy energy(o, sim);
    try {
        energy.start([&] { return sim.measure(); });
        for (int frame = 1; frame < o.frames; ++frame) {
            sim.step(o.every);
            if (const std::string bad = sim.checkFinite(); !bad.empty()) {
                std::cerr << "nbody render: " << nonFiniteMessage(int(sim.stepCount()), bad, sim, rangeProblems) << "\n";
                return 1;
            }
            energy.afterFrame(frame, [&] { return sim.measure(); });
        }
        return energy.finish(false);
    } catch (const CudaError& e) {
        std::cerr << "nbody render: GPU error: " << e.what() << "\n";
        return 1;
    } catch (const std::bad_alloc&) {
        std::cerr << "nbody render: " << outOfMemoryMessage() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "nbody render: " << e.what() << "\n";
        return 1;
    }
}

/// Checks the options before anything is opened: the size (into width, height), the target,
/// the colour mode (into mode; nullptr when not given) and the frame counts. 0, or the exit
/// status 2 after the message.
int checkRenderOptions(const RenderOptions& o, int& width, int& height, const gl::ColourMode*& mode)
{
    if (!parseSize(o.size, width, height)) {
        std::cerr << "nbody render: --size must be WxH with both in 16.." << kMaxImageSide
                  << " (like 1280x720), not '" << o.size << "'\n";
        return 2;
    }
    if (o.out.empty()) {
        std::cerr << "nbody render: --out needs a directory or a file name ending in .mp4\n";
        return 2;
    }
    mode = o.colour.empty() ? nullptr : gl::findColourMode(o.colour);
    if (!o.colour.empty() && !mode) {
        std::cerr << "nbody render: unknown colour mode '" << o.colour << "' (known:";
        for (const gl::ColourMode& m : gl::colourModes())
            std::cerr << " " << m.id;
        std::cerr << ")\n";
        return 2;
    }
    if (o.frames < 1 || o.every < 1) {
        std::cerr << "nbody render: --frames and --every must be at least 1\n";
        return 2;
    }
    if (writesOutputs()) {
        // Refuse before the GL context and the simulation: a target that cannot be written (named
        // first: it is the user's to fix whatever the machine's OpenGL can do), or no ffmpeg.
        if (gl::sinkKindFor(o.out) == gl::SinkKind::ImageSequence) {
            if (const std::string problem = gl::imageSequenceProblem(o.out); !problem.empty()) {
                std::cerr << "nbody render: cannot record to '" << o.out << "': " << problem << "\n";
                return 2;
            }
        } else {
            if (const gl::PngTarget t = gl::resolvePngTarget(o.out); !t.problem.empty()) {
                std::cerr << "nbody render: cannot write '" << o.out << "': " << t.problem << "\n";
                return 2;
            }
            std::string why;
            if (gl::findFfmpeg(&why).empty()) {
                std::cerr << "nbody render: cannot write '" << o.out << "': " << why << "\n";
                return 2;
            }
        }
    }

    return 0;
}

/// Opens the frame sink (PNG files or ffmpeg) and prints the OpenGL, interop and output lines.
/// nullptr after the message when the sink cannot be opened.
std::unique_ptr<gl::FrameSink> openRenderSink(const RenderOptions& o, const HeadlessView& view, int width, int height)
{
    gl::SinkOptions so;
    so.target = o.out;
    so.width = width;
    so.height = height;
    so.fps = o.fps;
    std::unique_ptr<gl::FrameSink> sink;
    try {
        sink = gl::openFrameSink(so);
    } catch (const std::exception& e) {
        std::cerr << "nbody render: " << e.what() << "\n";
        return nullptr;
    }
    std::printf("OpenGL:  %s\n", view.context.description().c_str());
    if (view.interop) {
        std::printf("Interop: CUDA-GL interop in use: the kernels write the OpenGL buffers that are drawn\n");
    } else {
        std::printf("Interop: not in use: %s (positions are uploaded from the host for each frame)\n",
                    view.whyNoInterop.c_str());
    }

    std::printf("Output:  %d frames of %dx%d, one every %s (%s), to %s%s\n", o.frames, width, height,
                o.every == 1 ? "step" : stepCount(std::uint64_t(o.every)).c_str(),
                stepCount(std::uint64_t(o.frames - 1) * std::uint64_t(o.every)).c_str(), o.out.c_str(),
                gl::sinkKindFor(o.out) == gl::SinkKind::Mp4 ? " (H.264 through ffmpeg)" : " (PNG files)");
    std::fflush(stdout);

    return sink;
}

/// Writes o.frames frames of the system, one every o.every steps, into the sink (frame 0 is the
/// initial state); the camera frames the initial system and stays. 0, or 1 after the message
/// when the system stops being finite or a step or a write fails.
int writeFrames(const RenderOptions& o, Simulation& sim, HeadlessView& view, gl::FrameSink& sink, const World& initial,
                const gl::ColourMode* mode, int width, int height, const std::vector<std::string>& rangeProblems)
{
    // The camera frames the initial system and stays: the motion is seen against a fixed view.
    const gl::OrbitCamera camera = HeadlessView::framing(initial, width, height);
    gl::RenderStyle style = HeadlessView::style(initial);
    if (!mode) // no --colour: group where the system has groups, else mass (as the app)
        mode = &gl::defaultColourMode(initial);
    // The exposure follows the scene from frame to frame with a time constant of 0.5 s of video,
    // so a video does not flicker.
    style.exposureAdapt = float(1.0 - std::exp(-1.0 / (0.5 * o.fps)));
    style.source = mode->source;
    style.low = mode->low;
    style.high = mode->high;
    // Speed and group read one float per body from the scalar buffer: groups once (they do not
    // change), speeds for every frame from the host copy of the velocities.
    std::vector<float> scalars;
    float speedMax = 0.f; // the scale's top from the first frame (speed: the 99th percentile), fixed for the video
    auto uploadScalars = [&] {
        if (mode->source == gl::ColourSource::Mass)
            return;
        const World* w = nullptr;
        view.withPositions(sim, [&] { w = &sim.world(); });
        const float top = gl::bodyScalars(mode->source, *w, scalars, nullptr, sim.blockLevels().level);
        if (speedMax == 0.f)
            speedMax = top;
        view.buffers.uploadScalars(scalars.data(), sim.size());
        style.scalarBuffer = view.buffers.scalarBuffer();
        style.scalarMin = 0.f;
        style.scalarMax = speedMax;
    };
    Progress progress(o.frames, o.progress);
    RenderEnergy energy(o, sim);
    const auto measure = [&] {
        Diagnostics d;
        view.withPositions(sim, [&] { d = sim.measure(); });
        return d;
    };
    try {
        if (view.interop) // with the buffers attached, the state moves into them at once
            view.withPositions(sim, [&] { sim.setPositionStorage(PositionStorage::External); });
        energy.start(measure);
        for (int frame = 0; frame < o.frames; ++frame) {
            if (frame > 0) {
                std::string bad, why;
                view.withPositions(sim, [&] {
                    sim.step(o.every);
                    bad = sim.checkFinite();
                    if (!bad.empty())
                        why = nonFiniteMessage(int(sim.stepCount()), bad, sim, rangeProblems);
                });
                if (!bad.empty()) {
                    progress.abandon();
                    sink.abort();
                    std::cerr << "nbody render: " << why << "\n";
                    return 1;
                }
                energy.afterFrame(frame, measure);
            }
            if (frame == 0 || mode->source == gl::ColourSource::Speed)
                uploadScalars();
            sink.write(view.render(sim, camera, style, width, height, true));
            progress.update(frame + 1, sim.stepCount());
        }
        const std::string path = sink.finish();
        std::printf("Frames written: %d to %s (%s)\n", sink.frames(), path.c_str(),
                    gl::sinkKindFor(o.out) == gl::SinkKind::Mp4
                        ? "video"
                        : (sink.pathOf(0) + " … " + sink.pathOf(sink.frames() - 1)).c_str());
        return energy.finish(true);
    } catch (const CudaError& e) {
        progress.abandon();
        sink.abort();
        std::cerr << "nbody render: GPU error: " << e.what() << "\n";
        return 1;
    } catch (const std::bad_alloc&) {
        progress.abandon();
        sink.abort();
        std::cerr << "nbody render: " << outOfMemoryMessage() << "\n";
        return 1;
    } catch (const std::system_error& e) {
        progress.abandon();
        sink.abort();
        std::cerr << "nbody render: " << systemErrorMessage(e) << "\n";
        return 1;
    } catch (const std::exception& e) {
        progress.abandon();
        sink.abort();
        std::cerr << "nbody render: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

} // namespace

int renderCommand(const RenderOptions& o)
{
    int width = 0, height = 0;
    const gl::ColourMode* mode = nullptr;
    if (const int rc = checkRenderOptions(o, width, height, mode); rc != 0)
        return rc;

    // Several processes (mpirun -np P): every process simulates its rows of each force
    // evaluation; rank 0 alone opens the GL context and writes the frames (DistributedSystem.h).
    mpi::Session* const session = distributedSession();
    const bool root = writesOutputs();
    PreparedSystem prepared;
    if (const int rc = prepareSharedSystem("render", o.system, prepared); rc != 0)
        return rc;
    applyLaunchOptions(o.launch, prepared.params);
    const std::string kernelId = !o.kernel.empty() ? o.kernel : !prepared.scenarioKernel.empty() ? prepared.scenarioKernel : defaultKernel("render");
    const std::size_t n = prepared.world.size();
    // The EGL context before the simulation (as `nbody run`): refused before anything runs.
    std::optional<HeadlessView> view;
    if (root) {
        const KernelInfo* wanted = findKernel(kernelId);
        try {
            view.emplace(n, wanted && wanted->backend == Backend::Cuda);
        } catch (const std::exception& e) {
            std::cerr << "nbody render: cannot render headless: " << e.what() << "\n";
            return 2;
        }
        // The frame size against this OpenGL's limits and the memory, before anything runs.
        if (const std::string problem = gl::imageSizeProblem(width, height); !problem.empty()) {
            std::cerr << "nbody render: cannot render at --size " << width << "x" << height << ": " << problem
                      << "\n";
            return 2;
        }
    }
    std::unique_ptr<Simulation> sim;
    try {
        sim = std::make_unique<Simulation>(prepared.world, std::move(prepared.exact), prepared.params, "cpu");
        sim->setKernel(kernelId);
        if (session)
            sim->setForceShare(session->share()); // refuses more processes than bodies
    } catch (const std::invalid_argument& e) {
        std::cerr << "nbody render: " << e.what() << "\n";
        return 2;
    }
    const KernelInfo& k = sim->kernel();
    std::printf("System:  %s\n", prepared.what.c_str());
    std::printf("Params:  %s\n", describe(sim->params()).c_str()); // θ as a force accuracy picked it
    if (const std::string note = forceAccuracyNote(k, prepared.params, sim->size()); !note.empty())
        std::printf("Accuracy: %s\n", note.c_str());
    if (root) {
        const KernelInfo* kernels[] = {&k};
        printIgnoredOptionNotes("render", kernels, sim->params(), {&o.launch.params});
    }
    std::printf("Kernel:  %s (%s, %s, %s)\n", std::string(k.id).c_str(), std::string(k.name).c_str(),
                std::string(toString(k.backend)).c_str(), std::string(toString(k.precision)).c_str());
    if (session)
        std::printf("MPI:     %s; rank 0 computes bodies [%zu, %zu) of %zu and writes the frames\n",
                    session->describe().c_str(), session->share()->rows(n).begin, session->share()->rows(n).end, n);
    const std::vector<std::string> rangeProblems = warnPrecisionRange("render", *sim, root);
    if (root)
        tuneBeforeRun("render", k, prepared.params, n, o.noTune);
    // The same launch parameters on every process (a j-split orders the j-sum).
    shareLaunchParameters(k, prepared.params, n);
    if (session)
        sim->setParams(prepared.params);
    if (!root)
        return simulateOnly(*sim, o, rangeProblems);

    const std::unique_ptr<gl::FrameSink> sink = openRenderSink(o, *view, width, height);
    if (!sink)
        return 2;
    return writeFrames(o, *sim, *view, *sink, prepared.world, mode, width, height, rangeProblems);
}

} // namespace nbody::cli
