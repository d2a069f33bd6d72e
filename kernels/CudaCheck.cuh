#pragma once
/// \file CudaCheck.cuh
/// Checking of every CUDA runtime call and launch: failures throw nbody::CudaError with the
/// expression, file and line (never exit()).

#include "contracts/Errors.h"

#include <cuda_runtime.h>
#include <string>

namespace nbody::detail {

[[noreturn]] inline void throwCudaError(cudaError_t e, const char* what, const char* file, int line)
{
    throw CudaError(std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " +
                    cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

} // namespace nbody::detail

/// Evaluates a CUDA runtime call; throws nbody::CudaError when it does not return cudaSuccess.
#define NB_CUDA_CHECK(expr)                                                                    \
    do {                                                                                       \
        const cudaError_t nb_err_ = (expr);                                                    \
        if (nb_err_ != cudaSuccess)                                                            \
            ::nbody::detail::throwCudaError(nb_err_, #expr, __FILE__, __LINE__);               \
    } while (0)

/// Checks the launch just made (configuration errors; asynchronous faults surface at the next
/// synchronising call, which is checked too).
#define NB_CUDA_CHECK_LAUNCH(name)                                                             \
    do {                                                                                       \
        const cudaError_t nb_err_ = cudaGetLastError();                                        \
        if (nb_err_ != cudaSuccess)                                                            \
            ::nbody::detail::throwCudaError(nb_err_, "launch of " name, __FILE__, __LINE__);   \
    } while (0)
