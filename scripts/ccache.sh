# shellcheck shell=bash disable=SC2034 # ccache_launcher is read by the scripts that source this
# Sourced by the build scripts (build.sh, test.sh, gpu-check.sh): the CMake arguments that compile
# through ccache, in the array ccache_launcher. With ccache installed (scripts/deps.sh installs
# it) they name it as the C++ and CUDA compiler launcher; its cache lives outside the clone
# (ccache's default, ~/.cache/ccache, or CCACHE_DIR), and CCACHE_BASEDIR (default: the parent of
# this clone) makes the cached paths relative, so that clones and worktrees side by side share
# hits. NBODY_NO_CCACHE=1: arguments that clear the launchers, also in a build directory
# configured with them earlier. Without ccache: none.
ccache_launcher=()
if [[ -n ${NBODY_NO_CCACHE:-} ]]; then
    ccache_launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER= -DCMAKE_CUDA_COMPILER_LAUNCHER=)
elif command -v ccache >/dev/null; then
    ccache_launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
    export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$PWD")}
fi
