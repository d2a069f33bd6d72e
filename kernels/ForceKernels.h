#pragma once
/// \file ForceKernels.h
/// Launchers of the CUDA force kernels (host API, no CUDA headers). Each matches the registry's
/// DeviceForceFn / DeviceCheckFn signatures (sim/KernelRegistry.h).

#include "sim/KernelRegistry.h"

namespace nbody::gpu {

/// `tiled` — GPU Gems 3 ch. 31 (Nyland, Harris, Prins): one thread per body; the block stages
/// tiles of blockSize × tileWidthFactor positions through shared memory and every thread
/// accumulates its body's acceleration over the tile. Layout: positions float4 (x, y, z, m),
/// accelerations float4 (ax, ay, az, 0). 20 flops per interaction; global traffic
/// N²/(tile width) position loads instead of N²; shared memory 16 · blockSize · factor bytes.
/// Any N ≥ 1 (the last tile is partial; threads past N load but do not store).
void launchTiled(const DeviceForceArgs& args);
/// "" when `tiled` can launch with these parameters on the current device, else a message
/// naming the limit (threads per block, shared memory per block, tile factor range).
std::string checkTiled(const DeviceForceArgs& args);

} // namespace nbody::gpu
