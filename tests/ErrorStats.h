#pragma once
// Per-body relative acceleration error against the fp64 reference, with a floor:
//   err_i = |a_i − a_ref,i| / max(|a_ref,i|, floor),  floor = 1e-3 · RMS_j |a_ref,j|
// The floor keeps bodies whose net force nearly cancels (|a_ref| ≪ typical) from dividing by
// almost zero: their absolute error is then measured against a thousandth of the typical force.
#include "sim/Types.h"

#include <algorithm>
#include <cmath>
#include <vector>

struct ErrorStats {
    double max = 0;
    double median = 0;
    std::size_t worst = 0;
};

/// a: N accelerations (Float4 or Double4: x, y, z used); ref: N fp64 reference accelerations.
template <class V>
ErrorStats relativeErrors(const std::vector<V>& a, const std::vector<nbody::Double3>& ref)
{
    double rms = 0;
    for (const auto& r : ref)
        rms += r.x * r.x + r.y * r.y + r.z * r.z;
    rms = std::sqrt(rms / double(std::max<std::size_t>(ref.size(), 1)));
    const double floor = std::max(1e-3 * rms, 1e-300);
    std::vector<double> e(ref.size());
    ErrorStats s;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const double dx = a[i].x - ref[i].x, dy = a[i].y - ref[i].y, dz = a[i].z - ref[i].z;
        const double norm = std::sqrt(ref[i].x * ref[i].x + ref[i].y * ref[i].y + ref[i].z * ref[i].z);
        e[i] = std::sqrt(dx * dx + dy * dy + dz * dz) / std::max(norm, floor);
        if (e[i] > s.max) {
            s.max = e[i];
            s.worst = i;
        }
    }
    if (!e.empty()) {
        std::nth_element(e.begin(), e.begin() + std::ptrdiff_t(e.size() / 2), e.end());
        s.median = e[e.size() / 2];
    }
    return s;
}
