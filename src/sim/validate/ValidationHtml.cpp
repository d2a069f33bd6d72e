// The validation report as a self-contained HTML page with SVG charts (ValidationReport.h,
// validationHtml).
#include "sim/validate/ValidationReport.h"
#include "sim/validate/ReportShared.h"
#include "sim/base/NiceNumber.h"

#include "sim/base/PathNames.h"

#include "sim/base/AtomicFile.h"
#include "sim/base/Format.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <utility>

namespace nbody {

namespace {

using namespace report;

// ---------------------------------------------------------------------------------------- HTML

/// Text as HTML (also inside attribute values and SVG): & < > " ' as entities.
std::string esc(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

/// A number for a table cell: %.2e, with a typographic minus; "–" for non-finite values
/// is not used: they are written out (nan, inf) so a blow-up is visible.
std::string cell(double v)
{
    std::string s = sci(v);
    if (!s.empty() && s[0] == '-')
        s = "\u2212" + s.substr(1);
    return s;
}

std::string badge(Verdict v)
{
    const char* cls = v == Verdict::Pass ? "pass" : v == Verdict::Fail ? "fail" : "error";
    return std::string("<span class=\"badge ") + cls + "\">" + verdictUpper(v) + "</span>";
}

/// Line colours of the kernels in the charts (distinct from the badge colours).
constexpr std::array<const char*, 12> kPalette = {"#2563eb", "#ea580c", "#0891b2", "#9333ea",
                                                  "#db2777", "#65a30d", "#854d0e", "#4f46e5",
                                                  "#0d9488", "#ca8a04", "#64748b", "#be123c"};
/// The reference is drawn first, wide and light, so kernels that follow it stay visible on top.
constexpr const char* kReferenceColour = "#94a3b8";

std::string kernelColour(std::size_t i) { return kPalette[i % kPalette.size()]; }
/// Kernels beyond the palette's length repeat its colours with a dotted line.
std::string kernelDash(std::size_t i) { return i < kPalette.size() ? "" : "2 3"; }

struct Series {
    std::string label;
    std::string colour;
    std::string dash;     ///< SVG stroke-dasharray ("" = solid)
    double width = 1.8;
    std::vector<std::pair<double, double>> points; ///< (x, y)
    bool markers = false; ///< a dot at every point (a curve drawn over another)
    double markerRadius = 2.5;
};


struct Ticks {
    double lo = 0, hi = 1, step = 1;
    std::vector<double> values;
};

Ticks niceTicks(double lo, double hi, int count)
{
    Ticks t;
    if (!(hi > lo)) {
        const double span = std::max(std::abs(hi) * 0.1, 1e-12);
        lo -= span;
        hi += span;
    }
    const double range = niceNumber(hi - lo, false);
    t.step = niceNumber(range / (count - 1), true);
    t.lo = std::floor(lo / t.step) * t.step;
    t.hi = std::ceil(hi / t.step) * t.step;
    for (double v = t.lo; v <= t.hi + 0.5 * t.step; v += t.step)
        t.values.push_back(std::abs(v) < 1e-9 * t.step ? 0.0 : v);
    return t;
}

/// A tick label: integers as such (steps), else %g with 3 significant digits; a typographic minus.
std::string tickLabel(double v)
{
    std::string s = (v == std::round(v) && std::abs(v) < 1e7) ? formatString("%.0f", v) : formatString("%.3g", v);
    if (!s.empty() && s[0] == '-')
        s = "\u2212" + s.substr(1);
    return s;
}

/// An SVG line chart: x linear over [0, xMax] (steps), y linear or log10. Points that are not
/// finite (or not positive on a log axis) break the line; isolated points get a dot.
std::string svgChart(const std::vector<Series>& series, double xMax, bool logY, const std::string& xLabel,
                     const std::string& yLabel, const std::string& title)
{
    const double W = 900, H = 400, x0 = 92, x1 = W - 24, y0 = 16, y1 = H - 58;
    auto usable = [&](double y) { return std::isfinite(y) && (!logY || y > 0); };
    double yMin = std::numeric_limits<double>::infinity(), yMax = -yMin;
    for (const Series& s : series)
        for (const auto& [x, y] : s.points)
            if (usable(y) && std::isfinite(x)) {
                yMin = std::min(yMin, y);
                yMax = std::max(yMax, y);
            }
    std::string svg = formatString("<svg class=\"chart\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"%s\" "
                             "xmlns=\"http://www.w3.org/2000/svg\">\n",
                             W, H, esc(title).c_str());
    svg += formatString("<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\" stroke=\"#d1d5db\"/>\n",
                  x0, y0, x1 - x0, y1 - y0);
    if (!(yMin <= yMax)) {
        svg += formatString("<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" class=\"nodata\">%s</text>\n</svg>\n",
                      (x0 + x1) / 2, (y0 + y1) / 2,
                      logY ? "no positive values to draw on a log scale (every error is 0)" : "no values to draw");
        return svg;
    }
    if (!(xMax > 0))
        xMax = 1;
    auto xMap = [&](double x) { return x0 + x / xMax * (x1 - x0); };

    // y axis: decades on a log scale, nice numbers on a linear one.
    double lo, hi;
    std::vector<std::pair<double, std::string>> yTicks; // (value in axis units, SVG text content)
    std::vector<double> minor;
    if (logY) {
        lo = std::floor(std::log10(yMin));
        hi = std::ceil(std::log10(yMax));
        if (hi <= lo)
            hi = lo + 1;
        const int decades = int(hi - lo);
        const int every = decades > 10 ? (decades + 9) / 10 : 1;
        for (int e = int(lo); e <= int(hi); ++e) {
            if ((e - int(lo)) % every)
                continue;
            const std::string exponent = e < 0 ? "\u2212" + std::to_string(-e) : std::to_string(e);
            yTicks.emplace_back(double(e), "10<tspan dy=\"-7\" font-size=\"10\">" + exponent + "</tspan>");
            if (decades <= 6 && e < int(hi))
                for (int m = 2; m <= 9; ++m)
                    minor.push_back(double(e) + std::log10(double(m)));
        }
    } else {
        const Ticks t = niceTicks(yMin, yMax, 7);
        lo = t.lo;
        hi = t.hi;
        for (double v : t.values)
            yTicks.emplace_back(v, esc(tickLabel(v)));
    }
    auto yAxis = [&](double y) { return logY ? std::log10(y) : y; };
    auto yMap = [&](double a) { return y1 - (a - lo) / (hi - lo) * (y1 - y0); };

    for (double m : minor)
        svg += formatString("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#f3f4f6\"/>\n", x0, x1, yMap(m),
                      yMap(m));
    for (const auto& [v, text] : yTicks) {
        const double y = yMap(v);
        svg += formatString("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e7eb\"/>\n", x0, x1, y, y);
        svg += formatString("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"tick\">", x0 - 8, y + 4) + text +
               "</text>\n";
    }
    const Ticks xt = niceTicks(0, xMax, 9);
    for (double v : xt.values) {
        if (v < 0 || v > xMax * (1 + 1e-9))
            continue;
        const double x = xMap(v);
        svg += formatString("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e7eb\"/>\n", x, x, y0, y1);
        svg += formatString("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"tick\">%s</text>\n", x, y1 + 18,
                      esc(tickLabel(v)).c_str());
    }
    if (!logY && lo < 0 && hi > 0) // the zero line of a signed quantity
        svg += formatString("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#9ca3af\"/>\n", x0, x1, yMap(0),
                      yMap(0));
    svg += formatString("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"axis\">%s</text>\n", (x0 + x1) / 2,
                  H - 14, esc(xLabel).c_str());
    svg += formatString("<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" class=\"axis\">%s"
                  "</text>\n",
                  20.0, (y0 + y1) / 2, esc(yLabel).c_str());

    // The clip path's id must be unique in the page: made from the title ("error growth").
    std::string clip = "clip";
    for (char c : title)
        clip += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
    svg += formatString("<clipPath id=\"%s\"><rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/></clipPath>\n",
                  clip.c_str(), x0, y0 - 2, x1 - x0, y1 - y0 + 4);
    svg += formatString("<g clip-path=\"url(#%s)\" fill=\"none\" stroke-linejoin=\"round\" stroke-linecap=\"round\">\n",
                  clip.c_str());
    for (const Series& s : series) {
        std::string d;
        std::vector<std::pair<double, double>> dots;
        const auto& p = s.points;
        for (std::size_t i = 0; i < p.size(); ++i) {
            if (!usable(p[i].second) || !std::isfinite(p[i].first))
                continue;
            const bool prev = i > 0 && usable(p[i - 1].second) && std::isfinite(p[i - 1].first);
            const bool next = i + 1 < p.size() && usable(p[i + 1].second) && std::isfinite(p[i + 1].first);
            const double x = xMap(p[i].first), y = yMap(yAxis(p[i].second));
            if ((!prev && !next) || s.markers)
                dots.emplace_back(x, y);
            d += formatString("%s%.1f %.1f", prev ? " L" : (d.empty() ? "M" : " M"), x, y);
        }
        if (!d.empty())
            svg += "<path d=\"" + d + "\" stroke=\"" + s.colour + "\" stroke-width=\"" + formatString("%.1f", s.width) +
                   "\"" + (s.dash.empty() ? "" : " stroke-dasharray=\"" + s.dash + "\"") + "><title>" +
                   esc(s.label) + "</title></path>\n";
        for (const auto& [x, y] : dots)
            svg += formatString("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" stroke=\"none\"/>\n", x, y,
                                s.markerRadius,
                          s.colour.c_str());
    }
    svg += "</g>\n</svg>\n";
    return svg;
}

/// A legend entry: a short line in the series' style and its label.
std::string legendKey(const std::string& colour, const std::string& dash, double width, const std::string& label)
{
    return "<span class=\"key\"><svg width=\"30\" height=\"10\" aria-hidden=\"true\"><line x1=\"1\" y1=\"5\" x2=\"29\" "
           "y2=\"5\" stroke=\"" +
           colour + "\" stroke-width=\"" + formatString("%.1f", width + 0.7) + "\"" +
           (dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"") + "/></svg>" + esc(label) + "</span>";
}

/// The page's style. The badge colours (PASS #16a34a, FAIL #dc2626, ERROR #d97706) appear nowhere
/// else on the page: the report's test looks for the PASS green and the FAIL red in a screenshot.
const char* kCss = R"css(
*{box-sizing:border-box}
body{margin:0;background:#f1f5f9;color:#1f2937;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
header{background:linear-gradient(120deg,#0f172a,#1e3a8a);color:#f8fafc;padding:26px 40px 22px}
header h1{margin:0 0 4px;font-size:24px;font-weight:650;letter-spacing:.2px}
header .sub{color:#cbd5e1;font-size:14px}
.verdict{display:inline-block;margin-top:14px;padding:7px 16px;border-radius:999px;font-size:18px;font-weight:700}
.verdict.ok{background:#15803d;color:#fff}
.verdict.bad{background:#b91c1c;color:#fff}
main{max-width:1240px;margin:0 auto;padding:22px 32px 40px}
section{background:#fff;border-radius:10px;box-shadow:0 1px 3px rgba(15,23,42,.12);padding:18px 22px;margin:0 0 20px}
h2{font-size:17px;margin:0 0 12px;color:#0f172a}
h3{font-size:14px;margin:16px 0 6px;color:#334155}
.grid{display:grid;grid-template-columns:1fr 1fr;gap:20px;margin:0 0 20px}
.grid section{margin:0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0}
dt{color:#64748b}dd{margin:0;word-break:break-word}
table{border-collapse:collapse;width:100%;font-size:13px;font-variant-numeric:tabular-nums}
th,td{padding:6px 8px;text-align:right;border-bottom:1px solid #e2e8f0;white-space:nowrap}
th{font-size:12px;font-weight:600;color:#475569;background:#f8fafc;vertical-align:bottom}
th.l,td.l{text-align:left}
tbody tr:hover{background:#f8fafc}
td.k{font-weight:600;white-space:normal;min-width:170px;max-width:280px}td.k small{display:block;font-weight:400;color:#64748b}
td.over{color:#b91c1c;font-weight:700}
td.wrap{white-space:normal;color:#92400e}
.scroll{overflow-x:auto}
.badge{display:inline-block;min-width:64px;padding:4px 10px;border-radius:6px;color:#fff;font-weight:700;font-size:13px;text-align:center;letter-spacing:.5px}
.badge.pass{background:#16a34a}.badge.fail{background:#dc2626}.badge.error{background:#d97706}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px;vertical-align:0}
.chart{width:100%;height:auto;display:block}
.chart .tick{font-size:12px;fill:#475569}
.chart .axis{font-size:13px;fill:#1f2937}
.chart .nodata{font-size:14px;fill:#64748b}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;margin:8px 0 0 92px;font-size:13px}
.key svg{vertical-align:middle;margin-right:6px}
.note{color:#64748b;font-size:13px;margin:8px 0 0}
ul.reasons{margin:4px 0 12px 0;padding-left:22px}
.fail-block{margin:0 0 10px}
code{font-family:"DejaVu Sans Mono",ui-monospace,monospace;font-size:12.5px;background:#f1f5f9;padding:1px 4px;border-radius:4px}
.warning{background:#fef3c7;border:1px solid #f59e0b;color:#78350f;border-radius:10px;padding:12px 18px;margin:0 0 20px}
footer{color:#64748b;font-size:12px;text-align:center;padding:0 0 24px}
)css";

} // namespace

// --------------------------------------------------------------------------------------- HTML

std::string validationKernelColour(std::size_t i)
{
    return kernelColour(i);
}

std::string validationReferenceColour()
{
    return kReferenceColour;
}

std::vector<EnergyCurve> energyCurves(const ValidationReport& r)
{
    std::vector<EnergyCurve> curves;
    EnergyCurve ref;
    ref.label = "reference run (fp64 OpenMP)";
    if (!r.referenceGrowth.empty()) {
        for (const GrowthPoint& g : r.referenceGrowth)
            if (std::isfinite(g.energyChange))
                ref.points.emplace_back(double(g.step), g.energyChange);
    } else if (!r.kernels.empty()) {
        for (const GrowthPoint& g : r.kernels.front().growth)
            if (std::isfinite(g.referenceEnergyChange))
                ref.points.emplace_back(double(g.step), g.referenceEnergyChange);
    }
    curves.push_back(std::move(ref));
    double lo = 0, hi = 0;
    for (std::size_t i = 0; i < r.kernels.size(); ++i) {
        EnergyCurve c;
        c.kernel = int(i);
        c.label = r.kernels[i].id;
        for (const GrowthPoint& g : r.kernels[i].growth)
            if (std::isfinite(g.energyChange))
                c.points.emplace_back(double(g.step), g.energyChange);
        curves.push_back(std::move(c));
    }
    for (const EnergyCurve& c : curves)
        for (const auto& [x, y] : c.points) {
            lo = std::min(lo, y);
            hi = std::max(hi, y);
        }
    // Coincident: the same steps, and values apart by less than 0.2 % of the chart's span (less
    // than a pixel of the drawn chart), or equal.
    const double tolerance = 2e-3 * (hi - lo);
    const auto same = [&](const EnergyCurve& a, const EnergyCurve& b) {
        if (a.points.empty() || a.points.size() != b.points.size())
            return false;
        for (std::size_t k = 0; k < a.points.size(); ++k)
            if (a.points[k].first != b.points[k].first || std::abs(a.points[k].second - b.points[k].second) > tolerance)
                return false;
        return true;
    };
    std::string onReference;
    for (std::size_t i = 1; i < curves.size(); ++i) {
        EnergyCurve& c = curves[i];
        for (std::size_t j = 0; j < i && c.sameAs == -2; ++j)
            if (curves[j].sameAs == -2 && same(c, curves[j]))
                c.sameAs = curves[j].kernel;
        if (c.sameAs == -1) {
            c.inLegend = false;
            onReference += (onReference.empty() ? "" : ", ") + c.label;
        } else if (c.sameAs >= 0) {
            c.label += " (= " + r.kernels[std::size_t(c.sameAs)].id + ")";
        }
    }
    if (!onReference.empty())
        curves.front().label += " = " + onReference;
    return curves;
}

std::string validationHtml(const ValidationReport& r)
{
    const Counts counts = countVerdicts(r);
    const bool ok = r.allPass();
    const std::size_t components = 3 * r.bodies;
    const std::string verdictText = passLine(counts);
    std::string h;
    h.reserve(1 << 16);
    h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    h += "<title>N-Body Sandbox validation: " + esc(verdictText) + "</title>\n";
    h += std::string("<style>") + kCss + "</style>\n</head>\n<body>\n";

    // ---- header ----
    h += "<header>\n<h1>N-Body Sandbox \u2014 validation report</h1>\n";
    h += "<div class=\"sub\">" +
         esc(bodyCount(r.bodies) + ", " + stepCount(r.steps) + " of " +
             r.params.integrator + ", every kernel against the fp64 OpenMP reference") +
         (r.environment.startedUtc.empty() ? "" : " \u00b7 " + esc(r.environment.startedUtc)) + "</div>\n";
    h += std::string("<div class=\"verdict ") + (ok ? "ok" : "bad") + "\">" + esc(verdictText) + "</div>\n</header>\n";
    h += "<main>\n";
    for (const std::string& w : r.warnings)
        h += "<div class=\"warning\"><strong>Warning.</strong> " + esc(w) + "</div>\n";

    // ---- parameters, device and build ----
    h += "<div class=\"grid\">\n<section>\n<h2>System and parameters</h2>\n<dl>\n";
    auto row = [&](const std::string& k, const std::string& v) { h += "<dt>" + esc(k) + "</dt><dd>" + esc(v) + "</dd>\n"; };
    if (!r.system.empty())
        row("System", r.system);
    row("Bodies N", std::to_string(r.bodies));
    row("Steps K", formatString("%llu (t = %.6g time units)", static_cast<unsigned long long>(r.steps),
                          double(r.steps) * double(r.params.dt)));
    row("G", formatString("%.9g", r.params.G));
    row("\u03b5\u00b2 (softening)", formatString("%.9g length\u00b2", shortestFloat(r.params.eps2)));
    row("dt", formatString("%.9g time units", shortestFloat(r.params.dt)));
    row("Integrator", r.params.integrator);
    row("Launch", launchDescription(r.params));
    row("E\u2080", formatString("%.9g energy units (fp64, reference)", r.initialEnergy));
    h += "</dl>\n</section>\n<section>\n<h2>Device and build</h2>\n<dl>\n";
    row("Device", r.environment.device);
    row("CUDA", r.environment.cuda);
    row("Build", r.environment.build);
    row("Host", r.environment.host);
    row("OpenMP threads", std::to_string(r.environment.openmpThreads));
    row("Started (UTC)", r.environment.startedUtc);
    row("Reference run", formatString("%.3g s", r.referenceSeconds));
    h += "</dl>\n</section>\n</div>\n";

    // ---- summary table ----
    const double eBound = energyBound(r);
    h += "<section>\n<h2>Summary</h2>\n<div class=\"scroll\"><table>\n<thead><tr>"
         "<th class=\"l\">Kernel</th><th class=\"l\">Verdict</th><th class=\"l\">Precision</th>"
         "<th>Step-0 force<br>error max</th><th>Step-0 force<br>error p99</th><th>Final position<br>error max</th>"
         "<th>\u0394E/E\u2080</th><th>|\u0394E/E\u2080 \u2212<br>reference\u2019s|</th>"
         "<th>Misses rel / abs<br>of " +
         std::to_string(components) + " (3N)</th><th>Time</th></tr></thead>\n<tbody>\n";
    for (std::size_t i = 0; i < r.kernels.size(); ++i) {
        const KernelValidation& k = r.kernels[i];
        h += "<tr><td class=\"l k\"><span class=\"swatch\" style=\"background:" + kernelColour(i) + "\"></span>" +
             esc(k.id) + "<small>" + esc(k.name) + " \u00b7 " + esc(toString(k.backend)) + " \u00b7 " +
             esc(toString(k.layout)) + (k.launch.empty() ? "" : " \u00b7 " + esc(k.launch)) + "</small></td>";
        h += "<td class=\"l\">" + badge(k.verdict) + "</td><td class=\"l\">" + esc(toString(k.precision)) + "</td>";
        if (k.verdict == Verdict::Error) {
            h += "<td colspan=\"7\" class=\"l wrap\">" +
                 esc(k.reasons.empty() ? "stopped with an error" : k.reasons.front()) + "</td></tr>\n";
            continue;
        }
        const bool over = forceOver(r.thresholds, k);
        const double de = std::abs(k.energyChange - r.referenceEnergyChange);
        const bool energyOver = !(de <= eBound);
        h += std::string("<td") + (over ? " class=\"over\"" : "") + " title=\"worst body " +
             std::to_string(k.force0.worstBody) + "\">" + cell(k.force0.max) + "</td>";
        h += "<td>" + cell(k.force0.p99) + "</td>";
        if (!k.finite) {
            h += "<td colspan=\"5\" class=\"l wrap\">the state became non-finite: nothing to compare after " +
                 stepCount(r.steps) + "</td></tr>\n";
            continue;
        }
        h += "<td title=\"worst body " + std::to_string(k.position.absolute.worstBody) + "\">" +
             cell(k.position.absolute.max) + "</td>";
        h += "<td>" + cell(k.energyChange) + "</td>";
        h += std::string("<td") + (energyOver ? " class=\"over\"" : "") + ">" + cell(de) + "</td>";
        h += "<td>" + std::to_string(k.position.predecessorRelativeMisses) + " / " +
             std::to_string(k.position.predecessorAbsoluteMisses) + "</td>";
        h += "<td>" + esc(formatString("%.3g s", k.seconds)) + "</td></tr>\n";
    }
    h += "</tbody>\n</table></div>\n";
    h += "<p class=\"note\">Reference (fp64, OpenMP): \u0394E/E\u2080 = " + cell(r.referenceEnergyChange) +
         ", momentum change " + cell(r.referenceMomentumChange) +
         ". Force errors are per-body relative errors |a \u2212 a<sub>ref</sub>| / max(|a<sub>ref</sub>|, floor) at "
         "step 0; values over their threshold are in red. Position errors are absolute, in length units.</p>\n";
    h += "</section>\n";

    // ---- failures ----
    if (counts.fail + counts.error > 0) {
        h += "<section>\n<h2>Why kernels failed</h2>\n";
        for (const KernelValidation& k : r.kernels) {
            if (k.verdict == Verdict::Pass)
                continue;
            h += "<div class=\"fail-block\">" + badge(k.verdict) + " <strong>" + esc(k.id) + "</strong> " +
                 esc(k.name) + "\n<ul class=\"reasons\">\n";
            if (k.reasons.empty())
                h += "<li>no reason given</li>\n";
            for (const std::string& reason : k.reasons)
                h += "<li>" + esc(reason) + "</li>\n";
            h += "</ul></div>\n";
        }
        h += "</section>\n";
    }

    // ---- charts ----
    const double xMax = double(r.steps);
    const std::string stepLabel =
        formatString("step (time = step \u00d7 dt, dt = %.6g time units)", shortestFloat(r.params.dt));
    {
        std::vector<Series> series;
        std::string legend;
        for (std::size_t i = 0; i < r.kernels.size(); ++i) {
            const KernelValidation& k = r.kernels[i];
            Series mx{k.id + " max", kernelColour(i), kernelDash(i), 1.8, {}};
            Series rms{k.id + " RMS", kernelColour(i), "5 4", 1.3, {}};
            for (const GrowthPoint& g : k.growth) {
                mx.points.emplace_back(double(g.step), g.maxPositionError);
                rms.points.emplace_back(double(g.step), g.rmsPositionError);
            }
            series.push_back(std::move(mx));
            series.push_back(std::move(rms));
            legend += legendKey(kernelColour(i), kernelDash(i), 1.8, k.id);
        }
        legend += legendKey("#475569", "", 1.8, "max over bodies") + legendKey("#475569", "5 4", 1.3, "RMS over bodies");
        h += "<section>\n<h2>Error growth</h2>\n";
        h += svgChart(series, xMax, true, stepLabel, "position error |x \u2212 x_ref| (length units)", "error growth");
        h += "<div class=\"legend\">" + legend + "</div>\n";
        h += "<p class=\"note\">The position error of every body against the fp64 reference at each checkpoint "
             "(log scale; zeros, such as step 0 when both runs start from the same state, are not drawn). "
             "N-body systems are chaotic: a correct kernel starts at rounding level and grows about "
             "exponentially over crossing times; a bug shows as a large error from the first steps.</p>\n";
        h += "</section>\n";
    }
    {
        std::vector<Series> series;
        std::string legend;
        // The reference's run first, wide and light; each kernel on top. A kernel on the
        // reference's (or another kernel's) curve is dashed with dots at its points, so the curve
        // beneath shows through, and named once in the legend (energyCurves).
        int overlaid = 0;
        for (const EnergyCurve& c : energyCurves(r)) {
            const bool reference = c.kernel < 0;
            const std::size_t i = reference ? 0 : std::size_t(c.kernel);
            Series s{c.label, reference ? kReferenceColour : kernelColour(i),
                     reference ? "" : c.sameAs != -2 ? "6 4" : kernelDash(i), reference ? 5.0 : 1.8, c.points};
            s.markers = !reference && c.sameAs != -2;
            if (s.markers) // each overlaid curve's dots smaller than the one's before: all show
                s.markerRadius = std::max(1.5, 4.0 - 1.0 * overlaid++);
            if (c.inLegend)
                legend += legendKey(s.colour, s.dash, s.width, c.label);
            series.push_back(std::move(s));
        }
        h += "<section>\n<h2>Energy change</h2>\n";
        h += svgChart(series, xMax, false, stepLabel, "\u0394E/E\u2080 = (E \u2212 E\u2080)/|E\u2080|", "energy change");
        h += "<div class=\"legend\">" + legend + "</div>\n";
        h += "<p class=\"note\">The relative change of the total energy (fp64 sums) of each run. A kernel passes "
             "when its change after K steps is within " +
             cell(eBound) + " of the reference's (the larger of " + cell(r.thresholds.energy) +
             " and the reference's own change).</p>\n";
        h += "</section>\n";
    }

    // ---- step-0 force errors and per-field statistics ----
    h += "<section>\n<h2>Step-0 force error</h2>\n<div class=\"scroll\"><table>\n<thead><tr><th class=\"l\">Kernel</th><th>max</th>"
         "<th>p99</th><th>median</th><th>worst body</th><th>floor (acceleration units)</th><th>threshold</th>"
         "<th class=\"l\">bodies failing both tests</th></tr></thead>\n<tbody>\n";
    for (const KernelValidation& k : r.kernels) {
        const double t = forceThreshold(r.thresholds, k.precision);
        h += "<tr><td class=\"l k\">" + esc(k.id) + "</td>";
        if (k.verdict == Verdict::Error) {
            h += "<td colspan=\"7\" class=\"l\">no result (the run stopped with an error)</td></tr>\n";
            continue;
        }
        h += std::string("<td") + (forceOver(r.thresholds, k) ? " class=\"over\"" : "") + ">" + cell(k.force0.max) + "</td>";
        const std::string threshold =
            k.forceAccuracy > 0
                ? "force accuracy asked: p99 " + cell(k.forceAccuracy) + " (theta " + formatString("%g", k.openingAngle) +
                      (k.openingAlpha > 0 ? formatString(", alpha %g", k.openingAlpha) : std::string()) +
                      ", calibrated p99 " + cell(k.calibratedP99) + "): " +
                      (k.forceAccuracyMet() ? "met" : "<strong>not met</strong>") + "; momentum error " +
                      cell(k.momentumError0)
            : k.method == ForceMethod::Tree
                ? "tree: p99 " + cell(r.thresholds.treeForceP99) + ", median " + cell(r.thresholds.treeForceMedian) +
                      "; momentum error " + cell(k.momentumError0)
                : "relative " + cell(t) + " or " + esc(roundingBoundText(r.thresholds));
        const ForceBodyCheck& b = k.forceBodies;
        const std::string failing =
            k.method == ForceMethod::Tree ? std::string("-")
            : b.failing > 0               ? esc(describeFailingBodies(b))
                                          : "none of " + std::to_string(b.compared) + "; nearest to failing: body " +
                                  std::to_string(b.body) + ", relative " + cell(b.relative) + ", |\u0394a| " +
                                  cell(b.absolute) + " against " + cell(b.bound);
        h += "<td>" + cell(k.force0.p99) + "</td><td>" + cell(k.force0.median) + "</td><td>" +
             std::to_string(k.force0.worstBody) + "</td><td>" + cell(k.force0.floor) + "</td><td>" + threshold +
             (k.force0.sampled ? " (sampled " + bodyCount(k.force0.sampled) + ")" : std::string()) +
             "</td><td class=\"l wrap\">" + failing + "</td></tr>\n";
    }
    h += "</tbody>\n</table></div>\n</section>\n";

    h += "<section>\n<h2>Errors after " + stepCount(r.steps) +
         ", per field</h2>\n<div class=\"scroll\"><table>\n<thead><tr><th class=\"l\">Kernel</th><th class=\"l\">Field</th>"
         "<th>abs max</th><th>abs median</th><th>abs RMS</th><th>worst body</th><th>rel max</th><th>rel median</th>"
         "<th>rel RMS</th><th>floor</th><th>misses rel</th><th>misses abs</th></tr></thead>\n<tbody>\n";
    for (const KernelValidation& k : r.kernels) {
        if (k.verdict == Verdict::Error || !k.finite) {
            h += "<tr><td class=\"l k\">" + esc(k.id) + "</td><td colspan=\"11\" class=\"l\">" +
                 (k.finite ? "no result (the run stopped with an error)" : "no result (the state became non-finite)") +
                 "</td></tr>\n";
            continue;
        }
        const std::array<std::pair<const char*, const FieldErrors*>, 3> fields = {
            std::pair{"position", &k.position}, std::pair{"velocity", &k.velocity},
            std::pair{"acceleration", &k.acceleration}};
        bool first = true;
        for (const auto& [name, f] : fields) {
            h += "<tr>";
            if (first)
                h += "<td class=\"l k\" rowspan=\"3\">" + esc(k.id) + "</td>";
            first = false;
            h += std::string("<td class=\"l\">") + name + "</td><td>" + cell(f->absolute.max) + "</td><td>" +
                 cell(f->absolute.median) + "</td><td>" + cell(f->absolute.rms) + "</td><td>" +
                 std::to_string(f->absolute.worstBody) + "</td><td>" + cell(f->relative.max) + "</td><td>" +
                 cell(f->relative.median) + "</td><td>" + cell(f->relative.rms) + "</td><td>" + cell(f->floor) +
                 "</td><td>" + std::to_string(f->predecessorRelativeMisses) + "</td><td>" +
                 std::to_string(f->predecessorAbsoluteMisses) + "</td></tr>\n";
        }
    }
    h += "</tbody>\n</table></div>\n";
    h += "<p class=\"note\">Absolute errors |u \u2212 u<sub>ref</sub>| per body in the field's unit; relative ones "
         "divided by max(|u<sub>ref</sub>|, floor), floor = 10<sup>\u22123</sup> \u00b7 RMS |u<sub>ref</sub>|. "
         "Misses count the predecessor's per-component criteria over the " +
         std::to_string(components) + " components (x, y, z of N bodies): relative |\u0394| &gt; " +
         esc(formatString("%g %%", r.thresholds.predecessorRelative * 100)) + " of min(|u|, |u<sub>ref</sub>|), absolute "
         "|\u0394| &gt; " + esc(formatString("%g", r.thresholds.predecessorAbsolute)) +
         ". They are reported, not judged: after enough crossing times chaos makes them large for every "
         "correct kernel.</p>\n</section>\n";

    // ---- thresholds ----
    h += "<section>\n<h2>Pass criteria</h2>\n<p>A kernel passes when</p>\n<ol>\n"
         "<li>its state stayed finite over the whole run;</li>\n"
         "<li>every body passes at step 0 (all-pairs kernels): its relative force error is at most <strong>" +
         cell(r.thresholds.forceFp32) + "</strong> (fp32 kernels) or <strong>" + cell(r.thresholds.forceFp64) +
         "</strong> (fp64 kernels), or its force error is within the rounding bound of its sum, "
         "<strong>|\u0394a<sub>i</sub>| \u2264 " + esc(formatString("%g", r.thresholds.roundingK)) +
         "\u00b7u\u00b7\u221aN\u00b7S<sub>i</sub></strong>, with u = 2<sup>\u221224</sup> (fp32) or "
         "2<sup>\u221253</sup> (fp64) and S<sub>i</sub> = |G| \u03a3<sub>j</sub> m<sub>j</sub> |r<sub>ij</sub>| / "
         "(r<sub>ij</sub>\u00b2 + \u03b5\u00b2)<sup>3/2</sup>, the sum of the terms' magnitudes from the fp64 "
         "reference (a sum of N terms rounds to about u\u00b7\u221aN\u00b7S<sub>i</sub>, which exceeds the "
         "relative threshold where the pulls cancel); tree kernels: the p99 of the relative errors at most " +
         cell(r.thresholds.treeForceP99) + " and the median at most " + cell(r.thresholds.treeForceMedian) +
         ";</li>\n"
         "<li>its relative energy change after K steps agrees with the reference's: |\u0394E/E\u2080 \u2212 "
         "\u0394E/E\u2080<sub>ref</sub>| \u2264 max(" +
         cell(r.thresholds.energy) + ", |\u0394E/E\u2080<sub>ref</sub>|) = <strong>" + cell(eBound) +
         "</strong> (the reference's own change is the scale of the integration error at this dt).</li>\n</ol>\n"
         "<p class=\"note\">Trajectory errors and the predecessor's counts (" +
         esc(formatString("%g %%", r.thresholds.predecessorRelative * 100)) + " relative, " +
         esc(formatString("%g", r.thresholds.predecessorAbsolute)) +
         " absolute per component) are reported, not judged.</p>\n</section>\n";

    h += "</main>\n<footer>Written by nbody validate \u00b7 schema nbody-validation/1 \u00b7 " + esc(r.environment.build) +
         "</footer>\n</body>\n</html>\n";
    return h;
}

} // namespace nbody
