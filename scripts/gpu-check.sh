#!/usr/bin/env bash
# Checks N-Body Sandbox on a GPU machine (the H200) in two steps.
#
#   scripts/gpu-check.sh prepare    here, on the build machine: builds build-gpu/ (CUDA for
#                                   sm_90, tests, no app) and fills .device/ with the run-time
#                                   libraries (debs), the data and the executables, so that only
#                                   .device/ has to travel to the GPU machine (< 64 MiB).
#   scripts/gpu-check.sh remote     there, from the repo root, with $OUT set: unpacks the
#                                   libraries, runs every test, compute-sanitizer (memcheck and
#                                   racecheck) on tst_gpukernels, and the CLI (kernels, devices,
#                                   the galaxy for 1000 steps, 262144 bodies for 20 steps).
#
# remote writes everything into $OUT/gpu-check.log plus two pictures ($OUT/out.png, $OUT/big.png)
# and the rendered galaxy encounter ($OUT/galaxies.mp4, or three PNG frames of it when the GPU
# machine has no ffmpeg), since only a few files come back. A failing step does not stop the
# others; the exit status is non-zero when any step failed. GPU_CHECK_TIMEOUT=S limits each step (default 240 s).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

device=.device
usage() { sed -n '2,18s/^# \{0,1\}//p' "$0"; }

prepare() {
    # 1. The GPU build: tests on, app off, machine code for Hopper plus PTX.
    scripts/build.sh --tests build-gpu -DNBODY_BUILD_APP=OFF \
        "-DCMAKE_CUDA_ARCHITECTURES=90-real;90-virtual"
    if ! grep -q '^CMAKE_CUDA_COMPILER:[A-Z]*=.*nvcc' build-gpu/CMakeCache.txt; then
        echo "gpu-check: nvcc was not found, build-gpu/ has no CUDA kernels" >&2
        exit 1
    fi

    # 2. Run-time libraries the bare GPU machine lacks (GL/EGL loaders, epoxy, OpenMP, Qt Core+Test).
    if [[ ! -d $device/debs ]]; then
        ../shared/device/fetch-debs.sh "$device/debs"
    fi
    cp ../shared/device/unpack.sh "$device/"

    # 3. Data and executables.
    mkdir -p "$device/data"
    cp ../shared/data/* "$device/data/"
    rm -rf "${device:?}/bin"
    mkdir -p "$device/bin"
    cp build-gpu/src/cli/nbody "$device/bin/"
    find build-gpu/tests -type f -name 'tst_*' -executable \
        -not -path '*/CMakeFiles/*' -not -path '*_autogen/*' -exec cp {} "$device/bin/" \;

    # 4. Size check: the working tree that travels must stay under 64 MiB.
    if (($(du -sm "$device" | cut -f1) > 60)); then
        echo "gpu-check: $device is over 60 MiB; stripping the executables"
        strip --strip-unneeded "$device"/bin/*
    fi
    ls -l "$device/bin"
    du -sh "$device"
    echo "gpu-check: ready. On the GPU machine (carry .device): scripts/gpu-check.sh remote"
}

remote() {
    : "${OUT:?gpu-check remote: set OUT to the folder that comes back}"
    [[ -d $device/bin ]] || { echo "gpu-check: $device/bin missing: run 'prepare' first" >&2; exit 1; }

    # The libraries (unpack.sh exports LD_LIBRARY_PATH, the EGL vendor file and QT_QPA_PLATFORM).
    # shellcheck source=/dev/null
    source "$device/unpack.sh" "$device/debs"
    export NBODY_DATA_DIR=$PWD/$device/data
    export NBODY_REQUIRE_INTEROP=1 # tst_controller: CUDA rows fail instead of falling back to host uploads
    export NBODY_CLI_PATH=$PWD/$device/bin/nbody # for tests that run the CLI (build-gpu/ stays here)
    export PATH=$PATH:/usr/local/cuda/bin

    local log=$OUT/gpu-check.log step_log=/tmp/gpu-check-step.log
    local limit=${GPU_CHECK_TIMEOUT:-240}
    local -a names=() results=()
    : >"$log"

    # step NAME COMMAND...: runs one step with a time limit, appends its output to the log and
    # records PASS / FAIL (exit status) / TIMEOUT.
    step() {
        local name=$1 rc=0 start=$SECONDS
        shift
        echo "== $name: $*"
        timeout --kill-after=10 "$limit" "$@" >"$step_log" 2>&1 || rc=$?
        local took=$((SECONDS - start)) result=PASS
        if ((rc == 124 || rc == 137)); then
            result="TIMEOUT (${limit} s)"
        elif ((rc != 0)); then
            result="FAIL (exit $rc)"
        fi
        {
            echo "================ $name: $result, ${took} s"
            echo "\$ $*"
            cat "$step_log"
            echo
        } >>"$log"
        tail -n 3 "$step_log" | sed 's/^/   /'
        echo "   -> $result, ${took} s"
        names+=("$name")
        results+=("$result")
    }

    step nvidia-smi nvidia-smi

    # Every test executable. QT_QPA_PLATFORM=offscreen (from unpack.sh) for any that need one.
    local t
    for t in "$device"/bin/tst_*; do
        step "$(basename "$t")" "$t"
    done

    # Memory and race checks of the GPU kernels.
    if [[ -x $device/bin/tst_gpukernels ]]; then
        if command -v compute-sanitizer >/dev/null; then
            step memcheck compute-sanitizer --tool memcheck --error-exitcode 1 "$device/bin/tst_gpukernels"
            step racecheck compute-sanitizer --tool racecheck --error-exitcode 1 "$device/bin/tst_gpukernels"
        else
            step "compute-sanitizer (not found)" false # recorded as a failure
        fi
    fi

    # The command-line front end.
    local nbody=$device/bin/nbody
    step "nbody kernels" "$nbody" kernels
    step "nbody devices" "$nbody" devices
    step "nbody run galaxy" "$nbody" run --kernel tiled --input "$device/data/galaxy_20K.bin" \
        --steps 1000 --capture "$OUT/out.png"
    step "nbody run 262144" "$nbody" run --kernel tiled --bodies 262144 --steps 20 \
        --capture "$OUT/big.png"
    # Headless rendering with CUDA-GL interop: the galaxy encounter, 300 frames, one every 20 steps
    # (6000 steps, about 6 dynamical times; one step per frame would show only 0.3 of one).
    # The GPU machine has no ffmpeg unless one is installed there: then the frames go to a PNG
    # sequence in /tmp and three of them (first, middle, last) come back, since only a few files do.
    if command -v ffmpeg >/dev/null; then
        step "nbody render galaxy mp4" "$nbody" render --kernel tiled --input "$device/data/galaxy_20K.bin" \
            --frames 300 --every 20 --size 1280x720 --out "$OUT/galaxies.mp4"
    else
        rm -rf /tmp/galaxy-frames
        step "nbody render galaxy png (no ffmpeg)" "$nbody" render --kernel tiled \
            --input "$device/data/galaxy_20K.bin" --frames 300 --every 20 --size 1280x720 \
            --out /tmp/galaxy-frames
        cp /tmp/galaxy-frames/frame_00000.png "$OUT/galaxies-frame-000.png" 2>/dev/null || true
        cp /tmp/galaxy-frames/frame_00150.png "$OUT/galaxies-frame-150.png" 2>/dev/null || true
        cp /tmp/galaxy-frames/frame_00299.png "$OUT/galaxies-frame-299.png" 2>/dev/null || true
    fi
    # Launch parameters of `tiled` at N = 262144 (a sweep, not a benchmark suite: see nbody bench).
    local b f
    for b in 128 256 512 1024; do
        for f in 1 2 4; do
            step "tiled 262144 b$b x$f" "$nbody" run --kernel tiled --bodies 262144 --steps 12 \
                --progress-every 4 --no-energy --block-size "$b" --tile-factor "$f"
        done
    done

    # Summary, on the screen and at the end of the log.
    local i failed=0
    for i in "${!results[@]}"; do
        [[ ${results[$i]} == PASS ]] || failed=$((failed + 1))
    done
    {
        echo "================ summary"
        for i in "${!names[@]}"; do
            printf '%-28s %s\n' "${names[$i]}" "${results[$i]}"
        done
        echo "$failed of ${#names[@]} steps failed"
    } | tee -a "$log"
    ((failed == 0))
}

case ${1:-} in
    prepare) prepare ;;
    remote) remote ;;
    -h | --help) usage ;;
    *) usage >&2; exit 2 ;;
esac
