/* Helpers of the bending suites (tests/test_bending.c, tests/test_bending_isometric.c):
 * the two bending types and a hinge's evaluation, rest values and rigid motions. Private to
 * the tests. */
#ifndef PBD_BENDING_CHECK_H
#define PBD_BENDING_CHECK_H

#include <math.h>
#include <string.h>

#include "tests.h"

static const pbd_constraint_type *const bending_types[2] = {&pbd_bend_dihedral_type,
                                                            &pbd_bend_isometric_type};

static inline double norm(const double *a, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += a[i] * a[i];
    return sqrt(s);
}

static inline double eval_c(const pbd_constraint_type *t, const double *x,
                            const double *rest, double *grad, int *status)
{
    pbd_eval_input in = {x, 4, rest, NULL, 0};
    double C = NAN;
    int st = t->eval(&in, &C, grad);
    if (status) *status = st;
    return C;
}

static inline void compute_rest(const pbd_constraint_type *t, const double *x,
                                double *rest)
{
    pbd_eval_input in = {x, 4, NULL, NULL, 0};
    t->rest(&in, rest);
}

/* Rotate x (4 points) by the rotation matrix R and translate by tr. */
static inline void rigid_motion(const double R[9], const double tr[3], const double *x,
                                double *y)
{
    for (int i = 0; i < 4; i++)
        for (int r = 0; r < 3; r++)
            y[3 * i + r] = R[3 * r] * x[3 * i] + R[3 * r + 1] * x[3 * i + 1] +
                           R[3 * r + 2] * x[3 * i + 2] + tr[r];
}

/* Rotation about a unit axis by angle (Rodrigues). */
static inline void rotation(const double axis[3], double angle, double R[9])
{
    double c = cos(angle), s = sin(angle), t = 1.0 - c;
    double x = axis[0], y = axis[1], z = axis[2];
    double M[9] = {t * x * x + c,     t * x * y - s * z, t * x * z + s * y,
                   t * x * y + s * z, t * y * y + c,     t * y * z - s * x,
                   t * x * z - s * y, t * y * z + s * x, t * z * z + c};
    memcpy(R, M, sizeof M);
}

#endif
