/* VBD's and AVBD's sweep over part of one colour with batched vertex blocks. The particles of
 * a colour share no constraint (VBD "Parallelization"), so the terms C, ∇_jC, ∇²_jjC of all
 * their (particle, constraint) pairs can be evaluated before any of them moves: the pairs of a
 * block of particles are listed by (set, slot j), each list handed to its type's
 * vertex_block_batch (several pairs per SIMD vector, constraints/bend_dihedral_vblock.c),
 * then each particle takes its local Newton step (VBD Sec. 3) on them, its pairs summed in
 * adjacency order as the unbatched update does. The batch kernels give vertex_block's bits
 * but for vector math (the dihedral's atan2, SLEEF's: C within a few ulp), so the result is
 * pbd_vbd_vertex_update's, particle by particle, to that rounding
 * (tests/test_vertex_block.c). Pairs of a type without a batch kernel are evaluated in the
 * update, as before. */
#include "solver/families.h"

static int batchable(const pbd_world *w, const pbd_constraint_set *set)
{
    return w->def.kernels && set->type->vertex_block_batch && set->arity <= 4;
}

void pbd_vbd_sweep_batched(pbd_world *w, pbd_family_ws *fw, family_scratch *sc, int lo, int hi,
                           double h)
{
    const int32_t *ptr = fw->adj_ptr, *adj_s = fw->adj_s, *adj_c = fw->adj_c, *adj_j = fw->adj_j;
    const int keys = 4 * fw->n_static;
    /* whether a set's pairs are batched, looked up per pair below: the first sets' in a table */
    enum { TABLE = 64 };
    unsigned char set_ok[TABLE];
    for (int s = 0; s < fw->n_static && s < TABLE; s++) set_ok[s] = (unsigned char)batchable(w, &w->sets[s]);
    int q = lo;
    while (q < hi) {
        /* a block: the particles whose pairs fit in the scratch */
        int start = q, pairs = 0;
        while (q < hi) {
            int i = fw->col_order[q], ne = ptr[i + 1] - ptr[i];
            if (pairs + ne > PBD_VBD_BATCH_PAIRS) break;
            pairs += ne;
            q++;
        }
        if (q == start) { /* one particle with more pairs than the scratch: unbatched */
            pbd_vbd_vertex_update(w, fw, sc, fw->col_order[q++], h);
            continue;
        }
        /* the lists by key 4s + j: counted, then filled in pair order */
        for (int k = 0; k <= keys; k++) sc->count[k] = 0;
        for (int v = start, e = 0; v < q; v++) {
            int i = fw->col_order[v];
            for (int a = ptr[i]; a < ptr[i + 1]; a++, e++) {
                int s = adj_s[a];
                sc->have[e] = s < TABLE ? set_ok[s] : (unsigned char)batchable(w, &w->sets[s]);
                if (sc->have[e]) sc->count[4 * s + adj_j[a] + 1]++;
            }
        }
        for (int k = 0; k < keys; k++) sc->count[k + 1] += sc->count[k];
        for (int v = start, e = 0; v < q; v++) {
            int i = fw->col_order[v];
            for (int a = ptr[i]; a < ptr[i + 1]; a++, e++) {
                if (!sc->have[e]) continue;
                int slot = sc->count[4 * adj_s[a] + adj_j[a]]++;
                sc->pair_c[slot] = adj_c[a];
                sc->pair_o[slot] = e;
            }
        }
        /* count[k] is now the end of list k, count[k - 1] (0 for k = 0) its start */
        for (int k = 0, b = 0; k < keys; k++) {
            int end = sc->count[k];
            if (end > b) {
                const pbd_constraint_set *set = &w->sets[k / 4];
                set->type->vertex_block_batch(w->p, set->idx, set->rest, k % 4, sc->pair_c + b,
                                              sc->pair_o + b, end - b, sc->terms);
            }
            b = end;
        }
        for (int v = start, e = 0; v < q; v++) {
            int i = fw->col_order[v];
            pbd_vbd_vertex_update_pre(w, fw, sc, i, h, sc->terms + e, sc->have + e);
            e += ptr[i + 1] - ptr[i];
        }
    }
}
