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
# A screen large enough for the main window's default 1280 x 820 also at a device pixel ratio of
# 2 (tst_gui hiDpiCapture); on a smaller screen the app opens smaller and its docks scroll.
exec xvfb-run -a -s "-screen 0 2880x1800x24" "${ctest[@]}"
