#pragma once
/// \file CsvSnapshot.h
/// Snapshots as CSV text (a row of the format table in Snapshot.h).
///
/// Layout, as written:
///
///     # nbody-sandbox snapshot
///     # bodies = 3
///     # time = 0.5
///     # step = 5
///     # G = 1
///     # eps2 = 0.002
///     # dt = 0.1
///     # kernel = cpu
///     # block_size = 256
///     # tile_factor = 1
///     x,y,z,vx,vy,vz,m,id,group
///     1.5,-2,0.25,0,0.1,0,1e+06,0,generic
///
/// Comment lines (`#`) come before the header row; `key = value` comments carry the number of
/// bodies, time, step and the run's parameters (RestartParams: each of G, eps2 and dt that is
/// there, on its own; an invalid one — nan, inf, negative, not a number — is refused with the
/// line number and its text); `# units = …` and `# unitsOfG = …` carry the system's units
/// (RestartParams::units, unitsOfG). The header row names the columns, in any order: x, y, z, vx, vy, vz, m (or mass) are
/// required, id (unsigned 32-bit), group (generic, dark, star, gas or 0..3), r (radius) and name
/// (a body's name, quoted; written when some body has one) optional; other
/// columns (a density from another tool) are ignored, with one line in
/// Snapshot::warnings naming them. Numbers are written in the shortest form that reads back to
/// the same fp32 value (std::to_chars), so a round trip is bitwise; the time is written as a
/// double the same way.
///
/// Files from other tools are read as RFC 4180 describes them: a UTF-8 byte order mark is
/// skipped; fields may be quoted ("x","y"; "" for a quote, commas and line ends inside quotes are
/// data); line ends may be LF, CRLF or CR alone (old Mac files).
///
/// When a `# bodies = N` line is present, N is checked against the file size before anything is
/// allocated, the rows must number exactly N, and the file must end with a line end (a
/// truncated file is refused).

#include "sim/io/Snapshot.h"

#include <cstdint>
#include <span>
#include <string>

namespace nbody {

/// Text whose first line (after a UTF-8 byte order mark) is a comment or starts with a letter or
/// a quote, with printable bytes only.
bool looksLikeCsv(std::span<const unsigned char> head, std::uint64_t fileSize);
/// Throws FormatError naming the file, the line, the particle and the column.
Snapshot readCsvSnapshot(const std::string& path);
/// Writes atomically; params may be null (then no G/eps2/dt/kernel lines). Throws WriteError.
/// `exact` is not used: CSV stores the World's fp32 columns (as their shortest exact text).
void writeCsvSnapshot(const std::string& path, const World& world, const RestartParams* params,
                      const Fp64State* exact = nullptr);

} // namespace nbody
