#!/bin/sh
# make experiments SCHEDULER=slurm: the suite as Slurm job arrays (experiments/README.md,
# "On a Slurm cluster").
#
#   slurm.sh submit BUILD_DIR QUICK OUT [SBATCH_OPTION...]   (make experiments SCHEDULER=slurm)
#   slurm.sh task MANIFEST EXPERIMENT                        (one array task: one run)
#   slurm.sh merge MANIFEST                                  (the dependent job)
#
# submit freezes the sweep in OUT/sweep.manifest (manifest.sh: the run list and the flags, e.g.
# --quick) and the programs in OUT/slurm/bin/, then submits per experiment one job array over
# the runs whose complete file is missing (a <run>.partial.h5 from a cancelled or timed-out
# task counts as missing), and one merge job, after all of them (afterany: it never waits
# forever), that summarizes every experiment, draws the figures and writes OUT/report.html.
# Every task and the merge read their flags from the manifest. The experiments that measure
# wall time (timing 1 in pbd-run --list-experiments) run one task at a time (array throttle
# %1) and alone on their node (--exclusive). Job output goes to OUT/slurm/. SBATCH_OPTIONs
# (SLURM_ARGS: partition, account, ...) go to every sbatch after ours, so they win.
# Exit status: 0 submitted (task, merge: 0 when the run / every run is complete), 1 a job
# failed or could not be submitted, 2 bad usage.
set -eu

die() { echo "pbd: $*" >&2; exit 1; }
usage() { echo "pbd: $*" >&2; exit 2; }

# "1 2 3 5 7 8" -> "1-3,5,7-8"
ranges() {
    awk '{
        s = ""; a = $1; b = $1
        for (i = 2; i <= NF + 1; i++) {
            if (i <= NF && $i == b + 1) { b = $i; continue }
            s = s (s == "" ? "" : ",") (a == b ? a : a "-" b)
            if (i <= NF) { a = $i; b = $i }
        }
        print s
    }'
}

# The manifest's directory fields, and manifest.sh from the repository it names.
load_manifest() {
    manifest=$1
    [ -f "$manifest" ] || usage "slurm.sh: MANIFEST: expected a sweep manifest, found no file '$manifest'"
    root=$(awk -F '\t' '$1 == "root" { print $2; exit }' "$manifest")
    [ -n "$root" ] || die "$manifest: expected a 'root' record, found none"
    . "$root/experiments/drivers/manifest.sh"
    bin=$(manifest_get "$manifest" bin)
    out=$(manifest_get "$manifest" out)
    flags=$(manifest_get "$manifest" flags)
    cd "$root"
}

# ---- one array task: run SLURM_ARRAY_TASK_ID of EXPERIMENT ------------------------------
task() {
    [ $# = 2 ] || usage "usage: slurm.sh task MANIFEST EXPERIMENT"
    load_manifest "$1"
    exp=$2
    i=${SLURM_ARRAY_TASK_ID:?slurm.sh task runs as a Slurm array task}
    run=$(manifest_runs "$manifest" "$exp" | awk -v i="$i" '$1 == i { print $2 }')
    [ -n "$run" ] || die "$manifest: expected run $i of $exp, found none"
    timing=$(manifest_experiments "$manifest" | awk -v e="$exp" '$1 == e { print $2 }')
    # the node's cores are this task's only when it has the node to itself (timed experiments)
    [ "$timing" = 1 ] || export OMP_NUM_THREADS="${SLURM_CPUS_PER_TASK:-1}"
    echo "pbd: $exp/$run, task $i of job ${SLURM_ARRAY_JOB_ID:-?} on $(hostname)"
    # shellcheck disable=SC2086 # the manifest's flags are words
    exec "$bin/pbd-run" "$exp" --only="$run" $flags --out="$out"
}

# ---- the dependent job: summaries, figures, report --------------------------------------
merge() {
    [ $# = 1 ] || usage "usage: slurm.sh merge MANIFEST"
    load_manifest "$1"
    missing=
    n=0
    while read -r exp _ _; do
        while read -r _ run; do
            n=$((n + 1))
            run_complete "$bin" "$out/$exp/$run.h5" || missing="$missing $exp/$run"
        done <<EOF
$(manifest_runs "$manifest" "$exp")
EOF
    done <<EOF
$(manifest_experiments "$manifest")
EOF
    rc=0
    # the report of what is there; the job fails below when a run is missing
    if [ -n "$missing" ]; then
        ALLOW_MISSING=1 sh analysis/make_plots.sh "$bin" "$out" || rc=1
    else
        sh analysis/make_plots.sh "$bin" "$out" || rc=1
    fi
    "$bin/pbd-report" "$out" || rc=1
    if [ -n "$missing" ]; then
        set -- $missing
        echo "pbd: $# of $n runs missing or cut short:$missing" >&2
        echo "pbd: submit again to run only these: make experiments SCHEDULER=slurm" \
             "RESULTS=$out$(case " $flags " in *" --quick "*) echo " QUICK=1" ;; esac)" >&2
        rc=1
    fi
    exit $rc
}

# ---- submission ------------------------------------------------------------------------
submit() {
    [ $# -ge 3 ] || usage "usage: slurm.sh submit BUILD_DIR QUICK OUT [SBATCH_OPTION...]"
    build=$1 quick=$2 out=${3%/}
    shift 3
    here=$(cd "$(dirname "$0")" && pwd)
    root=$(pwd)
    . "$here/manifest.sh"
    command -v sbatch >/dev/null 2>&1 ||
        usage "SCHEDULER=slurm: expected sbatch on the PATH, found none (on a cluster: load its Slurm module)"
    case "$out" in
    '' | *[[:space:]]*) usage "RESULTS: expected a directory without spaces, found '$out'" ;;
    esac
    q=
    [ "$quick" = 1 ] && q=--quick
    sd=$out/slurm
    mkdir -p "$sd/bin"

    # a sweep still queued or running in OUT would be submitted twice
    if [ -s "$sd/jobs" ]; then
        ids=$(awk '{ print $1 }' "$sd/jobs" | paste -sd, -)
        active=$(squeue -h -o '%i %T' -j "$ids" 2>/dev/null || true)
        [ -z "$active" ] || die "jobs of the last submission to $out are still queued or" \
            "running ($(echo "$active" | awk '{ print $1 }' | paste -sd' ' -)): wait for them" \
            "(squeue -j $ids) or cancel them (scancel $(echo "$ids" | tr , ' ')), then submit again"
    fi

    # freeze the programs and the run list
    for p in pbd-run pbd-h5extract pbd-report; do
        [ -x "$build/$p" ] || usage "BUILD_DIR: expected $build/$p, found none (make all)"
        cp "$build/$p" "$sd/bin/$p.tmp-$$" && mv -f "$sd/bin/$p.tmp-$$" "$sd/bin/$p"
    done
    bin=$(cd "$sd/bin" && pwd)
    manifest=$out/sweep.manifest
    old_flags=
    [ -f "$manifest" ] && old_flags=$(manifest_get "$manifest" flags)
    redo_all=0
    [ -f "$manifest" ] && [ "$old_flags" != "$q" ] && redo_all=1
    manifest_write "$bin" "$out" "$q" "$root"
    manifest_abs=$(cd "$out" && pwd)/sweep.manifest
    script=$here/slurm.sh

    if [ "$quick" = 1 ]; then time_task=0:10:00; time_merge=0:20:00
    else time_task=1:00:00; time_merge=1:00:00; fi
    echo "pbd: sweep frozen in $manifest (flags: ${q:-none}), programs in $sd/bin/"
    [ "$redo_all" = 0 ] || echo "pbd: the flags changed (were: ${old_flags:-none}): every run is redone"

    : > "$sd/jobs.new"
    deps=
    total=0
    todo_all=0
    cancel_submitted() {
        [ ! -s "$sd/jobs.new" ] || scancel $(awk '{ print $1 }' "$sd/jobs.new") 2>/dev/null || true
        rm -f "$sd/jobs.new"
    }
    while read -r exp timing n; do
        todo=
        while read -r i run; do
            if [ "$redo_all" = 1 ] || ! run_complete "$bin" "$out/$exp/$run.h5"; then
                todo="$todo $i"
            fi
        done <<EOF
$(manifest_runs "$manifest" "$exp")
EOF
        set -- $todo
        k=$#
        total=$((total + n))
        todo_all=$((todo_all + k))
        if [ "$k" = 0 ]; then
            echo "pbd: $exp: all $n runs complete"
            continue
        fi
        spec=$(echo "$todo" | ranges)
        if [ "$timing" = 1 ]; then
            shape="--exclusive --array=$spec%1"
        else
            shape="--cpus-per-task=1 --array=$spec"
        fi
        # shellcheck disable=SC2086 # shape is words; SLURM_ARGS come last and win
        id=$(sbatch --parsable --job-name="pbd-$exp" --chdir="$root" \
                 --output="$sd/%x_%A_%a.out" --time="$time_task" $shape \
                 ${SLURM_ARGS_WORDS:-} "$script" task "$manifest_abs" "$exp") ||
            { cancel_submitted; die "$exp: sbatch failed; nothing of this submission is queued"; }
        id=${id%%;*}
        echo "$id $exp $spec" >> "$sd/jobs.new"
        deps="$deps:$id"
        echo "pbd: $exp: $k of $n runs to do -> job $id (array $spec$([ "$timing" = 1 ] && echo '%1, exclusive: measures wall time'))"
    done <<EOF
$(manifest_experiments "$manifest")
EOF
    dep=
    [ -z "$deps" ] || dep="--dependency=afterany$deps"
    # shellcheck disable=SC2086
    id=$(sbatch --parsable --job-name=pbd-merge --chdir="$root" --output="$sd/%x_%j.out" \
             --time="$time_merge" --cpus-per-task=1 --kill-on-invalid-dep=yes $dep \
             ${SLURM_ARGS_WORDS:-} "$script" merge "$manifest_abs") ||
        { cancel_submitted; die "merge: sbatch failed; nothing of this submission is queued"; }
    id=${id%%;*}
    echo "$id merge" >> "$sd/jobs.new"
    mv "$sd/jobs.new" "$sd/jobs"
    echo "pbd: $todo_all of $total runs submitted; merge, figures and report -> job $id" \
         "(after the arrays); then $out/report.html. Job output in $sd/"
}

SLURM_ARGS_WORDS=
mode=${1:-}
[ $# -gt 0 ] && shift
case "$mode" in
submit)
    # the sbatch options after OUT, kept as words for every sbatch call
    if [ $# -ge 3 ]; then
        a1=$1 a2=$2 a3=$3
        shift 3
        SLURM_ARGS_WORDS="$*"
        submit "$a1" "$a2" "$a3"
    else
        submit "$@"
    fi
    ;;
task) task "$@" ;;
merge) merge "$@" ;;
*) usage "slurm.sh: expected submit, task or merge, found '$mode'" ;;
esac
