#!/usr/bin/env bash
# Checks N-Body Sandbox on a GPU machine (the H200) in two steps.
#
#   scripts/gpu-check.sh prepare    here, on the build machine: builds build-gpu/ (CUDA for
#                                   sm_90, tests, no app) and fills .device/ with the run-time
#                                   libraries (debs), the data and the executables, so that only
#                                   .device/ has to travel to the GPU machine (< 64 MiB).
#                                   GPU_CHECK_PREPARE_TESTS="tst_a tst_b": those tests alone,
#                                   and no archs builds (quicker, for a call of some parts).
#   scripts/gpu-check.sh prepare-app / remote-app: the app itself in a window on the GPU
#                                   machine, on Xvfb with NVIDIA's GLX (prepare_app and
#                                   remote_app below say what travels and what runs); a call of
#                                   its own, carrying .device-app alone.
#   scripts/gpu-check.sh remote     there, from the repo root, with $OUT set: unpacks the
#                                   libraries, runs every test, compute-sanitizer (memcheck,
#                                   racecheck, synccheck, initcheck) on every CUDA kernel at N = 1000
#                                   and 4097 (the blocked kernels at every launch variant; force
#                                   and diagnostics kernels), the CLI (kernels, devices, the galaxy for
#                                   1000 steps, 262144 bodies for 20 steps, both also with
#                                   --diagnostics, an exact restart from an HDF5 snapshot, the
#                                   rendered galaxy, scenarios with both integrators) and
#                                   `nbody bench` (all kernels; the `cpu` kernel on 1 thread and
#                                   on all cores next to a plain vectorised all-pairs
#                                   loop (the CPU baseline); the app's frame loop against
#                                   the bench at N = 65536, CUDA graphs on and off; then sweeps).
#
# remote writes everything into $OUT/gpu-check.log plus the device listing ($OUT/devices.txt,
# $OUT/devices.json), pictures ($OUT/out.png, $OUT/big.png, $OUT/collision.png),
# the benchmark tables ($OUT/bench.json, $OUT/bench.csv), the diagnostics series
# ($OUT/diagnostics.csv, $OUT/diagnostics-262144.csv) and the rendered galaxy encounter
# ($OUT/galaxies.mp4, or three PNG frames of it when the GPU machine has no ffmpeg), since only a
# few files come back. A failing step does not stop the others; the exit status is non-zero
# when any step failed. GPU_CHECK_TIMEOUT=S limits each step (default 240 s).
# GPU_CHECK_PARTS=golden,tests,sanitizers,sanitizers-all,sanitizers-split,cli,bench,sweeps,perf,perf-short,tree,tree-anchor,force-accuracy,tree-profile,display-info,block-galaxy,mpi,render,render-galaxy,contacts,contacts-bench,clusters,capture,after-faults,archs,validate-large,app-bench,block-steps (the default: all but
# sanitizers-all and sanitizers-split, the four tools over every GPU test, each a call of its own) picks parts, so that a run
# can be split over several calls of a limited length. golden: tst_golden records the state's
# checksums on this machine ($OUT/golden-steps.json, to commit as tests/data/golden-steps.json). perf: NVIDIA's sample and `nbody bench`
# of the GPU kernels at the same sizes (8192 … 1048576, fp64 at 262144) in the same call,
# a launch-parameter sweep of `blocked` ($OUT/sweep.txt) and the SASS of its inner loop.
# mpi: mpirun -np 2 and 3 of `tiled`/`blocked` on the one GPU against one process
# (bit for bit), validate on 2 ranks, `nbody bench --kernels blocked --bodies 1048576` on 1 and 2
# ranks (the exchange time), the pipelined exchange (--exchange-chunks: 2 ranks in 4 chunks bit-identical
# to one process; C = 1 / auto / 4 at N = 65537 and C = 1 / auto for blocked at 1 M, summaries in
# $OUT/mpi-overlap-*.txt), tst_mpi; Open MPI comes from $device/openmpi.tgz (prepare packs the
# run-time installed here; `scripts/gpu-check.sh prepare-mpi` packs it alone), log in $OUT/mpi.log.
# contacts: tst_contacts (every CUDA contact search against cpu-pairs) and the
# compute-sanitizer tools (GPU_CHECK_TOOLS, default all four) over its GPU rows; contacts-bench:
# `nbody bench --contacts` at N = 65536 and 1048576 ($OUT/bench-contacts.json, .csv); the log of
# both also in $OUT/contacts.log.
# capture (runs first): the merged state prepare makes ($device/cc400.csv) captured with
# cpu and tiled, and the 8191-body cluster collision ($OUT/clusters-h200.png); after-faults (runs
# last): a CUDA fault, then the same captures again (they come out empty: docs/tests.md).
# archs: cuobjdump --list-elf and --list-ptx of the default build's kernels library (every
# architecture), and a build for sm_80 only: `nbody devices`, `kernels`, `run` (the default kernel
# falls back to `cpu` with a note; `--kernel blocked` is refused with the reason, exit 2) and its
# tst_machine_info.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

device=.device
usage() { sed -n '2,56s/^# \{0,1\}//p' "$0"; }

# unpack_txz ARCHIVE DIR: an xz-packed tar into DIR (Python's lzma where the GPU host has no xz).
unpack_txz() {
    if command -v xz >/dev/null; then
        xz -dc "$1" | tar -xf - -C "$2"
    else
        python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' \
            "$1" | tar -xf - -C "$2"
    fi
}

# The tree's "THETA:ALPHA" settings (θ the relative criterion's guard), shared by remote's
# tree-profile and remote-app. tree_settings RUNNER NBODY N SETTING...: for each, the time (`nbody
# bench`, after the first evaluation, so each reads the previous accelerations) and the sampled
# step-0 error (32 768 bodies against all N in fp64) at N bodies, each one step of RUNNER (remote's
# `step`, remote-app's `run_step`: NAME COMMAND...), each command bounded at 300 s.
tree_settings() {
    local runner=$1 nbody=$2 sn=$3 setting st sa
    shift 3
    for setting in "$@"; do
        st=${setting%%:*} sa=${setting#*:}
        limit=300 "$runner" "nbody bench tree theta $st alpha $sa $sn" timeout 300 "$nbody" bench --kernels tree \
            --scenario plummer --bodies "$sn" --theta "$st" --opening-alpha "$sa" --steps 10 --budget 120
        limit=300 "$runner" "nbody validate tree theta $st alpha $sa $sn" timeout 300 "$nbody" validate --kernel tree \
            --theta "$st" --opening-alpha "$sa" --bodies "$sn" --reference sampled --steps 1 --quiet
    done
}

# Nsight Compute's command-line profiler here, or nothing.
ncu_path() { command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1 || true; }

# tree_kernel_times RUNNER NCU NBODY SETTING: the time of every kernel of three tree evaluations at
# 1 M (Plummer sphere) at one "THETA:ALPHA" setting, by Nsight Compute (one metric, clocks left alone).
tree_kernel_times() {
    local runner=$1 ncu_bin=$2 nbody=$3 setting=$4
    limit=300 "$runner" "ncu tree kernels 1M $setting" timeout 300 "$ncu_bin" --clock-control none \
        --metrics gpu__time_duration.sum "$nbody" bench --kernels tree --scenario plummer --bodies 1048576 \
        --theta "${setting%%:*}" --opening-alpha "${setting#*:}" --steps 3 --budget 60
}

# Open MPI's run-time for the GPU machine, which has none: the files of Debian's
# packages as installed here (libopenmpi3, openmpi-bin, openmpi-common, libpmix2 and what they
# load: hwloc, libevent, munge), without the components for fabrics the GPU machine does not use
# (UCX, libfabric, PSM, verbs), OpenSHMEM, MPI-IO, Fortran and Java, packed as $device/openmpi.tgz
# with paths under usr/. remote unpacks it into /tmp/openmpi and relocates it with OPAL_PREFIX
# (mpi_env); ranks of one host talk through shared memory (pml ob1, btl self,vader).
openmpi_packages=(libopenmpi3 openmpi-bin openmpi-common libpmix2 libhwloc15 libevent-core-2.1-7
    libevent-pthreads-2.1-7 libmunge2)
prepare_mpi() {
    local stage
    stage=$(mktemp -d)
    local p f
    for p in "${openmpi_packages[@]}"; do
        dpkg -L "$p" >/dev/null || { echo "gpu-check: $p is not installed (scripts/deps.sh)" >&2; exit 1; }
    done
    for p in "${openmpi_packages[@]}"; do dpkg -L "$p"; done | sort -u |
        grep -v -e /share/doc/ -e /share/man/ -e /lintian/ -e /include/ -e /pkgconfig/ |
        grep -v -E '(ucx|ofi|psm|openib|verbs|oshmem|scoll|sshmem|spml|memheap|atomic_|fortran|mpifh|usempi|java|monitoring|netlink|ompio|fcoll|fbtl|sharedfp|io_romio|io_ompio|ompitrace)' |
        while IFS= read -r f; do
            if [[ -L $f || (-f $f && ! -d $f) ]]; then
                mkdir -p "$stage$(dirname "$f")"
                cp -P "$f" "$stage$f"
            fi
        done
    # hwloc needs libudev.so.1, which a minimal GPU host may lack: a copy, used only when the host
    # has none (mpi_env), so that it never shadows the host's own.
    mkdir -p "$stage/usr/lib/fallback"
    cp -L /lib/x86_64-linux-gnu/libudev.so.1 "$stage/usr/lib/fallback/"
    # /usr/bin/mpirun is a link through /etc/alternatives: straight to orterun here.
    ln -sf orterun "$stage/usr/bin/mpirun"
    ln -sf orterun "$stage/usr/bin/mpiexec"
    # Every library left must find what it needs in the set or in the base system.
    local missing
    missing=$(find "$stage" -name '*.so*' -type f -exec readelf -d {} + 2>/dev/null |
        awk '/NEEDED/ {gsub(/[][]/, "", $5); print $5}' | sort -u | while IFS= read -r f; do
            [[ -n $(find "$stage" -name "$f" -print -quit) ]] || [[ -e /lib/x86_64-linux-gnu/$f ]] ||
                [[ $f == ld-linux-x86-64.so.2 ]] || echo "$f"
        done)
    [[ -z $missing ]] || { echo "gpu-check: Open MPI run-time needs libraries not carried: $missing" >&2; exit 1; }
    tar -czf "$device/openmpi.tgz" -C "$stage" usr
    rm -rf "$stage"
    du -sh "$device/openmpi.tgz"
}

# mpi_env DIR: unpacks $device/openmpi.tgz into DIR and points PATH, LD_LIBRARY_PATH and
# OPAL_PREFIX at it (Open MPI finds its components, help files and orted below OPAL_PREFIX;
# PMIx below PMIX_PREFIX), with shared-memory transports only.
mpi_env() {
    local root=$1
    rm -rf "$root"
    mkdir -p "$root"
    tar -xzf "$device/openmpi.tgz" -C "$root"
    local lib=$root/usr/lib/x86_64-linux-gnu
    export OPAL_PREFIX=$root/usr PMIX_PREFIX=$lib/pmix2 PMIX_LIBDIR=$lib/pmix2/lib PMIX_DATAROOTDIR=$lib/pmix2/share \
        PMIX_DATADIR=$lib/pmix2/share
    export PATH=$root/usr/bin:$PATH
    export LD_LIBRARY_PATH=$lib:$lib/openmpi/lib:$lib/pmix2/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    if ! /sbin/ldconfig -p | grep -q 'libudev\.so\.1 '; then
        LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$root/usr/lib/fallback
    fi
    export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_osc=^ucx OMPI_MCA_btl_vader_single_copy_mechanism=none
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export NBODY_MPIEXEC=$root/usr/bin/mpirun # tst_mpi: the carried launcher
}

# The archs part's builds: `nbody` and tst_machine_info for sm_80 machine code only (no code an
# H200 can run: every CUDA kernel must be listed as unavailable, with the reason, and the default
# kernel must fall back to `cpu`), into $device/bin/arch80 (bin.txz); and the kernels library of
# the default build (every architecture: NBODY_CUDA_ARCHITECTURES=all), xz-packed as
# $device/kernels-all.a.xz, for cuobjdump --list-elf there (this machine's CUDA has no cuobjdump).
# The host objects are the same as build-gpu's, so with ccache only the CUDA objects compile.
prepare_archs() {
    # shellcheck source=scripts/ccache.sh
    source scripts/ccache.sh
    local launcher=("${ccache_launcher[@]}")
    cmake -S . -B build-gpu80 -G Ninja -DCMAKE_BUILD_TYPE=Release -DNBODY_BUILD_APP=OFF -DNBODY_BUILD_PLOT=OFF \
        -DNBODY_ENABLE_MPI=ON -DNBODY_BUILD_TESTS=ON -DNBODY_CUDA_ARCHITECTURES=80-real "${launcher[@]}" >/dev/null
    cmake --build build-gpu80 -j "$(nproc)" --target nbody nbody-read-hdf5 tst_machine_info
    mkdir -p "$device/bin/arch80"
    cp build-gpu80/src/cli/nbody build-gpu80/src/sim/io/nbody-read-hdf5 build-gpu80/tests/tst_machine_info \
        "$device/bin/arch80/"
    cmake -S . -B build-gpu-all -G Ninja -DCMAKE_BUILD_TYPE=Release -DNBODY_BUILD_APP=OFF -DNBODY_BUILD_PLOT=OFF \
        -DNBODY_BUILD_TESTS=OFF -DNBODY_CUDA_ARCHITECTURES=all "${launcher[@]}" >/dev/null
    cmake --build build-gpu-all -j "$(nproc)" --target nbody_kernels
    xz -9 -T1 -c build-gpu-all/kernels/libnbody_kernels.a >"$device/kernels-all.a.xz"
}

# The app part's own carry, .device-app/ (scripts/gpu-check.sh prepare-app here, remote-app
# there; it travels alone): the real nbody-sandbox built for sm_90 (app on, tests off), `nbody`
# of the same build, and everything a bare GPU machine needs to open a window on a virtual X
# server, as files of this machine's Debian packages, in one xz archive (app.txz): the shared
# libraries that nbody-sandbox, Qt's xcb platform plugin, Xvfb, xkbcomp and glxinfo load (ldd;
# glibc's left out), the xcb plugins, the DejaVu fonts, the XKB data; Mesa's swrast DRI driver
# with what it loads (LLVM whole; Z3 and ICU's data as stand-ins, below), which Xvfb needs to offer GLX at all (its
# visuals and FBConfigs come from a DRI driver of the server's own); and the GL loaders (glvnd)
# as Debian packages in gl/. The window's GL itself is NVIDIA's
# (__GLX_VENDOR_LIBRARY_NAME=nvidia: glvnd loads the GPU machine's libGLX_nvidia, which renders
# on the GPU and presents into Xvfb), so CUDA-GL interop works as on a desktop. All in one call:
# a warm machine is given back 30 s after a call, so nothing unpacked by an earlier call stays.
prepare_app() {
    local dapp=.device-app stage arch=${GPU_CHECK_APP_ARCH:-90} bdir app
    command -v glxinfo >/dev/null || { echo "gpu-check: glxinfo is missing (apt-get install mesa-utils)" >&2; exit 1; }
    # GPU_CHECK_APP_ARCH=80: the app with machine code for sm_80 only, which an H200 cannot run
    # (every CUDA kernel must be unavailable in it, the start falls back to `cpu`, `--kernel
    # blocked` is refused), in place of the sm_90 app and `nbody`: both apps and Mesa do not fit
    # the 64 MiB of one call together.
    if [[ $arch == 90 ]]; then
        bdir=build-gpu-app app=nbody-sandbox
    else
        bdir=build-gpu-app$arch app=nbody-sandbox-sm$arch
    fi
    scripts/build.sh "$bdir" -DNBODY_BUILD_TESTS=OFF -DNBODY_BUILD_PLOT=OFF -DNBODY_ENABLE_MPI=OFF \
        "-DNBODY_CUDA_ARCHITECTURES=$arch-real"
    stage=$(mktemp -d)
    mkdir -p "$stage"/{bin,lib,plugins,fonts,xkb,dri,gl}
    cp "$bdir/src/app/nbody-sandbox" "$stage/bin/$app"
    [[ $arch == 90 ]] && cp "$bdir/src/cli/nbody" "$stage/bin/"
    cp /usr/bin/Xvfb /usr/bin/xkbcomp "$(command -v glxinfo)" "$stage/bin/"
    local qtp=/usr/lib/x86_64-linux-gnu/qt6/plugins
    cp -r "$qtp/platforms" "$qtp/xcbglintegrations" "$stage/plugins/"
    cp /usr/share/fonts/truetype/dejavu/DejaVuSans{,-Bold,Mono}.ttf "$stage/fonts/"
    cp -r /usr/share/X11/xkb/. "$stage/xkb/"
    cp /usr/lib/x86_64-linux-gnu/dri/swrast_dri.so "$stage/dri/"
    # Every library those load but glibc's and the GL loaders (libGL, libGLX, libEGL, libOpenGL,
    # libGLdispatch: glvnd from gl/, which then loads NVIDIA's vendor libraries).
    local f
    for f in "$stage"/bin/* "$stage"/plugins/*/*.so "$stage"/dri/*.so; do
        ldd "$f" 2>/dev/null
    done | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
        grep -vE '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux-x86-64|libGL|libGLX|libEGL|libOpenGL|libGLdispatch|libGLESv2)\.so' |
        while IFS= read -r f; do cp -L "$f" "$stage/lib/"; done
    # Xvfb's GLX needs swrast (and so LLVM) for its visuals and for the server's side of each
    # context; the window's GL is NVIDIA's. A server whose swrast ran on a stand-in LLVM offered
    # NVIDIA's GLX client no visual at all ("couldn't find RGB GLX visual or fbconfig"), while
    # the real LLVM worked, so LLVM travels whole (23 MB of xz). To stay within the 64 MiB that
    # travel, two libraries that are loaded but never used here are replaced by stand-ins of
    # the same soname: Z3 (7 MB of xz; LLVM links it for the static analyser's solver, which
    # nothing here runs), whose functions abort with a message if ever called, and ICU's data
    # (7 MB of xz; Qt asks ICU only for collation and legacy text codecs, and ICU reports
    # missing data as an error that Qt handles), an empty ICU common-data package.
    local z3 icudata
    z3=$(find "$stage/lib" -name 'libz3.so*' -print -quit)
    if [[ -n $z3 ]]; then
        local soname
        soname=$(objdump -p "$z3" | awk '$1 == "SONAME" {print $2}')
        nm -D --undefined-only "$stage"/lib/libLLVM-*.so* | awk '$2 ~ /^Z3_/ {print $2}' | sort -u |
            awk 'BEGIN {print "#include <stdio.h>\n#include <stdlib.h>\nstatic void z3_absent(const char* f) { fprintf(stderr, \"libz3 stand-in: %s called\\n\", f); abort(); }"}
                 {printf "void %s(void) { z3_absent(\"%s\"); }\n", $1, $1}' >"$stage/z3stub.c"
        rm -f "$z3"
        cc -shared -fPIC -O1 "-Wl,-soname,$soname" -o "$stage/lib/$soname" "$stage/z3stub.c"
        rm "$stage/z3stub.c"
    fi
    icudata=$(find "$stage/lib" -name 'libicudata.so*' -print -quit)
    if [[ -n $icudata ]]; then
        local soname symbol
        soname=$(objdump -p "$icudata" | awk '$1 == "SONAME" {print $2}')
        symbol=$(nm -D --defined-only "$icudata" | awk '$3 ~ /^icudt[0-9]+_dat$/ {print $3}')
        # An ICU common-data package with no entries: the 32-byte header (size, magic 0xda27,
        # UDataInfo: little-endian, ASCII family, 2-byte UChar, format "CmnD" 1.0), then a
        # table of contents whose count is 0 (ICU's udata.cpp, offsetTOC format).
        cat >"$stage/icustub.c" <<EOC
const struct {
    unsigned short headerSize; unsigned char magic1, magic2;
    unsigned short infoSize, reserved; unsigned char bigEndian, charsetFamily, sizeofUChar, reserved2;
    unsigned char format[4], formatVersion[4], dataVersion[4];
    unsigned char padding[8]; unsigned int count, reserved3;
} $symbol = {32, 0xda, 0x27, 20, 0, 0, 0, 2, 0, {'C', 'm', 'n', 'D'}, {1, 0, 0, 0}, {0, 0, 0, 0}, {0}, 0, 0};
EOC
        rm -f "$icudata"
        cc -shared -fPIC -O1 "-Wl,-soname,$soname" -o "$stage/lib/$soname" "$stage/icustub.c"
        rm "$stage/icustub.c"
    fi
    # The GL loaders (glvnd) as packages, dpkg -x into / there: those of prepare's $device/debs.
    [[ -d $device/debs ]] || ../shared/device/fetch-debs.sh "$device/debs"
    cp "$device"/debs/gl/*.deb "$stage/gl/"
    find "$stage/bin" -name 'nbody*' -exec strip --strip-unneeded {} +
    rm -rf "$dapp"
    mkdir -p "$dapp"
    tar -cf - -C "$stage" . | xz -9 --lzma2=dict=256MiB -T1 >"$dapp/app.txz"
    rm -rf "$stage"
    du -sh "$dapp/app.txz"
    # The tree's anchor (Ryoanji, 1.6 MB of xz), so that remote-app's tree settings
    # (GPU_CHECK_APP_TREE) are timed next to it in the same call.
    [[ -x ../shared/anchors/ryoanji/ryoanji_demo ]] &&
        tar -cf - -C ../shared/anchors ryoanji/run.sh ryoanji/ryoanji_demo ryoanji/README.md | xz -9 -T1 >"$dapp/ryoanji.txz"
    # What travels: app.txz and the working tree's tracked files, 64 MiB together.
    local tree
    tree=$(git ls-files -z | du -cm --files0-from=- | tail -1 | cut -f1)
    if (($(du -sm "$dapp" | cut -f1) + tree > 63)); then
        echo "gpu-check: $dapp ($(du -sm "$dapp" | cut -f1) MiB) and the working tree ($tree MiB) are over the 64 MiB that travel" >&2
        exit 1
    fi
    echo "gpu-check: ready. On the GPU machine (carry .device-app): scripts/gpu-check.sh remote-app"
}

prepare() {
    # 1. The GPU build: tests on, app off, plotting off (the GPU machine has no Qt Gui, so the
    #    carried nbody must not link nbody::plot: `bench --json` there, `bench --from --plot`
    #    here), machine code for Hopper plus PTX.
    #    MPI on: the bare GPU machine has no Open MPI, so its run-time travels as
    #    $device/openmpi.tgz (prepare_mpi) and remote puts it on LD_LIBRARY_PATH for every part
    #    (nbody links libmpi.so.40 but starts MPI only under a launcher).
    #    GPU_CHECK_PREPARE_TESTS="tst_a tst_b": builds and carries those tests alone (with nbody),
    #    and leaves out the archs part's builds (build-gpu80, build-gpu-all): a quicker prepare
    #    for a call that runs only some parts.
    local only_tests=${GPU_CHECK_PREPARE_TESTS:-}
    if [[ -n $only_tests ]]; then
        # shellcheck source=scripts/ccache.sh
        source scripts/ccache.sh
        cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DNBODY_BUILD_TESTS=ON -DNBODY_BUILD_APP=OFF \
            -DNBODY_BUILD_PLOT=OFF -DNBODY_ENABLE_MPI=ON "-DCMAKE_CUDA_ARCHITECTURES=90-real;90-virtual" \
            "${ccache_launcher[@]}" >/dev/null
        # shellcheck disable=SC2086 # a list of target names
        cmake --build build-gpu -j "$(nproc)" --target nbody nbody-read-hdf5 $only_tests
    else
        scripts/build.sh --tests build-gpu -DNBODY_BUILD_APP=OFF -DNBODY_BUILD_PLOT=OFF -DNBODY_ENABLE_MPI=ON \
            "-DCMAKE_CUDA_ARCHITECTURES=90-real;90-virtual"
    fi
    # (grep -q would stop reading early: ldd's SIGPIPE fails the pipeline under pipefail)
    if ! ldd build-gpu/src/cli/nbody | grep 'libmpi\.so' >/dev/null; then
        echo "gpu-check: build-gpu/src/cli/nbody has no MPI (install libopenmpi-dev: scripts/deps.sh)" >&2
        exit 1
    fi
    if ! grep -q '^CMAKE_CUDA_COMPILER:[A-Z]*=.*nvcc' build-gpu/CMakeCache.txt; then
        echo "gpu-check: nvcc was not found, build-gpu/ has no CUDA kernels" >&2
        exit 1
    fi
    if ldd build-gpu/src/cli/nbody | grep -q 'libQt6Gui'; then
        echo "gpu-check: build-gpu/src/cli/nbody links Qt Gui (NBODY_BUILD_PLOT must be OFF there)" >&2
        exit 1
    fi

    # 2. Run-time libraries the bare GPU machine lacks (GL/EGL loaders, epoxy, OpenMP, Qt Core+Test).
    if [[ ! -d $device/debs ]]; then
        ../shared/device/fetch-debs.sh "$device/debs"
    fi
    cp ../shared/device/unpack.sh "$device/"
    # Highway (the `cpu` kernel's SIMD dispatch): Debian 12 has no static libhwy.a, so the shared
    # library travels in $device/lib (remote puts it on LD_LIBRARY_PATH).
    rm -rf "${device:?}/lib"
    mkdir -p "$device/lib"
    local hwy
    hwy=$(ldd build-gpu/src/cli/nbody | awk '$1 ~ /^libhwy\.so/ {print $3}')
    if [[ -n $hwy ]]; then
        cp -L "$hwy" "$device/lib/"
    fi

    # 3. Data and executables.
    mkdir -p "$device/data"
    cp ../shared/data/* "$device/data/"
    rm -rf "${device:?}/bin"
    mkdir -p "$device/bin"
    cp build-gpu/src/cli/nbody "$device/bin/"
    # HDF5 files are read in this child process (sim/io/ReaderProcess.h), found beside nbody and
    # the tests (the build tree's path does not exist there).
    cp build-gpu/src/sim/io/nbody-read-hdf5 "$device/bin/"
    # The tests labelled gpu (the others run in CI; every executable carries all kernels' machine
    # code, about 10 MB, and the whole set no longer fits the 64 MiB that travels). Tests that
    # link Qt Gui (the plot, the HTML report's screenshot) cannot load on the GPU machine, which
    # has Qt Core and Test only: they run in CI instead.
    local t
    while IFS= read -r t; do
        if [[ -n $only_tests && " $only_tests " != *" $(basename "$t") "* ]]; then
            continue
        elif readelf -d "$t" | grep -q 'NEEDED.*libQt6Gui'; then
            echo "gpu-check: not carried (links Qt Gui): $(basename "$t")"
        elif [[ $(basename "$t") == tst_mpi && -z ${GPU_CHECK_CARRY_TST_MPI:-} ]]; then
            # Another ~3 MiB compressed (the kernels' machine code) would pass the 62 MiB; the
            # mpi part runs its GPU rows (tiled on 2 ranks, blocked on 3) through nbody itself.
            echo "gpu-check: not carried (size; GPU_CHECK_CARRY_TST_MPI=1 carries it): tst_mpi"
        else
            cp "$t" "$device/bin/"
        fi
    done < <(ctest --test-dir build-gpu -L gpu -N | awk '/Test +#/ {print "build-gpu/tests/" $3}')

    # 4. The measuring instruments: NVIDIA's nbody sample and the plain CPU loop, run
    # in the same call as `nbody bench`; the blocked kernels' object file for cuobjdump there.
    rm -rf "$device/anchors" "$device/obj"
    mkdir -p "$device/anchors" "$device/obj"
    cp -r ../shared/anchors/nvidia-nbody-sample ../shared/anchors/cpu-plain-loop "$device/anchors/"
    # Ryoanji (a published GPU tree code): its patched demonstrator and run.sh only (9 MB of the 64 MiB).
    if [[ -x ../shared/anchors/ryoanji/ryoanji_demo ]]; then
        mkdir -p "$device/anchors/ryoanji"
        cp ../shared/anchors/ryoanji/{ryoanji_demo,run.sh,README.md} "$device/anchors/ryoanji/"
    fi
    chmod -R u+w "$device/anchors"
    # The plain loop's run.sh compiles it there with -march=native when the GPU host has g++;
    # this x86-64-v3 (AVX2, FMA) build is the fallback when it has none (bench part).
    g++ -O3 -march=x86-64-v3 -ffast-math -fopenmp-simd ../shared/anchors/cpu-plain-loop/plain_loop.cpp \
        -o "$device/anchors/cpu-plain-loop/plain_loop-x86-64-v3"
    # The blocked kernels' object (2.9 MiB) only for the perf part's `sass` step: left out with
    # GPU_CHECK_NO_OBJ=1 when the rest does not fit.
    if [[ -z ${GPU_CHECK_NO_OBJ:-} ]]; then
        cp build-gpu/kernels/CMakeFiles/nbody_kernels.dir/BlockedForces.cu.o "$device/obj/"
    fi
    prepare_mpi
    [[ -n $only_tests ]] || prepare_archs
    # The merged state the capture part draws: two clusters, 8191 bodies, 400 steps
    # with merging on the CPU here (about 15 s on 2 cores).
    build-gpu/src/cli/nbody run --scenario cluster-collision --bodies 8191 --kernel cpu --steps 400 --no-energy \
        --progress-every 400 --output "$device/cc400.csv" >/dev/null

    # 5. Size check: the working tree that travels must stay under 64 MiB. Every test executable
    # links the kernels statically, so each carries the same fatbins (~12 MB a test): xz with a
    # dictionary larger than the whole archive finds those repeats across files (170 MB -> 9 MB,
    # where gzip's 32 KiB window gave 48 MB), at 192 MiB of memory to unpack. bin.txz.
    find "$device/bin" -type f -exec strip --strip-unneeded {} +
    rm -f "$device/bin.tgz"
    tar -cf - -C "$device" bin | xz -9 --lzma2=dict=192MiB -T1 >"$device/bin.txz"
    rm -rf "${device:?}/bin"
    du -sh "$device"/*
    if (($(du -sm "$device" | cut -f1) > 62)); then
        echo "gpu-check: $device is over 62 MiB, too large to travel" >&2
        exit 1
    fi
    echo "gpu-check: ready. On the GPU machine (carry .device): scripts/gpu-check.sh remote"
    if (($(du -sm "$device" | cut -f1) > 59)); then
        echo "gpu-check: note: close to the limit; GPU_CHECK_NO_OBJ=1 leaves out obj/ (the perf part's sass step)"
    fi
}

remote() {
    : "${OUT:?gpu-check remote: set OUT to the folder that comes back}"
    if [[ -f $device/bin.txz ]]; then
        unpack_txz "$device/bin.txz" "$device"
    elif [[ -f $device/bin.tgz ]]; then
        tar -xzf "$device/bin.tgz" -C "$device"
    fi
    [[ -d $device/bin ]] || { echo "gpu-check: $device/bin missing: run 'prepare' first" >&2; exit 1; }

    # The libraries (unpack.sh exports LD_LIBRARY_PATH, the EGL vendor file and QT_QPA_PLATFORM).
    # shellcheck source=/dev/null
    source "$device/unpack.sh" "$device/debs"
    export LD_LIBRARY_PATH=$PWD/$device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} # libhwy.so.1
    export NBODY_DATA_DIR=$PWD/$device/data
    export NBODY_REQUIRE_INTEROP=1 # tst_controller: CUDA rows fail instead of falling back to host uploads
    export NBODY_CLI_PATH=$PWD/$device/bin/nbody # for tests that run the CLI (build-gpu/ stays here)
    export PATH=$PATH:/usr/local/cuda/bin
    # Open MPI's run-time (nbody and tst_mpi load libmpi.so.40 even when run alone).
    if [[ -f $device/openmpi.tgz ]]; then
        mpi_env /tmp/openmpi
    fi

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

    want() { [[ ,${GPU_CHECK_PARTS:-golden,tests,sanitizers,cli,bench,sweeps,perf,tree,tree-anchor,mpi,render,contacts,contacts-bench,clusters,capture,archs}, == *,$1,* ]]; }

    step nvidia-smi nvidia-smi

    # The black captures seen on 2026-12-01: after a CUDA fault in one process (tst_cli
    # gpuFaultInRun, tst_gpu_faults), the H200's OpenGL in later processes that also used CUDA drew
    # nothing or garbage at about 10 s a frame; on a fresh machine the same commands draw what the
    # CPU path draws. So the captures run first: the merged state made here (cluster-collision,
    # 8191 bodies, 400 steps on the CPU: $device/cc400.csv when the caller put it there) with the
    # cpu kernel (host upload) and tiled (interop; also --steps 0 --no-energy), then the recorded
    # run itself ($OUT/clusters-h200.png). NBODY_RENDER_STATS prints what the exposure measured.
    # after-faults (run after the tests) draws the merged state again, after the faults.
    local nbody=$device/bin/nbody
    capture_merged() {
        local tag=$1
        step "capture $tag merged state cpu" env NBODY_RENDER_STATS=1 "$nbody" run --input "$device/cc400.csv" \
            --steps 0 --kernel cpu --capture "/tmp/capture-$tag-cpu.png"
        step "capture $tag merged state tiled" env NBODY_RENDER_STATS=1 "$nbody" run --input "$device/cc400.csv" \
            --steps 0 --kernel tiled --capture "/tmp/capture-$tag-tiled.png"
        step "capture $tag merged state tiled no-energy" env NBODY_RENDER_STATS=1 "$nbody" run \
            --input "$device/cc400.csv" --steps 0 --no-energy --kernel tiled --capture "/tmp/capture-$tag-tiled0.png"
    }
    if want capture; then
        [[ -f $device/cc400.csv ]] && capture_merged fresh
        step "capture cluster-collision 8191 x 400" env NBODY_RENDER_STATS=1 "$nbody" run --scenario cluster-collision \
            --bodies 8191 --kernel tiled --steps 400 --progress-every 200 --capture "$OUT/clusters-h200.png"
    fi

    # The render defect of docs/tests.md (before the tests, whose faults would spoil it): `nbody render --kernel tiled` at N = 999 went
    # non-finite after 6 steps inside the whole tst_cli run, exactly when the render tuned at its
    # start (after `gpuFaultInRun noDevice`, after `bench benchBudgetSkips`). It was the GPU's state
    # after the CUDA fault of gpuFaultInRun, not the tuning (see capture). tst_interop_steps keeps
    # the order the render uses (created, then tuned, then stepped: interop and owned, graphs on
    # and off) equal to an explicit launch.
    if want render; then
        [[ -x $device/bin/tst_interop_steps ]] && step "render tst_interop_steps" "$device/bin/tst_interop_steps"
        step "render tiled tuning first" env NBODY_TUNING_CACHE=/tmp/render-empty-cache.json "$nbody" render \
            --bodies 999 --kernel tiled --frames 4 --every 3 --size 120x90 --colour speed --out /tmp/render-tuned
    fi

    # The rendered galaxy encounter (part cli, or render-galaxy alone), here before the tests: after their CUDA faults the
    # H200's OpenGL draws at about 10 s a frame in every later process (docs/tests.md), and 300
    # frames would run past the step's time limit.
    if want cli || want render-galaxy; then
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
    fi

    # Every test executable. QT_QPA_PLATFORM=offscreen (from unpack.sh) for any that need one.
    local t
    # golden: tst_golden records this machine's checksums of the state after 100 steps (its CPU's
    # SIMD targets and the CUDA device's compute capability) into $OUT/golden-steps.json, merged
    # into the committed tests/data/golden-steps.json: commit it when keys were added. The tests
    # part then compares.
    if want golden && [[ -x $device/bin/tst_golden ]]; then
        cp tests/data/golden-steps.json "$OUT/golden-steps.json"
        step "tst_golden record" env NBODY_GOLDEN_RECORD="$OUT/golden-steps.json" "$device/bin/tst_golden"
    fi

    if want tests; then
        # tst_cli (whose last function faults) and tst_gpu_faults last: after a CUDA fault the H200's
        # OpenGL with CUDA in later processes draws garbage (docs/tests.md), which tst_interop_steps
        # and the renders would report.
        # GPU_CHECK_TESTS="tst_a tst_b": only those executables (a short call).
        only() { [[ -z ${GPU_CHECK_TESTS:-} || " $GPU_CHECK_TESTS " == *" $1 "* ]]; }
        for t in "$device"/bin/tst_*; do
            case $(basename "$t") in tst_cli | tst_gpu_faults) ;; *) only "$(basename "$t")" && step "$(basename "$t")" "$t" ;; esac
        done
        for t in tst_cli tst_gpu_faults; do
            [[ -x $device/bin/$t ]] && only "$t" && step "$t" "$device/bin/$t"
        done
    fi

    # Memory and race checks of every CUDA kernel at N = 1000 and N = 4097 (the againstReference
    # rows of each CUDA kernel with default launch parameters and with eps2 = 0), and of the
    # whole GPU pipeline of every kernel (kick, drift, publish, non-finite check; N = 1000).
    if want sanitizers && [[ -x $device/bin/tst_kernels ]]; then
        if command -v compute-sanitizer >/dev/null; then
            local -a rows=()
            mapfile -t rows < <("$device/bin/tst_kernels" -datatags |
                sed -n 's/^TestKernels againstReference \(.* N=\(1000\|4097\) \(default\|eps2=0\)\)$/againstReference:\1/p' |
                grep -v -e '^againstReference:cpu ' -e '^againstReference:reference ')
            rows+=(pipelineMatchesCpu detectsNonFiniteState)
            echo "   sanitizer rows: ${#rows[@]}"
            step memcheck compute-sanitizer --tool memcheck --error-exitcode 1 "$device/bin/tst_kernels" "${rows[@]}"
            step racecheck compute-sanitizer --tool racecheck --error-exitcode 1 "$device/bin/tst_kernels" "${rows[@]}"
            step synccheck compute-sanitizer --tool synccheck --error-exitcode 1 "$device/bin/tst_kernels" "${rows[@]}"
            step initcheck compute-sanitizer --tool initcheck --error-exitcode 1 "$device/bin/tst_kernels" "${rows[@]}"
            # The blocked kernels at every compiled bodies-per-thread / unroll value and with
            # short last chunks (N = 4097 over 3 and 7 grid rows), all four tools.
            local -a blockedRows=()
            mapfile -t blockedRows < <("$device/bin/tst_kernels" -datatags |
                sed -n 's/^TestKernels againstReference \(blocked.* N=\(1000\|4097\) .*\)$/againstReference:\1/p')
            echo "   blocked sanitizer rows: ${#blockedRows[@]}"
            local tool
            for tool in memcheck racecheck synccheck initcheck; do
                step "$tool blocked" compute-sanitizer --tool "$tool" --error-exitcode 1 "$device/bin/tst_kernels" "${blockedRows[@]}"
            done
            # The diagnostics kernels: every layout at N = 1000 and 4097, the occupancy block and 96.
            if [[ -x $device/bin/tst_gpu_diagnostics ]]; then
                mapfile -t rows < <("$device/bin/tst_gpu_diagnostics" -datatags |
                    sed -n 's/^TestGpuDiagnostics againstHost \(.* N=\(1000\|4097\) block=\(0\|96\)\)$/againstHost:\1/p')
                rows+=(deterministic)
                echo "   diagnostics sanitizer rows: ${#rows[@]}"
                step "memcheck diagnostics" compute-sanitizer --tool memcheck --error-exitcode 1 \
                    "$device/bin/tst_gpu_diagnostics" "${rows[@]}"
                step "racecheck diagnostics" compute-sanitizer --tool racecheck --error-exitcode 1 \
                    "$device/bin/tst_gpu_diagnostics" "${rows[@]}"
            fi
        else
            step "compute-sanitizer (not found)" false # recorded as a failure
        fi
    fi

    # The test functions the compute-sanitizer parts (sanitizers-all, sanitizers-split) leave out,
    # with their reasons, and the environment tst_gpu_faults's functions give their children.
    local -A sanitizerSkip=(
        # noDeviceReasons, faultyRowHiddenWithoutSwitch: no GPU work (no device / registry only);
        # the faulty kernel's out-of-bounds write is the fault the other two provoke on purpose.
        [tst_gpu_faults]='noDeviceReasons|faultyRowHiddenWithoutSwitch|contextLostReasons|faultPausesAndCpuTakesOver|faultKeepsLastHostCopy'
        [tst_diagnostics]='cli.*'                 # run the CLI (QProcess)
        [tst_controller]='frameLoopStepTime'      # compares step times: timing, not correctness
        [tst_collisions]='cliRunWithCollisions'   # runs the CLI (QProcess)
        [tst_cli]='.*'
    )
    local -A sanitizerChildEnv=(
        [interopRegisterRefused]='NBODY_FORCE_INTEROP_FAILURE=register'
        [interopMapRefusedMidRun]='NBODY_FORCE_INTEROP_FAILURE=map:4'
    )
    # sanitizers-all: the four compute-sanitizer tools over every GPU test executable, each test
    # function but those listed below with their reason, and over the CLI's GPU commands.
    # Test functions that start processes (QProcess) are not run under the sanitizer: the
    # tested program crashes with SIGSEGV in QProcess::start under compute-sanitizer 2025/2026
    # (seen on the H200, before the child starts); tst_gpu_faults's functions, which each run
    # in a child process of their own, are sanitized as that child directly (NBODY_GPU_FAULTS_CHILD=1
    # and the environment the function gives its child). tst_cli starts a CLI process in almost
    # every function: the CLI's GPU commands are sanitized directly instead.
    # GPU_CHECK_SANITIZE (executables, default every tst_* and nbody), GPU_CHECK_TOOLS (default all
    # four); one unit of sanitizer_units (below) per executable and tool. Table: $OUT/sanitizers-all.txt.
    # sanitizers-split: the same tools over units small enough for one call, run side by side.
    # racecheck slows kernels 100x and more, so whole executables under it passed the 10-minute
    # call (docs/tests.md). Here every test function is a unit of its own, a function with more
    # than GPU_CHECK_SPLIT_ROWS (default 4) data rows is split into chunks of that many rows
    # (tst_kernels: the sanitizers part's CUDA rows at N = 1000 and 4097), tst_gpu_faults's
    # functions run as their children, and GPU_CHECK_JOBS (default 4) units run at a time on the
    # one GPU, each limited by GPU_CHECK_TIMEOUT (processes share the GPU by time slices: 16 at a
    # time made tst_sandbox's memcheck take over 137 s where 6 at a time took 24 s). GPU_CHECK_SPLIT="TOOL[,TOOL...]:EXE[:FUNCTIONS] ..."
    # (FUNCTIONS: an extended regular expression over the function names) picks
    # tools and executables ("nbody-render" and "nbody-run": the CLI's GPU commands; EXE/whole: the
    # executable in one unit, for the faster tools). A unit's
    # verdict reads the tool's own summary line (memcheck, synccheck, initcheck: "ERROR SUMMARY:
    # N errors"; racecheck: "RACECHECK SUMMARY: N hazards displayed"), apart from the test's own
    # totals: a test that fails under the tool (a timing assertion, 100x slower kernels) with a
    # clean summary is reported as such. Table: $OUT/sanitizers-split.txt.
    # sanitizer_units SPEC JOBS TABLE: the units of SPEC (GPU_CHECK_SPLIT's form), JOBS at a time,
    # their verdicts in TABLE; sanitizers-all is the same over whole executables, one at a time.
    sanitizer_units() {
        if ! command -v compute-sanitizer >/dev/null; then
            step "compute-sanitizer (not found)" false
            return
        fi
        local spec=$1 par=$2 table=$3 per=${GPU_CHECK_SPLIT_ROWS:-4}
        local jd=/tmp/gpu-check-split
        rm -rf "$jd"
        mkdir -p "$jd"
        local nj=0
        # add_unit NAME ARG...: one unit (its command, NUL-separated, in $jd/N.args).
        add_unit() {
            echo "$1" >"$jd/$nj.name"
            shift
            printf '%s\0' "$@" >"$jd/$nj.args"
            nj=$((nj + 1))
        }
        local entry tools exe base fn tool
        for entry in $spec; do
            tools=${entry%%:*}
            base=${entry#*:}
            local only='.*'
            if [[ $base == *:* ]]; then only=${base#*:}; base=${base%%:*}; fi
            local whole=
            [[ $base == */whole ]] && { whole=1; base=${base%/whole}; }
            for tool in ${tools//,/ }; do
                local -a san=(compute-sanitizer --tool "$tool" --error-exitcode 1)
                case $base in
                    nbody-render)
                        add_unit "$tool nbody render tiled" "${san[@]}" "$nbody" render --kernel tiled --bodies 999 \
                            --frames 3 --every 2 --size 64x48 --colour speed --no-tune --out "/tmp/split-frames-$tool"
                        continue ;;
                    nbody-run)
                        add_unit "$tool nbody run tiled" "${san[@]}" "$nbody" run --kernel tiled --bodies 1001 --steps 5 \
                            --no-tune --diagnostics "/tmp/split-diag-$tool.csv" --diagnostics-every 2
                        continue ;;
                esac
                exe=$device/bin/$base
                [[ -x $exe ]] || { echo "   not carried: $base"; continue; }
                local -a fnsList=()
                mapfile -t fnsList < <("$exe" -functions | sed 's/()$//' | grep -v -x -E "${sanitizerSkip[$base]:-^$}" |
                    grep -x -E "$only")
                ((${#fnsList[@]} > 0)) || continue # every function left out (tst_cli)
                if [[ -n $whole && $base != tst_gpu_faults ]]; then
                    add_unit "$tool $base" "${san[@]}" "$exe" "${fnsList[@]}"
                    continue
                fi
                local -a tags=()
                for fn in "${fnsList[@]}"; do
                    if [[ $base == tst_gpu_faults ]]; then
                        # shellcheck disable=SC2086 # NAME=VALUE words
                        add_unit "$tool $base $fn (as its child)" env NBODY_GPU_FAULTS_CHILD=1 ${sanitizerChildEnv[$fn]:-} \
                            "${san[@]}" "$exe" "$fn"
                        continue
                    fi
                    # The function's data rows (-datatags prints "Class function tag").
                    if [[ $base == tst_kernels && $fn == againstReference ]]; then
                        mapfile -t tags < <("$exe" -datatags |
                            sed -n 's/^TestKernels againstReference \(.* N=\(1000\|4097\) \(default\|eps2=0\)\)$/\1/p' |
                            grep -v -e '^cpu ' -e '^reference ')
                    elif [[ $base == tst_kernels && $fn != pipelineMatchesCpu && $fn != detectsNonFiniteState ]]; then
                        continue # the blocked launch variants and the rest: the sanitizers part
                    else
                        mapfile -t tags < <("$exe" -datatags | awk -v f="$fn" '$2 == f && NF > 2 {
                            sub(/^[^ ]+ [^ ]+ /, ""); print }')
                    fi
                    if ((${#tags[@]} <= per)); then
                        add_unit "$tool $base $fn" "${san[@]}" "$exe" "$fn"
                        continue
                    fi
                    local k c
                    for ((k = 0; k < ${#tags[@]}; k += per)); do
                        local -a rowsArg=()
                        for ((c = k; c < k + per && c < ${#tags[@]}; c++)); do rowsArg+=("$fn:${tags[$c]}"); done
                        add_unit "$tool $base $fn rows $((k + 1))-$c of ${#tags[@]}" "${san[@]}" "$exe" "${rowsArg[@]}"
                    done
                done
            done
        done
        echo "   $(basename "$table" .txt): $nj units, $par at a time, ${limit} s each"
        # run_unit N: runs unit N within its limit (and GPU_CHECK_DEADLINE, seconds from the part's
        # start, when set: a unit that would start with under 30 s left is not started), then
        # appends its verdict to the table at once, so that a call cut short keeps what finished.
        local t0=$SECONDS deadline=${GPU_CHECK_DEADLINE:-0}
        printf '%-72s %6s  %-60s %-34s %s\n' unit seconds "tool's summary" "test's totals" verdict >"$table"
        run_unit() {
            local -a a=()
            mapfile -d '' -t a <"$jd/$1.args"
            local s0=$SECONDS rc=0 lim=$limit verdict summ totals
            if ((deadline > 0)); then
                ((deadline - (SECONDS - t0) < lim)) && lim=$((deadline - (SECONDS - t0)))
            fi
            if ((lim < 30)); then
                verdict="NOT RUN (the call's deadline)"
                summ=- totals=-
            else
                # QTEST_FUNCTION_TIMEOUT: Qt Test's own 5-minute watchdog per function would cut the
                # slower runs under the tool short; the unit's limit bounds them instead.
                QTEST_FUNCTION_TIMEOUT=$(((lim + 60) * 1000)) timeout --kill-after=10 "$lim" "${a[@]}" \
                    >"$jd/$1.log" 2>&1 </dev/null || rc=$?
                summ=$(grep -m1 -oE 'ERROR SUMMARY: [0-9]+ errors?|RACECHECK SUMMARY: [0-9]+ hazards? displayed \([0-9]+ errors?, [0-9]+ warnings?\)' \
                    "$jd/$1.log" || echo "no summary")
                totals=$(grep -oE 'Totals: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$jd/$1.log" | tail -n 1 || true)
                [[ -n $totals ]] || totals=-
                if ((rc == 124 || rc == 137)); then
                    verdict="TIMEOUT (${lim} s)"
                elif [[ $summ == "no summary" ]] && grep -q 'terminated before first instrumented API call' "$jd/$1.log" &&
                    [[ $totals == *" 0 failed"* ]]; then
                    verdict="PASS (no CUDA call)" # a function that runs on the host only
                elif [[ $summ =~ ^ERROR\ SUMMARY:\ 0\ error || $summ =~ ^RACECHECK\ SUMMARY:\ 0\ hazard ]]; then
                    if ((rc == 0)); then verdict=PASS; else verdict="clean; the test failed under the tool (exit $rc)"; fi
                else
                    verdict="FAIL ($summ, exit $rc)"
                fi
            fi
            echo "$verdict" >"$jd/$1.verdict"
            printf '%-72s %6s  %-60s %-34s %s\n' "$(cat "$jd/$1.name")" "$((SECONDS - s0))" "$summ" "$totals" "$verdict" >>"$table"
        }
        local u
        for ((u = 0; u < nj; u++)); do
            while (($(jobs -rp | wc -l) >= par)); do wait -n || true; done
            run_unit "$u" &
        done
        wait || true
        echo "   $(basename "$table" .txt): all units done in $((SECONDS - t0)) s"
        for ((u = 0; u < nj; u++)); do
            {
                echo "================ $(cat "$jd/$u.name"): $(cat "$jd/$u.verdict")"
                echo "\$ $(tr '\0' ' ' <"$jd/$u.args" | head -c 2000)"
                # (grep -m, not "| head": head's early exit is a SIGPIPE, a failure under pipefail)
                [[ ! -f $jd/$u.log ]] || grep -m 60 -E 'SUMMARY|^(PASS|FAIL!|SKIP|XFAIL)|Totals|Hazard|Race|Invalid|rror' "$jd/$u.log" || true
                echo
            } >>"$log"
            names+=("$(cat "$jd/$u.name")")
            results+=("$(cat "$jd/$u.verdict")")
        done
        # Units that failed or ran out of time: their whole output.
        mkdir -p "${table%.txt}-logs"
        for ((u = 0; u < nj; u++)); do
            [[ $(cat "$jd/$u.verdict") == PASS* || ! -f $jd/$u.log ]] && continue
            tail -c 20000 "$jd/$u.log" >"${table%.txt}-logs/unit-$u.log"
        done
        cat "$table"
    }
    if want sanitizers-all; then
        local allTools=${GPU_CHECK_TOOLS:-memcheck racecheck synccheck initcheck} allSpec= e
        allTools=${allTools// /,}
        local -a allBases=()
        if [[ -n ${GPU_CHECK_SANITIZE:-} ]]; then
            read -r -a allBases <<<"$GPU_CHECK_SANITIZE" # "nbody": the CLI runs, not a test executable
        else
            for e in "$device"/bin/tst_*; do allBases+=("$(basename "$e")"); done
            allBases+=(nbody)
        fi
        for e in "${allBases[@]}"; do
            if [[ $e == nbody ]]; then allSpec+=" $allTools:nbody-run $allTools:nbody-render"; else allSpec+=" $allTools:$e/whole"; fi
        done
        sanitizer_units "$allSpec" 1 "$OUT/sanitizers-all.txt"
    fi

    if want sanitizers-split; then
        sanitizer_units "${GPU_CHECK_SPLIT:-"racecheck:tst_validation racecheck:tst_kernels racecheck,synccheck:tst_gpu_diagnostics racecheck:tst_controller racecheck:tst_integrators racecheck:tst_gpu_faults racecheck:tst_collisions racecheck:tst_sandbox racecheck:tst_interop_steps memcheck,synccheck,initcheck:tst_collisions/whole memcheck,synccheck,initcheck:tst_sandbox/whole memcheck,synccheck,initcheck:tst_interop_steps/whole racecheck,synccheck,initcheck:nbody-render"}" \
            "${GPU_CHECK_JOBS:-4}" "$OUT/sanitizers-split.txt"
    fi

    # The command-line front end.
    if want cli; then
    step "nbody kernels" "$nbody" kernels
    # The device rows (as the app's Device dock shows them) also as files of their own.
    step "nbody devices" bash -c 'set -o pipefail; "$1" devices | tee "$2/devices.txt"' _ "$nbody" "$OUT"
    step "nbody devices --json" bash -c 'set -o pipefail; "$1" devices --json | tee "$2/devices.json"' _ "$nbody" "$OUT"
    # A CUDA fault during a run: the test-only faulty-test kernel writes out of bounds at
    # its 250th force evaluation; the run must report it, write the last good state (step 200,
    # host copies every 100 steps) and exit 1 (tst_cli gpuFaultInRun checks the state's bytes).
    step "nbody run faulty-test (fault expected)" bash -c 'd=$(mktemp -d)
        NBODY_TEST_FAULTY_KERNEL=1 NBODY_TEST_FAULT_AFTER=250 "$1" run --kernel faulty-test --bodies 20000 \
            --steps 1000 --host-copy-every 100 --no-energy --output "$d/last.csv" >"$d/log" 2>&1
        rc=$?; cat "$d/log"
        [[ $rc == 1 ]] && grep -q "GPU fault in kernel .faulty-test." "$d/log" &&
            grep -q "last good state kept on the host is step 200" "$d/log" && [[ -s $d/last.csv ]] &&
            echo "fault reported, last good state written, exit 1"' _ "$nbody"
    step "nbody run galaxy" "$nbody" run --kernel tiled --input "$device/data/galaxy_20K.bin" \
        --steps 1000 --capture "$OUT/out.png"
    step "nbody run 262144" "$nbody" run --kernel tiled --bodies 262144 --steps 20 \
        --capture "$OUT/big.png"
    step "nbody run fp64 galaxy" "$nbody" run --kernel tiled-fp64 --input "$device/data/galaxy_20K.bin" \
        --steps 1000 --capture "$OUT/out-fp64.png"
    # Exact restart through snapshot files on the GPU: 200 steps straight against 100 steps, an
    # HDF5 snapshot, a load and 100 more (the final CSV snapshots must be the same bytes).
    step "snapshot restart tiled" bash -c 'set -e; d=$(mktemp -d); n=$1
        common=(run --kernel tiled --bodies 20011 --eps2 1e6 --no-energy)
        "$n" "${common[@]}" --steps 200 --output "$d/straight.csv"
        "$n" "${common[@]}" --steps 100 --every 50 --output "$d/snap_{step}.h5"
        "$n" run --input "$d/snap_100.h5" --steps 100 --no-energy --output "$d/restarted.csv"
        cmp "$d/straight.csv" "$d/restarted.csv"
        echo "bit-identical: 200 steps = 100 steps + save + load + 100 steps"' _ "$nbody"
    # Headless rendering with CUDA-GL interop: the galaxy encounter, 300 frames, one every 20 steps
    # (6000 steps, about 6 dynamical times; one step per frame would show only 0.3 of one).
    # Diagnostics on the device every 10 steps (compare its time per step with the run above
    # without them), written to $OUT/diagnostics.csv.
    step "nbody run galaxy diagnostics" "$nbody" run --kernel tiled --input "$device/data/galaxy_20K.bin" \
        --steps 1000 --diagnostics "$OUT/diagnostics.csv" --diagnostics-every 10
    step "nbody run 262144 diagnostics" "$nbody" run --kernel tiled --bodies 262144 --steps 20 \
        --diagnostics "$OUT/diagnostics-262144.csv" --diagnostics-every 5
    # Scenarios and integrators on the GPU: Yoshida on tiled and tiled-fp64, a collision picture.
    step "nbody run collision" "$nbody" run --scenario galaxy-collision --bodies 65536 --kernel tiled \
        --steps 2000 --progress-every 500 --capture "$OUT/collision.png"
    step "nbody run plummer yoshida4" "$nbody" run --scenario plummer --bodies 65536 --kernel tiled \
        --integrator yoshida4 --steps 200
    step "nbody run solar tiled-fp64" "$nbody" run --scenario solar-system --kernel tiled-fp64 --steps 36525 \
        --progress-every 7305
    # Validation of every kernel against the fp64 OpenMP reference: the summary table in
    # $OUT/validation-h200.txt, the report as HTML and JSON. The reference's 1000 fp64 steps at
    # N = 8192 take a minute or two on the host's cores.
    limit=900 step "nbody validate all" bash -c 'set -o pipefail; "$1" validate --kernel all --bodies 8192 \
        --steps 1000 --report "$2/validation-h200.html" --report "$2/validation-h200.json" |
        tee "$2/validation-h200.txt"' _ "$nbody" "$OUT"
    fi
    # The benchmark (docs/benchmarks.md), then launch-parameter sweeps.
    if want bench; then
    limit=900 step "nbody bench all" "$nbody" bench --kernels all --bodies 8192,65536,262144 --steps 10 \
        --json "$OUT/bench.json" --csv "$OUT/bench.csv"
    # The SIMD `cpu` kernel per core against the plain vectorised loop in the same run
    # (docs/performance.md, The CPU kernel): one thread, then all cores (the plain loop is single-threaded by
    # construction; compare its figure with the per-core line of the all-cores bench).
    local plain=$device/anchors/cpu-plain-loop
    local -a plainCmd=(bash "$plain/run.sh")
    command -v g++ >/dev/null || plainCmd=(bash -c 'echo "plain loop (x86-64-v3 build, no g++ here), 1 thread, N = 8192: $("$1") interactions/s"' _ "$plain/plain_loop-x86-64-v3")
    step "bench cpu 1 thread" env OMP_NUM_THREADS=1 "$nbody" bench --kernels cpu --bodies 8192
    step "plain loop 1 thread" env OMP_NUM_THREADS=1 "${plainCmd[@]}"
    step "bench cpu all cores" "$nbody" bench --kernels cpu --bodies 8192
    step "plain loop (all cores run)" "${plainCmd[@]}"
    # The app's frame loop at N = 65536 with CUDA-GL interop. tst_controller runs the
    # app's SimulationController with the positions in two GL buffers mapped for CUDA through EGL
    # (one step per frame, as the app) and Simulation::step alone on the same cube, and prints
    # "frame loop tiled N=65536 (CUDA-GL interop; <launch>): A ms/step in the app's frame loop,
    # B ms/step Simulation::step alone: +x.x %"; it fails beyond 5 %. nbody bench's step_ms for the same
    # kernel and N beside it, with CUDA graphs (the default) and without (launch gaps).
    step "bench blocked,tiled 65536" "$nbody" bench --kernels blocked,tiled --bodies 65536 --steps 20
    step "frame loop blocked 65536" "$device/bin/tst_controller" "frameLoopStepTime:blocked N=65536"
    step "frame loop tiled 65536" "$device/bin/tst_controller" "frameLoopStepTime:tiled N=65536"
    step "bench blocked,tiled 65536 no graphs" "$nbody" bench --kernels blocked,tiled --bodies 65536 --steps 20 --no-cuda-graphs
    # The whole step at small N, where launch gaps count: blocked at 8192 with and without graphs.
    step "bench blocked 8192,16384 graphs" "$nbody" bench --kernels blocked --bodies 8192,16384 --steps 50
    step "bench blocked 8192,16384 no graphs" "$nbody" bench --kernels blocked --bodies 8192,16384 --steps 50 --no-cuda-graphs
    # Launch gaps at small N: 2000 steps of 1024 bodies with and without CUDA graphs (ms/step).
    step "run tiled 1024 graphs" "$nbody" run --kernel tiled --bodies 1024 --steps 2000 --no-energy
    step "run tiled 1024 no graphs" "$nbody" run --kernel tiled --bodies 1024 --steps 2000 --no-energy \
        --no-cuda-graphs
    fi
    # The launch sweeps (tiled block × tile factor, the 2D rows' block × rows).
    if want sweeps; then
    local b f r
    for b in 128 256 512 1024; do
        for f in 1 2 4; do
            step "bench tiled b$b x$f" "$nbody" bench --kernels tiled --bodies 262144 --steps 5 \
                --block-size "$b" --tile-factor "$f"
        done
    done
    for b in 64 128 256 512; do
        for r in 1 2; do
            step "bench 2D b$b r$r" "$nbody" bench --kernels reduction2d-fadl4,warp-shuffle --bodies 65536 \
                --steps 5 --block-size "$b" --block-rows "$r"
        done
    done
    fi

    # Our kernels beside NVIDIA's sample, same call, same N.
    # perf-short: the sample and `blocked` at the table's sizes in one call, nothing else (a
    # check after changes outside the force kernels), and the N `--steps-per-second 25` picks.
    if want perf-short; then
        step "nvidia sample fp32 (short)" "$device/anchors/nvidia-nbody-sample/run.sh" 8192 16384 65536 262144 1048576
        limit=400 step "nbody bench blocked (short)" "$nbody" bench --kernels blocked \
            --bodies 8192,16384,65536,262144,1048576 --steps 10 --budget 300
        step "nbody run --steps-per-second 25" "$nbody" run --scenario galaxy-collision --kernel blocked \
            --steps-per-second 25 --steps 10 --no-energy
    fi
    if want perf; then
        local sample=$device/anchors/nvidia-nbody-sample/run.sh sizes=8192,16384,65536,262144,1048576
        step "nvidia sample fp32" bash -c 'set -o pipefail; "$1" 8192 16384 65536 262144 1048576 | tee "$2/sample.txt"' _ "$sample" "$OUT"
        step "nvidia sample fp64" bash -c 'set -o pipefail; "$1" --fp64 262144 | tee -a "$2/sample.txt"' _ "$sample" "$OUT"
        # The tuner's choices for the sizes of the table (cached on that machine, then used by bench).
        step "nbody tune" "$nbody" tune --kernels blocked,blocked-fp64,tiled --bodies 8192,16384,65536,262144 --force
        # The SM clock and power while the kernels run (every 100 ms): an issue-slot ceiling at
        # 1.98 GHz means little if the card runs slower under a full FP32 load.
        nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu,clocks_event_reasons.active \
            --format=csv -lms 100 >"$OUT/clocks.csv" 2>&1 &
        local smi=$!
        limit=600 step "nbody bench perf" "$nbody" bench --kernels blocked,tiled \
            --bodies "$sizes" --steps 10 --budget 600 --json "$OUT/bench-perf.json" --csv "$OUT/bench-perf.csv"
        # Every GPU kernel at the table's two sizes that `bench all` does not cover (cases over
        # the budget, the 2D rows at 1 048 576, are skipped with their predicted time).
        local gpuKernels
        gpuKernels=$("$nbody" kernels --json | grep -o '"id": *"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/' |
            grep -vx -e cpu -e reference | paste -sd, -)
        limit=600 step "nbody bench every GPU kernel 16384,1048576" "$nbody" bench --kernels "$gpuKernels" \
            --bodies 16384,1048576 --steps 5 --budget 20 --json "$OUT/bench-perf-all.json"
        limit=600 step "nbody bench perf fp64" "$nbody" bench --kernels blocked-fp64,tiled-fp64 --bodies 65536,262144 \
            --steps 5 --budget 600 --json "$OUT/bench-perf-fp64.json"
        step "sample fp32 again" "$sample" 8192 65536 262144
        kill "$smi" 2>/dev/null || true
        step "clocks under load" awk -F", " -f scripts/clocks-summary.awk "$OUT/clocks.csv"
        # The launch-parameter space of `blocked` (scripts/sweep-launch.sh), into $OUT/sweep.txt.
        limit=600 step "sweep blocked" bash -c 'set -o pipefail; scripts/sweep-launch.sh "$1" blocked | tee "$2/sweep.txt"' _ "$nbody" "$OUT"
        limit=600 step "sweep blocked-fp64" bash -c 'set -o pipefail; scripts/sweep-launch.sh "$1" blocked-fp64 | tee -a "$2/sweep.txt"' _ "$nbody" "$OUT"
        step "sass blocked" bash -c 'cuobjdump -sass "$1" > /tmp/blocked.sass && grep -c . /tmp/blocked.sass &&
            awk "/Function : .*blockedKernelI6float4Li4ELi4ELb0/,/EXIT/" /tmp/blocked.sass | grep -oE "^ +/\*[0-9a-f]+\*/ +[A-Z0-9.]+" |
            awk "{print \$2}" | sort | uniq -c | sort -rn | head -25' _ "$device/obj/BlockedForces.cu.o"
    fi

    # tree-anchor: our tree against Ryoanji in one call, Plummer spheres of 1 M and 8 M bodies:
    # Ryoanji at θ 0.4, 0.5, 0.6 (its sampled fp64 error at 1 M; 8 M without the check), our
    # tree at θ 0.3-0.6 (GPU_CHECK_TREE_THETAS) and with the relative criterion at θ 1 and α
    # 0.002-0.006 (GPU_CHECK_TREE_ALPHAS; `nbody bench`, force evaluation with the tree build),
    # the relative criterion's calibration at N = 131072 (GPU_CHECK_TREE_CALIBRATE α,
    # GPU_CHECK_TREE_CALIBRATE_THETAS θ, GPU_CHECK_TREE_CALIBRATE_BODIES N) and its walk under
    # compute-sanitizer (GPU_CHECK_TREE_SANITIZE=0: not).
    # Architectures: the default build's kernels library has machine code for every architecture
    # (cuobjdump --list-elf), and a build for sm_80 only, on this sm_90 GPU, lists every CUDA
    # kernel as unavailable with the reason and the fix, runs on `cpu` by default, and refuses a
    # CUDA kernel asked for by name with that reason instead of failing mid-run.
    if want archs; then
        if [[ -f $device/kernels-all.a.xz ]] && command -v cuobjdump >/dev/null; then
            step "archs cuobjdump --list-elf (default build)" bash -c 'set -o pipefail
                xz -dc "$1" >/tmp/kernels-all.a && cuobjdump --list-elf /tmp/kernels-all.a >"$2/kernels-all-elf.txt" &&
                grep -oE "sm_[0-9]+[a-z]?" "$2/kernels-all-elf.txt" | sort -V | uniq -c' _ "$device/kernels-all.a.xz" "$OUT"
            step "archs cuobjdump --list-ptx (default build)" bash -c 'cuobjdump --list-ptx /tmp/kernels-all.a |
                grep -oE "sm_[0-9]+[a-z]?" | sort -V | uniq -c'
        fi
        local n80=$device/bin/arch80/nbody
        if [[ -x $n80 ]]; then
            step "archs sm_80 build: nbody devices" "$n80" devices
            # Every CUDA row, force kernels and contact searches, unavailable with the reason.
            step "archs sm_80 build: nbody kernels" bash -c '"$1" kernels | tee /tmp/k80.txt
                cuda=$(grep -cE "^ *[a-z0-9-]+ +.* CUDA +(fp32|fp64|available|unavailable) " /tmp/k80.txt)
                why=$(grep -c "built for sm_80; this GPU is sm_90: rebuild with -DNBODY_CUDA_ARCHITECTURES=90" /tmp/k80.txt)
                echo "$cuda CUDA rows, $why with the reason"; ((cuda > 10 && cuda == why))' _ "$n80"
            step "archs sm_80 build: default kernel falls back" bash -c 'set -o pipefail
                "$1" run --scenario plummer --bodies 1000 --steps 5 2>&1 | tee /tmp/r80.txt &&
                grep -q "^Kernel:  cpu " /tmp/r80.txt && grep -q "^nbody run: note: the CUDA kernels cannot run here (built for sm_80" /tmp/r80.txt' _ "$n80"
            step "archs sm_80 build: --kernel blocked refused" bash -c '"$1" run --scenario plummer --bodies 1000 \
                --steps 5 --kernel blocked >/tmp/b80.txt 2>&1; rc=$?; cat /tmp/b80.txt; echo "exit $rc"
                [[ $rc == 2 ]] && grep -q "kernel .blocked. is not available here: built for sm_80" /tmp/b80.txt' _ "$n80"
            step "archs sm_80 build: tst_machine_info" "$device/bin/arch80/tst_machine_info"
        fi
    fi

    # sanitize_function LABEL TEST FUNCTION: one test function under each of the four
    # compute-sanitizer tools (skipped where the test or the tool is missing).
    sanitize_function() {
        local label=$1 exe=$device/bin/$2 fn=$3 tool
        [[ -x $exe ]] && command -v compute-sanitizer >/dev/null || return 0
        for tool in memcheck racecheck synccheck initcheck; do
            step "$tool $label" compute-sanitizer --tool "$tool" --error-exitcode 1 "$exe" "$fn"
        done
    }

    # display-info: what the GPU machine offers a display server and a window's GL (remote-app):
    # the driver's X and GLX server modules, its EGL/GLX vendor libraries and external platforms,
    # the device nodes, the driver's capabilities as the container runtime passed them.
    if want display-info; then
        step "display-info" bash -c 'id; cat /proc/driver/nvidia/version 2>&1; env | grep -i -e nvidia -e cuda_ | sort
            ls -la /dev/nvidia* /dev/dri 2>&1; ls /usr/local/nvidia /usr/local/nvidia/lib64 2>&1 | tr "\n" " "; echo
            find / -xdev \( -name "nvidia_drv.so*" -o -name "libglxserver_nvidia*" -o -name "libnvidia-egl-*" \
                -o -name "libGLX_nvidia*" -o -name "libEGL_nvidia*" -o -name "*_nvidia*.json" -o -name "Xorg" \
                -o -name "nvidia-xconfig" -o -name "libnvidia-glcore*" -o -name "libnvidia-glsi*" \) 2>/dev/null
            ls -la /usr/share/egl/egl_external_platform.d /usr/local/nvidia/share/egl* 2>&1; true'
    fi

    if want tree-anchor; then
        if [[ -x $device/anchors/ryoanji/run.sh ]]; then
            limit=400 step "ryoanji 1M" "$device/anchors/ryoanji/run.sh" --theta 0.4,0.5,0.6 1048576
            limit=400 step "ryoanji 8M" "$device/anchors/ryoanji/run.sh" --theta 0.4,0.5,0.6 --ref none 8388608
        fi
        # Our tree at each θ: its time at both sizes, and its step-0 force error from the sampled
        # check (32 768 targets against all N in fp64, as Ryoanji measures) at 1 M for every θ and
        # at 8.4 M for θ = 0.5 (each 8.4 M check also times two all-pairs energies, about a minute).
        local theta
        for theta in ${GPU_CHECK_TREE_THETAS:-0.3 0.4 0.5 0.6}; do
            limit=400 step "nbody bench tree theta $theta" "$nbody" bench --kernels tree --scenario plummer \
                --bodies 1048576,8388608 --theta "$theta" --steps 10 --budget 120
            step "nbody validate tree theta $theta 1M" "$nbody" validate --kernel tree --theta "$theta" \
                --bodies 1048576 --reference sampled --steps 1 --quiet
        done
        # GADGET-2's relative criterion, θ = 1 the guard, at each α (GPU_CHECK_TREE_ALPHAS): times
        # at both sizes (after the first evaluation each reads the previous accelerations), the
        # sampled step-0 error at 1 M and, for the middle α, at 8.4 M; its walk under the four
        # compute-sanitizer tools (the CPU row's agreement at N = 4097, pre-pass and steady).
        local alpha mid
        local -a alphas
        read -r -a alphas <<<"${GPU_CHECK_TREE_ALPHAS:-0.002 0.004 0.006}"
        for alpha in "${alphas[@]}"; do
            limit=400 step "nbody bench tree theta 1 alpha $alpha" "$nbody" bench --kernels tree --scenario plummer \
                --bodies 1048576,8388608 --theta 1 --opening-alpha "$alpha" --steps 10 --budget 120
            step "nbody validate tree theta 1 alpha $alpha 1M" "$nbody" validate --kernel tree --theta 1 \
                --opening-alpha "$alpha" --bodies 1048576 --reference sampled --steps 1 --quiet
        done
        # The calibration of --force-accuracy (src/sim/core/ForceAccuracy.cpp) for the relative
        # criterion on this GPU: tree-cpu's command at each of its α, at each N of
        # GPU_CHECK_TREE_CALIBRATE_BODIES (default 131072, tree-cpu's N), and for the geometric
        # criterion at each θ of GPU_CHECK_TREE_CALIBRATE_THETAS (default none) at the same N.
        local cn
        for cn in ${GPU_CHECK_TREE_CALIBRATE_BODIES:-131072}; do
            for alpha in ${GPU_CHECK_TREE_CALIBRATE-0.0002 0.0005 0.001 0.002 0.003 0.004 0.005 0.007 0.01 0.02}; do
                step "nbody validate tree theta 1 alpha $alpha $cn" "$nbody" validate --kernel tree --scenario plummer \
                    --theta 1 --opening-alpha "$alpha" --bodies "$cn" --steps 1 --reference sampled --quiet
            done
            for theta in ${GPU_CHECK_TREE_CALIBRATE_THETAS:-}; do
                step "nbody validate tree theta $theta $cn" "$nbody" validate --kernel tree --scenario plummer \
                    --theta "$theta" --bodies "$cn" --steps 1 --reference sampled --quiet
            done
        done
        # GPU_CHECK_TREE_SANITIZE=0 leaves out the walk under compute-sanitizer.
        [[ ${GPU_CHECK_TREE_SANITIZE:-1} == 0 ]] ||
            sanitize_function "tree relative criterion" tst_tree "gpuAgreesWithCpu:N=4097 alpha=0.005"
        # The 8.4 M checks last (each about a minute, most of it two all-pairs energies).
        [[ " ${GPU_CHECK_TREE_THETAS:-0.3 0.4 0.5 0.6} " == *" 0.5 "* ]] &&
            limit=400 step "nbody validate tree theta 0.5 8M" "$nbody" validate --kernel tree --theta 0.5 \
                --bodies 8388608 --reference sampled --steps 1 --quiet
        if ((${#alphas[@]} > 0)); then
            mid=${alphas[$((${#alphas[@]} / 2))]}
            limit=400 step "nbody validate tree theta 1 alpha $mid 8M" "$nbody" validate --kernel tree --theta 1 \
                --opening-alpha "$mid" --bodies 8388608 --reference sampled --steps 1 --quiet
        fi
    fi

    # The Barnes–Hut tree against our best all-pairs kernel and NVIDIA's sample at the
    # same N (the sample up to 4 M: one of its all-pairs steps at 16 M takes minutes), its
    # sampled force error at the defaults, the 10 000-step energy of the 1 M galaxy collision and
    # frames of it for the README.
    if want tree; then
        local sample=$device/anchors/nvidia-nbody-sample/run.sh
        step "nvidia sample fp32 (tree sizes)" bash -c 'set -o pipefail; "$1" 65536 262144 1048576 4194304 | tee "$2/sample-tree.txt"' _ "$sample" "$OUT"
        limit=600 step "nbody bench tree" "$nbody" bench --kernels tree,blocked --scenario plummer \
            --bodies 65536,262144,1048576,4194304,8388608,16777216 --steps 10 --budget 60 \
            --json "$OUT/bench-tree.json" --csv "$OUT/bench-tree.csv"
        limit=600 step "nbody validate tree" bash -c 'set -o pipefail; "$1" validate --kernel tree,tree-cpu --bodies 100000 \
            --steps 2 --report "$2/validation-tree.json" | tee "$2/validation-tree.txt"' _ "$nbody" "$OUT"
        limit=600 step "tree galaxy collision 1M 10000 steps" "$nbody" run --scenario galaxy-collision \
            --bodies 1048576 --kernel tree --steps 10000 --progress-every 2000 --capture "$OUT/tree-collision-1M.png"
    fi

    # Validation at the sizes people run: the sampled check (the step-0 forces of 32 768 bodies
    # against all N in fp64 on the GPU, each kernel's own energy over 10 steps) at 1 M for the tree
    # and `blocked`, and at 16 M for the tree, with their wall times; the sampled reference's
    # kernel under the four compute-sanitizer tools (tst_validation's GPU function).
    if want validate-large; then
        limit=600 step "nbody validate tree,blocked 1M" bash -c 'set -o pipefail; /usr/bin/time -f "wall %e s" "$1" validate \
            --kernel tree,blocked --bodies 1048576 --report "$2/validation-1M.json" 2>&1 | tee "$2/validation-1M.txt"' _ "$nbody" "$OUT"
        limit=600 step "nbody validate tree 16M" bash -c 'set -o pipefail; /usr/bin/time -f "wall %e s" "$1" validate \
            --kernel tree --bodies 16777216 --reference sampled --report "$2/validation-16M.json" 2>&1 | tee "$2/validation-16M.txt"' _ "$nbody" "$OUT"
        sanitize_function "sampled reference" tst_validation sampledReferenceOnTheGpuMatchesTheHost
    fi

    # Block time steps on the device: the fp64 CUDA row against the host row under the four
    # compute-sanitizer tools (tst_block_steps deviceMatchesHost; the drift and level-kick kernels),
    # the active rows of `tree` and `blocked` and the levels and active set on the device
    # (deviceActiveRowsAreFullRows, deviceLevelsAreHostLevels) under the same tools, then
    # `blocked` on a Plummer sphere of 65 537 bodies, 64 steps with block and with fixed steps
    # (docs/timesteps.md), with their summaries. The
    # block run's largest step is dt = 0.0625, eight times the sphere's, so that its bodies spread
    # over levels 0 to 3 (at the sphere's own dt every body stays on level 0, the fixed step).
    if want block-steps; then
        sanitize_function "block steps" tst_block_steps deviceMatchesHost
        sanitize_function "block steps: active rows of the tree" tst_block_steps \
            "deviceActiveRowsAreFullRows:tree N=4097 every=3 alpha=0.005"
        sanitize_function "block steps: active rows of blocked" tst_block_steps \
            "deviceActiveRowsAreFullRows:blocked N=4097 every=3"
        sanitize_function "block steps: levels and active set on the device" tst_block_steps deviceLevelsAreHostLevels
        step "blocked 65537 --timestep block" "$nbody" run --scenario plummer --bodies 65537 --kernel blocked \
            --timestep block --dt 0.0625 --steps 8
        step "blocked 65537 --timestep fixed" "$nbody" run --scenario plummer --bodies 65537 --kernel blocked \
            --timestep fixed --dt 0.0078125 --steps 64
    fi

    # block-galaxy: the galaxy collision of GPU_CHECK_BLOCK_GALAXY_N bodies (default 1048576)
    # with `tree` at θ 0.5 over t = 0…10, fixed steps of 1/128 and 1/64 against block steps of
    # dt_max 1/16 and 1/8 (η 0.1, 0.2; GPU_CHECK_BLOCK_GALAXY_RUNS="MODE DT STEPS EVERY ETA,…"
    # replaces the list): wall time, body-force evaluations, the levels and the largest |ΔE/E0| of
    # the energy every time unit (--diagnostics), each run's summary in the log and its series in
    # $OUT/block-galaxy-*.csv.
    if want block-galaxy; then
        local gn=${GPU_CHECK_BLOCK_GALAXY_N:-1048576} spec mode dt steps every eta tag
        local -a runs
        IFS=, read -r -a runs <<<"${GPU_CHECK_BLOCK_GALAXY_RUNS:-fixed 0.0078125 1280 128 0.1,fixed 0.015625 640 64 0.1,block 0.0625 160 16 0.1,block 0.125 80 8 0.2}"
        for spec in "${runs[@]}"; do
            read -r mode dt steps every eta <<<"$spec"
            tag=$mode-$dt-$eta
            limit=500 step "galaxy collision $gn tree $tag" bash -c 'set -o pipefail; s=$SECONDS
                "$1" run --scenario galaxy-collision --bodies "$2" --kernel tree --theta 0.5 --timestep "$3" \
                    --dt "$4" --steps "$5" --eta "$7" --diagnostics "$8" --diagnostics-every "$6" --no-tune | tail -25
                echo "wall time of the run: $((SECONDS - s)) s"' _ "$nbody" "$gn" "$mode" "$dt" "$steps" "$every" \
                "$eta" "$OUT/block-galaxy-$tag.csv"
        done
    fi

    # force-accuracy: `--force-accuracy 1e-3` on the tree row end to end at sizes that take the
    # tables of 1 048 576 bodies (262 144 and 1 048 576: θ 1, α 0.0015) and of 131 072 (131 072:
    # θ 0.5): validate's sampled check states the setting, the p99 achieved and whether it met
    # the target; then the bench of the setting at 1 M, and Ryoanji's at 1 M in the same call.
    if want force-accuracy; then
        local fn
        for fn in 131072 262144 1048576; do
            step "validate tree --force-accuracy 1e-3 $fn" "$nbody" validate --kernel tree --scenario plummer \
                --bodies "$fn" --force-accuracy 1e-3 --reference sampled --steps 1
        done
        step "bench tree --force-accuracy 1e-3 1048576" "$nbody" bench --kernels tree --scenario plummer \
            --bodies 1048576 --force-accuracy 1e-3 --steps 10
        # The anchor at about the same p99 (θ 0.6: 8.0e-4) in the same call.
        [[ -x $device/anchors/ryoanji/run.sh ]] &&
            limit=400 step "ryoanji 1M (force-accuracy)" "$device/anchors/ryoanji/run.sh" --theta 0.5,0.6 1048576
    fi

    # Where the tree's time goes at 1 M (Plummer sphere, θ 1 with α GPU_CHECK_PROFILE_ALPHA, default
    # 0.0015, the 1e-3 accuracy setting): every kernel of three evaluations timed by Nsight Compute
    # (one metric, clocks left alone), then the steady walk in detail (warp states, instruction mix,
    # the SASS with its stall samples) into $OUT/tree-walk-*.txt. Then the time and error of
    # chosen settings at 1 M and 8.4 M (below).
    if want tree-profile; then
        local pa=${GPU_CHECK_PROFILE_ALPHA:-0.0015} ncu_bin
        ncu_bin=$(ncu_path)
        if [[ -n $ncu_bin ]]; then
            tree_kernel_times step "$ncu_bin" "$nbody" "1:$pa"
            step "ncu tree walk 1M alpha $pa details" bash -c '"$1" --clock-control none -k regex:walkKernel -s 2 -c 1 \
                --section SpeedOfLight --section Occupancy --section WarpStateStats --section InstructionStats \
                --section SchedulerStats --section MemoryWorkloadAnalysis --section SourceCounters \
                --section LaunchStats -o /tmp/walk -f "${@:2}" >/dev/null &&
                "$1" -i /tmp/walk.ncu-rep --page details >"$OUT/tree-walk-details.txt" &&
                "$1" -i /tmp/walk.ncu-rep --page source --csv --print-source sass >"$OUT/tree-walk-sass.csv"
                head -c 20000 "$OUT/tree-walk-details.txt"' _ "$ncu_bin" "$nbody" bench --kernels tree --scenario plummer \
                --bodies 1048576 --theta 1 --opening-alpha "$pa" --steps 3 --budget 60
        else
            echo "no ncu here" >>"$log"
        fi
        # The settings (tree_settings) at 1 M, GPU_CHECK_TREE_SETTINGS, and at 8.4 M, GPU_CHECK_TREE_SETTINGS_8M.
        local -a settings settings8
        read -r -a settings <<<"${GPU_CHECK_TREE_SETTINGS:-1:0.0015 2:0.0015 2:0.002}"
        read -r -a settings8 <<<"${GPU_CHECK_TREE_SETTINGS_8M:-}"
        tree_settings step "$nbody" 1048576 "${settings[@]}"
        tree_settings step "$nbody" 8388608 "${settings8[@]}"
        # The anchor at about the same p99 in the same call (Ryoanji θ 0.6: p99 8.0e-4 at 1 M).
        [[ -x $device/anchors/ryoanji/run.sh && -n ${GPU_CHECK_PROFILE_RYOANJI-0.6} ]] &&
            limit=400 step "ryoanji 1M (tree-profile)" "$device/anchors/ryoanji/run.sh" \
                --theta "${GPU_CHECK_PROFILE_RYOANJI-0.6}" 1048576
    fi

    # The figures the app's frame loop (remote-app, a call of its own) is compared with, for the
    # same systems: `blocked` on a 65 536-body Plummer sphere and `tree` on the 1 M galaxy collision.
    if want app-bench; then
        step "bench blocked 65536 (app comparison)" "$nbody" bench --kernels blocked --scenario plummer --bodies 65536 --steps 50
        step "bench tree 1048576 (app comparison)" "$nbody" bench --kernels tree --scenario galaxy-collision \
            --bodies 1048576 --steps 20
    fi

    # Two ranks sharing the one GPU (mpirun from $device/openmpi.tgz). `tiled` at
    # N = 65537 (no block multiple) for 100 steps: rank 0's CSV snapshot against one process's,
    # byte for byte (the CSV writer round-trips fp32); the same for validate's position errors;
    # then the exchange time of `blocked` at N = 1 M on 2 ranks next to 1 rank under mpirun
    # and the plain single process. The log also goes to $OUT/mpi.log.
    if want mpi; then
        # GPU_CHECK_MPI="KERNEL2 KERNEL3 N BENCH_N VALIDATE_N" replaces the kernels and sizes (a
        # rehearsal on a CPU machine: GPU_CHECK_MPI="cpu reference 1001 4097 1001").
        local mk2 mk3 mn mbench mval
        read -r mk2 mk3 mn mbench mval <<<"${GPU_CHECK_MPI:-tiled blocked 65537 1048576 8191}"
        if [[ -f $device/openmpi.tgz ]] && command -v mpirun >/dev/null; then
            local -a mpirun2=(mpirun --oversubscribe -np 2 --bind-to none)
            step "mpi version" bash -c 'set -e; mpirun --version | head -1; ldd "$1" | grep -e libmpi -e libopen-pal
                "$1" run --kernel cpu --bodies 10 --steps 1 --no-energy | tail -2 # alone: no MPI_Init' _ "$nbody"
            step "mpi run $mk2 2 ranks = 1 rank" bash -c 'set -e; d=$(mktemp -d); n=$1 k=$2 b=$3; shift 3
                args=(run --kernel "$k" --bodies "$b" --steps 100 --no-energy --no-tune)
                "$n" "${args[@]}" --output "$d/one.csv" | tail -3
                "$@" "$n" "${args[@]}" --output "$d/two.csv" >"$d/two.txt"
                grep -e "^MPI:" -e "force exchange" -e "time per step" "$d/two.txt"
                grep -q "^MPI:     2 processes" "$d/two.txt" # two ranks of one job, not two lone processes
                # The bodies (lines without #) must be the same bytes; the metadata may differ in the
                # launch lines (the ranks write the launch parameters rank 0 resolved and sent).
                diff <(grep "^#" "$d/one.csv") <(grep "^#" "$d/two.csv") || true
                cmp <(grep -v "^#" "$d/one.csv") <(grep -v "^#" "$d/two.csv") &&
                    echo "$k N=$b, 100 steps: 2 ranks on one GPU bit-identical to one process ($(grep -vc "^#" "$d/one.csv") lines of bodies)"' \
                _ "$nbody" "$mk2" "$mn" "${mpirun2[@]}"
            step "mpi run $mk3 3 ranks = 1 rank" bash -c 'set -e; d=$(mktemp -d); n=$1 k=$2 b=$3; shift 3
                args=(run --kernel "$k" --bodies "$b" --steps 20 --no-energy --no-tune)
                "$n" "${args[@]}" --output "$d/one.csv" | tail -1
                "$@" "$n" "${args[@]}" --output "$d/three.csv" >"$d/three.txt"
                grep -e "^MPI:" -e "force exchange" "$d/three.txt"
                grep -q "^MPI:     3 processes" "$d/three.txt"
                diff <(grep "^#" "$d/one.csv") <(grep "^#" "$d/three.csv") || true
                cmp <(grep -v "^#" "$d/one.csv") <(grep -v "^#" "$d/three.csv") &&
                    echo "$k N=$b, 20 steps: 3 ranks bit-identical to one process ($(grep -vc "^#" "$d/one.csv") lines of bodies)"' \
                _ "$nbody" "$mk3" "$mn" mpirun --oversubscribe -np 3 --bind-to none
            step "mpi validate 2 ranks" bash -c 'set -e; d=$(mktemp -d); n=$1 k=$2 b=$3; shift 3
                args=(validate --kernel "$k" --bodies "$b" --steps 100 --checkpoints 5 --quiet)
                "$n" "${args[@]}" --report "$d/one.json"
                "$@" "$n" "${args[@]}" --report "$d/two.json" | tee "$d/two.txt"
                grep -q "^MPI:     2 processes" "$d/two.txt"
                command -v python3 >/dev/null || { echo "no python3 here: compare the two tables above"; exit 0; }
                python3 - "$d/one.json" "$d/two.json" <<"PY"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for x, y in zip(a["kernels"], b["kernels"]):
    same = x["force0"] == y["force0"] and x["position"] == y["position"] and x["velocity"] == y["velocity"]
    print(x["id"], "force0 and position/velocity errors identical" if same else "DIFFER", x["verdict"], y["verdict"])
    assert same
PY' _ "$nbody" "$mk2,$mk3" "$mval" "${mpirun2[@]}"
            # The pipelined exchange (--exchange-chunks; docs/mpi.md): the bodies of 2 ranks in C = 4
            # chunks against one process (lines without #, as above), then the exchange time of C = 1
            # against auto (and 4) at N = 65537 and of `blocked` at N = 1 M, each summary in
            # $OUT/mpi-overlap-*.txt ("force exchange (rank 0): … in flight …, … waiting (… % hidden)").
            step "mpi run $mk2 2 ranks C=4 = 1 rank" bash -c 'set -e; d=$(mktemp -d); n=$1 k=$2 b=$3; shift 3
                args=(run --kernel "$k" --bodies "$b" --steps 100 --no-energy --no-tune)
                "$n" "${args[@]}" --output "$d/one.csv" | tail -1
                "$@" "$n" "${args[@]}" --exchange-chunks 4 --output "$d/two.csv" >"$d/two.txt"
                grep -e "^MPI:" -e "force exchange" -e "time per step" "$d/two.txt"
                grep -q "exchanges in 4 chunks" "$d/two.txt"
                cmp <(grep -v "^#" "$d/one.csv") <(grep -v "^#" "$d/two.csv") &&
                    echo "$k N=$b, 100 steps, 4 chunks: 2 ranks on one GPU bit-identical to one process"' \
                _ "$nbody" "$mk2" "$mn" "${mpirun2[@]}"
            for chunks in 1 0 4; do
                step "mpi overlap $mk2 $mn 2 ranks C=$chunks" bash -c 'set -o pipefail; o=$1; shift
                    "$@" | tee "$o" | grep -e "^MPI:" -e "^Params:" -e "force exchange" -e "time per step"' \
                    _ "$OUT/mpi-overlap-$mk2-$mn-C$chunks.txt" "${mpirun2[@]}" "$nbody" run --kernel "$mk2" \
                    --bodies "$mn" --steps 100 --no-energy --no-tune --exchange-chunks "$chunks"
            done
            for chunks in 1 0; do
                limit=600 step "mpi overlap $mk3 $mbench 2 ranks C=$chunks" bash -c 'set -o pipefail; o=$1; shift
                    "$@" | tee "$o" | grep -e "^MPI:" -e "^Params:" -e "force exchange" -e "time per step"' \
                    _ "$OUT/mpi-overlap-$mk3-$mbench-C$chunks.txt" "${mpirun2[@]}" "$nbody" run --kernel "$mk3" \
                    --bodies "$mbench" --steps 10 --no-energy --no-tune --exchange-chunks "$chunks"
            done
            limit=600 step "mpi bench $mk3 $mbench 2 ranks C=1" "${mpirun2[@]}" "$nbody" bench --kernels "$mk3" \
                --bodies "$mbench" --steps 5 --no-tune --exchange-chunks 1 --json "$OUT/bench-mpi-2-C1.json"
            # --no-tune: the same (default) launch parameters in the three runs, and no tuning at 1 M.
            step "mpi bench $mk3 $mbench 1 process" "$nbody" bench --kernels "$mk3" --bodies "$mbench" --steps 5 --no-tune
            limit=600 step "mpi bench $mk3 $mbench 1 rank" mpirun -np 1 --bind-to none "$nbody" bench --kernels "$mk3" \
                --bodies "$mbench" --steps 5 --no-tune --json "$OUT/bench-mpi-1.json"
            limit=600 step "mpi bench $mk3 $mbench 2 ranks" "${mpirun2[@]}" "$nbody" bench --kernels "$mk3" \
                --bodies "$mbench" --steps 5 --no-tune --json "$OUT/bench-mpi-2.json" --csv "$OUT/bench-mpi-2.csv"
            step "mpi bench $mk2,cpu $mn 2 ranks" "${mpirun2[@]}" "$nbody" bench --kernels "$mk2,cpu" \
                --bodies "$mn" --steps 5 --no-tune
            if [[ -x $device/bin/tst_mpi ]]; then
                step "mpi tst_mpi" "$device/bin/tst_mpi"
            fi
        else
            step "mpi (no $device/openmpi.tgz or mpirun: prepare carries it)" false
        fi
        awk '/^================ mpi/,/^================ [^m]/' "$log" >"$OUT/mpi.log" || true
    fi


    # The contact searches of the collision system (docs/contact-search.md). tst_contacts
    # alone (every CUDA row against cpu-pairs at N = 1 … 4097, the atomic list's overflow, more pairs
    # than memory holds), then memcheck, racecheck, synccheck and initcheck over its GPU rows at
    # N = 33 and 1000 (every system) and 4097 (the lattice and the clustered system: partial last
    # tiles), the overflow and the bad-input checks; not gpuTooManyPairs (4.5e10 pair tests, far too
    # slow under instrumentation). contacts-bench: `nbody bench --contacts` at the issue's sizes.
    if want contacts; then
        local tc=$device/bin/tst_contacts
        if [[ -x $tc ]]; then
            step "contacts tst_contacts" "$tc"
            if command -v compute-sanitizer >/dev/null; then
                local -a crows=()
                mapfile -t crows < <("$tc" -datatags |
                    sed -n 's/^TestContacts gpuMatchesCpu \(.* N=\(33\|1000\)\)$/gpuMatchesCpu:\1/p;
                            s/^TestContacts gpuMatchesCpu \(.* \(lattice\|clustered\) N=4097\)$/gpuMatchesCpu:\1/p')
                crows+=(gpuAtomicOverflow badInput)
                echo "   contacts sanitizer rows: ${#crows[@]}"
                local ctool
                for ctool in ${GPU_CHECK_TOOLS:-memcheck racecheck synccheck initcheck}; do
                    limit=600 step "$ctool contacts" compute-sanitizer --tool "$ctool" --error-exitcode 1 "$tc" "${crows[@]}"
                done
            else
                step "compute-sanitizer (not found)" false
            fi
        else
            step "contacts (no $tc: run prepare)" false
        fi
    fi
    if want contacts-bench; then
        limit=600 step "nbody bench --contacts" "$nbody" bench --contacts --bodies 65536,1048576 --steps 10 \
            --json "$OUT/bench-contacts.json" --csv "$OUT/bench-contacts.csv"
    fi
    # The recorded collision: two Plummer clusters of 32768 bodies each merging on the GPU
    # (`tiled`, the CUDA contact search auto picks), a picture near the end for the README and the
    # diagnostics with the energy lost to merges ($OUT/clusters.png, $OUT/clusters.csv).
    if want clusters; then
        limit=400 step "nbody run cluster-collision" "$nbody" run --scenario cluster-collision --bodies 65536 \
            --kernel tiled --steps 2000 --progress-every 250 --capture "$OUT/clusters.png" \
            --diagnostics "$OUT/clusters.csv" --diagnostics-every 50
        # The capture after merges with CUDA-GL interop came out black (2026-12-01): the same run
        # with interop and with host uploads (NBODY_FORCE_INTEROP_FAILURE=register).
        step "nbody run cluster-collision 8191 capture" "$nbody" run --scenario cluster-collision --bodies 8191 \
            --kernel tiled --steps 400 --progress-every 200 --capture "$OUT/c-interop.png"
        step "nbody run cluster-collision 8191 capture host" env NBODY_FORCE_INTEROP_FAILURE=register "$nbody" run \
            --scenario cluster-collision --bodies 8191 --kernel tiled --steps 400 --progress-every 200 \
            --capture "$OUT/c-host.png"
        step "nbody run cluster-collision cpu-cells" "$nbody" run --scenario cluster-collision --bodies 8191 \
            --kernel tiled --contact-search cpu-cells --steps 1500 --progress-every 500
        step "nbody run cluster-collision cuda-cells" "$nbody" run --scenario cluster-collision --bodies 8191 \
            --kernel tiled --contact-search cuda-cells --steps 1500 --progress-every 500
    fi
    if want contacts || want contacts-bench; then
        awk '/^================ (contacts|memcheck contacts|racecheck contacts|synccheck contacts|initcheck contacts|nbody bench --contacts)/ {p = 1; print; next}
             /^================ / {p = 0} p' "$log" >"$OUT/contacts.log" || true
    fi

    if want after-faults && [[ -f $device/cc400.csv ]]; then
        step "after-faults tst_cli gpuFaultInRun" "$device/bin/tst_cli" gpuFaultInRun
        capture_merged after-faults
    fi

    # Summary, on the screen and at the end of the log.
    local i failed=0
    for i in "${!results[@]}"; do
        [[ ${results[$i]} == PASS || ${results[$i]} == "PASS (no CUDA call)" ]] || failed=$((failed + 1))
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

# remote-app: the app itself on the GPU machine, in a real window on Xvfb with NVIDIA's GLX,
# from .device-app/app.txz (prepare-app): glxinfo on the display (the renderer must be the GPU),
# the frame loop's ms per step with `blocked` at N = 65 536 and `tree` at N = 1 048 576 against
# `nbody bench` of the same build in the same call, that the kernels write the drawn buffers
# (the app's summary line must say "positions: CUDA-GL interop"; a silent fall-back to host
# uploads fails the step) and window captures at ratios 1 and 2 ($OUT/app-*.png); or, from
# GPU_CHECK_APP_ARCH=80 prepare-app, the sm_80 app's fall-back to `cpu` and its refusal of
# `--kernel blocked`. Log: $OUT/gpu-check-app.log.
remote_app() {
    : "${OUT:?gpu-check remote-app: set OUT to the folder that comes back}"
    local root=/tmp/appdev log=$OUT/gpu-check-app.log failed=0
    rm -rf "$root"
    mkdir -p "$root"
    unpack_txz .device-app/app.txz "$root"
    local f
    for f in "$root"/gl/*.deb; do dpkg -x "$f" /; done
    # Xvfb loads its DRI driver, and runs xkbcomp, from the paths it was built with.
    mkdir -p /usr/lib/x86_64-linux-gnu/dri
    cp "$root/dri/swrast_dri.so" /usr/lib/x86_64-linux-gnu/dri/
    [[ -x /usr/bin/xkbcomp ]] || cp "$root/bin/xkbcomp" /usr/bin/
    ldconfig
    export LD_LIBRARY_PATH=$root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} QT_PLUGIN_PATH=$root/plugins QT_QPA_PLATFORM=xcb
    export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
    # The window's GL is NVIDIA's (the server's own GL, for its visuals, is Mesa's: prepare_app).
    export __GLX_VENDOR_LIBRARY_NAME=nvidia XDG_RUNTIME_DIR=/tmp/appdev-run
    mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
    printf '<?xml version="1.0"?>\n<fontconfig><dir>%s/fonts</dir><cachedir>%s/fc</cachedir></fontconfig>\n' \
        "$root" "$root" >"$root/fonts.conf"
    export FONTCONFIG_FILE=$root/fonts.conf
    : >"$log"
    local limit=${GPU_CHECK_TIMEOUT:-240}
    run_step() { # run_step NAME COMMAND...: PASS/FAIL line, output in the log (a shell function may be the command)
        local name=$1 rc=0
        shift
        echo "================ $name" >>"$log"
        echo "\$ $*" >>"$log"
        "$@" >>"$log" 2>&1 || rc=$?
        if ((rc == 0)); then echo "$name: PASS" | tee -a "$log"; else echo "$name: FAIL (exit $rc)" | tee -a "$log"; failed=$((failed + 1)); fi
    }
    local app=$root/bin/nbody-sandbox nbody=$root/bin/nbody display screen
    pkill -f 'Xvfb :7[78] ' 2>/dev/null || true
    sleep 1
    rm -f /tmp/.X77-lock /tmp/.X78-lock /tmp/.X11-unix/X77 /tmp/.X11-unix/X78
    for scale in 1 2; do
        display=$((76 + scale))
        if ((scale == 1)); then screen=1366x768x24; else screen=2732x1536x24; fi
        "$root/bin/Xvfb" ":$display" -screen 0 "$screen" -xkbdir "$root/xkb" \
            -nolisten tcp +extension GLX \
            >"$OUT/xvfb-$scale.log" 2>&1 &
    done
    sleep 3
    export DISPLAY=:77
    run_step "nvidia-smi" nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
    # The display's GL must be the GPU's (direct rendering, NVIDIA's renderer string).
    glx_is_gpu() {
        timeout 60 "$root/bin/glxinfo" -B | tee /tmp/glxinfo.txt
        grep -q "direct rendering: Yes" /tmp/glxinfo.txt && grep -q "OpenGL vendor string: NVIDIA" /tmp/glxinfo.txt
    }
    run_step "glxinfo: the window's GL is the GPU's" glx_is_gpu
    run_sm90_steps() { # the sm_90 app (prepare-app's default)
        run_step "app --version" "$app" --version
        # The frame loop at one step per frame; the summary line names the kernel, ms per step and
        # how the positions reached the view.
        interop_run() { # interop_run TAG ARGS...: the app's run, which must draw through interop
            local tag=$1
            shift
            timeout --kill-after=10 "$limit" "$app" "$@" --quit --window-capture "$OUT/app-$tag.png" 2>&1 | tee "/tmp/app-$tag.txt"
            grep -q "positions: CUDA-GL interop" "/tmp/app-$tag.txt"
        }
        run_step "app blocked 65536 (interop)" interop_run blocked-65536 --scenario plummer --kernel blocked --bodies 65536 --steps 300
        run_step "bench blocked 65536" timeout "$limit" "$nbody" bench --kernels blocked --scenario plummer --bodies 65536 --steps 50
        run_step "app tree 1048576 (interop)" interop_run tree-1M --scenario galaxy-collision --kernel tree --bodies 1048576 --steps 100
        run_step "bench tree 1048576" timeout "$limit" "$nbody" bench --kernels tree --scenario galaxy-collision --bodies 1048576 --steps 20
        run_step "app default start (interop)" interop_run default --steps 200
        DISPLAY=:78 QT_SCALE_FACTOR=2 run_step "app ratio 2 (interop)" interop_run ratio2 --scenario galaxy-collision \
            --kernel blocked --bodies 65536 --steps 100
    }
    # GPU_CHECK_APP_STEPS=0: not the app's own steps (only the tree settings below, for a short call).
    if [[ -x $app && ${GPU_CHECK_APP_STEPS:-1} != 0 ]]; then run_sm90_steps; fi
    # After the app: the tree at each "THETA:ALPHA" of GPU_CHECK_APP_TREE (θ the relative criterion's
    # guard): `nbody bench` at 1 M (and at 8.4 M for those of GPU_CHECK_APP_TREE_8M) and the sampled
    # step-0 error there (32 768 bodies against all N in fp64), Nsight Compute's time of every tree
    # kernel for the first setting, and Ryoanji at 1 M in the same call; then block time steps with
    # the tree and blocked (their level buffers are checked against the free memory first).
    local -a settings settings8
    read -r -a settings <<<"${GPU_CHECK_APP_TREE:-}"
    read -r -a settings8 <<<"${GPU_CHECK_APP_TREE_8M:-}"
    if ((${#settings[@]} + ${#settings8[@]} > 0)); then
        tree_settings run_step "$nbody" 1048576 "${settings[@]}"
        tree_settings run_step "$nbody" 8388608 "${settings8[@]}"
        local ncu_bin
        ncu_bin=$(ncu_path)
        [[ -n $ncu_bin && ${#settings[@]} -gt 0 ]] && tree_kernel_times run_step "$ncu_bin" "$nbody" "${settings[0]}"
        if [[ -f .device-app/ryoanji.txz ]]; then
            unpack_txz .device-app/ryoanji.txz "$root"
            run_step "ryoanji 1M" timeout 400 "$root/ryoanji/run.sh" --theta "${GPU_CHECK_APP_RYOANJI:-0.6}" 1048576
        fi
    fi
    run_step "tree 1048576 --timestep block" timeout "$limit" "$nbody" run --scenario galaxy-collision --bodies 1048576 \
        --kernel tree --timestep block --dt 0.125 --steps 4 --no-energy
    run_step "blocked 65537 --timestep block" timeout "$limit" "$nbody" run --scenario plummer --bodies 65537 \
        --kernel blocked --timestep block --dt 0.0625 --steps 8
    # The sm_80 build: the start system on `cpu`, with a note that the GPU has no code in it.
    sm80_start() {
        timeout --kill-after=10 "$limit" "$root/bin/nbody-sandbox-sm80" --steps 20 --quit \
            --window-capture "$OUT/app-sm80.png" 2>&1 | tee /tmp/app-sm80.txt
        grep -q "^nbody-sandbox: cpu," /tmp/app-sm80.txt &&
            grep -q "The CUDA kernels cannot run on this GPU: built for sm_80" /tmp/app-sm80.txt
    }
    sm80_refused() {
        local rc=0
        timeout "$limit" "$root/bin/nbody-sandbox-sm80" --kernel blocked --steps 5 --quit >/tmp/app-sm80-b.txt 2>&1 || rc=$?
        cat /tmp/app-sm80-b.txt
        echo "exit $rc"
        ((rc == 2)) && grep -q "built for sm_80; this GPU is sm_90" /tmp/app-sm80-b.txt
    }
    if [[ -x $root/bin/nbody-sandbox-sm80 ]]; then
        run_step "app sm_80 build: start falls back to cpu" sm80_start
        run_step "app sm_80 build: --kernel blocked refused" sm80_refused
    else
        echo "app sm_80 build: not carried (GPU_CHECK_APP_ARCH=80 prepare-app carries it)" | tee -a "$log"
    fi
    grep -h "^nbody-sandbox:" /tmp/app-*.txt | tee -a "$log"
    echo "$failed steps failed" | tee -a "$log"
    pkill -f 'Xvfb :7[78] ' 2>/dev/null || true
    ((failed == 0))
}

case ${1:-} in
    prepare) prepare ;;
    prepare-app) prepare_app ;;
    remote-app) remote_app ;;
    prepare-mpi) mkdir -p "$device" && prepare_mpi ;;
    remote) remote ;;
    -h | --help) usage ;;
    *) usage >&2; exit 2 ;;
esac
