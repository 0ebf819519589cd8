#!/bin/sh
# make check-paraview: the XDMF sidecars open in ParaView's own reader (the one File > Open
# and OpenDataFile pick) with the points, cells and per-frame bounds that /frames holds.
# Installs Debian's python3-paraview (and python3-h5py) without recommends when missing and
# running as root; otherwise prints the exact command and fails. Usage: check-paraview.sh BUILD
set -u
BUILD=${1:-build}
PACKAGES="python3-paraview python3-h5py"
. scripts/need-packages.sh
command -v pvpython >/dev/null 2>&1 || need_packages check-paraview $PACKAGES
OUT="$BUILD/check-paraview"
rm -rf "$OUT"
start=$(date +%s)
# a small run of each scene, a frame every few steps; tear long enough to tear (it grows)
for scene in $("$BUILD/pbd-run" --help | sed -n '/^Scenes:/,/^$/p' | awk 'NR > 1 && NF { print $1 }'); do
    steps=12
    [ "$scene" = tear ] && steps=40
    "$BUILD/pbd-run" "$scene" --steps=$steps --frames=4 --frame-velocities --quiet \
        --out="$OUT" >/dev/null || { echo "check-paraview: pbd-run $scene failed" >&2; exit 1; }
done
PBD_H5EXTRACT="$BUILD/pbd-h5extract" pvpython --force-offscreen-rendering \
    scripts/check_paraview.py "$OUT"/*/run.xdmf
status=$?
echo "check-paraview: $(( $(date +%s) - start )) s (runs and ParaView)"
exit $status
