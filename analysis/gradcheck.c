/* The gradient checker (DESIGN.md "The constraint is the unit"): for one constraint
 * type, generic over pbd_constraint_type,
 *   1. central finite differences vs the analytic ∇C, per coordinate;
 *   2. a Taylor-remainder test along a random direction (order of the remainder);
 *   3. for internal types, Σ_i ∇_i C = 0 and Σ_i x_i × ∇_i C = 0, which is what makes
 *      the projection conserve linear and angular momentum (PBD Eq. 1–2, Sec. 3.3);
 *   4. finiteness of C, ∇C and one generic projection step (PBD Eq. 6–9) on regular and
 *      near-degenerate samples. */
#include "analysis_private.h"
#include "hessian_check.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Taylor test steps h = 1e-1 … 1e-4, geometric with ratio 10^(-1/4): 13 points. */
#define TAYLOR_POINTS 13
/* A Taylor remainder below TAYLOR_ROUNDING · ε · (magnitude of C's terms) is rounding. */
#define TAYLOR_ROUNDING 100.0

pbd_gradcheck_options pbd_gradcheck_options_default(void)
{
    pbd_gradcheck_options o = {
        .samples = 1000,
        .degenerate_samples = 250,
        .seed = 1,
        .max_rel_err = 1e-6,
        .min_taylor_order = 1.8,
        .momentum_tol = 1e-8,
    };
    return o;
}

const char *pbd_gradcheck_momentum_name(int m)
{
    return m == PBD_GC_MOMENTUM_OK ? "ok" : m == PBD_GC_MOMENTUM_FAIL ? "FAIL" : "n/a";
}

/* One random instance and the buffers to evaluate it. */
typedef struct gc_work {
    const pbd_constraint_type *type;
    int arity, n;            /* particles, coordinates (3·arity) */
    double *x, *xt;          /* the sample; a perturbed copy (Taylor test), the FD gradient */
    double *grad, *grad_work;
    double *rest;
    int32_t *aux;
    int n_aux;
    double *w, *x_proj;      /* inverse masses, projected positions */
    double *dir;             /* Taylor direction */
    double size;             /* L: largest distance of a particle from the centroid */
} gc_work;

static int eval_at(gc_work *g, const double *x, double *C, double *grad)
{
    pbd_eval_input in = {x, g->arity, g->rest, g->aux, g->n_aux};
    *C = NAN;
    return g->type->eval(&in, C, grad);
}

/* L, the sample's length scale (pbd_fd_length_scale); needs g->grad at x. */
static void measure_sample(gc_work *g, double C0)
{
    pbd_eval_input in = {g->x, g->arity, g->rest, g->aux, g->n_aux};
    g->size = pbd_fd_length_scale(&in, C0, g->grad);
}

/* The magnitude of the terms C is computed from: |C| + Σ_i |x_i ∂C/∂x_i|. Rounding in
 * evaluating C is a few ulps of this (coordinates of size |x| enter through differences
 * and products whose first-order size is x_i ∂C/∂x_i), not of |C|, which may be ~0. */
static double term_scale(const gc_work *g, double C0)
{
    double K = fabs(C0);
    for (int i = 0; i < g->n; i++) K += fabs(g->x[i] * g->grad[i]);
    return K;
}

/* The checker's FD test (analysis/fd_gradient.c, pbd_fd_gradient: step h = ε^(1/3) L,
 * relative error per coordinate with a floor at the FD's expected error). Returns the
 * sample's largest relative error, NAN if a perturbed evaluation was degenerate, or -1 on
 * a non-finite value. */
static double fd_max_rel_err(gc_work *g, double C0, double tol)
{
    pbd_eval_input in = {g->x, g->arity, g->rest, g->aux, g->n_aux};
    double e = NAN;
    switch (pbd_fd_gradient(g->type, &in, C0, g->grad, tol, g->xt, &e)) {
    case PBD_FD_OK: return e;
    case PBD_FD_DEGENERATE: return NAN;
    default: return -1.0; /* PBD_FD_NONFINITE (PBD_FD_ENOMEM cannot happen: arity <= 64) */
    }
}

/* Taylor test along a random unit direction d (in all 3·arity coordinates):
 *   r(h) = |C(x + hLd) - C(x) - hL ∇C·d| = O(h²) when ∇C is right, O(h) when it is wrong.
 * The order is the least-squares slope of log r against log h over the steps where r is
 * above rounding (TAYLOR_ROUNDING · ε · (term_scale + L |∇C|)). With fewer than two such
 * steps the remainder is rounding everywhere — C is linear along d (plane collision), or
 * the polynomial's remainder vanishes for this d — and the order is INFINITY ("exact").
 * Returns the order, NAN if a step hit a degenerate configuration, -1 on non-finite. */
static double taylor_order(gc_work *g, double C0, pbd_rng *rng)
{
    double dot = 0.0;
    double *d = g->dir;
    pbd_rng_unit(rng, d, g->n, 0.0);
    for (int i = 0; i < g->n; i++) dot += g->grad[i] * d[i];
    double L = g->size;
    double rounding =
        TAYLOR_ROUNDING * DBL_EPSILON * (term_scale(g, C0) + L * norm2(g->grad, g->n));
    double lx[TAYLOR_POINTS], ly[TAYLOR_POINTS];
    int m = 0;
    for (int k = 0; k < TAYLOR_POINTS; k++) {
        double h = pow(10.0, -1.0 - 0.25 * k), t = h * L, C;
        for (int i = 0; i < g->n; i++) g->xt[i] = g->x[i] + t * d[i];
        if (eval_at(g, g->xt, &C, NULL) != PBD_EVAL_OK) return NAN;
        if (!isfinite(C)) return -1.0;
        double r = fabs(C - C0 - t * dot);
        if (r > rounding) {
            lx[m] = log(h);
            ly[m] = log(r);
            m++;
        }
    }
    return m < 2 ? INFINITY : pbd_fit_slope(lx, ly, m);
}

/* Internal types: relative |Σ_i ∇_i C| and |Σ_i x_i × ∇_i C| (PBD Eq. 1–2: with these
 * zero, Δp_i = -s w_i ∇_i C conserves Σ m_i Δp_i and Σ x_i × m_i Δp_i for any masses). */
static double momentum_error(const gc_work *g)
{
    double lin[3] = {0, 0, 0}, ang[3] = {0, 0, 0}, lin_scale = 0.0, ang_scale = 0.0;
    for (int j = 0; j < g->arity; j++) {
        const double *p = g->x + 3 * j, *q = g->grad + 3 * j;
        for (int k = 0; k < 3; k++) lin[k] += q[k];
        ang[0] += p[1] * q[2] - p[2] * q[1];
        ang[1] += p[2] * q[0] - p[0] * q[2];
        ang[2] += p[0] * q[1] - p[1] * q[0];
        lin_scale += norm2(q, 3);
        ang_scale += norm2(p, 3) * norm2(q, 3);
    }
    double e_lin = lin_scale > 0.0 ? norm2(lin, 3) / lin_scale : 0.0;
    double e_ang = ang_scale > 0.0 ? norm2(ang, 3) / ang_scale : 0.0;
    return fmax(e_lin, e_ang);
}

/* One generic projection (PBD Eq. 6–9, k = 1, random masses) and, if the type has one,
 * its closed form: every projected coordinate must be finite. */
static int projection_finite(gc_work *g, pbd_rng *rng)
{
    pbd_eval_input in = {g->x, g->arity, g->rest, g->aux, g->n_aux};
    for (int j = 0; j < g->arity; j++) g->w[j] = pbd_rng_range(rng, 0.1, 10.0);
    memcpy(g->x_proj, g->x, sizeof(double) * g->n);
    pbd_project_generic(g->type, &in, g->w, 1.0, g->x_proj, g->grad_work);
    if (!all_finite(g->x_proj, g->n)) return 0;
    if (g->type->project_closed_form) {
        memcpy(g->x_proj, g->x, sizeof(double) * g->n);
        g->type->project_closed_form(&in, g->w, 1.0, g->x_proj);
        if (!all_finite(g->x_proj, g->n)) return 0;
    }
    return 1;
}

/* Draw one sample into g; 0 when the sampler broke its contract (arity, aux indices). */
static int draw(gc_work *g, pbd_rng *rng, int degenerate)
{
    g->n_aux = 0;
    int arity = g->type->sample(rng, degenerate, g->x, g->rest, g->aux, &g->n_aux);
    if (arity < 1 || arity > PBD_SAMPLE_MAX_ARITY || (g->type->arity && arity != g->type->arity))
        return 0;
    if (g->n_aux < 0 || g->n_aux > PBD_SAMPLE_MAX_AUX) return 0;
    for (int i = 0; i < g->n_aux; i++)
        if (g->aux[i] < 0 || g->aux[i] >= arity) return 0;
    g->arity = arity;
    g->n = 3 * arity;
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}


static void work_free(gc_work *g)
{
    free(g->x);
    free(g->xt);
    free(g->grad);
    free(g->grad_work);
    free(g->rest);
    free(g->aux);
    free(g->w);
    free(g->x_proj);
    free(g->dir);
}

pbd_status pbd_gradcheck_type(const pbd_constraint_type *type, const pbd_gradcheck_options *opt,
                              pbd_gradcheck_result *r)
{
    memset(r, 0, sizeof *r);
    r->type = type;
    if (type && !type->eval && type->project_goal) /* no scalar C: goalcheck.c */
        return opt->samples < 1 || opt->degenerate_samples < 0
                   ? pbd_error(PBD_EINVAL, "analysis/gradcheck.c: pbd_gradcheck_type: expected "
                               "samples >= 1 and degenerate_samples >= 0, found %d and %d",
                               opt->samples, opt->degenerate_samples)
                   : pbd_goalcheck_type(type, opt, r);
    if (!type || !type->eval || !type->sample)
        return pbd_error(PBD_EINVAL, "analysis/gradcheck.c: pbd_gradcheck_type: expected a type "
                         "with eval and sample, found %s without them",
                         type && type->name ? type->name : "a type");
    if (opt->samples < 1 || opt->degenerate_samples < 0)
        return pbd_error(PBD_EINVAL, "analysis/gradcheck.c: pbd_gradcheck_type: expected "
                         "samples >= 1 and degenerate_samples >= 0, found %d and %d",
                         opt->samples, opt->degenerate_samples);
    if (type->n_orient > 0) return pbd_orientcheck_type(type, opt, r); /* rods: orientcheck.c */
    const int nmax = 3 * PBD_SAMPLE_MAX_ARITY, N = opt->samples, M = opt->degenerate_samples;
    gc_work g = {.type = type};
    g.x = malloc(sizeof(double) * nmax);
    g.xt = malloc(sizeof(double) * nmax);
    g.grad = calloc((size_t)nmax, sizeof(double));
    g.grad_work = calloc((size_t)nmax, sizeof(double));
    g.rest = calloc(type->n_rest > 0 ? (size_t)type->n_rest : 1, sizeof(double));
    g.aux = malloc(sizeof(int32_t) * PBD_SAMPLE_MAX_AUX);
    g.w = malloc(sizeof(double) * PBD_SAMPLE_MAX_ARITY);
    g.x_proj = malloc(sizeof(double) * nmax);
    g.dir = malloc(sizeof(double) * nmax);
    r->samples = N;
    r->degenerate_samples = M;
    r->rel_err = malloc(sizeof(double) * N);
    r->order = malloc(sizeof(double) * N);
    r->momentum_errs = malloc(sizeof(double) * N);
    r->status = calloc((size_t)N, 1);
    r->degenerate_rel_err = malloc(sizeof(double) * (M ? M : 1));
    r->degenerate_status = calloc(M ? (size_t)M : 1, 1);
    r->hessian_rel_err = malloc(sizeof(double) * N);
    r->hessian_order = malloc(sizeof(double) * N);
    double *orders = malloc(sizeof(double) * N);
    if (!g.x || !g.xt || !g.grad || !g.grad_work || !g.rest || !g.aux || !g.w || !g.x_proj || !g.dir ||
        !r->rel_err || !r->order || !r->momentum_errs || !r->status || !r->degenerate_rel_err ||
        !r->degenerate_status || !r->hessian_rel_err || !r->hessian_order || !orders) {
        work_free(&g);
        free(orders);
        pbd_gradcheck_result_free(r);
        return pbd_error(PBD_ENOMEM, "analysis/gradcheck.c: pbd_gradcheck_type: expected memory "
                         "for %d samples, found none", N);
    }

    /* Samples from one stream, directions and masses from another: the samples are
     * exactly what type->sample draws from the seed. */
    uint64_t h = pbd_gradcheck_name_hash(type->name ? type->name : "");
    pbd_rng rs, rd;
    pbd_rng_seed(&rs, opt->seed ^ h);
    pbd_rng_seed(&rd, (opt->seed ^ h) + 0x5bd1e995ULL);
    pbd_rng rh; /* the Hessian's Taylor directions: a stream of their own */
    pbd_rng_seed(&rh, (opt->seed ^ h) + 0x27d4eb2fULL);
    r->has_hessian = type->hessian != NULL;

    int n_orders = 0;
    r->max_rel_err = 0.0;
    r->momentum = type->internal ? PBD_GC_MOMENTUM_OK : PBD_GC_MOMENTUM_NA;
    for (int s = 0; s < N; s++) {
        r->rel_err[s] = r->order[s] = r->momentum_errs[s] = NAN;
        r->hessian_rel_err[s] = r->hessian_order[s] = NAN;
        if (!draw(&g, &rs, 0)) {
            r->status[s] = PBD_GC_SAMPLE_INVALID;
            r->invalid++;
            continue;
        }
        double C0;
        int st = eval_at(&g, g.x, &C0, g.grad);
        measure_sample(&g, C0);
        if (st != PBD_EVAL_OK) {
            r->status[s] = PBD_GC_SAMPLE_DEGENERATE;
            r->skipped++;
            if (!isfinite(C0)) r->status[s] = PBD_GC_SAMPLE_NONFINITE, r->nonfinite++;
            continue;
        }
        if (!isfinite(C0) || !all_finite(g.grad, g.n) || !projection_finite(&g, &rd)) {
            r->status[s] = PBD_GC_SAMPLE_NONFINITE;
            r->nonfinite++;
            continue;
        }
        double e = fd_max_rel_err(&g, C0, opt->max_rel_err);
        double o = taylor_order(&g, C0, &rd);
        if (!pbd_gradcheck_record(r, s, e, o, orders, &n_orders)) continue;
        if (type->internal) {
            double m = momentum_error(&g);
            r->momentum_errs[s] = m;
            if (m > r->momentum_err) r->momentum_err = m;
            if (!(m <= opt->momentum_tol)) r->momentum = PBD_GC_MOMENTUM_FAIL;
        }
        if (type->hessian) {
            pbd_eval_input in = {g.x, g.arity, g.rest, g.aux, g.n_aux};
            int hs = pbd_hessian_check_sample(type, &in, g.size, opt->max_rel_err, &rh,
                                              &r->hessian_rel_err[s], &r->hessian_order[s]);
            r->hessian_nonfinite += hs == -1;
            if (hs == PBD_EVAL_OK) {
                r->hessian_checked++;
                r->hessian_max_rel_err = fmax(r->hessian_max_rel_err, r->hessian_rel_err[s]);
            } else {
                r->hessian_rel_err[s] = r->hessian_order[s] = NAN;
            }
        }
    }
    if (r->checked == 0) r->max_rel_err = NAN;
    /* Median order; "exact" samples count as +∞, so the type is "exact" when most are. */
    if (n_orders > 0) {
        qsort(orders, (size_t)n_orders, sizeof(double), cmp_double);
        r->taylor_order = n_orders % 2 ? orders[n_orders / 2]
                                       : 0.5 * (orders[n_orders / 2 - 1] + orders[n_orders / 2]);
    } else {
        r->taylor_order = NAN;
    }
    r->hessian_taylor_order = NAN;
    if (r->hessian_checked == 0) {
        r->hessian_max_rel_err = NAN;
    } else {
        for (int s = 0; s < N; s++) orders[s] = r->hessian_order[s];
        r->hessian_taylor_order = pbd_hessian_median(orders, N);
    }

    /* Near-degenerate samples: finiteness only; their FD errors are kept apart. */
    r->degenerate_max_rel_err = 0.0;
    int degenerate_checked = 0;
    for (int s = 0; s < M; s++) {
        r->degenerate_rel_err[s] = NAN;
        if (!draw(&g, &rs, 1)) {
            r->degenerate_status[s] = PBD_GC_SAMPLE_INVALID;
            r->invalid++;
            continue;
        }
        double C0;
        int st = eval_at(&g, g.x, &C0, g.grad);
        measure_sample(&g, C0);
        int finite = isfinite(C0) && (st != PBD_EVAL_OK || all_finite(g.grad, g.n)) &&
                     projection_finite(&g, &rd);
        if (!pbd_gradcheck_degenerate_sample(r, s, finite, st == PBD_EVAL_OK)) continue;
        degenerate_checked +=
            pbd_gradcheck_degenerate_record(r, s, fd_max_rel_err(&g, C0, opt->max_rel_err));
    }
    if (degenerate_checked == 0) r->degenerate_max_rel_err = NAN;

    r->pass = r->checked > 0 && r->invalid == 0 && r->nonfinite == 0 &&
              r->degenerate_nonfinite == 0 &&
              r->max_rel_err <= opt->max_rel_err &&
              r->taylor_order >= opt->min_taylor_order && r->momentum != PBD_GC_MOMENTUM_FAIL &&
              (!r->has_hessian ||
               (r->hessian_checked > 0 && r->hessian_nonfinite == 0 &&
                r->hessian_max_rel_err <= opt->max_rel_err &&
                r->hessian_taylor_order >= opt->min_taylor_order));
    work_free(&g);
    free(orders);
    return PBD_OK;
}

static void order_text(char *buf, size_t size, double order)
{
    if (isinf(order) && order > 0)
        snprintf(buf, size, "exact");
    else
        snprintf(buf, size, "%.3g", order);
}

int pbd_gradcheck_format_line(char *buf, size_t size, const pbd_gradcheck_result *r)
{
    char order[32], h_order[32], hessian[96] = "";
    if (isnan(r->taylor_order) && r->type && !r->type->eval)
        snprintf(order, sizeof order, "n/a"); /* no scalar C: no Taylor test (goalcheck.c) */
    else
        order_text(order, sizeof order, r->taylor_order);
    if (r->has_hessian) {
        order_text(h_order, sizeof h_order, r->hessian_taylor_order);
        snprintf(hessian, sizeof hessian, " hessian_max_rel_err=%.3g hessian_taylor_order=%s",
                 r->hessian_max_rel_err, h_order);
    }
    return snprintf(buf, size, "%s samples=%d max_rel_err=%.3g taylor_order=%s momentum=%s%s %s",
                    r->type && r->type->name ? r->type->name : "?", r->samples, r->max_rel_err,
                    order, pbd_gradcheck_momentum_name(r->momentum), hessian,
                    r->pass ? "PASS" : "FAIL");
}
