/* The orientations' stages of PBD/XPBD's step (Cosserat rods, Kugelstadt & Schömer 2016):
 * the projection of an orientation type's row or element with the generalised inverse mass
 * W = R diag(inv_inertia) Rᵀ, and the gyroscopic term, prediction and update of K&S
 * Algorithm 1. The orientations themselves, their momentum and checks: solver/orient.c. */
#include "solver/method.h"
#include "solver/xpbd/xpbd.h"

#include <math.h>
#include <string.h>

/* Σ w|∇C|² below this is an all-fixed or degenerate constraint (as in solver/xpbd/project.c). */
#define ORIENT_MIN_DENOMINATOR 1e-300

int pbd_project_orient_into(const pbd_world *w, pbd_workspace *ws, const pbd_constraint_set *s,
                            int c, double alpha_scale, const double *pos, double *dlambda)
{
    pbd_eval_input in;
    pbd_gather_ws(w, ws, s, c, pos, &in);
    *dlambda = 0.0;
    const int no = s->type->n_orient, np = s->arity - no;
    const int32_t *idx = s->idx + (size_t)c * s->arity;
    double C, *g = ws->grad;
    int st = s->type->eval(&in, &C, g);
    if (st != PBD_EVAL_OK) return st;
    if (s->type->inequality && C >= 0.0) return -1;
    double denom = 0.0; /* Σ w |∇_x C|² + Σ ∇_θ Cᵀ W ∇_θ C */
    for (int j = 0; j < np; j++)
        denom += ws->w[j] * (g[3 * j] * g[3 * j] + g[3 * j + 1] * g[3 * j + 1] +
                             g[3 * j + 2] * g[3 * j + 2]);
    for (int j = np; j < s->arity; j++)
        denom += pbd_orient_frame_apply(ws->x + 3 * np + 4 * (j - np), w->inv_inertia + 3 * (size_t)idx[j],
                             g + 3 * j, NULL);
    if (!(denom > ORIENT_MIN_DENOMINATOR) || !isfinite(C)) return PBD_EVAL_DEGENERATE;
    double dl;
    if (pbd_method_of(&w->def)->compliance) { /* XPBD Eq. 18 (no constraint damping here) */
        double at = s->compliance[c] * alpha_scale;
        dl = (-C - at * s->lambda[c]) / (denom + at);
    } else { /* PBD Eq. 8–9 with the stiffness k */
        dl = -s->k_eff[c] * C / denom;
    }
    if (!isfinite(dl)) return PBD_EVAL_DEGENERATE;
    for (int j = 0; j < np; j++)
        for (int k = 0; k < 3; k++) ws->x[3 * j + k] += dl * ws->w[j] * g[3 * j + k];
    for (int j = np; j < s->arity; j++) { /* Δθ = Δλ W ∇_θ C, u ← exp(Δθ/2) u */
        const double *iinv = w->inv_inertia + 3 * (size_t)idx[j];
        if (pbd_orient_all_fixed(iinv)) continue;
        double *u = w->u + 4 * (size_t)idx[j], th[3];
        pbd_orient_frame_apply(u, iinv, g + 3 * j, th);
        for (int k = 0; k < 3; k++) th[k] *= dl;
        pbd_quat_perturb(u, th, u);
    }
    *dlambda = dl;
    return PBD_EVAL_OK;
}

int pbd_project_orient_element_into(const pbd_world *w, pbd_workspace *ws,
                                    const pbd_constraint_set *s, int c, double alpha_scale,
                                    const double *pos, double *dlambda)
{
    enum { MAX_W = 16, MAX_ROWS = PBD_MAX_BLOCK };
    const pbd_constraint_type *t = s->type;
    const int nb = t->n_components, no = t->n_orient, np = s->arity - no;
    const int xpbd = pbd_method_of(&w->def)->compliance;
    const int32_t *idx = s->idx + (size_t)c * s->arity;
    double wv[MAX_W], at[MAX_ROWS], lam[MAX_ROWS], k[MAX_ROWS];
    for (int r = 0; r < nb && r < MAX_ROWS; r++) dlambda[r] = 0.0;
    if (nb < 1 || nb > MAX_ROWS || np + 3 * no > MAX_W || c + nb > s->count)
        return PBD_EVAL_DEGENERATE;
    pbd_eval_input in;
    pbd_gather_ws(w, ws, s, c, pos, &in);
    for (int j = 0; j < np; j++) wv[j] = ws->w[j];
    for (int j = 0; j < no; j++)
        for (int a = 0; a < 3; a++) wv[np + 3 * j + a] = w->inv_inertia[3 * (size_t)idx[np + j] + a];
    for (int r = 0; r < nb; r++) {
        at[r] = xpbd ? s->compliance[c + r] * alpha_scale : 0.0;
        lam[r] = xpbd ? s->lambda[c + r] : 0.0;
        k[r] = xpbd ? 1.0 : s->k_eff[c + r];
    }
    int st = t->project_element(&in, wv, at, lam, k, ws->x, dlambda);
    if (st != PBD_EVAL_OK) {
        for (int r = 0; r < nb; r++) dlambda[r] = 0.0;
        return st;
    }
    for (int j = np; j < s->arity; j++) { /* the quaternions back to u; positions: the caller */
        if (pbd_orient_all_fixed(w->inv_inertia + 3 * (size_t)idx[j])) continue;
        const double *src = ws->x + 3 * np + 4 * (j - np);
        double *u = w->u + 4 * (size_t)idx[j];
        for (int a = 0; a < 4; a++) u[a] = src[a];
    }
    return PBD_EVAL_OK;
}

void pbd_orient_forces(pbd_world *w, double h)
{
    const int scale = w->def.damping == PBD_DAMPING_SCALE;
    for (int i = 0; i < w->n_orient; i++) {
        const double *iinv = w->inv_inertia + 3 * i, *q = w->q + 4 * i;
        double *om = w->omega + 3 * i;
        if (pbd_orient_all_fixed(iinv)) {
            om[0] = om[1] = om[2] = 0.0;
            continue;
        }
        if (pbd_orient_all_free(iinv)) /* ω += h I⁻¹ (τ − ω × I ω), τ = 0 (K&S Alg. 1), body frame */
            pbd_quat_gyroscopic_step(q, iinv, h, om);
        if (scale) /* dampVelocities' v <- (1 - k) v, for ω too */
            for (int k = 0; k < 3; k++) om[k] *= 1.0 - w->def.k_damping;
    }
}

void pbd_orient_predict(pbd_world *w, double h)
{
    for (int i = 0; i < w->n_orient; i++) { /* u = q + ½ h (0, ω) q, normalised (K&S Alg. 1) */
        const double *om = w->omega + 3 * i;
        double theta[3] = {h * om[0], h * om[1], h * om[2]};
        pbd_quat_add_rotation(w->q + 4 * i, theta, 1.0, w->u + 4 * i);
    }
}

void pbd_orient_update(pbd_world *w, double h)
{
    for (int i = 0; i < w->n_orient; i++) { /* ω = 2 Im(u q̄)/h, q = u (K&S Alg. 1) */
        double *q = w->q + 4 * i, *u = w->u + 4 * i;
        pbd_quat_angular_velocity(u, q, h, w->omega + 3 * i);
        memcpy(q, u, 4 * sizeof *q);
    }
}
