/// \file fuzz_scenario.cpp
/// libFuzzer target: readScenarioFile (sim/io/Scenarios.h) on arbitrary bytes. A ScenarioError
/// (the expected answer to a bad file) or another std::invalid_argument is fine; any other
/// exception (a raw nlohmann::json error, say), a crash, a leak, a sanitizer report or an
/// allocation beyond -malloc_limit_mb is a finding. A file that parses must survive a round
/// trip (toJson, parseScenario: the same document), and a generator recipe of at most
/// kMaxBuiltBodies bodies is built too, so the generators' argument checks are fuzzed as well
/// (larger ones would make the fuzzer measure the generators' speed; snapshot recipes are not
/// built: they name other files).

#include "FuzzChecks.h"
#include "FuzzInput.h"

#include "sim/io/Scenarios.h"

#include <stdexcept>

namespace {
constexpr std::size_t kMaxBuiltBodies = 2048;
}

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size)
{
    static nbody::fuzz::InputFile file(".json");
    const std::string& path = file.write(data, size);
    try {
        const nbody::ScenarioSpec spec = nbody::readScenarioFile(path);
        const nlohmann::json doc = nbody::toJson(spec);
        if (nbody::toJson(nbody::parseScenario(doc)) != doc)
            nbody::fuzz::broken("a scenario does not survive toJson and parseScenario");
        if (const nbody::ScenarioInfo* row = nbody::findScenario(spec.generator)) {
            if (spec.bodies.value_or(row->defaultBodies) <= kMaxBuiltBodies) {
                const nbody::BuiltScenario built = nbody::buildScenario(spec);
                const nbody::World& w = built.bodies.world;
                nbody::fuzz::checkWorld(w);
            }
        }
    } catch (const std::invalid_argument&) { // ScenarioError and the memory check's refusal
    }
    return 0;
}
