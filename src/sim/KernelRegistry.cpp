#include "KernelRegistry.h"
#include "CpuKernels.h"
#include "DeviceInfo.h"

#if NBODY_HAVE_CUDA
#include "kernels/ForceKernels.h"
#define NB_GPU(fn) &gpu::fn
#else
#define NB_GPU(fn) nullptr
#endif

#include <array>
#include <mutex>

namespace nbody {

namespace {

// The one table of force kernels. A new kernel is a new row.
const std::array kRegistry = {
    KernelInfo{
        "cpu", "CPU (OpenMP)",
        "All pairs on the CPU, one OpenMP thread per chunk of bodies, fp32 arithmetic. Reads N "
        "positions N times from cache; the choice without a GPU and for small N.",
        Backend::Cpu, Precision::Fp32, /*deterministic*/ true, false, false, &cpuForcesFp32, nullptr, nullptr},
    KernelInfo{
        "reference", "CPU reference (OpenMP)",
        "All pairs on the CPU in double precision (inputs and outputs fp32). The reference every "
        "kernel is validated against; about half the speed of the fp32 CPU kernel.",
        Backend::Cpu, Precision::Fp64, true, false, false, &cpuForcesFp64, nullptr, nullptr},
    KernelInfo{
        "tiled", "Tiled shared memory (CUDA)",
        "GPU Gems 3 ch. 31: one thread per body; the block stages tiles of blockSize x tile factor "
        "positions through shared memory, so global memory is read N/tile times instead of N. "
        "20 flops per interaction; compute-bound for large N. Parameters: block size, tile width factor.",
        Backend::Cuda, Precision::Fp32, true, true, true, nullptr, NB_GPU(launchTiled), NB_GPU(checkTiled)},
};

} // namespace

DeviceForceArgs deviceForceArgs(const SimParams& p, std::size_t n)
{
    DeviceForceArgs a;
    a.n = n;
    a.eps2 = p.eps2;
    a.G = float(p.G);
    a.blockSize = p.blockSize;
    a.tileWidthFactor = p.tileWidthFactor;
    return a;
}

std::string_view toString(Backend b)
{
    return b == Backend::Cpu ? "CPU" : "CUDA";
}

std::string_view toString(Precision p)
{
    return p == Precision::Fp32 ? "fp32" : "fp64";
}

std::span<const KernelInfo> kernelRegistry()
{
    return kRegistry;
}

const KernelInfo* findKernel(std::string_view id)
{
    for (const KernelInfo& k : kRegistry)
        if (k.id == id)
            return &k;
    return nullptr;
}

bool builtWithCuda()
{
    return NBODY_HAVE_CUDA != 0;
}

Availability availability(const KernelInfo& k)
{
    if (k.backend == Backend::Cpu)
        return {true, {}};
    // The device query is made once per process: devices do not come and go while we run. In a
    // CPU-only build it says "built without CUDA".
    static const std::string whyNoDevice = [] { return queryCuda().whyNone; }();
    if (!whyNoDevice.empty())
        return {false, whyNoDevice};
    if (!k.device)
        return {false, "this build has no launcher for kernel '" + std::string(k.id) + "'"};
    return {true, {}};
}

} // namespace nbody
