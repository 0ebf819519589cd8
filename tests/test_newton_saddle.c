/* The Newton reference proves a minimum (solver/newton/README.md "Newton reference"): on a
 * nonconvex step its line search descends G (Armijo), its direction is modified where the
 * KKT direction does not descend, and a converged point that is a saddle of G is refused. */
#include "tests.h"

#include <gsl/gsl_multimin.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>

enum { CHAIN_N = 20 };
#define CHAIN_H (1.0 / 60)

/* The chain of the VBD authors' reference code (its tilted strand): 20 particles at
 * x = 0.05 m · k, y = 2 m + 0.05 m · k · tan 60° — rising at 30° from the vertical, links of
 * 0.1 m —, the first fixed, the last one a further spacing out (k = 20) with 1000 kg (the
 * rest 1 kg), springs of k = 1e8 N/m (α = 1e-8 m/N) between neighbours, g = 10 m/s² down,
 * Δt = 1/60 s. Its first implicit step is nonconvex: the heavy end falls onto the chain. */
static pbd_world *tilted_chain(void)
{
    pbd_world *w = pbd_world_create(CHAIN_N);
    const double dis = 0.05, tan60 = sqrt(3.0);
    for (int i = 0; i < CHAIN_N; i++) {
        const int k = i < CHAIN_N - 1 ? i : i + 1;
        const double x[3] = {k * dis, 2.0 + k * dis * tan60, 0.0};
        pbd_world_set_particle(w, i, x, NULL, i == 0 ? 0.0 : i < CHAIN_N - 1 ? 1.0 : 1000.0);
    }
    w->def.gravity[0] = w->def.gravity[2] = 0.0;
    w->def.gravity[1] = -10.0;
    const int s = pbd_world_add_set(w, &pbd_distance_type, 0);
    for (int i = 0; i + 1 < CHAIN_N; i++) {
        const int32_t idx[2] = {i, i + 1};
        pbd_set_add(w, s, idx, NULL, 1.0, 1e-8);
    }
    w->def.method = PBD_METHOD_NEWTON;
    w->def.dt = CHAIN_H;
    return w;
}

/* G of a distance-spring world at x (J), its gradient's 2-norm into *grad (N) and the
 * smallest eigenvalue of its dense Hessian (N/m) into *lo: independent of the library's
 * Newton code (GSL's symmetric eigensolver). xt: the prediction x + h v + h² g. */
static double spring_G(const pbd_world *w, const double *xt, const double *x, double h,
                       double *grad, double *lo)
{
    const int n3 = 3 * w->n;
    gsl_matrix *H = gsl_matrix_calloc((size_t)n3, (size_t)n3);
    double G = 0.0, g[3 * CHAIN_N] = {0};
    for (int i = 0; i < w->n; i++)
        for (int k = 0; k < 3; k++) {
            const double m = w->w[i] > 0.0 ? 1.0 / w->w[i] : 0.0;
            G += 0.5 * m * pow(x[3 * i + k] - xt[3 * i + k], 2) / (h * h);
            g[3 * i + k] = m * (x[3 * i + k] - xt[3 * i + k]) / (h * h);
            gsl_matrix_set(H, 3 * i + k, 3 * i + k, w->w[i] > 0.0 ? m / (h * h) : 1e300);
        }
    const pbd_constraint_set *set = &w->sets[0];
    for (int c = 0; c < set->count; c++) {
        const int a = set->idx[2 * c], b = set->idx[2 * c + 1];
        double d[3], l = 0.0;
        for (int k = 0; k < 3; k++) d[k] = x[3 * a + k] - x[3 * b + k], l += d[k] * d[k];
        l = sqrt(l);
        const double kk = 1.0 / set->compliance[c], r = set->rest[c];
        G += 0.5 * kk * (l - r) * (l - r);
        for (int p = 0; p < 3; p++) {
            g[3 * a + p] += kk * (l - r) * d[p] / l;
            g[3 * b + p] -= kk * (l - r) * d[p] / l;
            for (int q = 0; q < 3; q++) {
                const double nn = d[p] * d[q] / (l * l);
                const double v = kk * (nn + (1.0 - r / l) * ((p == q) - nn));
                const int fa = w->w[a] > 0.0, fb = w->w[b] > 0.0;
                if (fa) *gsl_matrix_ptr(H, 3 * a + p, 3 * a + q) += v;
                if (fb) *gsl_matrix_ptr(H, 3 * b + p, 3 * b + q) += v;
                if (fa && fb) {
                    *gsl_matrix_ptr(H, 3 * a + p, 3 * b + q) -= v;
                    *gsl_matrix_ptr(H, 3 * b + p, 3 * a + q) -= v;
                }
            }
        }
    }
    double gg = 0.0;
    for (int i = 0; i < w->n; i++)
        for (int k = 0; w->w[i] > 0.0 && k < 3; k++) gg += g[3 * i + k] * g[3 * i + k];
    *grad = sqrt(gg);
    gsl_vector *ev = gsl_vector_alloc((size_t)n3);
    gsl_eigen_symm_workspace *ws = gsl_eigen_symm_alloc((size_t)n3);
    gsl_eigen_symm(H, ev, ws);
    *lo = gsl_vector_min(ev);
    gsl_eigen_symm_free(ws);
    gsl_vector_free(ev);
    gsl_matrix_free(H);
    return G;
}

/* Before this check the step converged in 7 iterations to a saddle: G = 3.490 J, 31
 * negative eigenvalues of ∇²G (the chain folded under the heavy end). Now it ends at the
 * minimiser, G = 0.2365 J: ∇²G's smallest eigenvalue positive (GSL, dense), ∇G zero to the
 * stop, the library's own check saying "proven", and the first step's Armijo condition met. */
static void test_tilted_chain_minimum(void)
{
    pbd_world *w = tilted_chain();
    double xt[3 * CHAIN_N];
    for (int i = 0; i < w->n; i++)
        for (int k = 0; k < 3; k++)
            xt[3 * i + k] = w->x[3 * i + k] + CHAIN_H * w->v[3 * i + k] +
                            (w->w[i] > 0.0 ? CHAIN_H * CHAIN_H * w->def.gravity[k] : 0.0);
    double g0, lo0;
    const double G_start = spring_G(w, xt, xt, CHAIN_H, &g0, &lo0);
    pbd_status st = pbd_step(w);
    if (st != PBD_OK) printf("\n    tilted chain: %s\n", pbd_last_error());
    CU_ASSERT_EQUAL_FATAL(st, PBD_OK);
    pbd_newton_info info;
    pbd_newton_last_info(w, &info);
    double grad, lo;
    const double G = spring_G(w, xt, w->x, CHAIN_H, &grad, &lo);
    printf("\n    tilted chain step 1: %d iterations (%d switches to the modified direction), "
           "G = %.6g J (library %.6g J; from x~ %.6g J), |grad G| = %.2e N, smallest "
           "eigenvalue of its Hessian %.4g N/m, minimum %d\n", info.iterations, info.modified,
           G, info.objective, G_start, grad, lo, info.minimum);
    CU_ASSERT_EQUAL(info.minimum, PBD_NEWTON_MINIMUM_PROVEN);
    /* two solves: the first (line search on ||(g, h)||, Newton's rate) ends at the saddle of
     * before, the second descends G from x̃ to the minimiser */
    CU_ASSERT_EQUAL(info.escapes, 1);
    CU_ASSERT(lo > 0.0);
    /* the saddle of before had G = 3.490 J; the minimiser's 0.2365 J, to the stop's
     * tolerance (G's change over a converged step is O(|grad G|²/λ_min) ≪ 1e-6 J) */
    CU_ASSERT(G < 0.5 * 3.490);
    CU_ASSERT(fabs(G - 0.2365) < 5e-4);
    /* the library's G is the same function: the two sums differ by their rounding, a few
     * ε × the largest term (the 1000 kg particle's ½ m |x − x̃|²/h² and the springs' ½kC²,
     * each below G_start) */
    CU_ASSERT(fabs(info.objective - G) <= 64 * DBL_EPSILON * G_start);
    /* ∇G = 0 to the stop: ||g|| <= tol S_g with S_g = |M(x~ - x0)| (kg m) → /h² in N */
    CU_ASSERT(grad <= 1e-8 * 1000.0 * 10.0 * 1.01 + 1e-6);
    /* the first accepted step: G(x + t dx) <= G(x) + c t ∇G·dx with c = 1e-4 */
    const double *fs = info.first_step;
    CU_ASSERT(fs[1] < 0.0);
    CU_ASSERT(fs[3] <= fs[0] + 1e-4 * fs[2] * fs[1]);
    pbd_world_free(w);
}

/* A saddle by construction: particle 1 (1 kg, free) midway between two fixed particles 2 m
 * apart, tied to each by a spring of rest length 1.5 m (compressed to 1 m), at rest, no
 * gravity: x = x~ and the springs' forces cancel, so ∇G = 0 at the start and the Newton
 * iteration stays on the line. Along it ∇²G = m + 2h²k > 0; across it
 * m + 2h²k(1 − 1.5/1) = m − h²k, negative for k = 1e4 N/m at h = 1/60 s (h²k = 2.78 kg):
 * two negative eigenvalues (y and z). The check must find the saddle (LDLᵀ: 2 negative
 * pivots, curvature (m − h²k)/h² = −6400 J/m²) and leave it along that direction to the
 * minimum off the line (the springs at their rest length's projection: G lower than the
 * saddle's 2 × ½k·0.5² = 2500 J), proven; the same springs stretched (rest 0.5 m) give a
 * proven minimum on the line with no escape. */
static pbd_world *two_springs(double rest)
{
    pbd_world *w = pbd_world_create(3);
    const double x0[3] = {-1.0, 0.0, 0.0}, x1[3] = {0.0, 0.0, 0.0}, x2[3] = {1.0, 0.0, 0.0};
    pbd_world_set_particle(w, 0, x0, NULL, 0.0);
    pbd_world_set_particle(w, 1, x1, NULL, 1.0);
    pbd_world_set_particle(w, 2, x2, NULL, 0.0);
    w->def.gravity[0] = w->def.gravity[1] = w->def.gravity[2] = 0.0;
    const int s = pbd_world_add_set(w, &pbd_distance_type, 0);
    const int32_t a[2] = {0, 1}, b[2] = {1, 2};
    pbd_set_add(w, s, a, &rest, 1.0, 1e-4);
    pbd_set_add(w, s, b, &rest, 1.0, 1e-4);
    w->def.method = PBD_METHOD_NEWTON;
    w->def.dt = 1.0 / 60;
    return w;
}

static void test_constructed_saddle_left(void)
{
    pbd_world *w = two_springs(1.5);
    pbd_status st = pbd_step(w);
    pbd_newton_info info;
    pbd_newton_last_info(w, &info);
    printf("\n    two compressed springs: status %d, minimum %d, escapes %d, G = %.6g J, "
           "particle 1 at (%.4g, %.4g, %.4g)\n", st, info.minimum, info.escapes, info.objective,
           w->x[3], w->x[4], w->x[5]);
    CU_ASSERT_EQUAL(st, PBD_OK);
    CU_ASSERT(info.escapes >= 1);
    CU_ASSERT_EQUAL(info.minimum, PBD_NEWTON_MINIMUM_PROVEN);
    /* off the line, and G well below the saddle's 2500 J (its rounding: ε × 2500) */
    CU_ASSERT(hypot(w->x[4], w->x[5]) > 0.1);
    CU_ASSERT(info.objective < 2500.0 * (1.0 - 1e-3));
    pbd_world_free(w);

    w = two_springs(0.5);
    CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
    pbd_newton_last_info(w, &info);
    CU_ASSERT_EQUAL(info.minimum, PBD_NEWTON_MINIMUM_PROVEN);
    CU_ASSERT_EQUAL(info.escapes, 0);
    pbd_world_free(w);
}

/* An asymmetric saddle: the two compressed springs above, z held by a spring at rest from
 * (0, 0, 1) (k = 2e4 N/m: z's curvature m − h²k + h²k_z > 0), and a weak spring at rest from
 * (0.5, 1, 0) (k = 1e3 N/m) whose length is not even in y: one negative direction, mostly
 * y, along which G falls further on one side than on the other. The step must end at the
 * lower of the two minima, found here by a grid over the plane z = 0 (z is held there by
 * symmetry): the escape starts on the side where G falls further. */
static double asym_G(const double p[3], double h)
{
    static const double q[4][3] = {{-1, 0, 0}, {1, 0, 0}, {0, 0, 1}, {0.5, 1, 0}};
    const double rest[4] = {1.5, 1.5, 1.0, 1.118033988749895}, k[4] = {1e4, 1e4, 2e4, 1e3};
    double G = 0.5 * (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) / (h * h); /* m = 1, x̃ = 0 */
    for (int s = 0; s < 4; s++) {
        const double C = hypot(hypot(p[0] - q[s][0], p[1] - q[s][1]), p[2] - q[s][2]) - rest[s];
        G += 0.5 * k[s] * C * C;
    }
    return G;
}

static double asym_G_gsl(const gsl_vector *v, void *h)
{
    const double p[3] = {gsl_vector_get(v, 0), gsl_vector_get(v, 1), gsl_vector_get(v, 2)};
    return asym_G(p, *(const double *)h);
}

static double simplex_min(const double start[3], double h)
{
    gsl_multimin_function f = {asym_G_gsl, 3, &h};
    gsl_vector *x = gsl_vector_alloc(3), *step = gsl_vector_alloc(3);
    for (int k = 0; k < 3; k++) gsl_vector_set(x, (size_t)k, start[k]);
    gsl_vector_set_all(step, 0.05);
    gsl_multimin_fminimizer *m = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, 3);
    gsl_multimin_fminimizer_set(m, &f, x, step);
    for (int it = 0; it < 20000; it++) {
        if (gsl_multimin_fminimizer_iterate(m)) break;
        if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), 1e-9) == GSL_SUCCESS) break;
    }
    const double G = m->fval;
    gsl_multimin_fminimizer_free(m);
    gsl_vector_free(x);
    gsl_vector_free(step);
    return G;
}

static void test_asymmetric_saddle_lower_side(void)
{
    pbd_world *w = pbd_world_create(5);
    const double xs[5][3] = {{-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {0.5, 1, 0}};
    for (int i = 0; i < 5; i++) pbd_world_set_particle(w, i, xs[i], NULL, i == 1 ? 1.0 : 0.0);
    w->def.gravity[0] = w->def.gravity[1] = w->def.gravity[2] = 0.0;
    const int s = pbd_world_add_set(w, &pbd_distance_type, 0);
    const int32_t e[4][2] = {{0, 1}, {1, 2}, {3, 1}, {4, 1}};
    const double rest[4] = {1.5, 1.5, 1.0, sqrt(1.25)}, alpha[4] = {1e-4, 1e-4, 5e-5, 1e-3};
    for (int c = 0; c < 4; c++) pbd_set_add(w, s, e[c], &rest[c], 1.0, alpha[c]);
    w->def.method = PBD_METHOD_NEWTON;
    w->def.dt = 1.0 / 60;
    CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    pbd_newton_info info;
    pbd_newton_last_info(w, &info);
    /* each side's lowest G by GSL's simplex from six starts, (0, ±0.7, z0) z0 = 0, ±0.3,
     * to a simplex of 1e-9 m (G within ½ max|∇²G| (1e-9 m)² ≈ 4e-14 J of a minimum) */
    double low[2] = {INFINITY, INFINITY};
    const double h = w->def.dt;
    for (int side = 0; side < 2; side++)
        for (int z = -1; z <= 1; z++) {
            const double start[3] = {0.0, side ? 0.7 : -0.7, 0.3 * z};
            low[side] = fmin(low[side], simplex_min(start, h));
        }
    const double G_lib = asym_G(&w->x[3], h);
    printf("\n    asymmetric saddle: minimum %d, solves %d, particle 1 at (%.4g, %.4g, %.4g), "
           "G = %.6g J; GSL's simplex: %.6g J (y < 0), %.6g J (y > 0)\n", info.minimum, info.escapes + 1,
           w->x[3], w->x[4], w->x[5], G_lib, low[0], low[1]);
    CU_ASSERT_EQUAL(info.minimum, PBD_NEWTON_MINIMUM_PROVEN);
    CU_ASSERT(fabs(low[0] - low[1]) > 1.0); /* the sides differ by far more than 4e-14 J */
    CU_ASSERT((w->x[4] > 0.0) == (low[1] < low[0]));
    /* the library's G: at the lower minimum to the stop's resolution (∇G of tol S_g over a
     * length S_x; here below 1e-9 of G) */
    CU_ASSERT(fabs(G_lib - fmin(low[0], low[1])) <= 1e-9 * G_lib);
    pbd_world_free(w);
}

void register_newton_saddle_tests(void)
{
    CU_pSuite s = CU_add_suite("newton_saddle", NULL, NULL);
    CU_add_test(s, "tilted_chain_minimum", test_tilted_chain_minimum);
    CU_add_test(s, "constructed_saddle_left", test_constructed_saddle_left);
    CU_add_test(s, "asymmetric_saddle_lower_side", test_asymmetric_saddle_lower_side);
}
