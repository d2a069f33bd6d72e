#include "ForceKernels.h"
#include "KernelCommon.cuh"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace nbody::gpu {

namespace {

/// Force evaluations of `faulty-test` so far in this process (module-global, zero at load). The
/// tripwire counts on the device, so replays of a captured step graph count as well as plain launches.
__device__ unsigned long long faultyEvaluations = 0;

/// One thread: counts this force evaluation and, from the `after`-th on, stores one float out
/// of the bounds of the accelerations: at acc[−k] with k = address / 16, i.e. in the first page
/// of the address space, which is never mapped (an index past the end could land in another
/// mapping of the unified address space). The device reports it as cudaErrorIllegalAddress, a
/// sticky error: every later CUDA call of the process fails with it (the context is lost).
__global__ void tripwireKernel(float4* acc, unsigned long long after)
{
    const unsigned long long done = atomicAdd(&faultyEvaluations, 1ull) + 1ull;
    if (done >= after) {
        float4* outOfBounds = acc - reinterpret_cast<std::uintptr_t>(acc) / sizeof(float4);
        volatile float* target = &outOfBounds->x;
        *target = 1.f;
    }
}

} // namespace

unsigned long long faultyEvaluationsBeforeFault()
{
    const char* v = std::getenv("NBODY_TEST_FAULT_AFTER");
    const long long k = v ? std::atoll(v) : 0;
    return k > 0 ? static_cast<unsigned long long>(k) : 50ull;
}

void launchFaulty(const DeviceForceArgs& a)
{
    launchTiled(a); // correct forces up to the fault
    static const unsigned long long after = faultyEvaluationsBeforeFault();
    tripwireKernel<<<1, 1, 0, static_cast<cudaStream_t>(a.stream)>>>(static_cast<float4*>(a.acc), after);
    NB_CUDA_CHECK_LAUNCH("tripwireKernel");
}

std::string checkFaulty(const DeviceForceArgs& a) { return checkTiled(a); }

} // namespace nbody::gpu
