#pragma once
// What `nbody bench` reads and plots besides its own measurements (no Qt): the --reference CSV
// and the chart of a table (plot/BenchPlot.h's structs, filled in any build).
#include "plot/BenchPlot.h"

#include <string>
#include <vector>

namespace nbody::cli {

/// Reads a --reference file: one point per line, `label,N,interactions_per_second`
/// ("NVIDIA sample,65536,1.409e12"); blank lines and lines starting with '#' are skipped, and
/// so is a first line that is the header `label,N,interactions_per_second`. The label (trimmed)
/// must not be empty, N is a positive integer, the rate a positive finite number; points of
/// one label form one series, in the file's order. Throws std::invalid_argument naming the
/// file and the line ("--reference ref.csv line 3: N 'abc' is not a positive integer"), and
/// for a file that cannot be read or has no point.
std::vector<plot::Series> readReferenceCsv(const std::string& path);

} // namespace nbody::cli
