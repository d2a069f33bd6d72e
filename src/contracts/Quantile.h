#pragma once
/// \file Quantile.h
/// The q-quantile of a sample by nearest rank, in O(n) with std::nth_element: one definition for
/// the validation statistics (p99, median), the framing sphere (98 % radius) and the speed colour
/// scale (99th percentile).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace nbody {

/// The ⌈q·n⌉-th smallest of the n values (1-based rank, clamped to 1..n): q = 0.5 the median of
/// an odd sample, the lower middle of an even one; q = 1 the maximum. Returns T{} for an empty
/// sample. Reorders `values`. q in [0, 1].
template <class T>
T nearestRankQuantile(std::vector<T>& values, double q)
{
    if (values.empty())
        return T{};
    const auto rank = std::clamp<std::size_t>(std::size_t(std::ceil(q * double(values.size()))), 1, values.size());
    std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(rank - 1), values.end());
    return values[rank - 1];
}

} // namespace nbody
