#pragma once
/// \file AtomicFile.h
/// Atomic, verified file output for every writer of the project (snapshots of every format,
/// scenario files, diagnostics CSV, validation reports, bench output, PNG captures): the data go
/// to a temporary file beside the target, which is flushed to disk (fsync), read back and
/// compared with what was meant, and only then renamed over the target. Readers see the old file
/// or the new one, never a partial one; a failed write (a full disk, a file size limit, an I/O
/// error that a library swallowed) leaves the old file byte-identical and no temporary file.
///
/// Temporary files are named `<target>.tmp-<pid>-XXXXXX`, directory probes
/// `.nbody-probe-<pid>-XXXXXX`, with the writer's process id: a later write to the same target
/// removes the ones a killed process left (see removeStaleTemporaries), and a front end that
/// calls installTemporaryFileCleanup() removes its own when SIGINT or SIGTERM ends it.

#include <cstddef>
#include <cstdint>
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

/// A running 64-bit checksum of a byte stream (order-sensitive, independent of how the stream
/// is cut into pieces; not cryptographic): what a writer meant, compared with what is read back.
class ContentChecksum {
public:
    void update(const void* data, std::size_t bytes);
    /// The checksum of every byte so far (the length included).
    std::uint64_t value() const;
    std::uint64_t bytes() const { return m_bytes; }

private:
    std::uint64_t m_hash = 0x9e3779b97f4a7c15ull;
    std::uint64_t m_bytes = 0;
    std::uint64_t m_tail = 0; ///< bytes of an incomplete 8-byte word, little end first
    unsigned m_tailBytes = 0;
};

/// Reads `path` back (after dropping its cached pages, so the bytes come from the device where
/// the file system allows) and throws std::runtime_error when its size or checksum differ from
/// `expected` ("read back 4096 bytes, 9000 were written").
void verifyFileContent(const std::string& path, const ContentChecksum& expected);

/// Writes `path` atomically. `fill(tempPath)` creates and writes the temporary file (it may use
/// any library, e.g. HDF5, and throws on failure); the file is then fsync'ed, `verify(tempPath)`
/// reads it back and throws when it is not what `fill` meant, and the file is renamed over the
/// target, keeping the permissions of a file it replaces (a new file gets 0644). The temporary
/// file is created first with mkstemp (`<target>.tmp-<pid>-XXXXXX`), so `fill` truncates it;
/// stale temporary files of dead writers of the same target are removed first. Throws
/// WriteError ("cannot write '<path>': <reason>"; callers add their own context) when the target
/// is refused (see resolveWriteTarget) or any step fails; the temporary file is removed then.
/// Exceptions thrown by `fill` or `verify` are rethrown as WriteError with their message as the
/// reason.
void writeAtomically(const std::string& path, const std::function<void(const std::string& tempPath)>& fill,
                     const std::function<void(const std::string& tempPath)>& verify);

class FileSink;
/// writeAtomically for writers that stream bytes: `fill` writes through a FileSink on the
/// temporary file; the sink is closed (flush, fsync), and the file read back must have the size
/// and checksum of what went through the sink.
void writeStreamAtomically(const std::string& path, const std::function<void(FileSink& sink)>& fill);

/// writeStreamAtomically with the whole content in memory.
void writeBytesAtomically(const std::string& path, std::span<const unsigned char> bytes);
/// writeBytesAtomically for text (CSV, JSON, HTML).
void writeTextAtomically(const std::string& path, std::string_view text);

/// A plain output file for writers that stream: opened with fopen(path, "wb"), so an existing
/// file is truncated. Keeps a ContentChecksum of the bytes written. Every failure throws
/// std::runtime_error with strerror's reason. Not copyable.
class FileSink {
public:
    explicit FileSink(const std::string& path);
    ~FileSink();
    FileSink(const FileSink&) = delete;
    FileSink& operator=(const FileSink&) = delete;

    void write(const void* data, std::size_t bytes);
    void write(const std::string& text) { write(text.data(), text.size()); }
    /// Flushes, fsyncs (where the file supports it) and closes; throws when the data could not
    /// be written (e.g. ENOSPC, EFBIG, EIO).
    void close();
    /// What went through write() so far.
    const ContentChecksum& checksum() const { return m_checksum; }

private:
    std::FILE* m_file = nullptr;
    ContentChecksum m_checksum;
};

/// Removes, in the directory of `target`, the temporary files of writers of `target`
/// (`<name>.tmp-<pid>-*`) and directory probes (`.nbody-probe-<pid>-*`) whose process is gone
/// (kill(pid, 0) fails with ESRCH) and that were last modified before this process started;
/// temporary files without a pid (`<name>.tmp-XXXXXX`, from earlier versions) go when they are
/// older than this process. Files of live processes (a concurrent writer) are kept. Returns how
/// many were removed; never throws. writeAtomically calls it before each write.
std::size_t removeStaleTemporaries(const std::string& target);

/// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove the temporary files of writes in
/// progress (async-signal-safe: unlink only), then restore the default action and re-raise the
/// signal, so the process ends as it would have; and ignores SIGXFSZ, so that a write beyond the
/// file-size limit (ulimit -f) fails with EFBIG and is reported instead of ending the process.
/// Signals already ignored or handled are left alone. For front ends (the command line, the
/// app); idempotent.
void installTemporaryFileCleanup();

/// The reason a write failed with errno `error`, for messages: strerror, except EFBIG, which
/// names the process's file-size limit ("file too large: the file-size limit of this process is
/// 20480 bytes (ulimit -f)").
std::string writeErrorText(int error);

/// Registers a temporary file for removal by that signal cleanup while this object lives, for
/// writers that do not go through writeAtomically (the video recorder's file that ffmpeg
/// writes). A path too long, or more than 64 at once, is simply not registered.
class RegisteredTemporary {
public:
    explicit RegisteredTemporary(const std::string& path);
    ~RegisteredTemporary();
    RegisteredTemporary(const RegisteredTemporary&) = delete;
    RegisteredTemporary& operator=(const RegisteredTemporary&) = delete;

private:
    int m_slot;
};

} // namespace nbody
