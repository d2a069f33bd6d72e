#include "FrameSink.h"

#include "sim/base/AtomicFile.h"

#include <memory>

#include "sim/base/PathNames.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace nbody::gl {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& target, const std::string& reason)
{
    throw std::runtime_error("cannot record to '" + target + "': " + reason);
}


void checkSize(const SinkOptions& o)
{
    if (o.width <= 0 || o.height <= 0 || o.width > 16384 || o.height > 16384)
        fail(o.target, "frame size " + std::to_string(o.width) + "x" + std::to_string(o.height) +
                           " is outside 1..16384");
}

void checkFrame(const SinkOptions& o, const Image& frame)
{
    if (frame.width != o.width || frame.height != o.height ||
        frame.rgba.size() != std::size_t(frame.width) * std::size_t(frame.height) * 4)
        fail(o.target, "a frame of " + std::to_string(frame.width) + "x" + std::to_string(frame.height) +
                           " does not match the recording's " + std::to_string(o.width) + "x" +
                           std::to_string(o.height));
}

// ---- numbered image files -------------------------------------------------------------------------

} // namespace

std::string imageSequenceProblem(const std::string& target, const std::string& prefix)
{
    const fs::path dir(target);
    std::error_code ec;
    const fs::file_status st = fs::status(dir, ec);
    if (fs::exists(st) && !fs::is_directory(st))
        return "it exists and is not a directory (an image sequence needs a directory; a video needs a name "
               "ending in .mp4)";
    if (!fs::exists(st)) {
        const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
        if (!fs::is_directory(parent, ec))
            return "directory '" + parent.string() + "' does not exist";
        return {};
    }
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix, 0) == 0 && lowerExtension(name) == ".png")
            return "it already holds frames of an earlier recording (" + name +
                   "): choose an empty or new directory";
    }
    if (ec)
        return "cannot list the directory: " + ec.message();
    if (::access(dir.c_str(), W_OK) != 0)
        return std::string("the directory is not writable: ") + std::strerror(errno);
    return {};
}

namespace {


class ImageSequenceSink final : public FrameSink {
public:
    explicit ImageSequenceSink(SinkOptions o) : FrameSink(std::move(o))
    {
        checkSize(m_options);
        if (const std::string problem = imageSequenceProblem(m_options.target, m_options.prefix); !problem.empty())
            fail(m_options.target, problem);
        const fs::path dir(m_options.target);
        std::error_code ec;
        if (!fs::exists(dir, ec)) {
            if (!fs::create_directory(dir, ec) && ec)
                fail(m_options.target, "creating the directory failed: " + ec.message());
            if (::access(dir.c_str(), W_OK) != 0)
                fail(m_options.target, std::string("the directory is not writable: ") + std::strerror(errno));
        }
    }

    std::string pathOf(int index) const override
    {
        char number[32];
        std::snprintf(number, sizeof number, "%05d", index);
        return (fs::path(m_options.target) / (m_options.prefix + number + ".png")).string();
    }

    void write(const Image& frame) override
    {
        if (m_closed)
            fail(m_options.target, "the recording is closed");
        checkFrame(m_options, frame);
        try {
            writeImage(pathOf(m_frames), frame, ImageFormat::Png);
        } catch (const std::exception& e) {
            m_closed = true;
            throw std::runtime_error(std::string(e.what()) + " (frame " + std::to_string(m_frames) + "; the " +
                                     std::to_string(m_frames) + " frames before it are in '" +
                                     m_options.target + "')");
        }
        ++m_frames;
    }

    std::string finish() override
    {
        m_closed = true;
        return m_options.target;
    }

    void abort() noexcept override { m_closed = true; }

private:
    bool m_closed = false;
};

// ---- ffmpeg -----------------------------------------------------------------------------------

/// Writes all of `data` to a pipe with SIGPIPE blocked on this thread (a library must not
/// change the process's signal dispositions); returns 0 or the errno of the failure.
int writeToPipe(int fd, const std::uint8_t* data, std::size_t size)
{
    sigset_t pipeSignal, previous;
    sigemptyset(&pipeSignal);
    sigaddset(&pipeSignal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous);
    int error = 0;
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::write(fd, data + done, size - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            error = errno;
            break;
        }
        done += std::size_t(n);
    }
    if (error == EPIPE) {
        // Consume the SIGPIPE this thread raised before unblocking it.
        const timespec zero{0, 0};
        while (sigtimedwait(&pipeSignal, nullptr, &zero) == SIGPIPE) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return error;
}

class Mp4Sink final : public FrameSink {
public:
    explicit Mp4Sink(SinkOptions o) : FrameSink(std::move(o))
    {
        checkSize(m_options);
        if (!(m_options.fps > 0 && m_options.fps <= 1000))
            fail(m_options.target, "frame rate " + std::to_string(m_options.fps) + " is outside (0, 1000]");
        const PngTarget t = resolvePngTarget(m_options.target);
        if (!t.problem.empty())
            fail(m_options.target, t.problem);
        m_final = t.path;
        std::string why;
        const std::string ffmpeg = findFfmpeg(&why);
        if (ffmpeg.empty())
            fail(m_options.target, why);
        m_temp = m_final + ".tmp-" + std::to_string(::getpid());
        m_registered = std::make_unique<RegisteredTemporary>(m_temp); // removed on Ctrl-C / SIGTERM
        const fs::path p(m_final);
        m_partial = (p.parent_path() / (p.stem().string() + ".partial.mp4")).string();
        start(ffmpeg);
    }

    ~Mp4Sink() override { abort(); }

    std::string pathOf(int) const override { return m_final; }

    void write(const Image& frame) override
    {
        if (m_pipe < 0)
            fail(m_options.target, "the recording is closed");
        checkFrame(m_options, frame);
        if (const int error = writeToPipe(m_pipe, frame.rgba.data(), frame.rgba.size()); error != 0)
            failNow(error == EPIPE ? "ffmpeg stopped reading" : std::strerror(error));
        ++m_frames;
    }

    std::string finish() override
    {
        if (m_pipe < 0)
            fail(m_options.target, "the recording is closed");
        const int status = closeAndWait();
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
            failNow(describeStatus(status));
        std::error_code ec;
        if (const fs::file_status st = fs::status(m_final, ec); !ec && fs::is_regular_file(st))
            fs::permissions(m_temp, st.permissions(), ec); // replacing a file keeps its permissions
        ec.clear();
        fs::rename(m_temp, m_final, ec);
        if (ec)
            failNow("renaming the finished video into place failed: " + ec.message());
        closeLog();
        return m_final;
    }

    void abort() noexcept override
    {
        if (m_pipe >= 0)
            closeAndWait(); // ffmpeg sees the end of its input and closes the file properly
        keepPartial();
        closeLog();
    }

private:
    void start(const std::string& ffmpeg)
    {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0)
            fail(m_options.target, std::string("pipe: ") + std::strerror(errno));
        m_log = std::tmpfile(); // ffmpeg's messages, for the reason of a failure; deleted on close
        char fps[32], gop[16], size[32];
        std::snprintf(fps, sizeof fps, "%.6g", m_options.fps);
        std::snprintf(gop, sizeof gop, "%d", std::max(1, int(std::ceil(m_options.fps))));
        std::snprintf(size, sizeof size, "%dx%d", m_options.width, m_options.height);
        const std::string crf = std::to_string(std::clamp(m_options.crf, 0, 51));
        const std::vector<std::string> args = {
            ffmpeg, "-hide_banner", "-nostdin", "-loglevel", "error", "-y",
            // raw RGBA frames, rows from the top, on stdin
            "-f", "rawvideo", "-pix_fmt", "rgba", "-s", size, "-framerate", fps, "-i", "pipe:0",
            // H.264 needs even sizes for yuv420p: pad an odd one by a row or column of black
            "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-preset", "medium", "-crf", crf,
            "-pix_fmt", "yuv420p", "-g", gop,
            // a fragment per keyframe (each second): what was written plays even if cut short
            "-movflags", "+frag_keyframe+empty_moov+default_base_moof", "-f", "mp4", m_temp};
        std::vector<char*> argv;
        for (const std::string& a : args)
            argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
        if (m_log)
            posix_spawn_file_actions_adddup2(&actions, fileno(m_log), 2);
        // ffmpeg starts with no blocked signals and default actions for the ones a host
        // application may have changed (a GUI toolkit ignoring SIGPIPE, say).
        posix_spawnattr_t attr;
        posix_spawnattr_init(&attr);
        sigset_t none, defaults;
        sigemptyset(&none);
        sigemptyset(&defaults);
        sigaddset(&defaults, SIGPIPE);
        sigaddset(&defaults, SIGINT);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setsigdefault(&attr, &defaults);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
        const int rc = ::posix_spawn(&m_pid, ffmpeg.c_str(), &actions, &attr, argv.data(), environ);
        posix_spawnattr_destroy(&attr);
        posix_spawn_file_actions_destroy(&actions);
        ::close(fds[0]);
        if (rc != 0) {
            ::close(fds[1]);
            closeLog();
            fail(m_options.target, "starting " + ffmpeg + " failed: " + std::strerror(rc));
        }
        m_pipe = fds[1];
    }

    /// Closes ffmpeg's input and waits for it (killing it after 30 s); returns its wait status.
    int closeAndWait() noexcept
    {
        if (m_pipe >= 0)
            ::close(m_pipe);
        m_pipe = -1;
        if (m_pid <= 0)
            return 0;
        int status = 0;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        for (;;) {
            const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
            if (r == m_pid || (r < 0 && errno != EINTR))
                break;
            if (std::chrono::steady_clock::now() > deadline) {
                ::kill(m_pid, SIGKILL);
                ::waitpid(m_pid, &status, 0);
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        m_pid = -1;
        return status;
    }

    std::string describeStatus(int status) const
    {
        std::string s = WIFEXITED(status) ? "ffmpeg exited with status " + std::to_string(WEXITSTATUS(status))
                                          : "ffmpeg was killed by signal " + std::to_string(WTERMSIG(status)) +
                                                " (" + strsignal(WTERMSIG(status)) + ")";
        const std::string tail = logTail();
        return tail.empty() ? s : s + ": " + tail;
    }

    /// The last lines ffmpeg wrote to stderr (at most about 400 characters, one line).
    std::string logTail() const
    {
        if (!m_log)
            return {};
        std::fflush(m_log);
        std::string text;
        std::rewind(m_log);
        char buf[4096];
        std::size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, m_log)) > 0)
            text.append(buf, n);
        while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
            text.pop_back();
        if (text.size() > 400)
            text = "…" + text.substr(text.size() - 400);
        std::replace(text.begin(), text.end(), '\n', ' ');
        return text;
    }

    [[noreturn]] void failNow(const std::string& reason)
    {
        std::string why = reason;
        if (m_pid > 0 || m_pipe >= 0) {
            const int status = closeAndWait();
            if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
                why += " (" + describeStatus(status) + ")";
        }
        const std::string kept = keepPartial();
        closeLog();
        fail(m_options.target, why + (kept.empty() ? "; nothing was written"
                                                   : "; what ffmpeg finished of the " + std::to_string(m_frames) +
                                                         " frames sent is kept in '" + kept + "'"));
    }

    /// Renames the temporary video to <stem>.partial.mp4 when it holds anything, else removes it.
    /// Returns the partial file's path, or "".
    std::string keepPartial() noexcept
    {
        std::error_code ec;
        if (m_temp.empty() || !fs::exists(m_temp, ec))
            return {};
        const auto bytes = fs::file_size(m_temp, ec);
        if (ec || bytes == 0 || m_frames == 0) {
            fs::remove(m_temp, ec);
            m_temp.clear();
            return {};
        }
        fs::rename(m_temp, m_partial, ec);
        if (ec) {
            const std::string temp = m_temp;
            m_temp.clear();
            return temp;
        }
        m_temp.clear();
        return m_partial;
    }

    void closeLog() noexcept
    {
        if (m_log)
            std::fclose(m_log);
        m_log = nullptr;
    }

    std::string m_final, m_temp, m_partial;
    std::unique_ptr<RegisteredTemporary> m_registered; ///< the signal cleanup of sim/base/AtomicFile.h
    pid_t m_pid = -1;
    int m_pipe = -1;
    std::FILE* m_log = nullptr;
};

} // namespace

SinkKind sinkKindFor(const std::string& target)
{
    return lowerExtension(target) == ".mp4" ? SinkKind::Mp4 : SinkKind::ImageSequence;
}

std::string findFfmpeg(std::string* whyNot)
{
    auto executable = [](const std::string& p) {
        struct stat st{};
        return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
    };
    if (const char* env = std::getenv("NBODY_FFMPEG"); env && *env) {
        if (executable(env))
            return env;
        if (whyNot)
            *whyNot = std::string("NBODY_FFMPEG names '") + env + "', which is not an executable file";
        return {};
    }
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= dirs.size()) {
        const std::size_t end = std::min(dirs.find(':', start), dirs.size());
        const std::string dir = dirs.substr(start, end - start);
        const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/ffmpeg";
        if (executable(candidate))
            return candidate;
        start = end + 1;
    }
    if (whyNot)
        *whyNot = "ffmpeg was not found in PATH: install Debian's ffmpeg package (scripts/deps.sh does) to "
                  "record videos; image sequences need no ffmpeg";
    return {};
}

std::string recordTargetProblem(const std::string& target)
{
    if (target.empty())
        return "no target given";
    if (sinkKindFor(target) != SinkKind::Mp4)
        return imageSequenceProblem(target);
    if (const PngTarget t = resolvePngTarget(target); !t.problem.empty())
        return t.problem;
    std::string why;
    if (findFfmpeg(&why).empty())
        return why;
    return {};
}

std::unique_ptr<FrameSink> openFrameSink(const SinkOptions& options)
{
    if (options.target.empty())
        throw std::runtime_error("cannot record: no target given");
    if (sinkKindFor(options.target) == SinkKind::Mp4)
        return std::make_unique<Mp4Sink>(options);
    return std::make_unique<ImageSequenceSink>(options);
}

} // namespace nbody::gl
