/// \file AppSettings.cpp
/// The remembered start and File → Open Recent (see AppSettings.h).

#include "AppSettings.h"

#include "SimulationController.h"

#include "sim/core/KernelRegistry.h"
#include "sim/core/Scenario.h"
#include "sim/io/Scenarios.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QFontMetrics>
#include <QMenu>
#include <QSettings>
#include <QWidget>

namespace nbody::app {

namespace {

QString absolute(const QString& path)
{
    return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

} // namespace

void applyRememberedStart(StartupConfig& config, const QSettings& settings, double stepsPerSecond)
{
    bool kernelLost = false; // remembered, but it cannot run here
    if (!config.kernelGiven) {
        const QString id = settings.value(QLatin1String(settingsKey::kKernel)).toString();
        if (const KernelInfo* k = id.isEmpty() ? nullptr : findKernel(id.toStdString()); k && availability(*k).available)
            config.kernelId = id;
        else
            kernelLost = !id.isEmpty();
    }
    if (!config.scenario.isEmpty() || !config.inputFile.isEmpty())
        return;
    const QString scenario = settings.value(QLatin1String(settingsKey::kScenario)).toString();
    if (scenario.isEmpty())
        return;
    const std::string id = scenario.toStdString(); // a registry id or a file, as the command line tells them apart
    if (namesScenarioFile(id) ? !QFileInfo(scenario).isFile() : !findScenario(id))
        return; // gone (a file) or no longer in the registry: the default start system
    config.scenario = scenario;
    // An N chosen for a kernel that is gone (a GPU's million bodies) is not the CPU's: then the
    // N is sized for the kernel that runs.
    bool ok = false;
    const qulonglong bodies = settings.value(QLatin1String(settingsKey::kBodies)).toULongLong(&ok);
    if (!config.bodiesGiven && !kernelLost && ok && bodies >= 1 && bodies <= kMaxBodies) {
        config.bodies = bodies;
        config.bodiesGiven = true;
        config.bodiesRemembered = true;
        config.sizeForStepsPerSecond = stepsPerSecond; // should the remembered N be too slow
    } else if (!config.bodiesGiven) {
        config.sizeForStepsPerSecond = stepsPerSecond;
    }
}

// ---- File → Open Recent ---------------------------------------------------------------------

RecentFiles::RecentFiles(QWidget* menuParent) : QObject(menuParent)
{
    m_menu = new QMenu(tr("Open Recen&t"), menuParent);
    m_menu->setObjectName(QStringLiteral("recentFilesMenu"));
    m_menu->setToolTipsVisible(true);
    m_clear = new QAction(tr("&Clear list"), this);
    m_clear->setObjectName(QStringLiteral("clearRecentFiles"));
    m_clear->setStatusTip(tr("Forget the recently opened and saved files"));
    connect(m_clear, &QAction::triggered, this, &RecentFiles::clear);
    rebuildMenu();
}

QStringList RecentFiles::load()
{
    const QStringList stored = QSettings().value(QLatin1String(settingsKey::kRecentFiles)).toStringList();
    QStringList kept, dropped;
    // What this session listed before persistence was turned on comes first (the newer).
    for (const QString& path : std::as_const(m_files))
        if (!kept.contains(path))
            kept << path;
    for (const QString& path : stored) {
        if (path.isEmpty() || kept.contains(path))
            continue;
        (QFileInfo(path).isFile() ? kept : dropped) << path;
    }
    m_persistent = true;
    if (kept == stored) { // nothing to write back
        m_files = kept;
        rebuildMenu();
    } else {
        setFiles(kept);
    }
    return dropped;
}

void RecentFiles::add(const QString& path)
{
    if (path.isEmpty())
        return;
    const QString file = absolute(path);
    QStringList files = m_files;
    files.removeAll(file);
    files.prepend(file);
    setFiles(files);
}

void RecentFiles::remove(const QString& path)
{
    QStringList files = m_files;
    files.removeAll(absolute(path));
    setFiles(files);
}

void RecentFiles::clear()
{
    setFiles({});
}

void RecentFiles::setFiles(QStringList files)
{
    files.removeDuplicates();
    while (files.size() > kMaxFiles)
        files.removeLast();
    m_files = files;
    if (m_persistent) {
        QSettings settings;
        if (m_files.isEmpty()) // (an empty list would be stored as "@Invalid()")
            settings.remove(QLatin1String(settingsKey::kRecentFiles));
        else
            settings.setValue(QLatin1String(settingsKey::kRecentFiles), m_files);
    }
    rebuildMenu();
}

void RecentFiles::rebuildMenu()
{
    // Later, not now: rebuildMenu may run inside an entry's triggered signal (pick).
    for (QAction* a : std::as_const(m_entries)) {
        m_menu->removeAction(a);
        a->deleteLater();
    }
    m_entries.clear();
    m_menu->clear(); // the separator; "Clear list" is this object's
    const QFontMetrics metrics(m_menu->font());
    for (qsizetype i = 0; i < m_files.size(); ++i) {
        const QString& path = m_files[i];
        const QFileInfo info(path);
        // "&1 name.h5 — /some/folder": the number is the mnemonic (1 … 9, then 1&0).
        const QString number = i < 9 ? QStringLiteral("&%1").arg(i + 1) : QStringLiteral("1&0");
        const QString folder =
            metrics.elidedText(QDir::toNativeSeparators(info.absolutePath()), Qt::ElideMiddle, 40 * metrics.averageCharWidth());
        QString name = info.fileName();
        name.replace(QLatin1Char('&'), QStringLiteral("&&"));
        QString where = folder;
        where.replace(QLatin1Char('&'), QStringLiteral("&&"));
        auto* a = new QAction(QStringLiteral("%1 %2 — %3").arg(number, name, where), this);
        m_entries << a;
        m_menu->addAction(a);
        a->setData(path);
        a->setToolTip(QDir::toNativeSeparators(path));
        a->setStatusTip(QDir::toNativeSeparators(path));
        connect(a, &QAction::triggered, this, [this, path] { pick(path); });
    }
    if (!m_files.isEmpty())
        m_menu->addSeparator();
    m_menu->addAction(m_clear);
    m_clear->setEnabled(!m_files.isEmpty());
    m_menu->menuAction()->setEnabled(!m_files.isEmpty());
}

void RecentFiles::pick(const QString& path)
{
    if (QFileInfo(path).isFile()) {
        emit openRequested(path);
        return;
    }
    remove(path);
    emit missingPicked(path);
}

} // namespace nbody::app
