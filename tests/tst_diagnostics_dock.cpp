// The Diagnostics dock fed by a real SimulationController (driven on this thread through the frame
// protocol with host positions): the charts hold one point per evaluation, the interval control
// reaches the simulation, Export CSV writes the recorded series, and an unwritable target shows a
// warning and leaves no file; a re-based E₀ (a change of G or ε², an edit) is marked in each time
// chart and follows rescaling and thinning. Needs a display (xvfb-run); label gui.
#include "DiagnosticsDock.h"
#include "SimulationController.h"

#include <QtTest>

#include <QDir>
#include <QChart>
#include <QChartView>
#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QLineSeries>
#include <QLabel>
#include <QMap>
#include <QSet>
#include <QTextDocument>
#include <QValueAxis>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>

using namespace nbody;
using namespace nbody::app;

namespace {

/// 41 samples (t = 0 … 4) of a steady system whose |P| wobbles about p0 by `amplitude`
/// (p0 + amplitude sin(0.3 i)): the momentum chart's axis then needs an offset and a multiplier.
QList<Diagnostics> wobblingMomentum(double p0, double amplitude)
{
    QList<Diagnostics> samples;
    for (int i = 0; i <= 40; ++i) {
        Diagnostics d;
        d.step = std::uint64_t(10 * i);
        d.time = 0.1 * i;
        d.kinetic = 0.25;
        d.potential = -0.5;
        d.total = -0.25;
        d.energyChange = 1e-6 * std::sin(0.2 * i);
        d.momentum = {p0 + amplitude * std::sin(0.3 * i), 0, 0};
        d.angularMomentum = {0, 0, 0.5 + 1e-3 * i};
        d.virialRatio = 1.0;
        samples << d;
    }
    return samples;
}

} // namespace

class TestDiagnosticsDock : public QObject {
    Q_OBJECT

    /// One frame with `steps` Step presses (every press is one step).
    void frame(SimulationController& c, int steps = 0)
    {
        for (int i = 0; i < steps; ++i)
            c.stepOnce();
        FrameRequest r;
        r.capacity = 1u << 20; // no GL buffers: the controller sends host positions
        c.advance(r);
    }

    void connectDock(SimulationController& c, DiagnosticsDock& dock)
    {
        c.setFrameBudget(0); // every requested step in its frame, however slow the machine
        connect(&c, &SimulationController::diagnosticsMeasured, &dock, &DiagnosticsDock::appendDiagnostics);
        connect(&c, &SimulationController::diagnosticsRestarted, &dock, &DiagnosticsDock::restart);
        connect(&c, &SimulationController::paramsChanged, &dock, &DiagnosticsDock::setParams);
        connect(&dock, &DiagnosticsDock::intervalEdited, &c, &SimulationController::setDiagnosticsInterval);
    }

    /// An axis title (rich text) as its text item reads.
    static QString plain(const QString& html)
    {
        QTextDocument d;
        d.setHtml(html);
        return d.toPlainText();
    }

    /// Every visible text item of the dock's charts (axis labels and titles, legends), as drawn.
    static QStringList drawnTexts(DiagnosticsDock& dock)
    {
        QStringList drawn;
        for (QChartView* view : dock.findChildren<QChartView*>())
            for (QGraphicsItem* item : view->scene()->items())
                if (auto* text = dynamic_cast<QGraphicsTextItem*>(item); text && text->isVisible())
                    drawn << text->toPlainText();
        return drawn;
    }

    static QString quantity(const QString& series)
    {
        return series == "total"              ? QStringLiteral("energy")
               : series == "energy change"    ? QStringLiteral("ΔE/E₀")
               : series == "momentum"         ? QStringLiteral("|P|")
               : series == "angular momentum" ? QStringLiteral("Δ|L|/|L₀|")
                                              : QStringLiteral("2K/|W|");
    }

    static QStringList entries(const QString& dir)
    {
        return QDir(dir).entryList(QDir::NoDotAndDotDot | QDir::AllEntries);
    }

private slots:
    void chartsFollowTheSimulation()
    {
        SimulationController c;
        DiagnosticsDock dock;
        connectDock(c, dock);
        dock.show();
        StartupConfig cfg;
        cfg.bodies = 301;
        cfg.diagnosticsInterval = 3;
        c.initialize(cfg);
        frame(c); // start-up
        QCOMPARE(dock.interval(), 3);
        frame(c, 10); // evaluations at steps 0 (E0), 3, 6, 9
        const QStringList names = {"kinetic", "potential", "total", "energy change", "momentum",
                                   "angular momentum", "virial ratio"};
        for (const QString& name : names) {
            QVERIFY2(dock.series(name), qPrintable(name));
            QCOMPARE(dock.series(name)->count(), 4);
        }
        frame(c, 5); // 12, 15
        QCOMPARE(dock.recorder().size(), std::size_t(6));
        for (const QString& name : names)
            QCOMPARE(dock.series(name)->count(), 6);
        // The points are the recorded values against simulated time (dt = 0.1 by default).
        const auto& samples = dock.recorder().samples();
        for (int i = 0; i < 6; ++i) {
            const Diagnostics& d = samples[std::size_t(i)];
            QCOMPARE(d.step, std::uint64_t(3 * i));
            // (the series hold the values through their axes' scales: dataPoint undoes them)
            QCOMPARE(dock.dataPoint("total", i), QPointF(d.time, d.total));
            QCOMPARE(dock.dataPoint("energy change", i).y() + 1.0, d.energyChange + 1.0);
            QCOMPARE(dock.dataPoint("virial ratio", i).y(), 2 * d.kinetic / std::abs(d.potential));
            // The cube starts at rest (|L₀| = 0): |L| itself (a system that turns: Δ|L|/|L₀|,
            // angularMomentumTitleWhole).
            const auto normOf = [](const Double3& L) { return std::sqrt(L.x * L.x + L.y * L.y + L.z * L.z); };
            QCOMPARE(normOf(samples.front().angularMomentum), 0.0);
            QCOMPARE(dock.series("angular momentum")->name(), QStringLiteral("|L|"));
            QCOMPARE(dock.dataPoint("angular momentum", i).y(), normOf(d.angularMomentum));
        }
        QCOMPARE(samples.front().energyChange, 0.0);

        // The interval control reaches the simulation: every 2 steps from now on.
        dock.findChild<QSpinBox*>()->setValue(2);
        frame(c, 4); // steps 16..19: evaluations at 16 and 18
        QCOMPARE(dock.recorder().samples().back().step, std::uint64_t(18));
        QCOMPARE(dock.series("kinetic")->count(), 8);
        // "off": no more evaluations.
        dock.findChild<QSpinBox*>()->setValue(0);
        frame(c, 4);
        QCOMPARE(dock.series("kinetic")->count(), 8);

        // Reset: a new run, the series start again (with the new E0).
        c.setDiagnosticsInterval(5);
        c.reset();
        frame(c, 6);
        QCOMPARE(dock.recorder().size(), std::size_t(2)); // steps 0 and 5
        QCOMPARE(dock.series("total")->count(), 2);
        QCOMPARE(dock.recorder().samples().front().step, std::uint64_t(0));
    }

    void exportWritesTheSeries()
    {
        SimulationController c;
        DiagnosticsDock dock;
        connectDock(c, dock);
        StartupConfig cfg;
        cfg.bodies = 100;
        cfg.diagnosticsInterval = 1;
        c.initialize(cfg);
        frame(c);
        frame(c, 4); // steps 0..4
        QTemporaryDir dir;
        const QString path = dir.filePath("diagnostics.csv");
        QVERIFY(dock.exportCsv(path));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QCOMPARE(text, QByteArray::fromStdString(dock.recorder().csv()));
        const QList<QByteArray> lines = text.trimmed().split('\n');
        QCOMPARE(lines.size(), 6); // header and 5 rows
        QVERIFY(lines[0].startsWith("time,step,kinetic,potential,total,energy_change,"));
        QVERIFY(lines[5].split(',')[1] == "4");
        QVERIFY(dock.findChildren<QMessageBox*>().isEmpty());
    }

    void exportNeedsSamples()
    {
        // Export CSV with no samples wrote a file of the header alone: the button is disabled
        // (its tooltip says why) until the first sample, and again after Clear; asked anyway, the
        // dock writes nothing and says so.
        DiagnosticsDock dock;
        auto* button = dock.findChild<QPushButton*>(QStringLiteral("exportCsv"));
        QVERIFY(button);
        QVERIFY(!button->isEnabled());
        QVERIFY2(button->toolTip().contains(QLatin1String("no samples")), qPrintable(button->toolTip()));
        QTemporaryDir dir;
        const QString path = dir.filePath("diagnostics.csv");
        QVERIFY(!dock.exportCsv(path));
        QVERIFY(!QFile::exists(path));
        QMessageBox* box = dock.findChild<QMessageBox*>();
        QVERIFY(box);
        QVERIFY2(box->text().contains(QLatin1String("no diagnostics")), qPrintable(box->text()));
        box->close();
        QTRY_VERIFY(dock.findChildren<QMessageBox*>().isEmpty());

        Diagnostics d;
        d.total = -1;
        dock.appendDiagnostics({d});
        QVERIFY(button->isEnabled());
        QVERIFY(dock.exportCsv(path));
        QVERIFY(QFile::exists(path));
        dock.restart(); // Clear, or a new system
        QVERIFY(!button->isEnabled());
    }

    void unwritableTargetShowsAnErrorAndLeavesNoFile()
    {
        DiagnosticsDock dock;
        Diagnostics d;
        d.total = -1;
        dock.appendDiagnostics({d, d});
        QTemporaryDir dir;
        for (const QString& target : {dir.filePath("missing/diagnostics.csv"), dir.path()}) {
            QVERIFY(!dock.exportCsv(target));
            QMessageBox* box = dock.findChild<QMessageBox*>();
            QVERIFY(box);
            QVERIFY(box->isVisible());
            QVERIFY2(box->text().contains(target), qPrintable(box->text()));
            box->close(); // WA_DeleteOnClose
            QTRY_VERIFY(dock.findChildren<QMessageBox*>().isEmpty());
            QCOMPARE(entries(dir.path()), QStringList{}); // no partial or temporary file
        }
        // /dev/full is a device: it is refused, never written.
        QVERIFY(!dock.exportCsv(QStringLiteral("/dev/full")));
        QVERIFY(dock.findChild<QMessageBox*>()->text().contains("/dev/full"));
    }

    void axesShowTheRealRange_data()
    {
        QTest::addColumn<int>("width"); // the dock's width: the default window's, a laptop's
        QTest::newRow("default window (1280)") << 1280;
        QTest::newRow("1366 x 768 screen") << 1366;
    }

    void axesShowTheRealRange()
    {
        // The |P| axis read 0…1 for values of 3e-21…1e-19 (Qt Charts treats a
        // range that small as empty) and tick labels were elided ("6.16…"). Each axis now shows
        // its range through a shared exponent or an offset named in its title, with short labels.
        QFETCH(int, width);
        DiagnosticsDock dock;
        QList<Diagnostics> samples;
        for (int i = 0; i <= 40; ++i) {
            Diagnostics d;
            d.step = std::uint64_t(10 * i);
            d.time = 250.0 * i;                                   // days: up to 1e4 (×10⁴)
            d.kinetic = 48.5 + 0.01 * std::sin(i);
            d.potential = -145.6 - 0.01 * std::sin(i);
            d.total = d.kinetic + d.potential;
            d.energyChange = 3e-8 * i - 2e-7;                     // −2e-7 … 1e-6
            d.momentum = {3e-21 + 2.4e-21 * i, 0, 0};              // 3e-21 … 9.9e-20
            d.angularMomentum = {0, 0, 38.5363 + 1e-4 * std::cos(0.3 * i)}; // nearly constant
            d.virialRatio = 1.003 + 2e-3 * std::sin(0.2 * i);
            samples << d;
        }
        dock.appendDiagnostics(samples);
        dock.resize(width, 260);
        dock.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dock));
        QTest::qWait(200); // the charts lay out their axes
        // NBODY_SCREENSHOT_DIR=DIR saves the dock as DIR/diagnostics-dock-WIDTH.png.
        if (const QString dir = qEnvironmentVariable("NBODY_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(dock.grab().save(QDir(dir).filePath(QStringLiteral("diagnostics-dock-%1.png").arg(width))));

        const auto values = [&](const QString& name) {
            QList<double> v;
            for (const Diagnostics& d : samples) {
                if (name == "momentum") v << d.momentum.x;
                else if (name == "angular momentum") // relative to the first sample's |L|
                    v << (d.angularMomentum.z - samples.front().angularMomentum.z) / samples.front().angularMomentum.z;
                else if (name == "energy change") v << d.energyChange;
                else if (name == "virial ratio") v << d.virialRatio;
                else v << d.kinetic << d.potential << d.total; // the energy chart's three
            }
            return v;
        };
        const QStringList names = {"total", "energy change", "momentum", "angular momentum", "virial ratio"};
        for (const QString& name : names) {
            const QList<double> v = values(name);
            const double lo = *std::min_element(v.begin(), v.end()), hi = *std::max_element(v.begin(), v.end());
            QValueAxis* axis = dock.axis(name);
            QVERIFY(axis);
            const AxisLayout layout = dock.axisLayout(name);
            // The axis is the layout: its range, ticks and label format.
            QCOMPARE(axis->min(), layout.min);
            QCOMPARE(axis->max(), layout.max);
            QCOMPARE(axis->tickCount(), layout.tickCount());
            QCOMPARE(axis->labelFormat(), layout.labelFormat());
            QCOMPARE(plain(axis->titleText()).simplified(), plain(layout.scale.html(quantity(name))).simplified());
            // In the quantity's units the range holds the data, and not much more (not 0…1 for 1e-19).
            const double shownLo = layout.scale.fromPlot(axis->min()), shownHi = layout.scale.fromPlot(axis->max());
            qInfo("%s: %.6g … %.6g shown as %.6g … %.6g, title '%s', labels %s", qPrintable(name), lo, hi, shownLo,
                  shownHi, qPrintable(axis->titleText()), qPrintable(layout.labels().join(' ')));
            QVERIFY2(shownLo <= lo && shownHi >= hi, qPrintable(name));
            QVERIFY2(shownHi - shownLo <= 4 * (hi - lo), qPrintable(name));
            // The points are the values: every series point maps back to its sample.
            for (int i = 0; i < dock.series(name)->count(); ++i) {
                const double expected = name == "total" ? samples[i].total : v[i];
                QVERIFY(std::abs(dock.dataPoint(name, i).y() - expected) <= 1e-9 * std::max(std::abs(expected), hi - lo));
            }
            // Labels are short, distinct numbers.
            const QStringList labels = layout.labels();
            QVERIFY2(labels.size() >= 3 && labels.size() <= 11, qPrintable(labels.join(' ')));
            QCOMPARE(QSet<QString>(labels.begin(), labels.end()).size(), labels.size());
            for (const QString& l : labels)
                QVERIFY2(l.size() <= 6, qPrintable(l));
        }
        // The exponent or the offset is in the title.
        QVERIFY2(dock.axis("momentum")->titleText().contains("×10⁻²⁰"), qPrintable(dock.axis("momentum")->titleText()));
        QVERIFY2(dock.axis("energy change")->titleText().contains("×10⁻"), qPrintable(dock.axis("energy change")->titleText()));
        // |L| ≈ 38.536 changing by 1e-4: its relative change, with an exponent (not |L| − 38.536…).
        QVERIFY2(dock.axis("angular momentum")->titleText().startsWith("Δ|L|/|L₀|") &&
                     dock.axis("angular momentum")->titleText().contains("×10⁻"),
                 qPrintable(dock.axis("angular momentum")->titleText()));
        QVERIFY2(dock.axis("total", true)->titleText().contains("×10⁴"), qPrintable(dock.axis("total", true)->titleText()));

        // What is drawn: every text item of every chart (axis labels and titles, legends), none
        // elided, and the tick labels of each axis among them.
        QStringList drawn;
        for (QChartView* view : dock.findChildren<QChartView*>())
            for (QGraphicsItem* item : view->scene()->items())
                if (auto* text = dynamic_cast<QGraphicsTextItem*>(item); text && text->isVisible())
                    drawn << text->toPlainText();
        QVERIFY(!drawn.isEmpty());
        for (const QString& t : drawn)
            QVERIFY2(!t.contains(QStringLiteral("…")) && !t.contains(QStringLiteral("...")),
                     qPrintable(QStringLiteral("elided: '%1' at width %2").arg(t).arg(width)));
        for (const QString& name : names)
            for (const QString& l : dock.axisLayout(name).labels())
                QVERIFY2(drawn.contains(l), qPrintable(QStringLiteral("%1: label '%2' not drawn").arg(name, l)));
        for (const QString& name : names)
            QVERIFY2(drawn.contains(plain(dock.axis(name)->titleText())), qPrintable(dock.axis(name)->titleText()));
    }

    void firstSampleAxesAreWhole_data()
    {
        QTest::addColumn<int>("width"); // the dock's: the window's width
        QTest::addColumn<int>("height"); // the dock's height in such a window
        QTest::newRow("1280 x 260") << 1280 << 260;
        QTest::newRow("1280 x 300") << 1280 << 300; // the window at 1280 x 768 on a laptop
        QTest::newRow("1366 x 300") << 1366 << 300; // maximised there
        QTest::newRow("1280 x 340") << 1280 << 340; // the default 1280 x 820
    }

    void firstSampleAxesAreWhole()
    {
        // A trial on a 1366 × 768 screen: with the first sample of the galaxy
        // collision (13 824 bodies, step 0) the |P| axis drew "2....", "1...." — elided labels —
        // although the same labels fit once more samples had come. One sample, as the dock is
        // shown: every text item whole, each axis's tick labels among them.
        QFETCH(int, width);
        QFETCH(int, height);
        DiagnosticsDock dock;
        dock.resize(width, height);
        dock.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dock));
        QTest::qWait(200); // the empty charts laid out (0 … 1)
        Diagnostics d;
        d.kinetic = 5.1493;
        d.potential = -9.5382;
        d.total = d.kinetic + d.potential; // −4.38892722
        d.virialRatio = 2 * d.kinetic / -d.potential; // 1.0797
        d.momentum = {0.5e-9, 1.2e-9, 0};             // |P| = 1.3e-9: labels "1.20" … "1.40"
        d.angularMomentum = {0, 0, 38.4617};
        dock.appendDiagnostics({d});
        QTest::qWait(300);
        if (const QString dir = qEnvironmentVariable("NBODY_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(dock.grab().save(QDir(dir).filePath(QStringLiteral("diagnostics-first-%1x%2.png").arg(width).arg(height))));
        const QStringList drawn = drawnTexts(dock);
        for (const QString& t : drawn)
            QVERIFY2(!t.contains(QStringLiteral("…")) && !t.contains(QStringLiteral("...")),
                     qPrintable(QStringLiteral("elided: '%1' at width %2").arg(t).arg(width)));
        for (const char* name : {"total", "energy change", "momentum", "angular momentum", "virial ratio"})
            for (const QString& l : dock.axisLayout(name).labels())
                QVERIFY2(drawn.contains(l), qPrintable(QStringLiteral("%1: label '%2' not drawn").arg(QString::fromUtf8(name), l)));
    }

    void offsetTitleIsWhole_data()
    {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::newRow("1366 x 300") << 1366 << 300; // maximised on a 1366 × 768 laptop
        QTest::newRow("1280 x 260") << 1280 << 260;
    }

    void offsetTitleIsWhole()
    {
        // A trial on a 1366 × 768 screen: a nearly constant |P| ≈ 7.2e-4 drew its axis title
        // "|P| − 0.00072…", the offset cut and the multiplier hidden. The quantity, the offset
        // and the multiplier have a line each, all drawn whole.
        QFETCH(int, width);
        QFETCH(int, height);
        DiagnosticsDock dock;
        dock.resize(width, height);
        dock.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dock));
        dock.appendDiagnostics(wobblingMomentum(7.2345678e-4, 3e-9));
        QTest::qWait(300);
        if (const QString dir = qEnvironmentVariable("NBODY_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(dock.grab().save(QDir(dir).filePath(QStringLiteral("diagnostics-offset-%1x%2.png").arg(width).arg(height))));
        const AxisScale scale = dock.axisLayout("momentum").scale;
        QVERIFY2(scale.offset != 0 && scale.exponent != 0, qPrintable(scale.title("|P|")));
        const QString offset = scale.withOffset(QString()).trimmed(); // "− 0.000723457"
        const QStringList drawn = drawnTexts(dock);
        for (const QString& t : drawn)
            QVERIFY2(!t.contains(QStringLiteral("…")) && !t.contains(QStringLiteral("...")),
                     qPrintable(QStringLiteral("elided: '%1'").arg(t)));
        const auto title = std::find_if(drawn.begin(), drawn.end(), [](const QString& t) { return t.startsWith("|P|"); });
        QVERIFY2(title != drawn.end(), qPrintable(drawn.join(" | ")));
        const QStringList lines = title->split(QChar::LineSeparator).join('\n').split('\n');
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0].trimmed(), QStringLiteral("|P|"));
        QCOMPARE(lines[1].trimmed(), offset);
        QVERIFY2(lines[2].trimmed().startsWith("×10⁻"), qPrintable(*title));
    }

    void titleLinesWholeInAShortDock_data()
    {
        QTest::addColumn<double>("momentum"); // |P|, nearly constant: an offset in the title
        QTest::addColumn<double>("wobble");   // its relative change
        QTest::addColumn<int>("height");      // the dock's
        // 120 px: the dock as short as its row of controls (the charts scroll at their minimum).
        QTest::newRow("7.2e-4, 120 px") << 7.2345678e-4 << 4e-6 << 120;
        QTest::newRow("7.2e-4, 260 px") << 7.2345678e-4 << 4e-6 << 260;
        // An offset of 12 significant digits ("− 0.123456789012", ×10⁻¹⁴): 16 characters.
        QTest::newRow("0.1234567890123, 120 px") << 0.1234567890123 << 1e-12 << 120;
        QTest::newRow("38.536123456789, 120 px") << 38.536123456789 << 1e-12 << 120;
    }

    void titleLinesWholeInAShortDock()
    {
        // A trial on a 1366 × 768 screen with the Diagnostics dock made short: the Momentum
        // chart's title drew "|P| − 0.00072…", the offset and the multiplier cut. Each line of a
        // vertical axis title (the quantity; the offset; the multiplier) is drawn whole in the
        // length of its axis, at any height the dock can be given: the charts keep the height
        // their titles need and scroll.
        QFETCH(double, momentum);
        QFETCH(double, wobble);
        QFETCH(int, height);
        DiagnosticsDock dock;
        dock.resize(1366, height);
        dock.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dock));
        dock.appendDiagnostics(wobblingMomentum(momentum, momentum * wobble));
        QTest::qWait(300);
        if (const QString dir = qEnvironmentVariable("NBODY_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(dock.grab().save(QDir(dir).filePath(QStringLiteral("diagnostics-short-%1.png").arg(QTest::currentDataTag()))));
        const AxisScale scale = dock.axisLayout("momentum").scale;
        QVERIFY2(scale.offset != 0 && scale.exponent != 0, qPrintable(scale.title("|P|")));
        QValueAxis* axis = dock.axis("momentum");
        QChart* chart = nullptr;
        for (QChartView* view : dock.findChildren<QChartView*>())
            if (view->chart()->axes().contains(axis))
                chart = view->chart();
        QVERIFY(chart);
        const double room = chart->plotArea().height(); // a vertical title's length
        const QFontMetricsF metrics(axis->titleFont());
        const QStringList lines = plain(axis->titleText()).split('\n');
        QCOMPARE(lines.size(), 3);
        for (const QString& line : lines)
            QVERIFY2(metrics.horizontalAdvance(line) <= room,
                     qPrintable(QStringLiteral("'%1' is %2 px long, the axis %3 px").arg(line).arg(metrics.horizontalAdvance(line)).arg(room)));
        // As drawn: nothing elided, the title's lines whole.
        const QStringList drawn = drawnTexts(dock);
        for (const QString& t : drawn)
            QVERIFY2(!t.contains(QStringLiteral("…")) && !t.contains(QStringLiteral("...")),
                     qPrintable(QStringLiteral("elided: '%1'").arg(t)));
        const auto title = std::find_if(drawn.begin(), drawn.end(), [](const QString& t) { return t.startsWith("|P|"); });
        QVERIFY2(title != drawn.end(), qPrintable(drawn.join(" | ")));
        QCOMPARE(title->split(QChar::LineSeparator).join('\n').split('\n'), lines);
    }

    void oneCharacterLabelsKeepTheTitle()
    {
        // A trial on a 1366 × 768 screen: the Solar System's |P| (0.2 … 2.6 ×10⁻¹⁹
        // over a year) drew ticks "0" … "3" and its title cut to "|P|...", hiding the exponent:
        // Qt Charts keeps room for "..." beside a title, more than a one-character label takes.
        // Such labels get a decimal; every text is drawn whole.
        DiagnosticsDock dock;
        dock.resize(1366, 290);
        dock.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dock));
        QList<Diagnostics> samples;
        for (int i = 0; i <= 36; ++i) {
            Diagnostics d;
            d.step = std::uint64_t(10 * i);
            d.time = 10.0 * i;
            d.kinetic = 3.43e-8 - 1e-10 * i / 36.0;
            d.potential = -6.66e-8 + 1e-10 * i / 36.0;
            d.total = d.kinetic + d.potential;
            d.energyChange = 3.6e-10 * std::pow(std::sin(0.35 * i), 2);
            d.momentum = {0.2e-19 + 2.4e-19 * std::abs(std::sin(0.1 * i)), 0, 0};
            d.angularMomentum = {0, 0, 38.5363 + 1e-4 * std::cos(0.3 * i)};
            d.virialRatio = 1.041 - 0.012 * i / 36.0;
            samples << d;
        }
        dock.appendDiagnostics(samples);
        QTest::qWait(300);
        if (const QString dir = qEnvironmentVariable("NBODY_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(dock.grab().save(QDir(dir).filePath(QStringLiteral("diagnostics-solar.png"))));
        const AxisLayout p = dock.axisLayout("momentum");
        QCOMPARE(p.scale.exponent, -19);
        for (const QString& l : p.labels())
            QVERIFY2(l.size() >= 2, qPrintable(p.labels().join(' ')));
        const QStringList drawn = drawnTexts(dock);
        for (const QString& t : drawn)
            QVERIFY2(!t.contains(QStringLiteral("…")) && !t.contains(QStringLiteral("...")),
                     qPrintable(QStringLiteral("elided: '%1'").arg(t)));
        QVERIFY2(std::any_of(drawn.begin(), drawn.end(),
                             [](const QString& t) { return t.startsWith("|P|") && t.contains("×10⁻¹⁹"); }),
                 qPrintable(drawn.join(" | "))); // the title, whole
        // Horizontal axes and one-line titles keep their integers.
        QCOMPARE(layoutVerticalAxis(0, 12.3).labels(), QStringList({"0", "5", "10", "15"}));
        QCOMPARE(layoutAxis(0.2e-19, 2.6e-19, 4).labels(), QStringList({"0", "2", "4"}));
        QCOMPARE(layoutVerticalAxis(0.2e-19, 2.6e-19, 4).labels(), QStringList({"0.0", "2.0", "4.0"}));
    }

    void angularMomentumTitleWhole()
    {
        // A trial on a 1366 × 768 screen: the Solar System's |L| (0.607766…, constant
        // to about 1e-13 over a year) drew its title as "|L| − 6.07766…", cut: an offset needs 12
        // significant digits. |L| is drawn as its relative change Δ|L|/|L₀| (0 at the first
        // sample, here ±1e-13), whose title is short and whole; the values are exact to rounding.
        DiagnosticsDock dock;
        dock.resize(1366, 290);
        dock.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dock));
        QList<Diagnostics> samples;
        const double l0 = 0.6077661234567;
        for (int i = 0; i <= 36; ++i) {
            Diagnostics d;
            d.step = std::uint64_t(10 * i);
            d.time = 10.0 * i;
            d.kinetic = 3.43e-8;
            d.potential = -6.66e-8;
            d.total = d.kinetic + d.potential;
            d.momentum = {1e-19, 0, 0};
            d.angularMomentum = {0, 0, l0 * (1 + 1e-13 * std::sin(0.4 * i))};
            d.virialRatio = 1.03;
            samples << d;
        }
        dock.appendDiagnostics(samples);
        QTest::qWait(300);
        const QString title = dock.axis("angular momentum")->titleText();
        QVERIFY2(title.startsWith("Δ|L|/|L₀|") && title.contains("×10⁻¹"), qPrintable(title)); // ×10⁻¹⁴ here
        for (int i = 0; i < dock.series("angular momentum")->count(); ++i) {
            const double want = (samples[i].angularMomentum.z - l0) / l0;
            // 1 + both: the change is a difference of two doubles near l0, exact to ~2 u / 1e-13.
            QVERIFY2(std::abs(dock.dataPoint("angular momentum", i).y() - want) <= 1e-15,
                     qPrintable(QString::number(dock.dataPoint("angular momentum", i).y() - want)));
        }
        const QStringList drawn = drawnTexts(dock);
        for (const QString& t : drawn)
            QVERIFY2(!t.contains(QStringLiteral("…")) && !t.contains(QStringLiteral("...")),
                     qPrintable(QStringLiteral("elided: '%1'").arg(t)));
        // A system at rest (|L₀| = 0) keeps |L| itself.
        dock.restart();
        Diagnostics rest;
        dock.appendDiagnostics({rest});
        QCOMPARE(dock.series("angular momentum")->name(), QStringLiteral("|L|"));
    }

    void axisLayoutRules()
    {
        // A shared exponent outside [0.01, 1e4), an offset for a nearly constant series, plain
        // numbers otherwise; ticks at 1, 2, 5 × 10^k.
        AxisLayout a = layoutAxis(3e-21, 1e-19);
        QCOMPARE(a.scale.exponent, -19);
        QCOMPARE(a.scale.offset, 0.0);
        QVERIFY(a.min <= 0.03 && a.max >= 1.0);
        QCOMPARE(a.labels(), QStringList({"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}));
        a = layoutAxis(0, 12.3);
        QCOMPARE(a.scale.exponent, 0);
        QCOMPARE(a.labels(), QStringList({"0", "5", "10", "15"}));
        a = layoutAxis(38.53621, 38.53639);
        QCOMPARE(a.scale.offset, 38.536);
        QCOMPARE(a.scale.exponent, -5);
        QCOMPARE(a.scale.title("|L|"), QStringLiteral("|L| − 38.536 (×10⁻⁵)"));
        QCOMPARE(a.labels().front(), QStringLiteral("20"));
        a = layoutAxis(-0.2501, -0.2499);
        QCOMPARE(a.scale.title("E"), QStringLiteral("E + 0.25 (×10⁻⁵)"));
        a = layoutAxis(5, 5); // a constant: ±5 %
        QVERIFY(a.min <= 4.75 && a.max >= 5.25);
        a = layoutAxis(0, 0);
        QVERIFY(a.min <= -1 && a.max >= 1);
        a = layoutAxis(0, 3.65e5);
        QCOMPARE(a.scale.exponent, 5);
        QCOMPARE(a.labels(), QStringList({"0", "1", "2", "3", "4"}));
    }

    void longSeriesAreThinned()
    {
        DiagnosticsDock dock;
        QList<Diagnostics> batch;
        for (int i = 0; i <= DiagnosticsDock::kMaxChartPoints; ++i) { // one more than fits
            Diagnostics d;
            d.step = std::uint64_t(i);
            d.time = i;
            d.kinetic = i;
            batch << d;
        }
        dock.appendDiagnostics(batch);
        // Every sample is kept for the export; the charts show every second one.
        QCOMPARE(dock.recorder().size(), std::size_t(DiagnosticsDock::kMaxChartPoints + 1));
        QLineSeries* k = dock.series("kinetic");
        QCOMPARE(k->count(), DiagnosticsDock::kMaxChartPoints / 2 + 1);
        QCOMPARE(k->at(1), QPointF(2, 2));
        QCOMPARE(k->at(k->count() - 1).x(), double(DiagnosticsDock::kMaxChartPoints));
        // Further samples follow the stride: 4001 → index 4001 is odd (skipped), 4002 drawn.
        Diagnostics more;
        more.time = more.kinetic = DiagnosticsDock::kMaxChartPoints + 1;
        dock.appendDiagnostics({more});
        QCOMPARE(k->count(), DiagnosticsDock::kMaxChartPoints / 2 + 1);
        more.time = more.kinetic = DiagnosticsDock::kMaxChartPoints + 2;
        dock.appendDiagnostics({more});
        QCOMPARE(k->count(), DiagnosticsDock::kMaxChartPoints / 2 + 2);
    }

    /// The controller says when and why E₀ is taken again: a change of ε² or G (named with both
    /// values), an added or removed body and an undo; not dt (the energy does not depend on
    /// it), and nothing before the first sample. A reset clears the markers.
    void controllerMarksEachRebase()
    {
        SimulationController c;
        DiagnosticsDock dock;
        connectDock(c, dock);
        connect(&c, &SimulationController::energyReferenceRebased, &dock, &DiagnosticsDock::markRebase);
        StartupConfig cfg;
        cfg.bodies = 301;
        cfg.diagnosticsInterval = 1;
        c.initialize(cfg);
        frame(c); // start-up
        c.setEps2(0.004); // no sample yet: nothing to mark
        frame(c, 2);      // t = 0.2 (dt = 0.1)
        QVERIFY(dock.markers().isEmpty());
        const auto names = [&dock] {
            QStringList n;
            for (const DiagnosticsDock::Marker& m : dock.markers())
                n << QStringLiteral("%1@%2").arg(m.name).arg(m.time, 0, 'g', 6);
            return n;
        };
        c.setDt(0.05); // dt alone keeps E₀
        frame(c, 1);   // t = 0.25
        QVERIFY(dock.markers().isEmpty());
        c.setEps2(0.001);
        frame(c, 1); // t = 0.3
        c.setGravitationalConstant(2);
        frame(c, 1); // t = 0.35
        c.addBodyAt(0, 0, 0, 0, 0, 0, 1.0, 0.0);
        frame(c, 1); // t = 0.4
        c.undoLastEdit();
        frame(c, 1);
        QCOMPARE(names(), (QStringList{QStringLiteral("ε² 0.004 → 0.001@0.25"), QStringLiteral("G 1 → 2@0.3"),
                                       QStringLiteral("body added@0.35"), QStringLiteral("body removed@0.4")}));
        c.reset();
        frame(c);
        QVERIFY(dock.markers().isEmpty());
    }

    /// The latest line counts its samples in words: "1 sample", then "2 samples".
    void latestLineCountsSamples()
    {
        DiagnosticsDock dock;
        auto* latest = dock.findChild<QLabel*>("latestSample");
        QVERIFY(latest);
        Diagnostics d;
        d.kinetic = 1;
        d.potential = -2;
        d.total = -1;
        d.virialRatio = 1;
        dock.appendDiagnostics({d});
        QVERIFY2(latest->text().startsWith(QStringLiteral("1 sample · step 0 · ")), qPrintable(latest->text()));
        d.step = 10;
        dock.appendDiagnostics({d});
        QVERIFY2(latest->text().startsWith(QStringLiteral("2 samples · step 10 · ")), qPrintable(latest->text()));
    }

    /// A re-based E₀ (markRebase) is a vertical line in each time chart at its time, through the
    /// time axis' scale: still there when the axes rescale (times to 1e-3, then to 40) and the
    /// series thin (stride 2); the latest line says so; a restart removes them.
    void rebaseMarkersFollowRescalingAndThinning()
    {
        DiagnosticsDock dock;
        dock.resize(1200, 320);
        dock.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dock));
        const QStringList timeCharts = {"total", "energy change", "momentum", "virial ratio"};
        QMap<QString, int> seriesBefore;
        for (const QString& s : timeCharts)
            seriesBefore[s] = int(dock.series(s)->chart()->series().size());
        const auto sample = [](int i) {
            Diagnostics d;
            d.step = std::uint64_t(i);
            d.time = i <= 100 ? 1e-5 * i : 0.01 * i; // to 1e-3, then to 40
            d.kinetic = 1 + 0.001 * i;
            d.potential = -2;
            d.total = d.kinetic + d.potential;
            d.energyChange = 1e-6 * i;
            d.virialRatio = d.kinetic;
            return d;
        };
        QList<Diagnostics> first;
        for (int i = 0; i < 101; ++i)
            first << sample(i);
        dock.appendDiagnostics(first);
        dock.markRebase(5e-4, QStringLiteral("G 1 → 2"));
        const AxisScale timeScale = dock.axisLayout("total", true).scale;
        const auto lineTimes = [&](const QString& s) {
            QList<double> t;
            const AxisLayout x = dock.axisLayout(s, true);
            for (QLineSeries* line : dock.markerLines(s)) {
                if (line->count() != 2 || line->at(0).x() != line->at(1).x())
                    return QList<double>{-1};
                t << x.scale.fromPlot(line->at(0).x());
            }
            return t;
        };
        for (const QString& s : timeCharts) {
            QCOMPARE(dock.markerLines(s).size(), 1);
            QCOMPARE(dock.markerLabels(s).size(), 1);
            QCOMPARE(lineTimes(s).size(), 1);
            QVERIFY2(std::abs(lineTimes(s).front() - 5e-4) < 1e-15, qPrintable(s));
            QCOMPARE(dock.markerLines(s).front()->at(1).y(), dock.axis(s)->max());
        }
        auto* latest = dock.findChild<QLabel*>("latestSample");
        QVERIFY(latest);
        QVERIFY2(latest->text().endsWith(QStringLiteral("E₀ re-based at t = 0.0005 (G 1 → 2)")), qPrintable(latest->text()));

        // Up to t = 40: another scale on the time axis, and more samples than a chart draws.
        QList<Diagnostics> more;
        for (int i = 101; i <= 4000; ++i)
            more << sample(i);
        dock.appendDiagnostics(more);
        QVERIFY(dock.series("total")->count() < 4000); // thinned
        QVERIFY(!(dock.axisLayout("total", true).scale == timeScale)); // rescaled
        for (const QString& s : timeCharts) {
            QCOMPARE(lineTimes(s).size(), 1);
            QVERIFY2(std::abs(lineTimes(s).front() - 5e-4) < 1e-15,
                     qPrintable(QStringLiteral("%1: %2").arg(s).arg(lineTimes(s).front())));
            QCOMPARE(dock.markerLines(s).front()->at(0).y(), dock.axis(s)->min());
            QCOMPARE(dock.markerLines(s).front()->at(1).y(), dock.axis(s)->max());
        }

        // A restart (a new system, Clear): no markers, the charts hold their own series only.
        dock.restart();
        QVERIFY(dock.markers().isEmpty());
        for (const QString& s : timeCharts) {
            QVERIFY(dock.markerLines(s).isEmpty());
            QVERIFY(dock.markerLabels(s).isEmpty());
            QCOMPARE(int(dock.series(s)->chart()->series().size()), seriesBefore[s]);
        }
        QVERIFY(!latest->text().contains(QStringLiteral("re-based")));
    }
};

QTEST_MAIN(TestDiagnosticsDock)
#include "tst_diagnostics_dock.moc"
