/// \file Tipsy.cpp
/// Reader of Tipsy snapshots (see Tipsy.h for the layout).
///
/// Order of work, so that a bad file costs no memory: read the header, pick the byte order and
/// header size whose counts are plausible and match the file size exactly, refuse more than
/// kMaxBodies bodies, then reserve the World and read the particles in fixed-size chunks.

#include "sim/io/Tipsy.h"
#include "sim/core/MemoryBudget.h"

#include "sim/base/AtomicFile.h"
#include "sim/core/Scenario.h"
#include "sim/io/Snapshot.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <system_error>
#include <vector>

namespace nbody {
namespace {

// Floats after vel[3] in each family's record; phi is the last of them.
constexpr std::uint64_t kGasExtra = 5;  ///< rho, temp, hsmooth, metals, phi
constexpr std::uint64_t kDarkExtra = 2; ///< eps, phi
constexpr std::uint64_t kStarExtra = 4; ///< metals, tform, eps, phi
constexpr std::size_t kChunkParticles = 4096; ///< particles per read or write

constexpr std::uint64_t posBytes(TipsyPrecision p) { return p == TipsyPrecision::Float ? 4 : 8; }
constexpr std::uint64_t velBytes(TipsyPrecision p) { return p == TipsyPrecision::DoublePosVel ? 8 : 4; }
/// Bytes of one record with `extra` trailing floats: mass, pos[3], vel[3], extra.
constexpr std::uint64_t recordBytes(TipsyPrecision p, std::uint64_t extra)
{
    return 4 + 3 * posBytes(p) + 3 * velBytes(p) + 4 * extra;
}
const char* precisionName(TipsyPrecision p)
{
    switch (p) {
    case TipsyPrecision::Float: return "float";
    case TipsyPrecision::DoublePositions: return "double-position";
    case TipsyPrecision::DoublePosVel: return "double-position-and-velocity";
    }
    return "?";
}
constexpr std::array<TipsyPrecision, 3> kPrecisions{TipsyPrecision::Float, TipsyPrecision::DoublePositions,
                                                    TipsyPrecision::DoublePosVel};

/// The header fields as read with one byte order; counts widened so sums cannot overflow.
struct Header {
    double time = 0.0;
    std::int64_t nbodies = 0, ndim = 0, nsph = 0, ndark = 0, nstar = 0;
    bool bigEndian = false;

    bool plausible() const
    {
        return ndim >= 1 && ndim <= 3 && nsph >= 0 && ndark >= 0 && nstar >= 0
            && nbodies == nsph + ndark + nstar;
    }
    std::uint64_t particleBytes(TipsyPrecision p = TipsyPrecision::Float) const
    {
        return std::uint64_t(nsph) * recordBytes(p, kGasExtra) + std::uint64_t(ndark) * recordBytes(p, kDarkExtra)
            + std::uint64_t(nstar) * recordBytes(p, kStarExtra);
    }
};

/// Decodes and encodes fixed-size fields from and to raw bytes in the file's byte order.
class Decoder {
public:
    explicit Decoder(bool fileIsBigEndian)
        : m_swap(fileIsBigEndian != (std::endian::native == std::endian::big))
    {
    }

    std::uint32_t u32(const unsigned char* p) const
    {
        std::uint32_t v;
        std::memcpy(&v, p, sizeof v);
        return m_swap ? swap32(v) : v;
    }
    std::int32_t i32(const unsigned char* p) const { return std::bit_cast<std::int32_t>(u32(p)); }
    float f32(const unsigned char* p) const { return std::bit_cast<float>(u32(p)); }
    double f64(const unsigned char* p) const
    {
        std::uint64_t v;
        std::memcpy(&v, p, sizeof v);
        if (m_swap)
            v = (std::uint64_t(swap32(std::uint32_t(v))) << 32) | swap32(std::uint32_t(v >> 32));
        return std::bit_cast<double>(v);
    }

    void putU32(unsigned char* p, std::uint32_t v) const
    {
        if (m_swap)
            v = swap32(v);
        std::memcpy(p, &v, sizeof v);
    }
    void putF32(unsigned char* p, float v) const { putU32(p, std::bit_cast<std::uint32_t>(v)); }
    void putF64(unsigned char* p, double v) const
    {
        const auto u = std::bit_cast<std::uint64_t>(v);
        if (m_swap) { // the high word first in the file
            putU32(p, std::uint32_t(u >> 32));
            putU32(p + 4, std::uint32_t(u));
        } else {
            std::memcpy(p, &u, sizeof u);
        }
    }

private:
    static std::uint32_t swap32(std::uint32_t v)
    {
        return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
    }
    bool m_swap;
};

using Encoder = Decoder;

Header parseHeader(const unsigned char* bytes, bool bigEndian)
{
    const Decoder d(bigEndian);
    Header h;
    h.bigEndian = bigEndian;
    h.time = d.f64(bytes);
    h.nbodies = d.i32(bytes + 8);
    h.ndim = d.i32(bytes + 12);
    h.nsph = d.i32(bytes + 16);
    h.ndark = d.i32(bytes + 20);
    h.nstar = d.i32(bytes + 24);
    return h;
}

[[noreturn]] void fail(const std::string& path, const std::string& what)
{
    throw FormatError("Tipsy file '" + path + "': " + what);
}

const char* orderName(bool bigEndian) { return bigEndian ? "big-endian" : "little-endian"; }


/// One particle family: name, group, count and record layout.
struct Family {
    const char* name;     ///< "gas", "dark", "star"
    Group group;
    std::int64_t count;
    std::uint64_t extra;  ///< floats after vel[3] (the last is phi)
};

std::array<Family, 3> families(const Header& h)
{
    return {{{"gas", Group::Gas, h.nsph, kGasExtra},
             {"dark", Group::DarkMatter, h.ndark, kDarkExtra},
             {"star", Group::Star, h.nstar, kStarExtra}}};
}

/// The header size and precision whose total size is `fileSize`, trying each byte order's usual
/// header size first.
struct Match {
    int headerBytes = 0;
    TipsyPrecision precision = TipsyPrecision::Float;
};
std::optional<Match> matchSize(const Header& h, std::uint64_t fileSize)
{
    const std::array<int, 2> sizes = h.bigEndian ? std::array<int, 2>{28, 32} : std::array<int, 2>{32, 28};
    for (const TipsyPrecision p : kPrecisions)
        for (const int hb : sizes)
            if (std::uint64_t(hb) + h.particleBytes(p) == fileSize)
                return Match{hb, p};
    return std::nullopt;
}

/// Whether the phi slots of a big-endian file hold particle ids (as int32, the way Bonsai and
/// writeTipsy with idsInPhi store them) rather than potentials: every value is a non-negative
/// int32, no two are equal, and at least one is below 2^23, i.e. zero or subnormal as a float,
/// which no potential is. Potentials are negative floats (sign bit set), and a file whose phi
/// slots are all 0 (unset) has equal values: both keep the index as the id.
bool phiHoldsIds(const std::vector<std::uint32_t>& phi)
{
    if (phi.empty())
        return false;
    bool small = false;
    for (const std::uint32_t v : phi) {
        if (v >= 0x80000000u)
            return false;
        small = small || v < (1u << 23);
    }
    if (!small)
        return false;
    std::vector<std::uint32_t> sorted = phi;
    std::sort(sorted.begin(), sorted.end());
    return std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
}

/// Whether a record (mass, pos[3], vel[3], …) holds plausible values when read as float positions
/// and double velocities, a layout of the same size as double positions with float velocities:
/// every value valid, and the coordinates and velocities of a physical scale (0, or between 1e-10
/// and 1e10 in size). The halves of doubles read as floats rarely are: that bound keeps a
/// double-position file with one bad value from being taken for the other layout.
template <class Decoder>
bool readsAsDoubleVelocities(const Decoder& d, const unsigned char* rec)
{
    static constexpr const char* kNames[7] = {"mass", "x", "y", "z", "vx", "vy", "vz"};
    for (std::size_t i = 0; i < 7; ++i) {
        const double v = i == 0 ? d.f32(rec) : i < 4 ? d.f32(rec + 4 * i) : d.f64(rec + 16 + 8 * (i - 4));
        if (!checkBodyValue(kNames[i], v, i == 0).empty())
            return false;
        if (i > 0 && v != 0 && !(std::abs(v) >= 1e-10 && std::abs(v) <= 1e10))
            return false;
    }
    return true;
}

} // namespace

bool looksLikeTipsy(std::span<const unsigned char> head, std::uint64_t fileSize)
{
    if (head.size() < 28)
        return false;
    for (const bool big : {false, true}) {
        const Header h = parseHeader(head.data(), big);
        if (h.plausible() && h.nbodies > 0 && matchSize(h, fileSize))
            return true;
    }
    return false;
}

bool hasPlausibleTipsyHeader(std::span<const unsigned char> head)
{
    if (head.size() < 28)
        return false;
    for (const bool big : {false, true}) {
        const Header h = parseHeader(head.data(), big);
        if (h.plausible() && h.nbodies > 0)
            return true;
    }
    return false;
}

World readTipsy(const std::string& path, TipsyInfo* info, bool starEpsAsRadius)
{
    // ---- size and header ------------------------------------------------------------------
    std::error_code ec;
    const std::filesystem::path fsPath(path);
    if (!std::filesystem::exists(fsPath, ec))
        fail(path, "no such file");
    if (!std::filesystem::is_regular_file(fsPath, ec))
        fail(path, "not a regular file");
    const std::uintmax_t fileSize = std::filesystem::file_size(fsPath, ec);
    if (ec)
        fail(path, "cannot determine the size: " + ec.message());
    if (fileSize < 28)
        fail(path, "too short for a Tipsy header (" + std::to_string(fileSize)
                       + " bytes, at least 28 needed)");

    std::ifstream in(fsPath, std::ios::binary);
    if (!in)
        fail(path, "cannot open for reading");
    std::array<unsigned char, 28> head{};
    if (!in.read(reinterpret_cast<char*>(head.data()), std::streamsize(head.size())))
        fail(path, "cannot read the header");

    // The header's ints sit at the same offsets in both header sizes, so the byte order is
    // decided by plausibility (ndim in 1..3 fails for the wrong order of any small value), the
    // header size and the precision variant by the exact file size.
    std::optional<Header> chosen;
    Match match;
    std::optional<Header> plausibleHeader; // for the error message when no size matches
    for (const bool big : {false, true}) {
        const Header h = parseHeader(head.data(), big);
        if (!h.plausible())
            continue;
        if (!plausibleHeader)
            plausibleHeader = h;
        if (!chosen)
            if (const std::optional<Match> m = matchSize(h, fileSize)) {
                chosen = h;
                match = *m;
            }
    }

    if (!plausibleHeader) {
        const Header le = parseHeader(head.data(), false);
        std::ostringstream s;
        s << "not a Tipsy file: implausible header in either byte order (little-endian reading: "
          << "nbodies " << le.nbodies << ", ndim " << le.ndim << ", nsph " << le.nsph << ", ndark "
          << le.ndark << ", nstar " << le.nstar
          << "; ndim must be 1..3, counts non-negative, nbodies = nsph + ndark + nstar)";
        fail(path, s.str());
    }

    const Header& h = chosen ? *chosen : *plausibleHeader;
    if (std::uint64_t(h.nbodies) > kMaxBodies) {
        std::ostringstream s;
        s << "too many bodies: header says " << h.nbodies << " (nsph " << h.nsph << ", ndark "
          << h.ndark << ", nstar " << h.nstar << "), the limit is " << kMaxBodies;
        fail(path, s.str());
    }
    if (h.nbodies == 0)
        fail(path, "no bodies (nbodies = 0)");
    if (!chosen) {
        // Every layout's size; the nearest one says whether the file was cut or has extra bytes.
        const int usualHeader = h.bigEndian ? 28 : 32;
        std::uint64_t nearest = 0, nearestDistance = ~std::uint64_t(0);
        int nearestHeader = 0;
        TipsyPrecision nearestPrecision = TipsyPrecision::Float;
        for (const TipsyPrecision p : kPrecisions)
            for (const int hb : {usualHeader, 60 - usualHeader}) {
                const std::uint64_t size = std::uint64_t(hb) + h.particleBytes(p);
                const std::uint64_t distance = size > fileSize ? size - fileSize : fileSize - size;
                if (distance < nearestDistance || (distance == nearestDistance && size < nearest)) {
                    nearest = size, nearestDistance = distance, nearestHeader = hb, nearestPrecision = p;
                }
            }
        const std::uint64_t usual = std::uint64_t(usualHeader) + h.particleBytes();
        std::ostringstream s;
        s << "size mismatch: the " << orderName(h.bigEndian) << " header (nsph " << h.nsph
          << ", ndark " << h.ndark << ", nstar " << h.nstar << ") needs " << usual
          << " bytes (or " << (h.bigEndian ? usual + 4 : usual - 4) << " with a "
          << (60 - usualHeader) << "-byte header; "
          << usualHeader + h.particleBytes(TipsyPrecision::DoublePositions) << " with double positions, "
          << usualHeader + h.particleBytes(TipsyPrecision::DoublePosVel)
          << " with double positions and velocities), the file has " << fileSize << " bytes ("
          << (fileSize < nearest ? "truncated: " : "trailing data: ") << nearestDistance << " bytes "
          << (fileSize < nearest ? "short of" : "past") << " the nearest layout, " << nearestHeader
          << "-byte header with " << precisionName(nearestPrecision) << " fields)";
        fail(path, s.str());
    }
    if (!std::isfinite(h.time))
        fail(path, "header time is not finite");

    // ---- particles ------------------------------------------------------------------------
    checkHostMemory(std::size_t(h.nbodies)); // the header's N, before reserving for it
    World world;
    world.reserve(std::size_t(h.nbodies));
    world.time = h.time;

    in.seekg(match.headerBytes, std::ios::beg);
    const Decoder d(h.bigEndian);
    const bool idsInFile = !h.bigEndian; // Bonsai's little-endian variant: id in the phi slot
    // Big-endian files: the phi slots are kept and taken as ids afterwards when they look like
    // ids rather than potentials (phiHoldsIds).
    std::vector<std::uint32_t> phiBits;
    if (!idsInFile)
        phiBits.reserve(std::size_t(h.nbodies));
    const std::uint64_t pb = posBytes(match.precision), vb = velBytes(match.precision);

    static constexpr const char* kFieldNames[7] = {"mass", "position.x", "position.y",
                                                   "position.z", "velocity.x", "velocity.y",
                                                   "velocity.z"};

    std::vector<unsigned char> buffer;
    std::uint64_t index = 0; // particle index in the file, 0..nbodies-1
    for (const Family& fam : families(h)) {
        const std::uint64_t rb = recordBytes(match.precision, fam.extra);
        std::int64_t done = 0;
        while (done < fam.count) {
            const std::size_t n = std::size_t(std::min<std::int64_t>(fam.count - done,
                                                                     std::int64_t(kChunkParticles)));
            buffer.resize(n * rb);
            if (!in.read(reinterpret_cast<char*>(buffer.data()), std::streamsize(buffer.size())))
                fail(path, "read error at particle " + std::to_string(index) + " (" + fam.name
                               + " particle " + std::to_string(done) + ")");

            for (std::size_t k = 0; k < n; ++k, ++index) {
                const unsigned char* rec = buffer.data() + k * rb;
                std::array<double, 7> v; // mass, x, y, z, vx, vy, vz as stored
                v[0] = d.f32(rec);
                for (std::size_t c = 0; c < 3; ++c) {
                    const unsigned char* pos = rec + 4 + c * pb;
                    const unsigned char* vel = rec + 4 + 3 * pb + c * vb;
                    v[1 + c] = pb == 8 ? d.f64(pos) : d.f32(pos);
                    v[4 + c] = vb == 8 ? d.f64(vel) : d.f32(vel);
                }
                std::array<float, 7> f;
                for (std::size_t i = 0; i < v.size(); ++i) {
                    f[i] = float(v[i]);
                    const std::string problem = checkBodyValue(kFieldNames[i], v[i], i == 0);
                    if (problem.empty())
                        continue;
                    // Float positions with double velocities take as many bytes as double positions
                    // with float velocities, so the size chose the latter; when the record reads
                    // cleanly the other way round, say so rather than blame a value.
                    if (match.precision == TipsyPrecision::DoublePositions && readsAsDoubleVelocities(d, rec))
                        fail(path, "the records look like float positions with double velocities (particle " +
                                       std::to_string(index) + " reads cleanly that way), a Tipsy layout this "
                                       "reader does not support: it reads float, double-position and "
                                       "double-position-and-velocity files; convert the file to one of those");
                    std::ostringstream s;
                    s << "particle " << index << " (" << fam.name << " particle "
                      << (done + std::int64_t(k)) << "): " << problem;
                    fail(path, s.str());
                }
                const std::uint32_t id
                    = idsInFile ? std::uint32_t(d.i32(rec + rb - 4)) : std::uint32_t(index);
                if (!idsInFile)
                    phiBits.push_back(d.u32(rec + rb - 4));
                float radius = 0.f;
                if (starEpsAsRadius && fam.group == Group::Star) {
                    const double eps = d.f32(rec + rb - 8); // star: ..., metals, tform, eps, phi
                    if (const std::string problem = checkBodyValue("eps", eps, true); !problem.empty())
                        fail(path, "particle " + std::to_string(index) + " (star particle " +
                                       std::to_string(done + std::int64_t(k)) + "): " + problem);
                    radius = float(eps);
                }
                world.addBody(Float4{f[1], f[2], f[3], f[0]}, Float4{f[4], f[5], f[6], 0.f},
                              fam.group, id, radius);
            }
            done += std::int64_t(n);
        }
    }

    const bool idsFromPhi = idsInFile || phiHoldsIds(phiBits);
    if (!idsInFile && idsFromPhi)
        world.setIds(std::move(phiBits));

    if (info) {
        info->idsInPhi = idsFromPhi;
        info->time = h.time;
        info->nsph = int(h.nsph);
        info->ndark = int(h.ndark);
        info->nstar = int(h.nstar);
        info->bigEndian = h.bigEndian;
        info->headerBytes = match.headerBytes;
        info->precision = match.precision;
    }
    return world;
}

void writeTipsy(const std::string& path, const World& world, const TipsyLayout& layout)
{
    if (world.empty())
        throw std::invalid_argument("writeTipsy: '" + path + "': the system has no bodies");
    if (world.size() > std::size_t(std::numeric_limits<std::int32_t>::max()))
        throw std::invalid_argument("writeTipsy: '" + path + "': more than 2^31-1 bodies do not fit a Tipsy header");
    if (layout.headerBytes != 28 && layout.headerBytes != 32)
        throw std::invalid_argument("writeTipsy: header size must be 28 or 32 bytes");

    // Family of each body: gas, dark (DarkMatter and Generic), star.
    auto familyOf = [](Group g) { return g == Group::Gas ? 0 : g == Group::Star ? 2 : 1; };
    Header h;
    h.time = world.time;
    for (const Group g : world.groups())
        ++(familyOf(g) == 0 ? h.nsph : familyOf(g) == 1 ? h.ndark : h.nstar);
    h.nbodies = std::int64_t(world.size());
    h.ndim = 3;

    const Encoder e(layout.bigEndian);
    const std::uint64_t pb = posBytes(layout.precision), vb = velBytes(layout.precision);
    writeStreamAtomically(path, [&](FileSink& sink) {
        std::array<unsigned char, 32> head{};
        e.putF64(head.data(), h.time);
        const std::int64_t counts[5] = {h.nbodies, h.ndim, h.nsph, h.ndark, h.nstar};
        for (int i = 0; i < 5; ++i)
            e.putU32(head.data() + 8 + 4 * i, std::uint32_t(counts[i]));
        sink.write(head.data(), std::size_t(layout.headerBytes));

        const auto& pos = world.positions();
        const auto& vel = world.velocities();
        std::vector<unsigned char> buffer;
        const auto fams = families(h);
        for (int f = 0; f < 3; ++f) {
            const std::uint64_t rb = recordBytes(layout.precision, fams[std::size_t(f)].extra);
            for (std::size_t i = 0; i < world.size(); ++i) {
                if (familyOf(world.groups()[i]) != f)
                    continue;
                const std::size_t at = buffer.size();
                buffer.resize(at + rb, 0);
                unsigned char* rec = buffer.data() + at;
                const float p[3] = {pos[i].x, pos[i].y, pos[i].z};
                const float v[3] = {vel[i].x, vel[i].y, vel[i].z};
                e.putF32(rec, pos[i].w);
                for (std::size_t c = 0; c < 3; ++c) {
                    unsigned char* pp = rec + 4 + c * pb;
                    unsigned char* vp = rec + 4 + 3 * pb + c * vb;
                    pb == 8 ? e.putF64(pp, double(p[c])) : e.putF32(pp, p[c]);
                    vb == 8 ? e.putF64(vp, double(v[c])) : e.putF32(vp, v[c]);
                }
                if (layout.idsInPhi)
                    e.putU32(rec + rb - 4, world.ids()[i]);
                if (f == 2 && world.radii()[i] > 0.f) // a star's radius as its eps (readTipsy's starEpsAsRadius)
                    e.putF32(rec + rb - 8, world.radii()[i]);
                if (buffer.size() >= kChunkParticles * rb) {
                    sink.write(buffer.data(), buffer.size());
                    buffer.clear();
                }
            }
            sink.write(buffer.data(), buffer.size());
            buffer.clear();
        }
    });
}

} // namespace nbody
