/// \file ReaderProcess.cpp
/// A reader in a child process (ReaderProcess.h): posix_spawn, a pipe, limits, the message.

#include "sim/io/ReaderProcess.h"

#include "sim/base/Format.h"
#include "sim/core/MemoryBudget.h"
#include "sim/core/Scenario.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <stdexcept>
#include <vector>

extern char** environ;

namespace nbody {

namespace {

constexpr char kMagic[4] = {'N', 'B', 'R', 'D'};
constexpr char kEnd[4] = {'D', 'O', 'N', 'E'};
constexpr std::uint32_t kVersion = 4;
constexpr int kMessageFd = 3;
constexpr std::size_t kBodyBytes = 16 + 16 + 4 + 1 + 4; // position, velocity, id, group, radius
constexpr std::uint32_t kMaxWarnings = 1024;
constexpr std::size_t kChunkBodies = 1 << 16;

enum : std::uint8_t { kSnapshot = 1, kError = 2 };
enum : std::uint8_t { kFormatError = 1, kInvalidArgument = 2, kBadAlloc = 3, kOther = 4 };

bool builtWithAddressSanitizer()
{
#if defined(__SANITIZE_ADDRESS__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return true;
#else
    return false;
#endif
#else
    return false;
#endif
}

// ---- the child's side: writing -------------------------------------------------------------

class MessageWriter {
public:
    explicit MessageWriter(int fd) : m_fd(fd) {}
    void bytes(const void* data, std::size_t n)
    {
        const auto* p = static_cast<const char*>(data);
        m_buffer.insert(m_buffer.end(), p, p + n);
        if (m_buffer.size() >= (1u << 20))
            flush();
    }
    template <typename T>
    void value(T v)
    {
        bytes(&v, sizeof v);
    }
    void string(const std::string& s)
    {
        const std::size_t n = std::min(s.size(), kMaxMessageString);
        value(std::uint32_t(n));
        bytes(s.data(), n);
    }
    void flush()
    {
        std::size_t done = 0;
        while (done < m_buffer.size()) {
            const ssize_t w = ::write(m_fd, m_buffer.data() + done, m_buffer.size() - done);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                throw std::runtime_error(std::string("cannot write the message: ") + std::strerror(errno));
            done += std::size_t(w);
        }
        m_buffer.clear();
    }

private:
    int m_fd;
    std::vector<char> m_buffer;
};

void writeSnapshot(MessageWriter& w, const Snapshot& s)
{
    w.bytes(kMagic, 4);
    w.value(kVersion);
    w.value(std::uint8_t(kSnapshot));
    w.string(s.formatId);
    const World& world = s.world;
    w.value(world.time);
    w.value(std::uint64_t(world.step));
    w.value(std::uint8_t(s.params.has_value()));
    if (s.params) {
        const RestartParams& p = *s.params;
        w.value(std::uint8_t(p.G.has_value()));
        w.value(p.G.value_or(0.0));
        w.value(std::uint8_t(p.eps2.has_value()));
        w.value(p.eps2.value_or(0.f));
        w.value(std::uint8_t(p.dt.has_value()));
        w.value(p.dt.value_or(0.f));
        w.string(p.kernel);
        w.value(std::int32_t(p.blockSize));
        w.value(std::int32_t(p.tileWidthFactor));
        w.value(std::uint32_t(p.stored.size()));
        for (const auto& [key, text] : p.stored) {
            w.string(key);
            w.string(text);
        }
        w.string(p.units);
        w.string(p.unitsOfG);
    }
    const std::uint32_t warnings = std::uint32_t(std::min<std::size_t>(s.warnings.size(), kMaxWarnings));
    w.value(warnings);
    for (std::uint32_t i = 0; i < warnings; ++i)
        w.string(s.warnings[i]);
    const std::size_t n = world.size();
    w.value(std::uint64_t(n));
    for (std::size_t i = 0; i < n; ++i) {
        w.value(world.positions()[i]);
        w.value(world.velocities()[i]);
        w.value(world.ids()[i]);
        w.value(std::uint8_t(world.groups()[i]));
        w.value(world.radii()[i]);
    }
    const auto names = world.namedBodies();
    w.value(std::uint32_t(names.size()));
    for (const auto& [index, name] : names) {
        w.value(world.ids()[index]);
        w.string(name);
    }
    w.value(std::uint8_t(s.exact.has_value())); // the fp64 state (Snapshot::exact), N bodies in order
    if (s.exact)
        for (std::size_t i = 0; i < n; ++i) {
            w.value(s.exact->position[i]);
            w.value(s.exact->velocity[i]);
        }
    w.bytes(kEnd, 4);
    w.flush();
}

void writeError(MessageWriter& w, std::uint8_t errorClass, const std::string& what)
{
    w.bytes(kMagic, 4);
    w.value(kVersion);
    w.value(std::uint8_t(kError));
    w.value(errorClass);
    w.string(what);
    w.bytes(kEnd, 4);
    w.flush();
}

// ---- the parent's side: the child's output, read within a deadline -------------------------

using Clock = std::chrono::steady_clock;

/// The message pipe and the child's stderr, read together (so that neither fills up and blocks
/// the child) until a deadline.
class ChildOutput {
public:
    ChildOutput(int messageFd, int errFd, Clock::time_point deadline)
        : m_fd(messageFd), m_err(errFd), m_deadline(deadline)
    {
    }
    ~ChildOutput()
    {
        if (m_fd >= 0)
            ::close(m_fd);
        if (m_err >= 0)
            ::close(m_err);
    }
    ChildOutput(const ChildOutput&) = delete;
    ChildOutput& operator=(const ChildOutput&) = delete;

    enum class End { None, Eof, TimedOut };

    /// Fills `n` bytes at `dst`; false when the message ended first (end() says how).
    bool read(void* dst, std::size_t n)
    {
        auto* out = static_cast<char*>(dst);
        while (n > 0) {
            if (m_pos == m_len) {
                if (!fill())
                    return false;
                continue;
            }
            const std::size_t k = std::min(n, m_len - m_pos);
            std::memcpy(out, m_buffer + m_pos, k);
            out += k, n -= k, m_pos += k;
        }
        return true;
    }
    /// True when the message pipe ends here (no byte follows).
    bool atEof()
    {
        if (m_pos < m_len)
            return false;
        return !fill() && m_end == End::Eof;
    }
    /// Reads the child's stderr until it closes it (it exited) or the deadline.
    void drainErr()
    {
        while (m_err >= 0 && Clock::now() < m_deadline)
            pollOnce(false);
    }
    End end() const { return m_end; }
    /// The child's stderr: the line that begins with "SUMMARY:" (a sanitizer's), else the last
    /// non-empty line; empty when it wrote nothing.
    std::string errSummary() const
    {
        std::string best;
        std::size_t start = 0;
        while (start < m_errText.size()) {
            std::size_t end = m_errText.find('\n', start);
            if (end == std::string::npos)
                end = m_errText.size();
            std::string line = m_errText.substr(start, end - start);
            if (line.rfind("SUMMARY:", 0) == 0)
                return line;
            if (line.find_first_not_of(" \t\r") != std::string::npos)
                best = line;
            start = end + 1;
        }
        return best;
    }

private:
    /// Reads more of the message; false at its end or the deadline.
    bool fill()
    {
        while (m_fd >= 0) {
            if (!pollOnce(true))
                return false;
            if (m_pos < m_len)
                return true;
        }
        if (m_end == End::None)
            m_end = End::Eof;
        return false;
    }
    /// One poll of both pipes; false at the deadline.
    bool pollOnce(bool wantMessage)
    {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(m_deadline - Clock::now()).count();
        if (left <= 0) {
            m_end = End::TimedOut;
            return false;
        }
        pollfd fds[2];
        int nfds = 0;
        int messageSlot = -1, errSlot = -1;
        if (wantMessage && m_fd >= 0) {
            messageSlot = nfds;
            fds[nfds++] = {m_fd, POLLIN, 0};
        }
        if (m_err >= 0) {
            errSlot = nfds;
            fds[nfds++] = {m_err, POLLIN, 0};
        }
        if (nfds == 0)
            return true;
        const int r = ::poll(fds, nfds_t(nfds), int(std::min<long long>(left, 1000)));
        if (r < 0 && errno == EINTR)
            return true;
        if (r < 0)
            throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
        if (errSlot >= 0 && fds[errSlot].revents) {
            char buf[4096];
            const ssize_t k = ::read(m_err, buf, sizeof buf);
            if (k > 0) {
                m_errText.append(buf, std::size_t(k));
                if (m_errText.size() > 16384)
                    m_errText.erase(0, m_errText.size() - 8192);
            } else if (k == 0 || errno != EINTR) {
                ::close(m_err);
                m_err = -1;
            }
        }
        if (messageSlot >= 0 && fds[messageSlot].revents) {
            const ssize_t k = ::read(m_fd, m_buffer, sizeof m_buffer);
            if (k > 0) {
                m_pos = 0;
                m_len = std::size_t(k);
            } else if (k == 0 || errno != EINTR) {
                ::close(m_fd);
                m_fd = -1;
                m_end = End::Eof;
            }
        }
        return true;
    }

    int m_fd, m_err;
    Clock::time_point m_deadline;
    char m_buffer[1 << 16];
    std::size_t m_pos = 0, m_len = 0;
    End m_end = End::None;
    std::string m_errText;
};

/// A descriptor at or above 10 (so that dup2 onto 2 and 3 in the child never meets itself),
/// close-on-exec.
int highFd(int fd)
{
    const int high = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
    ::close(fd);
    return high;
}

/// The child's pid until it has been waited for; kills and reaps it on destruction.
class Child {
public:
    explicit Child(pid_t pid) : m_pid(pid) {}
    ~Child()
    {
        if (m_pid > 0) {
            ::kill(m_pid, SIGKILL);
            int status = 0;
            while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
            }
        }
    }
    Child(const Child&) = delete;
    Child& operator=(const Child&) = delete;

    /// Waits for the child until the deadline (then kills it); its wait status, or -1 when it
    /// had to be killed or cannot be waited for (SIGCHLD ignored: reaped by the system).
    int wait(Clock::time_point deadline, bool& timedOut)
    {
        timedOut = false;
        int status = 0;
        for (;;) {
            const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
            if (r == m_pid) {
                m_pid = -1;
                return status;
            }
            if (r < 0 && errno != EINTR) {
                m_pid = -1;
                return -1;
            }
            if (Clock::now() >= deadline) {
                timedOut = true;
                return -1; // the destructor kills and reaps it
            }
            ::usleep(2000);
        }
    }
    void kill()
    {
        if (m_pid > 0) {
            ::kill(m_pid, SIGKILL);
            int status = 0;
            while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
            }
            m_pid = -1;
        }
    }

private:
    pid_t m_pid;
};

std::string quoted(const std::string& path) { return "'" + path + "'"; }

std::string secondsText(double s)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s);
    return buf;
}

} // namespace

std::string findReaderHelper(const std::string& name, const char* envVar, const std::string& buildPath)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (const char* env = std::getenv(envVar); env && *env) {
        if (::access(env, X_OK) == 0)
            return env;
        throw ReaderProcessError(ReaderProcessError::Kind::Failed,
                                 std::string("the reader process ") + envVar + "=" + env + " is not an executable file");
    }
    std::string looked;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path beside = self.parent_path() / name;
        if (::access(beside.c_str(), X_OK) == 0)
            return beside.string();
        looked = beside.string();
    }
    if (!buildPath.empty()) {
        if (::access(buildPath.c_str(), X_OK) == 0)
            return buildPath;
        looked += (looked.empty() ? "" : ", ") + buildPath;
    }
    throw ReaderProcessError(ReaderProcessError::Kind::Failed,
                             "the reader process " + name + " was not found (looked at " + looked + "; set " + envVar
                                 + " to its path)");
}

Snapshot readInReaderProcess(const ReaderProcess& process, const std::string& path)
{
    using Kind = ReaderProcessError::Kind;
    const std::string lib = "the " + process.library + " library";
    auto failed = [&](const std::string& what) {
        return ReaderProcessError(Kind::Failed, "cannot read " + quoted(path) + " with " + lib + ": " + what);
    };
    if (!(process.seconds > 0) || !std::isfinite(process.seconds))
        throw std::invalid_argument("reader process: the time limit must be positive and finite (got "
                                    + secondsText(process.seconds) + " s)");

    int message[2], err[2];
    if (::pipe2(message, O_CLOEXEC) != 0)
        throw failed(std::string("pipe: ") + std::strerror(errno));
    if (::pipe2(err, O_CLOEXEC) != 0) {
        const int e = errno;
        ::close(message[0]), ::close(message[1]);
        throw failed(std::string("pipe: ") + std::strerror(e));
    }
    for (int* fd : {&message[0], &message[1], &err[0], &err[1]})
        *fd = highFd(*fd);

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    posix_spawn_file_actions_adddup2(&actions, message[1], kMessageFd);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    // Nothing else of the parent's (a Qt app's sockets, files opened without O_CLOEXEC).
    posix_spawn_file_actions_addclosefrom_np(&actions, kMessageFd + 1);
#endif
    // Default signal dispositions and an empty mask, whatever the calling thread has.
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

    const std::string memory = std::to_string(process.memoryBytes);
    const std::string parent = std::to_string(::getpid());
    std::vector<std::string> args{process.helper, "--memory", memory, "--parent", parent, path};
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    const auto start = Clock::now();
    const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(process.seconds));
    pid_t pid = -1;
    const int spawned = ::posix_spawn(&pid, process.helper.c_str(), &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(message[1]);
    ::close(err[1]);
    if (spawned != 0) {
        ::close(message[0]), ::close(err[0]);
        throw failed("cannot start the reader process " + process.helper + ": " + std::strerror(spawned));
    }
    Child child(pid);
    ChildOutput out(message[0], err[0], deadline);

    // ---- the message; a short or broken one is judged after the child's exit status ----
    enum class Got { Nothing, Broken, Error, Snapshot } got = Got::Nothing;
    std::string broken;           // what is wrong with the message
    std::uint8_t errorClass = 0;  // for Got::Error
    std::string errorText;
    Snapshot snap;
    auto need = [&](void* dst, std::size_t n) {
        if (!out.read(dst, n))
            throw std::length_error("the message ended early");
    };
    auto u8 = [&] { std::uint8_t v; need(&v, 1); return v; };
    auto u32 = [&] { std::uint32_t v; need(&v, 4); return v; };
    auto str = [&](const char* what) {
        const std::uint32_t n = u32();
        if (n > kMaxMessageString)
            throw std::range_error(std::string(what) + " of " + std::to_string(n) + " bytes");
        std::string s(n, '\0');
        need(s.data(), n);
        return s;
    };
    try {
        char magic[4];
        need(magic, 4);
        if (std::memcmp(magic, kMagic, 4) != 0 || u32() != kVersion)
            throw std::range_error("not a reader message");
        const std::uint8_t kind = u8();
        if (kind == kError) {
            errorClass = u8();
            errorText = str("an error message");
            got = Got::Error;
        } else if (kind == kSnapshot) {
            snap.formatId = str("a format id");
            World& world = snap.world;
            need(&world.time, sizeof world.time);
            std::uint64_t step;
            need(&step, 8);
            world.step = step;
            if (u8()) {
                RestartParams p{std::nullopt, std::nullopt, std::nullopt, {}, 0, 0, {}, {}, {}};
                double g;
                float eps2, dt;
                const bool hasG = u8();
                need(&g, 8);
                const bool hasEps2 = u8();
                need(&eps2, 4);
                const bool hasDt = u8();
                need(&dt, 4);
                if (hasG)
                    p.G = g;
                if (hasEps2)
                    p.eps2 = eps2;
                if (hasDt)
                    p.dt = dt;
                p.kernel = str("a kernel id");
                std::int32_t block, factor;
                need(&block, 4);
                need(&factor, 4);
                p.blockSize = block;
                p.tileWidthFactor = factor;
                const std::uint32_t stored = u32();
                if (stored > kMaxStoredParams)
                    throw std::range_error(std::to_string(stored) + " stored parameters");
                for (std::uint32_t i = 0; i < stored; ++i) {
                    std::string key = str("a parameter name");
                    std::string text = str("a parameter value");
                    p.stored.emplace_back(std::move(key), std::move(text));
                }
                p.units = str("a units label");
                p.unitsOfG = str("a unit of G");
                snap.params = p;
            }
            const std::uint32_t warnings = u32();
            if (warnings > kMaxWarnings)
                throw std::range_error(std::to_string(warnings) + " warnings");
            for (std::uint32_t i = 0; i < warnings; ++i)
                snap.warnings.push_back(str("a warning"));
            std::uint64_t n;
            need(&n, 8);
            // The header's N against the limit and the memory budget, before allocating for it.
            if (n > kMaxBodies)
                throw std::range_error("a count of " + std::to_string(n) + " bodies (the limit is "
                                       + std::to_string(kMaxBodies) + ")");
            checkHostMemory(std::size_t(n));
            world.reserve(std::size_t(n));
            std::vector<unsigned char> chunk;
            for (std::uint64_t done = 0; done < n;) {
                const std::size_t k = std::size_t(std::min<std::uint64_t>(n - done, kChunkBodies));
                chunk.resize(k * kBodyBytes);
                need(chunk.data(), chunk.size());
                for (std::size_t i = 0; i < k; ++i) {
                    const unsigned char* b = chunk.data() + i * kBodyBytes;
                    Float4 pos, vel;
                    std::uint32_t id;
                    std::memcpy(&pos, b, 16);
                    std::memcpy(&vel, b + 16, 16);
                    std::memcpy(&id, b + 32, 4);
                    const std::uint8_t group = b[36];
                    float radius;
                    std::memcpy(&radius, b + 37, 4);
                    if (group > std::uint8_t(Group::Gas))
                        throw std::range_error("group " + std::to_string(group) + " of body " + std::to_string(done + i));
                    try {
                        world.addBody(pos, vel, Group(group), id, radius);
                    } catch (const std::invalid_argument& e) { // the child's reader checked them
                        throw std::range_error("body " + std::to_string(done + i) + ": " + e.what());
                    }
                }
                done += k;
            }
            const std::uint32_t names = u32();
            if (names > n)
                throw std::range_error(std::to_string(names) + " names for " + bodyCount(n));
            if (names > 0) {
                std::vector<std::pair<std::uint32_t, BodyIndex>> index; // id -> index, sorted
                index.reserve(std::size_t(n));
                for (std::size_t i = 0; i < std::size_t(n); ++i)
                    index.emplace_back(world.ids()[i], BodyIndex(i));
                std::sort(index.begin(), index.end());
                for (std::uint32_t i = 0; i < names; ++i) {
                    const std::uint32_t id = u32();
                    std::string name = str("a name");
                    const auto it = std::lower_bound(index.begin(), index.end(), std::make_pair(id, BodyIndex(0)));
                    if (it == index.end() || it->first != id)
                        throw std::range_error("a name for id " + std::to_string(id) + ", which no body has");
                    world.setName(it->second, std::move(name));
                }
            }
            if (u8()) {
                Fp64State& e = snap.exact.emplace();
                e.position.resize(std::size_t(n));
                e.velocity.resize(std::size_t(n));
                for (std::size_t i = 0; i < std::size_t(n); ++i) {
                    need(&e.position[i], sizeof(Double4));
                    need(&e.velocity[i], sizeof(Double4));
                    const Double4& x = e.position[i];
                    const Double4& v = e.velocity[i];
                    if (!std::isfinite(x.x) || !std::isfinite(x.y) || !std::isfinite(x.z) || !std::isfinite(x.w) ||
                        !std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z))
                        throw std::range_error("fp64 body " + std::to_string(i) + " is not finite");
                }
                e.acceleration.assign(std::size_t(n), Double4{});
            }
            got = Got::Snapshot;
        } else {
            throw std::range_error("message kind " + std::to_string(kind));
        }
        char end[4];
        need(end, 4);
        if (std::memcmp(end, kEnd, 4) != 0)
            throw std::range_error("no end mark");
        if (!out.atEof())
            throw std::range_error("bytes after the end mark");
    } catch (const std::length_error& e) {
        // Ended early (or the deadline passed): the child's end below says why, a crash most likely.
        got = Got::Broken;
        broken = e.what();
    } catch (const std::invalid_argument&) {
        throw; // checkHostMemory: as the reader in the child would have said (the child is killed)
    } catch (const std::bad_alloc&) {
        throw; // the parent's own allocation for a size within the budget
    } catch (const std::exception& e) {
        // What it sent is wrong: stopped at once (it may be blocked writing the rest).
        child.kill();
        throw failed("the reader process sent a broken message (" + std::string(e.what()) + ")");
    }

    // ---- the child's end ----
    if (out.end() == ChildOutput::End::TimedOut) {
        child.kill();
        throw ReaderProcessError(Kind::TimedOut,
                                 lib + " did not finish reading " + quoted(path) + " within " + secondsText(process.seconds)
                                     + " s and was stopped: the file is damaged or not " + process.fileKind
                                     + (process.timeLimitVariable.empty()
                                            ? std::string()
                                            : " (a larger file may need more time: " + process.timeLimitVariable
                                                  + "=SECONDS)"));
    }
    out.drainErr();
    bool timedOut = false;
    const int status = child.wait(deadline, timedOut);
    if (timedOut) {
        child.kill();
        throw ReaderProcessError(Kind::TimedOut, lib + " did not finish reading " + quoted(path) + " within "
                                                     + secondsText(process.seconds) + " s and was stopped");
    }
    const std::string said = out.errSummary();
    const std::string saidText = said.empty() ? "" : " [the reader process said: " + said + "]";
    if (status != -1 && WIFSIGNALED(status))
        throw ReaderProcessError(Kind::Crashed, lib + " crashed reading " + quoted(path) + " (signal "
                                                    + std::to_string(WTERMSIG(status)) + "): the file is damaged or not "
                                                    + process.fileKind + saidText);
    if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) != 0)
        throw failed("the reader process " + process.helper + " exited with status "
                     + std::to_string(WEXITSTATUS(status)) + saidText);
    if (got == Got::Broken || got == Got::Nothing)
        throw failed("the reader process sent a broken message (" + (broken.empty() ? "nothing" : broken) + ")"
                     + saidText);
    if (got == Got::Error) {
        switch (errorClass) {
        case kFormatError:
            throw FormatError(errorText);
        case kInvalidArgument:
            throw std::invalid_argument(errorText);
        case kBadAlloc:
            throw ReaderProcessError(
                Kind::OutOfMemory,
                lib + " ran out of memory reading " + quoted(path) + " ("
                    + (process.memoryBytes ? "limit " + formatBytes(process.memoryBytes) + ": " : "")
                    + "the host memory available): the file is damaged or claims more data than it holds");
        default:
            throw failed(errorText);
        }
    }
    return snap;
}

int serveReaderProcess(int argc, char** argv, Snapshot (*read)(const std::string& path))
{
    unsigned long long memory = 0, parent = 0;
    std::string path;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if ((a == "--memory" || a == "--parent") && i + 1 < argc) {
            char* end = nullptr;
            errno = 0;
            const unsigned long long v = std::strtoull(argv[++i], &end, 10);
            if (errno != 0 || !end || *end != '\0')
                return 2;
            (a == "--memory" ? memory : parent) = v;
        } else if (path.empty() && a.rfind("--", 0) != 0) {
            path = a;
        } else {
            return 2;
        }
    }
    if (path.empty() || ::fcntl(kMessageFd, F_GETFD) < 0) {
        const char usage[] = "usage: nbody-read-... --memory BYTES --parent PID PATH (a helper of nbody: it writes "
                             "its result to fd 3)\n";
        (void)!::write(2, usage, sizeof usage - 1);
        return 2;
    }
    // Killed with the parent (which may die while we read); it may have died before this line.
    if (parent > 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (static_cast<unsigned long long>(::getppid()) != parent)
            return 2;
    }
    const rlimit noCore{0, 0};
    ::setrlimit(RLIMIT_CORE, &noCore); // a crash on a damaged file is expected, its core is not wanted
    if (memory > 0 && !builtWithAddressSanitizer()) {
        // RLIMIT_AS: what is mapped now (libraries, stack) plus what the parent allows.
        std::size_t mapped = 0;
        std::ifstream statm("/proc/self/statm");
        unsigned long long pages = 0;
        if (statm >> pages)
            mapped = std::size_t(pages) * std::size_t(::sysconf(_SC_PAGESIZE));
        const rlim_t bytes = rlim_t(mapped) + rlim_t(memory);
        const rlimit limit{bytes, bytes};
        rlimit old{};
        if (::getrlimit(RLIMIT_AS, &old) == 0 && (old.rlim_cur == RLIM_INFINITY || old.rlim_cur > limit.rlim_cur))
            ::setrlimit(RLIMIT_AS, &limit);
    }
    MessageWriter w(kMessageFd);
    try {
        try {
            const Snapshot s = read(path);
            writeSnapshot(w, s);
        } catch (const FormatError& e) {
            writeError(w, kFormatError, e.what());
        } catch (const std::invalid_argument& e) {
            writeError(w, kInvalidArgument, e.what());
        } catch (const std::bad_alloc&) {
            writeError(w, kBadAlloc, "out of memory");
        } catch (const std::exception& e) {
            writeError(w, kOther, e.what());
        }
    } catch (const std::exception& e) {
        const std::string text = std::string("reader process: ") + e.what() + "\n";
        (void)!::write(2, text.data(), text.size());
        return 2;
    }
    ::close(kMessageFd);
    return 0;
}

} // namespace nbody
