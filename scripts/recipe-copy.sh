# Sourced by scripts/test-new-constraint.sh and scripts/test-new-method.sh, which set `name`
# (their own name, for messages) and `build` first: a temporary copy of the tracked tree as
# it is now (uncommitted edits included), plus the build directory with its times, so that
# only what a recipe touches is rebuilt; the shell is left in the copy, with `fail` and
# `changed_files` (the files the recipe changed since, e.g. "./a.c ./b.c ").
src=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pbd-$name.XXXXXX")
trap 'rm -rf "$tmp" "$tmp.before"' EXIT INT TERM
fail() { echo "$name: $*" >&2; exit 1; }
git ls-files -z | (cd "$src" && xargs -0 cp -a --parents -t "$tmp") 2>/dev/null ||
    { git ls-files | while read -r f; do mkdir -p "$tmp/$(dirname "$f")"; cp -a "$f" "$tmp/$f"; done; }
[ -d "$build/obj" ] && mkdir -p "$tmp/$build" && cp -a "$build/." "$tmp/$build/"
cd "$tmp"
sums() { find . -path "./$build" -prune -o -type f -print | sort | xargs md5sum; }
sums > "$tmp.before"
changed_files() {
    sums | diff "$tmp.before" - | sed -n 's/^[<>] [0-9a-f]*  //p' | sort -u | tr '\n' ' '
}
