/* Helpers of the fast-path suites (tests/test_fastpath.c, suite `fastpath`, and
 * tests/test_fastpath_layout.c, suite `fastpath_layout`), in tests/fastpath_check.c: the
 * scenes both run and a paired run of two worlds. Private to the tests. */
#ifndef PBD_FASTPATH_CHECK_H
#define PBD_FASTPATH_CHECK_H

#include <stddef.h>

#include "tests.h"

/* max_i |a_i - b_i| */
double max_abs_diff(const double *a, const double *b, size_t n);

enum { SCENE_CLOTH_DIHEDRAL, SCENE_CLOTH_ISOMETRIC, SCENE_TET_BEAM, SCENE_CHAIN, SCENE_COUNT };

/* One of the scenes above (cloth draping from two corners with dihedral or isometric
 * bending, a tet beam, a chain) with PBD or XPBD (method), 6 iterations. */
pbd_world *scene(int which, int method);

/* Run a and b for `steps` steps; the largest position difference relative to the scene's
 * size, and the largest λ difference relative to max |λ|. */
void run_pair(pbd_world *a, pbd_world *b, int steps, double *dx, double *dl);

#endif
