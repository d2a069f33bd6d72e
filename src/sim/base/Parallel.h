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

#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>

namespace nbody {

/// O(N²) loops (forces, potential energy): from 256 bodies, 65 536 pairs, ~0.1 ms on one core.
inline constexpr std::ptrdiff_t kParallelPairsFrom = 256;
/// O(N) loops (kick, drift, the diagnostics' sums): from 65 536 bodies, tens of µs on one core.
inline constexpr std::ptrdiff_t kParallelElementsFrom = 65536;

/// The first exception thrown on any thread of an OpenMP parallel region, rethrown after it. An
/// exception must not leave a parallel region (nor a worksharing loop's iteration): it would end
/// the process with std::terminate, as a std::bad_alloc of a list that grows on a worker thread
/// did when memory ran short. Wrap the work of each iteration (and a thread's own setup) in
/// run(); after the region, rethrow(). Iterations after the first failure are skipped.
class ParallelErrors {
public:
    /// Runs f(), keeping what it throws. Never throws.
    template <class F>
    void run(F&& f) noexcept
    {
        if (m_failed.load(std::memory_order_relaxed))
            return;
        try {
            f();
        } catch (...) {
            const std::lock_guard lock(m_mutex);
            if (!m_error)
                m_error = std::current_exception();
            m_failed.store(true, std::memory_order_relaxed);
        }
    }
    bool failed() const { return m_failed.load(std::memory_order_relaxed); }
    /// Rethrows the first exception kept, if any (on the thread after the region).
    void rethrow()
    {
        if (m_error)
            std::rethrow_exception(m_error);
    }

private:
    std::mutex m_mutex;
    std::exception_ptr m_error;
    std::atomic<bool> m_failed{false};
};

} // namespace nbody
