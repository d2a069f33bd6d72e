#pragma once
/// \file StatusPresenter.h
/// The status bar's permanent readouts and the once-a-second figures.

#include "FrameProtocol.h"
#include "StepTimeAverage.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <optional>

class QLabel;
class QMainWindow;

namespace nbody::app {

class KernelDock;
class Notices;
class RunDock;
class SimulationController;
class Viewport;

/// Owns the status bar's permanent labels (step, simulated time, ms/step, steps per second,
/// frames per second, interactions per second, the positions' path) and a one-second timer that updates the frame rate, the step-time
/// average, the Kernel dock's measured rate and the Run dock's time-scale readout. Frames come in
/// through onFrame(); it connects the timer, Viewport::interopStateChanged and the controller's
/// sourceChanged (a new system clears the step times and the "Loading …" message) and
/// precisionRangeChecked (the system outside the kernel's precision). It also keeps
/// the run's totals for a scripted run's summary line.
class StatusPresenter : public QObject {
    Q_OBJECT
public:
    StatusPresenter(QMainWindow* window, Viewport* viewport, RunDock* runDock, KernelDock* kernelDock,
                    SimulationController* controller, Notices& notices);

    /// A valid frame: the step and time labels, and its timed steps in the average.
    void onFrame(const FrameResult& result);
    /// The running kernel (the rate reads "–" until a step of a new kernel is timed).
    void setKernel(const QString& id);
    /// The parameters in use (the time scale's direction, the summary's diagnostics interval).
    void setParams(const nbody::SimParams& params) { m_params = params; }
    void setBodies(qulonglong n) { m_bodies = n; }
    /// Forgets the step times (a new system): the status bar shows "–" until the next steps.
    void restartStepTime();
    /// A scripted run's last word on stdout: steps, mean ms/step after the first frame, fps.
    void printRunSummary() const;

private:
    void createLabels(QMainWindow* window);
    void setInteropState(const QString& state);
    /// SimulationController::precisionRangeChecked: the warnings in a non-modal box that leaves
    /// the keyboard where it is, the first in the status bar's message, and "outside the fp32
    /// range" in a permanent label (the warnings in its tooltip) while they hold.
    void showPrecisionRange(const QString& warnings);
    void updateFps();
    /// The status bar's "x ms/step", "y steps/s" and "z fps" from m_stepTime, m_stepsPerSecond
    /// and m_fps.
    void showStepTime();
    void updateTimeScale();

    Viewport* m_viewport;
    RunDock* m_runDock;
    KernelDock* m_kernelDock;
    Notices& m_notices;

    QLabel* m_stepLabel = nullptr;
    QLabel* m_timeLabel = nullptr;
    QLabel* m_msLabel = nullptr;
    QLabel* m_stepRateLabel = nullptr;
    QLabel* m_fpsLabel = nullptr;
    QLabel* m_rateLabel = nullptr;
    QLabel* m_interopLabel = nullptr;
    QLabel* m_rangeLabel = nullptr; ///< the system outside the kernel's precision (hidden when it fits)
    QLabel* m_drawingLabel = nullptr; ///< "drawing 1 of every 20 bodies: …" (hidden when all are drawn)
    QLabel* m_levelsLabel = nullptr; ///< block time steps: bodies per level (hidden with fixed steps)

    QTimer m_fpsTimer;
    QElapsedTimer m_fpsClock;
    quint64 m_fpsFrames = 0;
    double m_fps = 0.0;             ///< frames drawn per second over the last second
    quint64 m_stepsSinceTick = 0;   ///< steps the frames took since the last one-second tick
    double m_stepsPerSecond = -1.0; ///< steps taken per second over the last second; < 0: none yet
    StepTimeAverage m_stepTime;     ///< the status bar's ms/step (time in Simulation::step)
    QString m_stepTimeKernel;       ///< the kernel and N the average belongs to
    QString m_interopState;         ///< how positions reach the view ("CUDA-GL interop", "host upload: …")
    qulonglong m_stepTimeBodies = 0;
    double m_shownMsPerStep = -1.0; ///< the figure on display; < 0: none yet
    StepTimeTotals m_runTotals;     ///< since the system was created: printed at a scripted exit
    QElapsedTimer m_runClock;       ///< since the first stepping frame of the system
    quint64 m_runFrames = 0;        ///< frames drawn before it
    QString m_kernelId;
    qulonglong m_bodies = 0;
    std::optional<nbody::SimParams> m_params;

    /// The time-scale readout: simulated time and wall clock at the last readout.
    QElapsedTimer m_timeScaleClock;
    double m_timeScaleSimTime = 0;
    quint64 m_timeScaleStep = 0;
    double m_lastSimTime = 0;
    quint64 m_lastStep = 0;
};

} // namespace nbody::app
