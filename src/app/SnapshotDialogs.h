#pragma once
/// \file SnapshotDialogs.h
/// File → Open snapshot… and Save snapshot…: file dialogs built from the snapshot format table
/// (sim/io/Snapshot.h) and the save action with its answers (status bar, message box).

#include <QObject>
#include <QString>

class QAction;
class QMainWindow;
class QWidget;

namespace nbody::app {

class SimulationController;

/// "Snapshots (*.h5 *.hdf5 … *.std);;HDF5 (GADGET-4/SWIFT layout) (*.h5 *.hdf5 *.hdf);;…;;All
/// files (*)": one filter per row of the format table, plus all of them and all files.
QString snapshotNameFilters();

/// Asks for a snapshot to open (any format); "" when cancelled.
QString askOpenSnapshot(QWidget* parent, const QString& startDir);

/// Asks where to save a snapshot. A name without a known extension gets the default extension of
/// the chosen filter's format (HDF5 when "all snapshots" is chosen); "" when cancelled.
QString askSaveSnapshot(QWidget* parent, const QString& startDir);

/// File → Save snapshot… (Ctrl+S): asks for a file and has the controller write the current
/// state and parameters at the next frame. Success goes to the status bar; a failure is shown in
/// a message box (the simulation runs on either way).
class SnapshotSaver : public QObject {
    Q_OBJECT
public:
    explicit SnapshotSaver(QMainWindow* window);
    QAction* action() const { return m_action; }
    /// Connects the save request and the controller's answers (queued: it lives on the worker).
    void connectTo(SimulationController* controller);
    /// Where the dialog starts (the last opened or saved file's directory).
    void setStartDir(const QString& dir) { m_startDir = dir; }

signals:
    void saveRequested(const QString& path);

private slots:
    void save();
    void onSaved(const QString& path, qulonglong bodies, qulonglong step);
    void onFailed(const QString& path, const QString& message);

private:
    QMainWindow* m_window;
    QAction* m_action;
    QString m_startDir;
};

} // namespace nbody::app
