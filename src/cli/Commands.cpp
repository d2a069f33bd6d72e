#include "Commands.h"
#include "sim/core/ParamTable.h"
#include "DistributedSystem.h"
#include "Headless.h"

#include "gl/CudaGlInterop.h"
#include "gl/EglContext.h"
#include "gl/Renderer.h"
#include "DiagnosticsOutput.h"
#include "sim/base/AtomicFile.h"
#include "sim/collide/Collisions.h"
#include "sim/collide/ContactHost.h"
#include "sim/base/DeviceInfo.h"
#include "contracts/Errors.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/MemoryBudget.h"
#include "sim/core/Simulation.h"
#include "sim/io/Snapshot.h"
#include "sim/perf/Tuner.h"
#include "SnapshotOutput.h"

#include <nlohmann/json.hpp>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <new>
#include <memory>
#include <optional>

namespace nbody::cli {

namespace {

/// The launch parameters row k reads, by key ("blockSize, tileWidthFactor"); "-" for none.
std::string launchParamNames(const KernelInfo& k, const char* separator)
{
    std::string s;
    for (const ParamInfo& row : paramTable()) // the launch and tree rows of the parameter table it reads
        if ((row.group == ParamGroup::Launch || row.group == ParamGroup::Tree) && paramReadBy(row, k)) {
            if (!s.empty())
                s += separator;
            s += row.key;
        }
    return s.empty() ? "-" : s;
}

/// `nbody kernels --json`: every kernel row (with the parameters it reads and its tuned choices on
/// this device), the contact searches, the tuning cache and device.
nlohmann::json kernelsJson(const TuningDevice& device, const std::vector<TunedEntry>& tuned)
{
    nlohmann::json out;
    out["builtWithCuda"] = builtWithCuda();
    out["tuningCache"] = tuningCache().path();
    out["tuningDevice"] = device.name.empty() ? nlohmann::json() : nlohmann::json{{"name", device.name},
                                                                                  {"driver", device.driverVersion}};
    nlohmann::json rows = nlohmann::json::array();
    for (const KernelInfo& k : kernelRegistry()) {
        const Availability a = availability(k);
        nlohmann::json parameters = nlohmann::json::object();
        for (const ParamInfo& row : paramTable())
            if (row.group == ParamGroup::Launch || row.group == ParamGroup::Tree)
                parameters[std::string(row.key)] = paramReadBy(row, k);
        nlohmann::json choices = nlohmann::json::array();
        for (const TunedEntry& e : tuned) {
            if (e.kernel != k.id)
                continue;
            nlohmann::json values = nlohmann::json::object();
            for (const LaunchParamInfo& p : launchParams())
                if (e.launch[p.param] > 0)
                    values[std::string(p.key)] = e.launch[p.param];
            choices.push_back({{"bucket", e.bucket}, {"params", values}, {"forceMs", e.forceMs},
                               {"interactionsPerSecond", e.interactionsPerSecond}, {"date", e.date}});
        }
        rows.push_back({{"id", k.id},
                        {"name", k.name},
                        {"description", k.description},
                        {"backend", toString(k.backend)},
                        {"precision", toString(k.precision)},
                        {"layout", toString(k.layout)},
                        {"method", toString(k.method)},
                        {"deterministic", k.deterministic},
                        {"flopsPerInteraction", k.flopsPerInteraction},
                        {"parameters", parameters},
                        {"tuned", choices},
                        {"available", a.available},
                        {"whyNot", a.reason}});
    }
    out["kernels"] = rows;
    nlohmann::json searches = nlohmann::json::array();
    for (const ContactSearchInfo& c : contactSearches())
        searches.push_back({{"id", c.id},
                            {"name", c.name},
                            {"description", c.description},
                            {"backend", toString(c.backend)},
                            {"available", c.find != nullptr}});
    out["contactSearches"] = searches;
    return out;
}

/// `nbody kernels`: the table of kernel rows, the contact searches and this device's tuned launch
/// parameters.
void printKernels(const TuningDevice& device, const std::vector<TunedEntry>& tuned)
{
    std::printf("%s\n\n", builtWithCuda() ? "Build: with CUDA kernels" : "Build: CPU-only (built without CUDA)");
    int idWidth = 2, nameWidth = 4, paramWidth = 17;
    for (const KernelInfo& k : kernelRegistry()) {
        idWidth = std::max(idWidth, int(k.id.size()));
        nameWidth = std::max(nameWidth, int(k.name.size()));
        paramWidth = std::max(paramWidth, int(launchParamNames(k, ",").size()));
    }
    std::printf("%-*s  %-*s  %-7s  %-9s  %-7s  %-9s  %-*s  %-9s  %s\n", idWidth, "id", nameWidth, "name", "backend",
                "precision", "layout", "method", paramWidth, "launch parameters", "available", "why not");
    for (const KernelInfo& k : kernelRegistry()) {
        const Availability a = availability(k);
        std::printf("%-*s  %-*s  %-7s  %-9s  %-7s  %-9s  %-*s  %-9s  %s\n", idWidth, std::string(k.id).c_str(),
                    nameWidth, std::string(k.name).c_str(), std::string(toString(k.backend)).c_str(),
                    std::string(toString(k.precision)).c_str(), std::string(toString(k.layout)).c_str(),
                    std::string(toString(k.method)).c_str(), paramWidth, launchParamNames(k, ",").c_str(),
                    a.available ? "yes" : "no", a.reason.c_str());
    }
    // The collision system's contact searches (run --collisions --contact-search ID; auto picks).
    std::printf("\nContact searches (run --collisions --contact-search ID; default auto):\n");
    int searchWidth = 2;
    for (const ContactSearchInfo& c : contactSearches())
        searchWidth = std::max(searchWidth, int(c.id.size()));
    for (const ContactSearchInfo& c : contactSearches()) {
        const Availability a = contactSearchAvailability(c);
        std::printf("  %-*s  %-7s  %-11s  %s: %s\n", searchWidth, std::string(c.id).c_str(),
                    std::string(toString(c.backend)).c_str(), a.available ? "available" : "unavailable",
                    std::string(c.name).c_str(), std::string(c.description).c_str());
        if (!a.available)
            std::printf("  %-*s  why not: %s\n", searchWidth, "", a.reason.c_str());
    }
    // The tuner's choices for this device (what "auto" launch parameters resolve to).
    if (device.name.empty())
        return;
    std::printf("\nTuned launch parameters on %s (driver %s; cache %s):\n", device.name.c_str(),
                cudaVersionString(device.driverVersion).c_str(), tuningCache().path().c_str());
    if (tuned.empty())
        std::printf("  none yet: `nbody tune`, or the first run of a CUDA kernel, measures them\n");
    for (const TunedEntry& e : tuned) {
        const KernelInfo* k = findKernel(e.kernel);
        if (!k)
            continue; // a row this build does not have
        std::printf("  %-*s  N~%-7zu  %-44s  %10.4g interactions/s  %s\n", idWidth, e.kernel.c_str(), e.bucket,
                    describeLaunch(*k, e.launch).c_str(), e.interactionsPerSecond, e.date.c_str());
    }
}


} // namespace

int kernelsCommand(bool json)
{
    const TuningDevice device = currentTuningDevice();
    const std::vector<TunedEntry> tuned = device.name.empty() ? std::vector<TunedEntry>{}
                                                              : tuningCache().entriesFor(device);
    if (json)
        std::cout << kernelsJson(device, tuned).dump(2) << "\n";
    else
        printKernels(device, tuned);
    return 0;
}

} // namespace nbody::cli
