#!/bin/sh
# One run of the suite, as build/experiments.mk's recipe (run_all.sh): run COMMAND (pbd-run
# <experiment> --only=<run> …) under its time limit (suite_limits.sh), its output both shown
# and kept in OUT/logs/<exp>/<run>.log; then one progress line "pbd: run k of N done …" or
# "… FAILED …", elapsed and an estimate of the time left (k: the line this run appended to
# OUT/.suite-progress, unique; N and the start time in OUT/.suite-total, .suite-start).
# A run that ends well is recorded in OUT/.suite-seconds. A failed run leaves
# OUT/logs/<exp>/<run>.failed, its reason: "exit status S: <its last output line>" or
# "timed out after L s (…)", which the merge (pbd-run --summarize) names as the reason the
# run is missing.
# Usage: suite_run.sh OUT EXPERIMENT RUN COMMAND… ; exits with COMMAND's status, but 0 for a
# run stopped at its time limit: the suite goes on (run_all.sh names it at the end).
out=$1 exp=$2 run=$3
shift 3
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
. "$here/suite_limits.sh"
logs=$out/logs/$exp
mkdir -p "$logs" "$out/.suite-running"
log=$logs/$run.log
running=$out/.suite-running/$exp.$run
read -r mode 2>/dev/null < "$out/.suite-mode" || mode=quick=0
limit=$(suite_limit "$out" "$mode" "$exp" "$run")
limit_why=${limit#* }
limit=${limit%% *}
grace=${RUN_TIMEOUT_GRACE:-10}
start=$(date +%s)
echo "$start" > "$running"
stopped=$logs/$run.stopped
rm -f "$logs/$run.failed" "$stopped"
{
    "$@" 2>&1 &
    pid=$!
    # the limit's watchdog: SIGTERM past it, SIGKILL a grace period later (a second a poll)
    if [ "$limit" -gt 0 ]; then
        (
            while kill -0 "$pid" 2>/dev/null; do
                now=$(date +%s)
                if [ ! -f "$stopped" ] && [ $((now - start)) -ge "$limit" ]; then
                    echo TERM > "$stopped"
                    kill -TERM "$pid" 2>/dev/null
                    term_at=$now
                elif [ -f "$stopped" ] && [ $((now - term_at)) -ge "$grace" ]; then
                    echo KILL > "$stopped"
                    kill -KILL "$pid" 2>/dev/null
                    break
                fi
                sleep 1
            done
        ) > /dev/null 2>&1 &
        dog=$!
    fi
    wait "$pid"
    echo "$?" > "$log.rc"
    [ -n "${dog:-}" ] && kill "$dog" 2>/dev/null
} | tee "$log"
rc=$(cat "$log.rc" 2>/dev/null || echo 1)
rm -f "$log.rc" "$running"
end=$(date +%s)
secs=$((end - start))
how=$(cat "$stopped" 2>/dev/null)
rm -f "$stopped"
if [ -n "$how" ]; then
    if [ "$how" = KILL ]; then
        why="timed out after $limit s ($limit_why): not stopped by SIGTERM within $grace s, killed (SIGKILL)"
    else
        why="timed out after $limit s ($limit_why): stopped by SIGTERM, finished steps kept in $exp/$run.partial.h5"
    fi
    echo "$why" > "$logs/$run.failed"
    echo "pbd: FAILED $exp/$run: $why; log $log" >&2
    [ "$rc" != 0 ] || rc=1
elif [ "$rc" != 0 ]; then
    last=$(grep . "$log" | tail -n 1)
    why="exit status $rc: $last"
    echo "$why" > "$logs/$run.failed"
    echo "pbd: FAILED $exp/$run (exit status $rc; log $log)" >&2
else
    suite_record "$out" "$mode" "$exp/$run" "$secs"
fi
# the line this run appended is its number: unique when runs end together
line="$exp/$run $rc $secs"
echo "$line" >> "$out/.suite-progress"
k=$(grep -m 1 -n -x -F "$line" "$out/.suite-progress")
k=${k%%:*}
read -r n 2>/dev/null < "$out/.suite-total" || n=0
read -r t0 2>/dev/null < "$out/.suite-start" || t0=$start
suite_min_s el $((end - t0))
suite_left "$out" "$k" "$end"
what=done
[ "$rc" = 0 ] || what=FAILED
printf 'pbd: run %s of %s %s (%s, %s s), elapsed %s%s\n' "$k" "$n" "$what" "$exp/$run" \
    "$secs" "$el" "$suite_left_text"
# a run stopped at its limit does not stop the suite
[ -n "$how" ] && exit 0
exit "$rc"
