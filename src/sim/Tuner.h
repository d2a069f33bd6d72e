#pragma once
/// \file Tuner.h
/// The launch-parameter tuner: per device, kernel row and N bucket, a short measurement picks the
/// launch parameters the row reads (KernelParamUse); the choices are cached in a file in the
/// user's cache directory and applied to the parameters a user left on auto (0).

#include "KernelRegistry.h"

namespace nbody {

/// Fills the auto (0) launch parameters of `args` that row k reads with the tuned choice for the
/// current device and args.n's bucket, when the tuning cache has one; leaves them 0 otherwise.
/// Never throws (an unreadable cache is treated as empty).
void applyTunedLaunch(const KernelInfo& k, DeviceForceArgs& args);

} // namespace nbody
