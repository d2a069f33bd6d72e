// `nbody tune`: measures the launch parameters of CUDA rows for this device at the buckets of the
// given N values and writes them to the tuning cache (sim/perf/Tuner.h, docs/tuner.md).
#include "Commands.h"
#include "sim/core/ForceAccuracy.h"

#include "sim/base/DeviceInfo.h"
#include "contracts/Errors.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/Scenario.h"
#include "sim/perf/Tuner.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace nbody::cli {

namespace {

std::vector<std::string> splitList(const std::string& list)
{
    std::vector<std::string> out;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, ','))
        out.push_back(item);
    return out;
}

/// The buckets of "8192,65536" (each N in 1..kMaxBodies), in increasing order without repeats.
std::set<std::size_t> parseBuckets(const std::string& list)
{
    std::set<std::size_t> out;
    for (const std::size_t n : parseBodyList(list))
        out.insert(tuningBucket(n));
    if (out.empty())
        throw std::invalid_argument("--bodies: no body counts given");
    return out;
}

bool readsAny(const KernelInfo& k)
{
    for (const LaunchParamInfo& p : launchParams())
        if (reads(k.params, p.param))
            return true;
    return false;
}

/// "all": every CUDA row available here that reads a launch parameter; else each id must be one.
std::vector<const KernelInfo*> parseTunable(const std::string& list)
{
    std::vector<const KernelInfo*> out;
    if (list == "all") {
        for (const KernelInfo& k : kernelRegistry())
            if (k.backend == Backend::Cuda && readsAny(k) && availability(k).available)
                out.push_back(&k);
        return out;
    }
    for (const std::string& id : splitList(list)) {
        const KernelInfo* k = findKernel(id);
        if (!k)
            throw std::invalid_argument("unknown kernel '" + id + "' (see `nbody kernels`)");
        if (k->backend != Backend::Cuda || !readsAny(*k))
            throw std::invalid_argument("kernel '" + id + "' has no launch parameters to tune (CPU rows have none)");
        if (const Availability a = availability(*k); !a.available)
            throw std::invalid_argument("kernel '" + id + "' is not available here: " + a.reason);
        out.push_back(k);
    }
    if (out.empty())
        throw std::invalid_argument("--kernels: no kernels given");
    return out;
}

} // namespace

int tuneCommand(const TuneCommandOptions& o)
{
    std::set<std::size_t> buckets;
    std::vector<const KernelInfo*> kernels;
    try {
        buckets = parseBuckets(o.bodies);
        kernels = parseTunable(o.kernels);
    } catch (const std::invalid_argument& e) {
        std::cerr << "nbody tune: " << e.what() << "\n";
        return 2;
    }
    const TuningDevice device = currentTuningDevice();
    if (device.name.empty()) {
        std::cerr << "nbody tune: nothing to tune without a CUDA device (" << queryCuda().whyNone << ")\n";
        return 2;
    }
    if (kernels.empty()) {
        std::cerr << "nbody tune: no tunable CUDA kernel is available here\n";
        return 2;
    }
    TuningCache& cache = tuningCache();
    std::printf("Device:  %s (driver %s)\nCache:   %s\n\n", device.name.c_str(),
                cudaVersionString(device.driverVersion).c_str(), cache.path().c_str());
    std::fflush(stdout);

    struct Row {
        const KernelInfo* kernel;
        std::size_t bucket;
        std::optional<TunedEntry> entry;
        std::string how; ///< "tuned now", "cached", "failed: …"
    };
    std::vector<Row> rows;
    bool failed = false;
    SimParams params; // the tree rows are timed at --theta and --leaf-size
    applyTreeOptions(o.tree, params);
    for (const KernelInfo* k : kernels) {
        for (std::size_t bucket : buckets) {
            Row row{k, bucket, std::nullopt, {}};
            try {
                // A tree row is timed at the θ its force accuracy picks (ForceAccuracy.h).
                const TuneOutcome t = ensureTuned(*k, withForceAccuracy(*k, params, bucket), bucket, [](const std::string& piece) {
                    std::fputs(piece.c_str(), stdout);
                    std::fflush(stdout);
                }, o.force);
                if (t.ran)
                    std::fputs("\n", stdout);
                if (!t.warning.empty())
                    printNote("tune", t.warning);
                row.entry = t.entry;
                row.how = t.ran ? "tuned now" : "cached";
            } catch (const std::exception& e) {
                std::fputs("\n", stdout);
                row.how = std::string("failed: ") + e.what();
                failed = true;
            }
            rows.push_back(std::move(row));
        }
    }

    std::printf("\n%-26s %8s  %-44s %10s %15s  %-10s  %s\n", "kernel", "N bucket", "launch parameters", "force ms",
                "interactions/s", "date", "");
    for (const Row& r : rows) {
        if (r.entry)
            std::printf("%-26s %8zu  %-44s %10.4f %15.4g  %-10s  %s\n", std::string(r.kernel->id).c_str(), r.bucket,
                        describeLaunch(*r.kernel, r.entry->launch).c_str(), r.entry->forceMs,
                        r.entry->interactionsPerSecond, r.entry->date.c_str(), r.how.c_str());
        else
            std::printf("%-26s %8zu  %s\n", std::string(r.kernel->id).c_str(), r.bucket, r.how.c_str());
    }
    std::printf("\nAuto (0) launch parameters now take these values on this device; --block-size etc. override "
                "them, --force re-tunes, deleting %s forgets them.\n", cache.path().c_str());
    return failed ? 1 : 0;
}

} // namespace nbody::cli
