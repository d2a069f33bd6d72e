#pragma once
/// \file RecordingPresenter.h
/// File → Export frame… and File → Record…: captures of the view and recordings of the run.

#include "CaptureDialogs.h"
#include "FrameProtocol.h"

#include <QObject>
#include <QSize>
#include <QString>

#include <optional>

class QAction;
class QLabel;
class QMainWindow;

namespace nbody::app {

class Notices;
class SimulationController;
class Viewport;

/// Owns the Export frame and Record actions, the recording in progress (its frame sink) and the
/// status bar's red "● REC n" label. Both render offscreen through Viewport::renderFrame at the
/// chosen size, never while a frame is in flight (the buffers are mapped then): an export waits
/// for the frame's return, and a recording writes the frames the controller flags
/// (FrameResult::record), asked for with SimulationController::setRecordEvery (connected here).
/// In a scripted run a failure asks the window to exit (exitRequested) instead of showing a box.
class RecordingPresenter : public QObject {
    Q_OBJECT
public:
    RecordingPresenter(QMainWindow* window, Viewport* viewport, SimulationController* controller, Notices& notices);

    QAction* exportAction() const { return m_exportAction; }
    QAction* recordAction() const { return m_recordAction; }
    bool recording() const { return m_recording.has_value(); }

    /// A frame came back: writes it when it is a recorded one, then any export waiting for it.
    void onFrame(const FrameResult& result);
    /// Writes `path` (PNG or JPEG) now when no frame is in flight, else after it; false after
    /// a failure (told to the user, or exitRequested in a scripted run).
    bool exportFrame(const QString& path, QSize size, int quality);
    /// Opens the sink and asks the controller to flag every `every`-th step; false (with a
    /// message) when the target cannot be used.
    bool startRecording(const QString& target, QSize size, int every, double fps);
    /// Ends the recording: finalises it, or after `failure` reports it (what was written stays).
    void stopRecording(const QString& failure = QString());

signals:
    void recordEveryRequested(int every);
    /// A scripted run cannot go on (MainWindow::exitWith).
    void exitRequested(int code, const QString& message);

private:
    void createActions(QMainWindow* window);
    void askExport();
    void toggleRecording();
    /// Renders and writes the pending export when no frame is in flight; false after a failure.
    bool runPendingExport();
    void recordFrame();
    void updateRecordUi();
    /// "&Record…", or what it does without ffmpeg.
    QString recordText() const;

    QMainWindow* m_window;
    Viewport* m_viewport;
    Notices& m_notices;
    QAction* m_exportAction = nullptr;
    QAction* m_recordAction = nullptr;
    QLabel* m_recordLabel = nullptr;

    struct PendingExport {
        QString path;
        QSize size;
        int quality = 92;
    };
    std::optional<PendingExport> m_pendingExport;
    QString m_lastExport;
    std::optional<Recording> m_recording;
    QString m_ffmpegMissing; ///< why MP4 recording is unavailable ("" when ffmpeg is there)
};

} // namespace nbody::app
