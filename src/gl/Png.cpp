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

#include "sim/base/AtomicFile.h"
#include "sim/base/PathNames.h"

#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

namespace nbody::gl {

namespace {

void appendBytes(void* context, void* data, int size)
{
    auto* out = static_cast<std::vector<unsigned char>*>(context);
    const auto* bytes = static_cast<const unsigned char*>(data);
    out->insert(out->end(), bytes, bytes + size);
}

[[noreturn]] void fail(const std::string& path, const std::string& reason)
{
    throw WriteError("cannot write '" + path + "': " + reason);
}

} // namespace

PngTarget resolvePngTarget(const std::string& path)
{
    return resolveWriteTarget(path);
}

ImageFormat imageFormatFor(const std::string& path)
{
    const std::string lower = lowerExtension(path);
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
    if (format == ImageFormat::Unknown)
        format = imageFormatFor(path);
    if (format == ImageFormat::Unknown)
        fail(path, "the name does not end in .png, .jpg or .jpeg");
    if (const PngTarget target = resolvePngTarget(path); !target.problem.empty())
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
    // Written beside the target, fsync'ed and renamed over it (sim/base/AtomicFile.h).
    writeBytesAtomically(path, bytes);
}

} // namespace nbody::gl
