#pragma once
/// \file DiagnosticsRecorder.h
/// The time series of a run's diagnostics (one Diagnostics per automatic evaluation, every
/// SimParams::diagnosticsInterval steps) and its CSV form. Qt-free: the CLI (`nbody run
/// --diagnostics`) and the app's Diagnostics dock both record through it.

#include "sim/core/Diagnostics.h"

#include <string>
#include <string_view>
#include <vector>

namespace nbody {

/// CSV columns, in order: time, step, K, W, E, dE/E0, Px, Py, Pz, Lx, Ly, Lz, centre of mass
/// x, y, z, virial ratio 2K/|W|, energy lost to merges (cumulative; units as in Diagnostics;
/// see docs/units.md).
inline constexpr std::string_view kDiagnosticsCsvHeader =
    "time,step,kinetic,potential,total,energy_change,px,py,pz,lx,ly,lz,com_x,com_y,com_z,virial_ratio,energy_lost";

/// One CSV line of `d` (no newline): numbers with 17 significant digits, so they read back to
/// the same doubles; the step as an integer.
std::string diagnosticsCsvRow(const Diagnostics& d);

class DiagnosticsRecorder {
public:
    /// Appends a sample (in the order they were taken; nothing is reordered or dropped).
    void append(const Diagnostics& d) { m_samples.push_back(d); }
    void clear() { m_samples.clear(); }
    std::size_t size() const { return m_samples.size(); }
    bool empty() const { return m_samples.empty(); }
    const std::vector<Diagnostics>& samples() const { return m_samples; }

    /// The header line and one line per sample, each ending in '\n'.
    std::string csv() const;
    /// Writes csv() to `path` atomically (sim/base/AtomicFile.h). Throws std::runtime_error
    /// "cannot write '<path>': <reason>"; the target is then unchanged and no partial file is left.
    void writeCsv(const std::string& path) const;

private:
    std::vector<Diagnostics> m_samples;
};

} // namespace nbody
