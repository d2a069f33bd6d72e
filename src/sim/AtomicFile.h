#pragma once
/// \file AtomicFile.h
/// Atomic file output for every writer of the project (PNG captures, snapshots): the data go to
/// a temporary file beside the target, which is flushed to disk (fsync) and renamed over the
/// target. Readers see the old file or the new one, never a partial one, and a failed write
/// leaves no file under the target's name and no temporary file.

#include <cstddef>
#include <cstdio>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace nbody {

/// A file could not be written; what() names the file and the reason ("cannot write 'x.h5':
/// No space left on device").
class WriteError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Where a file for `path` would be written: symbolic links resolved to the file they name.
/// The directory is probed by creating and removing a temporary file in it, so places that
/// refuse new files even to root (/proc, /sys, read-only mounts) are found before any work.
/// `problem` is non-empty when it cannot be written (missing or read-only directory, a target
/// that exists and is not a regular file — devices such as /dev/null or /dev/full and
/// directories are never replaced).
struct WriteTarget {
    std::string path;
    std::string problem;
};
WriteTarget resolveWriteTarget(const std::string& path);

/// Writes `path` atomically. `fill(tempPath)` creates and writes the temporary file (it may use
/// any library, e.g. HDF5, and throws on failure); then the file is fsync'ed and renamed over the
/// target, keeping the permissions of a file it replaces (a new file gets 0644). The temporary
/// file is created first with mkstemp (`<target>.tmp-XXXXXX`), so `fill` truncates it. Throws
/// WriteError ("cannot write '<path>': <reason>"; callers add their own context) when the target is refused (see resolveWriteTarget) or any step fails;
/// the temporary file is removed then. Exceptions thrown by `fill` are rethrown as WriteError
/// with their message as the reason.
void writeAtomically(const std::string& path,
                     const std::function<void(const std::string& tempPath)>& fill);

/// writeAtomically with the whole content in memory.
void writeBytesAtomically(const std::string& path, std::span<const unsigned char> bytes);
/// writeBytesAtomically for text (CSV, JSON, HTML).
void writeTextAtomically(const std::string& path, std::string_view text);

/// A plain output file for writers that stream (used inside writeAtomically's `fill` on the
/// temporary file): opened with fopen(path, "wb"), so an existing file is truncated. Every
/// failure throws std::runtime_error with strerror's reason. Not copyable.
class FileSink {
public:
    explicit FileSink(const std::string& path);
    ~FileSink();
    FileSink(const FileSink&) = delete;
    FileSink& operator=(const FileSink&) = delete;

    void write(const void* data, std::size_t bytes);
    void write(const std::string& text) { write(text.data(), text.size()); }
    /// Flushes and closes; throws when the data could not be written (e.g. ENOSPC).
    void close();

private:
    std::FILE* m_file = nullptr;
};

} // namespace nbody
