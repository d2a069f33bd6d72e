#pragma once
/// \file ForceAccuracy.h
/// Force accuracy as the user's parameter for the tree rows (SimParams::forceAccuracy): the
/// calibration tables that map the opening settings of each tree row of the kernel registry —
/// per opening criterion: θ for the geometric one, α (with θ = 1 as its guard) for the relative
/// one — to the step-0 relative force error they give and the work they cost, and the choice of
/// the cheapest setting for a target.
///
/// The error measured is the one `nbody validate` reports (sim/validate/Validation.h): per body,
/// |a − a_ref| / |a_ref| against the fp64 direct sum, at step 0; the table holds its 99th
/// percentile (nearest rank) and its median over the bodies.
///
/// How the table was measured: a Plummer sphere (scenario `plummer`: Hénon units, ε² = 4e-4,
/// seed 42) of N = 131 072 bodies, leaf size 16 (the default), Bonsai's geometric opening
/// criterion (contracts/Tree.h) and, for tree-cpu, GADGET-2's relative criterion on top of it
/// (SimParams::openingAlpha, θ = 1). tree-cpu: `nbody validate --kernel tree-cpu --scenario
/// plummer --theta T [--opening-alpha A] --bodies 131072 --steps 1 --reference sampled`, whose
/// step-0 errors are those of a fixed random sample of 32 768 bodies, each against all N in fp64
/// (CPU, GCC 12, Release). tree: the same command with `--kernel tree` on an NVIDIA H200, and at
/// N = 1 048 576 on an NVIDIA H100 with both criteria (docs/tree.md). The error grows with N
/// (more cells are accepted as multipoles), so a row's tables are per N and a system takes those
/// of the smallest calibrated N at or above its own (calibrationBodies): below that N a target
/// is met with margin. Other systems and other leaf sizes give other errors; docs/tree.md gives
/// the figures.
///
/// The work of a setting: body–body plus 2.4 × body–cell interactions per body (a cell
/// interaction costs about 2.4 body interactions in the sums; docs/tree.md), counted by
/// `treeWork` on the same system; the CUDA row walks the same lists at the same θ, so its
/// counts are tree-cpu's.
///
/// The choice (chooseOpeningAngle): of the row's settings whose calibrated p99 is at most the
/// target, the one of least work. Only the table's settings are chosen, never one between two
/// points: the error of an interpolated θ would be a guess, a point's is a measurement. A target
/// looser than every setting needs takes the cheapest one (with a note: the error is then below
/// the target); a target tighter than the most accurate setting's p99 is refused (an exact sum
/// is an all-pairs row).

#include "sim/core/KernelRegistry.h"
#include "sim/core/SimParams.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nbody {

/// One measured setting: θ (and α), the step-0 relative force error it gives and its work.
struct AccuracyPoint {
    double theta = 0;  ///< opening angle θ (the guard's, with α > 0)
    double p99 = 0;    ///< 99th percentile of |a − a_ref| / |a_ref| over the bodies
    double median = 0; ///< median of the same
    double alpha = 0;  ///< the relative criterion's α (SimParams::openingAlpha); 0: geometric alone
    double work = 0;   ///< body + 2.4 × cell interactions per body
};

/// The calibration of one tree row (and opening criterion): points in increasing θ.
struct ForceAccuracyCalibration {
    std::string_view kernel;    ///< kernel registry id ("tree-cpu")
    std::string_view criterion; ///< the opening criterion measured ("Bonsai": l/θ + δ; GADGET-2's relative one)
    std::string_view system;    ///< "Plummer sphere (scenario plummer, eps2 = 4e-4)"
    std::size_t bodies = 0;     ///< N of the measurement
    std::uint64_t seed = 0;     ///< seed of the system
    int leafSize = 0;           ///< leaf size of the measurement
    std::string_view device;    ///< where it was measured ("CPU, 32 768 sampled bodies", "NVIDIA H200")
    std::span<const AccuracyPoint> points; ///< increasing θ, or α (so decreasing accuracy and work)
};

/// Every calibrated tree row (one entry per kernel row, opening criterion and N).
std::span<const ForceAccuracyCalibration> forceAccuracyCalibrations();
/// The N of the tables that apply to a system of `bodies` bodies on row `kernelId`: the smallest
/// calibrated N ≥ bodies (the error grows with N, so that table's p99 bounds the system's), else
/// the largest calibrated N (the system is larger than every table); 0 for a row without
/// calibration. bodies = 0 (not known): the smallest calibrated N.
std::size_t calibrationBodies(std::string_view kernelId, std::size_t bodies = 0);
/// The first calibration of kernel row `kernelId` at calibrationBodies(kernelId, bodies) (its
/// geometric criterion's), or nullptr (an all-pairs row, an uncalibrated row).
const ForceAccuracyCalibration* findForceAccuracyCalibration(std::string_view kernelId, std::size_t bodies = 0);
/// The settings worth choosing for row `kernelId` on a system of `bodies` bodies, over all its
/// calibrations at calibrationBodies(kernelId, bodies): those that no other setting beats in
/// both p99 and work, in increasing p99 (so decreasing work). Empty for a row without
/// calibration.
std::vector<AccuracyPoint> accuracyChoices(std::string_view kernelId, std::size_t bodies = 0);

/// The setting chosen for a target.
struct OpeningAngleChoice {
    AccuracyPoint point;  ///< the setting chosen: θ, α and its calibrated p99, median and work
    bool loosest = false; ///< the target is looser than the cheapest setting's p99: that one
    /// One line for the user: "tree: theta = 0.5 for force accuracy 1.0e-03 (calibrated p99
    /// 7.3e-04, median 1.2e-04 on a Plummer sphere of 131072 bodies)"; with α "tree-cpu: theta =
    /// 1, alpha = 0.004 for …"; for `loosest` "…; the table's cheapest setting, whose p99 is below
    /// the target".
    std::string note;
    /// The N of the tables the choice was made from (calibrationBodies).
    std::size_t calibrationBodies = 0;
    /// The system (chooseOpeningAngle's `bodies`) is larger than every calibration's N: its error
    /// can exceed the calibrated p99 (the note says so, with the measured figures).
    bool largerThanCalibration = false;
};

/// The setting of least work among accuracyChoices(kernelId, bodies) whose calibrated p99 is ≤
/// `target`: from the tables of the smallest calibrated N ≥ bodies (0: not known, the smallest
/// N). For a system larger than every calibration's N the note adds that the error grows with N,
/// with the measured figures, since the choice then promises less error than the system gets.
/// Throws std::invalid_argument naming the problem: a target ≤ 0 or not finite, a row with no
/// table, or a target tighter than the most accurate setting reaches ("force accuracy 1.0e-05 is
/// tighter than tree-cpu's calibration at 131072 bodies reaches: p99 4.0e-05 at theta = 0.2, its smallest; give
/// the opening angle theta below 0.2, or use an all-pairs kernel").
OpeningAngleChoice chooseOpeningAngle(std::string_view kernelId, double target, std::size_t bodies = 0);

/// `p` as kernel row `k` runs it on a system of `bodies` bodies: for a tree row with a force
/// accuracy set (forceAccuracy > 0), openingAngle and openingAlpha replaced by
/// chooseOpeningAngle's θ and α for that N; otherwise `p` unchanged. Throws as
/// chooseOpeningAngle. Simulation applies it whenever its kernel, its parameters or its N change,
/// so every command and the app run the same θ for the same target, row and N.
SimParams withForceAccuracy(const KernelInfo& k, SimParams p, std::size_t bodies);

} // namespace nbody
