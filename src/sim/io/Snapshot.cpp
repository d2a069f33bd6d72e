/// \file Snapshot.cpp
/// The format table and the format-independent entry points (see Snapshot.h).

#include "sim/io/Snapshot.h"

#include "sim/io/CsvSnapshot.h"
#include "sim/io/Hdf5Snapshot.h"
#include "sim/base/PathNames.h"
#include "sim/core/Scenario.h"
#include "sim/io/Tipsy.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace nbody {

namespace {

Snapshot readTipsySnapshot(const std::string& path)
{
    return Snapshot{readTipsy(path), std::nullopt, "tipsy", {}, std::nullopt};
}

void writeTipsySnapshot(const std::string& path, const World& world, const RestartParams*, const Fp64State*)
{
    // Standard: big-endian, 32-byte header, float; the ids in the phi slots (as Bonsai does), so
    // that they survive a round trip.
    writeTipsy(path, world, TipsyLayout{true, 32, TipsyPrecision::Float, true});
}

bool detectTipsy(std::span<const unsigned char> head, std::uint64_t fileSize)
{
    return looksLikeTipsy(head, fileSize);
}

// Detection order: the formats with a signature first, Tipsy (plausibility of counts) last.
const std::array<SnapshotFormat, 3> kFormats{{
    {"hdf5", "HDF5 (GADGET-4/SWIFT layout)", ".h5 .hdf5 .hdf", true, looksLikeHdf5, readHdf5Snapshot,
     writeHdf5Snapshot},
    {"csv", "CSV with a header row", ".csv", true, looksLikeCsv, readCsvSnapshot, writeCsvSnapshot},
    {"tipsy", "Tipsy", ".bin .tipsy .std", false, detectTipsy, readTipsySnapshot, writeTipsySnapshot},
}};

} // namespace

std::span<const SnapshotFormat> snapshotFormats()
{
    return kFormats;
}

const SnapshotFormat* findSnapshotFormat(std::string_view id)
{
    for (const SnapshotFormat& f : kFormats)
        if (f.id == id)
            return &f;
    return nullptr;
}

const SnapshotFormat* snapshotFormatForPath(const std::string& path)
{
    const std::string ext = lowerExtension(path);
    if (ext.empty())
        return nullptr;
    for (const SnapshotFormat& f : kFormats) {
        std::istringstream words{std::string(f.extensions)};
        for (std::string e; words >> e;)
            if (e == ext)
                return &f;
    }
    return nullptr;
}

std::string describeSnapshotFormats()
{
    std::string s;
    for (const SnapshotFormat& f : kFormats)
        s += (s.empty() ? "" : ", ") + std::string(f.id) + " (" + std::string(f.extensions) + ")";
    return s;
}

Snapshot readSnapshot(const std::string& path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (const std::string why = unreadableFileReason(path); !why.empty())
        throw FormatError("snapshot '" + path + "': " + why);
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec)
        throw FormatError("snapshot '" + path + "': cannot determine the size: " + ec.message());
    std::array<unsigned char, 64> head{};
    std::size_t got = 0;
    {
        std::ifstream in(path, std::ios::binary);
        if (!in)
            throw FormatError("snapshot '" + path + "': cannot open for reading");
        in.read(reinterpret_cast<char*>(head.data()), std::streamsize(head.size()));
        got = std::size_t(in.gcount());
    }
    const std::span<const unsigned char> bytes(head.data(), got);
    for (const SnapshotFormat& f : kFormats)
        if (f.detect(bytes, size))
            return f.read(path);
    // Not recognised: the extension's reader explains what is wrong (truncated, bad header, …),
    // or, without a known extension, the Tipsy reader when the header looks like one (a Tipsy
    // file whose size does not fit its counts).
    if (const SnapshotFormat* f = snapshotFormatForPath(path))
        return f->read(path);
    if (hasPlausibleTipsyHeader(bytes))
        return readTipsySnapshot(path);
    throw FormatError("snapshot '" + path + "': not a snapshot in any known format (" + describeSnapshotFormats()
                      + ")");
}

void writeSnapshot(const std::string& path, const World& world, const RestartParams* params, std::string_view formatId,
                   const Fp64State* exact)
{
    const SnapshotFormat* f = formatId.empty() ? snapshotFormatForPath(path) : findSnapshotFormat(formatId);
    if (!f) {
        if (formatId.empty())
            throw std::invalid_argument("snapshot '" + path + "': unknown file name extension; known formats: "
                                        + describeSnapshotFormats());
        throw std::invalid_argument("unknown snapshot format '" + std::string(formatId)
                                    + "'; known formats: " + describeSnapshotFormats());
    }
    if (world.empty())
        throw std::invalid_argument("snapshot '" + path + "': the system has no bodies");
    if (exact && exact->size() != world.size())
        throw std::invalid_argument("snapshot '" + path + "': an fp64 state of " + std::to_string(exact->size()) +
                                    " bodies for a system of " + std::to_string(world.size()));
    f->write(path, world, params, exact);
}

void checkStoredParams(const Snapshot& snap, const std::string& path)
{
    if (!snap.params)
        return;
    for (const auto& [key, text] : snap.params->stored)
        if (const ParamInfo* row = findStoredParam(key))
            if (const std::string why = paramTextProblem(*row, text); !why.empty())
                throw FormatError("'" + path + "': stored parameter " + key + ": " + why);
}

RestartParams restartParams(const SimParams& p, std::string_view kernel)
{
    RestartParams r{p.G, p.eps2, p.dt, std::string(kernel), p.blockSize, p.tileWidthFactor, storedParamValues(p), {}, {}};
    return r;
}

std::vector<std::string> applyStoredParams(std::span<const std::pair<std::string, std::string>> stored, SimParams& p,
                                           std::span<const std::string_view> keep)
{
    std::vector<std::string> differences;
    for (const auto& [key, text] : stored) {
        const ParamInfo* row = findStoredParam(key);
        if (!row)
            continue; // a key of a newer version: not one this build knows
        bool kept = false;
        for (const std::string_view k : keep)
            kept = kept || k == key;
        if (kept) {
            if (const std::string mine = row->get(p); mine != text)
                differences.push_back(std::string(row->option) + " " + mine + " given; the snapshot stores " + key +
                                      " = " + text + " (the run does not continue the stored one bit for bit)");
            continue;
        }
        if (const std::string why = row->set(text, p); !why.empty())
            throw std::invalid_argument("stored parameter " + key + ": " + why);
    }
    return differences;
}

FileParams resolveFileParams(const World& world, const std::optional<RestartParams>& stored, std::optional<double> givenG)
{
    FileParams f;
    const RestartParams none{std::nullopt, std::nullopt, std::nullopt, {}, 0, 0, {}, {}, {}};
    const RestartParams& s = stored ? *stored : none;
    f.storedG = !givenG && s.G.has_value();
    f.G = givenG ? *givenG : s.G.value_or(1.0);
    f.storedDt = s.dt.has_value();
    f.storedEps2 = s.eps2.has_value();
    if (!f.storedDt || !f.storedEps2) {
        const ScaleDefaults d = deriveScaleDefaults(world, f.G);
        f.dt = d.dt;
        f.eps2 = d.eps2;
        f.dtProblem = f.storedDt ? std::string() : d.dtProblem;
        f.eps2Problem = f.storedEps2 ? std::string() : d.eps2Problem;
        f.rmsRadius = d.rmsRadius;
        f.dynamicalTime = d.dynamicalTime;
    }
    if (f.storedDt)
        f.dt = *s.dt;
    if (f.storedEps2)
        f.eps2 = *s.eps2;
    return f;
}

std::string FileParams::describe() const
{
    std::string fromFile, derived;
    const auto add = [](std::string& list, const std::string& item) { list += (list.empty() ? "" : ", ") + item; };
    if (storedG)
        add(fromFile, "G");
    if (storedDt)
        add(fromFile, "dt");
    if (storedEps2)
        add(fromFile, "eps2");
    char buf[96];
    if (!storedDt) {
        std::snprintf(buf, sizeof buf, "dt %.4g", double(dt));
        add(derived, buf);
    }
    if (!storedEps2) {
        std::snprintf(buf, sizeof buf, "eps2 %.4g", double(eps2));
        add(derived, buf);
    }
    // "G, dt, eps2" reads better as "G, dt and eps2"
    const auto andLast = [](std::string list) {
        if (const std::size_t comma = list.rfind(", "); comma != std::string::npos)
            list.replace(comma, 2, " and ");
        return list;
    };
    std::string out;
    if (!fromFile.empty())
        out = andLast(fromFile) + " from the file";
    if (!derived.empty()) {
        std::snprintf(buf, sizeof buf, " derived from its scale (R_rms %.4g, t_dyn %.4g)", rmsRadius, dynamicalTime);
        out += (out.empty() ? "" : "; ") + andLast(derived) + buf;
    }
    return out;
}

std::string checkBodyValue(std::string_view field, double value, bool isMass)
{
    const char* problem = !std::isfinite(value)                 ? "not finite"
                        : !std::isfinite(static_cast<float>(value)) ? "beyond the range of fp32"
                        : (isMass && value < 0.0)               ? "negative"
                                                                : nullptr;
    if (!problem)
        return {};
    std::ostringstream s;
    s << field << " is " << problem << " (" << value << ")";
    return s.str();
}

} // namespace nbody
