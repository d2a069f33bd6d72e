#pragma once
/// \file SimulationController.h
/// Owns the nbody::Simulation on a worker thread (Qt's mandelbrot pattern). Widgets talk to it
/// only through queued signals and slots; it never touches GL. Commands that change the
/// simulation (reset, load, kernel, parameters) are queued and applied at the start of the next
/// advance(), inside the window where the GUI thread has the interop buffers mapped, so a CUDA
/// kernel working on caller-provided buffers always has them attached (see FrameProtocol.h).

#include "FrameProtocol.h"

#include <QList>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace nbody { class Simulation; class World; }

namespace nbody::app {

/// How the first system is made (the command line of nbody-sandbox).
struct StartupConfig {
    QString kernelId = QStringLiteral("cpu");
    qulonglong bodies = 8192;   ///< size of the default system (uniform cube)
    QString inputFile;          ///< Tipsy file; empty: the default system
    int stepsToRun = 0;         ///< 0: until paused
    int stepsPerFrame = 1;
    bool startRunning = false;
    int diagnosticsInterval = 0; ///< steps between diagnostics evaluations (0: none; the app: 10)
};

class SimulationController : public QObject {
    Q_OBJECT
public:
    explicit SimulationController(QObject* parent = nullptr);
    ~SimulationController() override;

    bool running() const { return m_running; }

    /// Thread-safe, called directly (not queued) from the GUI thread before a queued pause() or
    /// shutdown(): the frame in progress stops stepping at the next chunk boundary (chunks last
    /// about 50 ms, at least one step), so Pause and Quit do not wait for a long batch.
    void requestInterrupt() { m_interrupt.store(true); }

public slots:
    /// Creates the first system (queued as a command). Emits startupFailed() when the input file
    /// cannot be read (the default system is used then).
    void initialize(const nbody::app::StartupConfig& config);
    /// One frame of the protocol: applies pending commands, steps, emits frameReady().
    void advance(const nbody::app::FrameRequest& request);

    void start();
    void pause();
    void setRunning(bool running);
    void stepOnce();
    /// Regenerates the default system or reloads the opened file's initial state.
    void reset();
    /// Reads a Tipsy file now; on success the new system replaces the current one at the next
    /// frame (dt and eps2 from deriveScaleDefaults), else loadFailed() and the current is kept.
    void loadFile(const QString& path);
    void setKernel(const QString& id);
    void setDt(double dt);
    void setEps2(double eps2);
    void setBlockSize(int blockSize);
    void setTileWidthFactor(int factor);
    /// Steps between diagnostics evaluations (SimParams::diagnosticsInterval; 0: none).
    void setDiagnosticsInterval(int steps);
    /// 0 = until paused; > 0: the next run pauses after that many steps.
    void setStepsToRun(int steps);
    void setStepsPerFrame(int steps);
    /// A frame stops stepping after about this many ms (default 500; 0: never), so a large
    /// "steps per frame" on a slow kernel still redraws twice a second.
    void setFrameBudget(int ms);
    /// Asks for a framing sphere of the current state in the next frame.
    void requestFraming();
    /// Destroys the simulation (on this thread). Called blocking before the thread quits.
    void shutdown();

signals:
    void frameReady(const nbody::app::FrameResult& result);
    /// A command needs a frame to be applied (the GUI requests one when idle).
    void workQueued();
    void runningChanged(bool running);
    void kernelChanged(const QString& id);
    void paramsChanged(const nbody::SimParams& params);
    void bodiesChanged(qulonglong bodies);
    void stepsToRunChanged(int steps);
    void stepsPerFrameChanged(int steps);
    void sourceChanged(const QString& description); ///< "uniform cube, 8192 bodies" / file name
    /// A command was refused (the previous value stays); what: "kernel", "dt", "block size", …
    void commandFailed(const QString& what, const QString& message);
    void loadFailed(const QString& path, const QString& message);
    void startupFailed(const QString& message);
    /// The diagnostics evaluated during a frame (Simulation's observer), in order; emitted
    /// before frameReady() of that frame.
    void diagnosticsMeasured(const QList<nbody::Diagnostics>& samples);
    /// A new system was installed (start-up, reset, load): earlier samples belong to another run.
    void diagnosticsRestarted();

private:
    struct Command {
        std::function<void()> apply;
        std::size_t requiredCapacity = 0; ///< bodies the GL buffers must hold to apply it
        QString what;                     ///< for error messages
    };
    void enqueue(Command command);
    void installWorld(nbody::World world, const QString& source, bool deriveParams);
    void changeParams(const QString& what, const std::function<void(nbody::SimParams&)>& edit);
    void publishState();
    bool pendingWork() const;
    /// Steps up to `steps` in chunks, stopping early on requestInterrupt(); returns the steps taken.
    int stepInterruptibly(int steps, nbody::StepTiming& timing);

    std::unique_ptr<nbody::Simulation> m_sim;
    std::unique_ptr<nbody::World> m_initialWorld; ///< for reset()
    QString m_source;
    std::vector<Command> m_pending;
    bool m_running = false;
    std::atomic<bool> m_interrupt{false};
    int m_frameBudgetMs = 500;
    int m_stepsRequested = 0; ///< Step presses not yet taken
    bool m_framingRequested = false;
    bool m_firstFrame = true;
    int m_stepsToRun = 0;
    int m_stepsRemaining = 0;
    int m_stepsPerFrame = 1;
    std::pair<float, float> m_massRange{0.f, 1.f};
    QList<nbody::Diagnostics> m_newDiagnostics; ///< evaluated in this frame, not yet emitted

    // last published values (signals are emitted only on change)
    QString m_publishedKernel;
    std::optional<nbody::SimParams> m_publishedParams;
    qulonglong m_publishedBodies = 0;
};

} // namespace nbody::app

Q_DECLARE_METATYPE(nbody::app::StartupConfig)
