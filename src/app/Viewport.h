#pragma once
/// \file Viewport.h
/// The 3D view: a QOpenGLWidget that draws the bodies with nbody::gl::Renderer from two
/// ping-pong GL buffers, which CUDA kernels write directly when the CUDA-GL interop works.
/// It owns every GL and interop resource and releases them while its context is current
/// (aboutToBeDestroyed → cleanup(), as Qt's hellogl2 does). Drawing goes through nbody::gl
/// (libepoxy) only; this widget makes no GL calls of its own.

#include "FrameProtocol.h"

#include "gl/Camera.h"
#include "gl/Renderer.h"
#include "sim/base/MachineInfo.h"

#include <QElapsedTimer>
#include <QOpenGLWidget>
#include <QPoint>
#include <QString>
#include <QStringList>

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QPainter;

class QRubberBand;
class QTimer;

namespace nbody::gl {
class Renderer;
class ParticleBuffers;
class CudaGlInterop;
} // namespace nbody::gl

namespace nbody::app {

class Viewport : public QOpenGLWidget {
    Q_OBJECT
public:
    /// What the left mouse button does.
    enum class Tool {
        Navigate,   ///< orbit (left), pan (right/middle), zoom (wheel)
        AddBody,    ///< press at a point, drag to set the velocity, release: one body
        AddCluster, ///< the same with a small Plummer cluster
        Delete,     ///< drag a rubber band: the bodies inside are removed
    };
    Q_ENUM(Tool)

    explicit Viewport(QWidget* parent = nullptr);
    ~Viewport() override;

    /// True once initializeGL() ran and the renderer exists.
    bool isReady() const { return m_ready; }
    /// Starts a frame: maps the interop buffers (when the interop exists) and fills the request.
    /// The buffers stay mapped until finishFrame(). Returns false when GL is not ready.
    bool beginFrame(FrameRequest* request);
    /// Ends a frame: unmaps, uploads host positions when sent, stores what to draw, update()s.
    /// Reallocates the buffers (and re-registers the interop) when the result asks for more room.
    void finishFrame(const FrameResult& result);
    bool frameInFlight() const { return m_mapped || m_inFlight; }

    /// Renders the current view offscreen into a width × height image (framebuffer object), the
    /// same camera and colours as on screen, independent of the widget's size and device pixel
    /// ratio: sprites scale with height / the view's height, so a capture at the view's size in
    /// device pixels looks like the screen. Throws std::runtime_error when GL is not ready, a
    /// frame is in flight (the buffers are mapped), or the framebuffer cannot be made.
    nbody::gl::Image renderFrame(int width, int height);
    /// The view's size in device pixels (width × devicePixelRatio, rounded).
    QSize pixelSize() const;
    /// True when bodies have been drawn (a frame arrived since the last reallocation).
    bool hasContent() const { return m_haveContent; }

    /// "CUDA-GL interop" or "host upload: <why>".
    QString interopState() const { return m_interopState; }
    /// The GL renderer string of the context ("" before initializeGL).
    QString glDescription() const { return m_glDescription; }
    /// The OpenGL rows of the Device dock: the context's GL_VENDOR, GL_RENDERER and GL_VERSION
    /// (read once in initializeGL) and whether the positions drawn come through CUDA-GL interop,
    /// or why not (as interopState()). Changes are signalled by glInitialized and
    /// interopStateChanged.
    nbody::GlContextInfo glContextInfo() const;
    /// Frames drawn (swapped) since the widget was created; the owner samples it for the FPS.
    quint64 framesDrawn() const { return m_framesDrawn; }

    /// A system of more than kSubsampleAbove bodies drawn by a software renderer (GL_RENDERER
    /// names llvmpipe, softpipe or swrast), or one whose frames took longer than kSlowFrameMs, is
    /// drawn as an evenly strided subsample of at most kSampleBudget bodies, each carrying the
    /// light of those it stands for (gl::RenderStyle::sampleStride), so the window stays
    /// interactive (all 10 million bodies took seconds a frame on llvmpipe); the status bar says
    /// so (drawingChanged). Pictures (renderFrame: captures, recordings) draw every body.
    /// llvmpipe on two busy cores draws a 3 px sprite in about 1.1 µs: kSubsampleAbove bodies
    /// take 0.1 s, kSampleBudget 18 ms (a few ms with more cores).
    static constexpr std::size_t kSubsampleAbove = 100'000;
    static constexpr std::size_t kSampleBudget = 16'384;
    static constexpr double kSlowFrameMs = 100.0; ///< three such frames in a row: subsample
    /// The View dock's switch: false draws every body whatever it costs.
    void setSubsampling(bool allowed);
    bool subsampling() const { return m_subsampleAllowed; }
    /// 1 when every body is drawn, else s: bodies 0, s, 2s, … are.
    std::size_t drawStride() const { return m_drawStride; }
    /// "drawing 1 of every 20 bodies: software renderer", or "" when every body is drawn.
    QString drawingNote() const { return m_drawingNote; }
    /// From the start of the last paint to its frame on screen (swapped), ms.
    double lastFrameMs() const { return m_lastFrameMs; }
    /// The renderer is a software one (GL_RENDERER: llvmpipe, softpipe, swrast).
    bool softwareRenderer() const { return m_softwareRenderer; }

    /// Called (on the GUI thread) before GL resources are released, so the owner can make sure no
    /// worker still uses the mapped buffers.
    void setBeforeCleanup(std::function<void()> hook) { m_beforeCleanup = std::move(hook); }

    QSize sizeHint() const override { return {960, 720}; }
    /// Room to see a system and work in it: the window's minimum size keeps it (the docks
    /// scroll below theirs).
    QSize minimumSizeHint() const override { return {480, 320}; }

    /// Colour mode (a row of nbody::gl::colourModes()), sprite size in pixels, additive blending.
    void setColourMode(const nbody::gl::ColourMode* mode);
    const nbody::gl::ColourMode* colourMode() const { return m_mode; }
    void setPointSize(double pixels);
    void setAdditive(bool additive);
    /// Exposure: automatic (the default) or manual, and the compensation in stops (EV, −8 … 8;
    /// see nbody::gl::RenderStyle). The automatic exposure follows the scene with a time constant
    /// of 0.5 s of wall-clock time.
    void setAutoExposure(bool on);
    void setExposureEv(double ev);
    /// The exposure of the last frame drawn on screen (0 before the first).
    float exposure() const;
    /// Sprites shrink with distance from the camera (nbody::gl::RenderStyle::sizeByDistance).
    void setSizeByDistance(bool on);
    /// Labels of named bodies (the Solar System's planets), on by default.
    void setLabelsVisible(bool visible);
    /// The labels of the last frame (empty when the system names no bodies).
    const std::vector<nbody::gl::Label>& labels() const { return m_labels; }
    void setLegendVisible(bool visible);
    /// The group names the legend shows now (colour by group: the groups the system holds).
    QStringList legendGroups() const;
    /// Overlays: the bodies' bounding box (from FrameResult::bounds) and x/y/z axes at the origin.
    void setShowBounds(bool show);
    void setShowAxes(bool show);
    /// Fading trails: the light of earlier frames fades out instead of being cleared, with a time
    /// constant of `seconds` of wall-clock time (the light of a frame Δt ago is kept as
    /// exp(−Δt / τ)), so trails fade at the same pace whatever the frame rate, and also while the
    /// simulation is paused (the view repaints until they are gone, about 8 τ). On screen only:
    /// captures and recordings are single frames. Cleared whenever the system is replaced (open,
    /// new, reset) or N changes (an edit).
    void setTrails(bool trails);
    void setTrailSeconds(double seconds);
    bool trails() const { return m_trails; }

    /// The left button's tool (toolChanged when it changes). After an Add body or Add cluster
    /// launch (the release) the tool goes back to Navigate, so the next click does not add
    /// again, unless Shift is held at the release (to add several).
    void setTool(Tool tool);
    Tool tool() const { return m_tool; }
    /// Fit-to-system keeps the viewing direction (true) or returns to the default one (false,
    /// Reset camera); used for the next framing sphere the controller reports.
    void setFitKeepsDirection(bool keep) { m_fitKeepsDirection = keep; }
    /// Follow the centre of mass: the camera target moves with the centres the frames report.
    void setFollowCentre(bool follow) { m_follow = follow; }
    void setCentre(const glm::vec3& centre);
    /// Follow the selected body: the camera target moves with the position the frames report
    /// for it (FrameResult::selectedPosition).
    void setFollowSelection(bool follow);
    /// The selected body's position, drawn as a ring (nullopt: none selected).
    std::optional<nbody::Double3> selectedPosition() const { return m_selected; }
    /// Where `p` lands in the widget (logical pixels from the top left), false when behind the camera.
    bool projectToWidget(const nbody::Double3& p, QPointF* pixel) const;
    /// The Add body tool's predicted path (LaunchPreview), drawn as a polyline while the drag
    /// lasts, with its readout beside the cursor; an empty path clears it.
    void setLaunchPath(const std::vector<nbody::Double3>& path, const QString& readout);
    const std::vector<nbody::Double3>& launchPath() const { return m_launchPath; }
    QString launchReadout() const { return m_launchReadout; }
    /// The pick radius of a click, logical pixels.
    static constexpr double kPickRadiusPx = 8.0;

public slots:
    /// Frames the last framing sphere the controller reported.
    void fitCamera();

signals:
    /// AddBody / AddCluster: a body or cluster at `position` (length units) with the drag from
    /// it in length units (the controller turns it into a velocity).
    void addRequested(double x, double y, double z, double dragX, double dragY, double dragZ, bool cluster);
    /// Delete: the bodies whose projection falls into the NDC rectangle (x0, y0)–(x1, y1).
    void removeRequested(const std::array<float, 16>& viewProjection, float x0, float y0, float x1, float y1);
    /// Navigate: a click without a drag at (px, py) of a width × height view (logical pixels):
    /// select the body nearest there within `radiusPx` (SimulationController::selectAt).
    void pickRequested(const std::array<float, 16>& viewProjection, double px, double py, int width, int height,
                       double radiusPx);
    /// Esc (no edit drag in progress): end the selection.
    void selectionClearRequested();
    /// AddBody: a drag began (the prediction's field is wanted), moved (start and drag in length
    /// units, as addRequested), ended (released or cancelled).
    void launchDragStarted();
    void launchDragMoved(double x, double y, double z, double dragX, double dragY, double dragZ);
    void launchDragEnded();
    /// The tool changed (setTool, or Navigate again after a launch).
    void toolChanged(nbody::app::Viewport::Tool tool);
    void interopStateChanged(const QString& state);
    /// drawingNote() changed.
    void drawingChanged(const QString& note);
    void glInitialized();
    void glFailed(const QString& message);
    /// A frame brought a new system (FrameResult::systemReplaced), with its default colour mode.
    void systemReplaced(const QString& defaultColourMode);

protected:
    void initializeGL() override;
    void paintGL() override;
    void resizeGL(int w, int h) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    nbody::gl::RenderStyle style(float devicePixelRatio) const;
    void clearTrails();
    void cleanup();
    void allocate(std::size_t capacity);
    /// The frame's per-body scalars (speed or group) into the GL buffer, when the colour mode reads them.
    void uploadScalars(const FrameResult& result);
    /// The selection ring's body and, while following it, the camera's target.
    void takeSelection(const FrameResult& result);
    void setInteropState(bool inUse, const QString& whyNot);
    void onFrameSwapped();
    /// m_drawStride and m_drawingNote for the next paint (drawingChanged when they change).
    void chooseDrawStride();

    std::unique_ptr<nbody::gl::Renderer> m_renderer;
    std::unique_ptr<nbody::gl::ParticleBuffers> m_buffers;
    std::unique_ptr<nbody::gl::CudaGlInterop> m_interop;
    std::unique_ptr<nbody::gl::ViewHistory> m_history; ///< trails and the smoothed exposure
    QElapsedTimer m_clock;          ///< wall-clock time of the view (trails, exposure)
    QTimer* m_settleTimer = nullptr; ///< repaints while trails fade or the exposure settles
    qint64 m_lastPaintMs = -1;      ///< m_clock time of the last paint
    qint64 m_paintStartNs = -1;     ///< m_clock time of the last paint's start (lastFrameMs)
    double m_lastFrameMs = 0;
    bool m_softwareRenderer = false;
    bool m_subsampleAllowed = true;
    int m_slowFrames = 0;           ///< frames in a row slower than kSlowFrameMs, every body drawn
    bool m_slow = false;            ///< frames were slow at this N: subsample
    std::size_t m_drawStride = 1;
    QString m_drawingNote;
    qint64 m_lastContentMs = 0;     ///< m_clock time of the last frame that brought positions
    qint64 m_lastInteractionMs = -100000; ///< m_clock time of the last camera move by the user
    float m_trailSeconds = 0.3f;
    bool m_autoExposure = true;
    float m_exposureEv = 0.f;
    bool m_sizeByDistance = false;
    bool m_showLabels = true;
    std::vector<nbody::gl::Label> m_labels;
    QString m_interopWhyNot;
    QString m_interopState;
    bool m_interopInUse = false;
    QString m_interopStateWhyNot; ///< the reason in m_interopState ("" when in use)
    nbody::gl::Renderer::ContextStrings m_glStrings;
    QString m_glDescription;
    bool m_ready = false;
    bool m_mapped = false;
    bool m_inFlight = false;
    std::function<void()> m_beforeCleanup;

    nbody::gl::OrbitCamera m_camera;
    std::optional<nbody::FramingSphere> m_framing;
    std::size_t m_count = 0;
    int m_current = 0;
    float m_massMin = 0.f, m_massMax = 1.f;
    bool m_haveContent = false;
    bool m_lastDeviceDrawn = false; ///< the last frame's positions were written by CUDA (interop)

    QPoint m_lastMouse;
    Qt::MouseButtons m_dragButtons;
    Tool m_tool = Tool::Navigate;
    bool m_editing = false; ///< a left drag of an edit tool is in progress
    QPoint m_editStart;
    QRubberBand* m_rubberBand = nullptr;
    bool m_fitKeepsDirection = false;
    const nbody::gl::ColourMode* m_mode = nullptr;
    float m_pointSize = 3.f;
    bool m_additive = true;
    bool m_haveScalars = false;
    float m_scalarMin = 0.f, m_scalarMax = 1.f;
    std::uint8_t m_groupsPresent = 0; ///< the groups of the last Group scalars (gl::bodyScalars)
    class LegendOverlay* m_legend = nullptr;
    bool m_showBounds = false, m_showAxes = false, m_trails = false;
    std::optional<std::array<float, 6>> m_bounds;
    void drawOverlays(int width, int height);
    void updateLegend();
    bool m_follow = false;
    bool m_followSelection = false;
    std::optional<nbody::Double3> m_selected;
    std::vector<nbody::Double3> m_launchPath;
    QString m_launchReadout;
    QPoint m_pressPos;
    bool m_pressMoved = false; ///< the left button moved the camera since the press
    void drawSelectionAndReadout(QPainter& painter);
    void emitLaunchDrag(const QPoint& end);
    glm::vec2 ndc(const QPoint& p) const;
    float aspect() const;

    quint64 m_framesDrawn = 0;
};

} // namespace nbody::app
