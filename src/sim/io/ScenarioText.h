#pragma once
// Helpers the scenario registry (Scenarios.cpp) and the scenario files (ScenarioFiles.cpp)
// share: numbers and JSON kinds in messages, the folder of a file. Internal to io/.

#include "sim/base/Format.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace nbody::scenario_text {

/// A number in %g style.
inline std::string num(double v) { return formatString("%g", v); }

/// "a number", "a string": what a JSON value is, for messages.
inline std::string kindOf(const nlohmann::json& v)
{
    switch (v.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::discarded: return "invalid";
    default: return "a number";
    }
}

/// The absolute folder of a path (relative names in a scenario file are resolved from there).
inline std::string dirOf(const std::string& path)
{
    const std::filesystem::path p = std::filesystem::absolute(std::filesystem::path(path)).parent_path();
    return p.string();
}


} // namespace nbody::scenario_text
