#pragma once
/// \file FrameSink.h
/// Where a sequence of rendered frames goes: numbered image files in a directory, or an MP4
/// video encoded by an `ffmpeg` process fed raw RGBA frames through a pipe. Qt-free: used by
/// `nbody render` and by the app's File → Record….
///
/// Failures (a full disk, a directory that cannot be written, ffmpeg exiting) throw
/// std::runtime_error naming the target and the reason. What was written stays readable: every
/// image file is written atomically (complete or absent), and the video is a fragmented MP4
/// (one fragment per second of video), so the fragments ffmpeg finished play even when the
/// recording is cut short. The video is encoded into a temporary file beside the target and
/// renamed to the target's name only by a successful finish(); after a failure the part that
/// was written is kept as `<stem>.partial.mp4` (reported in the message), never under the
/// target's name.

#include "Renderer.h"

#include <memory>
#include <string>

namespace nbody::gl {

/// How the frames are stored.
enum class SinkKind {
    ImageSequence, ///< <dir>/frame_00000.png, frame_00001.png, … (numbered from 0, 5 digits or more)
    Mp4,           ///< H.264 in a fragmented MP4 through ffmpeg (libx264, yuv420p)
};

/// Mp4 when `target` ends in .mp4 (any case), else ImageSequence (a directory).
SinkKind sinkKindFor(const std::string& target);

/// The ffmpeg executable: $NBODY_FFMPEG when set, else `ffmpeg` found in $PATH. Returns "" and
/// sets *whyNot when there is none ("ffmpeg was not found in PATH: install Debian's ffmpeg
/// package (scripts/deps.sh does)").
std::string findFfmpeg(std::string* whyNot = nullptr);

struct SinkOptions {
    std::string target;         ///< a directory (created when its parent exists) or FILE.mp4
    int width = 0, height = 0;  ///< every frame's size in pixels (odd sizes are padded by one for H.264)
    double fps = 30.0;          ///< frame rate of the video, frames per second of playback
    int crf = 18;               ///< libx264 constant rate factor (0 lossless … 51 worst)
    std::string prefix = "frame_"; ///< image file names: prefix + number + ".png"
};

class FrameSink {
public:
    virtual ~FrameSink() = default;
    /// Appends one frame (width × height RGBA, rows from the top). Throws std::runtime_error;
    /// after a throw the sink is closed (see the file comment) and further writes throw.
    virtual void write(const Image& frame) = 0;
    /// Finalises the output (waits for ffmpeg, renames the video into place). Throws
    /// std::runtime_error when that fails. Returns the path of the result.
    virtual std::string finish() = 0;
    /// Stops without finalising: the video keeps what was written as `<stem>.partial.mp4`.
    /// Never throws. Called by the destructor when neither finish() nor a failure closed the sink.
    virtual void abort() noexcept = 0;
    int frames() const { return m_frames; }        ///< frames written so far
    const SinkOptions& options() const { return m_options; }
    /// The image file of frame `index` (ImageSequence), or the video's path.
    virtual std::string pathOf(int index) const = 0;

protected:
    explicit FrameSink(SinkOptions options) : m_options(std::move(options)) {}
    SinkOptions m_options;
    int m_frames = 0;
};

/// What stops an image sequence from being written into directory `target` with file names
/// `prefix` + number + ".png": the target is not a directory, its parent does not exist, it already
/// holds such frames, it cannot be listed or written. Empty when nothing does. Creates nothing
/// (openFrameSink creates a missing directory). Never throws.
std::string imageSequenceProblem(const std::string& target, const std::string& prefix = "frame_");

/// What stops a recording into `target` from starting, as openFrameSink would find it before the
/// first frame: for a video (a name ending in .mp4) a target that is a device, a directory or in a
/// missing or unwritable directory, or no ffmpeg in PATH; for an image sequence
/// imageSequenceProblem(target). Empty when nothing does. Creates nothing. Never throws.
std::string recordTargetProblem(const std::string& target);

/// Opens a sink of the kind sinkKindFor(options.target) names. Checks everything that can be
/// checked before the first frame: sizes, the directory (created when missing but its parent
/// exists; refused when it already holds files named like the frames, which would mix two
/// recordings), a target that is a device or not writable, ffmpeg's presence. Throws
/// std::runtime_error naming the problem.
std::unique_ptr<FrameSink> openFrameSink(const SinkOptions& options);

} // namespace nbody::gl
