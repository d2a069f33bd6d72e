#pragma once
/// \file Tipsy.h
/// Reader and writer of Tipsy snapshot files (Barnes, Quinn et al.; the format of PKDGRAV,
/// ChaNGa, Bonsai).
///
/// Layout: a header (double time; int32 nbodies, ndim, nsph, ndark, nstar; 4 bytes of padding
/// in the 32-byte variant, none in the 28-byte variant), then nsph gas particles (mass, pos[3],
/// vel[3], rho, temp, hsmooth, metals, phi), ndark dark-matter particles (mass, pos[3], vel[3],
/// eps, phi) and nstar star particles (mass, pos[3], vel[3], metals, tform, eps, phi). Fields
/// are packed (no padding). Every field is a 4-byte float except, in the double-precision
/// variants of ChaNGa/PKDGRAV (`TipsyPrecision`), pos[3] or pos[3] and vel[3], which are 8-byte
/// doubles: gas/dark/star records of 48/36/44 bytes (float), 60/48/56 (double positions) or
/// 72/60/68 bytes (double positions and velocities). Standard files are big-endian (XDR);
/// Bonsai writes little-endian with a 32-byte header and the particle id in the phi slot
/// (galaxy_20K.bin, the 20 000-body Milky Way–Andromeda model of NVIDIA's cuda-samples).
///
/// Detection: the byte order is the one whose header is plausible (ndim 1..3, counts
/// non-negative and summing to nbodies); the header size (28/32) and the precision variant are
/// the ones whose total size equals the file size exactly. Every count is checked against the
/// file size and kMaxBodies before anything is allocated. The variant with double velocities
/// and float positions has the size of the double-position variant and is not supported.
///
/// A Tipsy file stores the time but neither the step count nor the run's parameters.

#include "contracts/Errors.h"
#include "contracts/World.h"

#include <cstdint>
#include <span>
#include <string>

namespace nbody {

/// Which fields are 8-byte doubles.
enum class TipsyPrecision : std::uint8_t {
    Float = 0,              ///< every field a float (the standard)
    DoublePositions = 1,    ///< pos[3] doubles (ChaNGa/PKDGRAV "double position")
    DoublePosVel = 2,       ///< pos[3] and vel[3] doubles
};

/// The variant of a file (what readTipsy found, or what writeTipsy writes).
struct TipsyLayout {
    bool bigEndian = true;   ///< standard (XDR) files are big-endian
    int headerBytes = 32;    ///< 32 (with padding) or 28
    TipsyPrecision precision = TipsyPrecision::Float;
    bool idsInPhi = false;   ///< the particle id as int32 in the phi slot (Bonsai's variant)
};

struct TipsyInfo {
    double time = 0.0;
    int nsph = 0, ndark = 0, nstar = 0;
    bool bigEndian = false;
    int headerBytes = 32;
    TipsyPrecision precision = TipsyPrecision::Float;
    bool idsInPhi = false; ///< the ids came from the phi slots (else: the index in the file)
};

/// Reads a Tipsy file into a new World (N bodies, groups Gas, DarkMatter, Star in file order;
/// ids from the phi slot in the little-endian variant; in a big-endian file from the phi slot
/// when the slots hold ids rather than potentials (every one a non-negative int32, all
/// different, at least one below 2^23 — zero or subnormal as a float, which no potential is),
/// else the index in the file; time from the
/// header; double-precision fields rounded to fp32). Throws FormatError for a missing or
/// unreadable file, an inconsistent header, a size that does not match the counts, no bodies or
/// more than kMaxBodies, or non-finite / negative / beyond-fp32 values (naming the particle and
/// the field).
///
/// With `starEpsAsRadius`, each star particle's gravitational softening length `eps` becomes its
/// radius (World::radii(); sim/collide/Collisions.h) — a choice the user makes, since eps is a
/// softening length and not a size in every code; gas and dark particles get radius 0. The
/// eps values are checked like the other fields (finite, ≥ 0).
World readTipsy(const std::string& path, TipsyInfo* info = nullptr, bool starEpsAsRadius = false);

/// True when the first bytes of a file (at least 28) are a plausible Tipsy header in either byte
/// order whose counts fit `fileSize` for some header size and precision variant.
bool looksLikeTipsy(std::span<const unsigned char> head, std::uint64_t fileSize);
/// True when the first bytes (at least 28) are a plausible Tipsy header in either byte order,
/// whatever the file size (for a diagnosis of a truncated file whose name says nothing).
bool hasPlausibleTipsyHeader(std::span<const unsigned char> head);

/// Writes `world` as Tipsy, atomically (sim/base/AtomicFile.h). Bodies are written family by family
/// (Gas, then DarkMatter and Generic as dark particles, then Star), each in World order; mass,
/// position and velocity are exact (fp32, or fp32 widened to fp64); the other fields are 0
/// (eps and metals 0 — a star's eps is its radius when it has one —, phi 0 or the id with
/// `idsInPhi`). Throws WriteError naming the file and
/// the reason, std::invalid_argument for an empty world or more than 2^31−1 bodies.
void writeTipsy(const std::string& path, const World& world, const TipsyLayout& layout = {});

} // namespace nbody
