// What the app remembers between sessions (app/AppSettings.h), on real MainWindows made from
// command lines read as main() reads them (AppCommandLine.h), each closed and followed by a new
// one (a restart within this process; the settings go through QSettings' file in between):
//  - the window's place and size and its docks (one closed, one moved to the left area) survive a
//    restart; View → Reset layout brings back the docks, toolbar and size of a first start;
//  - File → Open Recent lists the snapshots and scenario files opened and saved, most recent
//    first, without duplicates, at most 10, across restarts; a picked entry whose file is gone is
//    dropped with a non-modal notice, as are entries missing at start (said once); Clear list;
//  - the View dock's values survive a restart (--colour still wins);
//  - the last scenario with its N and the user's kernel start the next session unless
//    --kernel, --scenario, --input or --bodies say otherwise, and a scenario's own kernel
//    (the Solar System's reference) is not taken for the user's;
//  - --no-settings starts with the defaults and writes nothing, and a scripted run of the real
//    nbody-sandbox (--quit) neither reads nor writes the settings; --help names --no-settings.
// The settings live in a temporary XDG_CONFIG_HOME of this process (GuiTestMain.h), never the
// user's. Needs a display with desktop OpenGL (xvfb-run); label gui. NBODY_SCREENSHOT_DIR=DIR
// saves recent-files.png (the File menu with Open Recent open).
#include "AppSettings.h"
#include "Autosave.h"
#include "AppCommandLine.h"
#include "FilePresenter.h"
#include "GuiTestMain.h"
#include "KernelDock.h"
#include "MainWindow.h"
#include "RunDock.h"
#include "ScenarioMenus.h"
#include "SnapshotDialogs.h"
#include "ViewDock.h"
#include "Viewport.h"

#include "sim/core/KernelRegistry.h"
#include "sim/io/Scenarios.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QProcessEnvironment>
#include <QScreen>
#include <QRegularExpression>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>

#include <algorithm>
#include <memory>

using nbody::app::CommandLine;
using nbody::app::KernelDock;
using nbody::app::MainWindow;
using nbody::app::RecentFiles;
using nbody::app::RunDock;
using nbody::app::ViewDock;

namespace {

constexpr int kWaitMs = 60'000; // a busy 2-core machine; the waits end as soon as the condition holds
/// How far a window manager may place a restored window from where it was (decorations, a
/// panel); without one (plain Xvfb) the geometry comes back exactly.
constexpr int kPlacementTolerancePx = 10;

QString qstr(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

/// The command line of nbody-sandbox with `args`, read as main() reads it.
CommandLine commandLine(const QStringList& args)
{
    CommandLine cl;
    const QString error = nbody::app::parseCommandLine(QStringList{QStringLiteral("nbody-sandbox")} + args, cl);
    if (!error.isEmpty())
        qWarning("usage error: %s", qPrintable(error));
    return cl;
}

/// A shown window from `cl`, once its first system runs (the kernel is known and the title
/// names the system).
std::unique_ptr<MainWindow> openWindow(const CommandLine& cl)
{
    auto w = std::make_unique<MainWindow>(cl.config, cl.automation);
    w->show();
    if (!QTest::qWaitForWindowExposed(w.get()))
        return nullptr;
    auto* dock = w->findChild<KernelDock*>();
    if (!QTest::qWaitFor([&] { return !dock->kernelId().isEmpty() && w->windowTitle().contains(QStringLiteral(" — ")); },
                         kWaitMs))
        return nullptr;
    return w;
}

std::unique_ptr<MainWindow> openWindow(const QStringList& args)
{
    return openWindow(commandLine(args));
}

QString runningKernel(const MainWindow& w)
{
    return w.findChild<KernelDock*>()->kernelId();
}

QByteArray settingsBytes()
{
    QFile f(QSettings().fileName());
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeFile(const QString& path, const QByteArray& content)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QCOMPARE(f.write(content), qint64(content.size()));
}

/// A snapshot of 7 bodies (no multiple of any block size) without a kernel of its own.
QByteArray sevenBodies()
{
    return "x,y,z,vx,vy,vz,m\n"
           "1,0,0,0,0.5,0,1\n-1,0,0,0,-0.5,0,1\n0,1,0,-0.5,0,0,1\n0,-1,0,0.5,0,0,1\n"
           "0,0,1,0,0,0.2,0.5\n0,0,-1,0,0,-0.2,0.5\n0.2,0.3,0.1,0,0,0,0.01\n";
}

/// A scenario file: a Plummer sphere of 301 bodies.
QByteArray plummerScenario()
{
    return R"({"format": "nbody-sandbox-scenario", "version": 1, "name": "Plummer of 301",
               "bodies": {"generator": "plummer", "N": 301, "seed": 5}})";
}

/// Where each dock is, whether it floats or shows, and which docks share its tabs.
struct DockPlace {
    Qt::DockWidgetArea area;
    bool floating;
    bool visible;
    QStringList tabs;
    bool operator==(const DockPlace& o) const
    {
        return area == o.area && floating == o.floating && visible == o.visible && tabs == o.tabs;
    }
};

QMap<QString, DockPlace> dockPlaces(const MainWindow& w)
{
    QMap<QString, DockPlace> places;
    for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
        QStringList tabs;
        for (QDockWidget* t : w.tabifiedDockWidgets(d))
            tabs << t->objectName();
        tabs.sort();
        places.insert(d->objectName(), DockPlace{w.dockWidgetArea(d), d->isFloating(), !d->isHidden(), tabs});
    }
    return places;
}

QString describe(const QMap<QString, DockPlace>& places)
{
    QStringList rows;
    for (auto it = places.constBegin(); it != places.constEnd(); ++it)
        rows << QStringLiteral("%1: area %2%3%4 tabs [%5]")
                    .arg(it.key())
                    .arg(int(it->area))
                    .arg(it->floating ? QStringLiteral(" floating") : QString())
                    .arg(it->visible ? QString() : QStringLiteral(" hidden"))
                    .arg(it->tabs.join(QLatin1Char(',')));
    return rows.join(QStringLiteral("; "));
}

QDockWidget* dockNamed(const MainWindow& w, const QString& name)
{
    return w.findChild<QDockWidget*>(name);
}

/// The visible message boxes of `w` whose text contains `text`.
QList<QMessageBox*> boxesSaying(const MainWindow& w, const QString& text)
{
    QList<QMessageBox*> boxes;
    for (QMessageBox* b : w.findChildren<QMessageBox*>())
        if (b->isVisible() && b->text().contains(text))
            boxes << b;
    return boxes;
}

QAction* recentEntry(const MainWindow& w, const QString& path)
{
    for (QAction* a : w.recentFiles()->menu()->actions())
        if (a->data().toString() == path)
            return a;
    return nullptr;
}

bool near(QPoint a, QPoint b)
{
    return std::abs(a.x() - b.x()) <= kPlacementTolerancePx && std::abs(a.y() - b.y()) <= kPlacementTolerancePx;
}

bool near(QSize a, QSize b)
{
    return std::abs(a.width() - b.width()) <= kPlacementTolerancePx &&
           std::abs(a.height() - b.height()) <= kPlacementTolerancePx;
}

} // namespace

class TestSettings : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString path(const QString& name) const { return QDir::cleanPath(m_dir.filePath(name)); }

private slots:
    void initTestCase()
    {
        // The settings are the test's own, never the user's ~/.config.
        const QString configHome = qEnvironmentVariable("XDG_CONFIG_HOME");
        QVERIFY2(configHome.contains(QStringLiteral("nbody-test-home-")), qPrintable(configHome));
        QVERIFY2(QSettings().fileName() ==
                     configHome + QStringLiteral("/N-Body Sandbox/nbody-sandbox.conf"),
                 qPrintable(QSettings().fileName()));
        QVERIFY(!QSettings().fileName().startsWith(QDir::homePath() + QStringLiteral("/.config")));
        QVERIFY(m_dir.isValid());
        if (!nbody::test::haveDisplay())
            QSKIP("needs a display with desktop OpenGL (run under xvfb-run)");
    }

    void init()
    {
        QSettings settings;
        settings.clear();
        settings.sync();
    }

    void helpNamesNoSettings()
    {
        QProcess p;
        p.start(QStringLiteral(NBODY_APP_PATH), {QStringLiteral("--help")});
        QVERIFY(p.waitForFinished(kWaitMs));
        QCOMPARE(p.exitCode(), 0);
        const QString help = QString::fromLocal8Bit(p.readAllStandardOutput()).simplified();
        QVERIFY2(help.contains(QStringLiteral("--no-settings Start with the defaults: read and write no settings")),
                 qPrintable(help));
    }

    /// --dt takes the argument after it as its value even when it starts with '-', and refuses
    /// a value that is not a positive number with `nbody`'s message (exit 2); a valid one reaches
    /// the start configuration. Before, the app had no --dt and read "--dt -1" as two unknown
    /// options, "dt" and "1".
    void dtOnTheCommandLine()
    {
        const struct {
            QStringList args;
            QString error;
        } refused[] = {
            {{"--dt", "-1"}, "--dt: must be a positive number (got -1); to run backwards in time, use Simulation > "
                             "Reverse time"},
            {{"--dt=-1"}, "--dt: must be a positive number (got -1); to run backwards in time, use Simulation > "
                          "Reverse time"},
            {{"--dt", "-1e-3"}, "--dt: must be a positive number (got -1e-3); to run backwards in time, use "
                                "Simulation > Reverse time"},
            {{"--dt", "0"}, "--dt: must be a positive number (got 0)"},
            {{"--dt", "abc"}, "--dt: must be a positive number (got abc)"},
            {{"--dt", "1e-50"}, "--dt 1e-50 is outside the range of fp32 (about 1.2e-38 to 3.4e38)"},
            // Another value option with a negative value: taken as its value, then refused.
            {{"--steps", "-1"}, "--steps must be a non-negative integer, not '-1'"},
        };
        for (const auto& c : refused) {
            CommandLine cl;
            const QString error =
                nbody::app::parseCommandLine(QStringList{QStringLiteral("nbody-sandbox")} + c.args, cl);
            QCOMPARE(error, c.error);
        }
        CommandLine ok;
        QCOMPARE(nbody::app::parseCommandLine({QStringLiteral("nbody-sandbox"), QStringLiteral("--no-settings"),
                                               QStringLiteral("--dt"), QStringLiteral("0.005")},
                                              ok),
                 QString());
        QCOMPARE(ok.config.dt, 0.005);
        CommandLine none;
        QCOMPARE(nbody::app::parseCommandLine({QStringLiteral("nbody-sandbox"), QStringLiteral("--no-settings")}, none),
                 QString());
        QCOMPARE(none.config.dt, 0.0); // the system's own

        // The program itself: exit 2 with the message, before any window.
        QProcess p;
        p.start(QStringLiteral(NBODY_APP_PATH), {QStringLiteral("--dt"), QStringLiteral("-1")});
        QVERIFY(p.waitForFinished(kWaitMs));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY2(QString::fromLocal8Bit(p.readAllStandardError())
                     .contains(QStringLiteral("nbody-sandbox: --dt: must be a positive number (got -1); to run backwards "
                                               "in time, use Simulation > Reverse time\n")),
                 "stderr");
    }

    void geometryAndDocksSurviveARestart()
    {
        const QStringList args = {QStringLiteral("--kernel"), QStringLiteral("cpu"), QStringLiteral("--scenario"),
                                  QStringLiteral("cube"), QStringLiteral("--bodies"), QStringLiteral("301")};
        QPoint pos;
        QSize size;
        {
            auto w = openWindow(args);
            QVERIFY(w);
            QVERIFY(w->findChild<RunDock*>());
            w->showNormal();
            w->move(123, 97);
            w->resize(1111, 707);
            QTRY_COMPARE(w->size(), QSize(1111, 707));
            QTRY_VERIFY(near(w->pos(), QPoint(123, 97)));
            pos = w->pos();
            size = w->size();
            // One dock closed, one moved to another area.
            auto* kernel = w->findChild<KernelDock*>();
            w->addDockWidget(Qt::LeftDockWidgetArea, kernel);
            QDockWidget* device = dockNamed(*w, QStringLiteral("DeviceDock"));
            device->close();
            QTRY_COMPARE(w->dockWidgetArea(kernel), Qt::LeftDockWidgetArea);
            QVERIFY(device->isHidden());
            // A dock on the left widens the window to what its docks and the view's minimum
            // need: the size at close is the one to come back.
            QTest::qWait(100);
            QVERIFY(w->width() >= 1111 && w->height() >= 707);
            size = w->size();
            w->close();
        }
        QVERIFY(!QSettings().value(QLatin1String(nbody::app::settingsKey::kGeometry)).toByteArray().isEmpty());
        QVERIFY(!QSettings().value(QLatin1String(nbody::app::settingsKey::kState)).toByteArray().isEmpty());

        auto w = openWindow(args);
        QVERIFY(w);
        QTRY_VERIFY2(near(w->size(), size), qPrintable(QStringLiteral("%1x%2").arg(w->width()).arg(w->height())));
        QTRY_VERIFY2(near(w->pos(), pos), qPrintable(QStringLiteral("%1,%2").arg(w->x()).arg(w->y())));
        QVERIFY(!w->isMaximized());
        auto* kernel = w->findChild<KernelDock*>();
        QCOMPARE(w->dockWidgetArea(kernel), Qt::LeftDockWidgetArea);
        QVERIFY(!kernel->isHidden());
        QDockWidget* device = dockNamed(*w, QStringLiteral("DeviceDock"));
        QVERIFY(device->isHidden());
        QVERIFY(!device->toggleViewAction()->isChecked()); // View → Device dock says so too
        // The others where they were.
        QCOMPARE(w->dockWidgetArea(w->findChild<RunDock*>()), Qt::RightDockWidgetArea);
        QCOMPARE(w->dockWidgetArea(dockNamed(*w, QStringLiteral("diagnosticsDock"))), Qt::BottomDockWidgetArea);
        QVERIFY(w->tabifiedDockWidgets(w->findChild<RunDock*>()).contains(w->findChild<ViewDock*>()));
    }

    void resetLayoutBringsTheDefaultBack()
    {
        const QStringList args = {QStringLiteral("--kernel"), QStringLiteral("cpu"), QStringLiteral("--scenario"),
                                  QStringLiteral("cube"), QStringLiteral("--bodies"), QStringLiteral("301")};
        // A first start's layout, for comparison.
        QMap<QString, DockPlace> first;
        QSize firstSize;
        int firstRunWidth = 0;
        {
            auto w = openWindow(QStringList{QStringLiteral("--no-settings")} + args);
            QVERIFY(w);
            first = dockPlaces(*w);
            firstSize = w->size();
            firstRunWidth = w->findChild<RunDock*>()->width();
            w->close();
        }
        QCOMPARE(first.size(), 7);
        QVERIFY(first.value(QStringLiteral("RunDock")).tabs.contains(QStringLiteral("ViewDock")));

        auto w = openWindow(args);
        QVERIFY(w);
        QCOMPARE(dockPlaces(*w), first);
        // Everything moved: a dock to the left, one floating, one closed, the toolbar to the
        // left and the window smaller.
        w->addDockWidget(Qt::LeftDockWidgetArea, w->findChild<KernelDock*>());
        w->findChild<ViewDock*>()->setFloating(true);
        dockNamed(*w, QStringLiteral("ValidationDock"))->close();
        auto* bar = w->findChild<QToolBar*>(QStringLiteral("SimulationToolBar"));
        w->addToolBar(Qt::LeftToolBarArea, bar);
        w->showNormal();
        // (Once a window manager has taken the window out of its maximised state: a resize
        // that crosses that request leaves openbox with a window half maximised.)
        QTest::qWait(500);
        // As small as the docks let it be: lower than the default (with the Kernel dock on the left
        // as well as the right-hand column, the minimum width can exceed the default's).
        w->resize(900, 600);
        QTRY_VERIFY2(w->height() < firstSize.height() - 20 && w->size() != firstSize,
                     qPrintable(QStringLiteral("%1x%2, first %3x%4, minimum %5x%6")
                                    .arg(w->width())
                                    .arg(w->height())
                                    .arg(firstSize.width())
                                    .arg(firstSize.height())
                                    .arg(w->minimumSizeHint().width())
                                    .arg(w->minimumSizeHint().height())));
        QVERIFY(!(dockPlaces(*w) == first));

        QAction* reset = w->resetLayoutAction();
        QVERIFY(reset);
        bool inViewMenu = false;
        for (QAction* top : w->menuBar()->actions())
            if (top->menu() && top->menu()->title().remove(QLatin1Char('&')) == QStringLiteral("View"))
                inViewMenu = top->menu()->actions().contains(reset);
        QVERIFY(inViewMenu);
        reset->trigger();
        QTRY_VERIFY2(dockPlaces(*w) == first, qPrintable(describe(dockPlaces(*w)) + " vs " + describe(first)));
        QCOMPARE(w->toolBarArea(bar), Qt::TopToolBarArea);
        QVERIFY(!bar->isHidden());
        QTRY_VERIFY2(near(w->size(), firstSize),
                     qPrintable(QStringLiteral("%1x%2 vs %3x%4").arg(w->width()).arg(w->height())
                                    .arg(firstSize.width()).arg(firstSize.height())));
        QTRY_VERIFY2(std::abs(w->findChild<RunDock*>()->width() - firstRunWidth) <= kPlacementTolerancePx,
                     qPrintable(QString::number(w->findChild<RunDock*>()->width())));
        // And the next start has it.
        w->close();
        w.reset();
        w = openWindow(args);
        QVERIFY(w);
        QCOMPARE(dockPlaces(*w), first);
        QTRY_VERIFY(near(w->size(), firstSize));
    }

    void recentFilesSurviveARestart()
    {
        const QString a = path(QStringLiteral("seven-bodies.csv"));
        const QString b = path(QStringLiteral("plummer-301.json"));
        const QString c = path(QStringLiteral("saved-run.csv"));
        writeFile(a, sevenBodies());
        writeFile(b, plummerScenario());
        QFile::remove(c);
        {
            auto w = openWindow({QStringLiteral("--input"), a}); // opened from the command line
            QVERIFY(w);
            RecentFiles* recent = w->recentFiles();
            QTRY_COMPARE(recent->files(), QStringList{a});
            // Saved (File → Save snapshot's request, as its dialog sends it).
            emit w->findChild<nbody::app::SnapshotSaver*>()->saveRequested(c);
            QTRY_COMPARE(recent->files(), (QStringList{c, a}));
            QVERIFY(QFileInfo::exists(c));
            // Picked from the list: opened again, first now, not twice.
            QAction* entry = recentEntry(*w, a);
            QVERIFY(entry);
            entry->trigger();
            QTRY_COMPARE(recent->files(), (QStringList{a, c}));
            QTRY_VERIFY(w->windowTitle().startsWith(QStringLiteral("seven-bodies.csv")));
            // A scenario file opened (File → Open scenario's request).
            emit w->findChild<nbody::app::ScenarioMenus*>()->openScenarioRequested(b);
            QTRY_COMPARE(recent->files(), (QStringList{b, a, c}));
            QTRY_VERIFY(w->windowTitle().contains(QStringLiteral("301 bodies")));
            // The menu: one numbered entry per file, most recent first, then Clear list.
            const QList<QAction*> items = recent->menu()->actions();
            QCOMPARE(items.size(), 5);
            QCOMPARE(items[0]->data().toString(), b);
            QVERIFY2(items[0]->text().startsWith(QStringLiteral("&1 plummer-301.json")), qPrintable(items[0]->text()));
            QCOMPARE(items[1]->data().toString(), a);
            QCOMPARE(items[2]->data().toString(), c);
            QVERIFY(items[3]->isSeparator());
            QCOMPARE(items[4], recent->clearAction());
            QVERIFY(recent->clearAction()->isEnabled());
            w->close();
        }
        QCOMPARE(QSettings().value(QLatin1String(nbody::app::settingsKey::kRecentFiles)).toStringList(),
                 (QStringList{b, a, c}));

        {
            auto w = openWindow({QStringLiteral("--scenario"), QStringLiteral("cube"), QStringLiteral("--bodies"),
                                 QStringLiteral("301")});
            QVERIFY(w);
            QCOMPARE(w->recentFiles()->files(), (QStringList{b, a, c}));
            if (const QString dir = qEnvironmentVariable("NBODY_SCREENSHOT_DIR"); !dir.isEmpty())
                saveMenuScreenshot(*w, QDir(dir).filePath(QStringLiteral("recent-files.png")));
            // A picked file that is gone: dropped, and a message says so.
            QVERIFY(QFile::remove(c));
            recentEntry(*w, c)->trigger();
            QCOMPARE(w->recentFiles()->files(), (QStringList{b, a}));
            QTRY_COMPARE(boxesSaying(*w, QDir::toNativeSeparators(c)).size(), 1);
            QVERIFY(!boxesSaying(*w, QDir::toNativeSeparators(c)).first()->isModal());
            QVERIFY(w->statusBar()->currentMessage().contains(QDir::toNativeSeparators(c)));
            QCOMPARE(QSettings().value(QLatin1String(nbody::app::settingsKey::kRecentFiles)).toStringList(),
                     (QStringList{b, a}));
            QVERIFY(!recentEntry(*w, c));
            QVERIFY(w->windowTitle().contains(QStringLiteral("301 bodies"))); // the system stays
            QVERIFY(QFile::remove(a)); // gone before the next start
            w->close();
        }
        {
            // Missing at start: dropped, and said once, without a modal dialog.
            auto w = openWindow({QStringLiteral("--scenario"), QStringLiteral("cube"), QStringLiteral("--bodies"),
                                 QStringLiteral("301")});
            QVERIFY(w);
            QCOMPARE(w->recentFiles()->files(), QStringList{b});
            QTRY_COMPARE(boxesSaying(*w, QDir::toNativeSeparators(a)).size(), 1);
            QVERIFY(!boxesSaying(*w, QDir::toNativeSeparators(a)).first()->isModal());
            QCOMPARE(QSettings().value(QLatin1String(nbody::app::settingsKey::kRecentFiles)).toStringList(),
                     QStringList{b});
            w->close();
        }
        {
            auto w = openWindow({QStringLiteral("--scenario"), QStringLiteral("cube"), QStringLiteral("--bodies"),
                                 QStringLiteral("301")});
            QVERIFY(w);
            QCOMPARE(w->recentFiles()->files(), QStringList{b});
            QTest::qWait(300);
            QVERIFY(boxesSaying(*w, QDir::toNativeSeparators(a)).isEmpty()); // once only
            // Clear list.
            w->recentFiles()->clearAction()->trigger();
            QVERIFY(w->recentFiles()->files().isEmpty());
            QVERIFY(!w->recentFiles()->menu()->menuAction()->isEnabled());
            QVERIFY(!QSettings().contains(QLatin1String(nbody::app::settingsKey::kRecentFiles)));
            w->close();
        }
        auto w = openWindow({QStringLiteral("--scenario"), QStringLiteral("cube"), QStringLiteral("--bodies"),
                             QStringLiteral("301")});
        QVERIFY(w);
        QVERIFY(w->recentFiles()->files().isEmpty());
    }

    void recentListKeepsTenWithoutDuplicates()
    {
        QWidget parent;
        RecentFiles recent(&parent);
        QVERIFY(recent.load().isEmpty());
        QStringList added;
        for (int i = 0; i < 12; ++i) {
            added.prepend(path(QStringLiteral("f%1.h5").arg(i)));
            recent.add(added.first());
        }
        QCOMPARE(recent.files(), added.mid(0, RecentFiles::kMaxFiles));
        // The same file by another name: moved to the front, not listed twice.
        recent.add(m_dir.path() + QStringLiteral("/./sub/../f5.h5"));
        QCOMPARE(recent.files().size(), RecentFiles::kMaxFiles);
        QCOMPARE(recent.files().first(), path(QStringLiteral("f5.h5")));
        QCOMPARE(recent.files().count(path(QStringLiteral("f5.h5"))), 1);
        QCOMPARE(QSettings().value(QLatin1String(nbody::app::settingsKey::kRecentFiles)).toStringList(),
                 recent.files());
        // The tenth entry's mnemonic is 0 (1&0), the first nine 1 … 9.
        const QList<QAction*> items = recent.menu()->actions();
        QVERIFY2(items[9]->text().startsWith(QStringLiteral("1&0 ")), qPrintable(items[9]->text()));
        QVERIFY2(items[8]->text().startsWith(QStringLiteral("&9 ")), qPrintable(items[8]->text()));
    }

    void viewDockValuesSurviveARestart()
    {
        const QStringList args = {QStringLiteral("--kernel"), QStringLiteral("cpu"), QStringLiteral("--scenario"),
                                  QStringLiteral("cube"), QStringLiteral("--bodies"), QStringLiteral("301")};
        {
            auto w = openWindow(args);
            QVERIFY(w);
            auto* dock = w->findChild<ViewDock*>();
            QCOMPARE(dock->colourModeId(), QStringLiteral("mass")); // the cube's suggestion
            dock->findChild<QDoubleSpinBox*>(QStringLiteral("pointSize"))->setValue(6.5);
            dock->findChild<QDoubleSpinBox*>(QStringLiteral("trailSeconds"))->setValue(1.25);
            dock->findChild<QDoubleSpinBox*>(QStringLiteral("exposureEv"))->setValue(-1.5);
            dock->findChild<QCheckBox*>(QStringLiteral("trails"))->setChecked(true);
            dock->findChild<QCheckBox*>(QStringLiteral("bounds"))->setChecked(true);
            dock->findChild<QCheckBox*>(QStringLiteral("legend"))->setChecked(false);
            QVERIFY(dock->selectColourMode(QStringLiteral("speed")));
            w->close();
        }
        {
            auto w = openWindow(args);
            QVERIFY(w);
            auto* dock = w->findChild<ViewDock*>();
            QCOMPARE(dock->colourModeId(), QStringLiteral("speed"));
            QCOMPARE(dock->findChild<QDoubleSpinBox*>(QStringLiteral("pointSize"))->value(), 6.5);
            QCOMPARE(dock->findChild<QDoubleSpinBox*>(QStringLiteral("trailSeconds"))->value(), 1.25);
            QCOMPARE(dock->findChild<QDoubleSpinBox*>(QStringLiteral("exposureEv"))->value(), -1.5);
            QVERIFY(dock->findChild<QCheckBox*>(QStringLiteral("trails"))->isChecked());
            QVERIFY(dock->findChild<QCheckBox*>(QStringLiteral("bounds"))->isChecked());
            QVERIFY(!dock->findChild<QCheckBox*>(QStringLiteral("legend"))->isChecked());
            QVERIFY(dock->findChild<QCheckBox*>(QStringLiteral("labels"))->isChecked()); // untouched: its default
            QVERIFY(w->viewport()->trails()); // the view took them, not the fields alone
            // A new system keeps the chosen mode (a suggestion would be "mass" for a cube).
            QCOMPARE(dock->values().value(QStringLiteral("colourMode")).toString(), QStringLiteral("speed"));
            w->close();
        }
        // --colour wins over the remembered mode; the rest is restored.
        auto w = openWindow(args + QStringList{QStringLiteral("--colour"), QStringLiteral("group")});
        QVERIFY(w);
        auto* dock = w->findChild<ViewDock*>();
        QCOMPARE(dock->colourModeId(), QStringLiteral("group"));
        QCOMPARE(dock->findChild<QDoubleSpinBox*>(QStringLiteral("pointSize"))->value(), 6.5);
    }

    void rememberedKernelAndScenarioUnlessTheCommandLineSaysOtherwise()
    {
        const QString plummer = qstr(nbody::findScenario("plummer")->name);
        const QString cube = qstr(nbody::findScenario("cube")->name);
        {
            auto w = openWindow({QStringLiteral("--kernel"), QStringLiteral("reference"), QStringLiteral("--scenario"),
                                 QStringLiteral("plummer"), QStringLiteral("--bodies"), QStringLiteral("301")});
            QVERIFY(w);
            QCOMPARE(runningKernel(*w), QStringLiteral("reference"));
            w->close();
        }
        QSettings settings;
        QCOMPARE(settings.value(QLatin1String(nbody::app::settingsKey::kKernel)).toString(), QStringLiteral("reference"));
        QCOMPARE(settings.value(QLatin1String(nbody::app::settingsKey::kScenario)).toString(), QStringLiteral("plummer"));
        QCOMPARE(settings.value(QLatin1String(nbody::app::settingsKey::kBodies)).toULongLong(), 301ull);

        // Nothing on the command line: the remembered kernel, scenario and N.
        {
            const CommandLine cl = commandLine({});
            QVERIFY(cl.automation.useSettings);
            QCOMPARE(cl.config.kernelId, QStringLiteral("reference"));
            QVERIFY(!cl.config.kernelGiven);
            QCOMPARE(cl.config.scenario, QStringLiteral("plummer"));
            QCOMPARE(cl.config.bodies, 301ull);
            auto w = openWindow(cl);
            QVERIFY(w);
            QCOMPARE(runningKernel(*w), QStringLiteral("reference"));
            QVERIFY2(w->windowTitle().startsWith(plummer + QStringLiteral(": 301 bodies")), qPrintable(w->windowTitle()));
            w->close();
        }
        // --kernel wins; the scenario is still the remembered one.
        {
            auto w = openWindow({QStringLiteral("--kernel"), QStringLiteral("cpu")});
            QVERIFY(w);
            QCOMPARE(runningKernel(*w), QStringLiteral("cpu"));
            QVERIFY2(w->windowTitle().startsWith(plummer + QStringLiteral(": 301 bodies")), qPrintable(w->windowTitle()));
            w->close();
        }
        QCOMPARE(QSettings().value(QLatin1String(nbody::app::settingsKey::kKernel)).toString(), QStringLiteral("cpu"));
        // --bodies sets the remembered scenario's N.
        {
            auto w = openWindow({QStringLiteral("--bodies"), QStringLiteral("263")});
            QVERIFY(w);
            QVERIFY2(w->windowTitle().startsWith(plummer + QStringLiteral(": 263 bodies")), qPrintable(w->windowTitle()));
            w->close();
        }
        // --scenario wins (with its own N); the remembered kernel runs it.
        {
            auto w = openWindow({QStringLiteral("--scenario"), QStringLiteral("cube"), QStringLiteral("--bodies"),
                                 QStringLiteral("257")});
            QVERIFY(w);
            QCOMPARE(runningKernel(*w), QStringLiteral("cpu"));
            QVERIFY2(w->windowTitle().startsWith(cube + QStringLiteral(": 257 bodies")), qPrintable(w->windowTitle()));
            w->close();
        }
        // --input wins; a snapshot does not replace the remembered scenario.
        const QString snapshot = path(QStringLiteral("seven.csv"));
        writeFile(snapshot, sevenBodies());
        {
            const CommandLine cl = commandLine({QStringLiteral("--input"), snapshot});
            QVERIFY(cl.config.scenario.isEmpty());
            auto w = openWindow(cl);
            QVERIFY(w);
            QVERIFY2(w->windowTitle().startsWith(QStringLiteral("seven.csv")), qPrintable(w->windowTitle()));
            w->close();
        }
        {
            auto w = openWindow(QStringList{});
            QVERIFY(w);
            QVERIFY2(w->windowTitle().startsWith(cube + QStringLiteral(": 257 bodies")), qPrintable(w->windowTitle()));
            w->close();
        }
        // A scenario's own kernel (the Solar System's fp64 reference) is not the user's.
        {
            auto w = openWindow({QStringLiteral("--scenario"), QStringLiteral("solar-system")});
            QVERIFY(w);
            QCOMPARE(runningKernel(*w), QStringLiteral("reference"));
            w->close();
        }
        QCOMPARE(QSettings().value(QLatin1String(nbody::app::settingsKey::kKernel)).toString(), QStringLiteral("cpu"));
        QCOMPARE(QSettings().value(QLatin1String(nbody::app::settingsKey::kScenario)).toString(),
                 QStringLiteral("solar-system"));
        // A remembered scenario file starts again while it exists, and not once it is gone.
        const QString file = path(QStringLiteral("remembered.json"));
        writeFile(file, plummerScenario());
        {
            auto w = openWindow({QStringLiteral("--scenario"), file});
            QVERIFY(w);
            w->close();
        }
        QCOMPARE(QSettings().value(QLatin1String(nbody::app::settingsKey::kScenario)).toString(), file);
        QCOMPARE(commandLine({}).config.scenario, file);
        QVERIFY(QFile::remove(file));
        QCOMPARE(commandLine({}).config.scenario, QString::fromLatin1(nbody::app::kStartScenario));
        // A remembered kernel that cannot run here, or is unknown, is not used, nor the N chosen
        // for it.
        QSettings().setValue(QLatin1String(nbody::app::settingsKey::kKernel), QStringLiteral("no-such-kernel"));
        QSettings().setValue(QLatin1String(nbody::app::settingsKey::kScenario), QStringLiteral("plummer"));
        QSettings().setValue(QLatin1String(nbody::app::settingsKey::kBodies), 1'000'003);
        const CommandLine lost = commandLine({});
        QCOMPARE(lost.config.kernelId, qstr(nbody::defaultKernelId()));
        QCOMPARE(lost.config.scenario, QStringLiteral("plummer"));
        QVERIFY(!lost.config.bodiesGiven);
        QCOMPARE(lost.config.sizeForStepsPerSecond, 25.0);
        // A remembered N whose step is predicted beyond kSlowStepSeconds on the kernel that runs
        // (cpu at ten million bodies: about 1e14 interactions, hours per step on any CPU) is not
        // rebuilt at start, since a step in progress cannot be interrupted: the N is sized for the
        // start rate instead (at most 65 536), and the title says why.
        QSettings().setValue(QLatin1String(nbody::app::settingsKey::kKernel), QStringLiteral("cpu"));
        QSettings().setValue(QLatin1String(nbody::app::settingsKey::kBodies), 10'000'003);
        {
            const CommandLine cl = commandLine({});
            QVERIFY(cl.config.bodiesRemembered);
            QCOMPARE(cl.config.bodies, 10'000'003ull);
            auto w = openWindow(cl);
            QVERIFY(w);
            const QString title = w->windowTitle();
            QVERIFY2(title.startsWith(plummer + QStringLiteral(": ")), qPrintable(title));
            QVERIFY2(title.contains(QStringLiteral("the last session's")), qPrintable(title));
            const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("^[^:]*: ([\\d,]+) bodies")).match(title);
            QVERIFY2(m.hasMatch(), qPrintable(title));
            const qulonglong n = m.captured(1).remove(QLatin1Char(',')).toULongLong();
            QVERIFY2(n >= 1024 && n <= 65536, qPrintable(title));
            w->close();
        }
    }

    void noSettingsIgnoresAndWritesNothing()
    {
        const QString scenario = path(QStringLiteral("plummer-for-no-settings.json"));
        writeFile(scenario, plummerScenario());
        QSize rememberedSize;
        {
            auto w = openWindow({QStringLiteral("--kernel"), QStringLiteral("reference"), QStringLiteral("--scenario"),
                                 scenario});
            QVERIFY(w);
            QTRY_COMPARE(w->recentFiles()->files(), QStringList{scenario});
            w->showNormal();
            w->resize(1100, 650);
            QTRY_COMPARE(w->size(), QSize(1100, 650));
            w->findChild<ViewDock*>()->findChild<QDoubleSpinBox*>(QStringLiteral("pointSize"))->setValue(7.5);
            w->addDockWidget(Qt::LeftDockWidgetArea, w->findChild<KernelDock*>());
            QTest::qWait(100);
            rememberedSize = w->size(); // (the docks may have widened it)
            w->close();
        }
        QSettings().setValue(QLatin1String(nbody::app::Autosave::kIntervalKey), 1);
        QSettings().sync();
        const QByteArray before = settingsBytes();
        QVERIFY(before.contains("reference"));
        const QDateTime modified = QFileInfo(QSettings().fileName()).lastModified();

        const CommandLine cl = commandLine({QStringLiteral("--no-settings")});
        QVERIFY(!cl.automation.useSettings);
        QVERIFY(!cl.config.kernelGiven);
        QCOMPARE(cl.config.kernelId, qstr(nbody::defaultKernelId()));
        QCOMPARE(cl.config.scenario, QString::fromLatin1(nbody::app::kStartScenario));
        QVERIFY(!cl.config.bodiesGiven);
        // A first start's window, at a size that starts no N-sizing probe.
        CommandLine small = commandLine({QStringLiteral("--no-settings"), QStringLiteral("--bodies"), QStringLiteral("263")});
        auto w = openWindow(small);
        QVERIFY(w);
        QCOMPARE(runningKernel(*w), qstr(nbody::defaultKernelId()));
        QVERIFY2(w->windowTitle().contains(QStringLiteral("263 bodies")), qPrintable(w->windowTitle()));
        QVERIFY(w->recentFiles()->files().isEmpty());
        QCOMPARE(w->findChild<ViewDock*>()->findChild<QDoubleSpinBox*>(QStringLiteral("pointSize"))->value(), 3.0);
        QCOMPARE(w->dockWidgetArea(w->findChild<KernelDock*>()), Qt::RightDockWidgetArea);
        QVERIFY(!near(w->size(), rememberedSize));
        QVERIFY(w->autosave());
        QCOMPARE(w->autosave()->intervalMs(), 300'000); // the default, not the remembered 1 s
        // What the session does is not written: a saved file, a moved dock, another size.
        const QString saved = path(QStringLiteral("no-settings.csv"));
        emit w->findChild<nbody::app::SnapshotSaver*>()->saveRequested(saved);
        QTRY_COMPARE(w->recentFiles()->files(), QStringList{saved}); // listed for this session
        w->addDockWidget(Qt::TopDockWidgetArea, dockNamed(*w, QStringLiteral("DeviceDock")));
        w->showNormal();
        w->resize(900, 640);
        w->close();
        w.reset();
        QCOMPARE(settingsBytes(), before);
        QCOMPARE(QFileInfo(QSettings().fileName()).lastModified(), modified);
    }

    void scriptedRunUsesNoSettings()
    {
        // The real nbody-sandbox, with --quit: it inherits this process's XDG_CONFIG_HOME, so it
        // would find the remembered reference kernel and Plummer sphere of 301 there.
        {
            QSettings settings;
            settings.setValue(QLatin1String(nbody::app::settingsKey::kKernel), QStringLiteral("reference"));
            settings.setValue(QLatin1String(nbody::app::settingsKey::kScenario), QStringLiteral("plummer"));
            settings.setValue(QLatin1String(nbody::app::settingsKey::kBodies), 301);
        }
        const QByteArray before = settingsBytes();
        QVERIFY(before.contains("plummer"));
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        if (env.value(QStringLiteral("QT_QPA_PLATFORM")) == QLatin1String("offscreen"))
            env.remove(QStringLiteral("QT_QPA_PLATFORM"));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(NBODY_APP_PATH), {QStringLiteral("--scenario"), QStringLiteral("cube"), QStringLiteral("--steps"),
                                                 QStringLiteral("2"), QStringLiteral("--diagnostics-every"),
                                                 QStringLiteral("0"), QStringLiteral("--quit")});
        QVERIFY(p.waitForFinished(kWaitMs * 4));
        const QString out = QString::fromLocal8Bit(p.readAllStandardOutput());
        QVERIFY2(p.exitCode() == 0, qPrintable(QString::fromLocal8Bit(p.readAllStandardError())));
        // "nbody-sandbox: cpu, N = 8192: …": the default kernel and the cube's N, not the remembered ones.
        QVERIFY2(out.contains(QStringLiteral("nbody-sandbox: %1, N = %2:")
                                  .arg(qstr(nbody::defaultKernelId()))
                                  .arg(nbody::findScenario("cube")->defaultBodies)),
                 qPrintable(out));
        QCOMPARE(settingsBytes(), before);
        // And with --capture, no --quit: also scripted.
        const CommandLine cl = commandLine({QStringLiteral("--capture"), path(QStringLiteral("x.png"))});
        QVERIFY(!cl.automation.useSettings);
        QCOMPARE(cl.config.kernelId, qstr(nbody::defaultKernelId()));
    }

private:
    /// The File menu with Open Recent open over the window, as the screen shows it.
    static void saveMenuScreenshot(MainWindow& w, const QString& file)
    {
        QMenu* fileMenu = nullptr;
        for (QAction* top : w.menuBar()->actions())
            if (top->menu() && top->menu()->title().remove(QLatin1Char('&')) == QStringLiteral("File"))
                fileMenu = top->menu();
        QVERIFY(fileMenu);
        QMenu* recent = w.recentFiles()->menu();
        fileMenu->popup(w.menuBar()->mapToGlobal(w.menuBar()->actionGeometry(fileMenu->menuAction()).bottomLeft()));
        QVERIFY(QTest::qWaitForWindowExposed(fileMenu));
        fileMenu->setActiveAction(recent->menuAction());
        const QRect row = fileMenu->actionGeometry(recent->menuAction());
        recent->popup(fileMenu->mapToGlobal(row.topRight()));
        QVERIFY(QTest::qWaitForWindowExposed(recent));
        recent->setActiveAction(recent->actions().first());
        QTest::qWait(500);
        QVERIFY(QGuiApplication::primaryScreen()->grabWindow(0).save(file));
        recent->hide();
        fileMenu->hide();
    }
};

int main(int argc, char** argv)
{
    return nbody::test::guiTestMain<TestSettings>(argc, argv);
}
#include "tst_settings.moc"
