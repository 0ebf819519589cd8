/* The Newton reference's minimum check: the accepted point of a step whose objective exists
 * (every row compliant, newton_objective) must be a minimum of
 *   G(x) = ½ (x − x̃)ᵀ M (x − x̃) + Σ_c C_c(x)² / (2 α̃_c)
 * (XPBD Eq. 8–9 with λ = −C/α̃ eliminated; newton_merit.c), not merely a stationary point:
 * Newton's method on ∇G = 0 converges to saddles as readily as to minima. The Hessian
 *   H = M + Σ_c ∇²(½C_c²/α̃_c),   ∇²(½C²/α̃) = (∇C∇Cᵀ + C∇²C)/α̃
 * (a single row: analytic ∇²C; an element in potential form: newton_potential_hessian, not
 * projected) is proven positive definite
 *  1. by its elements: H ⪰ diag_i(m_i − Σ_{c∋i} s_c), s_c the negative part of element c's
 *     smallest eigenvalue plus that eigenvalue's rounding, since each element's block is
 *     ⪰ −s_c I on its particles; positive definite when every free particle's mass exceeds
 *     its s sum (no factorisation: a stretched chain, a cloth whose compressed springs the
 *     mass outweighs);
 *  2. else by CHOLMOD's LLᵀ of H succeeding (Cholesky exists iff H is positive definite):
 *     in the Schur form (N = 3 n_free) on the system's own pattern and kept analysis, in its
 *     pool and on the BLAS's threads (newton_linear.c), so no allocation after the first
 *     step; in another form on a pattern and analysis of its own.
 * When LLᵀ fails, the simplicial LDLᵀ (no pivoting) of H = P ᵀ L D Lᵀ P gives H's inertia by
 * Sylvester's law (the negative entries of D) and, for the most negative D_k, the direction
 * d = Pᵀ L⁻ᵀ e_k with dᵀ H d = D_k. Its curvature dᵀHd is recomputed by a product with H and
 * counted as negative only beyond its rounding, 16 ε Σ|H_ij||d_i||d_j|; the step is then
 * refused (newton.c). An LLᵀ that fails without such a direction (H singular to rounding:
 * a marginal minimum) is reported as such and accepted. */
#include "newton_private.h"

#include <cholmod.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* rounding of an element block's smallest eigenvalue (cyclic Jacobi) and of dᵀHd: this many
 * ε × the magnitudes summed */
#define MINIMUM_ROUNDING 16.0

/* One element's block B = ∇²(½C²/α̃) at nw->x into nw->H (3a × 3a); 0, 1 when undefined
 * (a degenerate row), 2 when the row belongs to an element whose first row holds it. */
static int element_block(struct pbd_newton_workspace *nw, const pbd_constraint_set *set, int s,
                         int c)
{
    const int gc = nw->set_c[s] + c, a = set->arity, n3 = 3 * a;
    if (newton_potential(set, c)) {
        const int keep = nw->exact_potential;
        nw->exact_potential = 1; /* the Hessian itself, not its projection */
        const int r = newton_potential_hessian(nw, set, c, nw->alpha_tilde + gc);
        nw->exact_potential = keep;
        return r;
    }
    const int32_t *idx = set->idx + (size_t)c * a;
    for (int j = 0; j < a; j++)
        for (int k = 0; k < 3; k++) nw->xl[3 * j + k] = nw->x[3 * (size_t)idx[j] + k];
    const int nr = set->type->n_rest;
    pbd_eval_input in = {nw->xl, a, set->rest + (size_t)c * (nr > 0 ? nr : 1), set->aux,
                         set->n_aux};
    double C;
    double *grad = nw->gp; /* pbd_constraint_hessian uses gp, gm as scratch: keep ∇C apart */
    if (set->type->eval(&in, &C, grad) != PBD_EVAL_OK || !isfinite(C)) return 1;
    double g[PBD_SYM_EIGEN_MAX * 4];
    if (n3 > (int)(sizeof g / sizeof g[0])) return 1;
    memcpy(g, grad, (size_t)n3 * sizeof *g);
    if (pbd_constraint_hessian(set->type, &in, nw->xl, nw->gp, nw->gm, nw->H) != 0) return 1;
    const double at = nw->alpha_tilde[gc];
    for (int p = 0; p < n3; p++)
        for (int q = 0; q < n3; q++)
            nw->H[(size_t)p * n3 + q] = (g[p] * g[q] + C * nw->H[(size_t)p * n3 + q]) / at;
    return 0;
}

/* The position of (row, col) in the system's CSC pattern (rows sorted), or -1. */
static long pattern_at(const newton_system *sys, int row, int col)
{
    int lo = sys->Ap[col], hi = sys->Ap[col + 1] - 1;
    while (lo <= hi) {
        const int mid = lo + (hi - lo) / 2;
        if (sys->Ai[mid] == row) return mid;
        if (sys->Ai[mid] < row) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* The elements' blocks at nw->x: into neg (Σ s_c per free particle) when `neg`, into the
 * triplet's (Ti, Tj, Tx; *k entries) or the system pattern's values Hx (upper triangles;
 * masses on the diagonal) when given. 0, or 1 when a row's Hessian is undefined or Hx's
 * pattern misses an entry (nothing proven). */
static int blocks(pbd_world *w, struct pbd_newton_workspace *nw, double *neg, int *Ti, int *Tj,
                  double *Tx, size_t *k, double *Hx)
{
    double ev[PBD_SYM_EIGEN_MAX], V[PBD_SYM_EIGEN_MAX * PBD_SYM_EIGEN_MAX],
        E[PBD_SYM_EIGEN_MAX * PBD_SYM_EIGEN_MAX];
    for (int i = 0; i < w->n; i++) {
        const int f = nw->free_of[i];
        for (int q = 0; f >= 0 && q < 3; q++) {
            const int r = 3 * f + q;
            if (Tx) Ti[*k] = Tj[*k] = r, Tx[(*k)++] = 1.0 / w->w[i];
            if (Hx) {
                const long at = pattern_at(&nw->sys, r, r);
                if (at < 0) return 1;
                Hx[at] += 1.0 / w->w[i];
            }
        }
    }
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        const int a = set->arity, n3 = 3 * a;
        for (int c = 0; c < set->count; c++) {
            const int r = element_block(nw, set, s, c);
            if (r == 2) continue;
            if (r == 1) return 1; /* undefined at a degenerate row: nothing is proven */
            const int32_t *idx = set->idx + (size_t)c * a;
            if (neg) {
                double big = 0.0, s_c = INFINITY;
                for (int e = 0; e < n3 * n3; e++) big = fmax(big, fabs(nw->H[e]));
                if (n3 <= PBD_SYM_EIGEN_MAX) {
                    memcpy(E, nw->H, (size_t)n3 * n3 * sizeof *E);
                    if (pbd_sym_eigen(n3, E, ev, V) == 0) {
                        double lo = ev[0];
                        for (int e = 1; e < n3; e++) lo = fmin(lo, ev[e]);
                        s_c = fmax(0.0, -lo) + MINIMUM_ROUNDING * n3 * DBL_EPSILON * big;
                    }
                }
                for (int j = 0; j < a; j++)
                    if (nw->free_of[idx[j]] >= 0) neg[nw->free_of[idx[j]]] += s_c;
            }
            if (!Tx && !Hx) continue;
            for (int j = 0; j < a; j++) {
                const int fj = nw->free_of[idx[j]];
                for (int l = 0; fj >= 0 && l < a; l++) {
                    const int fl = nw->free_of[idx[l]];
                    for (int p = 0; fl >= 0 && p < 3; p++)
                        for (int q = 0; q < 3; q++) {
                            const int row = 3 * fj + p, col = 3 * fl + q;
                            if (row > col) continue; /* the upper triangle (stype 1) */
                            const double v = nw->H[(size_t)(3 * j + p) * n3 + 3 * l + q];
                            if (Tx) Ti[*k] = row, Tj[*k] = col, Tx[(*k)++] = v;
                            if (Hx) {
                                const long at = pattern_at(&nw->sys, row, col);
                                if (at < 0) return 1;
                                Hx[at] += v;
                            }
                        }
                }
            }
        }
    }
    return 0;
}

/* cholmod_factorize with CHOLMOD's own OpenMP loops serial on the BLAS's threads
 * (solver/blas.c), as newton_linear.c's */
static void factorize(cholmod_sparse *A, cholmod_factor *L, cholmod_common *cc)
{
    pbd_blas_saved saved = pbd_blas_begin(pbd_blas_threads(), 1);
    cholmod_factorize(A, L, cc);
    pbd_blas_end(saved);
}

/* H's inertia by its LDLᵀ L (no pivoting; Sylvester's law: D's negative entries) and, for
 * the most negative D_k, d = Pᵀ L⁻ᵀ e_k into nw->dx with its curvature dᵀHd/|d|² recomputed:
 * SADDLE beyond its rounding, else MARGINAL. */
static int inertia(struct pbd_newton_workspace *nw, cholmod_sparse *H, cholmod_factor *L,
                   cholmod_common *cc, newton_minimum_report *rep)
{
    const int n = 3 * nw->n_free;
    int result = PBD_NEWTON_MINIMUM_MARGINAL;
    if (L && L->minor == (size_t)n && !L->is_ll) {
        const int *Lp = L->p;
        const double *Lx = L->x;
        int kmin = -1;
        double dmin = 0.0;
        for (int j = 0; j < n; j++) {
            const double d = Lx[Lp[j]];
            rep->negative_pivots += d < 0.0;
            if (d < dmin) dmin = d, kmin = j;
        }
        cholmod_dense *e = kmin >= 0 ? cholmod_zeros((size_t)n, 1, CHOLMOD_REAL, cc) : NULL;
        cholmod_dense *y = e ? (((double *)e->x)[kmin] = 1.0, cholmod_solve(CHOLMOD_Lt, L, e, cc))
                             : NULL;
        cholmod_dense *d = y ? cholmod_solve(CHOLMOD_Pt, L, y, cc) : NULL;
        cholmod_dense *Hd = d ? cholmod_zeros((size_t)n, 1, CHOLMOD_REAL, cc) : NULL;
        cholmod_sparse *Habs = Hd ? cholmod_copy_sparse(H, cc) : NULL;
        if (Habs) {
            double one[2] = {1.0, 0.0}, zero[2] = {0.0, 0.0};
            const double *dx = d->x;
            cholmod_sdmult(H, 0, one, zero, d, Hd, cc);
            double q = 0.0, dd = 0.0, qabs = 0.0;
            for (int i = 0; i < n; i++) q += dx[i] * ((double *)Hd->x)[i], dd += dx[i] * dx[i];
            double *hx = Habs->x;
            for (size_t t = 0; t < Habs->nzmax; t++) hx[t] = fabs(hx[t]);
            for (int i = 0; i < n; i++) ((double *)d->x)[i] = fabs(dx[i]);
            cholmod_sdmult(Habs, 0, one, zero, d, Hd, cc);
            for (int i = 0; i < n; i++) qabs += ((double *)d->x)[i] * ((double *)Hd->x)[i];
            /* d again, with its sign, normalised, into nw->dx */
            cholmod_free_dense(&d, cc);
            d = cholmod_solve(CHOLMOD_Pt, L, y, cc);
            if (d && dd > 0.0) {
                for (int i = 0; i < n; i++) nw->dx[i] = ((double *)d->x)[i] / sqrt(dd);
                rep->curvature = q / dd;
                rep->curvature_rounding = MINIMUM_ROUNDING * DBL_EPSILON * qabs / dd;
                if (q < -MINIMUM_ROUNDING * DBL_EPSILON * qabs) result = PBD_NEWTON_MINIMUM_SADDLE;
            }
        }
        cholmod_free_sparse(&Habs, cc);
        cholmod_free_dense(&Hd, cc);
        cholmod_free_dense(&d, cc);
        cholmod_free_dense(&y, cc);
        cholmod_free_dense(&e, cc);
    }
    rep->method = 3;
    return result;
}

int newton_minimum(pbd_world *w, struct pbd_newton_workspace *nw, newton_minimum_report *rep)
{
    memset(rep, 0, sizeof *rep);
    rep->curvature = NAN;
    const int nf = nw->n_free, n = 3 * nf;
    if (n == 0) return rep->result = PBD_NEWTON_MINIMUM_PROVEN;
    newton_system *sys = &nw->sys;
    if (sys->N == n && !sys->dense && sys->nnz > 0 && nw->min_nnz != sys->nnz) {
        /* step 2's values, allocated with the step's pattern (no allocation in a later step) */
        free(nw->min_Hx);
        nw->min_Hx = malloc((size_t)sys->nnz * sizeof *nw->min_Hx);
        nw->min_nnz = nw->min_Hx ? sys->nnz : 0;
    }
    /* 1. the elements' blocks against the masses: no factorisation, no allocation */
    double *neg = nw->min_neg;
    memset(neg, 0, (size_t)nf * sizeof *neg);
    if (blocks(w, nw, neg, NULL, NULL, NULL, NULL, NULL) != 0)
        return rep->result = PBD_NEWTON_MINIMUM_UNCHECKED;
    int blocks_ok = 1;
    for (int i = 0; i < w->n; i++) {
        const int f = nw->free_of[i];
        if (f >= 0 && !(neg[f] < 1.0 / w->w[i])) blocks_ok = 0;
    }
    if (blocks_ok) {
        rep->method = 1;
        return rep->result = PBD_NEWTON_MINIMUM_PROVEN;
    }
    /* 2. LLᵀ on the system's own pattern and kept analysis (the Schur form's N = 3 n_free:
     * its pattern is the elements' blocks) */
    if (sys->N == n && !sys->dense && sys->nnz > 0) {
        if (nw->min_Hx) {
            memset(nw->min_Hx, 0, (size_t)sys->nnz * sizeof *nw->min_Hx);
            const int r = blocks(w, nw, NULL, NULL, NULL, NULL, NULL, nw->min_Hx) == 0
                              ? newton_linear_llt_positive(sys, nw->min_Hx) : -1;
            if (r == 1) {
                rep->method = 2; /* LLᵀ exists: positive definite */
                return rep->result = PBD_NEWTON_MINIMUM_PROVEN;
            }
            cholmod_factor *L = NULL;
            if (r == 0 && newton_pool_enter(&sys->pool) == 0) {
                /* not positive definite: LDLᵀ on the system's kept simplicial analysis */
                cholmod_sparse H = {
                    .nrow = (size_t)n, .ncol = (size_t)n, .nzmax = (size_t)sys->nnz,
                    .p = sys->Ap, .i = sys->Ai, .x = nw->min_Hx, .stype = 1,
                    .itype = CHOLMOD_INT, .xtype = CHOLMOD_REAL, .dtype = CHOLMOD_DOUBLE,
                    .sorted = 1, .packed = 1};
                int result = PBD_NEWTON_MINIMUM_UNCHECKED;
                if ((L = newton_linear_ldl(sys, nw->min_Hx)) != NULL)
                    result = inertia(nw, &H, L, sys->chol_common, rep);
                newton_pool_leave();
                if (L) return rep->result = result;
            }
        }
    }
    /* 3. H of its own (another form's pattern, or not positive definite): LLᵀ, then its
     * inertia and a direction of negative curvature by LDLᵀ */
    /* in the system's pool: the same requests every step, recycled after the first */
    const int pooled = newton_pool_enter(&sys->pool) == 0;
    cholmod_common cc;
    cholmod_start(&cc);
    cc.print = 0; /* a matrix found not positive definite is this check's answer, not an error */
    cc.error_handler = NULL;
    long nnz_max = nf;
    for (int s = 0; s < w->n_sets; s++)
        nnz_max += (long)w->sets[s].count * 9 * w->sets[s].arity * w->sets[s].arity;
    cholmod_triplet *T = cholmod_allocate_triplet((size_t)n, (size_t)n, (size_t)(3 * nf + nnz_max),
                                                  1, CHOLMOD_REAL, &cc);
    int result = PBD_NEWTON_MINIMUM_PROVEN;
    size_t k = 0;
    if (!T || blocks(w, nw, NULL, T->i, T->j, T->x, &k, NULL) != 0) {
        result = PBD_NEWTON_MINIMUM_UNCHECKED;
        goto done;
    }
    T->nnz = k;
    cholmod_sparse *H = cholmod_triplet_to_sparse(T, k, &cc);
    if (!H) {
        result = PBD_NEWTON_MINIMUM_UNCHECKED;
        goto done;
    }
    cc.nmethods = 1;
    cc.method[0].ordering = CHOLMOD_AMD;
    cc.postorder = 1;
    cc.supernodal = CHOLMOD_SUPERNODAL; /* always LLᵀ (a simplicial factor would be LDLᵀ) */
    cholmod_factor *L = cholmod_analyze(H, &cc);
    if (L && (factorize(H, L, &cc), cc.status == CHOLMOD_OK) && L->minor == (size_t)n) {
        rep->method = 2; /* LLᵀ exists: positive definite */
        cholmod_free_factor(&L, &cc);
        cholmod_free_sparse(&H, &cc);
        goto done;
    }
    cholmod_free_factor(&L, &cc);
    /* not positive definite: its inertia and a direction of negative curvature by LDLᵀ */
    cc.supernodal = CHOLMOD_SIMPLICIAL;
    cc.final_ll = 0;
    cc.final_asis = 1;
    L = cholmod_analyze(H, &cc);
    if (L) factorize(H, L, &cc);
    result = inertia(nw, H, L, &cc, rep);
    cholmod_free_factor(&L, &cc);
    cholmod_free_sparse(&H, &cc);
done:
    cholmod_free_triplet(&T, &cc);
    cholmod_finish(&cc);
    if (pooled) newton_pool_leave();
    return rep->result = result;
}
