/* Contacts in VBD and AVBD: the rows solver/collision/ detects each (sub)step (particle–
 * collider planes C = (x − q)·n ≥ 0, self collision C = ±(q − p1)·n̂ − h ≥ 0) enter the
 * vertex's block solve (solver/vbd/vbd.c) with their force and 3×3 Hessian block.
 *
 * VBD (Chen et al. 2024, Sec. 4): the penalty energy E_c = ½ k_c d², d = max(0, −C) the
 * penetration, force −k_c C ∇_iC while C < 0 and Hessian k_c ∇_iC ∇_iCᵀ (for a self row the
 * term C ∇²C of the triangle's vertices is left out, ours: positive semi-definite). Friction
 * as the paper takes it from IPC (Li et al. 2020 Eq. 14–15): with the contact force
 * λ = k_c d, the tangential displacement over the step u = P (x_i − x_t,i), P = I − n nᵀ (the
 * normal of the detection, fixed for the step),
 *   f_f = −μ λ f1(|u|)/|u| u,   H_f = μ λ f1(|u|)/|u| P   (f1's derivative left out: PSD),
 * f1(u) = 2u/ε − u²/ε² below ε = ε_v h, else 1, so |f_f| ≤ μ λ: the Coulomb cone.
 *
 * AVBD (Giles et al. 2025, "Contacts and friction"): the normal row is a hard inequality,
 * λ⁺ = k C + λ clamped to (−∞, 0] (solver/vbd/avbd.c); friction a hard row on u whose
 * multiplier, a vector in the tangent plane, is clamped to the cone:
 *   λ_t⁺ = k_t u + λ_t,  |λ_t⁺| ≤ μ |λ⁺|  (scaled onto the cone when outside: sliding),
 * force −λ_t⁺, Hessian k_t P while inside the cone (sticking) and 0 on it (constant force);
 * after each iteration λ_t ← λ_t⁺ and k_t ← k_t + β|u| while sticking. Contact rows start each
 * (sub)step at k_start and λ = 0 (ours: the rows are detected anew, so nothing is warm
 * started). Friction acts on particle–collider rows only (ours: self contacts frictionless). */
#include "solver/families.h"
#include "solver/method.h"

#include <math.h>

/* u = P (x_i − x_t,i) of particle i against the unit normal n; returns |u|. */
static double tangential(const pbd_family_ws *fw, const double *x, int i, const double *n,
                         double u[3])
{
    const double *xt = fw->x_t + 3 * (size_t)i;
    double un = 0.0;
    for (int k = 0; k < 3; k++) u[k] = x[k] - xt[k];
    for (int k = 0; k < 3; k++) un += u[k] * n[k];
    for (int k = 0; k < 3; k++) u[k] -= un * n[k];
    return sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
}

/* The friction force ft (ft·u ≤ 0) of collider row g of particle i at x with normal force
 * multiplier lam (≤ 0 when pushing) and the stiffness of its Hessian block k P (0: none). */
static void friction(const pbd_world *w, const pbd_family_ws *fw, int g, int i,
                     const double *x, const double *n, double lam, double h, double ft[3],
                     double *k)
{
    double u[3], mu = fw->cmu[g], un = tangential(fw, x, i, n, u);
    if (pbd_method_of(&w->def)->augmented) {
        const double *lt = fw->ct_lam + 3 * (size_t)g;
        double norm = 0.0, limit = mu * fabs(lam);
        for (int r = 0; r < 3; r++) {
            ft[r] = -(fw->ct_k[g] * u[r] + lt[r]);
            norm += ft[r] * ft[r];
        }
        norm = sqrt(norm);
        *k = fw->ct_k[g];
        if (norm > limit) { /* on the cone: sliding, a constant force */
            for (int r = 0; r < 3; r++) ft[r] *= norm > 0.0 ? limit / norm : 0.0;
            *k = 0.0;
        }
        return;
    }
    *k = mu * fabs(lam) * pbd_friction_f1_over_u(un, PBD_FAMILY_FRICTION_EPS_V * h);
    for (int r = 0; r < 3; r++) ft[r] = -*k * u[r];
}

void pbd_vbd_contact_terms(const pbd_world *w, const pbd_family_ws *fw, family_scratch *sc,
                           int i, double h, double f[3], double H[9])
{
    const double *xi = w->p + 3 * (size_t)i;
    for (int a = fw->cadj_ptr[i]; a < fw->cadj_ptr[i + 1]; a++) {
        int s = fw->cadj_s[a], c = fw->cadj_c[a], j = fw->cadj_j[a], g = fw->set_c[s] + c;
        const pbd_constraint_set *set = &w->sets[s];
        pbd_eval_input in;
        double C, lam, k;
        if (pbd_family_eval(w, set, c, w->p, sc, &in, &C) != PBD_EVAL_OK) continue;
        if (!pbd_vbd_force(w, fw, s, c, C, &lam, &k)) continue;
        const double *gj = sc->grad + 3 * j;
        for (int r = 0; r < 3; r++) {
            f[r] -= lam * gj[r];
            for (int q = 0; q < 3; q++) H[3 * r + q] += k * gj[r] * gj[q];
        }
        if (!(fw->cmu[g] > 0.0)) continue;
        const double *n = set->rest + 6 * (size_t)c + 3;
        double ft[3], kt;
        friction(w, fw, g, i, xi, n, lam, h, ft, &kt);
        for (int r = 0; r < 3; r++) {
            f[r] += ft[r];
            for (int q = 0; q < 3; q++) H[3 * r + q] += kt * ((r == q) - n[r] * n[q]);
        }
    }
}

/* Over the collider rows with friction: fn(g) the normal multiplier, u and the row's data. */
typedef void (*row_fn)(pbd_world *w, pbd_family_ws *fw, int g, int i, const double *n,
                       double lam, double h);

static void each_collider_row(pbd_world *w, pbd_family_ws *fw, double h, row_fn fn)
{
    family_scratch *sc = &fw->scratch[0];
    for (int s = fw->n_static; s < w->n_sets; s++) {
        pbd_constraint_set *set = &w->sets[s];
        for (int c = 0; c < set->count; c++) {
            int g = fw->set_c[s] + c;
            pbd_eval_input in;
            double C, lam = 0.0, k;
            fw->cforce[2 * (size_t)g] = fw->cforce[2 * (size_t)g + 1] = 0.0;
            if (pbd_family_eval(w, set, c, w->p, sc, &in, &C) != PBD_EVAL_OK) continue;
            if (!pbd_vbd_force(w, fw, s, c, C, &lam, &k)) lam = 0.0;
            const double *n = fw->cmu[g] > 0.0 ? set->rest + 6 * (size_t)c + 3 : NULL;
            fn(w, fw, g, set->idx[(size_t)c * set->arity], n, lam, h);
        }
    }
}

/* AVBD Algorithm 1's update of a friction row: λ_t ← λ_t⁺ (on the cone), k_t ← k_t + β|u|
 * while inside it. */
static void friction_update_row(pbd_world *w, pbd_family_ws *fw, int g, int i, const double *n,
                                double lam, double h)
{
    if (!(fw->cmu[g] > 0.0)) return;
    double ft[3], kt, u[3];
    friction(w, fw, g, i, w->p + 3 * (size_t)i, n, lam, h, ft, &kt);
    for (int r = 0; r < 3; r++) fw->ct_lam[3 * (size_t)g + r] = -ft[r];
    if (kt > 0.0) fw->ct_k[g] += w->def.avbd_beta * tangential(fw, w->p + 3 * (size_t)i, i, n, u);
}

void pbd_avbd_friction_update(pbd_world *w, pbd_family_ws *fw)
{
    if (fw->n_contacts > 0) each_collider_row(w, fw, 0.0, friction_update_row);
}

static void force_row(pbd_world *w, pbd_family_ws *fw, int g, int i, const double *n,
                      double lam, double h)
{
    fw->cforce[2 * (size_t)g] = fabs(lam);
    if (!(fw->cmu[g] > 0.0) || lam == 0.0) return;
    double ft[3], kt;
    friction(w, fw, g, i, w->p + 3 * (size_t)i, n, lam, h, ft, &kt);
    fw->cforce[2 * (size_t)g + 1] = sqrt(ft[0] * ft[0] + ft[1] * ft[1] + ft[2] * ft[2]);
}

void pbd_vbd_contact_forces(pbd_world *w, pbd_family_ws *fw, double h)
{
    each_collider_row(w, fw, h, force_row);
}
