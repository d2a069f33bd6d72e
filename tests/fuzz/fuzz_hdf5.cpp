/// \file fuzz_hdf5.cpp
/// libFuzzer target: readHdf5Snapshot (sim/Hdf5Snapshot.h) on arbitrary bytes, opened by path
/// as a user's file is (the reader has no in-memory entry point; the file lies in tmpfs,
/// FuzzInput.h). A FormatError or a memory refusal (std::invalid_argument) is the expected
/// answer to a bad file; any other exception, a crash, a leak, a sanitizer report or an
/// allocation beyond -malloc_limit_mb is a finding. A file that reads must keep the reader's
/// contract (FuzzChecks.h), and after every input no HDF5 object may be left open (a reader
/// that leaks an identifier keeps the file open; LeakSanitizer cannot see it: the memory stays
/// reachable from the library's tables).

#include "FuzzChecks.h"
#include "FuzzInput.h"

#include "sim/Hdf5Snapshot.h"

#include <hdf5.h>

#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size)
{
    static nbody::fuzz::InputFile file(".h5");
    const std::string& path = file.write(data, size);
    try {
        const nbody::Snapshot s = nbody::readHdf5Snapshot(path);
        nbody::fuzz::checkWorld(s.world);
    } catch (const nbody::FormatError&) {
    } catch (const std::invalid_argument&) {
    }
    if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0)
        nbody::fuzz::broken("an HDF5 file, group, dataset, datatype or attribute was left open");
    return 0;
}
