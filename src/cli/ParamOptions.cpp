#include "ParamOptions.h"
#include "sim/core/ParamTable.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace nbody::cli {

void ParamTexts::set(std::string_view key, std::string text)
{
    for (auto& [k, v] : given)
        if (k == key) {
            v = std::move(text);
            return;
        }
    given.emplace_back(std::string(key), std::move(text));
}

const std::string* ParamTexts::find(std::string_view key) const
{
    for (const auto& [k, v] : given)
        if (k == key)
            return &v;
    return nullptr;
}

std::string paramHelp(const ParamInfo& row)
{
    std::string help(row.doc);
    if (!help.empty())
        help[0] = char(std::toupper(static_cast<unsigned char>(help[0])));
    if (row.type != ParamType::Boolean && row.type != ParamType::Text) {
        help += " (" + paramRangeText(row);
        if (!row.unit.empty())
            help += ", " + std::string(row.unit);
        help += ")";
    }
    return help;
}

namespace {

std::string typeName(const ParamInfo& row)
{
    switch (row.type) {
    case ParamType::Real: return "FLOAT";
    case ParamType::Integer: return "INT";
    case ParamType::Boolean: return "";
    case ParamType::Text: return "ID";
    }
    return "VALUE";
}

} // namespace

void addParamOptions(CLI::App& c, ParamTexts& texts, std::initializer_list<ParamGroup> groups)
{
    for (const ParamInfo& row : paramTable()) {
        if (row.option.empty() || std::find(groups.begin(), groups.end(), row.group) == groups.end())
            continue;
        const std::string name(row.option), key(row.key);
        const ParamInfo* r = &row; // rows never move (ParamTable.h)
        if (row.type == ParamType::Boolean) {
            c.add_flag_callback(name, [&texts, key] { texts.set(key, "true"); }, paramHelp(row));
            continue;
        }
        c.add_option(
             name,
             [&texts, key](const CLI::results_t& values) {
                 texts.set(key, values.back());
                 return true;
             },
             paramHelp(row))
            ->type_name(typeName(row))
            ->default_str(paramDefaultText(row))
            ->check(CLI::Validator([r](std::string& text) { return paramTextProblem(*r, text); }, paramRangeText(row)));
    }
}

void applyParamTexts(const ParamTexts& texts, SimParams& p)
{
    for (const auto& [key, text] : texts.given) {
        const ParamInfo* row = findParam(key);
        if (!row)
            throw std::invalid_argument("unknown parameter '" + key + "'");
        if (const std::string why = row->set(text, p); !why.empty())
            throw std::invalid_argument(std::string(row->option) + ": " + why);
    }
}

CLI::Validator integerIn(long long lo, unsigned long long hi)
{
    const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
    return CLI::Validator(
        [lo, hi, range](std::string& text) -> std::string {
            if (const std::string why = integerTextProblem(text); !why.empty())
                return why;
            const bool negative = text[0] == '-';
            errno = 0;
            bool inside = false;
            if (negative) {
                const long long v = std::strtoll(text.c_str(), nullptr, 10);
                inside = errno != ERANGE && v >= lo;
            } else {
                const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
                inside = errno != ERANGE && v <= hi && (lo <= 0 || v >= static_cast<unsigned long long>(lo));
            }
            return inside ? std::string() : "must be an integer in " + range + " (got " + text + ")";
        },
        "INT in " + range);
}

const CLI::Validator& positiveNumber()
{
    static const CLI::Validator v([](std::string& text) { return numberTextProblem(text, false); }, "POSITIVE");
    return v;
}

const CLI::Validator& nonNegativeNumber()
{
    static const CLI::Validator v([](std::string& text) { return numberTextProblem(text, true); }, "NONNEGATIVE");
    return v;
}

} // namespace nbody::cli
