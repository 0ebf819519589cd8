/* The checker for orientation types (pbd_constraint.h n_orient: the rods), generic over
 * them. A sample holds np particles and no orientations (unit quaternions); the analytic
 * ∇C has 3 entries per particle (∂C/∂x) and 3 per orientation (∂C/∂θ on SO(3)). Each
 * orientation coordinate is differenced along the rotation itself, not the quaternion's
 * four numbers: q± = exp(±h e_a/2)·q (pbd_quat_perturb, unit length by construction), so
 * that the FD derivative is the derivative on SO(3) the type claims, and no unit constraint
 * on q has to be projected out. Per regular sample:
 *   1. central differences vs ∇C, per coordinate: particles with h = ε^(1/3) L (L the
 *      particles' size, >= 1 m), orientations with h = ε^(1/3) rad, the relative error with
 *      the floor of analysis/fd_gradient.c;
 *   2. the Taylor remainder along a random tangent direction (d_x, d_θ):
 *      r(t) = |C(x + tL d_x, exp(t d_θ/2) q) − C − t(L ∇_x C·d_x + ∇_θ C·d_θ)| = O(t²);
 *   3. internal types: Σ ∇_x C = 0 and Σ x × ∇_x C + Σ ∇_θ C = 0 (linear momentum, and
 *      angular momentum with the spin: a rigid rotation δω moves x by δω × x and turns
 *      every q by δω);
 *   4. one projection (PBD Eq. 8 with random masses and isotropic inverse inertias) finite.
 * Near-degenerate samples: finiteness only, as for the other types. */
#include "analysis_private.h"
#include "hessian_check.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#define TAYLOR_POINTS 13
#define TAYLOR_ROUNDING 100.0
#define FD_ERROR_MARGIN 10.0
#define NMAX (4 * PBD_SAMPLE_MAX_ARITY)

typedef struct ow {
    const pbd_constraint_type *type;
    int arity, np, no, n;   /* entries, particles, orientations, tangent coordinates 3·arity */
    double x[NMAX], xt[NMAX], grad[3 * PBD_SAMPLE_MAX_ARITY], rest[512];
    double L;
} ow;

static int eval_at(const ow *g, const double *x, double *C, double *grad)
{
    pbd_eval_input in = {x, g->arity, g->rest, NULL, 0};
    *C = NAN;
    return g->type->eval(&in, C, grad);
}

/* g->xt = the sample moved by t_x along dx (3 np) and turned by th (3 no) */
static void move(ow *g, const double *dx, double tx, const double *th, double tt)
{
    memcpy(g->xt, g->x, sizeof(double) * (size_t)(3 * g->np + 4 * g->no));
    for (int i = 0; i < 3 * g->np; i++) g->xt[i] += tx * dx[i];
    for (int j = 0; j < g->no; j++) {
        double v[3] = {tt * th[3 * j], tt * th[3 * j + 1], tt * th[3 * j + 2]};
        double *q = g->xt + 3 * g->np + 4 * j;
        pbd_quat_perturb(q, v, q);
    }
}

/* The largest relative FD error (NaN: a perturbed point was degenerate, -1 non-finite) */
static double fd_error(ow *g, double C0, double tol)
{
    const double eps = DBL_EPSILON, hx = cbrt(eps) * g->L, ht = cbrt(eps);
    double G = 0.0, K = fabs(C0), zero[3 * PBD_SAMPLE_MAX_ARITY] = {0};
    for (int i = 0; i < g->n; i++) G = fmax(G, fabs(g->grad[i]));
    for (int i = 0; i < 3 * g->np; i++) K += fabs(g->x[i] * g->grad[i]);
    for (int i = 3 * g->np; i < g->n; i++) K += fabs(g->grad[i]);
    double worst = 0.0;
    for (int i = 0; i < g->n; i++) {
        int orient = i >= 3 * g->np;
        double e[3 * PBD_SAMPLE_MAX_ARITY] = {0}, Cp, Cm, h = orient ? ht : hx;
        e[i] = 1.0;
        int sp, sm;
        if (orient) {
            double *th = e + 3 * g->np;
            move(g, zero, 0.0, th, h);
            sp = eval_at(g, g->xt, &Cp, NULL);
            move(g, zero, 0.0, th, -h);
            sm = eval_at(g, g->xt, &Cm, NULL);
        } else {
            move(g, e, h, zero, 0.0);
            sp = eval_at(g, g->xt, &Cp, NULL);
            move(g, e, -h, zero, 0.0);
            sm = eval_at(g, g->xt, &Cm, NULL);
        }
        if (!isfinite(Cp) || !isfinite(Cm)) return -1.0;
        if (sp != PBD_EVAL_OK || sm != PBD_EVAL_OK) return NAN;
        double fd = (Cp - Cm) / (2.0 * h);
        double scale = orient ? 1.0 : g->L; /* rad or m */
        double floor_abs = FD_ERROR_MARGIN * cbrt(eps * eps) * (G + K / scale) / tol;
        double den = fmax(fmax(fabs(g->grad[i]), fabs(fd)), floor_abs);
        worst = fmax(worst, fabs(g->grad[i] - fd) / den);
    }
    return worst;
}

static double taylor(ow *g, double C0, pbd_rng *rng)
{
    double d[3 * PBD_SAMPLE_MAX_ARITY], dot = 0.0;
    pbd_rng_unit(rng, d, g->n, 0.0);
    for (int i = 0; i < g->n; i++) dot += g->grad[i] * d[i] * (i < 3 * g->np ? g->L : 1.0);
    double K = fabs(C0);
    for (int i = 0; i < 3 * g->np; i++) K += fabs(g->x[i] * g->grad[i]);
    double rounding = TAYLOR_ROUNDING * DBL_EPSILON * (K + g->L * norm2(g->grad, g->n));
    double lx[TAYLOR_POINTS], ly[TAYLOR_POINTS];
    int m = 0;
    for (int k = 0; k < TAYLOR_POINTS; k++) {
        double t = pow(10.0, -1.0 - 0.25 * k), C;
        move(g, d, t * g->L, d + 3 * g->np, t);
        if (eval_at(g, g->xt, &C, NULL) != PBD_EVAL_OK) return NAN;
        if (!isfinite(C)) return -1.0;
        double r = fabs(C - C0 - t * dot);
        if (r > rounding) {
            lx[m] = log(t);
            ly[m++] = log(r);
        }
    }
    return m < 2 ? INFINITY : pbd_fit_slope(lx, ly, m);
}

/* relative |Σ ∇_x C| and |Σ x × ∇_x C + Σ ∇_θ C| */
static double momentum_error(const ow *g)
{
    double lin[3] = {0, 0, 0}, ang[3] = {0, 0, 0}, ls = 0.0, as = 0.0;
    for (int j = 0; j < g->arity; j++) {
        const double *q = g->grad + 3 * j;
        if (j < g->np) {
            const double *p = g->x + 3 * j;
            for (int k = 0; k < 3; k++) lin[k] += q[k];
            ang[0] += p[1] * q[2] - p[2] * q[1];
            ang[1] += p[2] * q[0] - p[0] * q[2];
            ang[2] += p[0] * q[1] - p[1] * q[0];
            ls += norm2(q, 3);
            as += norm2(p, 3) * norm2(q, 3);
        } else {
            for (int k = 0; k < 3; k++) ang[k] += q[k];
            as += norm2(q, 3);
        }
    }
    double el = ls > 0.0 ? norm2(lin, 3) / ls : 0.0, ea = as > 0.0 ? norm2(ang, 3) / as : 0.0;
    return fmax(el, ea);
}

/* PBD Eq. 8 with random inverse masses and inertias: Δλ and the moved state finite */
static int projection_finite(ow *g, double C0, pbd_rng *rng)
{
    double den = 0.0, wj[PBD_SAMPLE_MAX_ARITY];
    for (int j = 0; j < g->arity; j++) {
        wj[j] = pbd_rng_range(rng, 0.1, 10.0);
        den += wj[j] * (g->grad[3 * j] * g->grad[3 * j] + g->grad[3 * j + 1] * g->grad[3 * j + 1] +
                        g->grad[3 * j + 2] * g->grad[3 * j + 2]);
    }
    if (!(den > 1e-300)) return 1; /* skipped as degenerate, as the solver does */
    double dl = -C0 / den, dx[3 * PBD_SAMPLE_MAX_ARITY];
    for (int i = 0; i < g->n; i++) dx[i] = dl * wj[i / 3] * g->grad[i];
    move(g, dx, 1.0, dx + 3 * g->np, 1.0);
    return isfinite(dl) && all_finite(g->xt, 3 * g->np + 4 * g->no);
}

static int draw(ow *g, pbd_rng *rng, int degenerate)
{
    int32_t aux[PBD_SAMPLE_MAX_AUX];
    int n_aux = 0;
    int arity = g->type->sample(rng, degenerate, g->x, g->rest, aux, &n_aux);
    if (arity != g->type->arity || arity > PBD_SAMPLE_MAX_ARITY || n_aux != 0) return 0;
    g->arity = arity;
    g->no = g->type->n_orient;
    g->np = arity - g->no;
    g->n = 3 * arity;
    double c[3] = {0, 0, 0}, L = 0.0;
    for (int j = 0; j < g->np; j++)
        for (int k = 0; k < 3; k++) c[k] += g->x[3 * j + k] / g->np;
    for (int j = 0; j < g->np; j++) {
        double d[3] = {g->x[3 * j] - c[0], g->x[3 * j + 1] - c[1], g->x[3 * j + 2] - c[2]};
        L = fmax(L, norm2(d, 3));
    }
    g->L = fmax(L, 1.0);
    return 1;
}

pbd_status pbd_orientcheck_type(const pbd_constraint_type *type, const pbd_gradcheck_options *opt,
                                pbd_gradcheck_result *r)
{
    const int N = opt->samples, M = opt->degenerate_samples;
    if (type->n_rest > 512 || type->arity < 1 || type->n_orient > type->arity)
        return pbd_error(PBD_EINVAL, "analysis/orientcheck.c: %s: expected a fixed arity >= "
                         "n_orient and at most 512 rest values", type->name);
    if (pbd_gradcheck_result_alloc(r, N, M) != PBD_OK) return PBD_ENOMEM;
    ow *g = calloc(1, sizeof *g);
    double *orders = malloc(sizeof(double) * N);
    if (!g || !orders) {
        free(g);
        free(orders);
        pbd_gradcheck_result_free(r);
        return pbd_error(PBD_ENOMEM, "analysis/orientcheck.c: out of memory for %d samples", N);
    }
    g->type = type;
    uint64_t hsh = pbd_gradcheck_name_hash(type->name ? type->name : "");
    pbd_rng rs, rd;
    pbd_rng_seed(&rs, opt->seed ^ hsh);
    pbd_rng_seed(&rd, (opt->seed ^ hsh) + 0x5bd1e995ULL);
    r->samples = N;
    r->degenerate_samples = M;
    r->momentum = type->internal ? PBD_GC_MOMENTUM_OK : PBD_GC_MOMENTUM_NA;
    r->hessian_max_rel_err = r->hessian_taylor_order = NAN;
    int n_orders = 0;
    for (int s = 0; s < N; s++) {
        r->rel_err[s] = r->order[s] = r->momentum_errs[s] = NAN;
        r->hessian_rel_err[s] = r->hessian_order[s] = NAN;
        if (!draw(g, &rs, 0)) {
            r->status[s] = PBD_GC_SAMPLE_INVALID;
            r->invalid++;
            continue;
        }
        double C0;
        int st = eval_at(g, g->x, &C0, g->grad);
        if (st != PBD_EVAL_OK) {
            r->status[s] = isfinite(C0) ? PBD_GC_SAMPLE_DEGENERATE : PBD_GC_SAMPLE_NONFINITE;
            if (isfinite(C0)) r->skipped++; else r->nonfinite++;
            continue;
        }
        double e = NAN, o = NAN;
        int finite = isfinite(C0) && all_finite(g->grad, g->n) && projection_finite(g, C0, &rd);
        if (finite) {
            e = fd_error(g, C0, opt->max_rel_err);
            o = taylor(g, C0, &rd);
        }
        if (!finite) e = -1.0; /* recorded as non-finite */
        if (!pbd_gradcheck_record(r, s, e, o, orders, &n_orders)) continue;
        if (type->internal) {
            double m = momentum_error(g);
            r->momentum_errs[s] = m;
            r->momentum_err = fmax(r->momentum_err, m);
            if (!(m <= opt->momentum_tol)) r->momentum = PBD_GC_MOMENTUM_FAIL;
        }
    }
    if (r->checked == 0) r->max_rel_err = NAN;
    r->taylor_order = pbd_hessian_median(orders, n_orders); /* NaN when none */
    int degenerate_checked = 0;
    for (int s = 0; s < M; s++) {
        r->degenerate_rel_err[s] = NAN;
        if (!draw(g, &rs, 1)) {
            r->degenerate_status[s] = PBD_GC_SAMPLE_INVALID;
            r->invalid++;
            continue;
        }
        double C0;
        int st = eval_at(g, g->x, &C0, g->grad);
        int finite = isfinite(C0) && all_finite(g->grad, g->n) &&
                     (st != PBD_EVAL_OK || projection_finite(g, C0, &rd));
        if (!pbd_gradcheck_degenerate_sample(r, s, finite, st == PBD_EVAL_OK)) continue;
        degenerate_checked +=
            pbd_gradcheck_degenerate_record(r, s, fd_error(g, C0, opt->max_rel_err));
    }
    if (degenerate_checked == 0) r->degenerate_max_rel_err = NAN;
    r->pass = r->checked > 0 && r->invalid == 0 && r->nonfinite == 0 &&
              r->degenerate_nonfinite == 0 && r->max_rel_err <= opt->max_rel_err &&
              r->taylor_order >= opt->min_taylor_order && r->momentum != PBD_GC_MOMENTUM_FAIL;
    free(g);
    free(orders);
    return PBD_OK;
}
