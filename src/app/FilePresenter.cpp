#include "FilePresenter.h"

#include "AppSettings.h"
#include "Notices.h"
#include "ScenarioMenus.h"
#include "SimulationController.h"
#include "SnapshotDialogs.h"
#include "SystemLoader.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QMainWindow>
#include <QMessageBox>
#include <QStyle>

namespace nbody::app {

FilePresenter::FilePresenter(QMainWindow* window, SimulationController* controller, Notices& notices)
    : QObject(window), m_window(window), m_notices(notices)
{
    m_scenarioMenus = new ScenarioMenus(window);
    m_openAction = new QAction(window->style()->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open snapshot…"),
                               window);
    m_openAction->setShortcut(QKeySequence::Open);
    m_openAction->setStatusTip(tr("Open a snapshot (HDF5, CSV or Tipsy)"));
    connect(m_openAction, &QAction::triggered, this, &FilePresenter::openFile);
    m_snapshotSaver = new SnapshotSaver(window);
    m_snapshotSaver->connectTo(controller);
    // Files and scenarios are read and made beside the run, with a progress bar and Cancel.
    m_loader = new SystemLoader(window, controller, notices);
    connect(this, &FilePresenter::loadRequested, m_loader, &SystemLoader::loadSnapshot);
    connect(m_loader, &SystemLoader::loadFailed, this, &FilePresenter::onLoadFailed);
    connect(controller, &SimulationController::loadFailed, this, &FilePresenter::onLoadFailed);
    connectScenarios(controller);
    m_recent = new RecentFiles(window);
    connectRecent(controller);
}

void FilePresenter::connectScenarios(SimulationController* c)
{
    connect(m_scenarioMenus, &ScenarioMenus::newScenarioRequested, m_loader, &SystemLoader::newScenario);
    connect(m_scenarioMenus, &ScenarioMenus::openScenarioRequested, m_loader, &SystemLoader::openScenario);
    connect(m_scenarioMenus, &ScenarioMenus::saveScenarioRequested, c, &SimulationController::saveScenario);
    connect(m_scenarioMenus, &ScenarioMenus::integratorRequested, c, &SimulationController::setIntegrator);
    connect(c, &SimulationController::scenarioSaved, this, [this](const QString& path, const QString& note) {
        if (note.isEmpty())
            m_notices.status(tr("Saved %1").arg(path), 10000);
        else // an edited system: its bodies went beside the file
            m_notices.status(tr("Saved %1: %2").arg(QFileInfo(path).fileName(), note), 30000);
    });
}

void FilePresenter::connectRecent(SimulationController* c)
{
    connect(m_recent, &RecentFiles::openRequested, this, &FilePresenter::openRecent);
    connect(m_recent, &RecentFiles::missingPicked, this, &FilePresenter::onRecentMissing);
    connect(this, &FilePresenter::openScenarioRequested, m_loader, &SystemLoader::openScenario);
    connect(c, &SimulationController::snapshotOpened, this, [this](const QString& path) {
        if (QFileInfo(path).absoluteFilePath() != m_excluded)
            m_recent->add(path);
    });
    connect(c, &SimulationController::snapshotSaved, m_recent, [this](const QString& path) { m_recent->add(path); });
    connect(c, &SimulationController::scenarioSaved, m_recent, &RecentFiles::add);
    connect(c, &SimulationController::scenarioStarted, m_recent, [this](const QString& scenario, bool file) {
        if (file)
            m_recent->add(scenario);
    });
}

void FilePresenter::excludeFromRecent(const QString& path)
{
    m_excluded = QFileInfo(path).absoluteFilePath();
}

QAction* FilePresenter::saveAction() const
{
    return m_snapshotSaver->action();
}

void FilePresenter::addScenarioActions(QMenu* file)
{
    m_scenarioMenus->addFileActions(file);
}

QMenu* FilePresenter::integratorMenu() const
{
    return m_scenarioMenus->integratorMenu();
}

void FilePresenter::setParams(const nbody::SimParams& params)
{
    m_scenarioMenus->setIntegrator(QString::fromStdString(params.integrator));
    m_loader->setParams(params);
}

void FilePresenter::openFile()
{
    const QString path =
        askOpenSnapshot(m_window, m_lastFile.isEmpty() ? QString() : QFileInfo(m_lastFile).absolutePath());
    if (path.isEmpty())
        return;
    loadSnapshot(path);
}

void FilePresenter::loadSnapshot(const QString& path)
{
    m_lastFile = path;
    m_snapshotSaver->setStartDir(QFileInfo(path).absolutePath());
    emit loadRequested(path);
}

void FilePresenter::openRecent(const QString& path)
{
    if (!path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)) {
        loadSnapshot(path);
        return;
    }
    m_scenarioMenus->setLastPath(path);
    m_notices.status(tr("Opening %1…").arg(QFileInfo(path).fileName()), 5000);
    emit openScenarioRequested(path);
}

void FilePresenter::onRecentMissing(const QString& path)
{
    const QString text = tr("%1 no longer exists; it was removed from File → Open Recent.")
                             .arg(QDir::toNativeSeparators(path));
    m_notices.status(text, 15000);
    m_notices.warn(tr("File not found"), text);
}

void FilePresenter::onLoadFailed(const QString& path, const QString& message)
{
    m_notices.status(tr("Could not open %1").arg(QFileInfo(path).fileName()), 15000);
    if (m_notices.scripted()) {
        Notices::printError(message);
        return;
    }
    QMessageBox::warning(m_window, tr("Cannot open file"),
                         tr("The file could not be loaded; the current simulation is kept.\n\n%1").arg(message));
}

} // namespace nbody::app
