#pragma once
/// \file Renderer.h
/// Draws bodies as soft point sprites (a Gaussian profile) coloured by a colour mode
/// (ColourModes.h: mass green → red, speed, group), accumulated additively into a floating-point
/// (RGBA16F) buffer and tone-mapped with an exposure (automatic by default) onto the bound
/// framebuffer, so dense cores glow instead of saturating; labels for named bodies on top. OpenGL
/// 3.3 core through libepoxy. Qt-free: the app's view, its captures and recordings, and the CLI's
/// headless `nbody render` / `run --capture` all draw through this one class. All calls need a
/// current GL context on the calling thread; create and destroy on that thread.

#include "Camera.h"
#include "sim/base/AtomicFile.h"
#include "ColourModes.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace nbody { struct Float4; class World; }

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
    /// Additive accumulation (the default): overlapping bodies add their light, so dense regions
    /// glow; false: each sprite is blended "over" the ones before it (its profile is the alpha).
    bool additive = true;
    /// Fading trails: the fraction of the previous frames' accumulated light kept under this frame
    /// (0 ≤ trailKeep < 1; 0 = no trails). Needs a ViewHistory (draw()'s `history`); the caller
    /// derives it from the time between frames (the app: exp(−Δt / τ), wall-clock time).
    float trailKeep = 0.f;
    /// Exposure: automatic (the 99th percentile of the accumulated light, see draw()) or manual.
    bool autoExposure = true;
    /// Exposure compensation in stops (EV; ×2 per stop): over the automatic exposure, or over the
    /// manual reference (a lone body's peak at kExposureTarget). −16 … 16.
    float exposureEv = 0.f;
    /// How far the automatic exposure moves towards this frame's value (0 … 1; 1 = at once, the
    /// default, for single pictures; the app derives it from the time between frames).
    float exposureAdapt = 1.f;
    /// With a ViewHistory: the automatic exposure is measured every this many frames (≥ 1; the
    /// frames between keep the last one), which saves a mipmap chain and a read-back on most
    /// frames of a software renderer. The first frame after a clear() always measures.
    int exposureEvery = 1;
    /// Width at half maximum of a sprite's profile, pixels (at device pixel ratio 1); heavier
    /// bodies are up to 1.5 times wider in mass mode.
    float pointSize = 3.f;
    /// The smallest width at half maximum, pixels (at device pixel ratio 1), whatever the distance
    /// scaling: a small or distant system stays visible.
    float minPointSize = 2.f;
    /// Sprites shrink with distance from the camera (width × camera distance / depth), so the
    /// bodies at the camera's target have pointSize; false: every body has pointSize on screen.
    bool sizeByDistance = false;
    float devicePixelRatio = 1.f;
    float background[3] = {0.02f, 0.02f, 0.05f};
    /// Draw every sampleStride-th body only (1: all): bodies 0, s, 2s, … of the buffer (an evenly
    /// strided subset, through an index buffer), each with s times the light of one body
    /// (additive: the sum over the view stays the same; over: a fuller alpha), so the picture of
    /// a large system looks alike at 1/s of the cost.
    std::size_t sampleStride = 1;
};

/// The bodies draw() draws of `count` with RenderStyle::sampleStride `stride`: ⌈count / stride⌉.
inline std::size_t sampledCount(std::size_t count, std::size_t stride)
{
    stride = stride < 1 ? 1 : stride;
    return (count + stride - 1) / stride;
}

/// A lone body's peak (accumulated light 1 in its brightest channel) maps to this exposed value
/// x, displayed as (x / (1 + x))^(1/2.2) = 0.90 (230 of 255) over a black background.
inline constexpr float kExposureTarget = 3.8f;

/// The tone curve of the renderer's last pass (resources/shaders/tonemap.frag) for grey light
/// (all channels equal): accumulated light `light` × `exposure` = x, displayed as d + background ×
/// (1 − d) with d = (x / (1 + x))^(1/2.2), in 0 … 1. Strictly increasing in light and exposure;
/// below 1 for every finite x and background < 1. (Coloured light covers the background by its
/// brightest channel's d.)
float toneMapped(float light, float exposure, float background = 0.f);
/// The inverse for a displayed value (0 … 1): the light × exposure that shows as `display`.
float exposedLight(float display, float background = 0.f);

/// The automatic exposure for an accumulated-light sample (the brightest channel of each texel of
/// a reduced copy of the buffer, 0 for empty texels): kExposureTarget / max(1, the 99th percentile
/// (nearest rank) of the texels that hold light, above 1e-4). A lone body's peak is 1, so a sparse
/// system is exposed as a lone body; in a dense one the brightest 1 % go above the target and are
/// compressed by the tone curve. Reorders `sample`.
float autoExposure(std::vector<float>& sample);

/// What a view carries from one frame to the next: the floating-point accumulation buffer (for
/// trails; RGBA16F, the view's size) and the smoothed automatic exposure. Create and destroy with
/// the context current (RAII of its GL objects).
class ViewHistory {
public:
    ViewHistory() = default;
    ~ViewHistory();
    ViewHistory(const ViewHistory&) = delete;
    ViewHistory& operator=(const ViewHistory&) = delete;

    /// Forgets the trails and the exposure: the next frame starts from black and takes its
    /// exposure at once. Call when the system is replaced.
    void clear() { m_cleared = true; m_haveExposure = false; m_frames = 0; }
    /// The exposure of the last frame drawn (0 before the first).
    float exposure() const { return m_exposure; }

private:
    friend class Renderer;
    friend std::string imageSizeProblem(int width, int height);
    void ensure(int width, int height); ///< (re)creates the buffer; a new one is cleared
    void release();
    unsigned m_fbo = 0, m_texture = 0;
    int m_width = 0, m_height = 0;
    bool m_cleared = true;
    bool m_haveExposure = false;
    float m_exposure = 0.f;
    float m_target = 0.f;   ///< the last measured automatic exposure (before EV and smoothing)
    unsigned m_frames = 0;  ///< frames drawn since the last clear()
};

/// A text label at a point of the system (a named body).
struct Label {
    float x = 0, y = 0, z = 0; ///< length units
    std::string text;          ///< ASCII (other bytes are drawn as '?')
};

class Renderer {
public:
    /// Compiles the shaders in resources/shaders/ (embedded at build time) and creates the
    /// vertex array. Throws GlError with the info log when a shader fails.
    Renderer();
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    /// Draws `count` bodies from GL buffer `buffer` (Float4 x, y, z, mass) into the currently
    /// bound framebuffer with viewport width × height (pixels), replacing its content: the
    /// sprites are accumulated in `history`'s floating-point buffer (faded by style.trailKeep, else
    /// cleared), the exposure is found (style.autoExposure: autoExposure() over the buffer's
    /// mipmap level of at most 256 texels a side, moved by style.exposureAdapt towards it) and the
    /// result is tone-mapped (toneMapped()) over style.background. `history` null: a buffer of
    /// the renderer's own, cleared each time (no trails; the exposure is taken at once). Restores
    /// the framebuffer binding and viewport. Throws GlError.
    void draw(unsigned buffer, std::size_t count, const OrbitCamera& camera, const RenderStyle& style,
              int width, int height, ViewHistory* history = nullptr);

    /// Draws `labels` over what is in the bound framebuffer (no clear): each text just right of
    /// its point's projection (stb_easy_font's segments, `scale` pixels per font unit; the font is
    /// 7 units tall), white over a dark shadow; points behind the camera or off screen are
    /// skipped, and so is a label that would overlap one earlier in the list. Throws GlError.
    void drawLabels(const std::vector<Label>& labels, const OrbitCamera& camera, int width, int height,
                    float scale = 2.f);
    /// The pixel (column, row from the top; fractional) where `p` lands for `camera` in a
    /// width × height view, or false when it is behind the camera.
    static bool project(const OrbitCamera& camera, const glm::vec3& p, int width, int height, glm::vec2* pixel);

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
                        unsigned mode, float fadeKeep = -1.f);
    unsigned m_program = 0;
    unsigned m_toneProgram = 0;
    int m_uToneExposure = -1, m_uToneBackground = -1, m_uToneHdr = -1;
    int m_uMinPointSize = -1, m_uRefDistance = -1, m_uAdditive = -1, m_uWeight = -1;
    std::unique_ptr<ViewHistory> m_scratch; ///< draw()'s buffer when the caller gives none
    unsigned m_vao = 0;
    unsigned m_sampleIndices = 0;      ///< element buffer: 0, s, 2s, … (RenderStyle::sampleStride)
    std::size_t m_sampleStride = 0;    ///< the s and the number of indices it holds
    std::size_t m_sampleIndexCount = 0;
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

/// Where a PNG for `path` would be written (sim/base/AtomicFile.h's resolveWriteTarget: symbolic
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

/// Bytes per pixel of an image that renderImage draws and writePng writes, by where they live.
/// In OpenGL's memory: the RGBA16F accumulation buffer with its mipmap levels (8 × 4/3) and the
/// RGBA8 colour and 24-bit depth renderbuffers (4 + 4). In the host's: the rows read back and the
/// image (4 + 4), the PNG encoder's filtered rows (4) and the encoded file (at most about 4).
/// Mesa's llvmpipe measured 35 bytes a pixel of peak resident memory for both together.
inline constexpr double kImageGlBytesPerPixel = 8.0 * 4.0 / 3.0 + 4.0 + 4.0;
inline constexpr double kImageHostBytesPerPixel = 16.0;

/// Why the current context cannot draw a width × height image with renderImage ("" when it
/// can), found before anything is drawn, so that a run can refuse a capture size before it
/// simulates. Checked in this order:
///   - each side against the largest this OpenGL draws, the smallest of GL_MAX_TEXTURE_SIZE,
///     GL_MAX_RENDERBUFFER_SIZE and GL_MAX_VIEWPORT_DIMS: "the width 20000 is more than this
///     OpenGL draws: at most 16384 pixels a side (GL_MAX_TEXTURE_SIZE of llvmpipe (…))";
///   - the memory against availableHostMemory(): the host part, and with a software renderer
///     (Mesa's llvmpipe or softpipe, whose buffers are host memory) the OpenGL part too: "a
///     16384x16384 image needs about 9.4 GB of host memory (35 bytes a pixel …); 4.0 GB are
///     available (RLIMIT_AS)";
///   - the buffers themselves, allocated once at this size and released (a driver refuses
///     sizes within the limits above: llvmpipe allocates no texture of 2 GiB or more with its
///     mipmaps): "this OpenGL (llvmpipe (…)) cannot allocate the buffers of a 16384x16384
///     image (…); it allocates 13824x13824 (the largest with this aspect ratio, to 3 %)".
/// Leaves the framebuffer and texture bindings as they were. Throws GlError without a context.
std::string imageSizeProblem(int width, int height);

/// Draws `count` bodies of GL buffer `buffer` (Renderer::draw, then `labels`) into a new width ×
/// height offscreen framebuffer and reads it back, independent of any window's size or device pixel ratio (style.devicePixelRatio
/// scales the sprites only). The caller's framebuffer binding and viewport are restored. Needs a
/// current context; throws GlError.
Image renderImage(Renderer& renderer, unsigned buffer, std::size_t count, const OrbitCamera& camera,
                  const RenderStyle& style, int width, int height, ViewHistory* history = nullptr,
                  const std::vector<Label>& labels = {});

/// The labels of `world`'s named bodies (World::namedBodies) at their current positions.
std::vector<Label> namedBodyLabels(const World& world);

} // namespace nbody::gl
