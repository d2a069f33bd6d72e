#pragma once
/// \file Benchmark.h
/// Measures one force kernel at one N (the engine of `nbody bench`): the median time of the
/// force evaluation (CUDA events around the launch(es) for CUDA kernels, the wall clock for CPU
/// kernels) and of the whole KDK step (wall clock, device synchronised), after warm-up.
/// Interactions per second count N² per evaluation, as NVIDIA's nbody sample does; GFLOP/s use
/// the kernel's flops per interaction (20 in fp32, 30 in fp64).

#include "KernelRegistry.h"
#include "SimParams.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace nbody {

struct BenchCase {
    std::string kernel;        ///< registry id
    std::size_t bodies = 8192; ///< N of the uniform cube (CubeParams, seed below)
    std::uint64_t seed = 42;
    SimParams params;          ///< G, ε², dt and the launch parameters
    int samples = 10;          ///< timed force evaluations and timed steps, each (≥ 1)
    int warmup = 2;            ///< untimed force evaluations before them (plus one untimed step)
    double budgetSeconds = 60; ///< fewer samples (at least 1) when they would take longer than this
};

struct BenchResult {
    std::string kernel;
    std::size_t bodies = 0;
    int samples = 0;            ///< timed samples actually taken (≤ BenchCase::samples)
    double forceMsMedian = 0;   ///< median force evaluation, ms
    double forceMsMin = 0;
    double stepMsMedian = 0;    ///< median whole step (kick, drift, forces, kick), ms
    double interactionsPerSecond = 0; ///< N² / forceMsMedian
    double gflops = 0;          ///< interactionsPerSecond × flops per interaction / 1e9
    int flopsPerInteraction = 0;
    std::string timer;          ///< "CUDA events" or "wall clock"
    SimParams params;
};

/// Runs the case. Throws std::invalid_argument for an unknown or unavailable kernel, a refused
/// parameter set or N = 0; CudaError when the GPU fails. `progress` (may be empty) receives
/// one-line messages.
BenchResult runBenchmark(const BenchCase& c, const std::function<void(const std::string&)>& progress = {});

/// Median of the values (the mean of the two middle ones for an even count); 0 when empty.
double median(std::vector<double> values);

} // namespace nbody
