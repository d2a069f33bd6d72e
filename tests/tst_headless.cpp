// Headless rendering through EGL (Mesa llvmpipe on a CPU machine, NVIDIA on a GPU server):
// colours by mass, the background, PNG output, and CUDA-GL interop where a CUDA device owns the
// context. Qt Core + Qt Test only (no QtGui), so it runs on a GPU server without a display.
#include "gl/CudaGlInterop.h"
#include "gl/EglContext.h"
#include "gl/Renderer.h"
#include "sim/Types.h"

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
    // Round sprites: the sprite's bounding-square corner is background.
    const Rgb corner = pixel(image, heavy.x() + 6, heavy.y() + 6);
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
