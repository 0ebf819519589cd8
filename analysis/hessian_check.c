/* The Hessian check (DESIGN.md "The constraint is the unit": ∇²C is checked against finite
 * differences of ∇C like ∇C against finite differences of C). For one sample of a type
 * with an analytic `hessian`:
 *   1. central differences of the analytic gradient, column by column, against H;
 *   2. a Taylor-remainder test along a random direction d:
 *        r(h) = |∇C(x + hLd) - ∇C(x) - hL H d| = O(h²) when H is right, O(h) when not.
 * The differences are pbd_fd_jacobian's (analysis/fd_gradient.c) applied to ∇C; the error
 * model is the gradient check's (pbd_fd_gradient) one derivative up: step
 * h = ε^(1/3) L, expected FD error E = 10 ε^(2/3) (|H|∞ + K/L) with K the magnitude of the
 * terms ∇C is computed from, max_r (|∇_r C| + Σ_i |x_i H_ri|); a component below E/tol is
 * measured against that floor. */
#include "analysis_private.h"
#include "hessian_check.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HC_TAYLOR_POINTS 13
#define HC_TAYLOR_ROUNDING 100.0
#define HC_FD_ERROR_MARGIN 10.0

typedef struct hc_work {
    const pbd_constraint_type *type;
    pbd_eval_input in;
    int n;
    double *xt, *H, *gp, *g0, *dir, *Hd;
} hc_work;

/* ∇C at x (in->x replaced): PBD_EVAL_OK, or PBD_EVAL_DEGENERATE, or -1 when non-finite. */
static int grad_at(hc_work *w, const double *x, double *grad)
{
    pbd_eval_input in = w->in;
    in.x = x;
    double C;
    int st = w->type->eval(&in, &C, grad);
    for (int i = 0; i < w->n && st == PBD_EVAL_OK; i++)
        if (!isfinite(grad[i])) return -1;
    return st;
}

/* ∇C as the function pbd_fd_jacobian differentiates (m = n: the Hessian). */
static int grad_fn(void *user, const double *x, double *f)
{
    hc_work *w = user;
    pbd_eval_input in = w->in;
    in.x = x;
    double C;
    return w->type->eval(&in, &C, f);
}

/* Central differences of ∇C (pbd_fd_jacobian, analysis/fd_gradient.c) against H, entry by
 * entry: the largest relative error, NAN when a perturbed point is degenerate, -1 on a
 * non-finite gradient, -2 out of memory. */
static double fd_error(hc_work *w, double L, double tol)
{
    const double eps = DBL_EPSILON;
    int n = w->n;
    double Hmax = 0.0, K = 0.0;
    for (int r = 0; r < n; r++) {
        double k = fabs(w->g0[r]);
        for (int i = 0; i < n; i++) {
            Hmax = fmax(Hmax, fabs(w->H[r * n + i]));
            k += fabs(w->in.x[i] * w->H[r * n + i]);
        }
        K = fmax(K, k);
    }
    double floor_abs = HC_FD_ERROR_MARGIN * cbrt(eps * eps) * (Hmax + K / L) / tol;
    double *jac = malloc(sizeof(double) * ((size_t)n * n + 3 * (size_t)n));
    if (!jac) return -2.0;
    int st = pbd_fd_jacobian(grad_fn, w, w->in.x, n, n, cbrt(eps) * L, jac, jac + (size_t)n * n);
    double worst = st == PBD_FD_NONFINITE ? -1.0 : st != PBD_FD_OK ? NAN : 0.0;
    for (int c = 0; c < n && st == PBD_FD_OK; c++) /* row c of jac: ∂∇C/∂x_c = column c of H */
        for (int r = 0; r < n; r++) {
            double fd = jac[(size_t)c * n + r], ha = w->H[r * n + c];
            double den = fmax(fmax(fabs(ha), fabs(fd)), floor_abs);
            double rel = den > 0.0 ? fabs(ha - fd) / den : 0.0;
            if (rel > worst) worst = rel;
        }
    free(jac);
    return worst;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The Taylor order along a random unit direction (INFINITY: the remainder is rounding at
 * every step, e.g. a constant Hessian); NAN on a degenerate point, -1 on non-finite. */
static double taylor_order(hc_work *w, double L, pbd_rng *rng)
{
    int n = w->n;
    double dn = 0.0, xmax = 0.0, hf = 0.0, gn = 0.0;
    for (int i = 0; i < n; i++) {
        w->dir[i] = pbd_rng_gaussian(rng);
        dn += w->dir[i] * w->dir[i];
        xmax = fmax(xmax, fabs(w->in.x[i]));
        gn += w->g0[i] * w->g0[i];
    }
    dn = sqrt(dn);
    for (int i = 0; i < n; i++) w->dir[i] /= dn;
    for (int r = 0; r < n; r++) {
        double s = 0.0;
        for (int i = 0; i < n; i++) {
            s += w->H[r * n + i] * w->dir[i];
            hf += w->H[r * n + i] * w->H[r * n + i];
        }
        w->Hd[r] = s;
    }
    hf = sqrt(hf);
    double rounding = HC_TAYLOR_ROUNDING * DBL_EPSILON * (sqrt(gn) + (xmax + L) * hf);
    double lx[HC_TAYLOR_POINTS], ly[HC_TAYLOR_POINTS];
    int m = 0;
    for (int k = 0; k < HC_TAYLOR_POINTS; k++) {
        double h = pow(10.0, -1.0 - 0.25 * k), t = h * L;
        for (int i = 0; i < n; i++) w->xt[i] = w->in.x[i] + t * w->dir[i];
        int st = grad_at(w, w->xt, w->gp);
        if (st < 0) return -1.0;
        if (st != PBD_EVAL_OK) return NAN;
        double r2 = 0.0;
        for (int i = 0; i < n; i++) {
            double d = w->gp[i] - w->g0[i] - t * w->Hd[i];
            r2 += d * d;
        }
        double r = sqrt(r2);
        if (r > rounding) {
            lx[m] = log(h);
            ly[m] = log(r);
            m++;
        }
    }
    return m < 2 ? INFINITY : pbd_fit_slope(lx, ly, m);
}

int pbd_hessian_check_sample(const pbd_constraint_type *type, const pbd_eval_input *in,
                             double L, double tol, pbd_rng *rng, double *rel_err, double *order)
{
    *rel_err = *order = NAN;
    int n = 3 * in->arity;
    hc_work w = {.type = type, .in = *in, .n = n};
    double *buf = malloc(sizeof(double) * ((size_t)n * n + 5 * (size_t)n));
    if (!buf) return -2;
    w.H = buf;
    w.xt = w.H + (size_t)n * n;
    w.gp = w.xt + n;
    w.g0 = w.gp + n;
    w.dir = w.g0 + n;
    w.Hd = w.dir + n;
    int result = PBD_EVAL_OK;
    int st = type->hessian(in, w.H), sg = grad_at(&w, in->x, w.g0);
    for (int i = 0; i < n * n && st == PBD_EVAL_OK; i++)
        if (!isfinite(w.H[i])) st = -1;
    if (st < 0 || sg < 0) {
        result = -1;
    } else if (st != PBD_EVAL_OK || sg != PBD_EVAL_OK) {
        result = PBD_EVAL_DEGENERATE;
    } else {
        double e = fd_error(&w, L, tol), o = taylor_order(&w, L, rng);
        if (e == -2.0) result = -2;
        else if (e < 0.0 || o < 0.0) result = -1;
        else if (isnan(e) || isnan(o)) result = PBD_EVAL_DEGENERATE;
        *rel_err = e;
        *order = o;
    }
    free(buf);
    return result;
}

double pbd_hessian_median(double *values, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(values[i])) values[m++] = values[i];
    if (m == 0) return NAN;
    qsort(values, (size_t)m, sizeof(double), cmp_double);
    return m % 2 ? values[m / 2] : 0.5 * (values[m / 2 - 1] + values[m / 2]);
}
