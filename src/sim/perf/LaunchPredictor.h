#pragma once
/// \file LaunchPredictor.h
/// The predicted path of a body about to be launched (the app's Add body tool).
///
/// The new body is a test particle in the field of the others held fixed where they are now:
///
///     a(x) = G Σ_j m_j (x_j − x) / (|x_j − x|² + ε²)^{3/2}     (the force contract, Plummer softening)
///
/// integrated with KDK leapfrog in fp64 (kick ½ a dt, drift dt, a at the new position, kick
/// ½ a dt; the same scheme as the simulation's `leapfrog` row, Integrators.h) with the
/// simulation's signed time step and ε²: when time runs backwards (SimParams::reverse) every step
/// is −dt (signedTimeStep), as the run will take it, so the path is where the body goes as the
/// clock runs back. Holding the others fixed is what makes the prediction cheap (O(N) per
/// step, no O(N²) system) and is exact for a body launched around a dominant mass that barely
/// moves over the prediction (a planet around a star, a probe past a black hole); in a live
/// cluster it is the path in the current field, which the real run departs from as the others
/// move. The body's own mass does not enter its path (the test-particle limit).
///
/// With its real mass (LaunchRequest::mass > 0) in a small system (a field of at most
/// kMaxLiveLaunchSources bodies, all of them: the Solar System, a few-body problem), the
/// prediction is the N-body problem itself: the new body and every source move, each pulled by
/// all the others (the same KDK leapfrog, fp64, O((N+1)²) per step), so a heavy body launched
/// past a star moves the star and the path shows it (launchIsLive). In a larger field the body
/// is a test particle whatever its mass, and LaunchPrediction::testParticle says so (the app's
/// readout names the assumption).
///
/// The work is bounded so a drag stays interactive: the field keeps at most `maxSources` bodies
/// (every k-th, masses scaled so the total mass is kept), and at most `maxSteps` steps are taken
/// (the path then ends early: LaunchPrediction::truncated).

#include "contracts/Types.h"
#include "contracts/World.h"

#include <atomic>
#include <cstddef>
#include <optional>
#include <vector>

namespace nbody {

/// The bodies that attract the launched one, frozen.
struct LaunchField {
    std::vector<Double4> sources; ///< (x, y, z, m): length and mass units
    double G = 1.0;               ///< length³ mass⁻¹ time⁻²
    double eps2 = 0.0;            ///< softening ε², length²
    double totalMass = 0;         ///< Σ m of the whole system (kept by the subsampling)
    Double3 centreOfMass;         ///< of the whole system
    /// Velocities of the sources (length / time), one per source: a live prediction moves them.
    std::vector<Double3> velocities;
    /// Index in `sources` of a dominant body (one holding at least half of the total mass: a
    /// star, a black hole), else none; the periapsis is measured from it, else from the centre
    /// of mass.
    std::optional<std::size_t> dominant;
    bool subsampled = false; ///< every k-th body of a larger system (k > 1)
};

/// The field of `world`'s bodies (fp32 columns widened) with G and ε²: all of them when
/// N <= maxSources, else every k-th body, k = ceil(N / maxSources), each with its mass scaled by
/// M / M_kept so the total mass M is kept. Throws std::invalid_argument for maxSources = 0 or a
/// G that is not positive and finite.
LaunchField makeLaunchField(const World& world, double G, double eps2, std::size_t maxSources = 16384);

/// a(x) of the field (see the file comment), fp64; the sum over the sources in index order.
Double3 fieldAcceleration(const LaunchField& field, const Double3& x);

/// What to predict.
struct LaunchRequest {
    Double3 position;           ///< start, length units
    Double3 velocity;           ///< launch velocity, length / time
    double duration = 1.0;      ///< T: span of time to predict, time units (> 0, either direction)
    /// The step, time units: the simulation's signed step, signedTimeStep(params) — negative when
    /// time runs backwards (SimParams::reverse); nonzero.
    double dt = 0.01;
    std::size_t maxSteps = 20000;   ///< cap on the steps (ceil(T / |dt|) unless it is larger)
    std::size_t maxPathPoints = 1000; ///< the path keeps at most this many points (every k-th step)
    /// The new body's mass, mass units (≥ 0): 0 is a test particle; a positive mass makes the
    /// prediction live when the field allows it (launchIsLive).
    double mass = 0;
};

/// The largest field (sources) a live prediction integrates whole.
inline constexpr std::size_t kMaxLiveLaunchSources = 256;

/// True when a body of `mass` launched into `field` is predicted with its real mass (every
/// source moving with it): mass > 0, the field whole (not subsampled) and at most
/// kMaxLiveLaunchSources bodies with a velocity each.
bool launchIsLive(const LaunchField& field, double mass);

/// Pair interactions one prediction step costs: N for a test particle, (N + 1)² live; the app
/// bounds the steps with it so a drag stays interactive.
double launchPairsPerStep(const LaunchField& field, double mass);

/// The predicted path and the numbers the Add body tool shows.
struct LaunchPrediction {
    /// Positions at t = 0, every k-th step, and at the last step (polyline), length units.
    std::vector<Double3> path;
    std::size_t steps = 0;      ///< steps taken
    double timeCovered = 0;     ///< steps × dt (negative when dt is: time runs backwards)
    bool truncated = false;     ///< maxSteps ended it before T
    bool cancelled = false;     ///< the cancel flag ended it (path so far)
    double speed = 0;           ///< |v| at launch
    /// Closest approach along the path (every step, not only the points kept) to the dominant
    /// body when the field has one, else to the centre of mass; length units.
    double periapsis = 0;
    double periapsisTime = 0;   ///< when it happens, time units from the launch (signed as dt)
    bool aroundDominant = false; ///< measured from LaunchField::dominant (else the centre of mass)
    /// The body was predicted as a test particle (mass 0, or a field too large to integrate with
    /// it: launchIsLive false); false: with its real mass, every source moving.
    bool testParticle = true;
};

/// Integrates the body (see the file comment: live with its mass when launchIsLive, else as a
/// test particle). `cancel`, when given, is polled every
/// step: set, it ends the prediction (cancelled = true). Throws std::invalid_argument for a
/// duration that is not positive and finite, a dt that is zero or not finite, a non-finite
/// start, maxSteps = 0 or maxPathPoints < 2.
LaunchPrediction predictLaunch(const LaunchField& field, const LaunchRequest& request,
                               const std::atomic<bool>* cancel = nullptr);

/// The speed a drag of one framing radius gives a launched body: sqrt(G M / R) / R per length
/// unit of drag, with M the total mass and R the framing radius (framingSphere) of `world`, so a
/// drag across R gives the system's typical (virial) speed. The Add body tool and its prediction
/// both use it. 1/R·sqrt(G·1e-30/R) for a massless world.
double launchSpeedPerDragLength(const World& world, double G);

/// The dynamical time of `world`, sqrt(R³ / (G M)) with R its framing radius and M its mass:
/// the default prediction covers a few of them. Infinity for a massless world.
double dynamicalTime(const World& world, double G);

} // namespace nbody
