#!/usr/bin/env bash
# Robustness harness for `nbody`: hostile inputs and process limits, each outcome checked.
#
#   scripts/robustness.sh [--kills K] [--damaged M] [--seed S] [--quick] [--only LIST] [--keep] [NBODY]
#
# NBODY is a built `nbody` (default: build/src/cli/nbody of this repository; its HDF5 reading
# helper nbody-read-hdf5 is found beside it or in the build tree). The harness makes its own
# inputs (python3 for the binary ones; no network), works in a temporary directory that it
# removes (--keep keeps it and prints its path), and prints one line per check
# (PASS / FAIL / SKIP with the reason) and a summary of counts. Exit status 0 only when no
# check failed.
#
#   --kills K     kill -9 a writing `nbody run` K times at random moments (default 120)
#   --damaged M   damaged copies of an HDF5 snapshot (default 300; Tipsy and CSV M/3 each)
#   --seed S      seed of the random delays and damages (default 1)
#   --quick       K = 24, M = 60 and no successful 1 000 000-body run under `ulimit -v`
#   --only LIST   run these sections only (comma-separated): writers, tmpfs, kills, damaged,
#                 variants, memory, restart, cases
#
# Sections: every writer (.csv, .h5, .bin snapshots, --diagnostics, --capture, bench --json and
# --csv, validate --report) under `ulimit -f` and, as root where `mount -t tmpfs` works, on a
# 64 KiB tmpfs (a clean message, exit 1, the previous file untouched, no temporary file left);
# kill -9 during writes (the destination is the old file or the complete new one, read back by
# nbody); damaged HDF5, Tipsy and CSV files (refused with a message naming the file, or read; the
# main process never killed by a signal); foreign but valid layouts (BOM, CRLF, CR, quoted CSV;
# little- and big-endian, double-precision Tipsy) read to the same bodies; huge header counts;
# `ulimit -v` for tree-cpu and cpu at 1 000 000 bodies; an exact restart; and seven cases that
# once failed (docs/tests.md, "Robustness harness"), printed with what they print now.
# Not part of ctest: it takes about 3 to 5 minutes on 2 cores.
set -uo pipefail

kills=120
damaged=300
seed=1
quick=0
keep=0
nbody_arg=
only=,writers,tmpfs,kills,damaged,variants,memory,restart,cases,
while (($#)); do
    case $1 in
    --kills) kills=$2; shift 2 ;;
    --damaged) damaged=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --quick) quick=1; kills=24; damaged=60; shift ;;
    --only) only=,$2,; shift 2 ;;
    --keep) keep=1; shift ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "robustness.sh: unknown option $1" >&2; exit 2 ;;
    *) nbody_arg=$1; shift ;;
    esac
done

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NBODY=${nbody_arg:-$repo/build/src/cli/nbody}
if [[ ! -x $NBODY ]]; then
    echo "robustness.sh: no executable nbody at '$NBODY' (build it: cmake --build build --target nbody)" >&2
    exit 2
fi
NBODY=$(cd "$(dirname "$NBODY")" && pwd)/$(basename "$NBODY")
if ! command -v python3 >/dev/null; then
    echo "robustness.sh: python3 is needed to make the binary inputs" >&2
    exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/nbody-robustness.XXXXXX")
mounted=
cleanup() {
    if [[ -n $mounted ]]; then umount "$mounted" 2>/dev/null; fi
    if ((keep)); then echo "robustness.sh: work kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
# nbody's caches and settings stay in the work directory.
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_CACHE_HOME=$work/home/.cache
mkdir -p "$HOME"
RANDOM=$seed

n_pass=0 n_fail=0 n_skip=0
pass() { n_pass=$((n_pass + 1)); printf 'PASS  %s: %s\n' "$1" "$2"; }
fail() { n_fail=$((n_fail + 1)); printf 'FAIL  %s: %s\n' "$1" "$2"; }
skip() { n_skip=$((n_skip + 1)); printf 'SKIP  %s: %s\n' "$1" "$2"; }
section() { printf '\n== %s\n' "$1"; }
t_start=$SECONDS

# run_nb LIMITS DIR TIMEOUT ARGS...: runs nbody in DIR under the ulimit settings LIMITS (a
# string such as "-f 20", or ""), stdout and stderr into DIR/out and DIR/err; sets rc.
rc=0
run_nb() {
    local limits=$1 dir=$2 t=$3
    shift 3
    # shellcheck disable=SC2086 # LIMITS is a list of ulimit arguments
    (cd "$dir" && { [[ -z $limits ]] || ulimit $limits; } && exec timeout -s KILL "$t" "$NBODY" "$@") \
        >"$dir/out" 2>"$dir/err"
    rc=$?
}
# One line of what a run printed on stderr (the last one that is not a progress line).
said() { grep -v '^step ' "$1/err" | tail -n 1 | cut -c1-400; }
temporaries() { find "$1" \( -name '*.tmp-*' -o -name '*.nbody-probe-*' -o -name 'core*' \) -print | sort; }
digest() { if [[ -e $1 ]]; then sha256sum <"$1" | cut -c1-64; else echo absent; fi; }
# bodies_of FILE DIR: the digest of the bodies of a snapshot as nbody reads them (its rows
# written again as CSV, comments left out), "unread" when the read fails (rc says how).
bodies_of() {
    rm -f "$2/readback.csv"
    run_nb "" "$2" 60 run --input "$1" --steps 0 --no-energy --kernel cpu --output "$2/readback.csv"
    if ((rc == 0)); then grep -v '^#' "$2/readback.csv" | sha256sum | cut -c1-64; else echo unread; fi
}
# diag_of FILE: the digest of a diagnostics series (the same run writes the same bits), "partial"
# unless every row has its 17 columns.
diag_of() {
    if awk -F, 'NF != 17 { bad = 1 } END { exit bad || NR < 2 }' "$1" 2>/dev/null; then
        digest "$1"
    else
        echo partial
    fi
}

# The generator of binary inputs and damaged files.
cat >"$work/gen.py" <<'PY'
import os, random, struct, sys

def damage(src, outdir, count, seed, prefix):
    """count damaged copies of src: byte flips, truncations, zeroed ranges, duplicated blocks."""
    data = open(src, 'rb').read()
    rng = random.Random(seed)
    n = len(data)
    kinds = []
    for i in range(count):
        kind = i % 4
        b = bytearray(data)
        if kind == 0:  # 1 to 8 bytes flipped by a random non-zero mask
            for _ in range(rng.randint(1, 8)):
                b[rng.randrange(n)] ^= rng.randint(1, 255)
            name = 'flip'
        elif kind == 1:  # truncated: evenly over the file, then at random lengths
            k = i // 4
            cut = (k * n) // max(1, count // 4) if k < count // 8 else rng.randrange(n)
            b = b[:cut]
            name = 'cut%d' % cut
        elif kind == 2:  # a range zeroed
            at = rng.randrange(n)
            ln = rng.choice([1, 2, 4, 8, 16, 64, 256, 4096])
            b[at:at + ln] = bytes(len(b[at:at + ln]))
            name = 'zero'
        else:  # a range overwritten with random bytes
            at = rng.randrange(n)
            ln = rng.choice([4, 8, 32, 512])
            b[at:at + ln] = bytes(rng.randrange(256) for _ in range(len(b[at:at + ln])))
            name = 'noise'
        path = os.path.join(outdir, '%s-%04d-%s%s' % (prefix, i, name, os.path.splitext(src)[1]))
        open(path, 'wb').write(bytes(b))

def tipsy_variants(src, outdir):
    """From nbody's big-endian float Tipsy file (32-byte header, dark particles only):
    little-endian, double positions, double positions and velocities, float positions with double
    velocities, and huge header counts."""
    d = open(src, 'rb').read()
    t, n, ndim, nsph, ndark, nstar = struct.unpack('>diiiii', d[:28])
    assert nsph == 0 and nstar == 0 and n == ndark and len(d) == 32 + 36 * n, 'unexpected Tipsy layout'
    rows = [struct.unpack('>9f', d[32 + 36 * i:32 + 36 * (i + 1)]) for i in range(n)]
    def write(name, order, hdr_n, fmt_of):
        out = struct.pack(order + 'diiiii', t, hdr_n[0], ndim, 0, hdr_n[1], 0) + bytes(4)
        for r in rows:
            m, x, y, z, vx, vy, vz, eps, phi = r
            out += fmt_of(order, m, (x, y, z), (vx, vy, vz), eps, phi)
        open(os.path.join(outdir, name), 'wb').write(out)
    ff = lambda o, m, p, v, e, ph: struct.pack(o + '9f', m, *p, *v, e, ph)
    df = lambda o, m, p, v, e, ph: struct.pack(o + 'f3d3f2f', m, *p, *v, e, ph)
    dd = lambda o, m, p, v, e, ph: struct.pack(o + 'f3d3d2f', m, *p, *v, e, ph)
    fd = lambda o, m, p, v, e, ph: struct.pack(o + 'f3f3d2f', m, *p, *v, e, ph)
    write('little-endian.bin', '<', (n, n), ff)
    write('double-positions.bin', '>', (n, n), df)
    write('double-positions-velocities.bin', '>', (n, n), dd)
    write('float-positions-double-velocities.bin', '<', (n, n), fd)
    # Header counts far beyond the data, big- and little-endian.
    big = 0x7FFFFFFF
    hdr = lambda o, c: struct.pack(o + 'diiiii', t, c, 3, 0, c, 0) + bytes(4)
    open(os.path.join(outdir, 'huge-count-be.bin'), 'wb').write(hdr('>', big) + d[32:])
    open(os.path.join(outdir, 'huge-count-le.bin'), 'wb').write(hdr('<', big) + d[32:])
    open(os.path.join(outdir, 'huge-count-no-data.bin'), 'wb').write(hdr('>', 1 << 28))

def csv_variants(src, outdir):
    """BOM, CRLF, CR alone and every field quoted, from nbody's CSV."""
    text = open(src, 'rb').read().decode()
    lines = text.split('\n')[:-1]
    open(os.path.join(outdir, 'bom.csv'), 'wb').write(b'\xef\xbb\xbf' + text.encode())
    open(os.path.join(outdir, 'crlf.csv'), 'wb').write(('\r\n'.join(lines) + '\r\n').encode())
    open(os.path.join(outdir, 'cr.csv'), 'wb').write(('\r'.join(lines) + '\r').encode())
    quoted = [l if l.startswith('#') else ','.join(f if f.startswith('"') else '"%s"' % f for f in l.split(','))
              for l in lines]
    open(os.path.join(outdir, 'quoted.csv'), 'wb').write(
        (b'\xef\xbb\xbf' + ('\r\n'.join(quoted) + '\r\n').encode()))
    body = [l for l in lines if not l.startswith('#')]
    open(os.path.join(outdir, 'huge-count.csv'), 'w').write('# bodies = 4000000000\n' + '\n'.join(body) + '\n')

def hdf5_variants(src, outdir):
    """nbody's HDF5 snapshot (superblock 0, version-1 object headers, no checksums) with the
    attribute Header/NumPart_ThisFile changed: one body more than stored, 2^40 bodies, and its
    datatype an integer of 13 bits at bit offset 7."""
    d = bytearray(open(src, 'rb').read())
    name = b'NumPart_ThisFile\x00'
    at = d.find(name)
    assert at > 0, 'NumPart_ThisFile not found'
    dtype = at + 24  # the name padded to 8 bytes
    assert d[dtype] == 0x10 and struct.unpack('<I', d[dtype + 4:dtype + 8])[0] == 8, 'unexpected datatype'
    values = dtype + 16 + 24  # datatype (12 bytes padded to 16), dataspace of rank 1 with its maximum
    counts = list(struct.unpack('<6Q', d[values:values + 48]))
    t = max(range(6), key=lambda i: counts[i])
    def put(name, change):
        b = bytearray(d)
        change(b)
        open(os.path.join(outdir, name), 'wb').write(bytes(b))
    def count(c):
        return lambda b: b.__setitem__(slice(values + 8 * t, values + 8 * t + 8), struct.pack('<Q', c))
    put('numpart-one-more.h5', count(counts[t] + 1))
    put('numpart-huge.h5', count(1 << 40))
    def odd(b):
        b[dtype + 8:dtype + 12] = struct.pack('<HH', 7, 13)
    put('numpart-13-bits.h5', odd)
    print(counts[t], t)

cmd = sys.argv[1]
if cmd == 'damage':
    damage(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
elif cmd == 'tipsy':
    tipsy_variants(sys.argv[2], sys.argv[3])
elif cmd == 'csv':
    csv_variants(sys.argv[2], sys.argv[3])
elif cmd == 'hdf5':
    hdf5_variants(sys.argv[2], sys.argv[3])
PY
gen() { python3 "$work/gen.py" "$@"; }

echo "robustness.sh: $NBODY"
isa=
for flag in avx512f avx2 avx sse4_2; do
    grep -m1 '^flags' /proc/cpuinfo | grep -q -w "$flag" && { isa=$flag; break; }
done
echo "robustness.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"\
    "(${isa:-no AVX}), load average $(cut -d' ' -f1 /proc/loadavg); kills $kills, damaged HDF5 files $damaged, seed $seed"

# ---- writers ------------------------------------------------------------------------------------
# name | target file | arguments of the big write (its output above 64 KiB) | of a small one.
writers=(
    "snapshot.csv|s.csv|run --scenario plummer --bodies 5000 --kernel cpu --steps 1 --output s.csv|run --scenario plummer --bodies 40 --kernel cpu --steps 1 --no-energy --output s.csv"
    "snapshot.h5|s.h5|run --scenario plummer --bodies 5000 --kernel cpu --steps 1 --output s.h5|run --scenario plummer --bodies 40 --kernel cpu --steps 1 --no-energy --output s.h5"
    "snapshot.bin|s.bin|run --scenario plummer --bodies 5000 --kernel cpu --steps 1 --output s.bin|run --scenario plummer --bodies 40 --kernel cpu --steps 1 --no-energy --output s.bin"
    "diagnostics|d.csv|run --scenario plummer --bodies 500 --kernel cpu --steps 300 --diagnostics-every 1 --diagnostics d.csv|run --scenario plummer --bodies 40 --kernel cpu --steps 2 --diagnostics d.csv"
    "capture|c.png|run --scenario plummer --bodies 5000 --kernel cpu --steps 1 --no-energy --capture c.png --width 1024 --height 768|run --scenario plummer --bodies 40 --kernel cpu --steps 1 --no-energy --capture c.png --width 32 --height 24"
    "bench --json|b.json|bench --kernels cpu --bodies 33,100,200,300,400,500,600,700 --steps 2 --json b.json|bench --kernels cpu --bodies 33 --steps 1 --json b.json"
    "bench --csv|b.csv|bench --kernels cpu --bodies 33,100,200,300,400,500,600,700 --steps 2 --csv b.csv|bench --kernels cpu --bodies 33 --steps 1 --csv b.csv"
    "validate --report|r.html|validate --kernel cpu --bodies 200 --steps 100 --report r.html|validate --kernel cpu --bodies 33 --steps 2 --report r.json"
)

declare -A big_size kind_total
limits_tried=0 tmpfs_tried=0 mem_tried=0 variants_tried=0
n_killed=0 n_finished=0 n_kept=0 n_replaced=0 n_midwrite=0 n_badkill=0

section_writers() {
    section "Writers under ulimit -f (exit 1, the file-size message, the previous file untouched, no temporary file)"
    for w in "${writers[@]}"; do
        IFS='|' read -r name target big small <<<"$w"
        d=$work/fsize/${name//[ -]/_}
        mkdir -p "$d"
        # shellcheck disable=SC2086 # the arguments are words
        run_nb "" "$d" 120 $big
        if [[ $name == capture && $rc -ne 0 ]]; then
            skip "$name" "no off-screen capture in this build or machine: $(said "$d")"
            continue
        fi
        if [[ $rc -ne 0 || ! -s $d/$target ]]; then
            fail "$name" "the unlimited write failed (exit $rc): $(said "$d")"
            continue
        fi
        size=$(stat -c %s "$d/$target")
        big_size[$name]=$size
        old=$(digest "$d/$target")
        for lim in 1 20 $((size / 2048)); do
            ((lim >= 1 && lim * 1024 < size)) || continue
            limits_tried=$((limits_tried + 1))
            # shellcheck disable=SC2086
            run_nb "-f $lim" "$d" 120 $big
            msg=$(said "$d")
            left=$(temporaries "$d")
            problems=()
            ((rc == 1)) || problems+=("exit $rc")
            grep -q "cannot write '.*${target}': file too large: the file-size limit of this process is $((lim * 1024)) bytes (ulimit -f)" "$d/err" ||
                problems+=("message")
            [[ $(digest "$d/$target") == "$old" ]] || problems+=("the previous file changed")
            [[ -z $left ]] || problems+=("left: $left")
            if ((${#problems[@]} == 0)); then
                pass "$name ulimit -f $lim" "exit 1: $msg"
            else
                fail "$name ulimit -f $lim" "${problems[*]}: $msg"
            fi
        done
    done
}

section_tmpfs() {
    section "Writers on a 64 KiB tmpfs, filled where the output is smaller (exit 1, 'No space left on device', the previous file untouched)"
    tmpfs=$work/tmpfs
    mkdir -p "$tmpfs"
    tmpfs_why=
    if ((EUID != 0)); then
        tmpfs_why="not root: mount -t tmpfs needs it"
    elif ! mount -t tmpfs -o size=64k nbody-robustness "$tmpfs" 2>"$work/mount.err"; then
        tmpfs_why="mount -t tmpfs failed: $(head -n 1 "$work/mount.err")"
    else
        umount "$tmpfs"
    fi
    for w in "${writers[@]}"; do
        IFS='|' read -r name target big small <<<"$w"
        if [[ -n $tmpfs_why ]]; then skip "$name on tmpfs" "$tmpfs_why"; continue; fi
        if [[ -z ${big_size[$name]:-} ]]; then skip "$name on tmpfs" "no unlimited write above"; continue; fi
        mount -t tmpfs -o size=64k nbody-robustness "$tmpfs" && mounted=$tmpfs
        # shellcheck disable=SC2086
        run_nb "" "$tmpfs" 60 $small
        small_target=$target
        [[ $name == "validate --report" ]] && small_target=r.json
        if [[ $rc -ne 0 ]]; then
            fail "$name on tmpfs" "the small write failed (exit $rc): $(said "$tmpfs")"
        else
            [[ $small_target == "$target" ]] || cp "$tmpfs/$small_target" "$tmpfs/$target"
            rm -f "$tmpfs/out" "$tmpfs/err"
            old=$(digest "$tmpfs/$target")
            # An output that would fit: a filler leaves less than half of it free (tmpfs counts
            # 4 KiB pages).
            avail=$(df --output=avail -B1 "$tmpfs" | tail -n 1 | tr -d ' ')
            filled=
            if ((big_size[$name] <= avail)); then
                keep_free=$((big_size[$name] / 2 / 4096 * 4096))
                head -c $((avail - keep_free)) /dev/zero >"$tmpfs/filler" 2>/dev/null
                filled=" (filled to leave $(df --output=avail -B1 "$tmpfs" | tail -n 1 | tr -d ' ') bytes free for ${big_size[$name]})"
            fi
            tmpfs_tried=$((tmpfs_tried + 1))
            # stdout and stderr of the big write go beside, not into the full file system
            # shellcheck disable=SC2086
            (cd "$tmpfs" && exec timeout -s KILL 120 "$NBODY" $big) >"$work/tmpfs.out" 2>"$work/tmpfs.err"
            rc=$?
            msg=$(grep -v '^step ' "$work/tmpfs.err" | tail -n 1)
            problems=()
            ((rc == 1)) || problems+=("exit $rc")
            grep -q "cannot write .*${target}.*No space left on device" "$work/tmpfs.err" || problems+=("message")
            [[ $(digest "$tmpfs/$target") == "$old" ]] || problems+=("the previous file changed")
            left=$(temporaries "$tmpfs")
            [[ -z $left ]] || problems+=("left: $left")
            if ((${#problems[@]} == 0)); then
                pass "$name on tmpfs$filled" "exit 1: $msg"
            else
                fail "$name on tmpfs$filled" "${problems[*]}: $msg"
            fi
        fi
        umount "$tmpfs" && mounted=
    done
}

section_kills() {
    section "kill -9 during writes ($kills kills: the old file or the complete new one, read back)"
    kd=$work/kill
    mkdir -p "$kd/ref"
    formats=(csv h5 bin diag)
    declare -A ref_a ref_b duration
    kill_ready=1
    for f in "${formats[@]}"; do
        for s in 1 2; do
            if [[ $f == diag ]]; then
                args=(run --scenario plummer --bodies 400 --seed "$s" --kernel cpu --steps 40 --diagnostics-every 1 --no-energy --diagnostics "$kd/ref/$s.diag.csv")
            else
                args=(run --scenario plummer --bodies 100000 --seed "$s" --kernel cpu --steps 0 --no-energy --output "$kd/ref/$s.$f")
            fi
            t0=$(date +%s%N)
            run_nb "" "$kd" 60 "${args[@]}"
            duration[$f]=$((($(date +%s%N) - t0) / 1000000))
            if [[ $rc -ne 0 ]]; then fail "kill -9 $f" "the reference write failed: $(said "$kd")"; kill_ready=0; fi
        done
        if [[ $f == diag ]]; then
            ref_a[$f]=$(diag_of "$kd/ref/1.diag.csv"); ref_b[$f]=$(diag_of "$kd/ref/2.diag.csv")
        else
            ref_a[$f]=$(bodies_of "$kd/ref/1.$f" "$kd"); ref_b[$f]=$(bodies_of "$kd/ref/2.$f" "$kd")
        fi
        if [[ ${ref_a[$f]} == "${ref_b[$f]}" || ${ref_a[$f]} == unread || ${ref_a[$f]} == partial ]]; then
            fail "kill -9 $f" "the two reference files cannot be told apart or read"; kill_ready=0
        fi
    done
    if ((kill_ready)); then
        declare -A state
        for f in "${formats[@]}"; do
            if [[ $f == diag ]]; then cp "$kd/ref/1.diag.csv" "$kd/dest.diag.csv"; else cp "$kd/ref/1.$f" "$kd/dest.$f"; fi
            state[$f]=1
        done
        for ((i = 0; i < kills; i++)); do
            f=${formats[i % 4]}
            s=$((3 - state[$f]))
            if [[ $f == diag ]]; then
                dest=$kd/dest.diag.csv
                args=(run --scenario plummer --bodies 400 --seed "$s" --kernel cpu --steps 40 --diagnostics-every 1 --no-energy --diagnostics "$dest")
            else
                dest=$kd/dest.$f
                args=(run --scenario plummer --bodies 100000 --seed "$s" --kernel cpu --steps 0 --no-energy --output "$dest")
            fi
            "$NBODY" "${args[@]}" >/dev/null 2>&1 &
            pid=$!
            if (((i / 4) % 2 == 0)); then
                # at a random moment of the run: a delay uniform over its length (measured above)
                delay=$((RANDOM * (duration[$f] + 1) / 32768))
                how="after $delay ms"
            else
                # while it writes: when its temporary file has appeared, 0 to 7 ms later
                t0=$SECONDS
                until tmps=("$kd"/*.tmp-"$pid"-*); [[ -e ${tmps[0]} ]] || ! kill -0 "$pid" 2>/dev/null ||
                    ((SECONDS - t0 > 60)); do
                    sleep 0.001
                done
                delay=$((RANDOM % 8))
                how="$delay ms after its temporary file appeared"
            fi
            sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
            kill -9 "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
            krc=$?
            if ((krc == 137)); then n_killed=$((n_killed + 1)); else n_finished=$((n_finished + 1)); fi
            # killed while writing: its temporary file (NAME.tmp-PID-XXXXXX) is still there
            tmps=("$kd"/*.tmp-"$pid"-*)
            [[ -e ${tmps[0]} ]] && n_midwrite=$((n_midwrite + 1))
            if [[ $f == diag ]]; then now=$(diag_of "$dest"); else now=$(bodies_of "$dest" "$kd"); fi
            if [[ $now == "${ref_a[$f]}" ]]; then got=1; elif [[ $now == "${ref_b[$f]}" ]]; then got=2; else got=0; fi
            if ((got == 0)); then
                n_badkill=$((n_badkill + 1))
                cp "$dest" "$kd/bad-$i.${f/diag/diag.csv}"
                fail "kill -9 #$i $f $how" "the destination is neither the old nor the new file (kept as bad-$i with --keep): $(said "$kd")"
                cp "$kd/ref/${state[$f]}.${f/diag/diag.csv}" "$dest"
            elif ((got == state[$f])); then
                n_kept=$((n_kept + 1))
            else
                n_replaced=$((n_replaced + 1))
                state[$f]=$got
            fi
        done
        if ((n_badkill == 0)); then
            pass "kill -9 x $kills" "half at a random moment of the run, half while it wrote; $n_killed killed ($n_midwrite of them while writing: their temporary file was left), $n_finished finished first; destination: the old file $n_kept, the complete new file $n_replaced, partial 0"
        fi
        # The next write removes the temporary files of the killed ones.
        stale=$(temporaries "$kd" | wc -l)
        for f in "${formats[@]}"; do
            if [[ $f == diag ]]; then
                run_nb "" "$kd" 60 run --scenario plummer --bodies 400 --kernel cpu --steps 2 --no-energy --diagnostics "$kd/dest.diag.csv"
            else
                run_nb "" "$kd" 60 run --scenario plummer --bodies 400 --kernel cpu --steps 0 --no-energy --output "$kd/dest.$f"
            fi
        done
        left=$(temporaries "$kd")
        if [[ -z $left ]]; then
            pass "temporary files of killed writes" "$stale left by kill -9, all removed by the next write to the same file"
        else
            fail "temporary files of killed writes" "still there after the next write: $left"
        fi
    fi
}

section_damaged() {
    section "Damaged files (refused with a message naming the file, or read; never a signal in nbody)"
    dd_=$work/damaged
    mkdir -p "$dd_/src" "$dd_/h5" "$dd_/bin" "$dd_/csv"
    run_nb "" "$dd_/src" 60 run --scenario plummer --bodies 300 --kernel cpu --steps 3 --no-energy --output plummer.h5
    run_nb "" "$dd_/src" 60 run --scenario solar-system --kernel reference --steps 3 --no-energy --output solar.h5
    run_nb "" "$dd_/src" 60 run --scenario plummer --bodies 300 --kernel cpu --steps 3 --no-energy --output plummer.bin
    run_nb "" "$dd_/src" 60 run --scenario solar-system --steps 3 --no-energy --output solar.csv
    gen damage "$dd_/src/plummer.h5" "$dd_/h5" $((damaged - damaged / 3)) "$seed" plummer
    gen damage "$dd_/src/solar.h5" "$dd_/h5" $((damaged / 3)) "$((seed + 1))" solar
    gen damage "$dd_/src/plummer.bin" "$dd_/bin" $((damaged / 3)) "$((seed + 2))" plummer
    gen damage "$dd_/src/solar.csv" "$dd_/csv" $((damaged / 3)) "$((seed + 3))" solar
    for kind in h5 bin csv; do
        refused=0 readok=0 other=0 contained=0 scale=0 crashed=0 silent=0 hung=0
        examples=()
        for file in "$dd_/$kind"/*; do
            run_nb "" "$dd_" 60 run --input "$file" --steps 0 --no-energy --kernel cpu
            base=$(basename "$file")
            if ((rc == 0)); then
                readok=$((readok + 1))
            elif ((rc == 137 || rc == 124)); then
                hung=$((hung + 1)); examples+=("$base: stopped after 60 s")
            elif ((rc >= 128)); then
                crashed=$((crashed + 1)); examples+=("$base: exit $rc: $(said "$dd_")")
            elif ((rc == 2)) && grep -q "derived from the system's scale .* is not representable in fp32" "$dd_/err"; then
                # read, but the damage moved a body so far that dt or eps2 cannot be derived
                refused=$((refused + 1)) scale=$((scale + 1))
            elif ! grep -qF "$base" "$dd_/err"; then
                silent=$((silent + 1)); examples+=("$base: exit $rc without naming the file: $(said "$dd_")")
            elif ((rc == 2)); then
                refused=$((refused + 1))
                grep -q 'HDF5 library crashed' "$dd_/err" && contained=$((contained + 1))
            else
                other=$((other + 1))
            fi
        done
        total=$((refused + readok + other + crashed + silent + hung))
        kind_total[$kind]=$total
        detail="$total files: refused $refused (of which the HDF5 reading helper crashed and it was reported: $contained; read, but dt or eps2 not derivable from the damaged scale: $scale), read $readok, other exit 1: $other, crashed $crashed, no file named $silent, hung $hung"
        if ((crashed + silent + hung == 0)); then pass "damaged .$kind" "$detail"; else fail "damaged .$kind" "$detail; ${examples[*]:0:3}"; fi
    done
    [[ -z $(temporaries "$dd_") ]] || fail "damaged files" "left behind: $(temporaries "$dd_")"
}

# The foreign layouts and header changes of nbody's own files (for the variants and the cases).
vd=$work/variants
make_variants() {
    [[ -e $vd/numpart-13-bits.h5 ]] && return
    mkdir -p "$vd"
    run_nb "" "$vd" 60 run --scenario plummer --bodies 300 --kernel cpu --steps 3 --no-energy --output plummer.h5
    run_nb "" "$vd" 60 run --scenario plummer --bodies 300 --kernel cpu --steps 3 --no-energy --output plummer.bin
    run_nb "" "$vd" 60 run --scenario solar-system --steps 3 --no-energy --output solar.csv
    gen tipsy "$vd/plummer.bin" "$vd"
    gen csv "$vd/solar.csv" "$vd"
    gen hdf5 "$vd/plummer.h5" "$vd" >/dev/null
}

section_variants() {
    section "Foreign but valid layouts (the same bodies) and huge header counts (refused)"
    make_variants
    want_bin=$(bodies_of "$vd/plummer.bin" "$vd")
    want_csv=$(bodies_of "$vd/solar.csv" "$vd")
    for v in little-endian.bin double-positions.bin double-positions-velocities.bin bom.csv crlf.csv cr.csv quoted.csv; do
        want=$want_bin
        [[ $v == *.csv ]] && want=$want_csv
        got=$(bodies_of "$vd/$v" "$vd")
        variants_tried=$((variants_tried + 1))
        if [[ $got != unread && $got == "$want" ]]; then
            pass "$v" "read, the same bodies as nbody's own file"
        else
            fail "$v" "exit $rc, bodies differ or unread: $(said "$vd")"
        fi
    done
    # refused: file, exit 2, words in the message
    refusals=(
        "huge-count-be.bin|too many bodies: header says 2147483647"
        "huge-count-le.bin|too many bodies: header says 2147483647"
        "huge-count-no-data.bin|bytes"
        "huge-count.csv|bodies"
        "float-positions-double-velocities.bin|float positions with double velocities"
        "numpart-one-more.h5|NumPart_ThisFile"
        "numpart-huge.h5|NumPart_ThisFile"
        "numpart-13-bits.h5|is an integer of 13 bits at bit offset 7"
    )
    for r in "${refusals[@]}"; do
        variants_tried=$((variants_tried + 1))
        IFS='|' read -r v words <<<"$r"
        run_nb "-v 4000000" "$vd" 60 run --input "$vd/$v" --steps 0 --no-energy --kernel cpu
        if ((rc == 2)) && grep -q "$v" "$vd/err" && grep -q "$words" "$vd/err"; then
            pass "$v" "exit 2: $(said "$vd")"
        else
            fail "$v" "exit $rc: $(said "$vd")"
        fi
    done
}

section_memory() {
    section "Memory limits (ulimit -v, KiB): a message and exit 1 or 2, or a finished run; never an abort"
    md=$work/memory
    mkdir -p "$md"
    mem_cases=(
        "tree-cpu|100000|" "tree-cpu|150000|" "tree-cpu|300000|" "tree-cpu|490000|" "tree-cpu|518000|"
        "tree-cpu|490000|16"
        "cpu|120000|" "cpu|200000|" "cpu|150000|8"
    )
    ((quick)) || mem_cases+=("tree-cpu|540000|")
    for m in "${mem_cases[@]}"; do
        IFS='|' read -r kern lim threads <<<"$m"
        label="$kern N=1000000 ulimit -v $lim${threads:+ OMP_NUM_THREADS=$threads}"
        mem_tried=$((mem_tried + 1))
        if [[ -n $threads ]]; then
            OMP_NUM_THREADS=$threads run_nb "-v $lim" "$md" 180 run --bodies 1000000 --kernel "$kern" --steps 1 --no-energy
        else
            run_nb "-v $lim" "$md" 180 run --bodies 1000000 --kernel "$kern" --steps 1 --no-energy
        fi
        msg=$(said "$md")
        if ((rc == 0)); then
            pass "$label" "finished: $(grep 'host memory (RSS)' "$md/out" | sed 's/^ *//')"
        elif ((rc == 1 || rc == 2)) && grep -Eq 'out of host memory|more host memory|of host memory; .* available' "$md/err"; then
            pass "$label" "exit $rc: $msg"
        elif ((rc == 127)) && grep -q 'error while loading shared libraries' "$md/err"; then
            pass "$label" "below what the dynamic loader needs to map the libraries (exit 127, before nbody runs): $msg"
        else
            fail "$label" "exit $rc: $msg"
        fi
    done
}

section_restart() {
    section "Exact restart (leapfrog, cpu and tree-cpu: 40 steps = 20 steps, .h5, 20 steps)"
    rd=$work/restart
    mkdir -p "$rd"
    for kern in cpu tree-cpu; do
        run_nb "" "$rd" 60 run --scenario plummer --bodies 1001 --kernel "$kern" --steps 40 --no-energy --output "$rd/full.csv"
        run_nb "" "$rd" 60 run --scenario plummer --bodies 1001 --kernel "$kern" --steps 20 --no-energy --output "$rd/half.h5"
        run_nb "" "$rd" 60 run --input "$rd/half.h5" --steps 20 --no-energy --output "$rd/resumed.csv"
        if cmp -s <(grep -v '^#' "$rd/full.csv") <(grep -v '^#' "$rd/resumed.csv"); then
            pass "restart $kern" "the same bits as the uninterrupted run (1001 bodies)"
        else
            fail "restart $kern" "the resumed run differs: $(said "$rd")"
        fi
    done
}

section_cases() {
    section "Cases that once failed, as they run now"
    cd_=$work/cases
    mkdir -p "$cd_"
    show() { # [PATTERN]: prints what the last run said on stderr, then its stdout lines matching PATTERN
        grep -v '^step ' "$cd_/err" | sed 's/^/      /'
        if (($#)); then grep -E "$1" "$cd_/out" | sed 's/^/      /'; fi
    }
    expect() { # OK NAME: a check of the case NAME, passed when OK is 1
        local ok=$1 name=$2
        if ((ok)); then pass "$name" "exit $rc"; else fail "$name" "exit $rc"; fi
    }
    # (1) ulimit -f 20: every writer (the lines above), the tester's command here
    run_nb "-f 20" "$cd_" 120 run --scenario plummer --bodies 5000 --kernel cpu --steps 1 --output s.csv
    expect "$((rc == 1))" "(1) (ulimit -f 20; nbody run --scenario plummer --bodies 5000 --kernel cpu --steps 1 --output s.csv)"
    show
    # (2)
    run_nb "-v 490000" "$cd_" 120 run --bodies 1000000 --kernel tree-cpu --steps 1 --no-energy
    expect "$(((rc == 1 || rc == 2) && rc < 128))" "(2) (ulimit -v 490000; nbody run --bodies 1000000 --kernel tree-cpu --steps 1 --no-energy)"
    show
    # (3)
    two='x,y,z,vx,vy,vz,m\n%s,0,0,0,0,0,1\n%s,0,0,0,0,0,1\n'
    # shellcheck disable=SC2059 # the format is the variable
    { printf "$two" -1e19 1e19 >"$cd_/far.csv"; printf "$two" -5e18 5e18 >"$cd_/far5.csv";
      printf "$two" -1e-20 1e-20 >"$cd_/near.csv"; printf "$two" -1 1 >"$cd_/unit.csv"; }
    three=(
        "far.csv|--dt 1e-10 --eps2 0|1|r^2 = 4e+38 exceeds fp32's largest value"
        "near.csv|--dt 1e-10 --eps2 1e-30|1|1/(r^2 + eps^2)^(3/2) = 1e+45 exceeds fp32's largest value"
        "unit.csv|--dt 1e-3 --eps2 0.01 --G 1e39|1|G = 1e+39 is outside the range of fp32"
        "far5.csv|--dt 1e-10 --eps2 0|0|1/r^3 = 1e-57 is below fp32's smallest normal value"
    )
    for c in "${three[@]}"; do
        IFS='|' read -r input extra code words <<<"$c"
        # shellcheck disable=SC2086
        run_nb "" "$cd_" 60 run --input "$input" --kernel cpu $extra --steps 10
        ok=$((rc == code))
        grep -qF "$words" "$cd_/err" || ok=0
        grep -q 'time step is too large' "$cd_/err" && ok=0
        ((code == 0)) || grep -q 'not a time-step problem' "$cd_/err" || ok=0
        expect "$ok" "(3) nbody run --input $input --kernel cpu $extra --steps 10"
        show
    done
    # (4) e = 0.9 Kepler orbit (two bodies of mass 1/2 at apocentre 1.9 apart, G = 1, a = 1), one period
    printf 'x,y,z,vx,vy,vz,m\n-0.95,0,0,0,-0.114707866935281,0,0.5\n0.95,0,0,0,0.114707866935281,0,0.5\n' >"$cd_/kepler.csv"
    run_nb "" "$cd_" 60 run --input kepler.csv --kernel cpu --dt 0.015707963 --eps2 0 --steps 400
    ok=$((rc == 0)); grep -q 'warning: the relative energy change -5.29.*at step 200' "$cd_/err" || ok=0
    expect "$ok" "(4) nbody run --input kepler.csv --kernel cpu --dt 0.015707963 --eps2 0 --steps 400"
    show 'largest energy change|relative change'
    printf 'x,y,z,vx,vy,vz,m\n-0.5,0,0,0,0,0,0.5\n0.5,0,0,0,0,0,0.5\n' >"$cd_/headon.csv"
    run_nb "" "$cd_" 60 run --input headon.csv --kernel cpu --dt 0.01 --eps2 0 --steps 200 --no-energy --diagnostics d.csv
    peak=$(cut -d, -f6 "$cd_/d.csv" | grep -v '[a-z]' | sort -g | tail -n 1)
    ok=$((rc == 0)); grep -q 'warning: the relative energy change' "$cd_/err" || ok=0
    expect "$ok" "(4) nbody run --input headon.csv --kernel cpu --dt 0.01 --eps2 0 --steps 200 --no-energy --diagnostics d.csv (largest energy_change in d.csv: $peak)"
    show
    # (5)
    for comment in '# g = 2.959e-4' '# G: 2.959e-4'; do
        printf '%s\nx,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n1,0,0,0,0.0172,0,3e-6\n' "$comment" >"$cd_/g.csv"
        run_nb "" "$cd_" 60 run --input g.csv --kernel cpu --steps 1 --no-energy
        ok=$((rc == 0)); grep -q 'G=0.0002959 ' "$cd_/out" || ok=0
        expect "$ok" "(5) a CSV with '$comment': nbody run --input g.csv --kernel cpu --steps 1 --no-energy"
        show '^(System|Params):'
    done
    # (6)
    run_nb "" "$cd_" 300 bench --kernels cpu --bodies 65536
    ok=$((rc == 0)); grep -q skipped "$cd_/out" "$cd_/err" && ok=0
    grep -Eq '^ *cpu .*65536' "$cd_/out" || ok=0
    expect "$ok" "(6) nbody bench --kernels cpu --bodies 65536"
    grep -Ei 'predicted|skip' "$cd_/err" | sed 's/^/      /'
    sed 's/^/      /' "$cd_/out"
    # (7)
    make_variants
    for v in float-positions-double-velocities.bin numpart-one-more.h5 numpart-13-bits.h5; do
        run_nb "" "$cd_" 60 run --input "$vd/$v" --steps 0 --no-energy --kernel cpu
        expect "$((rc == 2))" "(7) nbody run --input $v"
        show
    done
}


timings=()
for part in writers tmpfs kills damaged variants memory restart cases; do
    if [[ $only == *",$part,"* ]]; then
        start=$SECONDS
        "section_$part"
        timings+=("$part $((SECONDS - start)) s")
    fi
done

section "Summary"
echo "files tried: damaged HDF5 ${kind_total[h5]:-0}, damaged Tipsy ${kind_total[bin]:-0}, damaged CSV ${kind_total[csv]:-0}, foreign layouts and changed headers $variants_tried"
if [[ $only == *,kills,* ]]; then
    echo "kill -9: $kills ($n_killed killed, $n_midwrite while writing; old file $n_kept, new file $n_replaced, partial $n_badkill)"
fi
echo "limits: ulimit -f $limits_tried (writer, size) pairs, 64 KiB tmpfs $tmpfs_tried writers, ulimit -v $mem_tried runs"
printf -v per '%s, ' "${timings[@]}"
echo "time per section: ${per%, }"
echo "checks: $n_pass passed, $n_fail failed, $n_skip skipped ($((SECONDS - t_start)) s)"
((n_fail == 0))
