#pragma once
/// \file ContactBenchmark.h
/// Measures one contact-search row (sim/collide/Collisions.h) at one N: the engine of
/// `nbody bench --contacts` (docs/contact-search.md). The system is the uniform cube [−1, 1]³
/// of makeUniformCube (the bench's seed) with radii uniform in [r₀/2, 3r₀/2], r₀ chosen for a
/// mean number of touching neighbours per body (ContactBenchSystem). Each sample is one call of
/// the row's search on columns already where the row reads them (a CUDA row's device copy is
/// made once), timed by the wall clock: the whole call, the copy of the pairs to the host
/// included, as the collision system pays it.
///
/// Rates: every row reports pair tests per second as the all-pairs count N(N−1)/2 over the
/// median time (for a cell list that is the all-pairs-equivalent rate: what an all-pairs search
/// would need to match it) and, where the row reports them (ContactHost.h, lastCandidateTests),
/// the candidate tests it really made per second.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "contracts/Types.h"

namespace nbody {

struct ContactSearchInfo;

/// The benchmark's system: N positions (w = the cube's mass) and radii.
struct ContactBenchSystem {
    std::vector<Float4> position;
    std::vector<float> radius;
    double r0 = 0; ///< the radii's centre, length units
};

/// N bodies uniform in [−1, 1]³ (makeUniformCube, half width 1, this seed) with radii uniform in
/// [r₀/2, 3r₀/2] (an independent stream of the same seed), r₀ such that a body far from the
/// faces touches `contactsPerBody` others on average: with the number density n = N/8 and
/// E[(R_i + R_j)³] = 9 r₀³ for that distribution, K = n · (4π/3) · 9 r₀³. The faces lower the
/// mean count by a relative (9/8)·E[s⁴]/(E[s³]·L) ≈ 1.25 r₀ (s = R_i + R_j, side L = 2; from the
/// distance distribution in a cube, 4πd² − 6πd³/L + 8d⁴/L² per L³): 3 % at N = 65536, K = 4.
/// Throws std::invalid_argument for N = 0 or above kMaxBodies, or K not in (0, 1e6].
ContactBenchSystem makeContactBenchSystem(std::size_t n, std::uint64_t seed, double contactsPerBody);

struct ContactBenchCase {
    std::string search;            ///< registry id (contactSearches())
    std::size_t bodies = 65536;
    std::uint64_t seed = 42;
    double contactsPerBody = 4;    ///< ContactBenchSystem's K
    int samples = 10;              ///< timed searches (≥ 1)
    int warmup = 2;                ///< untimed searches first (≥ 1: workspace, module load)
    double budgetSeconds = 60;     ///< fewer samples (at least 1) when they would take longer
};

struct ContactBenchResult {
    std::string search;
    std::size_t bodies = 0;
    int samples = 0;                   ///< taken (≤ ContactBenchCase::samples)
    double msMedian = 0, msMin = 0;    ///< one search, wall clock
    std::uint64_t pairs = 0;           ///< touching pairs found
    std::int64_t candidates = -1;      ///< pair tests the row made (−1: it does not say)
    double allPairsTestsPerSecond = 0; ///< N(N−1)/2 / msMedian
    double candidateTestsPerSecond = 0;///< candidates / msMedian (0 when not known)
    double r0 = 0;                     ///< ContactBenchSystem::r0
};

/// Runs the case. Throws std::invalid_argument (unknown or unavailable row, bad case),
/// CudaError, std::length_error (more pairs than fit), std::logic_error when two searches of
/// the same system found different numbers of pairs.
ContactBenchResult runContactBenchmark(const ContactBenchCase& c,
                                       const std::function<void(const std::string&)>& progress = {});

/// One search of `row` at n bodies (the case's system) timed after an untimed one, ms: the
/// probe of predictCase() for --budget's skip decision. Throws as runContactBenchmark.
double timeContactSearch(const ContactSearchInfo& row, std::size_t n, std::uint64_t seed, double contactsPerBody);

} // namespace nbody
