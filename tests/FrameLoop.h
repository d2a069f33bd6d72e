#pragma once
// The GUI side of the app's frame protocol (FrameProtocol.h) on a headless EGL context, for tests
// that drive the SimulationController as Viewport and MainWindow do (tst_controller,
// tst_gpu_faults). Qt Core + Qt Test only. List this header in the test's SOURCES (AUTOMOC).
#include "FrameProtocol.h"
#include "SimulationController.h"

#include "gl/CudaGlInterop.h"
#include "gl/EglContext.h"
#include "gl/Renderer.h"
#include "sim/core/Scenario.h"
#include "sim/core/Simulation.h"

#include <QList>
#include <QObject>
#include <QPair>
#include <QStringList>
#include <QTest>
#include <QThread>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nbody_test {

using nbody::Float4;
using nbody::SimParams;
using nbody::app::FrameRequest;
using nbody::app::FrameResult;
using nbody::app::SimulationController;
using nbody::app::StartupConfig;
using nbody::gl::CudaGlInterop;
using nbody::gl::EglContext;
using nbody::gl::ParticleBuffers;

/// NBODY_REQUIRE_INTEROP set (the GPU machine): CUDA rows must use CUDA-GL interop, never fall
/// back to host uploads.
inline bool requireInterop()
{
    return qEnvironmentVariableIntValue("NBODY_REQUIRE_INTEROP") != 0;
}

/// The predecessor's uniform cube of n bodies (seed 42).
inline nbody::World cube(std::size_t n)
{
    nbody::CubeParams p;
    p.bodies = n;
    return nbody::makeUniformCube(p);
}

inline constexpr int kFrameTimeoutMs = 120000; // a 20K-body CPU step on a busy 2-core machine is slow

/// The GUI side of the frame protocol (Viewport::beginFrame/finishFrame and MainWindow's
/// onTick/onFrameReady) on a headless EGL context: owns the ping-pong GL buffers and the
/// CUDA-GL interop, runs the controller on a worker thread and records its signals.
class FrameLoop : public QObject {
    Q_OBJECT
public:
    explicit FrameLoop(EglContext& context) : m_context(context)
    {
        m_context.makeCurrent();
        m_buffers = std::make_unique<ParticleBuffers>();
        m_controller = new SimulationController;
        m_controller->moveToThread(&m_thread);
        m_thread.setObjectName(QStringLiteral("simulation"));
        connect(&m_thread, &QThread::finished, m_controller, &QObject::deleteLater);
        connect(this, &FrameLoop::frameRequested, m_controller, &SimulationController::advance);
        // `this` lives on the test thread: every connection below is queued, as in MainWindow.
        SimulationController* c = m_controller;
        connect(c, &SimulationController::frameReady, this, [this](const FrameResult& r) { m_received = r; });
        connect(c, &SimulationController::commandFailed, this,
                [this](const QString& what, const QString& message) { commandFailures.append({what, message}); });
        connect(c, &SimulationController::loadFailed, this,
                [this](const QString& path, const QString& message) { loadFailures.append({path, message}); });
        connect(c, &SimulationController::snapshotSaved, this,
                [this](const QString& path, qulonglong, qulonglong step) { saved.append({path, step}); });
        connect(c, &SimulationController::saveFailed, this,
                [this](const QString& path, const QString& message) { saveFailures.append({path, message}); });
        connect(c, &SimulationController::startupFailed, this,
                [this](const QString& message) { startupFailures.append(message); });
        connect(c, &SimulationController::kernelChanged, this, [this](const QString& id) { kernels.append(id); });
        connect(c, &SimulationController::sourceChanged, this, [this](const QString& s) { sources.append(s); });
        connect(c, &SimulationController::runningChanged, this, [this](bool running) { runningChanges.append(running); });
        connect(c, &SimulationController::paramsChanged, this, [this](const SimParams& p) { params.push_back(p); });
        connect(c, &SimulationController::bodiesChanged, this, [this](qulonglong n) { bodies.append(n); });
        m_thread.start();
    }

    ~FrameLoop() override
    {
        shutdown();
        m_context.makeCurrent();
        if (m_interop && m_interop->mapped())
            m_interop->unmap();
        m_interop.reset(); // unregister before the buffers go
        m_buffers.reset();
    }

    SimulationController* controller() const { return m_controller; }
    QThread& thread() { return m_thread; }

    /// Calls a controller slot on the worker thread (queued, like MainWindow's signals).
    template <class... Params, class... Values>
    void command(void (SimulationController::*slot)(Params...), Values... values)
    {
        SimulationController* c = m_controller;
        QMetaObject::invokeMethod(
            c, [c, slot, values...] { (c->*slot)(values...); }, Qt::QueuedConnection);
    }

    /// Sends the first system: the default cube of `bodyCount` bodies with `kernel` (MainWindow's start-up).
    void initialize(const QString& kernel, qulonglong bodyCount, int stepsPerFrame = 1, bool running = false)
    {
        StartupConfig config;
        config.kernelId = kernel;
        config.bodies = bodyCount;
        config.stepsPerFrame = stepsPerFrame;
        config.startRunning = running;
        command(&SimulationController::initialize, config);
    }

    /// Viewport::beginFrame + MainWindow::onTick: maps the buffers and sends the request.
    void begin()
    {
        m_context.makeCurrent();
        FrameRequest request;
        request.capacity = m_buffers->capacity();
        request.serial = ++m_serial;
        m_mappedThisFrame = false;
        if (m_interop && request.capacity > 0) {
            try {
                Float4* p0 = nullptr;
                Float4* p1 = nullptr;
                m_interop->map(&p0, &p1);
                request.device0 = reinterpret_cast<quintptr>(p0);
                request.device1 = reinterpret_cast<quintptr>(p1);
                m_mappedThisFrame = true;
                if (m_lastMapped[0] && (m_lastMapped[0] != p0 || m_lastMapped[1] != p1))
                    ++mappedPointerChanges;
                m_lastMapped[0] = p0;
                m_lastMapped[1] = p1;
            } catch (const std::exception& e) {
                // as the Viewport: a failing map leaves the host path, and the positions the
                // last device-drawn frame left in a GL buffer go back to the controller
                m_interop.reset();
                interopWhyNot = QString::fromUtf8(e.what());
                qWarning("interop map failed: %s", e.what());
                if (m_lastDeviceDrawn && m_drawable)
                    request.recoveredPositions =
                        std::make_shared<const std::vector<Float4>>(m_buffers->read(m_current, m_count));
            }
        }
        m_received.reset();
        m_inFlight = true;
        emit frameRequested(request);
    }

    /// Viewport::finishFrame: waits for frameReady, unmaps, reallocates on needCapacity,
    /// uploads host positions. Returns "" or what went wrong.
    QString finish(FrameResult* out)
    {
        if (!m_inFlight)
            return QStringLiteral("no frame in flight");
        if (!QTest::qWaitFor([this] { return m_received.has_value(); }, kFrameTimeoutMs))
            return QStringLiteral("no frameReady within %1 ms").arg(kFrameTimeoutMs);
        m_inFlight = false;
        *out = *m_received;
        m_received.reset();
        m_context.makeCurrent();
        if (m_mappedThisFrame && m_interop)
            m_interop->unmap();
        if (out->serial != m_serial)
            return QStringLiteral("frameReady for serial %1, expected %2").arg(out->serial).arg(m_serial);
        if (out->needCapacity > 0) {
            reallocations.push_back(out->needCapacity);
            return allocate(static_cast<std::size_t>(out->needCapacity));
        }
        m_drawable = false;
        m_lastDeviceDrawn = out->deviceDrawn;
        if (!out->valid)
            return {};
        if (out->hostPositions) {
            if (out->deviceDrawn)
                return QStringLiteral("both deviceDrawn and hostPositions set");
            if (out->hostPositions->size() != out->bodies)
                return QStringLiteral("hostPositions holds %1 bodies, the result says %2")
                    .arg(out->hostPositions->size()).arg(out->bodies);
            if (out->hostPositions->size() > m_buffers->capacity())
                return QStringLiteral("hostPositions (%1) exceed the buffers' capacity (%2)")
                    .arg(out->hostPositions->size()).arg(m_buffers->capacity());
            try {
                m_buffers->upload(out->current, out->hostPositions->data(), out->hostPositions->size());
            } catch (const std::exception& e) {
                return QStringLiteral("upload: ") + QString::fromUtf8(e.what());
            }
        } else if (out->deviceDrawn && !m_mappedThisFrame) {
            return QStringLiteral("deviceDrawn although no buffers were mapped");
        }
        if (out->hostPositions || out->deviceDrawn) {
            if (out->current != 0 && out->current != 1)
                return QStringLiteral("current buffer %1").arg(out->current);
            m_drawable = true;
            m_current = out->current;
            m_count = static_cast<std::size_t>(out->bodies);
        }
        return {};
    }

    /// One frame as the app sees it: repeated while the controller asks for larger buffers.
    QString frame(FrameResult* out)
    {
        for (int round = 0; round < 4; ++round) {
            begin();
            if (QString error = finish(out); !error.isEmpty())
                return error;
            if (out->needCapacity == 0)
                return {};
        }
        return QStringLiteral("the controller keeps asking for capacity %1").arg(out->needCapacity);
    }

    /// The GL buffer a renderer would draw after the last frame (glGetBufferSubData), or an
    /// empty vector when the last frame drew nothing.
    std::vector<Float4> drawn()
    {
        std::vector<Float4> bodiesDrawn;
        if (!m_drawable || m_count > m_buffers->capacity())
            return bodiesDrawn;
        m_context.makeCurrent();
        try {
            bodiesDrawn = m_buffers->read(m_current, m_count);
        } catch (const std::exception&) {
            bodiesDrawn.clear();
        }
        return bodiesDrawn;
    }

    /// MainWindow::shutdownController: blocking shutdown on the worker, then quit and wait.
    void shutdown()
    {
        if (!m_thread.isRunning())
            return;
        QMetaObject::invokeMethod(m_controller, &SimulationController::shutdown, Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
    }

    bool hasInterop() const { return m_interop != nullptr; }
    bool mappedLastFrame() const { return m_mappedThisFrame; }
    std::size_t capacity() const { return m_buffers->capacity(); }

    // what the controller said (delivered on the test thread, in emission order)
    QList<QPair<QString, QString>> commandFailures;
    QList<QPair<QString, QString>> loadFailures;
    QList<QPair<QString, qulonglong>> saved;       ///< snapshotSaved: path, step
    QList<QPair<QString, QString>> saveFailures;
    QStringList startupFailures, kernels, sources;
    QList<bool> runningChanges;
    std::vector<SimParams> params;
    QList<qulonglong> bodies;
    QList<qulonglong> reallocations;
    QString interopWhyNot;
    int mappedPointerChanges = 0; ///< maps that returned other device pointers than the last one

signals:
    void frameRequested(const nbody::app::FrameRequest& request);

private:
    /// Viewport::allocate (context current).
    QString allocate(std::size_t capacity)
    {
        m_interop.reset();
        m_drawable = false;
        try {
            m_buffers->allocate(std::max<std::size_t>(capacity, 1));
        } catch (const std::exception& e) {
            return QStringLiteral("allocate: ") + QString::fromUtf8(e.what());
        }
        std::string why;
        m_interop = CudaGlInterop::create(*m_buffers, &why);
        interopWhyNot = m_interop ? QString() : QString::fromStdString(why);
        return {};
    }

    EglContext& m_context;
    std::unique_ptr<ParticleBuffers> m_buffers;
    std::unique_ptr<CudaGlInterop> m_interop;
    QThread m_thread;
    SimulationController* m_controller = nullptr; ///< deleted on its thread when it finishes
    std::optional<FrameResult> m_received;
    quint64 m_serial = 0;
    bool m_inFlight = false;
    bool m_mappedThisFrame = false;
    const Float4* m_lastMapped[2] = {nullptr, nullptr};
    bool m_drawable = false;
    bool m_lastDeviceDrawn = false;
    int m_current = 0;
    std::size_t m_count = 0;
};

} // namespace nbody_test

/// QVERIFYs that one frame of the protocol went through, leaving its result in `result`.
#define FRAME(loop, result)                                                                        \
    do {                                                                                           \
        const QString frameError_ = (loop).frame(&(result));                                       \
        QVERIFY2(frameError_.isEmpty(), qPrintable(frameError_));                                  \
    } while (false)


