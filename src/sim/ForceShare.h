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

namespace nbody {

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
};

} // namespace nbody
