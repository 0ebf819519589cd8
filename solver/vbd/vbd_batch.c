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
 * update, as before.
 *
 * The blocks and their lists depend only on the adjacency, the colouring and the cut of each
 * colour among the threads, none of which changes within a topology: they are listed once
 * (the plan, fw->vbd_plan, per thread count) and read by every iteration. */
#include "solver/families.h"

#include <stdlib.h>

struct pbd_vbd_plan {
    int nt, n_blocks, n_runs;
    int32_t *part; /* n_colours·nt + 1: the first block of colour col's part tid */
    /* per block: its particles col_order[q0 .. q1), its runs [r0, r1), its pairs' place p0
     * in pc, po, have; r0 = -1: one particle with more pairs than the scratch, updated
     * unbatched */
    int32_t (*blk)[5];
    int32_t (*run)[3]; /* per run: key 4s + j, its pairs [b, e) from the block's p0 */
    int32_t *pc, *po;  /* a run's constraints and their places in the block's terms */
    unsigned char *have; /* per pair of the block (adjacency order): batched or not */
};

/* The block that starts at position q (< hi) of col_order: its end q1 (returned; q + 1 with
 * *single when one particle has more pairs than the scratch), have[e] for each of its pairs
 * in adjacency order, and those batched listed by key 4s + j in pc/po (o: the pair's place
 * e), list k ending at count[k]. */
static int block_lists(const pbd_world *w, const pbd_family_ws *fw, int q, int hi,
                       int32_t *count, unsigned char *have, int32_t *pc, int32_t *po,
                       int *single)
{
    const int32_t *ptr = fw->adj_ptr, *adj_s = fw->adj_s, *adj_c = fw->adj_c, *adj_j = fw->adj_j;
    const int keys = 4 * fw->n_static, start = q;
    int pairs = 0;
    while (q < hi) {
        int i = fw->col_order[q], ne = ptr[i + 1] - ptr[i];
        if (pairs + ne > PBD_VBD_BATCH_PAIRS) break;
        pairs += ne;
        q++;
    }
    *single = q == start;
    if (*single) return q + 1;
    /* the lists by key 4s + j: counted, then filled in pair order */
    for (int k = 0; k <= keys; k++) count[k] = 0;
    for (int v = start, e = 0; v < q; v++) {
        int i = fw->col_order[v];
        for (int a = ptr[i]; a < ptr[i + 1]; a++, e++) {
            int s = adj_s[a];
            have[e] = (unsigned char)pbd_vbd_batchable(w, &w->sets[s]);
            if (have[e]) count[4 * s + adj_j[a] + 1]++;
        }
    }
    for (int k = 0; k < keys; k++) count[k + 1] += count[k];
    for (int v = start, e = 0; v < q; v++) {
        int i = fw->col_order[v];
        for (int a = ptr[i]; a < ptr[i + 1]; a++, e++) {
            if (!have[e]) continue;
            int slot = count[4 * adj_s[a] + adj_j[a]]++;
            pc[slot] = adj_c[a];
            po[slot] = e;
        }
    }
    /* count[k] is now the end of list k, count[k - 1] (0 for k = 0) its start */
    return q;
}

void pbd_vbd_plan_free(struct pbd_vbd_plan *p)
{
    if (!p) return;
    free(p->part);
    free(p->blk);
    free(p->run);
    free(p->pc);
    free(p->po);
    free(p->have);
    free(p);
}

/* Grow *a (elements of size sz, capacity *cap) to hold n; 0 when out of memory. */
static int reserve(void **a, int *cap, int n, size_t sz)
{
    if (n <= *cap) return 1;
    int c = *cap > 0 ? 2 * *cap : 64;
    while (c < n) c *= 2;
    void *g = realloc(*a, (size_t)c * sz);
    if (!g) return 0;
    *a = g;
    *cap = c;
    return 1;
}

/* The plan for nt threads, each colour cut as pbd_vbd_iteration cuts it; NULL when out of
 * memory. sc: a scratch for the lists. */
static struct pbd_vbd_plan *plan_build(const pbd_world *w, const pbd_family_ws *fw, int nt,
                                       family_scratch *sc)
{
    struct pbd_vbd_plan *p = calloc(1, sizeof *p);
    const int n_pairs = fw->adj_ptr[w->n], keys = 4 * fw->n_static;
    int cap_b = 0, cap_r = 0, ok = p != NULL;
    if (ok) {
        p->nt = nt;
        p->part = malloc(((size_t)fw->n_colours * nt + 1) * sizeof *p->part);
        p->pc = malloc(((size_t)n_pairs + 1) * sizeof *p->pc);
        p->po = malloc(((size_t)n_pairs + 1) * sizeof *p->po);
        p->have = malloc((size_t)n_pairs + 1);
        ok = p->part && p->pc && p->po && p->have;
    }
    int p0 = 0;
    for (int col = 0; ok && col < fw->n_colours; col++)
        for (int tid = 0; ok && tid < nt; tid++) {
            int b = fw->col_start[col], len = fw->col_start[col + 1] - b;
            int lo = b + (int)((long)len * tid / nt), hi = b + (int)((long)len * (tid + 1) / nt);
            p->part[col * nt + tid] = p->n_blocks;
            for (int q = lo; ok && q < hi;) {
                int single, q1 = block_lists(w, fw, q, hi, sc->count, sc->have, sc->pair_c,
                                             sc->pair_o, &single);
                ok = reserve((void **)&p->blk, &cap_b, p->n_blocks + 1, sizeof *p->blk);
                if (!ok) break;
                int32_t *bk = p->blk[p->n_blocks++];
                bk[0] = q;
                bk[1] = q1;
                bk[2] = single ? -1 : p->n_runs;
                bk[4] = p0;
                if (!single) {
                    int pairs = 0;
                    for (int v = q; v < q1; v++) {
                        int i = fw->col_order[v];
                        pairs += fw->adj_ptr[i + 1] - fw->adj_ptr[i];
                    }
                    for (int e = 0; e < pairs; e++) p->have[p0 + e] = sc->have[e];
                    for (int k = 0, kb = 0; ok && k < keys; k++) {
                        int end = sc->count[k];
                        if (end > kb) {
                            ok = reserve((void **)&p->run, &cap_r, p->n_runs + 1, sizeof *p->run);
                            if (!ok) break;
                            int32_t *r = p->run[p->n_runs++];
                            r[0] = k;
                            r[1] = kb;
                            r[2] = end;
                            for (int e = kb; e < end; e++) {
                                p->pc[p0 + e] = sc->pair_c[e];
                                p->po[p0 + e] = sc->pair_o[e];
                            }
                        }
                        kb = end;
                    }
                    bk[3] = p->n_runs;
                    p0 += pairs;
                }
                q = q1;
            }
        }
    if (ok) p->part[fw->n_colours * nt] = p->n_blocks;
    if (!ok) {
        pbd_vbd_plan_free(p);
        return NULL;
    }
    return p;
}

/* Two plans are kept, for one thread and for nt > 1: a substep with self contact rows sweeps
 * on one thread (solver/families.c) and the next without them on nt. */
int pbd_vbd_plan_ready(pbd_world *w, pbd_family_ws *fw, int nt)
{
    struct pbd_vbd_plan **p = &fw->vbd_plan[nt > 1];
    if (*p && (*p)->nt == nt) return 1;
    pbd_vbd_plan_free(*p);
    *p = plan_build(w, fw, nt, &fw->scratch[0]);
    return *p != NULL;
}

void pbd_vbd_sweep_planned(pbd_world *w, pbd_family_ws *fw, family_scratch *sc, int nt, int col,
                           int tid, double h)
{
    const struct pbd_vbd_plan *p = fw->vbd_plan[nt > 1];
    const int32_t *ptr = fw->adj_ptr;
    for (int bi = p->part[col * p->nt + tid]; bi < p->part[col * p->nt + tid + 1]; bi++) {
        const int32_t *bk = p->blk[bi];
        if (bk[2] < 0) { /* one particle with more pairs than the scratch: unbatched */
            pbd_vbd_vertex_update(w, fw, sc, fw->col_order[bk[0]], h);
            continue;
        }
        const int p0 = bk[4];
        for (int r = bk[2]; r < bk[3]; r++) {
            const int32_t *rn = p->run[r];
            const pbd_constraint_set *set = &w->sets[rn[0] / 4];
            set->type->vertex_block_batch(w->p, set->idx, set->rest, rn[0] % 4,
                                          p->pc + p0 + rn[1], p->po + p0 + rn[1], rn[2] - rn[1],
                                          sc->terms);
        }
        for (int v = bk[0], e = 0; v < bk[1]; v++) {
            int i = fw->col_order[v];
            pbd_vbd_vertex_update_pre(w, fw, sc, i, h, sc->terms + e, p->have + p0 + e);
            e += ptr[i + 1] - ptr[i];
        }
    }
}
