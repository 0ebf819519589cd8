/* Projective Dynamics' gathered path (solver/pd/pd_gather.c, def.kernels on) held equal to
 * the generic one (pd.c's scatter and cholmod_solve2, def.kernels = 0) (suite
 * `families_pd_gather`): the springs' projections at every SIMD width against the scalar
 * loop and the closed form, the interleaved LDLᵀ solve against cholmod_solve2, one PD
 * iteration and whole steps against the generic path, and 1 = 2 threads bit for bit. The
 * hand iterations of suite `families_path` (pd_local_global, pd_tet_local_global) run on
 * this path too (kernels are on by default). */
#include "tests.h"
#include "experiments/scenes/pbd_scenes.h"
#include "solver/pd/pd_state.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS DBL_EPSILON

static double urand(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* PD's springs (constraints/distance_pd.c): every SIMD width the CPU has gives the scalar
 * loop's bits (the same operations in the same order), over ranges that end inside a block
 * of 4, with a zero-length spring (p = x_a − x_b = 0); and each p is the closed form
 * d (x_a − x_b)/ℓ to 4 ε |p| per component ((d/ℓ)δ and (dδ)/ℓ: two roundings each from the
 * same δ and ℓ). */
static void test_spring_targets(void)
{
    enum { N = 64, M = 103 };
    double x[3 * N], rest[2 * M], ref[3 * M], t[3 * M];
    int32_t idx[2 * M];
    uint64_t s = 7;
    for (int i = 0; i < 3 * N; i++) x[i] = 2.0 * urand(&s) - 1.0;
    for (int c = 0; c < M; c++) {
        idx[2 * c] = (int32_t)(urand(&s) * N);
        idx[2 * c + 1] = c == 37 ? idx[2 * c] : (int32_t)(urand(&s) * N);
        rest[2 * c] = 0.1 + urand(&s);
        rest[2 * c + 1] = -1.0; /* n_rest = 2: the stride is honoured */
    }
    pbd_test_simd_width = 2;
    pbd_distance_pd_targets(x, idx, rest, 2, 0, M, ref);
    int bad = 0;
    for (int c = 0; c < M; c++) {
        const double *a = x + 3 * idx[2 * c], *b = x + 3 * idx[2 * c + 1];
        double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
        double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (int k = 0; k < 3; k++) {
            double p = len > 0.0 ? rest[2 * c] * d[k] / len : d[k];
            if (!(fabs(ref[3 * c + k] - p) <= 4.0 * EPS * fabs(p))) bad++;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(ref[3 * 37] == 0.0 && ref[3 * 37 + 1] == 0.0 && ref[3 * 37 + 2] == 0.0);
    for (int width = 4; width <= 8; width *= 2) {
        pbd_test_simd_width = width;
        memset(t, 0, sizeof t);
        pbd_distance_pd_targets(x, idx, rest, 2, 0, 41, t); /* 41, 62: not multiples of 4 */
        pbd_distance_pd_targets(x, idx, rest, 2, 41, M, t);
        CU_ASSERT(memcmp(t, ref, sizeof t) == 0);
    }
    pbd_test_simd_width = 0;
}

/* A PD-like matrix A = M/h² + Σ w (e_a − e_b)(e_a − e_b)ᵀ on an n × n grid's edges (random
 * masses and weights), factored as pd.c does (simplicial LDLᵀ). */
static cholmod_sparse *grid_matrix(int n, double h, uint64_t *s, double *mh_min,
                                   cholmod_common *cc)
{
    int N = n * n;
    cholmod_triplet *T = cholmod_allocate_triplet(N, N, N + 6 * N, -1, CHOLMOD_REAL, cc);
    int *Ti = T->i, *Tj = T->j;
    double *Tx = T->x;
    long q = 0;
    *mh_min = INFINITY;
    for (int i = 0; i < N; i++) {
        double mh = (0.5 + urand(s)) / (h * h);
        *mh_min = fmin(*mh_min, mh);
        Ti[q] = Tj[q] = i;
        Tx[q++] = mh;
    }
    for (int i = 0; i < N; i++)
        for (int dir = 0; dir < 2; dir++) {
            int j = dir == 0 ? (i % n < n - 1 ? i + 1 : -1) : (i + n < N ? i + n : -1);
            if (j < 0) continue;
            double wt = 1e3 * (0.5 + urand(s));
            Ti[q] = i, Tj[q] = i, Tx[q++] = wt;
            Ti[q] = j, Tj[q] = j, Tx[q++] = wt;
            Ti[q] = j, Tj[q] = i, Tx[q++] = -wt;
        }
    T->nnz = (size_t)q;
    cholmod_sparse *A = cholmod_triplet_to_sparse(T, (size_t)q, cc);
    cholmod_free_triplet(&T, cc);
    return A;
}

/* ‖b − A x‖₂ of column a of the interleaved x4 (stride 4) or column-major x (stride 1). */
static double residual(const cholmod_sparse *A, const double *b, const double *x, int stride,
                       int a, double *scale)
{
    int n = (int)A->nrow;
    const int *Ap = A->p, *Ai = A->i;
    const double *Ax = A->x;
    double *r = calloc((size_t)n, sizeof *r), *m = calloc((size_t)n, sizeof *m);
    for (int j = 0; j < n; j++) /* the lower triangle: each off-diagonal entry twice */
        for (int p = Ap[j]; p < Ap[j + 1]; p++) {
            int i = Ai[p];
            double xj = stride == 4 ? x[4 * j + a] : x[(size_t)a * n + j];
            double xi = stride == 4 ? x[4 * i + a] : x[(size_t)a * n + i];
            r[i] += Ax[p] * xj;
            m[i] += fabs(Ax[p] * xj);
            if (i != j) {
                r[j] += Ax[p] * xi;
                m[j] += fabs(Ax[p] * xi);
            }
        }
    double rr = 0.0, mm = 0.0;
    for (int i = 0; i < n; i++) {
        double bi = b[(size_t)a * n + i];
        rr += (bi - r[i]) * (bi - r[i]);
        mm += (fabs(bi) + m[i]) * (fabs(bi) + m[i]);
    }
    free(r);
    free(m);
    *scale = sqrt(mm);
    return sqrt(rr);
}

/* The interleaved solve (pbd_pd_ldl_solve4 on L by rows and by columns) against
 * cholmod_solve2 on the same factor, three right sides. Bound: x₁ − x₂ = A⁻¹(r₂ − r₁) for
 * the residuals r = b − A x, ‖A⁻¹‖₂ ≤ h²/min m (A − M/h² is positive semidefinite), and
 * each computed residual is within γ₆ (|b| + |A||x|) of the true one (rows of ≤ 5 entries);
 * the interleaved solve's residual is held to 4× CHOLMOD's plus that rounding. */
static void test_ldl_solve4(void)
{
    cholmod_common cc;
    cholmod_start(&cc);
    cc.print = 0;
    cc.default_nesdis = 1;
    cc.supernodal = CHOLMOD_SIMPLICIAL;
    uint64_t s = 11;
    const double h = 1.0 / 60.0;
    double mh_min;
    cholmod_sparse *A = grid_matrix(23, h, &s, &mh_min, &cc);
    cholmod_factor *L = cholmod_analyze(A, &cc);
    CU_ASSERT_FATAL(L && cholmod_factorize(A, L, &cc) && cc.status == CHOLMOD_OK);
    CU_ASSERT_FATAL(!L->is_ll && !L->is_super);
    const int n = (int)A->nrow, *perm = L->Perm;
    cholmod_dense *B = cholmod_allocate_dense(n, 3, n, CHOLMOD_REAL, &cc);
    double *b = B->x;
    for (int i = 0; i < 3 * n; i++) b[i] = 2.0 * urand(&s) - 1.0;
    cholmod_dense *X = cholmod_solve(CHOLMOD_A, L, B, &cc);
    pd_state pd;
    memset(&pd, 0, sizeof pd);
    pd.L = L;
    CU_ASSERT_EQUAL_FATAL(pbd_pd_factor_rows(&pd), PBD_OK);
    double *x4 = aligned_alloc(32, 32 * (size_t)n), *x = malloc(32 * (size_t)n);
    for (int k = 0; k < n; k++) /* P b */
        for (int a = 0; a < 4; a++) x4[4 * k + a] = a < 3 ? b[(size_t)a * n + perm[k]] : 0.0;
    pbd_pd_ldl_solve4(L, pd.row_ptr, pd.row_j, pd.row_x, x4);
    for (int k = 0; k < n; k++) /* Pᵀ x */
        for (int a = 0; a < 4; a++) x[4 * perm[k] + a] = x4[4 * k + a];
    const double g6 = 6.0 * EPS / (1.0 - 6.0 * EPS);
    for (int a = 0; a < 3; a++) {
        double sc1, sc2;
        double r1 = residual(A, b, x, 4, a, &sc1), r2 = residual(A, b, X->x, 1, a, &sc2);
        CU_ASSERT(r1 <= 4.0 * r2 + g6 * (sc1 + sc2));
        double tol = (r1 + r2 + g6 * (sc1 + sc2)) / mh_min, err = 0.0;
        for (int i = 0; i < n; i++)
            err = fmax(err, fabs(x[4 * i + a] - ((double *)X->x)[(size_t)a * n + i]));
        CU_ASSERT(err <= tol);
        if (!(err <= tol) || !(r1 <= 4.0 * r2 + g6 * (sc1 + sc2)))
            fprintf(stderr, "ldl_solve4: column %d: |dx| %.3e (bound %.3e), residuals %.3e %.3e\n",
                    a, err, tol, r1, r2);
        CU_ASSERT(x[4 * 0 + 3] == 0.0);
    }
    pbd_pd_gather_free(&pd);
    free(x4);
    free(x);
    cholmod_free_dense(&X, &cc);
    cholmod_free_dense(&B, &cc);
    cholmod_free_factor(&L, &cc);
    cholmod_free_sparse(&A, &cc);
    cholmod_finish(&cc);
}

/* A side × side cloth, 1 kg per particle, α = 1e-3 (w = 10³ ≈ m/h²: κ₂(A) ≤ 1 + 8 w h²/m ≈
 * 3.2 by Gershgorin), pinned as the scene pins it, an attachment on the last particle, every
 * particle with a velocity: the path's rows are nontrivial. */
static pbd_world *pd_cloth(int side, int kernels, int iterations)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = side;
    sp.total_mass = (double)side * side;
    sp.compliance = 1e-3;
    pbd_world *w = pbd_scene_cloth(&sp);
    if (!w) return NULL;
    uint64_t s = 3;
    for (int i = 0; i < 3 * w->n; i++) w->v[i] = urand(&s) - 0.5;
    int set = pbd_world_add_set(w, &pbd_attachment_type, 0);
    int32_t last[1] = {w->n - 1};
    double t[3] = {w->x[3 * (w->n - 1)] + 0.1, w->x[3 * (w->n - 1) + 1], 0.05};
    pbd_set_add(w, set, last, t, 1.0, 1e-3);
    w->def.method = PBD_METHOD_PD;
    w->def.kernels = kernels;
    w->def.iterations = iterations;
    w->def.measure_every = 0;
    return w;
}

/* The gathered path against the generic one on the cloth: one iteration of one step (the
 * path), then 10 iterations over 5 steps. Bound per iteration: both solve A x = b to a
 * normwise backward error of the LDLᵀ solve, ≤ γ_c with c = 3·(nf + 1) (Higham Thm 10.4, n
 * the free rows), and their right sides differ by the summation order (γ_8 of the row's
 * magnitude), so |Δx| ≤ 2 κ₂ (γ_c + γ_8) ‖x‖, κ₂ ≤ 3.2 (pd_cloth); over K iterations and
 * steps, K times that (an iteration's map is non-expansive: PD Sec. 3, its local step a
 * projection, its global step a solve with ‖(A)⁻¹ W‖ ≤ 1). */
static void test_gathered_equals_generic(void)
{
    const int side = 12, nf_bound = side * side;
    const double gc = 3.0 * (nf_bound + 1) * EPS, kappa = 3.2;
    const int cases[2][2] = {{1, 1}, {10, 5}};
    for (int cs = 0; cs < 2; cs++) {
        int iters = cases[cs][0], steps = cases[cs][1];
        pbd_world *g = pd_cloth(side, 0, iters), *f = pd_cloth(side, 1, iters);
        CU_ASSERT_FATAL(g && f);
        for (int st = 0; st < steps; st++) {
            CU_ASSERT_EQUAL_FATAL(pbd_step(g), PBD_OK);
            CU_ASSERT_EQUAL_FATAL(pbd_step(f), PBD_OK);
        }
        double err = 0.0, mag = 0.0;
        for (int i = 0; i < 3 * g->n; i++) {
            err = fmax(err, fabs(f->x[i] - g->x[i]));
            mag = fmax(mag, fabs(g->x[i]));
        }
        double tol = iters * steps * 2.0 * kappa * (gc + 8.0 * EPS) * mag;
        CU_ASSERT(err <= tol);
        CU_ASSERT(err > 0.0 || iters == 1); /* two paths, not one: they round differently */
        if (!(err <= tol)) fprintf(stderr, "gathered_equals_generic: %d x %d: %.3e > %.3e\n",
                                   iters, steps, err, tol);
        pbd_world_free(g);
        pbd_world_free(f);
    }
}

/* The gathered path on 1 and 2 threads (the local step and the rows split over them; the
 * 48² cloth is above PBD_FAMILY_PARALLEL_MIN): the same bits after 4 steps. */
static void test_gathered_threads(void)
{
    pbd_world *a = pd_cloth(48, 1, 10), *b = pd_cloth(48, 1, 10);
    CU_ASSERT_FATAL(a && b && a->n >= PBD_FAMILY_PARALLEL_MIN);
    a->def.threads = 1;
    b->def.threads = 2;
    for (int st = 0; st < 4; st++) {
        CU_ASSERT_EQUAL_FATAL(pbd_step(a), PBD_OK);
        CU_ASSERT_EQUAL_FATAL(pbd_step(b), PBD_OK);
    }
    CU_ASSERT(memcmp(a->x, b->x, 3 * sizeof(double) * (size_t)a->n) == 0);
    pbd_world_free(a);
    pbd_world_free(b);
}

void register_families_pd_gather_tests(void)
{
    CU_pSuite s = CU_add_suite("families_pd_gather", NULL, NULL);
    CU_add_test(s, "spring_targets", test_spring_targets);
    CU_add_test(s, "ldl_solve4", test_ldl_solve4);
    CU_add_test(s, "gathered_equals_generic", test_gathered_equals_generic);
    CU_add_test(s, "gathered_threads", test_gathered_threads);
}
