/* The static equilibrium of a world, the reference the material experiments compare XPBD's
 * settled state with: the minimum over the free particles of
 *   E(x) = Σ_c C_c(x)² / (2 α_c) − Σ_i m_i g·x_i,
 * XPBD's elastic potential (XPBD Eq. 3) plus gravity, by Newton's method with a backtracking
 * line search on E. It is the v = 0 fixed point of XPBD Eq. 8–9 (M(x − x̃) = 0, λ = −C/α̃).
 * Written in x alone, the square root of the energy constraints C = √(2ΨV) (fem.h) cancels:
 * ½C²/α = ΨV is smooth through C = 0, where the KKT form of the Newton reference
 * (pbd_newton_step) meets ∇C's kink at rest: linear convergence, then a stall. The Hessian
 * of each constraint's ½C²/α is taken by central differences of its gradient (C/α)∇C (step
 * 1e-6 of the constraint's size), the dense system by GSL's Cholesky (LU when it is not
 * positive definite). Every set needs α > 0 and a scalar C; fixed particles stay. */
#include "pbd_drivers.h"

#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct static_work {
    pbd_world *w;
    int n_free;
    int32_t *free_of;
    double *x, *g, *xl, *gp, *gm;
    double *gp_all; /* the gradient at a trial point */
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

static pbd_status hessian(static_work *s, const double *x, gsl_matrix *H)
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
                int fc = s->free_of[idx[col / 3]];
                if (fc < 0) continue;
                double keep = s->xl[col];
                s->xl[col] = keep + h;
                int bad = local_grad(set, c, s->xl, s->gp);
                s->xl[col] = keep - h;
                bad |= local_grad(set, c, s->xl, s->gm);
                s->xl[col] = keep;
                if (bad)
                    return pbd_error(PBD_ENUMERIC, "static equilibrium: constraint %d of set %s is "
                                     "degenerate near the iterate", c, set->type->name);
                for (int row = 0; row < a3; row++) {
                    int fr = s->free_of[idx[row / 3]];
                    if (fr < 0) continue;
                    double v = (s->gp[row] - s->gm[row]) / (2.0 * h);
                    /* symmetrised: half here, half from the transposed entry */
                    *gsl_matrix_ptr(H, 3 * fr + row % 3, 3 * fc + col % 3) += 0.5 * v;
                    *gsl_matrix_ptr(H, 3 * fc + col % 3, 3 * fr + row % 3) += 0.5 * v;
                }
            }
        }
    }
    return PBD_OK;
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
    double *xt = malloc(3 * (size_t)(w->n > 0 ? w->n : 1) * sizeof(double));
    gsl_matrix *H = gsl_matrix_alloc(N, N);
    gsl_vector *rhs = gsl_vector_alloc(N), *dx = gsl_vector_alloc(N);
    gsl_permutation *perm = gsl_permutation_alloc(N);
    pbd_status st = PBD_OK;
    int it = 0;
    if (!s.free_of || !s.x || !s.g || !s.gp_all || !s.xl || !s.gp || !s.gm || !xt || !H || !rhs || !dx || !perm) {
        st = pbd_error(PBD_ENOMEM, "static equilibrium: out of memory for %d particles", w->n);
        goto done;
    }
    memcpy(s.x, w->x, 3 * (size_t)w->n * sizeof(double));
    double E = energy(&s, s.x, s.g);
    for (; st == PBD_OK && it < max_iter; it++) {
        double gn = 0.0, scale = 0.0;
        for (size_t k = 0; k < N; k++) gn = fmax(gn, fabs(s.g[k]));
        for (int i = 0; i < w->n; i++)
            if (w->w[i] > 0.0) scale = fmax(scale, fabs(w->def.gravity[1]) / w->w[i]);
        if (!isfinite(E)) {
            st = pbd_error(PBD_ENUMERIC, "static equilibrium: a constraint is degenerate at the "
                           "start");
            break;
        }
        if (gn <= tol * (scale > 0.0 ? scale : 1.0)) break; /* |∇E|∞ against the largest weight */
        if ((st = hessian(&s, s.x, H)) != PBD_OK) break;
        for (size_t k = 0; k < N; k++) gsl_vector_set(rhs, k, -s.g[k]);
        gsl_error_handler_t *old = gsl_set_error_handler_off();
        int chol = gsl_linalg_cholesky_decomp1(H);
        if (chol == 0) {
            gsl_linalg_cholesky_solve(H, rhs, dx);
        } else { /* not positive definite here (buckling, inversion): LU on a fresh Hessian */
            int signum;
            hessian(&s, s.x, H);
            gsl_linalg_LU_decomp(H, perm, &signum);
            gsl_linalg_LU_solve(H, perm, rhs, dx);
        }
        gsl_set_error_handler(old);
        /* backtracking: the full step first; accepted when E decreases, or, near the minimum
         * where E's changes drop below its rounding, when E stays within that rounding and
         * |∇E| decreases */
        double t = 1.0, Et = NAN, gt = INFINITY;
        int ok = 0;
        for (int ls = 0; ls < 40 && !ok; ls++, t *= 0.5) {
            memcpy(xt, s.x, 3 * (size_t)w->n * sizeof(double));
            for (int i = 0; i < w->n; i++) {
                int f = s.free_of[i];
                if (f >= 0)
                    for (int k = 0; k < 3; k++) xt[3 * i + k] += t * gsl_vector_get(dx, 3 * f + k);
            }
            Et = energy(&s, xt, s.gp_all);
            gt = 0.0;
            for (size_t k = 0; isfinite(Et) && k < N; k++) gt = fmax(gt, fabs(s.gp_all[k]));
            ok = isfinite(Et) && (Et < E || (Et <= E + 1e-12 * fabs(E) && gt < gn));
        }
        if (!ok) {
            st = pbd_error(PBD_ENUMERIC, "static equilibrium: iteration %d: expected the energy "
                           "to decrease along the Newton direction, |grad E| = %.3e", it, gn);
            break;
        }
        memcpy(s.x, xt, 3 * (size_t)w->n * sizeof(double));
        memcpy(s.g, s.gp_all, N * sizeof(double));
        E = Et;
    }
    if (st == PBD_OK && it >= max_iter)
        st = pbd_error(PBD_ENUMERIC, "static equilibrium: expected convergence within %d Newton "
                       "iterations", max_iter);
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
    free(xt);
    if (H) gsl_matrix_free(H);
    if (rhs) gsl_vector_free(rhs);
    if (dx) gsl_vector_free(dx);
    if (perm) gsl_permutation_free(perm);
    return st;
}
