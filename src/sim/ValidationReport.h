#pragma once
/// \file ValidationReport.h
/// The validation report (Validation.h) as text, JSON and a self-contained HTML page.
/// The JSON fields are documented in docs/validation.md; the HTML page needs no network, no
/// script and no other file (inline CSS, the charts as inline SVG), so it can be mailed or
/// attached to a bug report and opens in any browser.

#include "Validation.h"

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
