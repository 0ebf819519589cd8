/* The Newton reference's linear solvers (solver/README.md "Newton reference"):
 *   - UMFPACK (SuiteSparse, sparse LU with partial pivoting): any of the systems, in
 *     particular the indefinite KKT system of XPBD Eq. 10–11;
 *   - CHOLMOD (SuiteSparse): the Schur complement — symmetric, and positive definite unless
 *     the geometric stiffness -λ∇²C of compressed or bent constraints outweighs the mass
 *     (the cloth's buckling). Supernodal LLᵀ first; when it finds the matrix not positive
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
#include <stdlib.h>
#include <string.h>
#include <umfpack.h>

void newton_linear_free(newton_system *s)
{
    if (s->umf_numeric) umfpack_di_free_numeric(&s->umf_numeric);
    if (s->umf_symbolic) umfpack_di_free_symbolic(&s->umf_symbolic);
    if (s->chol_common) {
        cholmod_common *cc = s->chol_common;
        cholmod_factor *L = s->chol_llt, *D = s->chol_ldl;
        if (L) cholmod_free_factor(&L, cc);
        if (D) cholmod_free_factor(&D, cc);
        cholmod_finish(cc);
        free(cc);
    }
    if (s->gsl_J) gsl_matrix_free(s->gsl_J);
    if (s->gsl_perm) gsl_permutation_free(s->gsl_perm);
    if (s->gsl_rhs) gsl_vector_free(s->gsl_rhs);
    if (s->gsl_sol) gsl_vector_free(s->gsl_sol);
    s->umf_numeric = s->umf_symbolic = s->chol_common = s->chol_llt = s->chol_ldl = NULL;
    s->gsl_J = s->gsl_perm = s->gsl_rhs = s->gsl_sol = NULL;
}

static pbd_status singular(const newton_system *s, const char *library, int iteration)
{
    return pbd_error(PBD_ENUMERIC, "newton: iteration %d: expected a regular linear system, "
                     "found %s reports it singular (%d unknowns; e.g. a constraint whose "
                     "particles are all fixed)", iteration, library, s->N);
}

static pbd_status solve_umfpack(newton_system *s, int iteration)
{
    double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
    umfpack_di_defaults(control);
    int status;
    if (!s->umf_symbolic) {
        status = umfpack_di_symbolic(s->N, s->N, s->Ap, s->Ai, s->Ax, &s->umf_symbolic, control,
                                     info);
        if (status != UMFPACK_OK)
            return pbd_error(status == UMFPACK_ERROR_out_of_memory ? PBD_ENOMEM : PBD_ENUMERIC,
                             "newton: UMFPACK symbolic analysis failed (status %d) on %d "
                             "unknowns, %ld nonzeros", status, s->N, s->nnz);
    }
    if (s->umf_numeric) umfpack_di_free_numeric(&s->umf_numeric);
    status = umfpack_di_numeric(s->Ap, s->Ai, s->Ax, s->umf_symbolic, &s->umf_numeric, control,
                                info);
    if (status == UMFPACK_WARNING_singular_matrix) return singular(s, "UMFPACK", iteration);
    if (status != UMFPACK_OK)
        return pbd_error(status == UMFPACK_ERROR_out_of_memory ? PBD_ENOMEM : PBD_ENUMERIC,
                         "newton: iteration %d: UMFPACK factorisation failed (status %d)",
                         iteration, status);
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
static int solve_cholmod(newton_system *s, int ldl, int iteration, pbd_status *st)
{
    cholmod_common *cc = s->chol_common;
    if (!cc) {
        cc = s->chol_common = calloc(1, sizeof *cc);
        if (!cc) {
            *st = pbd_error(PBD_ENOMEM, "newton: out of memory for CHOLMOD");
            return 0;
        }
        cholmod_start(cc);
        cc->print = 0; /* failures reach the user as one pbd_error line */
        cc->error_handler = NULL;
        cc->nmethods = 3; /* the least fill of AMD, METIS and nested dissection */
    }
    /* supernodal LLᵀ is the fast one (100² cloth with bending: ~35 % less time than LDLᵀ);
     * LDLᵀ without pivoting also takes the mildly indefinite Schur complements (the 64²
     * cloth after its first iteration: compressed bend springs) */
    cc->supernodal = ldl ? CHOLMOD_SIMPLICIAL : CHOLMOD_SUPERNODAL;
    cc->final_ll = !ldl;
    /* the full pattern, read as symmetric through its upper triangle (stype > 0) */
    cholmod_sparse A = {
        .nrow = (size_t)s->N, .ncol = (size_t)s->N, .nzmax = (size_t)s->nnz, .p = s->Ap,
        .i = s->Ai, .x = s->Ax, .stype = 1, .itype = CHOLMOD_INT, .xtype = CHOLMOD_REAL,
        .dtype = CHOLMOD_DOUBLE, .sorted = 1, .packed = 1,
    };
    void **slot = ldl ? &s->chol_ldl : &s->chol_llt;
    cholmod_factor *L = *slot;
    if (!L) {
        L = cholmod_analyze(&A, cc);
        *slot = L;
        if (!L) {
            *st = pbd_error(cc->status == CHOLMOD_OUT_OF_MEMORY ? PBD_ENOMEM : PBD_ENUMERIC,
                            "newton: CHOLMOD analysis failed (status %d) on %d unknowns",
                            cc->status, s->N);
            return 0;
        }
    }
    cholmod_factorize(&A, L, cc);
    if (cc->status == CHOLMOD_NOT_POSDEF) return 1;
    if (cc->status != CHOLMOD_OK) {
        *st = pbd_error(cc->status == CHOLMOD_OUT_OF_MEMORY ? PBD_ENOMEM : PBD_ENUMERIC,
                        "newton: iteration %d: CHOLMOD factorisation failed (status %d%s)",
                        iteration, cc->status,
                        cc->status == CHOLMOD_OUT_OF_MEMORY ? ": out of memory" : "");
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

pbd_status newton_linear_solve(newton_system *s, int solver, int fallback, int iteration)
{
    if (s->dense) return solve_dense(s, iteration);
    if (iteration == 0) s->llt_failed = s->ldl_failed = 0;
    if (s->N == 0) {
        s->used = solver == PBD_NEWTON_AUTO ? PBD_NEWTON_UMFPACK : solver;
        return PBD_OK;
    }
    if (solver == PBD_NEWTON_AUTO || solver == PBD_NEWTON_CHOLMOD) {
        /* LLᵀ until the Schur complement is not positive definite, then LDLᵀ for the rest of
         * this solve, then UMFPACK */
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
