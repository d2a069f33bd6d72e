#include "Renderer.h"
#include "ToneMap.h"

#include "contracts/HostMemory.h"
#include "contracts/Quantile.h"
#include "contracts/Types.h"
#include "contracts/World.h"
#include "sim/base/Format.h"

#include <epoxy/gl.h>
#include <glm/gtc/type_ptr.hpp>

#include <stb/stb_easy_font.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace nbody::gl {

namespace shaders {
// Generated from resources/shaders/ by src/gl/CMakeLists.txt (ShaderSources.cpp).
extern const char* const bodies_vert;
extern const char* const bodies_frag;
extern const char* const lines_vert;
extern const char* const lines_frag;
extern const char* const tonemap_vert;
extern const char* const tonemap_frag;
} // namespace shaders

namespace {

std::string glErrorName(GLenum e)
{
    switch (e) {
    case GL_NO_ERROR: return "GL_NO_ERROR";
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    default: return "GL error 0x" + [e] { char b[16]; std::snprintf(b, sizeof b, "%04x", e); return std::string(b); }();
    }
}

/// Discards errors left by earlier calls (ours or the host application's) so checkGl() reports
/// only what follows.
void clearGlErrors()
{
    for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i) {
    }
}

/// Throws GlError naming `what` when the GL error flag is set.
/// Leaves the GL state as a draw found it (no program, attributes 0 and 1 off, no VAO or array
/// buffer bound, blending off), so the host application's own drawing is not disturbed.
void releaseDrawState()
{
    glUseProgram(0);
    glDisableVertexAttribArray(0);
    glDisableVertexAttribArray(1);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glBindVertexArray(0);
    glDisable(GL_BLEND);
}

void checkGl(const char* what)
{
    const GLenum e = glGetError();
    if (e != GL_NO_ERROR) {
        clearGlErrors();
        throw GlError(std::string(what) + " failed: " + glErrorName(e));
    }
}

void requireContext(const char* what)
{
    // epoxy resolves GL functions from the current context; without one every call is invalid.
    if (epoxy_gl_version() == 0)
        throw GlError(std::string(what) + ": no current OpenGL context on this thread");
}

GLuint compileShader(GLenum type, const char* source, const char* name)
{
    const GLuint shader = glCreateShader(type);
    if (shader == 0)
        throw GlError(std::string("glCreateShader(") + name + ") failed: " + glErrorName(glGetError()));
    glShaderSource(shader, 1, &source, nullptr);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (ok != GL_TRUE) {
        GLint length = 0;
        glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
        std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
        glGetShaderInfoLog(shader, length, nullptr, log.data());
        log.resize(std::strlen(log.c_str()));
        glDeleteShader(shader);
        throw GlError(std::string("compiling shader ") + name + " failed:\n" + log);
    }
    return shader;
}

GLuint linkProgram(GLuint vert, GLuint frag, const char* name = "bodies")
{
    const GLuint program = glCreateProgram();
    if (program == 0)
        throw GlError("glCreateProgram failed: " + glErrorName(glGetError()));
    glAttachShader(program, vert);
    glAttachShader(program, frag);
    glBindAttribLocation(program, 0, "a_positionMass");
    glLinkProgram(program);
    glDetachShader(program, vert);
    glDetachShader(program, frag);
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (ok != GL_TRUE) {
        GLint length = 0;
        glGetProgramiv(program, GL_INFO_LOG_LENGTH, &length);
        std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
        glGetProgramInfoLog(program, length, nullptr, log.data());
        log.resize(std::strlen(log.c_str()));
        glDeleteProgram(program);
        throw GlError(std::string("linking the ") + name + " shader program failed:\n" + log);
    }
    return program;
}

GLint uniformLocation(GLuint program, const char* name)
{
    const GLint loc = glGetUniformLocation(program, name);
    if (loc < 0)
        throw GlError(std::string("bodies shader program has no uniform ") + name);
    return loc;
}

constexpr std::size_t kStride = sizeof(Float4);
static_assert(kStride == 16, "positions are tightly packed float4");

} // namespace

// ---- ParticleBuffers ------------------------------------------------------------------------

ParticleBuffers::~ParticleBuffers()
{
    if (m_buffers[0] != 0 || m_buffers[1] != 0)
        glDeleteBuffers(2, m_buffers);
    if (m_scalars != 0)
        glDeleteBuffers(1, &m_scalars);
}

void ParticleBuffers::allocate(std::size_t capacity)
{
    requireContext("ParticleBuffers::allocate");
    if (capacity > static_cast<std::size_t>(std::numeric_limits<GLsizeiptr>::max()) / kStride)
        throw GlError("ParticleBuffers::allocate: " + std::to_string(capacity) + " bodies is too many");
    clearGlErrors();
    if (m_buffers[0] == 0 || m_buffers[1] == 0) {
        GLuint names[2] = {0, 0};
        glGenBuffers(2, names);
        if (names[0] == 0 || names[1] == 0) {
            glDeleteBuffers(2, names);
            throw GlError("glGenBuffers failed: " + glErrorName(glGetError()));
        }
        m_buffers[0] = names[0];
        m_buffers[1] = names[1];
    }
    GLint previous = 0;
    glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &previous);
    m_capacity = 0;
    for (GLuint b : m_buffers) {
        glBindBuffer(GL_ARRAY_BUFFER, b);
        glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(capacity * kStride), nullptr, GL_DYNAMIC_DRAW);
    }
    if (m_scalars == 0)
        glGenBuffers(1, &m_scalars);
    glBindBuffer(GL_ARRAY_BUFFER, m_scalars);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(capacity * sizeof(float)), nullptr, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, static_cast<GLuint>(previous));
    checkGl(("glBufferData(" + std::to_string(capacity * kStride) + " bytes)").c_str());
    m_capacity = capacity;
}

namespace {

/// Copies `count` items of `itemBytes` each into GL buffer `buffer` (capacity items), restoring
/// the array-buffer binding. Throws std::out_of_range / std::invalid_argument / GlError naming `what`.
void uploadItems(GLuint buffer, const void* data, std::size_t count, std::size_t itemBytes, std::size_t capacity,
                 const char* what)
{
    if (count > capacity)
        throw std::out_of_range(std::string(what) + ": " + std::to_string(count) + " bodies exceed the capacity " +
                                std::to_string(capacity));
    if (count == 0)
        return;
    if (data == nullptr)
        throw std::invalid_argument(std::string(what) + ": null data");
    clearGlErrors();
    GLint previous = 0;
    glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &previous);
    glBindBuffer(GL_ARRAY_BUFFER, buffer);
    glBufferSubData(GL_ARRAY_BUFFER, 0, static_cast<GLsizeiptr>(count * itemBytes), data);
    glBindBuffer(GL_ARRAY_BUFFER, static_cast<GLuint>(previous));
    checkGl((std::string(what) + ": glBufferSubData").c_str());
}

} // namespace

void ParticleBuffers::upload(int index, const Float4* positions, std::size_t count)
{
    if (index < 0 || index > 1)
        throw std::out_of_range("ParticleBuffers::upload: buffer index " + std::to_string(index));
    uploadItems(m_buffers[index], positions, count, kStride, m_capacity, "ParticleBuffers::upload");
}

std::vector<Float4> ParticleBuffers::read(int index, std::size_t count) const
{
    if (index < 0 || index > 1)
        throw std::out_of_range("ParticleBuffers::read: buffer index " + std::to_string(index));
    if (count > m_capacity)
        throw std::out_of_range("ParticleBuffers::read: " + std::to_string(count) + " bodies exceed the capacity " +
                                std::to_string(m_capacity));
    std::vector<Float4> out(count);
    if (count == 0)
        return out;
    clearGlErrors();
    GLint previous = 0;
    glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &previous);
    glBindBuffer(GL_ARRAY_BUFFER, m_buffers[index]);
    glGetBufferSubData(GL_ARRAY_BUFFER, 0, static_cast<GLsizeiptr>(count * kStride), out.data());
    glBindBuffer(GL_ARRAY_BUFFER, static_cast<GLuint>(previous));
    checkGl("ParticleBuffers::read: glGetBufferSubData");
    return out;
}

void ParticleBuffers::uploadScalars(const float* values, std::size_t count)
{
    uploadItems(m_scalars, values, count, sizeof(float), m_capacity, "ParticleBuffers::uploadScalars");
}

// ---- Renderer ---------------------------------------------------------------------------------

Renderer::Renderer()
{
    requireContext("Renderer");
    if (epoxy_gl_version() < 33 || !epoxy_is_desktop_gl())
        throw GlError("Renderer needs desktop OpenGL 3.3; the context is " + contextDescription());
    clearGlErrors();
    const GLuint vert = compileShader(GL_VERTEX_SHADER, shaders::bodies_vert, "bodies.vert");
    GLuint frag = 0;
    try {
        frag = compileShader(GL_FRAGMENT_SHADER, shaders::bodies_frag, "bodies.frag");
        m_program = linkProgram(vert, frag);
    } catch (...) {
        glDeleteShader(vert);
        if (frag != 0)
            glDeleteShader(frag);
        throw;
    }
    glDeleteShader(vert);
    glDeleteShader(frag);
    try {
        m_uViewProjection = uniformLocation(m_program, "u_viewProjection");
        m_uSource = uniformLocation(m_program, "u_source");
        m_uValueMin = uniformLocation(m_program, "u_valueMin");
        m_uValueMax = uniformLocation(m_program, "u_valueMax");
        m_uLow = uniformLocation(m_program, "u_low");
        m_uHigh = uniformLocation(m_program, "u_high");
        m_uGroupColours = uniformLocation(m_program, "u_groupColours[0]");
        m_uPointSize = uniformLocation(m_program, "u_pointSize");
        m_uMinPointSize = uniformLocation(m_program, "u_minPointSize");
        m_uRefDistance = uniformLocation(m_program, "u_refDistance");
        m_uAdditive = uniformLocation(m_program, "u_additive");
        m_uWeight = uniformLocation(m_program, "u_weight");
        glGenVertexArrays(1, &m_vao);
        if (m_vao == 0)
            throw GlError("glGenVertexArrays failed: " + glErrorName(glGetError()));
    } catch (...) {
        glDeleteProgram(m_program);
        m_program = 0;
        throw;
    }
    // The overlay lines: their own small program, vertex array and buffer.
    {
        const GLuint lv = compileShader(GL_VERTEX_SHADER, shaders::lines_vert, "lines.vert");
        GLuint lf = 0;
        try {
            lf = compileShader(GL_FRAGMENT_SHADER, shaders::lines_frag, "lines.frag");
            m_linesProgram = linkProgram(lv, lf, "lines");
        } catch (...) {
            glDeleteShader(lv);
            if (lf != 0)
                glDeleteShader(lf);
            glDeleteVertexArrays(1, &m_vao);
            glDeleteProgram(m_program);
            m_vao = m_program = 0;
            throw;
        }
        glDeleteShader(lv);
        glDeleteShader(lf);
        m_uLinesViewProjection = glGetUniformLocation(m_linesProgram, "u_viewProjection");
        m_uLinesAlpha = glGetUniformLocation(m_linesProgram, "u_alpha");
        glGenVertexArrays(1, &m_linesVao);
        glGenBuffers(1, &m_linesVbo);
    }
    // The tone-mapping pass: a triangle over the viewport, no attributes.
    {
        const GLuint tv = compileShader(GL_VERTEX_SHADER, shaders::tonemap_vert, "tonemap.vert");
        GLuint tf = 0;
        try {
            tf = compileShader(GL_FRAGMENT_SHADER, shaders::tonemap_frag, "tonemap.frag");
            m_toneProgram = linkProgram(tv, tf, "tone-mapping");
            m_uToneExposure = uniformLocation(m_toneProgram, "u_exposure");
            m_uToneBackground = uniformLocation(m_toneProgram, "u_background");
            m_uToneHdr = uniformLocation(m_toneProgram, "u_hdr");
        } catch (...) {
            glDeleteShader(tv);
            if (tf != 0)
                glDeleteShader(tf);
            if (m_toneProgram != 0)
                glDeleteProgram(m_toneProgram);
            glDeleteBuffers(1, &m_linesVbo);
            glDeleteVertexArrays(1, &m_linesVao);
            glDeleteProgram(m_linesProgram);
            glDeleteVertexArrays(1, &m_vao);
            glDeleteProgram(m_program);
            m_vao = m_program = m_linesProgram = m_linesVao = m_linesVbo = m_toneProgram = 0;
            throw;
        }
        glDeleteShader(tv);
        glDeleteShader(tf);
    }
    m_scratch = std::make_unique<ViewHistory>();
    // A compatibility-profile context (some QOpenGLWidget setups) draws gl_PointCoord only with
    // point sprites enabled; in a core profile they always are (and the enum is invalid).
    GLint profile = 0;
    glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &profile);
    m_compatibilityProfile = (profile & GL_CONTEXT_COMPATIBILITY_PROFILE_BIT) != 0;
    clearGlErrors();
}

Renderer::~Renderer()
{
    m_scratch.reset();
    if (m_toneProgram != 0)
        glDeleteProgram(m_toneProgram);
    if (m_linesVbo != 0)
        glDeleteBuffers(1, &m_linesVbo);
    if (m_linesVao != 0)
        glDeleteVertexArrays(1, &m_linesVao);
    if (m_linesProgram != 0)
        glDeleteProgram(m_linesProgram);
    if (m_sampleIndices != 0)
        glDeleteBuffers(1, &m_sampleIndices);
    if (m_vao != 0)
        glDeleteVertexArrays(1, &m_vao);
    if (m_program != 0)
        glDeleteProgram(m_program);
}

float toneMapped(float light, float exposure, float background)
{
    const float x = std::max(light, 0.f) * exposure;
    const float d = std::pow(x / (1.f + x), 1.f / 2.2f);
    return d + background * (1.f - d);
}

ColourRgb displayedColour(ColourRgb light, float exposure, const float background[3])
{
    auto d = [exposure](float l) {
        const float x = std::max(l, 0.f) * exposure;
        return std::pow(x / (1.f + x), 1.f / 2.2f);
    };
    const float r = d(light.r), g = d(light.g), b = d(light.b);
    const float cover = std::max({r, g, b});
    return {r + background[0] * (1.f - cover), g + background[1] * (1.f - cover), b + background[2] * (1.f - cover)};
}

float exposedLight(float display, float background)
{
    const float d = std::clamp((display - background) / (1.f - background), 0.f, 0.999999f);
    const float t = std::pow(d, 2.2f);
    return t / (1.f - t);
}

/// NBODY_RENDER_STATS=1: every measured exposure prints what it saw to stderr (a diagnostic
/// for pictures that come out black or washed out on one driver: bodies drawn, lit texels).
bool renderStatsWanted()
{
    static const bool on = [] {
        const char* v = std::getenv("NBODY_RENDER_STATS");
        return v && *v && std::strcmp(v, "0") != 0;
    }();
    return on;
}

float autoExposure(std::vector<float>& sample)
{
    sample.erase(std::remove_if(sample.begin(), sample.end(), [](float v) { return !(v > 1e-4f); }), sample.end());
    const float reference = sample.empty() ? 1.f : std::max(1.f, nearestRankQuantile(sample, 0.99));
    return kExposureTarget / reference;
}

// ---- ViewHistory ------------------------------------------------------------------------------

ViewHistory::~ViewHistory()
{
    release();
}

void ViewHistory::release()
{
    if (m_fbo != 0)
        glDeleteFramebuffers(1, &m_fbo);
    if (m_texture != 0)
        glDeleteTextures(1, &m_texture);
    m_fbo = m_texture = 0;
    m_width = m_height = 0;
}

void ViewHistory::ensure(int width, int height)
{
    if (m_fbo != 0 && width == m_width && height == m_height)
        return;
    release();
    clearGlErrors();
    glGenTextures(1, &m_texture);
    glGenFramebuffers(1, &m_fbo);
    if (m_texture == 0 || m_fbo == 0)
        throw GlError("ViewHistory: creating the accumulation buffer failed: " + glErrorName(glGetError()));
    GLint previousTexture = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &previousTexture);
    glBindTexture(GL_TEXTURE_2D, m_texture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA16F, width, height, 0, GL_RGBA, GL_FLOAT, nullptr);
    // Read with texelFetch (level 0) and as mipmaps for the exposure: no filtering needed, and
    // with GL_NEAREST the texture is complete with level 0 alone.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previousTexture));
    GLint previous = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &previous);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, m_fbo);
    glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, m_texture, 0);
    const GLenum status = glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(previous));
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        release();
        char code[16];
        std::snprintf(code, sizeof code, "0x%04x", status);
        // Incomplete at one size and complete at a smaller one is the size (llvmpipe allocates no
        // texture of 2 GiB or more), not the format: imageSizeProblem tells them apart.
        throw GlError("ViewHistory: the " + std::to_string(width) + "x" + std::to_string(height) +
                      " RGBA16F accumulation buffer is incomplete (status " + code +
                      "): this OpenGL cannot render to a floating-point texture of this size, or to none");
    }
    checkGl("ViewHistory: glTexImage2D(RGBA16F)");
    m_width = width;
    m_height = height;
    m_cleared = true;
}

// ---- drawing ----------------------------------------------------------------------------------

void Renderer::draw(unsigned buffer, std::size_t count, const OrbitCamera& camera, const RenderStyle& style,
                    int width, int height, ViewHistory* history)
{
    if (width <= 0 || height <= 0)
        return;
    clearGlErrors();
    GLint previousDraw = 0, previousRead = 0, previousTexture = 0;
    GLint viewport[4] = {0, 0, 0, 0};
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &previousDraw);
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previousRead);
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &previousTexture);
    glGetIntegerv(GL_VIEWPORT, viewport);
    auto restore = [&] {
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(previousDraw));
        glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(previousRead));
        glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previousTexture));
        glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
    };
    ViewHistory& h = history ? *history : *m_scratch;
    if (!history)
        h.clear();
    try {
        h.ensure(width, height);
    } catch (...) {
        restore();
        throw;
    }
    glBindFramebuffer(GL_FRAMEBUFFER, h.m_fbo);
    glViewport(0, 0, width, height);
    const bool keep = !h.m_cleared && style.trailKeep > 0.f && style.trailKeep < 1.f;
    if (keep) {
        // Trails: the light of the previous frames, multiplied by trailKeep.
        const std::vector<float> quad = {-1, -1, 0, 0, 0, 0, 3, -1, 0, 0, 0, 0, -1, 3, 0, 0, 0, 0};
        drawPrimitives(quad, glm::mat4(1.f), 1.f, GL_TRIANGLES, style.trailKeep);
    } else {
        glClearColor(0.f, 0.f, 0.f, 0.f);
        glClear(GL_COLOR_BUFFER_BIT);
    }
    h.m_cleared = false;

    if (buffer != 0 && count > 0) {
        glBindVertexArray(m_vao);
        glBindBuffer(GL_ARRAY_BUFFER, buffer);
        // Never read past the buffer's end (its size may lag behind `count` during a reallocation).
        GLint64 bytes = 0;
        glGetBufferParameteri64v(GL_ARRAY_BUFFER, GL_BUFFER_SIZE, &bytes);
        count = std::min(count, static_cast<std::size_t>(std::max<GLint64>(bytes, 0)) / kStride);
        count = std::min(count, static_cast<std::size_t>(INT_MAX));
        const std::size_t stride = std::max<std::size_t>(style.sampleStride, 1);
        glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, static_cast<GLsizei>(kStride), nullptr);
        glEnableVertexAttribArray(0);
        const bool scalars = style.scalarBuffer != 0 && style.source != ColourSource::Mass;
        if (scalars) {
            glBindBuffer(GL_ARRAY_BUFFER, style.scalarBuffer);
            GLint64 scalarBytes = 0;
            glGetBufferParameteri64v(GL_ARRAY_BUFFER, GL_BUFFER_SIZE, &scalarBytes);
            count = std::min(count, static_cast<std::size_t>(std::max<GLint64>(scalarBytes, 0)) / sizeof(float));
            glVertexAttribPointer(1, 1, GL_FLOAT, GL_FALSE, sizeof(float), nullptr);
            glEnableVertexAttribArray(1);
        } else {
            glDisableVertexAttribArray(1);
            glVertexAttrib1f(1, 0.f);
        }

        glDisable(GL_DEPTH_TEST);
        glDisable(GL_CULL_FACE);
        glEnable(GL_BLEND);
        if (style.additive) // overlapping sprites add up: dense regions glow
            glBlendFunc(GL_ONE, GL_ONE);
        else
            glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
        glEnable(GL_PROGRAM_POINT_SIZE);
        if (m_compatibilityProfile)
            glEnable(GL_POINT_SPRITE);

        const float aspect = static_cast<float>(width) / static_cast<float>(height);
        const glm::mat4 viewProjection = camera.projection(aspect) * camera.view();
        glUseProgram(m_program);
        glUniformMatrix4fv(m_uViewProjection, 1, GL_FALSE, glm::value_ptr(viewProjection));
        const bool byMass = style.source == ColourSource::Mass;
        glUniform1i(m_uSource, static_cast<int>(style.source));
        glUniform1f(m_uValueMin, byMass ? style.massMin : style.scalarMin);
        glUniform1f(m_uValueMax, byMass ? style.massMax : style.scalarMax);
        glUniform3f(m_uLow, style.low.r, style.low.g, style.low.b);
        glUniform3f(m_uHigh, style.high.r, style.high.g, style.high.b);
        glUniform3fv(m_uGroupColours, 4, &kGroupColours[0].r);
        const float dpr = style.devicePixelRatio > 0.f ? style.devicePixelRatio : 1.f;
        glUniform1f(m_uPointSize, style.pointSize * dpr);
        glUniform1f(m_uMinPointSize, std::max(style.minPointSize, 0.f) * dpr);
        glUniform1f(m_uRefDistance, style.sizeByDistance ? camera.distance : 0.f);
        glUniform1i(m_uAdditive, style.additive ? 1 : 0);
        glUniform1f(m_uWeight, static_cast<float>(stride)); // each drawn body stands for `stride`
        if (count > 0 && stride == 1) {
            glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(count));
        } else if (count > 0) {
            // A subsample: bodies 0, s, 2s, … < count through an element buffer (any s; a vertex
            // stride of s bodies would be limited to 2048 bytes). Rebuilt when s or N change.
            const std::size_t drawn = sampledCount(count, stride);
            if (m_sampleIndices == 0)
                glGenBuffers(1, &m_sampleIndices);
            glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, m_sampleIndices); // part of the VAO's state
            if (m_sampleStride != stride || m_sampleIndexCount != drawn) {
                std::vector<GLuint> indices(drawn);
                for (std::size_t i = 0; i < drawn; ++i)
                    indices[i] = static_cast<GLuint>(i * stride);
                glBufferData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLsizeiptr>(drawn * sizeof(GLuint)), indices.data(),
                             GL_STATIC_DRAW);
                m_sampleStride = stride;
                m_sampleIndexCount = drawn;
            }
            glDrawElements(GL_POINTS, static_cast<GLsizei>(drawn), GL_UNSIGNED_INT, nullptr);
            glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
        }
        releaseDrawState();
    }

    // The exposure: from a reduced copy of the accumulated light (a mipmap level of at most 256
    // texels a side), or the manual reference.
    const float ev = std::clamp(style.exposureEv, -16.f, 16.f);
    float target = kExposureTarget;
    glBindTexture(GL_TEXTURE_2D, h.m_texture);
    const bool measure = !h.m_haveExposure || !(h.m_target > 0.f) ||
                         h.m_frames % static_cast<unsigned>(std::max(style.exposureEvery, 1)) == 0;
    ++h.m_frames;
    if (style.autoExposure && !measure) {
        target = h.m_target;
    } else if (style.autoExposure) {
        glGenerateMipmap(GL_TEXTURE_2D);
        int level = 0;
        while (std::max(width >> level, height >> level) > 256)
            ++level;
        const int lw = std::max(1, width >> level), lh = std::max(1, height >> level);
        std::vector<float> texels(static_cast<std::size_t>(lw) * static_cast<std::size_t>(lh) * 4);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        glPixelStorei(GL_PACK_ALIGNMENT, 4);
        glPixelStorei(GL_PACK_ROW_LENGTH, 0);
        glGetTexImage(GL_TEXTURE_2D, level, GL_RGBA, GL_FLOAT, texels.data());
        std::vector<float> brightest(texels.size() / 4);
        for (std::size_t i = 0; i < brightest.size(); ++i)
            brightest[i] = std::max({texels[4 * i], texels[4 * i + 1], texels[4 * i + 2]});
        const std::vector<float> light = brightest; // autoExposure() drops the dark texels
        target = autoExposure(brightest);
        h.m_target = target;
        if (renderStatsWanted()) {
            std::size_t lit = 0, nonFinite = 0;
            float top = 0.f;
            for (float v : light) {
                lit += v > 1e-4f;
                nonFinite += !std::isfinite(v);
                if (std::isfinite(v))
                    top = std::max(top, v);
            }
            std::fprintf(stderr,
                         "nbody render stats: %s drawn, %dx%d, exposure measured on %dx%d texels "
                         "(mip level %d): %zu lit, %zu non-finite, brightest %.4g, exposure %.4g\n",
                         bodyCount(count).c_str(), width, height, lw, lh, level, lit, nonFinite, double(top), double(target));
        }
    }
    target *= std::exp2(ev);
    const float adapt = std::clamp(style.exposureAdapt, 0.f, 1.f);
    if (!style.autoExposure || !h.m_haveExposure || !(h.m_exposure > 0.f))
        h.m_exposure = target;
    else // in stops, so brightening and darkening take the same time
        h.m_exposure = std::exp2(std::log2(h.m_exposure) + adapt * (std::log2(target) - std::log2(h.m_exposure)));
    h.m_haveExposure = true;

    // Tone mapping onto the caller's framebuffer.
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(previousDraw));
    glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(previousRead));
    glViewport(0, 0, width, height);
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    glClear(GL_DEPTH_BUFFER_BIT);
    glUseProgram(m_toneProgram);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, h.m_texture);
    glUniform1i(m_uToneHdr, 0);
    glUniform1f(m_uToneExposure, h.m_exposure);
    glUniform3f(m_uToneBackground, style.background[0], style.background[1], style.background[2]);
    glBindVertexArray(m_vao);
    glDisableVertexAttribArray(0);
    glDisableVertexAttribArray(1);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    releaseDrawState();
    restore();
    checkGl("Renderer::draw");
}

bool Renderer::project(const OrbitCamera& camera, const glm::vec3& p, int width, int height, glm::vec2* pixel)
{
    const float aspect = static_cast<float>(std::max(width, 1)) / static_cast<float>(std::max(height, 1));
    const glm::vec4 clip = camera.projection(aspect) * camera.view() * glm::vec4(p, 1.f);
    if (!(clip.w > 0.f))
        return false;
    const glm::vec3 ndc = glm::vec3(clip) / clip.w;
    *pixel = {(ndc.x + 1.f) * 0.5f * static_cast<float>(width), (1.f - ndc.y) * 0.5f * static_cast<float>(height)};
    return true;
}

void Renderer::drawLabels(const std::vector<Label>& labels, const OrbitCamera& camera, int width, int height,
                          float scale)
{
    if (width <= 0 || height <= 0 || labels.empty())
        return;
    scale = std::max(scale, 0.25f);
    std::vector<float> shadow, text;
    std::vector<char> quads(64 * 1024);
    std::vector<glm::vec4> placed; // x0, y0, x1, y1 of the labels drawn so far
    std::string ascii;
    for (const Label& label : labels) {
        glm::vec2 at;
        if (!project(camera, {label.x, label.y, label.z}, width, height, &at))
            continue;
        if (at.x < 0.f || at.y < 0.f || at.x >= static_cast<float>(width) || at.y >= static_cast<float>(height))
            continue;
        ascii = label.text;
        for (char& c : ascii)
            if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126)
                c = '?';
        // Just right of the point, centred on it vertically (the glyphs are 7 units tall). A
        // label that would overlap one drawn before is left out (the list's order is priority:
        // the Sun before the inner planets crowded around it); zooming in separates them.
        const float x0 = at.x + 5.f * scale, y0 = at.y - 3.5f * scale;
        const glm::vec4 box(x0, y0, x0 + static_cast<float>(stb_easy_font_width(ascii.data())) * scale,
                            y0 + 7.f * scale);
        if (std::any_of(placed.begin(), placed.end(), [&](const glm::vec4& o) {
                return box.x < o.z && o.x < box.z && box.y < o.w && o.y < box.w;
            }))
            continue;
        placed.push_back(box);
        const int n = stb_easy_font_print(0.f, 0.f, ascii.data(), nullptr, quads.data(), static_cast<int>(quads.size()));
        for (int q = 0; q < n; ++q) {
            float xy[4][2];
            for (int v = 0; v < 4; ++v) {
                const char* vertex = quads.data() + (static_cast<std::size_t>(q) * 4 + static_cast<std::size_t>(v)) * 16;
                float u[2];
                std::memcpy(u, vertex, sizeof u);
                xy[v][0] = x0 + u[0] * scale;
                xy[v][1] = y0 + u[1] * scale;
            }
            for (int v : {0, 1, 2, 0, 2, 3}) {
                for (int pass = 0; pass < 2; ++pass) {
                    const float off = pass == 0 ? std::max(1.f, 0.5f * scale) : 0.f;
                    const float ndcX = 2.f * (xy[v][0] + off) / static_cast<float>(width) - 1.f;
                    const float ndcY = 1.f - 2.f * (xy[v][1] + off) / static_cast<float>(height);
                    const float c = pass == 0 ? 0.f : 1.f;
                    (pass == 0 ? shadow : text).insert((pass == 0 ? shadow : text).end(), {ndcX, ndcY, 0.f, c, c, c});
                }
            }
        }
    }
    if (text.empty())
        return;
    glViewport(0, 0, width, height);
    drawPrimitives(shadow, glm::mat4(1.f), 0.8f, GL_TRIANGLES);
    drawPrimitives(text, glm::mat4(1.f), 1.f, GL_TRIANGLES);
}

std::vector<Label> namedBodyLabels(const World& world)
{
    std::vector<Label> labels;
    for (const auto& [index, name] : world.namedBodies()) {
        const Float4& p = world.positions()[index];
        labels.push_back({p.x, p.y, p.z, name});
    }
    return labels;
}

void Renderer::drawLines(const std::vector<float>& vertices, const OrbitCamera& camera, int width, int height)
{
    if (width <= 0 || height <= 0 || vertices.size() < 12)
        return;
    glViewport(0, 0, width, height);
    const float aspect = static_cast<float>(width) / static_cast<float>(height);
    drawPrimitives(vertices, camera.projection(aspect) * camera.view(), 0.8f, GL_LINES);
}

void Renderer::drawPrimitives(const std::vector<float>& vertices, const glm::mat4& viewProjection, float alpha,
                              unsigned mode, float fadeKeep)
{
    clearGlErrors();
    glBindVertexArray(m_linesVao);
    glBindBuffer(GL_ARRAY_BUFFER, m_linesVbo);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(vertices.size() * sizeof(float)), vertices.data(),
                 GL_STREAM_DRAW);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), nullptr);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), reinterpret_cast<void*>(3 * sizeof(float)));
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    if (fadeKeep >= 0.f) { // destination × fadeKeep (the trails' fading pass)
        glBlendColor(0.f, 0.f, 0.f, fadeKeep);
        glBlendFunc(GL_ZERO, GL_CONSTANT_ALPHA);
    } else {
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    }
    glUseProgram(m_linesProgram);
    glUniformMatrix4fv(m_uLinesViewProjection, 1, GL_FALSE, glm::value_ptr(viewProjection));
    glUniform1f(m_uLinesAlpha, alpha);
    glDrawArrays(mode, 0, static_cast<GLsizei>(vertices.size() / 6));
    glBlendColor(0.f, 0.f, 0.f, 0.f);
    releaseDrawState();
    checkGl("Renderer: overlay drawing");
}

std::vector<float> boxLines(const float lo[3], const float hi[3], ColourRgb c)
{
    std::vector<float> v;
    auto corner = [&](int i) { return std::array<float, 3>{i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1], i & 4 ? hi[2] : lo[2]}; };
    for (int a = 0; a < 8; ++a)
        for (int bit : {1, 2, 4}) {
            if (a & bit)
                continue; // each edge once: from the corner without the bit to the one with it
            for (int end : {a, a | bit}) {
                const auto p = corner(end);
                v.insert(v.end(), {p[0], p[1], p[2], c.r, c.g, c.b});
            }
        }
    return v;
}

std::vector<float> axesLines(const float o[3], float length)
{
    std::vector<float> v;
    for (int axis = 0; axis < 3; ++axis) {
        float tip[3] = {o[0], o[1], o[2]};
        tip[axis] += length;
        const float r = axis == 0 ? 1.f : 0.2f, g = axis == 1 ? 1.f : 0.2f, b = axis == 2 ? 1.f : 0.2f;
        v.insert(v.end(), {o[0], o[1], o[2], r, g, b, tip[0], tip[1], tip[2], r, g, b});
    }
    return v;
}

Renderer::ContextStrings Renderer::contextStrings()
{
    auto str = [](GLenum name) {
        const auto* s = reinterpret_cast<const char*>(glGetString(name));
        return std::string(s ? s : "?");
    };
    if (epoxy_gl_version() == 0)
        return {};
    return {str(GL_VENDOR), str(GL_RENDERER), str(GL_VERSION)};
}

std::string Renderer::contextDescription()
{
    const ContextStrings s = contextStrings();
    if (s.vendor.empty())
        return "no current OpenGL context";
    return s.vendor + " / " + s.renderer + " / " + s.version;
}

// ---- OffscreenTarget --------------------------------------------------------------------------

OffscreenTarget::OffscreenTarget(int width, int height) : m_width(width), m_height(height)
{
    requireContext("OffscreenTarget");
    GLint maxSize = 0;
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &maxSize);
    if (width <= 0 || height <= 0 || width > maxSize || height > maxSize)
        throw GlError("OffscreenTarget: size " + std::to_string(width) + "x" + std::to_string(height) +
                      " is outside 1.." + std::to_string(maxSize));
    clearGlErrors();
    GLint previous = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &previous);
    try {
        glGenFramebuffers(1, &m_fbo);
        glGenRenderbuffers(1, &m_colour);
        glGenRenderbuffers(1, &m_depth);
        if (m_fbo == 0 || m_colour == 0 || m_depth == 0)
            throw GlError("OffscreenTarget: creating the framebuffer objects failed: " + glErrorName(glGetError()));
        glBindRenderbuffer(GL_RENDERBUFFER, m_colour);
        glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
        glBindRenderbuffer(GL_RENDERBUFFER, m_depth);
        glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, width, height);
        glBindRenderbuffer(GL_RENDERBUFFER, 0);
        checkGl("OffscreenTarget: glRenderbufferStorage");
        glBindFramebuffer(GL_FRAMEBUFFER, m_fbo);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, m_colour);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, m_depth);
        const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
        if (status != GL_FRAMEBUFFER_COMPLETE) {
            char code[16];
            std::snprintf(code, sizeof code, "0x%04x", status);
            throw GlError(std::string("OffscreenTarget: framebuffer incomplete (status ") + code + ")");
        }
    } catch (...) {
        glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(previous));
        release();
        throw;
    }
    glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(previous));
}

OffscreenTarget::~OffscreenTarget()
{
    release();
}

void OffscreenTarget::release()
{
    if (m_fbo != 0)
        glDeleteFramebuffers(1, &m_fbo);
    if (m_colour != 0)
        glDeleteRenderbuffers(1, &m_colour);
    if (m_depth != 0)
        glDeleteRenderbuffers(1, &m_depth);
    m_fbo = m_colour = m_depth = 0;
}

void OffscreenTarget::bind()
{
    glBindFramebuffer(GL_FRAMEBUFFER, m_fbo);
    glViewport(0, 0, m_width, m_height);
}

Image OffscreenTarget::read()
{
    clearGlErrors();
    Image image;
    image.width = m_width;
    image.height = m_height;
    const std::size_t row = static_cast<std::size_t>(m_width) * 4;
    std::vector<std::uint8_t> bottomUp(row * static_cast<std::size_t>(m_height));
    GLint previous = 0;
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, m_fbo);
    glReadBuffer(GL_COLOR_ATTACHMENT0);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glReadPixels(0, 0, m_width, m_height, GL_RGBA, GL_UNSIGNED_BYTE, bottomUp.data());
    glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(previous));
    checkGl("OffscreenTarget::read: glReadPixels");
    image.rgba.resize(bottomUp.size());
    for (int y = 0; y < m_height; ++y)
        std::memcpy(image.rgba.data() + static_cast<std::size_t>(y) * row,
                    bottomUp.data() + static_cast<std::size_t>(m_height - 1 - y) * row, row);
    return image;
}

// ---- one offscreen frame ------------------------------------------------------------------------

std::string imageSizeProblem(int width, int height)
{
    requireContext("imageSizeProblem");
    clearGlErrors();
    const std::string renderer = Renderer::contextStrings().renderer;
    GLint texture = 0, renderbuffer = 0, viewport[2] = {0, 0};
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &texture);
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &renderbuffer);
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, viewport);
    for (const auto& [side, value] : {std::pair{"width", width}, std::pair{"height", height}}) {
        const bool isWidth = side[0] == 'w';
        const std::pair<GLint, const char*> limits[] = {
            {texture, "GL_MAX_TEXTURE_SIZE"},
            {renderbuffer, "GL_MAX_RENDERBUFFER_SIZE"},
            {isWidth ? viewport[0] : viewport[1], "GL_MAX_VIEWPORT_DIMS"}};
        const auto* binding = std::min_element(std::begin(limits), std::end(limits),
                                               [](const auto& a, const auto& b) { return a.first < b.first; });
        if (value > binding->first)
            return formatString("the %s %d is more than this OpenGL draws: at most %d pixels a side (%s of %s)",
                                side, value, int(binding->first), binding->second, renderer.c_str());
    }
    if (width <= 0 || height <= 0)
        return formatString("a %dx%d image has no pixels", width, height);

    // Mesa's software renderers keep their buffers in host memory.
    const bool software = renderer.rfind("llvmpipe", 0) == 0 || renderer.rfind("softpipe", 0) == 0;
    const double pixels = double(width) * double(height);
    const double perPixel = kImageHostBytesPerPixel + (software ? kImageGlBytesPerPixel : 0.0);
    const MemoryAvailable available = availableHostMemory();
    if (available.known() && pixels * perPixel > double(available.bytes))
        return formatString("a %dx%d image needs about %s of host memory (%.0f bytes a pixel: %s); %s %s available "
                            "(%s)",
                            width, height, formatBytes(std::size_t(pixels * perPixel)).c_str(), perPixel,
                            software ? "the OpenGL buffers of the software renderer, the read-back image and the "
                                       "PNG encoding"
                                     : "the read-back image and the PNG encoding",
                            formatBytes(available.bytes).c_str(), available.bytes == 1 ? "is" : "are",
                            available.source.c_str());

    // The buffers made once at this size and released at once: the accumulation buffer (the
    // largest) and the offscreen target. The GL error or status when refused.
    ViewHistory probe;
    const auto accumulationProblem = [&probe](int w, int h) -> std::string {
        try {
            probe.ensure(w, h);
        } catch (const GlError& e) {
            return e.what();
        }
        probe.release();
        return {};
    };
    std::string refused = accumulationProblem(width, height);
    if (refused.empty()) {
        try {
            OffscreenTarget target(width, height);
        } catch (const GlError& e) {
            refused = e.what();
        }
    }
    if (refused.empty())
        return {};
    // The largest image of the same aspect ratio whose accumulation buffer the driver allocates:
    // a bisection on the width to 3 % (a driver zeroes what it allocates: a probe of a large
    // buffer takes about half a second with llvmpipe).
    int lo = 0, hi = width;
    const auto heightFor = [&](int w) { return std::max(1, int(std::lround(double(w) * height / width))); };
    while (hi - lo > std::max(1, width / 32)) {
        const int mid = lo + (hi - lo) / 2;
        (accumulationProblem(mid, heightFor(mid)).empty() ? lo : hi) = mid;
    }
    const double glBytes = pixels * kImageGlBytesPerPixel;
    std::string s = formatString("this OpenGL (%s) cannot allocate the buffers of a %dx%d image (%s of OpenGL "
                                 "memory: %s)",
                                 renderer.c_str(), width, height, formatBytes(std::size_t(glBytes)).c_str(),
                                 refused.c_str());
    if (lo > 0)
        s += formatString("; it allocates %dx%d (the largest with this aspect ratio, to 3 %%)", lo, heightFor(lo));
    return s;
}

Image renderImage(Renderer& renderer, unsigned buffer, std::size_t count, const OrbitCamera& camera,
                  const RenderStyle& style, int width, int height, ViewHistory* history,
                  const std::vector<Label>& labels)
{
    requireContext("renderImage");
    GLint previousDraw = 0, previousRead = 0;
    GLint viewport[4] = {0, 0, 0, 0};
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &previousDraw);
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previousRead);
    glGetIntegerv(GL_VIEWPORT, viewport);
    auto restore = [&] {
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(previousDraw));
        glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(previousRead));
        glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
    };
    try {
        OffscreenTarget target(width, height);
        target.bind();
        renderer.draw(buffer, count, camera, style, width, height, history);
        renderer.drawLabels(labels, camera, width, height, 2.f * std::max(style.devicePixelRatio, 0.5f));
        Image image = target.read();
        restore();
        return image;
    } catch (...) {
        restore();
        throw;
    }
}

} // namespace nbody::gl
