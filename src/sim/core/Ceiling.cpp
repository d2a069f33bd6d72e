#include "sim/core/Ceiling.h"

#include <algorithm>
#include <cmath>

namespace nbody {

PipeLanes pipeLanes(int major, int minor)
{
    // CUDA C++ Programming Guide, "Arithmetic Instructions": 32-bit and 64-bit floating-point
    // add, multiply, multiply-add, results per clock cycle per multiprocessor.
    struct Row {
        int major, minor; ///< minor -1: every minor version of the major
        PipeLanes lanes;
    };
    static constexpr Row kTable[] = {
        {5, -1, {128, 4}},  {6, 0, {64, 32}},   {6, 1, {128, 4}},   {6, 2, {128, 4}},
        {7, 0, {64, 32}},   {7, 5, {64, 2}},    {8, 0, {64, 32}},   {8, 6, {128, 2}},
        {8, 7, {128, 2}},   {8, 9, {128, 2}},   {9, 0, {128, 64}},  {10, 0, {128, 64}},
        {12, -1, {128, 2}},
    };
    for (const Row& r : kTable)
        if (r.major == major && (r.minor == minor || r.minor == -1))
            return r.lanes;
    return {};
}

double issueSlotsPerSecond(const CudaDeviceInfo& d, Precision precision)
{
    const PipeLanes lanes = pipeLanes(d.major, d.minor);
    const int perSm = precision == Precision::Fp64 ? lanes.fp64 : lanes.fp32;
    if (perSm <= 0 || d.multiprocessors <= 0 || d.clockKHz <= 0)
        return 0;
    return double(d.multiprocessors) * double(perSm) * double(d.clockKHz) * 1e3;
}

double interactionCeiling(const KernelInfo& k, const CudaDeviceInfo& device)
{
    if (k.backend != Backend::Cuda || k.slotsPerInteraction <= 0)
        return 0;
    return issueSlotsPerSecond(device, k.precision) / double(k.slotsPerInteraction);
}

double shareOfCeiling(double achieved, double ceiling)
{
    return ceiling > 0 && achieved > 0 ? achieved / ceiling : 0;
}

int forceSlices(const KernelInfo& k, const SimParams& p, std::size_t n)
{
    if (!k.iSlices || n == 0)
        return 1;
    if (p.forceSlices > 0)
        return int(std::min<std::size_t>(std::size_t(p.forceSlices), n));
    const std::optional<CudaDeviceInfo> watched = watchdogDevice();
    if (!watched)
        return 1;
    const double ceiling = interactionCeiling(k, *watched);
    const double rate = ceiling > 0 ? ceiling / 4 : 1e10;
    const double passMs = double(n) * double(n) / rate * 1e3;
    const double slices = std::ceil(passMs / p.watchdogLaunchMs);
    return int(std::clamp<double>(slices, 1.0, double(n)));
}

} // namespace nbody
