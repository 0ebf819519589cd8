#!/bin/sh
# scripts/compare-results.sh BUILD_DIR A B: are two results directories of the same sweep the
# same results? Every run file and summary.h5 under A must exist under B and the reverse, with
# the same datasets (names and shapes), the same attributes, and equal values (h5diff, exact)
# but for what differs from one run of the same program to the next:
#   - the attributes date and command (the results directory is in the command line), and
#     machine.loadavg_start / machine.loadavg_end (the machine's load around the run), and
#     blas_threads (the Newton reference's BLAS threads, chosen by that load: solver/newton/README.md
#     "The BLAS");
#   - wall time: the datasets stage_seconds, step_ms and *_seconds, the attributes result.ms_*,
#     result.ns_*, result.*_seconds*, headline.xpbd_overhead, headline.colored_speedup, the
#     headline text of the experiments that measure wall time (timing 1 in pbd-run
#     --list-experiments), and the columns of summary tables whose unit is ms or ns or whose
#     name ends in _seconds (simulated time, unit s, is compared).
# Prints one line per difference; exit status 0 same, 1 different, 2 bad usage.
set -eu
[ $# = 3 ] || { echo "usage: compare-results.sh BUILD_DIR A B" >&2; exit 2; }
bin=$1 a=$2 b=$3
for d in "$a" "$b"; do
    [ -d "$d" ] || { echo "compare-results: expected a results directory, found no '$d'" >&2; exit 2; }
done
command -v h5diff >/dev/null 2>&1 || { echo "compare-results: expected h5diff (Debian: hdf5-tools), found none" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the experiments' run files and summaries; partial files are no results
files() { (cd "$1" && find . -name '*.h5' ! -name '*.partial.h5' ! -path './slurm/*' | sort); }
files "$a" > "$tmp/fa"
files "$b" > "$tmp/fb"
bad=0
if ! cmp -s "$tmp/fa" "$tmp/fb"; then
    diff "$tmp/fa" "$tmp/fb" | sed -n 's/^< \(.*\)/only in A: \1/p; s/^> \(.*\)/only in B: \1/p'
    bad=1
fi
timed=" $("$bin/pbd-run" --list-experiments | awk '$2 == 1 { printf "%s ", $1 }')"

# differing attributes ("attr <name> <object>") and datasets ("data <path>") from h5diff -r
h5items() {
    h5diff -r "$1" "$2" 2>&1 | awk '
        /^attribute: </ { n = $0; sub(/^attribute: </, "", n); obj = n; sub(/ of <.*/, "", n)
                          sub(/^[^<]*</, "", obj); sub(/>.*/, "", obj); hdr = "attr " n " " obj; next }
        /^dataset: </   { p = $0; sub(/^dataset: </, "", p); sub(/>.*/, "", p); hdr = "data " p; next }
        /^[0-9]+ differences? found/ { if ($1 > 0) print hdr; next }
        /^Not comparable/ || /^h5diff:/ || /[Ee]rror:/ { print "other " $0 }'
}

wall_attr() {
    case "$1" in
    date | command | machine.loadavg_* | blas_threads | result.ms_* | result.ns_* | result.*_seconds* | headline.xpbd_overhead | headline.colored_speedup) return 0 ;;
    headline) case "$timed" in *" $2 "*) return 0 ;; esac ;;
    esac
    return 1
}

# a summary table: equal but for its wall-time columns (ms, ns, *_seconds)
same_table() {
    units=$(h5dump -a "$3/units" "$1" 2>/dev/null | sed -n 's/.*(0): "\(.*\)".*/\1/p')
    names=$(h5dump -a "$3/columns" "$1" 2>/dev/null | sed -n 's/.*(0): "\(.*\)".*/\1/p')
    "$bin/pbd-h5extract" "$1" "$3" > "$tmp/ta" 2>&1 || return 1
    "$bin/pbd-h5extract" "$2" "$3" > "$tmp/tb" 2>&1 || return 1
    [ "$(wc -l < "$tmp/ta")" = "$(wc -l < "$tmp/tb")" ] || return 1
    paste -d '\n' "$tmp/ta" "$tmp/tb" | awk -v units="$units" -v names="$names" '
        BEGIN { nu = split(units, u, " "); split(names, c, " ")
                for (i = 1; i <= nu; i++) wall[i] = u[i] == "ms" || u[i] == "ns" || c[i] ~ /_seconds$/ }
        NR % 2 == 1 { n = split($0, x, " "); next }
        { m = split($0, y, " "); if (m != n) exit 1
          for (i = 1; i <= n; i++) if (!wall[i] && x[i] != y[i]) exit 1 }'
}

while read -r f; do
    grep -qxF "$f" "$tmp/fb" || continue
    fa=$a/${f#./} fb=$b/${f#./}
    exp=$(echo "$f" | cut -d/ -f2)
    "$bin/pbd-h5extract" "$fa" --list > "$tmp/la" 2>&1 || true
    "$bin/pbd-h5extract" "$fb" --list > "$tmp/lb" 2>&1 || true
    if ! cmp -s "$tmp/la" "$tmp/lb"; then
        echo "$f: the datasets differ: $(diff "$tmp/la" "$tmp/lb" | grep '^[<>]' | head -3 | tr '\n' ' ')"
        bad=1
        continue
    fi
    h5dump -A "$fa" 2>/dev/null | grep -o 'ATTRIBUTE "[^"]*"' > "$tmp/aa" || true
    h5dump -A "$fb" 2>/dev/null | grep -o 'ATTRIBUTE "[^"]*"' > "$tmp/ab" || true
    if ! cmp -s "$tmp/aa" "$tmp/ab"; then
        echo "$f: the attributes differ: $(diff "$tmp/aa" "$tmp/ab" | grep '^[<>]' | head -3 | tr '\n' ' ')"
        bad=1
        continue
    fi
    h5items "$fa" "$fb" > "$tmp/items"
    while read -r kind what obj; do
        case "$kind" in
        attr) wall_attr "$what" "$exp" && continue ;;
        data)
            case "$what" in
            */stage_seconds | */step_ms | */*_seconds) continue ;;
            /tables/*) same_table "$fa" "$fb" "$what" && continue ;;
            esac ;;
        esac
        echo "$f: differs: $kind $what${obj:+ of $obj}"
        bad=1
    done < "$tmp/items"
done < "$tmp/fa"
n=$(grep -c . "$tmp/fa" || true)
if [ "$bad" = 0 ]; then
    echo "compare-results: $n files of $a and $b are the same (but for dates, command lines, load, wall times)"
fi
exit $bad
