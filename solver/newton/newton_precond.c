/* MINRES' preconditioner in single precision (solver/newton/README.md "The modified
 * factorisation"). The kept factor is CHOLMOD's supernodal LLᵀ of
 * P A Pᵀ (P the fill-reducing permutation, L->Perm: row k of P A Pᵀ is row Perm[k] of A),
 * stored per supernode s as a dense column-major block: columns super[s] .. super[s+1]-1, rows
 * Ls[pi[s] .. pi[s+1]) (the first of them the supernode's own columns: its lower-triangular
 * diagonal block), values from Lx[px[s]] (CHOLMOD's cholmod_core.h, "supernodal"). The
 * preconditioner applies
 *
 *     z = Pᵀ L⁻ᵀ L⁻¹ P v
 *
 * by a forward substitution L y = P v, supernode by supernode in column order, and a backward
 * one Lᵀ u = y in reverse order, z = Pᵀ u — the same as cholmod_solve2(CHOLMOD_A, ...) — but
 * reading L's values from a float copy (made after each factorisation) and summing in
 * double: each solve streams L twice, so half the bytes. The rounded factor L̃ = L + E
 * (|E| ≤ 2⁻²⁴|L|) still gives a symmetric positive definite preconditioner L̃L̃ᵀ, all that
 * preconditioned MINRES asks of one (newton_krylov.c: Elman, Silvester & Wathen); its
 * directions and stop are MINRES' own on the exact matrix, so the answer is the same to the
 * tolerance.
 * The same code over a double copy serves the test that checks the traversal against
 * CHOLMOD (pbd_newton_precond_check). */
#include "newton_private.h"

#include <cholmod.h>
#ifdef __AVX__
#include <immintrin.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int precond_double; /* pbd_newton_set_precond_float(0): CHOLMOD's solve in double */

void pbd_newton_set_precond_float(int on) { precond_double = !on; }

int newton_precond_float(void) { return !precond_double; }

/* 4 doubles (GCC's generic vectors: AVX where the build has it, pairs of SSE2 else; the
 * functions below are static, so the ABI of passing them without AVX does not matter) */
#pragma GCC diagnostic ignored "-Wpsabi"
typedef double v4d __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
static inline v4d load_float(const float *p)
{
#ifdef __AVX__ /* one vcvtps2pd from memory (GCC's generic conversion split it in three) */
    return (v4d)_mm256_cvtps_pd(_mm_loadu_ps(p));
#else
    v4f f;
    memcpy(&f, p, sizeof f);
    return __builtin_convertvector(f, v4d);
#endif
}
static inline v4d load_double(const double *p)
{
    v4d d;
    memcpy(&d, p, sizeof d);
    return d;
}
static inline double hsum(v4d a) { return (a[0] + a[1]) + (a[2] + a[3]); }

/* The substitutions, for L's values of type T (float: the preconditioner; double: the check;
 * LOAD reads 4 of them as doubles). x holds P v on entry and u on return; t is scratch of
 * L->maxesize doubles at least. Per supernode, forward: the diagonal block's columns in
 * order (y_j = x_j / L_jj, then the block's rows below j), then t = B y for the rows below
 * the block (B: the block's last ne rows, 4 columns at a time) scattered into x; backward:
 * t gathered from the rows below, x_j -= B_jᵀ t for every column, then the diagonal block
 * from its last column up (x_j = (x_j − Σ_{i>j} L_ij x_i) / L_jj). Sums in double, in vectors
 * of 4 (an order fixed by the code, not the ISA). */
#define NEWTON_SUBSTITUTE(NAME, T, LOAD)                                                     \
    static void NAME(const cholmod_factor *L, const T *Lx, double *x, double *t)             \
    {                                                                                          \
        const int *super = L->super, *pi = L->pi, *px = L->px, *Ls = L->s;                     \
        const int nsuper = (int)L->nsuper;                                                     \
        for (int s = 0; s < nsuper; s++) {                                                     \
            const int k1 = super[s], nc = super[s + 1] - k1, nr = pi[s + 1] - pi[s];            \
            const int ne = nr - nc, *row = Ls + pi[s] + nc;                                    \
            const T *blk = Lx + px[s];                                                         \
            double *xs = x + k1;                                                               \
            for (int j = 0; j < nc; j++) {                                                     \
                const T *col = blk + (size_t)j * nr;                                           \
                const double yj = xs[j] / (double)col[j];                                      \
                xs[j] = yj;                                                                    \
                for (int i = j + 1; i < nc; i++) xs[i] -= (double)col[i] * yj;                 \
            }                                                                                  \
            for (int i = 0; i < ne; i++) t[i] = 0.0;                                           \
            int j = 0;                                                                         \
            for (; j + 4 <= nc; j += 4) {                                                      \
                const T *c0 = blk + (size_t)j * nr + nc, *c1 = c0 + nr, *c2 = c1 + nr,         \
                        *c3 = c2 + nr;                                                         \
                const double y0 = xs[j], y1 = xs[j + 1], y2 = xs[j + 2], y3 = xs[j + 3];       \
                for (int i = 0; i < ne; i++)                                                   \
                    t[i] += ((double)c0[i] * y0 + (double)c1[i] * y1) +                        \
                            ((double)c2[i] * y2 + (double)c3[i] * y3);                         \
            }                                                                                  \
            for (; j < nc; j++) {                                                              \
                const T *c0 = blk + (size_t)j * nr + nc;                                       \
                const double y0 = xs[j];                                                       \
                for (int i = 0; i < ne; i++) t[i] += (double)c0[i] * y0;                       \
            }                                                                                  \
            for (int i = 0; i < ne; i++) x[row[i]] -= t[i];                                    \
        }                                                                                      \
        for (int s = nsuper - 1; s >= 0; s--) {                                                \
            const int k1 = super[s], nc = super[s + 1] - k1, nr = pi[s + 1] - pi[s];            \
            const int ne = nr - nc, *row = Ls + pi[s] + nc, ne4 = ne & ~3;                     \
            const T *blk = Lx + px[s];                                                         \
            double *xs = x + k1;                                                               \
            for (int i = 0; i < ne; i++) t[i] = x[row[i]];                                     \
            int j = 0;                                                                         \
            for (; j + 4 <= nc; j += 4) {                                                      \
                const T *c0 = blk + (size_t)j * nr + nc, *c1 = c0 + nr, *c2 = c1 + nr,         \
                        *c3 = c2 + nr;                                                         \
                v4d a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};                                    \
                for (int i = 0; i < ne4; i += 4) {                                             \
                    const v4d ti = load_double(t + i);                                         \
                    a0 += LOAD(c0 + i) * ti;                                                   \
                    a1 += LOAD(c1 + i) * ti;                                                   \
                    a2 += LOAD(c2 + i) * ti;                                                   \
                    a3 += LOAD(c3 + i) * ti;                                                   \
                }                                                                              \
                double s0 = hsum(a0), s1 = hsum(a1), s2 = hsum(a2), s3 = hsum(a3);             \
                for (int i = ne4; i < ne; i++) {                                               \
                    s0 += (double)c0[i] * t[i];                                                \
                    s1 += (double)c1[i] * t[i];                                                \
                    s2 += (double)c2[i] * t[i];                                                \
                    s3 += (double)c3[i] * t[i];                                                \
                }                                                                              \
                xs[j] -= s0, xs[j + 1] -= s1, xs[j + 2] -= s2, xs[j + 3] -= s3;                \
            }                                                                                  \
            for (; j < nc; j++) {                                                              \
                const T *c0 = blk + (size_t)j * nr + nc;                                       \
                v4d a0 = {0};                                                                  \
                for (int i = 0; i < ne4; i += 4) a0 += LOAD(c0 + i) * load_double(t + i);      \
                double s0 = hsum(a0);                                                          \
                for (int i = ne4; i < ne; i++) s0 += (double)c0[i] * t[i];                     \
                xs[j] -= s0;                                                                   \
            }                                                                                  \
            for (j = nc - 1; j >= 0; j--) {                                                    \
                const T *col = blk + (size_t)j * nr;                                           \
                v4d a0 = {0};                                                                  \
                int i = j + 1;                                                                 \
                for (; i + 4 <= nc; i += 4) a0 += LOAD(col + i) * load_double(xs + i);         \
                double acc = hsum(a0);                                                         \
                for (; i < nc; i++) acc += (double)col[i] * xs[i];                             \
                xs[j] = (xs[j] - acc) / (double)col[j];                                        \
            }                                                                                  \
        }                                                                                      \
    }
NEWTON_SUBSTITUTE(substitute_float, float, load_float)
NEWTON_SUBSTITUTE(substitute_double, double, load_double)

int newton_precond_fits(const void *factor, size_t capacity)
{
    const cholmod_factor *L = factor;
    return L && L->is_super && L->is_ll && L->xtype == CHOLMOD_REAL &&
           L->dtype == CHOLMOD_DOUBLE && L->itype == CHOLMOD_INT && L->xsize <= capacity;
}

void newton_precond_round(const void *factor, float *lx)
{
    const cholmod_factor *L = factor;
    const double *x = L->x;
    for (size_t k = 0; k < L->xsize; k++) lx[k] = (float)x[k];
}

void newton_precond_apply(const void *factor, const float *lx, const double *v, double *z,
                          double *work)
{
    const cholmod_factor *L = factor;
    const int *perm = L->Perm, n = (int)L->n;
    double *x = work, *t = work + n;
    for (int k = 0; k < n; k++) x[k] = v[perm[k]];
    substitute_float(L, lx, x, t);
    for (int k = 0; k < n; k++) z[perm[k]] = x[k];
}

/* max |a - b|₂ / |b|₂ */
static double rel_diff(const double *a, const double *b, int n)
{
    double d = 0.0, r = 0.0;
    for (int k = 0; k < n; k++) {
        d += (a[k] - b[k]) * (a[k] - b[k]);
        r += b[k] * b[k];
    }
    return r > 0.0 ? sqrt(d / r) : sqrt(d);
}

pbd_status newton_precond_check(newton_system *s, int slot, double *rel_double,
                                double *rel_float)
{
    cholmod_factor *L = slot >= 0 && slot < 2 ? s->pre[slot] : NULL;
    cholmod_common *cc = s->chol_common;
    if (!L || !s->pre_ok[slot] || !s->pre_f_ok[slot])
        return pbd_error(PBD_EINVAL, "newton: expected a kept supernodal factor in slot %d, "
                         "found none (no Newton step with MINRES yet)", slot);
    const int n = s->N;
    double *v = malloc(sizeof(double) * 4 * (size_t)n), *ld = malloc(sizeof(double) * L->xsize);
    if (!v || !ld) {
        free(v);
        free(ld);
        return pbd_error(PBD_ENOMEM, "newton: out of memory for the preconditioner's check");
    }
    double *zc = v + n, *zd = zc + n, *zf = zd + n;
    for (int k = 0; k < n; k++) v[k] = sin(0.37 * k + 1.0) + 0.25 * cos(2.9 * k); /* any v */
    memcpy(ld, L->x, sizeof(double) * L->xsize);
    /* CHOLMOD's own solve */
    newton_pool_enter(&s->pool);
    cholmod_dense b = {.nrow = (size_t)n, .ncol = 1, .nzmax = (size_t)n, .d = (size_t)n,
                       .x = v, .xtype = CHOLMOD_REAL, .dtype = CHOLMOD_DOUBLE};
    cholmod_dense *X = cholmod_solve(CHOLMOD_A, L, &b, cc);
    const int solved = X != NULL;
    if (X) memcpy(zc, X->x, sizeof(double) * (size_t)n);
    if (X) cholmod_free_dense(&X, cc);
    newton_pool_leave();
    pbd_status st = PBD_OK;
    if (!solved) {
        st = pbd_error(cc->status == CHOLMOD_OUT_OF_MEMORY ? PBD_ENOMEM : PBD_ENUMERIC,
                       "newton: CHOLMOD's solve failed (status %d, %s)", cc->status,
                       pbd_cholmod_status_name(cc->status));
    } else {
        const int *perm = L->Perm;
        for (int k = 0; k < n; k++) s->pre_work[k] = v[perm[k]];
        substitute_double(L, ld, s->pre_work, s->pre_work + n);
        for (int k = 0; k < n; k++) zd[perm[k]] = s->pre_work[k];
        newton_precond_apply(L, s->pre_f[slot], v, zf, s->pre_work);
        *rel_double = rel_diff(zd, zc, n);
        *rel_float = rel_diff(zf, zc, n);
    }
    free(v);
    free(ld);
    return st;
}

pbd_status pbd_newton_precond_check(pbd_world *w, int slot, double *rel_double,
                                    double *rel_float)
{
    struct pbd_variants_state *vs = w->variants;
    if (!vs || !vs->newton)
        return pbd_error(PBD_EINVAL, "newton: expected a world after a Newton step, found "
                         "none taken");
    return newton_precond_check(&vs->newton->sys, slot, rel_double, rel_float);
}
