#include "EglContext.h"

#include "Renderer.h" // GlError

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace nbody::gl {

namespace {

std::string eglErrorName(EGLint e)
{
    switch (e) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
    default: break;
    }
    char b[32];
    std::snprintf(b, sizeof b, "EGL error 0x%04x", static_cast<unsigned>(e));
    return b;
}

/// "<step> failed (EGL_BAD_MATCH 0x3009)" with the thread's current EGL error.
std::string eglFailure(const std::string& step)
{
    const EGLint e = eglGetError();
    char code[16];
    std::snprintf(code, sizeof code, "0x%04x", static_cast<unsigned>(e));
    return step + " failed (" + eglErrorName(e) + " " + code + ")";
}

/// Whether a space-separated extension string lists `name` (whole words only).
bool hasExtension(const char* list, const char* name)
{
    if (list == nullptr)
        return false;
    const std::size_t n = std::strlen(name);
    for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += n) {
        const bool startOk = p == list || p[-1] == ' ';
        const bool endOk = p[n] == '\0' || p[n] == ' ';
        if (startOk && endOk)
            return true;
    }
    return false;
}

// eglInitialize/eglTerminate are not reference counted (without EGL_KHR_display_reference), and
// eglGetPlatformDisplay returns the same handle for the same device: count our users per display
// so one context's destruction does not terminate another's display.
std::mutex g_displayMutex;
std::map<EGLDisplay, int> g_displayUsers;

void retainDisplay(EGLDisplay dpy)
{
    std::lock_guard lock(g_displayMutex);
    ++g_displayUsers[dpy];
}

/// Returns true when this was the last user (the caller may terminate the display).
bool releaseDisplay(EGLDisplay dpy)
{
    std::lock_guard lock(g_displayMutex);
    auto it = g_displayUsers.find(dpy);
    if (it == g_displayUsers.end())
        return false;
    if (--it->second > 0)
        return false;
    g_displayUsers.erase(it);
    return true;
}

class EglStepError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct DeviceCandidate {
    EGLDeviceEXT device = nullptr;
    int index = 0;       ///< position in eglQueryDevicesEXT's list
    int cudaDevice = -1; ///< EGL_CUDA_DEVICE_NV, −1 when not a CUDA device
    std::string name;    ///< DRM device file, "software", or ""
    int rank = 0;        ///< lower is tried first
};

} // namespace

struct EglContext::Impl {
    EGLDisplay display = EGL_NO_DISPLAY;
    EGLContext context = EGL_NO_CONTEXT;
    EGLSurface surface = EGL_NO_SURFACE; ///< 1x1 pbuffer when surfaceless is unsupported
    bool terminate = true;               ///< terminate the display with its last user
    int cudaDevice = -1;
    std::string platform;
    std::string gl;

    /// Initialises `dpy` and creates a current 3.3 core context on it; throws EglStepError.
    void open(EGLDisplay dpy, bool terminateWithLastUser);
    void close() noexcept;
};

void EglContext::Impl::open(EGLDisplay dpy, bool terminateWithLastUser)
{
    if (dpy == EGL_NO_DISPLAY)
        throw EglStepError(eglFailure("getting the display"));
    EGLint major = 0, minor = 0;
    if (!eglInitialize(dpy, &major, &minor))
        throw EglStepError(eglFailure("eglInitialize"));
    display = dpy;
    terminate = terminateWithLastUser;
    retainDisplay(dpy);
    try {
        if (!eglBindAPI(EGL_OPENGL_API))
            throw EglStepError(eglFailure("eglBindAPI(EGL_OPENGL_API)"));
        const char* ext = eglQueryString(dpy, EGL_EXTENSIONS);
        const bool surfaceless = hasExtension(ext, "EGL_KHR_surfaceless_context");
        const bool createContext = (major > 1 || (major == 1 && minor >= 5)) || hasExtension(ext, "EGL_KHR_create_context");
        if (!createContext)
            throw EglStepError("EGL " + std::to_string(major) + "." + std::to_string(minor) +
                               " without EGL_KHR_create_context cannot ask for OpenGL 3.3 core");

        // A pbuffer-capable config first (works either way); any config when surfaceless.
        EGLConfig config = nullptr;
        EGLint count = 0;
        bool pbufferConfig = true;
        const EGLint pbufferAttribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                         EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE};
        if (!eglChooseConfig(dpy, pbufferAttribs, &config, 1, &count) || count < 1) {
            pbufferConfig = false;
            const EGLint anyAttribs[] = {EGL_SURFACE_TYPE, 0, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
            if (!eglChooseConfig(dpy, anyAttribs, &config, 1, &count))
                throw EglStepError(eglFailure("eglChooseConfig"));
            if (count < 1)
                throw EglStepError("eglChooseConfig found no OpenGL-renderable config");
        }

        const EGLint contextAttribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                         EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                         EGL_NONE};
        context = eglCreateContext(dpy, config, EGL_NO_CONTEXT, contextAttribs);
        if (context == EGL_NO_CONTEXT)
            throw EglStepError(eglFailure("eglCreateContext(OpenGL 3.3 core)"));

        bool current = surfaceless && eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, context);
        if (!current) {
            if (!pbufferConfig)
                throw EglStepError(surfaceless ? eglFailure("eglMakeCurrent(surfaceless)")
                                               : std::string("no EGL_KHR_surfaceless_context and no pbuffer config"));
            const EGLint pbufferSize[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
            surface = eglCreatePbufferSurface(dpy, config, pbufferSize);
            if (surface == EGL_NO_SURFACE)
                throw EglStepError(eglFailure("eglCreatePbufferSurface(1x1)"));
            if (!eglMakeCurrent(dpy, surface, surface, context))
                throw EglStepError(eglFailure("eglMakeCurrent(pbuffer)"));
        }

        const int version = epoxy_gl_version();
        if (version < 33 || !epoxy_is_desktop_gl())
            throw EglStepError("the context is OpenGL " + std::to_string(version / 10) + "." +
                               std::to_string(version % 10) + ", not desktop OpenGL 3.3");
        gl = Renderer::contextDescription();
        platform += ", EGL " + std::to_string(major) + "." + std::to_string(minor);
        if (surface != EGL_NO_SURFACE)
            platform += ", 1x1 pbuffer";
    } catch (...) {
        close();
        throw;
    }
}

void EglContext::Impl::close() noexcept
{
    if (display == EGL_NO_DISPLAY)
        return;
    if (context != EGL_NO_CONTEXT && eglGetCurrentContext() == context)
        eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (surface != EGL_NO_SURFACE)
        eglDestroySurface(display, surface);
    if (context != EGL_NO_CONTEXT)
        eglDestroyContext(display, context);
    if (releaseDisplay(display) && terminate)
        eglTerminate(display);
    display = EGL_NO_DISPLAY;
    context = EGL_NO_CONTEXT;
    surface = EGL_NO_SURFACE;
}

EglContext::EglContext() : EglContext(0) {}

EglContext::EglContext(int preferredCudaDevice) : d(std::make_unique<Impl>())
{
    std::vector<std::string> failures;
    auto attempt = [&](const std::string& label, auto getDisplay, bool terminateWithLastUser) {
        d->platform = label;
        try {
            d->open(getDisplay(), terminateWithLastUser);
            return true;
        } catch (const EglStepError& e) {
            failures.push_back(label + ": " + e.what());
            d->platform.clear();
            return false;
        }
    };

    // NBODY_EGL_PLATFORM=device|surfaceless|default restricts the search to one platform
    // (diagnostics on a server whose first working platform is not the wanted one).
    const char* only = std::getenv("NBODY_EGL_PLATFORM");
    const std::string forced = only ? only : "";
    auto allowed = [&](const char* platform) { return forced.empty() || forced == platform; };

    const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS); // null without client extensions
    if (client == nullptr)
        eglGetError(); // clears EGL_BAD_DISPLAY
    const bool platformBase = hasExtension(client, "EGL_EXT_platform_base");
    const bool deviceBase = hasExtension(client, "EGL_EXT_device_base");
    const bool enumerate = deviceBase || hasExtension(client, "EGL_EXT_device_enumeration");
    const bool query = deviceBase || hasExtension(client, "EGL_EXT_device_query");

    // 1. The EGL device platform: NVIDIA's driver (the CUDA device first), Mesa's devices.
    if (!allowed("device")) {
        failures.push_back("EGL device platform: skipped (NBODY_EGL_PLATFORM=" + forced + ")");
    } else if (platformBase && enumerate && hasExtension(client, "EGL_EXT_platform_device")) {
        EGLint n = 0;
        std::vector<DeviceCandidate> candidates;
        if (eglQueryDevicesEXT(0, nullptr, &n) && n > 0) {
            std::vector<EGLDeviceEXT> devices(static_cast<std::size_t>(n));
            if (eglQueryDevicesEXT(n, devices.data(), &n)) {
                for (int i = 0; i < n; ++i) {
                    DeviceCandidate c;
                    c.device = devices[static_cast<std::size_t>(i)];
                    c.index = i;
                    const char* devExt = query ? eglQueryDeviceStringEXT(c.device, EGL_EXTENSIONS) : nullptr;
                    EGLAttrib value = 0;
                    if (hasExtension(devExt, "EGL_NV_device_cuda") &&
                        eglQueryDeviceAttribEXT(c.device, EGL_CUDA_DEVICE_NV, &value))
                        c.cudaDevice = static_cast<int>(value);
                    if (hasExtension(devExt, "EGL_EXT_device_drm")) {
                        const char* file = eglQueryDeviceStringEXT(c.device, EGL_DRM_DEVICE_FILE_EXT);
                        c.name = file ? file : "";
                    } else if (hasExtension(devExt, "EGL_MESA_device_software")) {
                        c.name = "software";
                    }
                    eglGetError(); // a failed query must not leak into a later step's report
                    c.rank = c.cudaDevice == preferredCudaDevice ? 0
                             : c.cudaDevice >= 0                  ? 1
                             : c.name != "software"               ? 2
                                                                  : 3;
                    candidates.push_back(std::move(c));
                }
            }
        }
        if (candidates.empty())
            failures.push_back("EGL device platform: eglQueryDevicesEXT found no device");
        std::stable_sort(candidates.begin(), candidates.end(),
                         [](const DeviceCandidate& a, const DeviceCandidate& b) { return a.rank < b.rank; });
        for (const DeviceCandidate& c : candidates) {
            std::string label = "EGL device platform (device " + std::to_string(c.index) + " of " +
                                std::to_string(n);
            if (!c.name.empty())
                label += ", " + c.name;
            if (c.cudaDevice >= 0)
                label += ", CUDA device " + std::to_string(c.cudaDevice);
            label += ")";
            if (attempt(label, [&] { return eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, c.device, nullptr); },
                        true)) {
                d->cudaDevice = c.cudaDevice;
                return;
            }
        }
    } else {
        failures.push_back("EGL device platform: not supported (no EGL_EXT_platform_device)");
    }

    // 2. Mesa's surfaceless platform.
    if (allowed("surfaceless") && platformBase && hasExtension(client, "EGL_MESA_platform_surfaceless")) {
        if (attempt("EGL surfaceless platform (Mesa)",
                    [] { return eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr); },
                    true))
            return;
    }

    // 3. The default display (may be shared with a windowing toolkit: never terminated here).
    if (allowed("default") && attempt("EGL default display", [] { return eglGetDisplay(EGL_DEFAULT_DISPLAY); }, false))
        return;

    std::string message = "EGL: no OpenGL 3.3 core context could be created:";
    for (const std::string& f : failures)
        message += "\n  " + f;
    throw GlError(message);
}

EglContext::~EglContext()
{
    if (d)
        d->close();
}

void EglContext::makeCurrent()
{
    if (!eglBindAPI(EGL_OPENGL_API))
        throw GlError(eglFailure("EglContext::makeCurrent: eglBindAPI(EGL_OPENGL_API)"));
    if (!eglMakeCurrent(d->display, d->surface, d->surface, d->context))
        throw GlError(eglFailure("EglContext::makeCurrent: eglMakeCurrent"));
}

void EglContext::doneCurrent()
{
    if (eglGetCurrentContext() == d->context)
        eglMakeCurrent(d->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

std::string EglContext::description() const
{
    return d->platform + ": " + d->gl;
}

std::string EglContext::platform() const
{
    return d->platform;
}

int EglContext::cudaDevice() const
{
    return d->cudaDevice;
}

} // namespace nbody::gl
