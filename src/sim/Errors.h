#pragma once
/// \file Errors.h
/// Exceptions raised by the core and the kernels (never exit()).

#include <stdexcept>
#include <string>

namespace nbody {

/// A CUDA runtime call or kernel launch failed. what(): "<call> failed at <file>:<line>:
/// <cudaGetErrorName>: <cudaGetErrorString>". Callers report it and fall back to the CPU.
class CudaError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace nbody
