/* Private to solver/: the Newton reference's workspace and its three parts — the driver
 * (solver/newton/newton.c: prediction, residual, line search, the public API), the linear system
 * (solver/newton/newton_system.c: sparsity pattern, Hessians, assembly) and the linear solvers
 * (solver/newton/newton_linear.c: UMFPACK, CHOLMOD, GSL's dense LU; solver/newton/newton_krylov.c: MINRES
 * preconditioned by a kept CHOLMOD factor). */
#ifndef PBD_NEWTON_PRIVATE_H
#define PBD_NEWTON_PRIVATE_H

#include "solver/pbd.h"
#include "solver/solver_private.h"
#include "solver/variants.h"

#include <stddef.h>
#include <stdint.h>

#define PBD_NEWTON_DENSE_MAX 4000 /* unknowns of the dense oracle: 128 MB of matrix */

/* The linear system of one Newton iteration (solver/newton/newton_system.c). With D = α̃ + δ
 * (δ: the stabilisation described there) and the constraints' multipliers either all kept
 * (KKT form: solvers umfpack, dense) or all eliminated (Schur complement: auto, cholmod):
 *   KKT:    [ K   -Jᵀ ] [Δx]     [g]          Schur:  (K + Jᵀ D⁻¹ J) Δx = -(g + Jᵀ D⁻¹ h),
 *           [ J    D  ] [Δλ] = - [h],                 Δλ = -(h + J Δx) / D,
 * K = M - Σ_c λ_c ∇²C_c (XPBD Eq. 10–11 with the geometric stiffness). */
typedef struct newton_pool newton_pool;

typedef struct newton_system {
    uint64_t key;          /* topology, free and kept masks and layout it was built for */
    int valid;
    int nf, m, mk, N;      /* free particles, constraints, kept constraints, unknowns */
    int dense;             /* 1: J is a gsl_matrix (test oracle), no pattern */
    /* particle blocks: column f holds the free particles brow[bptr[f] .. bptr[f+1]) */
    int32_t *bptr, *brow;
    long n_blocks;
    /* kept constraints touching free particle f: krow[kptr[f] .. kptr[f+1]), sorted */
    int32_t *kptr, *krow;
    int32_t *kept_of;      /* constraint -> kept index (KKT form), or -1 (eliminated) */
    /* per constraint, offsets in coff[c_off[c] ..]: arity² block numbers (-1: a fixed
     * particle), then per particle its slot among kept rows of its column and its rank
     * among the constraint's distinct free particles (kept constraints only) */
    int64_t *c_off;
    int32_t *coff;
    /* CSC, N × N (full pattern; CHOLMOD reads its upper triangle) */
    int *Ap, *Ai;
    double *Ax;
    long nnz;
    double *rhs, *sol;     /* N */
    /* solver state (solver/newton/newton_linear.c): factorisations keep their symbolic part */
    void *umf_symbolic, *umf_numeric;
    void *chol_common;     /* cholmod_common * */
    void *chol_llt, *chol_ldl; /* cholmod_factor *: supernodal LLᵀ, simplicial LDLᵀ */
    int llt_failed, ldl_failed; /* in this solve: not positive definite / not LDLᵀ-able */
    /* The Schur form's Krylov path (solver/newton/newton_krylov.c, newton_linear.c): the modified
     * matrix P (the geometric stiffness kept only where it is positive semi-definite, so
     * positive definite), and two kept supernodal LLᵀ factors that precondition MINRES on
     * the exact Ax: slot 0 serves the first iteration of every step (λ = 0, the largest δ:
     * alike from step to step), slot 1 the later iterations. Each is of A when A was
     * positive definite there, else of P, and is factorised anew only when MINRES needs
     * more than `budget` iterations with it. */
    double *Px;
    double *psd_work;      /* one constraint's block: the semi-definiteness test */
    /* the assembly's threads beyond the first (newton_system.c): per thread a constraint's
     * positions, ±gradients, Hessian and semi-definiteness test (3a, 3a, 3a, 9a², 9a²) */
    double *tscratch;
    int n_tscratch;
    double *kv;            /* MINRES' vectors: NEWTON_KRYLOV_VECTORS × N */
    void *chol_X, *chol_Y, *chol_E; /* cholmod_solve2's kept vectors */
    void *pre[2];          /* cholmod_factor *: the slots' factors */
    int pre_ok[2];         /* the slot holds a numeric factor of this topology */
    int pre_of_p[2];       /* A was not positive definite in that slot: factorise P */
    int refactor[2];       /* the last MINRES solve with it was slow: factorise anew */
    int pre_cur;           /* the slot MINRES uses now */
    float *pre_f[2];       /* the slots' L values rounded to float (newton_precond.c), L->xsize */
    int pre_f_ok[2];       /* pre_f[k] holds slot k's factor */
    double *pre_work;      /* its substitution's vectors: 2 N */
    size_t pre_f_bytes;    /* those three */
    int budget;            /* MINRES iterations worth one factorisation (from the analysis) */
    int krylov_failed;     /* in this solve: MINRES did not converge, the direct path on A */
    int krylov_used;       /* this step used MINRES' (inexact) directions */
    int direct_only;       /* this step solved again on the direct path (MINRES stalled) */
    int factorisations, krylov_iterations; /* of this Newton solve */
    double norm, norm0;    /* ||(g, h)|| at the iterate and at the start (the forcing term) */
    double norm_prev;      /* ... at the previous iterate (solve_modified) */
    double stop_g;         /* the stop's bound on ||g|| (newton_converged): MINRES' floor */
    int minimum_check;     /* the minimum check may factorise LDLᵀ on this pattern (estimate) */
    newton_pool *pool;     /* SuiteSparse's memory, recycled (solver/newton/newton_pool.c) */
    void *gsl_J, *gsl_perm, *gsl_rhs, *gsl_sol;
    size_t factor_bytes;   /* the library's peak memory of the last factorisation */
    size_t estimate_bytes; /* the whole reference's, estimated from the symbolic analysis */
    int used;              /* pbd_newton_solver of the last solve */
} newton_system;

struct pbd_newton_workspace {
    int n, n_free, m, N, arity, n_grad, n_sets;
    int32_t *free_of;           /* particle -> free index, or -1 */
    int32_t *set_c, *set_g;     /* per set: first constraint, first gradient double */
    double *xt, *x, *x_try;     /* 3n: x̃ (fixed: final position), iterate, trial */
    double *lambda, *lambda_try, *alpha_tilde, *C; /* m */
    double *denom;              /* m: α̃ + δ of the last assembly (newton_system.c) */
    double *grad;               /* ∇C of every constraint at the iterate */
    double *r;                  /* 3 n_free + m: (g, h) */
    double *dx, *dlambda;       /* the Newton direction: 3 n_free, m */
    double max_c, l2_c, l2_h;   /* max |C|, ||C||_2, ||h||_2 at the last residual() */
    double *set_stats;          /* the same per set (3 per set), in the set's unit */
    double norm0, norm;         /* ||(g, h)||_2 at the start and at the iterate */
    double rel0, rel;           /* the same in the stop's units (newton_relative_residual) */
    double floor;               /* ||(g, h)||'s rounding floor at the last residual() */
    double floor_merit;         /* G's rounding at the last residual() (potential form) */
    /* the relative stop (newton.c converged()): ||g||_2 and ||h_c/|∇C_c|||_2 at the last
     * residual() with their rounding floors, and the step's scales they are measured by */
    double g_norm, hx_norm, floor_g, floor_x, scale_g, scale_x;
    int skipped;                /* degenerate constraints at the last residual() */
    int hessians_skipped;       /* undefined Hessians in the last assembly */
    int exact_potential;        /* 1: potential-form Hessians not projected (newton.c) */
    int rows_potential;         /* 1: compliant single rows in potential form this step, after
                                 * the KKT form stalled from both starts (newton_row_potential) */
    double *xl, *gp, *gm, *H;   /* one constraint: positions, ±gradients, Hessian */
    double *escape;             /* 3n: where G is lowest along a saddle's negative curvature */
    double *min_neg;            /* n_free: the minimum check's Σ s_c (newton_minimum.c) */
    double *min_Hx;             /* sys.nnz: ∇²G on the system's pattern, or NULL */
    long min_nnz;               /* min_Hx's length */
    newton_system sys;
    size_t estimate_bytes;      /* the last analysis' estimate (also when it was refused) */
    pbd_newton_info info;
};

/* solver/newton/newton.c: the workspace's own arrays and the system's, without the factorisation */
size_t newton_workspace_bytes(const struct pbd_newton_workspace *nw);

/* solver/newton/newton_system.c */
/* Build (or keep) the pattern for the solver `solver` (PBD_NEWTON_*, not AUTO). */
pbd_status newton_system_prepare(pbd_world *w, struct pbd_newton_workspace *nw, int solver);
/* Assemble the matrix and right-hand side at the iterate (residual() left ∇C, C and r). */
pbd_status newton_system_assemble(pbd_world *w, struct pbd_newton_workspace *nw);
/* After the solve: Δx and Δλ from sys.sol (Δλ of eliminated constraints recovered). */
void newton_system_direction(pbd_world *w, struct pbd_newton_workspace *nw);
void newton_system_free(newton_system *s);
size_t newton_system_bytes(const newton_system *s);

/* solver/newton/newton_linear.c: factorise sys.Ax and solve for sys.rhs into sys.sol with the
 * prepared solver; CHOLMOD falls back to UMFPACK (sys.used says which) when `fallback`
 * and the matrix is not positive definite. PBD_ENUMERIC with one line when singular. */
pbd_status newton_linear_solve(newton_system *s, int solver, int fallback, int iteration);
/* Whether the matrix of sys's pattern with values Hx (upper triangle) is positive definite,
 * by CHOLMOD's LLᵀ on the kept analysis (in the pool, on the BLAS's threads): 1 it is, 0 it
 * is not, -1 no kept LLᵀ analysis (dense, UMFPACK) or CHOLMOD failed otherwise. */
int newton_linear_llt_positive(newton_system *s, double *Hx);
/* The same matrix's simplicial LDLᵀ (no pivoting) on the system's kept analysis
 * (cholmod_factor *, in sys's chol_common), or NULL; call inside sys's pool. */
void *newton_linear_ldl(newton_system *s, double *Hx);
/* The symbolic analysis alone (kept for the factorisations), with the memory the solve will
 * need estimated from it (s->estimate_bytes, `other` bytes of workspace added) and checked
 * against what is available: PBD_ENOMEM with the estimate when it would not fit. */
pbd_status newton_linear_analyze(newton_system *s, int solver, size_t other);
void newton_linear_free(newton_system *s);

/* solver/newton/newton_krylov.c: preconditioned MINRES on the Schur complement Ax (symmetric,
 * possibly indefinite) with a positive definite preconditioner z = P⁻¹v (`apply`, 0 or -1
 * on failure): x (its start on entry) until ||b - A x||_2 <= tol or max_it iterations.
 * Returns 0 converged, 1 not converged (x the best so far), -1 the preconditioner failed;
 * *its the iterations, *res the final ||b - A x||_2. Uses s->kv. */
#define NEWTON_KRYLOV_VECTORS 11
typedef int (*newton_precond)(newton_system *s, const double *v, double *z);
int newton_minres(newton_system *s, newton_precond apply, const double *b, double *x,
                  double tol, int max_it, int *its, double *res);
/* 1 when the n × n row-major `scale` · G is positive semi-definite (to 1e-10 of its largest
 * diagonal); work holds n² doubles. */
int newton_block_psd(const double *G, int n, double scale, double *work);

/* solver/newton/newton_precond.c: z = Pᵀ L⁻ᵀ L⁻¹ P v with the kept supernodal factor's values
 * rounded to float (lx, made by newton_precond_round after each factorisation; L's pattern
 * and permutation from `factor`, a cholmod_factor *), summed in double; work: 2 N doubles. */
int newton_precond_float(void); /* 1 unless pbd_newton_set_precond_float(0) */
/* 1: a supernodal LLᵀ of doubles with int indices and at most `capacity` stored values */
int newton_precond_fits(const void *factor, size_t capacity);
void newton_precond_round(const void *factor, float *lx);
void newton_precond_apply(const void *factor, const float *lx, const double *v, double *z,
                          double *work);
/* Slot `slot`'s substitution on a double copy and on the float one against cholmod_solve:
 * their relative 2-norm differences (pbd_newton_precond_check). */
pbd_status newton_precond_check(newton_system *s, int slot, double *rel_double,
                                double *rel_float);

/* solver/newton/newton_merit.c: the potential form of energy constraints (see there). */
/* The rows one element contributes together: a block (Stable Neo-Hookean's hydrostatic and
 * deviatoric rows), or a material's components (strain-based dynamics' stretch and shear
 * rows of a triangle or tet); 1 otherwise. */
static inline int newton_element_rows(const pbd_constraint_type *t)
{
    if (t->energy || !t->eval) return 1;
    return t->block > 1 ? t->block : t->n_components > 1 ? t->n_components : 1;
}
/* Energy constraints C = √(2ΨV), and elements of several rows whose ½C² are smooth (Stable
 * Neo-Hookean: (det F − γ)² and ‖F‖²; strain-based dynamics: S_ii − 1, S_ij), every row of
 * the element with α > 0. */
static inline int newton_potential(const pbd_constraint_set *set, int c)
{
    if (set->type->energy) return set->compliance[c] > 0.0;
    const int nb = newton_element_rows(set->type);
    if (nb < 2) return 0;
    for (int r = c - c % nb; r < c - c % nb + nb; r++)
        if (!(set->compliance[r] > 0.0)) return 0;
    return 1;
}
/* Row c in potential form in this step: newton_potential, or, once the KKT form stalled on
 * the step from both starts (nw->rows_potential, newton.c), any compliant single row (a
 * distance spring, ...): its λ = −C/α̃ eliminated, ½C²/α̃ in G (solver/newton/README.md "Newton
 * reference": the spring sheet without bending). */
static inline int newton_row_potential(const struct pbd_newton_workspace *nw,
                                       const pbd_constraint_set *set, int c)
{
    if (newton_potential(set, c)) return 1;
    return nw->rows_potential && !set->type->energy && newton_element_rows(set->type) == 1 &&
           set->compliance[c] > 0.0;
}
/* The KKT form stalled on a step from x̃ and from x: 1 when the step is to be solved anew from
 * x̃ with nw->rows_potential set (*potential updated, *restarted reset), once per step and
 * only where the world has a compliant single row (newton_merit.c). */
int newton_kkt_to_potential(const pbd_world *w, struct pbd_newton_workspace *nw, int *potential,
                            int *restarted);
/* ∇²(½C²/α̃) of constraint c at nw->x into nw->H, projected to PSD; for a block, at its
 * first row the Hessian of the block's Σ ½C_r²/α̃_r (alpha_tilde[r], r < block) projected as
 * one element, and 2 (nothing to add) at its other rows; 0, or 1 when undefined. */
int newton_potential_hessian(struct pbd_newton_workspace *nw, const pbd_constraint_set *set,
                             int c, const double *alpha_tilde);
/* Σ_r (C_r/α̃_r)∇C_r over the nb rows c, c+1, … of one element at the gathered xl into out
 * (row: one row's gradient, scratch); 0, or 1 where a row is degenerate or not finite. */
int newton_scaled_grad(const pbd_constraint_set *set, int c, int nb, const double *xl,
                       const double *at, double *out, double *row);
/* H (n × n, row-major) replaced by (H + Hᵀ)/2: central differences are not symmetric. */
void newton_symmetrise(double *H, int n);
/* 1: every constraint of the world is in potential form (the line search is then on G). */
int newton_all_potential(const pbd_world *w, const struct pbd_newton_workspace *nw);
/* 1: every row of the world is compliant (α > 0), so the step's objective G exists and is
 * the line search's merit (solver/newton/README.md "Newton reference"); 0: a hard row (α = 0) makes
 * the step a constrained one, with ||(g, h)|| as the merit. */
int newton_objective(const pbd_world *w);
/* ∇G·dx at the iterate (nw->r, nw->grad, nw->dx), for KKT and potential rows alike. */
double newton_objective_slope(const pbd_world *w, const struct pbd_newton_workspace *nw);
/* G(x) (1/Δt² × implicit Euler's incremental potential), nw->C being C at x. */
double newton_merit(const pbd_world *w, const struct pbd_newton_workspace *nw, const double *x);
/* 1: x turns a tet of an energy set inside out that is not at `from` (the iterate). */
int newton_inverts(const pbd_world *w, const double *from, const double *x);
/* solver/newton/newton_minimum.c: whether the converged point is a minimum of G (every row
 * compliant): PBD_NEWTON_MINIMUM_* (pbd.h); at a saddle nw->dx holds a unit direction of
 * negative curvature. Overwrites nw->H, xl, gp, gm. */
typedef struct newton_minimum_report {
    int result;          /* PBD_NEWTON_MINIMUM_* */
    int method;          /* 1 the elements' blocks, 2 LLᵀ, 3 LDLᵀ (not positive definite) */
    int negative_pivots; /* LDLᵀ's negative entries of D: H's negative eigenvalues */
    double curvature;    /* dᵀHd/|d|² along the most negative pivot's direction (kg) */
    double curvature_rounding; /* its rounding bound */
} newton_minimum_report;
int newton_minimum(pbd_world *w, struct pbd_newton_workspace *nw, newton_minimum_report *rep);
/* solver/newton/newton_membrane.c: κ, the largest ratio of a membrane element's in-plane stiffness
 * (the top eigenvalue of its potential-form Hessian, kg) to the mass of one of its free
 * particles that no other constraint holds out of the plane, for steps of size h; 0 when
 * there is no such membrane, -1 out of memory. The set and first row of that element. */
double newton_membrane_ratio(const pbd_world *w, double h, int *set, int *element);
/* solver/newton/newton_check.c: what the implicit step cannot take, one line each (PBD_EINVAL). */
pbd_status newton_check_world(const pbd_world *w, int max_iter, double tol);
/* solver/newton/newton_stop.c: S_g and S_x of the step from w->x to nw->xt into nw; the stop
 * (‖g‖ <= tol S_g and ‖h/|∇C|‖ <= tol S_x, or their rounding floors); ∇G·dx. */
void newton_step_scales(const pbd_world *w, struct pbd_newton_workspace *nw);
/* 1 when the step Δx is below the free positions' rounding (4 ulps of the largest). */
int newton_step_below_rounding(const pbd_world *w, const struct pbd_newton_workspace *nw);
int newton_converged(const struct pbd_newton_workspace *nw, double tol);
double newton_relative_residual(const struct pbd_newton_workspace *nw);
double newton_slope(const struct pbd_newton_workspace *nw);
/* solver/newton/newton_pool.c: SuiteSparse's allocations recycled while a pool is current on this
 * thread (enter creates it; -1 when out of memory); misses = requests the system served. */
int newton_pool_enter(newton_pool **pool);
void newton_pool_leave(void);
long newton_pool_misses(const newton_pool *pool);
size_t newton_pool_bytes(const newton_pool *pool);
void newton_pool_destroy(newton_pool **pool);

int newton_threads(void); /* the step's own loops' threads (newton_threads.c) */

#endif
