#pragma once
/// \file Snapshot.h
/// Snapshot files: a table of formats (Tipsy, CSV, HDF5 in the GADGET-4/SWIFT layout), each a
/// row with an id, file name extensions, a content detector, a reader and a writer.
///
/// A snapshot holds a World (N bodies: position + mass as Float4 = x, y, z, m; velocity; id;
/// group; time; step) and, where the format can carry them, the parameters a run needs to
/// continue exactly (RestartParams). A run continued from a snapshot that stores them, with the
/// same deterministic kernel, gives the same bits as an uninterrupted run: the snapshot holds the
/// fp32 state exactly and the accelerations are recomputed from the positions at the first step.
///
/// | id    | extensions             | stores                                                      |
/// | tipsy | .bin .tipsy .std       | bodies (family order), ids (in the phi slots), time; no step or parameters |
/// | csv   | .csv                   | bodies, ids, groups, names; time, step, parameters and units as `# key = value` lines |
/// | hdf5  | .h5 .hdf5 .hdf         | bodies (type order), ids, groups, names; Header/Time; Parameters group (with units) |
///
/// Every write is atomic (sim/base/AtomicFile.h). Every reader refuses truncated or inconsistent
/// files, non-finite values, negative masses and counts above kMaxBodies (before allocating)
/// with a FormatError naming the file, the field and the particle.

#include "contracts/Errors.h"
#include "sim/core/ParamTable.h"
#include "contracts/World.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nbody {

/// The parameters of a run stored with a snapshot (see SimParams for units). A writer stores
/// every physical parameter that is set (the defaults are a new system's); a reader sets each one
/// the file stores, on its own, and leaves the others unset (resolveFileParams fills them in).
struct RestartParams {
    std::optional<double> G = 1.0;      ///< gravitational constant
    std::optional<float> eps2 = 0.002f; ///< softening ε², length²
    std::optional<float> dt = 0.1f;     ///< time step, time units
    std::string kernel;  ///< force kernel id ("cpu", "tiled", …); may be empty
    /// Launch parameters of CUDA kernels (SimParams::blockSize, tileWidthFactor): kept so that a
    /// GPU run continues with the same configuration; 0 when the file has none (auto: each is
    /// written only when the run had it set, > 0).
    int blockSize = 0;
    int tileWidthFactor = 0;
    /// The other parameters that change the trajectory (storedParams(): integrator, θ, leaf size,
    /// reverse, collisions) as (key, text), each one the file stores; a writer stores them all.
    std::vector<std::pair<std::string, std::string>> stored;
    /// The system's units, so a reopened system is labelled as it was: the scenario's units label
    /// ("AU, days, solar masses (G = …)") and the unit of G ("AU³ M☉⁻¹ day⁻²"); "" for N-body
    /// units or unknown (each is written only when set).
    std::string units;
    std::string unitsOfG;
};

/// What a run with parameters `p` and kernel `kernel` stores in its snapshots: G, ε², dt, the
/// kernel, the launch parameters that are set and every row of storedParams().
RestartParams restartParams(const SimParams& p, std::string_view kernel);
/// Applies the stored rows (RestartParams::stored) to `p`, except those whose key is in `keep` (an option given
/// on the command line). Returns one line per stored value that differs from the value kept
/// ("--theta 0.7 given; the snapshot stores openingAngle = 0.45"), empty when none does.
/// Throws std::invalid_argument naming the key for a value the table refuses.
std::vector<std::string> applyStoredParams(std::span<const std::pair<std::string, std::string>> stored, SimParams& p,
                                           std::span<const std::string_view> keep = {});

/// A system read from a file.
struct Snapshot {
    World world;
    /// When the file carries any of them (G, eps2, dt, kernel, launch parameters); each of G,
    /// eps2 and dt is set only when the file stores it.
    std::optional<RestartParams> params;
    std::string formatId;                ///< the format it was read as ("tipsy", "csv", "hdf5")
    /// What the reader skipped and the user should hear about, one line each, naming the file
    /// ("CSV file 'a.csv': line 1: ignored unknown columns 'name', 'rho' (…)"); front ends print them.
    std::vector<std::string> warnings;
    /// The file's positions, masses and velocities in fp64 when it stores them so (an HDF5 file
    /// written from an fp64 state, Header/Flag_DoublePrecision = 1); `world` holds their rounding.
    /// An fp64 kernel continues from it bit for bit. Accelerations are zero (recomputed).
    std::optional<Fp64State> exact;
};

/// One row of the format table.
struct SnapshotFormat {
    std::string_view id;          ///< "tipsy", "csv", "hdf5"
    std::string_view name;        ///< for menus and messages ("HDF5 (GADGET-4/SWIFT layout)")
    std::string_view extensions;  ///< space-separated, with the dot (".h5 .hdf5"); the first is the default
    bool storesParams;            ///< RestartParams survive a write and read
    /// True when the file's first bytes (up to 64; fewer for a short file) and size show this format.
    bool (*detect)(std::span<const unsigned char> head, std::uint64_t fileSize);
    Snapshot (*read)(const std::string& path);
    /// Writes atomically; params may be null. Throws WriteError / std::invalid_argument.
    /// `exact`, when given, is the run's fp64 state (an fp64 kernel's: positions with masses and
    /// velocities, N Double4 each, in World order); a format that can hold it (HDF5) stores it
    /// in fp64 so that the run continues bit for bit, the others store the World's fp32 columns.
    void (*write)(const std::string& path, const World& world, const RestartParams* params, const Fp64State* exact);
};

/// Every format, in detection order.
std::span<const SnapshotFormat> snapshotFormats();
/// The row with this id, or nullptr.
const SnapshotFormat* findSnapshotFormat(std::string_view id);
/// The row whose extensions include the one of `path` (case-insensitive), or nullptr.
const SnapshotFormat* snapshotFormatForPath(const std::string& path);

/// Reads a snapshot in any format: detected from the content, else taken from the extension, else
/// Checks every stored row of a snapshot read from `path` whose key the table knows (rows
/// declared at run time included; unknown keys, a newer version's, are kept and ignored by
/// applyStoredParams). Throws FormatError naming the file, the key and the row's reason.
void checkStoredParams(const Snapshot& snap, const std::string& path);
/// Tipsy when the first bytes are a plausible Tipsy header (so a damaged file gets its format's
/// own diagnosis). Throws FormatError naming the file and the
/// problem: missing, not a regular file, no format recognised, or the reader's error.
Snapshot readSnapshot(const std::string& path);

/// Writes `world` (and `params`, where the format stores them) to `path` in the format with id
/// `formatId`, or the one of the path's extension when empty. Throws std::invalid_argument for
/// an unknown format or extension (listing the known ones) or an empty world, WriteError when
/// the file cannot be written (nothing is left under its name then).
void writeSnapshot(const std::string& path, const World& world, const RestartParams* params = nullptr,
                   std::string_view formatId = {}, const Fp64State* exact = nullptr);

/// "tipsy (.bin .tipsy .std), csv (.csv), hdf5 (.h5 .hdf5 .hdf)" for messages and help.
std::string describeSnapshotFormats();

/// The physical parameters a system read from a file runs with: each one the file stores
/// (`stored`), each on its own; the others a new system's: G = `givenG` when set (a --G),
/// else the file's, else 1; dt and ε² the file's, else derived from the world's scale with
/// that G (deriveScaleDefaults, which throws std::invalid_argument for a massless system).
struct FileParams {
    double G = 1.0;
    float dt = 0.1f;
    float eps2 = 0.002f;
    bool storedG = false, storedDt = false, storedEps2 = false; ///< taken from the file
    /// A derived dt (eps2) fp32 cannot hold (ScaleDefaults::dtProblem); empty when stored.
    std::string dtProblem, eps2Problem;
    double rmsRadius = 0, dynamicalTime = 0; ///< the scale, when dt or ε² was derived
    /// "G, dt and eps2 from the file", "G from the file; dt 0.0185 and eps2 1e-4 derived from its scale".
    std::string describe() const;
};
FileParams resolveFileParams(const World& world, const std::optional<RestartParams>& stored,
                             std::optional<double> givenG = std::nullopt);

/// Checks one body's fields as read; returns "" or the problem with `field` named
/// ("mass is negative (-1)", "velocity.y is not finite (nan)"). Values are the file's, before
/// rounding to fp32 (a value beyond fp32's range is refused too).
std::string checkBodyValue(std::string_view field, double value, bool isMass);

} // namespace nbody
