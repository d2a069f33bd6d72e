#pragma once
/// \file DiagnosticsOutput.h
/// `nbody run --diagnostics FILE.csv [--diagnostics-every M]`: records the run's diagnostics
/// every M steps (sim/core/DiagnosticsRecorder.h) and writes them as CSV, atomically, at the end.

#include "sim/core/DiagnosticsRecorder.h"

#include <functional>
#include <string>

namespace nbody {
class Simulation;
}

namespace nbody::cli {

class DiagnosticsOutput {
public:
    /// "" when `path` can be written (checked before the run starts), else the reason.
    static std::string checkTarget(const std::string& path);

    /// Records every automatic evaluation of `sim` (the caller sets
    /// SimParams::diagnosticsInterval to M before).
    void attach(Simulation& sim);
    /// Adds the final state when the last evaluation was before it (the number of steps is no
    /// multiple of M); `measure` runs Simulation::measure() where the positions are reachable.
    void addFinal(Simulation& sim, const std::function<Diagnostics()>& measure);
    /// Writes the CSV to `path` (std::runtime_error naming the path and the reason) and prints
    /// "Diagnostics written to <path> (<rows> rows, every M steps)".
    void write(const std::string& path, int every) const;
    /// The rows recorded so far (each energyChange relative to the first).
    const std::vector<Diagnostics>& samples() const { return m_recorder.samples(); }

private:
    DiagnosticsRecorder m_recorder;
};

} // namespace nbody::cli
