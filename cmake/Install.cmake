# Installation (cmake --install) and the Debian package (cpack -G DEB); docs/install.md says
# what goes where. Included at the end of the top-level CMakeLists.txt, after every target.
#
#   bin/                              nbody, nbody-sandbox, nbody-read-hdf5 (the HDF5 reader's
#                                     child process, found beside the executable that starts it:
#                                     sim/io/ReaderProcess.h)
#   share/applications/               the desktop entry, <id>.desktop
#   share/metainfo/                   the AppStream metainfo, <id>.metainfo.xml
#   share/icons/hicolor/              the icon: scalable/apps/<id>.svg and NxN/apps/<id>.png
#   share/man/man1/                   nbody.1.gz, nbody-sandbox.1.gz (help2man, from --help),
#                                     nbody-read-hdf5.1.gz (resources/man)
#   share/doc/nbody-sandbox/          copyright, changelog.gz, README.md, docs/*.md
#
# <id> is NBODY_APP_ID (src/app/CMakeLists.txt). The programs read no files of their own at run
# time (scenarios are compiled in, the shaders embedded: src/gl/CMakeLists.txt), so nothing is
# installed in share/nbody-sandbox/. The PNG icons and the man pages are made at build time with
# rsvg-convert (librsvg2-bin) and help2man; without them the build goes on and they are left out
# of the installation.
include(GNUInstallDirs)

# Debian wants the documentation in share/doc/<package>, not GNUInstallDirs' share/doc/<project>.
set(NBODY_INSTALL_DOCDIR ${CMAKE_INSTALL_DATAROOTDIR}/doc/nbody-sandbox)
# The maintainer, and the date of this version's release: the Debian changelog, the metainfo's
# <release> and the date of nbody-read-hdf5's man page. Change the date with the project's VERSION.
set(NBODY_MAINTAINER "N-Body Sandbox maintainers <maintainers@users.noreply.a-seed-bf1f1953.example>")
set(NBODY_RELEASE_DATE 2026-12-03)
set(NBODY_RELEASE_DATE_RFC2822 "Thu, 03 Dec 2026 12:00:00 +0000")

install(TARGETS nbody nbody-read-hdf5 RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET nbody-sandbox)
  install(TARGETS nbody-sandbox RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

set(_nbody_generated) # files made at build time, for the target below

# ---- desktop entry, metainfo, icons ------------------------------------------------------------
if(TARGET nbody-sandbox)
  set(_desktop ${PROJECT_SOURCE_DIR}/resources/desktop)
  set(_svg ${PROJECT_SOURCE_DIR}/resources/icons/${NBODY_APP_ID}.svg)
  configure_file(${_desktop}/${NBODY_APP_ID}.metainfo.xml.in
                 ${PROJECT_BINARY_DIR}/desktop/${NBODY_APP_ID}.metainfo.xml @ONLY)
  install(FILES ${_desktop}/${NBODY_APP_ID}.desktop DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/applications)
  install(FILES ${PROJECT_BINARY_DIR}/desktop/${NBODY_APP_ID}.metainfo.xml
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/metainfo)
  install(FILES ${_svg} DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/icons/hicolor/scalable/apps)

  find_program(NBODY_RSVG_CONVERT rsvg-convert)
  if(NBODY_RSVG_CONVERT)
    foreach(size 16 32 48 64 128 256)
      set(_png ${PROJECT_BINARY_DIR}/icons/${size}x${size}/apps/${NBODY_APP_ID}.png)
      add_custom_command(OUTPUT ${_png}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/icons/${size}x${size}/apps
        COMMAND ${NBODY_RSVG_CONVERT} --width ${size} --height ${size} --output ${_png} ${_svg}
        DEPENDS ${_svg}
        COMMENT "Icon ${size}x${size} from ${NBODY_APP_ID}.svg"
        VERBATIM)
      list(APPEND _nbody_generated ${_png})
    endforeach()
    install(DIRECTORY ${PROJECT_BINARY_DIR}/icons/ DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/icons/hicolor)
  else()
    message(STATUS "N-Body Sandbox: rsvg-convert not found (librsvg2-bin): the PNG icons are not installed, "
                   "only the SVG one")
  endif()
endif()

# ---- man pages: help2man from each program's --help and --version ------------------------------
# Not in sanitizer and fuzzer builds, which are not packaged and whose programs may report leaks
# of the libraries (Open MPI's) at exit.
find_program(NBODY_HELP2MAN help2man)
if(NBODY_SANITIZE OR NBODY_BUILD_FUZZERS)
  message(STATUS "N-Body Sandbox: sanitizer or fuzzer build: the man pages of nbody and nbody-sandbox are not made")
elseif(NBODY_HELP2MAN)
  set(_nbody_man_names nbody "gravitational N-body simulation on the command line")
  if(TARGET nbody-sandbox)
    list(APPEND _nbody_man_names nbody-sandbox "interactive gravitational N-body simulator")
  endif()
  while(_nbody_man_names)
    list(POP_FRONT _nbody_man_names program summary)
    set(_man ${PROJECT_BINARY_DIR}/man/${program}.1)
    set(_include ${PROJECT_SOURCE_DIR}/resources/man/${program}.h2m)
    # gzip -n: no name or time stamp in the archive, so the same page gives the same file.
    add_custom_command(OUTPUT ${_man}.gz
      COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
      COMMAND ${CMAKE_COMMAND} -E env --unset=DISPLAY --unset=WAYLAND_DISPLAY
              ${NBODY_HELP2MAN} --no-info --name=${summary} --include=${_include} --output=${_man}
              $<TARGET_FILE:${program}>
      COMMAND gzip -9nf ${_man}
      DEPENDS ${program} ${_include}
      COMMENT "Man page ${program}.1 from ${program} --help"
      VERBATIM)
    list(APPEND _nbody_generated ${_man}.gz)
    install(FILES ${_man}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  endwhile()
else()
  message(STATUS "N-Body Sandbox: help2man not found: the man pages of nbody and nbody-sandbox are not installed")
endif()
# nbody-read-hdf5 has no --help (its callers alone run it): a page written by hand.
configure_file(${PROJECT_SOURCE_DIR}/resources/man/nbody-read-hdf5.1.in ${PROJECT_BINARY_DIR}/man/nbody-read-hdf5.1 @ONLY)
add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/man/nbody-read-hdf5.1.gz
  COMMAND gzip -9n -c ${PROJECT_BINARY_DIR}/man/nbody-read-hdf5.1 > ${PROJECT_BINARY_DIR}/man/nbody-read-hdf5.1.gz
  DEPENDS ${PROJECT_BINARY_DIR}/man/nbody-read-hdf5.1
  VERBATIM)
list(APPEND _nbody_generated ${PROJECT_BINARY_DIR}/man/nbody-read-hdf5.1.gz)
install(FILES ${PROJECT_BINARY_DIR}/man/nbody-read-hdf5.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# ---- share/doc/nbody-sandbox: copyright, changelog, the guides ---------------------------------
configure_file(${PROJECT_SOURCE_DIR}/resources/debian/changelog.in ${PROJECT_BINARY_DIR}/doc/changelog @ONLY)
add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/doc/changelog.gz
  COMMAND gzip -9n -c ${PROJECT_BINARY_DIR}/doc/changelog > ${PROJECT_BINARY_DIR}/doc/changelog.gz
  DEPENDS ${PROJECT_BINARY_DIR}/doc/changelog
  VERBATIM)
list(APPEND _nbody_generated ${PROJECT_BINARY_DIR}/doc/changelog.gz)
install(FILES ${PROJECT_SOURCE_DIR}/resources/debian/copyright ${PROJECT_BINARY_DIR}/doc/changelog.gz
        DESTINATION ${NBODY_INSTALL_DOCDIR})
# HDF5 and libaec linked into the executables (nbody::hdf5 names the static archives: the
# top-level CMakeLists.txt): their notices, as the build machine's Debian packages have them.
get_target_property(_hdf5_links nbody_hdf5 INTERFACE_LINK_LIBRARIES)
if(NBODY_HDF5_STATIC AND "${NBODY_HDF5_STATIC}" IN_LIST _hdf5_links)
  file(GLOB _hdf5_copyright /usr/share/doc/libhdf5-[0-9]*/copyright)
  list(FILTER _hdf5_copyright EXCLUDE REGEX "-(cpp|fortran|hl)-")
  foreach(pair "hdf5;${_hdf5_copyright}" "libaec;/usr/share/doc/libaec-dev/copyright")
    list(POP_FRONT pair name file)
    if(file AND EXISTS ${file})
      install(FILES ${file} DESTINATION ${NBODY_INSTALL_DOCDIR} RENAME copyright.${name})
    else()
      message(WARNING "N-Body Sandbox: ${name} is linked statically but its copyright file was not found "
                      "(/usr/share/doc/...): the installation lacks its notice")
    endif()
  endforeach()
endif()
file(GLOB _nbody_guides CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES README.md DESTINATION ${NBODY_INSTALL_DOCDIR})
install(FILES ${_nbody_guides} DESTINATION ${NBODY_INSTALL_DOCDIR}/docs)

add_custom_target(nbody_install_files ALL DEPENDS ${_nbody_generated})

# ---- the Debian package (cpack -G DEB in the build directory) ----------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME nbody-sandbox)
set(CPACK_PACKAGE_VENDOR "N-Body Sandbox maintainers")
set(CPACK_PACKAGE_CONTACT "${NBODY_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "gravitational N-body simulator: a desktop app and a command-line tool")
set(CPACK_DEBIAN_PACKAGE_NAME nbody-sandbox)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # nbody-sandbox_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${NBODY_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The extended description: lines of at most 79 characters (as lintian wants), an empty line
# between paragraphs.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "Every body attracts every other one (softened Newtonian gravity, all pairs),
on an NVIDIA GPU through CUDA where the package was built with it, or on the
CPU through OpenMP and SIMD.

nbody-sandbox is a Qt 6 desktop app that draws the system in 3-D while it
runs: scenarios (a Plummer sphere, a disk galaxy, two colliding galaxies, the
Solar System, the figure-eight orbit, two colliding clusters) or snapshots
(Tipsy, CSV, HDF5), charts of the energy and momenta, the force kernels checked
against an fp64 reference, bodies added and aimed with the mouse, collisions
that merge bodies, pictures and videos.

nbody is the command-line tool for runs, pictures, videos, benchmarks and
validation on machines without a display, and runs across processes with
mpirun.")
# Depends from the executables' shared libraries (dpkg-shlibdeps: Qt 6, Highway, Open MPI,
# libepoxy, OpenGL, HDF5 where it is linked as a shared library, ...).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# What the shared libraries do not say: videos go through ffmpeg; mpirun is in openmpi-bin;
# Mesa's drivers draw where no GPU driver does (OpenGL through EGL or GLX); Qt's Wayland plugin
# runs the app natively on Wayland (else through XWayland).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ffmpeg, openmpi-bin, libgl1-mesa-dri, libegl-mesa0")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "qt6-wayland")
set(CPACK_STRIP_FILES ON)
include(CPack)
