#!/bin/sh
# make plots: merge each experiment's runs (pbd-run <experiment> --summarize, which also
# prints the headline) and draw its figures with analysis/plots/<experiment>.gp into
# <results>/figures/ as PNG and SVG. Experiments without results are skipped; any other
# directory of run files gets the generic per-run figures of analysis/plot_runs.sh.
# The merge carries the flags of the sweep frozen in <results>/sweep.manifest (written by
# `make experiments`, locally or on Slurm: experiments/drivers/manifest.sh), e.g. --quick.
# Usage: [ALLOW_MISSING=1] make_plots.sh BUILD_DIR RESULTS_DIR
set -eu
bin=${1:-build}
out=${2:-data/results}
fig=$out/figures
flags=
if [ -f "$out/sweep.manifest" ]; then
    flags=$(awk -F '\t' '$1 == "flags" { print $2; exit }' "$out/sweep.manifest")
fi
# ALLOW_MISSING=1: merge the runs present of a partial sweep, naming the others (pbd-run
# --allow-missing), as the Slurm merge job does after a task failed
if [ "${ALLOW_MISSING:-0}" = 1 ]; then flags="$flags --allow-missing"; fi
mkdir -p "$fig"
status=0
for exp in $("$bin/pbd-run" --list-experiments | cut -d' ' -f1); do
    dir=$out/$exp
    ls "$dir"/*.h5 >/dev/null 2>&1 || continue
    # shellcheck disable=SC2086 # the manifest's flags are words
    "$bin/pbd-run" "$exp" --summarize $flags --out="$out" || { status=1; continue; }
    script=analysis/plots/$exp.gp
    [ -f "$script" ] || continue
    rm -f "$fig/$exp"_*.png "$fig/$exp"_*.svg
    if ! gnuplot -e "bin='$bin'; dir='$dir'; fig='$fig'" "$script"; then
        echo "make_plots: $script failed" >&2
        status=1
    fi
done
# directories of one's own runs (a sweep file's, pbd-run SCENE --out): generic figures
sh analysis/plot_runs.sh "$bin" "$out" || status=1
echo "pbd: figures in $fig/"
exit $status
