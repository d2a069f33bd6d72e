#pragma once
// A validation report (sim/validate/Validation.h) made by hand for the energy chart's legend and styles
// (two curves on one another): the `reference` kernel's ΔE/E0 equals the reference run's, `cpu-copy`'s
// equals `cpu`'s, and the changes are at the fp64 level (~1e-14), where a plain Qt Charts axis
// shows an empty range. Header-only (tests/), for tst_validation_report and tst_validation_dock.
#include "sim/validate/Validation.h"

#include <string>

namespace nbody::test {

inline KernelValidation kernelRow(const std::string& id, double slope, Verdict verdict = Verdict::Pass)
{
    KernelValidation k;
    k.id = id;
    k.name = id;
    k.verdict = verdict;
    for (std::uint64_t s = 0; s <= 100; s += 10)
        k.growth.push_back({s, 0.01 * double(s), 1e-7 * double(s), 0, 0, slope * double(s), 1e-16 * double(s)});
    k.energyChange = k.growth.back().energyChange;
    return k;
}

inline ValidationReport coincidentCurvesReport()
{
    ValidationReport r;
    r.bodies = 10;
    r.steps = 100;
    r.system = "hand-made";
    for (std::uint64_t s = 0; s <= 100; s += 10)
        r.referenceGrowth.push_back({s, 0.01 * double(s), 0, 0, 0, 1e-16 * double(s), 1e-16 * double(s)});
    r.referenceEnergyChange = r.referenceGrowth.back().energyChange;
    r.kernels = {kernelRow("cpu", -3e-16), kernelRow("reference", 1e-16), kernelRow("cpu-copy", -3e-16)};
    return r;
}

} // namespace nbody::test
