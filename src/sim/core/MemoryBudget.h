#pragma once
/// \file MemoryBudget.h
/// How much host memory a system of N bodies needs, how much this process may still use, and a
/// check that refuses a system that cannot fit before anything is allocated for it.

#include "contracts/HostMemory.h"
#include <cstddef>
#include <string>

namespace nbody {

struct KernelInfo;

/// Bytes per body of the World's columns: position, velocity and acceleration Float4 (16 each),
/// id uint32 (4) and group (1).
inline constexpr std::size_t kWorldBytesPerBody = 3 * 16 + 4 + 1;
/// Bytes per body of an fp64 state (Fp64State: position, velocity and acceleration Double4).
inline constexpr std::size_t kFp64StateBytesPerBody = 3 * 32;

/// Estimated peak host bytes to simulate n bodies: the system as made plus the Simulation's copy
/// of the World (2 x kWorldBytesPerBody), the CPU kernels' fp32 structure-of-arrays scratch (16),
/// and for an fp64 kernel (Layout::Double4, or `kernel` null: unknown, the fp32 case is assumed)
/// the fp64 state and one widened copy (2 x kFp64StateBytesPerBody), and for a CPU tree row
/// (ForceMethod::Tree) the host tree, kTreeHostBytesPerBody (TreeCpu.h: keys, indices, sorted
/// positions, nodes, fp64 moments, cells and the construction's scratch). Saturates at SIZE_MAX.
std::size_t hostBytesFor(std::size_t n, const KernelInfo* kernel = nullptr);

// availableHostMemory(), residentHostBytes(), formatBytes(): contracts/HostMemory.h

/// Throws std::invalid_argument ("N = 268435456 needs about 32.7 GB of host memory; 18.2 GB are
/// available (MemAvailable)") when hostBytesFor(n, kernel) exceeds what is available. Does
/// nothing when the availability cannot be determined.
void checkHostMemory(std::size_t n, const KernelInfo* kernel = nullptr);
/// The same check for `need` bytes more for n bodies (an fp64 state about to be made).
void checkHostBytes(std::size_t n, std::size_t need);

/// What to say for a std::bad_alloc: out of host memory, with what is available now.
std::string outOfMemoryMessage();

} // namespace nbody
