# A suite run's time limit and the suite's estimate of the time left (POSIX sh, sourced by
# run_all.sh and suite_run.sh).
#
# OUT/.suite-seconds keeps, across suites, one line per run that ended well and one per
# figures-and-report stage: "<mode> <experiment>/<run> <seconds>" and "<mode> report
# <seconds>" (mode: quick=0 or quick=1, as in OUT/.suite-mode); the last line of a key is its
# record. A run's limit, in this order:
#   RUN_TIMEOUT=S            every run S seconds (0: no limit)
#   RUN_TIMEOUT_FACTOR × the run's record (default 10), at least RUN_TIMEOUT_MIN (120 s)
#   the same factor × the longest record of the run's experiment, at least RUN_TIMEOUT_MIN
#   RUN_TIMEOUT_DEFAULT      (900 s; QUICK=1: 300 s) when the experiment has no record
# Past its limit a run gets SIGTERM (pbd-run keeps its finished steps as <run>.partial.h5),
# and SIGKILL RUN_TIMEOUT_GRACE seconds (10) later if it is still there.

# suite_check_whole NAME VALUE: VALUE is a whole number, or one line naming NAME and exit 2.
suite_check_whole() {
    case "$2" in
        '' | *[!0-9]*)
            echo "pbd: $1: expected a whole number of seconds, found '$2'" >&2
            exit 2 ;;
    esac
}

# suite_check_settings QUICK: the RUN_TIMEOUT* variables are whole numbers (exit 2 if not).
suite_check_settings() {
    [ -z "${RUN_TIMEOUT:-}" ] || suite_check_whole RUN_TIMEOUT "$RUN_TIMEOUT"
    suite_check_whole RUN_TIMEOUT_FACTOR "${RUN_TIMEOUT_FACTOR:-10}"
    suite_check_whole RUN_TIMEOUT_MIN "${RUN_TIMEOUT_MIN:-120}"
    suite_check_whole RUN_TIMEOUT_GRACE "${RUN_TIMEOUT_GRACE:-10}"
    [ -z "${RUN_TIMEOUT_DEFAULT:-}" ] || suite_check_whole RUN_TIMEOUT_DEFAULT "$RUN_TIMEOUT_DEFAULT"
}

# suite_record OUT MODE KEY SECONDS: append a record.
suite_record() {
    echo "$2 $3 $4" >> "$1/.suite-seconds"
}

# suite_recorded OUT MODE KEY: the last record of KEY; nothing when there is none (no file
# either: status 0, for callers under set -e).
suite_recorded() {
    [ -f "$1/.suite-seconds" ] || return 0
    awk -v m="$2" -v k="$3" '$1 == m && $2 == k { s = $3 } END { if (s != "") print s }' \
        "$1/.suite-seconds"
}

# suite_limit OUT MODE EXPERIMENT RUN: "<seconds> <why>" (seconds 0: no limit).
suite_limit() {
    if [ -n "${RUN_TIMEOUT:-}" ]; then
        echo "$RUN_TIMEOUT RUN_TIMEOUT"
        return
    fi
    _sl_d=900
    [ "$2" = quick=1 ] && _sl_d=300
    # one pass: the run's last record, else the longest last record of the experiment's runs
    awk -v m="$2" -v e="$3" -v k="$3/$4" -v f="${RUN_TIMEOUT_FACTOR:-10}" \
        -v lo="${RUN_TIMEOUT_MIN:-120}" -v d="${RUN_TIMEOUT_DEFAULT:-$_sl_d}" '
        $1 == m && index($2, e "/") == 1 { last[$2] = $3 }
        END {
            if (k in last) { s = last[k]; why = f " × its last duration, " s " s" }
            else {
                for (r in last) if (s == "" || last[r] + 0 > s + 0) s = last[r]
                if (s == "") { print d " the default (no run of " e " recorded)"; exit }
                why = f " × the longest recorded run of " e ", " s " s"
            }
            t = f * s
            if (t < lo) { t = lo; why = why "; at least RUN_TIMEOUT_MIN" }
            print t " " why
        }' "$1/.suite-seconds" 2>/dev/null ||
        echo "${RUN_TIMEOUT_DEFAULT:-$_sl_d} the default (no run recorded)"
}

# suite_min_s VAR SECONDS: VAR = "M min S s".
suite_min_s() {
    eval "$1=\"$(($2 / 60)) min $(($2 % 60)) s\""
}

# suite_report_estimate OUT MODE: OUT/.suite-report, "<seconds> <why>" of the figures and
# report stage for the estimates (its record, else 60 s; QUICK=1: 20 s).
suite_report_estimate() {
    _re=$(suite_recorded "$1" "$2" report)
    if [ -n "$_re" ]; then
        echo "$_re as last time" > "$1/.suite-report"
    elif [ "$2" = quick=1 ]; then
        echo "20 a guess: not timed here yet" > "$1/.suite-report"
    else
        echo "60 a guess: not timed here yet" > "$1/.suite-report"
    fi
}

# suite_left OUT K NOW: suite_left_text = ", about … left …" from the runs ended (K) of
# OUT/.suite-total since OUT/.suite-start, and OUT/.suite-report.
suite_left() {
    read -r _lf_n 2>/dev/null < "$1/.suite-total" || _lf_n=0
    read -r _lf_t0 2>/dev/null < "$1/.suite-start" || _lf_t0=$3
    read -r _lf_rep _lf_repwhy 2>/dev/null < "$1/.suite-report" || { _lf_rep=60; _lf_repwhy="a guess"; }
    _lf_k=$2 _lf_el=$(($3 - _lf_t0))
    suite_min_s _lf_reps "$_lf_rep"
    if [ "$_lf_k" -ge "$_lf_n" ]; then
        _lf_runs=0
    elif [ "$_lf_k" -gt 0 ]; then
        # the runs left as long on average as those ended (rough while long runs are ahead)
        _lf_runs=$((_lf_el * (_lf_n - _lf_k) / _lf_k))
    else
        suite_left_text=", no estimate before the first run ends (then figures and report, $_lf_reps, $_lf_repwhy)"
        return
    fi
    suite_min_s _lf_all $((_lf_runs + _lf_rep))
    suite_min_s _lf_runs "$_lf_runs"
    suite_left_text=", about $_lf_all left (runs $_lf_runs, then figures and report $_lf_reps, $_lf_repwhy)"
}
