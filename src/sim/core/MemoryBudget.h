#pragma once
/// \file MemoryBudget.h
/// How much host memory a system of N bodies needs, how much this process may still use, and a
/// check that refuses a system that cannot fit before anything is allocated for it.

#include "contracts/HostMemory.h"
#include <cstddef>
#include <string>
#include <system_error>

namespace nbody {

struct KernelInfo;
struct DeviceForceArgs;
struct SimParams;

/// Bytes per body of the World's columns: position, velocity and acceleration Float4 (16 each),
/// id uint32 (4) and group (1).
inline constexpr std::size_t kWorldBytesPerBody = 3 * 16 + 4 + 1;
/// Bytes per body of an fp64 state (Fp64State: position, velocity and acceleration Double4).
inline constexpr std::size_t kFp64StateBytesPerBody = 3 * 32;

/// Host bytes per body of the collision system's contact lists on the CPU (ContactSearch.cpp:
/// `cpu-cells` keys 8, order 4, cells 24 and a pair 8 a body; `cpu-pairs` a list of 24 and a
/// pair 8), counted for a run with collisions.
inline constexpr std::size_t kContactHostBytesPerBody = 8 + 4 + 24 + 8;

/// What simulating n bodies with row `kernel` allocates beyond the system's own columns, by
/// part: the one estimate of every kernel's workspace, checked before it is allocated
/// (checkWorkspace, Simulation::setKernel) and part of hostBytesFor. Saturates at SIZE_MAX.
struct WorkspaceEstimate {
    std::size_t scratch = 0;  ///< the CPU kernels' fp32 structure-of-arrays scratch (16 a body)
    std::size_t tree = 0;     ///< a CPU tree row: kTreeHostBytesPerBody (TreeCpu.h: keys, indices, sorted
                              ///< positions, nodes, fp64 moments, cells, the construction's scratch and sort buffer)
    std::size_t fp64 = 0;     ///< an fp64 row (Layout::Double4): its state and one widened copy (2 x kFp64StateBytesPerBody)
    std::size_t contacts = 0; ///< with collisions: the contact lists (kContactHostBytesPerBody)
    /// CUDA rows: the device state (two position buffers, velocities and accelerations in the
    /// row's layout) and KernelInfo::workspace for the launch parameters given (0 when the row
    /// has no workspace function, as in a build without CUDA).
    std::size_t device = 0;
    std::size_t hostBytes() const;
    /// "the tree and its sort buffer 150 MB, structure-of-arrays scratch 16 MB" (the host parts
    /// that are not 0).
    std::string describeHost() const;
};

/// The workspace of row `kernel` (null: unknown, an fp32 all-pairs CPU row is assumed) for n
/// bodies; `collisions`: the contact lists too. `deviceArgs`: a CUDA row's launch arguments
/// (n and the launch parameters, 0 resolved) for its KernelInfo::workspace; null: the device
/// state alone.
WorkspaceEstimate workspaceFor(std::size_t n, const KernelInfo* kernel, bool collisions = false,
                               const DeviceForceArgs* deviceArgs = nullptr);

/// Estimated peak host bytes to simulate n bodies: the system as made plus the Simulation's copy
/// of the World (2 x kWorldBytesPerBody) and workspaceFor(n, kernel).hostBytes() (the CPU
/// kernels' scratch; an fp64 row's state; a CPU tree). Saturates at SIZE_MAX.
std::size_t hostBytesFor(std::size_t n, const KernelInfo* kernel = nullptr);

/// Before row `kernel` allocates its workspace for the n bodies already held, with parameters p
/// (p.collisions: the contact lists; a CUDA row's launch parameters): throws
/// std::invalid_argument ("N = 1000000 with kernel 'tree-cpu' needs about 180 MB more host memory
/// for its workspace (the tree and its sort buffer 164 MB, structure-of-arrays scratch 16 MB);
/// 120 MB are available (RLIMIT_AS)") when workspaceFor(...).hostBytes() exceeds what is
/// available now; for a CUDA row also when its device state (unless `deviceStateHeld`) and
/// workspace exceed the device's free memory (cudaMemGetInfo). Does nothing when the
/// availability cannot be determined.
void checkWorkspace(std::size_t n, const KernelInfo& kernel, const SimParams& p, bool deviceStateHeld = false);

/// Starts the OpenMP worker threads now (an empty parallel region of omp_get_max_threads()
/// threads, each making its allocation arena), so the address space their stacks and arenas
/// reserve is taken before a system is made and counted by every later check, rather than in
/// the middle of a force evaluation, where a failed thread creation ends the process (libgomp
/// exits). Under RLIMIT_AS it first checks that they fit — threadReserveBytes() each — and
/// throws std::runtime_error "out of host memory: 15 OpenMP worker threads reserve about 1.13 GB
/// of address space (75.5 MB each: its stack and an allocation arena); 480 MB are available
/// (RLIMIT_AS); set OMP_NUM_THREADS lower or raise the limit" when not. Once the
/// threads run it does nothing.
void startWorkerThreads();
/// The address space one OpenMP worker thread reserves: its stack (OMP_STACKSIZE, else the
/// threads' default) and a glibc allocation arena (64 MiB).
std::size_t threadReserveBytes();

// availableHostMemory(), residentHostBytes(), formatBytes(): contracts/HostMemory.h

/// Throws std::invalid_argument ("N = 268435456 needs about 32.7 GB of host memory; 18.2 GB are
/// available (MemAvailable)") when hostBytesFor(n, kernel) exceeds what is available. Does
/// nothing when the availability cannot be determined.
void checkHostMemory(std::size_t n, const KernelInfo* kernel = nullptr);
/// The same check for `need` bytes more for n bodies (an fp64 state about to be made).
void checkHostBytes(std::size_t n, std::size_t need);

/// What to say for a std::bad_alloc: out of host memory, with what is available now.
std::string outOfMemoryMessage();
/// What to say for a std::system_error: for a thread that could not be created (EAGAIN, ENOMEM)
/// "out of host memory: a thread could not be created (…)" with what is available now, as
/// outOfMemoryMessage; otherwise e.what().
std::string systemErrorMessage(const std::system_error& e);

} // namespace nbody
