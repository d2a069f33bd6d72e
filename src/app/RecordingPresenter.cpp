#include "RecordingPresenter.h"

#include "Notices.h"
#include "SimulationController.h"
#include "Viewport.h"

#include "gl/FrameSink.h"
#include "gl/Renderer.h"

#include <QAction>
#include <QDialog>
#include <QLabel>
#include <QMainWindow>
#include <QStatusBar>

#include <algorithm>

namespace nbody::app {

RecordingPresenter::RecordingPresenter(QMainWindow* window, Viewport* viewport, SimulationController* controller,
                                       Notices& notices)
    : QObject(window), m_window(window), m_viewport(viewport), m_notices(notices)
{
    createActions(window);
    m_recordLabel = new QLabel(window);
    m_recordLabel->setStyleSheet(QStringLiteral("QLabel { color: white; background: #d01010; font-weight: bold; "
                                                "padding: 0 6px; border-radius: 3px; }"));
    m_recordLabel->setVisible(false);
    window->statusBar()->insertPermanentWidget(0, m_recordLabel);
    connect(this, &RecordingPresenter::recordEveryRequested, controller, &SimulationController::setRecordEvery);
}

void RecordingPresenter::createActions(QMainWindow* window)
{
    m_exportAction = new QAction(tr("E&xport frame…"), window);
    m_exportAction->setShortcut(Qt::CTRL | Qt::Key_E);
    m_exportAction->setStatusTip(tr("Save the view as PNG or JPEG, at the view's size or a chosen one"));
    connect(m_exportAction, &QAction::triggered, this, &RecordingPresenter::askExport);

    {
        std::string why;
        if (nbody::gl::findFfmpeg(&why).empty())
            m_ffmpegMissing = QString::fromStdString(why);
    }
    m_recordAction = new QAction(recordText(), window);
    m_recordAction->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_R);
    m_recordAction->setStatusTip(m_ffmpegMissing.isEmpty()
                                     ? tr("Record every k-th step as numbered PNG files or an MP4 video")
                                     : tr("Record every k-th step as numbered PNG files; MP4 needs ffmpeg: %1")
                                           .arg(m_ffmpegMissing));
    m_recordAction->setToolTip(m_recordAction->statusTip());
    connect(m_recordAction, &QAction::triggered, this, &RecordingPresenter::toggleRecording);
}

QString RecordingPresenter::recordText() const
{
    return m_ffmpegMissing.isEmpty() ? tr("&Record…") : tr("&Record… (image sequences only: ffmpeg not found)");
}

void RecordingPresenter::onFrame(const FrameResult& result)
{
    if (m_recording && result.record && (result.hostPositions || result.deviceDrawn))
        recordFrame();
    runPendingExport();
}

void RecordingPresenter::askExport()
{
    ExportFrameDialog dialog(m_viewport->pixelSize(), m_lastExport, m_window);
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_lastExport = dialog.path();
    exportFrame(dialog.path(), dialog.frameSize(), dialog.jpegQuality()); // now, or after the frame in flight
}

bool RecordingPresenter::exportFrame(const QString& path, QSize size, int quality)
{
    m_pendingExport = PendingExport{path, size, quality};
    return runPendingExport();
}

bool RecordingPresenter::runPendingExport()
{
    if (!m_pendingExport || m_viewport->frameInFlight())
        return true;
    const PendingExport e = *m_pendingExport;
    m_pendingExport.reset();
    try {
        const nbody::gl::Image image = m_viewport->renderFrame(e.size.width(), e.size.height());
        nbody::gl::writeImage(e.path.toStdString(), image, nbody::gl::ImageFormat::Unknown, e.quality);
    } catch (const std::exception& ex) {
        const QString message = QString::fromUtf8(ex.what());
        m_notices.status(tr("Export failed: %1").arg(message), 15000);
        if (m_notices.scripted())
            emit exitRequested(1, message);
        else
            m_notices.warn(tr("Export frame"), message);
        return false;
    }
    m_notices.status(tr("Saved %1 (%2 × %3)").arg(e.path).arg(e.size.width()).arg(e.size.height()), 10000);
    return true;
}

void RecordingPresenter::toggleRecording()
{
    if (m_recording) {
        stopRecording();
        return;
    }
    RecordDialog dialog(m_viewport->pixelSize(), m_ffmpegMissing, m_window);
    if (dialog.exec() != QDialog::Accepted)
        return;
    startRecording(dialog.target(), dialog.frameSize(), dialog.every(), dialog.fps());
}

bool RecordingPresenter::startRecording(const QString& target, QSize size, int every, double fps)
{
    nbody::gl::SinkOptions o;
    o.target = target.toStdString();
    o.width = size.width();
    o.height = size.height();
    o.fps = fps;
    try {
        Recording r;
        r.sink = nbody::gl::openFrameSink(o);
        r.size = size;
        r.every = std::max(1, every);
        m_recording = std::move(r);
    } catch (const std::exception& e) {
        const QString message = QString::fromUtf8(e.what());
        m_notices.status(message, 15000);
        m_notices.report(tr("Record"), message);
        return false;
    }
    emit recordEveryRequested(m_recording->every);
    updateRecordUi();
    return true;
}

void RecordingPresenter::recordFrame()
{
    try {
        m_recording->sink->write(m_viewport->renderFrame(m_recording->size.width(), m_recording->size.height()));
    } catch (const std::exception& e) {
        stopRecording(QString::fromUtf8(e.what()));
        return;
    }
    updateRecordUi();
}

void RecordingPresenter::stopRecording(const QString& failure)
{
    if (!m_recording)
        return;
    emit recordEveryRequested(0);
    Recording r = std::move(*m_recording);
    m_recording.reset();
    updateRecordUi();
    QString problem = failure;
    QString where;
    if (problem.isEmpty()) {
        try {
            where = QString::fromStdString(r.sink->finish());
        } catch (const std::exception& e) {
            problem = QString::fromUtf8(e.what());
        }
    }
    if (!problem.isEmpty()) {
        const QString text = tr("Recording stopped after %n frame(s): %1", nullptr, r.sink->frames()).arg(problem);
        m_notices.status(text, 30000);
        if (m_notices.scripted())
            emit exitRequested(1, text);
        else
            m_notices.warn(tr("Record"), text);
        return;
    }
    m_notices.status(tr("Recorded %n frame(s) to %1", nullptr, r.sink->frames()).arg(where), 15000);
}

void RecordingPresenter::updateRecordUi()
{
    const bool on = m_recording.has_value();
    m_recordLabel->setVisible(on);
    if (on) {
        m_recordLabel->setText(tr("● REC %1").arg(m_recording->sink->frames()));
        m_recordLabel->setToolTip(tr("Recording every %1 step(s) at %2 × %3 to %4")
                                      .arg(m_recording->every)
                                      .arg(m_recording->size.width())
                                      .arg(m_recording->size.height())
                                      .arg(QString::fromStdString(m_recording->sink->options().target)));
    }
    m_recordAction->setText(on ? tr("Stop &recording") : recordText());
}

} // namespace nbody::app
