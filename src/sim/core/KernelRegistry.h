#pragma once
/// \file KernelRegistry.h
/// The table of force kernels. The Kernel menu, `nbody kernels` and the tests all iterate this
/// one table (REBOUND-style descriptors: a row per kernel, no ladder of ifs).

#include "sim/core/SimParams.h"
#include "contracts/ForceArgs.h"
#include "sim/base/DeviceInfo.h"
#include "sim/base/Registry.h"

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace nbody {

std::string_view toString(Backend b);
std::string_view toString(Precision p);
std::string_view toString(Layout l);
std::string_view toString(ForceMethod m);

struct KernelInfo;
/// The launch arguments of the parameters `p` for row k and n bodies (pointers left null), with
/// every launch parameter resolved (> 0): the user's non-zero values as they are; auto (0) ones
/// from the tuning cache for this device, row and N bucket (sim/core/Launch.h) where it has them,
/// else from the row's defaults (KernelInfo::defaults), else 256 threads per block and 1 row,
/// tile ×1, 1 i/thread, j-split 1, unroll 4. Defined in Launch.cpp (resolveLaunch also says
/// where each value came from).
DeviceForceArgs deviceForceArgs(const KernelInfo& k, const SimParams& p, std::size_t n);

/// Every registered kernel, CPU rows first. Rows exist in CPU-only builds too (unavailable).
/// The test-only row `faulty-test` (a CUDA kernel that writes out of bounds after K force
/// evaluations, kernels/ForceKernels.h launchFaulty) is in it only when testFaultyKernelEnabled().
std::span<const KernelInfo> kernelRegistry();
/// True when the environment variable NBODY_TEST_FAULTY_KERNEL is "1" (read once per process).
bool testFaultyKernelEnabled();
/// The row with this id, or nullptr.
const KernelInfo* findKernel(std::string_view id);

/// Whether the kernel can run here (CPU rows always can). CUDA rows are unavailable without a
/// build with CUDA, without a usable driver or device, on a device this build has no code for
/// (cudaKernelsUnavailable, sim/base/DeviceInfo.h), and after markCudaContextLost() (the reason names the fault).
Availability availability(const KernelInfo& k);



/// The kernel a new run uses when none is chosen: the first CUDA row that is available (the
/// fastest fp32 kernel, `blocked`), else `cpu`.
std::string_view defaultKernelId();

/// True when this build has the CUDA kernels compiled in.
bool builtWithCuda();

} // namespace nbody
