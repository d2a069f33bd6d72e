// Scenario files (JSON, schema "nbody-sandbox-scenario"): parsed with every field checked and
// named in errors, read with line and column, and written atomically (Scenarios.h).
#include "sim/io/Scenarios.h"
#include "sim/io/ScenarioText.h"
#include "sim/collide/Collisions.h"
#include "sim/core/Edits.h"
#include "sim/core/MemoryBudget.h"
#include "sim/core/ParamTable.h"
#include "sim/io/Snapshot.h"

#include "sim/base/AtomicFile.h"
#include "sim/base/PathNames.h"
#include "sim/base/ShortestText.h"
#include "sim/core/Integrators.h"
#include "sim/core/KernelRegistry.h"
#include "sim/base/Registry.h"
#include "sim/core/Scenario.h"
#include "sim/io/Tipsy.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
namespace nbody {

using nlohmann::json;
using namespace scenario_text;

ScenarioError::ScenarioError(std::string field, std::string problem, const std::string& source)
    : std::invalid_argument((source.empty() ? "" : source + ": ") + (field.empty() ? "" : "field '" + field + "': ") +
                            problem),
      m_field(std::move(field)), m_problem(std::move(problem))
{
}

ScenarioError::ScenarioError(const Message& what, std::string field, std::string problem)
    : std::invalid_argument(what.text), m_field(std::move(field)), m_problem(std::move(problem))
{
}

ScenarioError ScenarioError::ofOption(std::string field, const std::string& option, std::string problem)
{
    Message what{option + ": " + problem}; // before `problem` is moved from
    return ScenarioError(what, std::move(field), std::move(problem));
}

namespace {

constexpr const char* kFormatTag = "nbody-sandbox-scenario";

/// The scenario keys with ScenarioSpec fields of their own; every other row of the parameter
/// table goes through ScenarioSpec::params.
bool ownScenarioField(std::string_view key)
{
    for (std::string_view k : {"G", "eps2", "dt", "integrator", "collisions", "contactSearch"})
        if (k == key)
            return true;
    return false;
}

/// The text of a parameter row's JSON value (refused when it is not of the row's type).
std::string paramText(const ParamInfo& row, const json& v)
{
    const std::string key(row.key);
    switch (row.type) {
    case ParamType::Boolean:
        if (!v.is_boolean())
            throw ScenarioError(key, "must be true or false (got " + kindOf(v) + ")");
        return v.get<bool>() ? "true" : "false";
    case ParamType::Integer:
        if (!v.is_number_integer())
            throw ScenarioError(key, "must be an integer (got " + kindOf(v) + ")");
        return std::to_string(v.get<long long>());
    case ParamType::Real: {
        if (!v.is_number())
            throw ScenarioError(key, "must be a number (got " + kindOf(v) + ")");
        return shortestText(v.get<double>());
    }
    case ParamType::Text:
        if (!v.is_string())
            throw ScenarioError(key, "must be a string (got " + kindOf(v) + ")");
        return v.get<std::string>();
    }
    return {};
}

/// The JSON value of a parameter row's text (the row's type).
json paramJson(const ParamInfo& row, const std::string& text)
{
    switch (row.type) {
    case ParamType::Boolean: return text == "true";
    case ParamType::Integer: return std::stoll(text);
    case ParamType::Real: return std::strtod(text.c_str(), nullptr); // the shortest text's value: written as that text
    case ParamType::Text: return text;
    }
    return text;
}

/// Refuses keys of `obj` that are not in `known` nor, for the top level (`rows`), a key of the
/// parameter table (typos), naming the field.
void refuseUnknownKeys(const json& obj, const std::string& prefix, std::initializer_list<std::string_view> known,
                       bool rows = false)
{
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        bool ok = false;
        for (std::string_view k : known)
            ok = ok || it.key() == k;
        ok = ok || (rows && findParam(it.key()) && !ownScenarioField(it.key()));
        if (!ok) {
            std::string list;
            for (std::string_view k : known)
                list += (list.empty() ? "" : ", ") + std::string(k);
            throw ScenarioError(prefix + it.key(), "unknown field (known here: " + list + ")");
        }
    }
}

} // namespace

ScenarioSpec parseScenario(const json& doc, const std::string& baseDir)
{
    if (!doc.is_object())
        throw ScenarioError("", "a scenario must be a JSON object (got " + kindOf(doc) + ")");
    refuseUnknownKeys(doc, "", {"format", "version", "name", "description", "units", "G", "eps2", "dt", "kernel",
                                "integrator", "bodies", "collisions", "contactSearch", "radius", "density"},
                      /*rows*/ true);
    ScenarioSpec s;
    if (const auto it = doc.find("format"); it != doc.end() && (!it->is_string() || it->get<std::string>() != kFormatTag))
        throw ScenarioError("format", std::string("must be \"") + kFormatTag + "\"");
    if (const auto it = doc.find("version"); it != doc.end() && (!it->is_number_integer() || it->get<long long>() != 1))
        throw ScenarioError("version", "must be 1 (the only version this program reads)");
    auto text = [&](const char* key, std::string& out) {
        if (const auto it = doc.find(key); it != doc.end()) {
            if (!it->is_string())
                throw ScenarioError(key, "must be a string (got " + kindOf(*it) + ")");
            out = it->get<std::string>();
        }
    };
    text("name", s.name);
    text("description", s.description);
    text("units", s.units);
    // G, eps2 and dt: finite numbers in range; ε² and dt are fp32 parameters.
    auto number = [&](const char* key, bool zeroAllowed, bool fp32) -> std::optional<double> {
        const auto it = doc.find(key);
        if (it == doc.end())
            return std::nullopt;
        if (!it->is_number())
            throw ScenarioError(key, "must be a number (got " + kindOf(*it) + ")");
        const double v = it->get<double>();
        if (!std::isfinite(v) || v < 0 || (!zeroAllowed && v == 0))
            throw ScenarioError(key, std::string(zeroAllowed ? "must be >= 0" : "must be positive") +
                                         " and finite (got " + num(v) + ")");
        if (fp32 && (!std::isfinite(float(v)) || (v != 0 && float(v) == 0)))
            throw ScenarioError(key, "is outside the range of fp32 (got " + num(v) + ")");
        return v;
    };
    s.G = number("G", false, false);
    if (const auto v = number("eps2", true, true))
        s.eps2 = float(*v);
    if (const auto v = number("dt", false, true))
        s.dt = float(*v);
    if (const auto it = doc.find("kernel"); it != doc.end()) {
        if (!it->is_string())
            throw ScenarioError("kernel", "must be a string (got " + kindOf(*it) + ")");
        const std::string k = it->get<std::string>();
        if (!findKernel(k))
            throw ScenarioError("kernel", "unknown kernel '" + k + "' (known: " + joinIds(kernelRegistry()) + ")");
        s.kernel = k;
    }
    if (const auto it = doc.find("integrator"); it != doc.end()) {
        if (!it->is_string())
            throw ScenarioError("integrator", "must be a string (got " + kindOf(*it) + ")");
        const std::string i = it->get<std::string>();
        if (!findIntegrator(i))
            throw ScenarioError("integrator", "unknown integrator '" + i + "' (known: " + knownIntegratorIds() + ")");
        s.integrator = i;
    }

    if (const auto it = doc.find("collisions"); it != doc.end()) {
        if (!it->is_boolean())
            throw ScenarioError("collisions", "must be true or false (got " + kindOf(*it) + ")");
        s.collisions = it->get<bool>();
    }
    if (const auto it = doc.find("contactSearch"); it != doc.end()) {
        if (!it->is_string())
            throw ScenarioError("contactSearch", "must be a string (got " + kindOf(*it) + ")");
        const std::string c = it->get<std::string>();
        if (c != "auto" && !findContactSearch(c))
            throw ScenarioError("contactSearch",
                                "unknown contact search '" + c + "' (known: auto, " + joinIds(contactSearches()) + ")");
        s.contactSearch = c;
    }
    for (const ParamInfo& row : paramTable()) {
        if (ownScenarioField(row.key))
            continue;
        const auto it = doc.find(std::string(row.key));
        if (it == doc.end())
            continue;
        const std::string value = paramText(row, *it);
        if (const std::string why = paramTextProblem(row, value); !why.empty())
            throw ScenarioError(std::string(row.key), why);
        s.params.emplace_back(std::string(row.key), value);
    }
    const auto radiusValue = [](const json& v, const std::string& field) {
        if (!v.is_number())
            throw ScenarioError(field, "must be a number (got " + kindOf(v) + ")");
        const double r = v.get<double>();
        if (!std::isfinite(r) || r < 0 || !std::isfinite(float(r)))
            throw ScenarioError(field, "must be >= 0 and finite in fp32 (got " + num(r) + ")");
    };
    if (const auto it = doc.find("radius"); it != doc.end()) {
        if (it->is_object()) {
            refuseUnknownKeys(*it, "radius.", {"generic", "dark", "star", "gas"});
            for (auto g = it->begin(); g != it->end(); ++g)
                radiusValue(g.value(), "radius." + g.key());
        } else {
            radiusValue(*it, "radius");
        }
        s.radius = *it;
    }
    if (const auto v = number("density", false, false)) {
        if (!s.radius.is_null())
            throw ScenarioError("density", "give \"radius\" or \"density\", not both");
        s.density = *v;
    }

    const auto bodies = doc.find("bodies");
    if (bodies == doc.end())
        throw ScenarioError("bodies", "is missing: give {\"generator\": ID, …} or {\"snapshot\": PATH}");
    if (!bodies->is_object())
        throw ScenarioError("bodies", "must be an object (got " + kindOf(*bodies) + ")");
    const bool hasGenerator = bodies->contains("generator"), hasSnapshot = bodies->contains("snapshot");
    if (hasGenerator == hasSnapshot)
        throw ScenarioError("bodies", "needs exactly one of \"generator\" and \"snapshot\"");
    if (hasGenerator) {
        refuseUnknownKeys(*bodies, "bodies.", {"generator", "N", "seed", "args"});
        const json& g = (*bodies)["generator"];
        if (!g.is_string())
            throw ScenarioError("bodies.generator", "must be a string (got " + kindOf(g) + ")");
        const ScenarioInfo* row = findScenario(g.get<std::string>());
        if (!row)
            throw ScenarioError("bodies.generator", "unknown generator '" + g.get<std::string>() +
                                                        "' (known: " + knownScenarioIds() + ")");
        s.generator = row->id;
        if (const auto it = bodies->find("N"); it != bodies->end()) {
            if (row->fixedBodies)
                throw ScenarioError("bodies.N", "'" + std::string(row->id) + "' has a fixed number of bodies (" +
                                                    std::to_string(row->defaultBodies) + "): leave N out");
            if (!it->is_number_integer() || it->get<long long>() < 1 ||
                std::uint64_t(it->get<long long>()) > kMaxBodies)
                throw ScenarioError("bodies.N", "must be an integer from 1 to " + std::to_string(kMaxBodies) +
                                                    " (got " + it->dump() + ")");
            s.bodies = std::size_t(it->get<long long>());
        }
        if (const auto it = bodies->find("seed"); it != bodies->end()) {
            if (!it->is_number_unsigned())
                throw ScenarioError("bodies.seed", "must be a non-negative integer (got " + it->dump() + ")");
            s.seed = it->get<std::uint64_t>();
        }
        if (const auto it = bodies->find("args"); it != bodies->end()) {
            if (!it->is_object())
                throw ScenarioError("bodies.args", "must be an object of named arguments (got " + kindOf(*it) + ")");
            s.args = *it;
        }
    } else {
        refuseUnknownKeys(*bodies, "bodies.", {"snapshot", "format"});
        const json& p = (*bodies)["snapshot"];
        if (!p.is_string() || p.get<std::string>().empty())
            throw ScenarioError("bodies.snapshot", "must be a file path (got " + p.dump() + ")");
        std::filesystem::path path(p.get<std::string>());
        if (path.is_relative() && !baseDir.empty())
            path = std::filesystem::path(baseDir) / path;
        s.snapshot = path.lexically_normal().string();
        if (const auto it = bodies->find("format"); it != bodies->end()) {
            if (!it->is_string() || !findSnapshotFormat(it->get<std::string>())) {
                std::string known;
                for (const SnapshotFormat& f : snapshotFormats())
                    known += (known.empty() ? "" : ", ") + std::string(f.id);
                throw ScenarioError("bodies.format", "unknown snapshot format " + it->dump() + " (known: " + known +
                                                         "; or leave it out: the format is detected from the file)");
            }
            s.snapshotFormat = it->get<std::string>();
        }
    }
    return s;
}

namespace {

/// Parses JSON text, tracking the path of what is being parsed ("bodies.N", "a[2].b") so that
/// the errors nlohmann's parser gives without one name the field: a key given twice in one
/// object (the parser keeps the last silently) and a number beyond the range of a double
/// (out_of_range.406 "number overflow"). Throws ScenarioError (with `source`).
json parseTracked(const std::string& text, const std::string& source)
{
    struct Level {
        bool isObject;
        std::set<std::string> keys;
        std::string current; ///< the key being parsed (objects)
        std::size_t index = 0; ///< the element being parsed (arrays)
    };
    std::vector<Level> stack;
    auto pathOf = [&] {
        std::string p;
        for (const Level& l : stack) {
            if (l.isObject) {
                if (!p.empty())
                    p += '.';
                p += l.current;
            } else {
                p += '[';
                p += std::to_string(l.index);
                p += ']';
            }
        }
        return p;
    };
    std::string duplicate; // the first key given twice
    auto callback = [&](int, json::parse_event_t event, json& parsed) -> bool {
        switch (event) {
        case json::parse_event_t::object_start:
            stack.push_back({true, {}, {}, 0});
            break;
        case json::parse_event_t::array_start:
            stack.push_back({false, {}, {}, 0});
            break;
        case json::parse_event_t::object_end:
        case json::parse_event_t::array_end:
            if (!stack.empty())
                stack.pop_back();
            if (!stack.empty() && !stack.back().isObject)
                ++stack.back().index;
            break;
        case json::parse_event_t::key:
            if (!stack.empty()) {
                Level& top = stack.back();
                top.current = parsed.is_string() ? parsed.get<std::string>() : parsed.dump();
                if (!top.keys.insert(top.current).second && duplicate.empty())
                    duplicate = pathOf();
            }
            break;
        case json::parse_event_t::value:
            if (!stack.empty() && !stack.back().isObject)
                ++stack.back().index;
            break;
        }
        return true;
    };
    json doc;
    try {
        doc = json::parse(text, callback);
    } catch (const json::parse_error& e) {
        throw ScenarioError("", std::string("not valid JSON: ") + e.what(), source);
    } catch (const json::out_of_range& e) {
        // 406: a number that does not fit a double; the message quotes it.
        const std::string what = e.what();
        const std::size_t q = what.find('\'');
        const std::string number = q == std::string::npos ? "" : what.substr(q);
        throw ScenarioError(pathOf(), e.id == 406 ? "the number " + number + " is beyond the range of a double (about "
                                                        "1.8e308)"
                                                  : what,
                            source);
    } catch (const json::exception& e) {
        throw ScenarioError(pathOf(), e.what(), source);
    }
    if (!duplicate.empty())
        throw ScenarioError(duplicate, "is given twice in the same object (only one value can count: remove the other)",
                            source);
    return doc;
}

} // namespace

ScenarioSpec readScenarioFile(const std::string& path)
{
    if (const std::string why = unreadableFileReason(path); !why.empty())
        throw ScenarioError("", why, "scenario file '" + path + "'");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw ScenarioError("", "cannot open for reading", "scenario file '" + path + "'");
    std::stringstream buf;
    buf << in.rdbuf();
    const json doc = parseTracked(buf.str(), path);
    try {
        ScenarioSpec s = parseScenario(doc, dirOf(path));
        s.source = path;
        return s;
    } catch (const ScenarioError& e) {
        throw ScenarioError(e.field(), e.problem(), path);
    } catch (const json::exception& e) { // a value that cannot be converted (should not happen: types are checked)
        throw ScenarioError("", e.what(), path);
    }
}

bool namesScenarioFile(std::string_view idOrFile)
{
    std::string lower(idOrFile);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return !findScenario(idOrFile) && lower.ends_with(".json");
}

ScenarioSpec scenarioFromOption(const std::string& idOrFile)
{
    if (findScenario(idOrFile)) {
        ScenarioSpec s = scenarioSpec(idOrFile);
        s.options.emplace_back("bodies.generator", "--scenario");
        return s;
    }
    if (!namesScenarioFile(idOrFile))
        throw ScenarioError::ofOption("bodies.generator", "--scenario",
                                      "unknown scenario '" + idOrFile + "' (known: " + knownScenarioIds() +
                                          "; or a scenario file ending in .json)");
    return readScenarioFile(idOrFile);
}

void setBodiesFromOption(ScenarioSpec& spec, std::size_t bodies)
{
    spec.bodies = bodies;
    spec.options.emplace_back("bodies.N", "--bodies");
}

json toJson(const ScenarioSpec& s)
{
    json j;
    j["format"] = kFormatTag;
    j["version"] = 1;
    if (!s.name.empty())
        j["name"] = s.name;
    if (!s.description.empty())
        j["description"] = s.description;
    if (!s.units.empty())
        j["units"] = s.units;
    if (s.G)
        j["G"] = *s.G;
    // fp32 values as their shortest text ("dt": 0.01 for 0.01f, not 0.009999999776482582).
    if (s.eps2)
        j["eps2"] = shortestAsDouble(*s.eps2);
    if (s.dt)
        j["dt"] = shortestAsDouble(*s.dt);
    if (s.kernel)
        j["kernel"] = *s.kernel;
    if (s.integrator)
        j["integrator"] = *s.integrator;
    json b;
    if (!s.generator.empty()) {
        b["generator"] = s.generator;
        const ScenarioInfo* row = findScenario(s.generator);
        if (s.bodies && !(row && row->fixedBodies))
            b["N"] = *s.bodies;
        b["seed"] = s.seed;
        if (!s.args.empty())
            b["args"] = s.args;
    } else {
        b["snapshot"] = s.snapshot;
        if (!s.snapshotFormat.empty())
            b["format"] = s.snapshotFormat;
    }
    j["bodies"] = b;
    if (s.collisions)
        j["collisions"] = *s.collisions;
    if (s.contactSearch)
        j["contactSearch"] = *s.contactSearch;
    if (!s.radius.is_null())
        j["radius"] = s.radius;
    if (s.density)
        j["density"] = *s.density;
    for (const auto& [key, text] : s.params)
        if (const ParamInfo* row = findParam(key))
            j[key] = paramJson(*row, text);
    return j;
}

std::vector<std::pair<std::string, std::string>> scenarioParamValues(const SimParams& p)
{
    std::vector<std::pair<std::string, std::string>> out;
    const SimParams defaults;
    for (const ParamInfo& row : paramTable())
        if (!ownScenarioField(row.key))
            if (std::string v = row.get(p); v != row.get(defaults))
                out.emplace_back(std::string(row.key), std::move(v));
    return out;
}

void writeScenarioFile(const std::string& path, const ScenarioSpec& spec)
{
    writeTextAtomically(path, toJson(spec).dump(2) + "\n");
}

} // namespace nbody
