#pragma once
/// \file CudaGlInterop.h
/// Registers the two ping-pong GL buffers with CUDA (cudaGraphicsGLRegisterBuffer) and maps them
/// for a scope, so kernels read and write positions in the GL buffers directly (RAII: the
/// registration is released before the buffers or the context die). Registration, mapping and
/// unmapping are GL-context calls: make them on the thread that owns the current context.

#include <memory>
#include <string>

namespace nbody { struct Float4; }

namespace nbody::gl {

class ParticleBuffers;

/// The test switch NBODY_FORCE_INTEROP_FAILURE (read once per process by CudaGlInterop):
/// "register": create() refuses as if cudaGraphicsGLRegisterBuffer failed; "map": every map()
/// throws CudaError as if cudaGraphicsMapResources failed; "map:K": the first K−1 maps of the
/// process succeed and every later one fails (a refusal in the middle of a run). Unset or any
/// other value: no forced failure. The messages name the switch.
struct ForcedInteropFailure {
    bool registration = false;
    long long mapFrom = 0; ///< 1-based index of the first map() that fails; 0: none
};
/// The switch as the environment sets it now.
ForcedInteropFailure forcedInteropFailure();

class CudaGlInterop {
public:
    /// Registers buffers(0) and buffers(1). Returns nullptr and sets *whyNot when CUDA is not
    /// built in, there is no device, the CUDA context was lost (markCudaContextLost; then no
    /// CUDA call is made, as map() makes none), or registration fails ("cudaGraphicsGLRegisterBuffer:
    /// operation not supported (the GL context is Mesa llvmpipe, not on the CUDA device)").
    static std::unique_ptr<CudaGlInterop> create(const ParticleBuffers& buffers, std::string* whyNot);
    ~CudaGlInterop();

    /// Both buffers mapped for CUDA while this object lives.
    class Mapping {
    public:
        explicit Mapping(CudaGlInterop& interop); ///< throws CudaError
        ~Mapping();                               ///< unmaps; never throws
        Mapping(const Mapping&) = delete;
        Mapping& operator=(const Mapping&) = delete;
        Float4* buffer(int index) const { return m_ptr[index]; }
        std::size_t bytes(int index) const { return m_bytes[index]; }

    private:
        CudaGlInterop& m_interop;
        Float4* m_ptr[2] = {nullptr, nullptr};
        std::size_t m_bytes[2] = {0, 0};
    };

    /// Explicit map/unmap for callers that span threads (the app maps on the GUI thread, the
    /// worker steps, the GUI thread unmaps). map() throws CudaError; when already mapped it
    /// returns the same pointers (a Mapping's destructor unmaps even then). Both use stream 0:
    /// GL work is finished before CUDA work in stream 0 starts, and unmap() waits for stream 0
    /// before GL uses the buffers again; kernels on other streams must be synchronised first.
    void map(Float4** buffer0, Float4** buffer1);
    void unmap() noexcept;
    bool mapped() const { return m_mapped; }

private:
    CudaGlInterop() = default;
    struct Impl;
    std::unique_ptr<Impl> d;
    bool m_mapped = false;
};

} // namespace nbody::gl
