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

/// A file that cannot be read as requested (a snapshot reader's error); what() names the file,
/// and where it applies the field and the particle ("HDF5 file 'a.h5': PartType1/Masses[17]
/// is negative (-1)").
class FormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace nbody
