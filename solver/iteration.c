/* One projection sweep: projectConstraints(C_1 … C_{M+Mcoll}, p_1 … p_N), line (10). */
#include "fastpath.h"
#include "pbd.h"
#include "solver_private.h"
#include "variants.h"

#include <assert.h>
#include <omp.h>

/* Project row c of a set, or the block of rows starting at c (pbd_constraint_type.block),
 * in place on w->p with workspace ws; returns the number of rows skipped as degenerate. */
static int project_rows(pbd_world *w, pbd_workspace *ws, pbd_constraint_set *set, int c,
                        double h)
{
    int nb = pbd_block_rows(set, c), st;
    double dl[PBD_MAX_BLOCK];
    if (set->type->block > 1)
        st = pbd_project_block_into(w, ws, set, c, nb, h, w->p, dl);
    else
        st = pbd_project_into(w, ws, set, c, h, w->p, dl);
    if (st == PBD_EVAL_OK) {
        for (int k = 0; k < nb; k++) set->lambda[c + k] += dl[k];
        pbd_scatter_ws(w, ws, set, c, w->p);
        return 0;
    }
    return st == PBD_EVAL_DEGENERATE ? nb : 0;
}

/* Gauss–Seidel in a fixed order (PBD Sec. 3.2): sets in order, constraints in order,
 * each projection seeing the positions its predecessors produced. */
static int gauss_seidel(pbd_world *w, double h)
{
    pbd_workspace ws = pbd_world_workspace(w);
    int skipped = 0;
    for (int s = 0; s < w->n_sets && !pbd_stop_requested(); s++) {
        pbd_constraint_set *set = &w->sets[s];
        pbd_batch_fn kernel = pbd_set_kernel(w, set, 0);
        if (kernel) { /* the type's batched kernel: the same projections, in the same order */
            pbd_batch b = pbd_set_batch(w, set, h);
            skipped += kernel(&b, NULL, 0, set->count);
            continue;
        }
        for (int c = 0; c < set->count; c += pbd_block_rows(set, c))
            skipped += project_rows(w, &ws, set, c, h);
    }
    return skipped;
}

/* Below this many constraints per thread a sweep runs on one thread: the barriers after
 * each colour would cost more than the projections. */
#define PBD_COLOURED_MIN_PER_THREAD 128

/* Coloured Gauss–Seidel: sets in order, colours in order (solver/colouring.c); the
 * constraints of one colour share no particle, so they are projected in parallel, each
 * thread with its own workspace. Every projection reads and writes only its own particles,
 * so the result does not depend on the number of threads or the schedule. `iterations`
 * sweeps run inside one parallel region; returns the skips of the last sweep. */
static int coloured_sweeps(pbd_world *w, double h, int iterations)
{
    struct pbd_variants_state *vs = w->variants;
    assert(vs && vs->col_valid && vs->n_ws > 0); /* pbd_variants_prepare ran */
    int skipped = 0;
    int threads = pbd_variants_threads(w);
    if (threads > vs->n_ws) threads = vs->n_ws;
    long total = 0;
    for (int s = 0; s < w->n_sets; s++) total += w->sets[s].count;
    if (total < (long)PBD_COLOURED_MIN_PER_THREAD * threads) threads = 1;
    /* A stop request (pbd_stop_requested) ends the sweeps between two iterations. All threads
     * must take the same decision (else some would wait at a barrier the others never
     * reach), so one thread reads the flag into stop[it % 2] and the others read that copy
     * after the single's barrier; alternating two slots keeps the next iteration's write from
     * racing with a slow thread still reading this one's. No return leaves the region. */
    volatile int stop[2] = {0, 0};
    int used = 1;
#pragma omp parallel num_threads(threads) reduction(+ : skipped)
    {
        pbd_workspace *ws = &vs->ws[omp_get_thread_num()];
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        if (t == 0) used = nt;
        int mine = 0; /* this thread's skips in the current sweep */
        for (int it = 0; it < iterations; it++) {
            if (it > 0) { /* the first sweep always runs (its caller checked) */
#pragma omp single
                stop[it % 2] = pbd_stop_requested();
                if (stop[it % 2]) break;
            }
            mine = 0;
            for (int s = 0; s < w->n_sets; s++) {
                pbd_constraint_set *set = &w->sets[s];
                const pbd_set_colouring *col = &vs->col[s];
                pbd_batch_fn kernel = pbd_set_kernel(w, set, 1);
                if (kernel) {
                    /* each thread hands its contiguous share of the colour to the type's
                     * kernel; a set sorted by colour is read straight, without the permutation */
                    pbd_batch b = pbd_set_batch(w, set, h);
                    const int32_t *rows = col->identity ? NULL : col->order;
                    for (int k = 0; k < col->n_colours; k++) {
                        long lo = col->start[k], n = col->start[k + 1] - lo;
                        mine += kernel(&b, rows, (int)(lo + n * t / nt), (int)(lo + n * (t + 1) / nt));
#pragma omp barrier
                    }
                    continue;
                }
                /* a block's rows are consecutive in the colour (solver/colouring.c) */
                const int step = set->type->block > 1 ? set->type->block : 1;
                for (int k = 0; k < col->n_colours; k++) {
#pragma omp for schedule(static)
                    for (int q = col->start[k]; q < col->start[k + 1]; q += step)
                        mine += project_rows(w, ws, set, col->order[q], h);
                }
            }
        }
        skipped += mine;
    }
    if (used > w->stats.threads) w->stats.threads = used;
    return skipped;
}

int pbd_sweep_coloured(pbd_world *w, double h) { return coloured_sweeps(w, h, 1); }

int pbd_project_iterations(pbd_world *w, double h, int iterations)
{
    if (w->def.scheme == PBD_SCHEME_COLORED_GS) return coloured_sweeps(w, h, iterations);
    int skipped = 0;
    for (int it = 0; it < iterations && !pbd_stop_requested(); it++)
        skipped = pbd_project_iteration(w, h);
    return skipped;
}

int pbd_project_iteration(pbd_world *w, double h)
{
    switch (w->def.scheme) {
    case PBD_SCHEME_JACOBI:
        return pbd_sweep_jacobi(w, h);
    case PBD_SCHEME_COLORED_GS:
        return pbd_sweep_coloured(w, h);
    case PBD_SCHEME_GAUSS_SEIDEL:
    default:
        return gauss_seidel(w, h);
    }
}
