/* The central-difference helper (analysis/fd_gradient.c) that the gradient checker and the
 * gradient tests share: the Jacobian's layout and accuracy for a vector-valued f (as the
 * FD of ∇C will need), its status on degenerate and non-finite evaluations, and the
 * checker's error metric on a right and a planted wrong gradient. */
#include "analysis/pbd_analysis.h"
#include "tests.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

/* f(x) = (x0² x1, sin x2, x0 x1 x2, exp x0): R^3 -> R^4 */
static int f_vec(void *user, const double *x, double *f)
{
    (void)user;
    f[0] = x[0] * x[0] * x[1];
    f[1] = sin(x[2]);
    f[2] = x[0] * x[1] * x[2];
    f[3] = exp(x[0]);
    return PBD_EVAL_OK;
}

static void test_jacobian_vector(void)
{
    const double x[3] = {0.7, -1.3, 0.4};
    /* J[i][k] = ∂f_k / ∂x_i */
    const double J[3][4] = {
        {2 * x[0] * x[1], 0.0, x[1] * x[2], exp(x[0])},
        {x[0] * x[0], 0.0, x[0] * x[2], 0.0},
        {0.0, cos(x[2]), x[0] * x[1], 0.0},
    };
    double jac[12], work[3 + 2 * 4];
    CU_ASSERT_EQUAL(pbd_fd_jacobian(f_vec, NULL, x, 3, 4, cbrt(DBL_EPSILON), jac, work),
                    PBD_FD_OK);
    double worst = 0.0;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 4; k++)
            worst = fmax(worst, fabs(jac[4 * i + k] - J[i][k]) / fmax(fabs(J[i][k]), 1.0));
    printf("\n    worst |J_fd - J| / max(|J|, 1) = %.2e ", worst);
    CU_ASSERT(worst <= 1e-9); /* ε^(2/3) ≈ 3.7e-11 times the third derivatives (~1) */
}

/* f(x) = x0 / x1, degenerate where x1 < 0 and NaN where x0 > 10 */
static int f_guarded(void *user, const double *x, double *f)
{
    (void)user;
    *f = x[0] > 10.0 ? NAN : x[0] / x[1];
    return x[1] < 0.0 ? PBD_EVAL_DEGENERATE : PBD_EVAL_OK;
}

static void test_jacobian_status(void)
{
    double jac[2], work[2 + 2];
    const double ok[2] = {1.0, 2.0}, degenerate[2] = {1.0, 1e-9}, nan[2] = {10.0, 2.0},
                 both[2] = {10.0, -1.0};
    CU_ASSERT_EQUAL(pbd_fd_jacobian(f_guarded, NULL, ok, 2, 1, 1e-5, jac, work), PBD_FD_OK);
    CU_ASSERT_DOUBLE_EQUAL(jac[0], 0.5, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(jac[1], -0.25, 1e-9);
    CU_ASSERT_EQUAL(pbd_fd_jacobian(f_guarded, NULL, degenerate, 2, 1, 1e-5, jac, work),
                    PBD_FD_DEGENERATE);
    CU_ASSERT_EQUAL(pbd_fd_jacobian(f_guarded, NULL, nan, 2, 1, 1e-5, jac, work),
                    PBD_FD_NONFINITE);
    /* NaN and degenerate at once: the non-finite value is reported first */
    CU_ASSERT_EQUAL(pbd_fd_jacobian(f_guarded, NULL, both, 2, 1, 1e-5, jac, work),
                    PBD_FD_NONFINITE);
}

/* ∇C of the distance type as a pbd_fd_fn (m = 6): its FD is the Hessian
 * (I - n nᵀ)/d in the blocks [[H, -H], [-H, H]], symmetric, rows summing to zero. */
static int distance_grad(void *user, const double *x, double *g)
{
    const double *rest = user;
    pbd_eval_input in = {x, 2, rest, NULL, 0};
    double C;
    return pbd_distance_type.eval(&in, &C, g);
}

static void test_jacobian_of_gradient(void)
{
    const double x[6] = {0.1, 0.2, -0.3, 1.1, -0.4, 0.5}, rest = 0.8;
    double d[3] = {x[3] - x[0], x[4] - x[1], x[5] - x[2]};
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double jac[36], work[6 + 12], worst = 0.0;
    CU_ASSERT_EQUAL(pbd_fd_jacobian(distance_grad, (void *)&rest, x, 6, 6,
                                    cbrt(DBL_EPSILON) * len, jac, work),
                    PBD_FD_OK);
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 6; k++) {
            int a = i % 3, b = k % 3;
            double H = ((a == b) - d[a] * d[b] / (len * len)) / len;
            double expect = (i < 3) == (k < 3) ? H : -H;
            worst = fmax(worst, fabs(jac[6 * i + k] - expect));
        }
    printf("\n    worst |H_fd - H| = %.2e (|H| ~ %.2f) ", worst, 1.0 / len);
    CU_ASSERT(worst <= 1e-8 / len);
}

/* The checker's metric: a right gradient stays at FD noise, a 1e-4 relative error in one
 * component is reported as ~1e-4; the FD gradient itself is the same either way. */
static void test_gradient_metric(void)
{
    pbd_rng r;
    pbd_rng_seed(&r, 11);
    for (int n = 0; n < 50; n++) {
        double x[3 * PBD_SAMPLE_MAX_ARITY], rest[1], g[6], fd[6], fd2[6], C, e = -1.0, e2 = -1.0;
        int32_t aux[1];
        int n_aux = 0;
        CU_ASSERT_EQUAL_FATAL(pbd_distance_type.sample(&r, 0, x, rest, aux, &n_aux), 2);
        pbd_eval_input in = {x, 2, rest, NULL, 0};
        CU_ASSERT_EQUAL(pbd_distance_type.eval(&in, &C, g), PBD_EVAL_OK);
        CU_ASSERT_EQUAL(pbd_fd_gradient(&pbd_distance_type, &in, C, g, 1e-6, fd, &e), PBD_FD_OK);
        CU_ASSERT(e >= 0.0 && e <= 1e-7);
        int big = 0; /* plant the error in the largest component (far above the floor) */
        for (int i = 1; i < 6; i++)
            if (fabs(g[i]) > fabs(g[big])) big = i;
        g[big] *= 1.0 + 1e-4;
        CU_ASSERT_EQUAL(pbd_fd_gradient(&pbd_distance_type, &in, C, g, 1e-6, fd2, &e2),
                        PBD_FD_OK);
        CU_ASSERT(e2 >= 0.9e-4 && e2 <= 1.1e-4);
        for (int i = 0; i < 6; i++) CU_ASSERT_DOUBLE_EQUAL(fd2[i], fd[i], 1e-12);
    }
}

void register_fd_tests(void)
{
    CU_pSuite s = CU_add_suite("fd", NULL, NULL);
    CU_add_test(s, "jacobian_vector", test_jacobian_vector);
    CU_add_test(s, "jacobian_status", test_jacobian_status);
    CU_add_test(s, "jacobian_of_gradient", test_jacobian_of_gradient);
    CU_add_test(s, "gradient_metric", test_gradient_metric);
}
