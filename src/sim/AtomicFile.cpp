#include "AtomicFile.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

namespace nbody {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& reason)
{
    throw std::runtime_error("cannot write '" + path + "': " + reason);
}

/// Writes all bytes to a new file and flushes it to disk; returns an errno-style reason or "".
std::string writeNewFile(const std::string& path, std::span<const unsigned char> bytes)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return std::strerror(errno);
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const std::string reason = std::strerror(errno);
            ::close(fd);
            return reason;
        }
        done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
        const std::string reason = std::strerror(errno);
        ::close(fd);
        return reason;
    }
    if (::close(fd) != 0)
        return std::strerror(errno);
    return {};
}

} // namespace

WriteTarget resolveWriteTarget(const std::string& path)
{
    namespace fs = std::filesystem;
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
    t.path = target.string();
    return t;
}

void writeFileAtomically(const std::string& path, std::span<const unsigned char> bytes)
{
    namespace fs = std::filesystem;
    const WriteTarget target = resolveWriteTarget(path);
    if (!target.problem.empty())
        fail(path, target.problem);
    std::error_code ec;
    const std::string temp = target.path + ".tmp-" + std::to_string(::getpid());
    if (std::string reason = writeNewFile(temp, bytes); !reason.empty()) {
        fs::remove(temp, ec);
        fail(path, reason);
    }
    // Replacing a file keeps its permissions (the temporary one was created 0644).
    if (const fs::file_status st = fs::status(target.path, ec); !ec && fs::is_regular_file(st))
        fs::permissions(temp, st.permissions(), ec);
    ec.clear();
    fs::rename(temp, target.path, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(temp, ignored);
        fail(path, ec.message());
    }
}

void writeFileAtomically(const std::string& path, std::string_view text)
{
    writeFileAtomically(path, std::span(reinterpret_cast<const unsigned char*>(text.data()), text.size()));
}

} // namespace nbody
