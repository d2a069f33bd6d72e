// GPU failures the app and the core survive:
//   - no usable CUDA device (no driver, or CUDA_VISIBLE_DEVICES=): every CUDA row unavailable
//     with the runtime's reason, the CPU kernels run;
//   - CUDA-GL interop refused (NBODY_FORCE_INTEROP_FAILURE=register | map:K): the controller
//     keeps stepping on the GPU and the frames draw from host uploads that match the state;
//   - a CUDA fault during a run (the test-only `faulty-test` row, NBODY_TEST_FAULTY_KERNEL=1):
//     the run pauses at the last good state kept on the host, the message names the CUDA error
//     and the kernel, and the CPU takes over on request;
//   - the display watchdog's split of force passes into slices of bodies i (bit-identical).
// A sticky CUDA error poisons the context for the whole process, and the switches are read once
// per process: every test that needs a switch or may lose the context re-runs this executable
// for itself alone (a child process with the switch set, NBODY_GPU_FAULTS_CHILD=1) and reports
// the child's verdict. Qt Core + Qt Test only (runs on the GPU machine); GPU parts skip without
// a device, the interop parts without an EGL context on the CUDA device.
#include "FrameLoop.h"

#include "gl/CudaGlInterop.h"
#include "gl/EglContext.h"
#if NBODY_HAVE_CUDA
#include "kernels/DeviceState.h"
#endif
#include "sim/core/Ceiling.h"
#include "sim/base/DeviceInfo.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/Scenario.h"
#include "sim/core/Simulation.h"
#include "sim/perf/Tuner.h"

#include <QCoreApplication>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using namespace nbody;
using nbody::app::FrameResult;
using nbody::app::SimulationController;
using nbody::app::StartupConfig;
using nbody_test::FrameLoop;
using nbody_test::cube;
using nbody_test::requireInterop;

namespace {

bool isChild()
{
    return qEnvironmentVariableIsSet("NBODY_GPU_FAULTS_CHILD");
}

/// "" when the positions are the same bits, else the first difference.
QString sameBodies(const std::vector<Float4>& got, const std::vector<Float4>& want)
{
    if (got.size() != want.size())
        return QStringLiteral("%1 bodies, expected %2").arg(got.size()).arg(want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        if (std::memcmp(&got[i], &want[i], sizeof(Float4)) != 0)
            return QStringLiteral("body %1: (%2, %3, %4, m %5), expected (%6, %7, %8, m %9)")
                .arg(i)
                .arg(double(got[i].x), 0, 'g', 9).arg(double(got[i].y), 0, 'g', 9).arg(double(got[i].z), 0, 'g', 9)
                .arg(double(got[i].w), 0, 'g', 9)
                .arg(double(want[i].x), 0, 'g', 9).arg(double(want[i].y), 0, 'g', 9)
                .arg(double(want[i].z), 0, 'g', 9).arg(double(want[i].w), 0, 'g', 9);
    return {};
}

QString qstr(const std::string& s)
{
    return QString::fromStdString(s);
}

/// Why the GPU tests cannot run here ("" when a CUDA device is usable).
QString whyNoGpu()
{
    const KernelInfo* k = findKernel("tiled");
    if (!k)
        return QStringLiteral("no `tiled` row");
    const Availability a = availability(*k);
    return a.available ? QString() : qstr(a.reason);
}

/// The parameters of the reference runs: `tiled`'s launch fixed to what `faulty-test` (a row
/// without launch parameters) resolves to, so both sum in the same order.
SimParams fixedTiledParams()
{
    SimParams p;
    p.blockSize = 256;
    p.tileWidthFactor = 1;
    return p;
}

} // namespace

/// In the parent: runs this test function in a child process with `env` added (and
/// NBODY_GPU_FAULTS_CHILD=1), prints its output, fails when it failed and skips when it skipped.
/// In the child: does nothing, so the function goes on with the real test.
#define IN_OWN_PROCESS(env)                                                                        \
    do {                                                                                           \
        if (!isChild()) {                                                                          \
            const QString verdict_ = runInChild(QString::fromLatin1(QTest::currentTestFunction()), (env)); \
            if (verdict_.startsWith(QLatin1String("SKIP:")))                                       \
                QSKIP(qPrintable(verdict_.mid(5)));                                                \
            if (!verdict_.isEmpty())                                                               \
                QFAIL(qPrintable(verdict_));                                                       \
            return;                                                                                \
        }                                                                                          \
    } while (false)

#define REQUIRE_GPU()                                                                              \
    do {                                                                                           \
        const QString why_ = whyNoGpu();                                                           \
        if (!why_.isEmpty())                                                                       \
            QSKIP(qPrintable("no usable CUDA device: " + why_));                                   \
    } while (false)

#define REQUIRE_EGL()                                                                              \
    do {                                                                                           \
        if (!m_context)                                                                            \
            QSKIP(qPrintable("EGL cannot create a context here: " + m_eglError));                  \
    } while (false)

/// After the first frame: skips (or fails with NBODY_REQUIRE_INTEROP=1) without CUDA-GL interop.
#define REQUIRE_INTEROP(loop)                                                                      \
    do {                                                                                           \
        if (!(loop).hasInterop()) {                                                                \
            if (requireInterop())                                                                  \
                QFAIL(qPrintable("NBODY_REQUIRE_INTEROP is set but there is no interop: " + (loop).interopWhyNot)); \
            QSKIP(qPrintable("no CUDA-GL interop here: " + (loop).interopWhyNot));                 \
        }                                                                                          \
    } while (false)

class TestGpuFaults : public QObject {
    Q_OBJECT

    /// "" when the child passed, "SKIP:<reason>" when it skipped, else why it failed.
    static QString runInChild(const QString& function, const QProcessEnvironment& extra)
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(extra);
        env.insert(QStringLiteral("NBODY_GPU_FAULTS_CHILD"), QStringLiteral("1"));
        p.setProcessEnvironment(env);
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QCoreApplication::applicationFilePath(), {function});
        if (!p.waitForFinished(280000)) {
            p.kill();
            p.waitForFinished();
            return QStringLiteral("the child process for %1 timed out").arg(function);
        }
        const QString out = QString::fromLocal8Bit(p.readAll());
        for (const QString& line : out.split(QLatin1Char('\n')))
            qInfo("  child| %s", qPrintable(line));
        if (p.exitStatus() != QProcess::NormalExit)
            return QStringLiteral("the child process for %1 crashed").arg(function);
        if (p.exitCode() != 0)
            return QStringLiteral("the child process for %1 failed (exit %2)").arg(function).arg(p.exitCode());
        const QRegularExpressionMatch skip =
            QRegularExpression(QStringLiteral("SKIP   : [^\\n]*%1\\(\\) ([^\\n]*)").arg(function)).match(out);
        if (skip.hasMatch())
            return QStringLiteral("SKIP:") + skip.captured(1).trimmed();
        if (!out.contains(QStringLiteral("PASS   : TestGpuFaults::%1()").arg(function)))
            return QStringLiteral("the child process for %1 did not report a pass").arg(function);
        return {};
    }

    std::unique_ptr<gl::EglContext> m_context;
    QString m_eglError;

private slots:
    void initTestCase()
    {
        try {
            m_context = std::make_unique<gl::EglContext>();
        } catch (const std::exception& e) {
            m_eglError = QString::fromUtf8(e.what());
        }
    }

    // ---- no usable device ------------------------------------------------------------------

    /// With CUDA_VISIBLE_DEVICES= (no device on a GPU machine; this machine has no driver at
    /// all): every CUDA row is unavailable with the runtime's reason, `cpu` is the default, a
    /// CPU run steps, and asking for a CUDA kernel is refused with the reason.
    void noDeviceReasons()
    {
        QProcessEnvironment env;
        env.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), QString());
        IN_OWN_PROCESS(env);
        const CudaRuntimeInfo cuda = queryCuda();
        QVERIFY2(!cuda.whyNone.empty(), "CUDA_VISIBLE_DEVICES= leaves a device visible");
        QVERIFY(cuda.devices.empty());
        qInfo("why no device: %s", cuda.whyNone.c_str());
        const bool known = cuda.whyNone.find("no CUDA device is present") != std::string::npos ||
                           cuda.whyNone.find("no usable CUDA driver") != std::string::npos ||
                           cuda.whyNone.find("built without CUDA") != std::string::npos;
        QVERIFY2(known, cuda.whyNone.c_str());
        int cudaRows = 0;
        for (const KernelInfo& k : kernelRegistry()) {
            const Availability a = availability(k);
            if (k.backend == Backend::Cpu) {
                QVERIFY(a.available);
                continue;
            }
            ++cudaRows;
            QVERIFY2(!a.available, k.id.data());
            QCOMPARE(a.reason, cuda.whyNone);
        }
        QVERIFY(cudaRows >= 10);
        QCOMPARE(std::string(defaultKernelId()), std::string("cpu"));

        const World start = cube(300);
        Simulation sim(start, SimParams{}, defaultKernelId());
        sim.step(3);
        QCOMPARE(sim.stepCount(), std::uint64_t(3));
        QVERIFY(sim.world().validate().empty());
        QVERIFY(sim.world().positions()[0].x != start.positions()[0].x);
        try {
            sim.setKernel("tiled");
            QFAIL("setKernel(tiled) was accepted without a device");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(std::string(e.what()).find(cuda.whyNone) != std::string::npos, e.what());
        }
        QCOMPARE(std::string(sim.kernel().id), std::string("cpu"));
        // The controller's start-up asks for the default kernel: the app starts on the CPU.
        if (m_context) {
            FrameLoop loop(*m_context);
            loop.initialize(QString::fromLatin1(defaultKernelId().data()), 300, 1, true);
            FrameResult r;
            FRAME(loop, r);
            FRAME(loop, r);
            QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
            QCOMPARE(r.kernelId, QStringLiteral("cpu"));
            QVERIFY(r.step >= 1);
            QVERIFY(!loop.hasInterop());
            QVERIFY2(loop.interopWhyNot.contains(qstr(cuda.whyNone)), qPrintable(loop.interopWhyNot));
        }
    }

    /// The test row is in the registry only with NBODY_TEST_FAULTY_KERNEL=1, and never the default.
    void faultyRowHiddenWithoutSwitch()
    {
        if (!isChild()) {
            QVERIFY(!testFaultyKernelEnabled() || qgetenv("NBODY_TEST_FAULTY_KERNEL") == "1");
            if (!testFaultyKernelEnabled()) {
                QVERIFY(findKernel("faulty-test") == nullptr);
                for (const KernelInfo& k : kernelRegistry())
                    QVERIFY(k.id != "faulty-test");
            }
        }
        QProcessEnvironment env;
        env.insert(QStringLiteral("NBODY_TEST_FAULTY_KERNEL"), QStringLiteral("1"));
        IN_OWN_PROCESS(env);
        QVERIFY(testFaultyKernelEnabled());
        const KernelInfo* k = findKernel("faulty-test");
        QVERIFY(k != nullptr);
        QVERIFY(k->backend == Backend::Cuda);
        QVERIFY(&kernelRegistry().back() == k);
        QVERIFY(defaultKernelId() != "faulty-test");
        QVERIFY(availability(*k).available == availability(*findKernel("tiled")).available);
    }

    /// markCudaContextLost makes every CUDA row unavailable, naming the fault (first one kept).
    void contextLostReasons()
    {
        IN_OWN_PROCESS(QProcessEnvironment());
        QVERIFY(cudaContextLost().empty());
        markCudaContextLost("cudaErrorIllegalAddress: an illegal memory access was encountered");
        markCudaContextLost("cudaErrorLaunchFailure: second");
        QCOMPARE(cudaContextLost(), std::string("cudaErrorIllegalAddress: an illegal memory access was encountered"));
        const std::string whyNone = queryCuda().whyNone;
        for (const KernelInfo& k : kernelRegistry()) {
            const Availability a = availability(k);
            if (k.backend == Backend::Cpu) {
                QVERIFY(a.available);
            } else if (!whyNone.empty()) {
                QCOMPARE(a.reason, whyNone); // no device at all: that reason comes first
            } else {
                QVERIFY(!a.available);
                QVERIFY2(a.reason.find("the CUDA context was lost after a GPU fault (cudaErrorIllegalAddress") !=
                             std::string::npos,
                         a.reason.c_str());
            }
        }
        QCOMPARE(std::string(defaultKernelId()), std::string("cpu"));
    }

    // ---- interop refused --------------------------------------------------------------------

    /// Registration refused: the controller steps `tiled` on the GPU, every frame draws from a
    /// host upload, and the drawn buffer is bit for bit an independent run's state.
    void interopRegisterRefused()
    {
        QProcessEnvironment env;
        env.insert(QStringLiteral("NBODY_FORCE_INTEROP_FAILURE"), QStringLiteral("register"));
        IN_OWN_PROCESS(env);
        REQUIRE_EGL();
        REQUIRE_GPU();
        QVERIFY(gl::forcedInteropFailure().registration);
        const std::size_t n = 1000;
        FrameLoop loop(*m_context);
        loop.initialize(QStringLiteral("tiled"), n);
        FrameResult r;
        FRAME(loop, r);
        QVERIFY(!loop.hasInterop());
        QVERIFY2(loop.interopWhyNot.contains(QLatin1String("forced failure (NBODY_FORCE_INTEROP_FAILURE=register)")),
                 qPrintable(loop.interopWhyNot));
        loop.command(&SimulationController::start);
        for (int f = 0; f < 6; ++f) {
            FRAME(loop, r);
            QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
            QVERIFY(!r.cudaFailed);
            QVERIFY(!r.deviceDrawn);
            QVERIFY(r.hostPositions);
            QCOMPARE(r.kernelId, QStringLiteral("tiled"));
        }
        loop.command(&SimulationController::pause);
        FRAME(loop, r);
        Simulation reference(cube(n), SimParams{}, "tiled");
        reference.step(int(r.step));
        qInfo("tiled on the GPU, drawn from host uploads: %llu steps", static_cast<unsigned long long>(r.step));
        QVERIFY(r.step >= 6);
        const QString diff = sameBodies(loop.drawn(), reference.world().positions());
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        QVERIFY(loop.commandFailures.isEmpty());
    }

    /// Mapping refused in the middle of a run (maps 1–3 succeed, the 4th and later fail): the
    /// positions the GPU wrote into the GL buffer are read back and adopted, the run goes on on
    /// the GPU without a step lost, and the frames draw from host uploads matching the state.
    void interopMapRefusedMidRun()
    {
        QProcessEnvironment env;
        env.insert(QStringLiteral("NBODY_FORCE_INTEROP_FAILURE"), QStringLiteral("map:4"));
        IN_OWN_PROCESS(env);
        REQUIRE_EGL();
        REQUIRE_GPU();
        QCOMPARE(gl::forcedInteropFailure().mapFrom, 4LL);
        const std::size_t n = 1000;
        FrameLoop loop(*m_context);
        loop.initialize(QStringLiteral("tiled"), n);
        FrameResult r;
        FRAME(loop, r); // allocates, then map 1
        REQUIRE_INTEROP(loop);
        loop.command(&SimulationController::start);
        FRAME(loop, r); // map 2
        QVERIFY(r.deviceDrawn);
        FRAME(loop, r); // map 3
        QVERIFY(r.deviceDrawn);
        const quint64 before = r.step;
        FRAME(loop, r); // map 4 fails
        QVERIFY(!loop.hasInterop());
        QVERIFY2(loop.interopWhyNot.contains(QLatin1String("NBODY_FORCE_INTEROP_FAILURE=map:4")),
                 qPrintable(loop.interopWhyNot));
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QVERIFY(!r.cudaFailed);
        QCOMPARE(r.kernelId, QStringLiteral("tiled"));
        QVERIFY(r.hostPositions);
        QCOMPARE(r.step, before + 1); // no step lost, none repeated
        for (int f = 0; f < 4; ++f) {
            FRAME(loop, r);
            QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
            QVERIFY(r.hostPositions && !r.deviceDrawn);
            QCOMPARE(r.kernelId, QStringLiteral("tiled"));
        }
        loop.command(&SimulationController::pause);
        FRAME(loop, r);
        Simulation reference(cube(n), SimParams{}, "tiled");
        reference.step(int(r.step));
        qInfo("tiled: %llu steps, interop refused after step %llu", static_cast<unsigned long long>(r.step),
              static_cast<unsigned long long>(before));
        const QString diff = sameBodies(loop.drawn(), reference.world().positions());
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        QVERIFY(loop.commandFailures.isEmpty());
    }

    // ---- a CUDA fault during a run -----------------------------------------------------------

    /// `faulty-test` writes out of bounds at its 25th force evaluation (step 24): the frame
    /// reports the fault (the kernel and cudaErrorIllegalAddress), the run is paused at the
    /// last host copy (every 10 steps with interop: step 20), drawn from the host, the CUDA rows become
    /// unavailable, and on request (kernel `cpu`, Start) the CPU goes on from that state.
    void faultPausesAndCpuTakesOver()
    {
        QProcessEnvironment env;
        env.insert(QStringLiteral("NBODY_TEST_FAULTY_KERNEL"), QStringLiteral("1"));
        env.insert(QStringLiteral("NBODY_TEST_FAULT_AFTER"), QStringLiteral("25"));
        IN_OWN_PROCESS(env);
        REQUIRE_EGL();
        REQUIRE_GPU();
        const std::size_t n = 1000;
        constexpr int kCopyEvery = 10;
        // The states of steps 0 … 30 from `tiled` (the faulty row's forces), before the fault
        // loses the context.
        std::vector<World> states;
        {
            Simulation reference(cube(n), fixedTiledParams(), "tiled");
            for (int k = 0; k <= 30; ++k) {
                states.push_back(reference.world());
                reference.step(1);
            }
        }

        FrameLoop loop(*m_context);
        StartupConfig config;
        config.kernelId = QStringLiteral("faulty-test");
        config.bodies = n;
        config.stepsPerFrame = 1;
        config.startRunning = true;
        config.hostCopyInterval = kCopyEvery;
        loop.command(&SimulationController::initialize, config);
        FrameResult r;
        FRAME(loop, r);
        // With CUDA-GL interop the host copy is the one of every 10 steps: step 20. Without it
        // every frame draws from a host copy: the last frame before the fault, step 23.
        const bool interop = loop.hasInterop();
        if (requireInterop() && !interop)
            QFAIL(qPrintable("NBODY_REQUIRE_INTEROP is set but there is no interop: " + loop.interopWhyNot));
        const quint64 kept = interop ? 20 : 23;
        qInfo("%s: the state kept should be step %llu", interop ? "CUDA-GL interop" : "host uploads",
              static_cast<unsigned long long>(kept));
        int frames = 0;
        while (!r.cudaFailed && ++frames < 200)
            FRAME(loop, r);
        QVERIFY2(r.cudaFailed, "no GPU fault within 200 frames");
        qInfo("fault reported: %s", qPrintable(r.error));
        QVERIFY2(r.error.contains(QLatin1String("'faulty-test'")), qPrintable(r.error));
        QVERIFY2(r.error.contains(QLatin1String("cudaErrorIllegalAddress")), qPrintable(r.error));
        QVERIFY(!r.running);
        QCOMPARE(loop.runningChanges.last(), false);
        // the fault at the 25th force evaluation (step 24), reported by that frame's checkFinite
        QVERIFY2(r.step == kept, qPrintable(QStringLiteral("paused at step %1").arg(r.step)));
        QVERIFY2(r.error.contains(QStringLiteral("paused at step %1").arg(kept)), qPrintable(r.error));
        QVERIFY2(r.error.contains(QStringLiteral("(%1 steps lost)").arg(24 - kept)), qPrintable(r.error));
        QVERIFY(r.hostPositions && !r.deviceDrawn);
        QCOMPARE(r.kernelId, QStringLiteral("faulty-test")); // the CPU takes over only on request
        QString diff = sameBodies(loop.drawn(), states[kept].positions());
        QVERIFY2(diff.isEmpty(), qPrintable("the state kept: " + diff));
        QVERIFY2(!cudaContextLost().empty(), "the sticky error was not recorded");
        QVERIFY2(cudaContextLost().find("cudaErrorIllegalAddress") != std::string::npos, cudaContextLost().c_str());
        QVERIFY(!availability(*findKernel("tiled")).available);

        // Paused: further frames change nothing and report nothing.
        FRAME(loop, r);
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QCOMPARE(r.step, kept);

        // "Continue on the CPU".
        loop.command(&SimulationController::setKernel, QStringLiteral("cpu"));
        loop.command(&SimulationController::start);
        for (int f = 0; f < 3; ++f) {
            FRAME(loop, r);
            QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        }
        loop.command(&SimulationController::pause);
        FRAME(loop, r);
        QCOMPARE(r.kernelId, QStringLiteral("cpu"));
        QVERIFY(r.step > kept);
        Simulation cpu(states[kept], fixedTiledParams(), "cpu");
        cpu.step(int(r.step - kept));
        diff = sameBodies(loop.drawn(), cpu.world().positions());
        QVERIFY2(diff.isEmpty(), qPrintable("after the CPU took over: " + diff));
        QVERIFY(loop.commandFailures.isEmpty());
        // A CUDA kernel now is refused with the reason (the context is lost), the CPU run stays.
        loop.command(&SimulationController::setKernel, QStringLiteral("tiled"));
        FRAME(loop, r);
        QCOMPARE(loop.commandFailures.size(), 1);
        QVERIFY2(loop.commandFailures.front().second.contains(QLatin1String("CUDA context was lost")),
                 qPrintable(loop.commandFailures.front().second));
        QCOMPARE(r.kernelId, QStringLiteral("cpu"));
    }

    /// The core alone: Simulation::abandonDeviceState after the fault keeps the last host copy
    /// (step 20 with copies every 10 steps) and counts the steps lost.
    void faultKeepsLastHostCopy()
    {
        QProcessEnvironment env;
        env.insert(QStringLiteral("NBODY_TEST_FAULTY_KERNEL"), QStringLiteral("1"));
        env.insert(QStringLiteral("NBODY_TEST_FAULT_AFTER"), QStringLiteral("25"));
        IN_OWN_PROCESS(env);
        REQUIRE_GPU();
        const std::size_t n = 1000;
        SimParams p = fixedTiledParams();
        p.hostCopyInterval = 10;
        Simulation reference(cube(n), p, "tiled");
        reference.step(20);
        const World at20 = reference.world();

        Simulation sim(cube(n), p, "faulty-test");
        bool threw = false;
        try {
            for (int s = 0; s < 40; ++s) {
                sim.step(1);
                (void)sim.checkFinite(); // synchronises: the fault surfaces in the step it happens
            }
        } catch (const CudaError& e) {
            threw = true;
            qInfo("CudaError: %s", e.what());
            QVERIFY2(std::string(e.what()).find("cudaErrorIllegalAddress") != std::string::npos, e.what());
        }
        QVERIFY2(threw, "faulty-test ran 40 steps without a fault");
        const std::uint64_t reached = sim.stepCount();
        const std::uint64_t lost = sim.abandonDeviceState();
        qInfo("fault at step %llu, kept step %llu, %llu steps lost", static_cast<unsigned long long>(reached),
              static_cast<unsigned long long>(sim.stepCount()), static_cast<unsigned long long>(lost));
        QCOMPARE(sim.stepCount(), std::uint64_t(20));
        QCOMPARE(sim.hostCopyStep(), std::uint64_t(20));
        QCOMPARE(lost, reached - 20);
        QVERIFY(lost >= 4 && lost <= 10);
        const QString diff = sameBodies(sim.world().positions(), at20.positions());
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        QVERIFY(!cudaContextLost().empty());
        sim.fallBackToCpu();
        QCOMPARE(std::string(sim.kernel().id), std::string("cpu"));
        sim.step(2);
        QCOMPARE(sim.stepCount(), std::uint64_t(22));
        QVERIFY(sim.checkFinite().empty());
    }

    // ---- display watchdog: force passes in slices of bodies i ---------------------------------

    void slicedForcesBitIdentical_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("bodies");
        QTest::addColumn<int>("slices");
        for (const KernelInfo& k : kernelRegistry()) {
            if (k.backend != Backend::Cuda || k.id == "faulty-test" || !k.iSlices)
                continue; // rows that are never sliced (the tree: each slice would walk it again)
            for (const int n : {1000, 4097})
                for (const int s : {3, 7})
                    QTest::addRow("%s N=%d slices=%d", k.id.data(), n, s) << qstr(std::string(k.id)) << n << s;
        }
    }

    /// Every CUDA row with SimParams::forceSlices = S against one launch per pass: the same
    /// accelerations and, after 5 steps (captured graphs of S force launches), the same state,
    /// bit for bit for the deterministic rows (within 1e-5 relative for the atomic one); and one
    /// slice alone writes its bodies and no others.
    void slicedForcesBitIdentical()
    {
        QFETCH(QString, kernel);
        QFETCH(int, bodies);
        QFETCH(int, slices);
        REQUIRE_GPU();
        const KernelInfo& k = *findKernel(kernel.toStdString());
        const World start = cube(std::size_t(bodies));
        SimParams whole;
        SimParams sliced;
        sliced.forceSlices = slices;

#if NBODY_HAVE_CUDA
        {
            QCOMPARE(forceSlices(k, sliced, start.size()), slices);
            const bool watchdog = queryCuda().devices.front().kernelTimeout;
            if (watchdog)
                QVERIFY(forceSlices(k, whole, start.size()) >= 1);
            else
                QCOMPARE(forceSlices(k, whole, start.size()), 1); // no kernel-execution timeout: one launch
        }
#endif

        Simulation a(start, whole, kernel.toStdString());
        Simulation b(start, sliced, kernel.toStdString());
        a.computeAccelerations();
        b.computeAccelerations();
        const std::vector<Double4> accA = a.accelerations64();
        const std::vector<Double4> accB = b.accelerations64();
        // Bit for bit (deterministic rows), else within 1e-5 of |a| (the atomic row's order varies).
        const auto same = [&k](const Double4& x, double gx, double gy, double gz) {
            if (k.deterministic)
                return x.x == gx && x.y == gy && x.z == gz;
            const double scale = std::fabs(x.x) + std::fabs(x.y) + std::fabs(x.z) + 1e-30;
            return std::fabs(x.x - gx) + std::fabs(x.y - gy) + std::fabs(x.z - gz) <= 1e-5 * scale;
        };
        QCOMPARE(accA.size(), accB.size());
        for (std::size_t i = 0; i < accA.size(); ++i)
            QVERIFY2(same(accA[i], accB[i].x, accB[i].y, accB[i].z),
                     qPrintable(QStringLiteral("body %1: the sliced acceleration differs").arg(i)));
        a.step(5);
        b.step(5);
        if (k.deterministic) {
            const Fp64State sa = a.state64(), sb = b.state64();
            for (std::size_t i = 0; i < sa.size(); ++i)
                QVERIFY2(std::memcmp(&sa.position[i], &sb.position[i], sizeof(Double4)) == 0 &&
                             std::memcmp(&sa.velocity[i], &sb.velocity[i], sizeof(Double4)) == 0,
                         qPrintable(QStringLiteral("body %1 differs after 5 steps").arg(i)));
            QVERIFY(b.graphStats().replays >= 3); // the sliced step ran from a captured graph
        }

        // One slice: its bodies as in the whole pass, the others left as they were (0).
#if NBODY_HAVE_CUDA
        if (k.layout != Layout::Double4) {
            World w = start;
            std::fill(w.accelerations().begin(), w.accelerations().end(), Float4{});
            DeviceState ds(w.size(), k.layout, PositionStorage::Owned);
            ds.upload(w, 0);
            const std::size_t begin = std::size_t(bodies) / 3, count = std::size_t(bodies) / 4;
            ds.computeForceSlice(forceLaunch(k, whole, w.size(), RowRange{0, w.size()}), 0, begin, count);
            ds.download(w, 0);
            for (std::size_t i = 0; i < w.size(); ++i) {
                const Float4& g = w.accelerations()[i];
                if (i >= begin && i < begin + count) {
                    QVERIFY2(same(accA[i], double(g.x), double(g.y), double(g.z)),
                             qPrintable(QStringLiteral("body %1 of the slice differs").arg(i)));
                } else {
                    QVERIFY2(g.x == 0.f && g.y == 0.f && g.z == 0.f,
                             qPrintable(QStringLiteral("body %1 outside the slice was written").arg(i)));
                }
            }
        }
#endif
    }
};

QTEST_GUILESS_MAIN(TestGpuFaults)
#include "tst_gpu_faults.moc"
