/* Projective Dynamics' iteration with the right side gathered per row and one interleaved
 * LDLᵀ solve for x, y and z (def.kernels on; pd.c's scatter and cholmod_solve2 are the
 * generic path it is tested against, tests/test_families_path.c).
 * Global step (PD Sec. 3): (M/h² + Σ_j w_j S_jᵀA_jᵀA_jS_j) x = b0 + Σ_j w_j S_jᵀA_jᵀ p_j with
 *   b0 = M y/h² − Σ_j w_j S_jᵀA_jᵀA_j S_j x_fixed,
 * constant within a step (y and the fixed particles do not move between iterations): built
 * at the step's first iteration. Each row k (in the factor's fill-reducing order P) gathers
 * its terms w_j (A_j)_{rk} p_j[r] from the local step's targets: rows are independent, so
 * any thread count sums them in the same order (the same bits). The solve runs on CHOLMOD's
 * simplicial factor P A Pᵀ = L D Lᵀ: L z = P b column by column, then x_j = z_j/D_j −
 * Σ_{i>j} L_ij x_i from the last column, x, y, z side by side in one 4-lane vector. */
#include "solver/pd/pd_state.h"
#include "solver/solver_private.h"

#include <stdlib.h>
#include <string.h>

typedef double pd_v4 __attribute__((vector_size(32)));

void pbd_pd_gather_free(pd_state *pd)
{
    free(pd->particle_of);
    free(pd->term_ptr);
    free(pd->term);
    free(pd->fixed_ptr);
    free(pd->fixed);
    free(pd->b0);
    free(pd->x4);
    free(pd->row_ptr);
    free(pd->row_j);
    free(pd->row_x);
    pd->gathered = 0;
}

/* The terms of each free row k of Σ w SᵀAᵀ(p − A S x_fixed): counted into ptr[k + 1] and
 * fptr[k + 1] (term == NULL), else written at ptr[k]++ (a target's) and fptr[k]++ (a fixed
 * particle's). */
static void count_or_fill(const pbd_world *w, const pbd_family_ws *fw, const pd_state *pd,
                          const int32_t *k_of_free, int32_t *ptr, pd_term *term,
                          int32_t *fptr, pd_term *fixed)
{
    for (pd_visit v = {.c = -1}; pbd_pd_next(w, fw, &v);) {
        const int arity = w->sets[v.s].arity, slot = 9 * (fw->set_c[v.s] + v.c);
        const double *coef = v.coef;
        for (int r = 0; r < v.nr; r++)
            for (int q = 0; q < arity; q++) {
                int f = pd->free_of[v.idx[q]];
                if (f < 0 || coef[4 * r + q] == 0.0) continue;
                int32_t k = k_of_free[f];
                if (term)
                    term[ptr[k]++] = (pd_term){v.wt * coef[4 * r + q],
                                               v.kind == PD_TET      ? slot + r
                                               : v.kind == PD_SPRING ? 9 * fw->set_c[v.s] + 3 * v.c
                                                                     : slot,
                                               v.kind == PD_TET ? 3 : 1};
                else
                    ptr[k + 1]++;
                for (int l = 0; l < arity; l++) {
                    if (pd->free_of[v.idx[l]] >= 0 || coef[4 * r + l] == 0.0) continue;
                    if (fixed)
                        fixed[fptr[k]++] = (pd_term){-v.wt * coef[4 * r + q] * coef[4 * r + l],
                                                     v.idx[l], 0};
                    else
                        fptr[k + 1]++;
                }
            }
    }
}

/* L's strict lower triangle by rows (the forward solve's dot products). */
pbd_status pbd_pd_factor_rows(pd_state *pd)
{
    const cholmod_factor *L = pd->L;
    const int *Lp = L->p, *Li = L->i, *Lnz = L->nz;
    const double *Lx = L->x;
    const int n = (int)L->n;
    long nnz = 0;
    for (int j = 0; j < n; j++) nnz += Lnz[j] - 1;
    pd->row_ptr = calloc((size_t)n + 1, sizeof *pd->row_ptr);
    pd->row_j = malloc(((size_t)nnz + 1) * sizeof *pd->row_j);
    pd->row_x = malloc(((size_t)nnz + 1) * sizeof *pd->row_x);
    int32_t *next = malloc(((size_t)n + 1) * sizeof *next);
    if (!pd->row_ptr || !pd->row_j || !pd->row_x || !next) {
        free(next);
        return pbd_error(PBD_ENOMEM, "pd: out of memory for the factor by rows");
    }
    for (int j = 0; j < n; j++)
        for (int p = Lp[j] + 1; p < Lp[j] + Lnz[j]; p++) pd->row_ptr[Li[p] + 1]++;
    for (int i = 0; i < n; i++) pd->row_ptr[i + 1] += pd->row_ptr[i];
    memcpy(next, pd->row_ptr, ((size_t)n + 1) * sizeof *next);
    for (int j = 0; j < n; j++) /* columns in order: each row's j ascending */
        for (int p = Lp[j] + 1; p < Lp[j] + Lnz[j]; p++) {
            pd->row_j[next[Li[p]]] = j;
            pd->row_x[next[Li[p]]++] = Lx[p];
        }
    free(next);
    pd->gathered = 1;
    return PBD_OK;
}

pbd_status pbd_pd_gather_build(const pbd_world *w, const pbd_family_ws *fw, pd_state *pd)
{
    const cholmod_factor *L = pd->L;
    pd->gathered = 0;
    if (!w->def.kernels || !L || L->is_super || L->is_ll || L->xtype != CHOLMOD_REAL ||
        L->itype != CHOLMOD_INT || (int)L->n != pd->nf)
        return PBD_OK; /* the generic path */
    int nf = pd->nf;
    const int *perm = L->Perm;
    int32_t *k_of_free = calloc((size_t)nf, sizeof *k_of_free);
    pd->particle_of = malloc((size_t)nf * sizeof *pd->particle_of);
    pd->term_ptr = calloc((size_t)nf + 1, sizeof *pd->term_ptr);
    pd->fixed_ptr = calloc((size_t)nf + 1, sizeof *pd->fixed_ptr);
    pd->b0 = aligned_alloc(32, 32 * (size_t)nf);
    pd->x4 = aligned_alloc(32, 32 * (size_t)nf);
    if (!k_of_free || !pd->particle_of || !pd->term_ptr || !pd->fixed_ptr || !pd->b0 || !pd->x4) {
        free(k_of_free);
        return pbd_error(PBD_ENOMEM, "pd: out of memory for the gathered right side");
    }
    for (int k = 0; k < nf; k++) k_of_free[perm ? perm[k] : k] = k;
    for (int i = 0; i < w->n; i++)
        if (pd->free_of[i] >= 0) pd->particle_of[k_of_free[pd->free_of[i]]] = i;
    count_or_fill(w, fw, pd, k_of_free, pd->term_ptr, NULL, pd->fixed_ptr, NULL);
    for (int k = 0; k < nf; k++) {
        pd->term_ptr[k + 1] += pd->term_ptr[k];
        pd->fixed_ptr[k + 1] += pd->fixed_ptr[k];
    }
    pd->term = malloc(((size_t)pd->term_ptr[nf] + 1) * sizeof *pd->term);
    pd->fixed = malloc(((size_t)pd->fixed_ptr[nf] + 1) * sizeof *pd->fixed);
    int32_t *tp = malloc(2 * ((size_t)nf + 1) * sizeof *tp);
    if (!pd->term || !pd->fixed || !tp) {
        free(k_of_free);
        free(tp);
        return pbd_error(PBD_ENOMEM, "pd: out of memory for the gathered right side");
    }
    memcpy(tp, pd->term_ptr, ((size_t)nf + 1) * sizeof *tp);
    memcpy(tp + nf + 1, pd->fixed_ptr, ((size_t)nf + 1) * sizeof *tp);
    count_or_fill(w, fw, pd, k_of_free, tp, pd->term, tp + nf + 1, pd->fixed);
    free(tp);
    free(k_of_free);
    return pbd_pd_factor_rows(pd);
}

/* Σ_{p in [lo, hi)} a[p] X[i[p]] in four partial sums, (s0 + s1) + (s2 + s3): the additions'
 * latency, not the loads, would bound one chain (returned through a pointer: a 32-byte
 * vector is no return value without AVX). */
static inline void dot4(const double *a, const int *i, int lo, int hi, const pd_v4 *X,
                        pd_v4 *sum)
{
    pd_v4 s0 = {0.0, 0.0, 0.0, 0.0}, s1 = s0, s2 = s0, s3 = s0;
    int p = lo;
    for (; p + 3 < hi; p += 4) {
        s0 += a[p] * X[i[p]];
        s1 += a[p + 1] * X[i[p + 1]];
        s2 += a[p + 2] * X[i[p + 2]];
        s3 += a[p + 3] * X[i[p + 3]];
    }
    for (; p < hi; p++) s0 += a[p] * X[i[p]];
    *sum = (s0 + s1) + (s2 + s3);
}

/* L D Lᵀ x = b on the interleaved x4 (b on entry, x on return), the factor's order; L's
 * strict lower triangle also by rows (row_ptr, row_j, row_x). */
void pbd_pd_ldl_solve4(const cholmod_factor *L, const int32_t *row_ptr, const int32_t *row_j,
                       const double *row_x, double *x4)
{
    const int *Lp = L->p, *Li = L->i, *Lnz = L->nz;
    const double *Lx = L->x;
    pd_v4 *X = (pd_v4 *)x4;
    const int n = (int)L->n;
    pd_v4 sum;
    for (int i = 0; i < n; i++) { /* L z = b by rows: z_i = b_i − Σ_{j<i} L_ij z_j */
        dot4(row_x, row_j, row_ptr[i], row_ptr[i + 1], X, &sum);
        X[i] -= sum;
    }
    for (int j = n - 1; j >= 0; j--) { /* x = D⁻¹ z − Lᵀ x below */
        dot4(Lx, Li, Lp[j] + 1, Lp[j] + Lnz[j], X, &sum);
        X[j] = X[j] / Lx[Lp[j]] - sum;
    }
}

/* The springs' local step (PD Sec. 5 "springs", constraints/distance_pd.c), packed 3 per
 * spring at the start of the set's targets, in blocks of 256 springs over the threads. */
static void spring_targets(const pbd_world *w, const pbd_constraint_set *set, double *t,
                           int threads)
{
    const int blocks = (set->count + 255) / 256;
#pragma omp parallel for num_threads(threads) if (threads > 1 && set->count > 1024) schedule(static)
    for (int b = 0; b < blocks; b++)
        pbd_distance_pd_targets(w->p, set->idx, set->rest, set->type->n_rest, 256 * b,
                                256 * b + 256 < set->count ? 256 * b + 256 : set->count, t);
}

/* The threads of the local step and the gather: the faster of 1 and `most` as last
 * measured, the other tried after `every` iterations, an interval that doubles (to 1024)
 * while the choice stands and falls back to 16 when it changes. A process competing for the
 * CPUs can make a team of two slower than one thread (a thread pushed off its CPU holds up
 * the team at each barrier); the rows and the projections give the same bits on any count. */
static int parallel_threads(pd_state *pd, int most)
{
    if (most <= 1) return 1;
    if (pd->every == 0) pd->every = 16;
    if (++pd->calls >= pd->every) return pd->best_threads == 1 ? most : 1; /* the try */
    return pd->best_threads ? pd->best_threads : most;
}

static void record_cost(pd_state *pd, int th, int most, double seconds)
{
    if (most <= 1) return;
    pd->cost[th == 1 ? 0 : 1] = seconds;
    if (pd->calls < pd->every || pd->cost[0] == 0.0 || pd->cost[1] == 0.0) return;
    const int best = pd->cost[0] <= pd->cost[1] ? 1 : most;
    pd->every = best == pd->best_threads ? (pd->every < 1024 ? 2 * pd->every : 1024) : 16;
    pd->best_threads = best;
    pd->calls = 0;
}

void pbd_pd_gather_iteration(pbd_world *w, pbd_family_ws *fw, pd_state *pd, double h, int it,
                             int threads)
{
    const int nf = pd->nf;
    pd_v4 *b0 = (pd_v4 *)pd->b0, *X = (pd_v4 *)pd->x4;
    if (it == 0) /* b0: y and the fixed particles stay put through the step's iterations */
        for (int k = 0; k < nf; k++) {
            const int i = pd->particle_of[k];
            const double mh = 1.0 / (w->w[i] * h * h);
            const double *y = fw->y + 3 * (size_t)i;
            pd_v4 b = {mh * y[0], mh * y[1], mh * y[2], 0.0};
            for (int t = pd->fixed_ptr[k]; t < pd->fixed_ptr[k + 1]; t++) {
                const double *xl = w->p + 3 * (size_t)pd->fixed[t].slot;
                b += pd->fixed[t].coef * (pd_v4){xl[0], xl[1], xl[2], 0.0};
            }
            b0[k] = b;
        }
    const int th = parallel_threads(pd, threads);
    const double t0 = pbd_now_seconds();
    pbd_pd_local_step(w, fw, pd, th, 1); /* all but the springs */
    for (int s = 0; s < fw->n_static; s++)
        if (pbd_pd_kind(w->sets[s].type) == PD_SPRING)
            spring_targets(w, &w->sets[s], pd->target + 9 * (size_t)fw->set_c[s], th);
    const double *tg = pd->target;
#pragma omp parallel for num_threads(th) if (th > 1 && nf > 1024) schedule(static)
    for (int k = 0; k < nf; k++) { /* b0 + Σ w SᵀAᵀ p, row k's terms in their fixed order */
        pd_v4 b = b0[k];
        for (int t = pd->term_ptr[k]; t < pd->term_ptr[k + 1]; t++) {
            const double *p = tg + pd->term[t].slot;
            const int st = pd->term[t].stride;
            b += pd->term[t].coef * (pd_v4){p[0], p[st], p[2 * st], 0.0};
        }
        X[k] = b;
    }
    record_cost(pd, th, threads, pbd_now_seconds() - t0);
    pbd_pd_ldl_solve4(pd->L, pd->row_ptr, pd->row_j, pd->row_x, pd->x4);
    for (int k = 0; k < nf; k++) {
        double *x = w->p + 3 * (size_t)pd->particle_of[k];
        x[0] = X[k][0];
        x[1] = X[k][1];
        x[2] = X[k][2];
    }
}
