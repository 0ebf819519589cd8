/* Newton reference: the implicit step that XPBD approximates, solved exactly.
 *
 * XPBD (Macklin et al. 2016) Eq. 8–9, with x̃ = x_n + Δt v_n + Δt² M⁻¹ f_ext:
 *   g(x, λ) = M(x - x̃) - ∇C(x)ᵀ λ = 0
 *   h(x, λ) = C(x) + α̃ λ = 0,            α̃ = α / Δt².
 * Newton's method on (x, λ) (XPBD Eq. 10–11, but with the exact Jacobian):
 *   [ K     -∇Cᵀ ] [Δx]     [g]
 *   [ ∇C     α̃   ] [Δλ] = - [h],     K = M - Σ_c λ_c ∇²C_c.
 * The geometric stiffness ∇²C_c is not neglected: it comes from central differences of
 * the analytic gradient (step 6e-6 of the constraint's size: truncation and rounding both
 * near 1e-11 relative), symmetrised. The dense system is solved by GSL's LU, so this is
 * for small scenes (up to ~1000 unknowns). Fixed particles (w = 0) are eliminated: they
 * sit where the step would put them (x + Δt v, or the attachment's target). A backtracking
 * line search on ||(g, h)||_2 guards the first iterations; near the solution full steps
 * are taken and convergence is quadratic. Equality constraints only. */
#include "pbd.h"
#include "solver_private.h"
#include "variants.h"

#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdlib.h>

struct pbd_newton_workspace {
    int n, n_free, m, N, arity, n_grad, n_sets;
    int32_t *free_of;           /* particle -> free index, or -1 */
    int32_t *set_c, *set_g;     /* per set: first constraint, first gradient double */
    double *xt, *x, *x_try;     /* 3n: x̃ (fixed: final position), iterate, trial */
    double *lambda, *lambda_try, *alpha_tilde, *C; /* m */
    double *grad;               /* ∇C of every constraint at the iterate */
    double *r;                  /* N: (g, h) */
    double *xl, *gp, *gm, *H;   /* one constraint: positions, ±gradients, Hessian */
    gsl_matrix *J;
    gsl_permutation *perm;
    gsl_vector *rhs, *sol;
};

void pbd_newton_free(struct pbd_newton_workspace *nw)
{
    if (!nw) return;
    free(nw->free_of);
    free(nw->set_c);
    free(nw->set_g);
    free(nw->xt);
    free(nw->x);
    free(nw->x_try);
    free(nw->lambda);
    free(nw->lambda_try);
    free(nw->alpha_tilde);
    free(nw->C);
    free(nw->grad);
    free(nw->r);
    free(nw->xl);
    free(nw->gp);
    free(nw->gm);
    free(nw->H);
    if (nw->J) gsl_matrix_free(nw->J);
    if (nw->perm) gsl_permutation_free(nw->perm);
    if (nw->rhs) gsl_vector_free(nw->rhs);
    if (nw->sol) gsl_vector_free(nw->sol);
    free(nw);
}

/* The workspace for this world's sizes; reused while they do not change. */
static pbd_status workspace(pbd_world *w, struct pbd_newton_workspace **out)
{
    struct pbd_variants_state *vs = pbd_variants_state_of(w);
    if (!vs) return pbd_error(PBD_ENOMEM, "newton: out of memory");
    int n_free = 0, m = 0, n_grad = 0;
    for (int i = 0; i < w->n; i++) n_free += w->w[i] > 0.0;
    for (int s = 0; s < w->n_sets; s++) {
        m += w->sets[s].count;
        n_grad += 3 * w->sets[s].count * w->sets[s].arity;
    }
    int a = w->max_arity > 0 ? w->max_arity : 1;
    int N = 3 * n_free + m;
    struct pbd_newton_workspace *nw = vs->newton;
    if (nw && nw->n == w->n && nw->n_free == n_free && nw->m == m && nw->n_grad == n_grad &&
        nw->arity == a && nw->n_sets == w->n_sets) {
        *out = nw;
        return PBD_OK;
    }
    pbd_newton_free(nw);
    vs->newton = nw = calloc(1, sizeof *nw);
    if (!nw) return pbd_error(PBD_ENOMEM, "newton: out of memory");
    size_t n3 = 3 * (size_t)(w->n > 0 ? w->n : 1), mm = m > 0 ? (size_t)m : 1;
    nw->n = w->n;
    nw->n_free = n_free;
    nw->m = m;
    nw->N = N;
    nw->arity = a;
    nw->n_grad = n_grad;
    nw->n_sets = w->n_sets;
    nw->free_of = malloc((n3 / 3) * sizeof *nw->free_of);
    nw->set_c = malloc((size_t)(w->n_sets + 1) * sizeof *nw->set_c);
    nw->set_g = malloc((size_t)(w->n_sets + 1) * sizeof *nw->set_g);
    nw->xt = malloc(n3 * sizeof(double));
    nw->x = malloc(n3 * sizeof(double));
    nw->x_try = malloc(n3 * sizeof(double));
    nw->lambda = malloc(mm * sizeof(double));
    nw->lambda_try = malloc(mm * sizeof(double));
    nw->alpha_tilde = malloc(mm * sizeof(double));
    nw->C = malloc(mm * sizeof(double));
    nw->grad = malloc((n_grad > 0 ? (size_t)n_grad : 1) * sizeof(double));
    nw->r = malloc((N > 0 ? (size_t)N : 1) * sizeof(double));
    nw->xl = malloc(3 * (size_t)a * sizeof(double));
    nw->gp = malloc(3 * (size_t)a * sizeof(double));
    nw->gm = malloc(3 * (size_t)a * sizeof(double));
    nw->H = malloc(9 * (size_t)a * a * sizeof(double));
    if (N > 0) {
        nw->J = gsl_matrix_alloc((size_t)N, (size_t)N);
        nw->perm = gsl_permutation_alloc((size_t)N);
        nw->rhs = gsl_vector_alloc((size_t)N);
        nw->sol = gsl_vector_alloc((size_t)N);
    }
    if (!nw->free_of || !nw->set_c || !nw->set_g || !nw->xt || !nw->x || !nw->x_try ||
        !nw->lambda || !nw->lambda_try || !nw->alpha_tilde || !nw->C || !nw->grad || !nw->r ||
        !nw->xl || !nw->gp || !nw->gm || !nw->H ||
        (N > 0 && (!nw->J || !nw->perm || !nw->rhs || !nw->sol))) {
        pbd_newton_free(nw);
        vs->newton = NULL;
        return pbd_error(PBD_ENOMEM, "newton: out of memory for %d unknowns", N);
    }
    *out = nw;
    return PBD_OK;
}

/* Evaluate C and ∇C of every constraint at x, then r = (g, h); returns ||r||_2 or -1 when
 * a constraint is degenerate there (message recorded). */
static double residual(pbd_world *w, struct pbd_newton_workspace *nw, const double *x,
                       const double *lambda)
{
    for (int f = 0; f < nw->N; f++) nw->r[f] = 0.0;
    for (int i = 0; i < w->n; i++) {
        int f = nw->free_of[i];
        if (f < 0) continue;
        double m = 1.0 / w->w[i];
        for (int k = 0; k < 3; k++) nw->r[3 * f + k] = m * (x[3 * i + k] - nw->xt[3 * i + k]);
    }
    for (int s = 0; s < w->n_sets; s++) {
        pbd_constraint_set *set = &w->sets[s];
        for (int c = 0; c < set->count; c++) {
            int gc = nw->set_c[s] + c;
            double *grad = nw->grad + nw->set_g[s] + 3 * (size_t)c * set->arity;
            pbd_eval_input in;
            pbd_gather(w, set, c, x, &in);
            if (set->type->eval(&in, &nw->C[gc], grad) != PBD_EVAL_OK) {
                pbd_error(PBD_ENUMERIC, "newton: constraint %d of set %d (%s) is degenerate at "
                          "the iterate: expected a defined gradient", c, s, set->type->name);
                return -1.0;
            }
            const int32_t *idx = set->idx + (size_t)c * set->arity;
            for (int j = 0; j < set->arity; j++) {
                int f = nw->free_of[idx[j]];
                if (f < 0) continue;
                for (int k = 0; k < 3; k++) nw->r[3 * f + k] -= lambda[gc] * grad[3 * j + k];
            }
            nw->r[3 * nw->n_free + gc] = nw->C[gc] + nw->alpha_tilde[gc] * lambda[gc];
        }
    }
    double sum = 0.0;
    for (int f = 0; f < nw->N; f++) sum += nw->r[f] * nw->r[f];
    return sqrt(sum);
}

/* ∇²C of constraint c of set s at x by central differences of the analytic gradient, into
 * nw->H (3a × 3a, symmetrised). Returns 0, or -1 when a perturbed point is degenerate. */
static int hessian(struct pbd_newton_workspace *nw, const pbd_constraint_set *set, int c,
                   const double *x)
{
    int a = set->arity, n3 = 3 * a;
    const int32_t *idx = set->idx + (size_t)c * a;
    double centre[3] = {0, 0, 0}, size = 0.0;
    for (int j = 0; j < a; j++)
        for (int k = 0; k < 3; k++) {
            nw->xl[3 * j + k] = x[3 * (size_t)idx[j] + k];
            centre[k] += nw->xl[3 * j + k] / a;
        }
    for (int j = 0; j < a; j++) {
        double d2 = 0.0;
        for (int k = 0; k < 3; k++) d2 += pow(nw->xl[3 * j + k] - centre[k], 2);
        size = fmax(size, sqrt(d2));
    }
    double eps = 6e-6 * (size > 0.0 ? size : 1.0);
    int nr = set->type->n_rest;
    pbd_eval_input in = {nw->xl, a, set->rest + (size_t)c * (nr > 0 ? nr : 1), set->aux,
                         set->n_aux};
    double C;
    for (int col = 0; col < n3; col++) {
        double keep = nw->xl[col];
        nw->xl[col] = keep + eps;
        int s1 = set->type->eval(&in, &C, nw->gp);
        nw->xl[col] = keep - eps;
        int s2 = set->type->eval(&in, &C, nw->gm);
        nw->xl[col] = keep;
        if (s1 != PBD_EVAL_OK || s2 != PBD_EVAL_OK) return -1;
        for (int row = 0; row < n3; row++)
            nw->H[(size_t)row * n3 + col] = (nw->gp[row] - nw->gm[row]) / (2.0 * eps);
    }
    for (int row = 0; row < n3; row++)
        for (int col = row + 1; col < n3; col++) {
            double avg = 0.5 * (nw->H[(size_t)row * n3 + col] + nw->H[(size_t)col * n3 + row]);
            nw->H[(size_t)row * n3 + col] = nw->H[(size_t)col * n3 + row] = avg;
        }
    return 0;
}

/* The KKT matrix of XPBD Eq. 10 with K = M - Σ λ ∇²C, at the iterate whose gradients
 * residual() left in nw->grad. */
static pbd_status jacobian(pbd_world *w, struct pbd_newton_workspace *nw)
{
    gsl_matrix *J = nw->J;
    int nf3 = 3 * nw->n_free;
    gsl_matrix_set_zero(J);
    for (int i = 0; i < w->n; i++) {
        int f = nw->free_of[i];
        if (f >= 0)
            for (int k = 0; k < 3; k++) gsl_matrix_set(J, 3 * f + k, 3 * f + k, 1.0 / w->w[i]);
    }
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        int a = set->arity, n3 = 3 * a;
        for (int c = 0; c < set->count; c++) {
            int gc = nw->set_c[s] + c;
            const double *grad = nw->grad + nw->set_g[s] + 3 * (size_t)c * a;
            const int32_t *idx = set->idx + (size_t)c * a;
            int row_h = nf3 + gc;
            gsl_matrix_set(J, row_h, row_h, nw->alpha_tilde[gc]);
            for (int j = 0; j < a; j++) {
                int f = nw->free_of[idx[j]];
                if (f < 0) continue;
                for (int k = 0; k < 3; k++) {
                    /* -∇Cᵀ block (∂g/∂λ) and ∇C block (∂h/∂x); += for repeated particles */
                    *gsl_matrix_ptr(J, 3 * f + k, row_h) -= grad[3 * j + k];
                    *gsl_matrix_ptr(J, row_h, 3 * f + k) += grad[3 * j + k];
                }
            }
            double lam = nw->lambda[gc];
            if (lam == 0.0) continue;
            if (hessian(nw, set, c, nw->x) != 0)
                return pbd_error(PBD_ENUMERIC, "newton: constraint %d of set %d (%s) is "
                                 "degenerate near the iterate: expected a defined Hessian",
                                 c, s, set->type->name);
            for (int j = 0; j < a; j++) {
                int fj = nw->free_of[idx[j]];
                if (fj < 0) continue;
                for (int l = 0; l < a; l++) {
                    int fl = nw->free_of[idx[l]];
                    if (fl < 0) continue;
                    for (int p = 0; p < 3; p++)
                        for (int q = 0; q < 3; q++)
                            *gsl_matrix_ptr(J, 3 * fj + p, 3 * fl + q) -=
                                lam * nw->H[(size_t)(3 * j + p) * n3 + 3 * l + q];
                }
            }
        }
    }
    return PBD_OK;
}

/* x̃ for the free particles (XPBD Eq. 8's inertial target with f_ext = m g), and the fixed
 * ones where the step puts them; targets[] gets the attachments' targets at t + Δt. */
static void predict(pbd_world *w, struct pbd_newton_workspace *nw, double dt, double *targets)
{
    int f = 0;
    for (int i = 0; i < w->n; i++) {
        int is_free = w->w[i] > 0.0;
        nw->free_of[i] = is_free ? f++ : -1;
        for (int k = 0; k < 3; k++)
            nw->xt[3 * i + k] = w->x[3 * i + k] + dt * w->v[3 * i + k] +
                                (is_free ? dt * dt * w->def.gravity[k] : 0.0);
    }
    for (int a = 0; a < w->n_attach; a++) {
        double *t = targets ? targets + 3 * a : NULL, local[3];
        if (!t) t = local;
        for (int k = 0; k < 3; k++) t[k] = w->attach_target[3 * a + k];
        if (w->attach_motion)
            w->attach_motion(a, w->time + dt, w->attach_anchor + 3 * a, t, w->attach_user);
        for (int k = 0; k < 3; k++) nw->xt[3 * (size_t)w->attach_idx[a] + k] = t[k];
    }
}

static pbd_status solve(pbd_world *w, int max_iter, double tol, double *residuals, int *n_iter,
                        struct pbd_newton_workspace **out, double *targets)
{
    if (n_iter) *n_iter = 0;
    pbd_status st = pbd_solver_def_validate(&w->def);
    if (st != PBD_OK) return st;
    if (max_iter < 0 || !(tol >= 0.0))
        return pbd_error(PBD_EINVAL, "newton: expected max_iter >= 0 and tol >= 0, found %d "
                         "and %g", max_iter, tol);
    for (int s = 0; s < w->n_sets; s++)
        if (!w->sets[s].type->eval && w->sets[s].count > 0)
            return pbd_error(PBD_EINVAL, "newton: set %d (%s): expected constraints with a "
                             "scalar C, found a type without one", s, w->sets[s].type->name);
    for (int s = 0; s < w->n_sets; s++)
        if (w->sets[s].type->inequality && w->sets[s].count > 0)
            return pbd_error(PBD_EINVAL, "newton: set %d (%s): expected equality constraints "
                             "only, found an inequality type", s, w->sets[s].type->name);
    struct pbd_newton_workspace *nw = NULL;
    if ((st = workspace(w, &nw)) != PBD_OK) return st;
    *out = nw;
    const double dt = w->def.dt;
    predict(w, nw, dt, targets);
    nw->set_c[0] = nw->set_g[0] = 0;
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        nw->set_c[s + 1] = nw->set_c[s] + set->count;
        nw->set_g[s + 1] = nw->set_g[s] + 3 * set->count * set->arity;
        for (int c = 0; c < set->count; c++)
            nw->alpha_tilde[nw->set_c[s] + c] = set->compliance[c] / (dt * dt); /* α̃ = α/Δt² */
    }
    for (int i = 0; i < 3 * w->n; i++) nw->x[i] = nw->xt[i];
    for (int c = 0; c < nw->m; c++) nw->lambda[c] = 0.0;

    double norm = residual(w, nw, nw->x, nw->lambda);
    if (norm < 0.0) return PBD_ENUMERIC;
    if (residuals) residuals[0] = norm;
    int it = 0;
    while (norm > tol && it < max_iter) {
        if (pbd_stop_requested())
            return pbd_error(PBD_EINTR, "newton: step %ld abandoned at iteration %d on a stop "
                             "request", w->step_count + 1, it);
        if ((st = jacobian(w, nw)) != PBD_OK) return st;
        for (int k = 0; k < nw->N; k++) gsl_vector_set(nw->rhs, k, -nw->r[k]);
        int signum;
        gsl_linalg_LU_decomp(nw->J, nw->perm, &signum);
        for (int k = 0; k < nw->N; k++)
            if (gsl_matrix_get(nw->J, k, k) == 0.0)
                return pbd_error(PBD_ENUMERIC, "newton: iteration %d: expected a regular KKT "
                                 "matrix, found a zero pivot at row %d", it, k);
        gsl_linalg_LU_solve(nw->J, nw->perm, nw->rhs, nw->sol);
        /* backtracking on ||(g, h)||: the full step first */
        double t = 1.0, trial = -1.0;
        for (int ls = 0; ls < 30; ls++, t *= 0.5) {
            for (int i = 0; i < 3 * w->n; i++) nw->x_try[i] = nw->x[i];
            for (int i = 0; i < w->n; i++) {
                int f = nw->free_of[i];
                if (f >= 0)
                    for (int k = 0; k < 3; k++)
                        nw->x_try[3 * i + k] += t * gsl_vector_get(nw->sol, 3 * f + k);
            }
            for (int c = 0; c < nw->m; c++)
                nw->lambda_try[c] =
                    nw->lambda[c] + t * gsl_vector_get(nw->sol, 3 * nw->n_free + c);
            trial = residual(w, nw, nw->x_try, nw->lambda_try);
            if (trial >= 0.0 && trial < (1.0 - 1e-4 * t) * norm) break;
            trial = -1.0;
        }
        if (trial < 0.0)
            return pbd_error(PBD_ENUMERIC, "newton: iteration %d: expected ||(g, h)|| to "
                             "decrease along the Newton direction, stalled at %.3e (tol %.3e)",
                             it, norm, tol);
        double *sw = nw->x;
        nw->x = nw->x_try;
        nw->x_try = sw;
        sw = nw->lambda;
        nw->lambda = nw->lambda_try;
        nw->lambda_try = sw;
        norm = trial;
        it++;
        if (residuals) residuals[it] = norm;
    }
    if (n_iter) *n_iter = it;
    if (norm > tol)
        return pbd_error(PBD_ENUMERIC, "newton: expected ||(g, h)|| <= %.3e within %d "
                         "iterations, found %.3e", tol, max_iter, norm);
    return PBD_OK;
}

pbd_status pbd_newton_solve(pbd_world *w, int max_iter, double tol, double *x_out,
                            double *lambda_out, double *residuals, int *n_iter)
{
    struct pbd_newton_workspace *nw = NULL;
    pbd_status st = solve(w, max_iter, tol, residuals, n_iter, &nw, NULL);
    if (st != PBD_OK) return st;
    if (x_out)
        for (int i = 0; i < 3 * w->n; i++) x_out[i] = nw->x[i];
    if (lambda_out)
        for (int c = 0; c < nw->m; c++) lambda_out[c] = nw->lambda[c];
    return PBD_OK;
}

pbd_status pbd_newton_step(pbd_world *w, int max_iter, double tol, double *residuals,
                           int *n_iter)
{
    struct pbd_newton_workspace *nw = NULL;
    pbd_status st = solve(w, max_iter, tol, residuals, n_iter, &nw, w->attach_target);
    if (st != PBD_OK) return st;
    const double dt = w->def.dt;
    for (int i = 0; i < 3 * w->n; i++) {
        w->v[i] = (nw->x[i] - w->x[i]) / dt;
        w->x[i] = w->p[i] = nw->x[i];
    }
    for (int s = 0; s < w->n_sets; s++)
        for (int c = 0; c < w->sets[s].count; c++)
            w->sets[s].lambda[c] = nw->lambda[nw->set_c[s] + c];
    w->time += dt;
    w->step_count++;
    for (int k = 0; k < PBD_STAGE_COUNT; k++) w->stats.stage_seconds[k] = 0.0;
    w->stats.skipped = 0;
    w->stats.threads = 1;
    pbd_measure(w, dt, 1);
    for (int i = 0; i < 3 * w->n; i++)
        if (!isfinite(w->x[i]) || !isfinite(w->v[i]))
            return pbd_error(PBD_ENUMERIC, "newton: step %ld: particle %d has a non-finite "
                             "position or velocity", w->step_count, i / 3);
    return PBD_OK;
}
