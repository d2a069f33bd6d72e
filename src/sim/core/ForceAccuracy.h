#pragma once
/// \file ForceAccuracy.h
/// Force accuracy as the user's parameter for the tree rows (SimParams::forceAccuracy): the
/// calibration table that maps the opening angle θ of each tree row of the kernel registry to
/// the step-0 relative force error it gives, and the choice of θ for a target.
///
/// The error measured is the one `nbody validate` reports (sim/validate/Validation.h): per body,
/// |a − a_ref| / |a_ref| against the fp64 direct sum, at step 0; the table holds its 99th
/// percentile (nearest rank) and its median over the bodies.
///
/// How the table was measured: a Plummer sphere (scenario `plummer`: Hénon units, ε² = 4e-4,
/// seed 42) of N = 131 072 bodies, leaf size 16 (the default), Bonsai's opening criterion (the
/// one criterion of the tree rows, contracts/Tree.h). tree-cpu: `nbody validate --kernel
/// tree-cpu --scenario plummer --theta T --bodies 131072 --steps 1 --reference sampled`, whose
/// step-0 errors are those of a fixed random sample of 32 768 bodies, each against all N in fp64
/// (CPU, GCC 12, Release). tree: the same command with `--kernel tree` on an NVIDIA H200
/// (docs/tree.md). Other N, other systems and other leaf sizes give other errors: at N below the
/// calibration's the p99 is lower (fewer cells are accepted as multipoles), so a target is met
/// with margin there; docs/tree.md gives the figures.
///
/// The choice (chooseOpeningAngle): the largest θ of the row's table whose calibrated p99 is at
/// most the target. Only the table's θ are chosen, never one between two rows: the error of an
/// interpolated θ would be a guess, a row's is a measurement. A target looser than the largest
/// θ's p99 takes the largest θ (with a note: the error is then below the target); a target
/// tighter than the smallest θ's p99 is refused (an exact sum is an all-pairs row).

#include "sim/core/KernelRegistry.h"
#include "sim/core/SimParams.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace nbody {

/// One measured opening angle: θ and the step-0 relative force error it gives.
struct AccuracyPoint {
    double theta = 0;  ///< opening angle θ
    double p99 = 0;    ///< 99th percentile of |a − a_ref| / |a_ref| over the bodies
    double median = 0; ///< median of the same
};

/// The calibration of one tree row (and opening criterion): points in increasing θ.
struct ForceAccuracyCalibration {
    std::string_view kernel;    ///< kernel registry id ("tree-cpu")
    std::string_view criterion; ///< the opening criterion measured ("Bonsai": l/θ + δ, contracts/Tree.h)
    std::string_view system;    ///< "Plummer sphere (scenario plummer, eps2 = 4e-4)"
    std::size_t bodies = 0;     ///< N of the measurement
    std::uint64_t seed = 0;     ///< seed of the system
    int leafSize = 0;           ///< leaf size of the measurement
    std::string_view device;    ///< where it was measured ("CPU, 32 768 sampled bodies", "NVIDIA H200")
    std::span<const AccuracyPoint> points; ///< increasing θ (so decreasing accuracy)
};

/// Every calibrated tree row (one entry per kernel row and opening criterion).
std::span<const ForceAccuracyCalibration> forceAccuracyCalibrations();
/// The calibration of kernel row `kernelId`, or nullptr (an all-pairs row, an uncalibrated row).
const ForceAccuracyCalibration* findForceAccuracyCalibration(std::string_view kernelId);

/// The θ chosen for a target.
struct OpeningAngleChoice {
    AccuracyPoint point;  ///< the table's row chosen: θ and its calibrated p99 and median
    bool loosest = false; ///< the target is looser than the largest θ's p99: the largest θ
    /// One line for the user: "tree-cpu: theta = 0.5 for force accuracy 1e-03 (calibrated p99
    /// 7.7e-04, median 1.2e-04 on a Plummer sphere of 131072 bodies)", and for `loosest`
    /// "…; the table's largest theta, its p99 is below the target".
    std::string note;
};

/// The largest θ of `kernelId`'s table whose calibrated p99 is ≤ `target`. Throws
/// std::invalid_argument naming the problem: a target ≤ 0 or not finite, a row with no table,
/// or a target tighter than the table's smallest θ reaches ("force accuracy 1e-05 is tighter
/// than tree-cpu's calibration reaches: p99 1.1e-04 at theta = 0.2, its smallest; give --theta
/// below 0.2, or use an all-pairs kernel").
OpeningAngleChoice chooseOpeningAngle(std::string_view kernelId, double target);

/// `p` as kernel row `k` runs it: for a tree row with a force accuracy set (forceAccuracy > 0),
/// openingAngle replaced by chooseOpeningAngle's θ; otherwise `p` unchanged. Throws as
/// chooseOpeningAngle. Simulation applies it whenever its kernel or parameters change, so every
/// command and the app run the same θ for the same target and row.
SimParams withForceAccuracy(const KernelInfo& k, SimParams p);

} // namespace nbody
