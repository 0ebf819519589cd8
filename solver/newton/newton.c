/* Newton reference: the implicit step that XPBD approximates, solved exactly.
 *
 * XPBD (Macklin et al. 2016) Eq. 8–9, with x̃ = x_n + Δt v_n + Δt² M⁻¹ f_ext:
 *   g(x, λ) = M(x - x̃) - ∇C(x)ᵀ λ = 0
 *   h(x, λ) = C(x) + α̃ λ = 0,            α̃ = α / Δt².
 * Newton's method on (x, λ) (XPBD Eq. 10–11, but with the exact Jacobian):
 *   [ K     -∇Cᵀ ] [Δx]     [g]
 *   [ ∇C     α̃   ] [Δλ] = - [h],     K = M - Σ_c λ_c ∇²C_c,
 * from x = x̃, λ = 0 (XPBD Algorithm 1's prediction; a warm start from the previous step's λ
 * was tried and is less robust: its first Jacobian carries the indefinite geometric
 * stiffness of the bent hinges, λ = 0 gives K = M). The geometric stiffness ∇²C_c is not
 * neglected: the types' analytic Hessians, else central differences of the analytic gradient
 * (solver/newton/newton_system.c). The linear systems go to SuiteSparse or, as the test oracle, to
 * GSL's dense LU (solver/newton/newton_linear.c). Fixed particles (w = 0) are eliminated: they sit
 * where the step would put them (x + Δt v, or the attachment's target). A backtracking line
 * search on ||(g, h)||_2 guards the first iterations; near the solution full steps are taken
 * and convergence is quadratic. Energy constraints C = √(2ΨV) are solved in their potential
 * form, with a line search on implicit Euler's incremental potential when every constraint
 * is one (solver/newton/newton_merit.c). Equality constraints only (solver/README.md). */
#include "newton_private.h"
#include "solver/method.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

/* ||(g, h)||'s rounding floor: this many ε × the root sum of squares of its terms */
#define NEWTON_ROUNDING 4.0
/* Armijo's constant c in G(x + t dx) <= G(x) + c t ∇G·dx (line_search) */
#define NEWTON_ARMIJO 1e-4

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void pbd_newton_free(struct pbd_newton_workspace *nw)
{
    if (!nw) return;
    newton_system_free(&nw->sys);
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
    free(nw->denom);
    free(nw->grad);
    free(nw->r);
    free(nw->dx);
    free(nw->dlambda);
    free(nw->xl);
    free(nw->gp);
    free(nw->gm);
    free(nw->H);
    free(nw->set_stats);
    free(nw->min_neg);
    free(nw->escape);
    free(nw->min_Hx);
    free(nw);
}

/* The workspace for this world's sizes; reused (with its pattern and symbolic
 * factorisation) while they do not change. */
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
    nw->escape = malloc(n3 * sizeof(double));
    nw->lambda = malloc(mm * sizeof(double));
    nw->lambda_try = malloc(mm * sizeof(double));
    nw->alpha_tilde = malloc(mm * sizeof(double));
    nw->C = malloc(mm * sizeof(double));
    nw->denom = malloc(mm * sizeof(double));
    nw->dlambda = malloc(mm * sizeof(double));
    nw->dx = malloc(n3 * sizeof(double));
    nw->grad = malloc((n_grad > 0 ? (size_t)n_grad : 1) * sizeof(double));
    nw->r = malloc((N > 0 ? (size_t)N : 1) * sizeof(double));
    nw->xl = malloc(3 * (size_t)a * sizeof(double));
    nw->gp = malloc(3 * (size_t)a * sizeof(double));
    nw->gm = malloc(3 * (size_t)a * sizeof(double));
    nw->H = malloc(9 * (size_t)a * a * sizeof(double));
    nw->set_stats = malloc(3 * (size_t)(w->n_sets > 0 ? w->n_sets : 1) * sizeof(double));
    nw->min_neg = malloc((n_free > 0 ? (size_t)n_free : 1) * sizeof(double));
    if (!nw->min_neg || !nw->escape || !nw->free_of || !nw->set_c || !nw->set_g || !nw->xt ||
        !nw->x || !nw->x_try ||
        !nw->lambda || !nw->lambda_try || !nw->alpha_tilde || !nw->C || !nw->denom || !nw->dlambda ||
        !nw->dx || !nw->grad || !nw->r || !nw->xl || !nw->gp || !nw->gm || !nw->H || !nw->set_stats) {
        pbd_newton_free(nw);
        vs->newton = NULL;
        return pbd_error(PBD_ENOMEM, "newton: out of memory for %d unknowns", N);
    }
    *out = nw;
    return PBD_OK;
}

size_t newton_workspace_bytes(const struct pbd_newton_workspace *nw)
{
    size_t a = (size_t)nw->arity, n3 = 3 * (size_t)nw->n, m = (size_t)nw->m;
    return sizeof *nw + newton_system_bytes(&nw->sys) - nw->sys.factor_bytes +
           sizeof(double) * (4 * n3 + 4 * m + (size_t)nw->n_grad + (size_t)nw->N + n3 + m +
                             9 * a + 9 * a * a + (size_t)nw->n_free) +
           /* the minimum check's ∇²G on the system's pattern (newton_minimum.c) */
           sizeof(double) * (size_t)nw->sys.nnz +
           sizeof(int32_t) * ((size_t)nw->n + 2 * (size_t)(nw->n_sets + 1));
}

/* Evaluate C and ∇C of every constraint at x, then r = (g, h); returns ||r||_2, or -1 on a
 * non-finite value (message recorded). A degenerate constraint (PBD_EVAL_DEGENERATE) gets
 * no gradient at this iterate, as XPBD skips it; its h = C + α̃λ still counts. A constraint
 * in potential form (newton_merit.c) gets λ = −C/α̃ here, so its h is 0. */
static double residual(pbd_world *w, struct pbd_newton_workspace *nw, const double *x,
                       double *lambda)
{
    int nf3 = 3 * nw->n_free;
    double mag = 0.0; /* Σ of the squared magnitudes of the terms summed into r: their
                       * roundings, independent, add up to about ε √mag */
    double mag_g = 0.0, mag_x = 0.0, hx2 = 0.0; /* the same for g alone and for h/|∇C| */
    double mag_G = 0.0; /* G's rounding / ε: each term's change when x moves by ε|x| */
    for (int f = 0; f < nw->N; f++) nw->r[f] = 0.0;
    for (int i = 0; i < w->n; i++) {
        int f = nw->free_of[i];
        if (f < 0) continue;
        double m = 1.0 / w->w[i];
        for (int k = 0; k < 3; k++) {
            nw->r[3 * f + k] = m * (x[3 * i + k] - nw->xt[3 * i + k]);
            mag_g += pow(m * x[3 * i + k], 2) + pow(m * nw->xt[3 * i + k], 2);
            mag_G += fabs(nw->r[3 * f + k]) * (fabs(x[3 * i + k]) + fabs(nw->xt[3 * i + k]));
        }
    }
    double max_c = 0.0, l2_c = 0.0, l2_h = 0.0;
    int skipped = 0;
    for (int s = 0; s < w->n_sets; s++) {
        pbd_constraint_set *set = &w->sets[s];
        int a3 = 3 * set->arity;
        double *ss = nw->set_stats + 3 * s;
        ss[0] = ss[1] = ss[2] = 0.0;
        for (int c = 0; c < set->count; c++) {
            int gc = nw->set_c[s] + c;
            double *grad = nw->grad + nw->set_g[s] + (size_t)a3 * c;
            pbd_eval_input in;
            pbd_gather(w, set, c, x, &in);
            int st = set->type->eval(&in, &nw->C[gc], grad);
            int finite = isfinite(nw->C[gc]);
            for (int k = 0; k < a3 && st == PBD_EVAL_OK; k++) finite &= isfinite(grad[k]) != 0;
            if (!finite) {
                pbd_error(PBD_ENUMERIC, "newton: constraint %d of set %d (%s): expected finite C "
                          "and gradient at the iterate, found a non-finite value", c, s,
                          set->type->name);
                return -1.0;
            }
            if (st != PBD_EVAL_OK) {
                for (int k = 0; k < a3; k++) grad[k] = 0.0;
                skipped++;
            }
            if (newton_row_potential(nw, set, c)) lambda[gc] = -nw->C[gc] / nw->alpha_tilde[gc];
            const int32_t *idx = set->idx + (size_t)c * set->arity;
            for (int j = 0; j < set->arity; j++) {
                int f = nw->free_of[idx[j]];
                if (f < 0) continue;
                for (int k = 0; k < 3; k++) {
                    nw->r[3 * f + k] -= lambda[gc] * grad[3 * j + k];
                    mag_g += pow(lambda[gc] * grad[3 * j + k], 2);
                }
            }
            double h = nw->C[gc] + nw->alpha_tilde[gc] * lambda[gc];
            double hh = pow(nw->C[gc], 2) + pow(nw->alpha_tilde[gc] * lambda[gc], 2);
            mag += hh;
            double gg = 0.0, xm = 0.0;
            for (int k = 0; k < a3; k++) {
                gg += grad[k] * grad[k];
                xm = fmax(xm, fabs(x[3 * (size_t)idx[k / 3] + k % 3]));
            }
            if (newton_row_potential(nw, set, c))
                /* its force C∇C/α̃ moves by ε|x| × |∇C|²/α̃ */
                mag_g += pow(xm * gg / nw->alpha_tilde[gc], 2);
            if (nw->alpha_tilde[gc] > 0.0)
                /* its ½C²/α̃ in G by ε|x| × |C∇C|/α̃ and by its own rounding (a KKT row's too:
                 * G is the line search's merit wherever every row is compliant) */
                mag_G += fabs(nw->C[gc]) * (xm * sqrt(gg) + 0.5 * fabs(nw->C[gc])) /
                         nw->alpha_tilde[gc];
            nw->r[nf3 + gc] = h;
            /* h as a length, h/|∇C| (a degenerate row, ∇C = 0: h as it is), and its rounding:
             * C's from the positions' (ε|x| |∇C|) and the terms' own */
            const double g2 = gg > 0.0 ? gg : 1.0;
            hx2 += h * h / g2;
            mag_x += hh / g2 + xm * xm;
            max_c = fmax(max_c, fabs(nw->C[gc]));
            l2_c += nw->C[gc] * nw->C[gc];
            l2_h += h * h;
            ss[0] = fmax(ss[0], fabs(nw->C[gc]));
            ss[1] += nw->C[gc] * nw->C[gc];
            ss[2] += h * h;
        }
        ss[1] = sqrt(ss[1]);
        ss[2] = sqrt(ss[2]);
    }
    nw->max_c = max_c;
    nw->l2_c = sqrt(l2_c);
    nw->l2_h = sqrt(l2_h);
    nw->skipped = skipped;
    mag += mag_g;
    nw->floor = NEWTON_ROUNDING * DBL_EPSILON * sqrt(mag);
    nw->floor_merit = NEWTON_ROUNDING * DBL_EPSILON * mag_G;
    double sum = 0.0;
    for (int f = 0; f < nf3; f++) sum += nw->r[f] * nw->r[f];
    nw->g_norm = sqrt(sum);
    nw->hx_norm = sqrt(hx2);
    nw->floor_g = NEWTON_ROUNDING * DBL_EPSILON * sqrt(mag_g);
    nw->floor_x = NEWTON_ROUNDING * DBL_EPSILON * sqrt(mag_x);
    for (int f = nf3; f < nw->N; f++) sum += nw->r[f] * nw->r[f];
    if (!isfinite(sum)) {
        pbd_error(PBD_ENUMERIC, "newton: expected a finite residual ||(g, h)||, found %g (a "
                  "non-finite position, velocity or compliance)", sum);
        return -1.0;
    }
    return sqrt(sum);
}

/* x̃ for the free particles (XPBD Eq. 8's inertial target with f_ext = m g), and the fixed
 * ones where the step puts them; targets[] gets the attachments' targets at t + h. */
static void predict(pbd_world *w, struct pbd_newton_workspace *nw, double h, double *targets)
{
    int f = 0;
    for (int i = 0; i < w->n; i++) {
        int is_free = w->w[i] > 0.0;
        nw->free_of[i] = is_free ? f++ : -1;
        for (int k = 0; k < 3; k++)
            nw->xt[3 * i + k] = w->x[3 * i + k] + h * w->v[3 * i + k] +
                                (is_free ? h * h * w->def.gravity[k] : 0.0);
    }
    for (int a = 0; a < w->n_attach; a++) {
        double *t = targets ? targets + 3 * a : NULL, local[3];
        if (!t) t = local;
        for (int k = 0; k < 3; k++) t[k] = w->attach_target[3 * a + k];
        if (w->attach_motion)
            w->attach_motion(a, w->time + h, w->attach_anchor + 3 * a, t, w->attach_user);
        for (int k = 0; k < 3; k++) nw->xt[3 * (size_t)w->attach_idx[a] + k] = t[k];
    }
}

pbd_status pbd_newton_check(const pbd_world *w)
{
    return newton_check_world(w, w->def.newton_max_iterations, w->def.newton_tol);
}

/* The line search descends G (see solve): where G exists and every row is in potential
 * form, or in the step's second solve, after the first ended at a saddle. */
/* solves of one step after its first (check_minimum): from x̃, then from each saddle along
 * its negative curvature; G falls from one to the next, so none repeats */
#define NEWTON_SOLVES 8

static int descend_G(int on_G, int potential, int second)
{
    return on_G && (potential || second);
}

/* Backtracking along (dx, dλ) from the iterate (nw->r, nw->C at it), the full step first:
 * where the step's objective G exists (`on_G`: every row compliant, newton_objective), on G
 * with Armijo's condition G(x + t dx) <= G(x) + c t ∇G·dx, c = NEWTON_ARMIJO (Nocedal &
 * Wright 2006, Eq. 3.4) — near the minimum, where G's changes drop below its rounding, G
 * within that rounding and ||(g, h)|| decreasing; where a hard row (α = 0) leaves no G, on
 * ||(g, h)|| (sufficient decrease). A step that turns a tet inside out is shortened. Leaves
 * the trial's residual in nw (the accepted one) and returns its ||(g, h)||, or -1 when no
 * step length works or (KKT rows, `potential` 0) dx is no descent direction of G. */
static double line_search(pbd_world *w, struct pbd_newton_workspace *nw, double norm,
                          int on_G, int potential, double *merit, int *inverted)
{
    *inverted = 0;
    double slope = 0.0;
    if (on_G) {
        slope = newton_objective_slope(w, nw);
        if (!(slope < 0.0) && !potential) return -1.0;
        if (!(slope < 0.0)) { /* no descent (a poor solve): M⁻¹-scaled steepest descent */
            slope = 0.0;
            for (int i = 0; i < w->n; i++) {
                int f = nw->free_of[i];
                for (int k = 0; f >= 0 && k < 3; k++) {
                    nw->dx[3 * f + k] = -w->w[i] * nw->r[3 * f + k];
                    slope -= w->w[i] * nw->r[3 * f + k] * nw->r[3 * f + k];
                }
            }
        }
    }
    double t = 1.0;
    for (int ls = 0; ls < 40; ls++, t *= 0.5) {
        if (ls) nw->info.line_search_halvings++;
        for (int i = 0; i < 3 * w->n; i++) nw->x_try[i] = nw->x[i];
        for (int i = 0; i < w->n; i++) {
            int f = nw->free_of[i];
            if (f >= 0)
                for (int k = 0; k < 3; k++) nw->x_try[3 * i + k] += t * nw->dx[3 * f + k];
        }
        if (newton_inverts(w, nw->x, nw->x_try)) {
            ++*inverted;
            continue;
        }
        for (int c = 0; c < nw->m; c++) nw->lambda_try[c] = nw->lambda[c] + t * nw->dlambda[c];
        double trial = residual(w, nw, nw->x_try, nw->lambda_try);
        if (!(trial >= 0.0)) continue;
        if (!on_G) {
            if (trial < (1.0 - 1e-4 * t) * norm) return trial;
            continue;
        }
        double G = newton_merit(w, nw, nw->x_try);
        /* G's rounding (residual()): far above ε G for stiff elements; under 1e-12 G a step
         * taking ‖g‖ 6.3e-9 → 2e-10 was refused (solver/newton/README.md "Newton reference") */
        const double G_round = fmax(nw->floor_merit, 1e-12 * fabs(*merit));
        if (G <= *merit + NEWTON_ARMIJO * t * slope || (G <= *merit + G_round && trial < norm)) {
            double *fs = nw->info.first_step;
            if (isnan(fs[0])) fs[0] = *merit, fs[1] = slope, fs[2] = t, fs[3] = G;
            *merit = G;
            return trial;
        }
    }
    return -1.0;
}

/* Assemble and solve the Newton system at the iterate into (dx, dλ). */
static pbd_status newton_direction(pbd_world *w, struct pbd_newton_workspace *nw, int it)
{
    double t0 = now_seconds();
    pbd_status st = newton_system_assemble(w, nw);
    if (st != PBD_OK) return st;
    double t1 = now_seconds();
    st = newton_linear_solve(&nw->sys, w->def.newton_solver, 1, it);
    nw->info.seconds_assemble += t1 - t0;
    nw->info.seconds_solve += now_seconds() - t1;
    if (st == PBD_OK) newton_system_direction(w, nw);
    return st;
}

/* Per-iterate values for the world's iteration log (any pointer may be NULL). */
typedef struct newton_log {
    double *residual, *max_c, *l2_c, *l2_h;
    double *sets; /* n_sets × 3 per iterate: max |C|, ||C||_2, ||h||_2 of each set */
    int n_sets;
} newton_log;

static void record(const struct pbd_newton_workspace *nw, newton_log *lg, int k, double norm)
{
    if (!lg) return;
    if (lg->sets)
        for (int i = 0; i < 3 * lg->n_sets; i++)
            lg->sets[(size_t)k * lg->n_sets * 3 + i] = nw->set_stats[i];
    if (lg->residual) lg->residual[k] = norm;
    if (lg->max_c) lg->max_c[k] = nw->max_c;
    if (lg->l2_c) lg->l2_c[k] = nw->l2_c;
    if (lg->l2_h) lg->l2_h[k] = nw->l2_h;
}

/* The KKT form failed from both starts (Stable Neo-Hookean tet beam, E >= 1e8 Pa at 60 Hz). */
#define KKT_STALL_HINT "; from x~ and from x: shorter steps may converge (the Stable Neo-Hookean " \
                       "tet beam at E >= 1e8 Pa did with --substeps=4 or more; " \
                       "solver/newton/README.md \"Newton reference\")"

/* What a step of size h needs before its first iteration: the checks, the workspace (*out,
 * also when a later part fails), the prediction, the sets' offsets and α̃, and the linear
 * system's pattern and symbolic analysis with its memory checked (kept while the topology
 * and the free particles are: newton_system_prepare). */
static pbd_status setup(pbd_world *w, double h, int max_iter, double tol, double *targets,
                        struct pbd_newton_workspace **out)
{
    pbd_status st = newton_check_world(w, max_iter, tol);
    if (st != PBD_OK) return st;
    struct pbd_newton_workspace *nw = NULL;
    if ((st = workspace(w, &nw)) != PBD_OK) return st;
    *out = nw;
    nw->info = (pbd_newton_info){.first_step = {NAN, NAN, NAN, NAN}};
    predict(w, nw, h, targets);
    nw->set_c[0] = nw->set_g[0] = 0;
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        nw->set_c[s + 1] = nw->set_c[s] + set->count;
        nw->set_g[s + 1] = nw->set_g[s] + 3 * set->count * set->arity;
        for (int c = 0; c < set->count; c++)
            nw->alpha_tilde[nw->set_c[s] + c] = set->compliance[c] / (h * h); /* α̃ = α/Δt² */
    }
    return newton_system_prepare(w, nw, w->def.newton_solver);
}

pbd_status pbd_newton_prepare(pbd_world *w, size_t *bytes)
{
    struct pbd_newton_workspace *nw = NULL;
    double h = pbd_method_of(&w->def)->reference ? w->def.dt / w->def.substeps : w->def.dt;
    pbd_status st = setup(w, h, w->def.newton_max_iterations, w->def.newton_tol, NULL, &nw);
    if (bytes) *bytes = nw ? nw->estimate_bytes : 0;
    return st;
}

/* G at x + t d (d in nw->dx) for t = t0, 2t0, 4t0, ... until G rises past its lowest point
 * beyond G's rounding; a lower G than *best is kept with its t. */
static void probe_along(pbd_world *w, struct pbd_newton_workspace *nw, double t0, double G,
                        double G_round, double *best, double *t_best)
{
    double low = G;
    for (int k = 0; k < 60; k++, t0 *= 2.0) {
        for (int i = 0; i < 3 * w->n; i++) nw->x_try[i] = nw->x[i];
        for (int i = 0; i < w->n; i++) {
            const int f = nw->free_of[i];
            for (int q = 0; f >= 0 && q < 3; q++) nw->x_try[3 * i + q] += t0 * nw->dx[3 * f + q];
        }
        for (int c = 0; c < nw->m; c++) nw->lambda_try[c] = nw->lambda[c];
        if (residual(w, nw, nw->x_try, nw->lambda_try) < 0.0) continue;
        const double Gt = newton_merit(w, nw, nw->x_try);
        if (Gt < low) low = Gt;
        else if (low < G - G_round) break; /* past the lowest point along d */
        if (Gt < *best) *best = Gt, *t_best = t0;
    }
}

/* The converged point checked against a saddle (newton_minimum.c): a minimum of G is
 * accepted, a saddle refused with its evidence — ∇²G's negative pivots, the curvature along
 * the most negative one, and G along that direction (a descent probe: G(x + t d) for t
 * doubling from where ½t²|dᵀHd| is 4 × G's rounding). */
static pbd_status check_minimum(pbd_world *w, struct pbd_newton_workspace *nw, double h,
                                double tol, int may_retry, int *retry)
{
    *retry = 0;
    pbd_newton_info *info = &nw->info;
    if (residual(w, nw, nw->x, nw->lambda) < 0.0) return PBD_ENUMERIC;
    const double G = newton_merit(w, nw, nw->x), G_round = fmax(nw->floor_merit, 1e-12 * G);
    info->objective = G / (h * h);
    newton_minimum_report rep;
    info->minimum = newton_minimum(w, nw, &rep);
    if (info->minimum != PBD_NEWTON_MINIMUM_SADDLE) return PBD_OK;
    info->negative_pivots = rep.negative_pivots;
    info->curvature = rep.curvature / (h * h);
    /* both ways along d (an asymmetric saddle falls further on one side), t doubling */
    const double t0 = sqrt(8.0 * G_round / fabs(rep.curvature));
    double best = G, t_best = 0.0;
    probe_along(w, nw, t0, G, G_round, &best, &t_best);
    probe_along(w, nw, -t0, G, G_round, &best, &t_best);
    /* what the stop resolves of G: the gradient it accepts, tol S_g, over the step's length
     * S_x (newton_stop.c) — a saddle that lowers G by less is a minimum to that precision */
    const double G_stop = fmax(G_round, tol * nw->scale_g * nw->scale_x);
    if (!(best < G - G_stop)) {
        /* negative curvature, but no point along it lowers G beyond what the stop resolves
         * (the hanging cloth's compressed rows, whose buckling lowers G by 1e-8 of it):
         * accepted as marginal */
        info->minimum = PBD_NEWTON_MINIMUM_MARGINAL;
        return PBD_OK;
    }
    if (may_retry) {
        /* nw->escape: where G is lowest along d, the start of a later solve */
        for (int i = 0; i < 3 * w->n; i++) nw->escape[i] = nw->x[i];
        for (int i = 0; i < w->n; i++) {
            const int f = nw->free_of[i];
            for (int q = 0; f >= 0 && q < 3; q++) nw->escape[3 * i + q] += t_best * nw->dx[3 * f + q];
        }
        *retry = 1;
        return PBD_OK;
    }
    char probe[160] = "";
    if (best < G - G_round)
        snprintf(probe, sizeof probe, "; along it G falls to %.12g J at %.3e m", best / (h * h),
                 t_best);
    return pbd_error(PBD_ENUMERIC, "newton: step %ld: expected a minimum of G, found a saddle "
                     "at the end of each of %d solves; the last: G = %.6g J where grad G = 0, but its Hessian has %d negative pivots "
                     "(LDL^T) and curvature d^T H d/|d|^2 = %.3e J/m^2 (rounding %.1e) along "
                     "the most negative one%s (solver/newton/README.md \"Newton reference\")",
                     w->step_count + 1, info->escapes + 1, G / (h * h), rep.negative_pivots,
                     info->curvature,
                     rep.curvature_rounding / (h * h), probe);
}

/* One implicit step of size h from the world's state into nw->x, nw->lambda. */
static pbd_status solve(pbd_world *w, double h, int max_iter, double tol, double *residuals,
                        int *n_iter, struct pbd_newton_workspace **out, double *targets,
                        newton_log *lg)
{
    double t_start = now_seconds();
    if (n_iter) *n_iter = 0;
    struct pbd_newton_workspace *nw = NULL;
    pbd_status st = setup(w, h, max_iter, tol, targets, &nw);
    if (nw) *out = nw;
    if (st != PBD_OK) return st;
    pbd_newton_info *info = &nw->info;
    newton_step_scales(w, nw);
    nw->rows_potential = 0;
    int potential = newton_all_potential(w, nw); /* every row in potential form */
    /* G exists (every row compliant): the converged point is checked for its minimum. The
     * line search descends G where every row is in potential form and, once the step has
     * met a saddle, from there on; else it is on ||(g, h)||, whose KKT steps keep Newton's
     * quadratic rate on stiff rows (G's Armijo condition would cut them short: the curved
     * constraint's second-order error, Maratos' effect) */
    const int on_G = newton_objective(w);
    /* The KKT form's line search on ||(g, h)|| can stall in a local minimum of that norm
     * (Stable Neo-Hookean tet beam, E >= 3e5 Pa at 60 Hz, from x̃): such a step is solved
     * once more from the step's start x instead of x̃ — the same equations, another start
     * (solver/newton/README.md "Newton reference"). */
    int restarted = 0;
    int second = 0; /* the step solved anew descending G, from x̃ (1) or from the escape (2+) */
    int earlier = 0; /* iterations of the solves before */
    double norm, merit;
    nw->sys.krylov_used = nw->sys.direct_only = 0;
    int at_rounding = 0; /* stopped where the Newton step is below the positions' rounding */
restart:
    for (int i = 0; i < 3 * w->n; i++)
        nw->x[i] = second >= 2 ? nw->escape[i] : restarted ? w->x[i] : nw->xt[i];
    for (int c = 0; c < nw->m; c++) nw->lambda[c] = 0.0;
    norm = residual(w, nw, nw->x, nw->lambda);
    if (norm < 0.0) return PBD_ENUMERIC;
    merit = on_G ? newton_merit(w, nw, nw->x) : 0.0;
    nw->norm0 = norm;
    nw->rel0 = newton_relative_residual(nw);
    if (residuals) residuals[0] = norm;
    record(nw, lg, 0, norm);
    int it = 0, full_step = 0; /* the last iteration took the whole Newton step */
    /* the tolerance relative to the step's scales, or the residual's rounding floor when
     * that is above it (a stiff material: E = 1e11 Pa stvk stalled at 1.9e-9 against an
     * absolute tol 1e-10) */
    while (!newton_converged(nw, tol) && it < max_iter) {
        if (pbd_stop_requested())
            return pbd_error(PBD_EINTR, "newton: step %ld abandoned at iteration %d on a stop "
                             "request", w->step_count + 1, it);
        nw->norm = norm;
        nw->rel = newton_relative_residual(nw);
        nw->sys.stop_g = fmax(tol * nw->scale_g, nw->floor_g);
        /* potential form: the per-element projection (a descent direction) while the line
         * search shortens the steps, then, once a whole step was taken, the exact Hessian
         * (quadratic convergence where the step's answer has elements of negative curvature,
         * which the projection would turn into a linear rate: 0.81 per iteration from XPBD's
         * stretched Stable Neo-Hookean beam), back to the projection when that is no descent
         * direction or its line search fails */
        nw->exact_potential = potential && full_step;
        int halvings = info->line_search_halvings;
        if ((st = newton_direction(w, nw, it)) != PBD_OK) return st;
        if (newton_step_below_rounding(w, nw) &&
            nw->hx_norm <= fmax(tol * nw->scale_x, nw->floor_x)) {
            /* the whole step moves no position beyond its last bits: as exact as doubles
             * hold it, whatever the floor estimate (‖g‖ 5.7e-16 against 6.5e-17) */
            at_rounding = 1;
            break;
        }
        int inverted = 0;
        double trial = -1.0;
        if (descend_G(on_G, potential, second) && !potential && !(newton_objective_slope(w, nw) < 0.0)) {
            /* modified Newton: the KKT direction is no descent direction of G (the iterate's
             * λ makes the geometric stiffness −λ∇²C indefinite, or δ ≠ 0 tilts the right-hand
             * side away from −∇G). The step goes on from this iterate with every row in its
             * potential form (newton_merit.c): its matrix M + Σ ∇²(½C²/α̃)⁺, each element's
             * Hessian projected to semi-definite, is positive definite and its right-hand side
             * is −∇G, so its direction descends G */
            nw->rows_potential = 1;
            potential = newton_all_potential(w, nw);
            if ((norm = residual(w, nw, nw->x, nw->lambda)) < 0.0) return PBD_ENUMERIC;
            merit = newton_merit(w, nw, nw->x);
            full_step = 0;
            info->modified++;
            continue;
        }
        if (!potential || newton_slope(nw) < 0.0)
            trial = line_search(w, nw, norm, descend_G(on_G, potential, second), potential, &merit, &inverted);
        if (trial < 0.0 && nw->exact_potential == 1) {
            nw->exact_potential = 0;
            if (residual(w, nw, nw->x, nw->lambda) < 0.0) return PBD_ENUMERIC; /* the iterate's */
            if ((st = newton_direction(w, nw, it)) != PBD_OK) return st;
            trial = line_search(w, nw, norm, descend_G(on_G, potential, second), potential, &merit, &inverted);
        }
        full_step = trial >= 0.0 && info->line_search_halvings == halvings;
        if (trial < 0.0 && nw->sys.krylov_used && !nw->sys.direct_only) {
            /* MINRES' inexact directions can end where none descends (16² cloth, 200
             * substeps: ‖g‖ 9.6e-16 after 33 iterations): the step anew, direct */
            nw->sys.direct_only = 1;
            goto restart;
        }
        if (trial < 0.0 && !potential && !restarted++) goto restart;
        if (trial < 0.0 && newton_kkt_to_potential(w, nw, &potential, &restarted)) goto restart;
        if (trial < 0.0)
            return pbd_error(PBD_ENUMERIC, "newton: iteration %d: expected %s to decrease "
                             "along the Newton direction, stalled at ||(g, h)|| = %.3e (tol "
                             "%.3e)%s", it, descend_G(on_G, potential, second) ? "the incremental potential" :
                             "||(g, h)||", norm, tol, inverted ? "; shorter steps were refused "
                             "for turning a tet inside out (J <= 0)"
                             : potential ? "" : KKT_STALL_HINT);
        double *sw = nw->x;
        nw->x = nw->x_try;
        nw->x_try = sw;
        sw = nw->lambda;
        nw->lambda = nw->lambda_try;
        nw->lambda_try = sw;
        norm = trial;
        it++;
        if (residuals) residuals[it] = norm;
        record(nw, lg, it, norm);
    }
    if (!at_rounding && !newton_converged(nw, tol) && !potential && !restarted++) goto restart;
    if (!at_rounding && !newton_converged(nw, tol) &&
        newton_kkt_to_potential(w, nw, &potential, &restarted))
        goto restart;
    if (n_iter) *n_iter = it;
    info->iterations = it + earlier; /* every solve's (n_iter: the last's, as residuals[]) */
    info->residual = norm;
    info->solver = nw->sys.used;
    info->unknowns = nw->sys.N;
    info->nonzeros = nw->sys.dense ? (long)nw->sys.N * nw->sys.N : nw->sys.nnz;
    info->skipped = nw->skipped;
    info->hessians_skipped = nw->hessians_skipped;
    info->factorisations = nw->sys.factorisations;
    info->krylov_iterations = nw->sys.krylov_iterations;
    info->seconds_total = now_seconds() - t_start;
    info->bytes = newton_workspace_bytes(nw) + nw->sys.factor_bytes;
    info->estimate_bytes = nw->sys.estimate_bytes;
    if (!at_rounding && !newton_converged(nw, tol))
        return pbd_error(PBD_ENUMERIC, "newton: expected ||g|| <= %.3e kg m and ||h/|grad C||| "
                         "<= %.3e m (tol %.3e relative to the step's %.3e kg m and %.3e m, or "
                         "the rounding floors) within %d iterations, found %.3e and %.3e "
                         "(||(g, h)|| %.3e)%s", fmax(tol * nw->scale_g, nw->floor_g),
                         fmax(tol * nw->scale_x, nw->floor_x), tol, nw->scale_g, nw->scale_x,
                         max_iter, nw->g_norm, nw->hx_norm, norm,
                         potential ? "" : KKT_STALL_HINT);
    info->minimum = PBD_NEWTON_MINIMUM_UNCHECKED;
    info->objective = info->curvature = NAN;
    if (!on_G) return PBD_OK;
    int retry = 0;
    st = check_minimum(w, nw, h, tol, second < NEWTON_SOLVES, &retry);
    if (!retry) return st;
    /* a saddle (G falls along its negative curvature): the step solved anew with every line
     * search on G, whose descent a saddle cannot stop — from x̃, and if that ends at a saddle
     * too (one that x̃'s symmetry leads back to), from the point along its negative curvature
     * where G is lowest; a third saddle is refused (solver/newton/README.md "Newton reference",
     * "A minimum, not a saddle") */
    second++;
    info->escapes++;
    earlier += it;
    restarted = 0;
    nw->rows_potential = 0;
    potential = newton_all_potential(w, nw);
    at_rounding = 0;
    goto restart;
}

void pbd_newton_last_info(pbd_world *w, pbd_newton_info *info)
{
    struct pbd_variants_state *vs = w->variants;
    if (vs && vs->newton) *info = vs->newton->info;
    else memset(info, 0, sizeof *info);
}

pbd_status pbd_newton_solve(pbd_world *w, int max_iter, double tol, double *x_out,
                            double *lambda_out, double *residuals, int *n_iter)
{
    struct pbd_newton_workspace *nw = NULL;
    pbd_status st = solve(w, w->def.dt, max_iter, tol, residuals, n_iter, &nw, NULL, NULL);
    if (st != PBD_OK) return st;
    if (x_out)
        for (int i = 0; i < 3 * w->n; i++) x_out[i] = nw->x[i];
    if (lambda_out)
        for (int c = 0; c < nw->m; c++) lambda_out[c] = nw->lambda[c];
    return PBD_OK;
}

/* Advance by one implicit step of size h: x, v, λ, time. */
static pbd_status advance(pbd_world *w, double h, int max_iter, double tol, double *residuals,
                          int *n_iter, newton_log *lg)
{
    struct pbd_newton_workspace *nw = NULL;
    pbd_status st = solve(w, h, max_iter, tol, residuals, n_iter, &nw, w->attach_target, lg);
    if (st != PBD_OK) return st;
    for (int i = 0; i < 3 * w->n; i++) {
        w->v[i] = (nw->x[i] - w->x[i]) / h;
        w->x[i] = w->p[i] = nw->x[i];
    }
    for (int s = 0; s < w->n_sets; s++)
        for (int c = 0; c < w->sets[s].count; c++)
            w->sets[s].lambda[c] = nw->lambda[nw->set_c[s] + c];
    w->time += h;
    w->stats.skipped = nw->skipped;
    w->stats.newton_iterations = nw->info.iterations;
    w->stats.newton_minimum = nw->info.minimum;
    return PBD_OK;
}

static pbd_status finish_step(pbd_world *w, double h)
{
    w->step_count++;
    w->stats.threads = 1;
    pbd_measure(w, h, 1);
    for (int i = 0; i < 3 * w->n; i++)
        if (!isfinite(w->x[i]) || !isfinite(w->v[i]))
            return pbd_error(PBD_ENUMERIC, "newton: step %ld: particle %d has a non-finite "
                             "position or velocity", w->step_count, i / 3);
    return PBD_OK;
}

pbd_status pbd_newton_step(pbd_world *w, int max_iter, double tol, double *residuals,
                           int *n_iter)
{
    for (int k = 0; k < PBD_STAGE_COUNT; k++) w->stats.stage_seconds[k] = 0.0;
    pbd_status st = advance(w, w->def.dt, max_iter, tol, residuals, n_iter, NULL);
    return st != PBD_OK ? st : finish_step(w, w->def.dt);
}

/* What the implicit step refuses before any work: damping of either kind. The refusals of
 * the world (newton_check_world) run in each solve, where h is known. */
static pbd_status newton_step_check(const pbd_world *w)
{
    const pbd_solver_def *d = &w->def;
    if (d->damping != PBD_DAMPING_NONE || d->xpbd_beta > 0.0)
        return pbd_error(PBD_EINVAL, "newton: damping: expected none (the implicit step has no "
                         "damping of either kind), found damping %d, xpbd-damping %g",
                         (int)d->damping, d->xpbd_beta);
    return PBD_OK;
}

/* pbd_step with def.method = newton (solver/step.c): def.substeps implicit steps of
 * h = dt/substeps, each to def.newton_tol in def.newton_max_iterations, the per-iterate
 * residuals into the world's iteration log (NaN past the last iterate). No damping. */
static pbd_status newton_step(pbd_world *w, void *ws, double h, int threads)
{
    (void)ws;      /* made in each solve, with its symbolic analysis */
    (void)threads; /* the factorisations choose theirs (solver/blas.c) */
    const pbd_solver_def *d = &w->def;
    const int width = d->newton_max_iterations + 1;
    const int per_set = w->iter_sets && w->iter_sets_n == w->n_sets;
    for (int k = 0; k < width * d->substeps; k++) {
        w->iter_max_c[k] = w->iter_l2_c[k] = w->iter_xpbd[k] = w->iter_newton[k] = NAN;
        for (int i = 0; per_set && i < 3 * w->n_sets; i++)
            w->iter_sets[(size_t)k * w->n_sets * 3 + i] = NAN;
    }
    double t0 = now_seconds();
    for (int sub = 0; sub < d->substeps; sub++) {
        newton_log lg = {w->iter_newton + sub * width, w->iter_max_c + sub * width,
                         w->iter_l2_c + sub * width, w->iter_xpbd + sub * width,
                         per_set ? w->iter_sets + (size_t)sub * width * w->n_sets * 3 : NULL,
                         w->n_sets};
        pbd_status st = advance(w, h, d->newton_max_iterations, d->newton_tol, NULL, NULL, &lg);
        if (st != PBD_OK) return st;
    }
    w->stats.stage_seconds[PBD_STAGE_PROJECT] = now_seconds() - t0;
    w->stats.threads = 1;
    return PBD_OK;
}

static void newton_release(struct pbd_variants_state *vs)
{
    pbd_newton_free(vs->newton);
    vs->newton = NULL;
}

const pbd_method_ops pbd_newton_method = {
    .name = "newton",
    .check = newton_step_check,
    .workspace_free = newton_release,
    .step = newton_step,
    .energy = 1,
    .reference = 1,
    .memory = pbd_memory_newton,
};
