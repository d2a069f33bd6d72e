/// `nbody scenarios`, `nbody integrators` and the system of `nbody run --scenario ID|FILE.json`.
#include "Commands.h"
#include "Headless.h"

#include "sim/base/Format.h"
#include "sim/perf/StepPrediction.h"
#include "sim/core/Integrators.h"
#include "sim/core/KernelRegistry.h"
#include "sim/io/Scenarios.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <stdexcept>

namespace nbody::cli {

PreparedSystem scenarioSystem(const char* command, const SystemOptions& o)
{
    // A registry id, or a scenario file (a name ending in .json); errors name --scenario.
    ScenarioSpec spec = scenarioFromOption(o.scenario);
    if (!spec.generator.empty()) {
        const ScenarioInfo* row = findScenario(spec.generator);
        if (o.bodiesGiven) {
            if (row->fixedBodies)
                printNote(command, "'" + std::string(row->id) + "' has " + bodyCount(row->defaultBodies) +
                                       " by definition; --bodies ignored");
            else
                setBodiesFromOption(spec, o.bodies);
        }
        if (row->fixedBodies)
            noteStepsPerSecondIgnored(command, o, "for '" + std::string(row->id) + "', which has " +
                                                      bodyCount(row->defaultBodies) + " by definition");
        else if (o.bodiesGiven)
            noteStepsPerSecondIgnored(command, o, "with --bodies");
        if (o.seedGiven)
            spec.seed = o.seed;
        if (!o.bodiesGiven && !row->fixedBodies && o.stepsPerSecond > 0) {
            // N from the kernel's measured speed, timed at the N it chooses (the app's sizing:
            // StepPredictor::sizeForStepRate, sim/perf/StepPrediction.h).
            const std::string id = !o.sizingKernel.empty() ? o.sizingKernel
                                   : !row->kernel.empty()  ? std::string(row->kernel)
                                                           : defaultKernel(command);
            const KernelInfo* k = findKernel(id);
            if (!k)
                throw std::invalid_argument("unknown kernel '" + id + "'");
            if (const Availability a = availability(*k); !a.available)
                throw std::invalid_argument("kernel '" + id + "' is not available here: " + a.reason);
            const int evaluations = int(integratorOrThrow(row->integrator).weights.size());
            StepPredictor predictor;
            constexpr std::size_t smallest = 1024;
            const StepPrediction s = predictor.sizeForStepRate(*k, evaluations, o.stepsPerSecond, smallest);
            spec.bodies = s.bodies;
            // Only the smallest N can be slower than the rate by more than the last timing's
            // change (the size is timed again at the N chosen, which may come out a little slower).
            std::printf("Sizing:  %s for %g steps/s on %s (%s%s)\n", bodyCount(s.bodies).c_str(), o.stepsPerSecond, id.c_str(),
                        describeStepPrediction(s).c_str(),
                        s.bodies <= smallest && s.secondsPerStep > 1.0 / o.stepsPerSecond
                            ? ": the smallest N, slower than that here"
                            : "");
        }
    } else {
        if (o.bodiesGiven || o.seedGiven)
            printNote(command, "--bodies and --seed apply to generators; ignored for a snapshot");
        noteStepsPerSecondIgnored(command, o, "for a scenario of a snapshot file");
    }
    BuiltScenario b = buildScenario(spec);
    for (const std::string& w : b.warnings)
        std::fprintf(stderr, "nbody %s: warning: %s\n", command, w.c_str());
    PreparedSystem s;
    s.units = b.units;
    s.unitsOfG = b.unitsOfG;
    s.world = std::move(b.bodies.world);
    s.exact = std::move(b.bodies.exact);
    s.params = b.params;
    s.scenarioKernel = b.kernel;
    s.dtProblem = b.dtProblem;
    s.eps2Problem = b.eps2Problem;
    char line[768];
    std::snprintf(line, sizeof line, "%s; units: %s", b.summary.c_str(), b.units.c_str());
    s.what = line;
    return s;
}

int scenariosCommand(bool json)
{
    if (json) {
        nlohmann::json rows = nlohmann::json::array();
        for (const ScenarioInfo& s : scenarioRegistry())
            rows.push_back({{"id", s.id},
                            {"name", s.name},
                            {"description", s.description},
                            {"units", s.units},
                            {"G", s.G},
                            {"eps2", s.eps2},
                            {"dt", s.dt},
                            {"integrator", s.integrator},
                            {"kernel", s.kernel},
                            {"bodies", s.defaultBodies},
                            {"fixedBodies", s.fixedBodies},
                            {"arguments", s.arguments}});
        std::cout << nlohmann::json{{"scenarios", rows}}.dump(2) << "\n";
        return 0;
    }
    int idWidth = 2, nameWidth = 4; // the columns as wide as their longest entry
    for (const ScenarioInfo& s : scenarioRegistry()) {
        idWidth = std::max(idWidth, int(s.id.size()));
        nameWidth = std::max(nameWidth, int(s.name.size()));
    }
    std::printf("%-*s  %-*s  %7s  %-12s %-9s %-10s %s\n", idWidth, "id", nameWidth, "name", "N", "dt", "eps2",
                "integrator", "kernel");
    for (const ScenarioInfo& s : scenarioRegistry())
        std::printf("%-*s  %-*s  %7zu  %-12g %-9g %-10s %s\n", idWidth, std::string(s.id).c_str(), nameWidth,
                    std::string(s.name).c_str(), s.defaultBodies, double(s.dt), double(s.eps2),
                    std::string(s.integrator).c_str(), s.kernel.empty() ? "(fastest)" : std::string(s.kernel).c_str());
    std::printf("\nUnits and generator arguments (scenario files: \"bodies\": {\"generator\": ID, \"N\": n, "
                "\"seed\": s, \"args\": {...}}):\n");
    for (const ScenarioInfo& s : scenarioRegistry())
        std::printf("  %-*s  %s\n  %-*s  args: %s\n", idWidth, std::string(s.id).c_str(), std::string(s.units).c_str(),
                    idWidth, "", std::string(s.arguments).c_str());
    return 0;
}

int integratorsCommand(bool json)
{
    if (json) {
        nlohmann::json rows = nlohmann::json::array();
        for (const IntegratorInfo& i : integratorRegistry())
            rows.push_back({{"id", i.id},
                            {"name", i.name},
                            {"description", i.description},
                            {"order", i.order},
                            {"forceEvaluationsPerStep", i.weights.size()},
                            {"weights", std::vector<double>(i.weights.begin(), i.weights.end())}});
        std::cout << nlohmann::json{{"integrators", rows}}.dump(2) << "\n";
        return 0;
    }
    std::printf("%-10s %-20s %5s %6s  %s\n", "id", "name", "order", "forces", "substep weights (x dt)");
    for (const IntegratorInfo& i : integratorRegistry()) {
        std::string w;
        for (double x : i.weights) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%s%.17g", w.empty() ? "" : ", ", x);
            w += buf;
        }
        std::printf("%-10s %-20s %5d %6zu  %s\n", std::string(i.id).c_str(), std::string(i.name).c_str(), i.order,
                    i.weights.size(), w.c_str());
    }
    return 0;
}

} // namespace nbody::cli
