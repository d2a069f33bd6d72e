#pragma once
/// \file KernelImage.h
/// Whether this build's kernels library has code the current CUDA device can run (host API, no
/// CUDA headers).

#include <string>

namespace nbody::gpu {

/// Loads an empty kernel compiled with the same architectures as every kernel of the library
/// (cudaFuncGetAttributes, which loads the module and, where only PTX fits the device, has the
/// driver compile it). "" when it loads; else the runtime's error name and text, e.g.
/// "cudaErrorNoKernelImageForDevice: no kernel image is available for execution on the device"
/// or cudaErrorUnsupportedPtxVersion (a driver older than the PTX). Creates the CUDA context of
/// the current device. Never throws; the error is cleared.
std::string probeKernelImage();

} // namespace nbody::gpu
