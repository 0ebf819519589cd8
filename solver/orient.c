/* Orientations beside the particles (Cosserat rods, Kugelstadt & Schömer 2016): one unit
 * quaternion per rod segment with its principal inverse inertias, predicted, projected and
 * updated like the positions (K&S Algorithm 1), and counted in the momenta (the spin).
 * A world without orientations (n_orient = 0) runs none of this. */
#include "pbd.h"
#include "solver/method.h"
#include "solver_private.h"
#include "variants.h"
#include "solver/xpbd/xpbd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Σ w|∇C|² below this is an all-fixed or degenerate constraint (as in solver/xpbd/project.c). */
#define ORIENT_MIN_DENOMINATOR 1e-300

static int all_free(const double *iinv) { return iinv[0] > 0.0 && iinv[1] > 0.0 && iinv[2] > 0.0; }
static int all_fixed(const double *iinv) { return !(iinv[0] > 0.0 || iinv[1] > 0.0 || iinv[2] > 0.0); }

int pbd_world_add_orientation(pbd_world *w, const double q[4], const double omega[3],
                              const double inv_inertia[3])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 1e-12 && isfinite(n))) {
        pbd_error(PBD_EINVAL, "pbd_world_add_orientation: expected a non-zero finite quaternion, "
                  "found (%g, %g, %g, %g)", q[0], q[1], q[2], q[3]);
        return -1;
    }
    for (int k = 0; k < 3; k++)
        if (!(inv_inertia[k] >= 0.0 && isfinite(inv_inertia[k])) ||
            (omega && !isfinite(omega[k]))) {
            pbd_error(PBD_EINVAL, "pbd_world_add_orientation: expected finite inverse inertias "
                      ">= 0 and a finite angular velocity, found inverse inertia %g, omega %g",
                      inv_inertia[k], omega ? omega[k] : 0.0);
            return -1;
        }
    size_t m = (size_t)w->n_orient + 1;
    double *a = realloc(w->q, 4 * m * sizeof *a);
    if (a) w->q = a;
    double *b = realloc(w->u, 4 * m * sizeof *b);
    if (b) w->u = b;
    double *c = realloc(w->omega, 3 * m * sizeof *c);
    if (c) w->omega = c;
    double *d = realloc(w->inv_inertia, 3 * m * sizeof *d);
    if (d) w->inv_inertia = d;
    if (!a || !b || !c || !d) {
        pbd_error(PBD_ENOMEM, "pbd_world_add_orientation: out of memory for %zu orientations", m);
        return -1;
    }
    int i = w->n_orient++;
    for (int k = 0; k < 4; k++) w->q[4 * i + k] = w->u[4 * i + k] = q[k] / n;
    for (int k = 0; k < 3; k++) {
        w->omega[3 * i + k] = omega ? omega[k] : 0.0;
        w->inv_inertia[3 * i + k] = inv_inertia[k];
    }
    return i;
}

/* out = R diag(s) Rᵀ g (W g for s the inverse inertias, I ω for s the inertias); returns
 * gᵀ R diag(s) Rᵀ g */
static double frame_apply(const double *q, const double *s, const double *g, double *out)
{
    double b[3];
    pbd_quat_rotate_inv(q, g, b);
    double quad = s[0] * b[0] * b[0] + s[1] * b[1] * b[1] + s[2] * b[2] * b[2];
    if (out) {
        for (int k = 0; k < 3; k++) b[k] *= s[k];
        pbd_quat_rotate(q, b, out);
    }
    return quad;
}

static void inertia_of(const double *iinv, double *I)
{
    for (int k = 0; k < 3; k++) I[k] = 1.0 / iinv[k];
}

void pbd_orientation_momentum(const pbd_world *w, double spin[3], double *kinetic)
{
    spin[0] = spin[1] = spin[2] = 0.0;
    double ke = 0.0;
    for (int i = 0; i < w->n_orient; i++) {
        const double *iinv = w->inv_inertia + 3 * i, *om = w->omega + 3 * i;
        if (!all_free(iinv)) continue;
        double I[3], L[3];
        inertia_of(iinv, I);
        ke += 0.5 * frame_apply(w->q + 4 * i, I, om, L);
        for (int k = 0; k < 3; k++) spin[k] += L[k];
    }
    if (kinetic) *kinetic = ke;
}

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
        denom += frame_apply(ws->x + 3 * np + 4 * (j - np), w->inv_inertia + 3 * (size_t)idx[j],
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
        if (all_fixed(iinv)) continue;
        double *u = w->u + 4 * (size_t)idx[j], th[3];
        frame_apply(u, iinv, g + 3 * j, th);
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
        if (all_fixed(w->inv_inertia + 3 * (size_t)idx[j])) continue;
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
        if (all_fixed(iinv)) {
            om[0] = om[1] = om[2] = 0.0;
            continue;
        }
        if (all_free(iinv)) /* ω += h I⁻¹ (τ − ω × I ω), τ = 0 (K&S Alg. 1), body frame */
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

pbd_status pbd_orient_check(const pbd_world *w, int after_step)
{
    int rods = w->n_orient > 0;
    for (int s = 0; s < w->n_sets && !rods; s++) rods = w->sets[s].type->n_orient > 0;
    if (!rods) return PBD_OK;
    if (!after_step) {
        if (w->def.scheme != PBD_SCHEME_GAUSS_SEIDEL)
            return pbd_error(PBD_EINVAL, "scheme: expected gauss-seidel for a world with "
                             "orientations (rods), found %s: the Jacobi and coloured sweeps "
                             "move particles only (solver/README.md \"Orientations\")",
                             w->def.scheme == PBD_SCHEME_JACOBI ? "jacobi" : "colored");
        if (w->def.rod_projection == PBD_ROD_CLOSED_FORM)
            for (int s = 0; s < w->n_sets; s++) { /* an element's rows: consecutive, one stencil */
                const pbd_constraint_set *set = &w->sets[s];
                const int nb = set->type->n_components;
                if (!set->type->project_element) continue;
                for (int c = 0; c < set->count; c++)
                    if (set->count % nb != 0 ||
                        memcmp(set->idx + (size_t)c * set->arity,
                               set->idx + (size_t)(c - c % nb) * set->arity,
                               (size_t)set->arity * sizeof *set->idx) != 0)
                        return pbd_error(PBD_EINVAL, "rod-projection: expected set %d (%s) in "
                                         "elements of %d rows on one stencil for the closed "
                                         "form, found %d rows, row %d apart from its element",
                                         s, set->type->name, nb, set->count, c);
            }
        return PBD_OK;
    }
    for (int i = 0; i < w->n_orient; i++) {
        int ok = 1;
        for (int k = 0; k < 4; k++) ok &= isfinite(w->q[4 * i + k]);
        for (int k = 0; k < 3; k++) ok &= isfinite(w->omega[3 * i + k]);
        if (!ok)
            return pbd_error(PBD_ENUMERIC, "step %ld: orientation %d has a non-finite quaternion "
                             "or angular velocity", w->step_count, i);
    }
    return PBD_OK;
}
