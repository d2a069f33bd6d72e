#include "Collisions.h"
#include "Registry.h"

#if NBODY_HAVE_CUDA
#include "kernels/ContactSearch.h"
#endif

#include <array>
#include <stdexcept>

namespace nbody {

std::vector<ContactPair> findContactsCpuPairs(const ContactSearchArgs& args)
{
    if (args.n > 0 && (!args.position || !args.radius))
        throw std::invalid_argument("contact search: null position or radius column with n > 0");
    if (args.n > std::size_t(UINT32_MAX))
        throw std::invalid_argument("contact search: more than 2^32 - 1 bodies");
    const auto n = static_cast<std::int64_t>(args.n);
    std::vector<std::vector<ContactPair>> rows(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(dynamic, 64)
    for (std::int64_t i = 0; i < n; ++i) {
        const Float4 xi = args.position[i];
        const float ri = args.radius[i];
        for (std::int64_t j = i + 1; j < n; ++j)
            if (contactTouching(xi, ri, args.position[j], args.radius[j]))
                rows[std::size_t(i)].push_back({std::uint32_t(i), std::uint32_t(j)});
    }
    std::vector<ContactPair> pairs;
    for (auto& r : rows)
        pairs.insert(pairs.end(), r.begin(), r.end());
    return pairs;
}

namespace {
const std::array kSearches{
    ContactSearchInfo{"cpu-pairs", "All pairs (CPU)",
                      "Every pair i < j tested once (N²/2 tests), OpenMP over i; the reference search.",
                      Backend::Cpu, &findContactsCpuPairs},
#if NBODY_HAVE_CUDA
    // The CUDA rows (kernels/ContactSearch.h, docs/contact-search.md).
    ContactSearchInfo{"cuda-pairs", "All pairs, per-thread lists (CUDA)",
                      "Every pair i < j tested on the GPU, tiled through shared memory; count, scan, write: "
                      "no atomics, the list comes out in order (the seed's non-atomic variant).",
                      Backend::Cuda, &gpu::findContactsCudaPairs},
    ContactSearchInfo{"cuda-atomic", "All pairs, atomic global list (CUDA)",
                      "Every pair i < j tested on the GPU; touching pairs appended to one list with atomicAdd "
                      "(regrown and rerun on overflow), then radix-sorted into order (the seed's atomic variant).",
                      Backend::Cuda, &gpu::findContactsCudaAtomic},
    ContactSearchInfo{"cuda-cells", "Cell list, uniform grid (CUDA)",
                      "Bodies sorted into cells of twice the largest radius (CUB radix sort); each tests the 27 "
                      "cells around its own: O(N) work for spread-out systems, the choice for large N.",
                      Backend::Cuda, &gpu::findContactsCudaCells},
#endif
};
} // namespace

std::span<const ContactSearchInfo> contactSearches() { return kSearches; }

const ContactSearchInfo* findContactSearch(std::string_view id) { return findById(kSearches, id); }

} // namespace nbody
