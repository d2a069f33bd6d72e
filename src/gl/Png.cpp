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

#include "sim/AtomicFile.h"

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
    throw WriteError("writePng: cannot write '" + path + "': " + reason);
}

} // namespace

PngTarget resolvePngTarget(const std::string& path)
{
    return resolveWriteTarget(path);
}

void writePng(const std::string& path, const Image& image)
{
    if (const PngTarget target = resolvePngTarget(path); !target.problem.empty())
        fail(path, target.problem);
    if (image.width <= 0 || image.height <= 0 ||
        image.rgba.size() != static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height) * 4)
        fail(path, "invalid image (" + std::to_string(image.width) + "x" + std::to_string(image.height) + ", " +
                       std::to_string(image.rgba.size()) + " bytes of RGBA)");

    std::vector<unsigned char> png;
    png.reserve(image.rgba.size() / 2 + 1024);
    if (stbi_write_png_to_func(appendBytes, &png, image.width, image.height, 4, image.rgba.data(),
                               image.width * 4) == 0 ||
        png.empty())
        fail(path, "PNG encoding failed");
    // Written beside the target, fsync'ed and renamed over it (sim/AtomicFile.h).
    writeBytesAtomically("writePng", path, png);
}

} // namespace nbody::gl
