#pragma once
/// \file LaunchPreview.h
/// The Add body tool's predicted path: while a drag sets the velocity of the body being added,
/// predictLaunch (sim/perf/LaunchPredictor.h) runs on a worker thread (QtConcurrent) in the field the
/// controller captured at the press (LaunchContext), cancelled and restarted as the drag moves;
/// the newest finished prediction is reported (older ones are dropped).

#include "FrameProtocol.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <optional>

namespace nbody::app {

class LaunchPreview : public QObject {
    Q_OBJECT
public:
    explicit LaunchPreview(QObject* parent = nullptr);
    ~LaunchPreview() override;

    /// The field to predict in (from SimulationController::launchFieldReady); a drag that moved
    /// before it arrived is predicted now.
    void setContext(std::shared_ptr<const LaunchContext> context);
    /// T in dynamical times of the system (RunDock's "Launch preview").
    void setDurationTimes(double times) { m_times = times; }
    double durationTimes() const { return m_times; }
    /// The new body's mass (the Add body tool's, mass units; 0: a test particle): a prediction
    /// with its own pull when LaunchPredictor allows (launchIsLive), else as a test particle,
    /// and the readout says which.
    /// `shown`: the mass as the readout writes it ("1 Earth masses"); empty: the number.
    void setMass(double mass, const QString& shown = {})
    {
        m_mass = mass;
        m_massText = shown;
    }
    double mass() const { return m_mass; }
    /// Predicts the body added at `start` with the drag `drag` (length units, as
    /// Viewport::addRequested): velocity = drag × LaunchContext::speedPerDragLength. Cancels the
    /// prediction still running.
    void predict(const nbody::Double3& start, const nbody::Double3& drag);
    /// Cancels the prediction and forgets the context (the drag ended).
    void stop();
    /// "mass 0.01 · speed 0.52 · periapsis 0.13 from the heaviest body (t = 1.2) · with its own
    /// pull" for a prediction (or "· as a test particle (its own pull left out)").
    static QString readout(const nbody::LaunchPrediction& p, double mass, bool truncatedShown = true,
                           const QString& massText = {});

signals:
    /// A finished prediction (the newest request's) and its readout.
    void predicted(const std::vector<nbody::Double3>& path, const QString& readout);

private:
    std::shared_ptr<const LaunchContext> m_context;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    quint64 m_generation = 0;
    double m_times = 3.0;
    double m_mass = 0;
    QString m_massText;
    std::optional<std::pair<nbody::Double3, nbody::Double3>> m_pending; ///< a drag before the context
};

} // namespace nbody::app
