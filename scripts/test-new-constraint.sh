#!/bin/sh
# make test-new-constraint: follow constraints/README.md "Adding a constraint" to the letter in
# a temporary copy of the tree — one new file constraints/NAME.c and one row PBD_TYPE(NAME) in
# constraints/registry.c, nothing else — build, and check that pbd-gradcheck lists the new
# type PASS; then plant a wrong gradient in the same file and check that it FAILs.
# The throw-away type: C(p1, p2) = p1·p2 − c (arity 2, one rest value, unit m², not internal),
# ∇_{p1} C = p2, ∇_{p2} C = p1.
# Usage: test-new-constraint.sh BUILD (the Makefile passes it). Exit status 1 on any failure.
set -eu
build=${1:-build}
name=test-new-constraint
. "$(dirname "$0")/recipe-copy.sh"

# step 1: the file
cat > constraints/zz_dot.c <<'C'
/* zz_dot (throw-away, scripts/test-new-constraint.sh): C(p1, p2) = p1·p2 − c. */
#include "pbd_constraint.h"

/* ∇_{p1} C = p2, ∇_{p2} C = p1 */
static int zz_dot_eval(const pbd_eval_input *in, double *C, double *grad)
{
    const double *a = in->x, *b = in->x + 3;
    *C = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] - in->rest[0];
    if (grad)
        for (int i = 0; i < 3; i++) {
            grad[i] = b[i];
            grad[3 + i] = a[i] /*GRADIENT*/;
        }
    return PBD_EVAL_OK;
}

static void zz_dot_rest(const pbd_eval_input *in, double *rest)
{
    const double *a = in->x, *b = in->x + 3;
    rest[0] = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static int zz_dot_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                         int *n_aux)
{
    (void)degenerate;
    (void)aux;
    *n_aux = 0;
    for (int i = 0; i < 6; i++) x[i] = pbd_rng_range(r, -1.0, 1.0);
    rest[0] = pbd_rng_range(r, -0.5, 0.5);
    return 2;
}

const pbd_constraint_type pbd_zz_dot_type = {
    .name = "zz_dot",
    .description = "throw-away test type: C = p1.p2 - c",
    .unit = "m^2",
    .arity = 2,
    .n_rest = 1,
    .eval = zz_dot_eval,
    .rest = zz_dot_rest,
    .sample = zz_dot_sample,
};
C

# step 2: the row, above the registry's last line
grep -q '/\* new rows above this line' constraints/registry.c ||
    fail "constraints/registry.c has no line '/* new rows above this line ...' (the README's recipe)"
sed -i 's|^\( *\)/\* new rows above this line|\1PBD_TYPE(zz_dot) \\\n&|' constraints/registry.c
changed=$(changed_files)
[ "$changed" = "./constraints/registry.c ./constraints/zz_dot.c " ] ||
    fail "the recipe changed other files than the README says: $changed"

check() { # check WHAT EXPECT: build, run pbd-gradcheck on the type, expect PASS or FAIL
    make -j2 --no-print-directory "$build/pbd-gradcheck" > make.log 2>&1 ||
        { tail -20 make.log >&2; fail "$1: the build failed"; }
    "$build/pbd-gradcheck" --help | grep -qw zz_dot || fail "$1: pbd-gradcheck --help does not list zz_dot"
    set +e
    "$build/pbd-gradcheck" --no-output --samples=200 > gradcheck.out 2>&1
    rc=$?
    set -e
    line=$(grep '^zz_dot ' gradcheck.out || true)
    [ -n "$line" ] || { cat gradcheck.out >&2; fail "$1: pbd-gradcheck prints no line for zz_dot"; }
    echo "test-new-constraint: $1: $line (exit $rc)"
    case "$line" in *" $2") ;; *) fail "$1: expected $2";; esac
    if [ "$2" = PASS ] && [ $rc -ne 0 ]; then fail "$1: pbd-gradcheck exits $rc"; fi
    if [ "$2" = FAIL ] && [ $rc -eq 0 ]; then fail "$1: pbd-gradcheck exits 0 with a failing type"; fi
}
check "the new type" PASS
sed -i 's|a\[i\] /\*GRADIENT\*/|2.0 * a[i] /*GRADIENT*/|' constraints/zz_dot.c
grep -q '2.0 \* a\[i\]' constraints/zz_dot.c || fail "could not plant the wrong gradient"
check "a wrong gradient (2 p1 for p1)" FAIL
echo "test-new-constraint: one file + one row: the new type is built, listed and checked"
