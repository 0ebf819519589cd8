#!/bin/sh
# One run of the suite, as build/experiments.mk's recipe (run_all.sh): run COMMAND (pbd-run
# <experiment> --only=<run> …), its output both shown and kept in OUT/logs/<exp>/<run>.log;
# then one progress line "pbd: run k of N done …, elapsed, about … left" (k counted in
# OUT/.suite-progress, N and the start time in OUT/.suite-total, .suite-start).
# A failed run leaves OUT/logs/<exp>/<run>.failed: "exit status S: <its last output line>",
# which the merge (pbd-run --summarize) names as the reason the run is missing.
# Usage: suite_run.sh OUT EXPERIMENT RUN COMMAND… ; exits with COMMAND's status.
out=$1 exp=$2 run=$3
shift 3
logs=$out/logs/$exp
mkdir -p "$logs" "$out/.suite-running"
log=$logs/$run.log
running=$out/.suite-running/$exp.$run
start=$(date +%s)
echo "$start" > "$running"
rm -f "$logs/$run.failed"
{ "$@" 2>&1; echo "$?" > "$log.rc"; } | tee "$log"
rc=$(cat "$log.rc" 2>/dev/null || echo 1)
rm -f "$log.rc" "$running"
end=$(date +%s)
if [ "$rc" != 0 ]; then
    last=$(grep . "$log" | tail -n 1)
    echo "exit status $rc: $last" > "$logs/$run.failed"
    echo "pbd: FAILED $exp/$run (exit status $rc; log $log)" >&2
fi
echo "$exp/$run $rc $((end - start))" >> "$out/.suite-progress"
k=$(wc -l < "$out/.suite-progress")
n=$(cat "$out/.suite-total" 2>/dev/null || echo "?")
t0=$(cat "$out/.suite-start" 2>/dev/null || echo "$start")
el=$((end - t0))
left=
# the runs still to do, as long on average as those done (the heavy ones vary: a rough guide)
[ "$n" != "?" ] && [ "$k" -gt 0 ] && left=", about $(( el * (n - k) / k / 60 )) min $(( el * (n - k) / k % 60 )) s left"
printf 'pbd: run %s of %s done (%s, %s s), elapsed %d min %d s%s\n' "$k" "$n" "$exp/$run" \
    "$((end - start))" $((el / 60)) $((el % 60)) "$left"
exit "$rc"
