#!/bin/sh
# The repository's files, one a line, relative to its root (for scripts/check-doc-links.sh and
# scripts/check-comments.sh): those git tracks and the new ones it does not ignore, or, outside
# a git work tree, every file but build/'s.
cd "$(dirname "$0")/.." || exit 1
if git rev-parse --git-dir > /dev/null 2>&1; then
    git ls-files --cached --others --exclude-standard
else
    find . -path ./build -prune -o -type f -print | sed 's|^\./||'
fi
