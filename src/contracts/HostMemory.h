#pragma once
/// \file HostMemory.h
/// What the host lets this process allocate, and byte counts as text: shared by the core's memory
/// budget (sim/core/MemoryBudget.h) and the device code's allocation checks (kernels/), so both
/// report memory the same way.

#include <cstddef>
#include <string>

namespace nbody {

/// What this process may still allocate: the smallest of /proc/meminfo MemAvailable,
/// RLIMIT_AS less the current virtual size, RLIMIT_DATA less the current data size, and the
/// cgroup v2 memory.max less memory.current of the process's cgroup.
struct MemoryAvailable {
    std::size_t bytes = 0;
    std::string source; ///< which limit binds ("MemAvailable", "RLIMIT_AS", ...); empty: unknown
    bool known() const { return !source.empty(); }
};
MemoryAvailable availableHostMemory();

/// This process's resident set size (VmRSS of /proc/self/status), bytes; 0 where it cannot be read.
std::size_t residentHostBytes();

/// "27.9 GB" (decimal units, 3 significant digits).
std::string formatBytes(std::size_t bytes);

} // namespace nbody
