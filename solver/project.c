/* Constraint projection, generic over the registry (PBD Sec. 3.3, XPBD Eq. 17–18). */
#include "pbd.h"
#include "solver_private.h"

#include <math.h>

/* Σ_j w_j |∇_j C|² below this is an all-fixed or degenerate constraint: skip it. */
#define PBD_MIN_DENOMINATOR 1e-300

/* PBD projection; *dlambda receives its multiplier Δλ = -k C / Σ w|∇C|², so that
 * Δx_j = Δλ w_j ∇_j C as in XPBD and Σ Δλ ∇C / Δt is the constraint's impulse (the contact
 * impulses of velocityUpdate and the rigid coupling read it, PBD Sec. 4.2). */
static int project_pbd(const pbd_constraint_type *type, const pbd_eval_input *in,
                       const double *w, double k, double *x_out, double *grad, double *dlambda)
{
    double C;
    *dlambda = 0.0;
    int st = type->eval(in, &C, grad);
    if (st != PBD_EVAL_OK) return st;
    if (type->inequality && C >= 0.0) return -1;
    double denom = 0.0;
    for (int j = 0; j < in->arity; j++) {
        const double *g = grad + 3 * j;
        denom += w[j] * (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    }
    if (!(denom > PBD_MIN_DENOMINATOR) || !isfinite(C)) return PBD_EVAL_DEGENERATE;
    double s = C / denom; /* Eq. 8 */
    for (int j = 0; j < in->arity; j++)
        for (int c = 0; c < 3; c++) x_out[3 * j + c] -= k * s * w[j] * grad[3 * j + c]; /* Eq. 9 */
    *dlambda = -k * s;
    return PBD_EVAL_OK;
}

int pbd_project_generic(const pbd_constraint_type *type, const pbd_eval_input *in,
                        const double *w, double k, double *x_out, double *grad)
{
    double dlambda;
    return project_pbd(type, in, w, k, x_out, grad, &dlambda);
}

/* XPBD (Macklin et al. 2016, Eq. 18): Δλ = (-C - α̃λ) / (Σ w|∇C|² + α̃), Δx = Δλ w ∇C. */
int pbd_project_xpbd(const pbd_constraint_type *type, const pbd_eval_input *in, const double *w,
                     double alpha_tilde, double *lambda, double *x_out, double *grad)
{
    double C;
    int st = type->eval(in, &C, grad);
    if (st != PBD_EVAL_OK) return st;
    if (type->inequality && C >= 0.0) return -1;
    double denom = alpha_tilde;
    for (int j = 0; j < in->arity; j++) {
        const double *g = grad + 3 * j;
        denom += w[j] * (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    }
    if (!(denom > PBD_MIN_DENOMINATOR) || !isfinite(C)) return PBD_EVAL_DEGENERATE;
    double dlambda = (-C - alpha_tilde * *lambda) / denom;
    *lambda += dlambda;
    for (int j = 0; j < in->arity; j++)
        for (int c = 0; c < 3; c++) x_out[3 * j + c] += dlambda * w[j] * grad[3 * j + c];
    return PBD_EVAL_OK;
}

/* Gather constraint c of set s from positions pos into the world's workspace. */
void pbd_gather(pbd_world *w, const pbd_constraint_set *s, int c, const double *pos,
                pbd_eval_input *in)
{
    const int32_t *idx = s->idx + (size_t)c * s->arity;
    for (int j = 0; j < s->arity; j++) {
        const double *src = pos + 3 * (size_t)idx[j];
        double *dst = w->work_x + 3 * j;
        dst[0] = src[0]; dst[1] = src[1]; dst[2] = src[2];
        w->work_w[j] = w->w[idx[j]];
    }
    int nr = s->type->n_rest;
    in->x = w->work_x;
    in->arity = s->arity;
    in->rest = s->rest + (size_t)c * (nr > 0 ? nr : 1);
    in->aux = s->aux;
    in->n_aux = s->n_aux;
}

void pbd_scatter(pbd_world *w, const pbd_constraint_set *s, int c, double *pos)
{
    const int32_t *idx = s->idx + (size_t)c * s->arity;
    for (int j = 0; j < s->arity; j++) {
        double *dst = pos + 3 * (size_t)idx[j];
        const double *src = w->work_x + 3 * j;
        dst[0] = src[0]; dst[1] = src[1]; dst[2] = src[2];
    }
}

/* Project constraint c of set s at the predicted positions w->p (Gauss–Seidel: in place). */
int pbd_project_one(pbd_world *w, pbd_constraint_set *s, int c, double alpha_scale)
{
    pbd_eval_input in;
    pbd_gather(w, s, c, w->p, &in);
    int st;
    if (w->def.method == PBD_METHOD_XPBD)
        st = pbd_project_xpbd(s->type, &in, w->work_w, s->compliance[c] * alpha_scale,
                              &s->lambda[c], w->work_x, w->work_grad);
    else {
        double dlambda;
        st = project_pbd(s->type, &in, w->work_w, s->k_eff[c], w->work_x, w->work_grad, &dlambda);
        s->lambda[c] += dlambda;
    }
    if (st == PBD_EVAL_OK) pbd_scatter(w, s, c, w->p);
    return st;
}
