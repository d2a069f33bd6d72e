#pragma once
/// \file Distributed.h
/// The distributed backend: `mpirun -np P nbody run …` (and bench, validate, render) over MPI
/// (Open MPI from Debian, or any MPI-3 library). docs/mpi.md tells how to run it.
///
/// Decomposition (the all-pairs scheme of phi-GPU and HiGPUs): every process holds the whole
/// state and owns the rows shareOf(N, rank, P) of the force evaluation; it computes the
/// accelerations of its own bodies over all N bodies j (the force contract's i-range,
/// KernelRegistry.h) and one MPI_Allgatherv per force evaluation assembles every row on every
/// process (host-staged, or from device memory when the MPI library is CUDA-aware, asked at run
/// time with MPIX_Query_cuda_support) — or, pipelined (SimParams::exchangeChunks > 1), one
/// MPI_Iallgatherv per chunk of every process's rows, posted as soon as the chunk is computed
/// while the next one computes (ForceShare::beginGather … finishGather). Every process then runs the same kicks and drifts, so all
/// hold the same state: with a deterministic kernel, bit for bit the state of one process.
/// Bytes per force evaluation and process: N × the layout's vector (16 for float4, 32 for double4)
/// received, its own rows sent. Diagnostics sum each process's rows, reduced in fp64.
///
/// Rank 0 reads the inputs and writes every output; the others receive the system from it
/// (broadcast()). Errors: every collective of this file is preceded by checkpoint(), where each
/// process says whether it failed; a process that fails calls fail() instead, which meets the
/// others' checkpoint, so every process stops with the failing rank's message (RankFailure)
/// instead of waiting for it forever. A process that cannot take part any more aborts the job
/// (MPI_Abort) after printing its message.
///
/// Without MPI in the build (NBODY_ENABLE_MPI off or MPI not found) a Session is always a
/// single process and never distributed.

#include "sim/core/ForceShare.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace nbody::mpi {

/// The rows of process `rank` of `size` for n bodies: n / size each, one more for the first
/// n % size ranks, in rank order (so rank r's rows follow rank r−1's). Throws std::invalid_argument
/// when size > n ("3 processes cannot share 2 bodies: ... at most 2 processes") or size < 1, or
/// rank is not in 0..size−1.
RowRange shareOf(std::size_t n, int rank, int size);

/// Another process failed: what() is "rank K of P: <its message>".
class RankFailure : public std::runtime_error {
public:
    RankFailure(int rank, const std::string& message);
    int rank() const { return m_rank; }

private:
    int m_rank;
};

/// True when this build has MPI (NBODY_HAVE_MPI).
bool builtWithMpi();
/// True when an MPI launcher (mpirun, mpiexec, srun with PMI/PMIx) started this process: its
/// environment names a rank (OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_RANK or PMI_SIZE).
bool launchedByMpi();

/// MPI for the lifetime of the object (MPI_Init_thread … MPI_Finalize; one per process).
class Session {
public:
    /// Starts MPI when this build has it and launchedByMpi(); otherwise a single process. With
    /// CUDA, each process of a host selects device (local rank mod device count) before any
    /// other CUDA call (OMPI_COMM_WORLD_LOCAL_RANK, else MPI_Comm_split_type by shared memory).
    /// Throws std::runtime_error when MPI_Init fails.
    Session(int* argc, char*** argv);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    bool distributed() const { return m_distributed; } ///< launched by MPI (also with one process)
    int rank() const { return m_rank; }
    int size() const { return m_size; }
    int localRank() const { return m_localRank; }     ///< rank among the processes of this host
    int device() const { return m_device; }           ///< CUDA device selected, −1: none
    bool root() const { return m_rank == 0; }
    /// The MPI library may be given device pointers (MPIX_Query_cuda_support() at run time, and
    /// NBODY_MPI_CUDA_AWARE=0 not set).
    bool cudaAware() const { return m_cudaAware; }
    /// "3 processes (Open MPI v4.1.4), host-staged exchange, device 0 on rank 0"; "" when not distributed.
    std::string describe() const;

    /// The force share of this process (Simulation::setForceShare); nullptr when not distributed.
    ForceShare* share();

    /// What the force exchange cost this process so far (ForceShare.h's ExchangeStats).
    using ExchangeStats = nbody::ExchangeStats;
    ExchangeStats exchangeStats() const;

    /// Collective: every process says it is well. Returns when all are; throws RankFailure with
    /// the message of the lowest failing rank when one called fail().
    void checkpoint();
    /// Collective counterpart of checkpoint() for a process that failed with `message`: returns
    /// the RankFailure every process reports (the lowest failing rank's). Never throws.
    RankFailure fail(const std::string& message) noexcept;
    /// True once checkpoint() threw or fail() returned: every process knows of a failure, and
    /// no further collective may be entered.
    bool failureKnown() const { return m_failureKnown; }
    /// Aborts every process of the job (MPI_Abort) after printing `message` on stderr: for a
    /// process that cannot reach the next collective.
    [[noreturn]] void abort(const std::string& message) noexcept;

    /// Collective: rank 0's bytes to every process (resized on the others); checkpoint() first.
    void broadcast(std::vector<unsigned char>& bytes);
    /// Collective: the largest of every process's value; checkpoint() first.
    double maximum(double value);

private:
    class Share;
    bool m_distributed = false;
    int m_rank = 0, m_size = 1, m_localRank = 0, m_device = -1;
    bool m_cudaAware = false;
    bool m_failureKnown = false;
    int m_failRank = -1; ///< NBODY_MPI_FAIL_RANK: this rank fails in its first force exchange (tests)
    int m_failChunk = -1; ///< NBODY_MPI_FAIL_CHUNK: … at chunk c of it, after chunks 0 … c−1 were posted
    std::unique_ptr<Share> m_share;
    ExchangeStats m_exchange;
};

/// The session of this process, or nullptr before it is made (or after it ends).
Session* session();

} // namespace nbody::mpi
