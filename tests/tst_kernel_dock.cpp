// The Kernel dock's live share of the device's issue-slot ceiling (sim/core/Ceiling.h), read back
// from its label: fed an H200 and the rates a run would report, on a dock of its own (no
// OpenGL needed, so it also runs on Qt's offscreen platform). tst_gui checks the wiring from a
// running MainWindow.
#include "GuiTestMain.h"
#include "KernelDock.h"

#include "sim/base/DeviceInfo.h"

#include <QDir>
#include <QLabel>
#include "TestDevices.h"

#include <QtTest>

using nbody::app::KernelDock;

namespace {

using nbody_test::h200;

QString ceilingText(const KernelDock& dock)
{
    const auto* label = dock.findChild<QLabel*>(QStringLiteral("kernelCeiling"));
    return label ? label->text() : QStringLiteral("<no kernelCeiling label>");
}

} // namespace

class TestKernelDock : public QObject {
    Q_OBJECT
private slots:
    void shareOfCeiling()
    {
        KernelDock dock;
        dock.setDevice(h200());
        dock.setKernel(QStringLiteral("tiled"));
        // 132 × 128 × 1.98e9 / 16 = 2.091e12; nothing measured yet.
        QCOMPARE(ceilingText(dock), QStringLiteral("this device's ceiling is 2.09 e12 interactions/s for 16 slots per "
                                                   "interaction; no rate measured yet"));
        dock.setMeasuredRate(QStringLiteral("tiled"), 1.453e12);
        QCOMPARE(dock.measuredRate(), 1.453e12);
        QCOMPARE(ceilingText(dock), QStringLiteral("69.5 % of this device's ceiling (2.09 e12 interactions/s for 16 "
                                                   "slots per interaction)"));
        // A rate of another kernel (a frame from before a switch) changes nothing.
        dock.setMeasuredRate(QStringLiteral("cpu"), 2e9);
        QVERIFY(ceilingText(dock).startsWith(QLatin1String("69.5 %")));
        // A fresh system: no rate.
        dock.setMeasuredRate(QStringLiteral("tiled"), 0);
        QVERIFY(ceilingText(dock).endsWith(QLatin1String("no rate measured yet")));
    }

    void otherKernels()
    {
        KernelDock dock;
        dock.setDevice(h200());
        dock.setKernel(QStringLiteral("tiled"));
        dock.setMeasuredRate(QStringLiteral("tiled"), 1.453e12);
        // A switch forgets the old kernel's rate; fp64 counts the fp64 pipe (64 lanes, 17 slots).
        dock.setKernel(QStringLiteral("tiled-fp64"));
        QCOMPARE(dock.measuredRate(), 0.0);
        dock.setMeasuredRate(QStringLiteral("tiled-fp64"), 6.92e11);
        QCOMPARE(ceilingText(dock), QStringLiteral("70.3 % of this device's ceiling (9.84 e11 interactions/s for 17 "
                                                   "slots per interaction)"));
        dock.setKernel(QStringLiteral("cpu"));
        dock.setMeasuredRate(QStringLiteral("cpu"), 2e9);
        QCOMPARE(ceilingText(dock), QStringLiteral("not defined for CPU kernels"));
        dock.setKernel(QStringLiteral("tiled"));
        dock.setDevice(std::nullopt);
        QCOMPARE(ceilingText(dock), QStringLiteral("no CUDA device to compute it for"));
        nbody::CudaDeviceInfo old = h200();
        old.major = 3;
        old.minor = 5;
        dock.setDevice(old);
        QVERIFY2(ceilingText(dock).startsWith(QLatin1String("unknown for this device (compute capability 3.5")),
                 qPrintable(ceilingText(dock)));
    }

    void blockedOnAnH200()
    {
        // `blocked` at the H200's measured 1.98e12 (docs/performance.md): 13 slots, ceiling
        // 132 × 128 × 1.98e9 / 13 = 2.5735e12, share 76.9 %. With NBODY_SCREENSHOT_DIR set the
        // dock is saved as kernel-dock.png (the README's picture).
        KernelDock dock;
        dock.setDevice(h200());
        dock.setKernel(QStringLiteral("blocked"));
        dock.setMeasuredRate(QStringLiteral("blocked"), 1.98e12);
        QCOMPARE(ceilingText(dock), QStringLiteral("76.9 % of this device's ceiling (2.57 e12 interactions/s for 13 "
                                                   "slots per interaction)"));
        const QString dir = qEnvironmentVariable("NBODY_SCREENSHOT_DIR");
        if (dir.isEmpty())
            QSKIP("set NBODY_SCREENSHOT_DIR to save kernel-dock.png");
        dock.resize(460, 760);
        dock.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dock));
        const QString path = QDir(dir).filePath(QStringLiteral("kernel-dock.png"));
        QVERIFY2(dock.grab().save(path), qPrintable(path));
    }
};

int main(int argc, char** argv)
{
    return nbody::test::guiTestMain<TestKernelDock>(argc, argv);
}
#include "tst_kernel_dock.moc"
