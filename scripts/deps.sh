#!/usr/bin/env bash
# Installs the Debian 12 packages that N-Body Sandbox needs to build, run and test.
#
#   scripts/deps.sh [build|test|full]
#
# build (the default, scripts/run.sh): what building and running the programs needs; test
# (scripts/test.sh): also the virtual X server and the browser the test suite uses; full
# (scripts/test.sh --full, CI): also clang with libFuzzer and the sanitizer runtimes for the
# fuzzing stage. Returns at once when every package is already installed (checked with
# dpkg-query); otherwise runs apt-get update and apt-get install, as root or through sudo. CUDA
# is optional and is not installed here: the build uses nvcc when it finds it in PATH or in
# /usr/local/cuda/bin.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

level=${1:-build}
case $level in
    build | test | full) ;;
    *) echo "deps: unknown set '$level' (build, test or full)" >&2; exit 2 ;;
esac

packages=(
    # toolchain
    build-essential cmake ninja-build pkg-config git xz-utils
    # a compiler cache (scripts/build.sh uses it when it is there): rebuilds and new clones
    # compile only what changed
    ccache
    # Qt 6 (Core, Gui, Widgets, OpenGL, OpenGLWidgets, Test, Charts) and its platform plugins (xcb, offscreen)
    qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev qt6-qpa-plugins qt6-charts-dev
    # Qt 6 Svg: `nbody bench --plot FILE.svg` (QSvgGenerator)
    qt6-svg-dev
    # header-only libraries: maths, PNG writer, command line, JSON
    libglm-dev libstb-dev libcli11-dev nlohmann-json3-dev
    # snapshots in HDF5 (GADGET-4/SWIFT layout)
    libhdf5-dev
    # SIMD for the `cpu` force kernel: Highway (hwy/highway.h, run-time dispatch over SSE4/AVX2/
    # AVX-512; 1.0.3 in Debian 12, shared library only, see scripts/gpu-check.sh)
    libhwy-dev
    # OpenGL / EGL: GL function loader, glvnd headers, Mesa drivers for machines without a GPU
    libepoxy-dev libegl-dev libgl-dev libopengl-dev libgl1-mesa-dri libegl-mesa0 libglx-mesa0
    # a font so Qt can draw text
    fonts-dejavu-core
    # videos: `nbody render --out FILE.mp4` and File → Record feed raw frames to ffmpeg (and the
    # tests count the frames with ffprobe)
    ffmpeg
    # the distributed backend (mpirun -np P nbody run ..., docs/mpi.md): Open MPI
    libopenmpi-dev openmpi-bin
    # the Debian package (cpack -G DEB, docs/install.md): dpkg-shlibdeps for its Depends
    # (dpkg-dev) and file, which CPack runs on the executables; the man pages from --help
    # (help2man); the PNG icons from the SVG (rsvg-convert, librsvg2-bin)
    dpkg-dev file help2man librsvg2-bin
)
if [[ $level == test || $level == full ]]; then
    packages+=(
        # the GUI tests without a display: a virtual X server (xvfb-run)
        xvfb xauth
        # tst_validation_report opens the HTML validation report in headless chromium and checks
        # a screenshot of it
        chromium
    )
fi
if [[ $level == full ]]; then
    packages+=(
        # the readers' fuzzers need clang with libFuzzer and the sanitizer runtimes
        # (libclang-rt-dev) and OpenMP for clang (libomp-dev); llvm's llvm-symbolizer gives the
        # sanitizers' reports file and line (gcc's ASan/UBSan runtimes come with build-essential)
        clang libclang-rt-dev libomp-dev llvm
        # the package stage (scripts/package-check.sh): checks of the package, its desktop entry
        # and its AppStream metainfo
        lintian desktop-file-utils appstream
        # scripts/gpu-check.sh prepare-app carries glxinfo to the GPU machine
        mesa-utils
    )
fi

# dpkg-query prints "ii " for an installed package; unknown packages print nothing.
installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${packages[@]}" 2>/dev/null || true)
missing=()
for p in "${packages[@]}"; do
    grep -q "^$p ii" <<<"$installed" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
    echo "deps: all ${#packages[@]} packages are installed"
    exit 0
fi

echo "deps: installing ${missing[*]}"
if ((EUID == 0)); then
    sudo=()
elif command -v sudo >/dev/null; then
    sudo=(sudo)
else
    echo "deps: not root and no sudo: install these packages first: ${missing[*]}" >&2
    exit 1
fi
"${sudo[@]}" apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
