// The app checks a run's energy as `nbody run` does, over the whole run (DiagnosticsPresenter.h),
// on a real MainWindow: the cluster collision (501 bodies, collisions on, the CPU kernel) at a
// time step four times its default (dt typed into the Run dock: 0.01, the default it had) changes its energy by
// more than nbody::kEnergyTolerance (merges counted in) during the cores' passage, and a
// non-modal warning says so, with what to do (a smaller dt, a larger ε²); the Diagnostics dock
// shows it above the charts; Reset takes it away. At the scenario's own dt the same system
// runs through the passage without a warning.
// NBODY_SCREENSHOT_DIR=DIR saves the screen with the warning as DIR/energy-warning.png.
// Needs a display with desktop OpenGL (run under xvfb-run); skips without one.
#include "AppSetup.h"
#include "DiagnosticsDock.h"
#include "GuiTestMain.h"
#include "MainWindow.h"
#include "RunDock.h"
#include "Viewport.h"

#include "sim/core/Diagnostics.h"
#include "sim/io/Scenarios.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QGuiApplication>
#include <QLabel>
#include <QMessageBox>
#include <QScreen>
#include <QSpinBox>
#include <QTest>

#include <cmath>
#include <memory>

using nbody::app::DiagnosticsDock;
using nbody::app::MainWindow;
using nbody::app::RunDock;
using nbody::app::Viewport;

namespace {

constexpr int kWaitMs = 30'000;

QAction* findAction(QWidget* w, const QString& text)
{
    for (QAction* a : w->findChildren<QAction*>())
        if (a->text().remove(QLatin1Char('&')) == text)
            return a;
    return nullptr;
}

/// The window's visible warning box titled `title`, or nullptr.
QMessageBox* warningBox(QWidget* window, const QString& title)
{
    for (QMessageBox* b : window->findChildren<QMessageBox*>())
        if (b->isVisible() && b->windowTitle() == title)
            return b;
    return nullptr;
}

} // namespace

class TestEnergyCheck : public QObject {
    Q_OBJECT

    std::unique_ptr<MainWindow> m_window;
    Viewport* m_viewport = nullptr;
    DiagnosticsDock* m_diagnostics = nullptr;
    double m_defaultDt = 0;

    /// Types `text` into the Run dock's dt and presses Enter, as a user does; waits until the
    /// simulation runs with it.
    void typeDt(const QString& text)
    {
        auto* dock = m_window->findChild<RunDock*>();
        dock->raise();
        auto* dt = dock->findChild<QDoubleSpinBox*>(QStringLiteral("dt"));
        QVERIFY(dt);
        dt->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(dt->hasFocus());
        dt->selectAll();
        QTest::keyClicks(QApplication::focusWidget(), text);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(std::abs(dt->value() - text.toDouble()) <= 1e-6 * text.toDouble(), kWaitMs);
    }

    /// Runs `steps` steps from the system's start (Reset, then Start), until they are done.
    /// Reset restores the system's own parameters: with `reset` false the caller has reset
    /// already and changed a parameter since, which Start keeps.
    void runFromStart(int steps, bool reset = true)
    {
        QAction* resetAction = findAction(m_window.get(), QStringLiteral("Reset"));
        QAction* start = findAction(m_window.get(), QStringLiteral("Start"));
        QVERIFY(resetAction && start);
        auto* stepsToRun = m_window->findChild<QSpinBox*>(QStringLiteral("stepsToRun"));
        QVERIFY(stepsToRun);
        stepsToRun->setValue(steps); // through the dock's signal to the controller
        if (reset) {
            resetAction->trigger();
            QTRY_VERIFY_WITH_TIMEOUT(m_diagnostics->recorder().size() <= 1, kWaitMs);
        }
        start->trigger();
    }

private slots:
    void initTestCase()
    {
        if (!nbody::test::haveDisplay())
            QSKIP("needs a display with OpenGL: run under xvfb-run -a");
        const nbody::ScenarioInfo* scenario = nbody::findScenario("cluster-collision");
        QVERIFY(scenario);
        m_defaultDt = double(scenario->dt);
        nbody::app::StartupConfig config;
        config.scenario = QStringLiteral("cluster-collision");
        config.kernelId = QStringLiteral("cpu");
        config.kernelGiven = true;
        config.bodies = 501;
        config.bodiesGiven = true;
        config.diagnosticsInterval = 10;
        config.stepsPerFrame = 100; // few frames: drawing on a software renderer is the slow part
        m_window = std::make_unique<MainWindow>(config, nbody::app::Automation{});
        m_window->resize(1366, 768);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        m_viewport = m_window->findChild<Viewport*>();
        m_diagnostics = m_window->findChild<DiagnosticsDock*>();
        QVERIFY(m_diagnostics);
        QTRY_VERIFY_WITH_TIMEOUT(m_viewport->isReady() && m_viewport->hasContent(), kWaitMs);
    }

    void tooLargeDtIsWarned()
    {
        // The cores pass through each other at t ≈ 4 … 12: 1200 steps of 0.01 reach t = 12.
        // Reset first: it restores the scenario's own dt, so the larger one is typed after it.
        QAction* reset = findAction(m_window.get(), QStringLiteral("Reset"));
        QVERIFY(reset);
        reset->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(m_diagnostics->recorder().size() <= 1, kWaitMs);
        typeDt(QString::number(4 * m_defaultDt, 'g', 6));
        if (QTest::currentTestFailed())
            return;
        runFromStart(1200, false);
        if (QTest::currentTestFailed())
            return;
        const QString title = QStringLiteral("Energy not conserved");
        QTRY_VERIFY_WITH_TIMEOUT(warningBox(m_window.get(), title), 120'000);
        QMessageBox* box = warningBox(m_window.get(), title);
        QVERIFY(!box->isModal());
        // It comes by itself during the run: the window keeps the keyboard, so P, Space and
        // Ctrl+R still act (they went to the box, and the run went on).
        QVERIFY(box->testAttribute(Qt::WA_ShowWithoutActivating));
        QTest::qWait(200);
        QCOMPARE(QApplication::activeWindow(), static_cast<QWidget*>(m_window.get()));
        const QString text = box->text();
        qInfo("%s", qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("not to be trusted")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("time step smaller")) && text.contains(QStringLiteral("Run dock → dt")),
                 qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("softening larger")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("tolerance %1").arg(nbody::kEnergyTolerance, 0, 'g', 3)), qPrintable(text));
        // The change it names is the largest of the run so far, above the tolerance.
        double largest = 0;
        for (const nbody::Diagnostics& d : m_diagnostics->recorder().samples())
            largest = std::max(largest, std::abs(d.energyChange));
        QVERIFY2(largest > nbody::kEnergyTolerance, qPrintable(QString::number(largest)));
        // The dock keeps it in view above the charts.
        auto* line = m_diagnostics->findChild<QLabel*>(QStringLiteral("energyWarning"));
        QVERIFY(line);
        m_diagnostics->raise();
        QTRY_VERIFY(line->isVisible());
        QVERIFY2(line->text().contains(QLatin1String("not to be trusted")), qPrintable(line->text()));
        if (const QString dir = qEnvironmentVariable("NBODY_SCREENSHOT_DIR"); !dir.isEmpty()) {
            QTest::qWait(500);
            QDir().mkpath(dir);
            QVERIFY(QGuiApplication::primaryScreen()->grabWindow(0).save(QDir(dir).filePath(QStringLiteral("energy-warning.png"))));
        }
        box->close();
        // Reset: the run starts again, and the warning goes with the old run.
        QAction* pause = findAction(m_window.get(), QStringLiteral("Pause"));
        if (pause && pause->isEnabled())
            pause->trigger();
        findAction(m_window.get(), QStringLiteral("Reset"))->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(!line->isVisible(), kWaitMs);
        QVERIFY(m_diagnostics->energyWarning().isEmpty());
    }

    void scenarioDtIsNotWarned()
    {
        // The scenario's own dt through the same passage (t = 12): no warning, and every
        // evaluation within the tolerance.
        typeDt(QString::number(m_defaultDt, 'g', 6));
        if (QTest::currentTestFailed())
            return;
        const int steps = int(std::lround(12.0 / m_defaultDt));
        runFromStart(steps);
        if (QTest::currentTestFailed())
            return;
        QTRY_VERIFY_WITH_TIMEOUT(m_diagnostics->recorder().size() > 1 &&
                                     m_diagnostics->recorder().samples().back().step >= std::uint64_t(steps),
                                 300'000);
        double largest = 0;
        for (const nbody::Diagnostics& d : m_diagnostics->recorder().samples())
            largest = std::max(largest, std::abs(d.energyChange));
        qInfo("dt = %g, %d steps: max |dE/E0| = %.3e over %zu evaluations", m_defaultDt, steps, largest,
              m_diagnostics->recorder().size());
        QVERIFY2(largest <= nbody::kEnergyTolerance, qPrintable(QString::number(largest)));
        QVERIFY(!warningBox(m_window.get(), QStringLiteral("Energy not conserved")));
        QVERIFY(m_diagnostics->energyWarning().isEmpty());
    }

    void cleanupTestCase() { m_window.reset(); }
};

int main(int argc, char** argv)
{
    return nbody::test::guiTestMain<TestEnergyCheck>(argc, argv);
}

#include "tst_energy_check.moc"
