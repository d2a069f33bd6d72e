#pragma once
// Positions in CUDA-GL interop buffers for the span of one call (headless renders, tests).
#include "gl/CudaGlInterop.h"
#include "sim/core/Simulation.h"
#include "contracts/Types.h"

namespace nbody::gl {

/// Runs `f()` with both interop buffers mapped for CUDA and attached to `sim` as its device
/// positions (Simulation::attachDevicePositions, capacity = the mapped bytes / 16), detached and
/// unmapped again afterwards, also when `f` throws. `interop` null: just `f()` (positions owned by
/// the simulation or on the host). Throws CudaError when mapping fails, and what `f` throws.
template <class F>
void withInteropPositions(CudaGlInterop* interop, Simulation& sim, F&& f)
{
    if (!interop) {
        f();
        return;
    }
    CudaGlInterop::Mapping map(*interop);
    sim.attachDevicePositions(map.buffer(0), map.buffer(1), map.bytes(0) / sizeof(Float4));
    try {
        f();
    } catch (...) {
        sim.detachDevicePositions();
        throw;
    }
    sim.detachDevicePositions();
}

} // namespace nbody::gl
