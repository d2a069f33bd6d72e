#pragma once
/// \file Scenarios.h
/// The scenario registry and scenario files.
///
/// A scenario is a recipe for a system: its parameters (G, ε², dt, a units label, the kernel and
/// the integrator) and its bodies, made by a generator of the registry (with N, a seed and named
/// arguments) or read from a snapshot file. The registry (`nbody scenarios`, `nbody run
/// --scenario ID`, the app's File → New from scenario) is one table; a scenario file is the same
/// recipe as JSON (`nbody run --scenario FILE.json`, File → Open/Save scenario):
///
///     {
///       "format": "nbody-sandbox-scenario", "version": 1,          (optional)
///       "name": "…", "description": "…", "units": "…",              (optional text)
///       "G": 1, "eps2": 0.0004, "dt": 0.0078125,                    (optional: the generator's
///       "kernel": "cpu", "integrator": "leapfrog",                   defaults, or for a snapshot
///                                                                     dt and ε² from its scale)
///       "bodies": {"generator": "plummer", "N": 4096, "seed": 42,
///                  "args": {"massSpectrum": "salpeter"}}
///          or     {"snapshot": "galaxy_20K.bin", "format": "tipsy"}  (relative to the file)
///       "collisions": true, "contactSearch": "auto",                 (optional: the collision
///       "radius": 0.01  or  {"star": 0.01, "dark": 0}                 system, sim/collide/Collisions.h;
///       or "density": 100                                             radii for every body, per
///     }                                                               group, or from the masses)
///
/// A malformed file is a ScenarioError whose field() is the JSON path of the culprit
/// ("bodies.N", "dt", "bodies.args.massCutoff"); unknown keys are refused, so typos show, and so
/// are a key given twice in one object (JSON allows it, and the last would silently win), a number
/// beyond the range of a double ("G": 1e400), and a "bodies.format" that the snapshot file's
/// content contradicts.

#include "sim/core/Models.h"
#include "sim/base/Progress.h"
#include "sim/core/SimParams.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nbody {

/// A scenario that cannot be used; field() names the culprit ("" for the file as a whole) and
/// what() reads "<source>: field '<field>': <problem>" (source: the file, when there is one), or,
/// for a field that a command-line option set (ScenarioSpec::options), "<option>: <problem>".
class ScenarioError : public std::invalid_argument {
public:
    ScenarioError(std::string field, std::string problem, const std::string& source = {});
    /// The error of a field that the command-line option `option` ("--bodies") set: what() names
    /// the option, not the field.
    static ScenarioError ofOption(std::string field, const std::string& option, std::string problem);
    const std::string& field() const { return m_field; }
    const std::string& problem() const { return m_problem; }

private:
    struct Message {
        std::string text; ///< the whole of what()
    };
    ScenarioError(const Message& what, std::string field, std::string problem);
    std::string m_field, m_problem;
};

/// One row of the scenario registry.
struct ScenarioInfo {
    std::string_view id;          ///< "plummer"
    std::string_view name;        ///< "Plummer sphere"
    std::string_view description; ///< one paragraph with the method's source
    std::string_view units;       ///< "Hénon units (G = M = 1, E = -1/4)"
    double G;                     ///< default gravitational constant
    float eps2;                   ///< default softening ε², length²
    float dt;                     ///< default time step
    std::string_view integrator;  ///< default integrator id
    std::string_view kernel;      ///< default kernel id; "" = the front end's default (fastest here)
    std::size_t defaultBodies;    ///< N when none is given
    bool fixedBodies;             ///< N is part of the model (solar system, figure-eight): `N` is refused
    std::string_view arguments;   ///< the generator's named arguments with defaults, for help texts
    /// Makes the bodies. args: a JSON object of named arguments (validated: ScenarioError naming
    /// "bodies.args.<name>"); n ≥ 1; seed for random generators.
    /// `progress` is checked as the bodies are made (Progress.h: Cancelled when stopped).
    ModelBodies (*generate)(const nlohmann::json& args, std::size_t n, std::uint64_t seed, const Progress& progress);
    /// The unit of G in the system's units ("AU³ M☉⁻¹ day⁻²"); "" for N-body units (G = 1).
    std::string_view unitsOfG = {};
    /// The collision system on by default (SimParams::collisions): the generator gives radii.
    bool collisions = false;
};

/// Every scenario, in menu order (cube, plummer, disk-galaxy, galaxy-collision, solar-system,
/// figure-eight, cluster-collision).
std::span<const ScenarioInfo> scenarioRegistry();
const ScenarioInfo* findScenario(std::string_view id);
std::string knownScenarioIds();

/// A scenario recipe: a registry row with its arguments, or the contents of a scenario file.
/// Unset optionals take the defaults (the generator's row; for a snapshot, dt and ε² derived from
/// its scale, deriveScaleDefaults, and G = 1).
struct ScenarioSpec {
    std::string name, description, units;
    std::optional<double> G;
    std::optional<float> eps2, dt;
    std::optional<std::string> kernel, integrator;
    std::string generator;          ///< registry id; empty when the bodies come from a snapshot
    std::optional<std::size_t> bodies; ///< N for the generator; unset: the row's default
    std::uint64_t seed = 42;
    nlohmann::json args = nlohmann::json::object();
    std::string snapshot;           ///< snapshot path (absolute once parsed from a file)
    std::string snapshotFormat;  ///< a snapshot format id ("tipsy", "csv", "hdf5"); "" = detected from the file
    std::string source;          ///< the scenario file it was read from ("" otherwise), for messages
    std::optional<bool> collisions;          ///< SimParams::collisions; unset: the row's default (off)
    std::optional<std::string> contactSearch; ///< SimParams::contactSearch; unset: "auto"
    /// Radii set on the built bodies (length units, ≥ 0): a number for every body, or an object
    /// of group name ("generic", "dark", "star", "gas") → radius for those groups (others keep
    /// theirs); null: the generator's or the snapshot's.
    nlohmann::json radius;
    /// Radii from the masses, r = (3 m / (4 π ρ))^{1/3} (radiusFromDensity), mass / length³;
    /// exclusive with `radius`.
    std::optional<double> density;
    /// The other rows of the parameter table (ParamTable.h) the recipe sets, as (key, exact
    /// text) in table order: θ, leaf size, reverse, launch parameters, rows declared at run time.
    /// A scenario file has them as top-level keys of the row's type ("openingAngle": 0.45).
    std::vector<std::pair<std::string, std::string>> params;
    /// The fields that command-line options set, as (JSON path, option): ("bodies.generator",
    /// "--scenario"), ("bodies.N", "--bodies"). Errors about them name the option, which is what
    /// the user typed (scenarioFromOption, setBodiesFromOption); errors about the others name the
    /// field (and the file).
    std::vector<std::pair<std::string, std::string>> options;
};

/// The rows of the parameter table that a scenario keeps in `params` (every row but G, eps2,
/// dt, integrator, collisions and contactSearch, which have fields of their own) whose value in
/// `p` differs from SimParams{}: what Save scenario writes beside those fields.
std::vector<std::pair<std::string, std::string>> scenarioParamValues(const SimParams& p);

/// The unit of G of the system `spec` makes (its generator's ScenarioInfo::unitsOfG); "" when
/// unknown or N-body units (a snapshot stores no units).
std::string unitsOfG(const ScenarioSpec& spec);

/// The recipe of registry row `id` (throws ScenarioError naming "bodies.generator" for an
/// unknown id), with N and seed when given. A command line's `--scenario` goes through
/// scenarioFromOption, whose errors name the option.
ScenarioSpec scenarioSpec(std::string_view id, std::optional<std::size_t> bodies = {},
                          std::optional<std::uint64_t> seed = {});

/// Parses a scenario document. Relative snapshot paths are resolved against `baseDir`.
/// Throws ScenarioError naming the field.
ScenarioSpec parseScenario(const nlohmann::json& doc, const std::string& baseDir = {});
/// Reads and parses a scenario file; errors name the file and the field (ScenarioError; a file
/// that cannot be read or is not JSON has field ""). A file that cannot be read reads
/// "scenario file '<path>': no such file" (unreadableFileReason, sim/base/PathNames.h: not a
/// regular file, cannot open for reading: permission denied), as a snapshot's does.
ScenarioSpec readScenarioFile(const std::string& path);

/// The recipe of a command line's `--scenario ID|FILE` (nbody's and nbody-sandbox's): registry
/// row `ID`, else the scenario file FILE (a name ending in .json, in any case; readScenarioFile).
/// Throws ScenarioError: for anything else "--scenario: unknown scenario 'x' (known: …; or a
/// scenario file ending in .json)"; for a file, its errors naming the file and the field.
ScenarioSpec scenarioFromOption(const std::string& idOrFile);
/// Whether `--scenario idOrFile` names a scenario file: no registry row has that id, and it ends
/// in .json (in any case).
bool namesScenarioFile(std::string_view idOrFile);
/// Sets the generator's N from the command line's --bodies: errors about N (out of range, fewer
/// than the model needs, more than memory holds) then name --bodies.
void setBodiesFromOption(ScenarioSpec& spec, std::size_t bodies);
/// The scenario as a JSON document (every set field; the format tag and version).
nlohmann::json toJson(const ScenarioSpec& spec);
/// Writes toJson(spec) to `path` atomically (writeFileAtomically); throws std::runtime_error
/// naming the path and the reason.
void writeScenarioFile(const std::string& path, const ScenarioSpec& spec);

/// A scenario made real: its bodies, its parameters and its kernel.
struct BuiltScenario {
    ModelBodies bodies;
    SimParams params;       ///< `base` with G, ε², dt and the integrator of the scenario
    std::string kernel;     ///< "" = the front end's default
    std::string summary;    ///< "Plummer sphere: 4096 bodies, seed 42 (Hénon units …)"
    std::string units;      ///< units label
    /// The unit of G ("AU³ M☉⁻¹ day⁻²"): the generator's (ScenarioInfo::unitsOfG) or what the
    /// snapshot stores (RestartParams::unitsOfG); "" for N-body units or unknown.
    std::string unitsOfG;
    std::vector<std::string> warnings; ///< the snapshot reader's (Snapshot::warnings), for the front end to show
    /// A snapshot's dt (eps2) derived from its scale and not representable in fp32, when the
    /// scenario does not give it (ScaleDefaults::dtProblem); the front end reports it unless the
    /// user gives the parameter.
    std::string dtProblem, eps2Problem;
};
/// Runs the generator or reads the snapshot (its errors: FormatError from the reader,
/// ScenarioError for the recipe) and resolves the parameters over `base` (block size etc. kept).
/// `progress` is checked as the generator makes the bodies and around reading a snapshot:
/// Cancelled (Progress.h) when its stop was requested.
BuiltScenario buildScenario(const ScenarioSpec& spec, const SimParams& base = {}, const Progress& progress = {});

/// The kernel a new system of a scenario starts on: `scenarioKernel` (BuiltScenario::kernel,
/// ScenarioInfo::kernel) when it names a row that runs here, else the fastest row here
/// (defaultKernelId(): the first available CUDA row, else `cpu`), never the previous system's.
std::string startKernel(std::string_view scenarioKernel);

} // namespace nbody
