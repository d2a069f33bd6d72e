#!/usr/bin/env bash
# Sweeps the launch parameters of the `blocked` kernels with `nbody bench` and prints one line
# per case: the parameters asked for, then bench's row (N, force ms, step ms, interactions/s, …,
# and the parameters as resolved). A measuring aid for docs/performance.md; the tuner
# (nbody tune) makes the same kind of measurement per device and N automatically; the sweep
# passes --no-tune so that parameters left on auto take the row's defaults, not a cached choice.
#
#   scripts/sweep-launch.sh NBODY [KERNEL]      e.g. scripts/sweep-launch.sh .device/bin/nbody blocked
# KERNEL blocked-fp64 sweeps block, bodies per thread and unroll at N = 65536 and 262144.
set -uo pipefail
nbody=${1:?usage: sweep-launch.sh NBODY [KERNEL]}
kernel=${2:-blocked}

run() { # run LABEL N BENCH-OPTIONS...
    local label=$1 n=$2
    shift 2
    "$nbody" bench --kernels "$kernel" --bodies "$n" --steps 5 --warmup 1 --no-tune "$@" 2>/dev/null |
        awk -v tag="$label" -v k="$kernel" '$1 == k { print tag, $0 }'
}

if [[ $kernel == *fp64 ]]; then
    for n in 65536 262144; do
        for b in 64 128 256; do
            for r in 1 2 4; do
                for u in 2 4 8; do
                    run "b$b r$r u$u split-auto" "$n" --block-size "$b" --bodies-per-thread "$r" --unroll "$u"
                done
            done
        done
    done
    exit 0
fi
for n in 8192 16384 65536 262144; do
    for b in 64 128 256; do
        for r in 2 4 8; do
            for u in 4 8; do
                run "b$b r$r u$u split-auto" "$n" --block-size "$b" --bodies-per-thread "$r" --unroll "$u"
            done
        done
    done
done
for n in 8192 16384 65536; do
    for s in 1 2 4 8 16 24 32 48 64 96 128; do
        run "defaults split $s" "$n" --j-split "$s"
    done
done
