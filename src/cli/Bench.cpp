// `nbody bench`: the kernel × N table of sim/perf/Benchmark.h, printed and optionally written as JSON
// and CSV and plotted (--plot, through nbody::plot where this build has it); --from prints and
// plots a saved --json file instead of measuring.
#include "BenchReport.h"
#include "BenchTables.h"
#include "RowList.h"
#include "Commands.h"
#include "DistributedSystem.h"

#include "plot/BenchPlot.h"
#include "sim/base/AtomicFile.h"
#include "sim/perf/Benchmark.h"
#include "sim/core/Ceiling.h"
#include "sim/core/CpuKernels.h"
#include "sim/base/DeviceInfo.h"
#include "contracts/Errors.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/Scenario.h"
#include "sim/io/Scenarios.h"
#include "sim/core/Simulation.h"
#include "sim/perf/Tuner.h"

#include <nlohmann/json.hpp>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace nbody::cli {

namespace {

std::string str(std::string_view s) { return std::string(s); }

/// The launch parameters a kernel reads at n bodies as resolved (deviceForceArgs), with where
/// they came from: "block 128, tile x2 (tuned)", "block 256 (set); tile x1 (default)"; "-" for
/// CPU rows. This is what ran: the table's `params` column.
std::string describeLaunch(const KernelInfo& k, const SimParams& p, std::size_t n)
{
    if (k.backend != Backend::Cuda)
        return "-";
    try {
        std::string s = describeResolved(k, resolveLaunch(k, p, n));
        if (!p.cudaGraphs)
            s += ", no CUDA graphs";
        return s;
    } catch (const std::exception& e) {
        return std::string("unresolved: ") + e.what();
    }
}

/// The launch parameters of a row for the JSON: those asked for (0 = auto) and, for CUDA rows,
/// those deviceForceArgs() resolved for n.
nlohmann::json launchJson(const KernelInfo& k, const SimParams& p, std::size_t n)
{
    nlohmann::json j = {{"blockSize", p.blockSize},
                        {"blockRows", p.blockRows},
                        {"tileWidthFactor", p.tileWidthFactor},
                        {"bodiesPerThread", p.bodiesPerThread},
                        {"jSplit", p.jSplit},
                        {"unroll", p.unroll},
                        {"cudaGraphs", p.cudaGraphs},
                        {"used", describeLaunch(k, p, n)}};
    if (k.backend == Backend::Cuda) {
        try {
            const DeviceForceArgs a = deviceForceArgs(k, p, n);
            j["resolved"] = {{"blockSize", a.blockSize},          {"blockRows", a.blockRows},
                             {"tileWidthFactor", a.tileWidthFactor}, {"bodiesPerThread", a.bodiesPerThread},
                             {"jSplit", a.jSplit},                  {"unroll", a.unroll}};
        } catch (const std::exception&) {
            // "used" says why
        }
    }
    return j;
}


/// The kernels to run: "all" = every kernel available here; otherwise each id must be known and
/// available. Throws std::invalid_argument naming the problem.
std::vector<const KernelInfo*> parseKernels(const std::string& list, bool say)
{
    const std::vector<const KernelInfo*> out =
        rowsOfList(kernelRegistry(), list, [](const KernelInfo& k) { return availability(k); }, "kernel", say);
    return out;
}

std::string machineDescription(const CudaRuntimeInfo& cuda)
{
    std::string s = cuda.devices.empty() ? "no CUDA device (" + cuda.whyNone + ")"
                                         : cuda.devices[0].name + " (CUDA driver " +
                                               cudaVersionString(cuda.driverVersion) + ", runtime " +
                                               cudaVersionString(cuda.runtimeVersion) + ")";
    return s + ", " + std::to_string(omp_get_max_threads()) + " OpenMP threads";
}

/// The device the CUDA rows run on and what its ceiling is made of (null without a device).
nlohmann::json deviceJson(const CudaRuntimeInfo& cuda)
{
    if (cuda.devices.empty())
        return nullptr;
    const CudaDeviceInfo& d = cuda.devices[0];
    const PipeLanes lanes = pipeLanes(d.major, d.minor);
    return {{"name", d.name},
            {"computeCapability", std::to_string(d.major) + "." + std::to_string(d.minor)},
            {"multiprocessors", d.multiprocessors},
            {"clockKHz", d.clockKHz},
            {"fp32LanesPerMultiprocessor", lanes.fp32},
            {"fp64LanesPerMultiprocessor", lanes.fp64},
            {"fp32SlotsPerSecond", issueSlotsPerSecond(d, Precision::Fp32)},
            {"fp64SlotsPerSecond", issueSlotsPerSecond(d, Precision::Fp64)}};
}

/// One line of the table: everything the table, the JSON, the CSV and the chart show, from a
/// measurement or from a saved --json file (--from), so both print and plot alike.
struct Row {
    std::string kernel, name, backend, precision, layout;
    std::string method = "all pairs"; ///< toString(ForceMethod): a tree's N²/t is all-pairs equivalent
    std::size_t bodies = 0;
    int flopsPerInteraction = 0;
    int slotsPerInteraction = 0; ///< KernelInfo::slotsPerInteraction (0: not stated)
    double ceiling = 0;          ///< interactions/s (sim/core/Ceiling.h); 0: not defined (CPU rows, no device)
    std::string launch;          ///< describeLaunch()
    nlohmann::json params;       ///< launchJson()
    std::optional<BenchResult> result;
    std::optional<double> perCore; ///< CPU kernels: interactions/s per OpenMP thread (docs/performance.md, The CPU kernel)
    std::string note;            ///< why there is no result (skipped, failed)

    double share() const { return result ? shareOfCeiling(result->interactionsPerSecond, ceiling) : 0; }
    bool tree() const { return method == toString(ForceMethod::Tree); }
};

Row makeRow(const KernelInfo& k, std::size_t n, const SimParams& params, const CudaDeviceInfo* device)
{
    Row r;
    r.kernel = str(k.id);
    r.name = str(k.name);
    r.backend = str(toString(k.backend));
    r.precision = str(toString(k.precision));
    r.layout = str(toString(k.layout));
    r.method = str(toString(k.method));
    r.bodies = n;
    r.flopsPerInteraction = k.flopsPerInteraction;
    r.slotsPerInteraction = k.slotsPerInteraction;
    r.ceiling = device ? interactionCeiling(k, *device) : 0;
    r.launch = describeLaunch(k, params, n);
    r.params = launchJson(k, params, n);
    return r;
}

nlohmann::json toJson(const Row& row)
{
    nlohmann::json j = {{"kernel", row.kernel},
                        {"name", row.name},
                        {"backend", row.backend},
                        {"precision", row.precision},
                        {"layout", row.layout},
                        {"method", row.method},
                        {"bodies", row.bodies},
                        {"params", row.params},
                        {"flopsPerInteraction", row.flopsPerInteraction},
                        {"slotsPerInteraction", row.slotsPerInteraction},
                        {"ceilingInteractionsPerSecond", row.ceiling > 0 ? nlohmann::json(row.ceiling) : nullptr}};
    if (row.result) {
        const BenchResult& r = *row.result;
        j.update({{"samples", r.samples},
                  {"forceMsMedian", r.forceMsMedian},
                  {"forceMsMin", r.forceMsMin},
                  {"stepMsMedian", r.stepMsMedian},
                  {"stepsPerSample", r.stepsPerSample},
                  {"stepInteractionsPerSecond", r.stepMsMedian > 0 ? double(row.bodies) * double(row.bodies) / (r.stepMsMedian * 1e-3) : 0.0},
                  {"interactionsPerSecond", r.interactionsPerSecond},
                  {"allPairsEquivalent", row.tree()},
                  {"bodiesPerSecond", r.bodiesPerSecond},
                  {"gflops", row.tree() ? nlohmann::json(nullptr) : nlohmann::json(r.gflops)},
                  {"shareOfCeiling", row.ceiling > 0 ? nlohmann::json(row.share()) : nullptr},
                  {"timer", r.timer},
                  {"ranks", r.ranks},
                  {"exchangeMsPerStep", r.exchangeMsPerStep},
                  {"exchangeInFlightMsPerStep", r.exchangeInFlightMsPerStep},
                  {"exchangeChunks", r.exchangeChunks},
                  {"exchangeHiddenFraction", r.exchangeHiddenFraction()},
                  {"computeMsPerStep", r.computeMsPerStep}});
        if (row.perCore)
            j["perCore"] = *row.perCore;
    } else {
        j["note"] = row.note;
    }
    return j;
}

/// A row of a saved --json file. Throws std::invalid_argument naming the entry and the field.
Row rowFromJson(const nlohmann::json& j, std::size_t index)
{
    const auto where = "results[" + std::to_string(index) + "]";
    if (!j.is_object())
        throw std::invalid_argument(where + " is not an object");
    try {
        Row r;
        r.kernel = j.at("kernel").get<std::string>();
        r.name = j.value("name", r.kernel);
        r.backend = j.value("backend", std::string());
        r.precision = j.value("precision", std::string());
        r.layout = j.value("layout", std::string());
        r.method = j.value("method", std::string(toString(ForceMethod::AllPairs)));
        r.bodies = j.at("bodies").get<std::size_t>();
        r.flopsPerInteraction = j.value("flopsPerInteraction", 0);
        r.slotsPerInteraction = j.value("slotsPerInteraction", 0);
        if (const auto c = j.find("ceilingInteractionsPerSecond"); c != j.end() && c->is_number())
            r.ceiling = c->get<double>();
        if (const auto p = j.find("params"); p != j.end() && p->is_object()) {
            r.params = *p;
            r.launch = p->value("used", std::string("-"));
        }
        if (j.contains("interactionsPerSecond")) {
            BenchResult b;
            b.kernel = r.kernel;
            b.bodies = r.bodies;
            b.samples = j.value("samples", 0);
            b.forceMsMedian = j.at("forceMsMedian").get<double>();
            b.forceMsMin = j.value("forceMsMin", b.forceMsMedian);
            b.stepMsMedian = j.value("stepMsMedian", 0.0);
            b.interactionsPerSecond = j.at("interactionsPerSecond").get<double>();
            if (const auto g = j.find("gflops"); g != j.end() && g->is_number())
                b.gflops = g->get<double>();
            b.bodiesPerSecond = j.value("bodiesPerSecond", b.forceMsMedian > 0 ? double(r.bodies) / (b.forceMsMedian * 1e-3) : 0.0);
            b.method = r.tree() ? ForceMethod::Tree : ForceMethod::AllPairs;
            b.flopsPerInteraction = r.flopsPerInteraction;
            b.timer = j.value("timer", std::string());
            b.ranks = j.value("ranks", 1); // files from before `mpirun -np P nbody bench`: one process
            b.exchangeMsPerStep = j.value("exchangeMsPerStep", 0.0);
            b.exchangeInFlightMsPerStep = j.value("exchangeInFlightMsPerStep", b.exchangeMsPerStep);
            b.exchangeChunks = j.value("exchangeChunks", b.ranks > 1 ? 1 : 0);
            b.computeMsPerStep = j.value("computeMsPerStep", b.stepMsMedian);
            r.result = b;
            if (const auto pc = j.find("perCore"); pc != j.end() && pc->is_number())
                r.perCore = pc->get<double>();
        } else {
            r.note = j.value("note", std::string("no measurement"));
        }
        return r;
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(where + " (kernel " + j.value("kernel", std::string("?")) + "): " + e.what());
    }
}

/// Per core, under the table (CPU kernels only); `simd`: the SIMD target the `cpu` kernel
/// dispatched to ("" for a saved table).
void printPerCore(const std::vector<Row>& rows, int threads, const std::string& simd)
{
    for (const Row& row : rows)
        if (row.perCore)
            std::printf("per core: %s N=%zu: %.4g interactions/s per OpenMP thread (%d threads%s)\n",
                        row.kernel.c_str(), row.bodies, *row.perCore, threads,
                        row.kernel == "cpu" && !simd.empty() ? (", SIMD target " + simd).c_str() : "");
}

/// Under the table of a shared run: per row, the exchange's chunks, its time in flight per step
/// and the part of it rank 0 waited for (the rest was hidden behind computation).
void printExchange(const std::vector<Row>& rows)
{
    for (const Row& row : rows)
        if (row.result && row.result->ranks > 1) {
            const BenchResult& r = *row.result;
            std::printf("exchange: %s N=%zu: %d %s, %.4f ms in flight per step, %.4f ms of it waiting "
                        "(%.1f %% hidden), %.1f %% of the step time\n",
                        row.kernel.c_str(), row.bodies, r.exchangeChunks,
                        r.exchangeChunks == 1 ? "chunk (MPI_Allgatherv)" : "chunks (MPI_Iallgatherv)",
                        r.exchangeInFlightMsPerStep, r.exchangeMsPerStep, 100.0 * r.exchangeHiddenFraction(),
                        r.stepMsMedian > 0 ? 100.0 * r.exchangeMsPerStep / r.stepMsMedian : 0.0);
        }
}

const char* const kHeaderFormat = "%-26s %-5s %-7s %8s %5s %11s %11s %11s %11s %16s %10s %9s  %-11s %s\n";

void printHeader()
{
    std::printf(kHeaderFormat, "kernel", "prec", "layout", "N", "ranks", "force ms", "step ms", "exchange ms",
                "bodies/s", "interactions/s", "GFLOP/s", "ceiling %", "timer", "params");
}

void printRow(const Row& row)
{
    if (row.result) {
        const BenchResult& r = *row.result;
        char share[32] = "-";
        if (row.ceiling > 0)
            std::snprintf(share, sizeof share, "%.1f", 100 * row.share());
        // A tree row's N²/t is the all-pairs equivalent (marked *), and it claims no GFLOP/s.
        char rate[32], gflops[32] = "-";
        std::snprintf(rate, sizeof rate, row.tree() ? "%.4g*" : "%.4g", r.interactionsPerSecond);
        if (!row.tree())
            std::snprintf(gflops, sizeof gflops, "%.1f", r.gflops);
        // The exchange's share of a step (one process: none, "-").
        char exchange[32] = "-";
        if (r.ranks > 1 || r.exchangeMsPerStep > 0)
            std::snprintf(exchange, sizeof exchange, "%.4f", r.exchangeMsPerStep);
        std::printf("%-26s %-5s %-7s %8zu %5d %11.4f %11.4f %11s %11.4g %16s %10s %9s  %-11s %s\n", row.kernel.c_str(),
                    row.precision.c_str(), row.layout.c_str(), row.bodies, r.ranks, r.forceMsMedian, r.stepMsMedian,
                    exchange, r.bodiesPerSecond, rate, gflops, share, r.timer.c_str(), row.launch.c_str());
    } else {
        std::printf("%-26s %-5s %-7s %8zu  %s\n", row.kernel.c_str(), row.precision.c_str(), row.layout.c_str(),
                    row.bodies, row.note.c_str());
    }
    std::fflush(stdout);
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

std::string csvText(const std::vector<Row>& rows)
{
    std::string csv = "kernel,precision,layout,bodies,samples,force_ms_median,force_ms_min,step_ms_median,"
                      "interactions_per_second,gflops,flops_per_interaction,timer,params,note,"
                      "slots_per_interaction,ceiling_interactions_per_second,share_of_ceiling,per_core,"
                      "method,bodies_per_second,ranks,exchange_ms_per_step,compute_ms_per_step\n";
    char buf[512];
    for (const Row& row : rows) {
        std::snprintf(buf, sizeof buf, "%s,%s,%s,%zu,", row.kernel.c_str(), row.precision.c_str(), row.layout.c_str(),
                      row.bodies);
        csv += buf;
        if (const auto& r = row.result) {
            std::snprintf(buf, sizeof buf, "%d,%.6g,%.6g,%.6g,%.6g,%.6g,", r->samples, r->forceMsMedian,
                          r->forceMsMin, r->stepMsMedian, r->interactionsPerSecond, r->gflops);
            csv += buf;
        } else {
            csv += ",,,,,,"; // skipped or failed: no measurement (not zeros)
        }
        csv += std::to_string(row.flopsPerInteraction) + "," + csvField(row.result ? row.result->timer : std::string()) +
               "," + csvField(row.launch) + "," + csvField(row.note) + ",";
        // The ceiling's fields: empty where it is not defined (CPU rows, no device, no slots).
        csv += row.slotsPerInteraction > 0 ? std::to_string(row.slotsPerInteraction) : std::string();
        csv += ",";
        if (row.ceiling > 0) {
            std::snprintf(buf, sizeof buf, "%.6g,", row.ceiling);
            csv += buf;
            if (row.result) {
                std::snprintf(buf, sizeof buf, "%.6g", row.share());
                csv += buf;
            }
        } else {
            csv += ",";
        }
        csv += ",";
        if (row.perCore) {
            std::snprintf(buf, sizeof buf, "%.6g", *row.perCore);
            csv += buf;
        }
        csv += "," + row.method + ",";
        if (row.result) {
            std::snprintf(buf, sizeof buf, "%.6g,%d,%.6g,%.6g", row.result->bodiesPerSecond, row.result->ranks,
                          row.result->exchangeMsPerStep, row.result->computeMsPerStep);
            csv += buf;
        } else {
            csv += ",,,";
        }
        csv += "\n";
    }
    return csv;
}

/// The chart of the rows: one series per kernel (in the order the kernels first appear), the
/// references, and one ceiling line per precision and slot count that the rows have.
[[maybe_unused]] plot::BenchChart chartOf(const std::vector<Row>& rows, const std::string& device,
                         std::vector<plot::Series> references)
{
    plot::BenchChart chart;
    chart.title = "nbody bench: interactions per second against N" + (device.empty() ? "" : " on " + device);
    std::map<std::string, std::size_t> index;
    for (const Row& row : rows) {
        if (!row.result || !(row.result->interactionsPerSecond > 0))
            continue;
        auto [it, added] = index.try_emplace(row.kernel, chart.kernels.size());
        if (added)
            chart.kernels.push_back({row.kernel + " (" + row.precision + (row.tree() ? ", tree: all-pairs equivalent N^2/t)" : ")"), {}});
        chart.kernels[it->second].points.push_back({double(row.bodies), row.result->interactionsPerSecond});
    }
    std::map<std::pair<std::string, double>, bool> seen;
    for (const Row& row : rows) {
        if (row.ceiling > 0 && !seen[{row.precision, row.ceiling}]) {
            seen[{row.precision, row.ceiling}] = true;
            char label[160];
            std::snprintf(label, sizeof label, "%s ceiling, %d slots/interaction: %.3g/s", row.precision.c_str(),
                          row.slotsPerInteraction, row.ceiling);
            chart.ceilings.push_back({label, row.ceiling});
        }
    }
    chart.references = std::move(references);
    return chart;
}

/// Writes --json, --csv and --plot. Throws (WriteError, std::invalid_argument, …).
void writeOutputs(const BenchOptions& o, const std::vector<Row>& rows, nlohmann::json header,
                  const std::vector<plot::Series>& references)
{
    writeBenchTables(o.json, o.csv, rows, header); // header is read again for the plot below
    if (!o.plot.empty()) {
#if NBODY_HAVE_PLOT
        std::string device;
        if (header.contains("device") && header["device"].is_object()) {
            device = header["device"].value("name", std::string());
        } else if (const std::string m = header.value("machine", std::string()); m.rfind("no CUDA device", 0) != 0) {
            device = m.substr(0, m.find(" (CUDA driver")); // a file from before "device" was written
        }
        plot::writeBenchChart(chartOf(rows, device, references), o.plot);
        std::fprintf(stderr, "bench: wrote %s\n", o.plot.c_str());
#else
        (void)references;
#endif
    }
}

constexpr const char* kNoPlot = "this nbody was built without plotting (NBODY_BUILD_PLOT=OFF); write --json "
                                "and re-plot with --from on a build that has it";

/// Checks the options shared by measuring and --from. Throws std::invalid_argument.
std::vector<plot::Series> checkOutputs(const BenchOptions& o)
{
    if (!o.plot.empty()) {
        if (!NBODY_HAVE_PLOT)
            throw std::invalid_argument(kNoPlot);
        if (!plot::isChartPath(o.plot))
            throw std::invalid_argument("--plot '" + o.plot + "': the name must end in .png or .svg");
    }
    if (!o.reference.empty() && o.plot.empty())
        throw std::invalid_argument("--reference needs --plot (it adds series to the chart)");
    for (const std::string& path : {o.json, o.csv, o.plot})
        if (!path.empty())
            if (const WriteTarget t = resolveWriteTarget(path); !t.problem.empty())
                throw std::invalid_argument("cannot write '" + path + "': " + t.problem);
    return o.reference.empty() ? std::vector<plot::Series>{} : readReferenceCsv(o.reference);
}

/// `nbody bench --from FILE.json`: the saved table printed again, and written or plotted as asked.
int replayCommand(const BenchOptions& o)
{
    std::vector<Row> rows;
    nlohmann::json saved;
    std::vector<plot::Series> references;
    try {
        references = checkOutputs(o);
        std::ifstream in(o.from);
        if (!in)
            throw std::invalid_argument("--from '" + o.from + "': cannot read it");
        try {
            in >> saved;
        } catch (const nlohmann::json::exception& e) {
            throw std::invalid_argument("--from '" + o.from + "': not JSON (" + e.what() + ")");
        }
        if (!saved.is_object() || !saved.contains("results") || !saved["results"].is_array())
            throw std::invalid_argument("--from '" + o.from + "': not a `nbody bench --json` file (no results array)");
        for (std::size_t i = 0; i < saved["results"].size(); ++i)
            rows.push_back(rowFromJson(saved["results"][i], i));
    } catch (const std::invalid_argument& e) {
        std::cerr << "nbody bench: " << e.what() << "\n";
        return 2;
    }
    std::printf("Benchmark: %s (saved; not measured again)\n", o.from.c_str());
    std::printf("Machine:   %s\n\n", saved.value("machine", std::string("?")).c_str());
    printHeader();
    for (const Row& row : rows)
        printRow(row);
    printPerCore(rows, saved.value("threads", 0), {});
    printExchange(rows);
    try {
        saved.erase("results");
        writeOutputs(o, rows, saved, references);
    } catch (const std::exception& e) {
        std::cerr << "nbody bench: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

/// One case of the sweep: row k at n bodies, skipped when its predicted time exceeds the budget
/// (from `last`, the kernel's previous case that ran, or a probe evaluation), tuned first where the
/// tuner may, then measured. Updates `last` and sets `failed` when the measurement failed on this
/// process alone (under mpirun a failure is thrown, so that every process stops).
Row benchCase(const BenchOptions& o, const KernelInfo* k, std::size_t n, const SimParams& params, ForceShare* share,
              const CudaDeviceInfo* device, std::optional<EvaluationTiming>& last, std::size_t index, std::size_t total,
              bool& failed)
{
    const bool root = writesOutputs();
    const int ranks = share ? share->processes() : 1;
    // A case makes warm-up evaluations, one untimed step and at least one sample (an evaluation
    // and a step): about warmup + 3 evaluations.
    const int caseEvaluations = o.warmup + 3;
    const std::size_t limit = budgetProbeLimit(k->backend, device ? device->multiprocessors : 0);
    // One force evaluation at n after an untimed one (module load, allocation), for the
    // budget's prediction (sim/perf/Benchmark.h, predictCase).
    const auto probe = [&](std::size_t m) { return timeForceEvaluation(*k, m, params, o.seed, o.scenario, share); };
    Row row = makeRow(*k, n, params, device);
    // A case whose predicted time exceeds the budget is skipped rather than left running
    // for minutes (the CPU kernels at large N).
    std::string basis; // the measured basis of the prediction, printed with the case
    try {
        const CasePrediction p = predictCase(n, caseEvaluations, o.budgetSeconds, limit, last, probe, k->method);
        row.note = budgetSkipNote(p, o.budgetSeconds, k->method);
        basis = predictionBasis(p, k->method);
    } catch (const std::exception&) {
        if (share)
            throw; // another process may have failed: every process stops (main())
        // no prediction: the case itself will report the problem
    }
    // The tuner runs on rank 0 alone (its own single-process timings); rank 0's resolved
    // launch parameters then go to every process (shareLaunchParameters).
    if (root && row.note.empty() && !o.noTune && tunable(*k, params)) {
        try { // once per device, kernel and N bucket (sim/perf/Tuner.h); the table stays on stdout
            const TuneOutcome t = ensureTuned(*k, params, n, [](const std::string& s) { std::fputs(s.c_str(), stderr); });
            if (t.ran)
                std::fputs("\n", stderr);
            if (!t.warning.empty())
                printNote("bench", t.warning);
        } catch (const std::exception& e) {
            std::fputc('\n', stderr); // after the progress on stderr
            printNote("bench", std::string("tuning failed (") + e.what() + "); the defaults are used");
        }
        // What ran is what the tuner chose: resolve the row's launch again.
        row.launch = describeLaunch(*k, params, n);
        row.params = launchJson(*k, params, n);
    }
    if (row.note.empty()) {
        if (root)
            std::fprintf(stderr, "bench [%zu/%zu] %s N=%zu%s ...\n", index, total, str(k->id).c_str(), n,
                         basis.empty() ? "" : (" (" + basis + ")").c_str());
        BenchCase c;
        c.kernel = str(k->id);
        c.bodies = n;
        c.seed = o.seed;
        c.scenario = o.scenario;
        c.params = params;
        c.share = share;
        shareLaunchParameters(*k, c.params, n); // a no-op for one process and CPU rows
        c.samples = o.steps;
        c.warmup = o.warmup;
        c.budgetSeconds = o.budgetSeconds;
        try {
            row.result = runBenchmark(c, [root](const std::string& s) {
                if (root)
                    std::fprintf(stderr, "%s\n", s.c_str());
            });
            // The next N's prediction starts here: the slowest process's time, the same everywhere.
            last = EvaluationTiming{n, share ? share->agree(row.result->forceMsMedian) : row.result->forceMsMedian};
            if (k->backend == Backend::Cpu && k->method == ForceMethod::AllPairs)
                row.perCore = row.result->interactionsPerSecond /
                              double(std::max(1, omp_get_max_threads()) * ranks);
        } catch (const std::exception& e) {
            if (share)
                throw; // a failure on one process stops all of them with its message (main())
            row.note = std::string("failed: ") + e.what();
            failed = true;
        }
    }
    return row;
}

/// The lines above the table: the system, the machine, the MPI share, the θ a force accuracy
/// picks for each tree row (for the largest N of the sweep, `largest`), and how interactions are
/// counted.
void printBenchPreamble(const BenchOptions& o, const std::string& machine, int ranks, const SimParams& params,
                        const std::vector<const KernelInfo*>& kernels, std::size_t largest)
{
    mpi::Session* const session = distributedSession();
    const std::string system = o.scenario.empty() ? std::string("uniform cube") : "scenario " + o.scenario;
    std::printf("Benchmark: %s (seed %llu), %d timed samples after %d warm-up evaluations per kernel and N\n",
                system.c_str(), static_cast<unsigned long long>(o.seed), o.steps, o.warmup);
    std::printf("Machine:   %s\n", machine.c_str());
    if (session)
        std::printf("MPI:       %s; every force evaluation shared by the %d processes (each its N/%d rows, then "
                    "MPI_Allgatherv, or MPI_Iallgatherv of chunks while the next is computed): force and step times "
                    "include the exchange, `exchange ms` is rank 0's time per step held up by it (waiting for slower "
                    "ranks included)\n",
                    session->describe().c_str(), ranks, ranks);
    for (const KernelInfo* k : kernels) // the targets were checked against every row before
        if (const std::string note = forceAccuracyNote(*k, params, largest); !note.empty())
            std::printf("Accuracy:  %s\n", note.c_str());
    std::printf("Counting:  N^2 interactions per force evaluation (as NVIDIA's nbody sample); 20 flops per "
                "interaction in fp32, 30 in fp64; ceiling %% = interactions/s over SMs x lanes x clock / slots per "
                "interaction (docs/performance.md); bodies/s = N / force time. Tree rows (*): N^2/t is the "
                "all-pairs-equivalent rate only (their work is O(N log N); no GFLOP/s claimed): compare times and bodies/s\n\n");
    printHeader();
}

/// Writes --json, --csv and --plot (rank 0): the rows with the machine, device and system header.
/// 0, or 1 after the message when a write failed.
int writeBenchOutputs(const BenchOptions& o, const std::vector<Row>& rows, const std::string& machine,
                      const CudaRuntimeInfo& cuda, int ranks, const std::vector<plot::Series>& references)
{
    mpi::Session* const session = distributedSession();
    try {
        nlohmann::json header;
        header["machine"] = machine;
        header["threads"] = omp_get_max_threads() * ranks; // OpenMP threads of all processes
        header["ranks"] = ranks;
        if (session)
            header["mpi"] = session->describe();
        header["device"] = deviceJson(cuda);
        header["system"] = {{"scenario", o.scenario.empty() ? std::string("uniform cube") : o.scenario}, {"seed", o.seed}};
        header["samples"] = o.steps;
        header["warmup"] = o.warmup;
        header["counting"] = "N^2 interactions per force evaluation; 20 flops per interaction (fp32), 30 (fp64); "
                             "ceiling = SMs x lanes per SM x clock / slots per interaction; tree rows: N^2/t is the "
                             "all-pairs equivalent (allPairsEquivalent), bodiesPerSecond = N/t";
        writeOutputs(o, rows, std::move(header), references);
    } catch (const std::exception& e) {
        std::cerr << "nbody bench: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

} // namespace

std::string benchMachineDescription() { return machineDescription(queryCuda()); }

int benchCommand(const BenchOptions& o)
{
    if (o.contacts)
        return contactBenchCommand(o);
    if (!o.from.empty())
        return writesOutputs() ? replayCommand(o) : 0; // reading a file: rank 0 alone
    // Several processes (mpirun -np P): every process runs every case, its rows of each force
    // evaluation; rank 0 prints and writes. One process is the case P = 1 without a share.
    mpi::Session* const session = distributedSession();
    ForceShare* const share = session ? session->share() : nullptr;
    const bool root = writesOutputs();
    const int ranks = share ? share->processes() : 1;
    std::vector<std::size_t> bodies;
    std::vector<const KernelInfo*> kernels;
    std::vector<plot::Series> references;
    SimParams params;
    applyLaunchOptions(o.launch, params);
    params.G = o.G;
    params.cudaGraphs = o.cudaGraphs;
    try {
        if (!std::isfinite(o.budgetSeconds) || !(o.budgetSeconds > 0))
            throw std::invalid_argument("--budget must be a positive number of seconds");
        bodies = parseBodyList(o.bodies);
        kernels = parseKernels(o.kernels, root);
        if (!o.scenario.empty() && !findScenario(o.scenario))
            throw std::invalid_argument("--scenario: unknown scenario '" + o.scenario + "' (known: " + knownScenarioIds() + ")");
        // Launch parameters are checked against every selected kernel before anything runs.
        World one;
        one.addBody({0, 0, 0, 1}, {});
        for (const KernelInfo* k : kernels) {
            Simulation probe(one, params, "cpu");
            probe.setKernel(k->id);
        }
        references = checkOutputs(o);
    } catch (const std::invalid_argument& e) {
        std::cerr << "nbody bench: " << e.what() << "\n";
        return 2;
    }
    if (kernels.empty()) {
        std::cerr << "nbody bench: no kernel is available here\n";
        return 2;
    }

    if (root)
        printIgnoredOptionNotes("bench", kernels, params, {&o.launch.params});

    const CudaRuntimeInfo cuda = queryCuda();
    const CudaDeviceInfo* device = cuda.devices.empty() ? nullptr : &cuda.devices[0];
    const std::string machine = machineDescription(cuda);
    printBenchPreamble(o, machine, ranks, params, kernels, *std::max_element(bodies.begin(), bodies.end()));

    std::vector<Row> rows;
    bool failed = false;
    const std::size_t total = kernels.size() * bodies.size();
    std::size_t index = 0;
    for (const KernelInfo* k : kernels) {
        std::optional<EvaluationTiming> last; // the last case of this kernel that ran
        for (std::size_t n : bodies) {
            Row row = benchCase(o, k, n, params, share, device, last, ++index, total, failed);
            printRow(row);
            rows.push_back(std::move(row));
        }
    }

    printPerCore(rows, omp_get_max_threads() * ranks, cpuSimdTargetName(cpuSimdTarget()));
    printExchange(rows);
    if (!root)
        return failed ? 1 : 0;

    if (const int rc = writeBenchOutputs(o, rows, machine, cuda, ranks, references); rc != 0)
        return rc;
    return failed ? 1 : 0;
}

} // namespace nbody::cli
