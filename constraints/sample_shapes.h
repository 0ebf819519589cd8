/* Random shapes for the constraint types' `sample` functions (private to constraints/):
 * well-shaped tetrahedra and triangles for the gradient check, and the near-degenerate
 * perturbations it is also asked for. Rejection sampling keeps good samples well
 * conditioned, so that a central finite difference agrees with ∇C to ~1e-9. */
#ifndef PBD_SAMPLE_SHAPES_H
#define PBD_SAMPLE_SHAPES_H

#include "pbd_constraint.h"
#include "vec3.h"

#include <stddef.h>

/* x = centre + s·N(0, I) */
static inline void ss_gauss3(pbd_rng *r, double *x, const double *centre, double s)
{
    for (int k = 0; k < 3; k++) x[k] = (centre ? centre[k] : 0.0) + s * pbd_rng_gaussian(r);
}

/* A uniformly distributed unit vector. */
static inline void ss_unit(pbd_rng *r, double *n)
{
    double len;
    do {
        ss_gauss3(r, n, NULL, 1.0);
        len = v3_norm(n);
    } while (len < 1e-3);
    v3_scale(n, n, 1.0 / len);
}

/* A point of the box [-3, 3]³ (samples are not centred at the origin: the translation
 * part of the gradient is exercised too). */
static inline void ss_box(pbd_rng *r, double *x)
{
    for (int k = 0; k < 3; k++) x[k] = pbd_rng_range(r, -3.0, 3.0);
}

static inline double ss_dist2(const double *a, const double *b)
{
    double d[3];
    v3_sub(d, a, b);
    return v3_dot(d, d);
}

/* n points (n = 3 or 4) around a random centre, accepted when no two are closer than
 * 0.25 L_max and, for 4 points, 6|V| >= 0.15 L_max³ (a regular tet has 0.71); for 3
 * points |area vector| >= 0.3 L_max² (equilateral: 0.87). Either sign of volume. */
static inline void ss_well_shaped(pbd_rng *r, double *x, int n)
{
    for (;;) {
        double c[3];
        ss_box(r, c);
        double s = pbd_rng_range(r, 0.5, 2.0);
        for (int i = 0; i < n; i++) ss_gauss3(r, x + 3 * i, c, s);
        double lmax2 = 0.0, lmin2 = 1e300;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) {
                double d2 = ss_dist2(x + 3 * i, x + 3 * j);
                if (d2 > lmax2) lmax2 = d2;
                if (d2 < lmin2) lmin2 = d2;
            }
        if (lmin2 < 0.0625 * lmax2) continue;
        double lmax = sqrt(lmax2), eb[3], ec[3], m[3];
        v3_sub(eb, x + 3, x);
        v3_sub(ec, x + 6, x);
        v3_cross(m, eb, ec);
        if (n == 3) {
            if (v3_norm(m) >= 0.3 * lmax2) return;
        } else {
            double ed[3];
            v3_sub(ed, x + 9, x);
            if (fabs(v3_dot(ed, m)) >= 0.15 * lmax2 * lmax) return;
        }
    }
}

#endif
