#include "Distributed.h"

#if NBODY_HAVE_MPI
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> // Open MPI: MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif
#endif
#if NBODY_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

namespace nbody::mpi {

namespace {

Session* g_session = nullptr;

const char* env(const char* name)
{
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}

} // namespace

RowRange shareOf(std::size_t n, int rank, int size)
{
    if (size < 1 || rank < 0 || rank >= size)
        throw std::invalid_argument("rank " + std::to_string(rank) + " is not one of " + std::to_string(size) +
                                    " processes");
    if (std::size_t(size) > n)
        throw std::invalid_argument(std::to_string(size) + " processes cannot share " + std::to_string(n) +
                                    (n == 1 ? " body" : " bodies") + ": every process needs at least one (run with at most " +
                                    std::to_string(n) + (n == 1 ? " process" : " processes") + ", mpirun -np " +
                                    std::to_string(n) + ")");
    const std::size_t p = std::size_t(size), r = std::size_t(rank);
    const std::size_t base = n / p, extra = n % p;
    const std::size_t begin = r * base + std::min(r, extra);
    return {begin, begin + base + (r < extra ? 1 : 0)};
}

RankFailure::RankFailure(int rank, const std::string& message) : std::runtime_error(message), m_rank(rank) {}

bool builtWithMpi()
{
    return NBODY_HAVE_MPI != 0;
}

bool launchedByMpi()
{
    return env("OMPI_COMM_WORLD_SIZE") || env("PMIX_RANK") || env("PMI_RANK") || env("PMI_SIZE");
}

Session* session()
{
    return g_session;
}

#if NBODY_HAVE_MPI

namespace {

/// Throws std::runtime_error naming the call when an MPI call fails (the communicator's error
/// handler is MPI_ERRORS_RETURN, so a failed call returns instead of aborting the job).
void check(int rc, const char* what)
{
    if (rc == MPI_SUCCESS)
        return;
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(rc, text, &length);
    throw std::runtime_error(std::string(what) + " failed: " + std::string(text, std::size_t(length)));
}

} // namespace

/// The MPI ForceShare: shareOf() rows, MPI_Allgatherv of the accelerations, MPI_Allreduce of the
/// diagnostic sums (each after a checkpoint).
class Session::Share final : public ForceShare {
public:
    explicit Share(Session& s) : m_s(s) {}
    ~Share() override
    {
        abandonGather();
        for (auto& [bytes, type] : m_types)
            MPI_Type_free(&type);
    }

    RowRange rows(std::size_t n) const override { return shareOf(n, m_s.m_rank, m_s.m_size); }
    bool deviceAware() const override { return m_s.m_cudaAware; }
    int processes() const override { return m_s.m_size; }
    double agree(double value) override { return m_s.maximum(value); }
    ExchangeStats exchanged() const override { return m_s.m_exchange; }

    void beginGather(void* acc, std::size_t n, std::size_t elementBytes, bool /*onDevice*/, int chunks) override
    {
        abandonGather(); // a previous exchange left unfinished by an exception
        if (m_s.m_failRank == m_s.m_rank && m_s.m_failChunk < 0)
            throw std::runtime_error("failure injected by NBODY_MPI_FAIL_RANK=" + std::to_string(m_s.m_rank) +
                                     " (a test switch) before the force exchange");
        if (n > std::size_t(INT_MAX))
            throw std::invalid_argument("the force exchange counts bodies in int: " + std::to_string(n) +
                                        " bodies are too many");
        if (chunks < 1 || chunks > kMaxChunks)
            throw std::invalid_argument("the force exchange in " + std::to_string(chunks) +
                                        " chunks: choose 1 to " + std::to_string(kMaxChunks) + " (--exchange-chunks)");
        const int P = m_s.m_size;
        m_acc = acc;
        m_n = n;
        m_bytes = elementBytes;
        m_chunks = chunks;
        m_type = typeOf(elementBytes);
        m_counts.assign(std::size_t(P) * std::size_t(chunks), 0);
        m_displs.assign(std::size_t(P) * std::size_t(chunks), 0);
        for (int r = 0; r < P; ++r) {
            const RowRange rr = shareOf(n, r, P);
            for (int c = 0; c < chunks; ++c) {
                const RowRange piece = chunkOf(rr, c, chunks);
                m_counts[std::size_t(c) * std::size_t(P) + std::size_t(r)] = int(piece.size());
                m_displs[std::size_t(c) * std::size_t(P) + std::size_t(r)] = int(piece.begin);
            }
        }
        m_requests.assign(std::size_t(chunks), MPI_REQUEST_NULL);
        m_posted.assign(std::size_t(chunks), 0.0);
        m_done.assign(std::size_t(chunks), -1.0);
        m_next = 0;
        m_waiting = 0;
        m_active = true;
    }

    void postChunk(int c) override
    {
        if (!m_active || c != m_next)
            throw std::logic_error("ForceShare::postChunk: chunk " + std::to_string(c) + " out of order");
        if (m_s.m_failRank == m_s.m_rank && m_s.m_failChunk == c)
            throw std::runtime_error("failure injected by NBODY_MPI_FAIL_RANK=" + std::to_string(m_s.m_rank) +
                                     " (a test switch) in chunk " + std::to_string(c) + " of the force exchange, " +
                                     std::to_string(c) + " posted");
        const double t0 = now();
        m_s.checkpoint(); // a process that failed computing this chunk stops every process here
        const int P = m_s.m_size;
        int* counts = m_counts.data() + std::size_t(c) * std::size_t(P);
        int* displs = m_displs.data() + std::size_t(c) * std::size_t(P);
        // In place: this process's rows are already at their offset in acc.
        if (m_chunks == 1) {
            check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, m_acc, counts, displs, m_type, MPI_COMM_WORLD),
                  "MPI_Allgatherv of the accelerations");
            m_posted[0] = t0;
            m_done[0] = now();
        } else {
            check(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, m_acc, counts, displs, m_type, MPI_COMM_WORLD,
                                  &m_requests[std::size_t(c)]),
                  "MPI_Iallgatherv of the accelerations");
            m_posted[std::size_t(c)] = t0;
            test();
        }
        ++m_next;
        m_waiting += now() - t0;
    }

    void progress() override
    {
        if (m_active)
            test();
    }

    void finishGather() override
    {
        if (!m_active || m_next != m_chunks)
            throw std::logic_error("ForceShare::finishGather: " + std::to_string(m_next) + " of " +
                                   std::to_string(m_chunks) + " chunks posted");
        const double t0 = now();
        for (std::size_t c = 0; c < m_requests.size(); ++c)
            if (m_done[c] < 0) {
                check(MPI_Wait(&m_requests[c], MPI_STATUS_IGNORE), "MPI_Wait for the accelerations");
                m_done[c] = now();
            }
        m_waiting += now() - t0;
        m_active = false;
        ExchangeStats& x = m_s.m_exchange;
        ++x.gathers;
        x.seconds += m_waiting;
        x.inFlightSeconds += inFlight();
        x.collectives += std::uint64_t(m_chunks);
        x.chunks = m_chunks;
        x.bytesReceived += (m_n - rows(m_n).size()) * m_bytes;
    }

    void abandonGather() noexcept override
    {
        if (!m_active)
            return;
        // Every process posted these (each post follows a checkpoint they all passed): waiting
        // completes, and then MPI writes into acc no more.
        for (MPI_Request& r : m_requests)
            if (r != MPI_REQUEST_NULL)
                MPI_Wait(&r, MPI_STATUS_IGNORE);
        m_active = false;
    }

    void reduce(DiagnosticSums& s) override
    {
        m_s.checkpoint();
        double v[12] = {s.mass,        s.massMoment.x, s.massMoment.y, s.massMoment.z,
                        s.kinetic,     s.momentum.x,   s.momentum.y,   s.momentum.z,
                        s.angularMomentum.x, s.angularMomentum.y, s.angularMomentum.z, s.pairSum};
        check(MPI_Allreduce(MPI_IN_PLACE, v, 12, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
              "MPI_Allreduce of the diagnostics");
        s.mass = v[0];
        s.massMoment = Double3{v[1], v[2], v[3]};
        s.kinetic = v[4];
        s.momentum = Double3{v[5], v[6], v[7]};
        s.angularMomentum = Double3{v[8], v[9], v[10]};
        s.pairSum = v[11];
    }

private:
    /// A contiguous datatype of `bytes` bytes (one body's vector), so counts are bodies.
    MPI_Datatype typeOf(std::size_t bytes)
    {
        auto it = m_types.find(bytes);
        if (it != m_types.end())
            return it->second;
        MPI_Datatype t = MPI_DATATYPE_NULL;
        check(MPI_Type_contiguous(int(bytes), MPI_BYTE, &t), "MPI_Type_contiguous");
        check(MPI_Type_commit(&t), "MPI_Type_commit");
        m_types.emplace(bytes, t);
        return t;
    }

    static double now()
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    }

    /// Lets the posted chunks progress (Open MPI moves non-blocking collectives on inside MPI
    /// calls only) and notes when each is seen complete.
    void test()
    {
        for (std::size_t c = 0; c < std::size_t(m_next + 1) && c < m_requests.size(); ++c) {
            if (m_done[c] >= 0 || m_requests[c] == MPI_REQUEST_NULL)
                continue;
            int flag = 0;
            check(MPI_Test(&m_requests[c], &flag, MPI_STATUS_IGNORE), "MPI_Test of the accelerations");
            if (flag)
                m_done[c] = now();
        }
    }

    /// The union of the chunks' intervals [posted, done] (posted in order).
    double inFlight() const
    {
        double total = 0, reach = -1e300;
        for (std::size_t c = 0; c < m_posted.size(); ++c) {
            const double b = std::max(m_posted[c], reach), e = m_done[c];
            if (e > b)
                total += e - b;
            reach = std::max(reach, e);
        }
        return total;
    }

    static constexpr int kMaxChunks = 1024;

    Session& m_s;
    std::vector<int> m_counts, m_displs; ///< per chunk, per process: rows and offsets of the chunk
    std::map<std::size_t, MPI_Datatype> m_types;
    // The exchange in progress (beginGather … finishGather).
    bool m_active = false;
    void* m_acc = nullptr;
    std::size_t m_n = 0, m_bytes = 0;
    int m_chunks = 1, m_next = 0;
    MPI_Datatype m_type = MPI_DATATYPE_NULL;
    std::vector<MPI_Request> m_requests;
    std::vector<double> m_posted, m_done; ///< steady-clock seconds; done < 0: not seen complete yet
    double m_waiting = 0;                 ///< seconds held up inside this exchange so far
};

Session::Session(int* argc, char*** argv)
{
    g_session = this;
    if (!launchedByMpi())
        return;
    // The local rank before MPI_Init: select the device before anything touches CUDA.
    const char* local = env("OMPI_COMM_WORLD_LOCAL_RANK");
    if (!local)
        local = env("MPI_LOCALRANKID"); // MPICH, Intel MPI
    if (!local)
        local = env("SLURM_LOCALID");
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        throw std::runtime_error("MPI_Init_thread failed");
    m_distributed = true;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m_size);
    if (local) {
        m_localRank = std::atoi(local);
    } else {
        MPI_Comm node = MPI_COMM_NULL;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m_rank, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &m_localRank);
        MPI_Comm_free(&node);
    }
#if NBODY_HAVE_CUDA
    int devices = 0;
    if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
        m_device = m_localRank % devices;
        if (cudaSetDevice(m_device) != cudaSuccess) {
            cudaGetLastError();
            m_device = -1;
        }
    } else {
        cudaGetLastError(); // no device: CPU kernels only
    }
#endif
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    m_cudaAware = MPIX_Query_cuda_support() == 1;
#endif
    if (const char* v = env("NBODY_MPI_CUDA_AWARE"); v && std::strcmp(v, "0") == 0)
        m_cudaAware = false;
    if (const char* v = env("NBODY_MPI_FAIL_RANK"))
        m_failRank = std::atoi(v);
    if (const char* v = env("NBODY_MPI_FAIL_CHUNK"))
        m_failChunk = std::atoi(v);
    m_share = std::make_unique<Share>(*this);
}

Session::~Session()
{
    m_share.reset();
    if (m_distributed)
        MPI_Finalize();
    g_session = nullptr;
}

std::string Session::describe() const
{
    if (!m_distributed)
        return {};
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string lib(version, std::size_t(length));
    if (const auto comma = lib.find_first_of(",\n"); comma != std::string::npos)
        lib.resize(comma);
    return std::to_string(m_size) + (m_size == 1 ? " process" : " processes") + " (" + lib + "), " +
           (m_cudaAware ? "CUDA-aware exchange from device memory" : "host-staged exchange") +
           (m_device >= 0 ? ", rank 0 on device " + std::to_string(m_device) : std::string());
}

ForceShare* Session::share()
{
    return m_share.get();
}

Session::ExchangeStats Session::exchangeStats() const
{
    return m_exchange;
}

namespace {

/// The agreement: every process gives its rank when it failed, else `size`; the smallest is the
/// failing rank whose message everyone gets (0 bytes of message when none failed).
int agree(int mine, int size)
{
    int lowest = size;
    if (MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        return -1;
    return lowest;
}

std::string receiveMessage(int from, const std::string& mine)
{
    unsigned long long length = mine.size();
    MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, from, MPI_COMM_WORLD);
    std::string text = mine;
    text.resize(std::size_t(length));
    MPI_Bcast(text.data(), int(length), MPI_CHAR, from, MPI_COMM_WORLD);
    return text;
}

std::string prefixed(int rank, int size, const std::string& message)
{
    return "rank " + std::to_string(rank) + " of " + std::to_string(size) + ": " + message;
}

} // namespace

void Session::checkpoint()
{
    if (!m_distributed)
        return;
    const int lowest = agree(m_size, m_size);
    if (lowest == m_size)
        return;
    if (lowest < 0)
        abort("rank " + std::to_string(m_rank) + ": the agreement on failures (MPI_Allreduce) failed");
    m_failureKnown = true;
    throw RankFailure(lowest, receiveMessage(lowest, {}));
}

RankFailure Session::fail(const std::string& message) noexcept
{
    const std::string text = prefixed(m_rank, m_size, message);
    if (!m_distributed)
        return RankFailure(m_rank, text);
    const int lowest = agree(m_rank, m_size);
    if (lowest < 0)
        abort(text);
    m_failureKnown = true;
    return RankFailure(lowest, receiveMessage(lowest, lowest == m_rank ? text : std::string()));
}

void Session::abort(const std::string& message) noexcept
{
    std::fprintf(stderr, "nbody: %s\n", message.c_str());
    std::fflush(stderr);
    if (m_distributed)
        MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();
}

void Session::broadcast(std::vector<unsigned char>& bytes)
{
    if (!m_distributed || m_size == 1)
        return;
    checkpoint();
    unsigned long long length = bytes.size();
    check(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast of the system's size");
    if (!root())
        bytes.resize(std::size_t(length));
    // In pieces of at most 1 GiB (MPI counts are int).
    constexpr std::size_t kPiece = std::size_t(1) << 30;
    for (std::size_t at = 0; at < bytes.size(); at += kPiece)
        check(MPI_Bcast(bytes.data() + at, int(std::min(kPiece, bytes.size() - at)), MPI_BYTE, 0, MPI_COMM_WORLD),
              "MPI_Bcast of the system");
}

double Session::maximum(double value)
{
    if (!m_distributed || m_size == 1)
        return value;
    checkpoint();
    double out = value;
    check(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce (maximum)");
    return out;
}

#else // no MPI in this build: one process

class Session::Share {};

Session::Session(int*, char***)
{
    g_session = this;
}

Session::~Session()
{
    g_session = nullptr;
}

std::string Session::describe() const { return {}; }
ForceShare* Session::share() { return nullptr; }
Session::ExchangeStats Session::exchangeStats() const { return m_exchange; }
void Session::checkpoint() {}
RankFailure Session::fail(const std::string& message) noexcept
{
    m_failureKnown = true;
    return RankFailure(0, message);
}
void Session::abort(const std::string& message) noexcept
{
    std::fprintf(stderr, "nbody: %s\n", message.c_str());
    std::abort();
}
void Session::broadcast(std::vector<unsigned char>&) {}
double Session::maximum(double value) { return value; }

#endif

} // namespace nbody::mpi
