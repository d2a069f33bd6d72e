#pragma once
/// \file CommandLine.h
/// The `nbody` command line as a library function, so that tests can run a command in their own
/// process (its help, say) as the executable would.

namespace nbody::cli {

/// Parses argv (argv[0] the program name) and runs the subcommand it names: run, render, bench,
/// validate, tune, kernels, devices, scenarios, integrators. Returns the exit status (0 success,
/// 1 failure, 2 bad input; CLI11's own codes for parse errors, after printing them; --help and
/// --version print and return 0). Under mpirun it is called on every rank (main.cpp).
int commandMain(int argc, char** argv);

} // namespace nbody::cli
