/* Projective Dynamics (Bouaziz, Martin, Liu, Kavan, Pauly 2014) on the constraint table.
 * Each constraint whose energy is a squared distance to a constraint manifold,
 *   E_j = C_j²/(2α_j) = (w_j/2) ‖A_j S_j x − p_j‖²,   p_j the projection of A_j S_j x onto it
 * (PD Sec. 4), is minimised by local–global alternation (PD Sec. 3, Algorithm 1):
 * local: p_j from the current x; global: the constant system
 *   (M/h² + Σ_j w_j S_jᵀA_jᵀA_jS_j) x = M y/h² + Σ_j w_j S_jᵀA_jᵀ p_j      (PD Sec. 3)
 * prefactored once by CHOLMOD (its matrix is the same for x, y and z) and solved per
 * iteration. The types with such a projection here (solver/README.md "Solver families"):
 *   distance    A S x = x_i − x_j, p = d (x_i − x_j)/|x_i − x_j|, w = 1/α   (PD Sec. 5 "springs")
 *   attachment  A S x = x_i, p = t, w = 1/α                             (PD Sec. 5 "positional")
 *   fem_tet_corotated with Lamé λ = 0:  A S x = F = D_s D_m⁻¹, p = R the rotation of F (SVD,
 *               reflection removed), w = 2μV/α: E = μV‖F − R‖²/α      (PD Sec. 5 "strain", σ = 1)
 * For each of these PD's energy equals C²/(2α) exactly, so its fixed point is the implicit
 * step the Newton reference solves. Fixed particles (w = 0) are eliminated to the right side. */
#include "solver/pd/pd_state.h"
#include "solver/solver_private.h"

#include <gsl/gsl_linalg.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

void pbd_pd_free(pd_state *pd)
{
    if (!pd) return;
    if (pd->started) {
        if (pd->L) cholmod_free_factor(&pd->L, &pd->cc);
        cholmod_free_dense(&pd->X, &pd->cc);
        cholmod_free_dense(&pd->Y, &pd->cc);
        cholmod_free_dense(&pd->E, &pd->cc);
        cholmod_finish(&pd->cc);
    }
    pbd_pd_gather_free(pd);
    free(pd->free_of);
    free(pd->target);
    free(pd->rhs);
    free(pd);
}

int pbd_pd_kind(const pbd_constraint_type *t)
{
    return t == &pbd_distance_type ? PD_SPRING : t == &pbd_attachment_type ? PD_ATTACH
           : t == &pbd_fem_tet_corotated_type ? PD_TET : -1;
}

pbd_status pbd_pd_check(const pbd_world *w)
{
    for (int s = 0; s < pbd_family_static_sets(w); s++) { /* contacts: pd_contact.c */
        const pbd_constraint_set *set = &w->sets[s];
        if (set->count == 0) continue;
        int kind = pbd_pd_kind(set->type);
        if (kind < 0)
            return pbd_error(PBD_EINVAL, "pd: set %d (%s): expected distance, attachment or "
                             "fem_tet_corotated constraints (the types with a projection onto "
                             "their constraint manifold here, PD Sec. 5), found %s, which has "
                             "none (solver/README.md \"Solver families\")", s, set->type->name,
                             set->type->name);
        for (int c = 0; c < set->count; c++) {
            if (!(set->compliance[c] > 0.0))
                return pbd_error(PBD_EINVAL, "pd: set %d (%s) constraint %d: expected a "
                                 "compliance alpha > 0, found %g (PD's weight w = 1/alpha must "
                                 "be finite: a hard constraint has no quadratic energy)", s,
                                 set->type->name, c, set->compliance[c]);
            if (kind == PD_TET && set->rest[(size_t)c * set->type->n_rest + 11] != 0.0)
                return pbd_error(PBD_EINVAL, "pd: set %d (fem_tet_corotated) constraint %d: "
                                 "expected Lame lambda = 0 (Poisson ratio 0), found %g (PD's "
                                 "strain projection covers mu ||F - R||^2 only; the volume term "
                                 "lambda/2 (J - 1)^2 is not of PD's form)", s, c,
                                 set->rest[(size_t)c * set->type->n_rest + 11]);
        }
    }
    return PBD_OK;
}

/* The coefficients of constraint c's rows (A_j S_j): row r, particle q -> coef[r * 4 + q];
 * returns the number of rows and the weight w. */
int pbd_pd_rows(const pbd_constraint_set *set, int c, int kind, double *coef, double *wt)
{
    const double *r = set->rest + (size_t)c * set->type->n_rest;
    double alpha = set->compliance[c];
    if (kind == PD_SPRING) {
        coef[0] = 1.0;
        coef[1] = -1.0;
        *wt = 1.0 / alpha;
        return 1;
    }
    if (kind == PD_ATTACH) {
        coef[0] = 1.0;
        *wt = 1.0 / alpha;
        return 1;
    }
    /* F[a][b] = Σ_k x_k^a G_k[b]: G_k = row k−1 of D_m⁻¹ (k = 1..3), G_0 = −Σ_k G_k */
    for (int b = 0; b < 3; b++) {
        coef[4 * b] = 0.0;
        for (int k = 1; k <= 3; k++) {
            coef[4 * b + k] = r[3 * (k - 1) + b];
            coef[4 * b] -= r[3 * (k - 1) + b];
        }
    }
    *wt = 2.0 * r[10] * r[9] / alpha;
    return 3;
}

int pbd_pd_next(const pbd_world *w, const pbd_family_ws *fw, pd_visit *v)
{
    for (v->c++; v->s < fw->n_static; v->s++, v->c = 0)
        if (v->c < w->sets[v->s].count) {
            const pbd_constraint_set *set = &w->sets[v->s];
            v->kind = pbd_pd_kind(set->type);
            v->nr = pbd_pd_rows(set, v->c, v->kind, v->coef, &v->wt);
            v->idx = set->idx + (size_t)v->c * set->arity;
            return 1;
        }
    return 0;
}

static uint64_t state_key(const pbd_world *w, const pbd_family_ws *fw, double h)
{
    uint64_t key = fw->key;
    double hv[1] = {h};
    uint64_t bits;
    memcpy(&bits, hv, sizeof bits);
    key = (key ^ bits) * 1099511628211ULL;
    key = (key ^ (uint64_t)(w->def.kernels != 0)) * 1099511628211ULL; /* pd_gather.c or not */
    for (int s = 0; s < fw->n_static; s++)
        for (int c = 0; c < w->sets[s].count; c++) {
            memcpy(&bits, &w->sets[s].compliance[c], sizeof bits);
            key = (key ^ bits) * 1099511628211ULL;
        }
    for (int s = 0; s < fw->n_static; s++) /* the tets' D_m⁻¹, V and μ are in the matrix */
        for (long q = 0; pbd_pd_kind(w->sets[s].type) == PD_TET &&
                         q < (long)w->sets[s].count * w->sets[s].type->n_rest; q++) {
            memcpy(&bits, &w->sets[s].rest[q], sizeof bits);
            key = (key ^ bits) * 1099511628211ULL;
        }
    for (int i = 0; i < w->n; i++) { /* the masses of M/h² */
        memcpy(&bits, &w->w[i], sizeof bits);
        key = (key ^ bits) * 1099511628211ULL;
    }
    return key;
}

/* Assemble M/h² + Σ w SᵀAᵀAS over the free particles (lower triangle) and factor it. */
static pbd_status factor(pbd_world *w, pbd_family_ws *fw, pd_state *pd, double h)
{
    long nnz = pd->nf;
    for (int s = 0; s < fw->n_static; s++)
        nnz += 3L * w->sets[s].count * w->sets[s].arity * w->sets[s].arity;
    cholmod_triplet *T = cholmod_allocate_triplet((size_t)pd->nf, (size_t)pd->nf, (size_t)nnz, -1,
                                                  CHOLMOD_REAL, &pd->cc);
    if (!T) return pbd_error(PBD_ENOMEM, "pd: out of memory for the system matrix");
    int *Ti = T->i, *Tj = T->j;
    double *Tx = T->x;
    long q = 0;
    for (int i = 0; i < w->n; i++)
        if (pd->free_of[i] >= 0) {
            Ti[q] = Tj[q] = pd->free_of[i];
            Tx[q++] = 1.0 / (w->w[i] * h * h);
        }
    for (pd_visit v = {.c = -1}; pbd_pd_next(w, fw, &v);) {
        const int arity = w->sets[v.s].arity;
        for (int r = 0; r < v.nr; r++)
            for (int k = 0; k < arity; k++)
                for (int l = 0; l < arity; l++) {
                    int fk = pd->free_of[v.idx[k]], fl = pd->free_of[v.idx[l]];
                    if (fk < 0 || fl < 0 || fk < fl) continue;
                    Ti[q] = fk;
                    Tj[q] = fl;
                    Tx[q++] = v.wt * v.coef[4 * r + k] * v.coef[4 * r + l];
                }
    }
    T->nnz = (size_t)q;
    cholmod_sparse *A = cholmod_triplet_to_sparse(T, (size_t)q, &pd->cc);
    cholmod_free_triplet(&T, &pd->cc);
    if (!A) return pbd_error(PBD_ENOMEM, "pd: out of memory for the system matrix");
    if (pd->L) cholmod_free_factor(&pd->L, &pd->cc);
    const char *was = pbd_running_set("PD's set-up (a CHOLMOD ordering and factorisation, "
                                      "which have no interrupt callback)");
    pd->L = cholmod_analyze(A, &pd->cc);
    /* the step's thread count set for OpenMP, the BLAS and CHOLMOD's own loops around the
     * (simplicial, serial) factorisation (solver/blas.c, pbd_blas_begin;
     * solver/newton/README.md "The BLAS") */
    const int threads = w->n < PBD_FAMILY_PARALLEL_MIN ? 1 : pbd_variants_threads(w);
    pbd_blas_saved saved = pbd_blas_begin(threads, 1);
    int ok = pd->L && cholmod_factorize(A, pd->L, &pd->cc) && pd->cc.status == CHOLMOD_OK;
    pbd_blas_end(saved);
    pbd_running_set(was);
    cholmod_free_sparse(&A, &pd->cc);
    if (!ok && pd->cc.status == CHOLMOD_OUT_OF_MEMORY)
        return pbd_error(PBD_ENOMEM, "pd: the system matrix of %d free particles: CHOLMOD's "
                         "analysis or factorisation ran out of memory (status %d, %s)", pd->nf,
                         pd->cc.status, pbd_cholmod_status_name(pd->cc.status));
    if (!ok)
        return pbd_error(PBD_ENUMERIC, "pd: the system matrix M/h^2 + sum w S^T A^T A S of %d "
                         "free particles: expected positive definite, CHOLMOD found it is not "
                         "(status %d)", pd->nf, pd->cc.status);
    (void)fw;
    return PBD_OK;
}

pbd_status pbd_pd_begin(pbd_world *w, pbd_family_ws *fw, double h)
{
    uint64_t key = state_key(w, fw, h);
    pd_state *pd = fw->pd;
    if (pd && pd->key == key && pd->n == w->n) return PBD_OK;
    pbd_pd_free(pd);
    fw->pd = pd = calloc(1, sizeof *pd);
    if (!pd) return pbd_error(PBD_ENOMEM, "pd: out of memory");
    pd->n = w->n;
    pd->m = fw->m;
    pd->free_of = malloc((size_t)(w->n > 0 ? w->n : 1) * sizeof *pd->free_of);
    pd->target = malloc(9 * (size_t)(fw->m > 0 ? fw->m : 1) * sizeof *pd->target);
    for (int i = 0; pd->free_of && i < w->n; i++) pd->free_of[i] = w->w[i] > 0.0 ? pd->nf++ : -1;
    pd->rhs = malloc(3 * (size_t)(pd->nf > 0 ? pd->nf : 1) * sizeof *pd->rhs);
    if (!pd->free_of || !pd->target || !pd->rhs) return pbd_error(PBD_ENOMEM, "pd: out of memory");
    cholmod_start(&pd->cc);
    pd->started = 1;
    pd->cc.print = 0;
    pd->cc.default_nesdis = 1; /* not METIS_NodeND: it traps SIGTERM (newton_linear.c) */
    pd->cc.supernodal = CHOLMOD_SIMPLICIAL; /* three right sides: no BLAS calls (README) */
    pbd_status st = pd->nf > 0 ? factor(w, fw, pd, h) : PBD_OK;
    if (st == PBD_OK && pd->nf > 0) st = pbd_pd_gather_build(w, fw, pd); /* pd_gather.c */
    if (st != PBD_OK) return st;
    pd->key = key;
    return PBD_OK;
}

/* R of F = U Σ Vᵀ: U Vᵀ, with the last column of U (the smallest singular value's) negated
 * when det(U Vᵀ) < 0, so that R is a rotation (PD Sec. 5 "strain"). */
static void rotation_of(const double *F, double *R)
{
    double u[9], v[9], sv[3], wk[3];
    memcpy(u, F, sizeof u);
    gsl_matrix_view U = gsl_matrix_view_array(u, 3, 3), V = gsl_matrix_view_array(v, 3, 3);
    gsl_vector_view S = gsl_vector_view_array(sv, 3), W = gsl_vector_view_array(wk, 3);
    gsl_linalg_SV_decomp(&U.matrix, &V.matrix, &S.vector, &W.vector);
    for (int pass = 0; pass < 2; pass++) {
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                R[3 * a + b] = u[3 * a] * v[3 * b] + u[3 * a + 1] * v[3 * b + 1] +
                               u[3 * a + 2] * v[3 * b + 2];
        double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
                     R[2] * (R[3] * R[7] - R[4] * R[6]);
        if (det >= 0.0) return;
        for (int a = 0; a < 3; a++) u[3 * a + 2] = -u[3 * a + 2];
    }
}

/* The local step (PD Sec. 3): every constraint's projection p_j at w->p (pd_state.h). */
void pbd_pd_local_step(pbd_world *w, pbd_family_ws *fw, pd_state *pd, int threads,
                       int skip_springs)
{
    for (int s = 0; s < fw->n_static; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        int kind = pbd_pd_kind(set->type);
        if (skip_springs && kind == PD_SPRING) continue;
#pragma omp parallel for num_threads(threads) if (threads > 1 && set->count > 1024) schedule(static)
        for (int c = 0; c < set->count; c++) {
            double *t = pd->target + 9 * (size_t)(fw->set_c[s] + c);
            const double *r = set->rest + (size_t)c * set->type->n_rest;
            const int32_t *idx = set->idx + (size_t)c * set->arity;
            if (kind == PD_ATTACH) {
                for (int k = 0; k < 3; k++) t[k] = r[k];
            } else if (kind == PD_SPRING) {
                const double *a = w->p + 3 * (size_t)idx[0], *b = w->p + 3 * (size_t)idx[1];
                double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
                double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
                for (int k = 0; k < 3; k++) t[k] = len > 0.0 ? r[0] * d[k] / len : d[k];
            } else {
                double F[9];
                const double *x0 = w->p + 3 * (size_t)idx[0];
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++) {
                        F[3 * a + b] = 0.0;
                        for (int k = 1; k <= 3; k++)
                            F[3 * a + b] +=
                                (w->p[3 * (size_t)idx[k] + a] - x0[a]) * r[3 * (k - 1) + b];
                    }
                rotation_of(F, t);
            }
        }
    }
}

pbd_status pbd_pd_iteration(pbd_world *w, pbd_family_ws *fw, double h, int it, int threads)
{
    pd_state *pd = fw->pd;
    if (pd->nf == 0) return PBD_OK;
    if (pd->gathered) { /* def.kernels: pd_gather.c, tested against what follows */
        pbd_pd_gather_iteration(w, fw, pd, h, it, threads);
        if (fw->n_contacts > 0) pbd_pd_contacts(w, fw, h); /* solver/pd/pd_contact.c */
        return PBD_OK;
    }
    pbd_pd_local_step(w, fw, pd, threads, 0);
    int nf = pd->nf;
    for (int i = 0; i < w->n; i++) {
        int f = pd->free_of[i];
        if (f < 0) continue;
        double mh = 1.0 / (w->w[i] * h * h);
        for (int a = 0; a < 3; a++) pd->rhs[(size_t)a * nf + f] = mh * fw->y[3 * (size_t)i + a];
    }
    for (int s = 0; s < fw->n_static; s++) { /* Σ w SᵀAᵀ (p − A S x_fixed) */
        const pbd_constraint_set *set = &w->sets[s];
        int kind = pbd_pd_kind(set->type);
        for (int c = 0; c < set->count; c++) {
            const double *t = pd->target + 9 * (size_t)(fw->set_c[s] + c);
            const int32_t *idx = set->idx + (size_t)c * set->arity;
            if (kind == PD_SPRING) { /* pbd_pd_rows's A = (1, −1) written out: the same bits */
                const double wt = 1.0 / set->compliance[c];
                const int fa = pd->free_of[idx[0]], fb = pd->free_of[idx[1]];
                const double *xa = w->p + 3 * (size_t)idx[0], *xb = w->p + 3 * (size_t)idx[1];
                for (int a = 0; a < 3; a++) {
                    double rhs = t[a];
                    if (fa < 0) rhs -= xa[a];
                    if (fb < 0) rhs += xb[a];
                    if (fa >= 0) pd->rhs[(size_t)a * nf + fa] += wt * rhs;
                    if (fb >= 0) pd->rhs[(size_t)a * nf + fb] -= wt * rhs;
                }
                continue;
            }
            double coef[12], wt;
            int nr = pbd_pd_rows(set, c, kind, coef, &wt);
            for (int r = 0; r < nr; r++)
                for (int a = 0; a < 3; a++) {
                    double rhs = kind == PD_TET ? t[3 * a + r] : t[a];
                    for (int l = 0; l < set->arity; l++)
                        if (pd->free_of[idx[l]] < 0)
                            rhs -= coef[4 * r + l] * w->p[3 * (size_t)idx[l] + a];
                    for (int k = 0; k < set->arity; k++) {
                        int f = pd->free_of[idx[k]];
                        if (f >= 0) pd->rhs[(size_t)a * nf + f] += wt * coef[4 * r + k] * rhs;
                    }
                }
        }
    }
    cholmod_dense B = {.nrow = (size_t)nf, .ncol = 3, .nzmax = 3 * (size_t)nf, .d = (size_t)nf,
                       .x = pd->rhs, .xtype = CHOLMOD_REAL, .dtype = CHOLMOD_DOUBLE};
    if (!cholmod_solve2(CHOLMOD_A, pd->L, &B, NULL, &pd->X, NULL, &pd->Y, &pd->E, &pd->cc))
        return pbd_error(PBD_ENOMEM, "pd: CHOLMOD's solve failed (status %d, %s)", pd->cc.status,
                         pbd_cholmod_status_name(pd->cc.status));
    const double *x = pd->X->x;
    for (int i = 0; i < w->n; i++) {
        int f = pd->free_of[i];
        if (f >= 0)
            for (int a = 0; a < 3; a++) w->p[3 * (size_t)i + a] = x[(size_t)a * nf + f];
    }
    if (fw->n_contacts > 0) pbd_pd_contacts(w, fw, h); /* solver/pd/pd_contact.c */
    return PBD_OK;
}
