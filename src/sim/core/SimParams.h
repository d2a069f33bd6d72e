#pragma once
/// \file SimParams.h
/// Every run-time parameter of a simulation, with units and defaults (the predecessor's
/// compile-time constants, made run-time).

#include "contracts/ForceArgs.h"

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nbody {

/// Parameters of the physics and of the force kernels; each field is a row of the parameter
/// table (ParamTable.h), which declares its label, unit, range, doc and who reads it. Units are the system's own ("N-body
/// units" for generated systems: length, mass and time such that G = 1 unless set otherwise).
struct SimParams {
    double G = 1.0;              ///< gravitational constant, length³ mass⁻¹ time⁻²
    float eps2 = 0.002f;         ///< softening ε², length²; Plummer softening of every pair
    float dt = 0.1f;             ///< time step of the KDK leapfrog, time units
    // Launch parameters of the CUDA kernels. 0 means "auto": the tuned value for this device,
    // kernel and N bucket when the tuning cache has one (sim/core/Launch.h), else the kernel row's
    // default (KernelInfo::defaults; 256 threads, factor 1, 1 row for the older rows). A non-zero
    // value is the user's and overrides the tuner. deviceForceArgs() resolves them.
    int blockSize = 0;           ///< CUDA threads per block for GPU kernels (1..device limit; 0 auto)
    int tileWidthFactor = 0;     ///< `tiled`: bodies staged per tile = blockSize × factor (1, 2, 4, …; 0 auto)
    int blockRows = 0;           ///< 2D kernels: rows (bodies i) per block; threads = blockSize × blockRows (0 auto)
    int bodiesPerThread = 0;     ///< `blocked` rows: i-bodies each thread keeps in registers (1, 2, 4, 8; 0 auto)
    int jSplit = 0;              ///< `blocked` rows: pieces the j-range is split into across blocks (≥ 1; 0 auto)
    int unroll = 0;              ///< `blocked` rows: unroll of the loop over a tile (1, 2, 4, 8; 0 auto)
    // Parameters of the tree rows (KernelInfo::method == ForceMethod::Tree; contracts/Tree.h). All-pairs
    // rows ignore them.
    /// Barnes–Hut opening angle θ, in (0, kMaxOpeningAngle]: a cell of size l acts as one
    /// multipole on a group farther than l/θ + its offset. 0.3 is the largest θ (in steps of
    /// 0.05) that meets the accuracy goal (p99 relative force error ≤ 1e-3, median ≤ 1e-4) with
    /// margin on a Plummer sphere and the galaxy collision at N = 65 536 and 100 000 (the
    /// binding case, Plummer at N = 100 000: median 7.9e-5, p99 5.0e-4; θ = 0.35 gives a
    /// median of 1.03e-4); docs/tree.md.
    float openingAngle = kDefaultOpeningAngle;
    /// Tree rows: an opened cell of at most this many bodies is summed body by body
    /// (1..tree::kMaxLeafSize). 16 leaves margin on the median at θ = 0.3 (12: 8.4e-5, 16:
    /// 7.9e-5 at the binding case) for 13 % more work; docs/tree.md.
    int leafSize = kDefaultLeafSize;
    /// Tree rows: α of the relative opening criterion (Springel 2005, GADGET-2, eq. 18),
    /// dimensionless, in [0, 1]; 0: none (the geometric criterion at openingAngle alone). When
    /// positive, a cell of mass M and longest side l is accepted for a group at distance d only
    /// if also G M l² / d⁴ ≤ α |a_old| for the group's smallest |a_old| (the accelerations of the
    /// previous evaluation; a pre-pass at openingAngle where there are none), so openingAngle is
    /// then the guard (e.g. 1). `tree-cpu` only so far; docs/tree.md.
    double openingAlpha = 0.0;
    /// Tree rows: the target p99 of the step-0 relative force error |a − a_ref| / |a_ref|
    /// against the fp64 direct sum, dimensionless; 0: none (openingAngle and openingAlpha as
    /// given). When set, openingAngle and openingAlpha are the cheapest setting of the row's
    /// calibration tables whose measured p99 is at most this (sim/core/ForceAccuracy.h;
    /// Simulation replaces them whenever its kernel or parameters change; docs/tree.md).
    double forceAccuracy = 0.0;
    int diagnosticsInterval = 0; ///< steps between automatic energy/momentum evaluations; 0 = on request only
    /// CUDA kernels: steps between copies of the device state to the host (a download of N
    /// positions, velocities and accelerations that waits for the device). The host copy is the
    /// last good state a GPU fault falls back to (Simulation::abandonDeviceState): at most this
    /// many steps are lost. 0: copied only when the host reads the state.
    int hostCopyInterval = 0;
    /// All-pairs CUDA kernels: one force pass as this many launches over slices of the bodies i
    /// (each launch sums over all bodies j: bit-identical results for the deterministic rows).
    /// 0: auto — one launch, unless the device has a kernel-execution timeout (a display GPU's
    /// watchdog), then as many as keep each launch's predicted time under watchdogLaunchMs.
    int forceSlices = 0;
    /// The predicted time, ms, one force launch is kept under on a device with a kernel-execution
    /// timeout (forceSlices 0); the watchdog kills kernels after a few seconds.
    double watchdogLaunchMs = 100.0;
    /// CUDA kernels: a step is captured once into a CUDA graph and replayed (one launch per step
    /// instead of four per substep; bit-identical results); false: plain launches every step.
    bool cudaGraphs = true;
    /// The collision system (sim/collide/Collisions.h): after each step, bodies closer than the sum of
    /// their radii merge (perfectly inelastic; mass, momentum and centre of mass conserved).
    bool collisions = false;
    /// Row of the contact-search registry (contactSearches()); "auto": the fastest row for the
    /// kernel's backend and N.
    std::string contactSearch = "auto";
    /// Several processes (sim/core/ForceShare.h, docs/mpi.md): each force exchange as this many
    /// chunks of every process's rows, the collective of chunk c running while chunk c + 1 is
    /// computed (bit-identical results: each row's j-sum is unchanged). 1: one blocking
    /// MPI_Allgatherv; 0: auto (exchangeChunksFor). Ignored by a single process.
    int exchangeChunks = 0;
    /// Time runs backwards: every step advances by −dt (signedTimeStep) and the simulated time
    /// decreases. KDK leapfrog and Yoshida's composition are time-symmetric, so steps with −dt
    /// retrace the steps taken with +dt up to rounding (docs/app.md, "Reverse"). Refused with
    /// `collisions` on: a merge cannot be undone (Simulation throws std::invalid_argument).
    bool reverse = false;
    std::string integrator = "leapfrog"; ///< time integrator, a row of the integrator registry (Integrators.h)
    /// Time steps: "fixed" (every body takes dt) or "block" (hierarchical block time steps,
    /// BlockSteps.h: each body on a level k with step dt / 2^k from the criterion; dt is then the
    /// largest step, and every step of dt ends at a synchronisation point). Block steps take the
    /// leapfrog, forwards, in a single process.
    std::string timestep = "fixed";
    /// Block steps: accuracy parameter η of the criterion dt_i = η · sqrt(ℓ_i / |a_i|) (ℓ_i = ε,
    /// or the nearest-neighbour distance when ε² = 0), dimensionless; smaller is more accurate.
    double eta = 0.1;
    /// Block steps: the deepest level L, so the smallest step is dt / 2^L (0..kMaxBlockLevels;
    /// 0 is the fixed step).
    int maxLevels = 10;
    /// Values of the parameters declared at run time (declareParam, ParamTable.h: tests,
    /// extensions), as text by key; the built-in parameters are the fields above.
    std::map<std::string, std::string, std::less<>> extra;

    /// Every field (every row of the parameter table, declared rows through `extra`).
    bool operator==(const SimParams&) const = default;
};

/// The signed time step of one step, time units: −dt when `reverse`, else dt (negation is exact,
/// so a reversed step uses bit for bit the negated substep lengths w_i·dt of a forward one).
inline double signedTimeStep(const SimParams& p) { return p.reverse ? -double(p.dt) : double(p.dt); }

/// "" when the parameters allow running backwards in time, else why not ("time cannot run
/// backwards while the collision system merges bodies: a merge cannot be undone").
std::string reverseProblem(const SimParams& p);

/// The predecessor's default system: a uniform random cube.
struct CubeParams {
    std::size_t bodies = 8192;   ///< N
    double halfWidth = 1.0e5;    ///< positions uniform in [-halfWidth, halfWidth]³, length units
    double massMin = 1.0e5;      ///< masses uniform in [massMin, massMax], mass units
    double massMax = 1.0e9;
    std::uint64_t seed = 42;     ///< seed of the generator: the same seed gives the same bodies
};

/// Largest opening angle θ a tree row accepts (θ > 1 accepts cells that contain the group).
inline constexpr double kMaxOpeningAngle = 2.0;

/// "" when a tree row can use opening angle θ and this leaf size, else what is wrong, naming the
/// parameter ("opening angle theta = 3 is outside (0, 2]", "leaf size 40 is outside 1..32").
std::string treeParamsProblem(double theta, int leafSize);

/// Returns a one-line human description from the parameter table (ParamTable.h: each row's
/// brief name and value, auto for 0 where 0 means auto): "G=1 eps2=0.002 dt=0.1
/// integrator=leapfrog theta=0.3 leaf=16 block=auto …".
std::string describe(const SimParams& p);

} // namespace nbody
