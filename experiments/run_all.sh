#!/bin/sh
# Run the experiment suite. Until the HDF5 experiment drivers land, this runs the two
# foundation scenes and keeps their per-step residuals as text under data/results/.
# Usage: run_all.sh BUILD_DIR QUICK
set -eu
bin=${1:-build}
quick=${2:-0}
steps=300
[ "$quick" = 1 ] && steps=60
mkdir -p data/results/foundation
for scene in chain cloth; do
    out=data/results/foundation/$scene.txt
    echo "pbd-run $scene --steps=$steps -> $out"
    "$bin/pbd-run" "$scene" --steps="$steps" --iterations=20 --every=10 > "$out.tmp"
    mv "$out.tmp" "$out"
    tail -n 1 "$out"
done
