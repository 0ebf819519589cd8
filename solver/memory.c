/* What the world has allocated, in bytes (the bench's memory per particle). Counts the
 * capacities, not the counts: a set grown by doubling holds up to twice what it uses
 * until pbd_world_compact() or a sort by colour trims it. The collision state (solver/
 * collision*.c) is not counted. */
#include "pbd.h"
#include "variants.h"

size_t pbd_world_bytes(const pbd_world *w)
{
    size_t d = sizeof(double), i4 = sizeof(int32_t), n = w->n > 0 ? (size_t)w->n : 1;
    size_t bytes = sizeof *w + n * (3 * 3 * d + d); /* x, p, v, w */
    bytes += (size_t)w->n_sets * sizeof *w->sets;
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        size_t cap = (size_t)set->capacity;
        size_t nr = set->type->n_rest > 0 ? (size_t)set->type->n_rest : 1;
        bytes += cap * ((size_t)set->arity * i4 + nr * d + 4 * d); /* idx, rest, k, α, λ, k_eff */
        if (set->origin) bytes += cap * i4;
        if (set->aux) bytes += (size_t)(set->n_aux > 0 ? set->n_aux : 1) * i4;
    }
    bytes += (size_t)w->n_attach * (i4 + 6 * d);
    if (w->particle_origin) bytes += n * i4;
    bytes += (size_t)w->max_arity * 10 * d; /* work_x, work_x0, work_grad, work_w */
    bytes += (size_t)w->iter_capacity * 4 * d; /* max_c, l2_c, xpbd, newton */
    if (w->iter_sets) bytes += (size_t)w->iter_capacity * (w->iter_sets_n > 0 ? (size_t)w->iter_sets_n : 1) * 3 * d;
    const struct pbd_variants_state *vs = w->variants;
    if (vs) {
        bytes += sizeof *vs + (size_t)vs->n_col_sets * sizeof *vs->col;
        for (int s = 0; s < vs->n_col_sets; s++)
            bytes += (size_t)(vs->col[s].order_cap + vs->col[s].start_cap) * i4;
        bytes += (size_t)(vs->stamp_cap + vs->pending_cap) * i4;
        bytes += (size_t)vs->n_ws * (sizeof *vs->ws + (size_t)vs->ws_arity * 10 * d);
        bytes += (size_t)vs->jac_n_cap * (3 * d + i4) + (size_t)vs->jac_m_cap * d +
                 (size_t)vs->jac_delta_cap * d + (size_t)vs->jac_sets_cap * 2 * i4;
    }
    return bytes;
}
