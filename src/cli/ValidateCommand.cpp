// `nbody validate`: kernels against the fp64 reference, the summary table and the report.
#include "ValidateCommand.h"
#include "DistributedSystem.h"

#include "sim/base/AtomicFile.h"
#include "sim/base/Format.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/Simulation.h"
#include "sim/validate/Validation.h"
#include "sim/validate/ValidationReport.h"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <iostream>

namespace nbody::cli {

namespace {

/// The kernels named by --kernel (ids and "all", repeatable, comma-separated), in the order
/// given, each once. Throws std::invalid_argument for an unknown id or an explicitly named
/// kernel that cannot run here.
std::vector<const KernelInfo*> selectKernels(const std::vector<std::string>& names)
{
    std::vector<const KernelInfo*> out;
    const auto add = [&](const KernelInfo* k) {
        if (std::find(out.begin(), out.end(), k) == out.end())
            out.push_back(k);
    };
    for (const std::string& name : names) {
        if (name == "all") {
            for (const KernelInfo* k : availableKernelsToValidate())
                add(k);
            continue;
        }
        const KernelInfo* k = findKernel(name);
        if (!k) {
            std::string known;
            for (const KernelInfo& r : kernelRegistry())
                known += (known.empty() ? "" : ", ") + std::string(r.id);
            throw std::invalid_argument("unknown kernel '" + name + "' (known: " + known + ", or all)");
        }
        if (const Availability a = availability(*k); !a.available)
            throw std::invalid_argument("kernel '" + name + "' cannot run here: " + a.reason);
        add(k);
    }
    if (out.empty())
        throw std::invalid_argument("--kernel: no kernel given");
    return out;
}

/// "0.4 s", "40 s", "8 min", "1.5 h".
std::string durationText(double seconds)
{
    return seconds < 10     ? formatString("%.1f s", seconds)
           : seconds < 120  ? formatString("%.0f s", seconds)
           : seconds < 7200 ? formatString("%.0f min", seconds / 60)
                            : formatString("%.2g h", seconds / 3600);
}

/// The run's progress on stderr: on a terminal one line rewritten in place (at most every
/// 0.2 s); elsewhere (a pipe, a log file, a CI job) a plain line at every tenth of the run, so a
/// long validation says how far it is wherever its output goes.
class ProgressLine {
public:
    explicit ProgressLine(bool enabled)
        : m_enabled(enabled), m_terminal(::isatty(STDERR_FILENO)), m_start(std::chrono::steady_clock::now())
    {
    }
    ~ProgressLine() { finish(); }

    void operator()(const ValidationProgress& p)
    {
        if (!m_enabled)
            return;
        const auto now = std::chrono::steady_clock::now();
        if (!m_terminal) {
            const int tenth = int(p.fraction() * 10 + 1e-9);
            if (tenth <= m_lastTenth || p.step == 0)
                return;
            m_lastTenth = tenth;
            const double elapsed = std::chrono::duration<double>(now - m_start).count();
            std::fprintf(stderr, "nbody validate: %3d %%  step %llu / %llu  %s, %s so far\n", 10 * tenth,
                         static_cast<unsigned long long>(p.step), static_cast<unsigned long long>(p.steps),
                         p.phase.c_str(), durationText(elapsed).c_str());
            std::fflush(stderr);
            return;
        }
        if (m_shown && now - m_last < std::chrono::milliseconds(200) && p.step < p.steps)
            return;
        m_last = now;
        m_shown = true;
        const int width = 30;
        const int filled = int(p.fraction() * width + 0.5);
        std::fprintf(stderr, "\rvalidate [%s%s] %3d %%  step %llu / %llu  %-14s", std::string(filled, '#').c_str(),
                     std::string(width - filled, '.').c_str(), int(p.fraction() * 100 + 0.5),
                     static_cast<unsigned long long>(p.step), static_cast<unsigned long long>(p.steps),
                     p.phase.c_str());
        std::fflush(stderr);
    }

    void finish()
    {
        if (m_enabled && m_terminal && m_shown) {
            std::fputc('\n', stderr);
            m_shown = false;
        }
    }

private:
    bool m_enabled;
    bool m_terminal;
    bool m_shown = false;
    int m_lastTenth = 0;
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_last;
};

/// The kernels to validate (--kernels), with every --report target checked before the run.
/// Throws std::invalid_argument naming what is refused.
std::vector<const KernelInfo*> selectValidation(const ValidateOptions& o)
{
    std::vector<const KernelInfo*> kernels = selectKernels(o.kernels);
    for (const std::string& path : o.reports) {
        if (path.empty())
            throw std::invalid_argument("--report needs a file name");
        if (!validationReportFormat(path))
            throw std::invalid_argument("--report '" + path + "': give a name ending in .json or .html (.htm)");
        if (const WriteTarget t = resolveWriteTarget(path); !t.problem.empty())
            throw std::invalid_argument("cannot write the report '" + path + "': " + t.problem);
    }
    return kernels;
}

/// The sampled check's steps: --steps when given, else 10 (its runs measure only their own energy
/// and momentum, which a short run shows).
std::uint64_t sampledSteps(const ValidateOptions& o)
{
    return o.stepsGiven ? o.steps : 10;
}

/// Whether the validation of n bodies fits --budget (the fp64 reference on the CPU predicts it),
/// and in which mode: --reference full or sampled as given; auto takes the full run when its
/// prediction fits, else the sampled check (the step-0 forces on --sample bodies against all N,
/// each kernel's own energy over a short run) when that fits. Sets *referenceRun and says why
/// not on stderr. With `announce` (the system's real N, just before the run) it says the mode
/// and the predicted time on stderr when the run fits, so a long run is no surprise. Processes
/// other than rank 0 never refuse (rank 0 decides for all) and say nothing; with several
/// processes auto is full, since every process must take the same mode.
bool withinValidationBudget(const ValidateOptions& o, std::size_t n, const std::vector<const KernelInfo*>& kernels,
                            bool announce, bool* referenceRun)
{
    const bool onGpu = sampledReferenceOnGpu();
    const auto full = [&] { return estimateValidationSeconds(n, o.steps, o.checkpoints, kernels); };
    const auto sampled = [&] {
        return estimateValidationSeconds(n, sampledSteps(o), 1, kernels, false, o.sample, onGpu);
    };
    double predicted = 0;
    if (o.reference == "full" || (o.reference == "auto" && distributedSession())) {
        *referenceRun = true;
        predicted = writesOutputs() ? full() : 0;
    } else if (o.reference == "sampled") {
        *referenceRun = false;
        predicted = writesOutputs() ? sampled() : 0;
    } else { // auto, one process
        predicted = full();
        *referenceRun = predicted <= o.budget;
        if (!*referenceRun)
            predicted = sampled();
    }
    if (!writesOutputs())
        return true;
    if (predicted <= o.budget) {
        if (announce && *referenceRun)
            std::fprintf(stderr,
                         "nbody validate: %s, %s, %s and the fp64 reference: about %s here "
                         "(predicted from the CPU's fp64 rate; --budget %g s)%s\n",
                         bodyCount(n).c_str(), stepCount(o.steps).c_str(),
                         countOf(kernels.size(), "kernel", "kernels").c_str(),
                         durationText(predicted).c_str(), o.budget,
                         o.quiet ? "" : "; progress follows on stderr");
        else if (announce)
            std::fprintf(stderr,
                         "nbody validate: %s: the sampled check (--reference sampled%s): the step-0 forces of "
                         "%s against all N in fp64 on %s, then %s of each of %s with its own "
                         "energy and momentum: about %s here (the GPU's share not counted; --budget %g s)%s\n",
                         bodyCount(n).c_str(), o.reference == "auto" ? ", as the full run would exceed --budget" : "",
                         bodyCount(std::min(o.sample, n)).c_str(), onGpu ? "the GPU" : "the CPU",
                         stepCount(sampledSteps(o)).c_str(), countOf(kernels.size(), "kernel", "kernels").c_str(),
                         durationText(predicted).c_str(), o.budget,
                         o.quiet ? "" : "; progress follows on stderr");
        return true;
    }
    if (*referenceRun)
        std::cerr << "nbody validate: " << bodyCount(n) << " for " << stepCount(o.steps) << " would take about "
                  << durationText(predicted)
                  << " here (the fp64 reference on the CPU evaluates N^2 interactions per step), over --budget "
                  << formatString("%g", o.budget)
                  << " s: use fewer --bodies or --steps, --reference sampled, or raise --budget\n";
    else
        std::cerr << "nbody validate: the sampled check of " << bodyCount(n) << " would take about "
                  << durationText(predicted) << " here (the CPU kernels' " << stepCount(sampledSteps(o))
                  << " and their energy sums of N^2/2 pairs" << (onGpu ? "" : ", and the sample's fp64 sum")
                  << "), over --budget " << formatString("%g", o.budget)
                  << " s: use fewer --bodies, a GPU kernel, or raise --budget\n";
    return false;
}

/// The parameters of the runs: the system's, with the launch options and --integrator over them,
/// checked on one body against every kernel's limits. Throws std::invalid_argument.
SimParams validationParams(const ValidateOptions& o, const PreparedSystem& prepared,
                           const std::vector<const KernelInfo*>& kernels)
{
    SimParams params = prepared.params;
    applyLaunchOptions(o.launch, params);
    if (!o.launchGiven && (prepared.savedLaunch.first > 0 || prepared.savedLaunch.second > 0)) {
        params.blockSize = prepared.savedLaunch.first;
        params.tileWidthFactor = prepared.savedLaunch.second;
    }
    if (!o.integrator.empty())
        params.integrator = o.integrator;
    {
        // The parameters (integrator, dt, eps2) and every kernel's launch limits, on one body.
        World one;
        one.addBody({0, 0, 0, 1}, {});
        Simulation probe(one, params, "cpu");
        for (const KernelInfo* k : kernels)
            probe.setKernel(*k);
    }
    return params;
}

/// Writes every --report (rank 0); a failed one is reported and the others are still written.
/// False when any failed.
bool writeValidationReports(const ValidateOptions& o, const ValidationReport& report)
{
    if (!writesOutputs())
        return true; // rank 0 writes the reports
    bool written = true;
    for (const std::string& path : o.reports) {
        try {
            writeValidationReport(path, report);
            std::printf("Report written to %s\n", path.c_str());
        } catch (const std::exception& e) {
            std::cerr << "nbody validate: " << e.what() << "\n";
            written = false; // the other reports are still written
        }
    }
    return written;
}

} // namespace

CLI::App* addValidateCommand(CLI::App& app, ValidateOptions& o)
{
    CLI::App* c = app.add_subcommand(
        "validate", "Run kernels and the fp64 reference side by side and report their errors, pass or fail "
                    "(exit 0: all pass, 1: a kernel fails, 2: bad usage). The system: --scenario or --input, else a "
                    "Plummer sphere of --bodies N (default 8192) with the plummer scenario's dt and eps2");
    addSystemOptions(*c, o.system, DefaultSystem::Plummer);
    c->add_option("-k,--kernel", o.kernels,
                  "Kernel ids to validate (repeatable or comma-separated; see `nbody kernels`), or all: every "
                  "kernel available here except the reference itself")
        ->delimiter(',')
        ->capture_default_str();
    c->add_option("-s,--steps", o.steps, "Steps of every run (K)")->capture_default_str()->check(integerIn(1, 1ull << 30));
    c->add_option("--checkpoints", o.checkpoints, "Points of the error growth curve besides step 0")
        ->capture_default_str()
        ->check(integerIn(1, 100000));
    c->add_option("-r,--report", o.reports,
                  "Write the report to FILE.json (schema nbody-validation/1, docs/validation.md) or FILE.html "
                  "(a self-contained page with charts), atomically; repeatable");
    c->add_option("--integrator", o.integrator, "Time integrator id (see `nbody integrators`); default: the system's");
    addLaunchOptions(*c, o.launch);
    c->add_option("--budget", o.budget,
                  "Refuse a run predicted to take longer than this many seconds here (the fp64 reference and "
                  "CPU kernels cost N^2 per step; measured on 2048 bodies before the run)")
        ->capture_default_str()
        ->check(positiveNumber());
    c->add_option("--reference", o.reference,
                  "full: the fp64 reference runs the K steps too and every trajectory is compared with it (N^2 fp64 "
                  "interactions a step on the CPU); sampled: for millions of bodies, the step-0 forces of --sample "
                  "bodies against all N in fp64 (on the GPU when there is one) and each kernel's own energy and "
                  "momentum over --steps (default 10); auto: full when it fits --budget, else sampled")
        ->capture_default_str()
        ->check(CLI::IsMember({"auto", "full", "sampled"}));
    c->add_option("--sample", o.sample,
                  "Bodies whose step-0 forces are compared, each against all N in fp64, when N is above 20000 or "
                  "the check is sampled")
        ->capture_default_str()
        ->check(integerIn(1, 1ull << 31));
    c->add_flag("-q,--quiet", o.quiet,
                "No progress on stderr (on a terminal a line rewritten in place, elsewhere a line at every tenth "
                "of the run)");
    return c;
}

int validateCommand(const CLI::App& command, ValidateOptions& o)
{
    noteGiven(command, o.system);
    o.launchGiven = launchOptionsGiven(command) > 0;
    o.stepsGiven = command.count("--steps") > 0;

    // ---- everything that can be refused is checked before the run ----
    std::vector<const KernelInfo*> kernels;
    try {
        kernels = selectValidation(o);
    } catch (const std::invalid_argument& e) {
        std::cerr << "nbody validate: " << e.what() << "\n";
        return 2;
    }
    // Without --scenario or --input: a Plummer sphere in equilibrium (N = --bodies, default 8192),
    // not the cube of `nbody run`. The cube starts cold and its ε is 1e-6 of its size, so its
    // collapse is not resolved and the reference itself changes its energy by O(1): trajectories
    // would compare chaos, not kernels.
    if (o.system.scenario.empty() && o.system.input.empty()) {
        if (writesOutputs())
            noteStepsPerSecondIgnored("validate", o.system, "for the default Plummer sphere (N = --bodies)");
        o.system.stepsPerSecond = 0; // noted here: the sphere's N is --bodies, given or not
        o.system.scenario = "plummer";
        o.system.bodiesGiven = true;
    }
    // The O(N²) runs on the CPU: refused before the bodies are even made (1e8 bodies would fill
    // the memory first) when a generator's N is known, and again with the system's real N.
    // Several processes (mpirun -np P): rank 0 decides (its timing of the CPU rate) and the
    // others learn of a refusal at their next collective (main()).
    mpi::Session* const session = distributedSession();
    const bool root = writesOutputs();
    bool referenceRun = true;
    if (o.system.input.empty() && o.system.bodiesGiven &&
        !withinValidationBudget(o, o.system.bodies, kernels, false, &referenceRun))
        return 2;
    PreparedSystem prepared;
    if (const int rc = prepareSharedSystem("validate", o.system, prepared); rc != 0)
        return rc;
    if (!withinValidationBudget(o, prepared.world.size(), kernels, true, &referenceRun))
        return 2;
    SimParams params;
    try {
        params = validationParams(o, prepared, kernels);
    } catch (const std::invalid_argument& e) {
        std::cerr << "nbody validate: " << e.what() << "\n";
        return 2;
    }

    if (root)
        printIgnoredOptionNotes("validate", kernels, params, {&o.launch.params});

    ValidationConfig config;
    config.kernels = kernels;
    config.steps = referenceRun ? o.steps : sampledSteps(o);
    config.checkpoints = o.checkpoints;
    config.referenceRun = referenceRun;
    config.forceSample = o.sample;
    config.params = params;
    config.system = prepared.what;
    if (session) {
        config.share = session->share();
        try {
            (void)config.share->rows(prepared.world.size()); // more processes than bodies: refused here
        } catch (const std::invalid_argument& e) {
            std::cerr << "nbody validate: " << e.what() << "\n";
            return 2;
        }
        std::printf("MPI:     %s; every run (the fp64 reference's too) shared: rank 0 computes bodies [%zu, %zu) "
                    "of %zu\n",
                    session->describe().c_str(), config.share->rows(prepared.world.size()).begin,
                    config.share->rows(prepared.world.size()).end, prepared.world.size());
        std::fflush(stdout);
    }

    ValidationReport report;
    {
        ProgressLine progress(!o.quiet && root);
        try {
            report = validate(prepared.world, prepared.exact, config,
                              [&](const ValidationProgress& p) { progress(p); });
        } catch (const std::invalid_argument& e) {
            progress.finish();
            std::cerr << "nbody validate: " << e.what() << "\n";
            return 2;
        }
    }
    std::fputs(validationSummaryText(report).c_str(), stdout);
    std::fflush(stdout);
    const bool written = writeValidationReports(o, report);
    return report.allPass() && written ? 0 : 1;
}

} // namespace nbody::cli
