/// \file fuzz_hdf5.cpp
/// libFuzzer target: the HDF5 reader (sim/io/Hdf5Snapshot.h) on arbitrary bytes, opened by path as
/// a user's file is (the reader has no in-memory entry point; the file lies in tmpfs,
/// FuzzInput.h).
///
/// readHdf5Snapshot, as the app and the CLI call it, reads in the child process nbody-read-hdf5
/// (sim/io/ReaderProcess.h), because libhdf5 1.10.8 itself crashes on some damaged files. libFuzzer
/// sees neither that child's coverage nor its sanitizer reports, and a process start costs about
/// 100 ms with ASan; so each input is read
///  1. in a fork() of a small fork server (ForkServer, a few ms), to learn whether libhdf5
///     crashes on it (a signal) or hangs (4 s);
///  2. if it crashed or hung, by readHdf5Snapshot, which must answer with a ReaderProcessError
///     (libhdf5 crashed, or ran past its 5 s limit) and never crash; a crash whose sanitizer
///     summary points outside libhdf5 is a finding (our code crashed in the child);
///  3. else in-process by readHdf5SnapshotInProcess, which gives libFuzzer its coverage and the
///     sanitizers their view of our reader; every 32nd such input also by readHdf5Snapshot, and
///     both must agree bit for bit (the same bodies, or the same error up to the addresses that
///     HDF5 prints).
/// A FormatError or a memory refusal (std::invalid_argument) is the expected answer to a bad
/// file; any other exception, a crash here, a leak, a sanitizer report, an allocation beyond
/// -malloc_limit_mb, a child that exits nonzero or sends a broken message is a finding. A file
/// that reads must keep the reader's contract (FuzzChecks.h), and after every input no HDF5
/// object may be left open here (a reader that leaks an identifier keeps the file open;
/// LeakSanitizer cannot see it: the memory stays reachable from the library's tables).

#include "FuzzChecks.h"
#include "FuzzInput.h"

#include "sim/io/Hdf5Snapshot.h"
#include "sim/io/ReaderProcess.h"

#include <hdf5.h>
#include <sanitizer/allocator_interface.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>

namespace {

[[noreturn]] void broken(const std::string& what) { nbody::fuzz::broken(what.c_str()); }

/// What one reader made of the input: a snapshot, or an error's class and text.
struct Outcome {
    std::optional<nbody::Snapshot> snapshot;
    std::string errorClass, what;
};

/// HDF5's messages print buffer addresses ("current p = 0x61200002c660"), which differ between
/// processes.
std::string withoutAddresses(const std::string& what)
{
    static const std::regex address("0x[0-9a-fA-F]+");
    return std::regex_replace(what, address, "0x?");
}

template <typename Read>
Outcome outcomeOf(Read read, const std::string& path)
{
    Outcome o;
    try {
        o.snapshot = read(path);
    } catch (const nbody::ReaderProcessError&) {
        throw; // a FormatError too, but the caller's to judge
    } catch (const nbody::FormatError& e) {
        o.errorClass = "FormatError";
        o.what = withoutAddresses(e.what());
    } catch (const std::invalid_argument& e) {
        o.errorClass = "invalid_argument";
        o.what = withoutAddresses(e.what());
    }
    return o;
}

/// read()/write() of exactly n bytes, retried on EINTR; false at the end of the pipe or an error.
template <class Byte, class Io>
bool transferAll(Io io, int fd, Byte* p, std::size_t n)
{
    while (n > 0) {
        const ssize_t k = io(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k, n -= std::size_t(k);
    }
    return true;
}
bool readAll(int fd, void* data, std::size_t n) { return transferAll(::read, fd, static_cast<char*>(data), n); }
bool writeAll(int fd, const void* data, std::size_t n)
{
    return transferAll(::write, fd, static_cast<const char*>(data), n);
}

enum class Trial : char { Read = 'r', Crashed = 'c', Hung = 'h' };

/// The largest single allocation the fuzzer allows, bytes: NBODY_FUZZ_MALLOC_LIMIT_MB, default 160
/// (scripts/test.sh passes -malloc_limit_mb=160).
std::size_t mallocLimitBytes()
{
    static const std::size_t limit = [] {
        const char* v = std::getenv("NBODY_FUZZ_MALLOC_LIMIT_MB");
        const long mb = v && *v ? std::strtol(v, nullptr, 10) : 160;
        return std::size_t(mb > 0 ? mb : 160) << 20;
    }();
    return limit;
}

/// A fork server: a fork of this process made at start-up, while it is small, that forks again
/// for each input and reads it in that child, its stderr silenced (the sanitizer's report of
/// libhdf5's crash), and answers whether libhdf5 crashed (a signal) or hung (4 s, then the child
/// is killed). Forking the fuzzer itself for each input costs about 40 ms once ASan's quarantine
/// and libFuzzer's tables have grown; forking the small server, a few ms.
class ForkServer {
public:
    void start()
    {
        int request[2], reply[2];
        if (::pipe(request) != 0 || ::pipe(reply) != 0)
            broken(std::string("pipe: ") + std::strerror(errno));
        std::fflush(stderr);
        const pid_t pid = ::fork();
        if (pid < 0)
            broken(std::string("fork: ") + std::strerror(errno));
        if (pid == 0) {
            ::close(request[1]);
            ::close(reply[0]);
            serve(request[0], reply[1]); // never returns
        }
        ::close(request[0]);
        ::close(reply[1]);
        m_pid = pid;
        m_request = request[1];
        m_reply = reply[0];
    }

    Trial run(const std::string& path)
    {
        const std::uint32_t n = std::uint32_t(path.size());
        char answer = 0;
        if (!writeAll(m_request, &n, sizeof n) || !writeAll(m_request, path.data(), n) || !readAll(m_reply, &answer, 1)) {
            int status = 0;
            ::waitpid(m_pid, &status, 0);
            broken("the fork server is gone (" + std::string(WIFSIGNALED(status) ? "signal " : "exit ")
                   + std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status)) + ")");
        }
        return Trial(answer);
    }

private:
    [[noreturn]] static void serve(int request, int reply)
    {
        for (;;) {
            std::uint32_t n = 0;
            if (!readAll(request, &n, sizeof n))
                ::_exit(0); // the fuzzer has exited
            std::string path(n, '\0');
            if (!readAll(request, path.data(), n))
                ::_exit(3);
            const pid_t pid = ::fork();
            if (pid == 0) {
                const int null = ::open("/dev/null", O_WRONLY);
                ::dup2(null, 2);
                // libFuzzer's -malloc_limit_mb is not in force in this fork (its hooks come after
                // LLVMFuzzerInitialize): libhdf5 asking for more than it (H5C_protect, a few hundred MB
                // on a damaged 64 KiB file) must count as libhdf5 failing here too, or the read in the
                // fuzzer's process dies of it.
                (void)mallocLimitBytes(); // read the variable now, not inside the hook
                __sanitizer_install_malloc_and_free_hooks(
                    [](const volatile void*, std::size_t bytes) {
                        if (bytes > mallocLimitBytes())
                            ::_exit(7);
                    },
                    [](const volatile void*) {});
                try {
                    nbody::readHdf5SnapshotInProcess(path);
                } catch (...) {
                }
                ::_exit(0);
            }
            char answer = char(Trial::Read);
            int status = 0;
            for (int waited = 0; pid > 0; ++waited) {
                const pid_t r = ::waitpid(pid, &status, WNOHANG);
                if (r < 0 && errno != EINTR) {
                    std::fprintf(stderr, "fuzz_hdf5 fork server: waitpid: %s\n", std::strerror(errno));
                    ::_exit(4);
                }
                if (r == pid) {
                    if (WIFSIGNALED(status) || WEXITSTATUS(status) != 0)
                        answer = char(Trial::Crashed);
                    break;
                }
                if (waited >= 4000) {
                    ::kill(pid, SIGKILL);
                    ::waitpid(pid, &status, 0);
                    answer = char(Trial::Hung);
                    break;
                }
                ::usleep(1000);
            }
            if (pid < 0)
                answer = char(Trial::Crashed);
            if (!writeAll(reply, &answer, 1))
                ::_exit(5);
        }
    }

    pid_t m_pid = -1;
    int m_request = -1, m_reply = -1;
};

ForkServer g_forkServer;

/// The sanitizer summary of a crashed child ("... [the reader process said: SUMMARY:
/// AddressSanitizer: SEGV /build/hdf5/src/H5Faccum.c:... in H5F__accum_read]") names a frame
/// of libhdf5 (H5..., or a libc memory routine that libhdf5 called); a plain signal without a
/// summary (an uninstrumented helper) is taken as the library's too.
bool crashedInLibrary(const std::string& what)
{
    const std::size_t summary = what.find("SUMMARY: ");
    if (summary == std::string::npos)
        return true;
    const std::string s = what.substr(summary);
    return s.find(" in H5") != std::string::npos || s.find("libhdf5") != std::string::npos
           || s.find(" in __memcpy") != std::string::npos || s.find(" in __memmove") != std::string::npos
           || s.find(" in __interceptor_memcpy") != std::string::npos
           || s.find(" in __asan_memcpy") != std::string::npos;
}

bool sameBits(const nbody::World& a, const nbody::World& b)
{
    auto same = [](const auto& x, const auto& y) {
        return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof x[0]) == 0);
    };
    return same(a.positions(), b.positions()) && same(a.velocities(), b.velocities()) && same(a.ids(), b.ids())
           && same(a.groups(), b.groups()) && same(a.radii(), b.radii()) && std::memcmp(&a.time, &b.time, sizeof a.time) == 0 && a.step == b.step;
}

} // namespace

/// Inputs whose read the child process took: libhdf5 crashed, or ran past the time or memory
/// limit; printed at exit ("fuzz_hdf5: ... inputs crashed libhdf5 in the reader's child process").
std::size_t g_crashed = 0, g_timedOut = 0, g_outOfMemory = 0, g_inputs = 0, g_layoutDependent = 0;

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    std::atexit([] {
        std::fprintf(stderr,
                     "fuzz_hdf5: %zu inputs, %zu crashed libhdf5 in the reader's child process, %zu ran past its "
                     "time limit, %zu past its memory limit, %zu depended on libhdf5's memory (a crash in a fork only, or a number read from bytes it never set)\n",
                     g_inputs, g_crashed, g_timedOut, g_outOfMemory, g_layoutDependent);
    });
    // The child's time limit below libFuzzer's -timeout (10 s in scripts/test.sh), so that a
    // hang of libhdf5 is the reader's clear error, not a timeout of the fuzzer.
    setenv("NBODY_HDF5_READ_TIMEOUT", "5", 0);
    g_forkServer.start();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size)
{
    using Kind = nbody::ReaderProcessError::Kind;
    static nbody::fuzz::InputFile file(".h5");
    const std::string& path = file.write(data, size);
    ++g_inputs;

    const Trial trial = g_forkServer.run(path);
    std::optional<Outcome> isolated;
    if (trial != Trial::Read || g_inputs % 32 == 1) {
        try {
            isolated = outcomeOf(nbody::readHdf5Snapshot, path);
        } catch (const nbody::ReaderProcessError& e) {
            switch (e.kind()) {
            case Kind::Crashed:
                if (!crashedInLibrary(e.what()))
                    broken(std::string("the reader process crashed outside libhdf5: ") + e.what());
                ++g_crashed;
                return 0; // libhdf5's own crash, taken by the child: read here, it would crash this process
            case Kind::TimedOut:
                ++g_timedOut;
                return 0;
            case Kind::OutOfMemory:
                ++g_outOfMemory;
                return 0;
            case Kind::Failed:
                broken(std::string("the reader process failed: ") + e.what());
            }
        }
        if (isolated->snapshot)
            nbody::fuzz::checkWorld(isolated->snapshot->world);
        // libhdf5 crashed or hung in the fork, not in the reader process: what it does on this
        // input depends on where its out-of-bounds accesses land, so it is not read here either.
        if (trial != Trial::Read) {
            ++g_layoutDependent;
            return 0;
        }
    }

    const Outcome direct = outcomeOf(nbody::readHdf5SnapshotInProcess, path);
    if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0)
        broken("an HDF5 file, group, dataset, datatype or attribute was left open");
    if (direct.snapshot)
        nbody::fuzz::checkWorld(direct.snapshot->world);
    if (isolated) {
        // Both refused the file for the same reason, with a different number in the message: a
        // value libhdf5 read from bytes it never initialised (a damaged attribute: two reads of one
        // file gave NumFilesPerSnapshot = 2152, 2664 and 176432). Its content depends on the
        // process's memory, like the crashes in the fork above; the refusal does not.
        static const std::regex digits("[0-9]+");
        if (!direct.snapshot && !isolated->snapshot && direct.errorClass == isolated->errorClass &&
            direct.what != isolated->what &&
            std::regex_replace(direct.what, digits, "#") == std::regex_replace(isolated->what, digits, "#")) {
            ++g_layoutDependent;
            return 0;
        }
        if (direct.snapshot.has_value() != isolated->snapshot.has_value() || direct.errorClass != isolated->errorClass
            || direct.what != isolated->what)
            broken("the child process and this one disagree: '" + isolated->errorClass + ": " + isolated->what
                   + "' against '" + direct.errorClass + ": " + direct.what + "'");
        if (direct.snapshot && !sameBits(direct.snapshot->world, isolated->snapshot->world))
            broken("the child process's bodies differ from this process's");
    }
    return 0;
}
