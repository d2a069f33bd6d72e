#pragma once
/// \file Ceiling.h
/// The issue-slot ceiling of a force kernel on a CUDA device: the most interactions per second
/// the device's arithmetic pipes can retire when each interaction costs the row's
/// KernelInfo::slotsPerInteraction slots (docs/performance.md, "The ceiling"):
///
///     ceiling = SMs × lanes per SM (fp32 or fp64 pipe) × SM clock ÷ slots per interaction
///
/// For an NVIDIA H200 (132 SMs, 128 fp32 lanes, 1.98 GHz): 3.35e13 fp32 slots/s, so 1.97e12
/// interactions/s for `tiled`'s 17 slots. Shared by `nbody bench` (the "ceiling %" column) and
/// the app's Kernel dock (the live share). CPU rows have no ceiling here (0).

#include "sim/base/DeviceInfo.h"
#include "sim/core/KernelRegistry.h"

namespace nbody {

/// Results per clock per multiprocessor of fp32 and fp64 add / multiply / fused multiply-add.
struct PipeLanes {
    int fp32 = 0;
    int fp64 = 0;
};

/// The lanes of compute capability major.minor, from the throughput table of the CUDA C++
/// Programming Guide ("Arithmetic Instructions", results per clock cycle per multiprocessor):
/// 5.x, 6.1, 6.2 → 128 / 4; 6.0, 7.0, 8.0 → 64 / 32; 7.5 → 64 / 2; 8.6, 8.7, 8.9, 12.x →
/// 128 / 2; 9.0, 10.0 → 128 / 64. {0, 0} for a capability the table here does not list (7.2,
/// 10.3, 11.x: not stated, so no ceiling rather than a guessed one).
PipeLanes pipeLanes(int major, int minor);

/// Slots per second of the pipe that `precision` uses: SMs × lanes × clock. 0 when the device
/// does not report its SM count or clock, or its compute capability is not in pipeLanes().
double issueSlotsPerSecond(const CudaDeviceInfo& device, Precision precision);

/// The ceiling of row k on `device` in interactions per second: issueSlotsPerSecond ÷
/// k.slotsPerInteraction. 0 (not defined) for CPU rows, rows that state no slot count, and
/// devices whose slot rate is unknown.
double interactionCeiling(const KernelInfo& k, const CudaDeviceInfo& device);

/// Launches one force pass of row k over n bodies makes (≥ 1): p.forceSlices when set (at most
/// n); else 1, or — on a device with a kernel-execution timeout (watchdogDevice(), the display
/// watchdog) — ceil(predicted pass time / p.watchdogLaunchMs), the pass time predicted as n²
/// interactions at a quarter of the row's ceiling (the kernels reach 30–80 % of it, so the
/// slices err on the short side; 1e10 interactions/s when the row states no slot count). Rows
/// that cannot be sliced (KernelInfo::iSlices false): 1. Every device force pass goes through it.
int forceSlices(const KernelInfo& k, const SimParams& p, std::size_t n);

/// achieved ÷ ceiling (0.73 for 73 %); 0 when the ceiling is 0 or achieved is not positive.
double shareOfCeiling(double achievedInteractionsPerSecond, double ceilingInteractionsPerSecond);

} // namespace nbody
