// Out-of-range values typed into the number fields of the window's docks are refused in the
// field, on a real MainWindow (its Viewport drawing with the CPU tree kernel, so that the Kernel
// dock shows θ): typed with real key events through QTest and confirmed with Enter (or by leaving
// the field), each value is refused as a whole (1e40 in Steps per frame was "140", 500 in Point
// size "5.00 px", dt 0 or −1, ε² −1, G 1e40 and θ 0 went back silently), nothing is applied, and
// the field shows the value in use again (a refused η 0 stayed in its field while the run went
// on with the old η): a red frame and a tooltip name the allowed values in the interface's words
// and the value in use, the status bar says it until the field holds an acceptable text, and
// the keyboard stays in the field after Enter; the next text typed ends the frame.
// Needs a display with desktop OpenGL (run under xvfb-run); skips without one.
#include "AppSetup.h"
#include "EditPresenter.h"
#include "GuiTestMain.h"
#include "MainWindow.h"
#include "Viewport.h"

#include "sim/core/PrecisionRange.h"
#include "sim/core/SimParams.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QImage>
#include <QLabel>
#include <QMessageBox>
#include <QScrollArea>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTest>
#include <QToolButton>

#include <cmath>
#include <memory>

using nbody::app::MainWindow;
using nbody::app::Viewport;

namespace {

constexpr int kWaitMs = 30'000;

/// True when the frame's left edge, half way down, is drawn red (#d32f2f and its antialiasing).
bool redFrame(QWidget* w)
{
    const QImage image = w->grab().toImage();
    const qreal dpr = image.devicePixelRatio();
    const int y = int(0.5 * image.height());
    for (int x = 0; x < int(3 * dpr) && x < image.width(); ++x) {
        const QColor c = image.pixelColor(x, y);
        if (c.red() > 150 && c.green() < 110 && c.blue() < 110)
            return true;
    }
    return false;
}

} // namespace

class TestFieldRanges : public QObject {
    Q_OBJECT

    std::unique_ptr<MainWindow> m_window;
    Viewport* m_viewport = nullptr;

    /// A window on `kernel` with 1001 bodies at 1366×768, active, its view drawn.
    void openWindow(const QString& kernel)
    {
        nbody::app::StartupConfig config;
        config.kernelId = kernel;
        config.bodies = 1001;
        m_window = std::make_unique<MainWindow>(config, nbody::app::Automation{});
        m_window->resize(1366, 768);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        m_viewport = m_window->findChild<Viewport*>();
        QTRY_VERIFY_WITH_TIMEOUT(m_viewport->isReady() && m_viewport->hasContent(), kWaitMs);
    }

private slots:
    void initTestCase()
    {
        if (!nbody::test::haveDisplay())
            QSKIP("needs a display with OpenGL: run under xvfb-run -a");
        openWindow(QStringLiteral("tree-cpu")); // the Kernel dock shows the tree's θ
    }

    void outOfRangeIsRefusedInTheField_data()
    {
        QTest::addColumn<QString>("field");   // the box's object name
        QTest::addColumn<QString>("typed");   // what the user types
        QTest::addColumn<QString>("allowed"); // what the tooltip names
        QTest::newRow("steps per frame 1e40") << "stepsPerFrame" << "1e40" << "1..1000";
        QTest::newRow("evaluate 1e40") << "diagnosticsInterval" << "1e40" << "off (0) or 1..1000000 steps";
        QTest::newRow("point size 500") << "pointSize" << "500" << "[1, 32] px";
        QTest::newRow("dt 0") << "dt" << "0" << "(0, inf) time";
        QTest::newRow("dt -1") << "dt" << "-1" << "(0, inf) time";
        QTest::newRow("eps2 -1") << "eps2" << "-1" << "[0, inf) length^2";
        QTest::newRow("G 0") << "gravitationalConstant" << "0" << "(0, inf)";
        QTest::newRow("theta 0") << "openingAngle" << "0" << "(0, 2]";
        QTest::newRow("alpha 2") << "openingAlpha" << "2" << "[0, 1]";
        QTest::newRow("eta 0") << "eta" << "0" << "(0, 10]";
        QTest::newRow("max levels 31") << "maxLevels" << "31" << "0..30";
    }

    void outOfRangeIsRefusedInTheField()
    {
        QFETCH(QString, field);
        QFETCH(QString, typed);
        QFETCH(QString, allowed);
        auto* box = m_window->findChild<QAbstractSpinBox*>(field);
        QVERIFY2(box, qPrintable(field));
        for (QWidget* p = box->parentWidget(); p; p = p->parentWidget())
            if (auto* dock = qobject_cast<QDockWidget*>(p)) {
                dock->show();
                dock->raise();
                break;
            }
        // θ and α are advanced tree parameters, folded under the force accuracy.
        if (auto* advanced = m_window->findChild<QToolButton*>(QStringLiteral("treeAdvancedToggle")))
            advanced->setChecked(true);
        QTRY_VERIFY(box->isVisible());
        for (QWidget* p = box->parentWidget(); p; p = p->parentWidget())
            if (auto* area = qobject_cast<QScrollArea*>(p))
                area->ensureWidgetVisible(box);

        const QString before = box->text(); // the value in use
        const QString ownTip = box->toolTip();
        QSignalSpy applied(box, qobject_cast<QSpinBox*>(box) ? SIGNAL(valueChanged(int)) : SIGNAL(valueChanged(double)));
        QVERIFY(applied.isValid());

        box->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(box->hasFocus());
        box->selectAll();
        QTest::keyClicks(QApplication::focusWidget(), typed);
        QVERIFY2(box->text().contains(typed), qPrintable(box->text())); // every key typed
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
        QTest::qWait(50);

        // Refused: nothing applied, the field shows the value in use, the keyboard stays there.
        QCOMPARE(box->text(), before);
        QVERIFY(box->property("nbodyRefused").toBool());
        QVERIFY(box->hasFocus());
        QCOMPARE(applied.count(), 0);
        const QString tip = box->toolTip();
        QVERIFY2(tip.contains(allowed), qPrintable(tip));
        QVERIFY2(tip.contains(QLatin1String("Nothing was applied")), qPrintable(tip));
        QVERIFY2(tip.contains(QLatin1String("value in use")), qPrintable(tip));
        QVERIFY2(!tip.contains(QLatin1String("SimParams")) && !tip.contains(QLatin1String("::")), qPrintable(tip));
        QVERIFY(redFrame(box));
        // The allowed values are named once, in the tooltip and in the status bar ("Steps per
        // frame = 1e40 is outside 1..1000 (allowed: 1..1000)" named them twice, and the longer
        // messages lost their end at 1366 px).
        QVERIFY2(tip.section(QStringLiteral("\n\n"), 0, 0).count(allowed) == 1, qPrintable(tip)); // the box's own tip follows
        QString status = m_window->statusBar()->currentMessage();
        QVERIFY2(status.count(allowed) == 1, qPrintable(status));
        QVERIFY2(status.contains(QLatin1String("nothing was applied")), qPrintable(status));

        // Leaving the field: still the value in use, the refusal still shown, nothing applied.
        m_viewport->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(m_viewport->hasFocus());
        QCOMPARE(box->text(), before);
        QVERIFY(box->property("nbodyRefused").toBool());
        QCOMPARE(applied.count(), 0);

        // The refused value typed again and the field left without Enter: refused the same way.
        box->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(box->hasFocus());
        box->selectAll();
        QTest::keyClicks(QApplication::focusWidget(), typed);
        QVERIFY(!box->property("nbodyRefused").toBool()); // a new text ends the last refusal's frame
        m_viewport->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(m_viewport->hasFocus());
        QCOMPARE(box->text(), before);
        QVERIFY(box->property("nbodyRefused").toBool());
        QVERIFY(redFrame(box));
        QCOMPARE(applied.count(), 0);
        status = m_window->statusBar()->currentMessage();
        QVERIFY2(status.contains(QLatin1String("nothing was applied")), qPrintable(status));

        // Escape puts the value in use back; the frame, the refusal's tooltip and its line go.
        box->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(box->hasFocus());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
        QTRY_COMPARE(box->text(), before);
        QTRY_VERIFY(!box->property("nbodyRefused").toBool());
        QCOMPARE(box->toolTip(), ownTip);
        QVERIFY(!redFrame(box));
        QCOMPARE(applied.count(), 0);
        QCOMPARE(m_window->statusBar()->currentMessage(), QString());
        QTRY_VERIFY(m_viewport->hasFocus());
    }

    void correctedFieldClearsTheMessage()
    {
        // The refusal's status line stayed for 15 s after the field was corrected: it goes as
        // soon as the field holds an acceptable text.
        auto* box = m_window->findChild<QSpinBox*>(QStringLiteral("stepsPerFrame"));
        QVERIFY(box);
        box->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(box->hasFocus());
        box->selectAll();
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("5000"));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
        QVERIFY(box->property("nbodyRefused").toBool());
        QVERIFY2(m_window->statusBar()->currentMessage().contains(QLatin1String("nothing was applied")),
                 qPrintable(m_window->statusBar()->currentMessage()));
        // Typed over (the value in use is selected after Enter): "50" is still no value of 1..1000
        // on the way ("5" is, and clears the line).
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("3"));
        QCOMPARE(box->text(), QStringLiteral("3"));
        QVERIFY(!box->property("nbodyRefused").toBool());
        QCOMPARE(m_window->statusBar()->currentMessage(), QString());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
        QCOMPARE(box->value(), 3);
        QTRY_VERIFY(m_viewport->hasFocus());
    }

    void inRangeIsApplied()
    {
        // The check lets an allowed value through as before: 2 steps per frame, applied on Enter.
        auto* box = m_window->findChild<QSpinBox*>(QStringLiteral("stepsPerFrame"));
        QVERIFY(box);
        box->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(box->hasFocus());
        box->selectAll();
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("2"));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
        QCOMPARE(box->value(), 2);
        QVERIFY(!box->property("nbodyRefused").toBool());
        QTRY_VERIFY(m_viewport->hasFocus());
    }

    void addBodyMassIsRefusedOutOfRange_data()
    {
        QTest::addColumn<QString>("typed");
        QTest::newRow("negative") << "-1";
        QTest::newRow("1e40") << "1e40";   // beyond the fp32 mass column and the pull's range
        QTest::newRow("sign alone") << "-"; // not a number
        QTest::newRow("3.1e34") << "3.1e34"; // above 3.4e38 · ε^3 = 3.04e34 at ε² = 0.002
    }

    void addBodyMassIsRefusedOutOfRange()
    {
        // A new-user trial: the Add body tool's mass field took 1e40, "-" and negative masses
        // silently. It is a number field like the docks' (FieldRange): a value outside
        // [0, largest] is refused in the field (red frame, a tooltip naming the allowed values),
        // and the mass in use stays the one before. The largest mass keeps the pull m/(r² + ε²)^{3/2}
        // and G m/(r² + ε²) within fp32 at any separation (nbody::largestBodyMass): with G = 1 and
        // ε² = 0.002, 3.4028e38 · 0.002^{3/2} = 3.0437e34 (m/ε³ binds before G m/ε² = 6.8e35).
        QFETCH(QString, typed);
        QAction* addBody = nullptr;
        for (QAction* a : m_window->findChildren<QAction*>())
            if (a->text() == QLatin1String("Add &body"))
                addBody = a;
        auto* edit = m_window->findChild<nbody::app::EditPresenter*>();
        QVERIFY(addBody && edit);
        addBody->trigger();
        auto* field = m_window->findChild<QWidget*>(QStringLiteral("addBodyMass"));
        QVERIFY(field);
        QTRY_VERIFY(field->isVisible());

        // Typed with real keys and Enter: refused, and the mass a new body gets is the one before.
        const double before = edit->bodyMass();
        const QString beforeText = field->property("text").toString();
        field->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(field->hasFocus());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(QApplication::focusWidget(), typed);
        QCOMPARE(field->property("text").toString(), typed); // every key typed
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
        QTest::qWait(50);
        QCOMPARE(edit->bodyMass(), before);
        QCOMPARE(field->property("text").toString(), beforeText); // the mass in use shown again
        QVERIFY(field->property("nbodyRefused").toBool());

        // The allowed values: [0, largest], with the largest from the parameters in use.
        auto* mass = qobject_cast<QDoubleSpinBox*>(field);
        QVERIFY(mass);
        auto* G = m_window->findChild<QDoubleSpinBox*>(QStringLiteral("gravitationalConstant"));
        auto* eps2 = m_window->findChild<QDoubleSpinBox*>(QStringLiteral("eps2"));
        QVERIFY(G && eps2);
        QCOMPARE(G->value(), 1.0);
        QCOMPARE(float(eps2->value()), 0.002f);
        nbody::SimParams p;
        p.G = G->value();
        p.eps2 = float(eps2->value());
        const double largest = nbody::largestBodyMass(p, nbody::Precision::Fp32);
        QVERIFY2(std::abs(largest / (3.4028235e38 * std::pow(double(0.002f), 1.5)) - 1) < 1e-6, qPrintable(QString::number(largest)));
        QCOMPARE(mass->maximum(), largest);
        QCOMPARE(mass->minimum(), 0.0);
        const QString tip = field->toolTip();
        QVERIFY2(tip.contains(QStringLiteral("[0, %1]").arg(QString::number(largest, 'g', 6))), qPrintable(tip));
        QVERIFY2(tip.contains(QLatin1String("Nothing was applied")), qPrintable(tip));
        QVERIFY(redFrame(field));
        // Escape leaves the value in use, and the refusal goes.
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
        QTRY_COMPARE(field->property("text").toString(), beforeText);
        QTRY_VERIFY(!field->property("nbodyRefused").toBool());
        QCOMPARE(edit->bodyMass(), before);
    }

    void addBodyMassInRangeIsTaken()
    {
        auto* mass = m_window->findChild<QDoubleSpinBox*>(QStringLiteral("addBodyMass"));
        QVERIFY(mass && mass->isVisible());
        mass->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(mass->hasFocus());
        mass->selectAll();
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("2.5e3"));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
        QCOMPARE(mass->value(), 2500.0);
        QVERIFY(!mass->property("nbodyRefused").toBool());
    }

    void fp32RangeIsCheckedWhenGIsTyped()
    {
        // A new-user trial: G = 1e40 typed into the Run dock with the cpu kernel (fp32) was taken
        // and the run turned non-finite, with a message blaming the time step. G itself is allowed
        // (an fp64 kernel holds it); the window checks the range of the kernel's precision as
        // nbody run does, whenever the system, the kernel or a parameter changes: a warning that
        // names fp32 and what to do, without taking the keyboard, and the status bar saying so.
        m_window.reset();
        openWindow(QStringLiteral("cpu"));
        if (QTest::currentTestFailed())
            return;
        auto* range = m_window->findChild<QLabel*>(QStringLiteral("precisionRangeLabel"));
        QVERIFY(range);
        QVERIFY(!range->isVisible()); // the cube fits fp32 with G = 1

        auto* box = m_window->findChild<QAbstractSpinBox*>(QStringLiteral("gravitationalConstant"));
        QVERIFY(box);
        box->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(box->hasFocus());
        box->selectAll();
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("1e40"));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
        QVERIFY(!box->property("nbodyRefused").toBool()); // allowed: the precision is the kernel's

        QTRY_VERIFY_WITH_TIMEOUT(range->isVisible(), kWaitMs);
        QVERIFY2(range->text().contains(QLatin1String("fp32")), qPrintable(range->text()));
        const QString tip = range->toolTip();
        QVERIFY2(tip.contains(QLatin1String("G = 1e+40 is outside the range of fp32")) &&
                     tip.contains(QLatin1String("kernel 'cpu' computes in fp32")) &&
                     tip.contains(QLatin1String("use an fp64 kernel (reference")),
                 qPrintable(tip));
        QVERIFY2(m_window->statusBar()->currentMessage().startsWith(QLatin1String("fp32 range: G = 1e+40")),
                 qPrintable(m_window->statusBar()->currentMessage()));
        QMessageBox* warning = nullptr;
        for (QMessageBox* b : m_window->findChildren<QMessageBox*>())
            if (b->isVisible())
                warning = b;
        QVERIFY(warning);
        QVERIFY2(warning->text().contains(QLatin1String("fp32 range: G = 1e+40")), qPrintable(warning->text()));
        // Non-modal, and the keys stay with the window (as the energy warning's).
        QVERIFY(!warning->isModal());
        QTest::qWait(100);
        QCOMPARE(QApplication::activeWindow(), m_window.get());
        QVERIFY(QApplication::focusWidget() && QApplication::focusWidget()->window() == m_window.get());

        // A step turns the state non-finite: the message says that the fp32 range is the cause.
        QAction* step = nullptr;
        for (QAction* a : m_window->findChildren<QAction*>())
            if (a->shortcut() == QKeySequence(Qt::Key_N))
                step = a;
        QVERIFY(step);
        step->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(warning->text().contains(QLatin1String("no longer finite")), kWaitMs);
        QVERIFY2(warning->text().contains(QLatin1String("the fp32 range was exceeded, not a time-step problem")) &&
                     !warning->text().contains(QLatin1String("time step is too large")),
                 qPrintable(warning->text()));
        warning->close();
    }

    void cleanupTestCase() { m_window.reset(); }
};

int main(int argc, char** argv)
{
    return nbody::test::guiTestMain<TestFieldRanges>(argc, argv);
}

#include "tst_field_ranges.moc"
