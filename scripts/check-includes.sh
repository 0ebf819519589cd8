#!/bin/sh
# make check-includes: no circle among the #include "..." lines of solver/'s files (a header
# that includes, through others, a header that includes it). Includes resolve from the
# repository root ("solver/pbd.h") or, failing that, from the including file's directory
# ("pbd.h" in solver/step.c). Prints the circle and exits 1 if there is one.
# Needs only sh, sed and tsort (coreutils), which names a loop when its input has one.
set -eu
cd "$(dirname "$0")/.."
edges=$(find solver -name '*.[ch]' | sort | while read -r f; do
    dir=$(dirname "$f")
    sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" | while read -r inc; do
        if [ -f "$inc" ]; then to=$inc; elif [ -f "$dir/$inc" ]; then to=$dir/$inc; else continue; fi
        case "$to" in solver/*) echo "$to $f" ;; esac
    done
done)
loop=$(printf '%s\n' "$edges" | tsort 2>&1 >/dev/null || true)
if [ -n "$loop" ]; then
    echo "check-includes: expected no circle among solver/'s #include lines, found one:" >&2
    printf '%s\n' "$loop" | sed 's/^tsort: //' >&2
    exit 1
fi
echo "check-includes: $(printf '%s\n' "$edges" | grep -c .) #include lines in solver/, no circle"
