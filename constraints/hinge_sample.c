/* Random hinges for the bending constraints' sample functions (gradient checker, tests). */
#include "hinge_sample.h"
#include "vec3.h"

static void random_unit(pbd_rng *r, double *u)
{
    double n;
    do {
        for (int c = 0; c < 3; c++) u[c] = pbd_rng_gaussian(r);
        n = v3_norm(u);
    } while (n < 1e-3);
    v3_scale(u, u, 1.0 / n);
}

void pbd_hinge_build(pbd_rng *r, double len, double t3, double h3, double t4, double h4,
                     double phi, double *x)
{
    double o[3], e[3], u[3], w[3];
    for (int c = 0; c < 3; c++) o[c] = 2.0 * pbd_rng_gaussian(r);
    random_unit(r, e);
    /* u: a random unit vector perpendicular to ê */
    double t;
    do {
        random_unit(r, u);
        v3_axpy(u, -v3_dot(u, e), e);
        t = v3_norm(u);
    } while (t < 1e-3);
    v3_scale(u, u, 1.0 / t);
    v3_cross(w, e, u);
    double side = pbd_rng_uniform(r) < 0.5 ? -1.0 : 1.0;
    double cu = cos(phi), su = side * sin(phi);
    for (int c = 0; c < 3; c++) {
        x[c] = o[c];
        x[3 + c] = o[c] + len * e[c];
        x[6 + c] = o[c] + t3 * len * e[c] + h3 * u[c];
        x[9 + c] = o[c] + t4 * len * e[c] + h4 * (cu * u[c] + su * w[c]);
    }
}

void pbd_hinge_random(pbd_rng *r, double margin, double *x)
{
    double len = pbd_rng_range(r, 0.5, 2.0);
    double h3 = len * pbd_rng_range(r, 0.3, 1.5), h4 = len * pbd_rng_range(r, 0.3, 1.5);
    double t3 = pbd_rng_range(r, -0.3, 1.3), t4 = pbd_rng_range(r, -0.3, 1.3);
    double phi = pbd_rng_range(r, margin, M_PI - margin);
    pbd_hinge_build(r, len, t3, h3, t4, h4, phi, x);
}
