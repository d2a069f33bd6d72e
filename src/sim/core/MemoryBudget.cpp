#include "sim/core/MemoryBudget.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/TreeCpu.h"

#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace nbody {

namespace {

constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();

std::size_t mulSat(std::size_t a, std::size_t b)
{
    if (a != 0 && b > kMax / a)
        return kMax;
    return a * b;
}

} // namespace

std::size_t hostBytesFor(std::size_t n, const KernelInfo* kernel)
{
    std::size_t perBody = 2 * kWorldBytesPerBody + 16;
    if (kernel && kernel->layout == Layout::Double4)
        perBody += 2 * kFp64StateBytesPerBody;
    if (kernel && kernel->method == ForceMethod::Tree && kernel->backend == Backend::Cpu)
        perBody += kTreeHostBytesPerBody; // the host tree (TreeCpu.h); a CUDA tree's lives on the device
    return mulSat(n, perBody);
}

std::string outOfMemoryMessage()
{
    const MemoryAvailable a = availableHostMemory();
    std::string s = "out of host memory (std::bad_alloc): an allocation did not fit";
    if (a.known())
        s += " (" + formatBytes(a.bytes) + " available now, " + a.source + ")";
    return s + "; try fewer bodies or a larger memory limit";
}

void checkHostMemory(std::size_t n, const KernelInfo* kernel) { checkHostBytes(n, hostBytesFor(n, kernel)); }

void checkHostBytes(std::size_t n, std::size_t need)
{
    const MemoryAvailable a = availableHostMemory();
    if (!a.known())
        return;
    if (need <= a.bytes)
        return;
    throw std::invalid_argument("N = " + std::to_string(n) + " needs about " + formatBytes(need) +
                                " of host memory; " + formatBytes(a.bytes) + " are available (" + a.source + ")");
}

} // namespace nbody
