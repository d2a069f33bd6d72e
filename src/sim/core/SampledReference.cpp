#include "sim/core/SampledReference.h"

#include "contracts/Errors.h"
#include "sim/base/DeviceInfo.h"
#include "sim/core/CpuKernels.h"

#if NBODY_HAVE_CUDA
#include "kernels/SampledReference.h"
#endif

#include <stdexcept>

namespace nbody {

namespace {

template <class P>
SampledReference sampledAt(const P* pos, std::size_t n, const std::vector<std::size_t>& which, double eps2, double G)
{
    SampledReference r;
    std::string fellBack;
#if NBODY_HAVE_CUDA
    if (cudaKernelsUnavailable().empty()) {
        try {
            r.acceleration = gpu::sampledReferenceAccelerations(pos, n, which, eps2, G, &r.magnitudeSum);
            r.where = "the GPU (fp64)";
            return r;
        } catch (const CudaError& e) {
            fellBack = std::string(": the GPU's sum failed: ") + e.what();
        }
    }
#endif
    r.acceleration = referenceAccelerationsAt(pos, n, which, eps2, G, &r.magnitudeSum);
    r.where = "the CPU (fp64, OpenMP)" + fellBack;
    return r;
}

} // namespace

SampledReference sampledReference(const Float4* pos, std::size_t n, const std::vector<std::size_t>& which, double eps2,
                                  double G)
{
    return sampledAt(pos, n, which, eps2, G);
}

SampledReference sampledReference(const Double4* pos, std::size_t n, const std::vector<std::size_t>& which, double eps2,
                                  double G)
{
    return sampledAt(pos, n, which, eps2, G);
}

} // namespace nbody
