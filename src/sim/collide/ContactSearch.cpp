#include "sim/collide/Collisions.h"
#include "sim/base/Parallel.h"
#include "sim/base/Registry.h"

#if NBODY_HAVE_CUDA
#include "kernels/ContactSearch.h"
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace nbody {

std::vector<ContactPair> findContactsCpuPairs(const ContactSearchArgs& args)
{
    if (args.n > 0 && (!args.position || !args.radius))
        throw std::invalid_argument("contact search: null position or radius column with n > 0");
    if (args.n > std::size_t(UINT32_MAX))
        throw std::invalid_argument("contact search: more than 2^32 - 1 bodies");
    const auto n = static_cast<std::int64_t>(args.n);
    std::vector<std::vector<ContactPair>> rows(static_cast<std::size_t>(n));
    ParallelErrors errors; // a row's list that cannot grow: rethrown here, not std::terminate
#pragma omp parallel for schedule(dynamic, 64) if (n >= kParallelPairsFrom) // small N: no team to wait for
    for (std::int64_t i = 0; i < n; ++i) errors.run([&] {
        const Float4 xi = args.position[i];
        const float ri = args.radius[i];
        for (std::int64_t j = i + 1; j < n; ++j)
            if (contactTouching(xi, ri, args.position[j], args.radius[j]))
                rows[std::size_t(i)].push_back({std::uint32_t(i), std::uint32_t(j)});
    });
    errors.rethrow();
    std::vector<ContactPair> pairs;
    for (auto& r : rows)
        pairs.insert(pairs.end(), r.begin(), r.end());
    return pairs;
}

namespace {

/// Cells per axis at most: the packed cell key holds 21 bits per axis, and a neighbour index
/// (cell + 1) must still fit.
constexpr double kMaxCellsPerAxis = double((1u << 21) - 2);
/// The cell edge is 2 · maxRadius widened by this factor, so that a pair the fp32 test
/// (contactTouching) calls touching — whose true distance can exceed ri + rj by a few units in
/// the last place of fp32, 2^-24 each — never lies two cells apart.
constexpr double kCellMargin = 1.0 + 1.0 / 1024.0;

std::uint64_t cellKey(std::uint64_t cx, std::uint64_t cy, std::uint64_t cz) { return (cx << 42) | (cy << 21) | cz; }

} // namespace

std::vector<ContactPair> findContactsCpuCells(const ContactSearchArgs& args)
{
    if (args.n > 0 && (!args.position || !args.radius))
        throw std::invalid_argument("contact search: null position or radius column with n > 0");
    if (args.n > std::size_t(UINT32_MAX))
        throw std::invalid_argument("contact search: more than 2^32 - 1 bodies");
    const std::size_t n = args.n;
    // The largest radius, checked against the column (the grid is only right when it is).
    float maxR = 0.f;
    for (std::size_t i = 0; i < n; ++i) {
        const float r = args.radius[i];
        if (!std::isfinite(r) || r < 0.f)
            throw std::invalid_argument("contact search: body " + std::to_string(i) + " has radius " +
                                        std::to_string(r) + " (a radius must be >= 0 and finite)");
        maxR = std::max(maxR, r);
    }
    if (n < 2 || !(maxR > 0.f))
        return {}; // two bodies of radius 0 never touch

    // Bodies with a non-finite coordinate touch nothing (contactTouching is false for them):
    // they stay out of the grid. The bounds of the others, in fp64.
    const auto finiteBody = [&](std::size_t i) {
        const Float4& p = args.position[i];
        return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
    };
    double lo[3] = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                    std::numeric_limits<double>::infinity()};
    double hi[3] = {-lo[0], -lo[1], -lo[2]};
    std::vector<std::uint32_t> order;
    order.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (!finiteBody(i))
            continue;
        const Float4& p = args.position[i];
        const double c[3] = {p.x, p.y, p.z};
        for (int a = 0; a < 3; ++a) {
            lo[a] = std::min(lo[a], c[a]);
            hi[a] = std::max(hi[a], c[a]);
        }
        order.push_back(std::uint32_t(i));
    }
    if (order.size() < 2)
        return {};
    // Cell edge: 2 · maxRadius (with the margin), larger where an axis would need more cells
    // than a key holds (a sparse system of tiny bodies: more bodies per cell, still correct).
    double h = 2.0 * double(maxR) * kCellMargin;
    for (int a = 0; a < 3; ++a)
        h = std::max(h, (hi[a] - lo[a]) / kMaxCellsPerAxis);
    const auto cellOf = [&](double x, int a) {
        return std::min(std::uint64_t((x - lo[a]) / h), std::uint64_t(kMaxCellsPerAxis));
    };
    // Sort the bodies by cell (ties by index), then list the occupied cells.
    std::vector<std::uint64_t> key(n, 0);
    for (const std::uint32_t i : order) {
        const Float4& p = args.position[i];
        key[i] = cellKey(cellOf(p.x, 0), cellOf(p.y, 1), cellOf(p.z, 2));
    }
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return key[a] != key[b] ? key[a] < key[b] : a < b; });
    struct Cell {
        std::uint64_t key;
        std::size_t begin, end; ///< range in `order`
    };
    std::vector<Cell> cells;
    for (std::size_t k = 0; k < order.size();) {
        std::size_t e = k + 1;
        while (e < order.size() && key[order[e]] == key[order[k]])
            ++e;
        cells.push_back({key[order[k]], k, e});
        k = e;
    }
    const auto findCell = [&](std::uint64_t k) -> const Cell* {
        const auto it = std::lower_bound(cells.begin(), cells.end(), k,
                                         [](const Cell& c, std::uint64_t v) { return c.key < v; });
        return it != cells.end() && it->key == k ? &*it : nullptr;
    };
    constexpr std::uint64_t kMask = (1u << 21) - 1;
    // Each unordered pair of neighbouring cells {A, B} once, from the one with the smaller key
    // (and the pairs inside a cell from the cell itself); OpenMP over the cells.
    const auto nCells = static_cast<std::ptrdiff_t>(cells.size());
    std::vector<ContactPair> pairs;
    ParallelErrors errors; // a list that cannot grow: rethrown after the region, not std::terminate
#pragma omp parallel if (nCells >= 64 && std::ptrdiff_t(order.size()) >= kParallelPairsFrom)
    {
        std::vector<ContactPair> mine;
#pragma omp for schedule(dynamic, 16) nowait
        for (std::ptrdiff_t c = 0; c < nCells; ++c) errors.run([&] {
            const Cell& a = cells[std::size_t(c)];
            const std::uint64_t cx = a.key >> 42, cy = (a.key >> 21) & kMask, cz = a.key & kMask;
            for (int dx = -1; dx <= 1; ++dx)
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dz = -1; dz <= 1; ++dz) {
                        if ((dx < 0 && cx == 0) || (dy < 0 && cy == 0) || (dz < 0 && cz == 0))
                            continue;
                        const std::uint64_t nk = cellKey(cx + std::uint64_t(dx), cy + std::uint64_t(dy),
                                                         cz + std::uint64_t(dz));
                        if (nk < a.key)
                            continue; // visited from the other cell
                        const Cell* b = nk == a.key ? &a : findCell(nk);
                        if (!b)
                            continue;
                        for (std::size_t p = a.begin; p < a.end; ++p) {
                            const std::uint32_t i = order[p];
                            const Float4 xi = args.position[i];
                            const float ri = args.radius[i];
                            for (std::size_t q = (b == &a ? p + 1 : b->begin); q < b->end; ++q) {
                                const std::uint32_t j = order[q];
                                // The same operands in the same order as cpu-pairs: (lower, higher).
                                const bool touch = i < j ? contactTouching(xi, ri, args.position[j], args.radius[j])
                                                         : contactTouching(args.position[j], args.radius[j], xi, ri);
                                if (touch)
                                    mine.push_back({std::min(i, j), std::max(i, j)});
                            }
                        }
                    }
        });
#pragma omp critical
        errors.run([&] { pairs.insert(pairs.end(), mine.begin(), mine.end()); });
    }
    errors.rethrow();
    std::sort(pairs.begin(), pairs.end(),
              [](const ContactPair& x, const ContactPair& y) { return x.i != y.i ? x.i < y.i : x.j < y.j; });
    return pairs;
}

namespace {
const std::array kSearches{
    ContactSearchInfo{"cpu-pairs", "All pairs (CPU)",
                      "Every pair i < j tested once (N²/2 tests), OpenMP over i; the reference search.",
                      Backend::Cpu, &findContactsCpuPairs},
    ContactSearchInfo{"cpu-cells", "Cell list (CPU)",
                      "Uniform grid of cell edge 2 x the largest radius; bodies sorted by cell, each pair of "
                      "neighbouring cells (27 per cell) tested once, OpenMP over cells. O(N) for evenly sized, "
                      "spread bodies; O(N^2) when they crowd into few cells. The CPU row of choice for large N.",
                      Backend::Cpu, &findContactsCpuCells},
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
