#pragma once
/// \file Simulation.h
/// The simulation pipeline: a World, the selected force kernel and the systems that advance it.
///
/// One step is KDK leapfrog (not the predecessor's half kick a step), as a fixed order of systems:
///
///     gravity   a_n = F(x_n)            (only when the accelerations are stale: the first step,
///                                        after a load, an edit or a parameter change)
///     integrate v += ½ a_n dt;  x_{n+1} = x_n + v dt;  a_{n+1} = F(x_{n+1});  v += ½ a_{n+1} dt
///               (SimParams::integrator: one such substep of dt for `leapfrog`, a composition of
///               substeps w_i·dt for higher orders, see Integrators.h)
///     collisions (SimParams::collisions): touching pairs found by the contact search
///               (contactSearch()) merge (sim/collide/CollisionSystem.h); N shrinks, accelerations
///               become stale, and the device state follows (one step per call on the GPU)
///     diagnostics (every SimParams::diagnosticsInterval steps)
///
/// CPU kernels advance the host World. CUDA kernels advance a device copy: positions in two
/// buffers used ping-pong (the drift reads one and writes the other), velocities and
/// accelerations in device columns, in the kernel's layout (float4, float3, double4). Positions
/// can live in buffers the caller provides (OpenGL buffers mapped for CUDA, see
/// attachDevicePositions) so they never cross to the host. With SimParams::cudaGraphs (the
/// default) a step's launches are captured once into a CUDA graph and replayed, one launch per
/// step (DeviceState::step: warm-up, capture, replay, re-capture on any change; bit-identical).
///
/// fp64 kernels (Layout::Double4) advance an fp64 copy of the state (Fp64State: on the host for
/// `reference`, on the device for CUDA rows); the World's fp32 columns then hold its rounding,
/// refreshed when world() is read, and attached buffers receive a float4 copy after each step.
/// Selecting an fp64 kernel widens the fp32 state exactly; leaving it rounds to nearest.

#include "sim/collide/Collisions.h"
#include "sim/core/BlockSteps.h"
#include "contracts/DeviceTypes.h"
#include "sim/core/Diagnostics.h"
#include "sim/core/ForceShare.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/SimParams.h"
#include "contracts/World.h"

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nbody {

/// Timing of the last call to step().
struct StepTiming {
    int steps = 0;                    ///< steps in the call
    double msPerStep = 0.0;           ///< time per step, ms: the GPU's (CUDA events from before the first
                                      ///< step's work to after the last, launch gaps included) for CUDA
                                      ///< kernels, the wall clock for CPU kernels
    double interactionsPerSecond = 0; ///< N² per step over msPerStep (as NVIDIA's nbody sample counts)
};

class DeviceState;  // kernels/: the device columns (opaque here)
class StateBackend; // Stepper.h

class Simulation {
public:
    /// Takes the initial system. Throws std::invalid_argument for an empty or invalid world or
    /// invalid parameters, and the errors of setKernel().
    explicit Simulation(World world, SimParams params = {}, std::string_view kernelId = "cpu");
    /// The same with the exact fp64 initial state of the system (N Double4 positions + mass and
    /// velocities; `world` holds its rounding), used instead of widening the World whenever an
    /// fp64 kernel takes the state before the first step (solar system, test orbits). Ignored by
    /// fp32 kernels. Throws std::invalid_argument as above, and when its size does not match the
    /// World's or a value is not finite.
    Simulation(World world, std::optional<Fp64State> exact, SimParams params, std::string_view kernelId);
    ~Simulation();
    Simulation(const Simulation&) = delete;
    Simulation& operator=(const Simulation&) = delete;

    /// Advances `count` steps with the selected kernel. Throws CudaError when the GPU fails
    /// (the host World then still holds the state of the last synchronisation: see
    /// fallBackToCpu()), std::logic_error when positions are External and not attached.
    void step(int count = 1);

    /// The gravity system alone: evaluates the accelerations of the current positions with the
    /// selected kernel (no step is taken). Read them from world().accelerations() (fp32) or
    /// accelerations64() (the kernel's precision).
    void computeAccelerations();
    /// computeAccelerations() timed: milliseconds of the force evaluation alone, measured with
    /// CUDA events around the launch(es) for CUDA kernels and with the wall clock on the CPU.
    /// With a force share (setForceShare) the wall clock around this process's rows and the
    /// exchange that assembles all of them, for CUDA kernels too: the time of one shared evaluation.
    double timedForceEvaluation();
    /// The current accelerations in the selected kernel's precision, widened exactly to fp64:
    /// N Double4 (ax, ay, az, 0). Synchronises first.
    std::vector<Double4> accelerations64();
    /// The whole state (positions with masses, velocities, accelerations) in the selected
    /// kernel's precision widened exactly to fp64: N Double4 each. Synchronises first.
    Fp64State state64();

    /// Selects a kernel by id; the state carries over (host ↔ device as needed). Throws
    /// std::invalid_argument for an unknown id or a kernel unavailable here (message says why),
    /// or when the kernel refuses the current parameters (message names the limit). With a force
    /// accuracy set (SimParams::forceAccuracy) a tree row's θ becomes the one its calibration
    /// picks (withForceAccuracy, ForceAccuracy.h; a target it cannot reach is refused).
    void setKernel(std::string_view id);
    /// The same for a row given directly (a registry row, or a test-only row with the same
    /// contract); the row must outlive the Simulation or its next setKernel().
    void setKernel(const KernelInfo& row);
    const KernelInfo& kernel() const { return *m_kernel; }

    /// Replaces the parameters (validated as in the constructor: an unknown `integrator` is a
    /// std::invalid_argument naming the known ones); accelerations become stale. With a force
    /// accuracy set, the running tree row's θ is the calibrated one, not params.openingAngle.
    void setParams(const SimParams& params);
    /// The parameters in use (after withForceAccuracy: the θ the running row uses).
    const SimParams& params() const { return m_params; }

    /// Replaces the system (a reset or a loaded file). With an fp64 kernel the state is `exact`
    /// when given (see the constructor), else widened from the World's fp32 columns. Throws
    /// std::invalid_argument when invalid; the current system is kept then. With a CUDA kernel
    /// and External buffers attached, the new state is uploaded into them at once (CudaError
    /// when that fails).
    void setWorld(World world, std::optional<Fp64State> exact = std::nullopt);

    /// The host copy of the system, synchronised first when a CUDA kernel holds the state; with
    /// an fp64 kernel, its fp32 columns are the fp64 state rounded to nearest.
    const World& world();
    std::size_t size() const { return m_world.size(); }
    double time() const { return m_world.time; }
    std::uint64_t stepCount() const { return m_world.step; }
    const StepTiming& lastTiming() const { return m_timing; }
    /// How the device state's steps were launched since it was created (zeros for CPU kernels).
    GraphStats graphStats() const;
    /// Full copies of the device state to the host (syncHost: all N positions, velocities and
    /// accelerations, 48 B a body in fp32, 96 B in fp64) since the Simulation was made; what
    /// world(), state64(), a CPU contact search or a kernel switch cost with a CUDA kernel. 0 for
    /// CPU kernels. A cheap counter for tests that a per-frame path reads no more than it needs.
    std::uint64_t fullDownloads() const { return m_fullDownloads; }
    /// Body-force evaluations since the Simulation was made: the rows of every force evaluation
    /// (N for a full one, the active rows of a block-step substep), the cost measure at which
    /// fixed and block time steps are compared.
    std::uint64_t bodyForceEvaluations() const { return m_bodyForces; }
    /// Block time steps (SimParams::timestep "block", BlockSteps.h): the bodies' levels after the
    /// last step and the histogram of the levels it started with (empty before the first step
    /// and with fixed steps).
    const BlockLevels& blockLevels() const { return m_levels; }

    /// Body `index`'s position (with its mass) and velocity now, in the selected kernel's precision
    /// widened exactly to fp64 (rounded to fp32 they are world()'s row). Reads that row alone: with
    /// a CUDA kernel holding a newer state, one position and one velocity are copied from the
    /// device (2 × 16 B, 48 B for fp64; synchronous), with no full download (fullDownloads()
    /// stays) and the host copy left as it is; otherwise the host's row (the fp64 state for
    /// `reference`). With External storage the fp32 layouts read the attached buffers, so they
    /// must be attached as for world(); the fp64 layout keeps its positions in buffers of its own
    /// and needs none. Throws std::out_of_range for index >= size(), std::logic_error when the
    /// positions are in External buffers that are not attached, CudaError.
    BodyState body(BodyIndex index);
    /// The bodies' stable ids (World::ids) in index order, without synchronising: ids live on the
    /// host only (merges and edits change them there), so findBodyById over them costs no copy
    /// of the device state. Valid until the next step(), setWorld() or kernel switch.
    std::span<const std::uint32_t> ids() const { return m_world.ids(); }

    /// "" when every position, mass and velocity is finite, else a message naming the first bad
    /// body ("body 17: position, mass or velocity is not finite"). On the device it reads 4
    /// bytes back, not the state. A system that blew up (dt far too large) stays non-finite.
    /// "Finite" means finite in fp32, the precision of world(), of drawn buffers and of saved
    /// files: an fp64 state beyond fp32's range (3.4e38) counts as blown up.
    std::string checkFinite();

    /// Evaluates the diagnostics now (fp64 sums; see Diagnostics.h): on the device when a CUDA
    /// kernel holds the state and its positions are reachable (96 bytes copied back, the host
    /// copy is not refreshed), else on the host (O(N²), OpenMP; synchronises first).
    /// energyChange is relative to initialDiagnostics() when there is one. Throws CudaError, and
    /// std::logic_error when the newer state is in External buffers that are not attached.
    Diagnostics measure();
    /// The first and the latest automatic evaluations (diagnosticsInterval > 0). The first is
    /// taken by the first step() after the system or G / ε² changed, before it steps.
    const std::optional<Diagnostics>& initialDiagnostics() const { return m_initialDiagnostics; }
    const std::optional<Diagnostics>& latestDiagnostics() const { return m_latestDiagnostics; }
    /// How many times the reference of energyChange was discarded (E₀ re-based): by setWorld,
    /// and by setParams when G or ε² change (energies with other G / ε² are not comparable).
    /// A caller compares it before and after a change to learn whether E₀ will be taken again.
    std::uint64_t energyReferenceResets() const { return m_energyReferenceResets; }
    /// Called with every automatic evaluation (the first one and then one every
    /// diagnosticsInterval steps), on the thread that calls step(); empty: none.
    void setDiagnosticsObserver(std::function<void(const Diagnostics&)> observer)
    {
        m_diagnosticsObserver = std::move(observer);
    }

    // ---- positions in caller-provided device buffers (CUDA-GL interop) ----
    /// Chooses where device positions live. External: the caller attaches two device buffers
    /// of at least size() Float4 each around every call that touches the device state (step,
    /// world, measure, setKernel, setWorld). Switching storage moves the state through the host;
    /// switching to External with buffers attached and a CUDA kernel selected uploads the state
    /// into them at once, so they hold the current positions even before the next step.
    void setPositionStorage(PositionStorage s);
    PositionStorage positionStorage() const { return m_storage; }
    /// Provides the two device buffers, each holding `capacity` Float4 (valid until detach).
    /// Throws std::logic_error for null or equal pointers. A device operation on a system larger
    /// than `capacity` throws std::logic_error instead of writing past the buffers.
    void attachDevicePositions(Float4* buffer0, Float4* buffer1, std::size_t capacity);
    void detachDevicePositions();
    /// External storage whose buffers can no longer be attached (the interop's map failed):
    /// the current positions (N Float4, read back from the GL buffer that holds them) move into
    /// device buffers the simulation owns, and the storage becomes Owned; the run goes on on the
    /// GPU without a step lost. With Owned storage or a CPU kernel it only selects Owned storage.
    /// Throws std::invalid_argument for a wrong size, CudaError.
    void adoptDevicePositions(const std::vector<Float4>& positions);
    /// Index (0 or 1) of the buffer holding the current positions.
    int currentBuffer() const { return m_current; }
    /// True while the state lives on the device (a CUDA kernel is selected).
    bool deviceResident() const;

    // ---- several processes (src/mpi/Distributed.h) ----
    /// Shares the gravity system with other processes (ForceShare.h): from now on this process
    /// computes the accelerations of share->rows(N) only and share->gather() assembles the whole
    /// column after every force evaluation, host-staged or (CUDA-aware) from device memory; CUDA
    /// steps then run as plain launches (no CUDA graph: the gather sits between the force
    /// evaluation and the closing kick). Host diagnostics sum this process's rows and
    /// share->reduce() adds them up (fp64); device diagnostics measure the whole state, which is
    /// the same on every process. nullptr (the default): every row here. The share is not owned
    /// and must outlive its use; every process must then call step(), measure() and
    /// computeAccelerations() alike (they are collective). Accelerations become stale.
    void setForceShare(ForceShare* share);
    ForceShare* forceShare() const { return m_share; }

    /// Every merge the collision system applied since the system was set (constructor, setWorld),
    /// in the order applied (SimParams::collisions; sim/collide/Collisions.h). Bodies keep their ids, so
    /// a selection by id follows a merged body to its survivor through these records.
    const std::vector<MergeRecord>& mergeLog() const { return m_mergeLog; }
    /// Energy the merges removed since the system was set (Diagnostics::energyLost).
    double energyLost() const { return m_energyLost; }
    /// The contact-search row the collision system uses now: SimParams::contactSearch, or for
    /// "auto" a CUDA row while a CUDA kernel holds the state (the cell list from 512 bodies),
    /// else `cpu-cells` from 512 bodies and `cpu-pairs` below. A CPU row with a CUDA kernel
    /// searches the host copy (copied back each step); a CUDA row with a CPU kernel is refused
    /// when the system steps (std::invalid_argument).
    const ContactSearchInfo& contactSearch() const;

    /// After a CudaError (a fault during step(), measure(), world() …): drops the device state
    /// and keeps the host copy — the device state itself when it can still be read, else the
    /// state of the last host synchronisation (every SimParams::hostCopyInterval steps while
    /// stepping, and whenever the host read it), with time and step set back to it. The kernel
    /// stays selected: the next device operation starts a new device state from the host copy
    /// (and fails again if the context is lost). When the error was sticky (the CUDA context is
    /// lost, DeviceState::stickyError) it calls markCudaContextLost(), so every CUDA row becomes
    /// unavailable. It never uses the context again otherwise, and does not reset it (other
    /// owners — GL buffers registered with CUDA, a validation run — may still hold it).
    /// Returns the steps lost (the step reached minus the step of the state kept). Never throws.
    std::uint64_t abandonDeviceState() noexcept;
    /// abandonDeviceState(), then selects the `cpu` kernel (an fp64 state is rounded to fp32).
    /// Never throws.
    void fallBackToCpu();
    /// Step of the last host copy of the state (see abandonDeviceState()).
    std::uint64_t hostCopyStep() const { return m_synced.step; }

private:
    void validateOrThrow(const World& w, const SimParams& p) const;
    static void validateExact(const World& w, const std::optional<Fp64State>& exact);
    bool fp64State() const;
    void narrowIfStale();
    /// Before a read of the device state: the attached External buffers handed to the device
    /// state; std::logic_error when they are needed and not attached (`detachedFp64Allowed`:
    /// the fp64 layout, whose positions are its own, may read without them).
    void attachForRead(bool detachedFp64Allowed);
    void syncHost();
    void ensureDevice();
    bool devicePositionsAvailable() const;
    void runDiagnosticsSystem();
    bool collisionSystem(); ///< true when bodies merged (the host then holds the newer state)
    RowRange forceRows() const;
    /// The force exchange's chunks for this evaluation (SimParams::exchangeChunks, auto:
    /// exchangeChunksFor over the smallest share, N / P rows); 1 without a share.
    int exchangeChunks() const;

    // ---- the stepper (Stepper.cpp) ----
    template <class T, class V>
    class HostBackend;    ///< the host's columns: fp32 (the World) or fp64 (m_state64)
    class DeviceBackend;  ///< the device state of a CUDA kernel
    class SharedForces;   ///< decorator: the force evaluation shared with other processes
    /// The backend of the selected kernel, decorated with the force share when there is one.
    std::unique_ptr<StateBackend> backend();
    /// The one step loop: up to `count` steps, fewer when a merge changed N (the call ends there
    /// so the next one starts with a state of the new size); adds the steps' milliseconds to ms.
    int advance(int count, double& ms);

    World m_world;
    SimParams m_params;
    const KernelInfo* m_kernel = nullptr;
    PositionStorage m_storage = PositionStorage::Owned;
    std::unique_ptr<DeviceState> m_device; ///< non-null while a CUDA kernel is selected
    bool m_hostStale = false;   ///< the device holds a newer state than m_world
    bool m_deviceStale = true;  ///< the host state is newer than the device state
    Fp64State m_state64;        ///< fp64 kernels: the host state (the World holds its rounding)
    std::optional<Fp64State> m_exact64; ///< the exact initial state given with the system, until the first step
    bool m_worldStale = false;  ///< m_state64 is newer than the World's fp32 columns
    int m_current = 0;
    Float4* m_attached[2] = {nullptr, nullptr};
    std::size_t m_attachedCapacity = 0;
    struct SyncPoint { double time = 0; std::uint64_t step = 0; };
    SyncPoint m_synced; ///< time and step of the host copy's state (for fallBackToCpu)
    StepTiming m_timing;
    std::optional<Diagnostics> m_initialDiagnostics;
    std::optional<Diagnostics> m_latestDiagnostics;
    std::uint64_t m_energyReferenceResets = 0; ///< see energyReferenceResets()
    std::function<void(const Diagnostics&)> m_diagnosticsObserver;
    std::vector<MergeRecord> m_mergeLog;     ///< see mergeLog()
    double m_energyLost = 0;                 ///< see energyLost()
    ForceShare* m_share = nullptr;           ///< other processes' rows (nullptr: all rows here)
    std::uint64_t m_fullDownloads = 0;       ///< see fullDownloads()
    std::uint64_t m_bodyForces = 0;          ///< see bodyForceEvaluations()
    BlockLevels m_levels;                    ///< see blockLevels()
};

/// Evaluates the accelerations of `world` once with kernel `kernelId` on a copy, in the kernel's
/// precision widened to fp64 (N Double4: ax, ay, az, 0). Throws as Simulation's constructor and
/// step() do.
std::vector<Double4> evaluateAccelerations(std::string_view kernelId, const World& world, const SimParams& params);
/// The same for the bodies [iBegin, iEnd) only (each over all N, the force contract's i-range):
/// N Double4 whose rows [iBegin, iEnd) are bit for bit those of evaluateAccelerations with a
/// deterministic kernel and whose other rows are left as a new system has them (0: the kernel
/// wrote nothing there). Throws std::invalid_argument for a range outside the N bodies, and as above.
std::vector<Double4> evaluateAccelerationRows(std::string_view kernelId, const World& world, const SimParams& params,
                                              std::size_t iBegin, std::size_t iEnd);

} // namespace nbody
