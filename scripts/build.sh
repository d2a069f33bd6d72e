#!/usr/bin/env bash
# Configures and builds N-Body Sandbox (Release, Ninja).
#
#   scripts/build.sh [--tests] [BUILD_DIR] [-DNAME=VALUE ...]
#
# BUILD_DIR defaults to build/. --tests builds the Qt Test suite too; without it a new build
# directory is configured without tests and an existing one keeps its setting. Arguments that
# start with -D go to cmake as they are (e.g. -DNBODY_BUILD_APP=OFF).
#
# ccache, when installed, compiles through its cache, so that a second clone, a worktree or a
# clean rebuild compiles only what changed (scripts/ccache.sh; NBODY_NO_CCACHE=1 builds without).
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

# shellcheck source=scripts/ccache.sh
source scripts/ccache.sh
cmake_args=("${ccache_launcher[@]}" "${cmake_args[@]}")

cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${cmake_args[@]}"
cmake --build "$build_dir" -j "$(nproc)"
