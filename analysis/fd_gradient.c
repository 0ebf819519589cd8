/* Central finite differences, the one implementation used by the gradient checker
 * (analysis/gradcheck.c) and the tests: a generic Jacobian of f: R^n → R^m (m = 1 for C,
 * m = n for ∇C, i.e. a Hessian), and the gradient of a constraint type's C with the
 * checker's step and error metric. */
#include "analysis_private.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Allowance for the constants in the FD error estimate (see pbd_fd_gradient). */
#define FD_ERROR_MARGIN 10.0

static double norm_inf(const double *a, int n)
{
    double m = 0.0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
    return m;
}

int pbd_fd_jacobian(pbd_fd_fn f, void *user, const double *x, int n, int m, double h,
                    double *jac, double *work)
{
    double *xt = work, *fp = work + n, *fm = work + n + m;
    memcpy(xt, x, sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
        double xi = x[i], xp = xi + h, xm = xi - h;
        for (int k = 0; k < m; k++) fp[k] = fm[k] = NAN;
        xt[i] = xp;
        int sp = f(user, xt, fp);
        xt[i] = xm;
        int sm = f(user, xt, fm);
        xt[i] = xi;
        if (!all_finite(fp, m) || !all_finite(fm, m)) return PBD_FD_NONFINITE;
        if (sp != PBD_EVAL_OK || sm != PBD_EVAL_OK) return PBD_FD_DEGENERATE;
        /* the step actually taken, (x + h) - (x - h), exact in floating point */
        double step = xp - xm;
        for (int k = 0; k < m; k++) jac[(size_t)i * (size_t)m + (size_t)k] = (fp[k] - fm[k]) / step;
    }
    return PBD_FD_OK;
}

double pbd_fd_length_scale(const pbd_eval_input *in, double C, const double *grad)
{
    const int arity = in->arity;
    const double *x = in->x;
    double c[3] = {0, 0, 0};
    for (int j = 0; j < arity; j++)
        for (int k = 0; k < 3; k++) c[k] += x[3 * j + k] / arity;
    double L = 0.0;
    for (int j = 0; j < arity; j++) {
        const double *p = x + 3 * j;
        double d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
        L = fmax(L, norm2(d, 3));
    }
    if (arity == 1) {
        double unit = fmax(1.0, norm2(x, 3)), gn = norm2(grad, 3);
        L = gn > 0.0 ? fabs(C) / gn : unit;
        L = fmin(fmax(L, 1e-3 * unit), unit);
    }
    return L > 0.0 ? L : 1.0;
}

/* C of a constraint type as a pbd_fd_fn (m = 1). */
typedef struct fd_constraint {
    const pbd_constraint_type *type;
    const pbd_eval_input *in;
} fd_constraint;

static int eval_constraint(void *user, const double *x, double *C)
{
    const fd_constraint *u = user;
    pbd_eval_input in = *u->in;
    in.x = x;
    *C = NAN;
    return u->type->eval(&in, C, NULL);
}

int pbd_fd_gradient(const pbd_constraint_type *type, const pbd_eval_input *in, double C,
                    const double *grad, double tol, double *fd, double *max_rel_err)
{
    const int n = 3 * in->arity;
    const double eps = DBL_EPSILON;
    double L = pbd_fd_length_scale(in, C, grad);
    double h = cbrt(eps) * L;
    double stack[3 * PBD_SAMPLE_MAX_ARITY + 2];
    double *work = n + 2 <= (int)(sizeof stack / sizeof stack[0])
                       ? stack
                       : malloc(sizeof(double) * (size_t)(n + 2));
    if (!work) return PBD_FD_ENOMEM;
    fd_constraint u = {type, in};
    int st = pbd_fd_jacobian(eval_constraint, &u, in->x, n, 1, h, fd, work);
    if (work != stack) free(work);
    if (st != PBD_FD_OK || !max_rel_err) return st;

    /* The checker's metric: |g_a - g_fd| / max(|g_a|, |g_fd|, floor) per coordinate. */
    double K = fabs(C); /* term scale: |C| + Σ_i |x_i ∂C/∂x_i| */
    for (int i = 0; i < n; i++) K += fabs(in->x[i] * grad[i]);
    double G = norm_inf(grad, n);
    double expected = FD_ERROR_MARGIN * cbrt(eps * eps) * (G + K / L);
    double floor_abs = expected / tol;
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        double ga = grad[i];
        double den = fmax(fmax(fabs(ga), fabs(fd[i])), floor_abs);
        double rel = den > 0.0 ? fabs(ga - fd[i]) / den : 0.0;
        if (rel > worst) worst = rel;
    }
    *max_rel_err = worst;
    return PBD_FD_OK;
}
