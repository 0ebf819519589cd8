/* Cosserat rods (issue 22): orientations beside the particles, the stretch–shear and
 * bend–twist constraints, momentum with the spin, the clamp, the checker on SO(3). */
#include "tests.h"

#include "analysis/pbd_analysis.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* the rotation vector θ with exp(θ/2) = b ā (the short way round) */
static void rotvec_between(const double a[4], const double b[4], double th[3])
{
    double ac[4] = {a[0], -a[1], -a[2], -a[3]}, r[4];
    pbd_quat_mul(b, ac, r);
    if (r[0] < 0.0)
        for (int k = 0; k < 4; k++) r[k] = -r[k];
    double s = sqrt(r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    double f = s > 1e-300 ? 2.0 * atan2(s, r[0]) / s : 2.0;
    for (int k = 0; k < 3; k++) th[k] = f * r[1 + k];
}

/* One projection of each rod type (pbd_project_generic, random masses and isotropic inertias):
 * Σ m Δx = 0 and Σ m x × Δx + Σ I Δθ = 0 (PBD Eq. 1–2 with the spin), to rounding; without
 * the spin term the angular balance is off by the order of the step itself. */
static void test_projection_momentum(void)
{
    const pbd_constraint_type *types[] = {&pbd_rod_stretch_shear_type, &pbd_rod_bend_twist_type};
    for (int t = 0; t < 2; t++) {
        const pbd_constraint_type *type = types[t];
        pbd_rng rng;
        pbd_rng_seed(&rng, 7 + t);
        double worst = 0.0, worst_orbital = 0.0;
        for (int s = 0; s < 200; s++) {
            double x[64], xo[64], rest[16], g[32], w[8];
            int32_t aux[1];
            int n_aux = 0;
            int arity = type->sample(&rng, 0, x, rest, aux, &n_aux);
            const int np = arity - type->n_orient, nx = 3 * np + 4 * type->n_orient;
            for (int j = 0; j < arity; j++) w[j] = pbd_rng_range(&rng, 0.1, 10.0);
            memcpy(xo, x, sizeof(double) * nx);
            pbd_eval_input in = {x, arity, rest, NULL, 0};
            CU_ASSERT_EQUAL_FATAL(pbd_project_generic(type, &in, w, 1.0, xo, g), PBD_EVAL_OK);
            double lin[3] = {0, 0, 0}, ang[3] = {0, 0, 0}, orb[3] = {0, 0, 0}, scale = 0.0;
            for (int j = 0; j < np; j++) {
                double m = 1.0 / w[j], d[3], *p = x + 3 * j;
                for (int k = 0; k < 3; k++) d[k] = xo[3 * j + k] - p[k];
                double c[3] = {p[1] * d[2] - p[2] * d[1], p[2] * d[0] - p[0] * d[2],
                               p[0] * d[1] - p[1] * d[0]};
                for (int k = 0; k < 3; k++) {
                    lin[k] += m * d[k];
                    orb[k] += m * c[k];
                    scale += fabs(m * c[k]) + fabs(m * d[k]);
                }
            }
            memcpy(ang, orb, sizeof ang);
            for (int j = np; j < arity; j++) {
                double th[3];
                rotvec_between(x + 3 * np + 4 * (j - np), xo + 3 * np + 4 * (j - np), th);
                for (int k = 0; k < 3; k++) {
                    ang[k] += th[k] / w[j];
                    scale += fabs(th[k] / w[j]);
                }
            }
            if (!(scale > 1e-12)) continue;
            double e = (fabs(lin[0]) + fabs(lin[1]) + fabs(lin[2]) + fabs(ang[0]) +
                        fabs(ang[1]) + fabs(ang[2])) / scale;
            double eo = (fabs(orb[0]) + fabs(orb[1]) + fabs(orb[2])) / scale;
            worst = fmax(worst, e);
            worst_orbital = fmax(worst_orbital, eo);
        }
        printf("\n    %-18s |Σ m Δx| + |Σ m x × Δx + Σ I Δθ|: %.2g of the terms (without the "
               "spin: %.2g)", type->name, worst, worst_orbital);
        CU_ASSERT(worst < 1e-10);
        if (type->n_orient < type->arity) CU_ASSERT(worst_orbital > 1e-2); /* has particles */
    }
}

/* A free rod (no clamp, no gravity), deformed, at rest: one XPBD step of its internal
 * constraints (the world's step with anisotropic inertias) leaves the linear momentum at
 * rounding and the angular momentum with the spin at second order in the deformation ε
 * (each projection conserves it at its own positions; the step's v = Δx/h differ by O(ε²)),
 * while the particles' orbital part alone is first order. */
static void rod_step_momentum(double eps, double *lin_rel, double *ang_rel, double *orb_rel)
{
    pbd_world *w = pbd_world_create(0);
    pbd_rod_spec r = pbd_rod_spec_default();
    r.clamp = 0;
    r.segments = 8;
    r.helix_radius = 0.1; /* curved and twisted rest shape: every component in play */
    r.helix_pitch = 0.3;
    r.twist = 2.0;
    CU_ASSERT_EQUAL_FATAL(pbd_rod_add(w, &r, NULL), PBD_OK);
    pbd_rng rng;
    pbd_rng_seed(&rng, 3);
    for (int i = 0; i < 3 * w->n; i++) w->x[i] += eps * 0.05 * pbd_rng_gaussian(&rng);
    for (int i = 0; i < w->n_orient; i++) {
        double th[3] = {eps * pbd_rng_gaussian(&rng), eps * pbd_rng_gaussian(&rng),
                        eps * pbd_rng_gaussian(&rng)};
        pbd_quat_perturb(w->q + 4 * i, th, w->q + 4 * i);
    }
    w->def.method = PBD_METHOD_XPBD;
    w->def.gravity[0] = w->def.gravity[1] = w->def.gravity[2] = 0.0;
    w->def.iterations = 5;
    w->def.dt = 1e-3;
    CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
    double lin[3], ang[3], spin[3], scale_l = 0.0, scale_a = 0.0;
    pbd_momentum(w, w->x, w->v, lin, ang);
    pbd_orientation_momentum(w, spin, NULL);
    for (int i = 0; i < w->n; i++) {
        double m = 1.0 / w->w[i], *x = w->x + 3 * i, *v = w->v + 3 * i;
        scale_l += m * sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        scale_a += m * sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) *
                   sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    }
    scale_a += sqrt(spin[0] * spin[0] + spin[1] * spin[1] + spin[2] * spin[2]);
    double orb[3] = {ang[0] - spin[0], ang[1] - spin[1], ang[2] - spin[2]};
    *lin_rel = sqrt(lin[0] * lin[0] + lin[1] * lin[1] + lin[2] * lin[2]) / scale_l;
    *ang_rel = sqrt(ang[0] * ang[0] + ang[1] * ang[1] + ang[2] * ang[2]) / scale_a;
    *orb_rel = sqrt(orb[0] * orb[0] + orb[1] * orb[1] + orb[2] * orb[2]) / scale_a;
    pbd_world_free(w);
}

static void test_step_momentum(void)
{
    double l1, a1, o1, l2, a2, o2;
    rod_step_momentum(1e-3, &l1, &a1, &o1);
    rod_step_momentum(1e-4, &l2, &a2, &o2);
    printf("\n    one XPBD step of a deformed free rod: linear %.2g, angular with spin %.2g "
           "(eps 1e-3) %.2g (eps 1e-4), orbital alone %.2g", l1, a1, a2, o2);
    CU_ASSERT(l1 < 1e-10 && l2 < 1e-10);
    CU_ASSERT(a2 < 1e-3);            /* small: conserved with the spin */
    CU_ASSERT(a1 > 3.0 * a2);        /* and it is the second-order remainder */
    CU_ASSERT(o2 > 100.0 * a2);      /* the particles alone do not balance */
}

/* The clamp holds particle 0 and orientation 0 exactly; the cantilever sags below the axis;
 * refused: the Jacobi scheme and the Newton reference, with the reason. */
static void test_clamp_and_refusals(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    pbd_world *w = pbd_scene_rod(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    w->def.method = PBD_METHOD_XPBD;
    double q0[4];
    memcpy(q0, w->q, sizeof q0);
    for (int s = 0; s < 30; s++) CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
    CU_ASSERT_EQUAL(memcmp(q0, w->q, sizeof q0), 0);
    CU_ASSERT(w->x[0] == 0.0 && w->x[1] == 0.0 && w->x[2] == 0.0);
    CU_ASSERT(w->x[3 * (w->n - 1) + 1] < -0.01); /* the tip sags */
    w->def.scheme = PBD_SCHEME_JACOBI;
    CU_ASSERT_EQUAL(pbd_step(w), PBD_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(pbd_last_error(), "orientations"));
    w->def.scheme = PBD_SCHEME_GAUSS_SEIDEL;
    CU_ASSERT_EQUAL(pbd_newton_check(w), PBD_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(pbd_last_error(), "orientations"));
    pbd_world_free(w);
}

/* The checker differences orientations on SO(3): a stretch–shear whose ∇_θ C is given in the
 * body frame (R ᵀ ∇_θ C, a plausible slip) fails, while the type itself passes. */
static int body_frame_eval(const pbd_eval_input *in, double *C, double *grad)
{
    int st = pbd_rod_stretch_shear_type.eval(in, C, grad);
    if (grad) pbd_quat_rotate_inv(in->x + 6, grad + 6, grad + 6);
    return st;
}

static void test_checker_catches_frame(void)
{
    pbd_constraint_type bad = pbd_rod_stretch_shear_type;
    bad.name = "rod_stretch_shear_body_frame";
    bad.eval = body_frame_eval;
    pbd_gradcheck_options o = pbd_gradcheck_options_default();
    o.samples = 100;
    o.degenerate_samples = 10;
    pbd_gradcheck_result good_r, bad_r;
    CU_ASSERT_EQUAL_FATAL(pbd_gradcheck_type(&pbd_rod_stretch_shear_type, &o, &good_r), PBD_OK);
    CU_ASSERT_EQUAL_FATAL(pbd_gradcheck_type(&bad, &o, &bad_r), PBD_OK);
    printf("\n    SO(3) gradient: right %.2g (%s), body frame %.2g (%s)", good_r.max_rel_err,
           good_r.pass ? "PASS" : "FAIL", bad_r.max_rel_err, bad_r.pass ? "PASS" : "FAIL");
    CU_ASSERT(good_r.pass);
    CU_ASSERT(!bad_r.pass);
    pbd_gradcheck_result_free(&good_r);
    pbd_gradcheck_result_free(&bad_r);
}

/* The elastica solver (analysis/elastica.c): small loads give wL⁴/(8EI) (δ/L = Λ/8); the
 * large-deflection correction is odd in the load (θ → −θ with w → −w), third order: (Λ/8 − δ/L)/Λ³
 * is the same at Λ = 0.05 and 0.1; the inextensible tip stays within L of the clamp; a bad
 * load is refused. */
static void test_elastica(void)
{
    double d, x, k;
    CU_ASSERT_EQUAL_FATAL(pbd_elastica_cantilever(1e-4, &d, &x, &k), PBD_OK);
    printf("\n    elastica at load 1e-4: delta/L = %.10g, Λ/8 = %.10g; root curvature %.6g "
           "(Λ/2 = 5e-5)", d, 1e-4 / 8, k);
    CU_ASSERT(fabs(d / (1e-4 / 8) - 1.0) < 1e-7);
    CU_ASSERT(fabs(k / 5e-5 - 1.0) < 1e-7);
    double d1, d2;
    CU_ASSERT_EQUAL(pbd_elastica_cantilever(0.05, &d1, NULL, NULL), PBD_OK);
    CU_ASSERT_EQUAL(pbd_elastica_cantilever(0.1, &d2, NULL, NULL), PBD_OK);
    double c1 = (0.05 / 8 - d1) / pow(0.05, 3), c2 = (0.1 / 8 - d2) / pow(0.1, 3);
    printf("\n    (Λ/8 - delta/L)/Λ³ at 0.05: %.6g, at 0.1: %.6g", c1, c2);
    CU_ASSERT(c1 > 0.0 && fabs(c1 / c2 - 1.0) < 0.01);
    CU_ASSERT_EQUAL(pbd_elastica_cantilever(5.0, &d, &x, NULL), PBD_OK);
    printf("\n    load 5: delta/L %.5f, reach %.5f (small-deflection 0.625)", d, x);
    CU_ASSERT(d < 5.0 / 8 && d * d + x * x < 1.0 && x > 0.0);
    CU_ASSERT_EQUAL(pbd_elastica_cantilever(-1.0, &d, NULL, NULL), PBD_EINVAL);
}

void register_rods_tests(void)
{
    CU_pSuite s = CU_add_suite("rods", NULL, NULL);
    CU_add_test(s, "projection_momentum", test_projection_momentum);
    CU_add_test(s, "step_momentum", test_step_momentum);
    CU_add_test(s, "clamp_and_refusals", test_clamp_and_refusals);
    CU_add_test(s, "checker_catches_frame", test_checker_catches_frame);
    CU_add_test(s, "elastica", test_elastica);
}
