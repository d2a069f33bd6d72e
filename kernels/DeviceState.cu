#include "CudaCheck.cuh"
#include "DeviceState.h"
#include "contracts/HostMemory.h"
#include "DiagnosticsKernels.h"
#include "KernelCommon.cuh"
#include "contracts/LevelRules.h"

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace nbody {

using gpu::checkDeviceBytes;
using gpu::makeVec;
using gpu::ScalarOf;
using gpu::withLayout;

namespace {

/// v += ½ a dt over x, y, z: the kick of KDK leapfrog, shared by both half steps.
template <class V, class T>
__device__ __forceinline__ V halfKick(V v, const V& a, T dt)
{
    v.x += T(0.5) * dt * a.x;
    v.y += T(0.5) * dt * a.y;
    v.z += T(0.5) * dt * a.z;
    return v;
}

// KDK leapfrog, opening half: v += ½ a dt; x' = x + v dt. Reads `from`, writes `to`.
// Memory per body: one position, velocity and acceleration read; velocity and position written.
template <class P, class V>
__global__ void kickDriftKernel(const P* __restrict__ from, P* __restrict__ to, V* __restrict__ vel,
                                const V* __restrict__ acc, int n, typename ScalarOf<P>::type dt)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const V v = halfKick(vel[i], acc[i], dt);
    const P x = from[i];
    vel[i] = v;
    to[i] = makeVec<P>(x.x + dt * v.x, x.y + dt * v.y, x.z + dt * v.z, x.w);
}

// KDK leapfrog, closing half: v += ½ a dt.
template <class V, class T>
__global__ void kickKernel(V* __restrict__ vel, const V* __restrict__ acc, int n, T dt)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    vel[i] = halfKick(vel[i], acc[i], dt);
}

// Block time steps: the drift of every body, x' = x + v dt (mass copied). Reads `from`, writes
// `to`. Memory per body: one position and velocity read, one position written.
template <class P, class V>
__global__ void driftKernel(const P* __restrict__ from, P* __restrict__ to, const V* __restrict__ vel, int n,
                            typename ScalarOf<P>::type dt)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const V v = vel[i];
    const P x = from[i];
    to[i] = makeVec<P>(x.x + dt * v.x, x.y + dt * v.y, x.z + dt * v.z, x.w);
}

// Block time steps: the kick of the bodies rows[0 .. count), each with its own level's step:
// v_i += ½ a_i dtMax / 2^level[i] (the same arithmetic as kickKernel for one level).
template <class V, class T>
__global__ void kickLevelsKernel(V* __restrict__ vel, const V* __restrict__ acc, const std::uint32_t* __restrict__ rows,
                                 const std::uint8_t* __restrict__ level, int count, double dtMax)
{
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= count)
        return;
    const std::uint32_t i = rows[s];
    const T dt = T(ldexp(dtMax, -int(level[i])));
    vel[i] = halfKick(vel[i], acc[i], dt);
}

// Block time steps: the criterion's step with softening, eta * sqrt(length / |a|), +inf where
// |a| is 0 or NaN (sim/core/BlockSteps.cpp, criterionStep). fp64, correctly rounded operations in
// the host's order and no contraction into FMA, so each step is the host's bits for the same
// acceleration.
template <class V>
__device__ __forceinline__ double criterionOf(const V& a, double eta, double length)
{
    const double ax = a.x, ay = a.y, az = a.z;
    const double mag = __dsqrt_rn(__dadd_rn(__dadd_rn(__dmul_rn(ax, ax), __dmul_rn(ay, ay)), __dmul_rn(az, az)));
    return mag > 0 ? __dmul_rn(eta, __dsqrt_rn(__ddiv_rn(length, mag))) : INFINITY;
}

// The criterion's steps of the active bodies rows[0 .. count).
template <class V>
__global__ void criterionKernel(const V* __restrict__ acc, const std::uint32_t* __restrict__ rows, int count, double eta,
                                double length, double* __restrict__ out)
{
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < count)
        out[s] = criterionOf(acc[rows[s]], eta, length);
}

// The level of each active body rows[s] at tick t (contracts/LevelRules.h, nextLevel), from its
// criterion step: steps[s] when given, else computed from its acceleration.
template <class V>
__global__ void assignLevelsKernel(const V* __restrict__ acc, const std::uint32_t* __restrict__ rows, int count,
                                   const double* __restrict__ steps, double eta, double length, std::uint64_t tick,
                                   double dtMax, int maxLevels, std::uint8_t* __restrict__ level)
{
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= count)
        return;
    const std::uint32_t i = rows[s];
    const double dt = steps ? steps[s] : criterionOf(acc[i], eta, length);
    level[i] = std::uint8_t(nextLevel(level[i], dtMax, dt, tick, maxLevels));
}

// The select predicate of the active set: body i's level is at least minLevel.
struct LevelAtLeast {
    const std::uint8_t* level;
    int minLevel;
    __device__ bool operator()(std::uint32_t i) const { return int(level[i]) >= minLevel; }
};

/// Finite once rounded to fp32: the World, the drawn buffers and saved files hold fp32, so an fp64
/// state beyond fp32's range (|x| > 3.4e38) counts as blown up too, as it does on the host.
template <class T>
__device__ __forceinline__ bool finiteFp32(T x)
{
    return isfinite(float(x));
}

template <class V>
__device__ bool finiteXyz(const V& v)
{
    return finiteFp32(v.x) && finiteFp32(v.y) && finiteFp32(v.z);
}

// The lowest index i with a position, mass or velocity that is not finite in fp32, as n − i
// (the largest such value) into *flag, which starts at 0 (a memset: nothing to upload).
template <class P, class V>
__global__ void firstNonFiniteKernel(const P* __restrict__ pos, const V* __restrict__ vel, int n, int* flag)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && !(finiteXyz(pos[i]) && finiteFp32(pos[i].w) && finiteXyz(vel[i])))
        atomicMax(flag, n - i);
}

// The float4 copy of fp64 positions, for drawing.
__global__ void narrowPositionsKernel(const double4_32a* __restrict__ from, float4* __restrict__ to, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const double4_32a p = from[i];
        to[i] = make_float4(float(p.x), float(p.y), float(p.z), float(p.w));
    }
}

/// Block size for an element-wise kernel, from the occupancy calculator (once per kernel).
template <class K>
int elementwiseBlock(K kernel)
{
    int minGrid = 0, block = 0;
    NB_CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, kernel, 0, 0));
    return block > 0 ? block : 256;
}

std::vector<Float3> toFloat3(const std::vector<Float4>& v)
{
    std::vector<Float3> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        out[i] = Float3{v[i].x, v[i].y, v[i].z};
    return out;
}

void fromFloat3(const std::vector<Float3>& v, std::vector<Float4>& out)
{
    for (std::size_t i = 0; i < v.size(); ++i)
        out[i] = Float4{v[i].x, v[i].y, v[i].z, 0.f};
}

int gridFor(int n, int block) { return (n + block - 1) / block; }

} // namespace

DeviceState::DeviceState(std::size_t n, Layout layout, PositionStorage storage)
    : m_n(n), m_layout(layout), m_storage(storage)
{
    if (n == 0 || n > std::size_t(INT32_MAX))
        throw std::invalid_argument("DeviceState: body count out of range");
    m_ownsPositions = storage == PositionStorage::Owned || layout == Layout::Double4;
    const std::size_t vecBytes = n * vectorBytes(layout);
    const std::size_t posBytes = n * positionBytes(layout);
    checkDeviceBytes(2 * vecBytes + (m_ownsPositions ? 2 * posBytes : 0),
                     "the device state of " + std::to_string(n) + " bodies");
    try {
        NB_CUDA_CHECK(cudaMalloc(&m_vel, vecBytes));
        NB_CUDA_CHECK(cudaMalloc(&m_acc, vecBytes));
        NB_CUDA_CHECK(cudaMemset(m_acc, 0, vecBytes));
        NB_CUDA_CHECK(cudaMalloc(&m_flag, sizeof(int)));
        NB_CUDA_CHECK(cudaMallocHost(&m_flagHost, sizeof(int)));
        if (m_ownsPositions) {
            NB_CUDA_CHECK(cudaMalloc(&m_owned[0], posBytes));
            NB_CUDA_CHECK(cudaMalloc(&m_owned[1], posBytes));
            m_pos[0] = m_owned[0];
            m_pos[1] = m_owned[1];
        }
    } catch (...) {
        cudaFree(m_vel);
        cudaFree(m_acc);
        cudaFree(m_flag);
        cudaFreeHost(m_flagHost);
        cudaFree(m_owned[0]);
        cudaFree(m_owned[1]);
        throw;
    }
}

DeviceState::~DeviceState()
{
    // Destructors never throw: errors here are reported by the next checked call.
    dropGraphs();
    for (void* e : m_stepEvents)
        if (e)
            cudaEventDestroy(static_cast<cudaEvent_t>(e));
    if (m_stream)
        cudaStreamDestroy(static_cast<cudaStream_t>(m_stream));
    for (void* e : m_chunkComputed)
        cudaEventDestroy(static_cast<cudaEvent_t>(e));
    for (void* e : m_chunkCopied)
        cudaEventDestroy(static_cast<cudaEvent_t>(e));
    if (m_copyStream)
        cudaStreamDestroy(static_cast<cudaStream_t>(m_copyStream));
    cudaFreeHost(m_pinned);
    cudaFree(m_vel);
    cudaFree(m_acc);
    cudaFree(m_flag);
    cudaFreeHost(m_flagHost);
    cudaFree(m_owned[0]);
    cudaFree(m_owned[1]);
    cudaFree(m_workspace);
    cudaFree(m_radius);
    cudaFree(m_narrowed);
    cudaFree(m_levels);
    cudaFree(m_steps);
    cudaFree(m_rows);
    cudaFree(m_selected);
    cudaFree(m_levelTemp);
}

void DeviceState::attach(Float4* p0, Float4* p1)
{
    if (m_storage != PositionStorage::External)
        throw std::logic_error("DeviceState::attach: positions are owned by the simulation");
    if (!p0 || !p1 || p0 == p1)
        throw std::logic_error("DeviceState::attach: two distinct non-null buffers are required");
    if (m_ownsPositions) {
        m_drawn[0] = p0;
        m_drawn[1] = p1;
    } else {
        m_pos[0] = p0;
        m_pos[1] = p1;
    }
}

void DeviceState::detach()
{
    if (m_storage != PositionStorage::External)
        return;
    m_drawn[0] = m_drawn[1] = nullptr;
    if (!m_ownsPositions)
        m_pos[0] = m_pos[1] = nullptr;
}

void DeviceState::ownPositions(const Float4* host, int current)
{
    if (m_storage != PositionStorage::External)
        return;
    if (!m_ownsPositions) {
        if (!host)
            throw std::logic_error("DeviceState::ownPositions: the fp32 layouts need the positions");
        const std::size_t bytes = m_n * sizeof(Float4);
        void* owned[2] = {nullptr, nullptr};
        try {
            NB_CUDA_CHECK(cudaMalloc(&owned[0], bytes));
            NB_CUDA_CHECK(cudaMalloc(&owned[1], bytes));
            NB_CUDA_CHECK(cudaMemcpy(owned[current], host, bytes, cudaMemcpyHostToDevice));
        } catch (...) {
            cudaFree(owned[0]);
            cudaFree(owned[1]);
            throw;
        }
        m_owned[0] = m_pos[0] = owned[0];
        m_owned[1] = m_pos[1] = owned[1];
        m_ownsPositions = true;
    }
    m_drawn[0] = m_drawn[1] = nullptr;
    m_storage = PositionStorage::Owned; // the step graphs see new position pointers: re-captured
}

void DeviceState::upload(const World& w, int current)
{
    if (m_layout == Layout::Double4)
        throw std::logic_error("DeviceState::upload: the fp64 layout takes an Fp64State");
    if (w.size() != m_n)
        throw std::logic_error("DeviceState::upload: world size differs from the device state");
    if (!hasPositions())
        throw std::logic_error("DeviceState::upload: positions are not attached");
    NB_CUDA_CHECK(cudaMemcpy(m_pos[current], w.positions().data(), m_n * sizeof(Float4), cudaMemcpyHostToDevice));
    if (m_layout == Layout::Float4) {
        NB_CUDA_CHECK(cudaMemcpy(m_vel, w.velocities().data(), m_n * sizeof(Float4), cudaMemcpyHostToDevice));
        NB_CUDA_CHECK(cudaMemcpy(m_acc, w.accelerations().data(), m_n * sizeof(Float4), cudaMemcpyHostToDevice));
    } else {
        NB_CUDA_CHECK(cudaMemcpy(m_vel, toFloat3(w.velocities()).data(), m_n * sizeof(Float3), cudaMemcpyHostToDevice));
        NB_CUDA_CHECK(cudaMemcpy(m_acc, toFloat3(w.accelerations()).data(), m_n * sizeof(Float3), cudaMemcpyHostToDevice));
    }
}

void DeviceState::upload(const Fp64State& s, int current)
{
    if (m_layout != Layout::Double4)
        throw std::logic_error("DeviceState::upload: an Fp64State needs the fp64 layout");
    if (s.size() != m_n)
        throw std::logic_error("DeviceState::upload: state size differs from the device state");
    const std::size_t bytes = m_n * sizeof(Double4);
    NB_CUDA_CHECK(cudaMemcpy(m_pos[current], s.position.data(), bytes, cudaMemcpyHostToDevice));
    NB_CUDA_CHECK(cudaMemcpy(m_vel, s.velocity.data(), bytes, cudaMemcpyHostToDevice));
    NB_CUDA_CHECK(cudaMemcpy(m_acc, s.acceleration.data(), bytes, cudaMemcpyHostToDevice));
    publish(current);
}

void DeviceState::download(World& w, int current) const
{
    if (m_layout == Layout::Double4)
        throw std::logic_error("DeviceState::download: the fp64 layout fills an Fp64State");
    if (w.size() != m_n)
        throw std::logic_error("DeviceState::download: world size differs from the device state");
    if (!hasPositions())
        throw std::logic_error("DeviceState::download: positions are not attached");
    NB_CUDA_CHECK(cudaMemcpy(w.positions().data(), m_pos[current], m_n * sizeof(Float4), cudaMemcpyDeviceToHost));
    if (m_layout == Layout::Float4) {
        NB_CUDA_CHECK(cudaMemcpy(w.velocities().data(), m_vel, m_n * sizeof(Float4), cudaMemcpyDeviceToHost));
        NB_CUDA_CHECK(cudaMemcpy(w.accelerations().data(), m_acc, m_n * sizeof(Float4), cudaMemcpyDeviceToHost));
    } else {
        std::vector<Float3> v(m_n);
        NB_CUDA_CHECK(cudaMemcpy(v.data(), m_vel, m_n * sizeof(Float3), cudaMemcpyDeviceToHost));
        fromFloat3(v, w.velocities());
        NB_CUDA_CHECK(cudaMemcpy(v.data(), m_acc, m_n * sizeof(Float3), cudaMemcpyDeviceToHost));
        fromFloat3(v, w.accelerations());
    }
}

void DeviceState::download(Fp64State& s, int current) const
{
    if (m_layout != Layout::Double4)
        throw std::logic_error("DeviceState::download: an Fp64State needs the fp64 layout");
    s.position.resize(m_n);
    s.velocity.resize(m_n);
    s.acceleration.resize(m_n);
    const std::size_t bytes = m_n * sizeof(Double4);
    NB_CUDA_CHECK(cudaMemcpy(s.position.data(), m_pos[current], bytes, cudaMemcpyDeviceToHost));
    NB_CUDA_CHECK(cudaMemcpy(s.velocity.data(), m_vel, bytes, cudaMemcpyDeviceToHost));
    NB_CUDA_CHECK(cudaMemcpy(s.acceleration.data(), m_acc, bytes, cudaMemcpyDeviceToHost));
}

BodyState DeviceState::downloadBody(std::size_t i, int current) const
{
    if (i >= m_n)
        throw std::out_of_range("DeviceState::downloadBody: body " + std::to_string(i) + " of " +
                                std::to_string(m_n));
    if (!hasPositions())
        throw std::logic_error("DeviceState::downloadBody: positions are not attached");
    BodyState b;
    if (m_layout == Layout::Double4) {
        NB_CUDA_CHECK(cudaMemcpy(&b.position, static_cast<const Double4*>(m_pos[current]) + i, sizeof(Double4),
                                 cudaMemcpyDeviceToHost));
        NB_CUDA_CHECK(cudaMemcpy(&b.velocity, static_cast<const Double4*>(m_vel) + i, sizeof(Double4),
                                 cudaMemcpyDeviceToHost));
        return b;
    }
    Float4 x{};
    NB_CUDA_CHECK(cudaMemcpy(&x, static_cast<const Float4*>(m_pos[current]) + i, sizeof(Float4),
                             cudaMemcpyDeviceToHost));
    b.position = {x.x, x.y, x.z, x.w};
    if (m_layout == Layout::Float4) {
        Float4 v{};
        NB_CUDA_CHECK(cudaMemcpy(&v, static_cast<const Float4*>(m_vel) + i, sizeof(Float4), cudaMemcpyDeviceToHost));
        b.velocity = {v.x, v.y, v.z, 0};
    } else {
        Float3 v{};
        NB_CUDA_CHECK(cudaMemcpy(&v, static_cast<const Float3*>(m_vel) + i, sizeof(Float3), cudaMemcpyDeviceToHost));
        b.velocity = {v.x, v.y, v.z, 0};
    }
    return b;
}

void DeviceState::ensureWorkspace(std::size_t bytes)
{
    if (bytes <= m_workspaceBytes)
        return;
    cudaFree(m_workspace);
    m_workspace = nullptr;
    m_workspaceBytes = 0;
    checkDeviceBytes(bytes, "the kernel's workspace for " + std::to_string(m_n) + " bodies");
    if (const cudaError_t e = cudaMalloc(&m_workspace, bytes); e != cudaSuccess) {
        cudaGetLastError(); // clear the error so the next launch check does not report it
        char size[64];
        std::snprintf(size, sizeof size, "%.3g GB", double(bytes) / 1e9);
        throw CudaError(std::string("cannot allocate the kernel's workspace of ") + size + " for " +
                        std::to_string(m_n) + " bodies: " + cudaGetErrorString(e) +
                        " (choose a larger block size, a FADL variant or fewer bodies)");
    }
    m_workspaceBytes = bytes;
    ++m_workspaceGeneration; // graphs captured with the old pointer are stale
}

DeviceForceArgs DeviceState::forceArgs(const ForceLaunch& f, int current)
{
    const KernelInfo& k = *f.kernel;
    if (!k.device)
        throw std::logic_error("DeviceState::computeForces: kernel '" + std::string(k.id) + "' has no CUDA launcher");
    if (k.layout != m_layout)
        throw std::logic_error("DeviceState::computeForces: kernel '" + std::string(k.id) +
                               "' needs another state layout");
    if (!hasPositions())
        throw std::logic_error("DeviceState::computeForces: positions are not attached");
    if (f.args.n != m_n)
        throw std::logic_error("DeviceState::computeForces: a force pass for " + std::to_string(f.args.n) +
                               " bodies on a device state of " + std::to_string(m_n));
    DeviceForceArgs a = f.args;
    a.pos = m_pos[current];
    a.acc = m_acc;
    if (k.workspace) {
        ensureWorkspace(k.workspace(a));
        a.workspace = m_workspace;
    }
    return a;
}

void DeviceState::copyAccelerations(void* host, RowRange rows, bool toHost)
{
    const RowRange r = rowRange(rows.begin, rows.end, m_n);
    const std::size_t bytes = vectorBytes(m_layout);
    char* h = static_cast<char*>(host) + r.begin * bytes;
    char* d = static_cast<char*>(m_acc) + r.begin * bytes;
    if (toHost)
        NB_CUDA_CHECK(cudaMemcpy(h, d, r.size() * bytes, cudaMemcpyDeviceToHost));
    else
        NB_CUDA_CHECK(cudaMemcpy(d, h, r.size() * bytes, cudaMemcpyHostToDevice));
}

void DeviceState::markForceChunk(int c, RowRange rows, void* host)
{
    if (c < 0)
        throw std::invalid_argument("DeviceState::markForceChunk: chunk " + std::to_string(c));
    const auto create = [](std::vector<void*>& events, int count) {
        while (int(events.size()) < count) {
            cudaEvent_t e = nullptr;
            NB_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
            events.push_back(e);
        }
    };
    create(m_chunkComputed, c + 1);
    create(m_chunkCopied, c + 1);
    const auto computed = static_cast<cudaEvent_t>(m_chunkComputed[std::size_t(c)]);
    const auto copied = static_cast<cudaEvent_t>(m_chunkCopied[std::size_t(c)]);
    NB_CUDA_CHECK(cudaEventRecord(computed, nullptr));
    if (!host) {
        NB_CUDA_CHECK(cudaEventRecord(copied, nullptr));
        return;
    }
    if (!m_copyStream) {
        cudaStream_t s = nullptr;
        NB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        m_copyStream = s;
    }
    const auto stream = static_cast<cudaStream_t>(m_copyStream);
    const RowRange r = rowRange(rows.begin, rows.end, m_n);
    const std::size_t bytes = vectorBytes(m_layout);
    NB_CUDA_CHECK(cudaStreamWaitEvent(stream, computed, 0));
    if (r.size() > 0)
        NB_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(host) + r.begin * bytes,
                                      static_cast<const char*>(m_acc) + r.begin * bytes, r.size() * bytes,
                                      cudaMemcpyDeviceToHost, stream));
    NB_CUDA_CHECK(cudaEventRecord(copied, stream));
}

bool DeviceState::forceChunkDone(int c)
{
    if (c < 0 || std::size_t(c) >= m_chunkCopied.size())
        throw std::invalid_argument("DeviceState::forceChunkDone: chunk " + std::to_string(c) + " was not marked");
    const cudaError_t e = cudaEventQuery(static_cast<cudaEvent_t>(m_chunkCopied[std::size_t(c)]));
    if (e == cudaErrorNotReady) {
        if (cudaPeekAtLastError() == cudaErrorNotReady)
            (void)cudaGetLastError(); // not a failure: keep it from the next launch check
        return false;
    }
    NB_CUDA_CHECK(e);
    return true;
}

void* DeviceState::pinnedStage(std::size_t bytes)
{
    if (bytes <= m_pinnedBytes)
        return m_pinned;
    cudaFreeHost(m_pinned);
    m_pinned = nullptr;
    m_pinnedBytes = 0;
    NB_CUDA_CHECK(cudaMallocHost(&m_pinned, bytes));
    m_pinnedBytes = bytes;
    return m_pinned;
}

void DeviceState::launchForces(const KernelInfo& k, DeviceForceArgs a, int slices)
{
    if (slices <= 1) {
        k.device(a);
        return;
    }
    // Slices of the rows asked for (all N, or a distributed run's share).
    const RowRange rows = rowRange(a.iBegin, a.iEnd, a.n);
    for (int s = 0; s < slices; ++s) {
        const std::size_t begin = rows.begin + rows.size() * std::size_t(s) / std::size_t(slices);
        const std::size_t end = rows.begin + rows.size() * std::size_t(s + 1) / std::size_t(slices);
        if (end == begin)
            continue;
        a.iBegin = begin;
        a.iEnd = end;
        k.device(a);
    }
}

void DeviceState::computeForceSlice(const ForceLaunch& f, int current, std::size_t begin, std::size_t count)
{
    if (count == 0 || begin >= m_n || count > m_n - begin)
        throw std::invalid_argument("DeviceState::computeForceSlice: bodies " + std::to_string(begin) + " + " +
                                    std::to_string(count) + " leave the " + std::to_string(m_n) + " bodies");
    DeviceForceArgs a = forceArgs(f, current);
    a.iBegin = begin;
    a.iEnd = begin + count;
    f.kernel->device(a);
}

void DeviceState::computeForces(const ForceLaunch& f, int current, void* stream)
{
    DeviceForceArgs a = forceArgs(f, current);
    a.stream = stream;
    launchForces(*f.kernel, a, f.slices);
}

void DeviceState::markStepsStart()
{
    for (void*& e : m_stepEvents)
        if (!e) {
            cudaEvent_t ev = nullptr;
            NB_CUDA_CHECK(cudaEventCreate(&ev));
            e = ev;
        }
    NB_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(m_stepEvents[0]), nullptr));
}

double DeviceState::stepsElapsedMs()
{
    if (!m_stepEvents[0] || !m_stepEvents[1])
        throw std::logic_error("DeviceState::stepsElapsedMs: markStepsStart() was not called");
    const auto stop = static_cast<cudaEvent_t>(m_stepEvents[1]);
    NB_CUDA_CHECK(cudaEventRecord(stop, nullptr));
    NB_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.f;
    NB_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(m_stepEvents[0]), stop));
    return double(ms);
}

double DeviceState::timedForces(const ForceLaunch& f, int current)
{
    const DeviceForceArgs a = forceArgs(f, current);
    cudaEvent_t start = nullptr, stop = nullptr;
    NB_CUDA_CHECK(cudaEventCreate(&start));
    float ms = 0.f;
    try {
        NB_CUDA_CHECK(cudaEventCreate(&stop));
        NB_CUDA_CHECK(cudaEventRecord(start, static_cast<cudaStream_t>(a.stream)));
        launchForces(*f.kernel, a, f.slices);
        NB_CUDA_CHECK(cudaEventRecord(stop, static_cast<cudaStream_t>(a.stream)));
        NB_CUDA_CHECK(cudaEventSynchronize(stop));
        NB_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    } catch (...) {
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
        throw;
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return ms;
}

void DeviceState::kickDrift(double dt, int current, void* stream)
{
    if (!hasPositions())
        throw std::logic_error("DeviceState::kickDrift: positions are not attached");
    const int n = int(m_n);
    withLayout(m_layout, [&]<class P, class V>() {
        using T = typename ScalarOf<P>::type;
        static const int block = elementwiseBlock(kickDriftKernel<P, V>);
        kickDriftKernel<P, V><<<gridFor(n, block), block, 0, static_cast<cudaStream_t>(stream)>>>(
            static_cast<const P*>(m_pos[current]), static_cast<P*>(m_pos[1 - current]), static_cast<V*>(m_vel),
            static_cast<const V*>(m_acc), n, T(dt));
        NB_CUDA_CHECK_LAUNCH("kickDriftKernel");
    });
}

void DeviceState::kick(double dt, void* stream)
{
    const int n = int(m_n);
    withLayout(m_layout, [&]<class P, class V>() {
        using T = typename ScalarOf<P>::type;
        static const int block = elementwiseBlock(kickKernel<V, T>);
        kickKernel<V, T><<<gridFor(n, block), block, 0, static_cast<cudaStream_t>(stream)>>>(
            static_cast<V*>(m_vel), static_cast<const V*>(m_acc), n, T(dt));
        NB_CUDA_CHECK_LAUNCH("kickKernel");
    });
}

void DeviceState::drift(double dt, int current, void* stream)
{
    if (!hasPositions())
        throw std::logic_error("DeviceState::drift: positions are not attached");
    const int n = int(m_n);
    withLayout(m_layout, [&]<class P, class V>() {
        using T = typename ScalarOf<P>::type;
        static const int block = elementwiseBlock(driftKernel<P, V>);
        driftKernel<P, V><<<gridFor(n, block), block, 0, static_cast<cudaStream_t>(stream)>>>(
            static_cast<const P*>(m_pos[current]), static_cast<P*>(m_pos[1 - current]), static_cast<const V*>(m_vel), n,
            T(dt));
        NB_CUDA_CHECK_LAUNCH("driftKernel");
    });
}

void DeviceState::ensureLevels()
{
    if (m_levels)
        return;
    // 13 bytes per body (level, row index, criterion step): checked as the workspace is.
    checkDeviceBytes(m_n * (sizeof(std::uint8_t) + sizeof(std::uint32_t) + sizeof(double)),
                     "the block time steps' levels and active set for " + std::to_string(m_n) + " bodies");
    NB_CUDA_CHECK(cudaMalloc(&m_levels, m_n * sizeof(std::uint8_t)));
    NB_CUDA_CHECK(cudaMalloc(&m_rows, m_n * sizeof(std::uint32_t)));
    NB_CUDA_CHECK(cudaMalloc(&m_steps, m_n * sizeof(double)));
    NB_CUDA_CHECK(cudaMalloc(&m_selected, (kMaxBlockLevels + 2) * sizeof(int)));
    NB_CUDA_CHECK(cudaMemset(m_levels, 0, m_n * sizeof(std::uint8_t)));
}

void DeviceState::ensureLevelTemp(std::size_t bytes)
{
    if (bytes <= m_levelTempBytes)
        return;
    cudaFree(m_levelTemp);
    m_levelTemp = nullptr;
    m_levelTempBytes = 0;
    NB_CUDA_CHECK(cudaMalloc(&m_levelTemp, bytes));
    m_levelTempBytes = bytes;
}

std::size_t DeviceState::selectActive(int minLevel)
{
    ensureLevels();
    const thrust::counting_iterator<std::uint32_t> bodies(0);
    const LevelAtLeast atLeast{m_levels, minLevel};
    std::size_t bytes = 0;
    NB_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, bodies, m_rows, m_selected, int(m_n), atLeast));
    ensureLevelTemp(bytes);
    NB_CUDA_CHECK(cub::DeviceSelect::If(m_levelTemp, bytes, bodies, m_rows, m_selected, int(m_n), atLeast));
    int count = 0;
    NB_CUDA_CHECK(cudaMemcpy(&count, m_selected, sizeof(int), cudaMemcpyDeviceToHost)); // waits for the select
    m_activeCount = std::size_t(count);
    return m_activeCount;
}

void DeviceState::setActiveRows(const std::uint32_t* rows, std::size_t count)
{
    checkActiveList(rows, count, m_n); // the contract's, as the host rows check it
    ensureLevels();
    if (count > 0)
        NB_CUDA_CHECK(cudaMemcpy(m_rows, rows, count * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    m_activeCount = count;
}

void DeviceState::downloadActiveRows(std::uint32_t* rows) const
{
    if (m_activeCount > 0)
        NB_CUDA_CHECK(cudaMemcpy(rows, m_rows, m_activeCount * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
}

void DeviceState::uploadLevels(const std::uint8_t* level)
{
    ensureLevels();
    NB_CUDA_CHECK(cudaMemcpy(m_levels, level, m_n * sizeof(std::uint8_t), cudaMemcpyHostToDevice));
}

void DeviceState::downloadLevels(std::uint8_t* level) const
{
    if (!m_levels) { // never assigned: every body on level 0
        std::fill(level, level + m_n, std::uint8_t(0));
        return;
    }
    NB_CUDA_CHECK(cudaMemcpy(level, m_levels, m_n * sizeof(std::uint8_t), cudaMemcpyDeviceToHost));
}

std::size_t DeviceState::computeActiveForces(const ForceLaunch& f, int current)
{
    if (!f.kernel->activeRows || m_activeCount == m_n) {
        computeForces(f, current);
        return m_n;
    }
    if (m_activeCount == 0)
        return 0;
    ForceLaunch listed = f;
    listed.args.iBegin = 0;
    listed.args.iEnd = kAllRows;
    listed.args.active = m_rows;
    listed.args.activeCount = m_activeCount;
    const DeviceForceArgs a = forceArgs(listed, current); // the workspace for a list (the tree's flags)
    f.kernel->device(a); // one launch: slices are ranges of rows, the list is already the work
    return m_activeCount;
}

void DeviceState::kickActive(double dtMax)
{
    if (m_activeCount == 0)
        return;
    const int c = int(m_activeCount);
    withLayout(m_layout, [&]<class P, class V>() {
        using T = typename ScalarOf<P>::type;
        static const int block = elementwiseBlock(kickLevelsKernel<V, T>);
        kickLevelsKernel<V, T><<<gridFor(c, block), block>>>(static_cast<V*>(m_vel), static_cast<const V*>(m_acc),
                                                             m_rows, m_levels, c, dtMax);
        NB_CUDA_CHECK_LAUNCH("kickLevelsKernel");
    });
}

void DeviceState::criterionSteps(double eta, double length, double* out)
{
    if (!(length > 0))
        throw std::invalid_argument("DeviceState::criterionSteps: the length sqrt(eps2) must be > 0 (got " +
                                    std::to_string(length) + ")");
    if (m_activeCount == 0)
        return;
    const int c = int(m_activeCount);
    withLayout(m_layout, [&]<class P, class V>() {
        static const int block = elementwiseBlock(criterionKernel<V>);
        criterionKernel<V><<<gridFor(c, block), block>>>(static_cast<const V*>(m_acc), m_rows, c, eta, length, m_steps);
        NB_CUDA_CHECK_LAUNCH("criterionKernel");
    });
    NB_CUDA_CHECK(cudaMemcpy(out, m_steps, m_activeCount * sizeof(double), cudaMemcpyDeviceToHost));
}

void DeviceState::assignLevels(std::uint64_t tick, double dtMax, int maxLevels, double eta, double length,
                               const double* steps, std::uint64_t* histogram)
{
    if (maxLevels < 0 || maxLevels > kMaxBlockLevels)
        throw std::invalid_argument("DeviceState::assignLevels: maxLevels must be in [0, " +
                                    std::to_string(kMaxBlockLevels) + "] (got " + std::to_string(maxLevels) + ")");
    if (!steps && !(length > 0))
        throw std::invalid_argument("DeviceState::assignLevels: the length sqrt(eps2) must be > 0 (got " +
                                    std::to_string(length) + ")");
    ensureLevels();
    const int c = int(m_activeCount);
    if (c > 0) {
        if (steps) // the synchronous copy waits for the launches before it
            NB_CUDA_CHECK(cudaMemcpy(m_steps, steps, m_activeCount * sizeof(double), cudaMemcpyHostToDevice));
        withLayout(m_layout, [&]<class P, class V>() {
            static const int block = elementwiseBlock(assignLevelsKernel<V>);
            assignLevelsKernel<V><<<gridFor(c, block), block>>>(static_cast<const V*>(m_acc), m_rows, c,
                                                                steps ? m_steps : nullptr, eta, length, tick, dtMax,
                                                                maxLevels, m_levels);
            NB_CUDA_CHECK_LAUNCH("assignLevelsKernel");
        });
    }
    // Every body's level counted: maxLevels + 1 bins of width 1 over [0, maxLevels + 1).
    int* counts = m_selected + 1;
    const int boundaries = maxLevels + 2;
    std::size_t bytes = 0;
    NB_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, bytes, m_levels, counts, boundaries, 0, maxLevels + 1,
                                                      int(m_n)));
    ensureLevelTemp(bytes);
    NB_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(m_levelTemp, bytes, m_levels, counts, boundaries, 0,
                                                      maxLevels + 1, int(m_n)));
    int host[kMaxBlockLevels + 1] = {};
    NB_CUDA_CHECK(cudaMemcpy(host, counts, std::size_t(maxLevels + 1) * sizeof(int), cudaMemcpyDeviceToHost));
    for (int k = 0; k <= maxLevels; ++k)
        histogram[k] = std::uint64_t(host[k]);
}

void DeviceState::dropGraphs() noexcept
{
    for (void*& g : m_graphs) {
        if (g)
            cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(g)); // never throws (destructor path)
        g = nullptr;
    }
}

bool DeviceState::captureStep(const StepConfig& c, int current, const EmitStep& emit)
{
    cudaGraph_t graph = nullptr;
    try {
        if (!m_stream) {
            cudaStream_t s = nullptr;
            // Non-blocking: no implicit tie to the legacy stream, which other threads may use
            // while this one captures (see the header).
            NB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
            m_stream = s;
        }
        const auto stream = static_cast<cudaStream_t>(m_stream);
        // Thread-local: only this thread's calls that capture forbids (cudaMalloc, synchronous
        // copies) invalidate it, not other threads' CUDA calls.
        NB_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        try {
            emit(m_stream, current);
        } catch (...) {
            // End the invalidated capture so the stream can be used again; its status is the
            // failure already being reported.
            cudaGraph_t broken = nullptr;
            (void)cudaStreamEndCapture(stream, &broken);
            if (broken)
                (void)cudaGraphDestroy(broken);
            throw;
        }
        NB_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
        // Each substep is a kick-drift, the force launch(es) and a kick. A launcher that enqueued
        // its work elsewhere than DeviceForceArgs::stream ran it at capture time instead of
        // recording it: replays would skip the forces.
        std::size_t nodes = 0;
        NB_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
        if (nodes < 3 * c.shape.substeps)
            throw CudaError("the captured step has " + std::to_string(nodes) + " operations for " +
                            std::to_string(c.shape.substeps) + " substeps: kernel '" +
                            std::string(c.shape.forces.kernel->id) +
                            "' does not enqueue into DeviceForceArgs::stream");
        cudaGraphExec_t exec = nullptr;
        NB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        m_graphs[current] = exec;
        NB_CUDA_CHECK(cudaGraphDestroy(graph));
        graph = nullptr;
        ++m_graphStats.captures;
        return true;
    } catch (const std::exception& e) {
        if (graph)
            (void)cudaGraphDestroy(graph);
        (void)cudaGetLastError(); // a capture error is not sticky: plain launches go on
        m_captureFailed = true;
        m_graphStats.failure = e.what();
        static std::atomic<bool> told{false};
        if (!told.exchange(true))
            std::fprintf(stderr, "nbody: capturing a step into a CUDA graph failed; stepping with plain launches "
                                 "(%s)\n", e.what());
        return false;
    }
}

int DeviceState::step(const StepShape& shape, bool graphs, int current, const EmitStep& emit)
{
    StepConfig c;
    c.shape = shape;
    c.args = forceArgs(shape.forces, current); // checks the pass and allocates the workspace first
    c.args.pos = nullptr;
    c.pos[0] = m_pos[0];
    c.pos[1] = m_pos[1];
    c.workspaceGeneration = m_workspaceGeneration;
    const int next = shape.substeps % 2 ? 1 - current : current;

    if (graphs && !(c == m_stepConfig)) {
        dropGraphs();
        m_stepConfig = c;
        m_warm = false;
        m_captureFailed = false;
    }
    if (!graphs || !m_warm || m_captureFailed) {
        emit(nullptr, current);
        m_warm = graphs;
        ++m_graphStats.plainSteps;
        return next;
    }
    if (!m_graphs[current]) {
        // Both start buffers at once when the step swaps them, so only this step pays.
        const bool captured =
            captureStep(c, current, emit) && (next == current || m_graphs[next] || captureStep(c, next, emit));
        if (!captured) {
            dropGraphs();
            emit(nullptr, current);
            ++m_graphStats.plainSteps;
            return next;
        }
    }
    // Into stream 0, where the plain launches go: ordered with the interop, diagnostics and copies.
    NB_CUDA_CHECK(cudaGraphLaunch(static_cast<cudaGraphExec_t>(m_graphs[current]), nullptr));
    ++m_graphStats.replays;
    return next;
}

void DeviceState::uploadRadius(std::span<const float> radius)
{
    if (radius.size() != m_n)
        throw std::invalid_argument("DeviceState::uploadRadius: " + std::to_string(radius.size()) +
                                    " radii for a device state of " + std::to_string(m_n) + " bodies");
    if (!m_radius)
        NB_CUDA_CHECK(cudaMalloc(&m_radius, m_n * sizeof(float)));
    NB_CUDA_CHECK(cudaMemcpy(m_radius, radius.data(), m_n * sizeof(float), cudaMemcpyHostToDevice));
}

const Float4* DeviceState::contactPositions(int current)
{
    if (!hasPositions())
        throw std::logic_error("DeviceState::contactPositions: positions are not attached");
    if (m_layout != Layout::Double4)
        return static_cast<const Float4*>(m_pos[current]); // Float4 and Float3 keep float4 positions
    if (!m_narrowed)
        NB_CUDA_CHECK(cudaMalloc(&m_narrowed, m_n * sizeof(Float4)));
    static const int block = elementwiseBlock(narrowPositionsKernel);
    const int n = int(m_n);
    narrowPositionsKernel<<<gridFor(n, block), block>>>(static_cast<const double4_32a*>(m_pos[current]),
                                                        reinterpret_cast<float4*>(m_narrowed), n);
    NB_CUDA_CHECK_LAUNCH("narrowPositionsKernel");
    return m_narrowed;
}

void DeviceState::publish(int current)
{
    if (m_layout != Layout::Double4 || !m_drawn[current])
        return;
    static const int block = elementwiseBlock(narrowPositionsKernel);
    const int n = int(m_n);
    narrowPositionsKernel<<<gridFor(n, block), block>>>(static_cast<const double4_32a*>(m_pos[current]),
                                                        reinterpret_cast<float4*>(m_drawn[current]), n);
    NB_CUDA_CHECK_LAUNCH("narrowPositionsKernel");
}

long long DeviceState::firstNonFinite(int current)
{
    if (!hasPositions())
        throw std::logic_error("DeviceState::firstNonFinite: positions are not attached");
    const int n = int(m_n);
    // Stream 0 throughout, after the steps (a memset and an async copy to pinned memory: no
    // pageable upload, one wait).
    NB_CUDA_CHECK(cudaMemsetAsync(m_flag, 0, sizeof(int), nullptr));
    withLayout(m_layout, [&]<class P, class V>() {
        static const int block = elementwiseBlock(firstNonFiniteKernel<P, V>);
        firstNonFiniteKernel<P, V><<<gridFor(n, block), block>>>(static_cast<const P*>(m_pos[current]),
                                                                 static_cast<const V*>(m_vel), n, m_flag);
        NB_CUDA_CHECK_LAUNCH("firstNonFiniteKernel");
    });
    NB_CUDA_CHECK(cudaMemcpyAsync(m_flagHost, m_flag, sizeof(int), cudaMemcpyDeviceToHost, nullptr));
    NB_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    const int flag = *m_flagHost; // n − (first bad index), or 0
    return flag > 0 ? n - flag : -1;
}

DiagnosticSums DeviceState::measure(int current, double eps2, int blockSize)
{
    if (!hasPositions())
        throw std::logic_error("DeviceState::measure: positions are not attached");
    gpu::DiagnosticsArgs a;
    a.layout = m_layout;
    a.pos = m_pos[current];
    a.vel = m_vel;
    a.n = m_n;
    a.eps2 = eps2;
    a.blockSize = gpu::diagnosticsBlockSize(m_layout, blockSize);
    ensureWorkspace(gpu::diagnosticsWorkspaceBytes(m_n, a.blockSize));
    a.workspace = m_workspace;
    return gpu::launchDiagnostics(a);
}

void DeviceState::synchronize() const
{
    NB_CUDA_CHECK(cudaDeviceSynchronize());
}

std::string DeviceState::stickyError() noexcept
{
    (void)cudaGetLastError(); // a non-sticky error is cleared by reading it
    const cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        return {};
    try {
        return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
    } catch (...) {
        return {};
    }
}

} // namespace nbody
