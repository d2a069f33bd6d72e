// Headless rendering through EGL (Mesa llvmpipe on a CPU machine, NVIDIA on a GPU server):
// colours by mass, the background, PNG output, and CUDA-GL interop where a CUDA device owns the
// context. Qt Core + Qt Test only (no QtGui), so it runs on a GPU server without a display.
#include "gl/CudaGlInterop.h"
#include "gl/EglContext.h"
#include "gl/Renderer.h"
#include "gl/ColourModes.h"
#include "sim/core/Models.h"
#include "contracts/Types.h"
#include "contracts/World.h"

#include <QTest>

#include <epoxy/gl.h>
#include <glm/glm.hpp>

#if NBODY_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

using namespace nbody;
using namespace nbody::gl;

namespace {

struct Rgb {
    int r, g, b;
};

Rgb pixel(const Image& image, int x, int y)
{
    const std::size_t i = (static_cast<std::size_t>(y) * static_cast<std::size_t>(image.width) +
                           static_cast<std::size_t>(x)) * 4;
    return {image.rgba[i], image.rgba[i + 1], image.rgba[i + 2]};
}

/// Pixel (column, row from the top) where `p` lands for `camera` in a width × height target.
QPoint project(const OrbitCamera& camera, const glm::vec3& p, int width, int height)
{
    const glm::vec4 clip = camera.projection(float(width) / float(height)) * camera.view() * glm::vec4(p, 1.f);
    const glm::vec3 ndc = glm::vec3(clip) / clip.w;
    return QPoint(int(std::floor((ndc.x + 1.f) * 0.5f * float(width))),
                  int(std::floor((1.f - ndc.y) * 0.5f * float(height))));
}

/// Whether f() throws E (QVERIFY_THROWS_EXCEPTION needs Qt 6.3).
template <class E, class F>
bool throws(F&& f)
{
    try {
        f();
    } catch (const E&) {
        return true;
    } catch (...) {
        return false;
    }
    return false;
}

QByteArray describe(Rgb c)
{
    return QByteArray::number(c.r) + "," + QByteArray::number(c.g) + "," + QByteArray::number(c.b);
}

QString tempDir()
{
    return QString::fromStdString((std::filesystem::temp_directory_path() /
                                   ("tst_headless-" + std::to_string(QCoreApplication::applicationPid())))
                                      .string());
}

} // namespace

class TestHeadless : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void cameraFit_data();
    void cameraFit();
    void cameraControls();
    void coloursByMass();
    void equalMassesAreGreen();
    void secondContext();
    void spriteProfileFallsOff();
    void overlappingBodiesAdd();
    void denseClusterDoesNotClip();
    void exposureIsMonotonic();
    void trailsFadeAndClear();
    void labelsAtProjectedPositions();
    void minimumSpriteSize();
    void writePngRoundTrip();
    void writePngMissingDirectory();
    void interopRoundTrip();

private:
    std::unique_ptr<EglContext> m_context;
    QString m_eglError;
    QString m_dir;
};

void TestHeadless::initTestCase()
{
    try {
        m_context = std::make_unique<EglContext>();
        qInfo("%s", m_context->description().c_str());
    } catch (const GlError& e) {
        m_eglError = QString::fromUtf8(e.what());
        qWarning("no EGL context: %s", e.what());
    }
    m_dir = tempDir();
    std::filesystem::create_directories(m_dir.toStdString());
}

void TestHeadless::cleanupTestCase()
{
    std::error_code ec;
    std::filesystem::remove_all(m_dir.toStdString(), ec);
    m_context.reset();
}

void TestHeadless::cameraFit_data()
{
    QTest::addColumn<float>("radius");
    QTest::newRow("1e-3") << 1e-3f;
    QTest::newRow("30") << 30.f;
    QTest::newRow("1e5") << 1e5f;
    QTest::newRow("1e6") << 1e6f;
}

void TestHeadless::cameraFit()
{
    QFETCH(float, radius);
    OrbitCamera camera;
    const glm::vec3 centre(radius * 0.5f, -radius, 2.f * radius);
    camera.fit(centre, radius);
    const float expected = radius / std::sin(glm::radians(camera.fovYDeg) * 0.5f) * 1.1f;
    QVERIFY(std::abs(camera.distance - expected) <= 1e-5f * expected);
    QVERIFY(camera.nearPlane > 0.f);
    QVERIFY(camera.nearPlane < camera.distance - radius);
    QVERIFY(camera.farPlane > camera.distance + radius);
    // The whole sphere lies inside the clip volume from every direction that we orbit to.
    for (float yaw : {0.f, 90.f, 200.f}) {
        camera.yawDeg = yaw;
        const glm::mat4 vp = camera.projection(1.f) * camera.view();
        const glm::vec3 dirs[] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}, {0, 0, 0}};
        for (const glm::vec3& d : dirs) {
            const glm::vec4 clip = vp * glm::vec4(centre + d * radius, 1.f);
            QVERIFY(clip.w > 0.f);
            const glm::vec3 ndc = glm::vec3(clip) / clip.w;
            QVERIFY2(std::abs(ndc.x) <= 1.f && std::abs(ndc.y) <= 1.f && std::abs(ndc.z) <= 1.f,
                     qPrintable(QString("ndc %1 %2 %3").arg(ndc.x).arg(ndc.y).arg(ndc.z)));
        }
    }
}

void TestHeadless::cameraControls()
{
    OrbitCamera camera;
    camera.fit(glm::vec3(0.f), 10.f);
    const float d0 = camera.distance;
    camera.zoom(1.f);
    QCOMPARE(camera.distance, d0 * 0.9f);
    camera.zoom(-2.f);
    QVERIFY(std::abs(camera.distance - d0 / 0.9f) < 1e-4f * d0);
    camera.zoom(1e6f); // clamped, never 0
    QVERIFY(camera.distance > 0.f && camera.nearPlane > 0.f);
    camera.orbit(0.f, 1e4f);
    QCOMPARE(camera.pitchDeg, 89.f);
    camera.orbit(0.f, -1e4f);
    QCOMPARE(camera.pitchDeg, -89.f);
    camera.fit(glm::vec3(0.f), 10.f);
    camera.yawDeg = 0.f;
    camera.pitchDeg = 0.f;
    camera.pan(100.f, 0.f, 100.f); // drag right: the scene follows, so the target moves to −x
    QVERIFY(camera.target.x < 0.f);
    QVERIFY(std::abs(camera.target.y) < 1e-4f && std::abs(camera.target.z) < 1e-4f);
}

void TestHeadless::coloursByMass()
{
    if (!m_context)
        QSKIP(qPrintable("EGL cannot create a context here: " + m_eglError));
    const int w = 128, h = 96;
    const std::vector<Float4> bodies = {
        {-1.f, 0.f, 0.f, 1.f},  // lightest: green
        {1.f, 0.f, 0.f, 10.f},  // heaviest: red
        {0.f, 0.5f, 0.f, 5.5f}, // middle: half green, half red
    };
    ParticleBuffers buffers;
    buffers.allocate(bodies.size());
    buffers.upload(1, bodies.data(), bodies.size());
    Renderer renderer;
    OffscreenTarget target(w, h);
    OrbitCamera camera;
    camera.yawDeg = 0.f;
    camera.pitchDeg = 0.f;
    camera.fit(glm::vec3(0.f), 1.5f);
    RenderStyle style;
    style.massMin = 1.f;
    style.massMax = 10.f;
    style.pointSize = 9.f;
    style.background[0] = 0.1f;
    style.background[1] = 0.2f;
    style.background[2] = 0.3f;
    target.bind();
    renderer.draw(buffers.buffer(1), bodies.size(), camera, style, w, h);
    const Image image = target.read();
    QCOMPARE(image.width, w);
    QCOMPARE(image.height, h);
    QCOMPARE(image.rgba.size(), std::size_t(w * h * 4));

    // Background: the corners and the middle of the bottom row.
    for (QPoint p : {QPoint(0, 0), QPoint(w - 1, 0), QPoint(0, h - 1), QPoint(w - 1, h - 1), QPoint(w / 2, h - 1)}) {
        const Rgb c = pixel(image, p.x(), p.y());
        QVERIFY2(std::abs(c.r - 26) <= 2 && std::abs(c.g - 51) <= 2 && std::abs(c.b - 77) <= 2,
                 describe(c).constData());
    }
    const QPoint light = project(camera, {-1.f, 0.f, 0.f}, w, h);
    const QPoint heavy = project(camera, {1.f, 0.f, 0.f}, w, h);
    const QPoint middle = project(camera, {0.f, 0.5f, 0.f}, w, h);
    QVERIFY(light.x() < middle.x() && middle.x() < heavy.x()); // left to right, as placed
    QVERIFY(middle.y() < light.y());                             // rows from the top
    const Rgb g = pixel(image, light.x(), light.y());
    QVERIFY2(g.g > 200 && g.r < 60 && g.b < 60, describe(g).constData());
    const Rgb r = pixel(image, heavy.x(), heavy.y());
    QVERIFY2(r.r > 200 && r.g < 60 && r.b < 60, describe(r).constData());
    const Rgb m = pixel(image, middle.x(), middle.y());
    QVERIFY2(m.r > 80 && m.g > 80 && m.b < 60, describe(m).constData());
    // Round sprites: beyond the sprite's radius (3σ of the profile: FWHM 9 × 1.5 for the heaviest
    // = 13.5 px, σ = 5.7 px, radius 17.2 px) the corner of its bounding square is background.
    const Rgb corner = pixel(image, heavy.x() + 13, heavy.y() + 13);
    QVERIFY2(std::abs(corner.b - 77) <= 2, describe(corner).constData());
    QVERIFY(!Renderer::contextDescription().empty());
}

void TestHeadless::equalMassesAreGreen()
{
    if (!m_context)
        QSKIP(qPrintable("EGL cannot create a context here: " + m_eglError));
    const std::vector<Float4> bodies = {{0.f, 0.f, 0.f, 3.f}};
    ParticleBuffers buffers;
    buffers.allocate(4);
    buffers.upload(0, bodies.data(), bodies.size());
    QVERIFY(throws<std::out_of_range>([&] { buffers.upload(0, bodies.data(), 5); }));
    Renderer renderer;
    OffscreenTarget target(32, 32);
    OrbitCamera camera;
    camera.fit(glm::vec3(0.f), 1.f);
    RenderStyle style;
    style.massMin = style.massMax = 3.f; // one mass: t = 0
    style.pointSize = 5.f;
    target.bind();
    renderer.draw(buffers.buffer(0), bodies.size(), camera, style, 32, 32);
    const Image image = target.read();
    const QPoint c = project(camera, {0.f, 0.f, 0.f}, 32, 32);
    const Rgb p = pixel(image, c.x(), c.y());
    QVERIFY2(p.g > 200 && p.r < 60 && p.b < 60, describe(p).constData());
}

void TestHeadless::secondContext()
{
    if (!m_context)
        QSKIP(qPrintable("EGL cannot create a context here: " + m_eglError));
    {
        // A second context (often on the same EGL display) draws too; destroying it must leave
        // the first one usable.
        EglContext second;
        Renderer renderer;
        OffscreenTarget target(8, 8);
        target.bind();
        renderer.draw(0, 0, OrbitCamera{}, RenderStyle{}, 8, 8);
        QCOMPARE(int(target.read().rgba[2]), 13); // background blue 0.05
    }
    m_context->makeCurrent();
    Renderer renderer;
    OffscreenTarget target(8, 8);
    target.bind();
    RenderStyle style;
    style.background[0] = 1.f;
    renderer.draw(0, 0, OrbitCamera{}, style, 8, 8);
    QCOMPARE(int(target.read().rgba[0]), 255);
    m_context->doneCurrent();
    m_context->makeCurrent();
}

namespace {

/// Pixel luminance-free brightness: the largest channel.
int brightest(Rgb c)
{
    return std::max({c.r, c.g, c.b});
}

/// One draw of `bodies` with `style` into a w × h target, read back.
Image drawBodies(const std::vector<Float4>& bodies, const OrbitCamera& camera, const RenderStyle& style, int w, int h,
                 ViewHistory* history = nullptr, const std::vector<Label>& labels = {})
{
    ParticleBuffers buffers;
    buffers.allocate(std::max<std::size_t>(bodies.size(), 1));
    if (!bodies.empty())
        buffers.upload(0, bodies.data(), bodies.size());
    Renderer renderer;
    return renderImage(renderer, buffers.buffer(0), bodies.size(), camera, style, w, h, history, labels);
}

OrbitCamera frontCamera(float radius)
{
    OrbitCamera camera;
    camera.yawDeg = 0.f;
    camera.pitchDeg = 0.f;
    camera.fit(glm::vec3(0.f), radius);
    return camera;
}

RenderStyle blackManual(float ev)
{
    RenderStyle style;
    style.background[0] = style.background[1] = style.background[2] = 0.f;
    style.autoExposure = false;
    style.exposureEv = ev;
    style.massMin = style.massMax = 1.f; // green
    return style;
}

} // namespace

void TestHeadless::spriteProfileFallsOff()
{
    if (!m_context)
        QSKIP(qPrintable("EGL cannot create a context here: " + m_eglError));
    // One body, FWHM 12 px: σ = 12 / 2.355 = 5.10 px; the sprite's radius is 3σ = 15.3 px.
    const int w = 96, h = 96;
    const OrbitCamera camera = frontCamera(1.f);
    RenderStyle style = blackManual(-3.f); // x = 3.8 / 8 = 0.475 at the peak: the tone curve's steep part
    style.pointSize = 12.f;
    const Image image = drawBodies({{0.f, 0.f, 0.f, 1.f}}, camera, style, w, h);
    const QPoint c = project(camera, {0.f, 0.f, 0.f}, w, h);
    const float peak = exposedLight(float(pixel(image, c.x(), c.y()).g) / 255.f);
    QVERIFY2(std::abs(peak - 0.475f) < 0.475f * 0.05f, qPrintable(QString::number(peak)));
    // Strictly falling with the radius out to 12 px, then background beyond the sprite.
    int previous = 256;
    for (int r = 0; r <= 12; r += 2) {
        const int g = pixel(image, c.x() + r, c.y()).g;
        QVERIFY2(g < previous, qPrintable(QString("r %1: %2 after %3").arg(r).arg(g).arg(previous)));
        previous = g;
    }
    QCOMPARE(brightest(pixel(image, c.x() + 17, c.y())), 0);
    QCOMPARE(brightest(pixel(image, c.x(), c.y() - 17)), 0);
    // The light at r follows exp(−r² / 2σ²): half the peak at the half width (6 px), an eighth at
    // 1.5 × 6 px... Tolerance: the projected centre may sit up to half a pixel off the pixel's
    // centre, which changes r by ±0.5 px: at r = 6 px the relative slope is r/σ² = 0.23 per pixel,
    // so ±12 %; 8-bit rounding adds under 1 %. Hence 15 %.
    for (int r : {3, 6, 9}) {
        const float light = exposedLight(float(pixel(image, c.x() + r, c.y()).g) / 255.f);
        const float sigma = 12.f / 2.355f;
        const float expected = std::exp(-float(r * r) / (2.f * sigma * sigma));
        QVERIFY2(std::abs(light / peak - expected) <= 0.15f * expected + 0.01f,
                 qPrintable(QString("r %1: %2 of the peak, expected %3").arg(r).arg(light / peak).arg(expected)));
    }
}

void TestHeadless::overlappingBodiesAdd()
{
    if (!m_context)
        QSKIP(qPrintable("EGL cannot create a context here: " + m_eglError));
    const int w = 64, h = 64;
    const OrbitCamera camera = frontCamera(1.f);
    RenderStyle style = blackManual(-4.f); // x = 3.8 / 16 = 0.2375 for one body's peak
    style.pointSize = 8.f;
    const Float4 body{0.f, 0.f, 0.f, 1.f};
    const Image one = drawBodies({body}, camera, style, w, h);
    const Image two = drawBodies({body, body}, camera, style, w, h);
    const QPoint c = project(camera, {0.f, 0.f, 0.f}, w, h);
    const float l1 = exposedLight(float(pixel(one, c.x(), c.y()).g) / 255.f);
    const float l2 = exposedLight(float(pixel(two, c.x(), c.y()).g) / 255.f);
    // Additive light: twice the light. The displayed values (about 120 and 152 of 255) carry ±0.5
    // of rounding, ±1.1 % and ±0.8 % of light here (dx/dd = 2.2 x (1 + x) / d): the ratio within 3 %.
    QVERIFY2(std::abs(l2 / l1 - 2.f) < 2.f * 0.03f, qPrintable(QString("%1 / %2").arg(l2).arg(l1)));
    // Not additive: the second sprite covers the first with the same colour, nothing is added.
    style.additive = false;
    const Image over = drawBodies({body, body}, camera, style, w, h);
    QVERIFY(std::abs(pixel(over, c.x(), c.y()).g - pixel(one, c.x(), c.y()).g) <= 1);
}

void TestHeadless::denseClusterDoesNotClip()
{
    if (!m_context)
        QSKIP(qPrintable("EGL cannot create a context here: " + m_eglError));
    // A Plummer sphere of 8192 equal masses seen whole in 256 × 256 pixels: its core holds
    // hundreds of sprites per pixel, its outskirts a few.
    PlummerParams pp;
    pp.bodies = 8192;
    const ModelBodies model = makePlummer(pp);
    const std::vector<Float4>& p = model.world.positions();
    const int w = 256, h = 256;
    const float rh = float(plummerHalfMassRadius(pp.massCutoff));
    const OrbitCamera camera = frontCamera(4.f * rh);
    RenderStyle style; // the defaults: additive, automatic exposure
    style.massMin = style.massMax = 1.f;
    const Image image = drawBodies(p, camera, style, w, h);
    // Nothing saturates: no channel of any pixel at 255 (the tone curve x / (1 + x) reaches
    // 254.5 / 255 only at 230 times the light the exposure maps to a lone body's 90 %).
    int saturated = 0;
    for (std::size_t i = 0; i < image.rgba.size(); i += 4)
        saturated += image.rgba[i] == 255 || image.rgba[i + 1] == 255 || image.rgba[i + 2] == 255;
    QCOMPARE(saturated, 0);
    // The core glows brighter than the half-mass radius, and that than twice it: a gradient, not
    // a plateau (each step by at least 8 of 255).
    const QPoint c = project(camera, {0.f, 0.f, 0.f}, w, h);
    const QPoint half = project(camera, {rh, 0.f, 0.f}, w, h);
    const QPoint twice = project(camera, {2.f * rh, 0.f, 0.f}, w, h);
    auto mean = [&](QPoint q) { // over 5 × 5 pixels, against the sampling noise
        int sum = 0;
        for (int dy = -2; dy <= 2; ++dy)
            for (int dx = -2; dx <= 2; ++dx)
                sum += pixel(image, q.x() + dx, q.y() + dy).g;
        return sum / 25;
    };
    const int g0 = mean(c), g1 = mean(half), g2 = mean(twice);
    qInfo("dense cluster: green %d at the centre, %d at the half-mass radius, %d at twice; %d saturated pixels", g0, g1,
          g2, saturated);
    QVERIFY2(g0 >= g1 + 8 && g1 >= g2 + 8 && g2 > 0,
             qPrintable(QString("centre %1, half-mass radius %2, twice %3").arg(g0).arg(g1).arg(g2)));
}

void TestHeadless::exposureIsMonotonic()
{
    if (!m_context)
        QSKIP(qPrintable("EGL cannot create a context here: " + m_eglError));
    PlummerParams pp;
    pp.bodies = 2048;
    const ModelBodies model = makePlummer(pp);
    const OrbitCamera camera = frontCamera(3.f);
    for (bool automatic : {true, false}) {
        double previousMean = -1;
        float previousExposure = 0;
        for (float ev : {-2.f, -1.f, 0.f, 1.f, 2.f}) {
            RenderStyle style;
            style.autoExposure = automatic;
            style.exposureEv = ev;
            ViewHistory history;
            const Image image = drawBodies(model.world.positions(), camera, style, 128, 128, &history);
            double sum = 0;
            for (std::size_t i = 0; i < image.rgba.size(); i += 4)
                sum += image.rgba[i] + image.rgba[i + 1] + image.rgba[i + 2];
            const double mean = sum / double(image.rgba.size() / 4);
            QVERIFY2(mean > previousMean, qPrintable(QString("EV %1: mean %2 after %3").arg(ev).arg(mean).arg(previousMean)));
            // Each stop doubles the exposure (the same scene, so the same automatic reference).
            if (previousExposure > 0)
                QVERIFY2(std::abs(history.exposure() / previousExposure - 2.f) < 1e-4f,
                         qPrintable(QString::number(history.exposure() / previousExposure)));
            previousMean = mean;
            previousExposure = history.exposure();
        }
    }
}

void TestHeadless::trailsFadeAndClear()
{
    if (!m_context)
        QSKIP(qPrintable("EGL cannot create a context here: " + m_eglError));
    const int w = 96, h = 64;
    const OrbitCamera camera = frontCamera(1.f);
    RenderStyle style = blackManual(-3.f);
    style.pointSize = 6.f;
    ParticleBuffers buffers;
    buffers.allocate(1);
    Renderer renderer;
    ViewHistory history;
    const Float4 a{-0.5f, 0.f, 0.f, 1.f}, b{0.5f, 0.f, 0.f, 1.f};
    const QPoint pa = project(camera, {-0.5f, 0.f, 0.f}, w, h);
    auto frame = [&](const Float4& body, float keep) {
        buffers.upload(0, &body, 1);
        style.trailKeep = keep;
        return renderImage(renderer, buffers.buffer(0), 1, camera, style, w, h, &history);
    };
    const Image first = frame(a, 0.5f); // a cleared history: no trail yet
    const float la = exposedLight(float(pixel(first, pa.x(), pa.y()).g) / 255.f);
    // The body moves to b: at a, half of the light is left (trailKeep 0.5), then a quarter.
    const Image second = frame(b, 0.5f);
    const float l2 = exposedLight(float(pixel(second, pa.x(), pa.y()).g) / 255.f);
    QVERIFY2(std::abs(l2 / la - 0.5f) < 0.03f, qPrintable(QString::number(l2 / la)));
    const Image third = frame(b, 0.5f);
    const float l3 = exposedLight(float(pixel(third, pa.x(), pa.y()).g) / 255.f);
    QVERIFY2(std::abs(l3 / la - 0.25f) < 0.03f, qPrintable(QString::number(l3 / la)));
    // A new system: clear() forgets the trail, whatever trailKeep says.
    history.clear();
    const Image cleared = frame(b, 0.5f);
    QCOMPARE(brightest(pixel(cleared, pa.x(), pa.y())), 0);
    // Without a history (captures): never a trail.
    buffers.upload(0, &a, 1);
    (void)renderImage(renderer, buffers.buffer(0), 1, camera, style, w, h);
    buffers.upload(0, &b, 1);
    const Image single = renderImage(renderer, buffers.buffer(0), 1, camera, style, w, h);
    QCOMPARE(brightest(pixel(single, pa.x(), pa.y())), 0);
}

void TestHeadless::labelsAtProjectedPositions()
{
    if (!m_context)
        QSKIP(qPrintable("EGL cannot create a context here: " + m_eglError));
    const int w = 200, h = 120;
    const OrbitCamera camera = frontCamera(1.f);
    RenderStyle style = blackManual(0.f);
    style.pointSize = 3.f;
    const glm::vec3 earth(-0.6f, 0.3f, 0.f), mars(0.2f, -0.4f, 0.f);
    const std::vector<Label> labels = {{earth.x, earth.y, earth.z, "Earth"}, {mars.x, mars.y, mars.z, "Mars"}};
    const Image image = drawBodies({{earth.x, earth.y, earth.z, 1.f}, {mars.x, mars.y, mars.z, 1.f}}, camera, style,
                                   w, h, nullptr, labels);
    // Text is white (the bodies are green): count white pixels in the box where each label goes
    // (from 5 scale units right of the point, 7 units tall around it; scale 2 px per unit) and in
    // the same box left of the point, where there is none.
    auto whiteIn = [&](int x0, int y0, int x1, int y1) {
        int n = 0;
        for (int y = std::max(y0, 0); y < std::min(y1, h); ++y)
            for (int x = std::max(x0, 0); x < std::min(x1, w); ++x) {
                const Rgb c = pixel(image, x, y);
                n += c.r > 200 && c.g > 200 && c.b > 200;
            }
        return n;
    };
    for (const auto& [point, text] : {std::pair{earth, 5}, std::pair{mars, 4}}) {
        const QPoint p = project(camera, point, w, h);
        const int width = 2 * 6 * text; // stb_easy_font's glyphs advance about 6 units
        const int right = whiteIn(p.x() + 9, p.y() - 8, p.x() + 11 + width, p.y() + 9);
        const int left = whiteIn(p.x() - 11 - width, p.y() - 8, p.x() - 9, p.y() + 9);
        QVERIFY2(right >= 20 * text, qPrintable(QString("%1 white pixels right of the point").arg(right)));
        QCOMPARE(left, 0);
    }
    // A label that would overlap an earlier one is left out: "Moon" at Earth draws nothing more.
    const int alone = whiteIn(0, 0, w, h);
    const Image crowded = drawBodies({{earth.x, earth.y, earth.z, 1.f}, {mars.x, mars.y, mars.z, 1.f}}, camera, style, w,
                                     h, nullptr, {labels[0], labels[1], {earth.x, earth.y, earth.z, "Moon"}});
    int crowdedWhite = 0;
    for (std::size_t i = 0; i < crowded.rgba.size(); i += 4)
        crowdedWhite += crowded.rgba[i] > 200 && crowded.rgba[i + 1] > 200 && crowded.rgba[i + 2] > 200;
    QCOMPARE(crowdedWhite, alone);
    // Bodies behind the camera get no label.
    const OrbitCamera c2 = frontCamera(1.f);
    const glm::vec3 behind = c2.eye() + (c2.eye() - c2.target);
    const Image none = drawBodies({}, c2, style, w, h, nullptr, {{behind.x, behind.y, behind.z, "Ghost"}});
    int lit = 0;
    for (std::size_t i = 0; i < none.rgba.size(); i += 4)
        lit += none.rgba[i] > 0;
    QCOMPARE(lit, 0);
}

void TestHeadless::minimumSpriteSize()
{
    if (!m_context)
        QSKIP(qPrintable("EGL cannot create a context here: " + m_eglError));
    // Sizes scaled by distance: a body 100 times farther than the target would be 0.03 px wide;
    // the minimum (3 px here) keeps it visible: light 3 px from its centre (σ = 1.27 px... at
    // r = 1 px, exp(−1 / 2σ²) = 73 % of the peak).
    const int w = 64, h = 64;
    OrbitCamera camera = frontCamera(1.f);
    RenderStyle style = blackManual(0.f);
    style.pointSize = 3.f;
    style.minPointSize = 3.f;
    style.sizeByDistance = true;
    const glm::vec3 far = camera.target + (camera.target - camera.eye()) * 99.f;
    camera.farPlane = 1000.f * camera.distance;
    const Image image = drawBodies({{far.x, far.y, far.z, 1.f}}, camera, style, w, h);
    const QPoint c = project(camera, far, w, h);
    QVERIFY2(pixel(image, c.x(), c.y()).g > 150, describe(pixel(image, c.x(), c.y())).constData());
    QVERIFY(pixel(image, c.x() + 1, c.y()).g > 80);
    // And at the target, distance scaling leaves pointSize: the same as without it.
    const Image near = drawBodies({{0.f, 0.f, 0.f, 1.f}}, camera, style, w, h);
    style.sizeByDistance = false;
    const Image flat = drawBodies({{0.f, 0.f, 0.f, 1.f}}, camera, style, w, h);
    const QPoint t = project(camera, {0.f, 0.f, 0.f}, w, h);
    for (int r = 0; r < 4; ++r)
        QVERIFY(std::abs(pixel(near, t.x() + r, t.y()).g - pixel(flat, t.x() + r, t.y()).g) <= 1);
}

void TestHeadless::writePngRoundTrip()
{
    Image image;
    image.width = 5;
    image.height = 3;
    image.rgba.assign(5 * 3 * 4, 0);
    for (std::size_t i = 0; i < image.rgba.size(); ++i)
        image.rgba[i] = static_cast<std::uint8_t>(i * 7);
    const std::string path = (m_dir + "/round trip.png").toStdString();
    writePng(path, image);
    QVERIFY(std::filesystem::exists(path));
    QVERIFY(std::filesystem::file_size(path) > 8);
    std::ifstream in(path, std::ios::binary);
    char signature[8] = {};
    in.read(signature, 8);
    QCOMPARE(QByteArray(signature, 8), QByteArray("\x89PNG\r\n\x1a\n", 8));
    // Overwrites atomically, leaving no temporary file behind.
    writePng(path, image);
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(m_dir.toStdString())) {
        QVERIFY2(entry.path().filename().string().find(".tmp-") == std::string::npos,
                 entry.path().string().c_str());
        ++files;
    }
    QCOMPARE(files, 1);
    // An inconsistent image is refused.
    Image bad = image;
    bad.rgba.pop_back();
    QVERIFY(throws<std::runtime_error>([&] { writePng(m_dir.toStdString() + "/bad.png", bad); }));
    QVERIFY(!std::filesystem::exists(m_dir.toStdString() + "/bad.png"));
}

void TestHeadless::writePngMissingDirectory()
{
    Image image;
    image.width = image.height = 2;
    image.rgba.assign(16, 255);
    const std::string path = m_dir.toStdString() + "/no such dir/out.png";
    try {
        writePng(path, image);
        QFAIL("writePng into a missing directory did not throw");
    } catch (const std::runtime_error& e) {
        QVERIFY2(std::string(e.what()).find(path) != std::string::npos, e.what());
    }
    QVERIFY(!std::filesystem::exists(path));
    QVERIFY(!std::filesystem::exists(m_dir.toStdString() + "/no such dir"));
}

void TestHeadless::interopRoundTrip()
{
    if (!m_context)
        QSKIP(qPrintable("EGL cannot create a context here: " + m_eglError));
    const std::size_t n = 1000;
    ParticleBuffers buffers;
    buffers.allocate(n);
    std::string whyNot;
    std::unique_ptr<CudaGlInterop> interop = CudaGlInterop::create(buffers, &whyNot);
    if (!interop) {
        QVERIFY(!whyNot.empty());
        QSKIP(qPrintable(QString::fromStdString("no CUDA-GL interop: " + whyNot)));
    }
#if NBODY_HAVE_CUDA
    std::vector<Float4> data(n);
    for (std::size_t i = 0; i < n; ++i)
        data[i] = {float(i), -float(i) * 0.5f, 1.f / float(i + 1), 1.f + float(i % 7)};
    {
        CudaGlInterop::Mapping mapping(*interop);
        QVERIFY(interop->mapped());
        QVERIFY(mapping.buffer(0) != nullptr && mapping.buffer(1) != nullptr);
        QVERIFY(mapping.bytes(0) >= n * sizeof(Float4));
        QCOMPARE(cudaMemcpy(mapping.buffer(0), data.data(), n * sizeof(Float4), cudaMemcpyHostToDevice),
                 cudaSuccess);
        QCOMPARE(cudaDeviceSynchronize(), cudaSuccess);
    }
    QVERIFY(!interop->mapped());
    std::vector<Float4> back(n);
    glBindBuffer(GL_ARRAY_BUFFER, buffers.buffer(0));
    glGetBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(n * sizeof(Float4)), back.data());
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    QCOMPARE(glGetError(), GLenum(GL_NO_ERROR));
    for (std::size_t i = 0; i < n; ++i) {
        QCOMPARE(back[i].x, data[i].x);
        QCOMPARE(back[i].y, data[i].y);
        QCOMPARE(back[i].z, data[i].z);
        QCOMPARE(back[i].w, data[i].w);
    }
    // Explicit map/unmap too; the interop is released before the buffers.
    Float4* b0 = nullptr;
    Float4* b1 = nullptr;
    interop->map(&b0, &b1);
    QVERIFY(b0 != nullptr && b1 != nullptr && b0 != b1);
    interop->unmap();
    interop.reset();
#else
    QFAIL("CudaGlInterop::create succeeded in a build without CUDA");
#endif
}

QTEST_GUILESS_MAIN(TestHeadless)
#include "tst_headless.moc"
