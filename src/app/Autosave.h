#pragma once
/// \file Autosave.h
/// Autosave and crash recovery for the app.
///
/// While the app runs, the running system is saved every `autosave/intervalSeconds` seconds
/// (QSettings; default 300, 0 disables) as an HDF5 snapshot (state, time, step and run
/// parameters: sim/io/Hdf5Snapshot.h) named `autosave.h5` in the user's data directory
/// (QStandardPaths::AppDataLocation, e.g. ~/.local/share/N-Body Sandbox/nbody-sandbox/). The
/// controller writes it through the snapshot writer, atomically and verified (sim/base/AtomicFile.h:
/// a temporary file, read back, renamed over the previous autosave), so the file is always a
/// whole snapshot.
///
/// A session marker (`session.lock`, a QLockFile holding the process id) exists while a session
/// runs; a clean exit removes it with the autosave (nothing is left to recover). When the next
/// start finds the marker of a process that is gone — the app crashed or was killed — and its
/// autosave, it offers (never forces) to restore it: a window-modal dialog with the autosave's
/// time, number of bodies and step, and two buttons, Restore and Discard (the new session's
/// system runs until one is chosen, and is not autosaved over the old one meanwhile). Restore
/// loads the autosave as File → Open would (positions, velocities, ids, time, step and
/// parameters exactly); Discard deletes it.
///
/// A second instance, started while another one runs, finds the marker held by a live process:
/// it does not autosave (one autosave per user) and says so in the status bar.

#include <QDateTime>
#include <QLockFile>
#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>
#include <optional>

class QMainWindow;
class QMessageBox;

namespace nbody::app {

class SimulationController;

class Autosave : public QObject {
    Q_OBJECT
public:
    /// What a crashed session left behind.
    struct Previous {
        QString path;       ///< the autosave file
        QDateTime savedAt;  ///< when it was written (its modification time, local time)
        qulonglong bodies = 0;
        qulonglong step = 0;
        double time = 0.0;  ///< simulated time, time units
    };

    /// The QSettings key of the interval in seconds (0: autosave off), and its default.
    static constexpr const char* kIntervalKey = "autosave/intervalSeconds";
    static constexpr int kDefaultIntervalSeconds = 300;

    /// Takes the session marker in `directory` (default: AppDataLocation; created when missing)
    /// and notes a crashed session's autosave (previous()). `window` shows the status messages
    /// and is the dialog's parent. The interval is read from QSettings here, with `useSettings`
    /// (else the default: nbody-sandbox --no-settings).
    explicit Autosave(QMainWindow* window, const QString& directory = {}, bool useSettings = true);
    /// A clean exit: removes the autosave and the session marker.
    ~Autosave() override;

    /// Connects the saves and the restore to the controller (a queued connection: it lives on
    /// the worker thread).
    void connectTo(SimulationController* controller);
    /// Starts the timer and, when previous() is set, shows the restore offer (window-modal, at
    /// the next turn of the event loop).
    void start();

    QString directory() const { return m_dir; }
    QString autosavePath() const;
    QString markerPath() const;
    /// Whether this instance holds the session marker (false: another instance runs, or the
    /// directory cannot be written; then nothing is saved).
    bool active() const { return m_locked; }
    /// Milliseconds between autosaves (0: off).
    int intervalMs() const { return m_intervalMs; }
    /// The autosave of a crashed session, until restored or discarded.
    const std::optional<Previous>& previous() const { return m_previous; }
    /// The restore offer while it is shown (for tests), else null.
    QMessageBox* offerDialog() const { return m_offer; }

public slots:
    /// Saves now (the timer calls it). Nothing happens when inactive.
    void saveNow();
    /// Loads previous() (through the controller, like File → Open) and closes the offer.
    void restore();
    /// Deletes previous()'s file and closes the offer.
    void discard();

signals:
    void saveRequested(const QString& path);
    void restoreRequested(const QString& path);
    /// An autosave reached the disk.
    void saved(const QString& path, qulonglong bodies, qulonglong step);
    void saveFailed(const QString& message);

private:
    void onSaved(const QString& path, qulonglong bodies, qulonglong step);
    void onFailed(const QString& path, const QString& message);
    void showOffer();
    void closeOffer();

    QMainWindow* m_window;
    QString m_dir;
    std::unique_ptr<QLockFile> m_marker;
    bool m_locked = false;
    int m_intervalMs = 0;
    QTimer m_timer;
    std::optional<Previous> m_previous;
    QMessageBox* m_offer = nullptr;
    bool m_failureShown = false; ///< a failure is said once until a save succeeds again
};

} // namespace nbody::app
