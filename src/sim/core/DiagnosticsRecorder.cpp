#include "sim/core/DiagnosticsRecorder.h"
#include "sim/base/AtomicFile.h"

#include <cstdio>

namespace nbody {

std::string diagnosticsCsvRow(const Diagnostics& d)
{
    char buf[768];
    std::snprintf(buf, sizeof buf,
                  "%.17g,%llu,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g",
                  d.time, static_cast<unsigned long long>(d.step), d.kinetic, d.potential, d.total,
                  d.energyChange, d.momentum.x, d.momentum.y, d.momentum.z, d.angularMomentum.x,
                  d.angularMomentum.y, d.angularMomentum.z, d.centreOfMass.x, d.centreOfMass.y,
                  d.centreOfMass.z, d.virialRatio, d.energyLost);
    return buf;
}

std::string DiagnosticsRecorder::csv() const
{
    std::string out(kDiagnosticsCsvHeader);
    out += '\n';
    out.reserve(out.size() + m_samples.size() * 360);
    for (const Diagnostics& d : m_samples) {
        out += diagnosticsCsvRow(d);
        out += '\n';
    }
    return out;
}

void DiagnosticsRecorder::writeCsv(const std::string& path) const
{
    writeTextAtomically(path, csv());
}

} // namespace nbody
