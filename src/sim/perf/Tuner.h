#pragma once
/// \file Tuner.h
/// The launch-parameter tuner: per device, kernel row and N bucket, a short measurement picks the
/// launch parameters the row reads (KernelParamUse); the choices are cached in a file in the
/// user's cache directory and applied to the parameters a user left on auto (0).
///
/// (The resolution of launch parameters and the cache itself: sim/core/Launch.h.)

#include "sim/core/Launch.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nbody {

// ---- the search -----------------------------------------------------------------------------

/// Milliseconds of one force evaluation of the row with these launch parameters (all the row
/// reads set, > 0), as the median of a few timed evaluations. Throws std::invalid_argument when
/// the row refuses the combination (the search skips it); other exceptions end the search.
using LaunchMeasureFn = std::function<double(const LaunchValues& candidate)>;

struct TuneOptions {
    double budgetSeconds = 2.5; ///< wall-clock budget of one search; it stops with the best so far
    int maxPasses = 2;          ///< coordinate-descent passes (a pass that improves nothing ends it)
};

struct TuneResult {
    LaunchValues launch;       ///< the best candidate (parameters the row reads; others 0)
    double forceMs = 0;        ///< its measured time at N
    double interactionsPerSecond = 0;
    int measured = 0;          ///< candidates measured
    int refused = 0;           ///< candidates the row refused
    double seconds = 0;        ///< wall time of the search
    bool budgetExhausted = false;
};

/// Candidate values of parameter p for row k at n bodies on device d, given the current values
/// of the others (j-split depends on the block size and i-bodies per thread):
///   blockSize {64, 128, 256, 512, 1024} ≤ the device's max threads per block;
///   blockRows {1, 2, 4}; tileWidthFactor {1, 2, 4}; bodiesPerThread {1, 2, 4, 8};
///   unroll {1, 2, 4, 8}; jSplit {1, 2, 4, …} while n / jSplit ≥ one tile (blockSize bodies)
///   and the i-blocks × jSplit stay within two waves of blocks (2 × SMs; 64 when SMs unknown).
std::vector<int> launchCandidates(const KernelInfo& k, LaunchParam p, std::size_t n, const TuningDevice& d,
                                  const LaunchValues& current);

/// Coordinate descent from `start` (defaultLaunch): for each parameter the row reads in turn
/// (block size, rows, tile factor, i/thread, unroll, then j-split, which depends on the others),
/// measure every candidate with the others held, keep the fastest; repeat while a pass improves
/// (at most maxPasses). Each distinct combination is measured once. With the default measure
/// (3 samples after a warm-up at N ≤ 2^18) a search is about 15–30 measurements: well under
/// the 2.5 s budget on an H200 for the fp32 rows (a force evaluation at 2^18 takes a few ms);
/// the budget caps the slower fp64 rows. Throws std::invalid_argument when every candidate is
/// refused, and what `measure` throws besides std::invalid_argument.
TuneResult searchLaunch(const KernelInfo& k, std::size_t n, const TuningDevice& d, const LaunchMeasureFn& measure,
                        const LaunchValues& start, const TuneOptions& options = {});

/// The real measure: a uniform cube of n bodies (seed 42) in a Simulation on row k; each
/// candidate is set with Simulation::setParams (its check refuses → std::invalid_argument), one
/// warm-up evaluation, then the median of `samples` timed ones (1 when the warm-up took over 50 ms).
LaunchMeasureFn forceEvaluationTimer(const KernelInfo& k, std::size_t n, int samples = 3);

// ---- who tunes -----------------------------------------------------------------------------

/// True for a CUDA row that can run here with at least one parameter it reads on auto in p.
bool tunable(const KernelInfo& k, const SimParams& p);

/// What ensureTuned did.
struct TuneOutcome {
    bool ran = false;              ///< a search ran (else the cache had the entry, or not tunable)
    std::optional<TunedEntry> entry;
    std::string message;           ///< the whole "Tuning … : 1.23e12 interactions/s" line
    std::string warning;           ///< e.g. the cache could not be written (the entry is in memory)
};

/// Tunes row k at n's bucket on the current device when tunable(k, p) and the cache lacks the
/// entry (or `force`), and stores the result. `progress` (may be empty) gets the opening
/// "Tuning <kernel> for N≈<bucket> on <device> (once; cached in <path>) … " before the search
/// and the closing "block 128, …: 1.23e12 interactions/s" after it. Throws what the search
/// throws (CudaError, std::invalid_argument when nothing could run); never for a failed write.
TuneOutcome ensureTuned(const KernelInfo& k, const SimParams& p, std::size_t n,
                        const std::function<void(const std::string&)>& progress = {}, bool force = false);

} // namespace nbody
