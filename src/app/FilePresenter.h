#pragma once
/// \file FilePresenter.h
/// The File menu's snapshots, scenarios and Open Recent, and the Integrator menu, bound to the
/// controller.

#include "sim/core/SimParams.h"

#include <QObject>
#include <QString>

class QAction;
class QMainWindow;
class QMenu;

namespace nbody::app {

class Notices;
class RecentFiles;
class ScenarioMenus;
class SimulationController;
class SnapshotSaver;
class SystemLoader;

/// Owns Open snapshot…, the SnapshotSaver (Save snapshot…) and the ScenarioMenus (New from
/// scenario, Open and Save scenario…, the Integrator menu). Connects a chosen file to the
/// controller's loadFile, the scenario menus to newScenario, openScenario, saveScenario and
/// setIntegrator, the running kernel to the New dialog's suggested N, and the controller's
/// answers (a failed load: a message box, or stderr in a scripted run; a saved scenario) to the
/// user. The dialogs start in the directory of the last opened file. Owns File → Open Recent
/// (RecentFiles, AppSettings.h): every snapshot and scenario file the controller opened or saved
/// goes first in the list; a picked entry opens as its kind (a scenario file by its .json, else a
/// snapshot), and one whose file is gone is dropped with a notice.
class FilePresenter : public QObject {
    Q_OBJECT
public:
    FilePresenter(QMainWindow* window, SimulationController* controller, Notices& notices);

    QAction* openAction() const { return m_openAction; }
    QAction* saveAction() const;
    ScenarioMenus* scenarioMenus() const { return m_scenarioMenus; }
    /// Adds New from scenario, Open scenario… and Save scenario… to `file`.
    void addScenarioActions(QMenu* file);
    QMenu* integratorMenu() const;
    RecentFiles* recentFiles() const { return m_recent; }
    /// Snapshots opened from `path` (the autosave's restore) stay off the recent list.
    void excludeFromRecent(const QString& path);
    /// Checks the integrator of `params` in the Integrator menu.
    void setParams(const nbody::SimParams& params);

signals:
    void loadRequested(const QString& path);
    void openScenarioRequested(const QString& path);

private:
    void connectScenarios(SimulationController* controller);
    void connectRecent(SimulationController* controller);
    void openFile();
    /// A snapshot (as Open snapshot… does once the dialog is answered).
    void loadSnapshot(const QString& path);
    void openRecent(const QString& path);
    void onRecentMissing(const QString& path);
    void onLoadFailed(const QString& path, const QString& message);

    QMainWindow* m_window;
    Notices& m_notices;
    ScenarioMenus* m_scenarioMenus = nullptr;
    SystemLoader* m_loader = nullptr; ///< makes and reads systems beside the run
    QAction* m_openAction = nullptr;
    SnapshotSaver* m_snapshotSaver = nullptr;
    RecentFiles* m_recent = nullptr;
    QString m_lastFile;
    QString m_excluded;
};

} // namespace nbody::app
