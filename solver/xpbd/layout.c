/* Hot-loop layout (solver/xpbd/README.md "Performance"): a set's constraints sorted by colour, so
 * that a coloured sweep reads each colour's rows, rest values and stiffnesses as contiguous
 * runs, and trimming what the world holds beyond its needs.
 *
 * Sorting keeps the physics: the greedy colouring of a sorted set is the colouring it was
 * sorted by (colour k takes, in order, every constraint that meets no earlier one of colour
 * k; after sorting, colour k's constraints come first among those left and meet none of each
 * other, and every later one met one of them before), so the coloured sweep projects the
 * same constraints in the same colours and gives the same bits. Indices change: origin[c]
 * is the index constraint c had when it was added. */
#include "solver/pbd.h"
#include "solver/variants.h"
#include "solver/xpbd/xpbd.h"

#include <stdlib.h>
#include <string.h>

/* dst[q] = src[order[q]] for rows of `width` elements of `size` bytes; replaces *arr. */
static int permute(void **arr, const int32_t *order, int m, int width, size_t size)
{
    if (!*arr) return 0;
    size_t row = (size_t)width * size;
    char *dst = malloc((size_t)m * row);
    if (!dst) return -1;
    const char *src = *arr;
    for (int q = 0; q < m; q++) memcpy(dst + (size_t)q * row, src + (size_t)order[q] * row, row);
    free(*arr);
    *arr = dst;
    return 0;
}

static pbd_status sort_set(pbd_constraint_set *s, pbd_set_colouring *col)
{
    int m = s->count;
    if (col->identity || m == 0 || s->fixed_order) return PBD_OK;
    if (!s->origin) { /* first sort: the constraints are still in the order they were added */
        s->origin = malloc((size_t)s->capacity * sizeof *s->origin);
        if (!s->origin) return pbd_error(PBD_ENOMEM, "out of memory sorting a %s set", s->type->name);
        for (int c = 0; c < m; c++) s->origin[c] = c;
    }
    int nr = s->type->n_rest > 0 ? s->type->n_rest : 1;
    if (permute((void **)&s->idx, col->order, m, s->arity, sizeof(int32_t)) ||
        permute((void **)&s->rest, col->order, m, nr, sizeof(double)) ||
        permute((void **)&s->stiffness, col->order, m, 1, sizeof(double)) ||
        permute((void **)&s->compliance, col->order, m, 1, sizeof(double)) ||
        permute((void **)&s->lambda, col->order, m, 1, sizeof(double)) ||
        permute((void **)&s->k_eff, col->order, m, 1, sizeof(double)) ||
        permute((void **)&s->origin, col->order, m, 1, sizeof(int32_t)))
        return pbd_error(PBD_ENOMEM, "out of memory sorting a %s set of %d constraints",
                         s->type->name, m);
    s->capacity = m; /* the new arrays hold exactly the constraints */
    for (int q = 0; q < m; q++) col->order[q] = q;
    col->identity = 1;
    return PBD_OK;
}

pbd_status pbd_sort_sets_by_colour(pbd_world *w)
{
    struct pbd_variants_state *vs = w->variants;
    int moved = 0;
    for (int s = 0; s < w->n_sets && s < vs->n_col_sets; s++) {
        moved += !vs->col[s].identity && w->sets[s].count > 0 && !w->sets[s].fixed_order;
        pbd_status st = sort_set(&w->sets[s], &vs->col[s]);
        if (st != PBD_OK) return st;
    }
    if (moved) vs->col_key = pbd_topology_key(w); /* the rows moved; the colouring holds */
    return PBD_OK;
}

pbd_status pbd_world_sort_by_colour(pbd_world *w)
{
    const int32_t *order, *start;
    if (w->n_sets > 0 && pbd_set_colours(w, 0, &order, &start) < 0) {
        pbd_status st = pbd_world_colour(w);
        if (st != PBD_OK) return st;
    }
    if (!w->variants) return PBD_OK; /* no sets */
    return pbd_sort_sets_by_colour(w);
}

/* Shrink *arr to n elements of size bytes (n >= 1). */
static void shrink(void **arr, size_t n, size_t size)
{
    if (!*arr) return;
    void *q = realloc(*arr, n * size);
    if (q) *arr = q;
}

pbd_status pbd_world_compact(pbd_world *w)
{
    for (int i = 0; i < w->n_sets; i++) {
        pbd_constraint_set *s = &w->sets[i];
        if (s->count == 0 || s->count == s->capacity) continue;
        size_t m = (size_t)s->count, nr = s->type->n_rest > 0 ? (size_t)s->type->n_rest : 1;
        shrink((void **)&s->idx, m * s->arity, sizeof(int32_t));
        shrink((void **)&s->rest, m * nr, sizeof(double));
        shrink((void **)&s->stiffness, m, sizeof(double));
        shrink((void **)&s->compliance, m, sizeof(double));
        shrink((void **)&s->lambda, m, sizeof(double));
        shrink((void **)&s->k_eff, m, sizeof(double));
        shrink((void **)&s->origin, m, sizeof(int32_t));
        s->capacity = s->count;
    }
    struct pbd_variants_state *vs = w->variants;
    if (vs) { /* the colouring's scratch: allocated again when the constraints change */
        free(vs->stamp);
        free(vs->pending);
        vs->stamp = vs->pending = NULL;
        vs->stamp_cap = vs->pending_cap = 0;
    }
    return PBD_OK;
}

void pbd_set_current_index(const pbd_world *w, int set, int32_t *where)
{
    const pbd_constraint_set *s = &w->sets[set];
    for (int c = 0; c < s->count; c++) where[c] = s->origin ? -1 : c;
    if (!s->origin) return;
    for (int c = 0; c < s->count; c++)
        if (s->origin[c] >= 0 && s->origin[c] < s->count) where[s->origin[c]] = c;
}
