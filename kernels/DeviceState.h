#pragma once
/// \file DeviceState.h
/// The simulation's state on the GPU in one kernel layout (sim/core/KernelRegistry.h, Layout):
/// device columns of velocities and accelerations, two position buffers used ping-pong, and the
/// workspace of kernels that need one. Positions are owned, or — for fp32 layouts with External
/// storage — buffers the caller provides (mapped GL buffers). The fp64 layout always owns its
/// double positions; External buffers then receive a float4 copy for drawing (publish()).
/// Host API without CUDA headers; every method throws CudaError on a CUDA failure.
///
/// Streams: everything runs in the legacy default stream (stream 0), as the CUDA-GL interop's
/// map and unmap do, replayed step graphs included. Graphs are captured from a non-blocking
/// stream of this object: capturing a blocking one would make every use of the legacy stream
/// by any thread of the process (the interop, a validation run) invalid while it lasts.

#include "contracts/DeviceTypes.h"
#include "contracts/DiagnosticSums.h"
#include "contracts/ForceArgs.h"
#include "contracts/World.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace nbody {

class DeviceState {
public:
    /// Allocates velocity and acceleration columns for n bodies in `layout`, and the two
    /// position buffers when they are owned. Throws CudaError (e.g. out of memory).
    DeviceState(std::size_t n, Layout layout, PositionStorage storage);
    ~DeviceState();
    DeviceState(const DeviceState&) = delete;
    DeviceState& operator=(const DeviceState&) = delete;

    std::size_t size() const { return m_n; }
    Layout layout() const { return m_layout; }
    PositionStorage storage() const { return m_storage; }

    /// External storage: the two float4 buffers (device, ≥ n each) until detach().
    void attach(Float4* p0, Float4* p1);
    void detach();
    /// External storage whose buffers can no longer be attached (the interop refused a map):
    /// the positions of buffer `current` come from `host` (N Float4, a read-back of the GL
    /// buffer; ignored by the Double4 layout, which owns its positions) into buffers of this
    /// object, and the storage becomes Owned; velocities and accelerations stay as they are.
    /// No-op for Owned storage. Throws CudaError.
    void ownPositions(const Float4* host, int current);
    /// True when the positions the kernels read can be accessed.
    bool hasPositions() const { return m_pos[0] && m_pos[1]; }

    /// Copies positions (into buffer `current`), velocities and accelerations to the device.
    /// World: fp32 layouts (Float4, Float3). Fp64State: the Double4 layout; with External
    /// storage attached, the float4 copy is published too.
    void upload(const World& w, int current);
    void upload(const Fp64State& s, int current);
    /// Copies them back (positions from buffer `current`); synchronises.
    void download(World& w, int current) const;
    void download(Fp64State& s, int current) const;
    /// Body i's position (buffer `current`, with its mass) and velocity, widened exactly to fp64:
    /// one row of each column copied back (16 + 16 B for Float4, 16 + 12 B for Float3, 32 + 32 B
    /// for Double4), not the state; synchronous on stream 0, so it sees every step queued before.
    /// Throws std::out_of_range for i >= size(), std::logic_error when positions are not
    /// attached, CudaError.
    BodyState downloadBody(std::size_t i, int current) const;

    // ---- the collision system's inputs (sim/collide/Collisions.h, ContactSearchArgs) ----
    /// Copies the radius column (N floats, length units; World::radii()) to the device. The
    /// simulation uploads it with the state (Simulation::ensureDevice) and after every merge, so
    /// it always matches the current N and order. Throws std::invalid_argument for a wrong
    /// length, CudaError.
    void uploadRadius(std::span<const float> radius);
    /// The device radius column (N floats), nullptr before uploadRadius().
    const float* radius() const { return m_radius; }
    /// Device positions of buffer `current` as N Float4 (x, y, z, mass) for a Backend::Cuda
    /// contact search: the position buffer itself for the fp32 layouts; for the Double4 layout a
    /// float4 copy rounded to nearest (as narrowInto rounds the host World), written by a kernel
    /// into a buffer of this object (allocated on first use) on stream 0 and valid until the next
    /// call. Throws std::logic_error when positions are not attached, CudaError.
    const Float4* contactPositions(int current);

    /// The device accelerations: n vectors of the layout (vectorBytes(layout()) each).
    void* accelerations() const { return m_acc; }
    /// Copies the accelerations of `rows` between the device and host memory holding n vectors
    /// of the layout (indexed by body, so host + rows.begin · vectorBytes receives row begin);
    /// synchronous. Throws std::invalid_argument for rows outside the n bodies, CudaError.
    void copyAccelerations(void* host, RowRange rows, bool toHost);
    /// The pipelined force exchange (sim/core/ForceShare.h, docs/mpi.md): after the launches of chunk
    /// c (computeForces with setForceRows of the chunk's rows), records an event in the default
    /// stream; with `host` (n vectors of the layout in pinned memory: pinnedStage()), a
    /// non-blocking copy stream waits for that event and copies the chunk's accelerations to
    /// host + rows.begin · vectorBytes, so the copy of chunk c runs while chunk c + 1 computes.
    /// Asynchronous; throws CudaError.
    void markForceChunk(int c, RowRange rows, void* host);
    /// True once chunk c's launches and its copy (markForceChunk) have completed (cudaEventQuery);
    /// throws CudaError when they failed.
    bool forceChunkDone(int c);
    /// Pinned host memory of at least `bytes` (cudaMallocHost), owned by this object and reused;
    /// the host stage of a pipelined exchange. Throws CudaError.
    void* pinnedStage(std::size_t bytes);
    /// One slice of a force pass: the accelerations of bodies [begin, begin + count) from all
    /// N positions of buffer `current`, the others untouched (what a sliced pass launches; for
    /// tests of a row's i-range). Throws std::invalid_argument for a slice outside [0, N).
    void computeForceSlice(const ForceLaunch& f, int current, std::size_t begin, std::size_t count);
    /// acc = F(pos[current]) for the rows f.args.iBegin..iEnd, in f.slices launches (slice s of the
    /// rows [b, e) computes bodies [b + s·(e−b)/S, b + (s+1)·(e−b)/S)), enqueued into `stream`
    /// (cudaStream_t; nullptr: stream 0). The kernel's layout must match. Throws CudaError,
    /// std::invalid_argument when the row refuses the arguments, std::logic_error when positions
    /// are not attached.
    void computeForces(const ForceLaunch& f, int current, void* stream = nullptr);
    /// computeForces timed with CUDA events around the launch(es): milliseconds on the device.
    double timedForces(const ForceLaunch& f, int current);
    /// Opening kick and drift: vel += ½ acc dt; pos[1-current] = pos[current] + vel dt (mass
    /// copied), enqueued into `stream`. Reads one buffer and writes the other (no in-place race).
    void kickDrift(double dt, int current, void* stream = nullptr);
    /// Closing kick: vel += ½ acc dt, enqueued into `stream`.
    void kick(double dt, void* stream = nullptr);
    /// Block time steps (sim/core/BlockSteps.h): the drift of every body, pos[1-current] =
    /// pos[current] + vel dt (mass copied), enqueued into `stream`.
    void drift(double dt, int current, void* stream = nullptr);

    // ---- block time steps (sim/core/BlockSteps.h): the levels and the active set on the device ----
    // A byte per body holds its level and a list of up to N row indices the active set (both
    // allocated at the first use, the levels 0). They stay on the device from substep to
    // substep: what comes back is the active set's size (4 bytes) and the levels' histogram
    // (4 bytes a level) per assignment, and the levels (N bytes) when asked.

    /// The active set = {i : level[i] ≥ minLevel}, ascending (cub::DeviceSelect::If over the
    /// device levels; minLevel ≤ 0: every body). Returns its size; synchronous (the size comes
    /// back). Throws CudaError.
    std::size_t selectActive(int minLevel);
    /// The active set = the `count` rows of a host list (ascending, each < N), copied to the
    /// device; for naming rows directly (tests, the host's choice). Throws std::invalid_argument
    /// for a list that is not ascending below N, CudaError.
    void setActiveRows(const std::uint32_t* rows, std::size_t count);
    /// The size of the active set (0 before the first selection).
    std::size_t activeCount() const { return m_activeCount; }
    /// Copies the active set's rows (activeCount() entries) to `rows`; synchronous.
    void downloadActiveRows(std::uint32_t* rows) const;
    /// Copies N host levels to the device levels, or the device levels back (synchronous).
    /// Throws CudaError.
    void uploadLevels(const std::uint8_t* level);
    void downloadLevels(std::uint8_t* level) const;
    /// The accelerations of the active bodies from all N positions of buffer `current`, the other
    /// rows untouched, each bit for bit its row of a full pass (DeviceForceArgs::active), on the
    /// default stream. A row without KernelInfo::activeRows, or an active set of every body,
    /// gets a pass over every row instead (an inactive row is not read before it is evaluated
    /// again). Returns the rows evaluated (activeCount(), or N). Throws as computeForces.
    std::size_t computeActiveForces(const ForceLaunch& f, int current);
    /// vel_i += ½ acc_i · dtMax / 2^level[i] for the active bodies i, on the default stream (the
    /// same arithmetic as kick() for level 0). Throws CudaError.
    void kickActive(double dtMax);
    /// With softening (sim/core/BlockSteps.h, criterionStep): out[s] = η · sqrt(length / |a_i|)
    /// of the active bodies i = rows[s] (+∞ where |a_i| is 0 or not a number), from the device
    /// accelerations, in fp64 with correctly rounded operations in the host's order, so each step
    /// is the host's bits for the same acceleration. length = sqrt(ε²) > 0. `out` holds
    /// activeCount() doubles (host); synchronous. Throws std::invalid_argument for length ≤ 0,
    /// CudaError.
    void criterionSteps(double eta, double length, double* out);
    /// At tick t of a step of dtMax (t = 0: a synchronisation point): level[i] = nextLevel
    /// (contracts/LevelRules.h) of each active body i from its criterion step: computed as
    /// criterionSteps() does when `steps` is nullptr (length > 0), else steps[s] for the active
    /// body s (activeCount() host doubles: the nearest-body criterion of ε² = 0, computed on the
    /// host). Then the histogram of all N levels (cub::DeviceHistogram::HistogramEven) into
    /// histogram[0 .. maxLevels]; synchronous. Throws std::invalid_argument for maxLevels outside
    /// [0, 30] or, without `steps`, length ≤ 0; CudaError.
    void assignLevels(std::uint64_t tick, double dtMax, int maxLevels, double eta, double length, const double* steps,
                      std::uint64_t* histogram);

    /// What one step's launches depend on, besides the state's buffers and workspace: the force
    /// pass of every substep, the substep count and the signed dt. sim/core/Stepper.h emits the step.
    struct StepShape {
        ForceLaunch forces;
        const double* weights = nullptr; ///< the integrator row's substep weights (Integrators.h)
        std::size_t substeps = 0;
        double dt = 0.0;                 ///< signed: −dt when time runs backwards
        bool operator==(const StepShape&) const = default;
    };
    /// Enqueues one step's launches from buffer `current` into `stream` (nullptr: stream 0).
    using EmitStep = std::function<void(void* stream, int current)>;
    /// Runs one step whose launches `emit` enqueues (the stepper's substeps: each a kickDrift,
    /// computeForces, kick, all into the stream it is given) and returns the buffer holding the
    /// new positions (the other one for an odd substep count).
    ///
    /// With `graphs` the first step of a shape — plus the position buffers and the workspace —
    /// runs as plain launches (a warm-up: lazy module loading, cudaFuncSetAttribute, workspace
    /// allocation and the elementwise block sizes happen outside any capture); the next one
    /// captures what `emit` enqueues into a CUDA graph per start buffer (both of them when the
    /// substep count is odd), and later steps replay it with one cudaGraphLaunch. Any change of
    /// the shape drops the graphs and starts again from a warm-up. A capture that fails (a
    /// launcher that calls something stream capture forbids) leaves plain launches for that
    /// shape, with one message on stderr per process and the reason in graphStats(); it never
    /// throws for that. Plain launches and replays run the same kernels with the same
    /// arguments: the results are bit-identical. Throws CudaError when a launch fails,
    /// std::invalid_argument when the row refuses the arguments.
    int step(const StepShape& shape, bool graphs, int current, const EmitStep& emit);
    /// How step() launched so far.
    const GraphStats& graphStats() const { return m_graphStats; }
    /// Double4 layout with External storage attached: writes the float4 copy of positions
    /// `current` into attached buffer `current` (for drawing). No-op otherwise.
    void publish(int current);
    /// Index of the first body whose position, mass or velocity is not finite (positions in
    /// buffer `current`), or -1 when all are; one pass over the state, 4 bytes copied back.
    long long firstNonFinite(int current);
    /// The diagnostic sums of the state (positions in buffer `current`) computed on the device
    /// (kernels/DiagnosticsKernels.h): 96 bytes are copied back, not the state; synchronises.
    /// blockSize 0: the occupancy calculator's choice. Throws std::invalid_argument for a block
    /// size the device refuses, CudaError when a CUDA call fails.
    DiagnosticSums measure(int current, double eps2, int blockSize = 0);
    /// Waits for the device (checked).
    void synchronize() const;
    /// After a CudaError: "" when the CUDA context still works (the error was not sticky: it is
    /// cleared), else the sticky error that lost it ("cudaErrorIllegalAddress: an illegal memory
    /// access was encountered"), which every later CUDA call of the process returns. Waits for
    /// the device. Never throws.
    static std::string stickyError() noexcept;
    /// Step timing on the device: markStepsStart() records an event on the default stream
    /// before the steps' work, stepsElapsedMs() one after it, waits for it and returns the
    /// milliseconds between the two on the GPU's timeline. Launch gaps between them count; work
    /// queued before the start (an OpenGL draw that mapping the interop buffers waits for) does
    /// not. Events are created on first use and reused.
    void markStepsStart();
    double stepsElapsedMs();

private:
    /// What a captured step depends on: replayed only while all of it is the same.
    struct StepConfig {
        StepShape shape;
        DeviceForceArgs args; ///< the force pass bound to this state (pos = nullptr: set per substep)
        const void* pos[2] = {nullptr, nullptr};
        std::uint64_t workspaceGeneration = 0;
        bool operator==(const StepConfig&) const = default;
    };
    void ensureWorkspace(std::size_t bytes);
    /// One force pass of row k with arguments `a` as `slices` launches over the bodies i.
    static void launchForces(const KernelInfo& k, DeviceForceArgs a, int slices);
    /// f's arguments bound to this state: positions `current`, accelerations, workspace.
    DeviceForceArgs forceArgs(const ForceLaunch& f, int current);
    /// Captures what `emit` enqueues from buffer `current` into m_graphs[current]; false on failure.
    bool captureStep(const StepConfig& c, int current, const EmitStep& emit);
    void dropGraphs() noexcept;

    std::size_t m_n = 0;
    Layout m_layout;
    PositionStorage m_storage;
    bool m_ownsPositions = true;
    void* m_owned[2] = {nullptr, nullptr};
    void* m_pos[2] = {nullptr, nullptr};     ///< positions in the layout's type
    Float4* m_drawn[2] = {nullptr, nullptr}; ///< Double4 + External: the attached float4 buffers
    void* m_vel = nullptr;
    void* m_acc = nullptr;
    void* m_workspace = nullptr;
    std::size_t m_workspaceBytes = 0;
    void* m_stepEvents[2] = {nullptr, nullptr}; ///< cudaEvent_t: markStepsStart / stepsElapsedMs
    float* m_radius = nullptr;     ///< N radii (uploadRadius)
    Float4* m_narrowed = nullptr;  ///< Double4 layout: float4 positions for contactPositions()
    int* m_flag = nullptr; ///< one int for firstNonFinite()
    // Block time steps (allocated by ensureLevels at the first use):
    std::uint8_t* m_levels = nullptr; ///< N levels
    std::uint32_t* m_rows = nullptr;  ///< the active set: m_activeCount ascending row indices
    double* m_steps = nullptr;        ///< N criterion steps
    int* m_selected = nullptr;        ///< the size DeviceSelect::If writes, then the histogram's 31 counts
    void* m_levelTemp = nullptr;      ///< CUB's temporary storage for the select and the histogram
    std::size_t m_levelTempBytes = 0;
    std::size_t m_activeCount = 0;
    void ensureLevels();
    /// CUB's temporary storage of at least `bytes` (grown, never shrunk).
    void ensureLevelTemp(std::size_t bytes);
    int* m_flagHost = nullptr; ///< its pinned host copy

    std::uint64_t m_workspaceGeneration = 0; ///< bumped when the workspace is reallocated
    StepConfig m_stepConfig;     ///< the configuration the graphs below were captured for
    bool m_warm = false;         ///< a plain step of m_stepConfig has run
    bool m_captureFailed = false; ///< capturing m_stepConfig failed: plain launches
    void* m_graphs[2] = {nullptr, nullptr}; ///< cudaGraphExec_t per start buffer
    void* m_stream = nullptr;    ///< cudaStream_t the graphs are captured from (non-blocking; created at the first capture)
    GraphStats m_graphStats;
    // The pipelined exchange (markForceChunk): events per chunk, the copy stream, the stage.
    std::vector<void*> m_chunkComputed; ///< cudaEvent_t per chunk: its launches done (default stream)
    std::vector<void*> m_chunkCopied;   ///< cudaEvent_t per chunk: its copy to the host done
    void* m_copyStream = nullptr;       ///< cudaStream_t, non-blocking (no sync with stream 0)
    void* m_pinned = nullptr;
    std::size_t m_pinnedBytes = 0;
};

} // namespace nbody
