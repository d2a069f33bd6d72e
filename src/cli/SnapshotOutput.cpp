#include "SnapshotOutput.h"

#include "sim/base/AtomicFile.h"
#include "sim/io/Snapshot.h"

namespace nbody::cli {

std::string expandStepPattern(const std::string& pattern, std::uint64_t step)
{
    static const std::string kPlaceholder = "{step}";
    std::string out = pattern;
    for (std::size_t at = out.find(kPlaceholder); at != std::string::npos;
         at = out.find(kPlaceholder, at + 1))
        out.replace(at, kPlaceholder.size(), std::to_string(step));
    return out;
}

std::string checkSnapshotOutput(const std::string& pattern, std::uint64_t step)
{
    if (pattern.empty())
        return "empty file name";
    const std::string path = expandStepPattern(pattern, step);
    if (std::string problem = resolveWriteTarget(path).problem; !problem.empty())
        return problem;
    if (!snapshotFormatForPath(path))
        return "unknown file name extension; known formats: " + describeSnapshotFormats();
    return {};
}

} // namespace nbody::cli
