#include "sim/base/MachineInfo.h"

#include <nlohmann/json.hpp>

#include <omp.h>

#include <algorithm>
#include <cstdio>

namespace nbody {

namespace {

std::string format(const char* f, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string yesNo(bool b)
{
    return b ? "yes" : "no";
}

std::string megahertz(int kHz)
{
    return kHz > 0 ? format("%.0f MHz", kHz / 1000.0) : "not reported";
}

MachineSection deviceSection(const CudaDeviceInfo& d)
{
    MachineSection s;
    s.key = "cudaDevice" + std::to_string(d.index);
    s.title = "CUDA device " + std::to_string(d.index) + ": " + d.name;
    auto add = [&s](std::string key, std::string label, std::string value, std::string tooltip = {}) {
        s.rows.push_back({std::move(key), std::move(label), std::move(value), std::move(tooltip)});
    };
    add("name", "Name", d.name);
    add("computeCapability", "Compute capability", std::to_string(d.major) + "." + std::to_string(d.minor),
        "The architecture generation (major.minor): 10.x and 12.x Blackwell, 9.0 Hopper, 8.x Ampere and "
        "Ada, 7.x Volta and Turing");
    add("code", "Code in this build", d.whyNoCode.empty() ? "yes (" + builtCudaArchitectures() + ")" : "no: " + d.whyNoCode,
        "The CUDA architectures this program's kernels were compiled for (NBODY_CUDA_ARCHITECTURES at "
        "configure time); without code for this GPU every CUDA kernel is unavailable and the CPU kernels run");
    add("multiprocessors", "Multiprocessors (SMs)", std::to_string(d.multiprocessors),
        "Streaming multiprocessors: each runs several thread blocks at once");
    add("smClock", "SM clock", megahertz(d.clockKHz), "The multiprocessors' peak clock (cudaDevAttrClockRate)");
    add("memoryClock", "Memory clock", megahertz(d.memoryClockKHz), "cudaDevAttrMemoryClockRate");
    add("memoryBusWidth", "Memory bus width", std::to_string(d.memoryBusWidthBits) + " bit");
    const double bandwidth = peakMemoryBandwidth(d);
    add("peakMemoryBandwidth", "Peak memory bandwidth (computed)",
        bandwidth > 0 ? format("%.1f GB/s", bandwidth / 1e9) : "not known",
        "Theoretical: 2 × memory clock × bus width / 8 (double data rate), not a measurement");
    add("globalMemory", "Global memory",
        formatBytes(double(d.globalMemoryBytes)) + " (" + std::to_string(d.globalMemoryBytes) + " bytes)");
    add("l2Cache", "L2 cache", d.l2CacheBytes > 0 ? formatBytes(double(d.l2CacheBytes)) : "not reported");
    add("sharedMemoryPerBlock", "Shared memory per block",
        formatBytes(double(d.sharedMemoryPerBlock)) + " (opt-in up to " +
            formatBytes(double(d.sharedMemoryPerBlockOptin)) + ")",
        "What a block gets by default; a kernel may opt in to the larger limit "
        "(cudaFuncAttributeMaxDynamicSharedMemorySize)");
    add("maxThreadsPerBlock", "Max threads per block", std::to_string(d.maxThreadsPerBlock),
        "Upper bound on block size (the Kernel dock's block size × block rows)");
    add("warpSize", "Warp size", std::to_string(d.warpSize), "Threads that execute in lock step");
    add("kernelTimeout", "Kernel-execution watchdog",
        d.kernelTimeout ? "on (kernels running longer than a few seconds are killed)" : "off",
        "On when the GPU also drives a display: the driver then aborts long kernels, so a large N per "
        "step can fail with cudaErrorLaunchTimeout");
    add("ecc", "ECC memory", d.eccEnabled ? "enabled" : "disabled");
    add("pciBusId", "PCI bus id", d.pciBusId.empty() ? "not reported" : d.pciBusId);
    add("integrated", "Integrated GPU", yesNo(d.integrated), "Shares its memory with the host (e.g. Jetson)");
    add("concurrentManagedAccess", "Concurrent managed access", yesNo(d.concurrentManagedAccess),
        "Host and device may access managed (unified) memory at the same time");
    return s;
}

} // namespace

const MachineRow* MachineSection::row(const std::string& rowKey) const
{
    const auto it = std::find_if(rows.begin(), rows.end(), [&](const MachineRow& r) { return r.key == rowKey; });
    return it == rows.end() ? nullptr : &*it;
}

std::string formatBytes(double bytes)
{
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 4) {
        bytes /= 1024.0;
        ++u;
    }
    if (u == 0)
        return format("%.0f B", bytes);
    // three significant digits, without a trailing ".0" for whole numbers (48 KiB, 227 KiB)
    const bool whole = bytes == double(static_cast<long long>(bytes));
    const char* f = whole || bytes >= 100 ? "%.0f " : bytes < 10 ? "%.2f " : "%.1f ";
    return format(f, bytes) + units[u];
}

std::vector<MachineSection> describeMachine(const CudaRuntimeInfo& cuda, int openmpThreads, int openmpProcessors,
                                            const GlContextInfo& gl)
{
    std::vector<MachineSection> out;

    MachineSection c{"cuda", "CUDA", {}};
    c.rows.push_back({"builtWithCuda", "Built with CUDA", yesNo(cuda.builtWithCuda),
                      "Whether this program was compiled with the CUDA kernels (nvcc found at configure time)"});
    c.rows.push_back({"driverVersion", "Driver version", cudaVersionString(cuda.driverVersion),
                      "The CUDA version the installed NVIDIA driver supports (cudaDriverGetVersion)"});
    c.rows.push_back({"runtimeVersion", "Runtime version", cudaVersionString(cuda.runtimeVersion),
                      "The CUDA runtime this program was built with (cudaRuntimeGetVersion)"});
    c.rows.push_back({"deviceCount", "Devices", std::to_string(cuda.devices.size()), {}});
    if (!cuda.whyNone.empty())
        c.rows.push_back({"whyNoDevice", "Why no device", cuda.whyNone,
                          "The CUDA kernels are unavailable; the CPU kernels (OpenMP) run instead"});
    out.push_back(std::move(c));

    for (const CudaDeviceInfo& d : cuda.devices)
        out.push_back(deviceSection(d));

    MachineSection omp{"openmp", "CPU (OpenMP)", {}};
    omp.rows.push_back({"threads", "OpenMP threads", std::to_string(openmpThreads),
                        "Threads the CPU kernels and the fp64 reference use (omp_get_max_threads; set "
                        "OMP_NUM_THREADS to change it)"});
    omp.rows.push_back({"processors", "Processors", std::to_string(openmpProcessors),
                        "Processors available to this process (omp_get_num_procs)"});
    out.push_back(std::move(omp));

    MachineSection g{"opengl", "OpenGL", {}};
    if (!gl.error.empty()) {
        // One line, as every row's value: the failed attempts of a multi-line EGL error joined
        // with "; " (the table would read its continuation lines as rows of their own).
        std::string why = gl.error;
        for (std::size_t at; (at = why.find('\n')) != std::string::npos;) {
            std::size_t end = at + 1;
            while (end < why.size() && why[end] == ' ')
                ++end;
            const bool colon = at > 0 && why[at - 1] == ':';
            why.replace(at, end - at, colon ? " " : "; ");
        }
        g.rows.push_back({"context", "Context", "none: " + why, {}});
    } else {
        g.rows.push_back({"context", "Context", gl.context, {}});
        g.rows.push_back({"vendor", "Vendor", gl.vendor, "glGetString(GL_VENDOR)"});
        g.rows.push_back({"renderer", "Renderer", gl.renderer, "glGetString(GL_RENDERER)"});
        g.rows.push_back({"version", "Version", gl.version, "glGetString(GL_VERSION)"});
    }
    std::string interop;
    if (gl.headless)
        interop = gl.interop ? "available for `nbody run` and `nbody render`" : "not available: " + gl.whyNoInterop;
    else
        interop = gl.interop ? "in use" : "not in use: " + gl.whyNoInterop;
    g.rows.push_back({"interop", "CUDA-GL interop", interop,
                      "With interop the CUDA kernels write the positions straight into the OpenGL buffers "
                      "that are drawn; without it they are copied to the host and uploaded every frame. "
                      "It needs the OpenGL context on the CUDA device (NVIDIA's driver, not Mesa)."});
    out.push_back(std::move(g));
    return out;
}

std::vector<MachineSection> describeMachine(const GlContextInfo& gl)
{
    return describeMachine(queryCuda(), omp_get_max_threads(), omp_get_num_procs(), gl);
}

std::string machineText(const std::vector<MachineSection>& sections)
{
    std::size_t width = 0;
    for (const MachineSection& s : sections)
        for (const MachineRow& r : s.rows)
            width = std::max(width, r.label.size());
    std::string out;
    for (std::size_t i = 0; i < sections.size(); ++i) {
        if (i > 0)
            out += "\n";
        out += sections[i].title + "\n";
        for (const MachineRow& r : sections[i].rows)
            out += "  " + r.label + ":" + std::string(width - r.label.size() + 2, ' ') + r.value + "\n";
    }
    return out;
}

nlohmann::json machineJson(const std::vector<MachineSection>& sections)
{
    nlohmann::json out = nlohmann::json::array();
    for (const MachineSection& s : sections) {
        nlohmann::json rows = nlohmann::json::array();
        for (const MachineRow& r : s.rows)
            rows.push_back({{"key", r.key}, {"label", r.label}, {"value", r.value}, {"tooltip", r.tooltip}});
        out.push_back({{"key", s.key}, {"title", s.title}, {"rows", rows}});
    }
    return out;
}

} // namespace nbody
