#include "CoincidentBodies.h"

#include "sim/base/Format.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <tuple>
#include <vector>

namespace nbody {

CoincidentBodies findCoincidentBodies(const World& world, float eps2)
{
    CoincidentBodies c;
    const std::vector<Float4>& x = world.positions();
    if (eps2 != 0.f || x.size() < 2)
        return c;
    std::vector<std::uint32_t> order(x.size()); // N <= kMaxBodies = 2^28
    std::iota(order.begin(), order.end(), 0u);
    const auto key = [&](std::uint32_t i) { return std::make_tuple(x[i].x, x[i].y, x[i].z, i); };
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
    const auto same = [&](std::uint32_t a, std::uint32_t b) {
        return x[a].x == x[b].x && x[a].y == x[b].y && x[a].z == x[b].z;
    };
    bool haveFirst = false;
    for (std::size_t k = 0; k < order.size();) {
        std::size_t end = k + 1;
        while (end < order.size() && same(order[k], order[end]))
            ++end;
        if (end - k > 1) {
            c.bodies += end - k;
            // Within a run of equal positions the indices are ascending: its two lowest come first.
            if (!haveFirst || order[k] < c.first) {
                c.first = order[k];
                c.second = order[k + 1];
                haveFirst = true;
            }
        }
        k = end;
    }
    if (haveFirst)
        c.at = x[c.first];
    return c;
}

std::string coincidentBodiesProblem(const World& world, float eps2)
{
    const CoincidentBodies c = findCoincidentBodies(world, eps2);
    if (!c.found())
        return {};
    std::string s = formatString("bodies %zu and %zu are at the same point (%.9g, %.9g, %.9g)", c.first, c.second,
                                 double(c.at.x), double(c.at.y), double(c.at.z));
    if (c.bodies > 2)
        s += " (" + bodyCount(c.bodies) + " share a point with another)";
    return s + " and eps2 is 0: the force between them and their potential energy are infinite (a pair at zero "
               "distance gets no force, as a body's own term does, so the kernels would leave it out and the run "
               "would describe another system)";
}

} // namespace nbody
