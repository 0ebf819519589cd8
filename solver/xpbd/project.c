/* Constraint projection, generic over the registry (PBD Sec. 3.3, XPBD Eq. 17–18). */
#include "solver/pbd.h"
#include "solver/method.h"
#include "solver/solver_private.h"
#include "solver/variants.h"
#include "solver/xpbd/xpbd.h"

#include <math.h>

/* Σ_j w_j |∇_j C|² below this is an all-fixed or degenerate constraint: skip it. */
#define PBD_MIN_DENOMINATOR 1e-300

/* x_out_j += Δλ w_j ∇_j C; an orientation type's (n_orient > 0) orientation entries instead
 * turn their quaternion in x_out (after the particles, pbd_constraint.h) by Δθ_j = Δλ w_j ∇_θ C,
 * q ← exp(Δθ/2) q, w_j an isotropic inverse inertia (the world's anisotropic one:
 * solver/orient.c). */
static void apply_step(const pbd_constraint_type *type, const pbd_eval_input *in,
                       const double *w, double dl, const double *grad, double *x_out)
{
    const int np = in->arity - type->n_orient;
    for (int j = 0; j < np; j++)
        for (int c = 0; c < 3; c++) x_out[3 * j + c] += dl * w[j] * grad[3 * j + c];
    for (int j = np; j < in->arity; j++) {
        double th[3] = {dl * w[j] * grad[3 * j], dl * w[j] * grad[3 * j + 1],
                        dl * w[j] * grad[3 * j + 2]};
        double *q = x_out + 3 * np + 4 * (j - np);
        pbd_quat_perturb(q, th, q);
    }
}

/* PBD projection; *dlambda receives its multiplier Δλ = -k C / Σ w|∇C|², so that
 * Δx_j = Δλ w_j ∇_j C as in XPBD and Σ Δλ ∇C / Δt is the constraint's impulse (the contact
 * response and the rigid coupling read it, solver/collision/collision_hooks.c, PBD Sec. 4.2). */
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
    apply_step(type, in, w, -k * s, grad, x_out); /* Eq. 9 */
    *dlambda = -k * s;
    return PBD_EVAL_OK;
}

int pbd_project_generic(const pbd_constraint_type *type, const pbd_eval_input *in,
                        const double *w, double k, double *x_out, double *grad)
{
    double dlambda;
    if (!type->eval) /* no scalar C: the type's goal projection (pbd_constraint.h) */
        return type->project_goal ? type->project_goal(in, w, k, x_out) : PBD_EVAL_DEGENERATE;
    return project_pbd(type, in, w, k, x_out, grad, &dlambda);
}

/* XPBD with constraint damping (Macklin et al. 2016, Eq. 26; Eq. 18 when γ = 0):
 *   Δλ = (-C - α̃λ - γ ∇C·(x - x_n)) / ((1 + γ) Σ_j w_j |∇_j C|² + α̃).
 * A constraint whose particles are all fixed (Σ w|∇C|² = 0) is skipped as degenerate. */
int pbd_xpbd_delta(const pbd_constraint_type *type, const pbd_eval_input *in, const double *w,
                   double alpha_tilde, double gamma, const double *x_prev, double lambda,
                   double *grad, double *dlambda)
{
    double C;
    if (!type->eval) return PBD_EVAL_DEGENERATE; /* no scalar C, no multiplier */
    int st = type->eval(in, &C, grad);
    if (st != PBD_EVAL_OK) return st;
    if (type->inequality && C >= 0.0) return -1;
    double wg = 0.0, rate = 0.0; /* Σ w|∇C|², ∇C·(x - x_n) */
    for (int j = 0; j < in->arity; j++) {
        const double *g = grad + 3 * j;
        wg += w[j] * (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
        if (gamma > 0.0)
            for (int c = 0; c < 3; c++) rate += g[c] * (in->x[3 * j + c] - x_prev[3 * j + c]);
    }
    if (!(wg > PBD_MIN_DENOMINATOR) || !isfinite(C)) return PBD_EVAL_DEGENERATE;
    *dlambda = (-C - alpha_tilde * lambda - gamma * rate) / ((1.0 + gamma) * wg + alpha_tilde);
    return PBD_EVAL_OK;
}

/* XPBD (Macklin et al. 2016, Eq. 18): Δλ = (-C - α̃λ) / (Σ w|∇C|² + α̃), Δx = Δλ w ∇C
 * (Eq. 17); the step's own XPBD path (project_into) is this with damping γ (Eq. 26). */
int pbd_project_generic_xpbd(const pbd_constraint_type *type, const pbd_eval_input *in,
                             const double *w, double alpha_tilde, double *lambda,
                             double *x_out, double *grad)
{
    double dlambda;
    int st = pbd_xpbd_delta(type, in, w, alpha_tilde, 0.0, NULL, *lambda, grad, &dlambda);
    if (st != PBD_EVAL_OK) return st;
    *lambda += dlambda;
    apply_step(type, in, w, dlambda, grad, x_out);
    return PBD_EVAL_OK;
}

pbd_workspace pbd_world_workspace(pbd_world *w)
{
    pbd_workspace ws = {w->work_x, w->work_x0, w->work_w, w->work_grad};
    return ws;
}

/* Gather constraint c of set s from positions pos into the workspace ws. */
void pbd_gather_ws(const pbd_world *w, pbd_workspace *ws, const pbd_constraint_set *s, int c,
                   const double *pos, pbd_eval_input *in)
{
    const int32_t *idx = s->idx + (size_t)c * s->arity;
    const int np = s->arity - s->type->n_orient; /* then the orientations (rods) */
    for (int j = 0; j < np; j++) {
        const double *src = pos + 3 * (size_t)idx[j];
        double *dst = ws->x + 3 * j;
        dst[0] = src[0]; dst[1] = src[1]; dst[2] = src[2];
        ws->w[j] = w->w[idx[j]];
    }
    for (int j = np; j < s->arity; j++) { /* rods: the orientations' current values, w->u,
                                            * after the particles (the world's workspace) */
        const double *src = w->u + 4 * (size_t)idx[j];
        double *dst = ws->x + 3 * np + 4 * (j - np);
        dst[0] = src[0]; dst[1] = src[1]; dst[2] = src[2]; dst[3] = src[3];
        ws->w[j] = 0.0; /* the inverse inertia is a matrix: pbd_project_orient_into */
    }
    int nr = s->type->n_rest;
    in->x = ws->x;
    in->arity = s->arity;
    in->rest = s->rest + (size_t)c * (nr > 0 ? nr : 1);
    in->aux = s->aux;
    in->n_aux = s->n_aux;
}

void pbd_scatter_ws(const pbd_world *w, const pbd_workspace *ws, const pbd_constraint_set *s,
                    int c, double *pos)
{
    const int32_t *idx = s->idx + (size_t)c * s->arity;
    for (int j = 0; j < s->arity - s->type->n_orient; j++) { /* orientations: already in u */
        if (w->w[idx[j]] <= 0.0) continue;
        double *dst = pos + 3 * (size_t)idx[j];
        const double *src = ws->x + 3 * j;
        dst[0] = src[0]; dst[1] = src[1]; dst[2] = src[2];
    }
}

/* Gather constraint c of set s from positions pos into the world's workspace. */
void pbd_gather(pbd_world *w, const pbd_constraint_set *s, int c, const double *pos,
                pbd_eval_input *in)
{
    pbd_workspace ws = pbd_world_workspace(w);
    pbd_gather_ws(w, &ws, s, c, pos, in);
}

void pbd_scatter(pbd_world *w, const pbd_constraint_set *s, int c, double *pos)
{
    const int32_t *idx = s->idx + (size_t)c * s->arity;
    for (int j = 0; j < s->arity - s->type->n_orient; j++) {
        double *dst = pos + 3 * (size_t)idx[j];
        const double *src = w->work_x + 3 * j;
        dst[0] = src[0]; dst[1] = src[1]; dst[2] = src[2];
    }
}

/* The projection of one constraint with the method of the definition, α̃ = α alpha_scale. */
static int project_into(const pbd_world *w, pbd_workspace *ws, const pbd_constraint_set *s,
                        int c, double h, double alpha_scale, const double *pos, double *dlambda)
{
    pbd_eval_input in;
    if (s->type->n_orient) /* rods: orientations beside the particles (solver/orient.c) */
        return pbd_project_orient_into(w, ws, s, c, alpha_scale, pos, dlambda);
    pbd_gather_ws(w, ws, s, c, pos, &in);
    *dlambda = 0.0;
    if (!s->type->eval) /* no scalar C (shape matching): the fraction k_eff, PBD and XPBD alike */
        return s->type->project_goal ? s->type->project_goal(&in, ws->w, s->k_eff[c], ws->x)
                                     : PBD_EVAL_DEGENERATE;
    if (!pbd_method_of(&w->def)->compliance)
        return project_pbd(s->type, &in, ws->w, s->k_eff[c], ws->x, ws->grad, dlambda);
    double alpha_tilde = s->compliance[c] * alpha_scale; /* α̃ = α/Δt² */
    double gamma = 0.0;
    if (w->def.xpbd_beta > 0.0) {
        /* XPBD Eq. 26: β̃ = Δt² β, γ = α̃ β̃ / Δt (so γ = 0 when α = 0) */
        double beta_tilde = h * h * w->def.xpbd_beta;
        gamma = alpha_tilde * beta_tilde / h;
        if (gamma > 0.0) {
            const int32_t *idx = s->idx + (size_t)c * s->arity;
            for (int j = 0; j < s->arity; j++)
                for (int k = 0; k < 3; k++) ws->x0[3 * j + k] = w->x[3 * (size_t)idx[j] + k];
        }
    }
    double dl;
    int st = pbd_xpbd_delta(s->type, &in, ws->w, alpha_tilde, gamma, ws->x0, s->lambda[c],
                            ws->grad, &dl);
    if (st != PBD_EVAL_OK) return st;
    for (int j = 0; j < s->arity; j++)
        for (int k = 0; k < 3; k++) ws->x[3 * j + k] += dl * ws->w[j] * ws->grad[3 * j + k];
    *dlambda = dl;
    return PBD_EVAL_OK;
}

/* Solve the n×n system A y = b in place (Gaussian elimination, partial pivoting); 0 on
 * success, -1 when a pivot is below 1e-14 of the largest diagonal (dependent rows). */
static int solve_small(double *A, double *b, int n)
{
    double scale = 0.0;
    for (int i = 0; i < n; i++) scale = fmax(scale, fabs(A[n * i + i]));
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(A[n * i + k]) > fabs(A[n * p + k])) p = i;
        if (!(fabs(A[n * p + k]) > 1e-14 * scale) || !(scale > PBD_MIN_DENOMINATOR)) return -1;
        if (p != k) {
            for (int j = 0; j < n; j++) {
                double t = A[n * k + j];
                A[n * k + j] = A[n * p + j];
                A[n * p + j] = t;
            }
            double t = b[k];
            b[k] = b[p];
            b[p] = t;
        }
        for (int i = k + 1; i < n; i++) {
            double f = A[n * i + k] / A[n * k + k];
            for (int j = k; j < n; j++) A[n * i + j] -= f * A[n * k + j];
            b[i] -= f * b[k];
        }
    }
    for (int k = n - 1; k >= 0; k--) {
        double r = b[k];
        for (int j = k + 1; j < n; j++) r -= A[n * k + j] * b[j];
        b[k] = r / A[n * k + k];
    }
    return 0;
}

/* A block of rows (pbd_constraint_type.block): XPBD Eq. 18 for several constraints at once,
 *   Σ_l (∇C_k W ∇C_lᵀ + δ_kl α̃_k) Δλ_l = −C_k − α̃_k λ_k,   Δx = Σ_k Δλ_k W ∇C_kᵀ,
 * the coupled solve of Macklin & Müller 2021 (Stable Neo-Hookean: hydrostatic and deviatoric
 * together). PBD: α̃ = 0 (Eq. 8 for the block) and Δx scaled by the block's first k_eff.
 * A degenerate row or an inactive inequality is left out (its Δλ = 0). */
int pbd_project_block_into(const pbd_world *w, pbd_workspace *ws, const pbd_constraint_set *s,
                           int c, int nb, double h, const double *pos, double *dlambda)
{
    enum { MAXG = PBD_MAX_BLOCK * 3 * 4 };
    double G[MAXG], Cv[PBD_MAX_BLOCK], A[PBD_MAX_BLOCK * PBD_MAX_BLOCK], at[PBD_MAX_BLOCK];
    int row[PBD_MAX_BLOCK], n = 0;
    const int a3 = 3 * s->arity, xpbd = pbd_method_of(&w->def)->compliance;
    pbd_eval_input in;
    pbd_gather_ws(w, ws, s, c, pos, &in);
    for (int k = 0; k < nb; k++) dlambda[k] = 0.0;
    if (nb > PBD_MAX_BLOCK || a3 > 12) return PBD_EVAL_DEGENERATE; /* outside the contract */
    for (int k = 0; k < nb; k++) {
        in.rest = s->rest + (size_t)(c + k) * (s->type->n_rest > 0 ? s->type->n_rest : 1);
        double C;
        if (s->type->eval(&in, &C, G + a3 * n) != PBD_EVAL_OK || !isfinite(C)) continue;
        if (s->type->inequality && C >= 0.0) continue;
        Cv[n] = C;
        at[n] = xpbd ? s->compliance[c + k] / (h * h) : 0.0; /* α̃ = α/Δt² */
        row[n++] = k;
    }
    if (n == 0) return PBD_EVAL_DEGENERATE;
    double b[PBD_MAX_BLOCK];
    for (int k = 0; k < n; k++) {
        for (int l = 0; l < n; l++) {
            double sum = 0.0;
            for (int j = 0; j < s->arity; j++) {
                const double *gk = G + a3 * k + 3 * j, *gl = G + a3 * l + 3 * j;
                sum += ws->w[j] * (gk[0] * gl[0] + gk[1] * gl[1] + gk[2] * gl[2]);
            }
            A[n * k + l] = sum + (k == l ? at[k] : 0.0);
        }
        b[k] = -Cv[k] - (xpbd ? at[k] * s->lambda[c + row[k]] : 0.0);
    }
    if (solve_small(A, b, n) != 0) return PBD_EVAL_DEGENERATE;
    double k_eff = xpbd ? 1.0 : s->k_eff[c];
    for (int k = 0; k < n; k++) {
        double dl = k_eff * b[k];
        if (!isfinite(dl)) return PBD_EVAL_DEGENERATE;
        dlambda[row[k]] = dl;
    }
    for (int k = 0; k < n; k++)
        for (int j = 0; j < s->arity; j++)
            for (int d = 0; d < 3; d++)
                ws->x[3 * j + d] += dlambda[row[k]] * ws->w[j] * G[a3 * k + 3 * j + d];
    return PBD_EVAL_OK;
}

int pbd_project_into(const pbd_world *w, pbd_workspace *ws, const pbd_constraint_set *s, int c,
                     double h, const double *pos, double *dlambda)
{
    return project_into(w, ws, s, c, h, 1.0 / (h * h), pos, dlambda);
}

/* Project constraint c of set s at the predicted positions w->p (Gauss–Seidel: in place). */
int pbd_project_one(pbd_world *w, pbd_constraint_set *s, int c, double alpha_scale)
{
    pbd_workspace ws = pbd_world_workspace(w);
    double dlambda;
    int st = project_into(w, &ws, s, c, 1.0 / sqrt(alpha_scale), alpha_scale, w->p, &dlambda);
    if (st == PBD_EVAL_OK) {
        s->lambda[c] += dlambda;
        pbd_scatter_ws(w, &ws, s, c, w->p);
    }
    return st;
}
