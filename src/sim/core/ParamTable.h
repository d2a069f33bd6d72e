#pragma once
/// \file ParamTable.h
/// The parameter table: every run-time parameter of a simulation (SimParams) declared once, as a
/// row — key, label, unit, type, range, one-line doc, which kernel rows read it, whether a
/// snapshot stores it, and how to read and write its value as exact text. The table drives
/// validation and its messages (Simulation refuses what a row refuses), describe(), the
/// parameters snapshots store (HDF5 Parameters/NBody_<key>, CSV `# key = value`), the scenario
/// files' parameter keys, the command line's options and their help (cli/ParamOptions.h), and
/// the widgets of the app's Run and Kernel docks (app/ParamWidgets.h). The idea is REBOUND's
/// field-descriptor list (reb_binary_field_descriptor_list): one table, read by every layer.
///
/// Rows declared at run time (declareParam: tests, extensions) keep their value as text in
/// SimParams::extra under their key; they reach every consumer above like the built-in rows.

#include "sim/core/KernelRegistry.h"
#include "sim/core/SimParams.h"

#include <cstddef>
#include <deque>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nbody {

enum class ParamType {
    Real,    ///< a finite number
    Integer, ///< a whole number
    Boolean, ///< true / false
    Text,    ///< an id of a registry (integrator, contact search)
};

/// Where a parameter belongs: the CLI's option group and the dock that shows it.
enum class ParamGroup {
    Physics,    ///< G, ε², dt, integrator, reverse — the Run dock
    TimeSteps,  ///< fixed or block time steps, η, the deepest level — the Run dock, `nbody run`
    Launch,     ///< the CUDA kernels' launch parameters — the Kernel dock
    Tree,       ///< the tree rows' θ and leaf size — the Kernel dock
    Collisions, ///< the collision system — the Run dock
    Policy,     ///< how the run is carried out (diagnostics, host copies, graphs, slices, MPI)
};

/// Which kernel rows read a parameter.
enum class ParamReaders {
    All,         ///< every kernel row (physics)
    Cuda,        ///< CUDA rows
    LaunchRows,  ///< CUDA rows whose KernelParamUse names it (Tuner.h launchParams)
    Tree,        ///< rows with ForceMethod::Tree
    Distributed, ///< a run of several processes
    None,        ///< no kernel row: the run's policy or the collision system
};

/// A condition on another row for a parameter to take effect (ParamInfo::onlyWith).
struct ParamCondition {
    std::string_view key;   ///< the other row ("timestep"); "" : no condition
    std::string_view value; ///< its value, as exact text, with which the parameter takes effect ("block")
    std::string_view what;  ///< what the parameter sets, as a note names it ("block time steps")
};

struct ParamInfo {
    std::string_view key;    ///< SimParams field, scenario-file key and snapshot key ("openingAngle")
    std::string_view option; ///< the command-line option ("--theta"); "" for none
    std::string_view label;  ///< as a user reads it, also the start of every message ("opening angle theta")
    std::string_view unit;   ///< "length^2", "ms", "" for none
    ParamType type = ParamType::Real;
    ParamGroup group = ParamGroup::Physics;
    ParamReaders readers = ParamReaders::All;
    /// Numbers: the accepted range [min, max] (minExclusive: (min, max]); zeroMeansAuto: 0 is
    /// accepted as well and means "auto" (the launch parameters).
    double min = -std::numeric_limits<double>::infinity();
    double max = std::numeric_limits<double>::infinity();
    bool minExclusive = false;
    bool zeroMeansAuto = false;
    std::string_view doc; ///< one line: what it does (help texts, tooltips, docs)
    /// Its name in describe() ("theta"); "" leaves it out. Boolean rows show the brief alone
    /// when true ("reverse") or "<brief>=off" when a default of true is off ("cuda-graphs=off").
    std::string_view brief;
    /// describe() shows it only when it differs from SimParams{} (the run's policy).
    bool briefOnlyWhenSet = false;
    /// A snapshot stores it as a parameter row (it changes the trajectory), so a restart
    /// continues with it. G, ε² and dt are stored in the formats' own fields instead.
    bool stored = false;
    /// It belongs to the system rather than to the run, with the stored rows: G, ε² and dt
    /// (stored in the formats' own fields). What a scenario or a snapshot gives a system and
    /// what Reset puts back (trajectoryParams).
    bool trajectory = false;
    /// It takes effect only while another row holds a value (η and the deepest level: only with
    /// timestep = block); with any other value a value given for it changes nothing, and the
    /// command line says so (cli/Headless.h ignoredOptionNotes). Which kernel rows read it is
    /// `readers`; this is the condition beyond them.
    ParamCondition onlyWith;
    /// Its short name in the app ("ε²", "θ"); "" : the label.
    std::string_view symbol;
    /// Real rows in the app's editors: digits after the point and the step of the arrows.
    int decimals = 3;
    double step = 0.05;
    /// The value in `p` as exact text (the shortest decimal that reads back to the same fp32 or
    /// fp64 value: "0.45" for 0.45f).
    std::function<std::string(const SimParams& p)> get;
    /// Sets the value from text; returns "" or why the text is refused (it is then left as it was).
    std::function<std::string(std::string_view text, SimParams& p)> set;
    /// Checks beyond the range (a registry id, an fp32 value): "" or why not. May be empty.
    std::function<std::string(const SimParams& p)> check;
    /// Text rows with a closed set of values (time steps: fixed, block): the values, in the
    /// order an editor lists them. Empty: any text the row's check accepts.
    std::function<std::vector<std::string>()> choices;
};

/// Every row: the built-in parameters in the order of the docs, then the declared ones. Rows
/// never move (pointers to them stay valid when rows are declared).
const std::deque<ParamInfo>& paramTable();
/// The row with this key, or nullptr.
const ParamInfo* findParam(std::string_view key);
/// The row whose command-line option is `option` ("--theta"), or nullptr.
const ParamInfo* findParamByOption(std::string_view option);
/// Adds a row at run time (tests, extensions) before any consumer reads the table. Its value
/// lives in SimParams::extra[key] as text, "" (unset) by default, and setting "" unsets it;
/// get/set left empty are filled in for that. Throws std::invalid_argument for an empty or duplicate key or option,
/// or an onlyWith condition on a row that is not declared (yet).
/// Not thread-safe: declare rows at start-up.
void declareParam(ParamInfo row);

/// "" when row's value in `p` is acceptable, else the message Simulation throws ("block size must
/// be at least 1, or 0 for auto (got -1)", "opening angle theta = 7 is outside (0, 2]").
std::string paramProblem(const ParamInfo& row, const SimParams& p);
/// The first problem of any row in `p`, or "".
std::string paramsProblem(const SimParams& p);
/// "" when `text` is an acceptable value of `row`, else why not (set + paramProblem on a copy
/// of SimParams{}).
std::string paramTextProblem(const ParamInfo& row, std::string_view text);
/// The accepted range as text: "(0, 2]", "1..32", "0 (auto) or 1..1024", "true or false".
std::string paramRangeText(const ParamInfo& row);
/// "" when `text` is an integer as the command line takes one (decimal digits, a sign first
/// allowed), else "must be an integer (got 1.5)": the message of every integer option, the
/// table's Integer rows and the command line's own (cli::integerIn).
std::string integerTextProblem(std::string_view text);
/// "" when `text` is a finite number above 0 (with `zeroAllowed`, at least 0), else "must be a
/// positive number (got -1)" or "must be a number >= 0 (got -1)": the message of the command
/// lines' number options (`nbody`'s positiveNumber, nonNegativeNumber; the app's --dt).
std::string numberTextProblem(std::string_view text, bool zeroAllowed);
/// The value of SimParams{} as text.
std::string paramDefaultText(const ParamInfo& row);
/// True when kernel row `k` reads the parameter (ParamInfo::readers): every row for All; CUDA
/// rows for Cuda; for LaunchRows the row's KernelParamUse entry of the launch parameter with the
/// same key (sim/core/Launch.h launchParams; a declared launch row: every CUDA row); tree rows for Tree;
/// none for Distributed and None.
bool paramReadBy(const ParamInfo& row, const KernelInfo& k);
/// False when row's onlyWith condition is not met in `p` (its other row holds another value,
/// compared as exact text: η with timestep = fixed), so that a value of the row changes nothing;
/// true otherwise, and for a row without a condition. Throws std::logic_error when the condition
/// names a row that is not in the table.
bool paramConditionMet(const ParamInfo& row, const SimParams& p);

// ---- what snapshots store (the rows with `stored`) ----
/// The most stored parameters a snapshot reader takes from one file (a damaged file's count is
/// refused, not allocated).
inline constexpr std::size_t kMaxStoredParams = 256;
/// Every stored row, in table order (integrator, reverse, openingAngle, leafSize, collisions, and
/// declared rows that are stored).
std::vector<const ParamInfo*> storedParams();
/// The stored row with this key, or nullptr.
const ParamInfo* findStoredParam(std::string_view key);
/// (key, text) of every stored row for `p`, in table order.
std::vector<std::pair<std::string, std::string>> storedParamValues(const SimParams& p);

// ---- the parameters of a system ----
/// Every row that changes the trajectory (ParamInfo::trajectory or stored), in table order: G,
/// ε², dt, the integrator, θ, leaf size, the time steps, collisions and the declared stored rows.
std::vector<const ParamInfo*> trajectoryParams();
/// Sets every trajectory row (trajectoryParams) of `to` to its value in `from`, except the rows
/// whose key is in `keep`. The launch parameters and the run's policy stay those of `to`.
void copyTrajectoryParams(const SimParams& from, SimParams& to, std::span<const std::string_view> keep = {});
/// The rows whose value differs between `a` and `b` (by exact text), in table order.
std::vector<const ParamInfo*> changedParams(const SimParams& a, const SimParams& b);

} // namespace nbody
