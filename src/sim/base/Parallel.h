#pragma once
/// \file Parallel.h
/// When the host loops fork an OpenMP team. Each `parallel for` forks and joins a team, and
/// in a busy process — the app's GUI, render and Mesa llvmpipe threads, other programs on a
/// few cores — each region also waits until every thread of the team has been scheduled. For
/// a small system that wait is all there is: the Solar System (N = 10, about 13 regions per
/// Yoshida step) took 100–200 ms per step in the app against 0.02 ms on one thread. Below
/// these sizes the loops run on the calling thread (`#pragma omp parallel for if (...)`).
/// Results do not depend on it, except for the order of the diagnostics' fp64 reductions
/// (as with any change of OMP_NUM_THREADS).

#include <cstddef>

namespace nbody {

/// O(N²) loops (forces, potential energy): from 256 bodies, 65 536 pairs, ~0.1 ms on one core.
inline constexpr std::ptrdiff_t kParallelPairsFrom = 256;
/// O(N) loops (kick, drift, the diagnostics' sums): from 65 536 bodies, tens of µs on one core.
inline constexpr std::ptrdiff_t kParallelElementsFrom = 65536;

} // namespace nbody
