// `nbody bench --contacts`: the contact-search rows (sim/collide/Collisions.h) × N, measured by
// sim/perf/ContactBenchmark.h, printed and optionally written as JSON and CSV.
#include "Commands.h"
#include "DistributedSystem.h"

#include "sim/base/AtomicFile.h"
#include "sim/perf/Benchmark.h"
#include "sim/collide/Collisions.h"
#include "sim/perf/ContactBenchmark.h"
#include "sim/collide/ContactHost.h"
#include "BenchTables.h"
#include "RowList.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>

namespace nbody::cli {

namespace {

std::string str(std::string_view s) { return std::string(s); }

/// The rows to run: "all" = every contact search available here; otherwise each id must be
/// known and available. Throws std::invalid_argument naming the problem.
std::vector<const ContactSearchInfo*> parseSearches(const std::string& list)
{
    return rowsOfList(contactSearches(), list, [](const ContactSearchInfo& r) { return contactSearchAvailability(r); },
                      "contact search", true);
}

struct Row {
    const ContactSearchInfo* search = nullptr;
    std::size_t bodies = 0;
    std::optional<ContactBenchResult> result;
    std::string note; ///< why there is no result

    /// The all-pairs rate is only an equivalent where the row made fewer tests than N(N−1)/2
    /// (or does not say how many it made).
    bool equivalent() const
    {
        const double all = double(bodies) * double(bodies - 1) / 2;
        return !result || result->candidates < 0 || double(result->candidates) < all;
    }
};

const char* const kHeader = "%-12s %-5s %8s %10s %11s %8s %10s %10s %15s %13s %15s\n";

void printHeader()
{
    std::printf(kHeader, "search", "backend", "N", "r0", "pairs", "pairs/N", "ms median", "ms min", "pair tests/s",
                "candidates", "candidates/s");
}

void printRow(const Row& row)
{
    const std::string id = str(row.search->id);
    const std::string backend = str(toString(row.search->backend));
    if (!row.result) {
        std::printf("%-12s %-5s %8zu  %s\n", id.c_str(), backend.c_str(), row.bodies, row.note.c_str());
        std::fflush(stdout);
        return;
    }
    const ContactBenchResult& r = *row.result;
    char rate[32], candidates[32] = "-", candidateRate[32] = "-";
    std::snprintf(rate, sizeof rate, row.equivalent() ? "%.4g*" : "%.4g", r.allPairsTestsPerSecond);
    if (r.candidates >= 0) {
        std::snprintf(candidates, sizeof candidates, "%lld", static_cast<long long>(r.candidates));
        std::snprintf(candidateRate, sizeof candidateRate, "%.4g", r.candidateTestsPerSecond);
    }
    std::printf("%-12s %-5s %8zu %10.4g %11llu %8.3f %10.4f %10.4f %15s %13s %15s\n", id.c_str(), backend.c_str(),
                r.bodies, r.r0, static_cast<unsigned long long>(r.pairs), double(r.pairs) / double(r.bodies),
                r.msMedian, r.msMin, rate, candidates, candidateRate);
    std::fflush(stdout);
}

nlohmann::json toJson(const Row& row)
{
    nlohmann::json j = {{"search", str(row.search->id)},
                        {"name", str(row.search->name)},
                        {"backend", str(toString(row.search->backend))},
                        {"bodies", row.bodies}};
    if (!row.result) {
        j["note"] = row.note;
        return j;
    }
    const ContactBenchResult& r = *row.result;
    j.update({{"r0", r.r0},
              {"samples", r.samples},
              {"msMedian", r.msMedian},
              {"msMin", r.msMin},
              {"pairs", r.pairs},
              {"candidates", r.candidates >= 0 ? nlohmann::json(r.candidates) : nlohmann::json(nullptr)},
              {"pairTestsPerSecond", r.allPairsTestsPerSecond},
              {"allPairsEquivalent", row.equivalent()},
              {"candidateTestsPerSecond",
               r.candidates >= 0 ? nlohmann::json(r.candidateTestsPerSecond) : nlohmann::json(nullptr)}});
    return j;
}

std::string csvText(const std::vector<Row>& rows)
{
    std::string csv = "search,backend,bodies,r0,samples,ms_median,ms_min,pairs,candidates,pair_tests_per_second,"
                      "all_pairs_equivalent,candidate_tests_per_second,note\n";
    char buf[512];
    for (const Row& row : rows) {
        const std::string id = str(row.search->id), backend = str(toString(row.search->backend));
        if (row.result) {
            const ContactBenchResult& r = *row.result;
            std::snprintf(buf, sizeof buf, "%s,%s,%zu,%.9g,%d,%.6f,%.6f,%llu,%s,%.6g,%d,%s,\n", id.c_str(),
                          backend.c_str(), row.bodies, r.r0, r.samples, r.msMedian, r.msMin,
                          static_cast<unsigned long long>(r.pairs),
                          r.candidates >= 0 ? std::to_string(r.candidates).c_str() : "",
                          r.allPairsTestsPerSecond, row.equivalent() ? 1 : 0,
                          r.candidates >= 0 ? std::to_string(r.candidateTestsPerSecond).c_str() : "");
            csv += buf;
        } else {
            std::string note = row.note;
            for (char& c : note)
                if (c == ',' || c == '"' || c == '\n')
                    c = ';';
            std::snprintf(buf, sizeof buf, "%s,%s,%zu,,,,,,,,,,", id.c_str(), backend.c_str(), row.bodies);
            csv += buf + note + "\n";
        }
    }
    return csv;
}

/// One case: the search at n bodies, skipped when its predicted time exceeds the budget (from
/// `last`, the search's previous case that ran, or a probe), else measured. Updates `last`; sets
/// `failed` when the measurement failed.
Row contactCase(const BenchOptions& o, const ContactSearchInfo* search, std::size_t n,
                std::optional<EvaluationTiming>& last, std::size_t index, std::size_t total, bool& failed)
{
    const auto probe = [&](std::size_t m) { return timeContactSearch(*search, m, o.seed, o.contactsPerBody); };
    Row row;
    row.search = search;
    row.bodies = n;
    // Skipped when predicted over the budget: probes at growing N scaled as N² (an upper
    // bound for every search; sim/perf/Benchmark.h, predictCase).
    try {
        const CasePrediction p = predictCase(n, o.warmup + 1, o.budgetSeconds, n, last, probe);
        row.note = budgetSkipNote(p, o.budgetSeconds);
    } catch (const std::exception&) {
        // no prediction: the case itself reports the problem
    }
    if (row.note.empty()) {
        std::fprintf(stderr, "bench [%zu/%zu] %s N=%zu ...\n", index, total, str(search->id).c_str(), n);
        ContactBenchCase c;
        c.search = str(search->id);
        c.bodies = n;
        c.seed = o.seed;
        c.contactsPerBody = o.contactsPerBody;
        c.samples = o.steps;
        c.warmup = o.warmup;
        c.budgetSeconds = o.budgetSeconds;
        try {
            row.result = runContactBenchmark(c, [](const std::string& s) { std::fprintf(stderr, "%s\n", s.c_str()); });
            last = EvaluationTiming{n, row.result->msMedian};
        } catch (const std::exception& e) {
            row.note = std::string("failed: ") + e.what();
            failed = true;
        }
    }
    return row;
}

/// Writes --json and --csv: the rows with the machine and system header. 0, or 1 after the message.
int writeContactTables(const BenchOptions& o, const std::vector<Row>& rows, const std::string& machine)
{
    try {
        nlohmann::json j;
        if (!o.json.empty()) {
            j["machine"] = machine;
            j["system"] = {{"cube", "[-1, 1]^3"}, {"seed", o.seed}, {"contactsPerBody", o.contactsPerBody},
                           {"radii", "uniform in [r0/2, 3 r0/2]"}};
            j["samples"] = o.steps;
            j["warmup"] = o.warmup;
            j["counting"] = "pairTestsPerSecond = N(N-1)/2 / msMedian (allPairsEquivalent: the search made fewer "
                            "tests); candidateTestsPerSecond = the pair tests j > i made / msMedian; msMedian = the "
                            "whole search, wall clock, the copy of the pairs to the host included";
        }
        writeBenchTables(o.json, o.csv, rows, std::move(j));
    } catch (const std::exception& e) {
        std::cerr << "nbody bench: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

} // namespace

int contactBenchCommand(const BenchOptions& o)
{
    if (const mpi::Session* s = distributedSession(); s && s->size() > 1) {
        std::cerr << "nbody bench --contacts: runs as one process: start it without mpirun\n";
        return 2;
    }
    std::vector<std::size_t> bodies;
    std::vector<const ContactSearchInfo*> searches;
    try {
        if (!std::isfinite(o.budgetSeconds) || !(o.budgetSeconds > 0))
            throw std::invalid_argument("--budget must be a positive number of seconds");
        if (!(o.contactsPerBody > 0) || !std::isfinite(o.contactsPerBody))
            throw std::invalid_argument("--contacts-per-body must be a positive number");
        bodies = parseBodyList(o.bodiesGiven ? o.bodies : std::string(kContactBenchBodies));
        searches = parseSearches(o.kernels);
        for (const std::string& path : {o.json, o.csv})
            if (!path.empty())
                if (const WriteTarget t = resolveWriteTarget(path); !t.problem.empty())
                    throw std::invalid_argument("cannot write '" + path + "': " + t.problem);
    } catch (const std::invalid_argument& e) {
        std::cerr << "nbody bench: " << e.what() << "\n";
        return 2;
    }
    if (searches.empty()) {
        std::cerr << "nbody bench: no contact search is available here\n";
        return 2;
    }

    const std::string machine = benchMachineDescription();
    std::printf("Contact search benchmark: uniform cube [-1, 1]^3 (seed %llu), radii uniform in [r0/2, 3 r0/2] for "
                "%g touching neighbours a body; %d timed searches after %d warm-up searches per search and N\n",
                static_cast<unsigned long long>(o.seed), o.contactsPerBody, o.steps, o.warmup);
    std::printf("Machine:   %s\n", machine.c_str());
    std::printf("Counting:  pair tests/s = N(N-1)/2 / t for every search, t = the median whole search (wall clock; "
                "the copy of the pairs to the host included); * = an all-pairs-equivalent rate (the search made fewer "
                "tests: cell lists); candidates/s = the pair tests j > i the search really made / t\n\n");
    printHeader();

    std::vector<Row> rows;
    bool failed = false;
    const std::size_t total = searches.size() * bodies.size();
    std::size_t index = 0;
    for (const ContactSearchInfo* search : searches) {
        std::optional<EvaluationTiming> last;
        for (std::size_t n : bodies) {
            Row row = contactCase(o, search, n, last, ++index, total, failed);
            printRow(row);
            rows.push_back(std::move(row));
        }
    }

    try {
        releaseContactSearchWorkspace();
    } catch (const std::exception& e) {
        printNote("bench", std::string("freeing the contact search's device workspace failed: ") + e.what());
        failed = true;
    }
    if (const int rc = writeContactTables(o, rows, machine); rc != 0)
        return rc;
    return failed ? 1 : 0;
}

} // namespace nbody::cli
