#pragma once
/// \file ForceShare.h
/// How the gravity system's rows are shared among processes. A Simulation alone computes every
/// row; with a ForceShare (src/mpi/Distributed.h implements one over MPI) it computes the
/// accelerations of its own bodies [rows.begin, rows.end), each over all N bodies j in the same
/// order (the force contract's i-range, KernelRegistry.h), and the share assembles the rows of
/// every process into the whole column before the closing kick. Every process then runs the same
/// kicks and drifts over all N bodies, so all of them hold the same state, bit for bit the state
/// of a single process with the same deterministic kernel.

#include "Diagnostics.h"
#include "KernelRegistry.h"

#include <cstddef>
#include <cstdint>

namespace nbody {

/// What the force exchange cost a process so far: gathers (one per force evaluation), wall-clock
/// seconds inside them (the failure checkpoint and the collective, so waiting for slower
/// processes counts), and bytes received (the other processes' rows).
struct ExchangeStats {
    std::uint64_t gathers = 0;
    double seconds = 0;
    std::uint64_t bytesReceived = 0;
};

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
    /// process when another process failed (see Distributed.h).
    virtual void gather(void* acc, std::size_t n, std::size_t elementBytes, bool onDevice) = 0;
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
