#!/usr/bin/env bash
# Configures and builds N-Body Sandbox (Release, Ninja).
#
#   scripts/build.sh [--tests] [BUILD_DIR] [-DNAME=VALUE ...]
#
# BUILD_DIR defaults to build/. --tests builds the Qt Test suite too; without it a new build
# directory is configured without tests and an existing one keeps its setting. Arguments that
# start with -D go to cmake as they are (e.g. -DNBODY_BUILD_APP=OFF).
#
# ccache, when installed (scripts/deps.sh installs it), compiles the C++ and CUDA sources through
# its cache, which lives outside the clone (ccache's default, ~/.cache/ccache, or CCACHE_DIR), so
# a second clone, a worktree or a clean rebuild compiles only what changed. CCACHE_BASEDIR
# (default: the parent of this clone) makes the cached paths relative, so that clones side by
# side share hits. NBODY_NO_CCACHE=1 builds without it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir=build
cmake_args=()
tests=
for arg in "$@"; do
    case $arg in
        --tests) tests=ON ;;
        -D*) cmake_args+=("$arg") ;;
        -h | --help) sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 0 ;;
        -*) echo "build.sh: unknown option $arg" >&2; exit 2 ;;
        *) build_dir=$arg ;;
    esac
done

if [[ -n $tests ]]; then
    cmake_args+=(-DNBODY_BUILD_TESTS=ON)
elif [[ ! -f $build_dir/CMakeCache.txt ]]; then
    cmake_args+=(-DNBODY_BUILD_TESTS=OFF)
fi

if [[ -z ${NBODY_NO_CCACHE:-} ]] && command -v ccache >/dev/null; then
    export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$PWD")}
    cmake_args=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache "${cmake_args[@]}")
elif [[ -n ${NBODY_NO_CCACHE:-} ]]; then
    cmake_args=(-DCMAKE_CXX_COMPILER_LAUNCHER= -DCMAKE_CUDA_COMPILER_LAUNCHER= "${cmake_args[@]}")
fi

cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${cmake_args[@]}"
cmake --build "$build_dir" -j "$(nproc)"
