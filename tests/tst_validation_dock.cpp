// The Validation dock and the report dialog with the real validation engine (sim/validate/Validation.h) on
// CPU kernels: a run from the dock (cpu, the fp64 reference and a test-only faulty kernel that
// drops the last partial tile of j) ends with a report whose rows the dialog shows with their
// badges and values; the faulty kernel fails with its step-0 force error, checked against the
// missing pull computed here; Cancel ends a long run without a report and the dock is idle again;
// Export JSON writes a file that parses, and a target whose parent is a regular file shows why
// and changes nothing; an unavailable kernel is refused in red; in a real MainWindow the dock
// validates a copy of the running system (SimulationController::requestValidationSystem) and
// View → Validation report opens the dialog; closing the window mid-run returns promptly.
// With NBODY_SCREENSHOT_DIR set it saves validation-report.png and validation-dock.png there
// (the pictures in docs/images). Needs a display (xvfb-run); label gui.
#include "AppSetup.h"
#include "GuiTestMain.h"
#include "MainWindow.h"
#include "ValidationDock.h"
#include "ValidationReportDialog.h"

#include "CoincidentCurves.h"
#include "DroppedTileKernel.h"
#include "sim/core/KernelRegistry.h"
#include "sim/io/Scenarios.h"
#include "sim/validate/Validation.h"

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QGuiApplication>
#include <QScreen>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QScrollBar>
#include <QScrollArea>
#include <QLegend>
#include <QLegendMarker>
#include <QValueAxis>
#include <QLineSeries>
#include <QListWidget>
#include <QMessageBox>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <memory>

using namespace nbody;
using namespace nbody::app;

namespace {

constexpr int kWaitMs = 120'000; // a few hundred bodies for 20 steps take milliseconds; the machine may be busy
constexpr std::size_t kTile = 32;

/// The classic bug of tiled N-body code (DroppedTileKernel.h), with tiles of 32 bodies.
const KernelInfo kFaulty = testkernels::droppedTileRow<kTile>("dropped-tile", "CPU, last partial tile of j dropped (test)");

QString verdict(const KernelValidation& k)
{
    const std::string_view v = toString(k.verdict);
    return QString::fromLatin1(v.data(), qsizetype(v.size()));
}

bool haveDisplay()
{
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    return !env.value(QStringLiteral("DISPLAY")).isEmpty() || !env.value(QStringLiteral("WAYLAND_DISPLAY")).isEmpty();
}

/// Starts the dock's run by clicking Start, as a user would.
void clickStart(ValidationDock& dock)
{
    QTest::mouseClick(dock.findChild<QPushButton*>(QStringLiteral("validationStart")), Qt::LeftButton);
}

bool dockIsIdle(ValidationDock& dock)
{
    auto* button = dock.findChild<QPushButton*>(QStringLiteral("validationStart"));
    return !dock.running() && button->isEnabled() && button->text().remove(QLatin1Char('&')) == QStringLiteral("Start validation") &&
           dock.findChild<QListWidget*>(QStringLiteral("validationKernels"))->isEnabled();
}

void saveScreenshot(QWidget* w, const QString& name)
{
    const QString dir = qEnvironmentVariable("NBODY_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return;
    QDir().mkpath(dir);
    QVERIFY(w->grab().save(QDir(dir).filePath(name)));
    qInfo("saved %s", qPrintable(QDir(dir).filePath(name)));
}

} // namespace

class TestValidationDock : public QObject {
    Q_OBJECT

    std::shared_ptr<const ValidationReport> m_report; ///< of runFromTheDock, for the export tests

private slots:
    void initTestCase()
    {
        if (!haveDisplay())
            QSKIP("needs a display: run under xvfb-run -a");
    }

    void runFromTheDock()
    {
        ValidationDock dock;
        dock.addKernelRow(&kFaulty);
        dock.resize(360, 640);
        dock.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dock));
        // The registry's rows are listed, greyed out where they cannot run here.
        auto* list = dock.findChild<QListWidget*>(QStringLiteral("validationKernels"));
        QCOMPARE(list->count(), int(kernelRegistry().size()) + 1);
        for (int i = 0; i < int(kernelRegistry().size()); ++i) {
            const Availability av = availability(kernelRegistry()[std::size_t(i)]);
            QCOMPARE(bool(list->item(i)->flags() & Qt::ItemIsEnabled), av.available);
            if (!av.available)
                QVERIFY(list->item(i)->toolTip().contains(QString::fromStdString(av.reason)));
        }
        // "All available" checks every runnable row but the reference (which matches itself).
        QTest::mouseClick(dock.findChild<QPushButton*>(QStringLiteral("validationAll")), Qt::LeftButton);
        QVERIFY(dock.checkedKernels().contains(QStringLiteral("cpu")));
        QVERIFY(!dock.checkedKernels().contains(QStringLiteral("reference")));
        QTest::mouseClick(dock.findChild<QPushButton*>(QStringLiteral("validationNone")), Qt::LeftButton);
        QCOMPARE(dock.checkedKernels(), QStringList{});

        dock.setCheckedKernels({QStringLiteral("cpu"), QStringLiteral("reference"), QStringLiteral("dropped-tile")});
        dock.setSystemChoice(ValidationDock::SystemChoice::Default);
        dock.setDefaultBodies(257); // a Plummer sphere: 8 whole tiles of 32 and one body left over
        dock.setSteps(200);
        dock.setCheckpoints(40);
        QSignalSpy ready(&dock, &ValidationDock::reportReady);
        QSignalSpy ended(&dock, &ValidationDock::runEnded);
        clickStart(dock);
        QVERIFY(dock.running());
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, kWaitMs);
        QCOMPARE(ended.count(), 0);
        QVERIFY(dockIsIdle(dock));
        const std::shared_ptr<const ValidationReport> report = dock.report();
        QVERIFY(report);
        m_report = report;
        QCOMPARE(report->bodies, std::size_t(257));
        QCOMPARE(report->steps, std::uint64_t(200));
        QCOMPARE(report->kernels.size(), std::size_t(3));
        const KernelValidation &cpu = report->kernels[0], &ref = report->kernels[1], &bad = report->kernels[2];
        QCOMPARE(QString::fromStdString(cpu.id), QStringLiteral("cpu"));
        QCOMPARE(QString::fromStdString(bad.id), QStringLiteral("dropped-tile"));
        QCOMPARE(verdict(cpu), QStringLiteral("pass"));
        QCOMPARE(verdict(ref), QStringLiteral("pass"));
        QCOMPARE(verdict(bad), QStringLiteral("fail"));
        QVERIFY(!bad.reasons.empty());
        // The faulty kernel's step-0 error is the dropped pull (the fp32 rounding of the rest is
        // ~1e-6 relative, far below the pull of one body of 257, ≳1e-2 here): agree to 1e-3.
        const BuiltScenario plummer = buildScenario(scenarioSpec("plummer", std::size_t(257)));
        QVERIFY2(report->system.find("Plummer") != std::string::npos, report->system.c_str());
        QCOMPARE(report->params.dt, plummer.params.dt);
        const double expected = testkernels::droppedTileError(plummer.bodies.world.positions(), kTile, plummer.params.eps2, plummer.params.G).max;
        qInfo("dropped-tile step-0 force error: report %.6e, computed here %.6e", bad.force0.max, expected);
        QVERIFY(expected > 1e-3);
        QVERIFY2(std::abs(bad.force0.max - expected) <= 1e-3 * expected,
                 qPrintable(QStringLiteral("%1 vs %2").arg(bad.force0.max).arg(expected)));
        QVERIFY(bad.force0.max > report->thresholds.forceFp32);
        QVERIFY(cpu.force0.max < report->thresholds.forceFp32);

        // The result line and the report dialog.
        auto* result = dock.findChild<QLabel*>(QStringLiteral("validationResult"));
        QVERIFY2(result->text().contains(QStringLiteral("2 of 3 kernels pass")), qPrintable(result->text()));
        QVERIFY(dock.reportAction()->isEnabled());
        dock.showReport();
        ValidationReportDialog* dialog = dock.reportDialog();
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QTableWidget* table = dialog->summaryTable();
        QCOMPARE(table->rowCount(), 3);
        const QStringList badges = {QStringLiteral("PASS"), QStringLiteral("PASS"), QStringLiteral("FAIL")};
        for (int row = 0; row < 3; ++row) {
            const KernelValidation& k = report->kernels[std::size_t(row)];
            QCOMPARE(table->item(row, 0)->text(), QString::fromStdString(k.id));
            QCOMPARE(table->item(row, 9)->text(), badges[row]);
            QCOMPARE(table->item(row, 2)->text(), QString::number(k.force0.max, 'e', 2));
            QCOMPARE(table->item(row, 3)->text(), QString::number(k.force0.p99, 'e', 2));
            QCOMPARE(table->item(row, 5)->text(), QString::number(k.position.relative.max, 'e', 2));
            QCOMPARE(table->item(row, 8)->text(), QString::number(k.energyChange, 'e', 2));
        }
        QCOMPARE(table->item(2, 9)->background().color(), QColor(0xc6, 0x28, 0x28));
        QCOMPARE(table->item(0, 9)->background().color(), QColor(0x2e, 0x7d, 0x32));
        // The failure reason is shown; the field table has three rows per kernel.
        auto* reasons = dialog->findChild<QLabel*>(QStringLiteral("reportReasons"));
        QVERIFY(reasons->isVisible());
        QVERIFY2(reasons->text().contains(QString::fromStdString(bad.reasons.front()).toHtmlEscaped()),
                 qPrintable(reasons->text()));
        QCOMPARE(dialog->fieldTable()->rowCount(), 9);
        QCOMPARE(dialog->fieldTable()->item(0, 5)->text(), QString::number(cpu.position.relative.max, 'e', 2));
        QCOMPARE(dialog->findChild<QLabel*>(QStringLiteral("reportVerdict"))->text(),
                 QStringLiteral("2 of 3 kernels pass, 1 fails"));
        // One growth curve per kernel; the energy chart adds the reference's.
        QCOMPARE(dialog->growthChart()->series().size(), 3);
        QCOMPARE(dialog->energyChart()->series().size(), 4);
        // The curves are the report's: cpu's max position error at the checkpoints (a 0, as the
        // reference's against itself, is left off the log axis), and the reference's energy
        // change, drawn last.
        auto* cpuGrowth = qobject_cast<QLineSeries*>(dialog->growthChart()->series().at(0));
        QVERIFY(cpuGrowth);
        const auto positive = std::count_if(cpu.growth.begin(), cpu.growth.end(),
                                            [](const GrowthPoint& g) { return g.maxPositionError > 0; });
        QVERIFY(positive >= qsizetype(cpu.growth.size()) - 1);
        QCOMPARE(cpuGrowth->count(), int(positive));
        QCOMPARE(qobject_cast<QLineSeries*>(dialog->growthChart()->series().at(1))->count(), 0);
        QCOMPARE(cpuGrowth->at(cpuGrowth->count() - 1),
                 QPointF(200, cpu.growth.back().maxPositionError));
        auto* refEnergy = qobject_cast<QLineSeries*>(dialog->energyChart()->series().at(0)); // drawn first, beneath
        QCOMPARE(refEnergy->count(), int(report->referenceGrowth.size()));
        QCOMPARE(dialog->energyAxisLayout().scale.fromPlot(refEnergy->at(refEnergy->count() - 1).y()) + 1.0,
                 report->referenceGrowth.back().referenceEnergyChange + 1.0);
        saveScreenshot(dialog, QStringLiteral("validation-report.png"));
        auto* tabs = dialog->findChild<QTabWidget*>(QStringLiteral("reportTabs"));
        for (int t = 1; t < tabs->count(); ++t) { // the other tabs, for a look (not in docs/images)
            tabs->setCurrentIndex(t);
            saveScreenshot(dialog, QStringLiteral("validation-report-tab%1.png").arg(t));
        }
        tabs->setCurrentIndex(0);
        saveScreenshot(&dock, QStringLiteral("validation-dock.png"));
    }

    void reportFitsALaptopScreen()
    {
        // A trial on a 1366 × 768 screen: the report opened 760 px tall, and with the title bar
        // its Close and Export buttons were below the bottom edge. Placed on such a screen it is
        // whole: its frame (a title bar of 28 px or more) inside the screen, every button inside
        // the dialog, nothing squeezed below its minimum (what does not fit above the buttons
        // scrolls), the summary and the charts still there to read.
        QVERIFY(m_report);
        ValidationReportDialog dialog;
        dialog.setReport(m_report);
        const QRect laptop(0, 0, 1366, 768);
        dialog.placeWithin(laptop);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        // Its frame inside the screen; without a window manager (no frame yet) with room for a
        // title bar.
        const QRect frame = dialog.frameGeometry();
        const int titleBar = frame.height() > dialog.height() ? 0 : 28;
        QVERIFY2(laptop.contains(frame) && frame.height() + titleBar <= laptop.height(),
                 qPrintable(QStringLiteral("%1 x %2 at (%3, %4)").arg(dialog.width()).arg(dialog.height()).arg(dialog.x()).arg(dialog.y())));
        QVERIFY2(dialog.minimumSizeHint().height() <= dialog.height(), qPrintable(QString::number(dialog.minimumSizeHint().height())));
        const QList<QPushButton*> buttons = dialog.findChild<QDialogButtonBox*>()->findChildren<QPushButton*>();
        QCOMPARE(buttons.size(), 3); // Close, Export JSON…, Export HTML…
        for (QPushButton* b : buttons) {
            QVERIFY(b->isVisible());
            const QRect r(b->mapTo(&dialog, QPoint(0, 0)), b->size());
            QVERIFY2(dialog.rect().contains(r), qPrintable(b->text()));
        }
        for (const char* name : {"reportVerdict", "reportSummary", "reportTabs"}) {
            auto* w = dialog.findChild<QWidget*>(QString::fromLatin1(name));
            QVERIFY2(w && w->isVisible() && w->height() >= w->minimumSizeHint().height(), name);
        }
        // On a 1366 × 768 screen (xvfb-run -s "-screen 0 1366x768x24", a window manager) the
        // whole screen, the dialog where it opens by itself.
        if (const QString dir = qEnvironmentVariable("NBODY_SCREENSHOT_DIR"); !dir.isEmpty()) {
            ValidationReportDialog own;
            own.setReport(m_report);
            own.show();
            QVERIFY(QTest::qWaitForWindowExposed(&own));
            QTest::qWait(500);
            QDir().mkpath(dir);
            QVERIFY(QGuiApplication::primaryScreen()->grabWindow(0).save(QDir(dir).filePath(QStringLiteral("validation-report-768.png"))));
        }
    }

    void energyChartShowsCoincidentCurves()
    {
        // "reference" and "reference (fp64 OpenMP)" were both in the legend, and the
        // reference run was drawn over the `reference` kernel's equal curve. Now: the reference run
        // first (wide, light), every kernel on top, one on another's curve dashed with markers,
        // each curve named once; the ~1e-14 changes of an fp64 run on a readable axis.
        ValidationReportDialog dialog;
        const auto report = std::make_shared<const ValidationReport>(test::coincidentCurvesReport());
        dialog.setReport(report);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        const QList<QAbstractSeries*> all = dialog.energyChart()->series();
        QCOMPARE(all.size(), 4);
        QStringList legend;
        for (QLegendMarker* m : dialog.energyChart()->legend()->markers())
            if (m->isVisible())
                legend << m->label();
        QCOMPARE(legend, QStringList({"reference run (fp64 OpenMP) = reference", "cpu", "cpu-copy (= cpu)"}));
        auto* reference = qobject_cast<QLineSeries*>(all[0]);
        auto* kernelReference = qobject_cast<QLineSeries*>(all[2]);
        auto* copy = qobject_cast<QLineSeries*>(all[3]);
        QVERIFY(reference->pen().widthF() > 2 * kernelReference->pen().widthF()); // beneath, wider
        for (QLineSeries* overlaid : {kernelReference, copy}) {
            QVERIFY(overlaid->isVisible());
            QVERIFY(overlaid->pointsVisible());
            QVERIFY(overlaid->pen().style() != Qt::SolidLine);
        }
        QVERIFY(kernelReference->pen().style() != copy->pen().style() || kernelReference->color() != copy->color());
        QCOMPARE(kernelReference->points(), reference->points());
        QVERIFY(qobject_cast<QLineSeries*>(all[1])->pen().style() == Qt::SolidLine);
        // The axis holds the data (1e-14 … -3e-14) through its scale, with short labels.
        const AxisLayout& y = dialog.energyAxisLayout();
        QCOMPARE(y.scale.exponent, -14);
        QVERIFY(y.scale.fromPlot(y.min) <= -3e-14 && y.scale.fromPlot(y.max) >= 1e-14);
        auto* axis = qobject_cast<QValueAxis*>(dialog.energyChart()->axes(Qt::Vertical).front());
        QCOMPARE(axis->min(), y.min);
        QCOMPARE(axis->max(), y.max);
        QVERIFY2(axis->titleText().contains(QStringLiteral("×10⁻¹⁴")), qPrintable(axis->titleText()));
        QCOMPARE(y.scale.fromPlot(copy->at(copy->count() - 1).y()), report->kernels[2].energyChange);
        saveScreenshot(&dialog, QStringLiteral("validation-report-coincident.png"));
    }

    void exportJsonAndRefusedTarget()
    {
        QVERIFY(m_report);
        ValidationReportDialog dialog;
        dialog.setReport(m_report);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("report.json"));
        QVERIFY(dialog.exportTo(path));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QVERIFY(doc.isObject());
        // The documented fields (docs/validation.md) hold the report's values.
        const QJsonObject root = doc.object();
        QCOMPARE(root.value("schema").toString(), QStringLiteral("nbody-validation/1"));
        QCOMPARE(root.value("bodies").toInteger(), qint64(257));
        const QJsonArray kernels = root.value("kernels").toArray();
        QCOMPARE(kernels.size(), qsizetype(m_report->kernels.size()));
        for (qsizetype i = 0; i < kernels.size(); ++i) {
            const KernelValidation& k = m_report->kernels[std::size_t(i)];
            const QJsonObject o = kernels[i].toObject();
            QCOMPARE(o.value("id").toString(), QString::fromStdString(k.id));
            QCOMPARE(o.value("verdict").toString(), verdict(k));
            QCOMPARE(o.value("force0").toObject().value("max").toDouble(), k.force0.max);
        }
        QVERIFY(dialog.findChildren<QMessageBox*>().isEmpty());

        // The HTML page: one file holding the table of the same kernels.
        const QString html = dir.filePath(QStringLiteral("report.html"));
        QVERIFY(dialog.exportTo(html));
        QFile h(html);
        QVERIFY(h.open(QIODevice::ReadOnly));
        const QByteArray page = h.readAll();
        QVERIFY(page.startsWith("<!DOCTYPE html>"));
        QVERIFY(page.contains("dropped-tile") && page.contains("FAIL") && page.contains("PASS"));
        QVERIFY(QFile::remove(html));

        // A target whose parent is a regular file: refused with the reason; the file is untouched.
        QFile blocker(dir.filePath(QStringLiteral("file")));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.write("keep me");
        blocker.close();
        const QString bad = dir.filePath(QStringLiteral("file/report.json"));
        QVERIFY(!dialog.exportTo(bad));
        QMessageBox* box = dialog.findChild<QMessageBox*>();
        QVERIFY(box);
        QVERIFY(box->isVisible());
        QVERIFY2(box->text().contains(bad), qPrintable(box->text()));
        QVERIFY(box->text().contains(QStringLiteral("kept")));
        box->close(); // WA_DeleteOnClose
        QTRY_VERIFY(dialog.findChildren<QMessageBox*>().isEmpty());
        QVERIFY(blocker.open(QIODevice::ReadOnly));
        QCOMPARE(blocker.readAll(), QByteArray("keep me"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
                 (QStringList{QStringLiteral("file"), QStringLiteral("report.json")}));
        // The earlier export is still there and whole.
        QFile again(path);
        QVERIFY(again.open(QIODevice::ReadOnly));
        QVERIFY(QJsonDocument::fromJson(again.readAll()).isObject());
        // An extension that is neither JSON nor HTML is refused the same way.
        QVERIFY(!dialog.exportTo(dir.filePath(QStringLiteral("report.txt"))));
        QVERIFY(dialog.findChild<QMessageBox*>());
    }

    void warningsAreShown()
    {
        // Two bodies on a circular orbit (m = 0.5 each, separation 1, speed 0.5, period 2π) with
        // dt = 1.5, about four steps per orbit: the reference's own energy changes by far more
        // than 1 %, which the report warns about (Validation.h) and the dialog shows.
        World w;
        w.addBody(Float4{-0.5f, 0.f, 0.f, 0.5f}, Float4{0.f, -0.5f, 0.f, 0.f}, Group::Generic);
        w.addBody(Float4{0.5f, 0.f, 0.f, 0.5f}, Float4{0.f, 0.5f, 0.f, 0.f}, Group::Generic);
        ValidationConfig config;
        config.kernels = {findKernel("cpu")};
        config.steps = 20;
        config.checkpoints = 20;
        config.params.dt = 1.5f;
        config.params.eps2 = 1e-4f;
        config.system = "two bodies, dt far too large";
        auto report = std::make_shared<const ValidationReport>(validate(w, std::nullopt, config));
        qInfo("reference dE/E0 = %.3e", report->referenceEnergyChange);
        QVERIFY(std::abs(report->referenceEnergyChange) > 0.01);
        QVERIFY(!report->warnings.empty());
        ValidationReportDialog dialog;
        dialog.setReport(report);
        dialog.show();
        auto* warnings = dialog.findChild<QLabel*>(QStringLiteral("reportWarnings"));
        QVERIFY(warnings->isVisible());
        QVERIFY2(warnings->text().contains(QString::fromStdString(report->warnings.front())),
                 qPrintable(warnings->text()));
        // A report without warnings hides the line.
        QVERIFY(m_report && m_report->warnings.empty());
        dialog.setReport(m_report);
        QVERIFY(!warnings->isVisible());
    }

    void cancelEndsWithoutReport()
    {
        ValidationDock dock;
        dock.show();
        dock.setCheckedKernels({QStringLiteral("cpu")});
        dock.setSystemChoice(ValidationDock::SystemChoice::Default);
        dock.setDefaultBodies(1001);
        // A million steps, a checkpoint after each: far longer than the test, cancellable every step.
        dock.setSteps(1'000'000);
        dock.setCheckpoints(1'000'000);
        // 1e6 steps of 1001 bodies: ~1e12 interactions per CPU run, hours here, so the dock asks
        // first; say yes.
        double asked = 0;
        dock.setLongRunConfirmation([&](std::size_t, double seconds) {
            asked = seconds;
            return true;
        });
        QSignalSpy ready(&dock, &ValidationDock::reportReady);
        QSignalSpy ended(&dock, &ValidationDock::runEnded);
        clickStart(dock);
        QVERIFY2(asked > 600, qPrintable(QString::number(asked)));
        QVERIFY(dock.running());
        auto* status = dock.findChild<QLabel*>(QStringLiteral("validationStatus"));
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QStringLiteral("step")), kWaitMs); // progress came
        clickStart(dock); // the same button is Cancel now
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kWaitMs);
        QCOMPARE(ended.front().at(0).toBool(), true); // cancelled
        QCOMPARE(ready.count(), 0);
        QVERIFY(!dock.report());
        QVERIFY(dockIsIdle(dock));
        QVERIFY(!dock.reportAction()->isEnabled());
        QVERIFY2(status->text().startsWith(QStringLiteral("Cancelled")), qPrintable(status->text()));
    }

    /// A run predicted to take over ten minutes is not started when the user says no.
    void longRunNeedsConfirmation()
    {
        ValidationDock dock;
        dock.show();
        dock.setCheckedKernels({QStringLiteral("cpu")});
        dock.setSystemChoice(ValidationDock::SystemChoice::Default);
        dock.setDefaultBodies(200'001);
        dock.setSteps(1000);
        std::size_t askedBodies = 0;
        double asked = 0;
        dock.setLongRunConfirmation([&](std::size_t n, double seconds) {
            askedBodies = n;
            asked = seconds;
            return false;
        });
        QSignalSpy ended(&dock, &ValidationDock::runEnded);
        clickStart(dock);
        QCOMPARE(askedBodies, std::size_t(200'001));
        // 4e10 interactions per step, 1001 evaluations, two CPU runs: far beyond ten minutes.
        QVERIFY2(asked > 600, qPrintable(QString::number(asked)));
        QCOMPARE(ended.count(), 1);
        QVERIFY(!dock.running());
        QVERIFY(dockIsIdle(dock));
        QVERIFY(!dock.report());
        QCOMPARE(dock.findChild<QLabel*>(QStringLiteral("validationStatus"))->text(), QStringLiteral("Not started."));
    }

    void unavailableKernelIsShownInRed()
    {
        const KernelInfo* unavailable = nullptr;
        for (const KernelInfo& k : kernelRegistry())
            if (!availability(k).available)
                unavailable = &k;
        if (!unavailable)
            QSKIP("every kernel can run here");
        ValidationDock dock;
        dock.show();
        dock.setCheckedKernels({QString::fromUtf8(unavailable->id.data(), qsizetype(unavailable->id.size()))});
        dock.setSystemChoice(ValidationDock::SystemChoice::Default);
        dock.setDefaultBodies(100);
        dock.setSteps(5);
        QSignalSpy ended(&dock, &ValidationDock::runEnded);
        clickStart(dock);
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, kWaitMs);
        QCOMPARE(ended.front().at(0).toBool(), false);
        const QString message = ended.front().at(1).toString();
        QVERIFY2(message.contains(QString::fromStdString(availability(*unavailable).reason)), qPrintable(message));
        auto* result = dock.findChild<QLabel*>(QStringLiteral("validationResult"));
        QVERIFY(result->styleSheet().contains(QStringLiteral("#d32f2f")));
        QVERIFY(result->text().contains(message.toHtmlEscaped()));
        QVERIFY(dockIsIdle(dock));
        // Nothing checked: refused before any run.
        dock.setCheckedKernels({});
        clickStart(dock);
        QVERIFY(!dock.running());
        QVERIFY(result->text().contains(QStringLiteral("Check at least one kernel")));
    }

    /// The result line, whole inside the dock's visible area (its scroll area's viewport).
    static bool resultInSight(ValidationDock* dock)
    {
        auto* area = qobject_cast<QScrollArea*>(dock->widget());
        auto* result = dock->findChild<QLabel*>(QStringLiteral("validationResult"));
        if (!area || !result || !result->isVisible())
            return false;
        const QRect r(result->mapTo(area->viewport(), QPoint(0, 0)), result->size());
        return area->viewport()->rect().contains(r);
    }

    void resultInSightAfterARun()
    {
        // At 1366 × 768 the result line was below the fold of the bottom dock after a run: the
        // dock puts it at the top of a column of its own there, and scrolls to it in the
        // right-hand column.
        StartupConfig config;
        config.kernelId = QStringLiteral("cpu");
        config.bodies = 301;
        auto w = std::make_unique<MainWindow>(config, Automation{});
        w->setWindowState(Qt::WindowNoState);
        w->resize(1366, 768);
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        auto* dock = w->findChild<ValidationDock*>();
        QVERIFY(dock);
        QTRY_COMPARE_WITH_TIMEOUT(dock->checkedKernels(), QStringList{QStringLiteral("cpu")}, kWaitMs);
        QCOMPARE(w->dockWidgetArea(dock), Qt::BottomDockWidgetArea);
        dock->raise();
        QTRY_VERIFY(dock->isVisible());
        dock->setSteps(10);
        dock->setCheckpoints(5);
        QSignalSpy ready(dock, &ValidationDock::reportReady);
        clickStart(*dock);
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, kWaitMs);
        QTest::qWait(50);
        saveScreenshot(w.get(), QStringLiteral("app-validation-result-1366.png"));
        QVERIFY(resultInSight(dock));
        QCOMPARE(qobject_cast<QScrollArea*>(dock->widget())->verticalScrollBar()->value(), 0); // no scrolling needed

        // In the right-hand column, below the kernels and the settings: scrolled to.
        w->addDockWidget(Qt::RightDockWidgetArea, dock);
        dock->raise();
        QTRY_VERIFY(dock->isVisible());
        QTest::qWait(50);
        clickStart(*dock);
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 2, kWaitMs);
        QTRY_VERIFY(resultInSight(dock));
        w->close();
    }

    void validatesTheRunningSystem()
    {
        StartupConfig config;
        config.kernelId = QStringLiteral("cpu");
        config.bodies = 301;
        auto w = std::make_unique<MainWindow>(config, Automation{});
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        auto* dock = w->findChild<ValidationDock*>();
        QVERIFY(dock);
        auto* system = dock->findChild<QComboBox*>(QStringLiteral("validationSystem"));
        QTRY_VERIFY_WITH_TIMEOUT(system->currentText().contains(QStringLiteral("301")), kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(dock->checkedKernels(), QStringList{QStringLiteral("cpu")}, kWaitMs);
        // The dock is a tab of the right-hand column; at the default size nothing is squeezed.
        dock->raise();
        QTRY_VERIFY(dock->isVisible());
        QCOMPARE(w->size(), QSize(1280, 820));
        QVERIFY(dock->widget()->height() >= dock->widget()->minimumSizeHint().height());
        saveScreenshot(w.get(), QStringLiteral("app-validation-dock.png"));
        auto* reportAction = w->findChild<QAction*>(QStringLiteral("validationReportAction"));
        QVERIFY(reportAction);
        QVERIFY(!reportAction->isEnabled());
        dock->setSteps(10);
        dock->setCheckpoints(5);
        QSignalSpy ready(dock, &ValidationDock::reportReady);
        clickStart(*dock);
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, kWaitMs);
        const auto report = dock->report();
        QCOMPARE(report->bodies, std::size_t(301));
        QCOMPARE(report->kernels.size(), std::size_t(1));
        QCOMPARE(verdict(report->kernels[0]), QStringLiteral("pass"));
        QVERIFY2(QString::fromStdString(report->system).contains(QStringLiteral("uniform cube")),
                 report->system.c_str());
        QVERIFY(reportAction->isEnabled());
        reportAction->trigger();
        QTRY_VERIFY(dock->reportDialog()->isVisible());
        QCOMPARE(dock->reportDialog()->summaryTable()->rowCount(), 1);

        // Closing the window mid-run cancels and joins the validation thread (no hang, no crash).
        dock->setLongRunConfirmation([](std::size_t, double) { return true; }); // hours: it would ask
        dock->setSteps(1'000'000);
        dock->setCheckpoints(1'000'000);
        clickStart(*dock);
        QTRY_VERIFY_WITH_TIMEOUT(dock->running() &&
                                     dock->findChild<QLabel*>(QStringLiteral("validationStatus"))
                                         ->text()
                                         .contains(QStringLiteral("step")),
                                 kWaitMs);
        w->close();
        w.reset();
    }
};

int main(int argc, char** argv)
{
    // The MainWindow needs desktop OpenGL, which Qt's offscreen platform lacks here (as tst_gui).
    if (qgetenv("QT_QPA_PLATFORM") == "offscreen")
        qunsetenv("QT_QPA_PLATFORM");
    if (!haveDisplay())
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // Its MainWindow's autosave and session marker in a folder of the test's own.
    const std::unique_ptr<QTemporaryDir> home = nbody::test::useTemporarySettingsHome();
    if (!home)
        return 1;
    nbody::app::setDefaultSurfaceFormat();
    nbody::app::setApplicationNames();
    QApplication app(argc, argv);
    nbody::app::registerMetaTypes();
    TestValidationDock test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_validation_dock.moc"
