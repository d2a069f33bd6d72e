// End-to-end test of the desktop app: nbody-sandbox runs a few steps with the CPU kernel, saves a
// screenshot of its view and exits; the screenshot must show bodies coloured green (light) to red
// (heavy) on the dark background. Also checks that bad options exit with code 2 and say why.
// Needs a display with desktop OpenGL (run under xvfb-run); skips without one.
#include <QImage>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>

namespace {

constexpr int kTimeoutMs = 240'000;

bool haveDisplay()
{
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    return !env.value(QStringLiteral("DISPLAY")).isEmpty() ||
           !env.value(QStringLiteral("WAYLAND_DISPLAY")).isEmpty();
}

struct Run {
    int exitCode = -1;
    QString stderrText;
    bool finished = false;
};

Run runApp(const QStringList& args)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // The offscreen platform has no OpenGL here; the app needs the real display.
    if (env.value(QStringLiteral("QT_QPA_PLATFORM")) == QLatin1String("offscreen"))
        env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(NBODY_APP_PATH), args);
    Run r;
    if (!p.waitForStarted(30'000))
        return r;
    r.finished = p.waitForFinished(kTimeoutMs);
    if (!r.finished) {
        p.kill();
        p.waitForFinished(5'000);
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.stderrText = QString::fromLocal8Bit(p.readAllStandardError());
    return r;
}

} // namespace

class TestGui : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (!haveDisplay())
            QSKIP("needs a display with OpenGL: run under xvfb-run -a");
    }

    void captureCpu()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString png = dir.filePath(QStringLiteral("c.png"));
        const Run run = runApp({QStringLiteral("--kernel"), QStringLiteral("cpu"),
                              QStringLiteral("--bodies"), QStringLiteral("3001"),
                              QStringLiteral("--steps"), QStringLiteral("10"),
                              QStringLiteral("--capture"), png, QStringLiteral("--quit")});
        QVERIFY2(run.finished, "nbody-sandbox did not finish in time");
        QVERIFY2(run.exitCode == 0, qPrintable(QStringLiteral("exit code %1, stderr: %2")
                                                   .arg(run.exitCode).arg(run.stderrText)));

        QImage image(png);
        QVERIFY2(!image.isNull(), "the capture is not a readable PNG");
        QVERIFY(image.width() > 0 && image.height() > 0);
        image = image.convertToFormat(QImage::Format_RGB32);

        // background = the most common colour
        std::map<QRgb, int> histogram;
        for (int y = 0; y < image.height(); y += 4)
            for (int x = 0; x < image.width(); x += 4)
                ++histogram[image.pixel(x, y)];
        const QRgb background =
            std::max_element(histogram.begin(), histogram.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; })->first;
        QVERIFY2(qRed(background) < 64 && qGreen(background) < 64 && qBlue(background) < 64,
                 "the background should be dark");

        int differing = 0, bright = 0, blueish = 0, greenish = 0, reddish = 0;
        for (int y = 0; y < image.height(); ++y) {
            for (int x = 0; x < image.width(); ++x) {
                const QRgb c = image.pixel(x, y);
                const int r = qRed(c), g = qGreen(c), b = qBlue(c);
                const int d = std::abs(r - qRed(background)) + std::abs(g - qGreen(background)) +
                              std::abs(b - qBlue(background));
                if (d > 24)
                    ++differing;
                const int m = std::max({r, g, b});
                if (m < 128)
                    continue; // faint edges blend with the background
                ++bright;
                if (double(b) >= 0.35 * double(std::max(r, g)))
                    ++blueish;
                if (g > r)
                    ++greenish;
                if (r > g)
                    ++reddish;
            }
        }
        qInfo("capture %dx%d: %d pixels differ from the background, %d bright (%d green, %d red, "
              "%d blue-ish)", image.width(), image.height(), differing, bright, greenish, reddish,
              blueish);
        QVERIFY2(differing >= 300, "too few body pixels in the capture");
        QVERIFY2(bright >= 100, "too few bright body pixels");
        QVERIFY2(blueish <= bright / 50, "body colours must run from green to red, without blue");
        QVERIFY2(greenish >= 10, "no green (light) bodies");
        QVERIFY2(reddish >= 10, "no red (heavy) bodies");
    }

    void scenarioCapture()
    {
        // The app from a scenario: the galaxy collision (disks green and light, halos red and
        // heavy) with 2001 bodies; the capture shows both colours.
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("s.png"));
        const Run run = runApp({QStringLiteral("--scenario"), QStringLiteral("galaxy-collision"),
                                QStringLiteral("--bodies"), QStringLiteral("2001"), QStringLiteral("--steps"),
                                QStringLiteral("5"), QStringLiteral("--capture"), png, QStringLiteral("--quit")});
        QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.stderrText));
        QImage image(png);
        QVERIFY(!image.isNull());
        int green = 0, red = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QRgb c = image.pixel(x, y);
                green += qGreen(c) > 128 && qRed(c) < 100;
                red += qRed(c) > 128 && qGreen(c) < 100;
            }
        qInfo("green pixels %d, red pixels %d", green, red);
        QVERIFY(green >= 20 && red >= 20);
    }

    void badOptions_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown kernel")
            << QStringList{QStringLiteral("--kernel"), QStringLiteral("nosuch"), QStringLiteral("--quit")}
            << QStringLiteral("nosuch");
        QTest::newRow("zero bodies")
            << QStringList{QStringLiteral("--bodies"), QStringLiteral("0"), QStringLiteral("--quit")}
            << QStringLiteral("--bodies");
        // A device is never replaced by a capture (as root, a rename over /dev/null would).
        QTest::newRow("capture onto a device")
            << QStringList{QStringLiteral("--steps"), QStringLiteral("1"), QStringLiteral("--capture"),
                           QStringLiteral("/dev/null"), QStringLiteral("--quit")}
            << QStringLiteral("not a regular file");
        QTest::newRow("unreadable input")
            << QStringList{QStringLiteral("--input"), QStringLiteral("/nonexistent/g.bin"), QStringLiteral("--quit")}
            << QStringLiteral("/nonexistent/g.bin");
        QTest::newRow("unknown scenario")
            << QStringList{QStringLiteral("--scenario"), QStringLiteral("blob"), QStringLiteral("--quit")}
            << QStringLiteral("unknown scenario 'blob'");
        QTest::newRow("unreadable scenario file")
            << QStringList{QStringLiteral("--scenario"), QStringLiteral("/nonexistent/s.json"), QStringLiteral("--quit")}
            << QStringLiteral("/nonexistent/s.json");
        QTest::newRow("scenario and input")
            << QStringList{QStringLiteral("--scenario"), QStringLiteral("plummer"), QStringLiteral("--input"),
                           QStringLiteral("x.bin"), QStringLiteral("--quit")}
            << QStringLiteral("give one");
    }

    void badOptions()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const Run run = runApp(args);
        QVERIFY(run.finished);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.stderrText.contains(mentions), qPrintable(run.stderrText));
        QVERIFY(!QFileInfo(QStringLiteral("/dev/null")).isFile()); // still the device
    }
};

QTEST_GUILESS_MAIN(TestGui)
#include "tst_gui.moc"
