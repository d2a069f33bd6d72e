# Diagnostics. Included from tests/CMakeLists.txt.
# tst_diagnostics: host closed forms, the Simulation's evaluations, the CSV and
# `nbody run --diagnostics` (Qt Core only; its GPU rows skip without a device).
nbody_add_test(NAME tst_diagnostics SOURCES tst_diagnostics.cpp LIBS nbody::sim Qt6::Core LABELS gpu)
target_compile_definitions(tst_diagnostics PRIVATE NBODY_CLI_PATH="$<TARGET_FILE:nbody>")
add_dependencies(tst_diagnostics nbody)
# tst_gpu_diagnostics: the GPU diagnostics against the host (Qt Core only, built without the app;
# every row skips without a CUDA device).
nbody_add_test(NAME tst_gpu_diagnostics SOURCES tst_gpu_diagnostics.cpp LIBS nbody::sim Qt6::Core LABELS gpu)
# tst_diagnostics_dock: the Diagnostics dock fed by a real SimulationController (needs a display:
# run under xvfb-run; label gui).
if(NBODY_BUILD_APP)
  nbody_add_test(NAME tst_diagnostics_dock
    SOURCES tst_diagnostics_dock.cpp
    LIBS nbody::app Qt6::Widgets Qt6::Charts
    LABELS gui)
endif()
