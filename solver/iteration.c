/* One projection sweep: projectConstraints(C_1 … C_{M+Mcoll}, p_1 … p_N), line (10). */
#include "pbd.h"
#include "solver_private.h"

/* Gauss–Seidel in a fixed order (PBD Sec. 3.2): sets in order, constraints in order,
 * each projection seeing the positions its predecessors produced. */
static int gauss_seidel(pbd_world *w, double alpha_scale)
{
    int skipped = 0;
    for (int s = 0; s < w->n_sets; s++) {
        pbd_constraint_set *set = &w->sets[s];
        for (int c = 0; c < set->count; c++)
            if (pbd_project_one(w, set, c, alpha_scale) == PBD_EVAL_DEGENERATE) skipped++;
    }
    return skipped;
}

int pbd_project_iteration(pbd_world *w, double h)
{
    double alpha_scale = 1.0 / (h * h); /* α̃ = α / Δt² */
    switch (w->def.scheme) {
    case PBD_SCHEME_GAUSS_SEIDEL:
    default:
        return gauss_seidel(w, alpha_scale);
    }
}
