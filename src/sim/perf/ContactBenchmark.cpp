#include "sim/perf/ContactBenchmark.h"
#include "sim/perf/Benchmark.h" // median
#include "sim/collide/Collisions.h"
#include "sim/collide/ContactHost.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace nbody {

namespace {

const ContactSearchInfo& availableRow(const std::string& id)
{
    const ContactSearchInfo* row = findContactSearch(id);
    if (!row)
        throw std::invalid_argument("unknown contact search '" + id + "'");
    if (const Availability a = contactSearchAvailability(*row); !a.available)
        throw std::invalid_argument("contact search '" + id + "' is not available here: " + a.reason);
    return *row;
}

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

double timeContactSearch(const ContactSearchInfo& row, std::size_t n, std::uint64_t seed, double contactsPerBody)
{
    const ContactBenchSystem s = makeContactBenchSystem(n, seed, contactsPerBody);
    const ContactColumns columns(row, s.position, s.radius);
    (void)columns.find(); // untimed: workspace, module load
    const auto t0 = std::chrono::steady_clock::now();
    (void)columns.find();
    return msSince(t0);
}

ContactBenchResult runContactBenchmark(const ContactBenchCase& c, const std::function<void(const std::string&)>& progress)
{
    if (c.samples < 1 || c.warmup < 1)
        throw std::invalid_argument("contact benchmark: samples and warm-up searches must be at least 1");
    const ContactSearchInfo& row = availableRow(c.search);
    const ContactBenchSystem s = makeContactBenchSystem(c.bodies, c.seed, c.contactsPerBody);
    const ContactColumns columns(row, s.position, s.radius);

    std::size_t pairs = 0;
    double warmMs = 0;
    for (int i = 0; i < c.warmup; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        pairs = columns.find().size();
        warmMs = msSince(t0);
    }
    int samples = c.samples;
    if (warmMs > 0)
        samples = int(std::clamp(std::floor(c.budgetSeconds * 1e3 / warmMs), 1.0, double(c.samples)));
    if (samples < c.samples && progress)
        progress("  " + std::to_string(samples) + " of " + std::to_string(c.samples) + " samples fit the time budget");

    std::vector<double> ms;
    std::int64_t candidates = -1;
    for (int i = 0; i < samples; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const std::size_t found = columns.find().size();
        ms.push_back(msSince(t0));
        candidates = lastCandidateTests(row, c.bodies);
        if (found != pairs)
            throw std::logic_error("contact search '" + c.search + "' found " + std::to_string(found) + " pairs, then " +
                                   std::to_string(pairs) + " in the same system");
    }

    ContactBenchResult r;
    r.search = c.search;
    r.bodies = c.bodies;
    r.samples = samples;
    r.msMedian = median(ms);
    r.msMin = *std::min_element(ms.begin(), ms.end());
    r.pairs = pairs;
    r.candidates = candidates;
    r.r0 = s.r0;
    const double seconds = r.msMedian * 1e-3;
    const double n = double(c.bodies);
    if (seconds > 0) {
        r.allPairsTestsPerSecond = n * (n - 1) / 2 / seconds;
        r.candidateTestsPerSecond = candidates >= 0 ? double(candidates) / seconds : 0;
    }
    return r;
}

} // namespace nbody
