/* Greedy graph colouring of each constraint set, for coloured Gauss–Seidel.
 *
 * Two constraints conflict when they share a particle. Colour k takes, in constraint
 * order, every constraint not coloured yet whose particles no earlier constraint of colour
 * k holds; this repeats until every constraint has a colour. The result depends only on
 * the index rows, so it is deterministic. Fixed particles (w = 0) count as conflicts too:
 * the colouring then stays valid when a particle is pinned or released later, at the cost
 * of a colour or two where many constraints meet at a pinned particle.
 * The constraint arrays are not reordered (other code keeps its indices); each set gets a
 * permutation `order` with colour k at order[start[k] .. start[k+1]). */
#include "solver/pbd.h"
#include "solver/variants.h"
#include "solver/xpbd/xpbd.h"

#include <stdlib.h>

static int grow_int(int32_t **p, int *cap, int n)
{
    if (n <= *cap) return 0;
    int32_t *q = realloc(*p, (size_t)n * sizeof *q);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* Colour one set; stamp[] (n) and pending[] (count) are scratch. */
static pbd_status colour_set(const pbd_world *w, const pbd_constraint_set *s,
                             pbd_set_colouring *col, int32_t *stamp, int32_t *pending)
{
    if (grow_int(&col->order, &col->order_cap, s->count > 0 ? s->count : 1) ||
        grow_int(&col->start, &col->start_cap, 2))
        return pbd_error(PBD_ENOMEM, "out of memory colouring a %s set", s->type->name);
    for (int i = 0; i < w->n; i++) stamp[i] = -1;
    /* a type with blocks (pbd_constraint_type.block) is coloured block by block: the block's
     * first row stands for it and its rows go into the colour together, consecutively */
    const int b = s->type->block > 1 ? s->type->block : 1;
    int n_pending = 0;
    for (int c = 0; c < s->count; c += b) pending[n_pending++] = c;
    int placed = 0, k = 0;
    col->start[0] = 0;
    while (n_pending > 0) {
        int kept = 0;
        for (int q = 0; q < n_pending; q++) {
            int c = pending[q];
            const int32_t *idx = s->idx + (size_t)c * s->arity;
            int free_of_k = 1;
            for (int j = 0; j < s->arity && free_of_k; j++)
                if (stamp[idx[j]] == k) free_of_k = 0;
            if (free_of_k) {
                for (int j = 0; j < s->arity; j++) stamp[idx[j]] = k;
                for (int r = c; r < c + b && r < s->count; r++) col->order[placed++] = r;
            } else {
                pending[kept++] = c; /* keeps the constraint order */
            }
        }
        n_pending = kept;
        k++;
        if (grow_int(&col->start, &col->start_cap, k + 1))
            return pbd_error(PBD_ENOMEM, "out of memory colouring a %s set", s->type->name);
        col->start[k] = placed;
    }
    col->n_colours = k;
    col->identity = 1;
    for (int q = 0; q < s->count && col->identity; q++) col->identity = col->order[q] == q;
    return PBD_OK;
}

pbd_status pbd_colour_sets(pbd_world *w)
{
    struct pbd_variants_state *vs = w->variants;
    if (w->n_sets > vs->n_col_sets) {
        pbd_set_colouring *col = realloc(vs->col, (size_t)w->n_sets * sizeof *col);
        if (!col) return pbd_error(PBD_ENOMEM, "out of memory for %d colourings", w->n_sets);
        for (int s = vs->n_col_sets; s < w->n_sets; s++)
            col[s] = (pbd_set_colouring){NULL, NULL, 0, 0, 0, 0};
        vs->col = col;
        vs->n_col_sets = w->n_sets;
    }
    int max_count = 1;
    for (int s = 0; s < w->n_sets; s++)
        if (w->sets[s].count > max_count) max_count = w->sets[s].count;
    if (grow_int(&vs->stamp, &vs->stamp_cap, w->n > 0 ? w->n : 1) ||
        grow_int(&vs->pending, &vs->pending_cap, max_count))
        return pbd_error(PBD_ENOMEM, "out of memory for the colouring scratch");
    vs->col_valid = 0;
    for (int s = 0; s < w->n_sets; s++) {
        pbd_status st = colour_set(w, &w->sets[s], &vs->col[s], vs->stamp, vs->pending);
        if (st != PBD_OK) return st;
    }
    return PBD_OK;
}

int pbd_set_colours(const pbd_world *w, int set, const int32_t **order, const int32_t **start)
{
    const struct pbd_variants_state *vs = w->variants;
    if (!vs || !vs->col_valid || set < 0 || set >= w->n_sets || set >= vs->n_col_sets ||
        vs->col_key != pbd_topology_key(w))
        return -1; /* never coloured, or the constraints changed since */
    *order = vs->col[set].order;
    *start = vs->col[set].start;
    return vs->col[set].n_colours;
}

pbd_status pbd_world_colour(pbd_world *w)
{
    struct pbd_variants_state *vs = pbd_variants_state_of(w);
    if (!vs) return pbd_error(PBD_ENOMEM, "out of memory for the colouring");
    pbd_status st = pbd_colour_sets(w);
    if (st != PBD_OK) return st;
    vs->col_key = pbd_topology_key(w);
    vs->col_valid = 1;
    return PBD_OK;
}
