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

#include <stdexcept>
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

} // namespace

void writePng(const std::string& path, const Image& image)
{
    if (image.width <= 0 || image.height <= 0 ||
        image.rgba.size() != static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height) * 4)
        throw std::runtime_error("writePng: cannot write '" + path + "': invalid image (" +
                                 std::to_string(image.width) + "x" + std::to_string(image.height) + ", " +
                                 std::to_string(image.rgba.size()) + " bytes of RGBA)");
    std::vector<unsigned char> png;
    png.reserve(image.rgba.size() / 2 + 1024);
    if (stbi_write_png_to_func(appendBytes, &png, image.width, image.height, 4, image.rgba.data(),
                               image.width * 4) == 0 ||
        png.empty())
        throw std::runtime_error("writePng: cannot write '" + path + "': PNG encoding failed");
    try {
        writeFileAtomically(path, png);
    } catch (const std::runtime_error& e) {
        throw std::runtime_error(std::string("writePng: ") + e.what());
    }
}

} // namespace nbody::gl
