/* Helpers of the collision suites (tests/test_collision.c, suite `collision`, and
 * tests/test_collision_self.c, suite `collision_self`). Private to the tests. */
#ifndef PBD_COLLISION_CHECK_H
#define PBD_COLLISION_CHECK_H

#include <math.h>
#include <string.h>

#include "tests.h"

/* Penetration tolerance: the projection puts a colliding particle exactly on the surface
 * (entry point or closest point) or on the tangent plane there, which lies outside a convex
 * surface, so the signed distance after every step is >= -1e-9 m (rounding only). At rest:
 * on the surface within 1e-6 m, speed below 1e-6 m/s. */
#define PENETRATION_TOL 1e-9

static inline double norm3(const double *a)
{
    return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

static inline pbd_world *one_particle(const double x[3], const double v[3])
{
    pbd_world *w = pbd_world_create(1);
    pbd_world_set_particle(w, 0, x, v, 1.0);
    return w;
}

static inline pbd_material mat(double mu_s, double mu_k, double e)
{
    pbd_material m = {mu_s, mu_k, e};
    return m;
}

/* A closed unit-ish box mesh [lo, hi], outward counter-clockwise triangles. */
static inline void box_mesh(const double lo[3], const double hi[3], double v[24],
                            int32_t t[36])
{
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 3; k++) v[3 * i + k] = (i >> k) & 1 ? hi[k] : lo[k];
    /* faces as quads (a, b, c, d) counter-clockwise seen from outside */
    const int q[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                         {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (int f = 0; f < 6; f++) {
        const int32_t tri[6] = {q[f][0], q[f][1], q[f][2], q[f][0], q[f][2], q[f][3]};
        memcpy(t + 6 * f, tri, sizeof tri);
    }
}

#endif
