#pragma once
/// \file ParamOptions.h
/// Command-line options made from the parameter table (sim/core/ParamTable.h): one option per row of
/// the groups a subcommand takes, its help from the row's doc, range, unit and default, its
/// value checked by the row (the message is the row's, after the option's name:
/// "--theta: opening angle theta = 3 is outside (0, 2]").

#include "sim/core/ParamTable.h"

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace CLI {
class App;
class Validator;
}

namespace nbody::cli {

/// The values given on the command line for rows of the table, by key, as typed.
struct ParamTexts {
    std::vector<std::pair<std::string, std::string>> given;
    /// Records (or replaces) the value of `key`.
    void set(std::string_view key, std::string text);
    /// The text given for `key`, or nullptr.
    const std::string* find(std::string_view key) const;
};

/// Adds an option for every row of `groups` that names one (ParamInfo::option): a flag for a
/// Boolean row, else an option taking a value. Rows declared at run time are included.
void addParamOptions(CLI::App& command, ParamTexts& texts, std::initializer_list<ParamGroup> groups);
/// Sets every given row's value in `p` (ParamInfo::set). Throws std::invalid_argument naming the
/// option when a row refuses its text (the options' checks refuse it first).
void applyParamTexts(const ParamTexts& texts, SimParams& p);
/// The help text of a row's option: "<doc> (<range>[, <unit>])".
std::string paramHelp(const ParamInfo& row);

/// Option checks with messages a user can read ("--steps-per-second: must be a positive number
/// (got 0)"), in place of CLI11's PositiveNumber and NonNegativeNumber, whose messages print the
/// range up to the largest double in 300 digits. Finite numbers only.
const CLI::Validator& positiveNumber();
const CLI::Validator& nonNegativeNumber();
/// The check of an integer option: decimal digits (a sign first allowed) within lo..hi, else
/// "must be an integer (got 1.5)" or "must be an integer in 1..268435456 (got 0)", in place of
/// CLI11's Range, which called 1.5 "not in range".
CLI::Validator integerIn(long long lo, unsigned long long hi);

} // namespace nbody::cli
