#pragma once
/// \file ValidationReport.h
/// The validation report (Validation.h) as text, JSON and a self-contained HTML page.
/// The JSON fields are documented in docs/validation.md; the HTML page needs no network, no
/// script and no other file (inline CSS, the charts as inline SVG), so it can be mailed or
/// attached to a bug report and opens in any browser.

#include "sim/validate/Validation.h"

#include <optional>
#include <string>

namespace nbody {

/// The verdict in a line, as every front end shows it: "11 of 11 kernels pass", "1 of 1 kernel
/// passes", "2 of 3 kernels pass, 1 fails", "… 1 stopped with an error".
std::string validationVerdictLine(const ValidationReport& report);

/// The summary table the CLI prints: one row per kernel (kernel, precision, step-0 force error
/// max / p99, final position error max, ΔE/E0, predecessor misses, verdict), then the reference's
/// ΔE/E0, the thresholds and the failure reasons.
std::string validationSummaryText(const ValidationReport& report);

/// The report as JSON (UTF-8, indented). Schema "nbody-validation/1", see docs/validation.md.
std::string validationJson(const ValidationReport& report);

/// The report as a self-contained HTML page: parameters, device and build, the summary table with
/// pass/fail badges, per-field statistics, the error growth chart (log scale) and the energy
/// change chart, thresholds and the failure reasons.
std::string validationHtml(const ValidationReport& report);

/// One curve of the energy change chart (ΔE/E0 against step), as the report dialog and the HTML
/// page draw it: the reference's run first, then each kernel's. A kernel whose curve coincides
/// with the reference's (the `reference` kernel itself, an fp64 kernel at small N) or with an
/// earlier kernel's is still drawn, dashed and with markers so the curve beneath shows through,
/// and its legend says so once instead of repeating a name: the reference's entry lists the
/// kernels on its curve ("reference run (fp64 OpenMP) = reference") and theirs is left out; a
/// kernel on another kernel's curve reads "tiled (= cpu)".
struct EnergyCurve {
    std::string label; ///< the legend entry
    int kernel = -1;   ///< index into ValidationReport::kernels; -1: the reference's run
    /// The curve it lies on (within 0.2 % of the chart's span at every point): -2 none,
    /// -1 the reference's, ≥ 0 that earlier kernel's.
    int sameAs = -2;
    bool inLegend = true; ///< false: named in the reference's entry instead
    std::vector<std::pair<double, double>> points; ///< (step, ΔE/E0), finite values only
};
std::vector<EnergyCurve> energyCurves(const ValidationReport& report);
/// The line colour of kernel `i` (its row in the report) in every chart: "#2563eb", …
std::string validationKernelColour(std::size_t i);
/// The reference's line colour: wide and light, drawn first.
std::string validationReferenceColour();

/// The two files a report is written as.
enum class ReportFormat { Json, Html };
/// The format a report file name asks for: ".json" → Json, ".html" or ".htm" → Html
/// (case-insensitive); nullopt for any other name.
std::optional<ReportFormat> validationReportFormat(const std::string& path);

/// Writes the report to `path` atomically: JSON when the name ends in ".json", HTML when it ends
/// in ".html" or ".htm" (case-insensitive). Throws std::invalid_argument for another extension
/// (message names the two accepted), std::runtime_error when the write fails (message names the
/// file and why; an existing file is left as it was).
void writeValidationReport(const std::string& path, const ValidationReport& report);

} // namespace nbody
