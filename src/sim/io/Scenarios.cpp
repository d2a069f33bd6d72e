#include "sim/io/Scenarios.h"
#include "sim/io/ScenarioText.h"
#include "sim/collide/Collisions.h"
#include "sim/core/Edits.h"
#include "sim/core/MemoryBudget.h"
#include "sim/core/ParamTable.h"
#include "sim/io/Snapshot.h"

#include "sim/base/AtomicFile.h"
#include "sim/base/Format.h"
#include "sim/core/Integrators.h"
#include "sim/core/KernelRegistry.h"
#include "sim/base/Registry.h"
#include "sim/core/Scenario.h"
#include "sim/io/Tipsy.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
namespace nbody {

using nlohmann::json;
using namespace scenario_text;

namespace {

/// Named arguments of a generator: typed, range-checked reads that name the field, and a check
/// that no unknown argument was given.
class ArgReader {
public:
    explicit ArgReader(const json& args) : m_args(args)
    {
        if (!args.is_object())
            throw ScenarioError("bodies.args", "must be an object of named arguments (got " + kindOf(args) + ")");
    }
    /// A finite number in [lo, hi] (open ends where lo/hi are exclusive).
    double number(const char* name, double def, double lo, double hi, bool loOpen = false)
    {
        m_known.insert(name);
        const auto it = m_args.find(name);
        if (it == m_args.end())
            return def;
        if (!it->is_number())
            throw ScenarioError(field(name), "must be a number (got " + kindOf(*it) + ")");
        const double v = it->get<double>();
        if (!std::isfinite(v) || v < lo || v > hi || (loOpen && v == lo))
            throw ScenarioError(field(name), "must be in " + std::string(loOpen ? "(" : "[") + num(lo) + ", " +
                                                 num(hi) + "] (got " + num(v) + ")");
        return v;
    }
    std::string text(const char* name, const std::string& def, std::initializer_list<std::string_view> allowed)
    {
        m_known.insert(name);
        const auto it = m_args.find(name);
        if (it == m_args.end())
            return def;
        if (!it->is_string())
            throw ScenarioError(field(name), "must be a string (got " + kindOf(*it) + ")");
        const std::string v = it->get<std::string>();
        std::string list;
        for (std::string_view a : allowed) {
            if (v == a)
                return v;
            list += (list.empty() ? "" : ", ") + std::string(a);
        }
        throw ScenarioError(field(name), "unknown value '" + v + "' (known: " + list + ")");
    }
    /// Call after the reads: refuses arguments the generator does not take.
    void finish() const
    {
        for (auto it = m_args.begin(); it != m_args.end(); ++it) {
            if (!m_known.count(it.key())) {
                std::string list;
                for (const std::string& k : m_known)
                    list += (list.empty() ? "" : ", ") + k;
                throw ScenarioError(field(it.key()), "unknown argument (known: " + (list.empty() ? "none" : list) + ")");
            }
        }
    }

private:
    static std::string field(const std::string& name) { return "bodies.args." + name; }
    const json& m_args;
    std::set<std::string> m_known;
};

constexpr double kHuge = 1e30;

ModelBodies generateCube(const json& args, std::size_t n, std::uint64_t seed, const Progress& progress)
{
    ArgReader a(args);
    CubeParams p;
    p.bodies = n;
    p.seed = seed;
    p.halfWidth = a.number("halfWidth", p.halfWidth, 0, kHuge, true);
    p.massMin = a.number("massMin", p.massMin, 0, kHuge);
    p.massMax = a.number("massMax", p.massMax, 0, kHuge);
    a.finish();
    if (p.massMax < p.massMin)
        throw ScenarioError("bodies.args.massMax", "must be >= massMin (" + num(p.massMin) + ")");
    return {makeUniformCube(p, progress), std::nullopt};
}

ModelBodies generatePlummer(const json& args, std::size_t n, std::uint64_t seed, const Progress& progress)
{
    ArgReader a(args);
    PlummerParams p;
    p.bodies = n;
    p.seed = seed;
    p.massCutoff = a.number("massCutoff", p.massCutoff, 0, 1, true);
    p.massSpectrum = a.text("massSpectrum", p.massSpectrum, {"equal", "salpeter"});
    p.massRatio = a.number("massRatio", p.massRatio, 1, 1e12);
    a.finish();
    return makePlummer(p, progress);
}

DiskGalaxyParams readDisk(ArgReader& a, std::size_t n, std::uint64_t seed)
{
    DiskGalaxyParams p;
    p.bodies = n;
    p.seed = seed;
    p.diskMass = a.number("diskMass", p.diskMass, 0, kHuge, true);
    p.scaleLength = a.number("scaleLength", p.scaleLength, 0, kHuge, true);
    p.scaleHeight = a.number("scaleHeight", p.scaleHeight, 0, kHuge, true);
    p.haloMass = a.number("haloMass", p.haloMass, 0, kHuge, true);
    p.haloScale = a.number("haloScale", p.haloScale, 0, kHuge, true);
    p.haloCutoff = a.number("haloCutoff", p.haloCutoff, 0, 1, true);
    p.diskFraction = a.number("diskFraction", p.diskFraction, 0, 1, true);
    if (p.diskFraction == 1)
        throw ScenarioError("bodies.args.diskFraction", "must be below 1 (the halo needs bodies)");
    p.toomreQ = a.number("toomreQ", p.toomreQ, 0, 100, true);
    return p;
}

ModelBodies generateDiskGalaxy(const json& args, std::size_t n, std::uint64_t seed, const Progress& progress)
{
    ArgReader a(args);
    const DiskGalaxyParams p = readDisk(a, n, seed);
    a.finish();
    return makeDiskGalaxy(p, progress);
}

ModelBodies generateGalaxyCollision(const json& args, std::size_t n, std::uint64_t seed, const Progress& progress)
{
    ArgReader a(args);
    GalaxyCollisionParams p;
    p.galaxy = readDisk(a, n, seed);
    p.pericentre = a.number("pericentre", p.pericentre, 0, kHuge, true);
    p.separation = a.number("separation", p.separation, 0, kHuge, true);
    p.inclination = a.number("inclination", p.inclination, -360, 360);
    a.finish();
    if (!(p.separation > p.pericentre))
        throw ScenarioError("bodies.args.separation", "must be larger than the pericentre (" + num(p.pericentre) + ")");
    return makeGalaxyCollision(p, progress);
}

/// Two Plummer clusters on a head-on collision course with radii from a density, for the
/// collision system: bodies that touch merge (docs/collisions.md).
ModelBodies generateClusterCollision(const json& args, std::size_t n, std::uint64_t seed, const Progress& progress)
{
    ArgReader a(args);
    const double scale = a.number("scale", 1.0, 0, kHuge, true);
    const double separation = a.number("separation", 12.0, 0, kHuge, true);
    const double speed = a.number("speed", 1.0, 0, kHuge);
    const double density = a.number("density", 300.0, 0, kHuge, true);
    a.finish();
    if (n < 2)
        throw ScenarioError("bodies.N", "two clusters need at least 2 bodies (got " + std::to_string(n) + ")");
    // Each cluster of mass 1 (G = 1); the first moves +x, the second −x, centre of mass at rest.
    const std::size_t n1 = n / 2, n2 = n - n1;
    progress.check(0);
    World w = makePlummerCluster(n1, 1.0, scale, {-0.5 * separation, 0, 0}, {0.5 * speed, 0, 0}, 1.0, seed);
    progress.check(0.45);
    const World second = makePlummerCluster(n2, double(n2) / double(n1), scale, {0.5 * separation, 0.25 * scale, 0},
                                            {-0.5 * speed * double(n1) / double(n2), 0, 0}, 1.0, seed + 1);
    (void)addBodies(w, second, "second cluster");
    progress.check(0.9);
    for (std::size_t i = 0; i < w.size(); ++i)
        w.setRadius(i, float(radiusFromDensity(w.positions()[i].w, density)));
    return {std::move(w), std::nullopt};
}

ModelBodies generateSolarSystem(const json& args, std::size_t, std::uint64_t, const Progress&)
{
    ArgReader(args).finish();
    return makeSolarSystem();
}

ModelBodies generateFigureEight(const json& args, std::size_t, std::uint64_t, const Progress&)
{
    ArgReader(args).finish();
    return makeFigureEight();
}

const std::array<ScenarioInfo, 7> kScenarios{{
    {"cube", "Uniform cube (the seeds' default)",
     "The default system of the seeds (the program this project grew from), the benchmark's: positions uniform in [-1e5, 1e5]^3, masses uniform in [1e5, 1e9], "
     "at rest. A stress test, not a physical model (docs/scenarios.md).",
     "N-body units (G = 1)", 1.0, 0.002f, 0.1f, "leapfrog", "", 8192, false,
     "halfWidth (1e5), massMin (1e5), massMax (1e9)", generateCube},
    {"plummer", "Plummer sphere",
     "A Plummer sphere in equilibrium, sampled as in Aarseth, Henon & Wielen (1974); Henon units, optional "
     "Salpeter mass spectrum.",
     "Henon units (G = M = 1, E = -1/4; virial radius 1, crossing time 2*sqrt(2))", 1.0, 4e-4f, 0.0078125f,
     "leapfrog", "", 4096, false,
     "massCutoff (0.999), massSpectrum (equal | salpeter), massRatio (100)", generatePlummer},
    {"disk-galaxy", "Disk galaxy",
     "A rotating exponential disk in a Plummer halo, near equilibrium (Hernquist 1993): half of the bodies in "
     "the disk (light stars: blue by group, green by mass), half in the halo (heavy dark matter: red).",
     "G = 1, disk mass 1, disk scale length 1 (1 kpc and 1e10 Msun: time unit 4.7 Myr)", 1.0, 0.0025f, 0.01f,
     "leapfrog", "", 8192, false,
     "diskMass (1), scaleLength (1), scaleHeight (0.1), haloMass (5), haloScale (3), haloCutoff (0.99), "
     "diskFraction (0.5), toomreQ (1.5)",
     generateDiskGalaxy},
    {"galaxy-collision", "Galaxy collision",
     "Two disk galaxies on a parabolic encounter: pericentre 6, starting 30 apart, the second disk inclined "
     "by 60 degrees; the first passage comes after about 28 time units.",
     "G = 1, disk mass 1, disk scale length 1 per galaxy", 1.0, 0.0025f, 0.01f, "leapfrog", "", 16384, false,
     "the disk-galaxy arguments, pericentre (6), separation (30), inclination (60, degrees)",
     generateGalaxyCollision},
    {"solar-system", "Solar System (J2000)",
     "The Sun, the eight planets (Earth with the Moon) and Pluto at J2000 from Standish's Keplerian elements "
     "(JPL), barycentric; no softening, fp64 kernel and Yoshida's 4th-order integrator by default.",
     "AU, days, solar masses (G = 2.959122082855911e-4 AU³ M☉⁻¹ day⁻²)", kGaussG, 0.0f, 1.0f, "yoshida4",
     "reference", 10, true, "none", generateSolarSystem, "AU³ M☉⁻¹ day⁻²"},
    {"figure-eight", "Figure-eight choreography",
     "Three equal masses chasing each other on a figure eight (Chenciner & Montgomery 2000; Simo's initial "
     "conditions), period 6.32591398.",
     "G = m = 1", 1.0, 0.0f, 0.001f, "yoshida4", "reference", 3, true, "none", generateFigureEight},
    {"cluster-collision", "Two clusters colliding (merging)",
     "Two Plummer spheres (scale 1, mass 1 each) on a head-on course, 12 apart, closing at 1, with radii "
     "from a density (r = (3m / 4 pi rho)^(1/3)) and the collision system on: bodies that touch merge, "
     "conserving mass, momentum and centre of mass; the energy lost is shown in the diagnostics.",
     // dt: the run through the cores' passage stays within the energy tolerance of `nbody run`
     // (kEnergyTolerance): at N = 2048 the largest |dE/E0| up to t = 20 is 8.7e-3 at dt = 1/400,
     // 3.6e-2 at 1/200 and 1.4e-1 at 1/100 (a hard encounter of merged bodies at t = 9.7).
     "G = 1, cluster mass 1, Plummer scale 1", 1.0, 0.0025f, 0.0025f, "leapfrog", "", 2048, false,
     "scale (1), separation (12), speed (1, closing), density (300)", generateClusterCollision, "", true},
}};

/// The error of field `field` of `spec`: naming the command-line option that set it
/// (ScenarioSpec::options), else the field and the scenario file, when there is one.
ScenarioError scenarioError(const ScenarioSpec& spec, std::string field, std::string problem)
{
    for (const auto& [f, option] : spec.options)
        if (f == field)
            return ScenarioError::ofOption(std::move(field), option, std::move(problem));
    return ScenarioError(std::move(field), std::move(problem), spec.source);
}

} // namespace

std::string unitsOfG(const ScenarioSpec& spec)
{
    const ScenarioInfo* row = spec.generator.empty() ? nullptr : findScenario(spec.generator);
    return row ? std::string(row->unitsOfG) : std::string();
}

std::span<const ScenarioInfo> scenarioRegistry()
{
    return kScenarios;
}

const ScenarioInfo* findScenario(std::string_view id)
{
    return findById(kScenarios, id);
}

std::string knownScenarioIds()
{
    return joinIds(kScenarios);
}

ScenarioSpec scenarioSpec(std::string_view id, std::optional<std::size_t> bodies, std::optional<std::uint64_t> seed)
{
    const ScenarioInfo* row = findScenario(id);
    if (!row)
        throw ScenarioError("bodies.generator",
                            "unknown scenario '" + std::string(id) + "' (known: " + knownScenarioIds() + ")");
    ScenarioSpec s;
    s.name = row->name;
    s.description = row->description;
    s.units = row->units;
    s.generator = row->id;
    s.bodies = bodies;
    if (seed)
        s.seed = *seed;
    return s;
}

BuiltScenario buildScenario(const ScenarioSpec& spec, const SimParams& base, const Progress& progress)
{
    BuiltScenario b;
    b.params = base;
    char line[512];
    if (!spec.generator.empty()) {
        const ScenarioInfo* row = findScenario(spec.generator);
        if (!row)
            throw scenarioError(spec, "bodies.generator",
                                "unknown generator '" + spec.generator + "' (known: " + knownScenarioIds() + ")");
        if (row->fixedBodies && spec.bodies && *spec.bodies != row->defaultBodies)
            throw scenarioError(spec, "bodies.N", "'" + std::string(row->id) + "' has a fixed number of bodies (" +
                                                      std::to_string(row->defaultBodies) + ")");
        const std::size_t n = spec.bodies.value_or(row->defaultBodies);
        if (n < 1 || n > kMaxBodies)
            throw scenarioError(spec, "bodies.N", "must be from 1 to " + std::to_string(kMaxBodies) + " (got " +
                                                      std::to_string(n) + ")");
        try {
            checkHostMemory(n); // before the generator allocates anything
        } catch (const std::invalid_argument& e) {
            throw scenarioError(spec, "bodies.N", e.what());
        }
        try {
            b.bodies = row->generate(spec.args, n, spec.seed, progress.part(0, 0.95));
        } catch (const ScenarioError& e) {
            throw scenarioError(spec, e.field(), e.problem());
        } catch (const BodyCountError& e) {
            throw scenarioError(spec, "bodies.N", e.what()); // fewer bodies than the model needs
        } catch (const std::invalid_argument& e) {
            throw scenarioError(spec, "bodies", e.what()); // the model's own check (names the quantity)
        }
        b.params.G = row->G;
        b.params.eps2 = row->eps2;
        b.params.dt = row->dt;
        b.params.integrator = std::string(row->integrator);
        b.params.collisions = row->collisions;
        b.kernel = std::string(row->kernel);
        b.units = std::string(row->units);
        b.unitsOfG = std::string(row->unitsOfG);
        if (row->fixedBodies)
            std::snprintf(line, sizeof line, "%s: %s", std::string(spec.name.empty() ? row->name : spec.name).c_str(),
                          bodyCount(b.bodies.world.size()).c_str());
        else
            std::snprintf(line, sizeof line, "%s: %s, seed %llu",
                          std::string(spec.name.empty() ? row->name : spec.name).c_str(),
                          bodyCount(b.bodies.world.size()).c_str(), static_cast<unsigned long long>(spec.seed));
    } else {
        // Any snapshot format, detected from the content as File → Open snapshot does (FormatError
        // names the file and the problem).
        progress.check(0);
        Snapshot snap = readSnapshot(spec.snapshot);
        progress.check(0.95);
        if (!spec.snapshotFormat.empty() && snap.formatId != spec.snapshotFormat)
            throw scenarioError(spec, "bodies.format",
                                "says \"" + spec.snapshotFormat + "\", but the content of '" + spec.snapshot
                                    + "' is " + std::string(findSnapshotFormat(snap.formatId)->name)
                                    + " (correct the format, or leave it out: it is detected from the file)");
        b.bodies.world = std::move(snap.world);
        b.warnings = std::move(snap.warnings);
        // The scenario's parameters, else each one the snapshot stores, else a new system's
        // (G = 1, dt and ε² derived from the scale with that G).
        const FileParams f = resolveFileParams(b.bodies.world, snap.params, spec.G);
        b.params.G = f.G;
        b.params.dt = f.dt;
        b.params.eps2 = f.eps2;
        b.dtProblem = spec.dt ? "" : f.dtProblem;
        b.eps2Problem = spec.eps2 ? "" : f.eps2Problem;
        b.params.integrator = "leapfrog";
        b.units = "the snapshot's own (G = " + num(b.params.G) + ")";
        if (snap.params) {
            // What the snapshot stores to continue its run (integrator, θ, …; the direction of
            // time is the front end's) and its units, unless the scenario says otherwise below.
            static constexpr std::string_view keepDirection[] = {"reverse"};
            try {
                (void)applyStoredParams(snap.params->stored, b.params, keepDirection);
            } catch (const std::invalid_argument& e) {
                throw scenarioError(spec, "bodies.snapshot", e.what());
            }
            if (!snap.params->units.empty())
                b.units = snap.params->units;
            b.unitsOfG = snap.params->unitsOfG;
        }
        std::snprintf(line, sizeof line, "%s: %s",
                      (spec.name.empty() ? std::filesystem::path(spec.snapshot).filename().string() : spec.name).c_str(),
                      bodyCount(b.bodies.world.size()).c_str());
    }
    b.summary = line;
    if (spec.G)
        b.params.G = *spec.G;
    if (spec.eps2)
        b.params.eps2 = *spec.eps2;
    if (spec.dt)
        b.params.dt = *spec.dt;
    if (spec.integrator)
        b.params.integrator = *spec.integrator;
    if (spec.kernel)
        b.kernel = *spec.kernel;
    if (!spec.units.empty())
        b.units = spec.units;
    if (spec.collisions)
        b.params.collisions = *spec.collisions;
    if (spec.contactSearch)
        b.params.contactSearch = *spec.contactSearch;
    for (const auto& [key, text] : spec.params)
        if (const ParamInfo* row = findParam(key))
            if (const std::string why = row->set(text, b.params); !why.empty())
                throw scenarioError(spec, key, why);
    World& w = b.bodies.world;
    if (spec.density) {
        for (std::size_t i = 0; i < w.size(); ++i)
            w.setRadius(i, float(radiusFromDensity(w.positions()[i].w, *spec.density)));
    } else if (spec.radius.is_number()) {
        for (std::size_t i = 0; i < w.size(); ++i)
            w.setRadius(i, spec.radius.get<float>());
    } else if (spec.radius.is_object()) {
        static constexpr std::array<const char*, 4> kGroups{"generic", "dark", "star", "gas"}; // Group's values
        for (std::size_t i = 0; i < w.size(); ++i)
            if (const auto it = spec.radius.find(kGroups[std::size_t(w.groups()[i])]); it != spec.radius.end())
                w.setRadius(i, it->get<float>());
    }
    return b;
}

std::string startKernel(std::string_view scenarioKernel)
{
    if (!scenarioKernel.empty())
        if (const KernelInfo* k = findKernel(scenarioKernel); k && availability(*k).available)
            return std::string(scenarioKernel);
    return std::string(defaultKernelId());
}

} // namespace nbody
