#include "sim/core/Launch.h"

#include "sim/base/AtomicFile.h"
#include "sim/core/Ceiling.h"
#include "sim/base/DeviceInfo.h"
#include "sim/base/Format.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace nbody {

// ---- the launch parameters ------------------------------------------------------------------

const std::array<LaunchParamInfo, 6>& launchParams()
{
    static const std::array<LaunchParamInfo, 6> table{{
        {LaunchParam::BlockSize, "blockSize", "block size", kDefaultBlockSize},
        {LaunchParam::BlockRows, "blockRows", "block rows", 1},
        {LaunchParam::TileWidthFactor, "tileWidthFactor", "tile width factor", 1},
        {LaunchParam::BodiesPerThread, "bodiesPerThread", "bodies per thread", 1},
        {LaunchParam::JSplit, "jSplit", "j-split", 1},
        {LaunchParam::Unroll, "unroll", "unroll", 4},
    }};
    return table;
}

bool reads(const KernelParamUse& u, LaunchParam p)
{
    switch (p) {
    case LaunchParam::BlockSize: return u.blockSize;
    case LaunchParam::BlockRows: return u.blockRows;
    case LaunchParam::TileWidthFactor: return u.tileWidthFactor;
    case LaunchParam::BodiesPerThread: return u.bodiesPerThread;
    case LaunchParam::JSplit: return u.jSplit;
    case LaunchParam::Unroll: return u.unroll;
    }
    return false;
}

int& LaunchValues::operator[](LaunchParam p)
{
    switch (p) {
    case LaunchParam::BlockSize: return blockSize;
    case LaunchParam::BlockRows: return blockRows;
    case LaunchParam::TileWidthFactor: return tileWidthFactor;
    case LaunchParam::BodiesPerThread: return bodiesPerThread;
    case LaunchParam::JSplit: return jSplit;
    case LaunchParam::Unroll: return unroll;
    }
    return unroll;
}

int LaunchValues::operator[](LaunchParam p) const
{
    return const_cast<LaunchValues&>(*this)[p];
}

LaunchValues launchValues(const SimParams& p)
{
    return {p.blockSize, p.blockRows, p.tileWidthFactor, p.bodiesPerThread, p.jSplit, p.unroll};
}

LaunchValues launchValues(const DeviceForceArgs& a)
{
    return {a.blockSize, a.blockRows, a.tileWidthFactor, a.bodiesPerThread, a.jSplit, a.unroll};
}

void applyLaunchValues(const LaunchValues& v, SimParams& p)
{
    p.blockSize = v.blockSize;
    p.blockRows = v.blockRows;
    p.tileWidthFactor = v.tileWidthFactor;
    p.bodiesPerThread = v.bodiesPerThread;
    p.jSplit = v.jSplit;
    p.unroll = v.unroll;
}

namespace {

void setArgs(DeviceForceArgs& a, const LaunchValues& v)
{
    a.blockSize = v.blockSize;
    a.blockRows = v.blockRows;
    a.tileWidthFactor = v.tileWidthFactor;
    a.bodiesPerThread = v.bodiesPerThread;
    a.jSplit = v.jSplit;
    a.unroll = v.unroll;
}

std::string valueText(LaunchParam p, int v)
{
    const std::string n = v > 0 ? std::to_string(v) : std::string("auto");
    switch (p) {
    case LaunchParam::BlockSize: return "block " + n;
    case LaunchParam::BlockRows: return "rows " + n;
    case LaunchParam::TileWidthFactor: return "tile x" + n;
    case LaunchParam::BodiesPerThread: return n + " i/thread";
    case LaunchParam::JSplit: return "j-split " + n;
    case LaunchParam::Unroll: return "unroll " + n;
    }
    return n;
}


bool sameKey(const TunedEntry& a, const TunedEntry& b)
{
    return a.device == b.device && a.driverVersion == b.driverVersion && a.kernel == b.kernel && a.bucket == b.bucket;
}

bool ofDevice(const TunedEntry& e, const TuningDevice& d)
{
    return !d.name.empty() && e.device == d.name && e.driverVersion == d.driverVersion;
}

} // namespace

std::string describeLaunch(const KernelInfo& k, const LaunchValues& v)
{
    std::string s;
    for (const LaunchParamInfo& p : launchParams())
        if (reads(k.params, p.param))
            s += (s.empty() ? "" : ", ") + valueText(p.param, v[p.param]);
    return s.empty() ? "-" : s;
}

std::string describeTuned(const KernelInfo& k, const TunedEntry& e)
{
    return describeLaunch(k, e.launch) + formatString(": %.3g interactions/s", e.interactionsPerSecond);
}

// ---- device and buckets ---------------------------------------------------------------------

namespace {

std::mutex g_deviceMutex;
std::optional<TuningDevice> g_deviceOverride;
std::atomic<std::uint64_t> g_deviceGeneration{0};

const TuningDevice& realDevice()
{
    static const TuningDevice d = [] {
        TuningDevice out;
        const CudaRuntimeInfo cuda = queryCuda();
        if (!cuda.devices.empty()) {
            out.name = cuda.devices[0].name;
            out.driverVersion = cuda.driverVersion;
            out.multiprocessors = cuda.devices[0].multiprocessors;
            out.maxThreadsPerBlock = cuda.devices[0].maxThreadsPerBlock;
        }
        return out;
    }();
    return d;
}

} // namespace

TuningDevice currentTuningDevice()
{
    {
        const std::lock_guard lock(g_deviceMutex);
        if (g_deviceOverride)
            return *g_deviceOverride;
    }
    return realDevice();
}

void overrideTuningDevice(std::optional<TuningDevice> d)
{
    const std::lock_guard lock(g_deviceMutex);
    g_deviceOverride = std::move(d);
    g_deviceGeneration.fetch_add(1, std::memory_order_acq_rel);
}

std::size_t tuningBucket(std::size_t n)
{
    std::size_t b = kMinTuningBucket;
    // nearest power of two on a log scale: round up from b when n ≥ b·√2, i.e. n² ≥ 2b²
    while (b < kMaxTuningBucket && double(n) * double(n) >= 2.0 * double(b) * double(b))
        b *= 2;
    return b;
}

// ---- the cache ------------------------------------------------------------------------------

std::string tuningCachePath()
{
    if (const char* p = std::getenv("NBODY_TUNING_CACHE"); p && *p)
        return p;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return std::string(x) + "/nbody-sandbox/launch-tuning.json";
    if (const char* h = std::getenv("HOME"); h && *h)
        return std::string(h) + "/.cache/nbody-sandbox/launch-tuning.json";
    return {};
}

std::vector<TunedEntry> parseTuningCache(const std::string& text)
{
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(std::string("not JSON (") + e.what() + ")");
    }
    if (!j.is_object() || j.value("schema", std::string()) != "nbody-launch-tuning/1")
        throw std::runtime_error("not an nbody-launch-tuning/1 file (no such \"schema\")");
    if (!j.contains("entries") || !j["entries"].is_array())
        throw std::runtime_error("\"entries\" is not an array");
    std::vector<TunedEntry> out;
    int index = 0;
    for (const nlohmann::json& e : j["entries"]) {
        const std::string where = "entry " + std::to_string(index++);
        try {
            TunedEntry t;
            t.device = e.at("device").get<std::string>();
            t.driverVersion = e.at("driver").get<int>();
            t.kernel = e.at("kernel").get<std::string>();
            t.bucket = e.at("bucket").get<std::size_t>();
            const nlohmann::json& params = e.at("params");
            if (!params.is_object())
                throw std::runtime_error("\"params\" is not an object");
            for (const LaunchParamInfo& p : launchParams()) {
                const int v = params.value(std::string(p.key), 0);
                if (v < 0 || v > (1 << 20))
                    throw std::runtime_error("\"" + std::string(p.key) + "\" is out of range");
                t.launch[p.param] = v;
            }
            t.forceMs = e.value("forceMs", 0.0);
            t.interactionsPerSecond = e.value("interactionsPerSecond", 0.0);
            t.date = e.value("date", std::string());
            if (t.device.empty() || t.kernel.empty() || t.bucket == 0)
                throw std::runtime_error("empty device, kernel or bucket");
            out.push_back(std::move(t));
        } catch (const nlohmann::json::exception& x) {
            throw std::runtime_error(where + ": " + x.what());
        } catch (const std::runtime_error& x) {
            throw std::runtime_error(where + ": " + x.what());
        }
    }
    return out;
}

std::string tuningCacheJson(const std::vector<TunedEntry>& entries)
{
    nlohmann::json list = nlohmann::json::array();
    for (const TunedEntry& e : entries) {
        nlohmann::json params = nlohmann::json::object();
        for (const LaunchParamInfo& p : launchParams())
            if (e.launch[p.param] > 0)
                params[std::string(p.key)] = e.launch[p.param];
        list.push_back({{"device", e.device},
                        {"driver", e.driverVersion},
                        {"kernel", e.kernel},
                        {"bucket", e.bucket},
                        {"params", params},
                        {"forceMs", e.forceMs},
                        {"interactionsPerSecond", e.interactionsPerSecond},
                        {"date", e.date}});
    }
    nlohmann::json j = {{"schema", "nbody-launch-tuning/1"},
                        {"note", "Launch parameters chosen by the nbody tuner (docs/tuner.md); delete to re-tune"},
                        {"entries", std::move(list)}};
    return j.dump(2) + "\n";
}

namespace {

/// Reads the file: its entries, or none and a warning ("" for a missing file).
std::vector<TunedEntry> readCacheFile(const std::string& path, std::string& warning)
{
    warning.clear();
    if (path.empty())
        return {};
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return {};
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    if (in)
        text << in.rdbuf();
    if (!in || in.bad()) {
        warning = "the launch-tuning cache '" + path + "' cannot be read; it is ignored";
        return {};
    }
    try {
        return parseTuningCache(text.str());
    } catch (const std::exception& e) {
        warning = "the launch-tuning cache '" + path + "' is malformed (" + e.what() +
                  "); it is ignored and will be rewritten";
        return {};
    }
}

} // namespace

TuningCache::TuningCache(std::string path)
{
    reopen(std::move(path));
}

void TuningCache::reopen(std::string path)
{
    std::string warning;
    std::vector<TunedEntry> entries = readCacheFile(path, warning);
    const std::lock_guard lock(m_mutex);
    m_path = std::move(path);
    m_warning = std::move(warning);
    m_entries = std::move(entries);
    m_generation.fetch_add(1, std::memory_order_acq_rel);
}

std::string TuningCache::path() const
{
    const std::lock_guard lock(m_mutex);
    return m_path;
}

std::string TuningCache::warning() const
{
    const std::lock_guard lock(m_mutex);
    return m_warning;
}

std::optional<TunedEntry> TuningCache::find(const TuningDevice& d, std::string_view kernel, std::size_t bucket) const
{
    const std::lock_guard lock(m_mutex);
    for (const TunedEntry& e : m_entries)
        if (ofDevice(e, d) && e.kernel == kernel && e.bucket == bucket)
            return e;
    return std::nullopt;
}

std::vector<TunedEntry> TuningCache::entriesFor(const TuningDevice& d) const
{
    std::vector<TunedEntry> out;
    {
        const std::lock_guard lock(m_mutex);
        for (const TunedEntry& e : m_entries)
            if (ofDevice(e, d))
                out.push_back(e);
    }
    std::sort(out.begin(), out.end(), [](const TunedEntry& a, const TunedEntry& b) {
        return std::tie(a.kernel, a.bucket) < std::tie(b.kernel, b.bucket);
    });
    return out;
}

void TuningCache::store(const TunedEntry& entry)
{
    const std::lock_guard lock(m_mutex); // one writer at a time in this process; readers wait briefly
    const auto find = [](std::vector<TunedEntry>& list, const TunedEntry& key) {
        return std::find_if(list.begin(), list.end(), [&](const TunedEntry& e) { return sameKey(e, key); });
    };
    if (const auto it = find(m_entries, entry); it != m_entries.end())
        *it = entry;
    else
        m_entries.push_back(entry);
    m_generation.fetch_add(1, std::memory_order_acq_rel);
    if (m_path.empty())
        throw WriteError("cannot write the launch-tuning cache: neither XDG_CACHE_HOME nor HOME is set");
    // What the file holds now wins over our older copy (other processes may have tuned since we
    // read it; a malformed file is replaced); entries only we hold are added, and the new one
    // replaces its key.
    std::string readWarning;
    std::vector<TunedEntry> onDisk = readCacheFile(m_path, readWarning);
    for (const TunedEntry& e : m_entries)
        if (find(onDisk, e) == onDisk.end())
            onDisk.push_back(e);
    *find(onDisk, entry) = entry;
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::path(m_path).parent_path();
    if (!dir.empty())
        std::filesystem::create_directories(dir, ec);
    writeTextAtomically(m_path, tuningCacheJson(onDisk));
    std::string verifyWarning;
    const std::vector<TunedEntry> back = readCacheFile(m_path, verifyWarning);
    const bool found = std::any_of(back.begin(), back.end(), [&](const TunedEntry& e) {
        return sameKey(e, entry) && e.launch == entry.launch;
    });
    if (!found)
        throw std::runtime_error("the launch-tuning cache '" + m_path + "' did not read back after writing" +
                                 (verifyWarning.empty() ? std::string() : ": " + verifyWarning));
    m_entries = back;
    m_warning.clear();
    m_generation.fetch_add(1, std::memory_order_acq_rel);
}

TuningCache& tuningCache()
{
    static TuningCache cache(tuningCachePath());
    static const bool warned = [] {
        if (const std::string w = cache.warning(); !w.empty())
            std::fprintf(stderr, "nbody: warning: %s\n", w.c_str());
        return true;
    }();
    (void)warned;
    return cache;
}

void applyTunedLaunch(const KernelInfo& k, DeviceForceArgs& a)
{
    bool anyAuto = false;
    for (const LaunchParamInfo& p : launchParams())
        anyAuto |= reads(k.params, p.param) && launchValues(a)[p.param] == 0;
    if (!anyAuto)
        return;
    try {
        TuningCache& cache = tuningCache();
        // Memo per thread: the last (kernel, bucket) looked up and its answer, valid while
        // neither the cache nor the device override changed.
        struct Memo {
            std::uint64_t generation = ~std::uint64_t(0), deviceGeneration = ~std::uint64_t(0);
            const TuningCache* cache = nullptr;
            std::string kernel;
            std::size_t bucket = 0;
            std::optional<LaunchValues> launch;
        };
        thread_local Memo memo;
        const std::size_t bucket = tuningBucket(a.n);
        const std::uint64_t gen = cache.generation();
        const std::uint64_t devGen = g_deviceGeneration.load(std::memory_order_acquire);
        if (memo.cache != &cache || memo.generation != gen || memo.deviceGeneration != devGen ||
            memo.bucket != bucket || memo.kernel != k.id) {
            const TuningDevice d = currentTuningDevice();
            std::optional<TunedEntry> e;
            if (!d.name.empty())
                e = cache.find(d, k.id, bucket);
            memo.cache = &cache;
            memo.generation = gen;
            memo.deviceGeneration = devGen;
            memo.kernel.assign(k.id);
            memo.bucket = bucket;
            memo.launch = e ? std::optional<LaunchValues>(e->launch) : std::nullopt;
        }
        if (!memo.launch)
            return;
        LaunchValues v = launchValues(a);
        for (const LaunchParamInfo& p : launchParams())
            if (reads(k.params, p.param) && v[p.param] == 0)
                v[p.param] = (*memo.launch)[p.param];
        setArgs(a, v);
    } catch (...) {
        // never throws: the row's defaults apply
    }
}

// ---- resolution with sources -----------------------------------------------------------------

std::string_view toString(LaunchSource s)
{
    switch (s) {
    case LaunchSource::Set: return "set";
    case LaunchSource::Tuned: return "tuned";
    case LaunchSource::Default: return "default";
    }
    return "?";
}

namespace {

/// deviceForceArgs() and resolveLaunch(): the entry itself is looked up only for the latter (the
/// former runs at every force evaluation and stays on applyTunedLaunch's memo).
void resolveInto(ResolvedLaunch& r, const KernelInfo& k, const SimParams& p, std::size_t n, bool wantEntry)
{
    DeviceForceArgs& a = r.args;
    a.n = n;
    a.eps2 = p.eps2;
    a.G = p.G;
    a.openingAngle = p.openingAngle;
    a.leafSize = p.leafSize;
    a.openingAlpha = p.openingAlpha;
    const LaunchValues user = launchValues(p);
    setArgs(a, user);
    if (k.backend == Backend::Cuda)
        applyTunedLaunch(k, a); // auto parameters the tuning cache has for this device and N
    const LaunchValues tuned = launchValues(a);
    if (k.defaults)
        k.defaults(a);
    LaunchValues v = launchValues(a);
    const auto& table = launchParams();
    for (std::size_t i = 0; i < table.size(); ++i) {
        const LaunchParam q = table[i].param;
        r.source[i] = user[q] > 0 ? LaunchSource::Set : tuned[q] > 0 ? LaunchSource::Tuned : LaunchSource::Default;
        if (v[q] == 0)
            v[q] = table[i].fallback;
    }
    setArgs(a, v);
    if (wantEntry && k.backend == Backend::Cuda &&
        std::find(r.source.begin(), r.source.end(), LaunchSource::Tuned) != r.source.end()) {
        try {
            r.tuned = tuningCache().find(currentTuningDevice(), k.id, tuningBucket(n));
        } catch (...) {
        }
    }
}

} // namespace

ResolvedLaunch resolveLaunch(const KernelInfo& k, const SimParams& p, std::size_t n)
{
    ResolvedLaunch r;
    resolveInto(r, k, p, n, true);
    return r;
}

ForceLaunch forceLaunch(const KernelInfo& k, const SimParams& p, std::size_t n, RowRange rows)
{
    ForceLaunch f;
    f.kernel = &k;
    f.args = deviceForceArgs(k, p, n);
    f.args.iBegin = rows.begin;
    f.args.iEnd = rows.end;
    f.slices = forceSlices(k, p, n);
    return f;
}

DeviceForceArgs deviceForceArgs(const KernelInfo& k, const SimParams& p, std::size_t n)
{
    ResolvedLaunch r;
    resolveInto(r, k, p, n, false);
    return r.args;
}

std::string describeResolved(const KernelInfo& k, const ResolvedLaunch& r)
{
    // Consecutive parameters of the same source share one "(source)": "block 128, tile x2 (tuned)".
    std::string out, group;
    std::optional<LaunchSource> groupSource;
    const LaunchValues v = launchValues(r.args);
    const auto& table = launchParams();
    const auto flush = [&] {
        if (groupSource)
            out += (out.empty() ? "" : "; ") + group + " (" + std::string(toString(*groupSource)) + ")";
        group.clear();
    };
    for (std::size_t i = 0; i < table.size(); ++i) {
        if (!reads(k.params, table[i].param))
            continue;
        if (groupSource && *groupSource != r.source[i])
            flush();
        group += (group.empty() ? "" : ", ") + valueText(table[i].param, v[table[i].param]);
        groupSource = r.source[i];
    }
    flush();
    return out.empty() ? "-" : out;
}

LaunchValues defaultLaunch(const KernelInfo& k, std::size_t n)
{
    DeviceForceArgs a;
    a.n = n;
    setArgs(a, LaunchValues{});
    if (k.defaults) {
        try {
            k.defaults(a);
        } catch (...) {
            setArgs(a, LaunchValues{}); // no device to ask: the fixed fallbacks
        }
    }
    LaunchValues v = launchValues(a);
    for (const LaunchParamInfo& p : launchParams())
        v[p.param] = reads(k.params, p.param) ? (v[p.param] > 0 ? v[p.param] : p.fallback) : 0;
    return v;
}

} // namespace nbody
