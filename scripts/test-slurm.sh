#!/bin/sh
# make test-slurm, step 2 of 2: with a Slurm cluster up (SLURM_CONF set by
# scripts/slurm-local.sh run), check `make experiments QUICK=1 SCHEDULER=slurm`:
#   1. the jobs as submitted: one array per experiment over the frozen run list, the timed
#      experiments throttled to one task (%1) and exclusive, --time, --cpus-per-task, output
#      under the results directory, the merge after all arrays (afterany);
#   2. one array task is cancelled before it runs: the merge job still runs (it does not wait
#      forever), writes the report of what is there and fails naming the missing run;
#   3. the cancelled run is left as a <run>.partial.h5 (complete = 0), as a task cancelled or
#      timed out while running leaves it; submitting again while that submission is queued is
#      refused; submitting again runs that run alone (no other run file is rewritten);
#   4. every run file and summary equals a local QUICK run's (scripts/compare-results.sh:
#      h5diff, but for dates, command lines and wall times), and no file was written outside
#      build/ and the results directories.
# Usage: test-slurm.sh BUILD_DIR     Exit status: 0 passed, 1 failed (the reason on stderr).
set -eu
bin=${1:-build}
t=$bin/test-slurm
loc=$t/local
slu=$t/slurm
: "${SLURM_CONF:?test-slurm.sh runs inside scripts/slurm-local.sh run}"
start=$(date +%s)
pass=0

fail() { echo "test-slurm: FAILED: $*" >&2; exit 1; }
ok() { pass=$((pass + 1)); echo "test-slurm: ok $pass - $*"; }

if ! command -v h5diff >/dev/null 2>&1; then
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 ||
        fail "expected h5diff, found none: sudo apt-get install --no-install-recommends hdf5-tools"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends hdf5-tools >&2 ||
        { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
              --no-install-recommends hdf5-tools >&2; } || fail "apt-get install hdf5-tools failed"
fi

# files outside build/ and the results directories: none may appear
# (git's untracked and ignored files: data/results/ is ignored, build/ too)
untracked() { git status --porcelain --ignored --untracked-files=all 2>/dev/null | grep -v "^.. $bin/" || true; }
rm -rf "$t"
mkdir -p "$t"
untracked > "$t/before"

# job ids of the last submission to the results directory: "<id> <experiment> <array>" lines
jobs_file=$slu/slurm/jobs
ids() { awk '{ print $1 }' "$jobs_file" | paste -sd, -; }
# wait until none of the submission's jobs is queued or running (at most $1 s)
wait_done() {
    i=0
    while [ -n "$(squeue -h -j "$(ids)" 2>/dev/null)" ]; do
        i=$((i + 1))
        [ "$i" -le "$1" ] || { squeue >&2; fail "jobs still queued after $1 s"; }
        sleep 1
    done
}
field() { scontrol show job "$1" | tr ' ' '\n' | awk -v k="$2=" 'index($0, k) == 1 { print substr($0, length(k) + 1); exit }'; }
merge_id() { awk '$2 == "merge" { print $1 }' "$jobs_file"; }

# ---- the local reference -----------------------------------------------------------------
make --no-print-directory BUILD="$bin" experiments QUICK=1 RESULTS="$loc" > "$t/local.log" 2>&1 ||
    { tail -20 "$t/local.log" >&2; fail "the local QUICK run failed"; }
ok "local QUICK run into $loc ($(( $(date +%s) - start )) s)"

# ---- 1. submission, held so that the jobs can be inspected and one task cancelled ---------
make --no-print-directory BUILD="$bin" experiments QUICK=1 SCHEDULER=slurm RESULTS="$slu" \
    SLURM_ARGS=--hold > "$t/submit1.log" 2>&1 || { cat "$t/submit1.log" >&2; fail "submission failed"; }
[ -f "$slu/sweep.manifest" ] || fail "no $slu/sweep.manifest"
n_exp=$("$bin/pbd-run" --list-experiments | wc -l)
[ "$(grep -vc ' merge$' "$jobs_file")" = "$n_exp" ] || fail "expected $n_exp arrays, found: $(cat "$jobs_file")"
while read -r exp timing n; do
    id=$(awk -v e="$exp" '$2 == e { print $1 }' "$jobs_file")
    [ -n "$id" ] || fail "$exp: no array submitted"
    want=1-$n
    [ "$n" != 1 ] || want=1
    [ "$timing" != 1 ] || want=$want%1
    spec=$(field "$id" ArrayTaskId)
    [ "$spec" = "$want" ] || fail "$exp: array $spec, expected $want"
    [ "$(field "$id" TimeLimit)" = 00:10:00 ] || fail "$exp: TimeLimit $(field "$id" TimeLimit), expected 00:10:00"
    case "$(field "$id" StdOut)" in "$(cd "$slu" && pwd)"/slurm/*) ;; *) fail "$exp: StdOut $(field "$id" StdOut)" ;; esac
    if [ "$timing" = 1 ]; then
        [ "$(field "$id" ArrayTaskThrottle)" = 1 ] || fail "$exp: measures wall time, but no %1 throttle"
        [ "$(field "$id" OverSubscribe)" = NO ] || fail "$exp: measures wall time, but not --exclusive"
    else
        [ "$(field "$id" CPUs/Task)" = 1 ] || fail "$exp: CPUs/Task $(field "$id" CPUs/Task), expected 1"
    fi
done <<EOF
$(awk -F '\t' '$1 == "experiment" { print $2, $3, $4 }' "$slu/sweep.manifest")
EOF
merge=$(merge_id)
dep=$(field "$merge" Dependency)
case "$dep" in afterany:*) ;; *) fail "merge job $merge: dependency '$dep', expected afterany on the arrays" ;; esac
[ "$(echo "$dep" | tr -cd ',' | wc -c)" = $((n_exp - 1)) ] || fail "merge job $merge: dependency '$dep', expected all $n_exp arrays"
ok "$n_exp arrays (timed: %1, exclusive), 10 min, 1 CPU, output under $slu/slurm, merge $merge after all (afterany)"

# ---- 2. cancel one task, release the rest -------------------------------------------------
cexp=spring_oscillator
cidx=3
crun=$(awk -F '\t' -v e="$cexp" -v i="$cidx" '$1 == "run" && $2 == e && $3 == i { print $4 }' "$slu/sweep.manifest")
cid=$(awk -v e="$cexp" '$2 == e { print $1 }' "$jobs_file")
scancel "${cid}_$cidx"
for id in $(awk '{ print $1 }' "$jobs_file"); do scontrol release "$id"; done
wait_done 600
[ ! -e "$slu/$cexp/$crun.h5" ] || fail "$cexp/$crun: cancelled, but its file exists"
state=$(field "$merge" JobState)
[ "$state" = FAILED ] || fail "merge job $merge: $state, expected FAILED (a run is missing)"
grep -q "1 of .* runs missing or cut short: $cexp/$crun" "$slu/slurm/pbd-merge_$merge.out" ||
    fail "merge job $merge does not name the missing run $cexp/$crun"
[ -s "$slu/report.html" ] || fail "merge job $merge wrote no $slu/report.html"
ok "task ${cid}_$cidx ($cexp/$crun) cancelled: the merge ran anyway, wrote the report and failed naming it ($(( $(date +%s) - start )) s)"

# ---- 3. the cancelled run cut short, resubmission ----------------------------------------
# a task cancelled while running keeps its steps as <run>.partial.h5 (complete = 0): make one
"$bin/pbd-run" "$cexp" --only="$crun" --quick --quiet --test-fault-step=2 --out="$slu" \
    > /dev/null 2>&1 && fail "--test-fault-step did not stop the run"
[ -f "$slu/$cexp/$crun.partial.h5" ] || fail "no $slu/$cexp/$crun.partial.h5"
[ "$("$bin/pbd-h5extract" "$slu/$cexp/$crun.partial.h5" --attr complete)" = 0 ] || fail "partial file with complete != 0"
find "$slu" -path "$slu/slurm" -prune -o -name '*.h5' ! -name '*.partial.h5' -exec ls -i {} + | sort > "$t/inodes.before"
make --no-print-directory BUILD="$bin" experiments QUICK=1 SCHEDULER=slurm RESULTS="$slu" \
    SLURM_ARGS=--hold > "$t/submit2.log" 2>&1 || { cat "$t/submit2.log" >&2; fail "resubmission failed"; }
[ "$(grep -vc ' merge$' "$jobs_file")" = 1 ] || fail "resubmission: expected one array, found: $(cat "$jobs_file")"
grep -q "^[0-9]* $cexp $cidx\$" "$jobs_file" || fail "resubmission: expected $cexp task $cidx alone, found: $(cat "$jobs_file")"
# while that submission is queued, another is refused
if make --no-print-directory BUILD="$bin" experiments QUICK=1 SCHEDULER=slurm RESULTS="$slu" \
        > "$t/submit3.log" 2>&1; then
    fail "a submission while the last one is queued was accepted"
fi
grep -q 'still queued or running' "$t/submit3.log" || fail "refused without saying why: $(cat "$t/submit3.log")"
for id in $(awk '{ print $1 }' "$jobs_file"); do scontrol release "$id"; done
wait_done 300
merge=$(merge_id)
[ "$(field "$merge" JobState)" = COMPLETED ] ||
    { cat "$slu/slurm/pbd-merge_$merge.out" >&2; fail "merge job $merge: $(field "$merge" JobState)"; }
[ "$("$bin/pbd-h5extract" "$slu/$cexp/$crun.h5" --attr complete)" = 1 ] || fail "$cexp/$crun: not complete after resubmission"
find "$slu" -path "$slu/slurm" -prune -o -name '*.h5' ! -name '*.partial.h5' -exec ls -i {} + | sort > "$t/inodes.after"
[ "$(wc -l < "$t/inodes.before")" -gt 80 ] || fail "expected the run files in $t/inodes.before"
changed=$(comm -13 "$t/inodes.before" "$t/inodes.after" | awk '{ print $2 }' | grep -v '/summary.h5$' | tr '\n' ' ')
[ "$changed" = "$slu/$cexp/$crun.h5 " ] || fail "resubmission rewrote: $changed, expected $slu/$cexp/$crun.h5 alone"
ok "resubmission ran $cexp/$crun alone (its partial file counted as missing), a second submission meanwhile refused; merge $merge COMPLETED"

# ---- 4. the same results as the local run ---------------------------------------------
sh scripts/compare-results.sh "$bin" "$loc" "$slu" > "$t/compare.log" 2>&1 ||
    { cat "$t/compare.log" >&2; fail "the Slurm results differ from the local run's"; }
ok "$(cat "$t/compare.log")"
untracked > "$t/after"
if ! cmp -s "$t/before" "$t/after"; then
    fail "files written outside $bin/: $(comm -13 "$t/before" "$t/after" | tr '\n' ' ')"
fi
ok "no file outside $bin/"
echo "test-slurm: $pass passed, 0 failed ($(( $(date +%s) - start )) s)"
