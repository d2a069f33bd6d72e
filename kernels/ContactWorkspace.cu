/// \file ContactWorkspace.cu
/// The CUDA contact searches' shared workspace and read-backs (ContactWorkspace.cuh), and what
/// ContactSearch.h declares besides the searches: the statistics, the release of the workspaces
/// and the device columns of the tests and the bench.

#include "ContactWorkspace.cuh"

namespace nbody::gpu {

namespace contact {

namespace {

/// keys i·2^shift + j (count of them) → pairs (i, j), grid-stride.
__global__ void unpackKernel(const u64* __restrict__ keys, u64 count, int shift, uint2* __restrict__ pairs)
{
    const u64 mask = (u64(1) << shift) - 1;
    for (u64 k = u64(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += u64(gridDim.x) * blockDim.x) {
        const u64 key = keys[k];
        pairs[k] = make_uint2(unsigned(key >> shift), unsigned(key & mask));
    }
}

} // namespace

std::mutex& workspaceMutex()
{
    static std::mutex m;
    return m;
}

std::map<int, std::unique_ptr<Workspace>>& workspaces()
{
    static auto* const w = new std::map<int, std::unique_ptr<Workspace>>;
    return *w;
}

Workspace& workspaceHere()
{
    int device = 0;
    NB_CUDA_CHECK(cudaGetDevice(&device));
    auto& w = workspaces()[device];
    if (!w)
        w = std::make_unique<Workspace>();
    return *w;
}

ContactSearchStats& searchStats()
{
    thread_local ContactSearchStats stats;
    return stats;
}

void checkArgs(const ContactSearchArgs& a, const char* row)
{
    if (a.n > 0 && (!a.position || !a.radius))
        throw std::invalid_argument(std::string("contact search (") + row +
                                    "): null position or radius column with n > 0");
    if (a.n > kMaxBodies)
        throw std::invalid_argument(std::string("contact search (") + row + "): " + std::to_string(a.n) +
                                    " bodies; the CUDA rows index bodies with 32-bit integers (at most 2^30 = " +
                                    std::to_string(kMaxBodies) + ")");
}

void checkPairsFit(const char* row, std::uint64_t pairs, std::size_t deviceBytesPerPair, std::size_t held)
{
    const double deviceNeed = (double)pairs * (double)deviceBytesPerPair;
    const double hostNeed = (double)pairs * (double)sizeof(ContactPair);
    const auto say = [&](const std::string& where, double need, std::size_t have, const std::string& what) {
        throw std::length_error(std::string("contact search (") + row + "): " + std::to_string(pairs) +
                                " touching pairs need " +
                                formatBytes(need >= (double)SIZE_MAX ? SIZE_MAX : std::size_t(need)) + " of " +
                                where + " memory; " + formatBytes(have) + " " + what);
    };
    std::size_t freeBytes = 0, totalBytes = 0;
    if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) {
        (void)cudaGetLastError();
    } else if (deviceNeed > (double)freeBytes + (double)held) {
        say("device", deviceNeed, freeBytes + held, "are free");
    }
    if (hostNeed > (double)std::vector<ContactPair>().max_size())
        say("host", hostNeed, 0, "can be held by a vector");
    if (const MemoryAvailable m = availableHostMemory(); m.known() && hostNeed > (double)m.bytes)
        say("host", hostNeed, m.bytes, "are available (" + m.source + ")");
}

const void* readBytes(Workspace& w, const void* device, std::size_t bytes, cudaStream_t stream)
{
    if (bytes > 4 * sizeof(u64))
        throw std::logic_error("contact search: a read-back of more than 32 bytes");
    u64* h = w.host();
    NB_CUDA_CHECK(cudaMemcpyAsync(h, device, bytes, cudaMemcpyDeviceToHost, stream));
    NB_CUDA_CHECK(cudaStreamSynchronize(stream));
    return h;
}

const u64* readScalars(Workspace& w, const u64* device, int count, cudaStream_t stream)
{
    return static_cast<const u64*>(readBytes(w, device, std::size_t(count) * sizeof(u64), stream));
}

std::vector<ContactPair> download(const uint2* pairs, std::uint64_t count, cudaStream_t stream)
{
    std::vector<ContactPair> out(static_cast<std::size_t>(count));
    if (count > 0) {
        NB_CUDA_CHECK(cudaMemcpyAsync(out.data(), pairs, std::size_t(count) * sizeof(ContactPair),
                                      cudaMemcpyDeviceToHost, stream));
        NB_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    return out;
}

std::vector<ContactPair> sortUnpackDownload(Workspace& w, std::uint64_t count, int shift, cudaStream_t stream)
{
    u64* a = w.get<u64>(kKeysA, count * sizeof(u64));
    u64* b = w.get<u64>(kKeysB, count * sizeof(u64));
    cub::DoubleBuffer<u64> keys(a, b);
    std::size_t tempBytes = 0;
    NB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, tempBytes, keys, count, 0, 2 * shift, stream));
    void* temp = w.get<unsigned char>(kCubTemp, std::max<std::size_t>(tempBytes, 1));
    NB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, tempBytes, keys, count, 0, 2 * shift, stream));
    const u64* sorted = keys.Current();
    auto* pairs = reinterpret_cast<uint2*>(keys.Alternate());
    const int block = blockFor(w, unpackKernel, 0);
    const int grid = int(std::min<std::uint64_t>((count + u64(block) - 1) / u64(block),
                                                 std::uint64_t(deviceLimits().multiprocessors) * 32));
    unpackKernel<<<std::max(grid, 1), block, 0, stream>>>(sorted, count, shift, pairs);
    NB_CUDA_CHECK_LAUNCH("contact unpackKernel");
    return download(pairs, count, stream);
}

void finish(Workspace& w, std::uint64_t pairs)
{
    searchStats().pairs = pairs;
    searchStats().workspaceBytes = w.bytes();
}

} // namespace contact

using namespace contact;

// ---- the rest ------------------------------------------------------------------------------

ContactSearchStats lastContactSearchStats() { return searchStats(); }

void releaseContactWorkspaces()
{
    const std::lock_guard lock(workspaceMutex());
    if (workspaces().empty())
        return;
    int current = 0;
    NB_CUDA_CHECK(cudaGetDevice(&current));
    for (auto& [device, w] : workspaces()) {
        NB_CUDA_CHECK(cudaSetDevice(device));
        w->release();
    }
    NB_CUDA_CHECK(cudaSetDevice(current));
    workspaces().clear();
}

DeviceContactColumns::DeviceContactColumns(std::span<const Float4> position, std::span<const float> radius)
    : m_n(position.size())
{
    if (radius.size() != position.size())
        throw std::invalid_argument("contact columns: " + std::to_string(position.size()) + " positions but " +
                                    std::to_string(radius.size()) + " radii");
    if (m_n == 0)
        return;
    const std::size_t posBytes = m_n * sizeof(Float4), radBytes = m_n * sizeof(float);
    checkDeviceBytes(posBytes + radBytes, "the contact columns of " + std::to_string(m_n) + " bodies");
    try {
        NB_CUDA_CHECK(cudaMalloc(&m_position, posBytes));
        NB_CUDA_CHECK(cudaMalloc(&m_radius, radBytes));
        NB_CUDA_CHECK(cudaMemcpy(m_position, position.data(), posBytes, cudaMemcpyHostToDevice));
        NB_CUDA_CHECK(cudaMemcpy(m_radius, radius.data(), radBytes, cudaMemcpyHostToDevice));
    } catch (...) {
        (void)cudaFree(m_position);
        (void)cudaFree(m_radius);
        throw;
    }
}

DeviceContactColumns::~DeviceContactColumns()
{
    // A destructor cannot throw: a failed free (a lost context) is not reported.
    (void)cudaFree(m_position);
    (void)cudaFree(m_radius);
}

} // namespace nbody::gpu
