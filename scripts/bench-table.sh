#!/bin/sh
# make bench-table: the measurements' history (data/measurements/*.csv: revision, date,
# machine, ISA, load, threads, what, value, unit; data/README.md "Measurements") as two
# tables per file: its latest rows, and per measurement (what, unit, machine, threads) its
# trend over the rows in file order: how many, the first, the previous and the latest value,
# the best (smallest) and latest/previous.
#   sh scripts/bench-table.sh [--what=TEXT] [--last=N] [FILE...]
# --what keeps the rows whose `what` contains TEXT; --last the latest rows shown (10).
set -eu
cd "$(dirname "$0")/.."
what= last=10
while [ $# -gt 0 ]; do
    case $1 in
    --what=*) what=${1#--what=} ;;
    --last=*) last=${1#--last=} ;;
    -*) echo "bench-table: expected --what=TEXT, --last=N or files, found '$1'" >&2; exit 2 ;;
    *) break ;;
    esac
    shift
done
case $last in ''|*[!0-9]*) echo "bench-table: --last: expected a number, found '$last'" >&2; exit 2 ;; esac
[ $# -gt 0 ] || set -- data/measurements/*.csv
for f in "$@"; do
    [ -f "$f" ] || { echo "bench-table: $f: expected a CSV of measurements, found none" >&2; exit 1; }
    awk -F, -v what="$what" -v last="$last" -v file="$f" '
    NR == 1 { if ($0 != "revision,date,machine,isa,load,threads,what,value,unit") {
                  printf "bench-table: %s: expected the header revision,...,unit, found %s\n", file, $0
                  bad = 1; exit 1 }
              next }
    NF != 9 { printf "bench-table: %s:%d: expected 9 fields, found %d\n", file, NR, NF; bad = 1; exit 1 }
    what != "" && index($7, what) == 0 { next }
    {
        row[++n] = $0
        key = $7 " [" $9 "] " $3 ", " $6 "t"
        if (!(key in count)) { order[++k] = key; first[key] = $8; best[key] = $8 }
        count[key]++
        prev[key] = latest[key]; latest[key] = $8
        if ($8 + 0 < best[key] + 0) best[key] = $8
    }
    END {
        if (bad) exit 1
        printf "== %s: %d rows%s; the latest %d\n", file, n, (what != "" ? " matching \"" what "\"" : ""), (n < last ? n : last)
        printf "%-28s %-20s %5s %3s  %-40s %12s %s\n", "revision", "date", "load", "thr", "what", "value", "unit"
        for (i = (n > last ? n - last + 1 : 1); i <= n; i++) {
            split(row[i], c, ",")
            printf "%-28s %-20s %5s %3s  %-40s %12s %s\n", c[1], c[2], c[5], c[6], c[7], c[8], c[9]
        }
        printf "-- trend per measurement (rows in file order)\n"
        printf "%-64s %4s %10s %10s %10s %10s %8s\n", "what [unit] machine, threads", "n", "first", "previous", "latest", "best", "lat/prev"
        for (j = 1; j <= k; j++) {
            key = order[j]
            ratio = (count[key] > 1 && prev[key] + 0 != 0) ? sprintf("%.2f", latest[key] / prev[key]) : "-"
            printf "%-64s %4d %10s %10s %10s %10s %8s\n", key, count[key], first[key],
                   (count[key] > 1 ? prev[key] : "-"), latest[key], best[key], ratio
        }
    }' "$f"
done
