#!/bin/sh
# make test-new-method: follow solver/README.md "The method table" to the letter in a
# temporary copy of the tree — one new file in solver/ (zz_fall.c) and one row
# PBD_METHOD_ROW(zz_fall) in solver/methods.c, nothing else — build, check that pbd-run lists
# --method=zz_fall and steps the chain scene with it to the closed form; then plant a wrong
# factor in the same file and check that the run no longer matches.
# The throw-away method: free fall by symplectic Euler, v += h g, x += h v, the constraints
# ignored. The chain hangs straight down at rest length from its attached top particle, so
# after step n every free particle has fallen d_n = g h² n(n+1)/2 and the top link's
# |C| = d_n is the chain's max |C| (the others keep their length).
# Usage: test-new-method.sh BUILD (the Makefile passes it). Exit status 1 on any failure.
set -eu
build=${1:-build}
name=test-new-method
. "$(dirname "$0")/recipe-copy.sh"

# step 1: the file
cat > solver/zz_fall.c <<'C'
/* zz_fall (throw-away, scripts/test-new-method.sh): free fall by symplectic Euler,
 * v += h g, x += h v, for the free particles; the constraints ignored. */
#include "solver/method.h"

static pbd_status zz_fall_step(pbd_world *w, void *ws, double h, int threads)
{
    (void)ws;
    (void)threads;
    for (int sub = 0; sub < w->def.substeps; sub++) {
        for (int i = 0; i < w->n; i++) {
            if (w->w[i] <= 0.0) continue;
            for (int k = 0; k < 3; k++) {
                w->v[3 * i + k] += h * w->def.gravity[k] /*GRAVITY*/;
                w->x[3 * i + k] += h * w->v[3 * i + k];
                w->p[3 * i + k] = w->x[3 * i + k];
            }
        }
        w->time += h;
    }
    w->stats.threads = 1;
    return PBD_OK;
}

const pbd_method_ops pbd_zz_fall_method = {
    .name = "zz_fall",
    .step = zz_fall_step,
};
C

# step 2: the row, above the table's last line
grep -q '/\* new rows above this line' solver/methods.c ||
    fail "solver/methods.c has no line '/* new rows above this line ...' (the README's recipe)"
sed -i 's|^\( *\)/\* new rows above this line|\1PBD_METHOD_ROW(zz_fall) \\\n&|' solver/methods.c
changed=$(changed_files)
[ "$changed" = "./solver/methods.c ./solver/zz_fall.c " ] ||
    fail "the recipe changed other files than the README says: $changed"

steps=30
check() { # check WHAT EXPECT: build, run the chain with zz_fall, expect match or mismatch
    make -j2 --no-print-directory "$build/pbd-run" > make.log 2>&1 ||
        { tail -20 make.log >&2; fail "$1: the build failed"; }
    "$build/pbd-run" --help | grep -q 'method=WORD.*zz_fall' ||
        fail "$1: pbd-run --help does not list --method=zz_fall"
    "$build/pbd-run" chain --method=zz_fall --steps=$steps > run.out 2>&1 ||
        { cat run.out >&2; fail "$1: pbd-run chain --method=zz_fall failed"; }
    # max |C| printed with 7 significant digits: a relative 5e-7 from printing, 1e-6 allowed
    # (the sums themselves are exact to n eps relative)
    bad=$(awk -v h="$(awk 'BEGIN{printf "%.17g", 1/60}')" '
        /^ *[0-9]+ / { n = $1; d = 9.81 * h * h * n * (n + 1) / 2; e = ($3 - d) / d;
                       if (e < 0) e = -e; if (e > 1e-6) { print "step", n, "max|C|", $3,
                       "expected", d; off = 1; exit } ; seen++ }
        END { if (!off && seen + 0 < 1) print "no step lines" }' run.out)
    echo "test-new-method: $1: chain, $steps steps of zz_fall: ${bad:-every step at g h^2 n(n+1)/2}"
    case "$2" in
        match) [ -z "$bad" ] || { cat run.out >&2; fail "$1: expected max|C| = g h^2 n(n+1)/2"; } ;;
        mismatch) [ -n "$bad" ] || fail "$1: a wrong gravity factor went unnoticed" ;;
    esac
}
check "the new method" match
sed -i 's|w->def.gravity\[k\] /\*GRAVITY\*/|2.0 * w->def.gravity[k] /*GRAVITY*/|' solver/zz_fall.c
grep -q '2.0 \* w->def.gravity' solver/zz_fall.c || fail "could not plant the wrong factor"
check "a wrong factor (2 g)" mismatch
echo "test-new-method: one file + one row: the new method is built, listed and steps a scene"
