/* AVBD's augmented Lagrangian (Giles, Diaz, Yuksel 2025) on the constraint table. Each
 * constraint j has a penalty k_j and, when hard (α = 0), a multiplier λ_j; its energy in the
 * VBD iteration is ½ k_j C_j² + λ_j C_j, force −λ⁺∇C with
 *   λ⁺ = k_j C̃_j + λ_j,   C̃_j = C_j(x) − α C_j(x_t)        (hard: AVBD "Hard constraints",
 *                                                          "Error reduction")
 *   λ⁺ = k_j C_j,          k_j <= k*_j = 1/α_j             (soft: AVBD "Stiffness ratios")
 * an inequality (C >= 0) with λ⁺ clamped to (−∞, 0] (AVBD "Inequality constraints": it only
 * pushes). After each iteration (AVBD Algorithm 1): hard λ_j ← λ⁺ (clamped), and
 * k_j ← k_j + β|C̃_j| — unbounded for hard constraints, up to k*_j for soft ones — but not for
 * an inequality whose λ⁺ is clamped (it is inactive). Warm start at each (sub)step (AVBD "Warm
 * starting"): k_j ← max(γ k_j, k_start), λ_j ← α γ λ_j. Where the paper leaves k_start to the
 * scene, def.avbd_k_start = 0 takes for a soft constraint the mean m/h² of its free particles
 * and for a hard one the largest m/h² of the world (our choice, see k_start); C̃'s error
 * reduction applies to hard equalities only (inequalities start from C_j(x_t) = 0 here, ours). */
#include "solver/families.h"

#include <math.h>
#include <omp.h>

/* k_start of constraint c: def.avbd_k_start, or (0, ours) for a soft constraint the mean m/h²
 * of its free particles, for a hard one the largest m/h² of the world (m_max_h2): a hard
 * constraint carries the heaviest particle's weight along the chain it is in (measured on the
 * 1:1000 chain of solver_families: the mean reached 8e-4 m of the Newton step in 300
 * iterations, the largest 7e-13 m). */
static double k_start(const pbd_world *w, const pbd_constraint_set *set, int c, double h,
                      double m_max_h2)
{
    if (w->def.avbd_k_start > 0.0) return w->def.avbd_k_start;
    if (set->compliance[c] == 0.0) return m_max_h2;
    double sum = 0.0;
    int n = 0;
    for (int j = 0; j < set->arity; j++) {
        double wi = w->w[set->idx[(size_t)c * set->arity + j]];
        if (wi > 0.0) {
            sum += 1.0 / (wi * h * h);
            n++;
        }
    }
    return n > 0 ? sum / n : 1.0 / (h * h);
}

/* A contact row, detected anew: a particle's collider row takes the warm start of the
 * particle's collider row of the last (sub)step (AVBD "Warm starting"; ours: keyed by the
 * particle, where the paper keys a contact by its features), any other starts at k_start,
 * λ = 0. */
static void contact_begin(const pbd_world *w, pbd_family_ws *fw, int s, int c, int g, double k0)
{
    const pbd_solver_def *d = &w->def;
    const pbd_constraint_set *set = &w->sets[s];
    int i = set->idx[(size_t)c * set->arity];
    int warm = w->collision_stages->contact_kind(w, s) == PBD_CONTACT_COLLIDER &&
               fw->warm_k[i] > 0.0;
    double ag = d->avbd_alpha * d->avbd_gamma;
    fw->k[g] = warm ? fmax(d->avbd_gamma * fw->warm_k[i], k0) : k0;
    fw->ct_k[g] = warm ? fmax(d->avbd_gamma * fw->warm_kt[i], k0) : k0;
    fw->lam[g] = warm ? ag * fw->warm_lam[i] : 0.0;
    fw->c0[g] = 0.0;
    for (int r = 0; r < 3; r++)
        fw->ct_lam[3 * (size_t)g + r] = warm ? ag * fw->warm_lt[3 * (size_t)i + r] : 0.0;
}

void pbd_avbd_keep_contacts(pbd_world *w, pbd_family_ws *fw)
{
    const pbd_step_stages *cs = w->collision_stages;
    for (int i = 0; i < w->n; i++) fw->warm_k[i] = 0.0;
    for (int s = fw->n_static; s < w->n_sets; s++) {
        if (cs->contact_kind(w, s) != PBD_CONTACT_COLLIDER) continue;
        const pbd_constraint_set *set = &w->sets[s];
        for (int c = 0; c < set->count; c++) {
            int g = fw->set_c[s] + c, i = set->idx[(size_t)c * set->arity];
            fw->warm_k[i] = fw->k[g];
            fw->warm_lam[i] = fw->lam[g];
            fw->warm_kt[i] = fw->ct_k[g];
            for (int r = 0; r < 3; r++)
                fw->warm_lt[3 * (size_t)i + r] = fw->ct_lam[3 * (size_t)g + r];
        }
    }
}

void pbd_avbd_begin(pbd_world *w, pbd_family_ws *fw, double h)
{
    const pbd_solver_def *d = &w->def;
    family_scratch *sc = &fw->scratch[0];
    double m_max_h2 = 0.0;
    for (int i = 0; i < w->n; i++)
        if (w->w[i] > 0.0) m_max_h2 = fmax(m_max_h2, 1.0 / (w->w[i] * h * h));
    if (!(m_max_h2 > 0.0)) m_max_h2 = 1.0 / (h * h); /* no free particle: no force acts */
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        for (int c = 0; c < set->count; c++) {
            int g = fw->set_c[s] + c;
            double k0 = k_start(w, set, c, h, m_max_h2), alpha = set->compliance[c];
            if (s >= fw->n_static) { /* a contact row (solver/vbd/vbd_contact.c) */
                contact_begin(w, fw, s, c, g, k0);
                continue;
            }
            if (!fw->avbd_ready) {
                fw->k[g] = k0;
                fw->lam[g] = 0.0;
            } else {
                fw->k[g] = fmax(d->avbd_gamma * fw->k[g], k0);
                fw->lam[g] *= d->avbd_alpha * d->avbd_gamma;
            }
            if (alpha > 0.0) {
                fw->k[g] = fmin(fw->k[g], 1.0 / alpha);
                fw->lam[g] = 0.0;
            }
            fw->c0[g] = 0.0;
            pbd_eval_input in;
            double C;
            if (alpha == 0.0 && !set->type->inequality &&
                pbd_family_eval(w, set, c, w->x, sc, &in, &C) == PBD_EVAL_OK)
                fw->c0[g] = C;
        }
    }
    fw->avbd_ready = 1;
}

/* The update of constraint c at C(x) = C (its eval's status st): hard λ ← λ⁺, and
 * k ← k + β|C̃| (soft: up to k* = 1/α) unless it is a clamped inequality. */
static void update_one(const pbd_world *w, pbd_family_ws *fw, int s, int c, int st, double C)
{
    const pbd_constraint_set *set = &w->sets[s];
    const double alpha = set->compliance[c];
    int g = fw->set_c[s] + c;
    double lam, Ct;
    if (st != PBD_EVAL_OK) return;
    int active = pbd_avbd_lambda_plus(w, fw, s, c, C, &lam, &Ct);
    if (alpha == 0.0) fw->lam[g] = lam;
    if (!active) return;
    fw->k[g] += w->def.avbd_beta * fabs(Ct);
    if (alpha > 0.0) fw->k[g] = fmin(fw->k[g], 1.0 / alpha);
}

/* a soft constraint at k* = 1/α: the update leaves k at k* and has no λ (the same bits
 * without evaluating C) */
static inline int at_cap(const pbd_world *w, const pbd_family_ws *fw, const pbd_constraint_set *set,
                         int s, int c)
{
    double alpha = set->compliance[c];
    return alpha > 0.0 && w->def.avbd_beta >= 0.0 && fw->k[fw->set_c[s] + c] >= 1.0 / alpha;
}

void pbd_avbd_update(pbd_world *w, pbd_family_ws *fw, int threads)
{
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        /* a type with a batched vertex block gives C with it, PBD_VBD_BATCH_PAIRS
         * constraints per call (solver/vbd/vbd_batch.c's kernels; any particle slot gives
         * the same C, the last is the dihedral's cheapest block) */
        const int batched = pbd_vbd_batchable(w, set);
        const int chunks = (set->count + PBD_VBD_BATCH_PAIRS - 1) / PBD_VBD_BATCH_PAIRS;
#pragma omp parallel num_threads(threads) if (threads > 1 && set->count > 1024)
        {
            family_scratch *sc = &fw->scratch[omp_get_thread_num()];
#pragma omp for schedule(static)
            for (int ch = 0; ch < chunks; ch++) {
                int lo = ch * PBD_VBD_BATCH_PAIRS, hi = lo + PBD_VBD_BATCH_PAIRS;
                if (hi > set->count) hi = set->count;
                if (batched) {
                    int n = 0;
                    for (int c = lo; c < hi; c++)
                        if (!at_cap(w, fw, set, s, c)) {
                            sc->pair_c[n] = c;
                            sc->pair_o[n] = n;
                            n++;
                        }
                    if (n > 0)
                        set->type->vertex_block_batch(w->p, set->idx, set->rest, set->arity - 1,
                                                      sc->pair_c, sc->pair_o, n, sc->terms);
                    for (int k = 0; k < n; k++)
                        update_one(w, fw, s, sc->pair_c[k], sc->terms[k].status, sc->terms[k].C);
                    continue;
                }
                for (int c = lo; c < hi; c++) {
                    if (at_cap(w, fw, set, s, c)) continue;
                    pbd_eval_input in;
                    double C;
                    int st = pbd_family_eval(w, set, c, w->p, sc, &in, &C);
                    update_one(w, fw, s, c, st, C);
                }
            }
        }
    }
}
