#pragma once
/// \file Launch.h
/// The launch parameters of the CUDA rows and how one force pass gets its values: the user's
/// setting, else the tuning cache (sim/perf/Tuner.h measures and fills it), else the row's
/// heuristic.
///
/// Resolution of one launch parameter a row reads (deviceForceArgs → resolveLaunch):
///   1. the user's value when it is non-zero ("set");
///   2. else the tuned value for this device (name + driver), row and N bucket ("tuned");
///   3. else the row's heuristic (KernelInfo::defaults), else the fixed fallback of the
///      parameter (256 threads, 1 row, tile ×1, 1 i/thread, j-split 1, unroll 4) ("default").
///
/// N bucket: N rounded to the nearest power of two on a log scale (2^k where |log2 N − k| ≤ ½),
/// clamped to [2^10, 2^18]; the representative N measured is the bucket itself. N below 1448
/// shares the 1024 bucket; N above 2^17.5 ≈ 185 000 shares the 2^18 bucket (the GPU is full
/// there, the choice no longer depends on N, and larger measurements would make tuning slow).
///
/// The cache file (JSON, schema "nbody-launch-tuning/1", docs/tuner.md) is
/// $NBODY_TUNING_CACHE, else $XDG_CACHE_HOME/nbody-sandbox/launch-tuning.json, else
/// $HOME/.cache/nbody-sandbox/launch-tuning.json. An unreadable or malformed file is ignored with
/// a warning (and replaced by the next write); entries of another device name or driver version
/// are kept in the file but never used here.

#include "sim/core/KernelRegistry.h"
#include "contracts/DeviceTypes.h"
#include "sim/core/SimParams.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nbody {

// ---- the launch parameters, as a table ------------------------------------------------------

enum class LaunchParam { BlockSize, BlockRows, TileWidthFactor, BodiesPerThread, JSplit, Unroll };

struct LaunchParamInfo {
    LaunchParam param;
    std::string_view key;   ///< JSON key and SimParams field name ("blockSize")
    std::string_view label; ///< as the user reads it ("block size")
    int fallback;           ///< value when neither the user, the tuner nor the row chooses
};

/// Every launch parameter, in the order they are described and searched.
const std::array<LaunchParamInfo, 6>& launchParams();
bool reads(const KernelParamUse& use, LaunchParam p);

/// Values of the six launch parameters; 0 = not chosen (auto, or not read by the row).
struct LaunchValues {
    int blockSize = 0, blockRows = 0, tileWidthFactor = 0, bodiesPerThread = 0, jSplit = 0, unroll = 0;
    int& operator[](LaunchParam p);
    int operator[](LaunchParam p) const;
    bool operator==(const LaunchValues&) const = default;
};
LaunchValues launchValues(const SimParams& p);
LaunchValues launchValues(const DeviceForceArgs& a);
void applyLaunchValues(const LaunchValues& v, SimParams& p);

/// The parameters row k reads, as a user would write them: "block 128, 4 i/thread, j-split 8,
/// unroll 4"; "block 256, tile x2"; "block 256, rows 2". "-" when the row reads none.
std::string describeLaunch(const KernelInfo& k, const LaunchValues& v);

// ---- device and buckets ---------------------------------------------------------------------

/// What identifies a device to the cache (name + driver) and bounds the candidates.
struct TuningDevice {
    std::string name;            ///< "NVIDIA H200"; empty: no CUDA device
    int driverVersion = 0;       ///< cudaDriverGetVersion (13000 = 13.0)
    int multiprocessors = 0;     ///< 0: unknown
    int maxThreadsPerBlock = 0;  ///< 0: unknown (1024 assumed)
};
/// Device 0 as the CUDA runtime reports it, queried once per process (empty name without one).
TuningDevice currentTuningDevice();
/// Tests and tools: pretend the current device is `d` (nullopt: the real one again).
void overrideTuningDevice(std::optional<TuningDevice> d);

inline constexpr std::size_t kMinTuningBucket = std::size_t(1) << 10;
inline constexpr std::size_t kMaxTuningBucket = std::size_t(1) << 18;
/// The N bucket of n (see the file comment): a power of two in [2^10, 2^18].
std::size_t tuningBucket(std::size_t n);

// ---- the cache ------------------------------------------------------------------------------

/// One cached choice.
struct TunedEntry {
    std::string device;              ///< device name
    int driverVersion = 0;
    std::string kernel;              ///< registry id
    std::size_t bucket = 0;          ///< tuningBucket() (also the N measured)
    LaunchValues launch;             ///< the parameters the row reads (others 0)
    double forceMs = 0;              ///< median force evaluation at N = bucket, ms
    double interactionsPerSecond = 0; ///< bucket² / forceMs
    std::string date;                ///< UTC date of the measurement, "2026-12-01"
};

/// "tuned on this device 2026-12-01: block 128, 4 i/thread — 1.2e12 interactions/s"-style text
/// pieces: "block 128, 4 i/thread, j-split 8, unroll 4: 1.23e12 interactions/s".
std::string describeTuned(const KernelInfo& k, const TunedEntry& e);

/// The cache path (see the file comment); "" when neither XDG_CACHE_HOME nor HOME is set.
std::string tuningCachePath();

/// The tuning cache file, loaded into memory. Thread-safe: any thread may read while another
/// stores. Never throws on reading: an unreadable or malformed file gives an empty cache and a
/// warning().
class TuningCache {
public:
    explicit TuningCache(std::string path);

    /// Re-reads the file at `path` (and keeps that path for writes).
    void reopen(std::string path);
    std::string path() const;
    /// Why the file was ignored when it was ("" otherwise; a missing file is no warning).
    std::string warning() const;

    /// The entry for this device (name and driver), kernel and bucket.
    std::optional<TunedEntry> find(const TuningDevice& d, std::string_view kernel, std::size_t bucket) const;
    /// Every entry for this device (name and driver), ordered by kernel id and bucket.
    std::vector<TunedEntry> entriesFor(const TuningDevice& d) const;
    /// Adds or replaces the entry (same device, driver, kernel, bucket): the file is re-read (so
    /// entries other processes wrote are kept), written atomically (sim/base/AtomicFile.h) and read
    /// back to verify. The entry is in memory even when writing fails; throws WriteError or
    /// std::runtime_error ("… did not read back") then.
    void store(const TunedEntry& e);
    /// Increases with every change of the contents (store, reopen).
    std::uint64_t generation() const { return m_generation.load(std::memory_order_acquire); }

private:
    mutable std::mutex m_mutex;
    std::string m_path;
    std::string m_warning;
    std::vector<TunedEntry> m_entries;
    std::atomic<std::uint64_t> m_generation{0};
};

/// Parses the text of a cache file. Throws std::runtime_error naming what is malformed.
std::vector<TunedEntry> parseTuningCache(const std::string& text);
std::string tuningCacheJson(const std::vector<TunedEntry>& entries);

/// The process-wide cache at tuningCachePath() (read on first use; its warning, if any, goes to
/// stderr once). Tests that change NBODY_TUNING_CACHE call reopen(tuningCachePath()).
TuningCache& tuningCache();

/// Fills the auto (0) launch parameters of `args` that row k reads with the tuned choice for the
/// current device and args.n's bucket, when the tuning cache has one; leaves them 0 otherwise.
/// Never throws. Cheap: the lookup is memoised per thread until the cache changes.
void applyTunedLaunch(const KernelInfo& k, DeviceForceArgs& args);

// ---- resolution with sources -----------------------------------------------------------------

enum class LaunchSource { Set, Tuned, Default };
std::string_view toString(LaunchSource s); ///< "set", "tuned", "default"

struct ResolvedLaunch {
    DeviceForceArgs args;                   ///< every parameter resolved (> 0)
    std::array<LaunchSource, 6> source{};   ///< per launchParams() entry (meaningful where read)
    std::optional<TunedEntry> tuned;        ///< the cache entry used, if any
};
/// deviceForceArgs() with where each value came from. Throws what KernelInfo::defaults throws.
ResolvedLaunch resolveLaunch(const KernelInfo& k, const SimParams& p, std::size_t n);
/// One device force pass of row k over n bodies for the rows [rows.begin, rows.end): the
/// resolved arguments (deviceForceArgs) and the slice count (sim/core/Ceiling.h forceSlices). What
/// the simulation hands the device state (kernels/DeviceState.h) for every force pass.
ForceLaunch forceLaunch(const KernelInfo& k, const SimParams& p, std::size_t n, RowRange rows);
/// "block 128, tile x2 (tuned); rows 1 (set)" — the parameters row k reads with their sources.
std::string describeResolved(const KernelInfo& k, const ResolvedLaunch& r);

/// The row's starting point: every parameter it reads from KernelInfo::defaults where it has
/// them (a failure there is ignored) and the fixed fallbacks otherwise.
LaunchValues defaultLaunch(const KernelInfo& k, std::size_t n);

} // namespace nbody
