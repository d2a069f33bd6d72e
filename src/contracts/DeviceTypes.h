#pragma once
/// \file DeviceTypes.h
/// Types the core (src/sim) and the device state (kernels/DeviceState.h) share: what one force
/// pass on the device is, where device positions live, how steps were launched, one body's state.
/// Header only; the device state depends on these and not on the simulation.

#include "contracts/ForceArgs.h"
#include "contracts/Types.h"

#include <cstdint>
#include <string>

namespace nbody {

/// One body's state (Simulation::body): the kernel's precision widened exactly to fp64.
struct BodyState {
    Double4 position; ///< (x, y, z, mass): length and mass units
    Double4 velocity; ///< (vx, vy, vz, 0): length / time
};

/// Where the device positions live for CUDA kernels.
enum class PositionStorage {
    Owned,    ///< cudaMalloc'd by the simulation
    External, ///< provided by the caller between attachDevicePositions() and detachDevicePositions()
};

/// How the steps of CUDA kernels were launched (SimParams::cudaGraphs; see DeviceState::step).
struct GraphStats {
    std::uint64_t captures = 0;   ///< CUDA graphs captured (one per start buffer and configuration)
    std::uint64_t replays = 0;    ///< steps run as one cudaGraphLaunch
    std::uint64_t plainSteps = 0; ///< steps run as plain launches (graphs off, warm-up, fallback)
    std::string failure;          ///< why the last capture failed; "" when none did
};

/// One force pass on the device, resolved by the core (sim/core/Launch.h forceLaunch): the kernel row,
/// its launch arguments with every launch parameter resolved and the state pointers left null
/// (the device state fills them in), args.iBegin/iEnd the rows written (a distributed run's
/// share, or all), and the launches the pass is sliced into over those rows (≥ 1: the display
/// watchdog, sim/core/Ceiling.h forceSlices).
struct ForceLaunch {
    const KernelInfo* kernel = nullptr;
    DeviceForceArgs args;
    int slices = 1;
    bool operator==(const ForceLaunch&) const = default;
};

} // namespace nbody
