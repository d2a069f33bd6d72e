#include "CudaGlInterop.h"
#include "sim/base/DeviceInfo.h"
#include "sim/core/KernelRegistry.h"

#include "Renderer.h"
#include "contracts/Errors.h"
#include "contracts/Types.h"

#include <epoxy/gl.h> // before any CUDA header that includes GL

#if NBODY_HAVE_CUDA
#include "kernels/CudaCheck.cuh" // NB_CUDA_CHECK: throws nbody::CudaError

#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>
#endif

#include <atomic>
#include <cstdlib>
#include <string>

namespace nbody::gl {

ForcedInteropFailure forcedInteropFailure()
{
    ForcedInteropFailure f;
    const char* v = std::getenv("NBODY_FORCE_INTEROP_FAILURE");
    if (!v)
        return f;
    const std::string s(v);
    if (s == "register") {
        f.registration = true;
    } else if (s == "map") {
        f.mapFrom = 1;
    } else if (s.rfind("map:", 0) == 0) {
        const long long k = std::atoll(s.c_str() + 4);
        f.mapFrom = k > 0 ? k : 1;
    }
    return f;
}

#if NBODY_HAVE_CUDA
namespace {

/// The switch, read once per process.
const ForcedInteropFailure& forced()
{
    static const ForcedInteropFailure f = forcedInteropFailure();
    return f;
}

/// Calls of map() that mapped (or were forced to fail) so far in this process.
std::atomic<long long> mapCalls{0};

} // namespace
#endif

#if NBODY_HAVE_CUDA

struct CudaGlInterop::Impl {
    cudaGraphicsResource_t resources[2] = {nullptr, nullptr};
    Float4* pointers[2] = {nullptr, nullptr};
    std::size_t bytes[2] = {0, 0};
};

namespace {

std::string describe(const char* call, cudaError_t e)
{
    return std::string(call) + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
}

} // namespace

std::unique_ptr<CudaGlInterop> CudaGlInterop::create(const ParticleBuffers& buffers, std::string* whyNot)
{
    auto refuse = [whyNot](std::string why) -> std::unique_ptr<CudaGlInterop> {
        if (whyNot != nullptr)
            *whyNot = std::move(why);
        return nullptr;
    };

    // One wording of "why the GPU cannot be used" for the whole program (no device, or no code
    // for its architecture: sim/base/DeviceInfo.h).
    if (const std::string& why = cudaKernelsUnavailable(); !why.empty())
        return refuse(why);
    if (buffers.capacity() == 0 || buffers.buffer(0) == 0 || buffers.buffer(1) == 0)
        return refuse("the particle buffers are not allocated");

    // After a sticky GPU fault the context is not touched again (sim/core/KernelRegistry.h).
    if (const std::string lost = cudaContextLost(); !lost.empty())
        return refuse("the CUDA context was lost after a GPU fault (" + lost + ")");
    if (forced().registration)
        return refuse("cudaGraphicsGLRegisterBuffer: forced failure (NBODY_FORCE_INTEROP_FAILURE=register)");

    std::unique_ptr<CudaGlInterop> interop(new CudaGlInterop);
    interop->d = std::make_unique<Impl>();
    for (int i = 0; i < 2; ++i) {
        const cudaError_t e = cudaGraphicsGLRegisterBuffer(&interop->d->resources[i], buffers.buffer(i),
                                                           cudaGraphicsRegisterFlagsNone);
        if (e != cudaSuccess) {
            cudaGetLastError();
            interop->d->resources[i] = nullptr;
            // The destructor unregisters what was registered.
            return refuse(describe("cudaGraphicsGLRegisterBuffer", e) +
                          " (the GL context must belong to the CUDA device; it is " +
                          Renderer::contextDescription() + ")");
        }
    }
    return interop;
}

CudaGlInterop::~CudaGlInterop()
{
    if (!d)
        return;
    unmap();
    for (cudaGraphicsResource_t& r : d->resources) {
        if (r != nullptr)
            cudaGraphicsUnregisterResource(r); // never throws from a destructor
        r = nullptr;
    }
}

void CudaGlInterop::map(Float4** buffer0, Float4** buffer1)
{
    if (!m_mapped) {
        if (const std::string lost = cudaContextLost(); !lost.empty())
            throw CudaError("cudaGraphicsMapResources: not called, the CUDA context was lost after a GPU fault (" +
                            lost + ")");
        if (const long long from = forced().mapFrom; from > 0 && ++mapCalls >= from)
            throw CudaError("cudaGraphicsMapResources: forced failure (NBODY_FORCE_INTEROP_FAILURE=" +
                            std::string(std::getenv("NBODY_FORCE_INTEROP_FAILURE")) + ")");
        NB_CUDA_CHECK(cudaGraphicsMapResources(2, d->resources, 0));
        m_mapped = true;
        try {
            for (int i = 0; i < 2; ++i) {
                void* ptr = nullptr;
                std::size_t size = 0;
                NB_CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&ptr, &size, d->resources[i]));
                d->pointers[i] = static_cast<Float4*>(ptr);
                d->bytes[i] = size;
            }
        } catch (...) {
            unmap();
            throw;
        }
    }
    if (buffer0 != nullptr)
        *buffer0 = d->pointers[0];
    if (buffer1 != nullptr)
        *buffer1 = d->pointers[1];
}

void CudaGlInterop::unmap() noexcept
{
    if (!m_mapped)
        return;
    cudaGraphicsUnmapResources(2, d->resources, 0);
    m_mapped = false;
    d->pointers[0] = d->pointers[1] = nullptr;
    d->bytes[0] = d->bytes[1] = 0;
}

CudaGlInterop::Mapping::Mapping(CudaGlInterop& interop) : m_interop(interop)
{
    m_interop.map(&m_ptr[0], &m_ptr[1]);
    m_bytes[0] = m_interop.d->bytes[0];
    m_bytes[1] = m_interop.d->bytes[1];
}

CudaGlInterop::Mapping::~Mapping()
{
    m_interop.unmap();
}

#else // !NBODY_HAVE_CUDA

struct CudaGlInterop::Impl {};

std::unique_ptr<CudaGlInterop> CudaGlInterop::create(const ParticleBuffers&, std::string* whyNot)
{
    if (whyNot != nullptr)
        *whyNot = queryCuda().whyNone; // the program's one wording: "built without CUDA (…)"
    return nullptr;
}

CudaGlInterop::~CudaGlInterop() = default;

void CudaGlInterop::map(Float4**, Float4**)
{
    throw CudaError("CudaGlInterop::map: built without CUDA");
}

void CudaGlInterop::unmap() noexcept {}

CudaGlInterop::Mapping::Mapping(CudaGlInterop& interop) : m_interop(interop)
{
    m_interop.map(&m_ptr[0], &m_ptr[1]);
}

CudaGlInterop::Mapping::~Mapping() = default;

#endif

} // namespace nbody::gl
