#!/bin/sh
# The revision written into every result file (Makefile PBD_GIT_REV, experiments/log/
# h5log_attrs.c): the short commit, and when the work tree differs from it (edited, staged
# or new files that git does not ignore) "-dirty-" and the first 12 hex digits of the
# SHA-256 of that difference (git diff HEAD, then each new file's name and contents), so
# that two builds from different uncommitted states never carry the same revision. The
# measurements' history (data/measurements/, appended by make bench and CI) is not what a
# build is made from: a new row there leaves the revision as it is.
# Prints "unknown" outside a git work tree.
cd "$(dirname "$0")/.." || exit 1
rev=$(git rev-parse --short=7 HEAD 2>/dev/null) || { echo unknown; exit 0; }
not_data=':(exclude)data/measurements'
if [ -z "$(git status --porcelain -- . "$not_data" 2>/dev/null)" ]; then
    echo "$rev"
    exit 0
fi
hash=$( { git diff HEAD --binary -- . "$not_data"
          git ls-files --others --exclude-standard -- . "$not_data" | while IFS= read -r f; do
              printf '%s\n' "$f"
              cat "$f"
          done; } | sha256sum | cut -c1-12)
echo "$rev-dirty-$hash"
