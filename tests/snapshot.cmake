# Snapshot files (Qt Core + Qt Test only; the GPU rows of the exact restart skip without a device).
# Links HDF5 to edit files the writer made (independently of the reader).
nbody_add_test(NAME tst_snapshot SOURCES tst_snapshot.cpp LIBS nbody::sim nbody::hdf5 Qt6::Core LABELS gpu
               TIMEOUT 120)
