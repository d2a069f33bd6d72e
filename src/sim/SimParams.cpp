#include "SimParams.h"
#include "Tree.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace nbody {

std::string describe(const SimParams& p)
{
    std::ostringstream s;
    const auto launch = [](int v) { return v > 0 ? std::to_string(v) : std::string("auto"); };
    s << "G=" << p.G << " eps2=" << p.eps2 << " dt=" << p.dt << " block=" << launch(p.blockSize)
      << (p.tileWidthFactor > 0 ? " tile x" : " tile ") << launch(p.tileWidthFactor) << " rows=" << launch(p.blockRows) << " i/thread=" << launch(p.bodiesPerThread)
      << " j-split=" << launch(p.jSplit) << " unroll=" << launch(p.unroll) << " integrator=" << p.integrator;
    s << " theta=" << p.openingAngle << " leaf=" << p.leafSize;
    if (!p.cudaGraphs)
        s << " cuda-graphs=off";
    if (p.exchangeChunks > 0)
        s << " exchange-chunks=" << p.exchangeChunks;
    if (p.reverse)
        s << " reverse";
    return s.str();
}

namespace {

std::string boolText(bool b) { return b ? "true" : "false"; }

std::string parseBool(std::string_view text, bool& out, std::string_view key)
{
    if (text == "true" || text == "1") {
        out = true;
        return {};
    }
    if (text == "false" || text == "0") {
        out = false;
        return {};
    }
    return std::string(key) + " '" + std::string(text) + "' is not true or false";
}

const std::array<StoredParam, 5> kStoredParams{{
    {"integrator", "--integrator", "time integrator", [](const SimParams& p) { return p.integrator; },
     [](std::string_view t, SimParams& p) -> std::string {
         if (t.empty())
             return "integrator is empty";
         p.integrator = std::string(t); // an unknown id is refused by Simulation, naming the known ones
         return {};
     }},
    {"openingAngle", "--theta", "opening angle theta",
     [](const SimParams& p) {
         char b[32];
         std::snprintf(b, sizeof b, "%.9g", double(p.openingAngle));
         return std::string(b);
     },
     [](std::string_view t, SimParams& p) -> std::string {
         const std::string s(t);
         char* end = nullptr;
         const float v = std::strtof(s.c_str(), &end);
         if (s.empty() || end != s.c_str() + s.size())
             return "openingAngle '" + s + "' is not a number";
         if (std::string why = treeParamsProblem(v, 1); !why.empty())
             return why;
         p.openingAngle = v;
         return {};
     }},
    {"leafSize", "--leaf-size", "leaf size", [](const SimParams& p) { return std::to_string(p.leafSize); },
     [](std::string_view t, SimParams& p) -> std::string {
         const std::string s(t);
         char* end = nullptr;
         const long v = std::strtol(s.c_str(), &end, 10);
         if (s.empty() || end != s.c_str() + s.size())
             return "leafSize '" + s + "' is not an integer";
         if (std::string why = treeParamsProblem(0.5, int(std::max(-1L, std::min(v, 1L << 20)))); !why.empty())
             return why;
         p.leafSize = int(v);
         return {};
     }},
    {"reverse", "--reverse", "time runs backwards", [](const SimParams& p) { return boolText(p.reverse); },
     [](std::string_view t, SimParams& p) { return parseBool(t, p.reverse, "reverse"); }},
    {"collisions", "--collisions", "collisions merge bodies", [](const SimParams& p) { return boolText(p.collisions); },
     [](std::string_view t, SimParams& p) { return parseBool(t, p.collisions, "collisions"); }},
}};

} // namespace

std::span<const StoredParam> storedParams() { return kStoredParams; }

std::string storedParamProblem(const StoredParam& row, std::string_view text)
{
    SimParams scratch;
    return row.parse(text, scratch);
}

const StoredParam* findStoredParam(std::string_view key)
{
    for (const StoredParam& r : kStoredParams)
        if (r.key == key)
            return &r;
    return nullptr;
}

std::vector<std::pair<std::string, std::string>> storedParamValues(const SimParams& p)
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const StoredParam& r : kStoredParams)
        out.emplace_back(std::string(r.key), r.format(p));
    return out;
}

std::string reverseProblem(const SimParams& p)
{
    if (p.reverse && p.collisions)
        return "time cannot run backwards while the collision system merges bodies (a merge cannot be "
               "undone): turn collisions off to reverse";
    return {};
}

std::string treeParamsProblem(double theta, int leafSize)
{
    std::ostringstream s;
    if (!std::isfinite(theta) || !(theta > 0) || theta > kMaxOpeningAngle)
        s << "opening angle theta = " << theta << " is outside (0, " << kMaxOpeningAngle << "]";
    else if (leafSize < 1 || leafSize > tree::kMaxLeafSize)
        s << "leaf size " << leafSize << " is outside 1.." << tree::kMaxLeafSize;
    return s.str();
}

} // namespace nbody
