# Shared CMake helpers for N-Body Sandbox.

# nbody_set_warnings(target): the warning set the code is held to.
function(nbody_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wshadow -Wpedantic>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall --expt-relaxed-constexpr>)
endfunction()

# nbody_add_test(NAME name SOURCES ... LIBS ... [LABELS ...] [TIMEOUT s] [ARGS ...])
# One Qt Test executable registered with ctest, with a timeout and labels
# (gpu: needs a CUDA device, skips without one; gui: needs a display, run under xvfb-run).
function(nbody_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS;ARGS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  set_target_properties(${T_NAME} PROPERTIES AUTOMOC ON)
  target_link_libraries(${T_NAME} PRIVATE Qt6::Test ${T_LIBS})
  target_compile_definitions(${T_NAME} PRIVATE
    NBODY_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    NBODY_DATA_DIR="${PROJECT_SOURCE_DIR}/../shared/data")
  nbody_set_warnings(${T_NAME})
  add_test(NAME ${T_NAME} COMMAND ${T_NAME} ${T_ARGS})
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS "${T_LABELS}")
endfunction()
