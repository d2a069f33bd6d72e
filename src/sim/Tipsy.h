#pragma once
/// \file Tipsy.h
/// Reader of Tipsy snapshot files (Barnes, Quinn et al.; the format of PKDGRAV, ChaNGa, Bonsai).
///
/// Layout: a header (double time; int32 nbodies, ndim, nsph, ndark, nstar; 4 bytes of padding
/// in the 32-byte variant, none in the 28-byte XDR variant), then nsph gas particles (12 floats,
/// 48 bytes: mass, pos[3], vel[3], rho, temp, hsmooth, metals, phi), ndark dark-matter particles
/// (9 floats, 36 bytes: mass, pos[3], vel[3], eps, phi) and nstar star particles (11 floats,
/// 44 bytes: mass, pos[3], vel[3], metals, tform, eps, phi). Standard files are big-endian
/// (XDR); Bonsai writes little-endian with a 32-byte header and the particle id in the phi slot
/// (../shared/data/galaxy_20K.bin). The byte order and header size are detected from the header
/// and the file size; the counts are checked against the file size before anything is allocated.

#include "World.h"

#include <stdexcept>
#include <string>

namespace nbody {

/// A file that cannot be read as requested; what() names the file and the problem.
class FormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct TipsyInfo {
    double time = 0.0;
    int nsph = 0, ndark = 0, nstar = 0;
    bool bigEndian = false;
    int headerBytes = 32;
};

/// Reads a Tipsy file into a new World (groups: Gas, DarkMatter, Star; ids from the file's phi
/// slot in the little-endian variant, else sequential). Throws FormatError for a missing or
/// unreadable file, an inconsistent header, a size that does not match the counts, more than
/// kMaxBodies bodies, or non-finite / negative values (naming the particle and field).
World readTipsy(const std::string& path, TipsyInfo* info = nullptr);

} // namespace nbody
