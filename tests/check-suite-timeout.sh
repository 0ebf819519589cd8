#!/bin/sh
# A suite that cannot stall (experiments/drivers/run_all.sh, suite_run.sh, suite_limits.sh),
# on a tiny sweep: three quick runs of spring_oscillator, the second made to hang in its
# third step (pbd-run's --test-fault=hang: a step that never looks at the stop flag). The
# suite must end, name that run FAILED with "timed out after 3 s", keep its finished steps
# (SIGTERM: <run>.partial.h5), finish the other two, number the runs 1, 2, 3 once each, put
# an estimate on every heartbeat line, and exit 1. Then a run that ignores SIGTERM is killed
# a grace period later, and the limit follows the records (suite_limit).
# Usage: check-suite-timeout.sh BUILD_DIR ; prints "FAIL: …" and exits 1 at the first miss.
set -u
bin=$(cd "${1:-build}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
drivers=$root/experiments/drivers
t=$(mktemp -d /tmp/pbd-suite-timeout-XXXXXX)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; [ -f "$t/suite.txt" ] && sed 's/^/    /' "$t/suite.txt"; exit 1; }

exp=spring_oscillator
runs=$("$bin/pbd-run" "$exp" --quick --list | head -n 3)
hang=$(echo "$runs" | sed -n 2p)
[ -n "$hang" ] || fail "pbd-run $exp --list gave fewer than 3 runs"
# the sweep: one experiment, its first three runs, the second hanging
mkdir -p "$t/bin"
cat > "$t/bin/pbd-run" <<EOF
#!/bin/sh
case "\$1" in --list-experiments) echo "$exp 0"; exit 0 ;; esac
case " \$* " in *" --list "*) "$bin/pbd-run" "\$@" | head -n 3; exit 0 ;; esac
case " \$* " in *" --only=$hang "*) exec "$bin/pbd-run" "\$@" --test-fault-step=3 --test-fault=hang ;; esac
exec "$bin/pbd-run" "\$@"
EOF
chmod +x "$t/bin/pbd-run"

start=$(date +%s)
# one job: the third run starts only after the second has timed out (the suite went on)
RUN_TIMEOUT=3 RUN_TIMEOUT_GRACE=5 SUITE_HEARTBEAT=1 JOBS=1 \
    sh "$drivers/run_all.sh" "$t/bin" 1 "$t/out" > "$t/suite.txt" 2>&1
status=$?
took=$(($(date +%s) - start))
[ "$status" = 1 ] || fail "the suite's exit status: expected 1 (a run failed), found $status"
# limit 3 s, pbd-run's grace 0.8 s, a poll of 1 s: well under 3 + 5 (the KILL) + the others
[ "$took" -lt 30 ] || fail "the suite took $took s: the hanging run was not stopped at its limit"
grep -q "^pbd:   $exp/$hang: timed out after 3 s (RUN_TIMEOUT): stopped by SIGTERM" "$t/suite.txt" ||
    fail "the summary does not name $exp/$hang as timed out after 3 s, stopped by SIGTERM"
grep -q "^pbd: 1 of 3 runs ended FAILED:" "$t/suite.txt" || fail "the summary does not count 1 of 3 failed"
[ -f "$t/out/$exp/$hang.partial.h5" ] || fail "no $hang.partial.h5: SIGTERM did not let pbd-run keep its steps"
grep -q "timed out after 3 s" "$t/out/logs/$exp/$hang.failed" ||
    fail "$hang.failed does not give the reason (what the merge names)"
for r in $runs; do
    [ "$r" = "$hang" ] && continue
    [ "$("$bin/pbd-h5extract" "$t/out/$exp/$r.h5" --attr complete 2>/dev/null)" = 1 ] ||
        fail "$exp/$r was not done: the suite did not go on past the hanging run"
done
for k in 1 2 3; do
    c=$(grep -c "^pbd: run $k of 3 " "$t/suite.txt")
    [ "$c" = 1 ] || fail "'run $k of 3' printed $c times, expected once"
done
grep -q "^pbd: run [123] of 3 FAILED ($exp/$hang, " "$t/suite.txt" ||
    fail "the hanging run's progress line does not say FAILED"
[ "$(grep -c "^pbd: run [123] of 3 done " "$t/suite.txt")" = 2 ] || fail "expected 2 runs counted done"
beats=$(grep -c "^pbd: [0-9]* of 3 runs ended (" "$t/suite.txt")
[ "$beats" -ge 1 ] || fail "no heartbeat line while the run hung (SUITE_HEARTBEAT=1)"
[ "$(grep "^pbd: [0-9]* of 3 runs ended (" "$t/suite.txt" | grep -c -v -e 'left (runs' -e 'no estimate before')" = 0 ] ||
    fail "a heartbeat line without an estimate"
grep "^pbd: run [123] of 3 " "$t/suite.txt" | grep -q -v "then figures and report" &&
    fail "a progress line whose estimate leaves out the figures and the report"
# the records: the two good runs, none for the failed one
[ "$(grep -c "^quick=1 $exp/" "$t/out/.suite-seconds")" = 2 ] ||
    fail "expected the two good runs recorded in .suite-seconds"
grep -q " $exp/$hang " "$t/out/.suite-seconds" && fail "the timed-out run was recorded as a duration"

# a run that ignores SIGTERM: SIGKILL RUN_TIMEOUT_GRACE s later; the suite's make goes on (0)
t1=$(date +%s)
RUN_TIMEOUT=2 RUN_TIMEOUT_GRACE=2 timeout -k 1 30 sh "$drivers/suite_run.sh" "$t/out" deaf r1 \
    sh -c 'trap "" TERM; while :; do sleep 1; done' > "$t/deaf.txt" 2>&1
status=$?
took1=$(($(date +%s) - t1))
[ "$status" = 0 ] || fail "suite_run.sh of a timed-out run: expected exit 0 (the suite goes on), found $status"
[ "$took1" -lt 10 ] || fail "the run that ignores SIGTERM was not killed ($took1 s)"
grep -q "^timed out after 2 s (RUN_TIMEOUT): not stopped by SIGTERM within 2 s, killed (SIGKILL)" \
    "$t/out/logs/deaf/r1.failed" || fail "the reason of the killed run: $(cat "$t/out/logs/deaf/r1.failed")"

# runs ending together get numbers of their own: six at once
echo 6 > "$t/out/.suite-total"
: > "$t/out/.suite-progress"
for i in 1 2 3 4 5 6; do
    sh "$drivers/suite_run.sh" "$t/out" together r$i sleep 1 > "$t/together$i.txt" 2>&1 &
done
wait
for k in 1 2 3 4 5 6; do
    c=$(cat "$t"/together*.txt | grep -c "^pbd: run $k of 6 done")
    [ "$c" = 1 ] || fail "runs ending together: 'run $k of 6' printed $c times, expected once"
done

# the limit from the records: factor × the run's own, else the experiment's longest, at
# least the minimum; else the default
limit() { (unset RUN_TIMEOUT; . "$drivers/suite_limits.sh"; suite_limit "$t/rec" "$@") | cut -d' ' -f1; }
mkdir -p "$t/rec"
printf 'quick=0 e/a 30\nquick=0 e/a 20\nquick=0 e/b 50\nquick=1 e/c 99\n' > "$t/rec/.suite-seconds"
[ "$(limit quick=0 e a)" = 200 ] || fail "10 × the last record (20 s): found $(limit quick=0 e a)"
[ "$(limit quick=0 e z)" = 500 ] || fail "10 × the experiment's longest (50 s): found $(limit quick=0 e z)"
[ "$(limit quick=1 e a)" = 990 ] || fail "the records of the mode: found $(limit quick=1 e a)"
[ "$(limit quick=0 f a)" = 900 ] || fail "the default without records: found $(limit quick=0 f a)"
[ "$(RUN_TIMEOUT_MIN=300 limit quick=0 e a)" = 300 ] || fail "RUN_TIMEOUT_MIN: found $(RUN_TIMEOUT_MIN=300 limit quick=0 e a)"
[ "$(RUN_TIMEOUT_FACTOR=3 limit quick=0 e b)" = 150 ] || fail "RUN_TIMEOUT_FACTOR=3: found $(RUN_TIMEOUT_FACTOR=3 limit quick=0 e b)"
RUN_TIMEOUT=abc sh "$drivers/run_all.sh" "$t/bin" 1 "$t/out2" > "$t/bad.txt" 2>&1
[ $? = 2 ] && grep -q "RUN_TIMEOUT: expected a whole number of seconds, found 'abc'" "$t/bad.txt" ||
    fail "RUN_TIMEOUT=abc: expected exit 2 naming it, found: $(cat "$t/bad.txt")"
echo "check-suite-timeout: ok (the hanging run stopped and named, the others done, in $took s)"
