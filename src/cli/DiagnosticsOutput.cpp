#include "DiagnosticsOutput.h"

#include "sim/base/Format.h"
#include "sim/base/AtomicFile.h"
#include "sim/core/Simulation.h"

#include <cstdio>

namespace nbody::cli {

std::string DiagnosticsOutput::checkTarget(const std::string& path)
{
    if (path.empty())
        return "--diagnostics needs a file name";
    return resolveWriteTarget(path).problem;
}

void DiagnosticsOutput::attach(Simulation& sim)
{
    sim.setDiagnosticsObserver([this](const Diagnostics& d) { m_recorder.append(d); });
}

void DiagnosticsOutput::addFinal(Simulation& sim, const std::function<Diagnostics()>& measure)
{
    if (m_recorder.empty() || m_recorder.samples().back().step != sim.stepCount())
        m_recorder.append(measure());
}

void DiagnosticsOutput::write(const std::string& path, int every) const
{
    m_recorder.writeCsv(path);
    std::printf("Diagnostics written to %s (%s, every %s)\n", resolveWriteTarget(path).path.c_str(),
                countOf(m_recorder.size(), "row", "rows").c_str(),
                every == 1 ? "step" : stepCount(std::uint64_t(every)).c_str());
}

} // namespace nbody::cli
