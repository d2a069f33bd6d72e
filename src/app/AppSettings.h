#pragma once
/// \file AppSettings.h
/// What the app remembers between sessions, kept by QSettings under the names AppSetup.h sets
/// (organisation "N-Body Sandbox", application "nbody-sandbox": on Linux the file
/// ~/.config/N-Body Sandbox/nbody-sandbox.conf, or under $XDG_CONFIG_HOME):
///
///   window/geometry, window/state   the window's size and place, its docks and toolbar
///                                   (QMainWindow::saveGeometry and saveState), written at close
///   recent/files                    File → Open Recent: snapshots and scenario files opened or
///                                   saved, most recent first, at most 10; written at each change
///   start/scenario, start/bodies    the last scenario (a registry id or the absolute path of a
///                                   scenario file) and its N, written at close
///   start/kernel                    the kernel the user ran (not a scenario's own), written at close
///   view/…                          the View dock's values (ViewDock::values), written at close
///   autosave/intervalSeconds        the autosave's interval (Autosave.h), read only
///
/// main() reads them (readCommandLine) and the window reads and writes them only with
/// Automation::useSettings: not with --no-settings, nor in a scripted run (--capture, --record,
/// --quit), whose result depends on its command line alone.

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

class QAction;
class QMenu;
class QSettings;
class QWidget;

namespace nbody::app {

struct StartupConfig;

namespace settingsKey {
inline constexpr const char* kGeometry = "window/geometry";
inline constexpr const char* kState = "window/state";
inline constexpr const char* kRecentFiles = "recent/files";
inline constexpr const char* kScenario = "start/scenario";
inline constexpr const char* kBodies = "start/bodies";
inline constexpr const char* kKernel = "start/kernel";
inline constexpr const char* kViewGroup = "view";
} // namespace settingsKey

/// The remembered start where the command line leaves it open: the kernel unless --kernel was
/// given (and only a kernel of the registry that can run here), the scenario and its N unless
/// --scenario or --input was given (a scenario file only while it exists; --bodies still sets
/// N). When the remembered kernel cannot run here, its N is not used either: a generator's N is
/// then the one the running kernel steps `stepsPerSecond` times a second, as chooseStartSystem
/// sizes the galaxy collision. A remembered kernel is not `kernelGiven`: a scenario with a kernel
/// of its own (the Solar System's fp64 `reference`) still runs on it.
void applyRememberedStart(StartupConfig& config, const QSettings& settings, double stepsPerSecond = 25.0);

/// File → Open Recent: the snapshots and scenario files opened or saved, most recent first,
/// without duplicates (by absolute path), at most kMaxFiles, then "Clear list". Picking an
/// entry emits openRequested when the file exists; otherwise the entry is dropped and
/// missingPicked says which. With persistence on (setPersistent) the list is read from and
/// every change written to QSettings (settingsKey::kRecentFiles).
class RecentFiles : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxFiles = 10;

    /// `menuParent`: the window the submenu belongs to.
    explicit RecentFiles(QWidget* menuParent);

    QMenu* menu() const { return m_menu; }
    /// The list, most recent first (absolute paths).
    const QStringList& files() const { return m_files; }
    /// Turns persistence on: reads the list from QSettings and drops (and writes back without)
    /// the files that no longer exist. Returns those dropped.
    QStringList load();
    /// `path` first (absolute; moved there when already listed; the oldest beyond kMaxFiles drop).
    void add(const QString& path);
    void remove(const QString& path);
    void clear();
    /// "Clear list" (for tests).
    QAction* clearAction() const { return m_clear; }

signals:
    void openRequested(const QString& path);
    /// A picked entry's file no longer exists; it was dropped from the list.
    void missingPicked(const QString& path);

private:
    void setFiles(QStringList files);
    void rebuildMenu();
    void pick(const QString& path);

    QMenu* m_menu;
    QAction* m_clear;
    QList<QAction*> m_entries; ///< the files' entries of the menu, in its order
    QStringList m_files;
    bool m_persistent = false;
};

} // namespace nbody::app
