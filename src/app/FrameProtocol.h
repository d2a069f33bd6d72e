#pragma once
/// \file FrameProtocol.h
/// The messages of the frame protocol between the GUI thread (which owns the GL context and the
/// CUDA-GL interop) and the SimulationController on its worker thread.
///
///   GUI thread                                   worker thread
///   ──────────                                   ─────────────
///   makeCurrent; interop->map(&p0, &p1)
///   emit frameRequested(FrameRequest{p0,p1,cap}) ──▶ advance(): apply pending commands, attach
///                                                    p0/p1 (CUDA kernel), step, detach
///   makeCurrent; interop->unmap(); upload host  ◀── emit frameReady(FrameResult)
///   positions if sent; update()
///
/// At most one request is in flight. While it is, the GUI thread does not touch the mapped
/// buffers and the worker does not touch GL.

#include "gl/Renderer.h"
#include "sim/perf/LaunchPredictor.h"
#include "sim/core/Selection.h"
#include "sim/core/SimParams.h"
#include "sim/core/Simulation.h"
#include "contracts/Types.h"
#include "contracts/World.h"

#include <QMetaType>
#include <QString>

#include <array>
#include <memory>
#include <optional>
#include <vector>

namespace nbody::app {

/// What the GUI thread hands to SimulationController::advance().
struct FrameRequest {
    quintptr device0 = 0;    ///< mapped interop buffer 0 (Float4*), 0 when not mapped
    quintptr device1 = 0;    ///< mapped interop buffer 1 (Float4*), 0 when not mapped
    qulonglong capacity = 0; ///< bodies each GL buffer holds
    quint64 serial = 0;      ///< echoed back in the FrameResult
    /// Mapping the interop buffers failed this frame (CudaGlInterop::map threw): the positions of
    /// the last device-drawn frame read back from its GL buffer (N Float4), so a CUDA kernel
    /// whose positions lived there goes on from them in buffers of its own; null otherwise.
    std::shared_ptr<const std::vector<nbody::Float4>> recoveredPositions;
};

/// What the controller sends back after a frame.
struct FrameResult {
    quint64 serial = 0;          ///< FrameRequest::serial
    bool valid = false;          ///< a simulation exists (false before initialisation)
    quint64 step = 0;            ///< steps since the system was created or loaded
    double time = 0.0;           ///< simulated time
    nbody::StepTiming timing;    ///< of the steps of this frame (steps == 0: none taken)
    qulonglong bodies = 0;       ///< N
    float massMin = 0.f, massMax = 1.f;
    int current = 0;             ///< buffer index holding the current positions
    QString kernelId;
    bool deviceDrawn = false;    ///< positions were written into the mapped GL buffers
    /// Host copy of the positions (N Float4) when the interop was not used; null otherwise.
    std::shared_ptr<const std::vector<nbody::Float4>> hostPositions;
    /// The GL buffers are too small: reallocate for this many bodies and ask again. Nothing in
    /// the buffers is valid then (the controller moved the state off them first).
    qulonglong needCapacity = 0;
    /// Set when the camera should frame the system (new system, or "Reset camera").
    std::optional<nbody::FramingSphere> framing;
    /// The system was replaced since the last frame (start-up, open, new, reset): the view clears
    /// its trails. With the new system's default colour mode (gl::defaultColourMode: "group"
    /// where it has groups, else "mass").
    bool systemReplaced = false;
    QString defaultColourMode;
    /// The named bodies (World::namedBodies) at their current positions, null when none.
    std::shared_ptr<const std::vector<nbody::gl::Label>> labels;
    /// One float per body for the colour modes Speed (|v|) and Group (0…3), null for Mass;
    /// with the range the Speed gradient spans (0 … 99th percentile of the speeds).
    std::shared_ptr<const std::vector<float>> scalars;
    float scalarMin = 0.f, scalarMax = 1.f;
    /// With the Group scalars: the groups the system holds (gl::bodyScalars' bits), for the legend.
    std::uint8_t groupsPresent = 0;
    /// Axis-aligned bounds of the bodies (min x, y, z, max x, y, z), when reporting them is on.
    std::optional<std::array<float, 6>> bounds;
    /// The centre of mass, when following it is on (SimulationController::setFollowCentre).
    std::optional<nbody::Double3> centre;
    /// Block time steps (SimParams::timestep): bodies per level at the last step's start,
    /// "0:12 1:30 4:2" (levelHistogramText); empty with fixed steps.
    QString levelHistogram;
    QString error;               ///< a failure during this frame (already recovered from)
    /// The error was a GPU fault (CudaError): the run is paused at the last good state kept on
    /// the host, with the kernel still selected; setKernel("cpu") + start() continue on the CPU.
    bool cudaFailed = false;
    bool running = false;        ///< run state after this frame
    bool runFinished = false;    ///< a "steps to run" budget was used up in this frame
    bool workPending = false;    ///< more commands are queued: request another frame
    bool record = false;         ///< a recording is on and this frame is one of its frames
    /// Simulation::fullDownloads() after this frame: the full copies of a device state to the
    /// host so far (0 with a CPU kernel), so a test can tell which frames copied the state.
    quint64 fullDownloads = 0;
    /// The selected body (SimulationController::selectAt): its position every frame (the view's
    /// marker and the camera's follow), and its report (the Selection dock) refreshed at most
    /// ten times a second (an O(N) pass) and whenever the selection changes.
    /// The position is the body's row alone (Simulation::body: with a CUDA kernel one row copied
    /// back), never a copy of the whole state.
    std::optional<nbody::Double3> selectedPosition;
    std::optional<nbody::BodyReport> selection;
    /// The selection ended in this frame: cleared (a click on empty space, Esc), the body was
    /// removed, or the system was replaced; `selectionMessage` says which ("" when cleared).
    bool selectionCleared = false;
    QString selectionMessage;
};

/// What the Add body tool's prediction needs (SimulationController::requestLaunchField): the
/// field of the bodies held fixed at the moment of the request and the numbers that turn a drag
/// into a launch (the same as SimulationController::addAt uses).
struct LaunchContext {
    nbody::LaunchField field;
    double speedPerDragLength = 1; ///< launchSpeedPerDragLength of the system
    double dynamicalTime = 1;      ///< dynamicalTime of the system, time units
    double dt = 0.01;              ///< the simulation's signed step, signedTimeStep (−dt in reverse)
    quint64 serial = 0;            ///< the request's
};

} // namespace nbody::app

Q_DECLARE_METATYPE(nbody::app::FrameRequest)
Q_DECLARE_METATYPE(nbody::app::FrameResult)
Q_DECLARE_METATYPE(nbody::SimParams)
Q_DECLARE_METATYPE(nbody::Diagnostics)
Q_DECLARE_METATYPE(std::shared_ptr<const nbody::app::LaunchContext>)
