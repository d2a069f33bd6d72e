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
  # The suites' own sources at -O1: the code under test lives in the libraries, built with the
  # build type's flags; the suites compile about 40 % faster than at Release's -O3 (docs/tests.md).
  target_compile_options(${T_NAME} PRIVATE $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CONFIG:Release,RelWithDebInfo>>:-O1>)
  if(TARGET nbody-read-hdf5)
    add_dependencies(${T_NAME} nbody-read-hdf5) # readHdf5Snapshot's child process (sim/io/ReaderProcess.h)
  endif()
  add_test(NAME ${T_NAME} COMMAND ${T_NAME} ${T_ARGS})
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS "${T_LABELS}")
  # Suites with windows never run at the same time as each other (ctest -j): they share one X
  # server, where a window that waits to be active loses the focus to another suite's.
  if("gui" IN_LIST T_LABELS)
    set_tests_properties(${T_NAME} PROPERTIES RESOURCE_LOCK display)
  endif()
endfunction()

# nbody_enable_sanitizers(list fuzzers): instruments every target that follows (call it before
# the modules). `list`: sanitizers for -fsanitize= ("address;undefined"); every report is fatal
# (-fno-sanitize-recover=all), frames keep their pointers for readable stacks. `fuzzers` ON adds
# libFuzzer's coverage instrumentation (fuzzer-no-link; the fuzz targets link -fsanitize=fuzzer)
# and requires clang. CUDA sources are not instrumented (sanitizer builds are CPU-only).
function(nbody_enable_sanitizers list fuzzers)
  set(_s ${list})
  if(fuzzers)
    if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
      message(FATAL_ERROR "NBODY_BUILD_FUZZERS needs clang (libFuzzer): configure with "
                          "-DCMAKE_CXX_COMPILER=clang++ (got ${CMAKE_CXX_COMPILER_ID})")
    endif()
    if(NOT _s)
      set(_s address undefined) # libFuzzer finds little without them
    endif()
  endif()
  if(NOT _s)
    return()
  endif()
  list(REMOVE_DUPLICATES _s)
  string(REPLACE ";" "," _flags "${_s}")
  set(_compile -fsanitize=${_flags} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  if(fuzzers)
    list(APPEND _compile -fsanitize=fuzzer-no-link)
  endif()
  foreach(f IN LISTS _compile)
    add_compile_options($<$<COMPILE_LANGUAGE:CXX>:${f}>)
  endforeach()
  add_link_options(-fsanitize=${_flags})
  set(NBODY_SANITIZER_FLAGS ${_flags} PARENT_SCOPE)
  if(fuzzers)
    message(STATUS "N-Body Sandbox: -fsanitize=${_flags} and libFuzzer coverage on every target")
  else()
    message(STATUS "N-Body Sandbox: -fsanitize=${_flags} on every target")
  endif()
endfunction()

# nbody_resolve_cuda_architectures(CHOICE ALL OUT): the CMAKE_CUDA_ARCHITECTURES for the
# NBODY_CUDA_ARCHITECTURES choice. "auto": the architectures of the GPUs nvidia-smi lists
# (machine code for each, as CMake's "native" gives), or ALL when it lists none (no GPU or no
# driver here: a build to run elsewhere) or one this nvcc cannot build for; "all": ALL; anything
# else is passed to CMake as it is ("89", "86-real;90-real", "native").
function(nbody_resolve_cuda_architectures choice all out)
  if(choice STREQUAL "all")
    set(${out} "${all}" PARENT_SCOPE)
    return()
  endif()
  if(NOT choice STREQUAL "auto")
    set(${out} "${choice}" PARENT_SCOPE)
    return()
  endif()
  find_program(NBODY_NVIDIA_SMI nvidia-smi)
  set(archs "")
  if(NBODY_NVIDIA_SMI)
    execute_process(COMMAND ${NBODY_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE
                    TIMEOUT 20)
    if(rc EQUAL 0 AND caps MATCHES "^[0-9]+\\.[0-9]")
      string(REPLACE "\n" ";" caps "${caps}")
      foreach(cap IN LISTS caps)
        string(STRIP "${cap}" cap)
        string(REPLACE "." "" arch "${cap}")
        if(NOT arch MATCHES "^(75|80|86|87|88|89|90|100|103|110|120|121)$")
          message(STATUS "N-Body Sandbox: GPU of compute capability ${cap}: not one nvcc 13 builds for, "
                         "building for every architecture instead")
          set(archs "")
          break()
        endif()
        list(APPEND archs "${arch}-real")
      endforeach()
      list(REMOVE_DUPLICATES archs)
    endif()
  endif()
  if(archs)
    message(STATUS "N-Body Sandbox: NBODY_CUDA_ARCHITECTURES=auto: the GPU here (nvidia-smi) is ${archs}")
    set(${out} "${archs}" PARENT_SCOPE)
  else()
    message(STATUS "N-Body Sandbox: NBODY_CUDA_ARCHITECTURES=auto: no GPU seen here, building for every "
                   "architecture (NBODY_CUDA_ARCHITECTURES=89 or native builds for one; docs/install.md)")
    set(${out} "${all}" PARENT_SCOPE)
  endif()
endfunction()
