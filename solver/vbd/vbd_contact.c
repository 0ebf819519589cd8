/* Contacts in VBD and AVBD: the rows solver/collision/ detects each (sub)step (particle–
 * collider planes C = (x − q)·n ≥ 0, self collision C = ±(q − p1)·n̂ − h ≥ 0) enter the
 * vertex's block solve (solver/vbd/vbd.c) with their force and 3×3 Hessian block.
 *
 * VBD (Chen et al. 2024, Sec. 4): the penalty energy E_c = ½ k_c d², d = max(0, −C) the
 * penetration, force −k_c C ∇_iC while C < 0 and Hessian k_c ∇_iC ∇_iCᵀ. A self row's C is the
 * type's, its gradient the paper's vertex–triangle one with the normal held: ∂C/∂q = s n̂,
 * ∂C/∂p_k = −s b_k n̂, b the barycentric coordinates of q's projection (clamped to the
 * triangle); the type's own gradient turns the normal with the triangle, and one triangle
 * vertex's block solve along it (a small b_k: a long step) fed energy into cloth_fold until
 * it burst (measured). Friction as the paper takes it from IPC (Li et al. 2020 Eq. 14–15):
 * with the contact force λ = k_c d lagged (the particle's at the end of the last (sub)step,
 * 0 for a new contact), the tangential displacement over the step u = P (x_i − x_t,i),
 * P = I − n nᵀ (the normal of the detection, fixed for the step),
 *   f_f = −μ λ f1(|u|)/|u| u,   H_f = μ λ f1(|u|)/|u| P   (f1's derivative left out: PSD),
 * f1(u) = 2u/ε − u²/ε² below ε = ε_v h, else 1, so |f_f| ≤ μ λ: the Coulomb cone.
 *
 * AVBD (Giles et al. 2025, "Contacts and friction"): the normal row is a hard inequality,
 * λ⁺ = k C + λ clamped to (−∞, 0] (solver/vbd/avbd.c); friction a hard row on u whose
 * multiplier, a vector in the tangent plane, is clamped to the cone:
 *   λ_t⁺ = k_t u + λ_t,  |λ_t⁺| ≤ μ |λ⁺|  (scaled onto the cone when outside: sliding),
 * force −λ_t⁺, Hessian k_t P while inside the cone (sticking) and 0 on it (constant force);
 * after each iteration λ_t ← λ_t⁺ and k_t ← k_t + β|u| while sticking. The rows are detected
 * anew every (sub)step; a particle's collider row is warm started from the particle's row of
 * the last one (solver/vbd/avbd.c). Friction acts on particle–collider rows only (ours: self
 * contacts frictionless). */
#include "solver/families.h"
#include "solver/method.h"

#include <math.h>

/* C and slot j's gradient g of self-collision row c (rest {h, s}, rows {q, p1, p2, p3}) at
 * w->p, with the normal held (above); the type's status. */
static int self_row(const pbd_world *w, const pbd_constraint_set *set, int c, int j,
                    family_scratch *sc, double *C, double g[3])
{
    pbd_eval_input in;
    int st = pbd_family_eval(w, set, c, w->p, sc, &in, C);
    if (st != PBD_EVAL_OK) return st;
    const double *x = sc->xl, s = set->rest[2 * (size_t)c + 1];
    double e1[3], e2[3], d[3], n[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = x[6 + k] - x[3 + k];
        e2[k] = x[9 + k] - x[3 + k];
        d[k] = x[k] - x[3 + k];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    /* q − p1 = β e1 + γ e2 in the plane: the 2×2 normal equations */
    double a11 = 0, a12 = 0, a22 = 0, r1 = 0, r2 = 0;
    for (int k = 0; k < 3; k++) {
        a11 += e1[k] * e1[k];
        a12 += e1[k] * e2[k];
        a22 += e2[k] * e2[k];
        r1 += e1[k] * d[k];
        r2 += e2[k] * d[k];
    }
    double det = a11 * a22 - a12 * a12;
    if (!(nn > 0.0 && det > 0.0)) return PBD_EVAL_DEGENERATE;
    double b[3], beta = (a22 * r1 - a12 * r2) / det, gam = (a11 * r2 - a12 * r1) / det;
    b[1] = fmin(fmax(beta, 0.0), 1.0);
    b[2] = fmin(fmax(gam, 0.0), 1.0);
    if (b[1] + b[2] > 1.0) {
        double t = b[1] + b[2];
        b[1] /= t;
        b[2] /= t;
    }
    b[0] = 1.0 - b[1] - b[2];
    double wgt = j == 0 ? s : -s * b[j - 1];
    for (int k = 0; k < 3; k++) g[k] = wgt * n[k] / nn;
    return PBD_EVAL_OK;
}

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
    /* IPC's lagged λ: the particle's normal force at the end of the last (sub)step (0 for a new
     * contact), not the iterate's, whose first visits see the initial guess's depth */
    double lag = fw->warm_k[i] > 0.0 ? fw->warm_lam[i] : 0.0;
    *k = mu * lag * pbd_friction_f1_over_u(un, PBD_FAMILY_FRICTION_EPS_V * h);
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
        double C, lam, k, gs[3];
        int st = s == fw->self_set ? self_row(w, set, c, j, sc, &C, gs)
                                   : pbd_family_eval(w, set, c, w->p, sc, &in, &C);
        if (st != PBD_EVAL_OK) continue;
        if (!pbd_vbd_force(w, fw, s, c, C, &lam, &k)) continue;
        const double *gj = s == fw->self_set ? gs : sc->grad + 3 * j;
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

/* |f_n| and |f_t| of a row: AVBD's |λ⁺| and clamped |λ_t⁺|; VBD's friction reads the lagged
 * λ, so its cone is against that normal force (IPC's model), which becomes the particle's
 * current |λ⁺| for the next (sub)step here. */
static void force_row(pbd_world *w, pbd_family_ws *fw, int g, int i, const double *n,
                      double lam, double h)
{
    int avbd = pbd_method_of(&w->def)->augmented;
    fw->cforce[2 * (size_t)g] = fabs(lam);
    if (!avbd) {
        fw->cforce[2 * (size_t)g] = fw->warm_k[i] > 0.0 ? fw->warm_lam[i] : 0.0;
        fw->warm_lam_next[i] = fabs(lam);
    }
    if (!(fw->cmu[g] > 0.0) || fw->cforce[2 * (size_t)g] == 0.0) return;
    double ft[3], kt;
    friction(w, fw, g, i, w->p + 3 * (size_t)i, n, lam, h, ft, &kt);
    fw->cforce[2 * (size_t)g + 1] = sqrt(ft[0] * ft[0] + ft[1] * ft[1] + ft[2] * ft[2]);
}

void pbd_vbd_contact_forces(pbd_world *w, pbd_family_ws *fw, double h)
{
    int avbd = pbd_method_of(&w->def)->augmented;
    for (int i = 0; i < w->n && !avbd; i++) fw->warm_lam_next[i] = -1.0;
    each_collider_row(w, fw, h, force_row);
    if (avbd) {
        pbd_avbd_keep_contacts(w, fw);
        return;
    }
    for (int i = 0; i < w->n; i++) { /* VBD's lagged λ for the next (sub)step */
        fw->warm_k[i] = fw->warm_lam_next[i] >= 0.0;
        fw->warm_lam[i] = fw->warm_lam_next[i];
    }
}
