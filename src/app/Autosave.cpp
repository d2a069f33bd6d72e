/// \file Autosave.cpp
/// Autosave and crash recovery (see Autosave.h).

#include "Autosave.h"
#include "BodyCount.h"

#include "SimulationController.h"

#include "sim/io/Snapshot.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QMainWindow>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>

#include <climits>
#include <exception>

namespace nbody::app {

Autosave::Autosave(QMainWindow* window, const QString& directory, bool useSettings)
    : QObject(window), m_window(window),
      m_dir(directory.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) : directory)
{
    const int seconds = useSettings ? QSettings().value(QLatin1String(kIntervalKey), kDefaultIntervalSeconds).toInt()
                                    : kDefaultIntervalSeconds;
    m_intervalMs = seconds > 0 ? int(std::min<qint64>(qint64(seconds) * 1000, INT_MAX)) : 0;
    m_timer.setInterval(m_intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &Autosave::saveNow);

    if (m_dir.isEmpty() || !QDir().mkpath(m_dir))
        return; // no data directory: no autosave (start() says so)
    m_marker = std::make_unique<QLockFile>(markerPath());
    m_marker->setStaleLockTime(0); // stale only when its process is gone, however old
    // tryLock removes a marker whose process is gone (QLockFile's stale lock): that session
    // crashed or was killed. A marker of a live process (another instance) is kept: tryLock fails.
    const bool markerLeft = QFileInfo::exists(markerPath());
    m_locked = m_marker->tryLock(0);
    if (!m_locked || !markerLeft || !QFileInfo::exists(autosavePath()))
        return;
    try {
        const Snapshot s = readSnapshot(autosavePath().toStdString());
        m_previous = Previous{autosavePath(), QFileInfo(autosavePath()).lastModified(),
                              qulonglong(s.world.size()), qulonglong(s.world.step), s.world.time};
    } catch (const std::exception&) {
        // An autosave that cannot be read (written by a different version, say) has nothing to offer.
        QFile::remove(autosavePath());
    }
}

Autosave::~Autosave()
{
    if (!m_locked)
        return;
    if (!m_previous) // a crashed session's autosave not yet restored or discarded stays
        QFile::remove(autosavePath());
    m_marker->unlock();
}

QString Autosave::autosavePath() const
{
    return QDir(m_dir).filePath(QStringLiteral("autosave.h5"));
}

QString Autosave::markerPath() const
{
    return QDir(m_dir).filePath(QStringLiteral("session.lock"));
}

void Autosave::connectTo(SimulationController* controller)
{
    connect(this, &Autosave::saveRequested, controller, &SimulationController::autosave);
    connect(this, &Autosave::restoreRequested, controller, &SimulationController::loadFile);
    connect(controller, &SimulationController::autosaved, this, &Autosave::onSaved);
    connect(controller, &SimulationController::autosaveFailed, this, &Autosave::onFailed);
}

void Autosave::start()
{
    if (!m_locked) {
        m_window->statusBar()->showMessage(
            m_marker ? tr("Autosave off: another N-Body Sandbox is running (%1)").arg(markerPath())
                     : tr("Autosave off: no data directory (%1)").arg(m_dir),
            15000);
        return;
    }
    if (m_intervalMs > 0)
        m_timer.start();
    if (m_previous) // once the event loop runs: over the main window, shown by then
        QTimer::singleShot(0, this, &Autosave::showOffer);
}

void Autosave::saveNow()
{
    if (m_locked && !m_previous) // never over a crashed session's autosave before the user decides
        emit saveRequested(autosavePath());
}

void Autosave::onSaved(const QString& path, qulonglong bodies, qulonglong step)
{
    m_failureShown = false;
    emit saved(path, bodies, step);
}

void Autosave::onFailed(const QString& path, const QString& message)
{
    Q_UNUSED(path);
    if (!m_failureShown) // said once, not every few minutes; the run goes on
        m_window->statusBar()->showMessage(tr("Autosave failed: %1").arg(message), 30000);
    m_failureShown = true;
    emit saveFailed(message);
}

void Autosave::showOffer()
{
    if (!m_previous || m_offer)
        return;
    const Previous& p = *m_previous;
    m_offer = new QMessageBox(QMessageBox::Question, tr("Restore autosave?"),
                              tr("N-Body Sandbox did not exit cleanly last time. Its autosave from %1 holds "
                                 "%2 at step %3 (time %4).\n\nRestore it, or discard it?")
                                  .arg(QLocale().toString(p.savedAt, QLocale::LongFormat))
                                  .arg(bodyCountText(p.bodies))
                                  .arg(p.step)
                                  .arg(p.time, 0, 'g', 6),
                              QMessageBox::NoButton, m_window);
    m_offer->setObjectName(QStringLiteral("autosaveOffer"));
    QPushButton* restoreButton = m_offer->addButton(tr("&Restore"), QMessageBox::AcceptRole);
    QPushButton* discardButton = m_offer->addButton(tr("&Discard"), QMessageBox::DestructiveRole);
    restoreButton->setObjectName(QStringLiteral("restore"));
    discardButton->setObjectName(QStringLiteral("discard"));
    m_offer->setDefaultButton(restoreButton);
    m_offer->setAttribute(Qt::WA_DeleteOnClose);
    connect(restoreButton, &QPushButton::clicked, this, &Autosave::restore);
    connect(discardButton, &QPushButton::clicked, this, &Autosave::discard);
    m_offer->open(); // window-modal, returns at once
}

void Autosave::closeOffer()
{
    if (m_offer) {
        QMessageBox* box = m_offer;
        m_offer = nullptr;
        box->close();
    }
}

void Autosave::restore()
{
    if (!m_previous)
        return;
    const QString path = m_previous->path;
    m_previous.reset(); // from now on, this session's autosaves replace it
    closeOffer();
    emit restoreRequested(path);
    m_window->statusBar()->showMessage(tr("Restoring the autosave…"), 5000);
}

void Autosave::discard()
{
    if (!m_previous)
        return;
    QFile::remove(m_previous->path);
    m_previous.reset();
    closeOffer();
    m_window->statusBar()->showMessage(tr("Autosave discarded"), 5000);
}

} // namespace nbody::app
