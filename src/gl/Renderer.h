#pragma once
/// \file Renderer.h
/// Draws bodies as point sprites coloured by mass (green = lightest, red = heaviest, over the
/// system's mass range) with OpenGL 3.3 core through libepoxy. Qt-free: used by the app's
/// QOpenGLWidget and by the CLI's headless EGL context. All calls need a current GL context on
/// the calling thread; create and destroy on that thread.

#include "Camera.h"
#include "sim/AtomicFile.h"
#include "ColourModes.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace nbody { struct Float4; }

namespace nbody::gl {

/// A GL failure (shader compile/link with its info log, incomplete framebuffer, …).
class GlError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Two GL array buffers of `capacity` Float4 (x, y, z, mass) each, used ping-pong: the kernel
/// reads one and writes the other; the renderer draws the current one. RAII (deleted in the
/// destructor: the context must be current then).
class ParticleBuffers {
public:
    ParticleBuffers() = default;
    ~ParticleBuffers();
    ParticleBuffers(const ParticleBuffers&) = delete;
    ParticleBuffers& operator=(const ParticleBuffers&) = delete;

    /// (Re)allocates both buffers for `capacity` bodies (contents undefined), and the scalar
    /// buffer (one float per body). Throws GlError.
    void allocate(std::size_t capacity);
    /// Uploads host positions into buffer `index` (count ≤ capacity). The no-interop path.
    /// Throws std::out_of_range for an index other than 0, 1 or count > capacity, GlError.
    void upload(int index, const Float4* positions, std::size_t count);
    /// Reads the first `count` positions of buffer `index` back (glGetBufferSubData; the
    /// buffer must not be mapped for CUDA). Throws std::out_of_range, GlError.
    std::vector<Float4> read(int index, std::size_t count) const;
    /// Uploads one float per body (speed, group) into the scalar buffer. Throws as upload().
    void uploadScalars(const float* values, std::size_t count);
    unsigned buffer(int index) const { return m_buffers[index]; } ///< GL buffer name
    unsigned scalarBuffer() const { return m_scalars; }          ///< GL buffer name
    std::size_t capacity() const { return m_capacity; }

private:
    unsigned m_buffers[2] = {0, 0};
    unsigned m_scalars = 0;
    std::size_t m_capacity = 0;
};

struct RenderStyle {
    ColourSource source = ColourSource::Mass; ///< what the colour is computed from (ColourModes.h)
    ColourRgb low{0.f, 1.f, 0.f};  ///< colour of the smallest value (mass: green)
    ColourRgb high{1.f, 0.f, 0.f}; ///< colour of the largest value (mass: red)
    float massMin = 0.f;   ///< mass mapped to `low`
    float massMax = 1.f;   ///< mass mapped to `high`
    float scalarMin = 0.f; ///< Speed: value mapped to `low`
    float scalarMax = 1.f; ///< Speed: value mapped to `high`
    /// GL buffer of one float per body (speed, or the group as 0…3) for Speed and Group; 0:
    /// every body reads 0.
    unsigned scalarBuffer = 0;
    bool additive = false; ///< additive blending (overlapping bodies add up to a glow)
    /// Fading trails: instead of clearing, the previous frame is covered by the background at
    /// this opacity (0 < fade < 1; smaller = longer trails). 0: clear (no trails). Needs a
    /// framebuffer that keeps its content between frames.
    float trailFade = 0.f;
    float pointSize = 3.f; ///< sprite diameter in pixels (at device pixel ratio 1)
    float devicePixelRatio = 1.f;
    float background[3] = {0.02f, 0.02f, 0.05f};
};

class Renderer {
public:
    /// Compiles the shaders in resources/shaders/ (embedded at build time) and creates the
    /// vertex array. Throws GlError with the info log when a shader fails.
    Renderer();
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    /// Clears and draws `count` bodies from GL buffer `buffer` (Float4 x, y, z, mass) into the
    /// currently bound framebuffer with viewport width × height (pixels).
    void draw(unsigned buffer, std::size_t count, const OrbitCamera& camera, const RenderStyle& style,
              int width, int height);

    /// Draws line segments over what is in the bound framebuffer (no clear): `vertices` holds
    /// pairs of vertices, 6 floats each (x, y, z in length units; r, g, b in 0…1). For the
    /// bounds box and the axes. Throws GlError.
    void drawLines(const std::vector<float>& vertices, const OrbitCamera& camera, int width, int height);

    /// "NVIDIA Corporation / NVIDIA H200/PCIe/SSE2 / 3.3.0 NVIDIA 580…" of the current context.
    static std::string contextDescription();
    /// GL_VENDOR, GL_RENDERER and GL_VERSION of the current context, each "?" when not
    /// reported; all empty when no context is current.
    struct ContextStrings {
        std::string vendor, renderer, version;
    };
    static ContextStrings contextStrings();

private:
    /// Lines or triangles of 6-float vertices with the overlay program (mode: GL_LINES, …).
    void drawPrimitives(const std::vector<float>& vertices, const glm::mat4& viewProjection, float alpha,
                        unsigned mode);
    unsigned m_program = 0;
    unsigned m_vao = 0;
    int m_uViewProjection = -1, m_uSource = -1, m_uValueMin = -1, m_uValueMax = -1, m_uLow = -1, m_uHigh = -1,
        m_uGroupColours = -1, m_uPointSize = -1;
    bool m_compatibilityProfile = false; ///< GL_POINT_SPRITE must be enabled there
    unsigned m_linesProgram = 0, m_linesVao = 0, m_linesVbo = 0;
    int m_uLinesViewProjection = -1, m_uLinesAlpha = -1;
};

/// Line vertices (6 floats each, see Renderer::drawLines) of the 12 edges of the box
/// [lo, hi] in `colour`, and of three axes from `origin` of length `length` (x red, y green, z blue).
std::vector<float> boxLines(const float lo[3], const float hi[3], ColourRgb colour);
std::vector<float> axesLines(const float origin[3], float length);

/// An RGBA8 image, rows top to bottom.
struct Image {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgba;
};

/// An offscreen framebuffer (colour RGBA8 + depth) of a fixed size, for captures.
class OffscreenTarget {
public:
    OffscreenTarget(int width, int height); ///< throws GlError when incomplete or too large
    ~OffscreenTarget();
    OffscreenTarget(const OffscreenTarget&) = delete;
    OffscreenTarget& operator=(const OffscreenTarget&) = delete;
    void bind();   ///< binds it as the (draw and read) framebuffer and sets the viewport
    Image read();  ///< reads the pixels back (flipped to top-to-bottom rows); throws GlError
    int width() const { return m_width; }
    int height() const { return m_height; }
    unsigned framebuffer() const { return m_fbo; } ///< GL framebuffer name

private:
    void release();
    unsigned m_fbo = 0, m_colour = 0, m_depth = 0;
    int m_width, m_height;
};

/// Where a PNG for `path` would be written (sim/AtomicFile.h's resolveWriteTarget: symbolic
/// links resolved; `problem` non-empty for a missing or read-only directory or a target that
/// exists and is not a regular file — devices such as /dev/null are never replaced).
using PngTarget = nbody::WriteTarget;
PngTarget resolvePngTarget(const std::string& path);

/// Writes a PNG atomically (to a temporary file beside the target, fsync, then renamed). Throws
/// nbody::WriteError (a std::runtime_error) naming the path and the reason (see resolvePngTarget).
void writePng(const std::string& path, const Image& image);

enum class ImageFormat { Unknown, Png, Jpeg };
/// The format named by the file name's extension (.png; .jpg or .jpeg, any case), else Unknown.
ImageFormat imageFormatFor(const std::string& path);
/// Writes `image` as PNG or JPEG (quality 1..100; alpha dropped) atomically, as writePng does.
/// Unknown: chosen from the extension. Throws std::runtime_error naming the path and the reason
/// (an unknown extension, an unwritable target, a device, a full disk: nothing is left under the
/// target's name then).
void writeImage(const std::string& path, const Image& image, ImageFormat format = ImageFormat::Unknown,
                int jpegQuality = 92);

/// Draws `count` bodies of GL buffer `buffer` into a new width × height offscreen framebuffer and
/// reads it back, independent of any window's size or device pixel ratio (style.devicePixelRatio
/// scales the sprites only). The caller's framebuffer binding and viewport are restored. Needs a
/// current context; throws GlError.
Image renderImage(Renderer& renderer, unsigned buffer, std::size_t count, const OrbitCamera& camera,
                  const RenderStyle& style, int width, int height);

} // namespace nbody::gl
