#pragma once
/// \file BenchPlot.h
/// nbody::plot — the chart of `nbody bench --plot`: interactions per second against N on log
/// axes, one series per kernel, optional reference series (--reference) and the device's
/// issue-slot ceilings as horizontal lines (sim/core/Ceiling.h). The library renders with Qt Charts
/// on Qt's offscreen platform and is built only when Qt 6 Gui, Widgets, Charts and Svg are found
/// (NBODY_BUILD_PLOT, on by default; off in the GPU-check build, so that the `nbody` carried to
/// the GPU machine needs no Qt Gui). This header has no Qt in it: the CLI fills the structs in
/// any build and calls writeBenchChart() only where NBODY_HAVE_PLOT is 1.

#include "sim/base/PathNames.h"

#include <string>
#include <vector>

namespace nbody::plot {

struct Point {
    double bodies = 0;                ///< N
    double interactionsPerSecond = 0; ///< > 0 (others are left out of the log axis)
};

struct Series {
    std::string label; ///< legend text (kernel id, or the reference's label)
    std::vector<Point> points;
};

/// A horizontal line across the chart ("fp32 ceiling (17 slots): 1.97e12/s").
struct Level {
    std::string label;
    double interactionsPerSecond = 0;
};

struct BenchChart {
    std::string title;              ///< e.g. "nbody bench on NVIDIA H200"
    std::vector<Series> kernels;    ///< solid lines with markers
    std::vector<Series> references; ///< dashed lines with markers
    std::vector<Level> ceilings;    ///< dotted horizontal lines
};

/// Pixel size of a PNG and the view box of an SVG.
inline constexpr int kChartWidth = 1600;
inline constexpr int kChartHeight = 1000;

/// True when `path` names a file writeBenchChart() can make (.png or .svg, any case).
inline bool isChartPath(const std::string& path)
{
    const std::string ext = lowerExtension(path);
    return ext == ".png" || ext == ".svg";
}

/// Renders the chart into `path` (PNG of kChartWidth × kChartHeight, or SVG, by the extension)
/// atomically (sim/base/AtomicFile.h), then reads the file back to verify it (a PNG that decodes to
/// that size, an SVG document). Creates a QApplication for the call when the process has none,
/// on the offscreen platform unless QT_QPA_PLATFORM says otherwise. Throws std::invalid_argument
/// for a chart with no point or a path of another extension, WriteError / std::runtime_error
/// naming the file when it cannot be written or verified.
void writeBenchChart(const BenchChart& chart, const std::string& path);

} // namespace nbody::plot
