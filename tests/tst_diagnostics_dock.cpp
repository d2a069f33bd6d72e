// The Diagnostics dock fed by a real SimulationController (driven on this thread through the frame
// protocol with host positions): the charts hold one point per evaluation, the interval control
// reaches the simulation, Export CSV writes the recorded series, and an unwritable target shows a
// warning and leaves no file. Needs a display (xvfb-run); label gui.
#include "DiagnosticsDock.h"
#include "SimulationController.h"

#include <QtTest>

#include <QDir>
#include <QLineSeries>
#include <QMessageBox>
#include <QSpinBox>
#include <QTemporaryDir>

#include <cmath>

using namespace nbody;
using namespace nbody::app;

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
            QCOMPARE(dock.series("total")->at(i), QPointF(d.time, d.total));
            QCOMPARE(dock.series("energy change")->at(i).y(), d.energyChange);
            QCOMPARE(dock.series("virial ratio")->at(i).y(), 2 * d.kinetic / std::abs(d.potential));
            const Double3& L = d.angularMomentum;
            QCOMPARE(dock.series("angular momentum")->at(i).y(), std::sqrt(L.x * L.x + L.y * L.y + L.z * L.z));
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
};

QTEST_MAIN(TestDiagnosticsDock)
#include "tst_diagnostics_dock.moc"
