#include "Viewport.h"

#include "ViewDock.h"

#include "gl/CudaGlInterop.h"
#include "gl/Renderer.h"
#include "contracts/Errors.h"

#include <QGuiApplication>
#include <QFontMetrics>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QRubberBand>
#include <QOpenGLContext>
#include <QTimer>
#include <QWheelEvent>

#include <glm/gtc/type_ptr.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <exception>

namespace nbody::app {

Viewport::Viewport(QWidget* parent) : QOpenGLWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    m_camera.fit(glm::vec3(0.f), 1.0e5f * 1.7320508f);
    connect(this, &QOpenGLWidget::frameSwapped, this, &Viewport::onFrameSwapped);
    m_mode = &nbody::gl::colourModes()[0];
    m_legend = new LegendOverlay(this);
    updateLegend();
    m_clock.start();
    m_settleTimer = new QTimer(this);
    m_settleTimer->setSingleShot(true);
    m_settleTimer->setInterval(33);
    connect(m_settleTimer, &QTimer::timeout, this, qOverload<>(&Viewport::update));
}

Viewport::~Viewport()
{
    cleanup();
    if (QOpenGLContext* ctx = context())
        disconnect(ctx, nullptr, this, nullptr);
}

// ---- GL lifetime ----------------------------------------------------------------------------

void Viewport::initializeGL()
{
    // Release everything while the context is still current when it goes (hellogl2).
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &Viewport::cleanup,
            Qt::UniqueConnection);
    try {
        m_renderer = std::make_unique<nbody::gl::Renderer>();
        m_buffers = std::make_unique<nbody::gl::ParticleBuffers>();
        m_history = std::make_unique<nbody::gl::ViewHistory>();
        m_glDescription = QString::fromStdString(nbody::gl::Renderer::contextDescription());
        m_glStrings = nbody::gl::Renderer::contextStrings(); // the Device dock's OpenGL rows
        const QString renderer = QString::fromStdString(m_glStrings.renderer).toLower();
        m_softwareRenderer = renderer.contains(QLatin1String("llvmpipe")) || renderer.contains(QLatin1String("softpipe")) ||
                             renderer.contains(QLatin1String("swrast"));
        m_ready = true;
        m_haveContent = false;
        emit glInitialized();
    } catch (const std::exception& e) {
        m_history.reset();
        m_renderer.reset();
        m_buffers.reset();
        m_ready = false;
        emit glFailed(QString::fromUtf8(e.what()));
    }
}

void Viewport::cleanup()
{
    if (!m_renderer && !m_buffers && !m_interop && !m_history)
        return;
    if (m_beforeCleanup)
        m_beforeCleanup(); // no worker may use the mapped buffers any more
    const bool current = context() && context()->isValid();
    if (current)
        makeCurrent();
    if (m_interop && m_mapped)
        m_interop->unmap();
    m_mapped = false;
    m_inFlight = false;
    m_interop.reset(); // unregister before the buffers go
    m_buffers.reset();
    m_history.reset();
    m_renderer.reset();
    m_ready = false;
    m_haveContent = false;
    m_count = 0;
    if (current)
        doneCurrent();
}

void Viewport::allocate(std::size_t capacity)
{
    // caller made the context current
    m_interop.reset();
    m_haveContent = false;
    m_haveScalars = false;
    try {
        m_buffers->allocate(std::max<std::size_t>(capacity, 1));
    } catch (const std::exception& e) {
        emit glFailed(QString::fromUtf8(e.what()));
        return;
    }
    std::string why;
    m_interop = nbody::gl::CudaGlInterop::create(*m_buffers, &why);
    m_interopWhyNot = m_interop ? QString() : QString::fromStdString(why);
    if (!m_interop && m_interopWhyNot.isEmpty())
        m_interopWhyNot = QStringLiteral("CUDA-GL interop unavailable");
    setInteropState(m_interop != nullptr, m_interopWhyNot);
}

void Viewport::setInteropState(bool inUse, const QString& whyNot)
{
    const QString state = inUse ? QStringLiteral("CUDA-GL interop") : QStringLiteral("host upload: ") + whyNot;
    if (state == m_interopState)
        return;
    m_interopState = state;
    m_interopInUse = inUse;
    m_interopStateWhyNot = inUse ? QString() : whyNot;
    emit interopStateChanged(state);
}

nbody::GlContextInfo Viewport::glContextInfo() const
{
    nbody::GlContextInfo info;
    if (m_glStrings.vendor.empty()) {
        info.error = "the view's OpenGL context is not created yet";
    } else {
        info.context = QStringLiteral("the view's (Qt %1 QOpenGLWidget, platform %2)")
                           .arg(QString::fromLatin1(qVersion()), QGuiApplication::platformName())
                           .toStdString();
        info.vendor = m_glStrings.vendor;
        info.renderer = m_glStrings.renderer;
        info.version = m_glStrings.version;
    }
    info.headless = false;
    info.interop = m_interopInUse;
    info.whyNoInterop = m_interopInUse ? std::string() : m_interopStateWhyNot.toStdString();
    if (!m_interopInUse && info.whyNoInterop.empty())
        info.whyNoInterop = "the view's buffers are not set up yet";
    return info;
}

// ---- frame protocol -------------------------------------------------------------------------

bool Viewport::beginFrame(FrameRequest* request)
{
    if (!m_ready || m_inFlight)
        return false;
    *request = FrameRequest{};
    request->capacity = m_buffers ? m_buffers->capacity() : 0;
    if (m_interop && request->capacity > 0) {
        makeCurrent();
        try {
            nbody::Float4* p0 = nullptr;
            nbody::Float4* p1 = nullptr;
            m_interop->map(&p0, &p1);
            m_mapped = true;
            request->device0 = reinterpret_cast<quintptr>(p0);
            request->device1 = reinterpret_cast<quintptr>(p1);
        } catch (const std::exception& e) {
            // A failing map leaves the host path for good (the status bar, the Run and Device
            // docks say why, once). When the last frame's positions were written by CUDA into
            // a GL buffer, they are read back so the GPU run goes on from them.
            m_interop.reset();
            m_interopWhyNot = QString::fromUtf8(e.what());
            setInteropState(false, m_interopWhyNot);
            if (m_lastDeviceDrawn && m_haveContent) {
                try {
                    request->recoveredPositions = std::make_shared<const std::vector<nbody::Float4>>(
                        m_buffers->read(m_current, m_count));
                } catch (const std::exception& readError) {
                    emit glFailed(QString::fromUtf8(readError.what()));
                }
            }
        }
        doneCurrent();
    }
    m_inFlight = true;
    return true;
}

void Viewport::finishFrame(const FrameResult& result)
{
    if (!m_inFlight)
        return;
    m_inFlight = false;
    if (!m_ready)
        return;
    makeCurrent();
    if (m_mapped && m_interop)
        m_interop->unmap();
    m_mapped = false;

    if (result.needCapacity > 0) {
        allocate(static_cast<std::size_t>(result.needCapacity));
        doneCurrent();
        return;
    }
    if (!result.valid) {
        doneCurrent();
        return;
    }
    const std::size_t n = static_cast<std::size_t>(result.bodies);
    m_lastDeviceDrawn = result.deviceDrawn;
    if (result.hostPositions) {
        if (result.hostPositions->size() <= m_buffers->capacity()) {
            try {
                m_buffers->upload(result.current, result.hostPositions->data(),
                                  result.hostPositions->size());
            } catch (const std::exception& e) {
                emit glFailed(QString::fromUtf8(e.what()));
            }
        }
        setInteropState(false, m_interop ? QStringLiteral("the selected kernel runs on the CPU") : m_interopWhyNot);
    } else if (result.deviceDrawn) {
        setInteropState(true, QString());
    }
    doneCurrent();

    uploadScalars(result);
    if (result.systemReplaced) {
        clearTrails(); // a new system starts from black, never under the old one's trails
        emit systemReplaced(result.defaultColourMode);
    }
    if (result.hostPositions || result.deviceDrawn) {
        if (m_haveContent && std::min(n, m_buffers->capacity()) != m_count)
            clearTrails(); // an edit added or removed bodies
        m_labels = result.labels ? *result.labels : std::vector<nbody::gl::Label>();
        m_lastContentMs = m_clock.elapsed();
        m_count = std::min(n, m_buffers->capacity());
        m_current = result.current;
        m_massMin = result.massMin;
        m_massMax = result.massMax;
        m_haveContent = true;
    }
    updateLegend();
    if (result.bounds && m_showBounds)
        m_bounds = result.bounds;
    if (result.framing) {
        m_framing = result.framing;
        fitCamera();
    }
    takeSelection(result);
    update();
}

void Viewport::uploadScalars(const FrameResult& result)
{
    if (result.scalars && m_mode->source != nbody::gl::ColourSource::Mass &&
        result.scalars->size() <= m_buffers->capacity()) {
        makeCurrent();
        try {
            m_buffers->uploadScalars(result.scalars->data(), result.scalars->size());
            m_haveScalars = true;
            m_scalarMin = result.scalarMin;
            m_scalarMax = result.scalarMax;
            m_groupsPresent = result.groupsPresent;
        } catch (const std::exception& e) {
            emit glFailed(QString::fromUtf8(e.what()));
        }
        doneCurrent();
    }
}

void Viewport::takeSelection(const FrameResult& result)
{
    if (result.selectionCleared)
        m_selected.reset();
    if (result.selectedPosition) {
        m_selected = result.selectedPosition;
        const glm::vec3 p(float(m_selected->x), float(m_selected->y), float(m_selected->z));
        if (m_followSelection && std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z))
            m_camera.target = p;
    }
}

void Viewport::setFollowSelection(bool follow)
{
    m_followSelection = follow;
    if (follow && m_selected) {
        m_camera.target = glm::vec3(float(m_selected->x), float(m_selected->y), float(m_selected->z));
        update();
    }
}

bool Viewport::projectToWidget(const nbody::Double3& p, QPointF* pixel) const
{
    glm::vec2 px;
    if (!nbody::gl::Renderer::project(m_camera, glm::vec3(float(p.x), float(p.y), float(p.z)), std::max(1, width()),
                                      std::max(1, height()), &px))
        return false;
    *pixel = QPointF(px.x, px.y);
    return true;
}

void Viewport::setLaunchPath(const std::vector<nbody::Double3>& path, const QString& readout)
{
    m_launchPath = path;
    m_launchReadout = readout;
    update();
}

void Viewport::drawSelectionAndReadout(QPainter& painter)
{
    painter.setRenderHint(QPainter::Antialiasing);
    QPointF at;
    if (m_selected && projectToWidget(*m_selected, &at)) {
        // A ring with a gap around the selected body, in a colour no colour map uses for bodies.
        painter.setPen(QPen(QColor(80, 230, 255, 230), 1.8));
        painter.setBrush(Qt::NoBrush);
        painter.drawEllipse(at, 10.0, 10.0);
        painter.drawLine(at + QPointF(13, 0), at + QPointF(18, 0));
        painter.drawLine(at - QPointF(13, 0), at - QPointF(18, 0));
        painter.drawLine(at + QPointF(0, 13), at + QPointF(0, 18));
        painter.drawLine(at - QPointF(0, 13), at - QPointF(0, 18));
    }
    if (m_editing && m_tool == Tool::AddBody && !m_launchReadout.isEmpty()) {
        const QFontMetrics fm(painter.font());
        const QRect text = fm.boundingRect(QRect(0, 0, std::max(120, width() / 2), 200), Qt::TextWordWrap,
                                           m_launchReadout);
        QPoint corner = m_lastMouse + QPoint(16, 16);
        corner.setX(std::min(corner.x(), width() - text.width() - 8));
        corner.setY(std::min(corner.y(), height() - text.height() - 8));
        const QRect box(corner, text.size() + QSize(8, 6));
        painter.setPen(Qt::NoPen);
        painter.setBrush(QColor(0, 0, 0, 170));
        painter.drawRoundedRect(box, 4, 4);
        painter.setPen(QColor(255, 235, 150));
        painter.drawText(box.adjusted(4, 3, -4, -3), Qt::TextWordWrap, m_launchReadout);
    }
}

// ---- drawing --------------------------------------------------------------------------------

void Viewport::fitCamera()
{
    if (!m_framing)
        return;
    const float yaw = m_camera.yawDeg, pitch = m_camera.pitchDeg;
    m_camera.fit(glm::vec3(static_cast<float>(m_framing->x), static_cast<float>(m_framing->y),
                           static_cast<float>(m_framing->z)),
                 static_cast<float>(m_framing->radius),
                 aspect());
    if (m_fitKeepsDirection) {
        m_camera.yawDeg = yaw;
        m_camera.pitchDeg = pitch;
        m_fitKeepsDirection = false;
    }
    update();
}

float Viewport::aspect() const
{
    return static_cast<float>(std::max(1, width())) / static_cast<float>(std::max(1, height()));
}

glm::vec2 Viewport::ndc(const QPoint& p) const
{
    return {2.f * static_cast<float>(p.x()) / static_cast<float>(std::max(1, width())) - 1.f,
            1.f - 2.f * static_cast<float>(p.y()) / static_cast<float>(std::max(1, height()))};
}

void Viewport::setCentre(const glm::vec3& centre)
{
    if (m_follow && std::isfinite(centre.x) && std::isfinite(centre.y) && std::isfinite(centre.z)) {
        m_camera.target = centre;
        update();
    }
}

void Viewport::setTool(Tool tool)
{
    if (m_editing && m_tool == Tool::AddBody) { // a launch drag cut short: its preview ends too
        m_launchPath.clear();
        m_launchReadout.clear();
        emit launchDragEnded();
    }
    const bool changed = tool != m_tool;
    m_tool = tool;
    m_editing = false;
    if (m_rubberBand)
        m_rubberBand->hide();
    setCursor(tool == Tool::Navigate ? Qt::ArrowCursor : Qt::CrossCursor);
    if (changed)
        emit toolChanged(tool);
}

nbody::gl::RenderStyle Viewport::style(float devicePixelRatio) const
{
    nbody::gl::RenderStyle style;
    style.source = m_mode->source;
    style.low = m_mode->low;
    style.high = m_mode->high;
    style.massMin = m_massMin;
    style.massMax = m_massMax;
    style.scalarMin = m_scalarMin;
    style.scalarMax = m_scalarMax;
    // Until the first frame of the mode brings its scalars, Speed and Group draw everything as 0.
    style.scalarBuffer = m_haveScalars && m_buffers ? m_buffers->scalarBuffer() : 0u;
    style.pointSize = m_pointSize;
    style.additive = m_additive;
    style.autoExposure = m_autoExposure;
    style.exposureEv = m_exposureEv;
    style.sizeByDistance = m_sizeByDistance;
    style.devicePixelRatio = devicePixelRatio;
    return style;
}

void Viewport::clearTrails()
{
    if (m_history)
        m_history->clear();
}

void Viewport::setAutoExposure(bool on)
{
    m_autoExposure = on;
    update();
}

void Viewport::setExposureEv(double ev)
{
    m_exposureEv = static_cast<float>(std::clamp(ev, -8.0, 8.0));
    update();
}

float Viewport::exposure() const
{
    return m_history ? m_history->exposure() : 0.f;
}

void Viewport::setSizeByDistance(bool on)
{
    m_sizeByDistance = on;
    update();
}

void Viewport::setLabelsVisible(bool visible)
{
    m_showLabels = visible;
    update();
}

void Viewport::setTrailSeconds(double seconds)
{
    m_trailSeconds = static_cast<float>(std::clamp(seconds, 0.02, 10.0));
    update();
}

void Viewport::setColourMode(const nbody::gl::ColourMode* mode)
{
    if (!mode || mode == m_mode)
        return;
    m_mode = mode;
    m_haveScalars = false; // the next frame brings the values of the new mode
    updateLegend();
    update();
}

void Viewport::setPointSize(double pixels)
{
    m_pointSize = static_cast<float>(std::clamp(pixels, 0.5, 64.0));
    update();
}

void Viewport::setAdditive(bool additive)
{
    m_additive = additive;
    update();
}

void Viewport::setLegendVisible(bool visible)
{
    m_legend->setVisible(visible);
}

void Viewport::setShowBounds(bool show)
{
    m_showBounds = show;
    if (!show)
        m_bounds.reset();
    update();
}

void Viewport::setShowAxes(bool show)
{
    m_showAxes = show;
    update();
}

void Viewport::setTrails(bool trails)
{
    m_trails = trails;
    if (!trails)
        clearTrails();
    update();
}

void Viewport::drawOverlays(int w, int h)
{
    if (m_showBounds && m_bounds) {
        const auto& b = *m_bounds;
        m_renderer->drawLines(nbody::gl::boxLines(&b[0], &b[3], {0.9f, 0.9f, 0.4f}), m_camera, w, h);
    }
    if (m_showAxes) {
        const float origin[3] = {0.f, 0.f, 0.f};
        m_renderer->drawLines(nbody::gl::axesLines(origin, 0.5f * m_camera.sceneRadius), m_camera, w, h);
    }
    if (m_showLabels && !m_labels.empty())
        m_renderer->drawLabels(m_labels, m_camera, w, h, 2.f * static_cast<float>(h) / static_cast<float>(std::max(1, height())));
}

void Viewport::updateLegend()
{
    if (m_mode->source == nbody::gl::ColourSource::Mass)
        m_legend->setLegend(m_mode, m_massMin, m_massMax);
    else
        m_legend->setLegend(m_mode, m_scalarMin, m_scalarMax, m_groupsPresent);
}

QStringList Viewport::legendGroups() const
{
    return m_legend->groupNames();
}

void Viewport::resizeEvent(QResizeEvent* event)
{
    QOpenGLWidget::resizeEvent(event);
    m_legend->move(10, height() - m_legend->height() - 10);
}

QSize Viewport::pixelSize() const
{
    const qreal dpr = devicePixelRatioF();
    return {std::max(1, static_cast<int>(width() * dpr + 0.5)), std::max(1, static_cast<int>(height() * dpr + 0.5))};
}

void Viewport::setSubsampling(bool allowed)
{
    if (allowed == m_subsampleAllowed)
        return;
    m_subsampleAllowed = allowed;
    m_slow = false;
    m_slowFrames = 0;
    chooseDrawStride();
    update();
}

void Viewport::chooseDrawStride()
{
    if (m_count <= kSubsampleAbove) { // small again: slow frames are measured afresh
        m_slow = false;
        m_slowFrames = 0;
    }
    std::size_t stride = 1;
    QString why;
    if (m_subsampleAllowed && m_count > kSubsampleAbove) {
        if (m_softwareRenderer)
            why = tr("software renderer");
        else if (m_slow)
            why = tr("slow frames");
        if (!why.isEmpty())
            stride = (m_count + kSampleBudget - 1) / kSampleBudget;
    }
    const QString note = stride > 1 ? tr("drawing 1 of every %1 bodies: %2").arg(stride).arg(why) : QString();
    m_drawStride = stride;
    if (note != m_drawingNote) {
        m_drawingNote = note;
        emit drawingChanged(note);
    }
}

void Viewport::paintGL()
{
    if (!m_renderer)
        return;
    m_paintStartNs = m_clock.nsecsElapsed();
    chooseDrawStride();
    const QSize size = pixelSize();
    const bool draw = m_haveContent && m_buffers && m_count > 0 && !m_mapped;
    const qint64 now = m_clock.elapsed();
    const double dt = m_lastPaintMs < 0 ? 0.0 : 1e-3 * double(std::max<qint64>(now - m_lastPaintMs, 0));
    m_lastPaintMs = now;
    try {
        nbody::gl::RenderStyle st = style(static_cast<float>(devicePixelRatioF()));
        // Wall-clock time, not frames: the light of Δt ago is kept as exp(−Δt / τ), and the
        // exposure moves towards the scene's with a time constant of 0.5 s.
        if (m_trails)
            st.trailKeep = static_cast<float>(std::exp(-dt / double(m_trailSeconds)));
        st.exposureAdapt = static_cast<float>(1.0 - std::exp(-dt / 0.5));
        st.exposureEvery = 4; // measured at 15 Hz or more at 60 fps: enough for a 0.5 s time constant
        st.sampleStride = m_drawStride;
        m_renderer->draw(draw ? m_buffers->buffer(m_current) : 0u, draw ? m_count : 0, m_camera, st, size.width(),
                         size.height(), m_history.get());
        drawOverlays(size.width(), size.height());
        if (m_editing && m_tool == Tool::AddBody && m_launchPath.size() >= 2) {
            // The predicted path (LaunchPreview): a polyline, bright at the start, fading out.
            std::vector<float> v;
            v.reserve(12 * m_launchPath.size());
            const float n = float(m_launchPath.size() - 1);
            for (std::size_t i = 1; i < m_launchPath.size(); ++i) {
                const float f = 1.f - 0.7f * float(i) / n;
                for (const nbody::Double3* p : {&m_launchPath[i - 1], &m_launchPath[i]})
                    v.insert(v.end(), {float(p->x), float(p->y), float(p->z), 1.f * f, 0.85f * f, 0.3f * f});
            }
            m_renderer->drawLines(v, m_camera, size.width(), size.height());
        }
    } catch (const std::exception& e) {
        emit glFailed(QString::fromUtf8(e.what()));
    }
    if (m_selected || (m_editing && m_tool == Tool::AddBody && !m_launchReadout.isEmpty())) {
        QPainter painter(this);
        drawSelectionAndReadout(painter);
    }
    if (m_editing && m_tool != Tool::Delete) {
        // The velocity of the body being added: an arrow from the press point to the cursor.
        QPainter painter(this);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(QPen(QColor(255, 255, 255, 220), 1.5));
        painter.drawEllipse(m_editStart, m_tool == Tool::AddCluster ? 10 : 4, m_tool == Tool::AddCluster ? 10 : 4);
        painter.drawLine(m_editStart, m_lastMouse);
    }
    // While no frames come (paused, or a kernel slower than 30 frames a second), repaint until
    // the trails have faded (8 τ: 0.03 % of the light is left) and the exposure has settled (3 s,
    // 6 of its time constants). The timer restarts at every paint, so it fires only after 33 ms
    // without one: frames that keep coming add no repaints.
    const qint64 settle = std::max<qint64>(m_trails ? qint64(8000.0 * double(m_trailSeconds)) : 0, 3000);
    if (now - m_lastContentMs < settle || now - m_lastInteractionMs < 3000)
        m_settleTimer->start();
}

nbody::gl::Image Viewport::renderFrame(int w, int h)
{
    if (!m_ready || !m_renderer || !m_buffers)
        throw std::runtime_error("the OpenGL view is not ready");
    if (m_mapped || m_inFlight)
        throw std::runtime_error("a simulation frame is in progress; try again");
    const bool draw = m_haveContent && m_count > 0;
    // Sprites keep their size relative to the picture: the view's height maps to the image's.
    const float scale = static_cast<float>(h) / static_cast<float>(std::max(1, height()));
    makeCurrent();
    try {
        nbody::gl::Image image;
        {
            // Released while the context is current; paintGL binds the widget's own target.
            nbody::gl::OffscreenTarget target(w, h);
            target.bind();
            m_renderer->draw(draw ? m_buffers->buffer(m_current) : 0u, draw ? m_count : 0, m_camera, style(scale), w,
                             h); // a single frame: no trails, its own exposure
            drawOverlays(w, h);
            image = target.read();
        }
        doneCurrent();
        return image;
    } catch (...) {
        doneCurrent();
        throw;
    }
}

void Viewport::resizeGL(int, int) {}

void Viewport::onFrameSwapped()
{
    ++m_framesDrawn;
    if (m_paintStartNs < 0)
        return;
    m_lastFrameMs = 1e-6 * double(m_clock.nsecsElapsed() - m_paintStartNs);
    m_paintStartNs = -1;
    // Every body drawn, and the frames slow: a subsample from the next frame on (for this N).
    if (m_drawStride == 1 && m_subsampleAllowed && m_count > kSubsampleAbove && !m_slow) {
        m_slowFrames = m_lastFrameMs > kSlowFrameMs ? m_slowFrames + 1 : 0;
        if (m_slowFrames >= 3) {
            m_slow = true;
            update();
        }
    }
}

// ---- mouse ----------------------------------------------------------------------------------

void Viewport::mousePressEvent(QMouseEvent* event)
{
    m_lastMouse = event->position().toPoint();
    m_dragButtons = event->buttons();
    if (event->button() == Qt::LeftButton) {
        m_pressPos = m_lastMouse;
        m_pressMoved = false;
    }
    if (m_tool != Tool::Navigate && event->button() == Qt::LeftButton) {
        m_editing = true;
        m_editStart = m_lastMouse;
        if (m_tool == Tool::AddBody) {
            m_launchPath.clear();
            m_launchReadout.clear();
            emit launchDragStarted();
            emitLaunchDrag(m_lastMouse);
        }
        if (m_tool == Tool::Delete) {
            if (!m_rubberBand)
                m_rubberBand = new QRubberBand(QRubberBand::Rectangle, this);
            m_rubberBand->setGeometry(QRect(m_editStart, QSize()));
            m_rubberBand->show();
        }
    }
    event->accept();
}

void Viewport::mouseMoveEvent(QMouseEvent* event)
{
    m_lastInteractionMs = m_clock.elapsed(); // the exposure follows the new view
    const QPoint pos = event->position().toPoint();
    const QPoint d = pos - m_lastMouse;
    m_lastMouse = pos;
    if (m_editing && (event->buttons() & Qt::LeftButton)) {
        if (m_rubberBand && m_tool == Tool::Delete)
            m_rubberBand->setGeometry(QRect(m_editStart, pos).normalized());
        if (m_tool == Tool::AddBody)
            emitLaunchDrag(pos); // the prediction restarts with the new velocity
        update(); // the drag line of an add is painted over the view
    } else if (event->buttons() & Qt::LeftButton) {
        // A few pixels of jitter still count as a click (a pick), not an orbit.
        if (!m_pressMoved && (pos - m_pressPos).manhattanLength() < 4)
            return;
        m_pressMoved = true;
        m_camera.orbit(static_cast<float>(d.x()), static_cast<float>(d.y()));
    } else if (event->buttons() & (Qt::RightButton | Qt::MiddleButton)) {
        m_camera.pan(static_cast<float>(d.x()), static_cast<float>(d.y()),
                     static_cast<float>(std::max(1, height())));
    } else {
        return;
    }
    event->accept();
    update();
}

void Viewport::mouseReleaseEvent(QMouseEvent* event)
{
    m_dragButtons = event->buttons();
    if (m_editing && event->button() == Qt::LeftButton) {
        m_editing = false;
        const QPoint end = event->position().toPoint();
        if (m_tool == Tool::Delete) {
            if (m_rubberBand)
                m_rubberBand->hide();
            const glm::vec2 a = ndc(m_editStart), b = ndc(end);
            const glm::mat4 vp = m_camera.projection(aspect()) * m_camera.view();
            std::array<float, 16> m{};
            std::memcpy(m.data(), glm::value_ptr(vp), sizeof(float) * 16);
            if (m_editStart != end)
                emit removeRequested(m, a.x, a.y, b.x, b.y);
        } else {
            const glm::vec2 a = ndc(m_editStart), b = ndc(end);
            const glm::vec3 p0 = m_camera.pointOnTargetPlane(a.x, a.y, aspect());
            const glm::vec3 p1 = m_camera.pointOnTargetPlane(b.x, b.y, aspect());
            emit addRequested(p0.x, p0.y, p0.z, p1.x - p0.x, p1.y - p0.y, p1.z - p0.z, m_tool == Tool::AddCluster);
            if (m_tool == Tool::AddBody) {
                m_launchPath.clear();
                m_launchReadout.clear();
                emit launchDragEnded();
            }
            // One launch per pick of the tool: the next click navigates again (in a trial, the
            // next click into the view added a second Sun); Shift keeps the tool for more.
            if (!(event->modifiers() & Qt::ShiftModifier))
                setTool(Tool::Navigate);
        }
        update();
    } else if (m_tool == Tool::Navigate && event->button() == Qt::LeftButton && !m_pressMoved) {
        // A click without a drag: pick the body under the cursor (none there clears).
        const glm::mat4 vp = m_camera.projection(aspect()) * m_camera.view();
        std::array<float, 16> m{};
        std::memcpy(m.data(), glm::value_ptr(vp), sizeof(float) * 16);
        const QPointF at = event->position();
        emit pickRequested(m, at.x(), at.y(), std::max(1, width()), std::max(1, height()), kPickRadiusPx);
    }
    event->accept();
}

void Viewport::emitLaunchDrag(const QPoint& end)
{
    const glm::vec2 a = ndc(m_editStart), b = ndc(end);
    const glm::vec3 p0 = m_camera.pointOnTargetPlane(a.x, a.y, aspect());
    const glm::vec3 p1 = m_camera.pointOnTargetPlane(b.x, b.y, aspect());
    emit launchDragMoved(p0.x, p0.y, p0.z, p1.x - p0.x, p1.y - p0.y, p1.z - p0.z);
}

void Viewport::wheelEvent(QWheelEvent* event)
{
    m_lastInteractionMs = m_clock.elapsed(); // the exposure follows the new view
    const QPoint angle = event->angleDelta();
    if (angle.y() != 0) {
        m_camera.zoom(static_cast<float>(angle.y()) / 120.f);
        update();
    }
    event->accept();
}

void Viewport::keyPressEvent(QKeyEvent* event)
{
    m_lastInteractionMs = m_clock.elapsed(); // the exposure follows the new view
    // Arrows orbit by 6° (20 pixels' worth); with Shift they pan by 5 % of the view; + and −
    // (or Page Up / Page Down) zoom; Escape cancels an edit drag.
    const bool shift = event->modifiers() & Qt::ShiftModifier;
    const float step = 20.f, panStep = 0.05f * static_cast<float>(std::max(1, height()));
    float dx = 0.f, dy = 0.f;
    switch (event->key()) {
    case Qt::Key_Left: dx = -1.f; break;
    case Qt::Key_Right: dx = 1.f; break;
    case Qt::Key_Up: dy = -1.f; break;
    case Qt::Key_Down: dy = 1.f; break;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
    case Qt::Key_PageUp: m_camera.zoom(1.f); update(); return;
    case Qt::Key_Minus:
    case Qt::Key_PageDown: m_camera.zoom(-1.f); update(); return;
    case Qt::Key_Escape:
        if (!m_editing) {
            emit selectionClearRequested(); // nothing to cancel: Esc ends the selection
            return;
        }
        if (m_tool == Tool::AddBody) {
            m_launchPath.clear();
            m_launchReadout.clear();
            emit launchDragEnded();
        }
        m_editing = false;
        if (m_rubberBand)
            m_rubberBand->hide();
        update();
        return;
    default: QOpenGLWidget::keyPressEvent(event); return;
    }
    if (shift)
        m_camera.pan(-dx * panStep, -dy * panStep, static_cast<float>(std::max(1, height())));
    else
        m_camera.orbit(dx * step, dy * step);
    update();
}

} // namespace nbody::app
