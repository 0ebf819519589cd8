/* Contacts in Projective Dynamics: PD (Bouaziz et al. 2014, Sec. 4–5) treats a collision as a
 * constraint whose local step projects onto the non-penetrating side. Here the system matrix
 * stays the scene's (its factorisation is reused: the contacts change every step) and the
 * contacts' local projection acts on the global step's result, every iteration (ours: the
 * contact rows carry no weight in the global step). Each violated row C < 0 (particle–
 * collider plane or self collision) is projected as PBD Eq. 8–9 with k = 1,
 *   Δx_k = −C w_k ∇_kC / Σ_l w_l |∇_lC|²,
 * row after row (one thread: a fixed order). Friction on a collider row, position-level
 * Coulomb (ours, after PBD's and Macklin et al. 2014's friction on positions): with the
 * normal correction δ = −C and the tangential displacement over the step u = P(x_i − x_t,i),
 * x_i −= u when |u| ≤ μδ (sticking), else x_i −= μδ u/|u| (sliding), so that the friction
 * correction never exceeds μ times the normal one. The row's force multiplier is
 * λ⁺ = −m δ/h² (XPBD's λ = m δ after the step: the normal impulse λ/h). The rows come from
 * the step's predicted motion; the global step can carry other particles into a collider
 * (it knows no contacts): those are put back on the closest surface point of a static plane,
 * sphere or box (ours; no friction, no force logged; a mesh collider does not do this). */
#include "solver/families.h"

#include <math.h>

void pbd_pd_contacts(pbd_world *w, pbd_family_ws *fw, double h)
{
    family_scratch *sc = &fw->scratch[0];
    for (int s = fw->n_static; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        for (int c = 0; c < set->count; c++) {
            int g = fw->set_c[s] + c;
            const int32_t *idx = set->idx + (size_t)c * set->arity;
            pbd_eval_input in;
            double C, sum = 0.0;
            fw->lam[g] = fw->cforce[2 * (size_t)g] = fw->cforce[2 * (size_t)g + 1] = 0.0;
            if (pbd_family_eval(w, set, c, w->p, sc, &in, &C) != PBD_EVAL_OK || C >= 0.0)
                continue;
            for (int j = 0; j < set->arity; j++) {
                const double *gj = sc->grad + 3 * j;
                sum += w->w[idx[j]] * (gj[0] * gj[0] + gj[1] * gj[1] + gj[2] * gj[2]);
            }
            if (!(sum > 0.0)) continue;
            for (int j = 0; j < set->arity; j++)
                for (int k = 0; k < 3; k++)
                    w->p[3 * (size_t)idx[j] + k] -= C * w->w[idx[j]] * sc->grad[3 * j + k] / sum;
            int i = idx[0];
            double m = 1.0 / w->w[i], delta = -C / sqrt(sum * m); /* |Δx_i| on a plane row */
            fw->lam[g] = C / (sum * h * h);                      /* −m δ/h² when |∇C| = 1 */
            fw->cforce[2 * (size_t)g] = -fw->lam[g];
            if (!(fw->cmu[g] > 0.0)) continue;
            const double *n = set->rest + 6 * (size_t)c + 3, *xt = fw->x_t + 3 * (size_t)i;
            double *x = w->p + 3 * (size_t)i, u[3], un = 0.0, len = 0.0;
            for (int k = 0; k < 3; k++) un += (x[k] - xt[k]) * n[k];
            for (int k = 0; k < 3; k++) {
                u[k] = x[k] - xt[k] - un * n[k];
                len += u[k] * u[k];
            }
            len = sqrt(len);
            double limit = fw->cmu[g] * delta, cut = len <= limit ? 1.0 : limit / len;
            for (int k = 0; k < 3; k++) x[k] -= cut * u[k];
            fw->cforce[2 * (size_t)g + 1] = m * cut * len / (h * h);
        }
    }
    /* a particle the global step carried into a collider where it had no row (the rows come
     * from the step's predicted motion): onto the surface (ours; no friction) */
    if (w->collision_stages && w->collision_stages->push_out) w->collision_stages->push_out(w, w->p);
}

int pbd_pd_force(const pbd_world *w, const pbd_family_ws *fw, int s, int c, double C,
                 double *lam_plus, double *k)
{
    if (s < fw->n_static) return pbd_vbd_force(w, fw, s, c, C, lam_plus, k);
    *lam_plus = fw->lam[fw->set_c[s] + c];
    *k = 0.0;
    return *lam_plus != 0.0;
}

/* The last iteration's projection left them in fw->cforce. */
void pbd_pd_contact_forces(pbd_world *w, pbd_family_ws *fw, double h)
{
    (void)w;
    (void)fw;
    (void)h;
}
