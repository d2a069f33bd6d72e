// `nbody bench`: the kernel × N table of sim/Benchmark.h, printed and optionally written as JSON
// and CSV.
#include "Commands.h"

#include "sim/AtomicFile.h"
#include "sim/Benchmark.h"
#include "sim/CpuKernels.h"
#include "sim/DeviceInfo.h"
#include "sim/Errors.h"
#include "sim/KernelRegistry.h"
#include "sim/Scenario.h"
#include "sim/Simulation.h"
#include "sim/Tuner.h"

#include <nlohmann/json.hpp>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <sstream>

namespace nbody::cli {

namespace {

std::string str(std::string_view s) { return std::string(s); }

/// The launch parameters a kernel reads at n bodies as resolved (deviceForceArgs), with where
/// they came from: "block 128, tile x2 (tuned)", "block 256 (set); tile x1 (default)".
std::string describeLaunch(const KernelInfo& k, const SimParams& p, std::size_t n)
{
    std::string s = describeResolved(k, resolveLaunch(k, p, n));
    if (k.backend == Backend::Cuda && !p.cudaGraphs)
        s = (s == "-" ? std::string() : s + ", ") + "no CUDA graphs";
    return s;
}

/// Parses "8192,65536" into N values (each 1..kMaxBodies). Throws std::invalid_argument.
std::vector<std::size_t> parseBodies(const std::string& list)
{
    std::vector<std::size_t> out;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, ',')) {
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

/// The kernels to run: "all" = every kernel available here; otherwise each id must be known and
/// available. Throws std::invalid_argument naming the problem.
std::vector<const KernelInfo*> parseKernels(const std::string& list)
{
    std::vector<const KernelInfo*> out;
    if (list == "all") {
        for (const KernelInfo& k : kernelRegistry()) {
            if (const Availability a = availability(k); a.available)
                out.push_back(&k);
            else
                std::fprintf(stderr, "bench: skipping %s: %s\n", str(k.id).c_str(), a.reason.c_str());
        }
        return out;
    }
    std::stringstream in(list);
    std::string id;
    while (std::getline(in, id, ',')) {
        const KernelInfo* k = findKernel(id);
        if (!k) {
            std::string known;
            for (const KernelInfo& r : kernelRegistry())
                known += (known.empty() ? "" : ", ") + str(r.id);
            throw std::invalid_argument("unknown kernel '" + id + "' (known: " + known + ")");
        }
        if (const Availability a = availability(*k); !a.available)
            throw std::invalid_argument("kernel '" + id + "' is not available here: " + a.reason);
        out.push_back(k);
    }
    if (out.empty())
        throw std::invalid_argument("--kernels: no kernels given");
    return out;
}

std::string machineDescription()
{
    const CudaRuntimeInfo cuda = queryCuda();
    std::string s = cuda.devices.empty() ? "no CUDA device (" + cuda.whyNone + ")"
                                         : cuda.devices[0].name + " (CUDA driver " +
                                               cudaVersionString(cuda.driverVersion) + ", runtime " +
                                               cudaVersionString(cuda.runtimeVersion) + ")";
    return s + ", " + std::to_string(omp_get_max_threads()) + " OpenMP threads";
}

struct Row {
    const KernelInfo* kernel;
    std::size_t bodies;
    std::optional<BenchResult> result;
    std::string note; ///< why there is no result (skipped, failed)
};

/// CPU kernels: interactions/s per OpenMP thread (the per-core figure, docs/performance-cpu.md);
/// nothing for GPU kernels.
std::optional<double> perCore(const Row& row)
{
    if (!row.result || row.kernel->backend != Backend::Cpu)
        return std::nullopt;
    return row.result->interactionsPerSecond / double(std::max(1, omp_get_max_threads()));
}

std::string csvField(const std::string& s)
{
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string q = "\"";
    for (char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

} // namespace

int benchCommand(const BenchOptions& o)
{
    std::vector<std::size_t> bodies;
    std::vector<const KernelInfo*> kernels;
    SimParams params;
    params.blockSize = o.blockSize;
    params.blockRows = o.blockRows;
    params.tileWidthFactor = o.tileWidthFactor;
    params.bodiesPerThread = o.bodiesPerThread;
    params.jSplit = o.jSplit;
    params.unroll = o.unroll;
    params.cudaGraphs = o.cudaGraphs;
    try {
        if (!std::isfinite(o.budgetSeconds) || !(o.budgetSeconds > 0))
            throw std::invalid_argument("--budget must be a positive number of seconds");
        bodies = parseBodies(o.bodies);
        kernels = parseKernels(o.kernels);
        // Launch parameters are checked against every selected kernel before anything runs.
        World one;
        one.addBody({0, 0, 0, 1}, {});
        for (const KernelInfo* k : kernels) {
            Simulation probe(one, params, "cpu");
            probe.setKernel(k->id);
        }
        for (const std::string& path : {o.json, o.csv})
            if (!path.empty())
                if (const WriteTarget t = resolveWriteTarget(path); !t.problem.empty())
                    throw std::invalid_argument("cannot write '" + path + "': " + t.problem);
    } catch (const std::invalid_argument& e) {
        std::cerr << "nbody bench: " << e.what() << "\n";
        return 2;
    }
    if (kernels.empty()) {
        std::cerr << "nbody bench: no kernel is available here\n";
        return 2;
    }

    const std::string machine = machineDescription();
    std::printf("Benchmark: uniform cube (seed %llu), %d timed samples after %d warm-up evaluations per kernel and N\n",
                static_cast<unsigned long long>(o.seed), o.steps, o.warmup);
    std::printf("Machine:   %s\n", machine.c_str());
    std::printf("Counting:  N^2 interactions per force evaluation (as NVIDIA's nbody sample); 20 flops per "
                "interaction in fp32, 30 in fp64\n\n");
    const char* header = "%-26s %-5s %-7s %8s %11s %11s %15s %10s  %-11s %s\n";
    std::printf(header, "kernel", "prec", "layout", "N", "force ms", "step ms", "interactions/s", "GFLOP/s", "timer",
                "params");
    std::fflush(stdout);

    std::vector<Row> rows;
    bool failed = false;
    const std::size_t total = kernels.size() * bodies.size();
    std::size_t index = 0;
    for (const KernelInfo* k : kernels) {
        std::optional<std::pair<std::size_t, double>> last; // (N, force ms) of the last case run
        // The first N is predicted too, from one force evaluation at a small N (a fraction of a
        // second even on a laptop CPU), so --budget also guards a first N that is too large.
        if (const std::size_t probe = std::min<std::size_t>(bodies.front(), 1024); probe < bodies.front()) {
            try {
                CubeParams cube;
                cube.bodies = probe;
                cube.seed = o.seed;
                Simulation sim(makeUniformCube(cube), params, "cpu");
                sim.setKernel(k->id);
                sim.timedForceEvaluation(); // warm-up (module load, allocation)
                last = std::pair{probe, sim.timedForceEvaluation()};
            } catch (const std::exception&) {
                // no prediction: the case itself will report the problem
            }
        }
        for (std::size_t n : bodies) {
            ++index;
            Row row{k, n, std::nullopt, {}};
            // A case whose predicted time (from the last N, scaling as N²) exceeds the budget is
            // skipped rather than left running for minutes (the CPU kernels at large N).
            if (last) {
                const double ratio = double(n) / double(last->first);
                const double predicted = last->second * 1e-3 * ratio * ratio * (o.warmup + 3);
                if (predicted > o.budgetSeconds) {
                    char note[160];
                    std::snprintf(note, sizeof note, "skipped: about %.3g s predicted, over the %.3g s budget (--budget)",
                                  predicted, o.budgetSeconds);
                    row.note = note;
                }
            }
            if (row.note.empty() && !o.noTune && tunable(*k, params)) {
                try { // once per device, kernel and N bucket (sim/Tuner.h); the table stays on stdout
                    const TuneOutcome t = ensureTuned(*k, params, n, [](const std::string& s) { std::fputs(s.c_str(), stderr); });
                    if (t.ran)
                        std::fputs("\n", stderr);
                    if (!t.warning.empty())
                        std::fprintf(stderr, "bench: note: %s\n", t.warning.c_str());
                } catch (const std::exception& e) {
                    std::fprintf(stderr, "\nbench: note: tuning failed (%s); the defaults are used\n", e.what());
                }
            }
            if (row.note.empty()) {
                std::fprintf(stderr, "bench [%zu/%zu] %s N=%zu ...\n", index, total, str(k->id).c_str(), n);
                BenchCase c;
                c.kernel = str(k->id);
                c.bodies = n;
                c.seed = o.seed;
                c.params = params;
                c.samples = o.steps;
                c.warmup = o.warmup;
                c.budgetSeconds = o.budgetSeconds;
                try {
                    row.result = runBenchmark(c, [](const std::string& s) { std::fprintf(stderr, "%s\n", s.c_str()); });
                    last = std::pair{n, row.result->forceMsMedian};
                } catch (const std::exception& e) {
                    row.note = std::string("failed: ") + e.what();
                    failed = true;
                }
            }
            if (row.result) {
                const BenchResult& r = *row.result;
                std::printf("%-26s %-5s %-7s %8zu %11.4f %11.4f %15.4g %10.1f  %-11s %s\n", str(k->id).c_str(),
                            str(toString(k->precision)).c_str(), str(toString(k->layout)).c_str(), n, r.forceMsMedian,
                            r.stepMsMedian, r.interactionsPerSecond, r.gflops, r.timer.c_str(),
                            describeLaunch(*k, params, n).c_str());
            } else {
                std::printf("%-26s %-5s %-7s %8zu  %s\n", str(k->id).c_str(), str(toString(k->precision)).c_str(),
                            str(toString(k->layout)).c_str(), n, row.note.c_str());
            }
            std::fflush(stdout);
            rows.push_back(std::move(row));
        }
    }

    // Per core, under the table (CPU kernels only).
    for (const Row& row : rows)
        if (const auto pc = perCore(row))
            std::printf("per core: %s N=%zu: %.4g interactions/s per OpenMP thread (%d threads%s)\n",
                        str(row.kernel->id).c_str(), row.bodies, *pc, omp_get_max_threads(),
                        row.kernel->id == "cpu" ? (", SIMD target " + cpuSimdTargetName(cpuSimdTarget())).c_str() : "");

    try {
        if (!o.json.empty()) {
            nlohmann::json out;
            out["machine"] = machine;
            out["system"] = {{"scenario", "uniform cube"}, {"seed", o.seed}};
            out["samples"] = o.steps;
            out["warmup"] = o.warmup;
            out["counting"] = "N^2 interactions per force evaluation; 20 flops per interaction (fp32), 30 (fp64)";
            nlohmann::json results = nlohmann::json::array();
            for (const Row& row : rows) {
                nlohmann::json j = {{"kernel", row.kernel->id},
                                    {"name", row.kernel->name},
                                    {"backend", toString(row.kernel->backend)},
                                    {"precision", toString(row.kernel->precision)},
                                    {"layout", toString(row.kernel->layout)},
                                    {"bodies", row.bodies},
                                    {"params", {{"blockSize", params.blockSize},
                                                {"blockRows", params.blockRows},
                                                {"tileWidthFactor", params.tileWidthFactor},
                                                {"cudaGraphs", params.cudaGraphs},
                                                {"used", describeLaunch(*row.kernel, params, row.bodies)}}}};
                if (row.result) {
                    const BenchResult& r = *row.result;
                    j.update({{"samples", r.samples},
                              {"forceMsMedian", r.forceMsMedian},
                              {"forceMsMin", r.forceMsMin},
                              {"stepMsMedian", r.stepMsMedian},
                              {"interactionsPerSecond", r.interactionsPerSecond},
                              {"gflops", r.gflops},
                              {"flopsPerInteraction", r.flopsPerInteraction},
                              {"timer", r.timer}});
                    if (const auto pc = perCore(row))
                        j["perCore"] = *pc;
                } else {
                    j["note"] = row.note;
                }
                results.push_back(std::move(j));
            }
            out["results"] = std::move(results);
            writeTextAtomically(o.json, out.dump(2) + "\n");
            std::fprintf(stderr, "bench: wrote %s\n", o.json.c_str());
        }
        if (!o.csv.empty()) {
            std::string csv = "kernel,precision,layout,bodies,samples,force_ms_median,force_ms_min,step_ms_median,"
                              "interactions_per_second,gflops,flops_per_interaction,timer,params,note,per_core\n";
            char buf[512];
            for (const Row& row : rows) {
                std::snprintf(buf, sizeof buf, "%s,%s,%s,%zu,", str(row.kernel->id).c_str(),
                              str(toString(row.kernel->precision)).c_str(), str(toString(row.kernel->layout)).c_str(),
                              row.bodies);
                csv += buf;
                if (const auto& r = row.result) {
                    std::snprintf(buf, sizeof buf, "%d,%.6g,%.6g,%.6g,%.6g,%.6g,", r->samples, r->forceMsMedian,
                                  r->forceMsMin, r->stepMsMedian, r->interactionsPerSecond, r->gflops);
                    csv += buf;
                } else {
                    csv += ",,,,,,"; // skipped or failed: no measurement (not zeros)
                }
                csv += std::to_string(row.kernel->flopsPerInteraction) + "," +
                       csvField(row.result ? row.result->timer : std::string()) + "," +
                       csvField(describeLaunch(*row.kernel, params, row.bodies)) + "," + csvField(row.note) + ",";
                if (const auto pc = perCore(row)) {
                    std::snprintf(buf, sizeof buf, "%.6g", *pc);
                    csv += buf;
                }
                csv += "\n";
            }
            writeTextAtomically(o.csv, csv);
            std::fprintf(stderr, "bench: wrote %s\n", o.csv.c_str());
        }
    } catch (const std::exception& e) {
        std::cerr << "nbody bench: " << e.what() << "\n";
        return 1;
    }
    return failed ? 1 : 0;
}

} // namespace nbody::cli
