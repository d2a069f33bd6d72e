#!/usr/bin/env bash
# Installs the dependencies, builds with the tests, and runs them with ctest.
#
#   scripts/test.sh [CTEST OPTIONS...]      e.g. scripts/test.sh -R tipsy, scripts/test.sh -L gui
#
# Without a display (DISPLAY and WAYLAND_DISPLAY unset) ctest runs under a virtual X server
# (xvfb-run), so the GUI tests have one. Tests labelled gpu skip when there is no CUDA device.
# Exits with ctest's status. NBODY_TEST_JOBS=N runs N tests at a time (default 1).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/deps.sh
scripts/build.sh --tests

ctest=(ctest --test-dir build --output-on-failure -j "${NBODY_TEST_JOBS:-1}" "$@")
if [[ -n ${DISPLAY:-} || -n ${WAYLAND_DISPLAY:-} ]]; then
    exec "${ctest[@]}"
fi
echo "test.sh: no display: running the tests under xvfb-run"
exec xvfb-run -a -s "-screen 0 1280x1024x24" "${ctest[@]}"
