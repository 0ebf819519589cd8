#!/bin/sh
# make bench-repeat (experiments/programs/README.md "Repeated runs"): the
# bench's target lines over RUNS runs at each SIMD width, and for each target how many runs
# met it, with every run's figure and the load average around it. Run it on a quiet machine:
# the "9 of 9 runs" claims are made from its summary.
#   sh scripts/bench-repeat.sh [RUNS [WIDTHS]]   (RUNS 9; WIDTHS: 8 4 with AVX-512, 4 with
#   AVX2, else 2). Environment: BENCH (build/bench/pbd-bench), BENCH_AVX2 (the program for
#   width 4, e.g. built with -march=x86-64-v3; default BENCH), BENCH_ARGS (the scenes: the
#   bending cloth and the 316² cloth), OUT (the run logs and tables; build/bench/repeat),
#   BENCH_HISTORY (the CSV every run appends its rows to, pbd-bench --history; make
#   bench-repeat: data/measurements/bench.csv; empty: none).
# Exit status 0 (the summary printed, targets met or not), 2 on a bad argument, 1 when a run
# fails.
runs=${1:-9}
bench=${BENCH:-build/bench/pbd-bench}
args=${BENCH_ARGS:---scene=cloth100-bend,cloth316 --exact}
out=${OUT:-build/bench/repeat}
history=${BENCH_HISTORY:-}
case $runs in
''|*[!0-9]*|0) echo "bench-repeat: RUNS: expected a positive integer, found '$runs'" >&2; exit 2 ;;
esac
if [ -n "$2" ]; then
    widths=$2
elif grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
    widths="8 4"
elif grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
    widths=4
else
    widths=2
fi
for w in $widths; do
    case $w in 2|4|8) ;; *) echo "bench-repeat: WIDTHS: expected 2, 4 or 8, found '$w'" >&2; exit 2 ;; esac
done
for p in "$bench" ${BENCH_AVX2:+"$BENCH_AVX2"}; do
    [ -x "$p" ] || { echo "bench-repeat: $p: expected the bench program, found none (make bench-repeat builds it)" >&2; exit 2; }
done
mkdir -p "$out" || exit 1
for w in $widths; do
    i=1
    while [ "$i" -le "$runs" ]; do
        log=$out/w$w-run$i.log
        echo "bench-repeat: width $w, run $i of $runs (load $(cut -d' ' -f1 /proc/loadavg))" >&2
        # shellcheck disable=SC2086
        prog=$bench
        [ "$w" = 4 ] && [ -n "$BENCH_AVX2" ] && prog=$BENCH_AVX2
        "$prog" $args --simd-width="$w" --output="$out/w$w-run$i" ${history:+--history="$history"} > "$log" 2>&1 ||
            { echo "bench-repeat: run $i at width $w failed, see $log" >&2; exit 1; }
        i=$((i + 1))
    done
done
# The summary: each target line cut at "; " into its parts, each part ending in "met" or
# "NOT met"; a part's key is its text with the numbers replaced by '#'.
for w in $widths; do
    echo "== SIMD width $w: $(grep -h '^# SIMD colour kernels' "$out/w$w-run1.log" | sed 's/^# //'); $(grep -ho 'flags cc [^;]*' "$out/w$w-run1.log" | head -1 | cut -d' ' -f1-4)"
    for i in $(seq 1 "$runs"); do
        printf 'run %d: %s\n' "$i" "$(grep -h '^# load average' "$out/w$w-run$i.log" | sed 's/^# //' | tr '\n' ';')"
    done
    for i in $(seq 1 "$runs"); do
        sed -n '/^# targets/,$p' "$out/w$w-run$i.log" | grep '^#   '
    done | awk -v runs="$runs" '
    {
        sub(/^#   /, "")
        n = split($0, part, "; ")
        head = ""
        for (k = 1; k <= n; k++) {
            p = part[k]
            if (p ~ /NOT met$/) ok = 0; else if (p ~ /met$/) ok = 1; else continue
            key = p
            sub(/: (NOT )?met$/, "", key)
            fig = key
            gsub(/[0-9]+(\.[0-9]+)?/, "#", key)
            if (k == 1) head = key
            else key = substr(head, 1, 40) " ... " key
            if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
            met[key] += ok
            count[key]++
            cut = 0 # the figure: after the last ": " before the last " (", the target
            for (t = index(fig, " ("); t > 0; t = index(substr(fig, cut + 1), " (")) cut += t
            if (cut > 0) fig = substr(fig, 1, cut - 1)
            while ((t = index(fig, ": ")) > 0) fig = substr(fig, t + 2)
            sub(/ +$/, "", fig)
            figs[key] = figs[key] " [" fig "]"
        }
    }
    END {
        for (j = 1; j <= nk; j++) {
            k = order[j]
            printf "%-7s %d of %d: %s\n         figures:%s\n", met[k] == count[k] ? "MET" : "NOT MET", met[k], count[k], k, figs[k]
        }
    }'
done
