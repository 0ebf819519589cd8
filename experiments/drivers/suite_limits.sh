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

# suite_recorded OUT MODE KEY: the last record of KEY; nothing when there is none.
suite_recorded() {
    awk -v m="$2" -v k="$3" '$1 == m && $2 == k { s = $3 } END { if (s != "") print s }' \
        "$1/.suite-seconds" 2>/dev/null
}

# suite_longest OUT MODE EXPERIMENT: the longest record of the experiment's runs (their last
# records); nothing when none.
suite_longest() {
    awk -v m="$2" -v e="$3/" '$1 == m && index($2, e) == 1 { s[$2] = $3 }
        END { for (r in s) if (best == "" || s[r] + 0 > best + 0) best = s[r]; if (best != "") print best }' \
        "$1/.suite-seconds" 2>/dev/null
}

# suite_limit OUT MODE EXPERIMENT RUN: "<seconds> <why>" (seconds 0: no limit).
suite_limit() {
    if [ -n "${RUN_TIMEOUT:-}" ]; then
        echo "$RUN_TIMEOUT RUN_TIMEOUT"
        return
    fi
    _sl_f=${RUN_TIMEOUT_FACTOR:-10} _sl_min=${RUN_TIMEOUT_MIN:-120}
    _sl_last=$(suite_recorded "$1" "$2" "$3/$4")
    _sl_why="$_sl_f × its last duration, ${_sl_last} s"
    if [ -z "$_sl_last" ]; then
        _sl_last=$(suite_longest "$1" "$2" "$3")
        _sl_why="$_sl_f × the longest recorded run of $3, ${_sl_last} s"
    fi
    if [ -z "$_sl_last" ]; then
        _sl_d=900
        [ "$2" = quick=1 ] && _sl_d=300
        echo "${RUN_TIMEOUT_DEFAULT:-$_sl_d} the default (no run of $3 recorded)"
        return
    fi
    _sl_s=$((_sl_f * _sl_last))
    [ "$_sl_s" -ge "$_sl_min" ] || { _sl_s=$_sl_min; _sl_why="$_sl_why; at least RUN_TIMEOUT_MIN"; }
    echo "$_sl_s $_sl_why"
}

# suite_min_s SECONDS: "M min S s".
suite_min_s() {
    echo "$(($1 / 60)) min $(($1 % 60)) s"
}

# suite_left OUT [K]: ", about … left …" from the runs ended (K, or the lines of
# OUT/.suite-progress), .suite-total, .suite-start and the figures-and-report record (default
# 60 s; QUICK=1: 20 s).
suite_left() {
    _lf_k=${2:-$(grep -c . "$1/.suite-progress" 2>/dev/null || true)}
    _lf_n=$(cat "$1/.suite-total" 2>/dev/null || echo 0)
    _lf_t0=$(cat "$1/.suite-start" 2>/dev/null || date +%s)
    _lf_mode=$(cat "$1/.suite-mode" 2>/dev/null || echo quick=0)
    _lf_el=$(($(date +%s) - _lf_t0))
    _lf_rep=$(suite_recorded "$1" "$_lf_mode" report)
    _lf_repwhy="as last time"
    if [ -z "$_lf_rep" ]; then
        _lf_rep=60
        [ "$_lf_mode" = quick=1 ] && _lf_rep=20
        _lf_repwhy="a guess: not timed here yet"
    fi
    if [ "${_lf_k:-0}" -ge "$_lf_n" ]; then
        _lf_runs=0
    elif [ "${_lf_k:-0}" -gt 0 ]; then
        # the runs left as long on average as those ended (rough while long runs are ahead)
        _lf_runs=$((_lf_el * (_lf_n - _lf_k) / _lf_k))
    else
        echo ", no estimate before the first run ends (then figures and report, $(suite_min_s "$_lf_rep"), $_lf_repwhy)"
        return
    fi
    echo ", about $(suite_min_s $((_lf_runs + _lf_rep))) left (runs $(suite_min_s "$_lf_runs"), then figures and report $(suite_min_s "$_lf_rep"), $_lf_repwhy)"
}
