// PNG and JPEG output through stb_image_write (Debian's libstb-dev, header only: the
// implementation is compiled here, nowhere else).
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

#include <cctype>
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
    throw std::runtime_error("cannot write '" + path + "': " + reason);
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

PngTarget resolvePngTarget(const std::string& path)
{
    namespace fs = std::filesystem;
    PngTarget t;
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

ImageFormat imageFormatFor(const std::string& path)
{
    const std::string ext = std::filesystem::path(path).extension().string();
    std::string lower;
    for (char c : ext)
        lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == ".png")
        return ImageFormat::Png;
    if (lower == ".jpg" || lower == ".jpeg")
        return ImageFormat::Jpeg;
    return ImageFormat::Unknown;
}

void writePng(const std::string& path, const Image& image)
{
    writeImage(path, image, ImageFormat::Png);
}

void writeImage(const std::string& path, const Image& image, ImageFormat format, int jpegQuality)
{
    namespace fs = std::filesystem;
    if (format == ImageFormat::Unknown)
        format = imageFormatFor(path);
    if (format == ImageFormat::Unknown)
        fail(path, "the name does not end in .png, .jpg or .jpeg");
    const PngTarget target = resolvePngTarget(path);
    if (!target.problem.empty())
        fail(path, target.problem);
    if (image.width <= 0 || image.height <= 0 ||
        image.rgba.size() != static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height) * 4)
        fail(path, "invalid image (" + std::to_string(image.width) + "x" + std::to_string(image.height) + ", " +
                       std::to_string(image.rgba.size()) + " bytes of RGBA)");
    if (jpegQuality < 1 || jpegQuality > 100)
        fail(path, "JPEG quality " + std::to_string(jpegQuality) + " is outside 1..100");

    std::vector<unsigned char> bytes;
    bytes.reserve(image.rgba.size() / 2 + 1024);
    const int ok = format == ImageFormat::Png
                       ? stbi_write_png_to_func(appendBytes, &bytes, image.width, image.height, 4,
                                                image.rgba.data(), image.width * 4)
                       // JPEG has no alpha: stb writes the RGB channels of the RGBA pixels.
                       : stbi_write_jpg_to_func(appendBytes, &bytes, image.width, image.height, 4,
                                                image.rgba.data(), jpegQuality);
    if (ok == 0 || bytes.empty())
        fail(path, format == ImageFormat::Png ? "PNG encoding failed" : "JPEG encoding failed");

    // Written beside the target and renamed over it: readers see the old file or the new one,
    // never a partial one, and a failed write leaves no file under the target's name.
    std::error_code ec;
    const std::string temp = target.path + ".tmp-" + std::to_string(::getpid());
    if (std::string reason = writeFile(temp, bytes); !reason.empty()) {
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

} // namespace nbody::gl
