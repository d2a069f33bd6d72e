/// \file Tipsy.cpp
/// Reader of Tipsy snapshots (see Tipsy.h for the layout).
///
/// Order of work, so that a bad file costs no memory: read the header, pick the byte order and
/// header size whose counts are plausible and match the file size exactly, refuse more than
/// kMaxBodies bodies, then reserve the World and read the particles in fixed-size chunks.

#include "Tipsy.h"

#include "Scenario.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>
#include <vector>

namespace nbody {
namespace {

constexpr std::uint64_t kGasBytes = 12 * 4;  ///< mass, pos[3], vel[3], rho, temp, hsmooth, metals, phi
constexpr std::uint64_t kDarkBytes = 9 * 4;  ///< mass, pos[3], vel[3], eps, phi
constexpr std::uint64_t kStarBytes = 11 * 4; ///< mass, pos[3], vel[3], metals, tform, eps, phi
constexpr std::size_t kChunkParticles = 4096; ///< particles per read

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
    std::uint64_t particleBytes() const
    {
        return std::uint64_t(nsph) * kGasBytes + std::uint64_t(ndark) * kDarkBytes
            + std::uint64_t(nstar) * kStarBytes;
    }
};

/// Decodes fixed-size fields from raw bytes in the file's byte order.
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

private:
    static std::uint32_t swap32(std::uint32_t v)
    {
        return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
    }
    bool m_swap;
};

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

/// One particle family's record layout: size and the slot of each field we load.
struct Family {
    const char* name;     ///< "gas", "dark", "star"
    Group group;
    std::int64_t count;
    std::uint64_t recordBytes;
};

} // namespace

World readTipsy(const std::string& path, TipsyInfo* info)
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
    // decided by plausibility (ndim in 1..3 fails for the wrong order of any small value) and
    // the header size by the exact file size. Preferred: each byte order's usual header size.
    std::optional<Header> chosen;
    int headerBytes = 0;
    std::optional<Header> plausibleHeader; // for the error message when no size matches
    for (const bool big : {false, true}) {
        const Header h = parseHeader(head.data(), big);
        if (!h.plausible())
            continue;
        if (!plausibleHeader)
            plausibleHeader = h;
        const std::array<int, 2> sizes = big ? std::array<int, 2>{28, 32} : std::array<int, 2>{32, 28};
        for (const int hb : sizes) {
            if (!chosen && std::uint64_t(hb) + h.particleBytes() == fileSize) {
                chosen = h;
                headerBytes = hb;
            }
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
    if (!chosen) {
        const std::uint64_t usual = (h.bigEndian ? 28u : 32u) + h.particleBytes();
        std::ostringstream s;
        s << "size mismatch: the " << orderName(h.bigEndian) << " header (nsph " << h.nsph
          << ", ndark " << h.ndark << ", nstar " << h.nstar << ") needs " << usual
          << " bytes (or " << (h.bigEndian ? usual + 4 : usual - 4) << " with a "
          << (h.bigEndian ? 32 : 28) << "-byte header), the file has " << fileSize << " bytes"
          << (fileSize < usual ? " (truncated)" : " (trailing data)");
        fail(path, s.str());
    }
    if (!std::isfinite(h.time))
        fail(path, "header time is not finite");

    // ---- particles ------------------------------------------------------------------------
    World world;
    world.reserve(std::size_t(h.nbodies));
    world.time = h.time;

    in.seekg(headerBytes, std::ios::beg);
    const Decoder d(h.bigEndian);
    const bool idsInFile = !h.bigEndian; // Bonsai's little-endian variant: id in the phi slot

    const std::array<Family, 3> families{{
        {"gas", Group::Gas, h.nsph, kGasBytes},
        {"dark", Group::DarkMatter, h.ndark, kDarkBytes},
        {"star", Group::Star, h.nstar, kStarBytes},
    }};
    static constexpr const char* kFieldNames[7] = {"mass", "position.x", "position.y",
                                                   "position.z", "velocity.x", "velocity.y",
                                                   "velocity.z"};

    std::vector<unsigned char> buffer;
    std::uint64_t index = 0; // particle index in the file, 0..nbodies-1
    for (const Family& fam : families) {
        std::int64_t done = 0;
        while (done < fam.count) {
            const std::size_t n = std::size_t(std::min<std::int64_t>(fam.count - done,
                                                                     std::int64_t(kChunkParticles)));
            buffer.resize(n * fam.recordBytes);
            if (!in.read(reinterpret_cast<char*>(buffer.data()), std::streamsize(buffer.size())))
                fail(path, "read error at particle " + std::to_string(index) + " (" + fam.name
                               + " particle " + std::to_string(done) + ")");

            for (std::size_t k = 0; k < n; ++k, ++index) {
                const unsigned char* rec = buffer.data() + k * fam.recordBytes;
                std::array<float, 7> v; // mass, x, y, z, vx, vy, vz
                for (std::size_t f = 0; f < v.size(); ++f)
                    v[f] = d.f32(rec + 4 * f);
                for (std::size_t f = 0; f < v.size(); ++f) {
                    const bool bad = !std::isfinite(v[f]) || (f == 0 && v[f] < 0.f);
                    if (!bad)
                        continue;
                    std::ostringstream s;
                    s << "particle " << index << " (" << fam.name << " particle "
                      << (done + std::int64_t(k)) << "): " << kFieldNames[f] << " is "
                      << (std::isfinite(v[f]) ? "negative" : "not finite") << " (" << v[f] << ")";
                    fail(path, s.str());
                }
                const std::uint32_t id
                    = idsInFile ? std::uint32_t(d.i32(rec + fam.recordBytes - 4))
                                : std::uint32_t(index);
                world.addBody(Float4{v[1], v[2], v[3], v[0]}, Float4{v[4], v[5], v[6], 0.f},
                              fam.group, id);
            }
            done += std::int64_t(n);
        }
    }

    if (info) {
        info->time = h.time;
        info->nsph = int(h.nsph);
        info->ndark = int(h.ndark);
        info->nstar = int(h.nstar);
        info->bigEndian = h.bigEndian;
        info->headerBytes = headerBytes;
    }
    return world;
}

} // namespace nbody
