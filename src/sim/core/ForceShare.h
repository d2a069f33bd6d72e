#pragma once
/// \file ForceShare.h
/// How the gravity system's rows are shared among processes. A Simulation alone computes every
/// row; with a ForceShare (src/mpi/Distributed.h implements one over MPI) it computes the
/// accelerations of its own bodies [rows.begin, rows.end), each over all N bodies j in the same
/// order (the force contract's i-range, KernelRegistry.h), and the share assembles the rows of
/// every process into the whole column before the closing kick. Every process then runs the same
/// kicks and drifts over all N bodies, so all of them hold the same state, bit for bit the state
/// of a single process with the same deterministic kernel.

#include "sim/core/Diagnostics.h"
#include "sim/core/KernelRegistry.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace nbody {

/// What the force exchange cost a process so far. gathers: force evaluations exchanged;
/// seconds: wall-clock seconds this process was held up by the exchange (the failure
/// checkpoints, posting the collectives, the final wait: waiting for slower processes counts);
/// inFlightSeconds: the time some part of the exchange was under way, from each chunk's post to
/// the moment its completion was seen (the union of those intervals per evaluation; with one
/// chunk the same interval as `seconds`), so inFlightSeconds − seconds is the part of the
/// exchange that ran behind computation (hidden); collectives: the collectives posted (one per
/// chunk and evaluation); chunks: the chunks of the last exchange; bytesReceived: the other
/// processes' rows.
struct ExchangeStats {
    std::uint64_t gathers = 0;
    double seconds = 0;
    double inFlightSeconds = 0;
    std::uint64_t collectives = 0;
    int chunks = 0;
    std::uint64_t bytesReceived = 0;
    /// The share of the exchange's time in flight that computation hid, 0..1 (0 without one).
    double hiddenFraction() const
    {
        return inFlightSeconds > seconds && inFlightSeconds > 0 ? (inFlightSeconds - seconds) / inFlightSeconds : 0.0;
    }
};

/// The chunks of a pipelined exchange for `rows` rows (the smallest share, N / P) of `processes`
/// processes: `requested` when > 0 (the user's --exchange-chunks; 1 = one blocking collective),
/// else the automatic choice — 1 for one process, a tree row (tree kernels rebuild their tree
/// per call), minRowsPerChunk 0 (the CPU rows: see Simulation::exchangeChunks) or fewer rows
/// than 2 × minRowsPerChunk; otherwise rows / minRowsPerChunk, at most 4 (a pipeline of 4 hides
/// up to 3/4 of the exchange; each more chunk costs a checkpoint and a collective's latency).
/// minRowsPerChunk is what keeps one chunk's launch filling the device (CUDA rows: 65536). The
/// same on every process (it depends on N, P and the kernel only), as every process must post
/// the same collectives.
inline int exchangeChunksFor(int requested, std::size_t rows, int processes, bool treeRow,
                             std::size_t minRowsPerChunk)
{
    if (requested > 0)
        return requested;
    if (processes <= 1 || treeRow || minRowsPerChunk == 0 || rows < 2 * minRowsPerChunk)
        return 1;
    return int(std::min<std::size_t>(rows / minRowsPerChunk, 4));
}

/// Chunk c of `chunks` of the rows `rows`: [b + s·c/C, b + s·(c+1)/C), s = rows.size()
/// (empty chunks when s < C).
inline RowRange chunkOf(RowRange rows, int c, int chunks)
{
    const std::size_t s = rows.size(), C = std::size_t(chunks > 0 ? chunks : 1), k = std::size_t(c);
    return {rows.begin + s * k / C, rows.begin + s * (k + 1) / C};
}

class ForceShare {
public:
    virtual ~ForceShare() = default;
    /// This process's rows of a system of n bodies (the others belong to other processes).
    virtual RowRange rows(std::size_t n) const = 0;
    /// True when gather() may be given device memory (a CUDA-aware MPI).
    virtual bool deviceAware() const = 0;
    /// Fills every row of `acc` (n elements of elementBytes each: the kernel layout's vector) with
    /// the rows the processes computed, each process contributing rows(n). acc is host memory, or
    /// device memory when onDevice (only when deviceAware()); the caller has finished writing it.
    /// Collective: every process calls it in the same order. Throws std::runtime_error naming the
    /// process when another process failed (see Distributed.h). The same as beginGather(…, 1),
    /// postChunk(0), finishGather().
    virtual void gather(void* acc, std::size_t n, std::size_t elementBytes, bool onDevice)
    {
        beginGather(acc, n, elementBytes, onDevice, 1);
        postChunk(0);
        finishGather();
    }
    /// The pipelined exchange (docs/mpi.md): the rows of every process in `chunks` chunks
    /// (chunkOf(rows(n), c, chunks) of each), one collective per chunk. beginGather() names the
    /// buffer (as gather()) before any chunk is computed; postChunk(c), in order c = 0, 1, …,
    /// once this process's chunk c is in `acc`: a failure checkpoint, then the chunk's
    /// collective is started (chunks = 1: the blocking one of gather()) and the earlier chunks
    /// are given a chance to progress; progress() only that (while the device computes);
    /// finishGather() waits for every chunk: then every row of `acc` holds every process's rows.
    /// Every process must make the same calls with the same `chunks`. After an exception from
    /// any of them or from the computation between them, call abandonGather() (it waits for the
    /// collectives already posted, which every process posted, so that no buffer is written
    /// after it returns) before rethrowing. Throw as gather().
    virtual void beginGather(void* acc, std::size_t n, std::size_t elementBytes, bool onDevice, int chunks) = 0;
    virtual void postChunk(int c) = 0;
    virtual void progress() {}
    virtual void finishGather() = 0;
    virtual void abandonGather() noexcept {}
    /// Sums the diagnostic sums of every process's rows (fp64) into `sums` on every process.
    /// Collective; throws as gather().
    virtual void reduce(DiagnosticSums& sums) = 0;
    /// The number of processes sharing the rows (1: this process alone).
    virtual int processes() const { return 1; }
    /// Collective: the largest of every process's `value`, on every process. What a decision
    /// taken from a timing (a sample count, a skip) must use, so that every process takes the
    /// same decision and they all make the same collectives. Throws as gather().
    virtual double agree(double value) { return value; }
    /// The exchange so far (gather() calls, seconds inside them, bytes received); zeros for a
    /// share that does not communicate.
    virtual ExchangeStats exchanged() const { return {}; }
};

} // namespace nbody
