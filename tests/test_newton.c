/* The Newton reference (XPBD Eq. 8–11 solved exactly) and XPBD's distance to it. */
#include "tests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An 8-particle chain laid out along +x from its attached end, compliance alpha, XPBD,
 * stepped `warm` times with 100 iterations so that it is swinging. */
static pbd_world *swinging_chain(double alpha, double dt, int warm)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 8;
    sp.compliance = alpha;
    pbd_world *w = pbd_scene_chain(&sp);
    for (int i = 0; i < w->n; i++) {
        w->x[3 * i] = w->p[3 * i] = -w->x[3 * i + 1];
        w->x[3 * i + 1] = w->p[3 * i + 1] = 0.0;
    }
    w->def.method = PBD_METHOD_XPBD;
    w->def.dt = dt;
    w->def.iterations = 100;
    for (int s = 0; s < warm; s++) pbd_step(w);
    return w;
}

static double max_dist(const double *a, const double *b, int n3)
{
    double d = 0.0;
    for (int i = 0; i < n3; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

/* Newton with the full Hessian converges quadratically: once r_{k-1} < 1e-2, every
 * residual above rounding is at most 100 r_{k-1}² (measured: 0.4 to 30), and the last
 * ratio r_n / r_{n-1} is tiny. (Without the geometric stiffness λ∇²C the same scene
 * converges linearly, r_k / r_{k-1} ≈ 0.89, and fails all three.) */
static void test_quadratic_convergence(void)
{
    const double alphas[2] = {1e-3, 1e-6};
    for (int a = 0; a < 2; a++) {
        pbd_world *w = swinging_chain(alphas[a], 0.05, 10);
        double res[31];
        int n_iter = -1;
        pbd_status st = pbd_newton_solve(w, 30, 1e-12, NULL, NULL, res, &n_iter);
        CU_ASSERT_EQUAL_FATAL(st, PBD_OK);
        CU_ASSERT(n_iter >= 3 && n_iter <= 8);
        CU_ASSERT(res[n_iter] <= 1e-12);
        CU_ASSERT(res[0] > 1e-3); /* a real problem to start with */
        int checked = 0;
        for (int k = 1; k <= n_iter; k++) {
            if (!(res[k - 1] < 1e-2) || res[k] < 1e-14) continue;
            CU_ASSERT(res[k] <= 1e2 * res[k - 1] * res[k - 1]);
            checked++;
        }
        CU_ASSERT(checked >= 2);
        CU_ASSERT(res[n_iter] / res[n_iter - 1] < 1e-3);
        pbd_world_free(w);
    }
}

/* XPBD with more iterations comes closer to the Newton solution of the same step: 1 → 10 →
 * 100 iterations. It converges to its own fixed point (h = C + α̃λ = 0 to rounding) and
 * stays there (1000 ≈ 100): XPBD's g = M(x - x̃) - ∇C(x)ᵀλ is only kept to first order,
 * because each Δλ moves x along ∇C at the iterate, not at the solution (XPBD Sec. 4).
 * That gap shrinks quickly with Δt (below: halving Δt divides it by > 100). */
static void test_xpbd_approaches_newton(void)
{
    pbd_world *ref = swinging_chain(1e-3, 0.05, 10);
    int n3 = 3 * ref->n;
    double *xs = malloc((size_t)n3 * sizeof *xs);
    CU_ASSERT_EQUAL_FATAL(pbd_newton_solve(ref, 30, 1e-12, xs, NULL, NULL, NULL), PBD_OK);
    double move = max_dist(xs, ref->x, n3);
    const int iterations[4] = {1, 10, 100, 1000};
    double d[4], hres[4];
    for (int k = 0; k < 4; k++) {
        pbd_world *w = swinging_chain(1e-3, 0.05, 10);
        w->def.iterations = iterations[k];
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        d[k] = max_dist(w->x, xs, n3);
        hres[k] = w->stats.xpbd_residual;
        pbd_world_free(w);
    }
    CU_ASSERT(d[1] < 0.5 * d[0]);
    CU_ASSERT(d[2] < 0.1 * d[1]);
    CU_ASSERT(fabs(d[3] - d[2]) <= 0.01 * d[2]);
    CU_ASSERT(d[3] < 0.05 * move);
    CU_ASSERT(hres[3] < 1e-12);
    CU_ASSERT(hres[2] < 1e-3 * hres[0]);

    /* the fixed-point gap against Δt, from rest */
    double gap[2];
    const double dts[2] = {0.05, 0.025};
    for (int k = 0; k < 2; k++) {
        pbd_world *w = swinging_chain(1e-3, dts[k], 0), *u = swinging_chain(1e-3, dts[k], 0);
        CU_ASSERT_EQUAL_FATAL(pbd_newton_solve(u, 30, 1e-12, xs, NULL, NULL, NULL), PBD_OK);
        w->def.iterations = 1000;
        pbd_step(w);
        gap[k] = max_dist(w->x, xs, n3);
        pbd_world_free(w);
        pbd_world_free(u);
    }
    CU_ASSERT(gap[0] > 0.0);
    CU_ASSERT(gap[1] < 1e-2 * gap[0]);
    free(xs);
    pbd_world_free(ref);
}

/* pbd_newton_step advances the world: h = C + α̃λ ≈ 0 in the step's stats, the attached
 * particle stays put, v = (x_{n+1} - x_n)/Δt, and a rigid (α = 0) chain keeps its lengths. */
static void test_newton_step(void)
{
    const double alphas[2] = {1e-4, 0.0};
    for (int a = 0; a < 2; a++) {
        pbd_world *w = swinging_chain(alphas[a], 1.0 / 60, 0);
        double *x0 = malloc(3 * (size_t)w->n * sizeof *x0);
        for (int s = 0; s < 30; s++) {
            memcpy(x0, w->x, 3 * (size_t)w->n * sizeof *x0);
            int n_iter;
            CU_ASSERT_EQUAL_FATAL(pbd_newton_step(w, 30, 1e-10, NULL, &n_iter), PBD_OK);
            CU_ASSERT(w->stats.xpbd_residual <= 1e-10);
            CU_ASSERT_DOUBLE_EQUAL(w->v[3 * 5 + 1], (w->x[3 * 5 + 1] - x0[3 * 5 + 1]) * 60, 1e-9);
        }
        CU_ASSERT_EQUAL(w->step_count, 30);
        CU_ASSERT_EQUAL(w->x[0], 0.0);
        CU_ASSERT_EQUAL(w->x[1], 0.0);
        CU_ASSERT(w->x[3 * 7 + 1] < -0.2); /* it swung down */
        if (alphas[a] == 0.0) CU_ASSERT(w->stats.max_c <= 1e-10);
        if (alphas[a] > 0.0) CU_ASSERT(w->stats.max_c > 1e-6); /* compliant: stretched */
        free(x0);
        pbd_world_free(w);
    }
}

/* Too few iterations is an error with one clear line, and the world is untouched. */
static void test_newton_reports_failure(void)
{
    pbd_world *w = swinging_chain(1e-3, 0.05, 5);
    double x = w->x[3 * 7];
    CU_ASSERT_EQUAL(pbd_newton_step(w, 1, 1e-12, NULL, NULL), PBD_ENUMERIC);
    CU_ASSERT(strstr(pbd_last_error(), "newton") != NULL);
    CU_ASSERT_EQUAL(w->x[3 * 7], x);
    CU_ASSERT_EQUAL(pbd_newton_step(w, 10, -1.0, NULL, NULL), PBD_EINVAL);
    pbd_world_free(w);
}

void register_newton_tests(void)
{
    CU_pSuite s = CU_add_suite("newton", NULL, NULL);
    CU_add_test(s, "quadratic_convergence", test_quadratic_convergence);
    CU_add_test(s, "xpbd_approaches_newton", test_xpbd_approaches_newton);
    CU_add_test(s, "newton_step", test_newton_step);
    CU_add_test(s, "newton_reports_failure", test_newton_reports_failure);
}
