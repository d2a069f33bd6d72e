// sim/base/MachineInfo.h: the rows of the Device dock and `nbody devices` carry what the CUDA runtime
// (queryCuda) and OpenMP report, the text form aligns them, the JSON form holds the same rows.
// Qt Core only, label gpu: on a machine without a device the "why no device" row is checked, on
// the GPU machine every device's rows are compared with queryCuda().
#include "sim/base/MachineInfo.h"
#include "sim/core/Ceiling.h"
#include "sim/core/KernelRegistry.h"

#include <nlohmann/json.hpp>

#include <omp.h>

#include <QtTest>

#include <sstream>

using namespace nbody;

// std::string comparisons that print both values when they differ.
#define QCOMPARE_S(actual, expected) QCOMPARE(QString::fromStdString(actual), QString::fromStdString(expected))

namespace {

const MachineSection* section(const std::vector<MachineSection>& sections, const std::string& key)
{
    for (const MachineSection& s : sections)
        if (s.key == key)
            return &s;
    return nullptr;
}

/// The value of row `row` of section `sec`; fails the test (returns "") when either is missing.
std::string value(const std::vector<MachineSection>& sections, const std::string& sec, const std::string& row)
{
    const MachineSection* s = section(sections, sec);
    if (!s)
        return "<no section " + sec + ">";
    const MachineRow* r = s->row(row);
    return r ? r->value : "<no row " + sec + "." + row + ">";
}

GlContextInfo llvmpipe()
{
    GlContextInfo gl;
    gl.context = "test context";
    gl.vendor = "Mesa/X.org";
    gl.renderer = "llvmpipe (LLVM 15.0.6, 256 bits)";
    gl.version = "4.5 (Core Profile) Mesa 22.3.6";
    gl.whyNoInterop = "no CUDA device is present";
    return gl;
}

} // namespace

class TestMachineInfo : public QObject {
    Q_OBJECT
private slots:
    void cudaRowsCarryTheRuntimesValues()
    {
        const CudaRuntimeInfo cuda = queryCuda();
        const std::vector<MachineSection> s = describeMachine(llvmpipe());
        QCOMPARE_S(s.front().key, std::string("cuda"));
        QCOMPARE_S(value(s, "cuda", "builtWithCuda"), std::string(cuda.builtWithCuda ? "yes" : "no"));
        QCOMPARE_S(value(s, "cuda", "driverVersion"), cudaVersionString(cuda.driverVersion));
        QCOMPARE_S(value(s, "cuda", "runtimeVersion"), cudaVersionString(cuda.runtimeVersion));
        QCOMPARE_S(value(s, "cuda", "deviceCount"), std::to_string(cuda.devices.size()));
        if (cuda.devices.empty()) {
            // No device: the reason is a row of its own, and there are no device sections.
            QVERIFY(!cuda.whyNone.empty());
            QCOMPARE_S(value(s, "cuda", "whyNoDevice"), cuda.whyNone);
            QCOMPARE(s.size(), std::size_t(3)); // cuda, openmp, opengl
            QSKIP("no CUDA device: the per-device rows are checked on the GPU machine");
        }
        QVERIFY(section(s, "cuda")->row("whyNoDevice") == nullptr);
        QCOMPARE(s.size(), cuda.devices.size() + 3);
        for (const CudaDeviceInfo& d : cuda.devices) {
            const std::string k = "cudaDevice" + std::to_string(d.index);
            QVERIFY2(section(s, k), k.c_str());
            QCOMPARE_S(section(s, k)->title, "CUDA device " + std::to_string(d.index) + ": " + d.name);
            QCOMPARE_S(value(s, k, "name"), d.name);
            QCOMPARE_S(value(s, k, "computeCapability"), std::to_string(d.major) + "." + std::to_string(d.minor));
            QCOMPARE_S(value(s, k, "multiprocessors"), std::to_string(d.multiprocessors));
            QCOMPARE_S(value(s, k, "maxThreadsPerBlock"), std::to_string(d.maxThreadsPerBlock));
            QCOMPARE_S(value(s, k, "warpSize"), std::to_string(d.warpSize));
            QCOMPARE_S(value(s, k, "memoryBusWidth"), std::to_string(d.memoryBusWidthBits) + " bit");
            QVERIFY(value(s, k, "globalMemory").find("(" + std::to_string(d.globalMemoryBytes) + " bytes)") !=
                    std::string::npos);
            QVERIFY(value(s, k, "sharedMemoryPerBlock").find(formatBytes(double(d.sharedMemoryPerBlock))) == 0);
            QCOMPARE_S(value(s, k, "kernelTimeout").substr(0, 2), std::string(d.kernelTimeout ? "on" : "of"));
            QCOMPARE_S(value(s, k, "integrated"), std::string(d.integrated ? "yes" : "no"));
            if (!d.pciBusId.empty())
                QCOMPARE_S(value(s, k, "pciBusId"), d.pciBusId);
            // This build (90-real on the GPU machine) has code for the device, or says why not.
            if (d.whyNoCode.empty())
                QCOMPARE_S(value(s, k, "code"), "yes (" + builtCudaArchitectures() + ")");
            else
                QCOMPARE_S(value(s, k, "code"), "no: " + d.whyNoCode);
            QCOMPARE_S(d.whyNoCode, whyNoCudaCode(d.major, d.minor, builtCudaArchitectures()));
            // A real device reports its clocks and bus: the computed bandwidth is positive.
            QVERIFY(d.memoryClockKHz > 0 && d.memoryBusWidthBits > 0);
            QVERIFY(peakMemoryBandwidth(d) > 0);
        }
    }

    // Which devices a build's CMake architecture list runs on (the CUDA C++ Programming Guide's
    // binary- and PTX-compatibility rules) and the message when it does not.
    void codeForEachArchitecture_data()
    {
        QTest::addColumn<int>("major");
        QTest::addColumn<int>("minor");
        QTest::addColumn<QString>("built");
        QTest::addColumn<QString>("why");
        const QString all = QString(NBODY_ALL_CUDA_ARCHITECTURES).replace(',', ';');
        // Machine code runs on later minors of its major; PTX on every later capability.
        QTest::newRow("sm_90 on 9.0") << 9 << 0 << "90-real" << "";
        QTest::newRow("sm_80 on 8.6") << 8 << 6 << "80-real" << "";
        QTest::newRow("sm_86 on 8.0") << 8 << 0 << "86-real"
                                      << "built for sm_86; this GPU is sm_80: rebuild with -DNBODY_CUDA_ARCHITECTURES=80";
        QTest::newRow("sm_90+PTX on 8.9") << 8 << 9 << "90-real;90-virtual"
                                          << "built for sm_90 and compute_90 PTX; this GPU is sm_89: rebuild with "
                                             "-DNBODY_CUDA_ARCHITECTURES=89";
        QTest::newRow("compute_90 PTX on 12.0") << 12 << 0 << "90-real;90-virtual" << "";
        QTest::newRow("plain 89 is code and PTX, on 9.0") << 9 << 0 << "89" << "";
        QTest::newRow("sm_80 on 9.0 (other major)") << 9 << 0 << "80-real"
                                                    << "built for sm_80; this GPU is sm_90: rebuild with "
                                                       "-DNBODY_CUDA_ARCHITECTURES=90";
        QTest::newRow("sm_90a only on 9.0") << 9 << 0 << "90a-real" << "";
        QTest::newRow("sm_100a not on 10.3") << 10 << 3 << "100a-real"
                                             << "built for sm_100a; this GPU is sm_103: rebuild with "
                                                "-DNBODY_CUDA_ARCHITECTURES=103";
        QTest::newRow("native: the probe decides") << 8 << 6 << "native" << "";
        // The default list runs on every x86_64 data-centre and desktop GPU CUDA 13 supports
        // (Turing to Blackwell); newer ones take the PTX.
        for (const auto& [maj, min] : {std::pair{7, 5}, {8, 0}, {8, 6}, {8, 9}, {9, 0}, {10, 0}, {10, 3}, {12, 0},
                                       {12, 1}, {13, 0}})
            QTest::newRow(qPrintable(QString("all on %1.%2").arg(maj).arg(min))) << maj << min << all << "";
        QTest::newRow("all not on 7.0") << 7 << 0 << all
                                        << "built for sm_75, sm_80, sm_86, sm_89, sm_90, sm_100, sm_120 and "
                                           "compute_120 PTX; this GPU is sm_70: rebuild with "
                                           "-DNBODY_CUDA_ARCHITECTURES=70";
    }
    void codeForEachArchitecture()
    {
        QFETCH(int, major);
        QFETCH(int, minor);
        QFETCH(QString, built);
        QFETCH(QString, why);
        QCOMPARE(QString::fromStdString(whyNoCudaCode(major, minor, built.toStdString())), why);
    }

    // The ceiling arithmetic (lanes per SM, sim/core/Ceiling.h) knows every architecture the
    // default build has code for.
    void ceilingCoversEveryBuiltArchitecture()
    {
        for (const QString& e : QString(NBODY_ALL_CUDA_ARCHITECTURES).split(',')) {
            const int n = e.section('-', 0, 0).toInt();
            const PipeLanes lanes = pipeLanes(n / 10, n % 10);
            QVERIFY2(lanes.fp32 > 0 && lanes.fp64 > 0, qPrintable(e));
        }
    }

    // Kernels without code for the device are unavailable with the reason (the arithmetic above
    // decides before any CUDA context exists).
    void kernelsWithoutCodeAreUnavailable()
    {
        const CudaRuntimeInfo cuda = queryCuda();
        const std::string& why = cudaKernelsUnavailable();
        if (!cuda.whyNone.empty())
            QCOMPARE_S(why, cuda.whyNone);
        else if (!cuda.devices.front().whyNoCode.empty())
            QCOMPARE_S(why, cuda.devices.front().whyNoCode);
        for (const KernelInfo& k : kernelRegistry()) {
            const Availability a = availability(k);
            if (k.backend == Backend::Cpu)
                QVERIFY(a.available);
            else if (!why.empty())
                QCOMPARE_S(a.reason, why);
        }
        if (!why.empty())
            QCOMPARE_S(std::string(defaultKernelId()), std::string("cpu"));
    }

    void openmpRowsFollowTheRuntime()
    {
        const int before = omp_get_max_threads();
        for (const int threads : {1, 3, before}) {
            omp_set_num_threads(threads);
            const std::vector<MachineSection> s = describeMachine(llvmpipe());
            QCOMPARE_S(value(s, "openmp", "threads"), std::to_string(omp_get_max_threads()));
            QCOMPARE_S(value(s, "openmp", "threads"), std::to_string(threads));
            QCOMPARE_S(value(s, "openmp", "processors"), std::to_string(omp_get_num_procs()));
        }
    }

    void textFormAlignsEveryRow()
    {
        const std::vector<MachineSection> s = describeMachine(llvmpipe());
        const std::string text = machineText(s);
        std::istringstream in(text);
        std::string line;
        std::vector<std::string> lines;
        while (std::getline(in, line))
            lines.push_back(line);
        // Titles, then "  label:<pad>value" rows, a blank line between sections.
        std::size_t i = 0, column = 0;
        for (std::size_t n = 0; n < s.size(); ++n) {
            if (n > 0) {
                QVERIFY(i < lines.size());
                QCOMPARE_S(lines[i++], std::string());
            }
            QVERIFY(i < lines.size());
            QCOMPARE_S(lines[i++], s[n].title);
            for (const MachineRow& r : s[n].rows) {
                QVERIFY(i < lines.size());
                const std::string& l = lines[i++];
                QCOMPARE_S(l.substr(0, r.label.size() + 3), "  " + r.label + ":");
                const std::size_t at = l.size() - r.value.size();
                QCOMPARE_S(l.substr(at), r.value);
                QVERIFY(l.find_first_not_of(' ', r.label.size() + 3) == at || r.value.empty());
                if (column == 0)
                    column = at;
                QCOMPARE(at, column); // one value column across all sections
            }
        }
        QCOMPARE(i, lines.size());
        // The OpenMP line carries omp_get_max_threads().
        const std::string omp = "  OpenMP threads:";
        const std::size_t p = text.find(omp);
        QVERIFY(p != std::string::npos);
        QCOMPARE_S(text.substr(p + column, text.find('\n', p) - p - column), std::to_string(omp_get_max_threads()));
        if (const CudaRuntimeInfo cuda = queryCuda(); cuda.devices.empty())
            QVERIFY(text.find("Why no device:") != std::string::npos &&
                    text.find(cuda.whyNone) != std::string::npos);
        else
            QVERIFY(text.find(cuda.devices[0].name) != std::string::npos);
    }

    void bandwidthAndSizes()
    {
        // H200-like figures: 2 × 2619 MHz × 5120 bit / 8 = 3 352 320 000 000 B/s.
        CudaDeviceInfo d;
        d.name = "test";
        d.memoryClockKHz = 2'619'000;
        d.memoryBusWidthBits = 5120;
        d.sharedMemoryPerBlock = 48 * 1024;
        d.sharedMemoryPerBlockOptin = 227 * 1024;
        d.globalMemoryBytes = std::size_t(150'000'000'000);
        d.clockKHz = 1'980'000;
        QCOMPARE(peakMemoryBandwidth(d), 3.35232e12);
        CudaRuntimeInfo cuda;
        cuda.builtWithCuda = true;
        cuda.driverVersion = 13000;
        cuda.runtimeVersion = 12080;
        cuda.devices = {d};
        const std::vector<MachineSection> s = describeMachine(cuda, 4, 8, llvmpipe());
        QCOMPARE_S(value(s, "cuda", "driverVersion"), std::string("13.0"));
        QCOMPARE_S(value(s, "cuda", "runtimeVersion"), std::string("12.8"));
        QCOMPARE_S(value(s, "cudaDevice0", "peakMemoryBandwidth"), std::string("3352.3 GB/s"));
        QCOMPARE_S(value(s, "cudaDevice0", "smClock"), std::string("1980 MHz"));
        QCOMPARE_S(value(s, "cudaDevice0", "memoryClock"), std::string("2619 MHz"));
        QCOMPARE_S(value(s, "cudaDevice0", "sharedMemoryPerBlock"), std::string("48 KiB (opt-in up to 227 KiB)"));
        // 150e9 B / 2^30 = 139.698 GiB: three significant digits.
        QCOMPARE_S(value(s, "cudaDevice0", "globalMemory"), std::string("140 GiB (150000000000 bytes)"));
        QCOMPARE_S(value(s, "cudaDevice0", "kernelTimeout"), std::string("off"));
        QCOMPARE_S(value(s, "openmp", "threads"), std::string("4"));
        QCOMPARE_S(value(s, "openmp", "processors"), std::string("8"));
        QCOMPARE_S(formatBytes(512), std::string("512 B"));
        QCOMPARE_S(formatBytes(1536), std::string("1.50 KiB"));
        QCOMPARE_S(formatBytes(50.5 * 1024 * 1024), std::string("50.5 MiB"));
        QCOMPARE_S(formatBytes(1024.0 * 1024 * 1024 * 1024 * 2048), std::string("2048 TiB"));
    }

    void openGlRows()
    {
        const CudaRuntimeInfo none; // no device, not built with CUDA
        GlContextInfo gl = llvmpipe();
        std::vector<MachineSection> s = describeMachine(none, 1, 1, gl);
        QCOMPARE_S(s.back().key, std::string("opengl"));
        QCOMPARE_S(value(s, "opengl", "vendor"), gl.vendor);
        QCOMPARE_S(value(s, "opengl", "renderer"), gl.renderer);
        QCOMPARE_S(value(s, "opengl", "version"), gl.version);
        QCOMPARE_S(value(s, "opengl", "context"), gl.context);
        QCOMPARE_S(value(s, "opengl", "interop"), "not in use: " + gl.whyNoInterop); // the app's view
        gl.headless = true;
        s = describeMachine(none, 1, 1, gl);
        QCOMPARE_S(value(s, "opengl", "interop"), "not available: " + gl.whyNoInterop);
        gl.interop = true;
        gl.whyNoInterop.clear();
        s = describeMachine(none, 1, 1, gl);
        QCOMPARE_S(value(s, "opengl", "interop"), std::string("available for `nbody run` and `nbody render`"));
        gl.headless = false;
        s = describeMachine(none, 1, 1, gl);
        QCOMPARE_S(value(s, "opengl", "interop"), std::string("in use"));
        // No context: the reason, and no vendor/renderer/version rows.
        GlContextInfo failed;
        failed.error = "EGL: no OpenGL 3.3 core context could be created";
        failed.whyNoInterop = "no OpenGL context";
        s = describeMachine(none, 1, 1, failed);
        QCOMPARE_S(value(s, "opengl", "context"), "none: " + failed.error);
        QVERIFY(section(s, "opengl")->row("vendor") == nullptr);
        QCOMPARE_S(value(s, "opengl", "interop"), std::string("not in use: no OpenGL context"));
    }

    void jsonHoldsTheSameRows()
    {
        const std::vector<MachineSection> s = describeMachine(llvmpipe());
        const nlohmann::json j = machineJson(s);
        QVERIFY(j.is_array());
        QCOMPARE(j.size(), s.size());
        for (std::size_t i = 0; i < s.size(); ++i) {
            QCOMPARE_S(j[i]["key"].get<std::string>(), s[i].key);
            QCOMPARE_S(j[i]["title"].get<std::string>(), s[i].title);
            QCOMPARE(j[i]["rows"].size(), s[i].rows.size());
            for (std::size_t r = 0; r < s[i].rows.size(); ++r) {
                QCOMPARE_S(j[i]["rows"][r]["key"].get<std::string>(), s[i].rows[r].key);
                QCOMPARE_S(j[i]["rows"][r]["label"].get<std::string>(), s[i].rows[r].label);
                QCOMPARE_S(j[i]["rows"][r]["value"].get<std::string>(), s[i].rows[r].value);
                QCOMPARE_S(j[i]["rows"][r]["tooltip"].get<std::string>(), s[i].rows[r].tooltip);
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestMachineInfo)
#include "tst_machine_info.moc"
