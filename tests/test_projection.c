/* Projection of a single constraint: PBD Eq. 6–11 against the seed's worked example. */
#include "tests.h"

#include <math.h>

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

void register_projection_tests(void)
{
    CU_pSuite s = CU_add_suite("projection", NULL, NULL);
    CU_add_test(s, "worked_example", test_worked_example);
    CU_add_test(s, "closed_form_equals_generic", test_closed_form_equals_generic);
    CU_add_test(s, "fixed_and_degenerate", test_fixed_and_degenerate);
    CU_add_test(s, "momentum_conservation", test_momentum_conservation);
}
