/* The checker for types without a scalar C (pbd_constraint.h project_goal; shape matching,
 * Müller et al. 2005). There is no ∇C to difference; instead, on each regular sample (the
 * type's sample(), inverse masses in [0.1, 10]):
 *   1. rigid: the rest values are taken (type->rest) from the sample's own positions x, and a
 *      random rigid motion y = Q x + t is projected with k = 1 and with a random k: nothing
 *      may move, |Δy| <= tol · L (L the sample's size) — a rigidly moved cluster is its own
 *      goal, reproduced exactly;
 *   2. fraction: with the sample's rest values, the step Δ(k) with a random k in (0, 1) is
 *      k Δ(1): |Δ(k) − k Δ(1)| <= tol · |Δ(1)| — stiffness k moves a fraction k of the way;
 *   3. momentum (internal types): Σ m_i Δx_i = 0 and Σ m_i x_i × Δx_i = 0 relative to
 *      Σ m_i |Δx_i| and Σ m_i |x_i| |Δx_i| (PBD Eq. 1–2 for a position step), for k = 1.
 * rel_err per sample is the larger of 1 and 2 (relative); the Taylor order is NaN (n/a).
 * Near-degenerate samples (degenerate = 1), with some particles fixed (w = 0): every
 * projected coordinate finite and the fixed particles not moved. PASS: no invalid or
 * non-finite sample, max rel_err <= max_rel_err, momentum ok. */
#include "analysis_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct goal_work {
    const pbd_constraint_type *type;
    int arity, n, n_aux;
    double *x, *y, *p1, *pk, *rest, *w;
    int32_t *aux;
} goal_work;

static double vnorm(const double *a, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += a[i] * a[i];
    return sqrt(s);
}

static int finite_all(const double *a, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(a[i])) return 0;
    return 1;
}

/* Project x (copied into out) with stiffness k. */
static int project(goal_work *g, const double *x, double k, double *out)
{
    pbd_eval_input in = {x, g->arity, g->rest, g->aux, g->n_aux};
    memcpy(out, x, sizeof(double) * g->n);
    return g->type->project_goal(&in, g->w, k, out);
}

static double size_of(const double *x, int arity)
{
    double c[3] = {0, 0, 0}, L = 0.0;
    for (int j = 0; j < arity; j++)
        for (int k = 0; k < 3; k++) c[k] += x[3 * j + k] / arity;
    for (int j = 0; j < arity; j++) {
        double d[3] = {x[3 * j] - c[0], x[3 * j + 1] - c[1], x[3 * j + 2] - c[2]};
        L = fmax(L, vnorm(d, 3));
    }
    return L > 0.0 ? L : 1.0;
}

static void rotation(pbd_rng *r, double *Q)
{
    double q[4], n = 0.0;
    for (int k = 0; k < 4; k++) {
            q[k] = pbd_rng_gaussian(r);
            n += q[k] * q[k];
        }
    n = sqrt(n);
    double a = q[0] / n, b = q[1] / n, c = q[2] / n, d = q[3] / n;
    double M[9] = {1 - 2 * (c * c + d * d), 2 * (b * c - a * d), 2 * (b * d + a * c),
                   2 * (b * c + a * d), 1 - 2 * (b * b + d * d), 2 * (c * d - a * b),
                   2 * (b * d - a * c), 2 * (c * d + a * b), 1 - 2 * (b * b + c * c)};
    memcpy(Q, M, sizeof M);
}

/* The largest relative error of checks 1 and 2 on one sample, and its momentum error;
 * -1 on a non-finite result, NAN when a projection was degenerate. */
static double check_sample(goal_work *g, pbd_rng *rd, double *momentum)
{
    const int n = g->n, a = g->arity;
    double L = size_of(g->x, a), err = 0.0;
    for (int j = 0; j < a; j++) g->w[j] = pbd_rng_range(rd, 0.1, 10.0);
    /* 2 and 3: the sample as drawn */
    double k = pbd_rng_range(rd, 0.05, 0.95);
    if (project(g, g->x, 1.0, g->p1) != PBD_EVAL_OK || project(g, g->x, k, g->pk) != PBD_EVAL_OK)
        return NAN;
    if (!finite_all(g->p1, n) || !finite_all(g->pk, n)) return -1.0;
    double num = 0.0, den = 0.0, lin[3] = {0, 0, 0}, ang[3] = {0, 0, 0}, ls = 0.0, as = 0.0;
    for (int i = 0; i < n; i++) {
        double d1 = g->p1[i] - g->x[i], dk = g->pk[i] - g->x[i];
        num += (dk - k * d1) * (dk - k * d1);
        den += d1 * d1;
    }
    err = den > 0.0 ? sqrt(num / den) : sqrt(num) / L;
    for (int j = 0; j < a; j++) {
        double m = 1.0 / g->w[j], d[3], *p = g->x + 3 * j;
        for (int c = 0; c < 3; c++) d[c] = g->p1[3 * j + c] - p[c];
        for (int c = 0; c < 3; c++) lin[c] += m * d[c];
        ang[0] += m * (p[1] * d[2] - p[2] * d[1]);
        ang[1] += m * (p[2] * d[0] - p[0] * d[2]);
        ang[2] += m * (p[0] * d[1] - p[1] * d[0]);
        ls += m * vnorm(d, 3);
        as += m * vnorm(p, 3) * vnorm(d, 3);
    }
    *momentum = fmax(ls > 0.0 ? vnorm(lin, 3) / ls : 0.0, as > 0.0 ? vnorm(ang, 3) / as : 0.0);
    /* 1: rest values from x itself, then a rigid motion of x */
    pbd_eval_input in = {g->x, a, NULL, g->aux, g->n_aux};
    g->type->rest(&in, g->rest);
    double Q[9], t[3];
    rotation(rd, Q);
    for (int c = 0; c < 3; c++) t[c] = pbd_rng_range(rd, -3.0, 3.0);
    for (int j = 0; j < a; j++)
        for (int r = 0; r < 3; r++)
            g->y[3 * j + r] = t[r] + Q[3 * r] * g->x[3 * j] + Q[3 * r + 1] * g->x[3 * j + 1] +
                              Q[3 * r + 2] * g->x[3 * j + 2];
    double ks[2] = {1.0, k};
    for (int q = 0; q < 2; q++) {
        if (project(g, g->y, ks[q], g->p1) != PBD_EVAL_OK) return NAN;
        if (!finite_all(g->p1, n)) return -1.0;
        double moved = 0.0;
        for (int i = 0; i < n; i++) moved += (g->p1[i] - g->y[i]) * (g->p1[i] - g->y[i]);
        err = fmax(err, sqrt(moved) / L);
    }
    return err;
}

/* A near-degenerate sample, some particles fixed: finite, and the fixed ones stay. */
static int degenerate_ok(goal_work *g, pbd_rng *rd)
{
    for (int j = 0; j < g->arity; j++)
        g->w[j] = pbd_rng_uniform(rd) < 0.2 ? 0.0 : pbd_rng_range(rd, 0.1, 10.0);
    int st = project(g, g->x, pbd_rng_uniform(rd), g->p1);
    if (!finite_all(g->p1, g->n)) return -1;
    for (int j = 0; j < g->arity; j++)
        if (g->w[j] == 0.0 && memcmp(g->p1 + 3 * j, g->x + 3 * j, 3 * sizeof(double)) != 0)
            return -1;
    return st == PBD_EVAL_OK ? 1 : 0;
}

pbd_status pbd_goalcheck_type(const pbd_constraint_type *type, const pbd_gradcheck_options *opt,
                              pbd_gradcheck_result *r)
{
    memset(r, 0, sizeof *r);
    r->type = type;
    if (!type || !type->project_goal || !type->sample || !type->rest)
        return pbd_error(PBD_EINVAL, "analysis/goalcheck.c: expected a type without C to have "
                         "project_goal, sample and rest, found %s without them",
                         type && type->name ? type->name : "a type");
    const int N = opt->samples, M = opt->degenerate_samples, nmax = 3 * PBD_SAMPLE_MAX_ARITY;
    goal_work g = {.type = type};
    g.x = malloc(sizeof(double) * nmax);
    g.y = malloc(sizeof(double) * nmax);
    g.p1 = malloc(sizeof(double) * nmax);
    g.pk = malloc(sizeof(double) * nmax);
    g.w = malloc(sizeof(double) * PBD_SAMPLE_MAX_ARITY);
    g.rest = calloc(type->n_rest > 0 ? (size_t)type->n_rest : 1, sizeof(double));
    g.aux = malloc(sizeof(int32_t) * PBD_SAMPLE_MAX_AUX);
    r->samples = N;
    r->degenerate_samples = M;
    r->rel_err = malloc(sizeof(double) * N);
    r->order = malloc(sizeof(double) * N);
    r->momentum_errs = malloc(sizeof(double) * N);
    r->status = calloc((size_t)N, 1);
    r->degenerate_rel_err = malloc(sizeof(double) * (M ? M : 1));
    r->degenerate_status = calloc(M ? (size_t)M : 1, 1);
    pbd_status st = PBD_OK;
    if (!g.x || !g.y || !g.p1 || !g.pk || !g.w || !g.rest || !g.aux || !r->rel_err ||
        !r->order || !r->momentum_errs || !r->status || !r->degenerate_rel_err ||
        !r->degenerate_status) {
        pbd_gradcheck_result_free(r);
        st = pbd_error(PBD_ENOMEM, "analysis/goalcheck.c: out of memory for %d samples", N);
        goto done;
    }
    uint64_t h = pbd_gradcheck_name_hash(type->name ? type->name : "");
    pbd_rng rs, rd;
    pbd_rng_seed(&rs, opt->seed ^ h);
    pbd_rng_seed(&rd, (opt->seed ^ h) + 0x5bd1e995ULL);
    r->momentum = type->internal ? PBD_GC_MOMENTUM_OK : PBD_GC_MOMENTUM_NA;
    r->taylor_order = NAN;
    for (int s = 0; s < N + M; s++) {
        int deg = s >= N;
        g.n_aux = 0;
        int arity = type->sample(&rs, deg, g.x, g.rest, g.aux, &g.n_aux);
        int valid = arity >= 1 && arity <= PBD_SAMPLE_MAX_ARITY &&
                    (!type->arity || arity == type->arity) && g.n_aux >= 0 &&
                    g.n_aux <= PBD_SAMPLE_MAX_AUX;
        int8_t *status = deg ? &r->degenerate_status[s - N] : &r->status[s];
        if (deg) r->degenerate_rel_err[s - N] = NAN;
        else r->rel_err[s] = r->order[s] = r->momentum_errs[s] = NAN;
        if (!valid) {
            *status = PBD_GC_SAMPLE_INVALID;
            r->invalid++;
            continue;
        }
        g.arity = arity;
        g.n = 3 * arity;
        if (deg) {
            int ok = degenerate_ok(&g, &rd);
            if (ok < 0) *status = PBD_GC_SAMPLE_NONFINITE, r->degenerate_nonfinite++;
            else if (ok == 0) *status = PBD_GC_SAMPLE_DEGENERATE, r->degenerate_skipped++;
            continue;
        }
        double mom = NAN, e = check_sample(&g, &rd, &mom);
        if (e < 0.0) {
            *status = PBD_GC_SAMPLE_NONFINITE;
            r->nonfinite++;
        } else if (isnan(e)) {
            *status = PBD_GC_SAMPLE_DEGENERATE;
            r->skipped++;
        } else {
            r->checked++;
            r->rel_err[s] = e;
            r->max_rel_err = fmax(r->max_rel_err, e);
            if (type->internal) {
                r->momentum_errs[s] = mom;
                r->momentum_err = fmax(r->momentum_err, mom);
                if (!(mom <= opt->momentum_tol)) r->momentum = PBD_GC_MOMENTUM_FAIL;
            }
        }
    }
    if (r->checked == 0) r->max_rel_err = NAN;
    r->degenerate_max_rel_err = NAN;
    r->pass = r->checked > 0 && r->invalid == 0 && r->nonfinite == 0 &&
              r->degenerate_nonfinite == 0 && r->max_rel_err <= opt->max_rel_err &&
              r->momentum != PBD_GC_MOMENTUM_FAIL;
done:
    free(g.x);
    free(g.y);
    free(g.p1);
    free(g.pk);
    free(g.w);
    free(g.rest);
    free(g.aux);
    return st;
}
