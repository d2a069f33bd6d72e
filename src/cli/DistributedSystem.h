#pragma once
/// \file DistributedSystem.h
/// What `nbody run`, `bench` and `validate` need to run on several processes (src/mpi): rank 0
/// builds the system and the others receive it, and the launch parameters are made the same on
/// every process. Single process (no MPI session, or not launched by mpirun): plain calls.

#include "Headless.h"
#include "mpi/Distributed.h"

#include <string>
#include <vector>

namespace nbody::cli {

/// The session when this process is one of a distributed run, else nullptr.
mpi::Session* distributedSession();
/// True on rank 0 and in a single process: the process that writes outputs.
bool writesOutputs();

/// prepareSystem() on rank 0; the others receive its result (world, parameters, the exact fp64
/// state, the notes) through Session::broadcast(). Returns prepareSystem's code on rank 0; on
/// the others 0, or throws RankFailure when rank 0 failed (its fail() meets their checkpoint).
/// Before allocating, a receiving process checks that the system fits its memory
/// (checkHostMemory, MemoryBudget.h) and refuses it with the bytes needed otherwise.
int prepareSharedSystem(const char* command, const SystemOptions& o, PreparedSystem& out);

/// Makes every process use rank 0's launch parameters for row k at n bodies: on rank 0 the
/// resolved values (deviceForceArgs: the user's, the tuned or the row's defaults), broadcast to
/// the others. A j-split or another parameter that orders the j-sum must be the same everywhere
/// for the ranks' rows to agree bit for bit with one process. No-op for CPU rows and one process.
void shareLaunchParameters(const KernelInfo& k, SimParams& p, std::size_t n);

/// Serialises and restores a PreparedSystem (little-endian host layout; the processes of one
/// job run the same binary). Throws std::runtime_error for a truncated buffer.
std::vector<unsigned char> serialise(const PreparedSystem& s);
PreparedSystem deserialise(const std::vector<unsigned char>& bytes);

} // namespace nbody::cli
