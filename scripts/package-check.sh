#!/usr/bin/env bash
# Builds the Debian package and checks it as a user gets it: lintian, then installed into the
# real /usr with dpkg, the programs run from /usr/bin, the desktop entry, the metainfo, the icons
# and the man pages checked there, and the package removed again.
#
#   scripts/package-check.sh [BUILD_DIR]     BUILD_DIR defaults to build-package/
#
# A BUILD_DIR that is already configured (scripts/test.sh passes build/, the normal stage's) is
# built as it is, so the package is made from the programs already compiled there, with its CUDA
# kernels when it has them; a new one is configured CPU-only and without the tests.
#
# Installing needs root (CI runs as root) or sudo; without either the checks of the installed
# package are skipped, with a message. A package nbody-sandbox already installed, or a file of the
# package already in /usr, is left alone and fails the check: remove it first. Every check prints
# one line ("package-check: NAME: ok|FAILED|SKIPPED: ..."); exits 0 when none failed, else 1.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir=${1:-build-package}
failed=0
checks=0
failures=0
t_all=$SECONDS
tmp=$(mktemp -d)
installed=
sudo=()

say() { echo "package-check: $*"; }
pass() { checks=$((checks + 1)); say "$1: ok${2:+: $2}"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); failed=1; say "$1: FAILED${2:+: $2}"; }
indent() { sed 's/^/    /'; }

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
    # A check that failed half-way leaves nothing installed.
    if [[ -n $installed ]]; then
        "${sudo[@]}" dpkg -r nbody-sandbox >/dev/null 2>&1 || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

finish() {
    say "$([[ $failed == 0 ]] && echo passed || echo FAILED): $checks checks, $failures failed ($((SECONDS - t_all)) s)"
    exit "$failed"
}

scripts/deps.sh full # lintian, desktop-file-validate, appstreamcli

# ---- build the package -------------------------------------------------------------------------
# A new build directory: CPU-only and without the tests, since this check is about the
# installation (the files, the paths, the dependencies); an existing one as it is configured.
configure=(-DNBODY_ENABLE_CUDA=OFF -DNBODY_BUILD_TESTS=OFF)
kind=CPU-only
if [[ -f $build_dir/CMakeCache.txt ]]; then
    configure=()
    kind="as configured"
    grep -q '^NBODY_HAVE_CUDA\|^CMAKE_CUDA_COMPILER:.*nvcc' "$build_dir/CMakeCache.txt" && kind="with CUDA"
fi
rm -f "$build_dir"/nbody-sandbox_*.deb
t=$SECONDS
if scripts/build.sh "$build_dir" "${configure[@]}" \
        >"$tmp/build.log" 2>&1 &&
    (cd "$build_dir" && cpack -G DEB) >>"$tmp/build.log" 2>&1; then
    deb=$(realpath "$build_dir"/nbody-sandbox_*.deb)
    pass "build" "$build_dir/$(basename "$deb"), $(du -k "$deb" | cut -f1) KiB, $kind ($((SECONDS - t)) s)"
else
    tail -n 40 "$tmp/build.log" | indent
    fail "build" "scripts/build.sh $build_dir or cpack -G DEB failed ($((SECONDS - t)) s)"
    finish
fi

# The package's fields: its name, section, and Depends from dpkg-shlibdeps.
name=$(dpkg-deb -f "$deb" Package)
version=$(dpkg-deb -f "$deb" Version)
section=$(dpkg-deb -f "$deb" Section)
depends=$(dpkg-deb -f "$deb" Depends)
if [[ $name == nbody-sandbox && $section == science && $depends == *libqt6core6* ]]; then
    pass "control" "$name $version, section $section, Depends: $depends"
else
    fail "control" "Package '$name', Section '$section', Depends '$depends' (want nbody-sandbox, science, the shared libraries)"
fi

# The package's files (not its directories), and the desktop id: the .desktop file's name.
mapfile -t files < <(dpkg-deb -c "$deb" | awk '$1 ~ /^-/ {sub(/^\./, "", $6); print $6}')
id=$(printf '%s\n' "${files[@]}" | sed -n 's|^/usr/share/applications/\(.*\)\.desktop$|\1|p')

# ---- lintian -----------------------------------------------------------------------------------
# (It warns when run as root, which CI does; that line is not a tag and is left out.)
lintian_out=$(lintian --tag-display-limit 0 "$deb" 2>&1 | grep -E '^[EWX]: ' || true)
errors=$(grep -c '^[EX]: ' <<<"$lintian_out" || true)
warnings=$(grep -c '^W: ' <<<"$lintian_out" || true)
if ((errors == 0)); then
    pass "lintian" "0 errors, $warnings warnings"
else
    fail "lintian" "$errors errors, $warnings warnings"
fi
[[ -n $lintian_out ]] && indent <<<"$lintian_out"

# ---- install -----------------------------------------------------------------------------------
if ((EUID != 0)); then
    if command -v sudo >/dev/null; then
        sudo=(sudo)
    else
        say "install: SKIPPED: not root and no sudo: the installed programs, desktop entry, metainfo and man pages are not checked"
        finish
    fi
fi
if status=$(dpkg-query -W -f='${db:Status-Abbrev} ${Version}' nbody-sandbox 2>/dev/null) && [[ $status == i* ]]; then
    fail "install" "nbody-sandbox is installed already ($status): remove it first (dpkg -r nbody-sandbox); this check installs and removes its own"
    finish
fi
present=()
for f in "${files[@]}"; do
    [[ -e $f || -L $f ]] && present+=("$f")
done
if ((${#present[@]} > 0)); then
    fail "install" "files of the package exist already (from a cmake --install?), left alone: ${present[*]}"
    finish
fi
if "${sudo[@]}" dpkg -i "$deb" >"$tmp/dpkg.log" 2>&1; then
    installed=1
    pass "install" "dpkg -i: ${#files[@]} files"
else
    indent <"$tmp/dpkg.log"
    fail "install" "dpkg -i failed"
    finish
fi

# ---- the installed programs, from a directory that is not the source tree ----------------------
# A home and XDG directories of their own, so the app's settings, autosave and the tuning cache
# go there and not into the user's.
cd "$tmp"
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config XDG_DATA_HOME=$tmp/home/.local/share \
    XDG_CACHE_HOME=$tmp/home/.cache XDG_RUNTIME_DIR=$tmp/run
mkdir -p "$HOME" && mkdir -m 700 "$XDG_RUNTIME_DIR"

if v=$(/usr/bin/nbody --version 2>&1) && [[ $v == "nbody $version" ]]; then
    pass "nbody --version" "$v"
else
    fail "nbody --version" "'$v' (want 'nbody $version')"
fi
if v=$(env -u DISPLAY -u WAYLAND_DISPLAY /usr/bin/nbody-sandbox --version 2>&1) && [[ $v == "nbody-sandbox $version" ]]; then
    pass "nbody-sandbox --version (no display)" "$v"
else
    fail "nbody-sandbox --version (no display)" "'$v' (want 'nbody-sandbox $version')"
fi

if /usr/bin/nbody run --scenario plummer --bodies 512 --steps 10 >run.log 2>&1 && grep -q '^Summary' run.log; then
    pass "nbody run" "plummer, 512 bodies, 10 steps: $(grep -m1 -oE 'relative change [^ ]+' run.log)"
else
    tail -n 20 run.log | indent
    fail "nbody run" "nbody run --scenario plummer --bodies 512 --steps 10"
fi

# An HDF5 snapshot read back: the reader's child process, /usr/bin/nbody-read-hdf5, found beside
# /usr/bin/nbody.
if /usr/bin/nbody run --scenario plummer --bodies 64 --steps 0 --output snap.h5 >h5.log 2>&1 &&
    /usr/bin/nbody run --input snap.h5 --steps 1 >>h5.log 2>&1 && grep -q '^Summary' h5.log; then
    pass "HDF5 snapshot" "written and read back through nbody-read-hdf5"
else
    tail -n 20 h5.log | indent
    fail "HDF5 snapshot" "nbody run --output snap.h5, then --input snap.h5"
fi

if xvfb-run -a -s "-screen 0 1280x1024x24" /usr/bin/nbody-sandbox --scenario plummer --bodies 512 --steps 5 \
        --quit --capture "$tmp/capture.png" >app.log 2>&1 &&
    [[ -s capture.png && $(file -b --mime-type capture.png) == image/png ]]; then
    pass "nbody-sandbox --capture" "under xvfb-run: $(file -b capture.png | cut -d, -f1,2), $(stat -c %s capture.png) bytes"
else
    tail -n 20 app.log | indent
    fail "nbody-sandbox --capture" "no PNG from nbody-sandbox --scenario plummer --bodies 512 --steps 5 --quit --capture under xvfb-run"
fi

# ---- desktop integration -----------------------------------------------------------------------
desktop=/usr/share/applications/$id.desktop
if [[ -n $id ]] && out=$(desktop-file-validate "$desktop" 2>&1) && [[ -z $out ]]; then
    pass "desktop entry" "$desktop: desktop-file-validate clean"
else
    fail "desktop entry" "${desktop}: ${out:-no .desktop file in the package}"
fi

metainfo=/usr/share/metainfo/$id.metainfo.xml
if out=$(appstreamcli validate --no-net "$metainfo" 2>&1); then
    pass "metainfo" "$metainfo: $(tail -n 1 <<<"$out" | sed 's/^[^A-Za-z]*//')"
else
    indent <<<"$out"
    fail "metainfo" "appstreamcli validate --no-net $metainfo"
fi

icons=()
bad=()
for size in 16 32 48 64 128 256; do
    png=/usr/share/icons/hicolor/${size}x${size}/apps/$id.png
    if [[ $(file -b "$png" 2>&1) == "PNG image data, $size x $size,"* ]]; then icons+=("$size"); else bad+=("$png"); fi
done
svg=/usr/share/icons/hicolor/scalable/apps/$id.svg
[[ $(file -b "$svg" 2>&1) == SVG* ]] || bad+=("$svg")
if ((${#bad[@]} == 0)); then
    pass "icons" "$id: scalable SVG and PNG ${icons[*]} px"
else
    fail "icons" "missing or not the right size: ${bad[*]}"
fi

# ---- man pages ---------------------------------------------------------------------------------
# (A dpkg path-exclude for /usr/share/man, as minimal container images have, would leave them out.)
for prog in nbody nbody-sandbox nbody-read-hdf5; do
    page=/usr/share/man/man1/$prog.1.gz
    text=$(man -l "$page" 2>/dev/null | col -b || true)
    if [[ $(man -w "$prog" 2>/dev/null) == "$page" ]] && grep -q '^NAME' <<<"$text" &&
        grep -qE '^(OPTIONS|DESCRIPTION)' <<<"$text"; then
        pass "man $prog" "$page: $(grep -cE '^[A-Z][A-Z ]+$' <<<"$text") sections ($(grep -E '^[A-Z][A-Z ]+$' <<<"$text" | tr '\n' ' ' | sed 's/ $//'))"
    else
        fail "man $prog" "$page missing, not found by man -w, or without NAME and OPTIONS/DESCRIPTION"
    fi
done

# ---- remove ------------------------------------------------------------------------------------
if "${sudo[@]}" dpkg -r nbody-sandbox >"$tmp/dpkg.log" 2>&1; then
    installed=
    left=()
    for f in "${files[@]}"; do
        [[ -e $f || -L $f ]] && left+=("$f")
    done
    [[ -d /usr/share/doc/nbody-sandbox ]] && left+=(/usr/share/doc/nbody-sandbox/)
    if ((${#left[@]} == 0)); then
        pass "remove" "dpkg -r: the ${#files[@]} files are gone"
    else
        fail "remove" "left behind: ${left[*]}"
    fi
else
    indent <"$tmp/dpkg.log"
    fail "remove" "dpkg -r nbody-sandbox failed"
fi

finish
