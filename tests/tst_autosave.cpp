// The app's autosave and crash recovery (app/Autosave.h) in a real MainWindow with its
// SimulationController: an autosave is written after the interval (1 s here, through QSettings)
// and not before; every autosave is a whole snapshot, made as a temporary file renamed over the
// previous one (a reader polling the file while it is rewritten never sees a partial one, and the
// previous file, held open, keeps its inode and its bytes); the restore offer appears after a crash — a session
// marker left by a process that is gone, made by a child process of this test that takes the
// marker and dies — with the autosave's time, N and step, and not after a clean exit; Restore
// loads the saved state exactly (positions, velocities and ids bit-identical, time and step);
// Discard deletes the autosave. Needs a display with desktop OpenGL (xvfb-run); label gui.
#include "Autosave.h"
#include "GuiTestMain.h"
#include "MainWindow.h"

#include "sim/io/Snapshot.h"

#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QLockFile>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

#include <sys/stat.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <thread>
#include <unistd.h>

using namespace nbody;
using namespace nbody::app;

namespace {

constexpr int kWaitMs = 60'000; // a busy 2-core machine; the waits end as soon as the condition holds
constexpr const char* kLeaveMarker = "--leave-session-marker";

std::unique_ptr<MainWindow> openWindow(qulonglong bodies)
{
    StartupConfig config;
    config.kernelId = QStringLiteral("cpu");
    config.bodies = bodies;
    Automation automation;
    automation.useSettings = true; // the autosave's interval is a setting
    auto w = std::make_unique<MainWindow>(config, automation);
    w->show();
    return w;
}

/// A system with values that a lossy writer or reader would change: random fp32 bits of every
/// magnitude the format allows, ids out of order, time and step set.
World knownWorld()
{
    std::mt19937 rng(1234);
    std::uniform_real_distribution<float> mantissa(-1.f, 1.f);
    std::uniform_int_distribution<int> exponent(-30, 30);
    World w;
    for (int i = 0; i < 64; ++i) {
        auto v = [&] { return std::ldexp(mantissa(rng), exponent(rng)); };
        w.addBody(Float4{v(), v(), v(), std::abs(v()) + 1e-3f}, Float4{v(), v(), v(), 0.f}, Group::Generic,
                  std::uint32_t(1000 - 7 * i));
    }
    w.time = 12.375;
    w.step = 4711;
    return w;
}

void compareBitwise(const World& a, const World& b)
{
    QCOMPARE(a.size(), b.size());
    QVERIFY(std::memcmp(a.positions().data(), b.positions().data(), a.size() * sizeof(Float4)) == 0);
    for (std::size_t i = 0; i < a.size(); ++i) // w of a velocity is padding
        QVERIFY(std::memcmp(&a.velocities()[i], &b.velocities()[i], 3 * sizeof(float)) == 0);
    QVERIFY(a.ids() == b.ids());
    QCOMPARE(a.step, b.step);
    QCOMPARE(a.time, b.time);
}

ino_t inodeOf(const QString& path)
{
    struct stat st {};
    return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? st.st_ino : 0;
}

} // namespace

class TestAutosave : public QObject {
    Q_OBJECT

    QString m_dir;
    QString autosavePath() const { return QDir(m_dir).filePath(QStringLiteral("autosave.h5")); }
    QString markerPath() const { return QDir(m_dir).filePath(QStringLiteral("session.lock")); }

    /// A crashed session: a child process (this program with kLeaveMarker) takes the session
    /// marker as Autosave does and dies without releasing it.
    void leaveCrashMarker()
    {
        QProcess child;
        child.start(QCoreApplication::applicationFilePath(), {QString::fromLatin1(kLeaveMarker), markerPath()});
        QVERIFY(child.waitForFinished(kWaitMs));
        QCOMPARE(child.exitCode(), 0);
        QVERIFY(QFileInfo::exists(markerPath()));
    }

private slots:
    void initTestCase()
    {
        if (!test::haveDisplay())
            QSKIP("needs a display with desktop OpenGL (run under xvfb-run)");
        // The test's own folders (GuiTestMain.h), never the user's.
        const QString dataHome = qEnvironmentVariable("XDG_DATA_HOME");
        const QString configHome = qEnvironmentVariable("XDG_CONFIG_HOME");
        QVERIFY2(dataHome.contains(QStringLiteral("nbody-test-home-")), qPrintable(dataHome));
        m_dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        QVERIFY2(m_dir.startsWith(dataHome + QLatin1Char('/')), qPrintable(m_dir));
        QSettings settings;
        QVERIFY2(settings.fileName().startsWith(configHome + QLatin1Char('/')), qPrintable(settings.fileName()));
        settings.setValue(QLatin1String(Autosave::kIntervalKey), 1);
    }

    void init()
    {
        QFile::remove(autosavePath());
        QFile::remove(markerPath());
    }

    void cleanupTestCase()
    {
        QSettings().remove(QLatin1String(Autosave::kIntervalKey));
        // Only the test's own folder: m_dir is empty when initTestCase skipped (no display), and
        // QDir("") is the working directory (ctest's: build/tests, which this once removed).
        if (!m_dir.isEmpty() && m_dir.contains(QStringLiteral("nbody-test-home-")))
            QDir(m_dir).removeRecursively();
    }

    void writtenAfterTheInterval()
    {
        QElapsedTimer clock;
        clock.start();
        auto w = openWindow(64);
        Autosave* autosave = w->autosave();
        QVERIFY(autosave);
        QCOMPARE(autosave->directory(), m_dir);
        QVERIFY(autosave->active());
        QCOMPARE(autosave->intervalMs(), 1000);
        QVERIFY(!autosave->previous());
        QVERIFY(QFileInfo::exists(markerPath())); // the session marker, while the session runs
        QSignalSpy saved(autosave, &Autosave::saved);
        QTRY_VERIFY_WITH_TIMEOUT(saved.count() >= 1, kWaitMs);
        QVERIFY2(clock.elapsed() >= 1000, "an autosave came before the interval");
        QCOMPARE(saved.first().at(0).toString(), autosavePath());
        QCOMPARE(saved.first().at(1).toULongLong(), qulonglong(64));
        const Snapshot s = readSnapshot(autosavePath().toStdString());
        QCOMPARE(s.world.size(), std::size_t(64));
        QVERIFY(s.params); // the run's parameters travel with it
        // A clean exit removes the marker and the autosave: the next start has nothing to offer.
        w.reset();
        QVERIFY(!QFileInfo::exists(markerPath()));
        QVERIFY(!QFileInfo::exists(autosavePath()));
    }

    void atomicNeverAHalfFile()
    {
        auto w = openWindow(20'000); // about 1 MB of HDF5: each write takes a while
        Autosave* autosave = w->autosave();
        QSignalSpy saved(autosave, &Autosave::saved);
        autosave->saveNow();
        QTRY_VERIFY_WITH_TIMEOUT(saved.count() >= 1, kWaitMs);
        std::atomic<bool> stop{false};
        std::atomic<int> reads{0}, bad{0};
        std::string firstBad;
        std::thread reader;
        // Joined on every way out (a failed QTRY returns early).
        const std::unique_ptr<void, std::function<void(void*)>> joiner(&stop, [&](void*) {
            stop = true;
            if (reader.joinable())
                reader.join();
        });
        reader = std::thread([&] {
            while (!stop.load()) {
                try {
                    const Snapshot s = readSnapshot(autosavePath().toStdString());
                    if (s.world.size() != 20'000 && bad++ == 0)
                        firstBad = "wrong size";
                } catch (const std::exception& e) {
                    if (bad++ == 0)
                        firstBad = e.what();
                }
                ++reads;
            }
        });
        for (int k = 0; k < 5; ++k) { // (the 1 s timer saves too)
            // The previous autosave, held open: a new one is another file renamed over it, so the
            // open one keeps its inode and every byte (a write in place would change them).
            QFile previous(autosavePath());
            QVERIFY(previous.open(QIODevice::ReadOnly));
            const QByteArray before = previous.readAll();
            struct stat held {};
            QCOMPARE(::fstat(previous.handle(), &held), 0);
            const qsizetype count = saved.count();
            autosave->saveNow();
            QTRY_VERIFY_WITH_TIMEOUT(saved.count() > count, kWaitMs);
            // Waited for, not read at once: the signal counted above may be a timer save's that
            // renamed its file before `previous` was opened (the signal is queued across threads).
            // A write in place never changes the inode, so this still fails for one.
            QTRY_VERIFY_WITH_TIMEOUT(inodeOf(autosavePath()) != 0 && inodeOf(autosavePath()) != held.st_ino, kWaitMs);
            QVERIFY(previous.seek(0));
            QVERIFY(previous.readAll() == before);
        }
        stop = true;
        reader.join();
        QVERIFY2(bad == 0, firstBad.c_str());
        QVERIFY(reads > 0);
        const QStringList left = QDir(m_dir).entryList({QStringLiteral("*.tmp-*"), QStringLiteral(".nbody-probe-*")},
                                                       QDir::Files | QDir::Hidden);
        QVERIFY2(left.isEmpty(), qPrintable(left.join(QLatin1Char(' '))));
    }

    void noOfferAfterACleanExit()
    {
        {
            auto w = openWindow(64);
            QSignalSpy saved(w->autosave(), &Autosave::saved);
            w->autosave()->saveNow();
            QTRY_VERIFY_WITH_TIMEOUT(saved.count() >= 1, kWaitMs);
        }
        auto w = openWindow(64);
        QVERIFY(w->autosave()->active());
        QVERIFY(!w->autosave()->previous());
        QVERIFY(!w->autosave()->offerDialog());
        QTest::qWait(200);
        for (QWidget* top : QApplication::topLevelWidgets())
            QVERIFY(top->objectName() != QStringLiteral("autosaveOffer") || !top->isVisible());
    }

    void offerAfterACrashAndRestoreExactly()
    {
        const World saved = knownWorld();
        const RestartParams params{1.0, 0.004f, 0.0625f, "cpu", 0, 0, {}, /*units*/ {}, /*unitsOfG*/ {}};
        writeSnapshot(autosavePath().toStdString(), saved, &params, "hdf5");
        leaveCrashMarker();
        const QDateTime savedAt = QFileInfo(autosavePath()).lastModified();

        auto w = openWindow(100);
        Autosave* autosave = w->autosave();
        QVERIFY(autosave->active()); // the dead process's marker was taken over
        QVERIFY(autosave->previous());
        QCOMPARE(autosave->previous()->bodies, qulonglong(64));
        QCOMPARE(autosave->previous()->step, qulonglong(4711));
        QCOMPARE(autosave->previous()->savedAt, savedAt);
        QTRY_VERIFY(autosave->offerDialog());
        QMessageBox* offer = autosave->offerDialog();
        QTRY_VERIFY(offer->isVisible());
        QVERIFY(offer->isModal()); // window-modal: the choice is the user's, never made for them
        const QString text = offer->text();
        QVERIFY2(text.contains(QStringLiteral("64 bodies")) && text.contains(QStringLiteral("step 4711"))
                     && text.contains(QLocale().toString(savedAt, QLocale::LongFormat)),
                 qPrintable(text));
        // While the offer waits, the new session does not autosave over the old file.
        QSignalSpy written(autosave, &Autosave::saved);
        autosave->saveNow();
        QTest::qWait(500);
        QCOMPARE(written.count(), 0);

        auto* restore = offer->findChild<QPushButton*>(QStringLiteral("restore"));
        QVERIFY(restore);
        QTest::mouseClick(restore, Qt::LeftButton);
        QVERIFY(!autosave->previous());
        QTRY_VERIFY(!autosave->offerDialog());
        // What the session now runs, written again: exactly what was saved (the system is paused).
        // The 1 s timer may write too (it runs again once the offer is answered): wait for at
        // least one save and check every one (waiting for exactly one was flaky: a timer save and
        // this one can both land between two polls). Each is of the restored system, and the
        // writes are atomic, so the file read below is one of them, whole.
        autosave->saveNow();
        QTRY_VERIFY_WITH_TIMEOUT(written.count() >= 1, kWaitMs);
        for (const QList<QVariant>& s : written)
            QCOMPARE(s.at(1).toULongLong(), qulonglong(64));
        const Snapshot restored = readSnapshot(autosavePath().toStdString());
        compareBitwise(restored.world, saved);
        QVERIFY(restored.params);
        QCOMPARE(restored.params->eps2, 0.004f);
        QCOMPARE(restored.params->dt, 0.0625f);
    }

    void discardDeletesTheAutosave()
    {
        const World saved = knownWorld();
        writeSnapshot(autosavePath().toStdString(), saved, nullptr, "hdf5");
        leaveCrashMarker();
        {
            auto w = openWindow(100);
            QTRY_VERIFY(w->autosave()->offerDialog());
            QMessageBox* offer = w->autosave()->offerDialog();
            QTRY_VERIFY(offer->isVisible());
            QTest::mouseClick(offer->findChild<QPushButton*>(QStringLiteral("discard")), Qt::LeftButton);
            QVERIFY(!QFileInfo::exists(autosavePath()));
            QVERIFY(!w->autosave()->previous());
            QTRY_VERIFY(!w->autosave()->offerDialog());
        }
        auto w = openWindow(100);
        QVERIFY(!w->autosave()->previous()); // the clean exit after Discard leaves nothing to offer
    }

    void secondInstanceDoesNotAutosave()
    {
        auto first = openWindow(64);
        QVERIFY(first->autosave()->active());
        auto second = openWindow(64); // its marker is held by a live process (this one)
        QVERIFY(!second->autosave()->active());
        QVERIFY(!second->autosave()->previous());
        second.reset();
        QVERIFY(QFileInfo::exists(markerPath())); // the first's marker is untouched
    }
};

int main(int argc, char** argv)
{
    if (argc == 3 && std::strcmp(argv[1], kLeaveMarker) == 0) {
        // The crashing session: take the marker as Autosave does, then die without releasing it.
        QCoreApplication app(argc, argv);
        QLockFile marker(QString::fromLocal8Bit(argv[2]));
        marker.setStaleLockTime(0);
        if (!marker.tryLock(0))
            return 1;
        ::_exit(0);
    }
    return nbody::test::guiTestMain<TestAutosave>(argc, argv);
}
#include "tst_autosave.moc"
