#include "Headless.h"
#include "sim/core/ForceAccuracy.h"

#include <CLI/CLI.hpp>

#include "SnapshotOutput.h"
#include "sim/collide/Collisions.h"
#include "contracts/Errors.h"
#include "sim/base/DeviceInfo.h"
#include "sim/base/Format.h"
#include "sim/core/CoincidentBodies.h"
#include "sim/core/MemoryBudget.h"
#include "sim/core/ParamTable.h"
#include "sim/core/PrecisionRange.h"
#include "sim/io/Snapshot.h"

#include "sim/core/KernelRegistry.h"
#include "sim/base/Registry.h"
#include "sim/core/Scenario.h"
#include "sim/io/Scenarios.h"
#include "sim/io/Tipsy.h"
#include "contracts/Tree.h"
#include "sim/perf/Tuner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <new>

namespace nbody::cli {

void addSystemOptions(CLI::App& c, SystemOptions& o, DefaultSystem d)
{
    const bool cube = d == DefaultSystem::Cube;
    const std::string what = cube ? "the default uniform cube" : "the default Plummer sphere";
    c.add_option("--scenario", o.scenario,
                 "Scenario to simulate: a registry id (see `nbody scenarios`) or a scenario file (.json); its dt, "
                 "eps2, G, kernel and integrator apply unless given here");
    c.add_option("-i,--input", o.input,
                 "Snapshot to simulate instead of " + what +
                     ": Tipsy, CSV or HDF5 (GADGET-4/SWIFT), detected from the content; its G, dt, eps2 and kernel "
                     "are used when it stores them");
    c.add_option("-n,--bodies", o.bodies, "Bodies of " + what + " or of a scenario generator (N >= 1)")
        ->capture_default_str()
        ->check(integerIn(1, kMaxBodies));
    c.add_option("--seed", o.seed, "Seed of " + what + " or of a scenario generator")
        ->capture_default_str()
        ->check(integerIn(0, ~0ull));
    const ScenarioInfo* row = findScenario(cube ? "cube" : "plummer");
    const std::string of = cube ? " for the cube" : " for the sphere";
    c.add_option("--dt", o.dt,
                 "Time step (default " + formatString("%g", double(row->dt)) + of +
                     "; the scenario's, or derived from a file's scale)")
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {
                // nbody-sandbox's --dt says the same, pointing at its own way back.
                const std::string why = numberTextProblem(text, false);
                return why.empty() || text.empty() || text[0] != '-'
                           ? why
                           : why + "; to run backwards in time, give --reverse (dt stays a positive step length)";
            },
            "POSITIVE"));
    c.add_option("--eps2", o.eps2,
                 "Softening eps^2 (default " + formatString("%g", double(row->eps2)) + of +
                     "; the scenario's, or derived for a file)");
    c.add_option("--G", o.G,
                 "Gravitational constant, length^3 mass^-1 time^-2 (default 1; the scenario's, or a file's when it "
                 "stores one); a file's dt and eps2 are derived with it");
    c.add_option("--steps-per-second", o.stepsPerSecond,
                 "With --scenario of a generator and no --bodies: the N the kernel runs at about this many steps per "
                 "second (force evaluations timed here over 50 ms, the median of three, scaled as N^2; "
                 "1024..65536); elsewhere ignored with a note. scripts/run.sh uses 25")
        ->check(positiveNumber());
    c.add_flag("--collisions", o.collisions,
               "Collision system on: bodies closer than the sum of their radii merge (mass, momentum and centre of "
               "mass conserved; docs/collisions.md). Give radii with --radius / --density or in the system");
    c.add_option("--contact-search", o.contactSearch,
                 "Contact search row for --collisions (see `nbody kernels`, contact searches); default auto");
    auto* radiusOpt = c.add_option("--radius", o.radius, "Set every body's radius (length units, >= 0)")
                          ->check(nonNegativeNumber());
    c.add_option("--density", o.density, "Set every body's radius from its mass: r = (3 m / (4 pi RHO))^(1/3)")
        ->check(positiveNumber())
        ->excludes(radiusOpt);
    c.add_flag("--tipsy-eps-radius", o.tipsyEpsRadius,
               "With a Tipsy --input: each star particle's softening eps becomes its radius");
}

std::vector<std::size_t> parseBodyList(const std::string& list)
{
    std::vector<std::size_t> out;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, ',')) {
        if (const std::string why = integerTextProblem(item); !why.empty())
            throw std::invalid_argument("--bodies: " + why);
        std::size_t used = 0;
        unsigned long long v = 0;
        try {
            v = std::stoull(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != item.size() || item[0] == '-' || v == 0 || v > kMaxBodies)
            throw std::invalid_argument("--bodies: '" + item + "' is not a body count in 1.." +
                                        std::to_string(kMaxBodies));
        out.push_back(std::size_t(v));
    }
    if (out.empty())
        throw std::invalid_argument("--bodies: no body counts given");
    return out;
}

namespace {

/// --force-accuracy picks θ and α of the tree rows (sim/core/ForceAccuracy.h): a θ or α given with it
/// would be ignored, so they exclude each other ("--theta excludes --force-accuracy").
void excludeThetaWithForceAccuracy(CLI::App& c)
{
    CLI::Option* accuracy = c.get_option_no_throw("--force-accuracy");
    for (const char* name : {"--theta", "--opening-alpha"})
        if (CLI::Option* o = c.get_option_no_throw(name); o && accuracy)
            o->excludes(accuracy);
}

} // namespace

void addLaunchOptions(CLI::App& c, LaunchOptions& o)
{
    addParamOptions(c, o.params, {ParamGroup::Launch, ParamGroup::Tree});
    excludeThetaWithForceAccuracy(c);
}

void addTreeOptions(CLI::App& c, TreeOptions& o)
{
    addParamOptions(c, o.params, {ParamGroup::Tree});
    excludeThetaWithForceAccuracy(c);
}

std::string forceAccuracyNote(const KernelInfo& k, const SimParams& p, std::size_t bodies)
{
    if (k.method != ForceMethod::Tree || p.forceAccuracy == 0)
        return {};
    return chooseOpeningAngle(k.id, p.forceAccuracy, bodies).note;
}

namespace {

/// Options named in one note, in table order: "--theta" or "--theta, --opening-alpha".
struct OptionList {
    std::string text;
    int count = 0;
    void add(std::string_view option)
    {
        text += (count++ ? ", " : "") + std::string(option);
    }
    /// The verb for the list as subject: "sets" for one option, "set" for several.
    std::string verb(std::string_view one, std::string_view many) const
    {
        return std::string(count == 1 ? one : many);
    }
};

/// "kernel 'cpu'" or "kernels 'cpu', 'reference'".
std::string kernelsSubject(std::span<const KernelInfo* const> kernels)
{
    std::string s = kernels.size() == 1 ? "kernel " : "kernels ";
    for (std::size_t i = 0; i < kernels.size(); ++i)
        s += (i ? ", '" : "'") + std::string(kernels[i]->id) + "'";
    return s;
}

/// The rows whose readers make them kernel-specific: a kernel row that does not read them
/// computes the same without them.
bool kernelSpecific(const ParamInfo& row)
{
    return row.readers == ParamReaders::Tree || row.readers == ParamReaders::LaunchRows ||
           row.readers == ParamReaders::Cuda;
}

/// The note for kernel-specific options that no kernel of `kernels` reads, by their readers.
std::string kernelNote(ParamReaders readers, std::span<const KernelInfo* const> kernels, const OptionList& o)
{
    const std::string subject = kernelsSubject(kernels);
    const bool one = kernels.size() == 1;
    const std::string noEffect = o.verb(" has", " have") + " no effect here";
    if (readers == ParamReaders::Tree)
        return subject + (one ? " computes" : " compute") + " all pairs: " + o.text + o.verb(" sets", " set") +
               " the tree rows only and" + noEffect;
    const bool allCpu = std::all_of(kernels.begin(), kernels.end(),
                                    [](const KernelInfo* k) { return k->backend != Backend::Cuda; });
    if (allCpu)
        return subject + (one ? " runs" : " run") + " on the CPU: " + o.text + o.verb(" sets", " set") +
               (readers == ParamReaders::LaunchRows ? " CUDA launch parameters" : " the CUDA kernels") + " only and" +
               noEffect;
    return subject + (one ? " does" : " do") + " not read " + o.text + ": " + o.verb("it", "they") + noEffect +
           " (`nbody kernels` lists the launch parameters each kernel reads)";
}

} // namespace

std::vector<std::string> ignoredOptionNotes(std::span<const KernelInfo* const> kernels, const SimParams& p,
                                            std::initializer_list<const ParamTexts*> given)
{
    // One note per reason, in the table order of its first option: a kernel-specific row that no
    // kernel reads (by its readers), else a row whose onlyWith condition is not met (by condition).
    struct Note {
        const ParamInfo* first = nullptr; ///< the note's first row: its reason
        bool byKernel = false;
        OptionList options;
    };
    std::vector<Note> notes;
    const auto sameReason = [](const Note& n, const ParamInfo& row, bool byKernel) {
        if (n.byKernel != byKernel)
            return false;
        if (byKernel)
            return n.first->readers == row.readers;
        const ParamCondition& a = n.first->onlyWith;
        return a.key == row.onlyWith.key && a.value == row.onlyWith.value && a.what == row.onlyWith.what;
    };
    for (const ParamInfo& row : paramTable()) {
        if (row.option.empty() ||
            std::none_of(given.begin(), given.end(), [&](const ParamTexts* t) { return t && t->find(row.key); }))
            continue;
        const bool unread = kernelSpecific(row) && !kernels.empty() &&
                            std::none_of(kernels.begin(), kernels.end(),
                                         [&](const KernelInfo* k) { return paramReadBy(row, *k); });
        if (!unread && paramConditionMet(row, p))
            continue;
        auto it = std::find_if(notes.begin(), notes.end(), [&](const Note& n) { return sameReason(n, row, unread); });
        if (it == notes.end())
            it = notes.insert(notes.end(), Note{&row, unread, {}});
        it->options.add(row.option);
    }
    std::vector<std::string> out;
    for (const Note& n : notes) {
        if (n.byKernel) {
            out.push_back(kernelNote(n.first->readers, kernels, n.options));
            continue;
        }
        const ParamCondition& c = n.first->onlyWith;
        const ParamInfo* other = findParam(c.key); // paramConditionMet found it
        const std::string name = other->option.empty() ? std::string(other->key) : std::string(other->option);
        out.push_back(n.options.text + n.options.verb(" sets ", " set ") + std::string(c.what) + " only and" +
                      n.options.verb(" has", " have") + " no effect with " + name + " " + other->get(p));
    }
    return out;
}

void printNote(const char* command, const std::string& text)
{
    std::fflush(stdout); // after what stdout said before it, where both go to one place
    std::fprintf(stderr, "nbody %s: note: %s\n", command, text.c_str());
}

void printIgnoredOptionNotes(const char* command, std::span<const KernelInfo* const> kernels, const SimParams& p,
                             std::initializer_list<const ParamTexts*> given)
{
    for (const std::string& note : ignoredOptionNotes(kernels, p, given))
        printNote(command, note);
}

void applyTreeOptions(const TreeOptions& o, SimParams& p)
{
    applyParamTexts(o.params, p);
}

void applyLaunchOptions(const LaunchOptions& o, SimParams& p)
{
    applyParamTexts(o.params, p);
}

void addNoTuneOption(CLI::App& c, bool& noTune)
{
    c.add_flag("--no-tune", noTune,
               "Do not measure launch parameters before running: auto (0) ones take the tuning cache's or the "
               "kernel's defaults (see `nbody tune`, docs/tuner.md)");
}

std::size_t launchOptionsGiven(const CLI::App& c)
{
    std::size_t n = 0;
    for (const ParamInfo& row : paramTable()) // the six launch parameters
        if (row.readers == ParamReaders::LaunchRows && !row.option.empty() &&
            c.get_option_no_throw(std::string(row.option)))
            n += c.count(std::string(row.option));
    return n;
}

void tuneBeforeRun(const char* command, const KernelInfo& k, const SimParams& p, std::size_t n, bool noTune)
{
    if (k.backend != Backend::Cuda)
        return;
    if (!noTune && tunable(k, p)) {
        try {
            const TuneOutcome t = ensureTuned(k, p, n, [](const std::string& piece) {
                std::fputs(piece.c_str(), stdout);
                std::fflush(stdout);
            });
            if (t.ran)
                std::fputs("\n", stdout);
            if (!t.warning.empty())
                printNote(command, t.warning);
        } catch (const std::exception& e) {
            std::fputs("\n", stdout);
            printNote(command, std::string("tuning failed (") + e.what() + "); the defaults are used");
        }
    }
    std::printf("Launch:  %s\n", describeResolved(k, resolveLaunch(k, p, n)).c_str());
    std::fflush(stdout);
}

std::vector<std::string_view> givenStoredParams(const CLI::App& c)
{
    std::vector<std::string_view> given;
    for (const ParamInfo* row : storedParams())
        if (c.get_option_no_throw(std::string(row->option)) && c.count(std::string(row->option)) > 0)
            given.emplace_back(row->key);
    return given;
}

void applySavedParams(const char* command, std::span<const std::string_view> given, const PreparedSystem& prepared,
                      SimParams& params, bool print)
{
    if (prepared.savedParams.empty())
        return;
    const std::vector<std::string> differences = applyStoredParams(prepared.savedParams, params, given);
    if (!print)
        return;
    std::string line;
    for (const auto& [key, text] : prepared.savedParams)
        line += (line.empty() ? "" : ", ") + key + " " + text;
    std::printf("Restart: %s (stored in the snapshot)\n", line.c_str());
    std::fflush(stdout);
    for (const std::string& d : differences)
        printNote(command, d);
}

void noteGiven(const CLI::App& c, SystemOptions& o)
{
    o.bodiesGiven = c.count("--bodies") > 0;
    o.seedGiven = c.count("--seed") > 0;
}

namespace {

/// The system of --input: the bodies of a snapshot in any format (detected from the content),
/// an fp64 state where the file holds one, and the run's parameters the file stores (the others
/// derived from the system's scale). Throws what the readers throw.
PreparedSystem fileSystem(const char* command, const SystemOptions& o)
{
    PreparedSystem out;
    Snapshot snap = readSnapshot(o.input); // any format, detected from the content
    if (o.tipsyEpsRadius) {
        if (snap.formatId != "tipsy")
            throw std::invalid_argument("--tipsy-eps-radius: '" + o.input + "' is " + snap.formatId +
                                        ", not a Tipsy file");
        snap.world = readTipsy(o.input, nullptr, /*starEpsAsRadius*/ true);
    }
    for (const std::string& w : snap.warnings)
        std::fprintf(stderr, "nbody %s: warning: %s\n", command, w.c_str());
    out.world = std::move(snap.world);
    out.exact = std::move(snap.exact); // an fp64 run's state (HDF5 in double precision)
    // The run's own parameters (an exact continuation), each one the file stores; the
    // others a new system's: G = --G or 1, dt and eps2 derived from the scale.
    const FileParams f = resolveFileParams(out.world, snap.params, o.G);
    out.params.G = f.G;
    out.params.dt = f.dt;
    out.params.eps2 = f.eps2;
    out.dtProblem = f.dtProblem;
    out.eps2Problem = f.eps2Problem;
    if (snap.params) {
        out.savedKernel = snap.params->kernel;
        out.savedLaunch = {snap.params->blockSize, snap.params->tileWidthFactor};
        out.savedParams = snap.params->stored;
        out.units = snap.params->units;
        out.unitsOfG = snap.params->unitsOfG;
    }
    out.what = formatString("%s (%s%s): %s at step %llu, t = %.9g (%s)", o.input.c_str(),
                            snap.formatId.c_str(), out.exact ? ", fp64 state" : "", bodyCount(out.world.size()).c_str(),
                            static_cast<unsigned long long>(out.world.step), out.world.time,
                            f.describe().c_str());
    return out;
}

/// The physics options over the system's parameters: --dt, --eps2 (refused when fp32 cannot hold
/// them), --G, --collisions, --contact-search, --radius / --density. 0, or 2 after the message.
int applyPhysicsOptions(const char* command, const SystemOptions& o, PreparedSystem& out)
{
    // dt and eps2 are fp32 parameters: a value that rounds to 0 or infinity is refused as given.
    for (const auto& [name, value] : {std::pair{"--dt", o.dt}, std::pair{"--eps2", o.eps2}}) {
        if (value && std::isfinite(*value) && *value != 0 &&
            (float(*value) == 0.f || !std::isfinite(float(*value)))) {
            std::cerr << "nbody " << command << ": " << name << " " << *value
                      << " is outside the range of fp32 (about 1.2e-38 to 3.4e38)\n";
            return 2;
        }
    }
    // A derived dt / eps2 that fp32 cannot hold is the system's scale, not the user's doing.
    for (const std::string* problem : {o.dt ? nullptr : &out.dtProblem, o.eps2 ? nullptr : &out.eps2Problem})
        if (problem && !problem->empty()) {
            std::cerr << "nbody " << command << ": " << *problem << "\n";
            return 2;
        }
    if (o.dt)
        out.params.dt = float(*o.dt); // Simulation refuses 0, negative and non-finite values
    if (o.eps2)
        out.params.eps2 = float(*o.eps2);
    if (o.G)
        out.params.G = *o.G;
    if (o.tipsyEpsRadius && o.input.empty()) {
        std::cerr << "nbody " << command << ": --tipsy-eps-radius reads the radii of a Tipsy --input\n";
        return 2;
    }
    if (o.collisions)
        out.params.collisions = true;
    if (!o.contactSearch.empty()) {
        if (o.contactSearch != "auto" && !findContactSearch(o.contactSearch)) {
            std::cerr << "nbody " << command << ": unknown contact search '" << o.contactSearch
                      << "' (known: auto, " << joinIds(contactSearches()) << ")\n";
            return 2;
        }
        out.params.contactSearch = o.contactSearch;
    }
    try {
        World& w = out.world;
        if (o.radius && !std::isfinite(float(*o.radius)))
            throw std::invalid_argument("--radius " + std::to_string(*o.radius) + " is outside the range of fp32");
        for (std::size_t i = 0; i < w.size() && (o.radius || o.density); ++i)
            w.setRadius(i, float(o.radius ? *o.radius : radiusFromDensity(w.positions()[i].w, *o.density)));
    } catch (const std::exception& e) {
        std::cerr << "nbody " << command << ": " << e.what() << "\n";
        return 2;
    }
    if (out.params.collisions && !(out.world.maxRadius() > 0.f))
        printNote(command, "collisions are on but every body has radius 0, so none can touch (give --radius or "
                           "--density)");
    return 0;
}

} // namespace

int prepareSystem(const char* command, const SystemOptions& o, PreparedSystem& out)
{
    if (o.G && !(std::isfinite(*o.G) && *o.G > 0)) {
        std::cerr << "nbody " << command << ": --G " << *o.G << " must be a positive, finite number\n";
        return 2;
    }
    try {
        if (!o.scenario.empty() && !o.input.empty())
            throw std::invalid_argument("--scenario and --input both name the bodies: give one");
        if (!o.scenario.empty()) {
            out = scenarioSystem(command, o);
        } else if (!o.input.empty()) {
            out = fileSystem(command, o);
        } else {
            CubeParams cube;
            cube.bodies = o.bodies;
            cube.seed = o.seed;
            out.world = makeUniformCube(cube);
            out.what = formatString("uniform cube: %s in +-%.3g, masses %.3g..%.3g, seed %llu", bodyCount(out.world.size()).c_str(),
                              cube.halfWidth, cube.massMin, cube.massMax, static_cast<unsigned long long>(cube.seed));
        }
    } catch (const std::bad_alloc&) {
        std::cerr << "nbody " << command << ": " << outOfMemoryMessage() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "nbody " << command << ": " << e.what() << "\n";
        return 2;
    }
    if (!o.input.empty() && (o.bodiesGiven || o.seedGiven))
        printNote(command, "--bodies and --seed apply to the default cube; ignored with --input");
    if (!o.input.empty())
        noteStepsPerSecondIgnored(command, o, "with --input");
    else if (o.scenario.empty())
        noteStepsPerSecondIgnored(command, o, "for the default cube (N = --bodies)");
    if (const int rc = applyPhysicsOptions(command, o, out); rc != 0)
        return rc;
    // Every command that simulates a prepared system (run, render, validate) refuses bodies at
    // one point without softening here, before anything runs.
    if (const std::string problem = coincidentBodiesProblem(out.world, out.params.eps2); !problem.empty()) {
        std::cerr << "nbody " << command << ": " << problem << "; give --eps2 > 0 or move them apart\n";
        return 2;
    }
    return 0;
}

void noteStepsPerSecondIgnored(const char* command, const SystemOptions& o, const std::string& why)
{
    if (o.stepsPerSecond > 0)
        printNote(command, "--steps-per-second chooses N only for a generator --scenario without --bodies; ignored " +
                               why);
}

int reportRunFault(Simulation& sim, const CudaError& e, const std::string& output)
{
    try {
        const std::string kernel(sim.kernel().id);
        const std::uint64_t reached = sim.stepCount();
        const std::uint64_t lost = sim.abandonDeviceState();
        std::fflush(stdout);
        std::fprintf(stderr, "nbody run: GPU fault in kernel '%s' at step %llu: %s\n", kernel.c_str(),
                     static_cast<unsigned long long>(reached), e.what());
        std::fprintf(stderr, "nbody run: the last good state kept on the host is step %llu (%s lost)\n",
                     static_cast<unsigned long long>(sim.stepCount()), stepCount(lost).c_str());
        if (const std::string contextLost = cudaContextLost(); !contextLost.empty())
            std::fprintf(stderr, "nbody run: the CUDA context is lost (%s)\n", contextLost.c_str());
        if (!output.empty()) {
            const World& w = sim.world(); // the host copy: abandonDeviceState left nothing on the device
            const SimParams& p = sim.params();
            const RestartParams rp = restartParams(p, kernel);
            const std::string path = expandStepPattern(output, w.step);
            writeSnapshot(path, w, &rp);
            std::printf("Snapshot written to %s (step %llu, the last good state)\n", path.c_str(),
                        static_cast<unsigned long long>(w.step));
        }
    } catch (const std::exception& writeError) {
        std::fprintf(stderr, "nbody run: the last good state could not be written: %s\n", writeError.what());
    }
    return 1;
}

std::vector<std::string> warnPrecisionRange(const char* command, Simulation& sim, bool root)
{
    const KernelInfo& k = sim.kernel();
    std::vector<std::string> problems = precisionRangeProblems(sim.world(), sim.params(), k.precision);
    for (const std::string& p : problems)
        if (root)
            std::fprintf(stderr, "nbody %s: warning: %s\n", command, precisionRangeWarning(p, k.id, k.precision).c_str());
    return problems;
}

std::string nonFiniteMessage(int steps, const std::string& bad, Simulation& sim,
                             const std::vector<std::string>& rangeProblems)
{
    const std::string column = firstNonFiniteColumn(sim.world());
    std::string s = formatString("the system is no longer finite after %s (%s", stepCount(std::uint64_t(steps)).c_str(),
                                 bad.c_str());
    s += column.empty() ? ")" : "; the " + column + " first)";
    if (!rangeProblems.empty())
        return s + ": " + precisionRangeCause(rangeProblems.front(), sim.kernel().precision);
    return s + ": the time step is too large for it (or close encounters are unsoftened: eps2)";
}

bool energyCheckCheap(const Simulation& sim)
{
    const KernelInfo& k = sim.kernel();
    return k.backend == Backend::Cuda || k.method == ForceMethod::AllPairs || sim.size() <= kCheapEnergyBodies;
}

bool checkEnergyTolerance(const char* command, const EnergyChangeMaximum& m, double endChange, double tolerance,
                          bool strict, bool root)
{
    if (m.evaluations == 0)
        return false;
    const bool atEnd = m.change == endChange || std::isnan(m.magnitude);
    std::printf("  largest energy change:  %.3e (|E - E0| / |E0|, the largest of %zu evaluations%s)\n", m.change,
                m.evaluations,
                atEnd ? ", at the end" : formatString(", at step %llu, t = %.6g", static_cast<unsigned long long>(m.step), m.time).c_str());
    if (!m.exceeds(tolerance))
        return false;
    std::fflush(stdout);
    if (!root) // every process has the same energies: one warning
        return true;
    const std::string where =
        atEnd ? std::string()
              : formatString(" (the largest of %zu evaluations, at step %llu, t = %.6g; %.3e at the end)",
                             m.evaluations, static_cast<unsigned long long>(m.step), m.time, endChange);
    std::fprintf(stderr,
                 "nbody %s: %s: the relative energy change %.3e%s exceeds the tolerance %.3g "
                 "(--energy-tolerance): the run is not to be trusted (the time step is probably too "
                 "large, or close encounters are unsoftened)\n",
                 command, strict ? "error" : "warning", m.change, where.c_str(), tolerance);
    return true;
}

void addEnergyOptions(CLI::App& c, bool& energy, double& tolerance, bool& strict)
{
    c.add_flag("!--no-energy", energy,
               "Skip the energy and momentum evaluation (fp64, O(N^2)) at the start, at every progress interval "
               "and at the end");
    c.add_option("--energy-tolerance", tolerance,
                 "Warn in the summary when the relative energy change |E - E0| / |E0| exceeds this at any "
                 "evaluation (the largest over the run: every --diagnostics row when written, else one at each "
                 "progress interval where that is cheap)")
        ->capture_default_str()
        ->check(positiveNumber());
    c.add_flag("--strict", strict, "Exit 1 when the relative energy change exceeds --energy-tolerance");
}

std::string defaultKernel(const char* command)
{
    const std::string id(defaultKernelId());
    // A GPU that this build has no code for is a surprise worth a line: the run goes on, on the CPU.
    if (const std::string& why = cudaDeviceWithoutCode(); !why.empty())
        printNote(command, "the CUDA kernels cannot run here (" + why + "); running on " + id);
    return id;
}

HeadlessView::HeadlessView(std::size_t n, bool wantInterop)
{
    buffers.allocate(n);
    if (wantInterop)
        interop = gl::CudaGlInterop::create(buffers, &whyNoInterop);
    else
        whyNoInterop = "the selected kernel runs on the CPU";
}

gl::OrbitCamera HeadlessView::framing(const World& world, int w, int h)
{
    gl::OrbitCamera camera;
    const FramingSphere f = framingSphere(world);
    camera.fit({float(f.x), float(f.y), float(f.z)}, float(f.radius), float(w) / float(h));
    return camera;
}

gl::RenderStyle HeadlessView::style(const World& world)
{
    gl::RenderStyle style;
    const gl::ColourMode& mode = gl::defaultColourMode(world);
    style.source = mode.source;
    style.low = mode.low;
    style.high = mode.high;
    const auto [lo, hi] = world.massRange();
    style.massMin = lo;
    style.massMax = hi;
    style.pointSize = world.size() > 100000 ? 1.5f : 3.f;
    return style;
}

gl::Image HeadlessView::render(Simulation& sim, const gl::OrbitCamera& camera, const gl::RenderStyle& style, int w,
                               int h, bool sequence)
{
    int buffer = sim.currentBuffer(); // interop: the kernels left the positions there
    const bool onDevice = interop && sim.deviceResident() && sim.positionStorage() == PositionStorage::External;
    if (!onDevice) {
        const World& world = sim.world();
        buffer = 0;
        buffers.upload(0, world.positions().data(), world.size());
    }
    std::vector<gl::Label> labels;
    if (!onDevice && sim.world().hasNames()) // the Solar System's planets (host positions: already in sync)
        labels = gl::namedBodyLabels(sim.world());
    return gl::renderImage(renderer, buffers.buffer(buffer), sim.size(), camera, style, w, h,
                           sequence ? &history : nullptr, labels);
}

} // namespace nbody::cli
