/* The Newton reference's linear solvers (solver/newton/README.md "Newton reference"):
 *   - UMFPACK (SuiteSparse, sparse LU with partial pivoting): any of the systems, in
 *     particular the indefinite KKT system of XPBD Eq. 10–11;
 *   - CHOLMOD (SuiteSparse): the Schur complement — symmetric, and positive definite unless
 *     the geometric stiffness -λ∇²C of compressed or bent constraints outweighs the mass
 *     (the cloth's buckling). MINRES on it, preconditioned by a kept supernodal LLᵀ of it or
 *     of its positive definite modification P (solve_modified below, newton_krylov.c; the
 *     factor's values read in float by newton_precond.c);
 *     when that does not converge: supernodal LLᵀ; when it finds the matrix not positive
 *     definite, simplicial LDLᵀ (no pivoting) for the rest of that Newton solve, which
 *     factorises the mildly indefinite ones too; when that meets a zero pivot or its solve
 *     does not check out, the same matrix goes to UMFPACK;
 *   - GSL's dense LU: the test oracle.
 * Both SuiteSparse solvers keep the symbolic analysis (ordering, elimination tree) of the
 * pattern, which is fixed while the topology is, and redo the numeric factorisation each
 * Newton iteration. */
#include "newton_private.h"

#include <cholmod.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <umfpack.h>

void newton_linear_free(newton_system *s)
{
    newton_pool_enter(&s->pool); /* SuiteSparse's blocks go back to the pool, then all of it */
    if (s->umf_numeric) umfpack_di_free_numeric(&s->umf_numeric);
    if (s->umf_symbolic) umfpack_di_free_symbolic(&s->umf_symbolic);
    if (s->chol_common) {
        cholmod_common *cc = s->chol_common;
        cholmod_factor *L = s->chol_llt, *D = s->chol_ldl;
        if (L) cholmod_free_factor(&L, cc);
        if (D) cholmod_free_factor(&D, cc);
        for (int k = 0; k < 2; k++) {
            cholmod_factor *F = s->pre[k];
            if (F) cholmod_free_factor(&F, cc);
            s->pre[k] = NULL;
            s->pre_ok[k] = s->pre_f_ok[k] = 0;
        }
        cholmod_dense *X = s->chol_X, *Y = s->chol_Y, *E = s->chol_E;
        if (X) cholmod_free_dense(&X, cc);
        if (Y) cholmod_free_dense(&Y, cc);
        if (E) cholmod_free_dense(&E, cc);
        cholmod_finish(cc);
        free(cc);
    }
    newton_pool_leave();
    newton_pool_destroy(&s->pool);
    free(s->pre_f[0]); /* pre_f[1] lies in the same block */
    free(s->pre_work);
    s->pre_f[0] = s->pre_f[1] = NULL;
    s->pre_work = NULL;
    s->pre_f_bytes = 0;
    if (s->gsl_J) gsl_matrix_free(s->gsl_J);
    if (s->gsl_perm) gsl_permutation_free(s->gsl_perm);
    if (s->gsl_rhs) gsl_vector_free(s->gsl_rhs);
    if (s->gsl_sol) gsl_vector_free(s->gsl_sol);
    s->umf_numeric = s->umf_symbolic = s->chol_common = s->chol_llt = s->chol_ldl = NULL;
    s->chol_X = s->chol_Y = s->chol_E = NULL;
    s->gsl_J = s->gsl_perm = s->gsl_rhs = s->gsl_sol = NULL;
}

static pbd_status singular(const newton_system *s, const char *library, int iteration)
{
    return pbd_error(PBD_ENUMERIC, "newton: iteration %d: expected a regular linear system, "
                     "found %s reports it singular (%d unknowns; e.g. a constraint whose "
                     "particles are all fixed)", iteration, library, s->N);
}

/* UMFPACK's symbolic analysis; *bytes (may be NULL) its estimate of the factorisation's
 * peak memory. */
static pbd_status analyze_umfpack(newton_system *s, size_t *bytes)
{
    double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
    umfpack_di_defaults(control);
    if (s->umf_symbolic) return PBD_OK;
    const char *was = pbd_running_set("an UMFPACK analysis, which has no interrupt callback");
    int status = umfpack_di_symbolic(s->N, s->N, s->Ap, s->Ai, s->Ax, &s->umf_symbolic, control,
                                     info);
    pbd_running_set(was);
    if (status != UMFPACK_OK)
        return pbd_error(status == UMFPACK_ERROR_out_of_memory ? PBD_ENOMEM : PBD_ENUMERIC,
                         "newton: UMFPACK symbolic analysis failed (status %d, %s) on %d "
                         "unknowns, %ld nonzeros", status, pbd_umfpack_status_name(status), s->N,
                         s->nnz);
    if (bytes)
        *bytes = (size_t)(info[UMFPACK_PEAK_MEMORY_ESTIMATE] * info[UMFPACK_SIZE_OF_UNIT]);
    return PBD_OK;
}

static pbd_status solve_umfpack(newton_system *s, int iteration)
{
    double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
    umfpack_di_defaults(control);
    int status;
    pbd_status st = analyze_umfpack(s, NULL);
    if (st != PBD_OK) return st;
    if (s->umf_numeric) umfpack_di_free_numeric(&s->umf_numeric);
    const char *was = pbd_running_set("an UMFPACK factorisation, which has no interrupt callback");
    status = umfpack_di_numeric(s->Ap, s->Ai, s->Ax, s->umf_symbolic, &s->umf_numeric, control,
                                info);
    pbd_running_set(was);
    if (status == UMFPACK_WARNING_singular_matrix) return singular(s, "UMFPACK", iteration);
    if (status != UMFPACK_OK)
        return pbd_error(status == UMFPACK_ERROR_out_of_memory ? PBD_ENOMEM : PBD_ENUMERIC,
                         "newton: iteration %d: UMFPACK factorisation failed (status %d, %s)",
                         iteration, status, pbd_umfpack_status_name(status));
    size_t bytes = (size_t)(info[UMFPACK_PEAK_MEMORY] * info[UMFPACK_SIZE_OF_UNIT]);
    status = umfpack_di_solve(UMFPACK_A, s->Ap, s->Ai, s->Ax, s->sol, s->rhs, s->umf_numeric,
                              control, info);
    if (status == UMFPACK_ERROR_out_of_memory)
        return pbd_error(PBD_ENOMEM, "newton: iteration %d: UMFPACK solve: out of memory",
                         iteration);
    if (status != UMFPACK_OK) return singular(s, "UMFPACK", iteration);
    if (bytes > s->factor_bytes) s->factor_bytes = bytes;
    s->used = PBD_NEWTON_UMFPACK;
    return PBD_OK;
}

/* Relative residual above which an LDLᵀ solve is handed to UMFPACK. */
#define NEWTON_SOLVE_CHECK 1e-10

/* 1 when ||A x - b|| <= 1e-10 (||A|| ||x|| + ||b||) (max norms; the full symmetric pattern,
 * so column col is row col). */
static int solve_checks_out(const newton_system *s)
{
    double res = 0.0, amax = 0.0, xmax = 0.0, bmax = 0.0;
    for (int k = 0; k < s->N; k++) {
        xmax = fmax(xmax, fabs(s->sol[k]));
        bmax = fmax(bmax, fabs(s->rhs[k]));
    }
    for (int col = 0; col < s->N; col++) {
        double ax = 0.0;
        for (int q = s->Ap[col]; q < s->Ap[col + 1]; q++) {
            ax += s->Ax[q] * s->sol[s->Ai[q]];
            amax = fmax(amax, fabs(s->Ax[q]));
        }
        res = fmax(res, fabs(ax - s->rhs[col]));
    }
    return res <= NEWTON_SOLVE_CHECK * (amax * xmax + bmax);
}

/* Factorise with CHOLMOD — supernodal LLᵀ (ldl = 0) or simplicial LDLᵀ (ldl = 1), each
 * keeping its own symbolic analysis — and solve. Returns 1 when this factorisation cannot
 * do it (not positive definite; a zero pivot or an inaccurate LDLᵀ solve): the caller
 * tries the next; else 0 with *st the status. */
/* The full pattern, read as symmetric through its upper triangle (stype > 0). */
static cholmod_sparse cholmod_matrix(const newton_system *s)
{
    return (cholmod_sparse){
        .nrow = (size_t)s->N, .ncol = (size_t)s->N, .nzmax = (size_t)s->nnz, .p = s->Ap,
        .i = s->Ai, .x = s->Ax, .stype = 1, .itype = CHOLMOD_INT, .xtype = CHOLMOD_REAL,
        .dtype = CHOLMOD_DOUBLE, .sorted = 1, .packed = 1,
    };
}

/* CHOLMOD's settings for LLᵀ (ldl = 0) or LDLᵀ, and its symbolic analysis of the pattern
 * (kept in s): *L the factor, or NULL with the status returned. */
static pbd_status analyze_cholmod(newton_system *s, int ldl, cholmod_factor **L)
{
    cholmod_common *cc = s->chol_common;
    *L = NULL;
    if (!cc) {
        cc = s->chol_common = calloc(1, sizeof *cc);
        if (!cc) return pbd_error(PBD_ENOMEM, "newton: out of memory for CHOLMOD");
        cholmod_start(cc);
        cc->print = 0; /* failures reach the user as one pbd_error line */
        cc->error_handler = NULL;
        /* the less fill of AMD and CHOLMOD's nested dissection (NESDIS, on METIS's
         * bisector); not METIS_NodeND, which traps SIGTERM with a handler of its own that
         * longjmps out of wherever it lands (malloc included) and loses the signal */
        cc->nmethods = 3; /* method[0] is the given ordering: none */
        cc->method[2].ordering = CHOLMOD_NESDIS;
    }
    /* supernodal LLᵀ is the fast one (100² cloth with bending: ~35 % less time than LDLᵀ);
     * LDLᵀ without pivoting also takes the mildly indefinite Schur complements (the 64²
     * cloth after its first iteration: compressed bend springs) */
    cc->supernodal = ldl ? CHOLMOD_SIMPLICIAL : CHOLMOD_SUPERNODAL;
    cc->final_ll = !ldl;
    void **slot = ldl ? &s->chol_ldl : &s->chol_llt;
    if (!*slot) {
        cholmod_sparse A = cholmod_matrix(s);
        const char *was = pbd_running_set("a CHOLMOD ordering, which has no interrupt callback");
        *slot = cholmod_analyze(&A, cc);
        pbd_running_set(was);
        if (!*slot)
            return pbd_error(cc->status == CHOLMOD_OUT_OF_MEMORY ? PBD_ENOMEM : PBD_ENUMERIC,
                             "newton: CHOLMOD analysis failed (status %d, %s) on %d unknowns",
                             cc->status, pbd_cholmod_status_name(cc->status), s->N);
    }
    *L = *slot;
    return PBD_OK;
}

/* cholmod_factorize with CHOLMOD's own OpenMP loops on the BLAS's threads (solver/blas.c) */
static void factorize(cholmod_sparse *A, cholmod_factor *L, cholmod_common *cc)
{
    pbd_blas_saved saved = pbd_blas_begin(pbd_blas_threads(), 1);
    const char *was = pbd_running_set("a CHOLMOD factorisation, which has no interrupt callback");
    cholmod_factorize(A, L, cc);
    pbd_running_set(was);
    pbd_blas_end(saved);
}

int newton_linear_llt_positive(newton_system *s, double *Hx)
{
    if (s->dense || !s->chol_llt || !s->chol_common || s->N == 0) return -1;
    if (newton_pool_enter(&s->pool) != 0) return -1;
    cholmod_common *cc = s->chol_common;
    cc->supernodal = CHOLMOD_SUPERNODAL;
    cc->final_ll = 1;
    cholmod_sparse A = cholmod_matrix(s);
    A.x = Hx;
    cholmod_factor *L = s->chol_llt;
    factorize(&A, L, cc);
    const int r = cc->status == CHOLMOD_OK && L->minor == (size_t)s->N ? 1
                : cc->status == CHOLMOD_NOT_POSDEF ? 0 : -1;
    newton_pool_leave();
    return r;
}

void *newton_linear_ldl(newton_system *s, double *Hx)
{
    cholmod_factor *L;
    if (s->dense || !s->chol_common || s->N == 0) return NULL;
    pbd_status st = analyze_cholmod(s, 1, &L);
    if (st != PBD_OK) return NULL;
    cholmod_common *cc = s->chol_common;
    cc->final_asis = 1;
    cholmod_sparse A = cholmod_matrix(s);
    A.x = Hx;
    factorize(&A, L, cc);
    return L;
}

static int solve_cholmod(newton_system *s, int ldl, int iteration, pbd_status *st)
{
    cholmod_factor *L;
    if ((*st = analyze_cholmod(s, ldl, &L)) != PBD_OK) return 0;
    cholmod_common *cc = s->chol_common;
    cholmod_sparse A = cholmod_matrix(s);
    factorize(&A, L, cc);
    s->factorisations++;
    if (cc->status == CHOLMOD_NOT_POSDEF) return 1;
    if (cc->status != CHOLMOD_OK) {
        *st = pbd_error(cc->status == CHOLMOD_OUT_OF_MEMORY ? PBD_ENOMEM : PBD_ENUMERIC,
                        "newton: iteration %d: CHOLMOD factorisation failed (status %d, %s)",
                        iteration, cc->status, pbd_cholmod_status_name(cc->status));
        return 0;
    }
    cholmod_dense b = {.nrow = (size_t)s->N, .ncol = 1, .nzmax = (size_t)s->N,
                       .d = (size_t)s->N, .x = s->rhs, .xtype = CHOLMOD_REAL,
                       .dtype = CHOLMOD_DOUBLE};
    cholmod_dense *x = cholmod_solve(CHOLMOD_A, L, &b, cc);
    if (!x) {
        *st = cc->status == CHOLMOD_OUT_OF_MEMORY
                  ? pbd_error(PBD_ENOMEM, "newton: iteration %d: CHOLMOD solve: out of memory",
                              iteration)
                  : singular(s, "CHOLMOD", iteration);
        return 0;
    }
    memcpy(s->sol, x->x, (size_t)s->N * sizeof(double));
    cholmod_free_dense(&x, cc);
    if (cc->memory_usage > s->factor_bytes) s->factor_bytes = cc->memory_usage;
    /* LDLᵀ does not pivot: on an indefinite matrix its solve is checked */
    if (ldl && !solve_checks_out(s)) return 1;
    s->used = PBD_NEWTON_CHOLMOD;
    *st = PBD_OK;
    return 0;
}

/* The modified Newton solve of the Schur form (solver/newton/README.md "The modified
 * factorisation"): MINRES on the exact Ax, preconditioned by a kept supernodal LLᵀ (of A
 * where A was positive definite, else of P: newton_system.c keeps the geometric stiffness
 * only where it is positive semi-definite). The direction is the exact Newton direction to
 * the forcing tolerance below; the factor is reused across iterations and steps while
 * MINRES converges within `budget` iterations with it (chord steps on the preconditioner). */
#define KRYLOV_FORCING 1e-3   /* ||A Δx - b|| <= this × ||(g, h)|| × min(1, ||r_k|| / ||r_0||) */
#define KRYLOV_FORCING_SLOW 1e-6 /* ... after an iteration that did not halve ||(g, h)|| */
#define KRYLOV_FLOOR 1e-13    /* ... or this × ||b||: the rounding of a direct solve's residual */
#define KRYLOV_STOP_FRACTION 0.1 /* ... or this × the stop's bound on ||g|| (newton_stop.c) */
#define KRYLOV_FRESH_MAX 150  /* MINRES iterations with a fresh factor, before the direct path */
#define KRYLOV_GAIN 4.0       /* a factorisation's flop runs this much faster than a solve's
                               * (BLAS-3 against BLAS-2; 64² and 100² cloths, OpenBLAS) */

static int precondition(newton_system *s, const double *v, double *z)
{
    if (s->pre_f_ok[s->pre_cur] && newton_precond_float()) { /* newton_precond.c */
        newton_precond_apply(s->pre[s->pre_cur], s->pre_f[s->pre_cur], v, z, s->pre_work);
        return 0;
    }
    cholmod_common *cc = s->chol_common;
    cholmod_dense b = {.nrow = (size_t)s->N, .ncol = 1, .nzmax = (size_t)s->N,
                       .d = (size_t)s->N, .x = (double *)v, .xtype = CHOLMOD_REAL,
                       .dtype = CHOLMOD_DOUBLE};
    cholmod_dense *X = s->chol_X, *Y = s->chol_Y, *E = s->chol_E;
    int ok = cholmod_solve2(CHOLMOD_A, s->pre[s->pre_cur], &b, NULL, &X, NULL, &Y, &E, cc);
    s->chol_X = X;
    s->chol_Y = Y;
    s->chol_E = E;
    if (!ok) return -1;
    memcpy(z, X->x, (size_t)s->N * sizeof *z);
    return 0;
}

/* Slot k's factor anew: LLᵀ of A unless A was not positive definite there before, else of
 * P. 0 done, 1 P not positive definite either, -1 an error (*st). */
static int factorise_slot(newton_system *s, int k, int iteration, pbd_status *st)
{
    cholmod_factor *L;
    if ((*st = analyze_cholmod(s, 0, &L)) != PBD_OK) return -1;
    cholmod_common *cc = s->chol_common;
    if (!s->pre[k]) { /* the symbolic analysis, copied: each slot its own numeric values */
        double fl = cc->fl, lnz = cc->lnz;
        s->budget = (int)fmin(40.0, fmax(4.0, fl / (4.0 * lnz + 2.0 * (double)s->nnz) /
                                                  KRYLOV_GAIN));
        if (!(s->pre[k] = cholmod_copy_factor(L, cc))) {
            *st = pbd_error(PBD_ENOMEM, "newton: out of memory for CHOLMOD's factor");
            return -1;
        }
    }
    if (!s->pre_work && L->is_super) {
        /* both slots' float copies of L's values and the substitution's vectors, once with
         * the first slot (no allocation inside a later step) */
        const size_t fb = 2 * sizeof(float) * L->xsize, wb = 2 * sizeof(double) * (size_t)s->N;
        s->pre_f[0] = malloc(fb);
        s->pre_work = malloc(wb);
        if (!s->pre_f[0] || !s->pre_work) {
            free(s->pre_f[0]);
            free(s->pre_work);
            s->pre_f[0] = NULL;
            s->pre_work = NULL;
            *st = pbd_error(PBD_ENOMEM, "newton: out of memory for the preconditioner's float "
                            "copy of L (%zu bytes)", fb);
            return -1;
        }
        s->pre_f[1] = s->pre_f[0] + L->xsize;
        s->pre_f_bytes = fb + wb;
    }
    s->pre_ok[k] = s->pre_f_ok[k] = 0;
    s->refactor[k] = 0;
    cholmod_sparse A = cholmod_matrix(s);
    for (int use_p = s->pre_of_p[k]; use_p < 2; use_p++) {
        if (use_p) A.x = s->Px;
        factorize(&A, s->pre[k], cc);
        s->factorisations++;
        if (cc->memory_usage > s->factor_bytes) s->factor_bytes = cc->memory_usage;
        if (cc->status == CHOLMOD_OK) {
            s->pre_ok[k] = 1;
            /* L's values rounded to float for MINRES' preconditioner (newton_precond.c;
             * ~1 % of the factorisation's time, made whatever the setting) */
            s->pre_f_ok[k] = s->pre_work &&
                             newton_precond_fits(s->pre[k], (size_t)(s->pre_f[1] - s->pre_f[0]));
            if (s->pre_f_ok[k]) newton_precond_round(s->pre[k], s->pre_f[k]);
            return 0;
        }
        if (cc->status != CHOLMOD_NOT_POSDEF) {
            *st = pbd_error(cc->status == CHOLMOD_OUT_OF_MEMORY ? PBD_ENOMEM : PBD_ENUMERIC,
                            "newton: iteration %d: CHOLMOD factorisation failed (status %d, %s)",
                            iteration, cc->status, pbd_cholmod_status_name(cc->status));
            return -1;
        }
        s->pre_of_p[k] = 1;
    }
    return 1;
}

static int krylov_off; /* pbd_newton_set_krylov(0): the direct path (the bench's baseline) */

void pbd_newton_set_krylov(int on) { krylov_off = !on; }

/* 0 with *st (solved, or an error), or 1: use the direct path on A for this iteration. */
static int solve_modified(newton_system *s, int iteration, pbd_status *st)
{
    *st = PBD_OK;
    if (!s->Px || s->krylov_failed || s->direct_only || krylov_off) return 1;
    const int k = iteration > 0;
    s->pre_cur = k;
    int fresh = 0, rc;
    if (!s->pre_ok[k] || s->refactor[k]) {
        if ((rc = factorise_slot(s, k, iteration, st)) != 0) return rc > 0;
        fresh = 1;
    }
    double bn = 0.0;
    for (int q = 0; q < s->N; q++) bn += s->rhs[q] * s->rhs[q];
    const double ratio = s->norm0 > 0.0 ? fmin(1.0, s->norm / s->norm0) : 1.0;
    /* where the last iteration did not halve ||(g, h)|| (line search, a hard step), the
     * direction is solved tighter: an inexact one let the 100² bending cloth's first step
     * stall at a forcing of 1e-2, not at 1e-3 */
    const int slow = iteration > 0 && s->norm > 0.5 * s->norm_prev;
    s->norm_prev = s->norm;
    /* ... but never below a tenth of the stop's bound on ||g|| (newton.c): after a whole
     * step the new g is the linear residual plus second order terms, so a tighter solve
     * only polishes digits the stop does not ask for (the 100² bending cloth: 4–5 MINRES
     * iterations fewer per step, positions after 4 steps the same to 1e-16 m) */
    const double tol = fmax(fmax((slow ? KRYLOV_FORCING_SLOW : KRYLOV_FORCING) * ratio * s->norm,
                                 KRYLOV_FLOOR * sqrt(bn)),
                            KRYLOV_STOP_FRACTION * s->stop_g);
    memset(s->sol, 0, (size_t)s->N * sizeof *s->sol);
    int its = 0, its2 = 0;
    double res;
    rc = newton_minres(s, precondition, s->rhs, s->sol, tol,
                       fresh ? KRYLOV_FRESH_MAX : s->budget, &its, &res);
    if (rc == 1 && !fresh) { /* the kept factor no longer serves: anew, on from there */
        int f = factorise_slot(s, k, iteration, st);
        if (f != 0) return f > 0;
        rc = newton_minres(s, precondition, s->rhs, s->sol, tol, KRYLOV_FRESH_MAX, &its2, &res);
        s->refactor[k] = 1; /* the iterate moves fast: anew next time too */
    } else if (!fresh && 4 * its > 3 * s->budget) {
        s->refactor[k] = 1; /* slow: cheaper anew next time */
    }
    s->krylov_iterations += its + its2;
    if (rc < 0) {
        *st = pbd_error(PBD_ENOMEM, "newton: iteration %d: CHOLMOD solve: out of memory",
                        iteration);
        return 0;
    }
    if (rc == 1) {
        s->krylov_failed = 1;
        return 1;
    }
    s->used = PBD_NEWTON_CHOLMOD;
    s->krylov_used = 1;
    return 0;
}

static pbd_status solve_dense(newton_system *s, int iteration)
{
    if (s->N == 0) return PBD_OK;
    gsl_matrix *J = s->gsl_J;
    for (int k = 0; k < s->N; k++) gsl_vector_set(s->gsl_rhs, (size_t)k, s->rhs[k]);
    int signum;
    gsl_linalg_LU_decomp(J, s->gsl_perm, &signum);
    for (int k = 0; k < s->N; k++)
        if (gsl_matrix_get(J, (size_t)k, (size_t)k) == 0.0)
            return pbd_error(PBD_ENUMERIC, "newton: iteration %d: expected a regular KKT "
                             "matrix, found a zero pivot at row %d (GSL LU)", iteration, k);
    gsl_linalg_LU_solve(J, s->gsl_perm, s->gsl_rhs, s->gsl_sol);
    for (int k = 0; k < s->N; k++) s->sol[k] = gsl_vector_get(s->gsl_sol, (size_t)k);
    s->used = PBD_NEWTON_DENSE;
    return PBD_OK;
}

static pbd_status solve_sparse(newton_system *s, int solver, int fallback, int iteration)
{
    if (iteration == 0) {
        s->llt_failed = s->ldl_failed = s->krylov_failed = 0;
        s->factorisations = s->krylov_iterations = 0;
    }
    if (s->N == 0) {
        s->used = solver == PBD_NEWTON_AUTO ? PBD_NEWTON_UMFPACK : solver;
        return PBD_OK;
    }
    if (solver == PBD_NEWTON_AUTO || solver == PBD_NEWTON_CHOLMOD) {
        /* MINRES preconditioned by P's LLᵀ; failing that, LLᵀ of A until the Schur
         * complement is not positive definite, then LDLᵀ for the rest of this solve, then
         * UMFPACK */
        pbd_status st0;
        if (!solve_modified(s, iteration, &st0)) return st0;
        for (int ldl = 0; ldl < 2; ldl++) {
            int *failed = ldl ? &s->ldl_failed : &s->llt_failed;
            if (*failed) continue;
            pbd_status st = PBD_OK;
            if (!solve_cholmod(s, ldl, iteration, &st)) return st;
            *failed = 1;
        }
        if (!fallback || solver == PBD_NEWTON_CHOLMOD)
            return pbd_error(PBD_ENUMERIC, "newton: iteration %d: solver cholmod: expected a "
                             "system that LLt or LDLt factorises without pivoting, found a zero "
                             "pivot or an inaccurate solve (strongly indefinite: use auto or "
                             "umfpack)", iteration);
    }
    return solve_umfpack(s, iteration);
}

pbd_status newton_linear_solve(newton_system *s, int solver, int fallback, int iteration)
{
    if (s->dense) return solve_dense(s, iteration);
    if (newton_pool_enter(&s->pool) != 0)
        return pbd_error(PBD_ENOMEM, "newton: out of memory for the solver's pool");
    pbd_blas_saved saved = pbd_blas_begin(pbd_blas_threads(), 0);
    pbd_status st = solve_sparse(s, solver, fallback, iteration);
    pbd_blas_end(saved);
    newton_pool_leave();
    return st;
}

pbd_status newton_linear_analyze(newton_system *s, int solver, size_t other)
{
    if (s->estimate_bytes > 0 || s->N == 0) return PBD_OK; /* analysed and checked already */
    size_t factor = 0;
    char what[160];
    pbd_status st = PBD_OK;
    if (s->dense) {
        factor = sizeof(double) * (size_t)s->N * (size_t)s->N;
        snprintf(what, sizeof what, "dense LU of %d unknowns", s->N);
    } else {
        if (newton_pool_enter(&s->pool) != 0)
            return pbd_error(PBD_ENOMEM, "newton: out of memory for the solver's pool");
        if (solver == PBD_NEWTON_UMFPACK) {
            st = analyze_umfpack(s, &factor);
            snprintf(what, sizeof what, "UMFPACK's peak estimate for %d unknowns, %ld nonzeros",
                     s->N, s->nnz);
        } else {
            cholmod_factor *L;
            st = analyze_cholmod(s, 0, &L);
            if (st == PBD_OK) {
                /* the two kept supernodal factors (values, row indices: solve_modified's
                 * slots) and their values rounded to float (MINRES' preconditioner,
                 * newton_precond.c, with its two vectors), the factorisation's temporaries
                 * (A permuted and transposed: 12 bytes per entry, the supernodal update
                 * matrix) and CHOLMOD's workspace;
                 * not the fallback's (LDLᵀ's simplicial factor, UMFPACK: only when MINRES
                 * fails with a fresh factor, solver/README.md) */
                factor = 2 * (sizeof(double) * L->xsize + sizeof(int) * L->ssize) +
                         2 * sizeof(float) * L->xsize + /* their values in float */
                         2 * sizeof(double) * (size_t)s->N + /* newton_precond.c's vectors */
                         sizeof(int) * L->ssize + /* the analysis itself, kept */
                         (sizeof(double) + sizeof(int)) * (size_t)s->nnz +
                         sizeof(double) * L->maxcsize + 64 * (size_t)s->N +
                         /* the minimum check's simplicial LDLᵀ where ∇²G is not positive
                          * definite (newton_minimum.c): about L's entries, a row index each */
                         (s->minimum_check ? (sizeof(double) + sizeof(int)) * L->xsize : 0);
                snprintf(what, sizeof what, "CHOLMOD's analysis: L has %.3g entries, %d unknowns",
                         (double)L->xsize, s->N);
            }
        }
        /* the solves' vectors of N doubles (CHOLMOD's solution and workspace) kept ready:
         * when LLᵀ, LDLᵀ and their checks first overlap in a later step, they are there */
        void *v[4];
        for (int k = 0; k < 4; k++) v[k] = SuiteSparse_config.malloc_func(sizeof(double) * (size_t)s->N);
        for (int k = 0; k < 4; k++) SuiteSparse_config.free_func(v[k]);
        newton_pool_leave();
    }
    if (st != PBD_OK) return st;
    /* a tenth more for what the counts above leave out (CHOLMOD's bookkeeping, the pool's
     * partly used blocks): measured against the peak resident memory (suite newton_scale;
     * the 316² cloth: 2.16 GB resident) */
    s->estimate_bytes = factor + factor / 10 + other;
    size_t limit;
    const char *source;
    if ((st = pbd_memory_limit(&limit, &source)) != PBD_OK) return st;
    if (s->estimate_bytes > limit)
        return pbd_error(PBD_ENOMEM, "newton: expected the Newton reference to fit in memory, "
                         "found it needs an estimated %.0f MB (%s) with %.0f MB available (%s)",
                         s->estimate_bytes / 1e6, what, limit / 1e6, source);
    return PBD_OK;
}
