/* Jacobi iteration with constraint averaging and over-relaxation.
 *
 * Every constraint of the sweep is projected from the same positions p (PBD Eq. 6–9, or
 * XPBD Eq. 18/26), and the corrections are applied after the sweep. n_i is the number of
 * constraints that moved particle i in this sweep (active, not degenerate), ω the SOR
 * factor.
 *
 * PBD: per-particle averaging (Macklin et al. 2014, "Unified Particle Physics for
 * Real-Time Applications", parallel SOR solver with constraint averaging; after Bridson
 * et al. 2002):
 *     p_i <- p_i + ω/n_i Σ_c Δp_i^c.
 *
 * XPBD: moving one constraint's particles by different fractions of its Δλ would break
 * XPBD's bookkeeping x - x̃ = M⁻¹∇Cᵀλ (the g = 0 of XPBD Eq. 8), and the iteration would
 * converge to a wrong stretch (a hanging 10-particle chain sagged ~10 % too little). So each
 * constraint c is scaled by one factor s_c = ω / max_j n_j over its free particles:
 *     λ_c <- λ_c + s_c Δλ_c,   p_j <- p_j + s_c Δλ_c w_j ∇_j C_c,
 * which is the per-particle average wherever a constraint's particles have equal counts
 * (the interior of a chain or a regular mesh) and under-relaxes it elsewhere. */
#include "solver/pbd.h"
#include "solver/variants.h"
#include "solver/xpbd/xpbd.h"
#include "solver/method.h"

#include <assert.h>

int pbd_sweep_jacobi(pbd_world *w, double h)
{
    struct pbd_variants_state *vs = w->variants;
    assert(vs && vs->jac_valid); /* pbd_variants_prepare ran */
    pbd_workspace ws = pbd_world_workspace(w);
    const int xpbd = pbd_method_of(&w->def)->compliance;
    const double omega = w->def.sor_omega;
    double *dp = vs->jac_dp;
    int32_t *count = vs->jac_count;
    for (int i = 0; i < 3 * w->n; i++) dp[i] = 0.0;
    for (int i = 0; i < w->n; i++) count[i] = 0;

    /* every constraint from the same p */
    int skipped = 0;
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        double *dlambda = vs->jac_dlambda + vs->jac_set_c[s];
        for (int c = 0; c < set->count; c += pbd_block_rows(set, c)) {
            double *delta = vs->jac_delta + 3 * ((size_t)vs->jac_set_q[s] + (size_t)c * set->arity);
            const int32_t *idx = set->idx + (size_t)c * set->arity;
            /* a block (pbd_constraint_type.block) moves as one: its Δx in its first row's
             * slot, the other rows' slots zero (their Δλ still counts) */
            int nb = pbd_block_rows(set, c), st;
            double dl, dlb[PBD_MAX_BLOCK];
            for (int k = 0; k < nb; k++) dlambda[c + k] = 0.0;
            for (int k = 0; k < nb && set->type->block > 1; k++)
                for (int q = 0; q < 3 * set->arity; q++) delta[3 * set->arity * k + q] = 0.0;
            if (set->type->block > 1) {
                st = pbd_project_block_into(w, &ws, set, c, nb, h, w->p, dlb);
                for (int k = 1; st == PBD_EVAL_OK && k < nb; k++) dlambda[c + k] = dlb[k];
                dl = dlb[0];
            } else {
                st = pbd_project_into(w, &ws, set, c, h, w->p, &dl);
            }
            if (st != PBD_EVAL_OK) {
                if (st == PBD_EVAL_DEGENERATE) skipped += nb;
                continue;
            }
            for (int j = 0; j < set->arity; j++) {
                int i = idx[j];
                if (w->w[i] <= 0.0) continue;
                count[i]++;
                for (int k = 0; k < 3; k++) {
                    double d = ws.x[3 * j + k] - w->p[3 * i + k];
                    if (xpbd)
                        delta[3 * j + k] = d;
                    else
                        dp[3 * i + k] += d;
                }
            }
            dlambda[c] = dl;
        }
    }

    if (!xpbd) {
        /* p_i <- p_i + ω/n_i Σ Δp_i */
        for (int i = 0; i < w->n; i++) {
            if (count[i] == 0) continue;
            double f = omega / count[i];
            for (int k = 0; k < 3; k++) w->p[3 * i + k] += f * dp[3 * i + k];
        }
        /* λ += ω/max_j n_j Δλ, as below (the contact response reads it; exact for the
         * one-particle contact rows, whose particle moved by that factor) */
        for (int s = 0; s < w->n_sets; s++) {
            pbd_constraint_set *set = &w->sets[s];
            const double *dlambda = vs->jac_dlambda + vs->jac_set_c[s];
            for (int c = 0; c < set->count; c++) {
                if (dlambda[c] == 0.0) continue;
                const int32_t *idx = set->idx + (size_t)c * set->arity;
                int most = 0;
                for (int j = 0; j < set->arity; j++)
                    if (w->w[idx[j]] > 0.0 && count[idx[j]] > most) most = count[idx[j]];
                if (most > 0) set->lambda[c] += omega / most * dlambda[c];
            }
        }
        return skipped;
    }

    /* XPBD: one factor s_c = ω / max_j n_j per constraint, for λ and for x alike */
    for (int s = 0; s < w->n_sets; s++) {
        pbd_constraint_set *set = &w->sets[s];
        const double *dlambda = vs->jac_dlambda + vs->jac_set_c[s];
        for (int c = 0; c < set->count; c++) {
            /* goal types move with Δλ = 0; a block's moves sit in its first row */
            if (dlambda[c] == 0.0 && set->type->eval && set->type->block <= 1) continue;
            const double *delta =
                vs->jac_delta + 3 * ((size_t)vs->jac_set_q[s] + (size_t)c * set->arity);
            const int32_t *idx = set->idx + (size_t)c * set->arity;
            int most = 0;
            for (int j = 0; j < set->arity; j++)
                if (w->w[idx[j]] > 0.0 && count[idx[j]] > most) most = count[idx[j]];
            if (most == 0) continue;
            double f = omega / most;
            set->lambda[c] += f * dlambda[c];
            for (int j = 0; j < set->arity; j++) {
                if (w->w[idx[j]] <= 0.0) continue;
                for (int k = 0; k < 3; k++) w->p[3 * (size_t)idx[j] + k] += f * delta[3 * j + k];
            }
        }
    }
    return skipped;
}
