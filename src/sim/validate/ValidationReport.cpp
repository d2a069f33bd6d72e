// The validation report as text, JSON and a self-contained HTML page (ValidationReport.h).
// The JSON schema is documented field by field in docs/validation.md.
#include "sim/validate/ValidationReport.h"
#include "sim/validate/ReportShared.h"
#include "sim/base/NiceNumber.h"

#include "sim/base/PathNames.h"

#include "sim/base/AtomicFile.h"
#include "sim/base/ShortestText.h"
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

namespace report {

std::string sci(double v)
{
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    return formatString("%.2e", v);
}

double shortestFloat(float v)
{
    return shortestAsDouble(v);
}

std::string verdictUpper(Verdict v)
{
    switch (v) {
    case Verdict::Pass:
        return "PASS";
    case Verdict::Fail:
        return "FAIL";
    case Verdict::Error:
        break;
    }
    return "ERROR";
}

Counts countVerdicts(const ValidationReport& r)
{
    Counts c;
    for (const KernelValidation& k : r.kernels) {
        ++c.total;
        if (k.verdict == Verdict::Pass)
            ++c.pass;
        else if (k.verdict == Verdict::Fail)
            ++c.fail;
        else
            ++c.error;
    }
    return c;
}

std::string passLine(const Counts& c)
{
    if (c.total == 0)
        return "no kernels were validated";
    std::string s = std::to_string(c.pass) + " of " + std::to_string(c.total) +
                    (c.total == 1 ? " kernel passes" : " kernels pass");
    if (c.fail)
        s += ", " + std::to_string(c.fail) + (c.fail == 1 ? " fails" : " fail");
    if (c.error)
        s += ", " + std::to_string(c.error) + (c.error == 1 ? " stopped with an error" : " stopped with errors");
    return s;
}

double forceThreshold(const ValidationThresholds& t, Precision p)
{
    return p == Precision::Fp64 ? t.forceFp64 : t.forceFp32;
}

bool forceOver(const ValidationThresholds& t, const KernelValidation& k)
{
    if (k.method == ForceMethod::Tree) {
        const auto [p99, median] = treeForceBounds(t, k);
        return !(k.force0.p99 <= p99) || !(k.force0.median <= median);
    }
    return k.forceBodies.failing > 0;
}

double energyBound(const ValidationReport& r)
{
    return std::max(r.thresholds.energy, std::abs(r.referenceEnergyChange));
}

std::string launchDescription(const SimParams& p)
{
    const auto v = [](int x) { return x > 0 ? std::to_string(x) : std::string("auto"); };
    return "block size " + v(p.blockSize) + ", block rows " + v(p.blockRows) + ", tile width factor " +
           v(p.tileWidthFactor) + ", bodies per thread " + v(p.bodiesPerThread) + ", j-split " + v(p.jSplit) +
           ", unroll " + v(p.unroll);
}

} // namespace report

namespace {

using nlohmann::json;
using namespace report;

std::string str(std::string_view s) { return std::string(s); }

/// Code points of a UTF-8 string (for aligning columns of text that holds Δ, ε, ×).
std::size_t displayWidth(const std::string& s)
{
    std::size_t n = 0;
    for (unsigned char c : s)
        n += (c & 0xC0) != 0x80;
    return n;
}

/// An aligned text table: the first column left-aligned, the others right-aligned except
/// those listed in `left`.
std::string textTable(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& left)
{
    std::vector<std::size_t> width;
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (width.size() <= c)
                width.push_back(0);
            width[c] = std::max(width[c], displayWidth(row[c]));
        }
    std::string out;
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t c = 0; c < row.size(); ++c) {
            const std::string pad(width[c] - displayWidth(row[c]), ' ');
            if (c)
                line += "  ";
            line += (c < left.size() && left[c]) ? row[c] + pad : pad + row[c];
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out += line + "\n";
    }
    return out;
}


// ---------------------------------------------------------------------------------------- JSON

/// A finite double, or null (JSON has no NaN or infinity; see docs/validation.md).
json num(double v)
{
    return std::isfinite(v) ? json(v) : json(nullptr);
}

json toJson(const ErrorStats& s)
{
    return {{"max", num(s.max)}, {"median", num(s.median)}, {"rms", num(s.rms)}, {"worstBody", s.worstBody}};
}

json toJson(const FieldErrors& f)
{
    return {{"absolute", toJson(f.absolute)},
            {"relative", toJson(f.relative)},
            {"floor", num(f.floor)},
            {"components", f.components},
            {"predecessorRelativeMisses", f.predecessorRelativeMisses},
            {"predecessorAbsoluteMisses", f.predecessorAbsoluteMisses}};
}

json toJson(const ForceError& f)
{
    return {{"max", num(f.max)},
            {"p99", num(f.p99)},
            {"median", num(f.median)},
            {"worstBody", f.worstBody},
            {"floor", num(f.floor)},
            {"sampled", f.sampled}};
}

json toJson(const ForceBodyCheck& c)
{
    return {{"failing", c.failing},
            {"compared", c.compared},
            {"body", c.body},
            {"excess", num(c.excess)},
            {"relative", num(c.relative)},
            {"relativeLimit", num(c.relativeLimit)},
            {"absolute", num(c.absolute)},
            {"bound", num(c.bound)},
            {"magnitudeSum", num(c.magnitudeSum)},
            {"k", num(c.k)},
            {"unitRoundoff", num(c.unitRoundoff)},
            {"terms", c.terms},
            {"kNeeded", num(c.kNeeded)}};
}

json toJson(const GrowthPoint& g)
{
    return {{"step", g.step},
            {"time", num(g.time)},
            {"maxPositionError", num(g.maxPositionError)},
            {"medianPositionError", num(g.medianPositionError)},
            {"rmsPositionError", num(g.rmsPositionError)},
            {"energyChange", num(g.energyChange)},
            {"referenceEnergyChange", num(g.referenceEnergyChange)}};
}

} // namespace

// ------------------------------------------------------------------------------------ summary

std::string validationSummaryText(const ValidationReport& r)
{
    std::string out;
    const Counts counts = countVerdicts(r);
    const std::size_t components = 3 * r.bodies;
    out += formatString("Validation: %s, %s, against the fp64 reference (%s)\n", bodyCount(r.bodies).c_str(),
                        stepCount(r.steps).c_str(),
                        r.referenceRun ? "OpenMP" : ("sampled, on " + r.sampleReference).c_str());
    if (!r.system.empty())
        out += "System:      " + r.system + "\n";
    out += "Parameters:  " + describe(r.params) +
           (r.params.forceAccuracy > 0 ? " (tree rows: theta as the force accuracy picks it, lines Accuracy below)" : "") +
           "\n";
    // "no CUDA device: built without CUDA (…)" already says what cuda would repeat.
    const bool cudaSaid = r.environment.cuda.empty() || r.environment.device.find(r.environment.cuda) != std::string::npos;
    out += "Device:      " + r.environment.device + (cudaSaid ? "" : " (" + r.environment.cuda + ")") + "\n";
    if (!r.environment.build.empty())
        out += "Build:       " + r.environment.build + "\n";
    out += "\n";

    std::vector<std::vector<std::string>> rows;
    rows.push_back({"kernel", "precision", "force0 max", "force0 p99", "pos err max", "\u0394E/E0",
                    "misses rel/abs of " + std::to_string(components), "verdict"});
    for (const KernelValidation& k : r.kernels) {
        if (k.verdict == Verdict::Error) {
            // The run stopped: its numbers are not the kernel's.
            rows.push_back({k.id, str(toString(k.precision)), "-", "-", "-", "-", "-", verdictUpper(k.verdict)});
            continue;
        }
        if (!k.finite) { // blew up: nothing to compare after K steps
            rows.push_back({k.id, str(toString(k.precision)), sci(k.force0.max), sci(k.force0.p99), "not finite", "-",
                            "-", verdictUpper(k.verdict)});
            continue;
        }
        if (!r.referenceRun) { // the sampled check compares no trajectories
            rows.push_back({k.id, str(toString(k.precision)), sci(k.force0.max), sci(k.force0.p99), "-",
                            sci(k.energyChange), "-", verdictUpper(k.verdict)});
            continue;
        }
        rows.push_back({k.id, str(toString(k.precision)), sci(k.force0.max), sci(k.force0.p99),
                        sci(k.position.absolute.max), sci(k.energyChange),
                        std::to_string(k.position.predecessorRelativeMisses) + "/" +
                            std::to_string(k.position.predecessorAbsoluteMisses),
                        verdictUpper(k.verdict)});
    }
    out += textTable(rows, {true, true, false, false, false, false, false, true});
    out += "\n";
    for (const std::string& w : r.warnings)
        out += "Warning: " + w + "\n";
    if (r.referenceRun)
        out += "Reference (fp64): \u0394E/E0 " + sci(r.referenceEnergyChange) + ", momentum change " +
               sci(r.referenceMomentumChange) + formatString(", %.3g s", r.referenceSeconds) + "\n";
    else
        out += "Reference (fp64): the sample's step-0 forces on " + r.sampleReference +
               formatString(", %.3g s (no run of its own)", r.referenceSeconds) + "\n";
    for (const KernelValidation& k : r.kernels) // what a tree row's numbers mean
        if (k.method == ForceMethod::Tree && k.verdict != Verdict::Error)
            out += formatString("Tree %s: step-0 force error median %s, p99 %s, max %s; momentum error |sum m a| / "
                                "sum m |a| = %s (a tree does not conserve momentum exactly)\n",
                                k.id.c_str(), sci(k.force0.median).c_str(), sci(k.force0.p99).c_str(),
                                sci(k.force0.max).c_str(), sci(k.momentumError0).c_str());
    for (const KernelValidation& k : r.kernels) // a tree row run with a force accuracy: asked and achieved
        if (k.forceAccuracy > 0 && k.verdict != Verdict::Error)
            out += formatString("Accuracy %s: force accuracy (p99) asked %s: theta = %g%s (calibrated p99 %s), p99 "
                                "achieved %s: %s\n",
                                k.id.c_str(), sci(k.forceAccuracy).c_str(), k.openingAngle,
                                k.openingAlpha > 0 ? formatString(", alpha = %g", k.openingAlpha).c_str() : "",
                                sci(k.calibratedP99).c_str(), sci(k.force0.p99).c_str(),
                                k.forceAccuracyMet() ? "met" : "NOT met");
    if (const auto s = std::find_if(r.kernels.begin(), r.kernels.end(), [](const KernelValidation& k) { return k.force0.sampled > 0; });
        s != r.kernels.end())
        out += formatString("Sampled:     the step-0 force errors are measured on a random sample of %zu of the %s "
                            "(fixed seed), each against all N in fp64%s\n",
                            s->force0.sampled, bodyCount(r.bodies).c_str(),
                            s->force0.sampled < r.bodies ? ", not on all N" : "");
    out += "Thresholds:  step-0 force error of every body (all pairs): relative <= " + sci(r.thresholds.forceFp32) +
           " (fp32), <= " + sci(r.thresholds.forceFp64) + " (fp64), or " + roundingBoundText(r.thresholds) +
           " (u = 2^-24 fp32, 2^-53 fp64; S_i = |G| sum_j m_j |r_ij| / (r_ij^2 + eps^2)^(3/2));\n"
           "             tree rows: p99 <= " + sci(r.thresholds.treeForceP99) + " and median <= " +
           sci(r.thresholds.treeForceMedian) +
           (r.params.forceAccuracy > 0 ? " (run with a force accuracy: p99 <= the target, the median not judged)" : "") +
           ";\n";
    if (r.referenceRun)
        out += "             |\u0394E/E0 - \u0394E/E0 (reference)| <= max(" + sci(r.thresholds.energy) +
               ", |\u0394E/E0 (reference)|) = " + sci(energyBound(r)) + ";\n";
    else
        out += "             |\u0394E/E0| <= " + sci(r.thresholds.energy) + " over the kernel's own run (sampled check);\n";
    out += "             predecessor's misses (reported, not judged): |d| > " +
           formatString("%g %%", r.thresholds.predecessorRelative * 100) + " of min(|u|, |u_ref|) or > " +
           formatString("%g", r.thresholds.predecessorAbsolute) + ", per position component\n";
    bool anyReason = false;
    for (const KernelValidation& k : r.kernels) {
        if (k.verdict == Verdict::Pass)
            continue;
        if (!anyReason)
            out += "Failures:\n";
        anyReason = true;
        if (k.reasons.empty())
            out += "  " + k.id + ": " + verdictUpper(k.verdict) + " (no reason given)\n";
        for (const std::string& reason : k.reasons)
            out += "  " + k.id + ": " + reason + "\n";
    }
    out += "\n" + passLine(counts) + "\n";
    return out;
}

// --------------------------------------------------------------------------------------- JSON

std::string validationJson(const ValidationReport& r)
{
    const Counts counts = countVerdicts(r);
    json j;
    j["schema"] = "nbody-validation/1";
    j["allPass"] = r.allPass();
    j["summary"] = {{"kernels", counts.total}, {"pass", counts.pass}, {"fail", counts.fail}, {"error", counts.error}};
    j["bodies"] = r.bodies;
    j["steps"] = r.steps;
    j["system"] = r.system;
    j["warnings"] = r.warnings;
    j["referenceRun"] = r.referenceRun;
    j["sampleReference"] = r.sampleReference;
    j["parameters"] = {{"G", num(r.params.G)},
                       {"eps2", num(shortestFloat(r.params.eps2))},
                       {"dt", num(shortestFloat(r.params.dt))},
                       {"integrator", r.params.integrator},
                       {"blockSize", r.params.blockSize},
                       {"blockRows", r.params.blockRows},
                       {"tileWidthFactor", r.params.tileWidthFactor},
                       {"bodiesPerThread", r.params.bodiesPerThread},
                       {"jSplit", r.params.jSplit},
                       {"unroll", r.params.unroll},
                       {"openingAngle", num(shortestFloat(r.params.openingAngle))},
                       {"leafSize", r.params.leafSize},
                       {"openingAlpha", num(r.params.openingAlpha)},
                       {"forceAccuracy", r.params.forceAccuracy > 0 ? json(num(r.params.forceAccuracy)) : json(nullptr)}};
    j["thresholds"] = {{"forceFp32", num(r.thresholds.forceFp32)},
                       {"forceFp64", num(r.thresholds.forceFp64)},
                       {"roundingK", num(r.thresholds.roundingK)},
                       {"treeForceP99", num(r.thresholds.treeForceP99)},
                       {"treeForceMedian", num(r.thresholds.treeForceMedian)},
                       {"energy", num(r.thresholds.energy)},
                       {"predecessorRelative", num(r.thresholds.predecessorRelative)},
                       {"predecessorAbsolute", num(r.thresholds.predecessorAbsolute)}};
    j["environment"] = {{"device", r.environment.device},
                        {"cuda", r.environment.cuda},
                        {"build", r.environment.build},
                        {"host", r.environment.host},
                        {"openmpThreads", r.environment.openmpThreads},
                        {"startedUtc", r.environment.startedUtc}};
    json refGrowth = json::array();
    for (const GrowthPoint& g : r.referenceGrowth)
        refGrowth.push_back({{"step", g.step}, {"time", num(g.time)}, {"energyChange", num(g.energyChange)}});
    j["reference"] = {{"initialEnergy", num(r.initialEnergy)},
                      {"energyChange", num(r.referenceEnergyChange)},
                      {"momentumChange", num(r.referenceMomentumChange)},
                      {"seconds", num(r.referenceSeconds)},
                      {"growth", std::move(refGrowth)}};
    json kernels = json::array();
    for (const KernelValidation& k : r.kernels) {
        json growth = json::array();
        for (const GrowthPoint& g : k.growth)
            growth.push_back(toJson(g));
        kernels.push_back({{"id", k.id},
                           {"name", k.name},
                           {"precision", toString(k.precision)},
                           {"backend", toString(k.backend)},
                           {"layout", toString(k.layout)},
                           {"method", toString(k.method)},
                           {"launch", k.launch},
                           {"verdict", toString(k.verdict)},
                           {"reasons", k.reasons},
                           {"finite", k.finite},
                           {"force0", toJson(k.force0)},
                           {"force0Bodies", k.method == ForceMethod::Tree ? json(nullptr) : toJson(k.forceBodies)},
                           {"momentumError0", num(k.momentumError0)},
                           {"openingAngle", k.method == ForceMethod::Tree ? json(num(shortestFloat(float(k.openingAngle))))
                                                                          : json(nullptr)},
                           {"openingAlpha", k.method == ForceMethod::Tree ? json(num(k.openingAlpha)) : json(nullptr)},
                           {"forceAccuracy", k.forceAccuracy > 0 ? json{{"target", num(k.forceAccuracy)},
                                                                        {"calibratedP99", num(k.calibratedP99)},
                                                                        {"p99", num(k.force0.p99)},
                                                                        {"met", k.forceAccuracyMet()}}
                                                                  : json(nullptr)},
                           {"position", toJson(k.position)},
                           {"velocity", toJson(k.velocity)},
                           {"acceleration", toJson(k.acceleration)},
                           {"growth", std::move(growth)},
                           {"energyChange", num(k.energyChange)},
                           {"energyChangeDifference", num(std::abs(k.energyChange - r.referenceEnergyChange))},
                           {"momentumChange", num(k.momentumChange)},
                           {"seconds", num(k.seconds)}});
    }
    j["kernels"] = std::move(kernels);
    // Strings from the outside (host names, CUDA error messages) that are not valid UTF-8 get
    // U+FFFD instead of making dump() throw.
    return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

// -------------------------------------------------------------------------------------- write

std::optional<ReportFormat> validationReportFormat(const std::string& path)
{
    const std::string ext = lowerExtension(path);
    if (ext == ".json")
        return ReportFormat::Json;
    if (ext == ".html" || ext == ".htm")
        return ReportFormat::Html;
    return std::nullopt;
}

void writeValidationReport(const std::string& path, const ValidationReport& report)
{
    const std::optional<ReportFormat> format = validationReportFormat(path);
    if (!format)
        throw std::invalid_argument("validation report '" + path +
                                    "': unknown kind of file; give a name ending in .json or .html (.htm)");
    const std::string text = *format == ReportFormat::Json ? validationJson(report) : validationHtml(report);
    try {
        writeTextAtomically(path, text);
    } catch (const WriteError& e) {
        throw WriteError(std::string("validation report: ") + e.what());
    }
}

std::string validationVerdictLine(const ValidationReport& report)
{
    return passLine(countVerdicts(report));
}

} // namespace nbody
