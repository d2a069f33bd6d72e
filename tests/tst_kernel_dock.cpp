// The Kernel dock's live share of the device's issue-slot ceiling (sim/core/Ceiling.h), read back
// from its label: fed an H200 and the rates a run would report, on a dock of its own (no
// OpenGL needed, so it also runs on Qt's offscreen platform). tst_gui checks the wiring from a
// running MainWindow. The force-accuracy choice of the tree rows: on a dock of its own, and
// through a MainWindow (display needed) from the choice to the θ the controller answers.
#include "GuiTestMain.h"
#include "KernelDock.h"
#include "MainWindow.h"
#include "SimulationController.h"

#include "sim/base/DeviceInfo.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QSignalSpy>
#include <QToolButton>
#include <QLabel>
#include "TestDevices.h"

#include <QtTest>

#include <memory>

using nbody::app::KernelDock;

namespace {

using nbody_test::h200;

QString ceilingText(const KernelDock& dock)
{
    const auto* label = dock.findChild<QLabel*>(QStringLiteral("kernelCeiling"));
    return label ? label->text() : QStringLiteral("<no kernelCeiling label>");
}

/// Picks item `index` of a closed combo box with the arrow keys, as a user does (each step
/// emits activated, the signal of a user's choice).
void pickWithKeys(QComboBox* combo, int index)
{
    combo->setFocus(Qt::OtherFocusReason);
    while (combo->currentIndex() < index)
        QTest::keyClick(combo, Qt::Key_Down);
    while (combo->currentIndex() > index)
        QTest::keyClick(combo, Qt::Key_Up);
}

} // namespace

class TestKernelDock : public QObject {
    Q_OBJECT
private slots:
    // The tree box: the force accuracy is the main control, one choice per row of the kernel's
    // calibration table (tree-cpu: 7 rows, plus off); θ and the leaf size are folded under
    // Advanced. A choice is reported as the row's (key, text); the θ shown is the controller's
    // answer (setParams), and the line under the choice says which θ and what error.
    void forceAccuracyChoices()
    {
        KernelDock dock;
        dock.setKernel(QStringLiteral("tree-cpu"));
        auto* combo = dock.findChild<QComboBox*>(QStringLiteral("forceAccuracy"));
        auto* theta = dock.findChild<QDoubleSpinBox*>(QStringLiteral("openingAngle"));
        auto* advanced = dock.findChild<QToolButton*>(QStringLiteral("treeAdvancedToggle"));
        auto* info = dock.findChild<QLabel*>(QStringLiteral("forceAccuracyInfo"));
        QVERIFY(combo && theta && advanced && info);
        // Off, then tree-cpu's settings worth choosing (ForceAccuracy.h accuracyChoices): θ 0.2,
        // then θ 1 with α 0.0002 … 0.002 and θ 2 with α 0.001 … 0.01.
        QCOMPARE(combo->count(), 16);
        QCOMPARE(combo->currentIndex(), 0); // off by default
        // Short items (the dock is narrow at 1366 × 768), with the setting each picks in its tooltip.
        QCOMPARE(combo->itemText(0), QStringLiteral("Off: θ sets it"));
        QCOMPARE(combo->itemText(1), QStringLiteral("≤ 4e-05"));
        QCOMPARE(combo->itemData(1, Qt::ToolTipRole).toString(), QStringLiteral("≤ 4e-05 (θ 0.2)"));
        QCOMPARE(combo->itemText(4), QStringLiteral("≤ 0.000281"));
        QCOMPARE(combo->itemData(4, Qt::ToolTipRole).toString(), QStringLiteral("≤ 0.000281 (θ 1, α 0.001)"));
        QCOMPARE(info->text(), QStringLiteral("θ = 0.3 sets the error (Advanced)."));
        dock.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dock));
        QVERIFY(!theta->isVisible()); // folded
        advanced->click();
        QVERIFY(theta->isVisible());

        QSignalSpy edits(&dock, &KernelDock::paramEdited);
        pickWithKeys(combo, 4);
        QCOMPARE(edits.count(), 4); // one per step of the arrow keys
        QCOMPARE(edits.back(), (QList<QVariant>{QStringLiteral("forceAccuracy"), QStringLiteral("0.000281")}));
        nbody::SimParams p; // the controller's answer: the Simulation's θ and α for that accuracy
        p.forceAccuracy = 2.81e-4;
        p.openingAngle = 1.0f;
        p.openingAlpha = 0.001;
        dock.setParams(p);
        QCOMPARE(theta->value(), 1.0);
        QCOMPARE(combo->currentIndex(), 4);
        QCOMPARE(info->text(),
                 QStringLiteral("θ 1, α 0.001: calibrated p99 0.000281, median 9.26e-05 (Plummer sphere, N = 131072)"));
        QCOMPARE(edits.count(), 4); // showing a value reports nothing
        // A system larger than the calibration's N: the same setting, and the line says that the
        // error grows with N (the tooltip has chooseOpeningAngle's whole note with the figures).
        dock.setBodies(1048576);
        QCOMPARE(info->text(), QStringLiteral("θ 1, α 0.001: calibrated p99 0.000281, median 9.26e-05 (Plummer sphere, "
                                              "N = 131072); this system is larger, and the error grows with N"));
        QVERIFY2(info->toolTip().contains("1.2e-03 at 1048576"), qPrintable(info->toolTip()));
        dock.setBodies(131072);
        QVERIFY(!info->text().contains("larger"));
        QCOMPARE(edits.count(), 4);
        // An all-pairs row: no tree box.
        dock.setKernel(QStringLiteral("cpu"));
        QVERIFY(!combo->isVisible());
    }

    // The whole chain in the app: choosing an accuracy in the dock goes to the controller, whose
    // Simulation picks θ from the calibration table, and the dock shows that θ; typing a θ then
    // turns the force accuracy off (it would pick θ again).
    void choosingAnAccuracySetsTheTheta()
    {
        if (!nbody::test::haveDisplay())
            QSKIP("needs a display with OpenGL: run under xvfb-run -a");
        nbody::app::StartupConfig config;
        config.kernelId = QStringLiteral("tree-cpu");
        config.bodies = 1001;
        auto window = std::make_unique<nbody::app::MainWindow>(config, nbody::app::Automation{});
        window->resize(1366, 768);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        auto* dock = window->findChild<KernelDock*>();
        QVERIFY(dock);
        dock->show();
        dock->raise();
        auto* combo = dock->findChild<QComboBox*>(QStringLiteral("forceAccuracy"));
        auto* theta = dock->findChild<QDoubleSpinBox*>(QStringLiteral("openingAngle"));
        QVERIFY(combo && theta);
        QTRY_COMPARE_WITH_TIMEOUT(combo->count(), 16, 30000); // the tree-cpu row's choices
        QTRY_COMPARE(theta->value(), 0.3);
        // 1.66e-3 is θ = 2 with α = 0.007's calibrated p99 (the fourteenth choice after off).
        const int i = combo->findData(QStringLiteral("0.00166"));
        QCOMPARE(i, 14);
        pickWithKeys(combo, i);
        QTRY_COMPARE_WITH_TIMEOUT(theta->value(), 2.0, 30000);
        QCOMPARE(combo->currentIndex(), i);
        QTRY_VERIFY(dock->findChild<QLabel*>(QStringLiteral("forceAccuracyInfo"))->text().startsWith("θ 2, α 0.007: "));
        auto* alpha = dock->findChild<QDoubleSpinBox*>(QStringLiteral("openingAlpha"));
        QVERIFY(alpha);
        QCOMPARE(alpha->value(), 0.007);
        // A θ typed in Advanced: the accuracy goes off and θ stays as typed.
        theta->setValue(0.45);
        QTRY_COMPARE_WITH_TIMEOUT(combo->currentIndex(), 0, 30000);
        QTest::qWait(200);
        QCOMPARE(theta->value(), 0.45);
    }

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
        QCOMPARE(ceilingText(dock), QStringLiteral("not for CPU kernels"));
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
