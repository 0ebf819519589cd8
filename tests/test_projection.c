/* Projection of a single constraint: PBD Eq. 6–11 against the seed's worked example. */
#include "tests.h"

#include <math.h>
#include <string.h>

static void project_distance(double *x, const double *w, double d, double k, int closed_form)
{
    double grad[6];
    pbd_eval_input in = {x, 2, &d, NULL, 0};
    if (closed_form)
        pbd_distance_type.project_closed_form(&in, w, k, x);
    else
        pbd_project_generic(&pbd_distance_type, &in, w, k, x, grad);
}

/* Seed distance-constraint-worked-example: m1 = 10, m2 = 2, p1 = (5,3,2), p2 = (1,5,6),
 * d = 3, k = 1 gives Δp1 = (-1/3, 1/6, 1/3), Δp2 = (5/3, -5/6, -5/3) and C = 0 after. */
static void test_worked_example(void)
{
    for (int closed = 0; closed < 2; closed++) {
        double x[6] = {5, 3, 2, 1, 5, 6}, w[2] = {1.0 / 10, 1.0 / 2}, d = 3.0;
        project_distance(x, w, d, 1.0, closed);
        const double expect[6] = {5 - 1.0 / 3, 3 + 1.0 / 6, 2 + 1.0 / 3,
                                  1 + 5.0 / 3, 5 - 5.0 / 6, 6 - 5.0 / 3};
        for (int i = 0; i < 6; i++) CU_ASSERT_DOUBLE_EQUAL(x[i], expect[i], 1e-12);
        double C;
        pbd_eval_input in = {x, 2, &d, NULL, 0};
        pbd_distance_type.eval(&in, &C, NULL);
        CU_ASSERT_DOUBLE_EQUAL(C, 0.0, 1e-12);
    }
}

/* The closed form (Eq. 10/11) equals the generic path (Eq. 6–9) on random input. */
static void test_closed_form_equals_generic(void)
{
    pbd_rng r;
    pbd_rng_seed(&r, 7);
    for (int t = 0; t < 10000; t++) {
        double a[6], b[6], w[2], d = pbd_rng_range(&r, 0.1, 3.0), k = pbd_rng_uniform(&r);
        for (int i = 0; i < 6; i++) a[i] = b[i] = pbd_rng_range(&r, -2, 2);
        w[0] = t % 7 == 0 ? 0.0 : pbd_rng_range(&r, 0.1, 10);
        w[1] = pbd_rng_range(&r, 0.1, 10);
        project_distance(a, w, d, k, 1);
        project_distance(b, w, d, k, 0);
        for (int i = 0; i < 6; i++) CU_ASSERT_DOUBLE_EQUAL(a[i], b[i], 1e-12 * (1 + fabs(a[i])));
    }
}

/* w = 0 never moves; all-fixed or coincident points: no NaN, nothing moves. */
static void test_fixed_and_degenerate(void)
{
    for (int closed = 0; closed < 2; closed++) {
        double x[6] = {0, 0, 0, 2, 0, 0}, w[2] = {0.0, 1.0};
        project_distance(x, w, 1.0, 1.0, closed);
        CU_ASSERT_EQUAL(x[0], 0.0);
        CU_ASSERT_EQUAL(x[1], 0.0);
        CU_ASSERT_EQUAL(x[2], 0.0);
        CU_ASSERT_DOUBLE_EQUAL(x[3], 1.0, 1e-15);

        double y[6] = {0, 0, 0, 2, 0, 0}, none[2] = {0.0, 0.0};
        project_distance(y, none, 1.0, 1.0, closed);
        CU_ASSERT(test_all_finite(y, 6));
        CU_ASSERT_EQUAL(y[3], 2.0);

        double z[6] = {1, 2, 3, 1, 2, 3}, ww[2] = {1.0, 1.0};
        project_distance(z, ww, 1.0, 1.0, closed);
        CU_ASSERT(test_all_finite(z, 6));
        CU_ASSERT_EQUAL(z[0], 1.0);
        CU_ASSERT_EQUAL(z[3], 1.0);
    }
    /* the same through a world step: the fixed particle stays where it is */
    const double p1[3] = {0, 0, 0}, p2[3] = {0, 0, 0};
    pbd_world *w = test_two_particles(p1, p2, 0.0, 0.0);
    int s = pbd_world_add_set(w, &pbd_distance_type, 0);
    int32_t idx[2] = {0, 1};
    double rest = 1.0;
    CU_ASSERT(pbd_set_add(w, s, idx, &rest, 1.0, 0.0) == 0);
    CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
    CU_ASSERT(test_all_finite(w->x, 6));
    CU_ASSERT_EQUAL(w->x[3], 0.0);
    pbd_world_free(w);
}

/* Internal constraints conserve linear and angular momentum for unequal masses
 * (PBD Eq. 1–2): Σ m_i Δp_i = 0 and Σ r_i × m_i Δp_i = 0. */
static void test_momentum_conservation(void)
{
    pbd_rng r;
    pbd_rng_seed(&r, 11);
    for (int t = 0; t < 1000; t++) {
        double x[6], x0[6], w[2] = {pbd_rng_range(&r, 0.05, 20), pbd_rng_range(&r, 0.05, 20)};
        for (int i = 0; i < 6; i++) x[i] = x0[i] = pbd_rng_range(&r, -3, 3);
        project_distance(x, w, pbd_rng_range(&r, 0.1, 2), pbd_rng_uniform(&r), 0);
        double lin[3] = {0, 0, 0}, ang[3] = {0, 0, 0};
        for (int j = 0; j < 2; j++) {
            double m = 1.0 / w[j], dp[3];
            for (int c = 0; c < 3; c++) dp[c] = m * (x[3 * j + c] - x0[3 * j + c]);
            const double *q = x0 + 3 * j;
            for (int c = 0; c < 3; c++) lin[c] += dp[c];
            ang[0] += q[1] * dp[2] - q[2] * dp[1];
            ang[1] += q[2] * dp[0] - q[0] * dp[2];
            ang[2] += q[0] * dp[1] - q[1] * dp[0];
        }
        for (int c = 0; c < 3; c++) {
            CU_ASSERT_DOUBLE_EQUAL(lin[c], 0.0, 1e-11);
            CU_ASSERT_DOUBLE_EQUAL(ang[c], 0.0, 1e-10);
        }
    }
}


/* ---- the public single projections (solver/pbd.h), against formulas computed here ---- */

/* Two particles, a distance constraint |x1 - x2| - d, unequal inverse masses, in->x and
 * x_out distinct: x_out receives its own value plus Δx computed at in->x. */
static const double dist_x[6] = {0.3, -1.2, 0.7, 1.9, 0.4, -0.8}, dist_w[2] = {0.8, 0.15};
static const double dist_off[6] = {10, 20, 30, -10, -20, -30}, dist_d = 1.1;

static void distance_normal(double n[3], double *C)
{
    double dx[3] = {dist_x[0] - dist_x[3], dist_x[1] - dist_x[4], dist_x[2] - dist_x[5]};
    double len = sqrt(dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2]);
    for (int c = 0; c < 3; c++) n[c] = dx[c] / len;
    *C = len - dist_d;
}

/* PBD Eq. 10–11 with stiffness k (Sec. 3.3): Δp1 = -k w1/(w1+w2) C n, Δp2 = +k w2/(w1+w2) C n. */
static void test_public_pbd_distance(void)
{
    const double k = 0.7;
    double n[3], C, x_out[6], g[6];
    distance_normal(n, &C);
    for (int i = 0; i < 6; i++) x_out[i] = dist_off[i];
    pbd_eval_input in = {dist_x, 2, &dist_d, NULL, 0};
    CU_ASSERT_EQUAL(pbd_project_generic(&pbd_distance_type, &in, dist_w, k, x_out, g),
                    PBD_EVAL_OK);
    double sw = dist_w[0] + dist_w[1];
    for (int c = 0; c < 3; c++) {
        CU_ASSERT_DOUBLE_EQUAL(x_out[c], dist_off[c] - k * dist_w[0] / sw * C * n[c], 1e-14);
        CU_ASSERT_DOUBLE_EQUAL(x_out[3 + c], dist_off[3 + c] + k * dist_w[1] / sw * C * n[c],
                               1e-14);
        CU_ASSERT_DOUBLE_EQUAL(g[c], n[c], 1e-15); /* grad_work receives ∇C */
        CU_ASSERT_DOUBLE_EQUAL(g[3 + c], -n[c], 1e-15);
    }
}

/* XPBD Eq. 18 for one distance constraint (|∇_j C| = 1): Δλ = (-C - α̃λ)/(w1 + w2 + α̃),
 * λ += Δλ, Δx_j = Δλ w_j ∇_j C (Eq. 17) with ∇_1 C = n = -∇_2 C. */
static void test_public_xpbd_distance(void)
{
    const double alpha_tilde = 0.37, lambda0 = -0.21;
    double n[3], C, x_out[6], g[6], lambda = lambda0;
    distance_normal(n, &C);
    for (int i = 0; i < 6; i++) x_out[i] = dist_off[i];
    pbd_eval_input in = {dist_x, 2, &dist_d, NULL, 0};
    CU_ASSERT_EQUAL(pbd_project_generic_xpbd(&pbd_distance_type, &in, dist_w, alpha_tilde,
                                             &lambda, x_out, g), PBD_EVAL_OK);
    double dl = (-C - alpha_tilde * lambda0) / (dist_w[0] + dist_w[1] + alpha_tilde);
    CU_ASSERT_DOUBLE_EQUAL(lambda, lambda0 + dl, 1e-15);
    for (int c = 0; c < 3; c++) {
        CU_ASSERT_DOUBLE_EQUAL(x_out[c], dist_off[c] + dl * dist_w[0] * n[c], 1e-14);
        CU_ASSERT_DOUBLE_EQUAL(x_out[3 + c], dist_off[3 + c] - dl * dist_w[1] * n[c], 1e-14);
    }
    /* α̃ = 0, λ = 0 in place: PBD with k = 1, the constraint satisfied afterwards */
    double y[6], z[6], l0 = 0.0;
    for (int i = 0; i < 6; i++) y[i] = z[i] = dist_x[i];
    pbd_eval_input iy = {y, 2, &dist_d, NULL, 0}, iz = {z, 2, &dist_d, NULL, 0};
    CU_ASSERT_EQUAL(pbd_project_generic_xpbd(&pbd_distance_type, &iy, dist_w, 0.0, &l0, y, g),
                    PBD_EVAL_OK);
    CU_ASSERT_EQUAL(pbd_project_generic(&pbd_distance_type, &iz, dist_w, 1.0, z, g), PBD_EVAL_OK);
    for (int i = 0; i < 6; i++) CU_ASSERT_DOUBLE_EQUAL(y[i], z[i], 1e-14);
    CU_ASSERT_DOUBLE_EQUAL(l0, -C / (dist_w[0] + dist_w[1]), 1e-15);
}

/* A tetrahedron's volume constraint C = (1/6) e1·(e2×e3) - V0 (e_i = p_i - p0) against the
 * generic formulas with its gradient written out here: ∇_1 = e2×e3/6, ∇_2 = e3×e1/6,
 * ∇_3 = e1×e2/6, ∇_0 = -(∇_1 + ∇_2 + ∇_3); PBD Eq. 8–9 and XPBD Eq. 18. */
static void cross(double r[3], const double a[3], const double b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static void test_public_tet_volume(void)
{
    const double x[12] = {0.1, 0.2, -0.1, 1.3, 0.1, 0.2, 0.2, 0.9, -0.3, -0.1, 0.4, 1.1};
    const double w[4] = {0.5, 2.0, 0.0, 1.25}, V0 = 0.3, k = 0.45, at = 0.8, l0 = 0.05;
    double e[3][3], grad[12], C;
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < 3; c++) e[i][c] = x[3 * (i + 1) + c] - x[c];
    cross(grad + 3, e[1], e[2]);
    cross(grad + 6, e[2], e[0]);
    cross(grad + 9, e[0], e[1]);
    C = (e[0][0] * grad[3] + e[0][1] * grad[4] + e[0][2] * grad[5]) / 6.0 - V0;
    for (int i = 3; i < 12; i++) grad[i] /= 6.0;
    for (int c = 0; c < 3; c++) grad[c] = -(grad[3 + c] + grad[6 + c] + grad[9 + c]);
    double wg = 0.0;
    for (int j = 0; j < 4; j++)
        for (int c = 0; c < 3; c++) wg += w[j] * grad[3 * j + c] * grad[3 * j + c];

    double a[12], b[12], g[12], lambda = l0;
    for (int i = 0; i < 12; i++) a[i] = b[i] = x[i];
    pbd_eval_input in = {x, 4, &V0, NULL, 0};
    CU_ASSERT_EQUAL(pbd_project_generic(&pbd_tet_volume_type, &in, w, k, a, g), PBD_EVAL_OK);
    CU_ASSERT_EQUAL(pbd_project_generic_xpbd(&pbd_tet_volume_type, &in, w, at, &lambda, b, g),
                    PBD_EVAL_OK);
    double dl = (-C - at * l0) / (wg + at);
    CU_ASSERT_DOUBLE_EQUAL(lambda, l0 + dl, 1e-14);
    for (int i = 0; i < 12; i++) {
        CU_ASSERT_DOUBLE_EQUAL(a[i], x[i] - k * C / wg * w[i / 3] * grad[i], 1e-14);
        CU_ASSERT_DOUBLE_EQUAL(b[i], x[i] + dl * w[i / 3] * grad[i], 1e-14);
    }
    CU_ASSERT(fabs(C) > 0.1 && a[6] == x[6] && b[8] == x[8]); /* moved; w = 0 stays */
}

/* Return values: a satisfied inequality (-1) and an all-fixed constraint (degenerate) move
 * nothing and leave λ alone. */
static void test_public_projection_status(void)
{
    const double plane[6] = {0, 0, 0, 0, 0, 1}, above[3] = {0.5, 0.5, 0.2}, w1[1] = {1.0};
    double y[3] = {9, 9, 9}, g[6], lambda = 0.5;
    pbd_eval_input ip = {above, 1, plane, NULL, 0};
    CU_ASSERT_EQUAL(pbd_project_generic(&pbd_plane_collision_type, &ip, w1, 1.0, y, g), -1);
    CU_ASSERT_EQUAL(pbd_project_generic_xpbd(&pbd_plane_collision_type, &ip, w1, 0.1, &lambda,
                                             y, g), -1);
    const double below[3] = {0.5, 0.5, -0.2};
    ip.x = below;
    CU_ASSERT_EQUAL(pbd_project_generic(&pbd_plane_collision_type, &ip, w1, 1.0, y, g),
                    PBD_EVAL_OK);
    CU_ASSERT_DOUBLE_EQUAL(y[2], 9.2, 1e-14); /* +0.2 along n, added to x_out */
    double z[6] = {0, 0, 0, 2, 0, 0}, none[2] = {0, 0}, d = 1.0;
    pbd_eval_input id = {z, 2, &d, NULL, 0};
    CU_ASSERT_EQUAL(pbd_project_generic_xpbd(&pbd_distance_type, &id, none, 0.1, &lambda, z, g),
                    PBD_EVAL_DEGENERATE);
    CU_ASSERT_EQUAL(lambda, 0.5);
    CU_ASSERT_EQUAL(y[0], 9.0);
    CU_ASSERT_EQUAL(z[3], 2.0);
}

/* pbd_world_set_particle_w keeps the inverse mass bit for bit; the mass path 1/(1/w) does
 * not for some w (0.11 comes back as 0.10999999999999999), which is why it exists. */
static void test_set_particle_inverse_mass(void)
{
    pbd_world *w = pbd_world_create(2);
    const double x[3] = {1, 2, 3}, v[3] = {0.5, 0, 0};
    int inexact = 0;
    for (int i = 0; i <= 100; i++) {
        volatile double iw = i / 100.0; /* volatile: no folding of 1/(1/w) */
        CU_ASSERT_EQUAL(pbd_world_set_particle_w(w, 1, x, v, iw), PBD_OK);
        CU_ASSERT(w->w[1] == iw);
        pbd_world_set_particle(w, 0, x, NULL, i ? 1.0 / iw : 0.0);
        inexact += w->w[0] != iw;
    }
    CU_ASSERT(inexact > 0);
    CU_ASSERT(w->x[3] == 1.0 && w->p[5] == 3.0 && w->v[3] == 0.5);
    const double nan3[3] = {NAN, 0, 0};
    CU_ASSERT_EQUAL(pbd_world_set_particle_w(w, 2, x, v, 1.0), PBD_EINVAL);
    CU_ASSERT_EQUAL(pbd_world_set_particle_w(w, -1, x, v, 1.0), PBD_EINVAL);
    CU_ASSERT_EQUAL(pbd_world_set_particle_w(w, 1, x, v, -0.5), PBD_EINVAL);
    CU_ASSERT_EQUAL(pbd_world_set_particle_w(w, 1, x, v, INFINITY), PBD_EINVAL);
    CU_ASSERT_EQUAL(pbd_world_set_particle_w(w, 1, nan3, v, 1.0), PBD_EINVAL);
    CU_ASSERT(strstr(pbd_last_error(), "pbd_world_set_particle_w") != NULL);
    CU_ASSERT(w->w[1] == 1.0 && w->x[3] == 1.0); /* unchanged by the rejected calls */
    pbd_world_free(w);
}

void register_projection_tests(void)
{
    CU_pSuite s = CU_add_suite("projection", NULL, NULL);
    CU_add_test(s, "worked_example", test_worked_example);
    CU_add_test(s, "closed_form_equals_generic", test_closed_form_equals_generic);
    CU_add_test(s, "fixed_and_degenerate", test_fixed_and_degenerate);
    CU_add_test(s, "momentum_conservation", test_momentum_conservation);
    CU_add_test(s, "public_pbd_distance", test_public_pbd_distance);
    CU_add_test(s, "public_xpbd_distance", test_public_xpbd_distance);
    CU_add_test(s, "public_tet_volume", test_public_tet_volume);
    CU_add_test(s, "public_projection_status", test_public_projection_status);
    CU_add_test(s, "set_particle_inverse_mass", test_set_particle_inverse_mass);
}
