/// \file AtomicFile.cpp
/// Atomic, verified output: temporary file beside the target, fsync, read back, rename (see
/// AtomicFile.h); the registry of temporary files that a signal handler removes.

#include "sim/base/AtomicFile.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nbody {

namespace fs = std::filesystem;

namespace {

/// When this process (in practice: the library's static initialisation) started; temporary
/// files last modified before it cannot belong to a write of this process.
const fs::file_time_type g_processStart = fs::file_time_type::clock::now();

// ---- the registry of temporary files in progress ----------------------------------------------
// Fixed storage, so that the signal handler reads it without allocating: a slot is free (0),
// being filled (1) or holds a path (2). Lock-free atomics are async-signal-safe.

constexpr std::size_t kSlots = 64;
constexpr std::size_t kMaxPath = 4096;
struct Slot {
    std::atomic<int> state{0};
    char path[kMaxPath];
};
Slot g_slots[kSlots];
static_assert(std::atomic<int>::is_always_lock_free);

/// Registers a path for removal by the signal handler; returns the slot, or -1 when the path is
/// too long or every slot is taken (the write goes on, without cleanup on a signal).
int registerTemporary(const std::string& path)
{
    if (path.empty() || path.size() >= kMaxPath)
        return -1;
    for (std::size_t i = 0; i < kSlots; ++i) {
        int expected = 0;
        if (g_slots[i].state.compare_exchange_strong(expected, 1)) {
            std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
            g_slots[i].state.store(2);
            return int(i);
        }
    }
    return -1;
}

void unregisterTemporary(int slot)
{
    if (slot >= 0)
        g_slots[std::size_t(slot)].state.store(0);
}

} // namespace

std::string writeErrorText(int error)
{
    if (error == EFBIG) {
        struct rlimit limit{};
        if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        {
            std::string text = "file too large: the file-size limit of this process is ";
            text += std::to_string(limit.rlim_cur);
            text += " bytes (ulimit -f)";
            return text;
        }
        return "file too large for the file system";
    }
    return std::strerror(error);
}

namespace {

extern "C" void removeTemporariesAndReraise(int sig)
{
    const int savedErrno = errno;
    for (Slot& s : g_slots)
        if (s.state.load() == 2)
            ::unlink(s.path);
    struct sigaction dfl{};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
    errno = savedErrno;
    ::raise(sig); // delivered when the handler returns (the signal is blocked while it runs)
}

// ---- naming -----------------------------------------------------------------------------------

/// "<prefix><pid>-XXXXXX", the template of mkstemp.
std::string pidTemplate(const std::string& prefix)
{
    return prefix + std::to_string(::getpid()) + "-XXXXXX";
}

/// Whether `rest` (what follows ".tmp-" or ".nbody-probe-") is "<pid>-XXXXXX" (pid set) or
/// "XXXXXX" (an earlier version's name: pid 0); false for anything else, such as FrameSink's
/// "<pid>" of a video in progress.
bool parseTemporarySuffix(std::string_view rest, long& pid)
{
    pid = 0;
    if (rest.size() == 6) // mkstemp's letters; all digits would be a pid (FrameSink's videos)
        return !std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; });
    const std::size_t dash = rest.find('-');
    if (dash == std::string_view::npos || dash == 0 || rest.size() - dash - 1 != 6)
        return false;
    const auto r = std::from_chars(rest.data(), rest.data() + dash, pid);
    return r.ec == std::errc() && r.ptr == rest.data() + dash && pid > 0;
}

/// A process with this id exists (or cannot be signalled by us: it exists too).
bool processAlive(long pid)
{
    return ::kill(pid_t(pid), 0) == 0 || errno != ESRCH;
}

/// Flushes a written file to disk; returns a reason or "".
std::string syncFile(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return std::string("cannot reopen the temporary file: ") + std::strerror(errno);
    std::string reason;
    if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
        reason = writeErrorText(errno);
    ::close(fd);
    return reason;
}

std::uint64_t mix(std::uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

} // namespace

RegisteredTemporary::RegisteredTemporary(const std::string& path) : m_slot(registerTemporary(path)) {}

RegisteredTemporary::~RegisteredTemporary()
{
    unregisterTemporary(m_slot);
}

namespace {

/// Creates a new file `prefix<pid>-XXXXXX` (six letters and digits; O_CREAT | O_EXCL, mode 0600)
/// and registers it with the signal cleanup before it exists, so that a signal delivered to any
/// thread at any moment leaves nothing behind (the handler's unlink of a name not yet created
/// touches nothing: the name carries this process's pid). Blocking the signals in the calling
/// thread alone is not enough: OpenMP's threads take them too. Retries a taken name. Returns
/// the descriptor, or -1 with errno set.
int createRegisteredTemporary(const std::string& prefix, std::string& path, std::optional<RegisteredTemporary>& reg)
{
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static std::atomic<std::uint64_t> counter{0};
    std::uint64_t state = std::uint64_t(::getpid()) * 0x9E3779B97F4A7C15ULL ^
                          std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                          (counter.fetch_add(1) << 32);
    for (int attempt = 0; attempt < 100; ++attempt) {
        path = pidTemplate(prefix);
        for (std::size_t i = path.size() - 6; i < path.size(); ++i) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            path[i] = kAlphabet[(state >> 33) % (sizeof kAlphabet - 1)];
        }
        reg.emplace(path);
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0)
            return fd;
        const int e = errno;
        reg.reset();
        if (e != EEXIST) {
            errno = e;
            return -1;
        }
    }
    errno = EEXIST;
    return -1;
}

} // namespace

// ---- ContentChecksum --------------------------------------------------------------------------

void ContentChecksum::update(const void* data, std::size_t bytes)
{
    auto step = [this](std::uint64_t word) {
        m_hash = (m_hash ^ word) * 0x100000001b3ull;
        m_hash ^= m_hash >> 29;
    };
    const auto* p = static_cast<const unsigned char*>(data);
    m_bytes += bytes;
    // Complete a pending word first; then whole words; then keep the rest.
    while (bytes > 0 && m_tailBytes > 0) {
        m_tail |= std::uint64_t(*p++) << (8 * m_tailBytes);
        --bytes;
        if (++m_tailBytes == 8) {
            step(m_tail);
            m_tail = 0;
            m_tailBytes = 0;
        }
    }
    for (; bytes >= 8; bytes -= 8, p += 8) {
        std::uint64_t w;
        std::memcpy(&w, p, sizeof w);
        if constexpr (std::endian::native == std::endian::big)
            w = __builtin_bswap64(w);
        step(w);
    }
    for (; bytes > 0; --bytes)
        m_tail |= std::uint64_t(*p++) << (8 * m_tailBytes++);
}

std::uint64_t ContentChecksum::value() const
{
    std::uint64_t h = m_hash;
    if (m_tailBytes > 0)
        h = (h ^ m_tail) * 0x100000001b3ull;
    return mix(h ^ m_bytes);
}

void verifyFileContent(const std::string& path, const ContentChecksum& expected)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw std::runtime_error(std::string("cannot reopen the written file to check it: ") + std::strerror(errno));
    // Written and fsync'ed: its pages are clean, so dropping them makes the read come from the
    // device (a no-op on tmpfs, where the page cache is the file).
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ContentChecksum got;
    std::vector<unsigned char> buffer(std::size_t(1) << 20);
    for (;;) {
        const ssize_t n = ::read(fd, buffer.data(), buffer.size());
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const int e = errno;
            ::close(fd);
            throw std::runtime_error(std::string("cannot read the written file back: ") + std::strerror(e));
        }
        if (n == 0)
            break;
        got.update(buffer.data(), std::size_t(n));
    }
    ::close(fd);
    if (got.bytes() != expected.bytes())
        throw std::runtime_error("the file read back has " + std::to_string(got.bytes()) + " bytes, "
                                 + std::to_string(expected.bytes()) + " were written");
    if (got.value() != expected.value())
        throw std::runtime_error("the file read back differs from what was written (checksum mismatch)");
}

// ---- targets, stale files ---------------------------------------------------------------------

WriteTarget resolveWriteTarget(const std::string& path)
{
    WriteTarget t;
    if (path.empty()) {
        t.problem = "empty path";
        return t;
    }
    std::error_code ec;
    fs::path target(path);
    // A symbolic link is written through: the file it names is replaced, the link stays.
    for (int depth = 0; fs::is_symlink(fs::symlink_status(target, ec)); ++depth) {
        const fs::path next = fs::read_symlink(target, ec);
        if (ec || depth == 40) {
            t.problem = "cannot resolve the symbolic link" + (ec ? ": " + ec.message() : std::string(" (a loop)"));
            return t;
        }
        target = next.is_absolute() ? next : target.parent_path() / next;
    }
    const fs::file_status st = fs::status(target, ec);
    if (fs::exists(st) && !fs::is_regular_file(st)) {
        t.problem = "it exists and is not a regular file (a device, directory or pipe is never replaced)";
        return t;
    }
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    if (!fs::is_directory(dir, ec)) {
        t.problem = "directory '" + dir.string() + "' does not exist";
        return t;
    }
    if (::access(dir.c_str(), W_OK) != 0) {
        t.problem = "directory '" + dir.string() + "' is not writable: " + std::strerror(errno);
        return t;
    }
    // access() says yes to root everywhere except on read-only mounts; /proc and /sys still refuse
    // new files. Creating (and removing) a probe file is the answer the write itself would get.
    std::string probe;
    std::optional<RegisteredTemporary> registered;
    const int fd = createRegisteredTemporary((dir / ".nbody-probe-").string(), probe, registered);
    const int probeErrno = errno;
    if (fd < 0) {
        t.problem = "directory '" + dir.string() + "' is not writable (a new file cannot be created there: " +
                    std::strerror(probeErrno) + ")";
        return t;
    } else {
        ::close(fd);
        ::unlink(probe.c_str());
    }
    t.path = target.string();
    return t;
}

std::size_t removeStaleTemporaries(const std::string& target)
{
    std::error_code ec;
    const fs::path t(target);
    const fs::path dir = t.has_parent_path() ? t.parent_path() : fs::path(".");
    const std::string tempPrefix = t.filename().string() + ".tmp-";
    static constexpr std::string_view kProbePrefix = ".nbody-probe-";
    std::size_t removed = 0;
    fs::directory_iterator it(dir, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::string_view rest;
        if (name.starts_with(tempPrefix))
            rest = std::string_view(name).substr(tempPrefix.size());
        else if (name.starts_with(kProbePrefix))
            rest = std::string_view(name).substr(kProbePrefix.size());
        else
            continue;
        long pid = 0;
        std::error_code fileEc;
        if (!parseTemporarySuffix(rest, pid) || !it->is_regular_file(fileEc))
            continue;
        const fs::file_time_type modified = fs::last_write_time(it->path(), fileEc);
        if (fileEc || modified >= g_processStart)
            continue; // written since this process started: perhaps by a concurrent writer
        if (pid > 0 && processAlive(pid))
            continue; // its writer may still be at work
        if (fs::remove(it->path(), fileEc))
            ++removed;
    }
    return removed;
}

void installTemporaryFileCleanup()
{
    static std::atomic<bool> installed{false};
    if (installed.exchange(true))
        return;
    // A write beyond the file-size limit (ulimit -f) ends the process with SIGXFSZ by default,
    // leaving its temporary file and saying nothing; ignored, the write fails with EFBIG, which
    // the writer reports (writeErrorText) and cleans up after. Left alone when already handled.
    {
        struct sigaction old{};
        if (::sigaction(SIGXFSZ, nullptr, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
            ::signal(SIGXFSZ, SIG_IGN);
    }
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction old{};
        if (::sigaction(sig, nullptr, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
            continue; // ignored (nohup) or handled by someone else: left alone
        struct sigaction sa{};
        sa.sa_handler = removeTemporariesAndReraise;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0;
        ::sigaction(sig, &sa, nullptr);
    }
}

// ---- writing ----------------------------------------------------------------------------------

void writeAtomically(const std::string& path, const std::function<void(const std::string& tempPath)>& fill,
                     const std::function<void(const std::string& tempPath)>& verify)
{
    auto fail = [&](const std::string& reason) -> void {
        throw WriteError("cannot write '" + path + "': " + reason);
    };
    const WriteTarget target = resolveWriteTarget(path);
    if (!target.problem.empty())
        fail(target.problem);
    removeStaleTemporaries(target.path);

    // A new, unique temporary file beside the target (mkstemp: O_CREAT | O_EXCL), so no
    // existing file is ever opened for writing. Registered before it is created, so that SIGINT
    // or SIGTERM at any moment from here on leaves nothing behind.
    std::string temp;
    std::optional<RegisteredTemporary> registered;
    const int fd = createRegisteredTemporary(target.path + ".tmp-", temp, registered);
    const int createErrno = errno;
    if (fd < 0)
        fail(std::string("cannot create a temporary file beside it: ") + std::strerror(createErrno));
    ::fchmod(fd, 0644); // as a file created by open(…, 0644) with the usual umask
    ::close(fd);
    std::error_code ec;
    auto removeTemp = [&] {
        std::error_code ignored;
        fs::remove(temp, ignored);
    };
    try {
        fill(temp);
    } catch (const std::exception& e) {
        removeTemp();
        fail(e.what());
    }
    if (std::string reason = syncFile(temp); !reason.empty()) {
        removeTemp();
        fail(reason);
    }
    try {
        verify(temp);
    } catch (const std::exception& e) {
        removeTemp();
        fail(e.what());
    }
    // Replacing a file keeps its permissions (the temporary one was created with the umask's).
    if (const fs::file_status st = fs::status(target.path, ec); !ec && fs::is_regular_file(st))
        fs::permissions(temp, st.permissions(), ec);
    ec.clear();
    fs::rename(temp, target.path, ec);
    if (ec) {
        removeTemp();
        fail(ec.message());
    }
}

void writeStreamAtomically(const std::string& path, const std::function<void(FileSink& sink)>& fill)
{
    ContentChecksum written;
    writeAtomically(
        path,
        [&](const std::string& temp) {
            FileSink sink(temp);
            fill(sink);
            sink.close();
            written = sink.checksum();
        },
        [&](const std::string& temp) { verifyFileContent(temp, written); });
}

void writeBytesAtomically(const std::string& path, std::span<const unsigned char> bytes)
{
    writeStreamAtomically(path, [&](FileSink& sink) { sink.write(bytes.data(), bytes.size()); });
}

void writeTextAtomically(const std::string& path, std::string_view text)
{
    writeBytesAtomically(path, std::span(reinterpret_cast<const unsigned char*>(text.data()), text.size()));
}

// ---- FileSink ---------------------------------------------------------------------------------

FileSink::FileSink(const std::string& path)
{
    m_file = std::fopen(path.c_str(), "wb");
    if (!m_file)
        throw std::runtime_error(std::strerror(errno));
}

FileSink::~FileSink()
{
    if (m_file)
        std::fclose(m_file);
}

void FileSink::write(const void* data, std::size_t bytes)
{
    if (!m_file)
        throw std::logic_error("FileSink: write after close");
    if (bytes > 0 && std::fwrite(data, 1, bytes, m_file) != bytes)
        throw std::runtime_error(writeErrorText(errno));
    m_checksum.update(data, bytes);
}

void FileSink::close()
{
    if (!m_file)
        return;
    std::FILE* f = m_file;
    m_file = nullptr;
    const bool flushed = std::fflush(f) == 0 && !std::ferror(f);
    int error = flushed ? 0 : errno;
    // fsync reports write-back errors that a flush into the page cache did not (EIO, ENOSPC on
    // some file systems); devices and pipes do not support it (EINVAL, ESPIPE, ENOTTY…).
    if (flushed && ::fsync(::fileno(f)) != 0 && (errno == EIO || errno == ENOSPC || errno == EDQUOT || errno == EFBIG))
        error = errno;
    const bool closed = std::fclose(f) == 0;
    if (error == 0 && !closed)
        error = errno;
    if (error != 0)
        throw std::runtime_error(writeErrorText(error));
}

} // namespace nbody
