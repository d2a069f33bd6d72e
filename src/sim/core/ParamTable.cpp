#include "sim/core/ParamTable.h"
#include "sim/core/BlockSteps.h"
#include "sim/collide/Collisions.h"
#include "sim/core/Integrators.h"
#include "sim/base/Registry.h"
#include "contracts/Tree.h"
#include "sim/core/Launch.h"
#include "sim/base/Format.h"
#include "sim/base/ShortestText.h"

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace nbody {

namespace {

std::string num(double v) { return formatString("%g", v); }

/// Exact text of a value: the shortest decimal that reads back to the same fp32 or fp64 value
/// ("0.45" for 0.45f; shortestText, as every writer writes its numbers).
std::string exact(float v) { return shortestText(v); }
std::string exact(double v) { return shortestText(v); }
std::string exact(int v) { return std::to_string(v); }
std::string exact(bool v) { return v ? "true" : "false"; }
std::string exact(const std::string& v) { return v; }

/// Parses `text` as a value of T; "" or why not ("'abc' is not a number").
/// 'text' in quotes (built by appending: GCC 12 warns falsely, -Wrestrict, on "'" + string).
std::string quoted(std::string_view text)
{
    std::string q;
    q.reserve(text.size() + 2);
    q += '\'';
    q += text;
    q += '\'';
    return q;
}

} // namespace

std::string integerTextProblem(std::string_view text)
{
    const std::size_t digitsFrom = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
    const bool digits = text.size() > digitsFrom &&
                        std::all_of(text.begin() + std::ptrdiff_t(digitsFrom), text.end(),
                                    [](char c) { return c >= '0' && c <= '9'; });
    return digits ? std::string() : "must be an integer (got " + std::string(text) + ")";
}

std::string numberTextProblem(std::string_view text, bool zeroAllowed)
{
    const std::string s(text);
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    const bool number = !s.empty() && end == s.c_str() + s.size() && std::isfinite(v);
    if (number && (zeroAllowed ? v >= 0 : v > 0))
        return {};
    return std::string(zeroAllowed ? "must be a number >= 0" : "must be a positive number") + " (got " + s + ")";
}

namespace {

std::string parseText(std::string_view text, double& out)
{
    const std::string s(text);
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size())
        return quoted(s) + " is not a number";
    // A non-zero value that underflows to 0, or a finite one that overflows to infinity, is
    // refused as given, not stored as 0 or infinity (subnormal results are kept).
    if (errno == ERANGE && (v == 0 || std::isinf(v)))
        return quoted(s) + " is outside the range of fp64 (about 2.2e-308 to 1.8e308)";
    out = v;
    return {};
}
std::string parseText(std::string_view text, float& out)
{
    double v = 0;
    if (std::string why = parseText(text, v); !why.empty())
        return why;
    // fp32 parameters: a value fp32 cannot hold (overflow, or a non-zero value that rounds to 0)
    // is refused as given, not stored as infinity or 0.
    const float f = float(v);
    if ((std::isfinite(v) && !std::isfinite(f)) || (v != 0 && f == 0))
        return quoted(text) + " is outside the range of fp32 (about 1.2e-38 to 3.4e38)";
    out = f;
    return {};
}
std::string parseText(std::string_view text, int& out)
{
    const std::string s(text);
    if (std::string why = integerTextProblem(s); !why.empty())
        return why;
    const long long v = std::strtoll(s.c_str(), nullptr, 10);
    if (v < -(1LL << 31) || v >= (1LL << 31))
        return quoted(s) + " is out of range";
    out = int(v);
    return {};
}
std::string parseText(std::string_view text, bool& out)
{
    if (text == "true" || text == "1") {
        out = true;
        return {};
    }
    if (text == "false" || text == "0") {
        out = false;
        return {};
    }
    return quoted(text) + " is not true or false";
}
std::string parseText(std::string_view text, std::string& out)
{
    if (text.empty())
        return "the value is empty";
    out = std::string(text);
    return {};
}

/// A row whose value is the SimParams field `field`.
template <class T>
ParamInfo fieldRow(ParamInfo row, T SimParams::*field)
{
    row.get = [field](const SimParams& p) { return exact(p.*field); };
    const std::string label(row.label);
    row.set = [field, label](std::string_view text, SimParams& p) -> std::string {
        T v{};
        if (std::string why = parseText(text, v); !why.empty())
            return label + ": " + why;
        p.*field = v;
        return {};
    };
    return row;
}

/// The numeric value of a row in `p` (NaN when the text is not a number).
double numberOf(const ParamInfo& row, const SimParams& p)
{
    double v = std::nan("");
    (void)parseText(row.get(p), v);
    return v;
}

ParamInfo real(std::string_view key, std::string_view option, std::string_view label, std::string_view unit,
               ParamGroup group, ParamReaders readers, double min, double max, bool minExclusive, std::string_view doc)
{
    ParamInfo r;
    r.key = key;
    r.option = option;
    r.label = label;
    r.unit = unit;
    r.type = ParamType::Real;
    r.group = group;
    r.readers = readers;
    r.min = min;
    r.max = max;
    r.minExclusive = minExclusive;
    r.doc = doc;
    return r;
}

ParamInfo integer(std::string_view key, std::string_view option, std::string_view label, ParamGroup group,
                  ParamReaders readers, double min, double max, bool zeroMeansAuto, std::string_view doc)
{
    ParamInfo r = real(key, option, label, "", group, readers, min, max, false, doc);
    r.type = ParamType::Integer;
    r.zeroMeansAuto = zeroMeansAuto;
    return r;
}

ParamInfo boolean(std::string_view key, std::string_view option, std::string_view label, ParamGroup group,
                  ParamReaders readers, std::string_view doc)
{
    ParamInfo r = real(key, option, label, "", group, readers, 0, 1, false, doc);
    r.type = ParamType::Boolean;
    return r;
}

ParamInfo text(std::string_view key, std::string_view option, std::string_view label, ParamGroup group,
               ParamReaders readers, std::string_view doc)
{
    ParamInfo r = real(key, option, label, "", group, readers, 0, 0, false, doc);
    r.type = ParamType::Text;
    return r;
}

constexpr double kInf = std::numeric_limits<double>::infinity();

/// The block time steps' own rows (η, the deepest level) do nothing with fixed steps.
constexpr ParamCondition kBlockStepsOnly{"timestep", "block", "block time steps"};

std::deque<ParamInfo> builtInRows()
{
    std::deque<ParamInfo> t;
    // ---- physics ----
    {
        // Up to the largest double: an fp32 kernel cannot hold G above the fp32 maximum, which
        // the precision-range check warns about (PrecisionRange.h) rather than refusing G for
        // the fp64 kernels too.
        ParamInfo r = fieldRow(real("G", "--G", "G", "length^3 mass^-1 time^-2", ParamGroup::Physics,
                                    ParamReaders::All, 0, kInf, true, "gravitational constant"),
                               &SimParams::G);
        r.brief = "G";
        r.trajectory = true;
        r.symbol = "G";
        t.push_back(r);
    }
    {
        ParamInfo r = fieldRow(real("eps2", "--eps2", "softening eps2", "length^2", ParamGroup::Physics, ParamReaders::All, 0,
                              kInf, false, "Plummer softening eps^2 of every pair (fp32)"),
                         &SimParams::eps2);
        r.brief = "eps2";
        r.trajectory = true;
        r.symbol = "ε²";
        t.push_back(r);
    }
    {
        ParamInfo r = fieldRow(real("dt", "--dt", "time step dt", "time", ParamGroup::Physics, ParamReaders::All, 0, kInf,
                                    true, "time step of the KDK leapfrog (fp32)"),
                               &SimParams::dt);
        r.brief = "dt";
        r.trajectory = true;
        r.symbol = "dt";
        r.check = [](const SimParams& p) -> std::string {
            if (std::isfinite(p.dt) && p.dt < 0)
                return "time step dt must be positive and finite (got " + num(p.dt) +
                       "; to run backwards in time, reverse the direction instead: Simulation → Reverse time in "
                       "the app, --reverse for nbody run)";
            return {};
        };
        t.push_back(r);
    }
    {
        ParamInfo r = fieldRow(text("integrator", "--integrator", "time integrator", ParamGroup::Physics, ParamReaders::All,
                                    "a row of the integrator registry (leapfrog, yoshida4): nbody integrators"),
                               &SimParams::integrator);
        r.brief = "integrator";
        r.stored = true;
        r.check = [](const SimParams& p) -> std::string {
            if (!findIntegrator(p.integrator))
                return "unknown integrator '" + p.integrator + "' (known: " + knownIntegratorIds() + ")";
            return {};
        };
        t.push_back(r);
    }
    // ---- the tree rows ----
    {
        ParamInfo r = fieldRow(real("openingAngle", "--theta", "opening angle theta", "", ParamGroup::Tree, ParamReaders::Tree,
                                    0, kMaxOpeningAngle, true,
                                    "Barnes-Hut opening angle: smaller is more accurate and slower"),
                               &SimParams::openingAngle);
        r.brief = "theta";
        r.symbol = "θ";
        r.stored = true;
        t.push_back(r);
    }
    {
        ParamInfo r = fieldRow(integer("leafSize", "--leaf-size", "leaf size", ParamGroup::Tree, ParamReaders::Tree, 1,
                                       tree::kMaxLeafSize, false,
                                       "an opened cell of at most this many bodies is summed body by body"),
                               &SimParams::leafSize);
        r.brief = "leaf";
        r.stored = true;
        t.push_back(r);
    }
    {
        ParamInfo r = fieldRow(real("openingAlpha", "--opening-alpha", "relative criterion alpha", "",
                                    ParamGroup::Tree, ParamReaders::Tree, 0, 1, false,
                                    "tree rows: 0 for the geometric criterion alone; alpha > 0 also requires "
                                    "G M l^2 / d^4 <= alpha |a_old| (GADGET-2's relative criterion), with theta "
                                    "as the guard (e.g. --theta 2 --opening-alpha 0.0035)"),
                               &SimParams::openingAlpha);
        r.brief = "alpha";
        r.briefOnlyWhenSet = true;
        r.symbol = "α";
        r.decimals = 4; // the calibrated α run from 0.0002 (ForceAccuracy.cpp)
        r.step = 0.001;
        r.stored = true;
        t.push_back(r);
    }
    {
        // Unset ("", SimParams::forceAccuracy = 0) by default; a value given must be in (0, 1]
        // (a p99 of relative errors above 1 is no accuracy). The θ it picks depends on the kernel
        // row: withForceAccuracy (ForceAccuracy.h) applies it, and refuses a target the row's
        // calibration cannot reach.
        ParamInfo r = real("forceAccuracy", "--force-accuracy", "force accuracy (p99)", "", ParamGroup::Tree,
                           ParamReaders::Tree, 0, 1, true,
                           "tree rows: target p99 of the step-0 relative force error; picks theta and the relative "
                           "criterion's alpha from the row's calibration tables: the cheapest setting whose measured "
                           "p99 is at most this (not with --theta)");
        r.get = [](const SimParams& p) { return p.forceAccuracy == 0 ? std::string() : exact(p.forceAccuracy); };
        r.set = [](std::string_view text, SimParams& p) -> std::string {
            if (text.empty()) {
                p.forceAccuracy = 0;
                return {};
            }
            double v = 0;
            if (std::string why = parseText(text, v); !why.empty())
                return "force accuracy (p99): " + why;
            if (!std::isfinite(v) || !(v > 0) || v > 1)
                return "force accuracy (p99) = " + std::string(text) + " is outside (0, 1]";
            p.forceAccuracy = v;
            return {};
        };
        r.brief = "accuracy";
        r.briefOnlyWhenSet = true;
        r.symbol = "p99";
        t.push_back(r);
    }
    {
        ParamInfo r = fieldRow(boolean("reverse", "--reverse", "time runs backwards", ParamGroup::Physics, ParamReaders::All,
                                       "every step advances by -dt (KDK and Yoshida retrace their steps)"),
                               &SimParams::reverse);
        r.brief = "reverse";
        r.stored = true;
        t.push_back(r);
    }
    // ---- time steps (BlockSteps.h) ----
    {
        ParamInfo r = fieldRow(text("timestep", "--timestep", "time steps", ParamGroup::TimeSteps, ParamReaders::All,
                                    "fixed: every body takes dt; block: hierarchical block time steps, each body "
                                    "on a level with step dt/2^k from its criterion (dt is the largest step)"),
                               &SimParams::timestep);
        r.brief = "timestep";
        r.briefOnlyWhenSet = true;
        r.stored = true;
        r.check = [](const SimParams& p) -> std::string {
            if (p.timestep != "fixed" && p.timestep != "block")
                return "time steps '" + p.timestep + "' are not known (known: fixed, block)";
            return blockStepsProblem(p);
        };
        r.choices = [] { return std::vector<std::string>{"fixed", "block"}; };
        t.push_back(r);
    }
    {
        ParamInfo r = fieldRow(real("eta", "--eta", "step accuracy eta", "", ParamGroup::TimeSteps, ParamReaders::All, 0,
                                    10, true,
                                    "block steps: dt_i = eta sqrt(l/|a_i|), l = eps (or the nearest body's distance "
                                    "when eps2 = 0); smaller is more accurate"),
                               &SimParams::eta);
        r.onlyWith = kBlockStepsOnly;
        r.brief = "eta";
        r.symbol = "η";
        r.briefOnlyWhenSet = true;
        r.stored = true;
        t.push_back(r);
    }
    {
        ParamInfo r = fieldRow(integer("maxLevels", "--max-levels", "deepest step level", ParamGroup::TimeSteps,
                                       ParamReaders::All, 0, kMaxBlockLevels, false,
                                       "block steps: the smallest step is dt/2^max-levels"),
                               &SimParams::maxLevels);
        r.onlyWith = kBlockStepsOnly;
        r.brief = "levels";
        r.briefOnlyWhenSet = true;
        r.stored = true;
        t.push_back(r);
    }
    // ---- the launch parameters of the CUDA rows (0: auto, sim/core/Launch.h) ----
    {
        ParamInfo r = fieldRow(integer("blockSize", "--block-size", "block size", ParamGroup::Launch, ParamReaders::LaunchRows, 1,
                                 kInf, true, "CUDA threads per block (0: auto, the tuned or default value)"),
                         &SimParams::blockSize);
        r.brief = "block";
        t.push_back(r);
    }
    {
        ParamInfo r = fieldRow(integer("blockRows", "--block-rows", "block rows", ParamGroup::Launch, ParamReaders::LaunchRows, 1,
                                 kInf, true, "rows (bodies i) per block of the 2D kernels (0: auto)"),
                         &SimParams::blockRows);
        r.brief = "rows";
        t.push_back(r);
    }
    {
        ParamInfo r = fieldRow(integer("tileWidthFactor", "--tile-factor", "tile width factor", ParamGroup::Launch,
                                 ParamReaders::LaunchRows, 1, kInf, true,
                                 "tile width factor of the tiled kernels: bodies per tile = block size x factor (0: auto)"),
                         &SimParams::tileWidthFactor);
        r.brief = "tile";
        t.push_back(r);
    }
    {
        ParamInfo r = fieldRow(integer("bodiesPerThread", "--bodies-per-thread", "bodies per thread", ParamGroup::Launch,
                                 ParamReaders::LaunchRows, 1, 1 << 10, true,
                                 "i-bodies per thread of the blocked kernels: 1, 2, 4, 8 (0: auto)"),
                         &SimParams::bodiesPerThread);
        r.brief = "i/thread";
        t.push_back(r);
    }
    {
        ParamInfo r = fieldRow(integer("jSplit", "--j-split", "j-split", ParamGroup::Launch, ParamReaders::LaunchRows, 1, 1 << 16,
                                 true, "pieces the j-range is split into across blocks, blocked kernels (0: auto)"),
                         &SimParams::jSplit);
        r.brief = "j-split";
        t.push_back(r);
    }
    {
        ParamInfo r = fieldRow(integer("unroll", "--unroll", "unroll", ParamGroup::Launch, ParamReaders::LaunchRows, 1, 1 << 10,
                                 true, "unroll of the loop over a tile, blocked kernels: 1, 2, 4, 8 (0: auto)"),
                         &SimParams::unroll);
        r.brief = "unroll";
        t.push_back(r);
    }
    {
        ParamInfo r = fieldRow(integer("exchangeChunks", "--exchange-chunks", "exchange chunks", ParamGroup::Launch,
                                 ParamReaders::Distributed, 1, 1024, true,
                                 "under mpirun: the force exchange in this many chunks, each collective running while "
                                 "the next chunk is computed (1: one blocking collective; 0: auto)"),
                         &SimParams::exchangeChunks);
        r.brief = "exchange-chunks";
        r.briefOnlyWhenSet = true;
        t.push_back(r);
    }
    // ---- the collision system ----
    {
        ParamInfo r = fieldRow(boolean("collisions", "--collisions", "collisions merge bodies", ParamGroup::Collisions,
                                       ParamReaders::None,
                                       "bodies closer than the sum of their radii merge (mass, momentum and centre "
                                       "of mass conserved)"),
                               &SimParams::collisions);
        r.brief = "collisions";
        r.stored = true;
        t.push_back(r);
    }
    {
        ParamInfo r = fieldRow(text("contactSearch", "--contact-search", "contact search", ParamGroup::Collisions,
                                    ParamReaders::None, "row of the contact-search registry, or auto"),
                               &SimParams::contactSearch);
        r.check = [](const SimParams& p) -> std::string {
            if (p.contactSearch == "auto")
                return {};
            const ContactSearchInfo* row = findContactSearch(p.contactSearch);
            if (!row)
                return "unknown contact search '" + p.contactSearch + "' (known: auto, " + joinIds(contactSearches()) + ")";
            if (!row->find)
                return "contact search '" + p.contactSearch + "' is not built in this configuration";
            return {};
        };
        t.push_back(r);
    }
    // ---- how the run is carried out ----
    t.push_back(fieldRow(integer("diagnosticsInterval", "", "diagnostics interval", ParamGroup::Policy, ParamReaders::None, 0,
                                 kInf, false, "steps between automatic energy and momentum evaluations (0: on request)"),
                         &SimParams::diagnosticsInterval));
    t.push_back(fieldRow(integer("hostCopyInterval", "", "host copy interval", ParamGroup::Policy, ParamReaders::Cuda, 0,
                                 kInf, false,
                                 "CUDA kernels: steps between host copies of the state, the last good state a GPU "
                                 "fault falls back to (0: only when read)"),
                         &SimParams::hostCopyInterval));
    {
        ParamInfo r = fieldRow(integer("forceSlices", "", "force slices", ParamGroup::Policy, ParamReaders::Cuda, 1, kInf,
                                       true,
                                       "CUDA kernels: one force pass as this many launches (0: auto, from the display "
                                       "watchdog)"),
                               &SimParams::forceSlices);
        t.push_back(r);
    }
    t.push_back(fieldRow(real("watchdogLaunchMs", "", "watchdog launch time", "ms", ParamGroup::Policy, ParamReaders::Cuda, 0,
                              kInf, true, "the predicted time one force launch is kept under on a display GPU"),
                         &SimParams::watchdogLaunchMs));
    {
        ParamInfo r = fieldRow(boolean("cudaGraphs", "", "CUDA graphs", ParamGroup::Policy, ParamReaders::Cuda,
                                 "CUDA kernels: a step is captured once into a CUDA graph and replayed"),
                         &SimParams::cudaGraphs);
        r.brief = "cuda-graphs";
        t.push_back(r);
    }
    return t;
}

std::deque<ParamInfo>& table()
{
    static std::deque<ParamInfo> t = builtInRows();
    return t;
}

} // namespace

const std::deque<ParamInfo>& paramTable() { return table(); }

const ParamInfo* findParam(std::string_view key)
{
    for (const ParamInfo& r : table())
        if (r.key == key)
            return &r;
    return nullptr;
}

const ParamInfo* findParamByOption(std::string_view option)
{
    if (option.empty())
        return nullptr;
    for (const ParamInfo& r : table())
        if (r.option == option)
            return &r;
    return nullptr;
}

void declareParam(ParamInfo row)
{
    if (row.key.empty())
        throw std::invalid_argument("declareParam: a parameter needs a key");
    if (findParam(row.key))
        throw std::invalid_argument("declareParam: parameter '" + std::string(row.key) + "' is declared already");
    if (findParamByOption(row.option))
        throw std::invalid_argument("declareParam: option '" + std::string(row.option) + "' is taken");
    if (!row.onlyWith.key.empty() && !findParam(row.onlyWith.key))
        throw std::invalid_argument("declareParam: '" + std::string(row.key) + "' takes effect only with '" +
                                    std::string(row.onlyWith.key) + "', which is not a parameter");
    const std::string key(row.key);
    if (!row.get)
        row.get = [key](const SimParams& p) {
            const auto it = p.extra.find(key);
            return it == p.extra.end() ? std::string() : it->second;
        };
    if (!row.set) {
        const ParamType type = row.type;
        const std::string label(row.label);
        row.set = [key, type, label](std::string_view text, SimParams& p) -> std::string {
            if (text.empty()) { // unset: the row's default
                p.extra.erase(key);
                return {};
            }
            double d = 0;
            int i = 0;
            bool b = false;
            std::string why;
            switch (type) {
            case ParamType::Real: why = parseText(text, d); break;
            case ParamType::Integer: why = parseText(text, i); break;
            case ParamType::Boolean: why = parseText(text, b); break;
            case ParamType::Text: break;
            }
            if (!why.empty())
                return label + ": " + why;
            p.extra[key] = std::string(text);
            return {};
        };
    }
    table().push_back(std::move(row));
}

std::string paramProblem(const ParamInfo& row, const SimParams& p)
{
    if (row.check)
        if (std::string why = row.check(p); !why.empty())
            return why;
    if (row.type != ParamType::Real && row.type != ParamType::Integer)
        return {};
    const std::string text = row.get(p);
    if (text.empty())
        return {}; // a declared row left unset
    const double v = numberOf(row, p);
    const std::string label(row.label);
    if (row.zeroMeansAuto && v == 0)
        return {};
    const bool below = row.minExclusive ? !(v > row.min) : !(v >= row.min);
    const bool above = !(v <= row.max);
    if (std::isfinite(v) && !below && !above)
        return {};
    if (row.zeroMeansAuto)
        return label + (above ? " must be at most " + num(row.max) : " must be at least " + num(row.min)) +
               ", or 0 for auto (got " + text + ")";
    if (!std::isfinite(row.max) && row.min == 0) {
        const char* what = row.minExclusive ? " must be positive" : " must be >= 0";
        return label + what + (row.type == ParamType::Real ? " and finite" : "") + " (got " + text +
               (row.unit == "ms" ? " ms" : "") + ")";
    }
    // "opening angle theta = 7 is outside (0, 2]", "leaf size 33 is outside 1..32" (as
    // treeParamsProblem words them for the tree code's own callers).
    return label + (row.type == ParamType::Integer ? " " : " = ") + text + " is outside " + paramRangeText(row);
}

std::string paramsProblem(const SimParams& p)
{
    for (const ParamInfo& row : table())
        if (std::string why = paramProblem(row, p); !why.empty())
            return why;
    return {};
}

std::string paramTextProblem(const ParamInfo& row, std::string_view text)
{
    SimParams scratch;
    if (std::string why = row.set(text, scratch); !why.empty())
        return why;
    return paramProblem(row, scratch);
}

std::string paramRangeText(const ParamInfo& row)
{
    switch (row.type) {
    case ParamType::Boolean: return "true or false";
    case ParamType::Text: return "an id";
    case ParamType::Integer: {
        std::string r = std::isfinite(row.max) ? num(row.min) + ".." + num(row.max) : ">= " + num(row.min);
        return row.zeroMeansAuto ? "0 (auto) or " + r : r;
    }
    case ParamType::Real: break;
    }
    std::string r(row.minExclusive ? "(" : "[");
    r += num(row.min);
    r += ", ";
    r += std::isfinite(row.max) ? num(row.max) + "]" : std::string("inf)");
    return r;
}

std::string paramDefaultText(const ParamInfo& row) { return row.get(SimParams{}); }

bool paramReadBy(const ParamInfo& row, const KernelInfo& k)
{
    switch (row.readers) {
    case ParamReaders::All: return true;
    case ParamReaders::Cuda: return k.backend == Backend::Cuda;
    case ParamReaders::LaunchRows:
        for (const LaunchParamInfo& l : launchParams())
            if (l.key == row.key)
                return reads(k.params, l.param);
        return k.backend == Backend::Cuda;
    case ParamReaders::Tree: return k.method == ForceMethod::Tree;
    case ParamReaders::Distributed:
    case ParamReaders::None: return false;
    }
    return false;
}

bool paramConditionMet(const ParamInfo& row, const SimParams& p)
{
    if (row.onlyWith.key.empty())
        return true;
    const ParamInfo* other = findParam(row.onlyWith.key);
    if (!other)
        throw std::logic_error("parameter '" + std::string(row.key) + "' takes effect only with '" +
                               std::string(row.onlyWith.key) + "', which is not a parameter");
    return other->get(p) == row.onlyWith.value;
}

std::vector<const ParamInfo*> storedParams()
{
    std::vector<const ParamInfo*> out;
    for (const ParamInfo& r : table())
        if (r.stored)
            out.push_back(&r);
    return out;
}

const ParamInfo* findStoredParam(std::string_view key)
{
    const ParamInfo* r = findParam(key);
    return r && r->stored ? r : nullptr;
}

std::vector<std::pair<std::string, std::string>> storedParamValues(const SimParams& p)
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const ParamInfo* r : storedParams())
        out.emplace_back(std::string(r->key), r->get(p));
    return out;
}

std::vector<const ParamInfo*> trajectoryParams()
{
    std::vector<const ParamInfo*> out;
    for (const ParamInfo& r : table())
        if (r.trajectory || r.stored)
            out.push_back(&r);
    return out;
}

void copyTrajectoryParams(const SimParams& from, SimParams& to, std::span<const std::string_view> keep)
{
    for (const ParamInfo* r : trajectoryParams()) {
        if (std::find(keep.begin(), keep.end(), r->key) != keep.end())
            continue;
        // The exact text reads back to the same value (ParamInfo::get), so this copies the field.
        if (const std::string why = r->set(r->get(from), to); !why.empty())
            throw std::logic_error("copyTrajectoryParams: " + why);
    }
}

std::vector<const ParamInfo*> changedParams(const SimParams& a, const SimParams& b)
{
    std::vector<const ParamInfo*> out;
    for (const ParamInfo& r : table())
        if (r.get(a) != r.get(b))
            out.push_back(&r);
    return out;
}

std::string describe(const SimParams& p)
{
    std::string s;
    const SimParams defaults;
    for (const ParamInfo& r : table()) {
        if (r.brief.empty())
            continue;
        const std::string value = r.get(p);
        if (r.briefOnlyWhenSet && value == r.get(defaults))
            continue;
        std::string piece;
        if (r.type == ParamType::Boolean) {
            const bool on = value == "true";
            if (on == (r.get(defaults) == "true"))
                continue;
            piece = on ? std::string(r.brief) : std::string(r.brief) + "=off";
        } else if (r.type == ParamType::Text || value.empty()) {
            piece = std::string(r.brief) + "=" + value;
        } else {
            double v = 0;
            (void)parseText(value, v);
            piece = std::string(r.brief) + "=" + (r.zeroMeansAuto && v == 0 ? std::string("auto") : num(v));
        }
        s += (s.empty() ? "" : " ") + piece;
    }
    return s;
}

} // namespace nbody
