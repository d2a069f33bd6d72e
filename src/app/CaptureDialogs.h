#pragma once
/// \file CaptureDialogs.h
/// File → Export frame… and File → Record…: the dialogs that choose where and how large, and the
/// Recorder that writes the frames the controller flags (FrameResult::record) through
/// nbody::gl::FrameSink (numbered PNG files, or MP4 through ffmpeg).

#include "gl/FrameSink.h"

#include <QDialog>
#include <QSize>
#include <QString>

#include <memory>
#include <optional>

class QButtonGroup;
class QCheckBox;
class QLineEdit;
class QRadioButton;
class QSpinBox;
class QDoubleSpinBox;
class QLabel;

namespace nbody::app {

/// "1280x720" → QSize(1280, 720) when both are in 16..16384; nullopt otherwise.
std::optional<QSize> parseFrameSize(const QString& text);

/// The size part shared by both dialogs: the view's size, or a chosen width × height.
class FrameSizeBox;

class ExportFrameDialog : public QDialog {
    Q_OBJECT
public:
    /// `viewSize`: the view's size in device pixels; `lastPath`: the previous export.
    ExportFrameDialog(QSize viewSize, const QString& lastPath, QWidget* parent = nullptr);
    QString path() const;   ///< ends in .png, .jpg or .jpeg
    QSize frameSize() const;
    int jpegQuality() const;

private:
    void browse();
    void validate();
    QLineEdit* m_path;
    FrameSizeBox* m_size;
    QSpinBox* m_quality;
    QLabel* m_problem;
};

class RecordDialog : public QDialog {
    Q_OBJECT
public:
    /// `ffmpegMissing`: why MP4 is not offered ("" when ffmpeg is there).
    RecordDialog(QSize viewSize, const QString& ffmpegMissing, QWidget* parent = nullptr);
    QString target() const; ///< a directory (image sequence) or FILE.mp4
    QSize frameSize() const;
    int every() const;      ///< steps between frames
    double fps() const;

private:
    void browse();
    void validate();
    QRadioButton* m_sequence;
    QRadioButton* m_video;
    QLineEdit* m_path;
    FrameSizeBox* m_size;
    QSpinBox* m_every;
    QDoubleSpinBox* m_fps;
    QLabel* m_problem;
};

/// A recording in progress (GUI thread). Failures throw std::runtime_error from write(); the
/// sink is closed then and what was written stays readable (see gl/FrameSink.h).
struct Recording {
    std::unique_ptr<nbody::gl::FrameSink> sink;
    QSize size;
    int every = 1;
};

} // namespace nbody::app
