/* The Newton reference's linear system (newton_private.h): the sparsity pattern (built once
 * per topology), the Hessians and the assembly.
 *
 * Unknowns: Δx of the free particles (3 per particle, particle-major), and Δλ of every
 * constraint for the KKT form (solvers umfpack, dense) or of none for the Schur complement
 * (auto, cholmod). Every constraint couples all its free particles, so the particle part of
 * the pattern is made of 3×3 blocks: column block f holds the row blocks of every free
 * particle that shares a constraint with f (and f). A kept multiplier adds one row and one
 * column. Eliminating Δλ_c from its row ∇C_c·Δx + D_c Δλ_c = -h_c gives
 * Δλ_c = -(h_c + ∇C_c·Δx)/D_c, which turns -∇C_cᵀ Δλ_c into ∇C_c ∇C_cᵀ/D_c on the particle
 * blocks and ∇C_c h_c/D_c into the right-hand side: the same step as the KKT form's.
 *
 * D_c = α̃_c + δ_c, δ_c = μ Σ_j w_j |∇_j C_c|², μ = max(1e-10, 1e-4 min(1, ||r_k||/||r_0||)³):
 * δ perturbs the Jacobian only, never the residual (h = C + α̃λ exactly), so the solution
 * is exact; it is stabilised SQP (S. Wright 1998). Redundant stiff constraints — the cloth's
 * structural, shear and bend springs are 3× the in-plane degrees of freedom; α = 0 or a
 * compliance of 1e-7 m/N at 60 Hz, α̃/Σw|∇C|² ≈ 4e-8 — make the KKT matrix (nearly)
 * singular and the linearised constraints inconsistent: without δ, Δλ grows like h/α̃ in
 * the null space of ∇Cᵀ and swamps Δx in rounding, and Newton stalls (64² cloth: 30+
 * iterations; a rigid cloth: no progress). δ keeps the step bounded; it shrinks with the
 * cube of the residual, faster than the quadratic phase needs (δ's change of the step is
 * O(δ) = o(||r||²)), so convergence stays quadratic (64² cloth: 5 iterations to 1e-11),
 * and its floor bounds the Schur complement's condition number. (A fixed μ ≤ 1e-8 stalls
 * on the rigid cloth; μ = 1e-2 converges only linearly. The cube, not the square as
 * before: the 100² bending cloth 22/6/6 iterations in steps 1–3 instead of 25/8/8, every
 * case of `make newton-sweep` still converging; a smaller 1e-5 instead cost the 64² cloth
 * a sixth, not quadratic, iteration: solver/newton/README.md "Newton reference", Stabilisation.) */
#include "newton_private.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_permutation.h>
#include <gsl/gsl_vector.h>

#define NEWTON_REGULARISATION 1e-4
#define NEWTON_REGULARISATION_MIN 1e-10
#define ASSEMBLY_THREADS_MAX 16

void newton_system_free(newton_system *s)
{
    newton_linear_free(s);
    free(s->bptr);
    free(s->brow);
    free(s->kptr);
    free(s->krow);
    free(s->kept_of);
    free(s->c_off);
    free(s->coff);
    free(s->Ap);
    free(s->Ai);
    free(s->Ax);
    free(s->rhs);
    free(s->sol);
    free(s->Px);
    free(s->psd_work);
    free(s->tscratch);
    free(s->kv);
    memset(s, 0, sizeof *s);
}

size_t newton_system_bytes(const newton_system *s)
{
    size_t b = s->factor_bytes;
    b += sizeof(int32_t) * ((size_t)s->nf + 1 + (size_t)s->n_blocks + (size_t)s->m);
    if (s->kptr) b += sizeof(int32_t) * ((size_t)s->nf + 1 + (size_t)s->kptr[s->nf]);
    if (s->c_off) b += sizeof(int64_t) * ((size_t)s->m + 1) + sizeof(int32_t) * (size_t)s->c_off[s->m];
    b += (sizeof(int) + sizeof(double)) * (size_t)s->nnz + sizeof(int) * ((size_t)s->N + 1);
    b += 2 * sizeof(double) * (size_t)s->N;
    if (s->Px) b += sizeof(double) * ((size_t)s->nnz + NEWTON_KRYLOV_VECTORS * (size_t)s->N);
    if (s->dense) b += sizeof(double) * (size_t)s->N * (size_t)s->N;
    return b + s->pre_f_bytes;
}

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 1099511628211ULL; }

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Index of v in the sorted a[lo .. hi), or -1. */
static long find(const int32_t *a, long lo, long hi, int32_t v)
{
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (a[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo < 0 || a[lo] != v ? -1 : lo;
}

/* Sorted unique (column, row) pairs as key = column · stride + row; returns the count. */
static long sort_unique(int64_t *keys, long n)
{
    qsort(keys, (size_t)n, sizeof *keys, cmp_i64);
    long u = 0;
    for (long i = 0; i < n; i++)
        if (u == 0 || keys[i] != keys[u - 1]) keys[u++] = keys[i];
    return u;
}

/* Column pointers and rows from sorted unique keys (columns 0 .. ncol-1). */
static int compress(const int64_t *keys, long n, int ncol, int64_t stride, int32_t **ptr,
                    int32_t **row)
{
    *ptr = calloc((size_t)ncol + 1, sizeof **ptr);
    *row = malloc((size_t)(n > 0 ? n : 1) * sizeof **row);
    if (!*ptr || !*row) return -1;
    for (long i = 0; i < n; i++) {
        (*ptr)[keys[i] / stride + 1]++;
        (*row)[i] = (int32_t)(keys[i] % stride);
    }
    for (int f = 0; f < ncol; f++) (*ptr)[f + 1] += (*ptr)[f];
    return 0;
}

static pbd_status out_of_memory(newton_system *s, int N)
{
    newton_system_free(s);
    return pbd_error(PBD_ENOMEM, "newton: out of memory for the sparse system (%d unknowns)", N);
}

/* The particle blocks and kept rows, the per-constraint offsets and the CSC pattern. */
static pbd_status build_pattern(pbd_world *w, struct pbd_newton_workspace *nw)
{
    newton_system *s = &nw->sys;
    const int nf = s->nf;
    long n_pairs = nf, n_kpairs = 0, n_off = 0;
    for (int st = 0; st < w->n_sets; st++) {
        const pbd_constraint_set *set = &w->sets[st];
        long a = set->arity;
        n_pairs += (long)set->count * a * a;
        n_off += (long)set->count * (a * a + 2 * a);
        for (int c = 0; c < set->count; c++)
            if (s->kept_of[nw->set_c[st] + c] >= 0) n_kpairs += a;
    }
    int64_t *keys = malloc((size_t)(n_pairs > n_kpairs ? n_pairs : n_kpairs + 1) * sizeof *keys);
    s->c_off = malloc(((size_t)s->m + 1) * sizeof *s->c_off);
    s->coff = malloc((size_t)(n_off > 0 ? n_off : 1) * sizeof *s->coff);
    if (!keys || !s->c_off || !s->coff) {
        free(keys);
        return out_of_memory(s, s->N);
    }
    /* particle blocks */
    long k = 0;
    for (int f = 0; f < nf; f++) keys[k++] = (int64_t)f * nf + f;
    for (int st = 0; st < w->n_sets; st++) {
        const pbd_constraint_set *set = &w->sets[st];
        for (int c = 0; c < set->count; c++) {
            const int32_t *idx = set->idx + (size_t)c * set->arity;
            for (int j = 0; j < set->arity; j++)
                for (int l = 0; l < set->arity; l++) {
                    int fj = nw->free_of[idx[j]], fl = nw->free_of[idx[l]];
                    if (fj >= 0 && fl >= 0) keys[k++] = (int64_t)fl * nf + fj;
                }
        }
    }
    s->n_blocks = sort_unique(keys, k);
    int bad = compress(keys, s->n_blocks, nf, nf > 0 ? nf : 1, &s->bptr, &s->brow);
    /* kept rows per particle column */
    k = 0;
    for (int st = 0; st < w->n_sets && !bad; st++) {
        const pbd_constraint_set *set = &w->sets[st];
        for (int c = 0; c < set->count; c++) {
            int kc = s->kept_of[nw->set_c[st] + c];
            if (kc < 0) continue;
            for (int j = 0; j < set->arity; j++) {
                int f = nw->free_of[set->idx[(size_t)c * set->arity + j]];
                if (f >= 0) keys[k++] = (int64_t)f * (s->mk + 1) + kc;
            }
        }
    }
    long n_krows = bad ? 0 : sort_unique(keys, k);
    bad = bad || compress(keys, n_krows, nf, s->mk + 1, &s->kptr, &s->krow);
    free(keys);
    if (bad) return out_of_memory(s, s->N);
    /* per constraint: block numbers, then (kept) slot among the kept rows and rank */
    long o = 0;
    for (int st = 0; st < w->n_sets; st++) {
        const pbd_constraint_set *set = &w->sets[st];
        int a = set->arity;
        for (int c = 0; c < set->count; c++) {
            int gc = nw->set_c[st] + c, kc = s->kept_of[gc];
            const int32_t *idx = set->idx + (size_t)c * a;
            s->c_off[gc] = o;
            for (int j = 0; j < a; j++)
                for (int l = 0; l < a; l++) {
                    int fj = nw->free_of[idx[j]], fl = nw->free_of[idx[l]];
                    s->coff[o++] = fj < 0 || fl < 0 ? -1
                                 : (int32_t)find(s->brow, s->bptr[fl], s->bptr[fl + 1], fj);
                }
            for (int j = 0; j < a; j++) {
                int fj = nw->free_of[idx[j]], rank = 0;
                s->coff[o++] = kc < 0 || fj < 0 ? -1
                             : (int32_t)(find(s->krow, s->kptr[fj], s->kptr[fj + 1], kc) -
                                         s->kptr[fj]);
                for (int l = 0; l < a && fj >= 0; l++) { /* distinct free particles below fj */
                    int fl = nw->free_of[idx[l]], first = 1;
                    for (int q = 0; q < l; q++) first &= nw->free_of[idx[q]] != fl;
                    rank += fl >= 0 && fl < fj && first;
                }
                s->coff[o++] = fj < 0 ? -1 : rank;
            }
        }
    }
    s->c_off[s->m] = o;
    /* CSC: particle columns (blocks, then kept rows), then the kept constraints' columns */
    const int nf3 = 3 * nf;
    s->Ap = malloc(((size_t)s->N + 1) * sizeof *s->Ap);
    int32_t *ncount = calloc((size_t)(s->mk > 0 ? s->mk : 1), sizeof *ncount);
    if (!s->Ap || !ncount) {
        free(ncount);
        return out_of_memory(s, s->N);
    }
    for (int st = 0; st < w->n_sets; st++) { /* distinct free particles of each kept one */
        const pbd_constraint_set *set = &w->sets[st];
        for (int c = 0; c < set->count; c++) {
            int kc = s->kept_of[nw->set_c[st] + c];
            const int32_t *idx = set->idx + (size_t)c * set->arity;
            for (int j = 0; j < set->arity && kc >= 0; j++) {
                int f = nw->free_of[idx[j]], first = 1;
                for (int q = 0; q < j; q++) first &= nw->free_of[idx[q]] != f;
                ncount[kc] += f >= 0 && first;
            }
        }
    }
    long p = 0;
    for (int f = 0; f < nf; f++)
        for (int q = 0; q < 3; q++) {
            s->Ap[3 * f + q] = (int)p;
            p += 3L * (s->bptr[f + 1] - s->bptr[f]) + (s->kptr[f + 1] - s->kptr[f]);
        }
    for (int kc = 0; kc < s->mk; kc++) {
        s->Ap[nf3 + kc] = (int)p;
        p += 3L * ncount[kc] + 1;
    }
    s->Ap[s->N] = (int)p;
    s->nnz = p;
    if (p > 2147483647L) {
        free(ncount);
        newton_system_free(s);
        return pbd_error(PBD_ENOMEM, "newton: expected at most 2^31 nonzeros, found %ld", p);
    }
    s->Ai = malloc((size_t)(p > 0 ? p : 1) * sizeof *s->Ai);
    s->Ax = calloc((size_t)(p > 0 ? p : 1), sizeof *s->Ax);
    if (!s->Ai || !s->Ax) {
        free(ncount);
        return out_of_memory(s, s->N);
    }
    for (int f = 0; f < nf; f++)
        for (int q = 0; q < 3; q++) {
            long at = s->Ap[3 * f + q];
            for (int32_t b = s->bptr[f]; b < s->bptr[f + 1]; b++)
                for (int r = 0; r < 3; r++) s->Ai[at++] = 3 * s->brow[b] + r;
            for (int32_t b = s->kptr[f]; b < s->kptr[f + 1]; b++) s->Ai[at++] = nf3 + s->krow[b];
        }
    for (int st = 0; st < w->n_sets; st++) { /* a kept constraint's rows: its free particles */
        const pbd_constraint_set *set = &w->sets[st];
        for (int c = 0; c < set->count; c++) {
            int gc = nw->set_c[st] + c, kc = s->kept_of[gc];
            if (kc < 0) continue;
            const int32_t *idx = set->idx + (size_t)c * set->arity;
            const int32_t *rank = s->coff + s->c_off[gc] + (long)set->arity * set->arity;
            for (int j = 0; j < set->arity; j++) {
                int f = nw->free_of[idx[j]];
                if (f < 0) continue;
                for (int r = 0; r < 3; r++) s->Ai[s->Ap[nf3 + kc] + 3 * rank[2 * j + 1] + r] = 3 * f + r;
            }
            s->Ai[s->Ap[nf3 + kc] + 3 * ncount[kc]] = nf3 + kc;
        }
    }
    free(ncount);
    return PBD_OK;
}

pbd_status newton_system_prepare(pbd_world *w, struct pbd_newton_workspace *nw, int solver)
{
    newton_system *s = &nw->sys;
    int keep_all = solver == PBD_NEWTON_UMFPACK || solver == PBD_NEWTON_DENSE;
    uint64_t key = mix(pbd_topology_key(w), (uint64_t)solver + 1);
    int mk = keep_all ? nw->m : 0;
    for (int i = 0; i < w->n; i++) key = mix(key, (uint64_t)(nw->free_of[i] >= 0));
    if (s->valid && s->key == key) return PBD_OK;
    newton_system_free(s);
    s->nf = nw->n_free;
    s->m = nw->m;
    s->mk = mk;
    s->N = 3 * s->nf + mk;
    s->kept_of = malloc((size_t)(s->m > 0 ? s->m : 1) * sizeof *s->kept_of);
    s->rhs = malloc((size_t)(s->N > 0 ? s->N : 1) * sizeof *s->rhs);
    s->sol = malloc((size_t)(s->N > 0 ? s->N : 1) * sizeof *s->sol);
    if (!s->kept_of || !s->rhs || !s->sol) return out_of_memory(s, s->N);
    for (int c = 0, kc = 0; c < s->m; c++)
        s->kept_of[c] = keep_all ? kc++ : -1;
    if (solver == PBD_NEWTON_DENSE) {
        if (s->N > PBD_NEWTON_DENSE_MAX) {
            int N = s->N;
            newton_system_free(s);
            return pbd_error(PBD_EINVAL, "newton: solver dense: expected at most %d unknowns "
                             "(the dense oracle is for small scenes), found %d", PBD_NEWTON_DENSE_MAX,
                             N);
        }
        s->dense = 1;
        if (s->N > 0) {
            s->gsl_J = gsl_matrix_alloc((size_t)s->N, (size_t)s->N);
            s->gsl_perm = gsl_permutation_alloc((size_t)s->N);
            s->gsl_rhs = gsl_vector_alloc((size_t)s->N);
            s->gsl_sol = gsl_vector_alloc((size_t)s->N);
            if (!s->gsl_J || !s->gsl_perm || !s->gsl_rhs || !s->gsl_sol)
                return out_of_memory(s, s->N);
        }
    } else {
        pbd_status st = build_pattern(w, nw);
        if (st != PBD_OK) return st;
        if (mk == 0) { /* the Schur form: the modified matrix P and MINRES (newton_krylov.c) */
            int a = w->max_arity > 0 ? w->max_arity : 1;
            s->Px = malloc((size_t)(s->nnz > 0 ? s->nnz : 1) * sizeof *s->Px);
            s->psd_work = malloc(9 * (size_t)a * a * sizeof *s->psd_work);
            s->kv = malloc(NEWTON_KRYLOV_VECTORS * (size_t)(s->N > 0 ? s->N : 1) * sizeof *s->kv);
            /* the assembly's other threads' scratch, for as many as the cores (newton_threads
             * may change between steps; nothing is allocated inside one) */
            s->n_tscratch = omp_get_num_procs() > 1 ? omp_get_num_procs() - 1 : 0;
            if (s->n_tscratch > ASSEMBLY_THREADS_MAX - 1) s->n_tscratch = ASSEMBLY_THREADS_MAX - 1;
            s->tscratch = malloc((size_t)(s->n_tscratch > 0 ? s->n_tscratch : 1) *
                                 (9 * (size_t)a + 18 * (size_t)a * a) * sizeof *s->tscratch);
            if (!s->Px || !s->psd_work || !s->kv || !s->tscratch) return out_of_memory(s, s->N);
        }
    }
    /* the symbolic analysis now, and the memory it says the solve needs checked up front */
    s->minimum_check = newton_objective(w) && s->N == 3 * nw->n_free;
    pbd_status st = newton_linear_analyze(s, solver, newton_workspace_bytes(nw));
    nw->estimate_bytes = s->estimate_bytes;
    if (st != PBD_OK) {
        newton_system_free(s);
        return st;
    }
    s->key = key;
    s->valid = 1;
    return PBD_OK;
}

/* ∇²C of constraint c of `set` at the iterate into nw->H (3a × 3a): the type's analytic one,
 * or central differences of the analytic gradient (step 6e-6 of the constraint's size:
 * truncation and rounding both near 1e-11 relative), symmetrised. Returns 0, or 1 when it
 * is undefined there (degenerate): the constraint then contributes no geometric stiffness. */
static int hessian(struct pbd_newton_workspace *nw, const pbd_constraint_set *set, int c)
{
    int a = set->arity;
    const int32_t *idx = set->idx + (size_t)c * a;
    for (int j = 0; j < a; j++)
        for (int k = 0; k < 3; k++) nw->xl[3 * j + k] = nw->x[3 * (size_t)idx[j] + k];
    int nr = set->type->n_rest;
    pbd_eval_input in = {nw->xl, a, set->rest + (size_t)c * (nr > 0 ? nr : 1), set->aux,
                         set->n_aux};
    return pbd_constraint_hessian(set->type, &in, nw->xl, nw->gp, nw->gm, nw->H);
}

/* Add v to entry (row, col) of the dense matrix, or of block b's 3×3 in the CSC. */
static inline void dense_add(newton_system *s, int row, int col, double v)
{
    *gsl_matrix_ptr((gsl_matrix *)s->gsl_J, (size_t)row, (size_t)col) += v;
}

static inline double *block_entry(newton_system *s, int fl, int32_t b, int p, int q)
{
    return &s->Ax[s->Ap[3 * fl + q] + 3 * (long)(b - s->bptr[fl]) + p];
}

/* One constraint's terms (c of set st): its part of the rows and columns of the free
 * particles in [lo, hi) — the whole constraint for lo = 0, hi = nf. `own`: it is this part's
 * to count (D_c, an undefined Hessian): its first free particle is in [lo, hi) (a constraint
 * without one: the part at 0). nw is the part's view of the workspace (its own scratch). */
static void add_constraint(const pbd_world *w, struct pbd_newton_workspace *nw, double *psd_work,
                           int st, int c, double mu, int lo, int hi, int *skipped)
{
    newton_system *s = &nw->sys;
    const int nf3 = 3 * s->nf;
    double *Px = s->Px; /* the Schur form: P beside A (see newton_private.h) */
    const pbd_constraint_set *set = &w->sets[st];
    const int a = set->arity, n3 = 3 * a;
    const int gc = nw->set_c[st] + c, kc = s->kept_of[gc];
    const double *grad = nw->grad + nw->set_g[st] + (size_t)n3 * c;
    const int32_t *idx = set->idx + (size_t)c * a;
    int first = -1, mine = 0;
    for (int j = 0; j < a; j++) {
        const int fj = nw->free_of[idx[j]];
        if (fj < 0) continue;
        if (first < 0) first = fj;
        mine |= fj >= lo && fj < hi;
    }
    const int own = first >= 0 ? first >= lo && first < hi : lo == 0;
    if (!mine && !own) return;
    const int32_t *blocks = s->dense ? NULL : s->coff + s->c_off[gc];
    const double lam = nw->lambda[gc], at = nw->alpha_tilde[gc], h = nw->r[nf3 + gc];
    const int pot = newton_row_potential(nw, set, c); /* the potential form: newton_merit.c */
    int have_h = 0; /* -λ∇²C, the geometric stiffness; potential form: ∇²(½C²/α̃)⁺ */
    if (pot) {
        int hs = newton_potential_hessian(nw, set, c, nw->alpha_tilde + gc);
        if (hs == 0) have_h = 1;
        else if (hs == 1) *skipped += own;
    } else if (lam != 0.0) {
        if (hessian(nw, set, c) == 0) have_h = 1;
        else *skipped += own;
    }
    double wsum = 0.0;
    for (int j = 0; j < a; j++) {
        const double *gj = grad + 3 * j;
        if (nw->free_of[idx[j]] >= 0)
            wsum += w->w[idx[j]] * (gj[0] * gj[0] + gj[1] * gj[1] + gj[2] * gj[2]);
    }
    const double D = pot ? 1.0 : at + mu * (wsum > 0.0 ? wsum : 1.0);
    if (own) nw->denom[gc] = D;
    const double elim = kc < 0 && !pot ? 1.0 / D : 0.0; /* eliminated: ∇C∇Cᵀ/(α̃ + δ) */
    const double hscale = pot ? 1.0 : -lam;
    /* P keeps the geometric stiffness -λ∇²C only where it is positive semi-definite
     * (a stretched spring's; a compressed one's is negative: λ/ℓ (I - n nᵀ) per
     * particle pair with λ > 0); the potential form's is projected already */
    const int in_p = Px && have_h && (pot || newton_block_psd(nw->H, n3, hscale, psd_work));
    for (int j = 0; j < a; j++) {
        int fj = nw->free_of[idx[j]];
        if (fj < 0) continue;
        const double *gj = grad + 3 * j;
        if (kc < 0 && fj >= lo && fj < hi)
            for (int p = 0; p < 3; p++) s->rhs[3 * fj + p] -= gj[p] * h * elim;
        for (int l = 0; l < a; l++) {
            int fl = nw->free_of[idx[l]];
            if (fl < lo || fl >= hi) continue; /* a fixed particle, or another part's column */
            const double *gl = grad + 3 * l;
            /* block (fj, fl): entry (p, q) at e0 + q · stride + p (block_entry) */
            long e0 = 0, stride = 0;
            if (!s->dense) {
                const int32_t b = blocks[j * a + l];
                e0 = s->Ap[3 * fl] + 3 * (long)(b - s->bptr[fl]);
                stride = s->Ap[3 * fl + 1] - s->Ap[3 * fl];
            }
            for (int p = 0; p < 3; p++) {
                const double *Hrow = nw->H + (size_t)(3 * j + p) * n3 + 3 * l;
                for (int q = 0; q < 3; q++) {
                    const double v0 = elim * gj[p] * gl[q];
                    const double v = have_h ? v0 + hscale * Hrow[q] : v0;
                    if (s->dense) {
                        if (v != 0.0) dense_add(s, 3 * fj + p, 3 * fl + q, v);
                        continue;
                    }
                    const long e = e0 + q * stride + p;
                    s->Ax[e] += v;
                    if (Px) Px[e] += in_p ? v : v0;
                }
            }
        }
    }
    if (kc < 0) return;
    /* kept (one part only: the KKT form is assembled on one thread): ∂g/∂λ = -∇Cᵀ,
     * ∂h/∂x = ∇C, ∂h/∂λ = α̃ (δ when α̃ = 0) */
    const int32_t *slots = s->dense ? NULL : s->coff + s->c_off[gc] + (long)a * a;
    const int row = nf3 + kc;
    for (int j = 0; j < a && !pot; j++) { /* potential form: the row is Δλ = 0 */
        int fj = nw->free_of[idx[j]];
        if (fj < 0) continue;
        for (int p = 0; p < 3; p++) {
            double g = grad[3 * j + p];
            if (s->dense) {
                dense_add(s, 3 * fj + p, row, -g);
                dense_add(s, row, 3 * fj + p, g);
            } else {
                s->Ax[s->Ap[3 * fj + p] + 3 * (long)(s->bptr[fj + 1] - s->bptr[fj]) +
                      slots[2 * j]] += g;
                s->Ax[s->Ap[row] + 3 * (long)slots[2 * j + 1] + p] -= g;
            }
        }
    }
    if (s->dense) dense_add(s, row, row, D);
    else s->Ax[s->Ap[row + 1] - 1] += D;
    s->rhs[row] = pot ? 0.0 : -h;
}

/* The part of the assembly that writes the columns (and right-hand side rows) of the free
 * particles [lo, hi): zeroed, the masses, then every constraint in the serial order. Each
 * entry belongs to one part and receives its terms in the same order whatever the parts,
 * so A, P and the right-hand side are the same bit for bit on any number of threads
 * (test newton_scale/assembly_threads_bitwise). */
static void assemble_part(const pbd_world *w, struct pbd_newton_workspace *nw, double *psd_work,
                          double mu, int lo, int hi, int *skipped)
{
    newton_system *s = &nw->sys;
    const int whole = lo == 0 && hi == s->nf;
    if (s->dense) gsl_matrix_set_zero((gsl_matrix *)s->gsl_J);
    else if (whole) memset(s->Ax, 0, (size_t)s->nnz * sizeof *s->Ax);
    else memset(s->Ax + s->Ap[3 * lo], 0, (size_t)(s->Ap[3 * hi] - s->Ap[3 * lo]) * sizeof *s->Ax);
    if (s->Px) {
        long e0 = whole ? 0 : s->Ap[3 * lo], e1 = whole ? s->nnz : s->Ap[3 * hi];
        memset(s->Px + e0, 0, (size_t)(e1 - e0) * sizeof *s->Px);
    }
    for (int f = 3 * lo; f < 3 * hi; f++) s->rhs[f] = -nw->r[f];
    for (int i = 0; i < w->n; i++) {
        int f = nw->free_of[i];
        if (f < lo || f >= hi) continue;
        double m = 1.0 / w->w[i];
        int32_t b = s->dense ? 0 : (int32_t)find(s->brow, s->bptr[f], s->bptr[f + 1], f);
        for (int k = 0; k < 3; k++) {
            if (s->dense) dense_add(s, 3 * f + k, 3 * f + k, m);
            else *block_entry(s, f, b, k, k) += m;
            if (s->Px) s->Px[block_entry(s, f, b, k, k) - s->Ax] += m;
        }
    }
    for (int st = 0; st < w->n_sets; st++)
        for (int c = 0; c < w->sets[st].count; c++)
            add_constraint(w, nw, psd_work, st, c, mu, lo, hi, skipped);
}

pbd_status newton_system_assemble(pbd_world *w, struct pbd_newton_workspace *nw)
{
    newton_system *s = &nw->sys;
    s->norm = nw->norm;
    s->norm0 = nw->norm0;
    /* δ = μ Σ w|∇C|², μ = max(1e-10, 1e-4 min(1, ||r|| / ||r_0||)³) (see the top) */
    double ratio = nw->norm0 > 0.0 ? fmin(1.0, nw->norm / nw->norm0) : 1.0;
    const double mu = fmax(NEWTON_REGULARISATION * ratio * ratio * ratio,
                           NEWTON_REGULARISATION_MIN);
    /* threads: the Schur form only (the KKT form's kept rows cross the parts), as many as
     * newton_threads() says and there is scratch for; parts of about equal nonzeros */
    int T = s->dense || s->mk > 0 || !s->Px ? 1 : newton_threads();
    if (T > s->n_tscratch + 1) T = s->n_tscratch + 1;
    if (T > s->nf) T = s->nf > 0 ? s->nf : 1;
    int skipped[ASSEMBLY_THREADS_MAX] = {0};
    if (T <= 1) {
        assemble_part(w, nw, s->psd_work, mu, 0, s->nf, &skipped[0]);
        nw->hessians_skipped = skipped[0];
        return PBD_OK;
    }
    const int a = w->max_arity > 0 ? w->max_arity : 1;
    const size_t per = 9 * (size_t)a + 18 * (size_t)a * a;
#pragma omp parallel num_threads(T)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        /* the part: the free particles whose columns start in [t, t+1) · nnz / nt */
        int lo = 0, hi = s->nf;
        for (int k = 0; k < 2; k++) {
            const long target = (long)((double)s->nnz * (t + k) / nt);
            int f0 = 0, f1 = s->nf;
            while (f0 < f1) {
                int mid = f0 + (f1 - f0) / 2;
                if (s->Ap[3 * mid] < target) f0 = mid + 1;
                else f1 = mid;
            }
            if (k == 0) lo = t == 0 ? 0 : f0;
            else hi = t == nt - 1 ? s->nf : f0;
        }
        if (t == 0) {
            assemble_part(w, nw, s->psd_work, mu, lo, hi, &skipped[0]);
        } else {
            struct pbd_newton_workspace view = *nw; /* the same arrays, its own scratch */
            double *sc = s->tscratch + (size_t)(t - 1) * per;
            view.xl = sc;
            view.gp = sc + 3 * a;
            view.gm = sc + 6 * a;
            view.H = sc + 9 * a;
            assemble_part(w, &view, sc + 9 * a + 9 * (size_t)a * a, mu, lo, hi, &skipped[t]);
        }
    }
    nw->hessians_skipped = 0;
    for (int t = 0; t < T; t++) nw->hessians_skipped += skipped[t];
    return PBD_OK;
}

void newton_system_direction(pbd_world *w, struct pbd_newton_workspace *nw)
{
    newton_system *s = &nw->sys;
    const int nf3 = 3 * s->nf;
    for (int f = 0; f < nf3; f++) nw->dx[f] = s->sol[f];
    for (int st = 0; st < w->n_sets; st++) {
        const pbd_constraint_set *set = &w->sets[st];
        for (int c = 0; c < set->count; c++) {
            int gc = nw->set_c[st] + c, kc = s->kept_of[gc];
            if (kc >= 0) {
                nw->dlambda[gc] = s->sol[nf3 + kc];
                continue;
            }
            const double *grad = nw->grad + nw->set_g[st] + 3 * (size_t)set->arity * c;
            const int32_t *idx = set->idx + (size_t)c * set->arity;
            double jdx = 0.0;
            for (int j = 0; j < set->arity; j++) {
                int f = nw->free_of[idx[j]];
                if (f >= 0)
                    for (int k = 0; k < 3; k++) jdx += grad[3 * j + k] * nw->dx[3 * f + k];
            }
            /* potential form: λ = −C/α̃ linearised (newton.c's residual resets it) */
            nw->dlambda[gc] = newton_row_potential(nw, set, c) ? -jdx / nw->alpha_tilde[gc]
                                                       : -(nw->r[nf3 + gc] + jdx) / nw->denom[gc];
        }
    }
}
