#include "CudaCheck.cuh"
#include "DeviceState.h"

#include <stdexcept>

namespace nbody {

namespace {

/// v += ½ a dt: the kick of KDK leapfrog, shared by both half steps.
__device__ __forceinline__ float4 halfKick(float4 v, float4 a, float dt)
{
    v.x += 0.5f * dt * a.x;
    v.y += 0.5f * dt * a.y;
    v.z += 0.5f * dt * a.z;
    return v;
}

// KDK leapfrog, opening half: v += ½ a dt; x' = x + v dt. Reads `from`, writes `to`.
// Memory: 16 B read from each of pos, vel, acc; 16 B written to vel and to `to`, per body.
__global__ void kickDriftKernel(const float4* __restrict__ from, float4* __restrict__ to,
                                float4* __restrict__ vel, const float4* __restrict__ acc, int n,
                                float dt)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float4 v = halfKick(vel[i], acc[i], dt);
    const float4 x = from[i];
    vel[i] = v;
    to[i] = make_float4(x.x + dt * v.x, x.y + dt * v.y, x.z + dt * v.z, x.w);
}

// KDK leapfrog, closing half: v += ½ a dt.
__global__ void kickKernel(float4* __restrict__ vel, const float4* __restrict__ acc, int n, float dt)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    vel[i] = halfKick(vel[i], acc[i], dt);
}

__device__ bool finite4(float4 v)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z) && isfinite(v.w);
}

// Lowest index i with a non-finite position, mass or velocity into *first (initialised to n).
__global__ void firstNonFiniteKernel(const float4* __restrict__ pos, const float4* __restrict__ vel, int n,
                                     int* first)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && !(finite4(pos[i]) && finite4(vel[i])))
        atomicMin(first, i);
}

/// Block size for the element-wise kernels, from the occupancy calculator (once per kernel).
template <class K>
int elementwiseBlock(K kernel)
{
    int minGrid = 0, block = 0;
    NB_CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, kernel, 0, 0));
    return block > 0 ? block : 256;
}

float4* f4(Float4* p) { return reinterpret_cast<float4*>(p); }
const float4* f4c(const Float4* p) { return reinterpret_cast<const float4*>(p); }

} // namespace

DeviceState::DeviceState(std::size_t n, PositionStorage storage) : m_n(n), m_storage(storage)
{
    if (n == 0 || n > std::size_t(INT32_MAX))
        throw std::invalid_argument("DeviceState: body count out of range");
    const std::size_t bytes = n * sizeof(Float4);
    try {
        NB_CUDA_CHECK(cudaMalloc(&m_vel, bytes));
        NB_CUDA_CHECK(cudaMalloc(&m_acc, bytes));
        NB_CUDA_CHECK(cudaMalloc(&m_flag, sizeof(int)));
        if (storage == PositionStorage::Owned) {
            NB_CUDA_CHECK(cudaMalloc(&m_owned[0], bytes));
            NB_CUDA_CHECK(cudaMalloc(&m_owned[1], bytes));
            m_pos[0] = m_owned[0];
            m_pos[1] = m_owned[1];
        }
    } catch (...) {
        cudaFree(m_vel);
        cudaFree(m_acc);
        cudaFree(m_flag);
        cudaFree(m_owned[0]);
        cudaFree(m_owned[1]);
        throw;
    }
}

DeviceState::~DeviceState()
{
    // Destructors never throw: errors here are reported by the next checked call.
    cudaFree(m_vel);
    cudaFree(m_acc);
    cudaFree(m_flag);
    cudaFree(m_owned[0]);
    cudaFree(m_owned[1]);
}

void DeviceState::attach(Float4* p0, Float4* p1)
{
    if (m_storage != PositionStorage::External)
        throw std::logic_error("DeviceState::attach: positions are owned by the simulation");
    if (!p0 || !p1 || p0 == p1)
        throw std::logic_error("DeviceState::attach: two distinct non-null buffers are required");
    m_pos[0] = p0;
    m_pos[1] = p1;
}

void DeviceState::detach()
{
    if (m_storage == PositionStorage::External)
        m_pos[0] = m_pos[1] = nullptr;
}

void DeviceState::upload(const World& w, int current)
{
    if (w.size() != m_n)
        throw std::logic_error("DeviceState::upload: world size differs from the device state");
    if (!hasPositions())
        throw std::logic_error("DeviceState::upload: positions are not attached");
    const std::size_t bytes = m_n * sizeof(Float4);
    NB_CUDA_CHECK(cudaMemcpy(m_pos[current], w.positions().data(), bytes, cudaMemcpyHostToDevice));
    NB_CUDA_CHECK(cudaMemcpy(m_vel, w.velocities().data(), bytes, cudaMemcpyHostToDevice));
    NB_CUDA_CHECK(cudaMemcpy(m_acc, w.accelerations().data(), bytes, cudaMemcpyHostToDevice));
}

void DeviceState::download(World& w, int current) const
{
    if (w.size() != m_n)
        throw std::logic_error("DeviceState::download: world size differs from the device state");
    if (!hasPositions())
        throw std::logic_error("DeviceState::download: positions are not attached");
    const std::size_t bytes = m_n * sizeof(Float4);
    NB_CUDA_CHECK(cudaMemcpy(w.positions().data(), m_pos[current], bytes, cudaMemcpyDeviceToHost));
    NB_CUDA_CHECK(cudaMemcpy(w.velocities().data(), m_vel, bytes, cudaMemcpyDeviceToHost));
    NB_CUDA_CHECK(cudaMemcpy(w.accelerations().data(), m_acc, bytes, cudaMemcpyDeviceToHost));
}

void DeviceState::computeForces(const KernelInfo& k, const SimParams& p, int current)
{
    if (!k.device)
        throw std::logic_error("DeviceState::computeForces: kernel '" + std::string(k.id) + "' has no CUDA launcher");
    if (!hasPositions())
        throw std::logic_error("DeviceState::computeForces: positions are not attached");
    DeviceForceArgs a = deviceForceArgs(p, m_n);
    a.pos = m_pos[current];
    a.acc = m_acc;
    k.device(a);
}

void DeviceState::kickDrift(float dt, int current)
{
    if (!hasPositions())
        throw std::logic_error("DeviceState::kickDrift: positions are not attached");
    static const int block = elementwiseBlock(kickDriftKernel);
    const int n = int(m_n);
    kickDriftKernel<<<(n + block - 1) / block, block>>>(f4(m_pos[current]), f4(m_pos[1 - current]),
                                                         f4(m_vel), f4(m_acc), n, dt);
    NB_CUDA_CHECK_LAUNCH("kickDriftKernel");
}

void DeviceState::kick(float dt)
{
    static const int block = elementwiseBlock(kickKernel);
    const int n = int(m_n);
    kickKernel<<<(n + block - 1) / block, block>>>(f4(m_vel), f4(m_acc), n, dt);
    NB_CUDA_CHECK_LAUNCH("kickKernel");
}

long long DeviceState::firstNonFinite(int current)
{
    if (!hasPositions())
        throw std::logic_error("DeviceState::firstNonFinite: positions are not attached");
    static const int block = elementwiseBlock(firstNonFiniteKernel);
    const int n = int(m_n);
    NB_CUDA_CHECK(cudaMemcpy(m_flag, &n, sizeof(int), cudaMemcpyHostToDevice));
    firstNonFiniteKernel<<<(n + block - 1) / block, block>>>(f4c(m_pos[current]), f4c(m_vel), n, m_flag);
    NB_CUDA_CHECK_LAUNCH("firstNonFiniteKernel");
    int first = n;
    NB_CUDA_CHECK(cudaMemcpy(&first, m_flag, sizeof(int), cudaMemcpyDeviceToHost));
    return first < n ? first : -1;
}

void DeviceState::synchronize() const
{
    NB_CUDA_CHECK(cudaDeviceSynchronize());
}

} // namespace nbody
