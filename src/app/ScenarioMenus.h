#pragma once
/// \file ScenarioMenus.h
/// The scenario and integrator parts of the main window: File → New from scenario (a submenu of
/// the scenario registry; each row asks for N and the seed in a small dialog), File → Open
/// scenario… / Save scenario… (JSON files, sim/Scenarios.h) and the Integrator menu (the rows of
/// the integrator registry). They only emit requests; the SimulationController does the work.

#include <QObject>
#include <QString>

class QAction;
class QActionGroup;
class QMenu;
class QWidget;

namespace nbody::app {

class ScenarioMenus : public QObject {
    Q_OBJECT
public:
    /// `dialogParent`: the window the dialogs belong to.
    explicit ScenarioMenus(QWidget* dialogParent);

    /// Adds New from scenario, Open scenario… and Save scenario… to `file`.
    void addFileActions(QMenu* file);
    /// The Integrator menu (checkable rows, description as tooltip).
    QMenu* integratorMenu() const { return m_integratorMenu; }

public slots:
    /// Checks the row of the current integrator (from the controller's paramsChanged).
    void setIntegrator(const QString& id);
    /// Remembers the folder of the last scenario file for the next dialog.
    void setLastPath(const QString& path) { m_lastPath = path; }

signals:
    void newScenarioRequested(const QString& id, qulonglong bodies, quint64 seed);
    void openScenarioRequested(const QString& path);
    void saveScenarioRequested(const QString& path);
    void integratorRequested(const QString& id);

private:
    void askAndCreate(const QString& id);
    void openFile();
    void saveFile();

    QWidget* m_parent;
    QMenu* m_newMenu = nullptr;
    QMenu* m_integratorMenu = nullptr;
    QActionGroup* m_integrators = nullptr;
    QAction* m_open = nullptr;
    QAction* m_save = nullptr;
    QString m_lastPath;
    QString m_current;
};

} // namespace nbody::app
