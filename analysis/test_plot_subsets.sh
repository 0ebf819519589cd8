#!/bin/sh
# make test-plots: every figure script draws any subset of its sweep. From one quick sweep
# (experiments/drivers/run_all.sh into DIR/all), for every experiment with a script in
# analysis/plots/: the whole sweep, each run alone, and the narrowed sweeps of NARROWED below;
# each is merged (pbd-run <experiment> --summarize) and drawn (gnuplot), and each must exit 0
# and write every figure the whole sweep writes.
# Usage: test_plot_subsets.sh BUILD_DIR [DIR]   (DIR default BUILD_DIR/test-plots)
# Exit status: 0 all drawn, 1 a merge or a script failed (named on stderr).
set -eu
bin=${1:-build}
work=${2:-$bin/test-plots}
# narrowed sweeps by flags: "<experiment> <flags>", one a line (e.g. --rates without 60 Hz)
NARROWED="spring_oscillator --rates=240
spring_oscillator --rates=30,120 --iterations=5 --methods=pbd
chain_forces --iterations=100
substeps_vs_iterations --modes=iterations
stiffness_vs_iterations --variants=xpbd --iterations=40
scaling --schemes=colored --threads=2
balloon_pressure --skins=0.5 --pressures=2
fluid_density --iterations=4 --substeps=1 --epsilons=1000 --dam-iterations=2"

rm -rf "$work"
mkdir -p "$work"
sh experiments/drivers/run_all.sh "$bin" 1 "$work/all" > "$work/suite.log" 2>&1 ||
    { cat "$work/suite.log" >&2; echo "test-plots: the quick sweep failed" >&2; exit 1; }
fails=0
cases=0
# a run alone is a partial sweep: merged with --allow-missing where pbd-run has it
partial=
"$bin/pbd-run" spring_oscillator --help 2>/dev/null | grep -q -- '--allow-missing' && partial=--allow-missing

# draw OUT EXPERIMENT LABEL [SUMMARIZE_FLAGS...]: merge OUT/EXPERIMENT and draw its figures
draw() {
    d=$1 e=$2 label=$3
    shift 3
    cases=$((cases + 1))
    mkdir -p "$d/figures"
    if ! "$bin/pbd-run" "$e" --summarize --quick --quiet --out="$d" "$@" > "$d/merge.log" 2>&1; then
        echo "test-plots: $e, $label: pbd-run $e --summarize failed:" >&2
        sed 's/^/    /' "$d/merge.log" >&2
        fails=$((fails + 1))
        return 0
    fi
    if ! gnuplot -e "bin='$bin'; dir='$d/$e'; fig='$d/figures'" "analysis/plots/$e.gp" \
            > "$d/plot.log" 2>&1; then
        echo "test-plots: $e, $label: analysis/plots/$e.gp failed:" >&2
        grep -v '^\s*$' "$d/plot.log" | tail -5 | sed 's/^/    /' >&2
        fails=$((fails + 1))
        return 0
    fi
    # every figure of the whole sweep, non-empty
    for f in $(cd "$work/all/figures" && ls "$e"_* 2>/dev/null); do
        if [ ! -s "$d/figures/$f" ]; then
            echo "test-plots: $e, $label: no figure $f" >&2
            fails=$((fails + 1))
            return 0
        fi
    done
}

"$bin/pbd-run" --list-experiments | while read -r e _; do
    [ -f "analysis/plots/$e.gp" ] || continue
    echo "$e"
done > "$work/experiments"
while read -r e; do
    # the whole sweep first: its figures are the ones every subset must write too
    mkdir -p "$work/all/figures" "$work/whole"
    cp -r "$work/all/$e" "$work/whole/$e"
    draw "$work/whole" "$e" "the whole sweep"
    cp "$work/whole/figures/$e"_* "$work/all/figures/" 2>/dev/null || true
    n=$(ls "$work/all/figures/$e"_* 2>/dev/null | wc -l)
    [ "$n" -gt 0 ] || { echo "test-plots: $e: the whole sweep drew no figure" >&2; fails=$((fails + 1)); }
    # each run alone
    for f in "$work/all/$e"/*.h5; do
        r=$(basename "$f" .h5)
        [ "$r" = summary ] && continue
        d=$work/one/$e-$r
        mkdir -p "$d/$e"
        ln "$f" "$d/$e/$r.h5" 2>/dev/null || cp "$f" "$d/$e/$r.h5"
        draw "$d" "$e" "only run $r" $partial
    done
done < "$work/experiments"

# narrowed sweeps: run with the flags, merge with the same flags
k=0
while read -r e flags; do
    k=$((k + 1))
    d=$work/narrow/$k
    mkdir -p "$d"
    # shellcheck disable=SC2086
    if ! "$bin/pbd-run" "$e" --quick --quiet $flags --out="$d" > "$d/run.log" 2>&1; then
        echo "test-plots: $e $flags: the sweep failed:" >&2
        sed 's/^/    /' "$d/run.log" >&2
        fails=$((fails + 1))
        continue
    fi
    # shellcheck disable=SC2086
    draw "$d" "$e" "$flags" $flags
done <<EOF
$NARROWED
EOF

if [ "$fails" -gt 0 ]; then
    echo "test-plots: $fails of $cases subsets failed" >&2
    exit 1
fi
echo "test-plots: $cases subsets of $(wc -l < "$work/experiments") experiments' sweeps drawn (whole, each run alone, narrowed)"
