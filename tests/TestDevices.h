#pragma once
// Device descriptions for tests that compute a device's ceiling without one (sim/core/Ceiling.h).
#include "sim/base/DeviceInfo.h"

namespace nbody_test {

/// An H200 as queryCuda() reports it: 132 SMs, compute capability 9.0, 1.98 GHz.
inline nbody::CudaDeviceInfo h200()
{
    nbody::CudaDeviceInfo d;
    d.name = "NVIDIA H200";
    d.major = 9;
    d.minor = 0;
    d.multiprocessors = 132;
    d.clockKHz = 1980000;
    return d;
}

} // namespace nbody_test
