# Tipsy reader tests (Qt Core + Qt Test only). Reads $NBODY_DATA_DIR/galaxy_20K.bin, else the
# NBODY_DATA_DIR compiled in by nbody_add_test; skips the real-file rows when it is absent.
nbody_add_test(NAME tst_tipsy SOURCES tst_tipsy.cpp LIBS nbody::sim Qt6::Core TIMEOUT 60)
