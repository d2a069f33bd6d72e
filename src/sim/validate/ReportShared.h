#pragma once
// Helpers the validation report's text, JSON and HTML writers share (ValidationReport.cpp,
// ValidationHtml.cpp); not part of the library's interface.
#include "sim/validate/ValidationReport.h"

#include <cstddef>
#include <string>

namespace nbody::report {

/// A number in %.2e style; "nan", "inf" and "-inf" for non-finite values.
std::string sci(double v);
/// The shortest decimal that reads back as the same float (the fp32 parameters dt and eps2:
/// 0.002f is written 0.002, not 0.0020000000949949026).
double shortestFloat(float v);
/// "PASS", "FAIL", "ERROR".
std::string verdictUpper(Verdict v);
struct Counts {
    std::size_t pass = 0, fail = 0, error = 0, total = 0;
};
Counts countVerdicts(const ValidationReport& r);
/// "11 of 11 kernels pass", "1 of 1 kernel passes", "no kernels were validated".
std::string passLine(const Counts& c);
/// The step-0 relative force threshold of a kernel's precision (all-pairs rows; see forceOver).
double forceThreshold(const ValidationThresholds& t, Precision p);
/// Whether the kernel's step-0 force error is over its threshold: for all-pairs rows, a body fails
/// both tests of the per-body rule (KernelValidation::forceBodies); tree rows: p99 or median.
bool forceOver(const ValidationThresholds& t, const KernelValidation& k);
/// The energy criterion's bound: max(energy, |ΔE/E0 (reference)|).
double energyBound(const ValidationReport& r);
/// "block size auto, block rows 1, …": the launch parameters of p, 0 as "auto".
std::string launchDescription(const SimParams& p);

} // namespace nbody::report
