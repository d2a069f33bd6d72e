#pragma once
/// \file Hdf5Snapshot.h
/// Snapshots in HDF5 with the layout of GADGET-4 and SWIFT (a row of the format table in
/// Snapshot.h), through the HDF5 C library (Debian's libhdf5-dev).
///
/// Layout (one file per snapshot; N_t bodies of particle type t):
///
///     /Header          attributes NumPart_ThisFile, NumPart_Total (uint64[6]),
///                      NumPart_Total_HighWord (uint32[6], 0), MassTable (double[6]), Time,
///                      Redshift (0), BoxSize (0), NumFilesPerSnapshot (1),
///                      Flag_DoublePrecision (0), NBody_Step (uint64)
///     /Parameters      attributes NBody_G (double), NBody_Eps2, NBody_Dt (float),
///                      NBody_Kernel (string), NBody_BlockSize, NBody_TileWidthFactor (int32)
///                      NBody_<key> (string) for every stored row of the parameter
///                      table (integrator, openingAngle, …), NBody_Units and
///                      NBody_UnitsOfG (strings, when known)
///                      — present when the run's parameters were given
///     /NBody_Names/ParticleIDs  uint32 (K)      the named bodies (the Solar System's planets)
///     /NBody_Names/Names        uint8 (bytes)   their names in UTF-8, each ended by a NUL byte
///                                               — present when some body has a name
///     /PartTypeT/Coordinates  float32 (N_t, 3)     length units
///     /PartTypeT/Velocities   float32 (N_t, 3)     length / time
///     /PartTypeT/Masses       float32 (N_t)        omitted when every body of the type has the
///                                                  same mass: then MassTable[t] holds it (GADGET)
///     /PartTypeT/ParticleIDs  uint32 (N_t)
///
/// Groups map to GADGET's particle types: Gas = PartType0, DarkMatter = PartType1, Generic =
/// PartType2, Star = PartType4. Bodies are written type by type (0, 1, 2, 4), each in World
/// order, so a World sorted that way (every generator and the HDF5 and Tipsy readers make one; a
/// CSV file may mix the groups) keeps its order.
///
/// Reading accepts any number of types (SWIFT has 7), float32 or float64 datasets (rounded to
/// fp32; a value beyond fp32's range is refused), any integer type for counts and ids, and
/// takes the mass from Header/MassTable when Masses is absent. Types 0, 1, 4 read as Gas,
/// DarkMatter, Star and every other type as Generic. ParticleIDs absent: ids are the index in
/// the file. Multi-file snapshots (NumFilesPerSnapshot > 1) are refused.

#include "sim/io/Snapshot.h"

#include <cstdint>
#include <span>
#include <string>

namespace nbody {

/// The HDF5 signature at offset 0.
bool looksLikeHdf5(std::span<const unsigned char> head, std::uint64_t fileSize);
/// Reads the file in a child process, the helper nbody-read-hdf5 (ReaderProcess.h: libhdf5 1.10.8
/// crashes, loops or allocates without bound on some damaged files, tests/fuzz/README.md), so a
/// hostile file cannot crash or hang the caller. The helper is $NBODY_HDF5_READER, else
/// nbody-read-hdf5 beside the running executable, else the build tree's. Time limit: 60 s plus
/// 1 s per 4 MB of file, or $NBODY_HDF5_READ_TIMEOUT seconds; memory: what availableHostMemory()
/// reports. A file that reads gives the same bits as readHdf5SnapshotInProcess.
/// Throws FormatError naming the file, the dataset or attribute, and the particle (the reader's
/// own messages), ReaderProcessError (a FormatError) when the library crashed ("the HDF5 library
/// crashed reading 'x.h5' (signal 11): the file is damaged or not an HDF5 snapshot"), ran past the
/// time or memory limit or the helper is missing, std::invalid_argument when N does not fit the
/// host memory (checkHostMemory) or NBODY_HDF5_READ_TIMEOUT is not a positive number.
Snapshot readHdf5Snapshot(const std::string& path);
/// The reader itself, in this process: for the helper and the fuzzer only (a damaged file can
/// crash libhdf5 and with it the process). Throws FormatError, std::invalid_argument
/// (checkHostMemory), std::bad_alloc.
Snapshot readHdf5SnapshotInProcess(const std::string& path);
/// The time limit of readHdf5Snapshot for `path`, seconds (above). Throws std::invalid_argument
/// for a bad NBODY_HDF5_READ_TIMEOUT.
double hdf5ReadSeconds(const std::string& path);
/// Writes atomically; params may be null (then no Parameters group). With `exact` (an fp64 run's
/// state, N bodies in World order) Coordinates, Velocities and Masses are 64-bit floats and
/// Header/Flag_DoublePrecision is 1 (GADGET's convention); else 32-bit. Throws WriteError.
void writeHdf5Snapshot(const std::string& path, const World& world, const RestartParams* params,
                       const Fp64State* exact = nullptr);

} // namespace nbody
