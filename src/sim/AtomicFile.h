#pragma once
/// \file AtomicFile.h
/// Atomic file writes for every output of the program (captures, reports, benchmark tables,
/// snapshots): the bytes go to a temporary file beside the target, are flushed to disk and
/// renamed over it, so readers see the old file or the new one, never a partial one, and a
/// failed write leaves nothing under the target's name.

#include <span>
#include <string>
#include <string_view>

namespace nbody {

/// Where a file for `path` would be written: symbolic links resolved to the file they name.
/// `problem` is non-empty when it cannot be written (missing or read-only directory, a target
/// that exists and is not a regular file — devices such as /dev/null are never replaced).
struct WriteTarget {
    std::string path;
    std::string problem;
};
WriteTarget resolveWriteTarget(const std::string& path);

/// Writes `bytes` to `path` atomically; a replaced file keeps its permissions. Throws
/// std::runtime_error "cannot write '<path>': <reason>" (reason from resolveWriteTarget or the
/// failing system call, e.g. "No space left on device").
void writeFileAtomically(const std::string& path, std::span<const unsigned char> bytes);
void writeFileAtomically(const std::string& path, std::string_view text);

} // namespace nbody
