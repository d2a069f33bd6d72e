#include "contracts/HostMemory.h"

#include <sys/resource.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

namespace nbody {

namespace {

/// The value in kB of `key` ("MemAvailable:", "VmSize:") in a /proc file, times 1024; -1 if absent.
long long procKb(const char* file, const std::string& key)
{
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line))
        if (line.compare(0, key.size(), key) == 0) {
            std::istringstream s(line.substr(key.size()));
            long long kb = -1;
            if (s >> kb)
                return kb * 1024;
        }
    return -1;
}

/// A number from a file holding one ("max" and anything unreadable: -1).
long long readNumber(const std::string& path)
{
    std::ifstream in(path);
    std::string word;
    if (!(in >> word) || word == "max")
        return -1;
    try {
        return std::stoll(word);
    } catch (const std::exception&) {
        return -1;
    }
}

void consider(MemoryAvailable& m, long long bytes, const char* source)
{
    if (bytes < 0)
        return;
    if (!m.known() || std::size_t(bytes) < m.bytes) {
        m.bytes = std::size_t(bytes);
        m.source = source;
    }
}

void considerLimit(MemoryAvailable& m, int resource, long long used, const char* source)
{
    rlimit r{};
    if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
        return;
    const long long limit = r.rlim_cur > rlim_t(std::numeric_limits<long long>::max())
                                ? std::numeric_limits<long long>::max()
                                : (long long)r.rlim_cur;
    consider(m, limit > used ? limit - (used > 0 ? used : 0) : 0, source);
}

} // namespace

MemoryAvailable availableHostMemory()
{
    MemoryAvailable m;
    consider(m, procKb("/proc/meminfo", "MemAvailable:"), "MemAvailable");
    considerLimit(m, RLIMIT_AS, procKb("/proc/self/status", "VmSize:"), "RLIMIT_AS");
    considerLimit(m, RLIMIT_DATA, procKb("/proc/self/status", "VmData:"), "RLIMIT_DATA");
    // cgroup v2: the line "0::/path" of /proc/self/cgroup.
    std::ifstream cg("/proc/self/cgroup");
    std::string line;
    while (std::getline(cg, line)) {
        if (line.compare(0, 3, "0::") != 0)
            continue;
        const std::string dir = "/sys/fs/cgroup" + line.substr(3);
        const long long max = readNumber(dir + "/memory.max");
        if (max >= 0) {
            const long long current = readNumber(dir + "/memory.current");
            consider(m, current >= 0 && current < max ? max - current : (current >= 0 ? 0 : max),
                     "cgroup memory.max");
        }
    }
    return m;
}

std::size_t residentHostBytes()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0) {
            unsigned long long kib = 0;
            if (std::sscanf(line.c_str() + 6, "%llu", &kib) == 1)
                return std::size_t(kib) * 1024;
            return 0;
        }
    }
    return 0;
}

std::string formatBytes(std::size_t bytes)
{
    const double b = double(bytes);
    const char* unit = "bytes";
    double v = b;
    if (b >= 1e12) { v = b / 1e12; unit = "TB"; }
    else if (b >= 1e9) { v = b / 1e9; unit = "GB"; }
    else if (b >= 1e6) { v = b / 1e6; unit = "MB"; }
    else if (b >= 1e3) { v = b / 1e3; unit = "kB"; }
    char buf[64];
    if (unit[0] == 'b')
        std::snprintf(buf, sizeof buf, "%zu bytes", bytes);
    else
        std::snprintf(buf, sizeof buf, "%.3g %s", v, unit);
    return buf;
}

} // namespace nbody
