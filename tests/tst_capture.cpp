// Frame captures: an offscreen frame at a requested size with the expected colours, written as
// PNG and JPEG and decoded again; numbered image sequences; MP4 through ffmpeg (counted by
// ffprobe); failures (/dev/full, missing or vanished directories) that report a message and
// leave no partial file under the target's name. Qt Core + Qt Test only (EGL: Mesa llvmpipe
// here, NVIDIA on the GPU server); the video rows skip without ffmpeg/ffprobe.
#include "gl/ColourModes.h"
#include "gl/EglContext.h"
#include "gl/FrameSink.h"
#include "gl/Renderer.h"
#include "gl/ToneMap.h"
#include "contracts/Types.h"
#include "contracts/World.h"

#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "StbImageDecoder.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <vector>

using namespace nbody;
using namespace nbody::gl;
namespace fs = std::filesystem;

namespace {

struct Decoded {
    int width = 0, height = 0;
    std::vector<unsigned char> rgb;
    int r(int x, int y) const { return rgb[std::size_t(y * width + x) * 3]; }
    int g(int x, int y) const { return rgb[std::size_t(y * width + x) * 3 + 1]; }
    int b(int x, int y) const { return rgb[std::size_t(y * width + x) * 3 + 2]; }
};

/// Decodes a PNG or JPEG file to RGB with stb_image (an independent decoder).
Decoded decode(const std::string& path)
{
    Decoded d;
    int channels = 0;
    unsigned char* p = stbi_load(path.c_str(), &d.width, &d.height, &channels, 3);
    if (!p)
        return {};
    d.rgb.assign(p, p + std::size_t(d.width) * std::size_t(d.height) * 3);
    stbi_image_free(p);
    return d;
}

QPoint project(const OrbitCamera& camera, const glm::vec3& p, int width, int height)
{
    const glm::vec4 clip = camera.projection(float(width) / float(height)) * camera.view() * glm::vec4(p, 1.f);
    const glm::vec3 ndc = glm::vec3(clip) / clip.w;
    return QPoint(int(std::floor((ndc.x + 1.f) * 0.5f * float(width))),
                  int(std::floor((1.f - ndc.y) * 0.5f * float(height))));
}

/// A small solid image (for the sinks: their content is not what is tested there).
Image solid(int w, int h, std::uint8_t r, std::uint8_t g, std::uint8_t b)
{
    Image image;
    image.width = w;
    image.height = h;
    image.rgba.resize(std::size_t(w) * std::size_t(h) * 4);
    for (std::size_t i = 0; i < image.rgba.size(); i += 4) {
        image.rgba[i] = r;
        image.rgba[i + 1] = g;
        image.rgba[i + 2] = b;
        image.rgba[i + 3] = 255;
    }
    return image;
}

QStringList filesIn(const QString& dir)
{
    QStringList names;
    for (const auto& e : fs::directory_iterator(dir.toStdString()))
        names << QString::fromStdString(e.path().filename().string());
    names.sort();
    return names;
}

/// ffprobe's count of decoded video frames and the frame size, or an error text.
struct Probe {
    int frames = -1, width = 0, height = 0;
    QString error;
};
Probe probe(const QString& path)
{
    QProcess p;
    p.start(QStringLiteral("ffprobe"), {"-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                        "stream=nb_read_frames,width,height", "-of", "csv=p=0", path});
    Probe r;
    if (!p.waitForFinished(60000) || p.exitCode() != 0) {
        r.error = QString::fromLocal8Bit(p.readAllStandardError());
        return r;
    }
    const QStringList f = QString::fromLocal8Bit(p.readAllStandardOutput()).trimmed().split(QLatin1Char(','));
    if (f.size() == 3) {
        r.width = f[0].toInt();
        r.height = f[1].toInt();
        r.frames = f[2].toInt();
    }
    return r;
}

} // namespace

class TestCapture : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void exportedFrame_data();
    void exportedFrame();
    void colourModes_data();
    void colourModes();
    void bodyScalarsOfEachSource();
    void additiveBlending();
    void pointOnTargetPlane();
    void boundsBoxAndAxes();
    void fadingTrails();
    void unknownExtensionRefused();
    void sequenceCountAndNumbering();
    void sequenceRefusesEarlierFrames();
    void mp4ThirtyFrames();
    void mp4FailureKeepsPartial();
    void devFullFails();
    void unwritableDirectoryFails();
    void vanishedDirectoryStopsAndKeepsFrames();

private:
    std::unique_ptr<EglContext> m_context;
    QString m_eglError;
    QTemporaryDir m_dir;
    bool m_haveFfmpeg = false;
};

void TestCapture::initTestCase()
{
    QVERIFY(m_dir.isValid());
    try {
        m_context = std::make_unique<EglContext>();
    } catch (const GlError& e) {
        m_eglError = QString::fromUtf8(e.what());
    }
    m_haveFfmpeg = !findFfmpeg().empty() && !QStandardPaths::findExecutable(QStringLiteral("ffprobe")).isEmpty();
}

void TestCapture::exportedFrame_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("tolerance");
    // PNG is lossless: exact up to the blending's rounding. JPEG (quality 92, 4:2:0 chroma) moves
    // a flat colour by a few levels and a sprite's saturated centre by up to ~40 in a channel.
    QTest::newRow("png 333x201") << "frame.png" << 333 << 201 << 2;
    QTest::newRow("jpeg 640x360") << "frame.jpg" << 640 << 360 << 40;
    QTest::newRow("png 1001x77") << "wide.PNG" << 1001 << 77 << 2;
}

void TestCapture::exportedFrame()
{
    if (!m_context)
        QSKIP(qPrintable("EGL cannot create a context here: " + m_eglError));
    QFETCH(QString, name);
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, tolerance);
    const std::vector<Float4> bodies = {
        {-1.f, 0.f, 0.f, 2.f}, // lightest: green
        {1.f, 0.f, 0.f, 8.f},  // heaviest: red
    };
    ParticleBuffers buffers;
    buffers.allocate(bodies.size());
    buffers.upload(0, bodies.data(), bodies.size());
    Renderer renderer;
    OrbitCamera camera;
    camera.yawDeg = 0.f;
    camera.pitchDeg = 0.f;
    camera.fit(glm::vec3(0.f), 1.5f, float(width) / float(height));
    RenderStyle style;
    style.massMin = 2.f;
    style.massMax = 8.f;
    style.pointSize = 11.f;
    style.devicePixelRatio = 1.f;
    style.background[0] = 0.2f; // 51
    style.background[1] = 0.4f; // 102
    style.background[2] = 0.6f; // 153
    const Image image = renderImage(renderer, buffers.buffer(0), bodies.size(), camera, style, width, height);
    QCOMPARE(image.width, width);
    QCOMPARE(image.height, height);
    const std::string path = (m_dir.path() + QLatin1Char('/') + name).toStdString();
    writeImage(path, image);
    const Decoded d = decode(path);
    QCOMPARE(d.width, width);
    QCOMPARE(d.height, height);
    auto near = [tolerance](int value, int expected) { return std::abs(value - expected) <= tolerance; };
    for (QPoint p : {QPoint(0, 0), QPoint(width - 1, 0), QPoint(0, height - 1), QPoint(width - 1, height - 1)})
        QVERIFY2(near(d.r(p.x(), p.y()), 51) && near(d.g(p.x(), p.y()), 102) && near(d.b(p.x(), p.y()), 153),
                 qPrintable(QStringLiteral("background at %1,%2").arg(p.x()).arg(p.y())));
    const QPoint light = project(camera, {-1.f, 0.f, 0.f}, width, height);
    const QPoint heavy = project(camera, {1.f, 0.f, 0.f}, width, height);
    QVERIFY(light.x() < heavy.x());
    // The sprite centres: a lone body's peak (light 1 in its colour) at the automatic exposure,
    // which is kExposureTarget for separate bodies (their peaks are the brightest light): green
    // and red at 90 % over 10 % of the background, as displayedColour() computes (±1 of
    // rounding, plus the row's JPEG tolerance).
    const ColourRgb g = displayedColour({0.f, 1.f, 0.f}, kExposureTarget, style.background);
    const ColourRgb r = displayedColour({1.f, 0.f, 0.f}, kExposureTarget, style.background);
    auto is = [&](QPoint p, ColourRgb c) {
        return std::abs(d.r(p.x(), p.y()) - int(std::lround(255 * c.r))) <= tolerance + 1 &&
               std::abs(d.g(p.x(), p.y()) - int(std::lround(255 * c.g))) <= tolerance + 1 &&
               std::abs(d.b(p.x(), p.y()) - int(std::lround(255 * c.b))) <= tolerance + 1;
    };
    QVERIFY2(is(light, g), qPrintable(QStringLiteral("light body %1,%2,%3")
                                          .arg(d.r(light.x(), light.y()))
                                          .arg(d.g(light.x(), light.y()))
                                          .arg(d.b(light.x(), light.y()))));
    QVERIFY2(is(heavy, r), qPrintable(QStringLiteral("heavy body %1,%2,%3")
                                          .arg(d.r(heavy.x(), heavy.y()))
                                          .arg(d.g(heavy.x(), heavy.y()))
                                          .arg(d.b(heavy.x(), heavy.y()))));
}

void TestCapture::bodyScalarsOfEachSource()
{
    // 200 bodies with speeds 1, 2, …, 200 (|v| of (3k, 4k, 0)/5 = k), groups cycling 0…3.
    World w;
    for (int k = 1; k <= 200; ++k)
        w.addBody({float(k), 0, 0, 1}, {0.6f * float(k), 0.8f * float(k), 0, 0}, static_cast<Group>(k % 4));
    std::vector<float> s;
    // Speed: N values |v|; the scale's top is the nearest-rank 99th percentile, ⌈0.99·200⌉ = the
    // 198th smallest speed = 198.
    QCOMPARE(bodyScalars(ColourSource::Speed, w, s), 198.f);
    QCOMPARE(s.size(), std::size_t(200));
    for (int k = 1; k <= 200; ++k)
        QVERIFY(std::abs(s[std::size_t(k - 1)] - float(k)) <= 1e-5f * float(k));
    // Group: the component's value, scale top 3.
    std::uint8_t groups = 0;
    QCOMPARE(bodyScalars(ColourSource::Group, w, s, &groups), 3.f);
    QCOMPARE(s[0], 1.f);
    QCOMPARE(s[3], 0.f);
    QCOMPARE(int(groups), 0b1111); // every group present
    World stars;
    stars.addBody({0, 0, 0, 1}, {}, Group::Star);
    stars.addBody({1, 0, 0, 1}, {}, Group::Gas);
    QCOMPARE(bodyScalars(ColourSource::Group, stars, s, &groups), 3.f);
    QCOMPARE(int(groups), (1 << int(Group::Star)) | (1 << int(Group::Gas)));
    // Mass reads no scalars.
    QCOMPARE(bodyScalars(ColourSource::Mass, w, s), 0.f);
    QVERIFY(s.empty());
    // A system at rest: the speed scale is 1, not 0 (the shader divides by it).
    World still;
    still.addBody({0, 0, 0, 1}, {});
    QCOMPARE(bodyScalars(ColourSource::Speed, still, s), 1.f);
}

void TestCapture::colourModes_data()
{
    QTest::addColumn<QString>("mode");
    QTest::addColumn<float>("scalarLeft");
    QTest::addColumn<float>("scalarRight");
    for (const ColourMode& m : nbody::gl::colourModes())
        QTest::newRow(std::string(m.id).c_str()) << QString::fromUtf8(m.id.data(), qsizetype(m.id.size()))
                                                 << (m.source == ColourSource::Group ? 1.f : 0.f)
                                                 << (m.source == ColourSource::Group ? 2.f : 10.f);
}

void TestCapture::colourModes()
{
    // Every row of the table: the left body (light, scalar `left`) and the right one (heavy,
    // scalar `right`) take the colours the row names (its gradient ends, or the group colours
    // of dark matter = 1 and stars = 2). Sprite centres: the colour at the automatic exposure
    // (kExposureTarget: no channel's light exceeds 1), displayedColour(), up to rounding (±2).
    if (!m_context)
        QSKIP(qPrintable("EGL cannot create a context here: " + m_eglError));
    QFETCH(QString, mode);
    QFETCH(float, scalarLeft);
    QFETCH(float, scalarRight);
    const ColourMode* m = findColourMode(mode.toStdString());
    QVERIFY(m);
    const std::vector<Float4> bodies = {{-1.f, 0.f, 0.f, 2.f}, {1.f, 0.f, 0.f, 8.f}};
    const float scalars[] = {scalarLeft, scalarRight};
    ParticleBuffers buffers;
    buffers.allocate(5); // capacity above N: the renderer draws `count`, not the capacity
    buffers.upload(0, bodies.data(), bodies.size());
    buffers.uploadScalars(scalars, 2);
    Renderer renderer;
    OrbitCamera camera;
    camera.yawDeg = camera.pitchDeg = 0.f;
    camera.fit(glm::vec3(0.f), 1.5f, 2.f);
    RenderStyle style;
    style.source = m->source;
    style.low = m->low;
    style.high = m->high;
    style.massMin = 2.f;
    style.massMax = 8.f;
    style.scalarMin = 0.f;
    style.scalarMax = 10.f;
    style.scalarBuffer = buffers.scalarBuffer();
    style.pointSize = 9.f;
    const Image image = renderImage(renderer, buffers.buffer(0), 2, camera, style, 160, 80);
    auto expect = [&](const glm::vec3& where, ColourRgb c) {
        const QPoint p = project(camera, where, 160, 80);
        const std::size_t i = (std::size_t(p.y()) * 160 + std::size_t(p.x())) * 4;
        const int r = image.rgba[i], g = image.rgba[i + 1], b = image.rgba[i + 2];
        const ColourRgb shown = displayedColour(c, kExposureTarget, style.background);
        const int er = int(std::lround(shown.r * 255)), eg = int(std::lround(shown.g * 255)),
                  eb = int(std::lround(shown.b * 255));
        return std::abs(r - er) <= 2 && std::abs(g - eg) <= 2 && std::abs(b - eb) <= 2
                   ? QString()
                   : QStringLiteral("(%1,%2,%3), expected (%4,%5,%6)").arg(r).arg(g).arg(b).arg(er).arg(eg).arg(eb);
    };
    const ColourRgb left = m->source == ColourSource::Group ? kGroupColours[1] : m->low;
    const ColourRgb right = m->source == ColourSource::Group ? kGroupColours[2] : m->high;
    const QString l = expect({-1.f, 0.f, 0.f}, left), r = expect({1.f, 0.f, 0.f}, right);
    QVERIFY2(l.isEmpty(), qPrintable("left body " + l));
    QVERIFY2(r.isEmpty(), qPrintable("right body " + r));
}

void TestCapture::additiveBlending()
{
    // Two green bodies at the same place on a background (51, 102, 153), at the manual exposure
    // (a lone body's peak at kExposureTarget). Over-blending: the second covers the first, the
    // centre shows light 1. Additive (the default): the light adds up to 2, tone-mapped.
    if (!m_context)
        QSKIP(qPrintable("EGL cannot create a context here: " + m_eglError));
    const std::vector<Float4> bodies = {{0.f, 0.f, 0.f, 1.f}, {0.f, 0.f, 0.f, 1.f}};
    ParticleBuffers buffers;
    buffers.allocate(2);
    buffers.upload(0, bodies.data(), 2);
    Renderer renderer;
    OrbitCamera camera;
    camera.fit(glm::vec3(0.f), 1.f);
    RenderStyle style;
    style.massMin = style.massMax = 1.f;
    style.pointSize = 9.f;
    style.autoExposure = false;
    style.background[0] = 0.2f;
    style.background[1] = 0.4f;
    style.background[2] = 0.6f;
    const QPoint c = project(camera, glm::vec3(0.f), 32, 32);
    const std::size_t i = (std::size_t(c.y()) * 32 + std::size_t(c.x())) * 4;
    auto matches = [&](const Image& im, ColourRgb light) {
        const ColourRgb e = displayedColour(light, kExposureTarget, style.background);
        return std::abs(int(im.rgba[i]) - int(std::lround(255 * e.r))) <= 2 &&
               std::abs(int(im.rgba[i + 1]) - int(std::lround(255 * e.g))) <= 2 &&
               std::abs(int(im.rgba[i + 2]) - int(std::lround(255 * e.b))) <= 2;
    };
    style.additive = false;
    const Image normal = renderImage(renderer, buffers.buffer(0), 2, camera, style, 32, 32);
    QVERIFY2(matches(normal, {0.f, 1.f, 0.f}),
             qPrintable(QStringLiteral("%1,%2,%3").arg(normal.rgba[i]).arg(normal.rgba[i + 1]).arg(normal.rgba[i + 2])));
    style.additive = true;
    const Image glow = renderImage(renderer, buffers.buffer(0), 2, camera, style, 32, 32);
    QVERIFY2(matches(glow, {0.f, 2.f, 0.f}),
             qPrintable(QStringLiteral("%1,%2,%3").arg(glow.rgba[i]).arg(glow.rgba[i + 1]).arg(glow.rgba[i + 2])));
    QVERIFY(glow.rgba[i + 1] > normal.rgba[i + 1]);
}

void TestCapture::pointOnTargetPlane()
{
    // Where edits put bodies: the point under a pixel on the plane through the target. It must
    // project back to that pixel and lie on the plane (distance along the view axis = distance).
    OrbitCamera camera;
    camera.fit(glm::vec3(1.f, 2.f, 3.f), 5.f, 1.5f);
    camera.yawDeg = 70.f;
    camera.pitchDeg = -35.f;
    for (const glm::vec2 ndc : {glm::vec2(0.f, 0.f), glm::vec2(0.5f, -0.25f), glm::vec2(-0.9f, 0.9f)}) {
        const glm::vec3 p = camera.pointOnTargetPlane(ndc.x, ndc.y, 1.5f);
        const glm::vec4 clip = camera.projection(1.5f) * camera.view() * glm::vec4(p, 1.f);
        QVERIFY(std::abs(clip.x / clip.w - ndc.x) < 1e-4f && std::abs(clip.y / clip.w - ndc.y) < 1e-4f);
        const glm::vec3 forward = glm::normalize(camera.target - camera.eye());
        QVERIFY(std::abs(glm::dot(p - camera.target, forward)) < 1e-4f * camera.distance);
    }
    const glm::vec3 centre = camera.pointOnTargetPlane(0.f, 0.f, 1.5f);
    QVERIFY(glm::length(centre - camera.target) < 1e-4f * camera.distance);
}

void TestCapture::boundsBoxAndAxes()
{
    // 12 box edges and 3 axes, drawn over the bodies: the middle of an edge and of each axis
    // carries its colour (lines are one pixel wide: looked for in a 3×3 neighbourhood).
    if (!m_context)
        QSKIP(qPrintable("EGL cannot create a context here: " + m_eglError));
    const float lo[3] = {-1.f, -1.f, -1.f}, hi[3] = {1.f, 1.f, 1.f}, origin[3] = {0.f, 0.f, 0.f};
    const std::vector<float> box = boxLines(lo, hi, {1.f, 1.f, 0.f});
    QCOMPARE(box.size(), std::size_t(12 * 2 * 6));
    const std::vector<float> axes = axesLines(origin, 0.9f);
    QCOMPARE(axes.size(), std::size_t(3 * 2 * 6));
    Renderer renderer;
    OrbitCamera camera;
    camera.fit(glm::vec3(0.f), 1.8f, 1.f);
    OffscreenTarget target(200, 200);
    target.bind();
    RenderStyle style;
    renderer.draw(0, 0, camera, style, 200, 200);
    renderer.drawLines(box, camera, 200, 200);
    renderer.drawLines(axes, camera, 200, 200);
    const Image image = target.read();
    auto seen = [&](const glm::vec3& p, auto&& test) {
        const QPoint c = project(camera, p, 200, 200);
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const std::size_t i = (std::size_t(c.y() + dy) * 200 + std::size_t(c.x() + dx)) * 4;
                if (test(image.rgba[i], image.rgba[i + 1], image.rgba[i + 2]))
                    return true;
            }
        return false;
    };
    // alpha 0.8 over the dark background: a channel at 1 reads about 205, one at 0 about 0–13
    auto yellow = [](int r, int g, int b) { return r > 180 && g > 180 && b < 60; };
    QVERIFY(seen({0.f, 1.f, 1.f}, yellow));   // the edge (x, 1, 1)
    QVERIFY(seen({-1.f, -1.f, 0.f}, yellow)); // the edge (-1, -1, z)
    QVERIFY(seen({0.45f, 0.f, 0.f}, [](int r, int g, int b) { return r > 180 && g < 80 && b < 80; }));
    QVERIFY(seen({0.f, 0.45f, 0.f}, [](int r, int g, int b) { return g > 180 && r < 80 && b < 80; }));
    QVERIFY(seen({0.f, 0.f, 0.45f}, [](int r, int g, int b) { return b > 180 && r < 80 && g < 80; }));
}

void TestCapture::fadingTrails()
{
    // Frame 1: a green body at A. Frame 2 with trailKeep 0.5 in the same ViewHistory, the body
    // now at B: the light at A is half a body's peak, B a whole one (manual exposure: shown as
    // displayedColour() computes, ±2).
    if (!m_context)
        QSKIP(qPrintable("EGL cannot create a context here: " + m_eglError));
    ParticleBuffers buffers;
    buffers.allocate(1);
    Renderer renderer;
    OrbitCamera camera;
    camera.yawDeg = camera.pitchDeg = 0.f;
    camera.fit(glm::vec3(0.f), 1.f, 1.f);
    RenderStyle style;
    style.massMin = style.massMax = 1.f;
    style.pointSize = 7.f;
    style.autoExposure = false;
    style.background[0] = style.background[1] = style.background[2] = 0.f;
    OffscreenTarget target(64, 64);
    target.bind();
    ViewHistory history;
    const Float4 a{-0.5f, 0.f, 0.f, 1.f}, b{0.5f, 0.f, 0.f, 1.f};
    buffers.upload(0, &a, 1);
    renderer.draw(buffers.buffer(0), 1, camera, style, 64, 64, &history);
    buffers.upload(0, &b, 1);
    style.trailKeep = 0.5f;
    renderer.draw(buffers.buffer(0), 1, camera, style, 64, 64, &history);
    const Image image = target.read();
    auto green = [&](const glm::vec3& p) {
        const QPoint c = project(camera, p, 64, 64);
        return int(image.rgba[(std::size_t(c.y()) * 64 + std::size_t(c.x())) * 4 + 1]);
    };
    const int half = int(std::lround(255 * displayedColour({0.f, 0.5f, 0.f}, kExposureTarget, style.background).g));
    const int whole = int(std::lround(255 * displayedColour({0.f, 1.f, 0.f}, kExposureTarget, style.background).g));
    QVERIFY2(std::abs(green({-0.5f, 0.f, 0.f}) - half) <= 2, qPrintable(QString::number(green({-0.5f, 0.f, 0.f}))));
    QVERIFY2(std::abs(green({0.5f, 0.f, 0.f}) - whole) <= 2, qPrintable(QString::number(green({0.5f, 0.f, 0.f}))));
}

void TestCapture::unknownExtensionRefused()
{
    const std::string path = (m_dir.path() + "/frame.bmp").toStdString();
    try {
        writeImage(path, solid(4, 4, 1, 2, 3));
        QFAIL("an unknown extension was accepted");
    } catch (const std::runtime_error& e) {
        QVERIFY2(std::string(e.what()).find(".png, .jpg or .jpeg") != std::string::npos, e.what());
    }
    QVERIFY(!fs::exists(path));
}

void TestCapture::sequenceCountAndNumbering()
{
    const QString dir = m_dir.path() + "/sequence"; // created by the sink (its parent exists)
    SinkOptions o;
    o.target = dir.toStdString();
    o.width = 24;
    o.height = 18;
    auto sink = openFrameSink(o);
    QVERIFY(fs::is_directory(o.target));
    const int n = 7; // frames 0..6
    for (int i = 0; i < n; ++i)
        sink->write(solid(24, 18, std::uint8_t(30 * i), 0, 0));
    QCOMPARE(sink->finish(), o.target);
    QCOMPARE(sink->frames(), n);
    QStringList expected;
    for (int i = 0; i < n; ++i)
        expected << QStringLiteral("frame_%1.png").arg(i, 5, 10, QLatin1Char('0'));
    QCOMPARE(filesIn(dir), expected);
    for (int i = 0; i < n; ++i) {
        const Decoded d = decode(sink->pathOf(i));
        QCOMPARE(d.width, 24);
        QCOMPARE(d.height, 18);
        QCOMPARE(d.r(5, 5), 30 * i); // the frames are in the order written
    }
}

void TestCapture::sequenceRefusesEarlierFrames()
{
    const QString dir = m_dir.path() + "/twice";
    SinkOptions o;
    o.target = dir.toStdString();
    o.width = o.height = 16;
    {
        auto sink = openFrameSink(o);
        sink->write(solid(16, 16, 9, 9, 9));
        sink->finish();
    }
    try {
        openFrameSink(o);
        QFAIL("a directory holding frames was accepted");
    } catch (const std::runtime_error& e) {
        QVERIFY2(std::string(e.what()).find("earlier recording") != std::string::npos, e.what());
    }
    QCOMPARE(filesIn(dir), QStringList{"frame_00000.png"});
    // A frame of another size is refused without writing anything.
    auto other = openFrameSink([&] { SinkOptions p = o; p.target += "-b"; return p; }());
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, other->write(solid(17, 16, 0, 0, 0)));
    QVERIFY(filesIn(dir + "-b").isEmpty());
}

void TestCapture::mp4ThirtyFrames()
{
    if (!m_haveFfmpeg)
        QSKIP("ffmpeg or ffprobe is not installed (Debian's ffmpeg package; scripts/deps.sh installs it)");
    const QString path = m_dir.path() + "/thirty.mp4";
    SinkOptions o;
    o.target = path.toStdString();
    o.width = 96;
    o.height = 64;
    o.fps = 30;
    auto sink = openFrameSink(o);
    for (int i = 0; i < 30; ++i)
        sink->write(solid(96, 64, std::uint8_t(8 * i), std::uint8_t(255 - 8 * i), 40));
    QVERIFY(!fs::exists(o.target)); // only a finished video gets the target's name
    QCOMPARE(QString::fromStdString(sink->finish()), path);
    const Probe p = probe(path);
    QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
    QCOMPARE(p.frames, 30);
    QCOMPARE(p.width, 96);
    QCOMPARE(p.height, 64);
    for (const QString& f : filesIn(m_dir.path()))
        QVERIFY2(!f.contains(".tmp-") && !f.contains(".partial"), qPrintable(f));
}

void TestCapture::mp4FailureKeepsPartial()
{
    // A disk that fills up while recording, made real with a file size limit (RLIMIT_FSIZE) that
    // ffmpeg inherits: its writes beyond 400 KiB fail (SIGXFSZ ends it). The next write to the
    // pipe fails; the message names the reason and where the frames written are kept; that
    // partial video plays (fragmented MP4: whole one-second fragments); nothing gets the
    // target's name.
    if (!m_haveFfmpeg)
        QSKIP("ffmpeg or ffprobe is not installed");
    const QString path = m_dir.path() + "/full.mp4";
    SinkOptions o;
    o.target = path.toStdString();
    o.width = 320;
    o.height = 240;
    o.fps = 10; // a fragment every 10 frames
    o.crf = 0;  // lossless: noise frames stay large, so the limit is reached quickly
    rlimit saved{};
    QCOMPARE(::getrlimit(RLIMIT_FSIZE, &saved), 0);
    rlimit small = saved;
    small.rlim_cur = 400 * 1024;
    QCOMPARE(::setrlimit(RLIMIT_FSIZE, &small), 0);
    std::unique_ptr<FrameSink> sink;
    try {
        sink = openFrameSink(o); // ffmpeg starts here, with the limit
    } catch (...) {
        ::setrlimit(RLIMIT_FSIZE, &saved);
        throw;
    }
    QCOMPARE(::setrlimit(RLIMIT_FSIZE, &saved), 0); // only the child keeps it
    std::uint32_t seed = 12345;
    QString message;
    int written = 0;
    for (int i = 0; i < 2000 && message.isEmpty(); ++i) {
        Image noise = solid(320, 240, 0, 0, 0);
        for (std::size_t k = 0; k < noise.rgba.size(); ++k) {
            seed = seed * 1664525u + 1013904223u; // LCG: incompressible enough for x264
            noise.rgba[k] = std::uint8_t(seed >> 24);
        }
        try {
            sink->write(noise);
            ++written;
        } catch (const std::runtime_error& e) {
            message = QString::fromUtf8(e.what());
        }
    }
    QVERIFY2(!message.isEmpty(), "the recording never failed");
    qInfo("failed after %d frames: %s", written, qPrintable(message));
    const QString partial = m_dir.path() + "/full.partial.mp4";
    QVERIFY2(message.contains("ffmpeg") && message.contains(partial), qPrintable(message));
    QVERIFY(!QFileInfo::exists(path));
    QVERIFY(QFileInfo(partial).size() > 0);
    const Probe p = probe(partial);
    QVERIFY2(p.frames > 0 && p.frames < written, qPrintable(QStringLiteral("%1 frames readable of %2 written; %3")
                                                              .arg(p.frames).arg(written).arg(p.error)));
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, sink->finish()); // closed
    QFile::remove(partial);
}

void TestCapture::devFullFails()
{
    // /dev/full as the file: a device is never replaced or written; nothing new appears in /dev.
    struct stat before{};
    QCOMPARE(::stat("/dev/full", &before), 0);
    try {
        writeImage("/dev/full", solid(4, 4, 0, 0, 0), ImageFormat::Png);
        QFAIL("writing a PNG to /dev/full succeeded");
    } catch (const std::runtime_error& e) {
        QVERIFY2(std::string(e.what()).find("/dev/full") != std::string::npos, e.what());
    }
    // … and through a link named like a video or an image: refused the same way.
    for (const char* name : {"/full.mp4", "/full.png"}) {
        const std::string link = m_dir.path().toStdString() + name;
        fs::create_symlink("/dev/full", link);
        SinkOptions o;
        o.target = link;
        o.width = o.height = 16;
        try {
            if (fs::path(link).extension() == ".png")
                writeImage(link, solid(16, 16, 0, 0, 0));
            else
                openFrameSink(o);
            QFAIL("a target linked to /dev/full was accepted");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find("not a regular file") != std::string::npos, e.what());
        }
        QVERIFY(fs::is_symlink(link)); // the link stays, /dev/full is untouched
        fs::remove(link);
    }
    struct stat after{};
    QCOMPARE(::stat("/dev/full", &after), 0);
    QVERIFY(S_ISCHR(after.st_mode));
    QCOMPARE(after.st_rdev, before.st_rdev);
    QVERIFY(!fs::exists("/dev/full.png") && !fs::exists("/dev/full.mp4"));
}

void TestCapture::unwritableDirectoryFails()
{
    // We may run as root, for whom permission bits do not stop a write: use directories that no
    // one can write into — one that does not exist, and a "directory" that is a regular file.
    const std::string file = m_dir.path().toStdString() + "/plain-file";
    writeImage(file + ".png", solid(2, 2, 0, 0, 0));
    fs::rename(file + ".png", file);
    for (const std::string& target : {m_dir.path().toStdString() + "/missing/out.png", file + "/out.png",
                                      file + "/out.mp4", m_dir.path().toStdString() + "/missing/seq/",
                                      file + "/seq"}) {
        try {
            if (fs::path(target).extension() == ".png") {
                writeImage(target, solid(2, 2, 0, 0, 0));
            } else {
                SinkOptions o;
                o.target = target;
                o.width = o.height = 16;
                openFrameSink(o);
            }
            QFAIL(qPrintable(QStringLiteral("writing to %1 succeeded").arg(QString::fromStdString(target))));
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find("does not exist") != std::string::npos, e.what());
        }
        QVERIFY(!fs::exists(target));
    }
}

void TestCapture::vanishedDirectoryStopsAndKeepsFrames()
{
    // A failure in the middle of a recording (here: the directory disappears): the write throws
    // with a message naming the frame and where the earlier ones are; those stay readable.
    const QString dir = m_dir.path() + "/vanishing";
    const QString moved = m_dir.path() + "/kept";
    SinkOptions o;
    o.target = dir.toStdString();
    o.width = 20;
    o.height = 10;
    auto sink = openFrameSink(o);
    for (int i = 0; i < 3; ++i)
        sink->write(solid(20, 10, 0, 0, std::uint8_t(50 * i)));
    fs::rename(dir.toStdString(), moved.toStdString());
    try {
        sink->write(solid(20, 10, 1, 1, 1));
        QFAIL("writing into a vanished directory succeeded");
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        QVERIFY2(what.find("frame 3") != std::string::npos && what.find("does not exist") != std::string::npos,
                 e.what());
    }
    QCOMPARE(sink->frames(), 3);
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, sink->write(solid(20, 10, 1, 1, 1))); // closed now
    QCOMPARE(filesIn(moved), (QStringList{"frame_00000.png", "frame_00001.png", "frame_00002.png"}));
    QCOMPARE(decode((moved + "/frame_00002.png").toStdString()).b(3, 3), 100);
    QVERIFY(!fs::exists(dir.toStdString()));
}

QTEST_GUILESS_MAIN(TestCapture)
#include "tst_capture.moc"
