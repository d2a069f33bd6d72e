cmake_policy(SET CMP0057 NEW) # if(IN_LIST)
# The layering of the core, checked from the sources (cmake -P; ctest runs it as tst_layers):
# every #include "<folder>/..." of a file in one layer names a layer it may use, lowest first:
#
#   contracts  kernels  base  collide  core  io  perf  validate
#
# contracts uses nothing else; kernels only contracts (the device code sees the contracts and
# nothing of the core); base only the kernels (whether this build's CUDA code loads on the
# device); each sim/ layer the layers below it, except
# that io and validate do not call the CUDA kernels directly. docs/architecture.md has the picture.
# Usage: cmake -DSOURCE_DIR=<repository root> -P check_layers.cmake   (exit status 1 on a violation)
set(allowed_contracts contracts)
set(allowed_kernels contracts kernels)
set(allowed_base contracts kernels base)
set(allowed_collide contracts kernels base collide)
set(allowed_core contracts kernels base collide core)
set(allowed_io contracts base collide core io)
set(allowed_perf contracts kernels base collide core io perf)
set(allowed_validate contracts base collide core io perf validate)

function(layer_of path out)
  if(path MATCHES "^(src/)?contracts/")
    set(${out} contracts PARENT_SCOPE)
  elseif(path MATCHES "^kernels/")
    set(${out} kernels PARENT_SCOPE)
  elseif(path MATCHES "^(src/)?sim/([a-z]+)/")
    set(${out} ${CMAKE_MATCH_2} PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

file(GLOB_RECURSE files RELATIVE "${SOURCE_DIR}"
  "${SOURCE_DIR}/src/contracts/*" "${SOURCE_DIR}/src/sim/*" "${SOURCE_DIR}/kernels/*")
set(violations 0)
set(checked 0)
foreach(f IN LISTS files)
  if(NOT f MATCHES "\\.(h|cpp|cu|cuh)$")
    continue()
  endif()
  layer_of("${f}" from)
  if(from STREQUAL "")
    message(SEND_ERROR "${f}: in no layer (src/sim files belong in one of its sub-folders)")
    math(EXPR violations "${violations} + 1")
    continue()
  endif()
  math(EXPR checked "${checked} + 1")
  file(STRINGS "${SOURCE_DIR}/${f}" includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"[^\"]+\"")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([^\"]+)\".*$" "\\1" inc "${line}")
    if(NOT inc MATCHES "/")
      continue() # a header of the same folder
    endif()
    layer_of("${inc}" to)
    if(to STREQUAL "")
      message(SEND_ERROR "${f}: includes ${inc}, which is outside the layers of the core")
      math(EXPR violations "${violations} + 1")
    elseif(NOT to IN_LIST allowed_${from})
      string(REPLACE ";" ", " allowed_list "${allowed_${from}}")
      message(SEND_ERROR "${f}: the ${from} layer includes ${inc} (${to}); it may use: ${allowed_list}")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()
if(checked LESS 50)
  message(FATAL_ERROR "only ${checked} source files found under ${SOURCE_DIR}: wrong SOURCE_DIR?")
endif()
message(STATUS "${checked} files of the core checked: ${violations} layering violations")
