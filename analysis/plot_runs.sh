#!/bin/sh
# make plots, for directories of one's own runs (a sweep file's, pbd-run SCENE --out=DIR):
# every directory RESULTS/<name>/ that is not an experiment of the suite and holds run files
# gets generic figures with analysis/plots/runs.gp, one curve per run, in RESULTS/figures/:
# <name>_residual_<NN_type> (each constraint set's max |C| in its unit), <name>_energy (the
# total energy, J), <name>_momentum (|P|, kg m/s, and |L|, kg m^2/s) vs time, PNG and SVG.
# The runs: summary.h5's runs_merged when the directory was merged (pbd-run --sweep), else
# every complete <run>.h5 in it. Prints one line per directory drawn.
# Usage: plot_runs.sh BUILD_DIR RESULTS_DIR
set -eu
bin=${1:-build}
out=${2:-data/results}
fig=$out/figures
experiments=" $("$bin/pbd-run" --list-experiments | cut -d' ' -f1 | tr '\n' ' ') "
status=0
for dir in "$out"/*/; do
    dir=${dir%/}
    name=$(basename "$dir")
    case "$experiments" in *" $name "*) continue ;; esac
    case "$name" in figures|logs|slurm) continue ;; esac
    runs=
    if [ -f "$dir/summary.h5" ]; then
        runs=$("$bin/pbd-h5extract" "$dir/summary.h5" --attr runs_merged 2>/dev/null || true)
    else
        for f in "$dir"/*.h5; do
            [ -f "$f" ] || continue
            r=$(basename "$f" .h5)
            case "$r" in *.partial) continue ;; esac
            [ "$("$bin/pbd-h5extract" "$f" --attr complete 2>/dev/null)" = 1 ] || continue
            runs="$runs $r"
        done
    fi
    [ -n "$(echo $runs)" ] || continue
    mkdir -p "$fig"
    rm -f "$fig/$name"_residual_*.png "$fig/$name"_residual_*.svg
    # the constraint sets of the first run (every run of a sweep has the same scene)
    first=$(echo $runs | cut -d' ' -f1)
    sets=$("$bin/pbd-h5extract" "$dir/$first.h5" --list |
           sed -n 's|^/series/sets/\([^/]*\)/max_c .*|\1|p' | tr '\n' ' ')
    if gnuplot -e "bin='$bin'; dir='$dir'; fig='$fig'; name='$name'; runs='$(echo $runs)'; sets='$sets'" \
        analysis/plots/runs.gp; then
        echo "pbd: $name: $(echo $runs | wc -w) runs drawn: $fig/${name}_{residual_*,energy,momentum}.png"
    else
        echo "plot_runs: analysis/plots/runs.gp failed on $dir" >&2
        status=1
    fi
done
exit $status
