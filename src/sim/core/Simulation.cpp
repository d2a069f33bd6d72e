#include "sim/core/Simulation.h"
#include "sim/core/ForceAccuracy.h"
#include "sim/collide/CollisionSystem.h"
#include "contracts/Errors.h"
#include "sim/core/MemoryBudget.h"
#include "sim/core/ParamTable.h"
#include "sim/core/Integrators.h"
#include "sim/base/Parallel.h"
#include "sim/base/Registry.h"
#include "sim/core/Scenario.h"

#if NBODY_HAVE_CUDA
#include "kernels/DeviceState.h"
#else
namespace nbody {
// CPU-only build: CUDA kernels are never available, so no device state is ever created.
class DeviceState {};
} // namespace nbody
#endif

#include <cstdio>
#include <cmath>
#include <span>
#include <string>

namespace nbody {

namespace {

std::string knownKernelIds()
{
    std::string s;
    for (const KernelInfo& k : kernelRegistry())
        s += (s.empty() ? "" : ", ") + std::string(k.id);
    return s;
}

/// Every row of the parameter table (ParamTable.h: its range and checks, with the row's
/// message), then the combinations no row can judge alone.
void validateParams(const SimParams& p)
{
    if (const std::string why = paramsProblem(p); !why.empty())
        throw std::invalid_argument(why);
    if (const std::string why = reverseProblem(p); !why.empty())
        throw std::invalid_argument(why);
}

/// The cell list wins over all pairs from about this many bodies on the CPU (N²/2 tests against
/// a sort and 27 cells per body).
constexpr std::size_t kCellsFrom = 512;

/// The one refusal of collisions in a distributed run. Both ways the combination can arise
/// (collisions turned on with a share: setParams; a share set with collisions on:
/// setForceShare) call it, so no step can see it.
void refuseDistributedCollisions(const SimParams& p, const ForceShare* share)
{
    if (p.collisions && share)
        throw std::invalid_argument("collisions are not supported in a distributed run (mpirun): merges change N, "
                                    "and every process would have to apply the same merges to its copy and "
                                    "re-split the rows");
}

/// The one refusal of block time steps where the state backend has no active-row operations
/// (Stepper.h): a distributed run (the force share exchanges whole columns).
void refuseBlockSteps(const SimParams& p, const ForceShare* share)
{
    if (!blockSteps(p))
        return;
    if (share)
        throw std::invalid_argument("block time steps are not supported in a distributed run (mpirun): the force "
                                    "share exchanges every row after each evaluation");
}

/// Refuses parameters a CUDA kernel cannot launch with (message names the limit).
void checkLaunchable(const KernelInfo& k, const SimParams& p, std::size_t n)
{
    if (k.backend != Backend::Cuda || !k.check)
        return;
    if (const std::string why = k.check(deviceForceArgs(k, p, n)); !why.empty())
        throw std::invalid_argument("kernel '" + std::string(k.id) + "': " + why);
}

} // namespace

Simulation::Simulation(World world, SimParams params, std::string_view kernelId)
    : Simulation(std::move(world), std::nullopt, std::move(params), kernelId)
{
}

Simulation::Simulation(World world, std::optional<Fp64State> exact, SimParams params, std::string_view kernelId)
{
    validateOrThrow(world, params);
    validateExact(world, exact);
    m_exact64 = std::move(exact);
    if (m_exact64)
        m_exact64->acceleration.assign(m_exact64->size(), Double4{});
    m_world = std::move(world);
    m_world.accelerationsValid = false;
    m_params = params;
    m_kernel = findKernel("cpu");
    setKernel(kernelId);
}

Simulation::~Simulation() = default;

void Simulation::validateOrThrow(const World& w, const SimParams& p) const
{
    if (w.empty())
        throw std::invalid_argument("the system has no bodies (N = 0)");
    if (w.size() > kMaxBodies)
        throw std::invalid_argument("the system has " + std::to_string(w.size()) + " bodies, above the limit of " +
                                    std::to_string(kMaxBodies));
    if (const std::string why = w.validate(); !why.empty())
        throw std::invalid_argument("invalid system: " + why);
    validateParams(p);
}

void Simulation::validateExact(const World& w, const std::optional<Fp64State>& exact)
{
    if (!exact)
        return;
    if (exact->position.size() != w.size() || exact->velocity.size() != w.size())
        throw std::invalid_argument("the fp64 initial state has " + std::to_string(exact->position.size()) +
                                    " positions and " + std::to_string(exact->velocity.size()) +
                                    " velocities for a system of " + std::to_string(w.size()) + " bodies");
    for (std::size_t i = 0; i < w.size(); ++i) {
        const Double4& x = exact->position[i];
        const Double4& v = exact->velocity[i];
        if (!std::isfinite(x.x) || !std::isfinite(x.y) || !std::isfinite(x.z) || !std::isfinite(x.w) ||
            !(x.w >= 0) || !std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z))
            throw std::invalid_argument("the fp64 initial state of body " + std::to_string(i) +
                                        " is not finite or has a negative mass");
    }
}

bool Simulation::deviceResident() const
{
    return m_kernel->backend == Backend::Cuda;
}

bool Simulation::fp64State() const
{
    return m_kernel->layout == Layout::Double4;
}

void Simulation::narrowIfStale()
{
    if (m_worldStale) {
        narrowInto(m_state64, m_world);
        m_worldStale = false;
    }
}

// ---- device state management ------------------------------------------------------------

#if NBODY_HAVE_CUDA
bool Simulation::devicePositionsAvailable() const
{
    return m_storage == PositionStorage::Owned || (m_attached[0] && m_attached[1]);
}

void Simulation::ensureDevice()
{
    // A lost context is not used again (abandonDeviceState): the CUDA rows are unavailable.
    if (const std::string lost = cudaContextLost(); !lost.empty())
        throw CudaError("the CUDA context was lost after a GPU fault (" + lost + "); kernel '" +
                        std::string(m_kernel->id) + "' cannot run until the program restarts");
    if (m_storage == PositionStorage::External && !(m_attached[0] && m_attached[1]))
        throw std::logic_error("the device positions live in external buffers that are not attached");
    if (m_storage == PositionStorage::External && m_world.size() > m_attachedCapacity)
        throw std::logic_error("the attached position buffers hold " + std::to_string(m_attachedCapacity) +
                               " bodies; the system has " + std::to_string(m_world.size()));
    if (!m_device || m_device->size() != m_world.size() || m_device->storage() != m_storage ||
        m_device->layout() != m_kernel->layout) {
        m_device.reset();
        m_device = std::make_unique<DeviceState>(m_world.size(), m_kernel->layout, m_storage);
        m_deviceStale = true;
    }
    if (m_storage == PositionStorage::External)
        m_device->attach(m_attached[0], m_attached[1]);
    if (m_deviceStale) {
        if (fp64State())
            m_device->upload(m_state64, m_current);
        else
            m_device->upload(m_world, m_current);
        m_device->uploadRadius(m_world.radii()); // for contact searches on the device
        m_deviceStale = false;
        m_hostStale = false;
    }
}

void Simulation::attachForRead(bool detachedFp64Allowed)
{
    if (!devicePositionsAvailable()) {
        if (detachedFp64Allowed && m_device->layout() == Layout::Double4)
            return; // the fp64 layout keeps positions of its own even with External storage
        throw std::logic_error("the device positions live in external buffers that are not attached");
    }
    if (m_storage == PositionStorage::External)
        m_device->attach(m_attached[0], m_attached[1]);
}

void Simulation::syncHost()
{
    if (!m_hostStale || !m_device)
        return;
    attachForRead(false);
    ++m_fullDownloads; // counted before the copies: a download that fails still tried
    if (m_device->layout() == Layout::Double4) {
        m_device->download(m_state64, m_current);
        m_worldStale = true;
    } else {
        m_device->download(m_world, m_current);
    }
    m_hostStale = false;
    m_synced = {m_world.time, m_world.step};
}
#else
bool Simulation::devicePositionsAvailable() const { return false; }
void Simulation::ensureDevice() { throw std::logic_error("built without CUDA"); }
void Simulation::syncHost() {}
#endif

// ---- public API ----------------------------------------------------------------------------

void Simulation::setKernel(std::string_view id)
{
    const KernelInfo* k = findKernel(id);
    if (!k)
        throw std::invalid_argument("unknown kernel '" + std::string(id) + "' (known: " + knownKernelIds() + ")");
    setKernel(*k);
}

void Simulation::setKernel(const KernelInfo& row)
{
    const KernelInfo* k = &row;
    if (const Availability a = availability(*k); !a.available)
        throw std::invalid_argument("kernel '" + std::string(k->id) + "' is not available here: " + a.reason);
    // A force accuracy picks this row's θ (ForceAccuracy.h); refused here, before anything changes.
    const SimParams params = withForceAccuracy(*k, m_params, m_world.size());
    refuseBlockSteps(params, m_share);
    checkLaunchable(*k, params, m_world.size());
    const KernelInfo* old = m_kernel;
    const bool keepDevice = deviceResident() && k->backend == Backend::Cuda && k->layout == old->layout;
    if (k != old) // the row's workspace (a CPU tree, an fp64 state, its device state …) before it is allocated
        checkWorkspace(m_world.size(), *k, params, keepDevice);

    if (deviceResident() && !keepDevice) {
        syncHost(); // may throw: then the old kernel stays selected
        m_device.reset();
        m_deviceStale = true;
    }
    // The state changes precision with the kernel: fp32 → fp64 widens exactly, fp64 → fp32
    // rounds to nearest.
    const bool wasFp64 = old->layout == Layout::Double4;
    const bool isFp64 = k->layout == Layout::Double4;
    if (wasFp64 && !isFp64) {
        narrowIfStale();
        m_state64 = {};
    } else if (!wasFp64 && isFp64) {
        m_state64 = m_exact64 ? *m_exact64 : widen(m_world); // the exact initial state, while untouched
        m_worldStale = false;
    }
    m_kernel = k;
    m_params = params;
    if (k->backend == Backend::Cuda && !keepDevice) {
        m_deviceStale = true;
        if (devicePositionsAvailable())
            ensureDevice(); // allocate and upload now, so failures show at selection time
    }
}

void Simulation::setParams(const SimParams& given)
{
    validateParams(given);
    // A force accuracy picks the running row's θ (ForceAccuracy.h): the θ given is replaced.
    const SimParams params = withForceAccuracy(*m_kernel, given, m_world.size());
    refuseDistributedCollisions(params, m_share);
    refuseBlockSteps(params, m_share);
    checkLaunchable(*m_kernel, params, m_world.size());
    if (params.G != m_params.G || params.eps2 != m_params.eps2) {
        m_world.accelerationsValid = false; // the forces change; dt alone does not change them
        m_initialDiagnostics.reset();       // energies with other G / ε² are not comparable
        m_latestDiagnostics.reset();
        ++m_energyReferenceResets;
    }
    m_params = params;
}

void Simulation::setWorld(World world, std::optional<Fp64State> exact)
{
    validateOrThrow(world, m_params);
    validateExact(world, exact);
    // A force accuracy's θ and α come from the tables of the new N (ForceAccuracy.h).
    const SimParams params = withForceAccuracy(*m_kernel, m_params, world.size());
    m_params = params;
    m_exact64 = std::move(exact);
    if (m_exact64)
        m_exact64->acceleration.assign(m_exact64->size(), Double4{});
    m_world = std::move(world);
    m_world.accelerationsValid = false;
    if (fp64State())
        m_state64 = m_exact64 ? *m_exact64 : widen(m_world);
    m_worldStale = false;
    m_hostStale = false;
    m_deviceStale = true;
    m_current = 0;
    m_synced = {m_world.time, m_world.step};
    m_initialDiagnostics.reset();
    m_latestDiagnostics.reset();
    ++m_energyReferenceResets;
    m_timing = {};
    m_mergeLog.clear();
    m_energyLost = 0;
    if (deviceResident() && m_storage == PositionStorage::External && devicePositionsAvailable())
        ensureDevice(); // the attached buffers are what gets drawn: they hold the new system now
}

const World& Simulation::world()
{
    syncHost();
    narrowIfStale();
    return m_world;
}

BodyState Simulation::body(BodyIndex index)
{
    if (index >= m_world.size())
        throw std::out_of_range("body " + std::to_string(index) + " of a system of " +
                                std::to_string(m_world.size()) + " bodies");
#if NBODY_HAVE_CUDA
    if (deviceResident() && m_hostStale && m_device) {
        // The device holds the newer state: its row alone. The fp64 layout owns its positions
        // even with External storage; the fp32 layouts read the attached buffers (as syncHost).
        attachForRead(true);
        return m_device->downloadBody(index, m_current);
    }
#endif
    if (fp64State()) // m_state64 is current (the World's fp32 columns may be stale)
        return {m_state64.position[index], m_state64.velocity[index]};
    const Float4& x = m_world.positions()[index];
    const Float4& v = m_world.velocities()[index];
    return {Double4{x.x, x.y, x.z, x.w}, Double4{v.x, v.y, v.z, 0}};
}

std::string Simulation::checkFinite()
{
#if NBODY_HAVE_CUDA
    if (deviceResident() && m_hostStale) {
        ensureDevice();
        const long long i = m_device->firstNonFinite(m_current);
        return i < 0 ? std::string() : "body " + std::to_string(i) + ": position, mass or velocity is not finite";
    }
#endif
    return world().validate();
}

Diagnostics Simulation::measure()
{
    Diagnostics d;
    if (m_share && !deviceResident()) {
        // This process's rows, summed over the processes (fp64).
        syncHost();
        const RowRange rows = forceRows();
        DiagnosticSums s = fp64State() ? measureSums(m_state64.position, m_state64.velocity, m_params.eps2,
                                                     rows.begin, rows.end)
                                       : measureSums(m_world.positions(), m_world.velocities(), m_params.eps2,
                                                     rows.begin, rows.end);
        m_share->reduce(s);
        d = finishDiagnostics(s, m_params.G);
        d.time = m_world.time;
        d.step = m_world.step;
    } else if (deviceResident() && devicePositionsAvailable()) {
#if NBODY_HAVE_CUDA
        ensureDevice();
        d = finishDiagnostics(m_device->measure(m_current, m_params.eps2), m_params.G);
        d.time = m_world.time;
        d.step = m_world.step;
#endif
    } else if (syncHost(); fp64State()) {
        d = measureDiagnostics(m_state64, m_world.time, m_world.step, m_params.G, m_params.eps2);
    } else {
        d = measureDiagnostics(m_world, m_params.G, m_params.eps2);
    }
    d.energyLost = m_energyLost;
    if (m_initialDiagnostics)
        d.energyChange = relativeEnergyChange(*m_initialDiagnostics, d);
    return d;
}

void Simulation::setPositionStorage(PositionStorage s)
{
    if (s == m_storage)
        return;
    if (m_device) {
        syncHost();
        m_device.reset();
    }
    m_deviceStale = true;
    m_storage = s;
    if (deviceResident() && m_storage == PositionStorage::External && devicePositionsAvailable())
        ensureDevice(); // move the state into the attached buffers now, not at the next step
}

void Simulation::attachDevicePositions(Float4* buffer0, Float4* buffer1, std::size_t capacity)
{
    if (!buffer0 || !buffer1 || buffer0 == buffer1)
        throw std::logic_error("attachDevicePositions: two distinct non-null buffers are required");
    m_attached[0] = buffer0;
    m_attached[1] = buffer1;
    m_attachedCapacity = capacity;
}

void Simulation::adoptDevicePositions(const std::vector<Float4>& positions)
{
    if (positions.size() != m_world.size())
        throw std::invalid_argument("adoptDevicePositions: " + std::to_string(positions.size()) +
                                    " positions for a system of " + std::to_string(m_world.size()));
#if NBODY_HAVE_CUDA
    if (m_device && m_storage == PositionStorage::External)
        m_device->ownPositions(positions.data(), m_current);
#endif
    m_attached[0] = m_attached[1] = nullptr;
    m_attachedCapacity = 0;
    m_storage = PositionStorage::Owned;
}

void Simulation::detachDevicePositions()
{
    m_attached[0] = m_attached[1] = nullptr;
    m_attachedCapacity = 0;
#if NBODY_HAVE_CUDA
    if (m_device)
        m_device->detach();
#endif
}

std::uint64_t Simulation::abandonDeviceState() noexcept
{
    const std::uint64_t reached = m_world.step;
    if (m_device && m_hostStale) {
        try {
            syncHost();
        } catch (...) {
            // The device state cannot be read: keep the host copy of the last synchronisation
            // (syncHost copies positions first, and a failed copy writes nothing: the first copy
            // waits for the steps, so their fault fails it before any byte arrives).
            m_world.time = m_synced.time;
            m_world.step = m_synced.step;
        }
    }
    m_hostStale = false;
    m_deviceStale = true;
    m_world.accelerationsValid = false;
    try {
        m_device.reset(); // frees with cudaFree, which only reports a lost context
    } catch (...) {
    }
#if NBODY_HAVE_CUDA
    try {
        if (deviceResident())
            if (const std::string sticky = DeviceState::stickyError(); !sticky.empty())
                markCudaContextLost(sticky);
    } catch (...) {
    }
#endif
    m_timing = {};
    return reached > m_world.step ? reached - m_world.step : 0;
}

void Simulation::fallBackToCpu()
{
    abandonDeviceState();
    if (fp64State())
        narrowIfStale();
    m_state64 = {};
    m_worldStale = false;
    m_kernel = findKernel("cpu");
}

GraphStats Simulation::graphStats() const
{
#if NBODY_HAVE_CUDA
    if (m_device)
        return m_device->graphStats();
#endif
    return {};
}

void Simulation::setForceShare(ForceShare* share)
{
    refuseDistributedCollisions(m_params, share);
    refuseBlockSteps(m_params, share);
    if (share)
        (void)share->rows(m_world.size()); // refuses a system it cannot share (fewer bodies than processes)
    m_share = share;
    m_world.accelerationsValid = false;
}

RowRange Simulation::forceRows() const
{
    const std::size_t n = m_world.size();
    return m_share ? m_share->rows(n) : RowRange{0, n};
}

std::vector<Double4> Simulation::accelerations64()
{
    syncHost();
    if (fp64State())
        return m_state64.acceleration;
    return widen(m_world).acceleration;
}

Fp64State Simulation::state64()
{
    syncHost();
    if (fp64State())
        return m_state64;
    return widen(m_world);
}

std::vector<Double4> evaluateAccelerations(std::string_view kernelId, const World& world, const SimParams& params)
{
    Simulation sim(world, params, kernelId);
    sim.computeAccelerations();
    return sim.accelerations64();
}

namespace {

/// The rows [begin, end) of one process and no other: the gather leaves the other rows alone
/// (evaluateAccelerationRows reads the rows of the range only).
class RowsOnly final : public ForceShare {
public:
    RowsOnly(std::size_t begin, std::size_t end) : m_begin(begin), m_end(end) {}
    RowRange rows(std::size_t n) const override { return rowRange(m_begin, m_end, n); }
    bool deviceAware() const override { return true; }
    void gather(void*, std::size_t, std::size_t, bool) override {}
    void beginGather(void*, std::size_t, std::size_t, bool, int) override {}
    void postChunk(int) override {}
    void finishGather() override {}
    void reduce(DiagnosticSums&) override {}

private:
    std::size_t m_begin, m_end;
};

} // namespace

std::vector<Double4> evaluateAccelerationRows(std::string_view kernelId, const World& world, const SimParams& params,
                                              std::size_t iBegin, std::size_t iEnd)
{
    const RowRange rows = rowRange(iBegin, iEnd, world.size());
    RowsOnly share(rows.begin, rows.end);
    Simulation sim(world, params, kernelId);
    sim.setForceShare(&share);
    sim.computeAccelerations();
    return sim.accelerations64();
}

// ---- systems ---------------------------------------------------------------------------------

void Simulation::runDiagnosticsSystem()
{
    const int every = m_params.diagnosticsInterval;
    const bool first = !m_initialDiagnostics;
    if (every <= 0 || (!first && m_world.step % std::uint64_t(every) != 0))
        return;
    m_latestDiagnostics = measure();
    if (first)
        m_initialDiagnostics = m_latestDiagnostics;
    if (m_diagnosticsObserver)
        m_diagnosticsObserver(*m_latestDiagnostics);
}

// ---- the collision system ------------------------------------------------------------------

const ContactSearchInfo& Simulation::contactSearch() const
{
    if (m_params.contactSearch != "auto") {
        const ContactSearchInfo* row = findContactSearch(m_params.contactSearch);
        if (!row || !row->find) // validateParams refused these
            throw std::logic_error("contact search '" + m_params.contactSearch + "' is not available");
        return *row;
    }
    const std::size_t n = m_world.size();
    if (deviceResident()) {
        // The device rows search where the state lives; the cell list for large N.
        const ContactSearchInfo* best = nullptr;
        for (const ContactSearchInfo& row : contactSearches())
            if (row.backend == Backend::Cuda && row.find &&
                (!best || (n >= kCellsFrom && row.id.find("cells") != std::string_view::npos)))
                best = &row;
        if (best)
            return *best;
    }
    return *findContactSearch(n >= kCellsFrom ? "cpu-cells" : "cpu-pairs");
}

bool Simulation::collisionSystem()
{
    const std::size_t n = m_world.size();
    if (n < 2)
        return false;
    const ContactSearchInfo& row = contactSearch();
    const float maxRadius = m_world.maxRadius(); // the host's radius column is always current
    if (!(maxRadius > 0.f))
        return false; // bodies of radius 0 never touch one another
    ContactSearchArgs args;
    args.n = n;
    args.maxRadius = maxRadius;
    std::vector<ContactPair> pairs;
    if (row.backend == Backend::Cuda) {
#if NBODY_HAVE_CUDA
        if (!deviceResident())
            throw std::invalid_argument("contact search '" + std::string(row.id) + "' runs on the GPU, but kernel '" +
                                        std::string(m_kernel->id) +
                                        "' keeps the state on the host: choose a CPU search or auto");
        ensureDevice();
        // The step's kernels run on the device state's non-blocking stream, which the search's
        // (default) stream does not wait for: wait here, once per step.
        m_device->synchronize();
        args.position = m_device->contactPositions(m_current); // device pointers: no host copy
        args.radius = m_device->radius();
        pairs = row.find(args);
#else
        throw std::logic_error("built without CUDA");
#endif
    } else {
        // The host's fp32 positions (a CUDA kernel's state is copied back first; an fp64 state is
        // rounded to nearest, as the device rows see it).
        syncHost();
        if (fp64State()) {
            narrowInto(m_state64, m_world);
            m_worldStale = false;
        }
        args.position = m_world.positions().data();
        args.radius = m_world.radii().data();
        pairs = row.find(args);
    }
    if (pairs.empty())
        return false;
    syncHost();
    std::vector<MergeRecord> records;
    if (fp64State()) {
        records = mergeContacts(m_world, m_state64, pairs, m_params.G, m_params.eps2);
        m_worldStale = true; // the survivors' fp32 columns
    } else {
        records = mergeContacts(m_world, pairs, m_params.G, m_params.eps2);
    }
    for (const MergeRecord& r : records)
        m_energyLost -= r.energyChange;
    m_mergeLog.insert(m_mergeLog.end(), records.begin(), records.end());
    m_world.accelerationsValid = false; // the next step evaluates a_n of the merged system
    if (deviceResident()) {
        m_deviceStale = true; // the device state has the old N: the stepper replaces it
        m_hostStale = false;
    }
    m_synced = {m_world.time, m_world.step};
    return true;
}

} // namespace nbody
