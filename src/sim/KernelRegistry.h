#pragma once
/// \file KernelRegistry.h
/// The table of force kernels. The Kernel menu, `nbody kernels` and the tests all iterate this
/// one table (REBOUND-style descriptors: a row per kernel, no ladder of ifs).

#include "SimParams.h"
#include "Types.h"

#include <span>
#include <string>
#include <string_view>

namespace nbody {

enum class Backend { Cpu, Cuda };
enum class Precision { Fp32, Fp64 };

std::string_view toString(Backend b);
std::string_view toString(Precision p);

/// Arguments of a host force kernel: acc[i] = G Σ_j m_j r_ij / (|r_ij|² + ε²)^{3/2}.
/// pos: N Float4 (x, y, z, mass); acc: N Float4 (ax, ay, az, 0), written; host memory.
struct HostForceArgs {
    const Float4* pos = nullptr;
    Float4* acc = nullptr;
    std::size_t n = 0;
    float eps2 = 0.f; ///< softening ε², length²
    double G = 1.0;   ///< gravitational constant
};

/// Arguments of a CUDA force kernel: same contract, device pointers, plus launch parameters.
struct DeviceForceArgs {
    const Float4* pos = nullptr; ///< device, N Float4 (x, y, z, mass)
    Float4* acc = nullptr;       ///< device, N Float4 (ax, ay, az, 0), written
    std::size_t n = 0;
    float eps2 = 0.f;
    float G = 1.f;
    int blockSize = 256;         ///< threads per block
    int tileWidthFactor = 1;     ///< tile = blockSize × factor bodies
    void* stream = nullptr;      ///< cudaStream_t (nullptr: the default stream)
};

/// The launch arguments of the parameters `p` for n bodies (pointers left null).
DeviceForceArgs deviceForceArgs(const SimParams& p, std::size_t n);

using HostForceFn = void (*)(const HostForceArgs&);
/// Launches the kernel (asynchronously). Throws CudaError when a CUDA call or the launch fails.
using DeviceForceFn = void (*)(const DeviceForceArgs&);
/// Returns "" when the launch parameters can run on the current device, else a message naming
/// the limit ("block size 2048 exceeds the device's 1024 threads per block").
using DeviceCheckFn = std::string (*)(const DeviceForceArgs&);

/// One row of the registry.
struct KernelInfo {
    std::string_view id;          ///< stable identifier used by the CLI and settings ("tiled")
    std::string_view name;        ///< menu text
    std::string_view description; ///< tooltip: algorithm, memory traffic, when it wins
    Backend backend;
    Precision precision;
    bool deterministic;           ///< same input gives bit-identical output
    bool usesBlockSize;           ///< blockSize is a parameter of this kernel
    bool usesTileWidthFactor;     ///< tileWidthFactor is a parameter of this kernel
    HostForceFn host = nullptr;   ///< CPU rows
    DeviceForceFn device = nullptr; ///< CUDA rows (nullptr in a CPU-only build)
    DeviceCheckFn check = nullptr;  ///< CUDA rows
};

/// Every registered kernel, CPU rows first. Rows exist in CPU-only builds too (unavailable).
std::span<const KernelInfo> kernelRegistry();
/// The row with this id, or nullptr.
const KernelInfo* findKernel(std::string_view id);

struct Availability {
    bool available = false;
    std::string reason; ///< why not ("built without CUDA", "no CUDA device: …"); empty when available
};
/// Whether the kernel can run here (CPU rows always can).
Availability availability(const KernelInfo& k);

/// True when this build has the CUDA kernels compiled in.
bool builtWithCuda();

} // namespace nbody
