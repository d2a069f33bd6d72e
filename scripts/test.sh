#!/usr/bin/env bash
# Installs the dependencies, builds with the tests and runs them; with --full also, as CI does,
# the suite again under AddressSanitizer and UndefinedBehaviorSanitizer, the readers' fuzzers and
# the Debian package.
#
#   scripts/test.sh [--full] [CTEST OPTIONS...]   e.g. scripts/test.sh -R tipsy, scripts/test.sh -L gui
#   scripts/test.sh --help                        this text (nothing is installed or built)
#
# Stages (NBODY_TEST_STAGES, a space-separated subset; default "normal", with --full
# "normal asan fuzz package"):
#   normal  build/ (CUDA when nvcc is found) and ctest; tests labelled gpu skip without a device.
#           This is what a user needs to know that a build works.
#   asan    build-asan/: CPU-only, gcc with -fsanitize=address,undefined (every report fatal),
#           the same ctest, leak checks on for every suite (the leak policy is explained at the
#           stage below); checks that cannot run under ASan (address-space limits) skip there
#           (tests/Sanitizers.h)
#   fuzz    build-fuzz/: CPU-only, clang with -fsanitize=fuzzer,address,undefined; each reader's
#           fuzzer (tests/fuzz) runs NBODY_FUZZ_SECONDS (default 60) from its seed corpus
#   package scripts/package-check.sh builds the Debian package (from build/ when the normal stage
#           ran, else in a CPU-only build-package/), runs lintian, installs it into /usr (as root
#           or through sudo), runs and checks what it installed, and removes it
# CTEST OPTIONS go to both ctest runs. Without a display (DISPLAY and WAYLAND_DISPLAY unset) the
# ctest runs happen under a virtual X server (xvfb-run), so the GUI tests have one.
# NBODY_TEST_JOBS=N runs N tests at a time (default: one per processor in the normal stage, one
# in the ASan/UBSan stage, whose suites each need several times the memory and time). Every stage runs even when an earlier one
# failed; a summary line per stage ends the output. Exits 0 when every stage passed, else 1.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# -h / --help: the comment above, and nothing installed or built.
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
    exit 0
fi

default_stages=normal
if [[ ${1:-} == --full ]]; then
    default_stages="normal asan fuzz package"
    shift
fi
stages=${NBODY_TEST_STAGES:-$default_stages}
fuzz_seconds=${NBODY_FUZZ_SECONDS:-60}
jobs=$(nproc)
summary=()
failed=0
t_all=$SECONDS

note() { # note STATUS TEXT: one summary line (printed now and again at the end)
    summary+=("test.sh: $2")
    echo "test.sh: $2"
    [[ $1 == ok ]] || failed=1
}

# The packages of the stages chosen: clang, its runtimes and llvm-symbolizer, and the package
# checkers, only for the sanitizer, fuzzing and package stages.
if [[ " $stages " == *" fuzz "* || " $stages " == *" asan "* || " $stages " == *" package "* ]]; then
    scripts/deps.sh full
else
    scripts/deps.sh test
fi

# ccache as build.sh (the normal stage's build) uses it, for the stages that configure their own
# build directories.
# shellcheck source=scripts/ccache.sh
source scripts/ccache.sh
launcher=("${ccache_launcher[@]}")

run_ctest() { # run_ctest JOBS BUILD_DIR [ctest options...]
    local jobs=$1 dir=$2
    shift 2
    local cmd=(ctest --test-dir "$dir" --output-on-failure -j "$jobs" "$@")
    if [[ -n ${DISPLAY:-} || -n ${WAYLAND_DISPLAY:-} ]]; then
        "${cmd[@]}"
    else
        # A screen large enough for the main window's default 1280 x 820 also at a device pixel
        # ratio of 2 (tst_gui hiDpiCapture); on a smaller screen the app opens smaller.
        xvfb-run -a -s "-screen 0 2880x1800x24" "${cmd[@]}"
    fi
}

# ctest's last "N% tests passed, F tests failed out of T" line, from a log.
ctest_result() { grep -E 'tests passed, [0-9]+ tests? failed out of' "$1" | tail -n 1 || echo "no ctest result"; }

if [[ -z ${DISPLAY:-} && -z ${WAYLAND_DISPLAY:-} ]]; then
    echo "test.sh: no display: running the tests under xvfb-run"
fi

# ---- normal suite ------------------------------------------------------------------------------
# CUDA architectures of the test build (NBODY_TEST_CUDA_ARCHITECTURES overrides): with a GPU here
# (nvidia-smi lists one), "auto", i.e. machine code for that GPU; without one, where no CUDA
# kernel can run, sm_75 machine code only: the oldest architecture of the default list, so the
# kernels are still compiled and checked against the features every supported GPU has, in an
# eighth of the default build's CUDA time (docs/tests.md).
test_archs=${NBODY_TEST_CUDA_ARCHITECTURES:-75-real}
if [[ -z ${NBODY_TEST_CUDA_ARCHITECTURES:-} ]] && command -v nvidia-smi >/dev/null &&
    nvidia-smi --query-gpu=compute_cap --format=csv,noheader >/dev/null 2>&1; then
    test_archs=auto
fi
if [[ " $stages " == *" normal "* ]]; then
    t=$SECONDS
    log=$(mktemp)
    if scripts/build.sh --tests "-DNBODY_CUDA_ARCHITECTURES=$test_archs" &&
        run_ctest "${NBODY_TEST_JOBS:-$jobs}" build "$@" 2>&1 | tee "$log"; then
        note ok "normal suite: passed: $(ctest_result "$log") ($((SECONDS - t)) s)"
    else
        note fail "normal suite: FAILED: $(ctest_result "$log") ($((SECONDS - t)) s)"
    fi
    rm -f "$log"
fi

# ---- the CPU suite under AddressSanitizer and UndefinedBehaviorSanitizer -----------------------
# What to print when the stage fails: each failed suite, the first sanitizer report, what to try.
asan_failure_help() { # asan_failure_help LOG
    local log=$1 failed_suites
    failed_suites=$(sed -n '/The following tests FAILED:/,/^$/p' "$log" | grep -oE 'tst_[A-Za-z0-9_]+' | sort -u | tr '\n' ' ')
    echo "test.sh: ---- the ASan/UBSan stage failed ----"
    echo "test.sh: failed suites: ${failed_suites:-none listed (the build failed? see above)}"
    if grep -qE '^(==[0-9]+==ERROR|.*runtime error:)' "$log"; then
        echo "test.sh: the first report:"
        awk '/==[0-9]+==ERROR|runtime error:/ {on = 1} on {print "    " $0; if (++n == 14) exit}' "$log"
    fi
    cat <<EOT
test.sh: what to try:
  - rerun one suite alone: NBODY_TEST_STAGES=asan NBODY_ASAN_TESTS=<suite> scripts/test.sh
    (or the program itself, build-asan/tests/<suite>, with the ASAN_OPTIONS and LD_PRELOAD
    that this stage prints at its start)
  - a leak whose stack lies in a system library (no frame in src/, kernels/ or tests/): name the
    library in tests/sanitizers/lsan.supp, with the reason, and report it with the machine's
    EGL vendor and Mesa version (eglinfo -B)
  - a report in our code is a bug: the stack names the file and line
  - the stage is for developers and CI: NBODY_TEST_STAGES=normal scripts/test.sh runs the suite
    without it
EOT
}

if [[ " $stages " == *" asan "* ]]; then
    t=$SECONDS
    log=$(mktemp)
    supp=$PWD/tests/sanitizers/lsan.supp
    # Leak policy, the same for every suite, the GL and GUI ones included: leak checks on, with
    # every module kept loaded until exit. LeakSanitizer runs after exit() has unloaded what was
    # loaded with dlopen(): the EGL/OpenGL driver (which one depends on the machine: Mesa's
    # llvmpipe through the device, surfaceless or X11 platform, NVIDIA's), Qt's plugins, Open
    # MPI's components. Memory that such a module still points at from its globals is then
    # reported as leaked, from "<unknown module>", which no suppression can name; it is not a
    # leak. tests/sanitizers/keep_modules.c, preloaded, makes dlclose() keep the module, so that
    # memory stays reachable and a real leak in a library is reported with its name (and, where
    # it is a system library's, suppressed by name in tests/sanitizers/lsan.supp). Our code is
    # never suppressed. verify_asan_link_order=0: the preloaded module comes before ASan's runtime.
    keep=$PWD/build-asan/libnbody_keep_modules.so
    # halt_on_error/abort_on_error: the first report fails the test (UBSan's reports are already
    # fatal: -fno-sanitize-recover=all); detect_leaks: LeakSanitizer at exit, with suppressions.
    # (No strict_string_checks: libxkbcommon-x11 strndup()s buffers that are not NUL-terminated.)
    export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=1:detect_stack_use_after_return=0:verify_asan_link_order=0
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    export LSAN_OPTIONS=suppressions=$supp:print_suppressions=0
    # The suites run under the sanitizers (NBODY_ASAN_TESTS overrides; "all" is every suite ctest
    # lists): every suite but the GPU-only ones, each seen clean: the core's (the interaction,
    # integrators, reference, kernels, tree, contact searches, collisions, validation, tuner,
    # benchmark, readers and writers, scenarios, edits, sandbox, diagnostics' GPU part, machine
    # info), the CLI's, the plot suites, the GL ones (tst_headless, tst_capture,
    # tst_interop_steps), the app's frame loop (tst_controller, tst_gpu_faults), the app's GUI
    # suites and tst_mpi. tests/sanitizers/lsan.supp lists the leaks suppressed, by library.
    asan_tests=${NBODY_ASAN_TESTS:-tst_interaction tst_integrator tst_reference tst_kernels tst_golden tst_edits tst_collisions tst_benchmark tst_tuner tst_tipsy tst_snapshot tst_gpu_diagnostics tst_machine_info tst_integrators tst_scenarios tst_validation tst_tree tst_contacts tst_sandbox tst_cli tst_diagnostics tst_bench_plot tst_validation_report tst_headless tst_capture tst_interop_steps tst_controller tst_gpu_faults tst_autosave tst_gui tst_kernel_dock tst_dock_text tst_device_dock tst_diagnostics_dock tst_validation_dock tst_shortcuts tst_sandbox_gui tst_mpi}
    asan_targets=$asan_tests
    asan_regex="^($(tr ' ' '|' <<<"$asan_tests"))\$"
    if [[ $asan_tests == all ]]; then
        asan_targets=all
        asan_regex=.
    fi
    # Suites run without leak checks (memory errors and UB still fatal; NBODY_ASAN_NOLEAK_TESTS
    # overrides, e.g. for a machine whose libraries leak in a way lsan.supp does not cover yet):
    # tst_mpi alone. With the modules kept, each rank's leaks are about 9.7 kB in 19 allocations,
    # all Open MPI's own (MPI_Init's argv copies, PMIx values, component names), but some are made
    # through libc's asprintf, out of which the fast unwinder cannot walk, so their stacks end in
    # libc and no suppression by library can name them; the full unwinder
    # (fast_unwind_on_malloc=0) names them, and makes the ranks' EGL renders so slow that they
    # time out.
    asan_noleak=()
    for x in ${NBODY_ASAN_NOLEAK_TESTS-tst_mpi}; do
        [[ $asan_tests == all || " $asan_tests " == *" $x "* ]] && asan_noleak+=("$x")
    done
    noleak_regex="^($(IFS='|'; echo "${asan_noleak[*]:-none}"))\$"
    echo "test.sh: ASan/UBSan stage: ASAN_OPTIONS=$ASAN_OPTIONS LSAN_OPTIONS=$LSAN_OPTIONS LD_PRELOAD=$keep"
    # -O1 -g1 (line tables): what ASan's documentation suggests, and the reports keep file and
    # line; it compiles about 40 % faster than RelWithDebInfo's -O2 -g.
    # shellcheck disable=SC2086 # one target per word
    if cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNBODY_ENABLE_CUDA=OFF \
            "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
            -DNBODY_BUILD_TESTS=ON "-DNBODY_SANITIZE=address;undefined" "${launcher[@]}" >/dev/null &&
        cmake --build build-asan -j "$jobs" --target $asan_targets &&
        cc -shared -fPIC -O1 -o "$keep" tests/sanitizers/keep_modules.c &&
        LD_PRELOAD=$keep${LD_PRELOAD:+:$LD_PRELOAD} run_ctest "${NBODY_TEST_JOBS:-1}" build-asan -R "$asan_regex" -E "$noleak_regex" "$@" 2>&1 | tee "$log" &&
        { ((${#asan_noleak[@]} == 0)) ||
            ASAN_OPTIONS=${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0} LD_PRELOAD=$keep${LD_PRELOAD:+:$LD_PRELOAD} \
                run_ctest "${NBODY_TEST_JOBS:-1}" build-asan -R "$noleak_regex" "$@" 2>&1 | tee -a "$log"; }; then
        note ok "ASan/UBSan suite: passed (leak checks on${asan_noleak[*]:+, off for ${asan_noleak[*]}}): $(grep -E 'tests passed' "$log" | tr '\n' ' ')($((SECONDS - t)) s)"
    else
        asan_failure_help "$log"
        note fail "ASan/UBSan suite: FAILED: $(grep -E 'tests passed' "$log" | tr '\n' ' ') ($((SECONDS - t)) s)"
    fi
    unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
    rm -f "$log"
fi

# ---- fuzzers -----------------------------------------------------------------------------------
# Limits, from what the largest input can justify (tests/fuzz/README.md): inputs of at most
# 64 KiB (-max_len); one allocation of at most 160 MB (-malloc_limit_mb: an HDF5 dataset
# compressed 1032:1, deflate's limit, read as doubles: 64 KiB x 1032 x 2 = 135 MB; every other
# reader needs below 1 MB for 64 KiB); 2 GB resident (-rss_limit_mb: ASan's shadow and its
# 256 MB quarantine, plus that allocation); 10 s per input (-timeout).
if [[ " $stages " == *" fuzz "* ]]; then
    t=$SECONDS
    if cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
            -DNBODY_ENABLE_CUDA=OFF -DNBODY_BUILD_APP=OFF -DNBODY_BUILD_TESTS=OFF -DNBODY_BUILD_PLOT=OFF \
            -DNBODY_BUILD_FUZZERS=ON "${launcher[@]}" >/dev/null &&
        cmake --build build-fuzz -j "$jobs" --target fuzz_tipsy fuzz_csv fuzz_hdf5 fuzz_scenario; then
        note ok "fuzzers built ($((SECONDS - t)) s)"
        # tests/fuzz/asan.supp and lsan.supp: HDF5's own bugs on damaged files, by library
        export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=1:suppressions=$PWD/tests/fuzz/asan.supp
        export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
        export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0
        # NBODY_FUZZ_READERS (default all four) picks readers. fuzz_hdf5 reads each input as the
        # app does, in the reader's child process (sim/io/ReaderProcess.h): libhdf5 1.10.8 itself
        # crashes on some damaged files within seconds (a NULL from an absurd malloc in H5C_protect,
        # then a memcpy into it from H5F__accum_read), which the child takes and the reader reports;
        # then here, in-process, for the coverage (tests/fuzz/README.md).
        for reader in ${NBODY_FUZZ_READERS:-tipsy csv hdf5 scenario}; do
            work=build-fuzz/corpus/$reader # new inputs go here; the committed seeds stay as they are
            art=build-fuzz/artifacts
            mkdir -p "$work" "$art"
            log=build-fuzz/fuzz_$reader.log
            # HDF5: libhdf5 itself asks malloc for absurd sizes on some damaged files (0xd46444889000058
            # bytes from H5C_protect); malloc returns NULL there as it does outside the fuzzer, and the
            # library reports an error that our reader turns into a FormatError. (Our own code's
            # allocations stay bounded by -malloc_limit_mb.)
            opts=$ASAN_OPTIONS
            [[ $reader == hdf5 ]] && opts=$ASAN_OPTIONS:allocator_may_return_null=1
            # A fixed seed (NBODY_FUZZ_SEED, default 1): CI explores the same inputs every time, a
            # slower machine a prefix of them, so a failure is reproducible and not luck.
            t=$SECONDS
            if ASAN_OPTIONS=$opts build-fuzz/tests/fuzz/fuzz_$reader -max_total_time="$fuzz_seconds" -max_len=65536 \
                    -malloc_limit_mb=160 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
                    -seed="${NBODY_FUZZ_SEED:-1}" \
                    -artifact_prefix="$art/$reader-" "$work" "tests/fuzz/corpus/$reader" >"$log" 2>&1; then
                runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
                # fuzz_hdf5 also says how many inputs crashed libhdf5 in the reader's child process.
                isolated=$(grep -m1 -oE "[0-9]+ crashed libhdf5 in the reader's child process, [0-9]+ ran past its time limit" "$log" || true)
                note ok "fuzz_$reader: $runs executions in $((SECONDS - t)) s, $(ls "$work" | wc -l) new corpus files: no crash, leak or excess allocation${isolated:+ ($isolated)}"
            else
                tail -n 60 "$log"
                note fail "fuzz_$reader: FAILED after $((SECONDS - t)) s: $(grep -m1 -E '==ERROR|SUMMARY|out-of-memory|deadly signal|timeout' "$log" || echo 'see the log') (log $log, input in $art/)"
            fi
        done
        unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
    else
        note fail "fuzzers: build FAILED ($((SECONDS - t)) s)"
    fi
fi

# ---- the Debian package ------------------------------------------------------------------------
# package-check.sh ends with "package-check: passed|FAILED: N checks, F failed (T s)"; the summary
# line adds lintian's counts, the names of the checks that failed and what was skipped.
if [[ " $stages " == *" package "* ]]; then
    t=$SECONDS
    log=$(mktemp)
    # From the normal stage's build/ when that stage ran (its programs are compiled already, with
    # the CUDA kernels where nvcc is found); else a CPU-only build-package/.
    package_dir=build-package
    [[ " $stages " == *" normal "* && -f build/CMakeCache.txt ]] && package_dir=build
    scripts/package-check.sh "$package_dir" 2>&1 | tee "$log" && ok=ok || ok=fail
    result=$(grep -E '^package-check: (passed|FAILED): ' "$log" | tail -n 1 | sed -E 's/^package-check: [A-Za-z]+: //; s/ \([0-9]+ s\)$//' || true)
    lint=$(grep -m1 -oE '^package-check: lintian: [a-zA-Z]+: .*' "$log" | sed -E 's/^package-check: lintian: [a-zA-Z]+: /lintian /' || true)
    failed_checks=$(grep -E '^package-check: [^:]+: FAILED' "$log" | cut -d: -f2 | sed 's/^ //' | paste -sd, - | sed 's/,/, /g' || true)
    skipped=$(grep -E '^package-check: [^:]+: SKIPPED' "$log" | cut -d: -f2 | sed 's/^ //' | paste -sd, - | sed 's/,/, /g' || true)
    details="${result:-no result}${lint:+, $lint}${failed_checks:+; failed: $failed_checks}${skipped:+; skipped: $skipped}"
    if [[ $ok == ok ]]; then
        note ok "package: passed: $details ($((SECONDS - t)) s)"
    else
        note fail "package: FAILED: $details ($((SECONDS - t)) s)"
    fi
    rm -f "$log"
fi

echo
echo "test.sh: ---- summary ----"
printf '%s\n' "${summary[@]}"
echo "test.sh: all stages: $((SECONDS - t_all)) s"
exit "$failed"
