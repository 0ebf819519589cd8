#!/bin/sh
# Append a measurement to a CSV of the measurements' history (data/README.md "Measurements";
# the same columns pbd-bench --history writes): revision, date, machine, ISA, load,
# threads, what, value, unit. Each row is one printf to a file opened for appending
# (O_APPEND: one write, never interleaved with another writer's); a missing file is made with
# its header first (noclobber: only one writer makes it).
#   sh scripts/measure.sh row  FILE WHAT VALUE UNIT [THREADS]
#   sh scripts/measure.sh time FILE WHAT [THREADS] -- COMMAND [ARG...]
# `time` runs COMMAND, appends its wall time in seconds (also when it fails) and exits with
# COMMAND's status. THREADS defaults to the cores. Used by .ci/run for its steps' durations.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
header='revision,date,machine,isa,load,threads,what,value,unit'
usage() { echo "measure.sh: usage: measure.sh row FILE WHAT VALUE UNIT [THREADS] | time FILE WHAT [THREADS] -- COMMAND..." >&2; exit 2; }
[ $# -ge 3 ] || usage
mode=$1 file=$2 what=$3
shift 3
field() { printf '%s' "$1" | tr ',\n\r' '   '; }
append() {   # VALUE UNIT THREADS
    rev=$(sh "$root/scripts/git-revision.sh" 2>/dev/null || echo unknown)
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
    cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
    if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then isa=AVX-512
    elif grep -qw avx2 /proc/cpuinfo 2>/dev/null; then isa=AVX2
    else isa=$(uname -m); fi
    load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo -1)
    mkdir -p "$(dirname "$file")" || return 1
    [ -s "$file" ] || (set -C; echo "$header" > "$file") 2>/dev/null
    printf '%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$(field "$rev")" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
        "$(field "${cpu:-unknown} ($cores cores)")" "$isa" "$load" "$(field "${3:-$cores}")" \
        "$(field "$what")" "$1" "$(field "$2")" >> "$file"
}
case $mode in
row)
    [ $# -ge 2 ] || usage
    append "$1" "$2" "${3:-}"
    ;;
time)
    threads=
    if [ $# -ge 1 ] && [ "$1" != -- ]; then threads=$1; shift; fi
    [ $# -ge 2 ] && [ "$1" = -- ] || usage
    shift
    t0=$(date +%s.%N)
    "$@"
    status=$?
    t1=$(date +%s.%N)
    append "$(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }')" s "$threads" ||
        echo "measure.sh: could not append to $file" >&2
    exit $status
    ;;
*) usage ;;
esac
