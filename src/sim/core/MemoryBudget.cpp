#include "sim/core/MemoryBudget.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/SimParams.h"
#include "sim/core/TreeCpu.h"
#include "sim/base/DeviceInfo.h"

#include <omp.h>
#include <pthread.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
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


std::size_t addSat(std::size_t a, std::size_t b) { return b > kMax - a ? kMax : a + b; }


/// "N" from OMP_STACKSIZE / GOMP_STACKSIZE ("4M", "512k", "100000": kB without a suffix); 0 when unset or unreadable.
std::size_t ompStackSize()
{
    for (const char* name : {"OMP_STACKSIZE", "GOMP_STACKSIZE"}) {
        const char* v = std::getenv(name);
        if (!v || !*v)
            continue;
        char* end = nullptr;
        const unsigned long long number = std::strtoull(v, &end, 10);
        std::size_t unit = 1024;
        switch (end && *end ? *end : 'K') {
        case 'B': case 'b': unit = 1; break;
        case 'K': case 'k': unit = 1024; break;
        case 'M': case 'm': unit = std::size_t(1) << 20; break;
        case 'G': case 'g': unit = std::size_t(1) << 30; break;
        default: return 0;
        }
        return mulSat(std::size_t(number), unit);
    }
    return 0;
}

/// Threads of this process (/proc/self/status); 0 where unknown.
int processThreads()
{
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("Threads:", 0) == 0)
            return std::atoi(line.c_str() + 8);
    return 0;
}

/// RLIMIT_AS less the current virtual size; unknown without a limit.
MemoryAvailable addressSpaceLeft()
{
    MemoryAvailable m;
    rlimit r{};
    if (getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
        return m;
    std::ifstream in("/proc/self/status");
    std::string line;
    long long vmKb = -1;
    while (std::getline(in, line))
        if (line.rfind("VmSize:", 0) == 0)
            vmKb = std::atoll(line.c_str() + 7);
    if (vmKb < 0)
        return m;
    const std::size_t used = std::size_t(vmKb) * 1024;
    m.bytes = r.rlim_cur > used ? std::size_t(r.rlim_cur) - used : 0;
    m.source = "RLIMIT_AS";
    return m;
}

} // namespace

std::size_t WorkspaceEstimate::hostBytes() const
{
    return addSat(addSat(addSat(scratch, tree), fp64), contacts);
}

std::string WorkspaceEstimate::describeHost() const
{
    std::string s;
    const auto part = [&](std::size_t bytes, const char* what) {
        if (bytes == 0)
            return;
        s += s.empty() ? "" : ", ";
        s += what;
        s += " ";
        s += formatBytes(bytes);
    };
    part(tree, "the tree and its sort buffer");
    part(fp64, "the fp64 state and its widened copy");
    part(contacts, "the contact lists");
    part(scratch, "structure-of-arrays scratch");
    return s;
}

WorkspaceEstimate workspaceFor(std::size_t n, const KernelInfo* kernel, bool collisions, const DeviceForceArgs* deviceArgs)
{
    WorkspaceEstimate w;
    w.scratch = mulSat(n, 16);
    if (kernel && kernel->layout == Layout::Double4)
        w.fp64 = mulSat(n, 2 * kFp64StateBytesPerBody);
    if (kernel && kernel->method == ForceMethod::Tree && kernel->backend == Backend::Cpu)
        w.tree = mulSat(n, kTreeHostBytesPerBody); // the host tree (TreeCpu.h); a CUDA tree's lives on the device
    if (collisions)
        w.contacts = mulSat(n, kContactHostBytesPerBody);
    if (kernel && kernel->backend == Backend::Cuda) {
        w.device = mulSat(n, 2 * positionBytes(kernel->layout) + 2 * vectorBytes(kernel->layout));
        if (kernel->workspace && deviceArgs)
            w.device = addSat(w.device, kernel->workspace(*deviceArgs));
    }
    return w;
}

std::size_t hostBytesFor(std::size_t n, const KernelInfo* kernel)
{
    return addSat(mulSat(n, 2 * kWorldBytesPerBody), workspaceFor(n, kernel).hostBytes());
}

void checkWorkspace(std::size_t n, const KernelInfo& kernel, const SimParams& p, bool deviceStateHeld)
{
    std::optional<DeviceForceArgs> args;
    if (kernel.backend == Backend::Cuda && kernel.workspace)
        args = deviceForceArgs(kernel, p, n); // the launch parameters it will run with
    const WorkspaceEstimate w = workspaceFor(n, &kernel, p.collisions, args ? &*args : nullptr);
    if (kernel.backend == Backend::Cuda) {
        // The device state (unless it is held already) and the kernel's workspace, against the
        // device's free memory: refused at selection instead of failing in the first step.
        const std::size_t state = workspaceFor(n, &kernel).device;
        const std::size_t need = deviceStateHeld ? w.device - std::min(w.device, state) : w.device;
        DeviceMemory d;
        if (need > 0 && deviceMemory(&d) && need > d.freeBytes)
            throw std::invalid_argument("N = " + std::to_string(n) + " with kernel '" + std::string(kernel.id) +
                                        "' needs about " + formatBytes(need) +
                                        " of device memory (its state and workspace); the device has " +
                                        formatBytes(d.freeBytes) + " free of " + formatBytes(d.totalBytes));
    }
    const MemoryAvailable a = availableHostMemory();
    if (!a.known() || w.hostBytes() <= a.bytes)
        return;
    throw std::invalid_argument("N = " + std::to_string(n) + " with kernel '" + std::string(kernel.id) +
                                "' needs about " + formatBytes(w.hostBytes()) +
                                " more host memory for its workspace (" + w.describeHost() + "); " +
                                formatBytes(a.bytes) + " are available (" + a.source + ")");
}

std::size_t threadReserveBytes()
{
    std::size_t stack = ompStackSize();
    if (stack == 0) {
        pthread_attr_t attr;
        if (pthread_getattr_default_np(&attr) == 0) {
            pthread_attr_getstacksize(&attr, &stack);
            pthread_attr_destroy(&attr);
        }
    }
    if (stack == 0)
        stack = std::size_t(8) << 20;
    constexpr std::size_t kArena = std::size_t(64) << 20; // glibc's HEAP_MAX_SIZE on 64-bit
    return addSat(stack, kArena);
}

void startWorkerThreads()
{
    const int threads = omp_get_max_threads();
    if (threads <= 1 || processThreads() >= threads)
        return; // nothing to start, or the team runs already
    const MemoryAvailable left = addressSpaceLeft();
    const std::size_t each = threadReserveBytes();
    const std::size_t need = mulSat(std::size_t(threads - 1), each);
    if (left.known() && need > left.bytes)
        throw std::runtime_error("out of host memory: " + std::to_string(threads - 1) + " OpenMP worker thread" +
                                 (threads - 1 == 1 ? "" : "s") + " reserve about " + formatBytes(need) +
                                 " of address space (" + formatBytes(each) +
                                 " each: its stack and an allocation arena); " + formatBytes(left.bytes) +
                                 " are available (" + left.source + "); set OMP_NUM_THREADS lower or raise the limit");
#pragma omp parallel num_threads(threads)
    {
        // A small allocation on each thread makes its arena now (a thread's first malloc).
        void* p = std::malloc(64);
        std::free(p);
    }
}

std::string outOfMemoryMessage()
{
    const MemoryAvailable a = availableHostMemory();
    std::string s = "out of host memory (std::bad_alloc): an allocation did not fit";
    if (a.known())
        s += " (" + formatBytes(a.bytes) + " available now, " + a.source + ")";
    return s + "; try fewer bodies or a larger memory limit";
}

std::string systemErrorMessage(const std::system_error& e)
{
    if (e.code() != std::errc::resource_unavailable_try_again && e.code() != std::errc::not_enough_memory)
        return e.what();
    const MemoryAvailable a = availableHostMemory();
    std::string s = std::string("out of host memory: a thread could not be created (") + e.what() + ")";
    if (a.known())
        s += " (" + formatBytes(a.bytes) + " available now, " + a.source + ")";
    return s + "; try fewer bodies, fewer threads (OMP_NUM_THREADS) or a larger memory limit";
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
