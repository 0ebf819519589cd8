/* Velocity damping: momentum-conserving damping (PBD Sec. 3.5) against simple scaling. */
#include "tests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* n free particles of random masses at random positions with random velocities, no
 * gravity and no constraints, so that a step only damps and drifts. collinear puts them
 * on one line (a singular inertia tensor). */
static pbd_world *random_cloud(int n, unsigned seed, int collinear)
{
    pbd_rng r;
    pbd_rng_seed(&r, seed);
    pbd_world *w = pbd_world_create(n);
    const double dir[3] = {0.6, -0.8, 0.0};
    for (int i = 0; i < n; i++) {
        double x[3], v[3];
        double t = pbd_rng_range(&r, -1, 1);
        for (int k = 0; k < 3; k++) {
            x[k] = collinear ? 0.3 + t * dir[k] : pbd_rng_range(&r, -1, 1);
            v[k] = pbd_rng_gaussian(&r);
        }
        pbd_world_set_particle(w, i, x, v, pbd_rng_range(&r, 0.5, 2.0));
    }
    w->def.gravity[0] = w->def.gravity[1] = w->def.gravity[2] = 0.0;
    w->def.dt = 0.01;
    return w;
}

/* The best rigid motion v_cm + ω × r for velocities v at positions x, computed here
 * independently (Cramer's rule on I ω = L), and Σ m |v - rigid|². */
static double rigid_deviation(const pbd_world *w, const double *x, const double *v,
                              double *max_dev)
{
    double mass = 0, xc[3] = {0, 0, 0}, vc[3] = {0, 0, 0};
    for (int i = 0; i < w->n; i++) {
        double m = 1.0 / w->w[i];
        mass += m;
        for (int k = 0; k < 3; k++) {
            xc[k] += m * x[3 * i + k];
            vc[k] += m * v[3 * i + k];
        }
    }
    for (int k = 0; k < 3; k++) {
        xc[k] /= mass;
        vc[k] /= mass;
    }
    double L[3] = {0, 0, 0}, I[3][3] = {{0}};
    for (int i = 0; i < w->n; i++) {
        double m = 1.0 / w->w[i], r[3];
        for (int k = 0; k < 3; k++) r[k] = x[3 * i + k] - xc[k];
        const double *vi = v + 3 * i;
        L[0] += m * (r[1] * vi[2] - r[2] * vi[1]);
        L[1] += m * (r[2] * vi[0] - r[0] * vi[2]);
        L[2] += m * (r[0] * vi[1] - r[1] * vi[0]);
        double rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) I[a][b] += m * ((a == b) * rr - r[a] * r[b]);
    }
    double det = I[0][0] * (I[1][1] * I[2][2] - I[1][2] * I[2][1]) -
                 I[0][1] * (I[1][0] * I[2][2] - I[1][2] * I[2][0]) +
                 I[0][2] * (I[1][0] * I[2][1] - I[1][1] * I[2][0]);
    double om[3];
    for (int c = 0; c < 3; c++) {
        double M[3][3];
        memcpy(M, I, sizeof M);
        for (int a = 0; a < 3; a++) M[a][c] = L[a];
        om[c] = (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
                 M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                 M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0])) / det;
    }
    double dev = 0.0, mx = 0.0;
    for (int i = 0; i < w->n; i++) {
        double m = 1.0 / w->w[i], r[3];
        for (int k = 0; k < 3; k++) r[k] = x[3 * i + k] - xc[k];
        double rigid[3] = {vc[0] + om[1] * r[2] - om[2] * r[1], vc[1] + om[2] * r[0] - om[0] * r[2],
                           vc[2] + om[0] * r[1] - om[1] * r[0]};
        for (int k = 0; k < 3; k++) {
            double d = v[3 * i + k] - rigid[k];
            dev += m * d * d;
            mx = fmax(mx, fabs(d));
        }
    }
    if (max_dev) *max_dev = mx;
    return dev;
}

static double rel_change(const double a[3], const double b[3])
{
    double d = 0, s = 0;
    for (int k = 0; k < 3; k++) {
        d += (a[k] - b[k]) * (a[k] - b[k]);
        s += a[k] * a[k];
    }
    return sqrt(d / s);
}

/* One step with momentum damping k: linear and angular momentum unchanged to 1e-12
 * (before the step at x_n, after it at x_{n+1}: a free drift keeps both), and the
 * deviation from rigid motion (measured where the damping measured it, at x_n) scaled by
 * exactly (1 - k)², so k = 1 leaves a rigid motion. */
static void test_momentum_damping_conserves(void)
{
    const double ks[3] = {0.3, 0.7, 1.0};
    for (int a = 0; a < 3; a++) {
        pbd_world *w = random_cloud(40, 3 + a, 0);
        w->def.damping = PBD_DAMPING_MOMENTUM;
        w->def.k_damping = ks[a];
        double lin0[3], ang0[3], lin1[3], ang1[3];
        double *x0 = malloc(3 * (size_t)w->n * sizeof *x0);
        memcpy(x0, w->x, 3 * (size_t)w->n * sizeof *x0);
        pbd_momentum(w, w->x, w->v, lin0, ang0);
        double dev0 = rigid_deviation(w, w->x, w->v, NULL);
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        pbd_momentum(w, w->x, w->v, lin1, ang1);
        CU_ASSERT(rel_change(lin0, lin1) < 1e-12);
        CU_ASSERT(rel_change(ang0, ang1) < 1e-12);
        CU_ASSERT(rel_change(lin0, w->stats.linear_momentum) < 1e-12);
        double max_dev;
        double dev1 = rigid_deviation(w, x0, w->v, &max_dev);
        double expect = (1 - ks[a]) * (1 - ks[a]) * dev0;
        CU_ASSERT(dev0 > 1.0);
        CU_ASSERT(fabs(dev1 - expect) <= 1e-9 * dev0);
        if (ks[a] == 1.0) CU_ASSERT(max_dev < 1e-12);
        free(x0);
        pbd_world_free(w);
    }
}

/* Simple scaling v <- (1 - k) v scales momentum too (PBD Sec. 3.5's reason for the other). */
static void test_scale_damping_changes_momentum(void)
{
    pbd_world *w = random_cloud(40, 3, 0);
    w->def.damping = PBD_DAMPING_SCALE;
    w->def.k_damping = 0.3;
    double lin0[3], ang0[3], lin1[3], ang1[3];
    pbd_momentum(w, w->x, w->v, lin0, ang0);
    pbd_step(w);
    pbd_momentum(w, w->x, w->v, lin1, ang1);
    CU_ASSERT_DOUBLE_EQUAL(rel_change(lin0, lin1), 0.3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(rel_change(ang0, ang1), 0.3, 1e-12);
    pbd_world_free(w);
}

/* Collinear particles: I is singular (no inertia about the line); the pseudo-inverse keeps
 * both momenta, nothing becomes NaN, and the deviation still falls. */
static void test_momentum_damping_collinear(void)
{
    for (int n = 1; n <= 12; n += 11) {
        pbd_world *w = random_cloud(n, 17, 1);
        w->def.damping = PBD_DAMPING_MOMENTUM;
        w->def.k_damping = 0.5;
        double lin0[3], ang0[3], lin1[3], ang1[3];
        pbd_momentum(w, w->x, w->v, lin0, ang0);
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        pbd_momentum(w, w->x, w->v, lin1, ang1);
        CU_ASSERT(rel_change(lin0, lin1) < 1e-12);
        CU_ASSERT(rel_change(ang0, ang1) < 1e-12);
        pbd_world_free(w);
    }
}

/* Fixed particles take no part: a pinned particle's velocity is left alone, and the free
 * ones keep their momentum. */
static void test_momentum_damping_skips_fixed(void)
{
    pbd_world *w = random_cloud(10, 5, 0);
    const double vfix[3] = {1.0, 2.0, 3.0};
    pbd_world_set_particle(w, 0, w->x, vfix, 0.0);
    w->def.damping = PBD_DAMPING_MOMENTUM;
    w->def.k_damping = 0.9;
    double lin0[3], ang0[3], lin1[3], ang1[3];
    pbd_momentum(w, w->x, w->v, lin0, ang0);
    pbd_step(w);
    pbd_momentum(w, w->x, w->v, lin1, ang1);
    CU_ASSERT(rel_change(lin0, lin1) < 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(w->v[0], 1.0, 1e-12); /* (x + h v - x)/h: rounding only */
    CU_ASSERT_DOUBLE_EQUAL(w->v[1], 2.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(w->v[2], 3.0, 1e-12);
    pbd_world_free(w);
}

/* z component of the angular momentum about the centre of mass. */
static double spin_about_centre(const pbd_world *w, const double *x, const double *v)
{
    double mass = 0, xc[2] = {0, 0}, L = 0;
    for (int i = 0; i < w->n; i++) {
        double m = 1.0 / w->w[i];
        mass += m;
        xc[0] += m * x[3 * i];
        xc[1] += m * x[3 * i + 1];
    }
    xc[0] /= mass;
    xc[1] /= mass;
    for (int i = 0; i < w->n; i++) {
        double m = 1.0 / w->w[i];
        L += m * ((x[3 * i] - xc[0]) * v[3 * i + 1] - (x[3 * i + 1] - xc[1]) * v[3 * i]);
    }
    return L;
}

/* A free, spinning and wobbling cloth with internal (distance) constraints, 200 steps.
 * Momentum damping: linear momentum kept (the constraints and the damping both conserve
 * it), the wobble (deviation from rigid motion) almost gone, the spin kept (PBD's step
 * itself loses a few per cent of it: Σ x_n × Δp ≠ 0 for projections made at p). Scale
 * damping with the same k stops the spin as well. */
static double free_cloth(pbd_damping model, double *dev_ratio, double *lin_change)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 6;
    pbd_world *w = pbd_scene_cloth(&sp);
    w->n_attach = 0; /* unpin; 1/36 kg each */
    for (int i = 0; i < w->n; i++) w->w[i] = (double)w->n;
    pbd_rng r;
    pbd_rng_seed(&r, 9);
    for (int i = 0; i < w->n; i++) {
        const double *x = w->x + 3 * i;
        double spin[3] = {x[1] + 0.5, -(x[0] - 0.5), 0.0}; /* about the cloth's centre */
        for (int k = 0; k < 3; k++) w->v[3 * i + k] = 0.5 + spin[k] + 0.2 * pbd_rng_gaussian(&r);
    }
    w->def.gravity[1] = 0.0;
    w->def.iterations = 20;
    w->def.damping = model;
    w->def.k_damping = 0.1;
    double lin0[3], ang0[3];
    pbd_momentum(w, w->x, w->v, lin0, ang0);
    double dev0 = rigid_deviation(w, w->x, w->v, NULL);
    double spin0 = spin_about_centre(w, w->x, w->v);
    for (int s = 0; s < 200; s++) CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
    *lin_change = rel_change(lin0, w->stats.linear_momentum);
    *dev_ratio = rigid_deviation(w, w->x, w->v, NULL) / dev0;
    double spin1 = spin_about_centre(w, w->x, w->v);
    pbd_world_free(w);
    return spin1 / spin0;
}

static void test_momentum_damping_free_cloth(void)
{
    double dev_ratio, lin_change;
    double spin = free_cloth(PBD_DAMPING_MOMENTUM, &dev_ratio, &lin_change);
    CU_ASSERT(lin_change < 1e-12);
    CU_ASSERT(dev_ratio < 1e-3);
    CU_ASSERT(spin > 0.9 && spin <= 1.0);
    double spin_scaled = free_cloth(PBD_DAMPING_SCALE, &dev_ratio, &lin_change);
    CU_ASSERT(fabs(spin_scaled) < 1e-6);
    CU_ASSERT(lin_change > 0.99);
}

void register_damping_tests(void)
{
    CU_pSuite s = CU_add_suite("damping", NULL, NULL);
    CU_add_test(s, "momentum_damping_conserves", test_momentum_damping_conserves);
    CU_add_test(s, "scale_damping_changes_momentum", test_scale_damping_changes_momentum);
    CU_add_test(s, "momentum_damping_collinear", test_momentum_damping_collinear);
    CU_add_test(s, "momentum_damping_skips_fixed", test_momentum_damping_skips_fixed);
    CU_add_test(s, "momentum_damping_free_cloth", test_momentum_damping_free_cloth);
}
