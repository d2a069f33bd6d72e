#pragma once
/// \file SnapshotOutput.h
/// Snapshots written during `nbody run --output PATTERN [--every M]`.
///
/// PATTERN is a file name whose extension picks the format (.h5/.hdf5/.hdf, .csv, .bin/.tipsy/
/// .std; see sim/io/Snapshot.h); every `{step}` in it is replaced by the absolute step number of the
/// state (the step stored in the snapshot, so a run continued from a snapshot continues the
/// numbering). A snapshot is written whenever the step number is a multiple of M (M > 0) and
/// after the last step; without `{step}` each write replaces the previous one (atomically), so
/// the file always holds the latest state.

#include <cstdint>
#include <string>

namespace nbody::cli {

/// PATTERN with every "{step}" replaced by `step`.
std::string expandStepPattern(const std::string& pattern, std::uint64_t step);

/// "" when snapshots can be written to PATTERN (known extension, writable directory, not a
/// device); otherwise the problem, for a message before the run starts.
std::string checkSnapshotOutput(const std::string& pattern, std::uint64_t step);

} // namespace nbody::cli
