#pragma once
/// \file ValidateCommand.h
/// `nbody validate`: runs kernels and the fp64 reference side by side (sim/validate/Validation.h), prints
/// the summary table and writes the report (JSON or HTML, sim/validate/ValidationReport.h).
///
/// Exit codes: 0 every kernel passes; 1 a kernel fails or stops with an error, or the report
/// cannot be written after the run; 2 bad usage or input (unknown kernel, a kernel named
/// explicitly that cannot run here, N = 0, an unreadable system, a report name that is neither
/// .json nor .html, a report path that cannot be written — checked before the run).
/// `--report` may be given more than once (a JSON and an HTML file from one run).

#include "Headless.h"

#include <cstdint>
#include <string>
#include <vector>

namespace CLI { class App; }

namespace nbody::cli {

struct ValidateOptions {
    SystemOptions system;                  ///< the bodies and dt, eps2 (as `nbody run`)
    std::vector<std::string> kernels{"all"}; ///< ids, or "all" (every available kernel but the reference)
    std::uint64_t steps = 1000;            ///< K, steps of every run (the predecessor's 1000)
    int checkpoints = 50;                  ///< points of the error growth curve besides step 0
    std::vector<std::string> reports;      ///< FILE.json and/or FILE.html (--report is repeatable)
    std::string integrator;                ///< integrator id; empty: the system's (leapfrog)
    LaunchOptions launch;       ///< --block-size … --unroll (0: auto)
    bool launchGiven = false;              ///< a launch option was given (else a snapshot's are used)
    bool quiet = false;                    ///< no progress line on stderr
    double budget = 3600;                  ///< refuse runs predicted to take longer, s (estimateValidationSeconds)
    /// --reference: "full" (the fp64 reference runs the K steps too), "sampled" (the sampled check,
    /// ValidationConfig::referenceRun false) or "auto" (full when its prediction fits --budget)
    std::string reference = "auto";
    std::size_t sample = 32768;            ///< --sample: bodies of the step-0 force sample (S)
    bool stepsGiven = false;               ///< --steps was given (the sampled check's default is 10)
};

/// Adds the `validate` subcommand and its options to `app`; returns it.
CLI::App* addValidateCommand(CLI::App& app, ValidateOptions& o);
/// Records which options were given on `command` (call after parsing) and runs it.
int validateCommand(const CLI::App& command, ValidateOptions& o);

} // namespace nbody::cli
