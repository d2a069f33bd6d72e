#pragma once
/// \file ReaderProcess.h
/// Reading an untrusted file with a library that may crash on it, in a child process.
///
/// libhdf5 1.10.8 (Debian 12) dereferences NULL, loops or allocates absurd sizes on some damaged
/// files (tests/fuzz/README.md); no check of ours before or around its calls can prevent that. So
/// the HDF5 reader runs in a helper executable (nbody-read-hdf5, src/sim/io/ReadHdf5Helper.cpp),
/// started with posix_spawn, the way browsers and desktop thumbnailers keep file parsers out of
/// the application: a fresh process image, so nothing of the parent's threads, locks or library
/// state is inherited (fork() without exec in a multi-threaded Qt app could deadlock on a lock
/// another thread held, an HDF5 lock among them). The helper decodes the file with the in-process
/// reader and sends the result through a pipe (fd 3) as one message (below); the parent checks
/// every size in it against what its header promised and against the memory budget
/// (MemoryBudget.h) before allocating, and turns a crash (a signal), a hang (the time limit), an
/// allocation beyond the limit or a broken message into a ReaderProcessError naming the file,
/// never a crash of its own.
///
/// Message (native byte order; parent and child are the same build):
///
///     "NBRD" u32 version (1), u8 kind: 1 snapshot, 2 error
///     error:    u8 class (1 FormatError, 2 std::invalid_argument, 3 std::bad_alloc, 4 other),
///               string what
///     snapshot: string formatId, f64 time, u64 step,
///               u8 hasParams [u8 hasG f64 G, u8 hasEps2 f32 eps2, u8 hasDt f32 dt, string kernel,
///               i32 blockSize, i32 tileWidthFactor],
///               u32 warnings, each a string;
///               u64 N, then N bodies of 37 bytes: Float4 position+mass, Float4 velocity, u32 id,
///               u8 group; u32 names, each u32 id and a string
///     "DONE"
///     string = u32 length (at most kMaxMessageString) and the bytes
///
/// A World rebuilt from it is bit-identical to the child's (the same addBody calls with the same
/// fp32 values, ids and groups).

#include "contracts/Errors.h"
#include "sim/io/Snapshot.h"

#include <cstddef>
#include <string>

namespace nbody {

/// A reader process that did not deliver: what() names the library and the file ("the HDF5
/// library crashed reading 'x.h5' (signal 11): the file is damaged or not an HDF5 snapshot").
/// A FormatError, so every caller of the readers reports it as it reports a bad file.
class ReaderProcessError : public FormatError {
public:
    enum class Kind {
        Crashed,     ///< the child ended by a signal (SIGSEGV, SIGABRT, ...)
        TimedOut,    ///< the child did not finish within the time limit and was killed
        OutOfMemory, ///< the child could not allocate within its memory limit
        Failed,      ///< no helper, a spawn failure, a nonzero exit, or a broken message
    };
    ReaderProcessError(Kind kind, const std::string& what) : FormatError(what), m_kind(kind) {}
    Kind kind() const { return m_kind; }

private:
    Kind m_kind;
};

/// How one read runs in a child.
struct ReaderProcess {
    std::string helper;      ///< the helper executable's path (findReaderHelper)
    std::string library;     ///< for messages: "HDF5" (then "the HDF5 library crashed reading ...")
    std::string fileKind;    ///< for messages: "an HDF5 snapshot"
    double seconds = 60;     ///< time limit for the whole read, seconds (> 0)
    std::string timeLimitVariable; ///< the environment variable that sets `seconds`, for messages
    /// Bytes the child may allocate beyond what it has mapped at start (its RLIMIT_AS; 0: no
    /// limit). Not applied in an AddressSanitizer build of the helper, whose shadow memory
    /// needs terabytes of address space.
    std::size_t memoryBytes = 0;
};

/// The longest string a message may carry (a reader's error message, a kernel id, a name).
inline constexpr std::size_t kMaxMessageString = 1 << 16;

/// The helper executable `name`: $`envVar` when set (it must exist), else `name` beside the
/// running executable (/proc/self/exe; where scripts/gpu-check.sh puts it), else `buildPath`
/// (the build tree's, compiled in). Throws ReaderProcessError (Failed) naming the places looked
/// in when none exists.
std::string findReaderHelper(const std::string& name, const char* envVar, const std::string& buildPath);

/// Runs `process.helper` with the arguments `--memory BYTES --parent PID PATH` and returns the
/// snapshot it sends. Rethrows the child's error as the same class (FormatError,
/// std::invalid_argument, or for std::bad_alloc ReaderProcessError OutOfMemory) with the same
/// what(); throws ReaderProcessError when the child crashes, runs past process.seconds (it is
/// killed then), exits nonzero, or sends a message that is broken or claims more bodies than
/// kMaxBodies or the host memory allows (checkHostMemory's std::invalid_argument).
Snapshot readInReaderProcess(const ReaderProcess& process, const std::string& path);

/// The helper's side: parses `--memory BYTES --parent PID PATH`, applies the limits (no core
/// files; RLIMIT_AS; killed when the parent dies), calls `read(PATH)` and writes the result or
/// its exception as a message to fd 3. Returns the exit status for main (0 when a message was
/// written, 2 for bad arguments or a failed write).
int serveReaderProcess(int argc, char** argv, Snapshot (*read)(const std::string& path));

} // namespace nbody
