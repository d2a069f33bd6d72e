#pragma once
/// \file DeviceState.h
/// The simulation's state on the GPU: device columns of velocities and accelerations, and two
/// position buffers used ping-pong (owned, or provided by the caller — mapped GL buffers). Host
/// API without CUDA headers; every method throws CudaError on a CUDA failure.

#include "sim/KernelRegistry.h"
#include "sim/SimParams.h"
#include "sim/Simulation.h"
#include "sim/World.h"

#include <cstddef>

namespace nbody {

class DeviceState {
public:
    /// Allocates velocity and acceleration columns for n bodies, and two position buffers when
    /// storage is Owned. Throws CudaError (e.g. out of memory).
    DeviceState(std::size_t n, PositionStorage storage);
    ~DeviceState();
    DeviceState(const DeviceState&) = delete;
    DeviceState& operator=(const DeviceState&) = delete;

    std::size_t size() const { return m_n; }
    PositionStorage storage() const { return m_storage; }

    /// External storage: the two buffers (device, ≥ n Float4 each) until detach().
    void attach(Float4* p0, Float4* p1);
    void detach();
    /// True when positions can be accessed (Owned, or External and attached).
    bool hasPositions() const { return m_pos[0] && m_pos[1]; }

    /// Copies positions (into buffer `current`), velocities and accelerations to the device.
    void upload(const World& w, int current);
    /// Copies them back (positions from buffer `current`); synchronises.
    void download(World& w, int current) const;

    /// acc = F(pos[current]) with the kernel's launcher.
    void computeForces(const KernelInfo& k, const SimParams& p, int current);
    /// Opening kick and drift: vel += ½ acc dt; pos[1-current] = pos[current] + vel dt (mass
    /// copied). Reads one buffer and writes the other (no in-place race, seeds defect 1).
    void kickDrift(float dt, int current);
    /// Closing kick: vel += ½ acc dt.
    void kick(float dt);
    /// Index of the first body whose position, mass or velocity is not finite (positions in
    /// buffer `current`), or -1 when all are; one pass over 32 bytes per body, 4 bytes copied back.
    long long firstNonFinite(int current);
    /// Waits for the device (checked).
    void synchronize() const;

private:
    std::size_t m_n = 0;
    PositionStorage m_storage;
    Float4* m_owned[2] = {nullptr, nullptr};
    Float4* m_pos[2] = {nullptr, nullptr};
    Float4* m_vel = nullptr;
    Float4* m_acc = nullptr;
    int* m_flag = nullptr; ///< one int for firstNonFinite()
};

} // namespace nbody
