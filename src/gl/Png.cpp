// PNG output through stb_image_write (Debian's libstb-dev, header only: the implementation is
// compiled here, nowhere else).
#include "Renderer.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace nbody::gl {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& reason)
{
    throw std::runtime_error("writePng: cannot write '" + path + "': " + reason);
}

void appendBytes(void* context, void* data, int size)
{
    auto* out = static_cast<std::vector<unsigned char>*>(context);
    const auto* bytes = static_cast<const unsigned char*>(data);
    out->insert(out->end(), bytes, bytes + size);
}

/// Writes all bytes to a new file and flushes it to disk; returns an errno-style reason or "".
std::string writeFile(const std::string& path, const std::vector<unsigned char>& bytes)
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

void writePng(const std::string& path, const Image& image)
{
    namespace fs = std::filesystem;
    if (path.empty())
        fail(path, "empty path");
    if (image.width <= 0 || image.height <= 0 ||
        image.rgba.size() != static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height) * 4)
        fail(path, "invalid image (" + std::to_string(image.width) + "x" + std::to_string(image.height) + ", " +
                       std::to_string(image.rgba.size()) + " bytes of RGBA)");

    const fs::path target(path);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        fail(path, "directory '" + dir.string() + "' does not exist");

    std::vector<unsigned char> png;
    png.reserve(image.rgba.size() / 2 + 1024);
    if (stbi_write_png_to_func(appendBytes, &png, image.width, image.height, 4, image.rgba.data(),
                               image.width * 4) == 0 ||
        png.empty())
        fail(path, "PNG encoding failed");

    const std::string temp = path + ".tmp-" + std::to_string(::getpid());
    if (std::string reason = writeFile(temp, png); !reason.empty()) {
        fs::remove(temp, ec);
        fail(path, reason);
    }
    fs::rename(temp, target, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(temp, ignored);
        fail(path, ec.message());
    }
}

} // namespace nbody::gl
