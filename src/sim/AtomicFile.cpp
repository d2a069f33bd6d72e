/// \file AtomicFile.cpp
/// Atomic output: temporary file beside the target, fsync, rename (see AtomicFile.h).

#include "AtomicFile.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nbody {

namespace fs = std::filesystem;

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
    std::string probe = (dir / ".nbody-probe-XXXXXX").string();
    if (const int fd = ::mkstemp(probe.data()); fd < 0) {
        t.problem = "directory '" + dir.string() + "' is not writable (a new file cannot be created there: " +
                    std::strerror(errno) + ")";
        return t;
    } else {
        ::close(fd);
        ::unlink(probe.c_str());
    }
    t.path = target.string();
    return t;
}

namespace {

/// Flushes a written file to disk; returns a reason or "".
std::string syncFile(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return std::string("cannot reopen the temporary file: ") + std::strerror(errno);
    std::string reason;
    if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
        reason = std::strerror(errno);
    ::close(fd);
    return reason;
}

} // namespace

void writeAtomically(const std::string& path,
                     const std::function<void(const std::string& tempPath)>& fill)
{
    auto fail = [&](const std::string& reason) -> void {
        throw WriteError("cannot write '" + path + "': " + reason);
    };
    const WriteTarget target = resolveWriteTarget(path);
    if (!target.problem.empty())
        fail(target.problem);

    // A new, unique temporary file beside the target (mkstemp: O_CREAT | O_EXCL), so no
    // existing file is ever opened for writing.
    std::string temp = target.path + ".tmp-XXXXXX";
    const int fd = ::mkstemp(temp.data());
    if (fd < 0)
        fail(std::string("cannot create a temporary file beside it: ") + std::strerror(errno));
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

void writeBytesAtomically(const std::string& path, std::span<const unsigned char> bytes)
{
    writeAtomically(path, [&](const std::string& temp) {
        FileSink sink(temp);
        sink.write(bytes.data(), bytes.size());
        sink.close();
    });
}

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
        throw std::runtime_error(std::strerror(errno));
}

void FileSink::close()
{
    if (!m_file)
        return;
    std::FILE* f = m_file;
    m_file = nullptr;
    const bool flushed = std::fflush(f) == 0 && !std::ferror(f);
    const int flushErrno = errno;
    const bool closed = std::fclose(f) == 0;
    if (!flushed)
        throw std::runtime_error(std::strerror(flushErrno));
    if (!closed)
        throw std::runtime_error(std::strerror(errno));
}

void writeTextAtomically(const std::string& path, std::string_view text)
{
    writeBytesAtomically(path, std::span(reinterpret_cast<const unsigned char*>(text.data()), text.size()));
}

} // namespace nbody
