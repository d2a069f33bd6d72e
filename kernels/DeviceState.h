#pragma once
/// \file DeviceState.h
/// The simulation's state on the GPU in one kernel layout (sim/KernelRegistry.h, Layout):
/// device columns of velocities and accelerations, two position buffers used ping-pong, and the
/// workspace of kernels that need one. Positions are owned, or — for fp32 layouts with External
/// storage — buffers the caller provides (mapped GL buffers). The fp64 layout always owns its
/// double positions; External buffers then receive a float4 copy for drawing (publish()).
/// Host API without CUDA headers; every method throws CudaError on a CUDA failure.

#include "sim/KernelRegistry.h"
#include "sim/SimParams.h"
#include "sim/Simulation.h"
#include "sim/World.h"

#include <cstddef>

namespace nbody {

class DeviceState {
public:
    /// Allocates velocity and acceleration columns for n bodies in `layout`, and the two
    /// position buffers when they are owned. Throws CudaError (e.g. out of memory).
    DeviceState(std::size_t n, Layout layout, PositionStorage storage);
    ~DeviceState();
    DeviceState(const DeviceState&) = delete;
    DeviceState& operator=(const DeviceState&) = delete;

    std::size_t size() const { return m_n; }
    Layout layout() const { return m_layout; }
    PositionStorage storage() const { return m_storage; }

    /// External storage: the two float4 buffers (device, ≥ n each) until detach().
    void attach(Float4* p0, Float4* p1);
    void detach();
    /// True when the positions the kernels read can be accessed.
    bool hasPositions() const { return m_pos[0] && m_pos[1]; }

    /// Copies positions (into buffer `current`), velocities and accelerations to the device.
    /// World: fp32 layouts (Float4, Float3). Fp64State: the Double4 layout; with External
    /// storage attached, the float4 copy is published too.
    void upload(const World& w, int current);
    void upload(const Fp64State& s, int current);
    /// Copies them back (positions from buffer `current`); synchronises.
    void download(World& w, int current) const;
    void download(Fp64State& s, int current) const;

    /// acc = F(pos[current]) with the kernel's launcher (the kernel's layout must match).
    void computeForces(const KernelInfo& k, const SimParams& p, int current);
    /// computeForces timed with CUDA events around the launch(es): milliseconds on the device.
    double timedForces(const KernelInfo& k, const SimParams& p, int current);
    /// Opening kick and drift: vel += ½ acc dt; pos[1-current] = pos[current] + vel dt (mass
    /// copied). Reads one buffer and writes the other (no in-place race, seeds defect 1).
    void kickDrift(double dt, int current);
    /// Closing kick: vel += ½ acc dt.
    void kick(double dt);
    /// Double4 layout with External storage attached: writes the float4 copy of positions
    /// `current` into attached buffer `current` (for drawing). No-op otherwise.
    void publish(int current);
    /// Index of the first body whose position, mass or velocity is not finite (positions in
    /// buffer `current`), or -1 when all are; one pass over the state, 4 bytes copied back.
    long long firstNonFinite(int current);
    /// The diagnostic sums of the state (positions in buffer `current`) computed on the device
    /// (kernels/DiagnosticsKernels.h): 96 bytes are copied back, not the state; synchronises.
    /// blockSize 0: the occupancy calculator's choice. Throws std::invalid_argument for a block
    /// size the device refuses, CudaError when a CUDA call fails.
    DiagnosticSums measure(int current, double eps2, int blockSize = 0);
    /// Waits for the device (checked).
    void synchronize() const;

private:
    void ensureWorkspace(std::size_t bytes);
    DeviceForceArgs forceArgs(const KernelInfo& k, const SimParams& p, int current);

    std::size_t m_n = 0;
    Layout m_layout;
    PositionStorage m_storage;
    bool m_ownsPositions = true;
    void* m_owned[2] = {nullptr, nullptr};
    void* m_pos[2] = {nullptr, nullptr};     ///< positions in the layout's type
    Float4* m_drawn[2] = {nullptr, nullptr}; ///< Double4 + External: the attached float4 buffers
    void* m_vel = nullptr;
    void* m_acc = nullptr;
    void* m_workspace = nullptr;
    std::size_t m_workspaceBytes = 0;
    int* m_flag = nullptr; ///< one int for firstNonFinite()
};

} // namespace nbody
