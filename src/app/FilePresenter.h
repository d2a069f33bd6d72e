#pragma once
/// \file FilePresenter.h
/// The File menu's snapshots and scenarios, and the Integrator menu, bound to the controller.

#include "sim/core/SimParams.h"

#include <QObject>
#include <QString>

class QAction;
class QMainWindow;
class QMenu;

namespace nbody::app {

class Notices;
class ScenarioMenus;
class SimulationController;
class SnapshotSaver;

/// Owns Open snapshot…, the SnapshotSaver (Save snapshot…) and the ScenarioMenus (New from
/// scenario, Open and Save scenario…, the Integrator menu). Connects a chosen file to the
/// controller's loadFile, the scenario menus to newScenario, openScenario, saveScenario and
/// setIntegrator, the running kernel to the New dialog's suggested N, and the controller's
/// answers (a failed load: a message box, or stderr in a scripted run; a saved scenario) to the
/// user. The dialogs start in the directory of the last opened file.
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
    /// Checks the integrator of `params` in the Integrator menu.
    void setParams(const nbody::SimParams& params);

signals:
    void loadRequested(const QString& path);

private:
    void connectScenarios(SimulationController* controller);
    void openFile();
    void onLoadFailed(const QString& path, const QString& message);

    QMainWindow* m_window;
    Notices& m_notices;
    ScenarioMenus* m_scenarioMenus = nullptr;
    QAction* m_openAction = nullptr;
    SnapshotSaver* m_snapshotSaver = nullptr;
    QString m_lastFile;
};

} // namespace nbody::app
