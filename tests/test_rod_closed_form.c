/* The rods' closed-form projection (def.rod_projection = closed-form; constraints/README.md
 * "Rods"): Kugelstadt & Schömer 2016 Eq. 37 and Eq. 40 against an independent computation,
 * the residual one projection leaves (derived), the same rest state as the generic
 * projection, and pbd-run's flag. */
#include "tests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hamilton product, (w, x, y, z), written out here so as not to use the library's */
static void qmul(const double a[4], const double b[4], double o[4])
{
    o[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    o[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    o[2] = a[0] * b[2] + a[2] * b[0] + a[3] * b[1] - a[1] * b[3];
    o[3] = a[0] * b[3] + a[3] * b[0] + a[1] * b[2] - a[2] * b[1];
}

static void normalise4(double q[4])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) q[i] /= n;
}

/* d_3 = q e3 q̄ from the rotation matrix's third column */
static void third_director(const double q[4], double d[3])
{
    d[0] = 2.0 * (q[1] * q[3] + q[0] * q[2]);
    d[1] = 2.0 * (q[2] * q[3] - q[0] * q[1]);
    d[2] = q[0] * q[0] - q[1] * q[1] - q[2] * q[2] + q[3] * q[3];
}

static double max_abs_diff(const double *a, const double *b, int n)
{
    double d = 0.0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

/* A stretch–shear element: p0, p1 = p0 + ℓ d_3 + a shear and stretch of size eps·ℓ, q random. */
static void ss_element(pbd_rng *r, double eps, double l, double x[10], double rest[6])
{
    pbd_quat_random(r, x + 6);
    double d[3];
    third_director(x + 6, d);
    for (int i = 0; i < 3; i++) {
        x[i] = pbd_rng_range(r, -1.0, 1.0);
        x[3 + i] = x[i] + l * (d[i] + eps * pbd_rng_gaussian(r));
    }
    for (int k = 0; k < 3; k++) {
        rest[2 * k] = l;
        rest[2 * k + 1] = k;
    }
}

/* Eq. 37 with the PBD stiffness k (isotropic) and the XPBD α̃ (isotropic, λ = 0):
 *   Γ = (p1 − p0)/ℓ − q e3 q̄, D = w0 + w1 + 4 w_q ℓ² + α̃ (in C = ℓΓ's units),
 *   Δp0 = k w0 ℓ Γ/D, Δp1 = −k w1 ℓ Γ/D, Δq = 2 k w_q ℓ² (0, Γ) q ē3/D, q normalised. */
static void eq37(const double x[10], double l, double w0, double w1, double wq, double k,
                 double at, double out[10])
{
    double d[3], G[4] = {0, 0, 0, 0};
    third_director(x + 6, d);
    for (int i = 0; i < 3; i++) G[1 + i] = (x[3 + i] - x[i]) / l - d[i];
    double D = w0 + w1 + 4.0 * wq * l * l + at;
    for (int i = 0; i < 3; i++) {
        out[i] = x[i] + k * w0 * l * G[1 + i] / D;
        out[3 + i] = x[3 + i] - k * w1 * l * G[1 + i] / D;
    }
    const double e3bar[4] = {0, 0, 0, -1};
    double t[4], dq[4];
    qmul(G, x + 6, t);
    qmul(t, e3bar, dq);
    for (int i = 0; i < 4; i++) out[6 + i] = x[6 + i] + 2.0 * k * wq * l * l * dq[i] / D;
    normalise4(out + 6);
}

/* Eq. 40: v = Im(q̄0 q1 − r) or Im(q̄0 q1 + r), the smaller; Δq0 = k w0 q1 v/(w0 + w1 + α̃/4),
 * Δq1 = −k w1 q0 v/(w0 + w1 + α̃/4), both normalised (α̃ in our rows' units, C = 2v). */
static void eq40(const double x[8], const double r[4], double w0, double w1, double k, double at,
                 double out[8])
{
    const double q0c[4] = {x[0], -x[1], -x[2], -x[3]};
    double a[4], m[4], p[4];
    qmul(q0c, x + 4, a);
    for (int i = 0; i < 4; i++) {
        m[i] = a[i] - r[i];
        p[i] = a[i] + r[i];
    }
    double nm = m[0] * m[0] + m[1] * m[1] + m[2] * m[2] + m[3] * m[3];
    double np = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3];
    double v[4] = {0, 0, 0, 0}, d0[4], d1[4];
    for (int i = 1; i < 4; i++) v[i] = (nm <= np ? m[i] : p[i]) * k / (w0 + w1 + 0.25 * at);
    qmul(x + 4, v, d0);
    qmul(x, v, d1);
    for (int i = 0; i < 4; i++) {
        out[i] = x[i] + w0 * d0[i];
        out[4 + i] = x[4 + i] - w1 * d1[i];
    }
    normalise4(out);
    normalise4(out + 4);
}

/* The closed forms against Eq. 37 and Eq. 40 computed independently above, one element at a
 * time (random states up to 30 % off rest, random masses; PBD k and XPBD α̃), and the Δλ they
 * return (Eq. 37: Δλ = −C/D per row). */
static void test_equations(void)
{
    pbd_rng r;
    pbd_rng_seed(&r, 37);
    double worst = 0.0, worst_dl = 0.0, worst40 = 0.0;
    for (int s = 0; s < 200; s++) {
        double x[10], rest[6], out[10], dl[3], want[10], l = pbd_rng_range(&r, 0.1, 2.0);
        ss_element(&r, 0.3, l, x, rest);
        const double w0 = pbd_rng_range(&r, 0.0, 3.0), w1 = pbd_rng_range(&r, 0.1, 3.0);
        const double wq = pbd_rng_range(&r, 0.0, 5.0), tw = pbd_rng_range(&r, 0.0, 9.0);
        const double wv[5] = {w0, w1, 4.0 * wq, 4.0 * wq, tw}; /* w_q = (1/I_1 + 1/I_2)/8 */
        const double k = s % 2 ? 1.0 : pbd_rng_range(&r, 0.1, 1.0);
        const double at = s % 3 ? 0.0 : pbd_rng_range(&r, 0.0, 2.0);
        const double ks[3] = {k, k, k}, ats[3] = {at, at, at}, lam[3] = {0, 0, 0};
        memcpy(out, x, sizeof x);
        pbd_eval_input in = {x, 3, rest, NULL, 0};
        CU_ASSERT_EQUAL_FATAL(
            pbd_rod_stretch_shear_type.project_element(&in, wv, ats, lam, ks, out, dl), PBD_EVAL_OK);
        eq37(x, l, w0, w1, wq, k, at, want);
        worst = fmax(worst, max_abs_diff(out, want, 10) / l);
        for (int c = 0; c < 3; c++) {
            double C;
            pbd_eval_input ic = {x, 3, rest + 2 * c, NULL, 0};
            pbd_rod_stretch_shear_type.eval(&ic, &C, NULL);
            worst_dl = fmax(worst_dl, fabs(dl[c] + k * C / (w0 + w1 + 4.0 * wq * l * l + at)));
        }
        /* Eq. 40 */
        double xb[8], rb[15], ob[8], wb[8];
        int n_aux = 0;
        pbd_rod_bend_twist_type.sample(&r, 0, xb, rb, NULL, &n_aux);
        for (int c = 1; c < 3; c++) {
            memcpy(rb + 5 * c, rb, 4 * sizeof(double));
            rb[5 * c + 4] = c;
        }
        rb[4] = 0.0;
        const double u0 = s % 5 ? pbd_rng_range(&r, 0.1, 5.0) : 0.0, u1 = pbd_rng_range(&r, 0.1, 5.0);
        for (int j = 0; j < 3; j++) { /* w_i = the mean inverse inertia / 4 */
            wb[j] = 4.0 * u0;
            wb[3 + j] = 4.0 * u1;
        }
        memcpy(ob, xb, sizeof ob);
        pbd_eval_input ib = {xb, 2, rb, NULL, 0};
        CU_ASSERT_EQUAL_FATAL(
            pbd_rod_bend_twist_type.project_element(&ib, wb, ats, lam, ks, ob, dl), PBD_EVAL_OK);
        double wantb[8];
        eq40(xb, rb, u0, u1, k, at, wantb);
        /* a fixed q0 (w0 = 0) is left as it is; the formula's normalisation only rounds it */
        worst40 = fmax(worst40, max_abs_diff(ob, wantb, 8));
    }
    if (!(worst < 1e-13 && worst_dl < 1e-13 && worst40 < 1e-13))
        printf("\n    Eq. 37: %.3g, Delta lambda %.3g, Eq. 40: %.3g", worst, worst_dl, worst40);
    CU_ASSERT(worst < 1e-13);
    CU_ASSERT(worst_dl < 1e-13);
    CU_ASSERT(worst40 < 1e-13);
}

/* The stretch–shear rows of one element at x */
static void ss_residual(const double *x, const double *rest, double C[3])
{
    for (int c = 0; c < 3; c++) {
        pbd_eval_input in = {x, 3, rest + 2 * c, NULL, 0};
        pbd_rod_stretch_shear_type.eval(&in, &C[c], NULL);
    }
}

/* What one Eq. 37 projection leaves (PBD, k = 1), derived: the update is PBD Eq. 8–9 for the
 * 4-vector q, so the linearised Γ is zero for any masses; the normalisation then takes back
 * Δq's part along q, which carried the stretch's share 4 w_q ℓ²/D. So after one projection
 *   C_0, C_1 (shear) = O(ε²),   C_2 (stretch) = C_2 · 4 w_q ℓ²/D + O(ε²),
 * D = w0 + w1 + 4 w_q ℓ². Checked at ε = 1e-4 on random elements (masses as the rod scenes':
 * 4 w_q ℓ² ≫ w, and comparable ones). */
static void test_one_projection_residual(void)
{
    pbd_rng r;
    pbd_rng_seed(&r, 38);
    double worst_shear = 0.0, worst_stretch = 0.0;
    for (int s = 0; s < 100; s++) {
        const double eps = 1e-4, l = pbd_rng_range(&r, 0.05, 1.0);
        double x[10], rest[6], out[10], dl[3], C0[3], C1[3];
        ss_element(&r, eps, l, x, rest);
        const double w0 = pbd_rng_range(&r, 0.1, 3.0), w1 = pbd_rng_range(&r, 0.1, 3.0);
        const double wq = s % 2 ? pbd_rng_range(&r, 0.1, 3.0) : pbd_rng_range(&r, 100.0, 1000.0);
        const double wv[5] = {w0, w1, 4.0 * wq, 4.0 * wq, 1.0};
        const double k[3] = {1, 1, 1}, z[3] = {0, 0, 0};
        memcpy(out, x, sizeof x);
        pbd_eval_input in = {x, 3, rest, NULL, 0};
        pbd_rod_stretch_shear_type.project_element(&in, wv, z, z, k, out, dl);
        ss_residual(x, rest, C0);
        ss_residual(out, rest, C1);
        const double D = w0 + w1 + 4.0 * wq * l * l, e2 = eps * eps * l;
        worst_shear = fmax(worst_shear, fmax(fabs(C1[0]), fabs(C1[1])) / e2);
        worst_stretch = fmax(worst_stretch, fabs(C1[2] - C0[2] * 4.0 * wq * l * l / D) / e2);
    }
    if (!(worst_shear < 10.0 && worst_stretch < 10.0))
        printf("\n    residual / (eps^2 l): shear %.3g, stretch %.3g", worst_shear, worst_stretch);
    CU_ASSERT(worst_shear < 10.0);
    CU_ASSERT(worst_stretch < 10.0);
}

/* A clamped 6-segment rod without gravity, its free particles and orientations moved off the
 * built shape, at rest: PBD (k = 1) with either projection converges in one step of many
 * iterations to the one state with every C = 0 that the clamp leaves, the built shape. */
static void converged_rod(pbd_rod_projection proj, double *dx, double *dq, double *worst_c)
{
    pbd_world *w = pbd_world_create(0);
    pbd_rod_spec spec = pbd_rod_spec_default();
    spec.segments = 6;
    spec.inertia_scale = 1000.0;
    pbd_rod_handles hd;
    CU_ASSERT_EQUAL_FATAL(pbd_rod_add(w, &spec, &hd), PBD_OK);
    double *x0 = malloc(3 * (size_t)w->n * sizeof *x0), *q0 = malloc(4 * (size_t)w->n_orient * sizeof *q0);
    memcpy(x0, w->x, 3 * (size_t)w->n * sizeof *x0);
    memcpy(q0, w->q, 4 * (size_t)w->n_orient * sizeof *q0);
    pbd_rng r;
    pbd_rng_seed(&r, 40);
    for (int i = 1; i < w->n; i++)
        for (int k = 0; k < 3; k++) w->x[3 * i + k] += 0.02 * pbd_rng_gaussian(&r);
    for (int i = 1; i < w->n_orient; i++) {
        double th[3] = {0.1 * pbd_rng_gaussian(&r), 0.1 * pbd_rng_gaussian(&r),
                        0.1 * pbd_rng_gaussian(&r)};
        pbd_quat_perturb(w->q + 4 * i, th, w->q + 4 * i);
    }
    w->def.method = PBD_METHOD_PBD;
    w->def.gravity[1] = 0.0;
    w->def.iterations = 3000;
    w->def.rod_projection = proj;
    CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    *dx = max_abs_diff(w->x, x0, 3 * w->n);
    *dq = 0.0;
    for (int i = 0; i < w->n_orient; i++) {
        double dot = 0.0;
        for (int k = 0; k < 4; k++) dot += w->q[4 * i + k] * q0[4 * i + k];
        *dq = fmax(*dq, 1.0 - fabs(dot));
    }
    *worst_c = 0.0;
    for (int s = 0; s < w->n_sets; s++) *worst_c = fmax(*worst_c, w->sets[s].stats.max_c);
    free(x0);
    free(q0);
    pbd_world_free(w);
}

static void test_same_rest_state(void)
{
    double dx[2], dq[2], c[2];
    converged_rod(PBD_ROD_GENERIC, &dx[0], &dq[0], &c[0]);
    converged_rod(PBD_ROD_CLOSED_FORM, &dx[1], &dq[1], &c[1]);
    for (int v = 0; v < 2; v++) {
        if (!(dx[v] < 1e-9 && dq[v] < 1e-12 && c[v] < 1e-9))
            printf("\n    %s: |x - x_built| %.3g m, 1 - |<q, q_built>| %.3g, max |C| %.3g",
                   v ? "closed-form" : "generic", dx[v], dq[v], c[v]);
        CU_ASSERT(dx[v] < 1e-9);
        CU_ASSERT(dq[v] < 1e-12);
        CU_ASSERT(c[v] < 1e-9);
    }
}

/* pbd-run: --rod-projection is written to the run file, refused where it cannot act. */
static void test_flag(void)
{
    char dir[] = "/tmp/pbd-test-rodcf-XXXXXX", cmd[1024], path[512], buf[64];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "%s/pbd-run rod --method=xpbd --rod-projection=closed-form "
             "--resolution=6 --steps=3 --quiet --out=%s --run=cf >/dev/null 2>&1",
             test_bin_dir(), dir);
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    snprintf(path, sizeof path, "%s/rod/cf.h5", dir);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(path, "solver.rod-projection", buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "closed-form");
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(path, "solver.vbd-order", buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "colour");
    const char *refused[] = {"chain --rod-projection=closed-form",
                             "rod --method=vbd --rod-projection=closed-form"};
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "%s/pbd-run %s --steps=1 --quiet >/dev/null 2>&1",
                 test_bin_dir(), refused[i]);
        CU_ASSERT_EQUAL(test_run(cmd), 2);
    }
    test_remove_dir(dir);
}

void register_rod_closed_form_tests(void)
{
    CU_pSuite s = CU_add_suite("rod_closed_form", NULL, NULL);
    CU_add_test(s, "equations", test_equations);
    CU_add_test(s, "one_projection_residual", test_one_projection_residual);
    CU_add_test(s, "same_rest_state", test_same_rest_state);
    CU_add_test(s, "flag", test_flag);
}
