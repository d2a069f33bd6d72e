#include "sim/core/PrecisionRange.h"
#include "sim/base/Format.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/SimParams.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace nbody {

namespace {

/// The smallest distance between two bodies at different places (fp64); 0 when every body is at
/// one place or there is a single body. Exact up to 4096 bodies; above, the smallest distance
/// between bodies at most 8 apart in x order (an upper bound of the true one).
double smallestSeparation(const std::vector<Float4>& pos)
{
    const std::size_t n = pos.size();
    double best2 = std::numeric_limits<double>::infinity();
    const auto consider = [&](std::size_t i, std::size_t j) {
        const double dx = double(pos[j].x) - pos[i].x, dy = double(pos[j].y) - pos[i].y,
                     dz = double(pos[j].z) - pos[i].z;
        const double d2 = dx * dx + dy * dy + dz * dz;
        if (d2 > 0 && d2 < best2)
            best2 = d2;
    };
    if (n <= 4096) {
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = i + 1; j < n; ++j)
                consider(i, j);
    } else {
        std::vector<std::size_t> order(n);
        std::iota(order.begin(), order.end(), std::size_t(0));
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return pos[a].x < pos[b].x; });
        for (std::size_t k = 0; k < n; ++k)
            for (std::size_t l = k + 1; l < std::min(n, k + 9); ++l)
                consider(order[k], order[l]);
    }
    return std::isfinite(best2) ? std::sqrt(best2) : 0.0;
}

} // namespace

std::vector<std::string> precisionRangeProblems(const World& world, const SimParams& p, Precision precision)
{
    std::vector<std::string> out;
    const std::vector<Float4>& pos = world.positions();
    if (pos.empty())
        return out;
    const bool fp32 = precision == Precision::Fp32;
    const char* name = fp32 ? "fp32" : "fp64";
    const double largest = fp32 ? double(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max();
    const double smallest = fp32 ? double(std::numeric_limits<float>::min()) : std::numeric_limits<double>::min();
    const double eps2 = fp32 ? double(float(p.eps2)) : double(p.eps2);
    const double G = p.G;

    if (fp32 && !(std::isfinite(float(G)) && float(G) > 0.f))
        out.push_back(formatString("G = %.3g is outside the range of fp32 (%.2g to %.2g)", G, smallest, largest));

    double lo[3] = {pos[0].x, pos[0].y, pos[0].z}, hi[3] = {lo[0], lo[1], lo[2]};
    double mMax = 0;
    for (const Float4& b : pos) {
        const double c[3] = {b.x, b.y, b.z};
        for (int a = 0; a < 3; ++a)
            lo[a] = std::min(lo[a], c[a]), hi[a] = std::max(hi[a], c[a]);
        mMax = std::max(mMax, std::abs(double(b.w)));
    }
    const double side = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
    const double far2 = (hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                        (hi[2] - lo[2]) * (hi[2] - lo[2]);
    if (pos.size() < 2)
        return out;
    if (far2 + eps2 > largest) {
        out.push_back(formatString("coordinate differences up to %.3g: r^2 = %.3g exceeds %s's largest value, %.3g (it "
                                   "overflows to infinity)",
                                   side, far2 + eps2, name, largest));
    } else if (far2 + eps2 > 0) {
        const double inv3 = std::pow(far2 + eps2, -1.5);
        if (inv3 < smallest)
            out.push_back(formatString("separations up to %.3g: 1/r^3 = %.3g is below %s's smallest normal value, %.3g "
                                       "(the forces between distant bodies lose their precision or come out 0)",
                                       std::sqrt(far2), inv3, name, smallest));
    }
    const double rMin = smallestSeparation(pos);
    const double near2 = rMin * rMin + eps2;
    if (near2 > 0 && rMin > 0) {
        const double inv3 = std::pow(near2, -1.5);
        if (inv3 > largest)
            out.push_back(formatString("the smallest separation %.3g with eps^2 = %.3g: 1/(r^2 + eps^2)^(3/2) = %.3g "
                                       "exceeds %s's largest value, %.3g",
                                       rMin, eps2, inv3, name, largest));
        else if (mMax * inv3 > largest)
            out.push_back(formatString("the smallest separation %.3g with eps^2 = %.3g and masses up to %.3g: "
                                       "m/(r^2 + eps^2)^(3/2) = %.3g exceeds %s's largest value, %.3g",
                                       rMin, eps2, mMax, mMax * inv3, name, largest));
        const double accel = G * mMax / near2;
        if (out.empty() && accel > largest)
            out.push_back(formatString("G m/(r^2 + eps^2) reaches %.3g (G = %.3g, masses up to %.3g, the smallest "
                                       "separation %.3g, eps^2 = %.3g), beyond %s's largest value, %.3g",
                                       accel, G, mMax, rMin, eps2, name, largest));
    }
    return out;
}

double largestBodyMass(const SimParams& p, Precision precision)
{
    const double column = double(std::numeric_limits<float>::max());
    const double largest = precision == Precision::Fp32 ? column : std::numeric_limits<double>::max();
    const double eps2 = precision == Precision::Fp32 ? double(float(p.eps2)) : double(p.eps2);
    double m = column;
    if (eps2 > 0) {
        m = std::min(m, largest * std::pow(eps2, 1.5));
        if (p.G > 0 && std::isfinite(p.G))
            m = std::min(m, largest * eps2 / p.G);
    }
    return m;
}

std::string firstNonFiniteColumn(const World& world)
{
    const auto finite = [](const std::vector<Float4>& c, bool withW) {
        for (const Float4& v : c)
            if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z) || (withW && !std::isfinite(v.w)))
                return false;
        return true;
    };
    if (world.accelerationsValid && !finite(world.accelerations(), false))
        return "accelerations";
    if (!finite(world.velocities(), false))
        return "velocities";
    for (const Float4& v : world.positions())
        if (!std::isfinite(v.w))
            return "masses";
    if (!finite(world.positions(), false))
        return "positions";
    return {};
}

std::string fp64KernelIds()
{
    std::string ids;
    for (const KernelInfo& k : kernelRegistry())
        if (k.precision == Precision::Fp64)
            ids += (ids.empty() ? "" : ", ") + std::string(k.id);
    return ids;
}

} // namespace nbody

namespace nbody {

const char* precisionName(Precision precision)
{
    return precision == Precision::Fp32 ? "fp32" : "fp64";
}

std::string precisionRangeWarning(const std::string& problem, std::string_view kernelId, Precision precision)
{
    const char* name = precisionName(precision);
    return formatString("%s range: %s; kernel '%s' computes in %s: %s", name, problem.c_str(),
                        std::string(kernelId).c_str(), name,
                        precision == Precision::Fp32
                            ? ("use an fp64 kernel (" + fp64KernelIds() + ") or rescaled units (docs/units.md)").c_str()
                            : "rescale the units (docs/units.md)");
}

std::string precisionRangeCause(const std::string& problem, Precision precision)
{
    return formatString("the %s range was exceeded, not a time-step problem: %s; use %s or rescaled units",
                        precisionName(precision), problem.c_str(),
                        precision == Precision::Fp32 ? ("an fp64 kernel (" + fp64KernelIds() + ")").c_str()
                                                     : "smaller numbers");
}

} // namespace nbody
