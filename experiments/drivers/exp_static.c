/* The static equilibrium of a world, the reference the material experiments compare XPBD's
 * settled state with: the minimum over the free particles of
 *   E(x) = Σ_c C_c(x)² / (2 α_c) − Σ_i m_i g·x_i,
 * XPBD's elastic potential (XPBD Eq. 3) plus gravity, by Newton's method with a backtracking
 * line search on E. It is the v = 0 fixed point of XPBD Eq. 8–9 (M(x − x̃) = 0, λ = −C/α̃).
 * Written in x alone, the square root of the energy constraints C = √(2ΨV) (fem.h) cancels:
 * ½C²/α = ΨV is smooth through C = 0, where ∇C of the square root is not (the Newton
 * reference, pbd_newton_step, does the same: solver/newton/newton_merit.c). The Hessian of each
 * constraint's ½C²/α is taken by central differences of its gradient (C/α)∇C (step 1e-6 of
 * the constraint's size), the dense system by GSL's Cholesky. Every set needs α > 0 and a
 * scalar C; fixed particles stay.
 *
 * Globalisation, so that it converges or says why:
 *  - the Newton matrix is the exact Hessian while it is positive definite; where it is not
 *    (StVK and the strain constraints soften under compression, a buckling beam) each
 *    constraint's Hessian is projected to positive semi-definite (Teran et al. 2005,
 *    solver/symeig.c), and, should that still fail, shifted by τI: the step is then a
 *    descent direction of E, checked (∇E·Δx < 0) before the line search;
 *  - the line search asks Armijo's sufficient decrease of E (or, near the minimum where E's
 *    changes drop below its rounding, E within that rounding and |∇E| decreasing), and
 *    shortens any step that turns a tet inside out (the sign of det D_s against the
 *    iterate's): from a rest state with every tet upright, the answer has every tet upright;
 *  - converged when |∇E|∞ <= tol × (largest weight m|g|) or below its round-off floor,
 *    64 ε X max_k H_kk (ε the machine epsilon, X the largest coordinate, H_kk the stiffness:
 *    rounding the positions by ε X moves the forces by that much), so that a light load
 *    (0.01 g) or a stiff material (E = 1e7) does not ask for an unreachable gradient. */
#include "pbd_drivers.h"

#include <gsl/gsl_linalg.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct static_work {
    pbd_world *w;
    int n_free;
    int32_t *free_of;
    double *x, *g, *xl, *gp, *gm;
    double *gp_all; /* the gradient at a trial point */
    double *Hl;     /* one constraint's Hessian, (3 arity)² */
} static_work;

/* E and (when g != NULL) its gradient over the free coordinates at positions x; NAN when a
 * constraint is degenerate or the energy not finite. */
static double energy(static_work *s, const double *x, double *g)
{
    pbd_world *w = s->w;
    double E = 0.0;
    if (g) memset(g, 0, 3 * (size_t)s->n_free * sizeof *g);
    for (int i = 0; i < w->n; i++) {
        int f = s->free_of[i];
        if (f < 0) continue;
        double m = 1.0 / w->w[i];
        for (int k = 0; k < 3; k++) {
            E -= m * w->def.gravity[k] * x[3 * i + k];
            if (g) g[3 * f + k] -= m * w->def.gravity[k];
        }
    }
    for (int si = 0; si < w->n_sets; si++) {
        const pbd_constraint_set *set = &w->sets[si];
        int nr = set->type->n_rest > 0 ? set->type->n_rest : 1;
        for (int c = 0; c < set->count; c++) {
            const int32_t *idx = set->idx + (size_t)c * set->arity;
            for (int j = 0; j < set->arity; j++)
                memcpy(s->xl + 3 * j, x + 3 * (size_t)idx[j], 3 * sizeof(double));
            pbd_eval_input in = {s->xl, set->arity, set->rest + (size_t)c * nr, set->aux, set->n_aux};
            double C, a = set->compliance[c];
            if (set->type->eval(&in, &C, s->gp) != PBD_EVAL_OK || !isfinite(C)) return NAN;
            E += C * C / (2.0 * a);
            if (!g) continue;
            for (int j = 0; j < set->arity; j++) {
                int f = s->free_of[idx[j]];
                if (f >= 0)
                    for (int k = 0; k < 3; k++) g[3 * f + k] += C / a * s->gp[3 * j + k];
            }
        }
    }
    return isfinite(E) ? E : NAN;
}

/* (C/α)∇C of one constraint at the gathered s->xl into out; 0, or -1 when degenerate. */
static int local_grad(const pbd_constraint_set *set, int c, const double *xl, double *out)
{
    int nr = set->type->n_rest > 0 ? set->type->n_rest : 1;
    pbd_eval_input in = {xl, set->arity, set->rest + (size_t)c * nr, set->aux, set->n_aux};
    double C;
    if (set->type->eval(&in, &C, out) != PBD_EVAL_OK) return -1;
    for (int k = 0; k < 3 * set->arity; k++) out[k] *= C / set->compliance[c];
    return 0;
}

/* The Hessian of E at x into H: each constraint's ∇²(½C²/α) (central differences of
 * (C/α)∇C), projected to positive semi-definite first when `project`; *diag_max gets the
 * largest diagonal entry (the stiffness scale of the round-off floor). */
static pbd_status hessian(static_work *s, const double *x, gsl_matrix *H, int project,
                          double *diag_max)
{
    pbd_world *w = s->w;
    gsl_matrix_set_zero(H);
    for (int si = 0; si < w->n_sets; si++) {
        const pbd_constraint_set *set = &w->sets[si];
        const int a3 = 3 * set->arity;
        for (int c = 0; c < set->count; c++) {
            const int32_t *idx = set->idx + (size_t)c * set->arity;
            double size = 0.0;
            for (int j = 0; j < set->arity; j++) {
                memcpy(s->xl + 3 * j, x + 3 * (size_t)idx[j], 3 * sizeof(double));
                for (int k = 0; k < 3; k++)
                    size = fmax(size, fabs(s->xl[3 * j + k] - s->xl[k]));
            }
            double h = 1e-6 * (size > 0.0 ? size : 1.0);
            for (int col = 0; col < a3; col++) {
                double keep = s->xl[col];
                s->xl[col] = keep + h;
                int bad = local_grad(set, c, s->xl, s->gp);
                s->xl[col] = keep - h;
                bad |= local_grad(set, c, s->xl, s->gm);
                s->xl[col] = keep;
                if (bad)
                    return pbd_error(PBD_ENUMERIC, "static equilibrium: constraint %d of set %s is "
                                     "degenerate near the iterate", c, set->type->name);
                for (int row = 0; row < a3; row++)
                    s->Hl[row * a3 + col] = (s->gp[row] - s->gm[row]) / (2.0 * h);
            }
            for (int row = 0; row < a3; row++) /* symmetrised */
                for (int col = row + 1; col < a3; col++)
                    s->Hl[row * a3 + col] = s->Hl[col * a3 + row] =
                        0.5 * (s->Hl[row * a3 + col] + s->Hl[col * a3 + row]);
            if (project && a3 <= PBD_SYM_EIGEN_MAX && pbd_sym_project_psd(a3, s->Hl, 0.0) < 0)
                return pbd_error(PBD_ENUMERIC, "static equilibrium: constraint %d of set %s: "
                                 "non-finite Hessian", c, set->type->name);
            for (int row = 0; row < a3; row++) {
                int fr = s->free_of[idx[row / 3]];
                if (fr < 0) continue;
                for (int col = 0; col < a3; col++) {
                    int fc = s->free_of[idx[col / 3]];
                    if (fc >= 0)
                        *gsl_matrix_ptr(H, 3 * fr + row % 3, 3 * fc + col % 3) +=
                            s->Hl[row * a3 + col];
                }
            }
        }
    }
    *diag_max = 0.0;
    for (size_t k = 0; k < H->size1; k++) *diag_max = fmax(*diag_max, fabs(gsl_matrix_get(H, k, k)));
    return PBD_OK;
}

/* The orientation det(x1 − x0, x2 − x0, x3 − x0) of four particles. */
static double orientation(const double *x, const int32_t *idx)
{
    double e[3][3];
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++) e[j][k] = x[3 * (size_t)idx[j + 1] + k] - x[3 * (size_t)idx[0] + k];
    return e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
           e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
           e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
}

/* 1 when y turns an element tet (a material set of arity 4) inside out that is upright at x. */
static int inverts(const pbd_world *w, const double *x, const double *y)
{
    for (int si = 0; si < w->n_sets; si++) {
        const pbd_constraint_set *set = &w->sets[si];
        if (!set->type->material || set->arity != 4) continue;
        for (int c = 0; c < set->count; c++) {
            double before = orientation(x, set->idx + 4 * (size_t)c);
            double after = orientation(y, set->idx + 4 * (size_t)c);
            if ((before > 0.0 && !(after > 0.0)) || (before < 0.0 && !(after < 0.0))) return 1;
        }
    }
    return 0;
}

/* The Newton direction: Cholesky of the exact Hessian, else of the projected one, else of
 * the projected one shifted by τI (τ from 1e-8 of its largest diagonal entry up). *mode:
 * 0 exact, 1 projected, 2 shifted. */
static pbd_status direction(static_work *s, gsl_matrix *H, gsl_vector *rhs, gsl_vector *dx,
                            double *diag_max, int *mode)
{
    pbd_status st;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    *mode = 0;
    if ((st = hessian(s, s->x, H, 0, diag_max)) == PBD_OK && gsl_linalg_cholesky_decomp1(H) != 0) {
        *mode = 1;
        double d;
        if ((st = hessian(s, s->x, H, 1, &d)) == PBD_OK && gsl_linalg_cholesky_decomp1(H) != 0) {
            *mode = 2;
            double tau = 1e-8 * (d > 0.0 ? d : 1.0);
            for (int k = 0; st == PBD_OK && k < 40; k++, tau *= 10.0) {
                if ((st = hessian(s, s->x, H, 1, &d)) != PBD_OK) break;
                for (size_t i = 0; i < H->size1; i++) *gsl_matrix_ptr(H, i, i) += tau;
                if (gsl_linalg_cholesky_decomp1(H) == 0) break;
                if (k == 39) st = pbd_error(PBD_ENUMERIC, "static equilibrium: no positive "
                                            "definite shift of the Hessian found");
            }
        }
    }
    if (st == PBD_OK) gsl_linalg_cholesky_solve(H, rhs, dx);
    gsl_set_error_handler(old);
    return st;
}

pbd_status pbd_exp_static_equilibrium(pbd_world *w, double tol, int max_iter, int *n_iter)
{
    static_work s = {.w = w};
    int a = 1;
    for (int si = 0; si < w->n_sets; si++) {
        const pbd_constraint_set *set = &w->sets[si];
        if (!set->type->eval || set->type->inequality)
            return pbd_error(PBD_EINVAL, "static equilibrium: set %d (%s): expected equality "
                             "constraints with a scalar C", si, set->type->name);
        for (int c = 0; c < set->count; c++)
            if (!(set->compliance[c] > 0.0))
                return pbd_error(PBD_EINVAL, "static equilibrium: set %d (%s): expected "
                                 "compliance > 0, found %g", si, set->type->name, set->compliance[c]);
        if (set->arity > a) a = set->arity;
    }
    s.free_of = malloc((size_t)(w->n > 0 ? w->n : 1) * sizeof *s.free_of);
    for (int i = 0; s.free_of && i < w->n; i++) s.free_of[i] = w->w[i] > 0.0 ? s.n_free++ : -1;
    size_t N = 3 * (size_t)(s.n_free > 0 ? s.n_free : 1);
    s.x = malloc(3 * (size_t)(w->n > 0 ? w->n : 1) * sizeof(double));
    s.g = malloc(N * sizeof(double));
    s.gp_all = malloc(N * sizeof(double));
    s.xl = malloc(3 * (size_t)a * sizeof(double));
    s.gp = malloc(3 * (size_t)a * sizeof(double));
    s.gm = malloc(3 * (size_t)a * sizeof(double));
    s.Hl = malloc(9 * (size_t)a * a * sizeof(double));
    double *xt = malloc(3 * (size_t)(w->n > 0 ? w->n : 1) * sizeof(double));
    gsl_matrix *H = gsl_matrix_alloc(N, N);
    gsl_vector *rhs = gsl_vector_alloc(N), *dx = gsl_vector_alloc(N);
    pbd_status st = PBD_OK;
    int it = 0;
    if (!s.free_of || !s.x || !s.g || !s.gp_all || !s.xl || !s.gp || !s.gm || !s.Hl || !xt || !H || !rhs || !dx) {
        st = pbd_error(PBD_ENOMEM, "static equilibrium: out of memory for %d particles", w->n);
        goto done;
    }
    memcpy(s.x, w->x, 3 * (size_t)w->n * sizeof(double));
    double E = energy(&s, s.x, s.g), scale = 0.0, X = 0.0, gn = INFINITY;
    for (int i = 0; i < w->n; i++) {
        if (w->w[i] > 0.0)
            for (int k = 0; k < 3; k++) scale = fmax(scale, fabs(w->def.gravity[k]) / w->w[i]);
        for (int k = 0; k < 3; k++) X = fmax(X, fabs(w->x[3 * i + k]));
    }
    if (!isfinite(E))
        st = pbd_error(PBD_ENUMERIC, "static equilibrium: a constraint is degenerate at the start");
    int converged = 0;
    for (; st == PBD_OK && it < max_iter; it++) {
        gn = 0.0;
        for (size_t k = 0; k < N; k++) gn = fmax(gn, fabs(s.g[k]));
        for (size_t k = 0; k < N; k++) gsl_vector_set(rhs, k, -s.g[k]);
        double diag_max = 0.0;
        int mode = 0;
        if ((st = direction(&s, H, rhs, dx, &diag_max, &mode)) != PBD_OK) break;
        /* |∇E|∞ against the largest weight, or its round-off floor (see the top) */
        double floor_g = 64.0 * DBL_EPSILON * (X > 0.0 ? X : 1.0) * diag_max;
        if (gn <= fmax(tol * (scale > 0.0 ? scale : 1.0), floor_g)) {
            converged = 1;
            break;
        }
        double slope = 0.0;
        for (size_t k = 0; k < N; k++) slope += s.g[k] * gsl_vector_get(dx, k);
        if (!(slope < 0.0)) {
            st = pbd_error(PBD_ENUMERIC, "static equilibrium: iteration %d: the Newton step "
                           "(%s Hessian) is not a descent direction of the energy (slope %.3e), "
                           "|grad E| = %.3e", it, mode == 0 ? "exact" : mode == 1 ? "projected" :
                           "shifted", slope, gn);
            break;
        }
        /* backtracking: the full step first; Armijo on E, or, near the minimum where E's
         * changes drop below its rounding, E within that rounding and |∇E| decreasing; a
         * step that turns a tet inside out is shortened */
        double t = 1.0, Et = NAN, gt = INFINITY;
        int ok = 0, inverted = 0;
        for (int ls = 0; ls < 60 && !ok; ls++, t *= 0.5) {
            memcpy(xt, s.x, 3 * (size_t)w->n * sizeof(double));
            for (int i = 0; i < w->n; i++) {
                int f = s.free_of[i];
                if (f >= 0)
                    for (int k = 0; k < 3; k++) xt[3 * i + k] += t * gsl_vector_get(dx, 3 * f + k);
            }
            if (inverts(w, s.x, xt)) {
                inverted++;
                continue;
            }
            Et = energy(&s, xt, s.gp_all);
            gt = 0.0;
            for (size_t k = 0; isfinite(Et) && k < N; k++) gt = fmax(gt, fabs(s.gp_all[k]));
            ok = isfinite(Et) && (Et <= E + 1e-4 * t * slope ||
                                  (Et <= E + 1e-12 * fabs(E) && gt < gn));
        }
        if (!ok) {
            st = pbd_error(PBD_ENUMERIC, "static equilibrium: iteration %d: expected the energy "
                           "to decrease along the Newton direction, |grad E| = %.3e (round-off "
                           "floor %.3e)%s", it, gn, floor_g, inverted ? "; shorter steps turned "
                           "a tet inside out (J <= 0)" : "");
            break;
        }
        memcpy(s.x, xt, 3 * (size_t)w->n * sizeof(double));
        memcpy(s.g, s.gp_all, N * sizeof(double));
        E = Et;
    }
    if (st == PBD_OK && !converged)
        st = pbd_error(PBD_ENUMERIC, "static equilibrium: expected convergence within %d Newton "
                       "iterations, |grad E| = %.3e", max_iter, gn);
    if (st == PBD_OK) {
        memcpy(w->x, s.x, 3 * (size_t)w->n * sizeof(double));
        memcpy(w->p, s.x, 3 * (size_t)w->n * sizeof(double));
        memset(w->v, 0, 3 * (size_t)w->n * sizeof(double));
    }
done:
    if (n_iter) *n_iter = it;
    free(s.free_of);
    free(s.x);
    free(s.g);
    free(s.gp_all);
    free(s.xl);
    free(s.gp);
    free(s.gm);
    free(s.Hl);
    free(xt);
    if (H) gsl_matrix_free(H);
    if (rhs) gsl_vector_free(rhs);
    if (dx) gsl_vector_free(dx);
    return st;
}
