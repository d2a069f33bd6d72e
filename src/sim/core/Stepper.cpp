// The one step loop (Simulation::step, Simulation::advance) and the state backends it runs on:
// the host's fp32 columns, the host's fp64 state, the device state of a CUDA kernel, and the
// decorator that shares the force evaluation with other processes. See Stepper.h.

#include "sim/core/Simulation.h"
#include "sim/core/Integrators.h"
#include "sim/base/Parallel.h"
#include "sim/core/Stepper.h"
#include "sim/core/Launch.h"

#if NBODY_HAVE_CUDA
#include "kernels/DeviceState.h"
#else
namespace nbody {
class DeviceState {}; // CPU-only build: no device state is ever created
} // namespace nbody
#endif

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

namespace nbody {

// ---- the composition of one step (Stepper.h) ----------------------------------------------

namespace {

[[noreturn]] void noBlockSteps()
{
    throw std::logic_error("this state backend does not take block time steps");
}

/// The block step of BlockSteps.h, dtMax > 0.
void emitBlockStep(StepOps& ops, BlockLevels& b, double dtMax)
{
    const int L = b.maxLevels;
    const std::uint64_t ticks = std::uint64_t(1) << L;
    // t = 0, a synchronisation point: every body starts a step on the level the criterion gives.
    ops.selectActive(b, 0);
    ops.assignLevels(b, 0, dtMax);
    b.substeps = 0;
    if (b.deepest() == 0) { // one level: the fixed step, operation for operation
        ops.kickDrift(dtMax);
        ops.forces();
        ops.kick(dtMax);
        b.substeps = 1;
        ops.levelsDone(b);
        return;
    }
    const std::array<std::uint64_t, kMaxBlockLevels + 1> startHistogram = b.histogram;
    ops.kickActive(b, dtMax); // every body's opening kick
    std::uint64_t t = 0;
    while (t < ticks) {
        // The next tick at which a step ends: level k's steps end at multiples of 2^(L−k).
        std::uint64_t next = ticks;
        for (int k = 0; k <= L; ++k)
            if (b.histogram[std::size_t(k)] > 0) {
                const std::uint64_t s = std::uint64_t(1) << (L - k);
                next = std::min(next, (t / s + 1) * s);
            }
        ops.drift(std::ldexp(dtMax, -L) * double(next - t)); // exact: a power of two times dtMax
        t = next;
        ops.selectActive(b, firstActiveLevel(t, L));
        ops.activeForces(b);      // gravity for the active rows
        ops.kickActive(b, dtMax); // their closing kicks
        ++b.substeps;
        if (t < ticks) {
            ops.assignLevels(b, t, dtMax); // GADGET-2's rule
            ops.kickActive(b, dtMax);      // the opening kicks of their next steps
        }
    }
    ops.levelsDone(b);
    b.histogram = startHistogram; // what the status bar shows: the levels the step started with
}

} // namespace

std::size_t StepOps::selectActive(BlockLevels&, int) { noBlockSteps(); }
void StepOps::assignLevels(BlockLevels&, std::uint64_t, double) { noBlockSteps(); }
void StepOps::activeForces(BlockLevels&) { noBlockSteps(); }
void StepOps::kickActive(BlockLevels&, double) { noBlockSteps(); }
void StepOps::drift(double) { noBlockSteps(); }
void StepOps::levelsDone(BlockLevels&) { noBlockSteps(); }

void emitSubsteps(StepOps& ops, std::span<const double> weights, double signedDt, BlockLevels* levels)
{
    if (levels) {
        emitBlockStep(ops, *levels, signedDt);
        return;
    }
    for (const double w : weights) {
        const double dt = w * signedDt;
        ops.kickDrift(dt); // integrate: opening kick and drift
        ops.forces();      // gravity: a at the new positions
        ops.kick(dt);      // integrate: closing kick
    }
}

namespace {

/// Where the force exchange reads and writes this process's accelerations.
struct ExchangeBuffer {
    void* data = nullptr;
    bool onDevice = false;
};

/// What a backend offers the force-share decorator: the rows of one process, computed in
/// pieces, and the buffer the exchange fills.
class RowForces {
public:
    virtual ~RowForces() = default;
    /// Size in bytes of one acceleration vector (the layout's).
    virtual std::size_t elementBytes() const = 0;
    /// The buffer the exchange assembles every row in (`deviceAware`: the share takes device memory).
    virtual ExchangeBuffer exchangeBuffer(bool deviceAware) = 0;
    /// Computes (or enqueues) the accelerations of `rows` only.
    virtual void forceRows(RowRange rows) = 0;
    /// After chunk c's rows were enqueued: its completion, and its copy into a host buffer.
    virtual void chunkEnqueued(int c, RowRange rows, const ExchangeBuffer& buf)
    {
        (void)c;
        (void)rows;
        (void)buf;
    }
    /// True once chunk c is in the exchange buffer.
    virtual bool chunkReady(int c)
    {
        (void)c;
        return true;
    }
    /// After the exchange: every row in the exchange buffer, moved to where the kernels read it.
    virtual void exchanged(const ExchangeBuffer& buf) { (void)buf; }
};

/// KDK leapfrog's kick and drift over host columns of Float4 or Double4 (arithmetic in T).
template <class T, class V>
void hostKick(std::vector<V>& vel, const std::vector<V>& acc, double dt)
{
    const T half = T(0.5) * T(dt);
    const auto n = static_cast<std::ptrdiff_t>(vel.size());
#pragma omp parallel for schedule(static) if (n >= kParallelElementsFrom)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
        vel[i].x += half * acc[i].x;
        vel[i].y += half * acc[i].y;
        vel[i].z += half * acc[i].z;
    }
}

template <class T, class V>
void hostDrift(std::vector<V>& pos, const std::vector<V>& vel, double dt)
{
    const T step = T(dt);
    const auto n = static_cast<std::ptrdiff_t>(pos.size());
#pragma omp parallel for schedule(static) if (n >= kParallelElementsFrom)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
        pos[i].x += step * vel[i].x;
        pos[i].y += step * vel[i].y;
        pos[i].z += step * vel[i].z;
    }
}

/// The criterion's step (criterionStep, BlockSteps.h) of the bodies `rows` from positions and
/// accelerations of a host copy (Float4 or Double4): with ε² = 0 the nearest other body's
/// distance, an O(N) pass per row like the row's forces.
template <class V>
void criterionStepsOf(const V* pos, const V* acc, std::size_t n, std::span<const std::uint32_t> rows,
                      const SimParams& p, std::span<double> out)
{
    const double eta = p.eta;
    const double eps2 = p.eps2;
    const auto count = static_cast<std::ptrdiff_t>(rows.size());
    const bool nearest = !(eps2 > 0);
#pragma omp parallel for schedule(static) if (count * std::ptrdiff_t(nearest ? n : 1) >= kParallelElementsFrom)
    for (std::ptrdiff_t s = 0; s < count; ++s) {
        const std::uint32_t i = rows[std::size_t(s)];
        const double ax = acc[i].x, ay = acc[i].y, az = acc[i].z;
        double rMin = std::numeric_limits<double>::infinity();
        if (nearest) {
            double r2 = rMin;
            const double xi = pos[i].x, yi = pos[i].y, zi = pos[i].z;
            for (std::size_t j = 0; j < n; ++j) {
                if (j == i)
                    continue;
                const double dx = double(pos[j].x) - xi, dy = double(pos[j].y) - yi, dz = double(pos[j].z) - zi;
                r2 = std::min(r2, dx * dx + dy * dy + dz * dz);
            }
            rMin = std::sqrt(r2);
        }
        out[std::size_t(s)] = criterionStep(eta, eps2, std::sqrt(ax * ax + ay * ay + az * az), rMin);
    }
}

/// At a synchronisation point (tick 0, every body active): how many of the criterion steps
/// `steps` are shorter than the deepest level's, dt_max / 2^L (BlockLevels::held).
std::int64_t heldAtDeepest(std::span<const double> steps, double dtMax, int maxLevels)
{
    const double deepest = std::ldexp(dtMax, -maxLevels);
    return std::int64_t(std::count_if(steps.begin(), steps.end(), [&](double dt) { return dt < deepest; }));
}

/// Each active body's level (b.active, host) from its criterion step steps[s] under nextLevel,
/// then the histogram of every level. The bodies are distinct, so they are assigned in parallel.
/// At a synchronisation point also BlockLevels::held.
void assignHostLevels(BlockLevels& b, std::span<const double> steps, std::uint64_t tick, double dtMax)
{
    const auto count = static_cast<std::ptrdiff_t>(b.active.size());
#pragma omp parallel for schedule(static) if (count >= kParallelElementsFrom)
    for (std::ptrdiff_t s = 0; s < count; ++s) {
        std::uint8_t& k = b.level[b.active[std::size_t(s)]];
        k = std::uint8_t(nextLevel(k, dtMax, steps[std::size_t(s)], tick, b.maxLevels));
    }
    b.countLevels();
    if (tick == 0)
        b.held = heldAtDeepest(steps, dtMax, b.maxLevels);
}

} // namespace

// ---- the host: fp32 columns (the World) or the fp64 state ---------------------------------

template <class T, class V>
class Simulation::HostBackend final : public StateBackend, public RowForces {
public:
    HostBackend(Simulation& sim, std::vector<V>& pos, std::vector<V>& vel, std::vector<V>& acc)
        : m_sim(sim), m_pos(pos), m_vel(vel), m_acc(acc)
    {
    }

    void forces() override
    {
        forceRows(RowRange{0, m_sim.m_world.size()});
        m_sim.m_world.accelerationsValid = true;
    }
    void kickDrift(double dt) override
    {
        hostKick<T>(m_vel, m_acc, dt);
        hostDrift<T>(m_pos, m_vel, dt);
    }
    void kick(double dt) override { hostKick<T>(m_vel, m_acc, dt); }

    // ---- block time steps: the levels and the active set in the BlockLevels ----
    std::size_t selectActive(BlockLevels& b, int minLevel) override
    {
        b.selectActive(minLevel);
        return b.active.size();
    }
    void assignLevels(BlockLevels& b, std::uint64_t tick, double dtMax) override
    {
        m_steps.resize(b.active.size());
        criterionStepsOf(m_pos.data(), m_acc.data(), m_pos.size(), b.active, m_sim.m_params, m_steps);
        assignHostLevels(b, m_steps, tick, dtMax);
    }
    void activeForces(BlockLevels& b) override
    {
        if (b.active.size() == m_pos.size()) {
            forces();
            return;
        }
        HostForceArgs a = forceArgs();
        a.active = b.active.data();
        a.activeCount = b.active.size();
        m_sim.m_kernel->host(a);
        m_sim.m_bodyForces += b.active.size();
        markWorldStale();
    }
    void kickActive(BlockLevels& b, double dtMax) override
    {
        const auto count = static_cast<std::ptrdiff_t>(b.active.size());
#pragma omp parallel for schedule(static) if (count >= kParallelElementsFrom)
        for (std::ptrdiff_t s = 0; s < count; ++s) {
            const std::uint32_t i = b.active[std::size_t(s)];
            // As hostKick for level 0: ½ · dt in T.
            const T half = T(0.5) * T(std::ldexp(dtMax, -int(b.level[i])));
            m_vel[i].x += half * m_acc[i].x;
            m_vel[i].y += half * m_acc[i].y;
            m_vel[i].z += half * m_acc[i].z;
        }
    }
    void drift(double dt) override
    {
        hostDrift<T>(m_pos, m_vel, dt);
        markWorldStale();
    }
    void levelsDone(BlockLevels&) override {} // b.level is current throughout
    void stepped() override
    {
        m_sim.m_synced = {m_sim.m_world.time, m_sim.m_world.step}; // the host holds the state
        markWorldStale();
    }
    void forcesDone() override { markWorldStale(); }
    void startClock() override { m_t0 = std::chrono::steady_clock::now(); }
    double stopClock() override
    {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_t0).count();
    }

    std::size_t elementBytes() const override { return sizeof(V); }
    ExchangeBuffer exchangeBuffer(bool) override { return {m_acc.data(), false}; }
    void forceRows(RowRange rows) override
    {
        HostForceArgs a = forceArgs();
        a.iBegin = rows.begin;
        a.iEnd = rows.end;
        m_sim.m_kernel->host(a);
        m_sim.m_bodyForces += rows.size();
        markWorldStale();
    }

private:
    HostForceArgs forceArgs() const
    {
        HostForceArgs a;
        a.pos = m_pos.data();
        a.acc = m_acc.data();
        a.n = m_sim.m_world.size();
        a.eps2 = m_sim.m_params.eps2;
        a.G = m_sim.m_params.G;
        a.openingAngle = m_sim.m_params.openingAngle;
        a.leafSize = m_sim.m_params.leafSize;
        a.openingAlpha = m_sim.m_params.openingAlpha;
        a.accelerationsValid = m_sim.m_world.accelerationsValid;
        return a;
    }

    void markWorldStale()
    {
        if constexpr (std::is_same_v<V, Double4>)
            m_sim.m_worldStale = true; // the World's fp32 columns are behind the fp64 state
    }

    Simulation& m_sim;
    std::vector<V>& m_pos;
    std::vector<V>& m_vel;
    std::vector<V>& m_acc;
    std::vector<double> m_steps; ///< block steps: the criterion's step of each active body
    std::chrono::steady_clock::time_point m_t0;
};

// ---- the device state of a CUDA kernel ------------------------------------------------------

#if NBODY_HAVE_CUDA
class Simulation::DeviceBackend final : public StateBackend, public RowForces {
public:
    explicit DeviceBackend(Simulation& sim) : m_sim(sim) {}

    void prepare() override { m_sim.ensureDevice(); }
    void forces() override
    {
        m_sim.m_device->computeForces(launch(RowRange{0, m_sim.m_world.size()}), m_sim.m_current);
        m_sim.m_bodyForces += m_sim.m_world.size();
        m_sim.m_world.accelerationsValid = true;
    }
    void kickDrift(double dt) override
    {
        m_sim.m_device->kickDrift(dt, m_sim.m_current); // into the other position buffer
        m_sim.m_current = 1 - m_sim.m_current;
    }
    void kick(double dt) override { m_sim.m_device->kick(dt); }

    // ---- block time steps: the levels and the active set on the device ----
    // The active set is selected and the levels are assigned on the GPU (DeviceState); a
    // substep brings back the active set's size and, after an assignment, the levels'
    // histogram, which the stepper needs for the next tick. The forces of the active rows (rows
    // with KernelInfo::activeRows: the listed rows only; others every row), the kicks with the
    // levels' steps and the drift run there too. Without softening the criterion needs each
    // active body's nearest neighbour, which the host finds in a scratch copy of the state.
    std::size_t selectActive(BlockLevels&, int minLevel) override { return m_sim.m_device->selectActive(minLevel); }
    void assignLevels(BlockLevels& b, std::uint64_t tick, double dtMax) override
    {
        DeviceState& device = *m_sim.m_device;
        const SimParams& p = m_sim.m_params;
        b.histogram.fill(0);
        if (p.eps2 > 0) { // from the device's accelerations alone; sqrt(ε²) in fp64 (ε² is fp32)
            device.assignLevels(tick, dtMax, b.maxLevels, p.eta, std::sqrt(double(p.eps2)), nullptr,
                                b.histogram.data());
            if (tick == 0)
                b.held = -1; // the criterion steps stay on the device
            return;
        }
        // Without softening the nearest body's distance, from a scratch copy: the host copy of
        // the state (the fallback of a GPU fault) stays at the last synchronisation point.
        m_rows.resize(device.activeCount());
        device.downloadActiveRows(m_rows.data());
        m_steps.resize(m_rows.size());
        m_sim.attachForRead(false);
        if (m_sim.fp64State()) {
            device.download(m_scratch64, m_sim.m_current);
            criterionStepsOf(m_scratch64.position.data(), m_scratch64.acceleration.data(), m_scratch64.size(), m_rows,
                             p, m_steps);
        } else {
            if (m_scratch.size() != m_sim.m_world.size())
                m_scratch = m_sim.m_world;
            device.download(m_scratch, m_sim.m_current);
            criterionStepsOf(m_scratch.positions().data(), m_scratch.accelerations().data(), m_scratch.size(), m_rows,
                             p, m_steps);
        }
        device.assignLevels(tick, dtMax, b.maxLevels, p.eta, 0.0, m_steps.data(), b.histogram.data());
        if (tick == 0)
            b.held = heldAtDeepest(m_steps, dtMax, b.maxLevels);
    }
    void activeForces(BlockLevels&) override
    {
        // DeviceState decides: the listed rows, or every row for a kernel without active rows.
        m_sim.m_bodyForces +=
            m_sim.m_device->computeActiveForces(launch(RowRange{0, m_sim.m_world.size()}), m_sim.m_current);
    }
    void kickActive(BlockLevels&, double dtMax) override { m_sim.m_device->kickActive(dtMax); }
    void drift(double dt) override
    {
        m_sim.m_device->drift(dt, m_sim.m_current); // into the other position buffer
        m_sim.m_current = 1 - m_sim.m_current;
    }
    void levelsDone(BlockLevels& b) override
    {
        b.level.resize(m_sim.m_world.size());
        m_sim.m_device->downloadLevels(b.level.data());
    }

    bool runStep(std::span<const double> weights, double signedDt) override
    {
        DeviceState& device = *m_sim.m_device;
        DeviceState::StepShape shape;
        shape.forces = launch(RowRange{0, m_sim.m_world.size()});
        shape.weights = weights.data();
        shape.substeps = weights.size();
        shape.dt = signedDt;
        // What the stepper's substeps enqueue into one stream: what a CUDA graph captures.
        const auto emit = [&](void* stream, int current) {
            StreamOps ops(device, shape.forces, stream, current);
            emitSubsteps(ops, weights, signedDt);
        };
        m_sim.m_current = device.step(shape, m_sim.m_params.cudaGraphs, m_sim.m_current, emit);
        m_sim.m_bodyForces += weights.size() * m_sim.m_world.size(); // one pass of every row per substep
        return true;
    }
    void stepped() override { m_sim.m_hostStale = true; }
    void checkpoint() override
    {
        const int every = m_sim.m_params.hostCopyInterval;
        if (every > 0 && m_sim.m_world.step % std::uint64_t(every) == 0)
            m_sim.syncHost(); // the last good state a fault falls back to (abandonDeviceState)
    }
    void forcesDone() override
    {
        m_sim.m_device->synchronize();
        m_sim.m_hostStale = true;
    }
    void startClock() override { m_sim.m_device->markStepsStart(); }
    double stopClock() override
    {
        m_sim.m_device->publish(m_sim.m_current); // fp64 state: the float4 copy that is drawn
        const double ms = m_sim.m_device->stepsElapsedMs();
        m_sim.m_device->synchronize();
        return ms;
    }
    double timedForces() override
    {
        const double ms = m_sim.m_device->timedForces(launch(RowRange{0, m_sim.m_world.size()}), m_sim.m_current);
        m_sim.m_world.accelerationsValid = true;
        m_sim.m_hostStale = true;
        return ms;
    }

    std::size_t elementBytes() const override { return vectorBytes(m_sim.m_kernel->layout); }
    ExchangeBuffer exchangeBuffer(bool deviceAware) override
    {
        if (deviceAware)
            return {m_sim.m_device->accelerations(), true};
        return {m_sim.m_device->pinnedStage(m_sim.m_world.size() * elementBytes()), false};
    }
    void forceRows(RowRange rows) override { m_sim.m_device->computeForces(launch(rows), m_sim.m_current); }
    void chunkEnqueued(int c, RowRange rows, const ExchangeBuffer& buf) override
    {
        // Host-staged: the chunk's copy to pinned memory runs while the next chunk computes.
        m_sim.m_device->markForceChunk(c, rows, buf.onDevice ? nullptr : buf.data);
    }
    bool chunkReady(int c) override { return m_sim.m_device->forceChunkDone(c); }
    void exchanged(const ExchangeBuffer& buf) override
    {
        if (!buf.onDevice) // every row back up (this process's are the same bits)
            m_sim.m_device->copyAccelerations(buf.data, RowRange{0, m_sim.m_world.size()}, /*toHost*/ false);
    }

private:
    /// The device operations of one step enqueued into one stream, from buffer `current` on.
    class StreamOps final : public StepOps {
    public:
        StreamOps(DeviceState& d, const ForceLaunch& f, void* stream, int current)
            : m_d(d), m_f(f), m_stream(stream), m_current(current)
        {
        }
        void forces() override { m_d.computeForces(m_f, m_current, m_stream); }
        void kickDrift(double dt) override
        {
            m_d.kickDrift(dt, m_current, m_stream);
            m_current = 1 - m_current;
        }
        void kick(double dt) override { m_d.kick(dt, m_stream); }

    private:
        DeviceState& m_d;
        const ForceLaunch& m_f;
        void* m_stream;
        int m_current;
    };

    ForceLaunch launch(RowRange rows) const
    {
        ForceLaunch f = forceLaunch(*m_sim.m_kernel, m_sim.m_params, m_sim.m_world.size(), rows);
        f.args.accelerationsValid = m_sim.m_world.accelerationsValid; // the device's acc (uploaded with the state)
        return f;
    }

    Simulation& m_sim;
    World m_scratch;      ///< block steps without softening: the copy the criterion reads (fp32 layouts)
    Fp64State m_scratch64; ///< the same for the fp64 layout
    std::vector<std::uint32_t> m_rows; ///< the active set's rows, copied back for that criterion
    std::vector<double> m_steps;       ///< their criterion steps
};
#endif

// ---- several processes: the force evaluation shared (ForceShare.h) --------------------------

/// Decorates a backend: its force evaluation computes this process's rows and assembles every
/// process's through the share; everything else is the backend's. No CUDA graph: the exchange
/// sits between the force evaluation and the closing kick.
class Simulation::SharedForces final : public StateBackend {
public:
    SharedForces(Simulation& sim, std::unique_ptr<StateBackend> inner, RowForces& rows)
        : m_sim(sim), m_inner(std::move(inner)), m_rows(rows)
    {
    }

    void forces() override
    {
        // The pipelined exchange when chunks > 1 (docs/mpi.md): chunk c's collective is posted
        // as soon as its rows are in the buffer, while the next chunk computes (each row's
        // j-sum is the same call's: the same bits as one pass over the rows). One chunk: one
        // blocking collective after the rows.
        ForceShare& share = *m_sim.m_share;
        const std::size_t n = m_sim.m_world.size();
        const RowRange rows = m_sim.forceRows();
        const int chunks = m_sim.exchangeChunks();
        const ExchangeBuffer buf = m_rows.exchangeBuffer(share.deviceAware());
        try {
            share.beginGather(buf.data, n, m_rows.elementBytes(), buf.onDevice, chunks);
            int posted = 0;
            for (int c = 0; c < chunks; ++c) {
                const RowRange piece = chunkOf(rows, c, chunks);
                if (piece.size() > 0)
                    m_rows.forceRows(piece);
                m_rows.chunkEnqueued(c, piece, buf);
                while (posted <= c && m_rows.chunkReady(posted))
                    share.postChunk(posted++);
            }
            for (; posted < chunks; ++posted) {
                while (!m_rows.chunkReady(posted))
                    share.progress();
                share.postChunk(posted);
            }
            share.finishGather();
        } catch (...) {
            share.abandonGather();
            throw;
        }
        m_rows.exchanged(buf);
        m_sim.m_world.accelerationsValid = true;
    }
    void kickDrift(double dt) override { m_inner->kickDrift(dt); }
    void kick(double dt) override { m_inner->kick(dt); }
    void prepare() override { m_inner->prepare(); }
    void stepped() override { m_inner->stepped(); }
    void checkpoint() override { m_inner->checkpoint(); }
    void forcesDone() override { m_inner->forcesDone(); }
    void startClock() override { m_inner->startClock(); }
    double stopClock() override { return m_inner->stopClock(); }

private:
    Simulation& m_sim;
    std::unique_ptr<StateBackend> m_inner;
    RowForces& m_rows; ///< m_inner's
};

// ---- the loop ---------------------------------------------------------------------------------

std::unique_ptr<StateBackend> Simulation::backend()
{
    std::unique_ptr<StateBackend> b;
    RowForces* rows = nullptr;
    if (deviceResident()) {
#if NBODY_HAVE_CUDA
        auto d = std::make_unique<DeviceBackend>(*this);
        rows = d.get();
        b = std::move(d);
#else
        throw std::logic_error("built without CUDA");
#endif
    } else if (fp64State()) {
        auto h = std::make_unique<HostBackend<double, Double4>>(*this, m_state64.position, m_state64.velocity,
                                                                m_state64.acceleration);
        rows = h.get();
        b = std::move(h);
    } else {
        auto h = std::make_unique<HostBackend<float, Float4>>(*this, m_world.positions(), m_world.velocities(),
                                                              m_world.accelerations());
        rows = h.get();
        b = std::move(h);
    }
    if (m_share)
        return std::make_unique<SharedForces>(*this, std::move(b), *rows);
    return b;
}

int Simulation::advance(int count, double& ms)
{
    const std::unique_ptr<StateBackend> b = backend();
    const std::span<const double> weights = integratorOrThrow(m_params.integrator).weights;
    const double dt = signedTimeStep(m_params); // −dt when time runs backwards
    // Block time steps: the bodies' levels (BlockSteps.h), reassigned at every step's start.
    BlockLevels* levels = nullptr;
    if (blockSteps(m_params)) {
        m_levels.maxLevels = m_params.maxLevels;
        m_levels.level.resize(m_world.size());
        levels = &m_levels;
    }
    b->prepare();
    b->startClock();
    int steps = 0;
    bool merged = false;
    while (steps < count) {
        if (!m_world.accelerationsValid)
            b->forces(); // gravity: a_n
        if (levels || !b->runStep(weights, dt))
            emitSubsteps(*b, weights, dt, levels); // integrate and gravity: the integrator's substeps
        m_world.time += dt;
        ++m_world.step;
        ++steps;
        b->stepped();
        if (m_params.collisions && collisionSystem()) {
            merged = true; // N changed: the call ends here (the host holds the merged system)
            break;
        }
        runDiagnosticsSystem();
        b->checkpoint();
    }
    ms += b->stopClock();
    if (merged) {
        if (deviceResident()) {
            // A new device state of the new size, uploaded now (into the attached buffers when
            // positions are External, as setWorld does).
            m_device.reset();
            m_deviceStale = true;
            if (devicePositionsAvailable())
                ensureDevice();
        }
        runDiagnosticsSystem();
    }
    return steps;
}

void Simulation::step(int count)
{
    if (count <= 0)
        return;
    if (m_params.diagnosticsInterval > 0 && !m_initialDiagnostics)
        runDiagnosticsSystem(); // E0: the first evaluation of this system
    m_exact64.reset(); // the state moves on: a later switch to fp64 widens the current one
    // CUDA kernels: the GPU's time from before the first step's work to after the last (CUDA
    // events; launch gaps count, work queued before — an OpenGL draw that mapping the interop
    // buffers waits for — does not). CPU kernels: the wall clock.
    double ms = 0;
    for (int done = 0; done < count;)
        done += advance(count - done, ms);
    m_timing.steps = count;
    m_timing.msPerStep = ms / count;
    const double n = double(m_world.size());
    m_timing.interactionsPerSecond = m_timing.msPerStep > 0 ? n * n / (m_timing.msPerStep * 1e-3) : 0.0;
}

void Simulation::computeAccelerations()
{
    const std::unique_ptr<StateBackend> b = backend();
    b->prepare();
    b->forces();
    b->forcesDone();
}

double Simulation::timedForceEvaluation()
{
    const std::unique_ptr<StateBackend> b = backend();
    b->prepare();
    return b->timedForces();
}

int Simulation::exchangeChunks() const
{
    if (!m_share)
        return 1;
    const int processes = m_share->processes();
    // CUDA rows: 65536 rows per chunk at least (512 per multiprocessor of a 128-SM device: a
    // chunk's launch fills it; a constant, not the device's count: every process must choose
    // the same). CPU rows: 0, one chunk — the kernel runs on the thread that would drive MPI's
    // progress (Open MPI has no progress thread), so a chunk's collective moves only at the next
    // post and the pipeline hides little (docs/mpi.md); --exchange-chunks still pipelines them.
    const std::size_t minRows = deviceResident() ? 65536 : 0;
    return exchangeChunksFor(m_params.exchangeChunks, m_world.size() / std::size_t(std::max(processes, 1)), processes,
                             m_kernel->method == ForceMethod::Tree, minRows);
}

} // namespace nbody
