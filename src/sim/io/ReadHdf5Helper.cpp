/// \file ReadHdf5Helper.cpp
/// nbody-read-hdf5: the child process in which readHdf5Snapshot reads an HDF5 file
/// (ReaderProcess.h), so that a crash or a hang of libhdf5 on a damaged file is the child's.
/// Started by the readers only: `nbody-read-hdf5 --memory BYTES --parent PID PATH`, the result on fd 3.

#include "sim/io/Hdf5Snapshot.h"
#include "sim/io/ReaderProcess.h"

int main(int argc, char** argv)
{
    return nbody::serveReaderProcess(argc, argv, nbody::readHdf5SnapshotInProcess);
}
