/* One projection sweep: projectConstraints(C_1 … C_{M+Mcoll}, p_1 … p_N), line (10). */
#include "fastpath.h"
#include "pbd.h"
#include "solver_private.h"
#include "variants.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

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
        for (int c = 0; c < set->count; c++) {
            double dl;
            int st = pbd_project_into(w, &ws, set, c, h, w->p, &dl);
            if (st == PBD_EVAL_OK) {
                set->lambda[c] += dl;
                pbd_scatter_ws(w, &ws, set, c, w->p);
            } else if (st == PBD_EVAL_DEGENERATE) {
                skipped++;
            }
        }
    }
    return skipped;
}

/* Below this many constraints per thread a sweep runs on one thread: the barriers after
 * each colour would cost more than the projections. */
#define PBD_COLOURED_MIN_PER_THREAD 128
/* A colour of n constraints is cut into chunks that shrink as it goes ("guided"): each takes
 * 1/(2 nt) of what is left, at least PBD_CHUNK_MIN, so the threads start on large chunks
 * (few atomic claims) and finish together on small ones. */
#define PBD_CHUNK_MIN 256 /* smaller chunks cost more in claims than they balance */

/* Project the constraints order[lo .. hi) of one colour of set s (rows == identity when the
 * set is sorted by colour); returns the skips. */
static int project_range(pbd_world *w, pbd_constraint_set *set, const pbd_set_colouring *col,
                         pbd_workspace *ws, double h, int lo, int hi)
{
    pbd_batch_fn kernel = pbd_set_kernel(w, set, 1);
    if (kernel) { /* the type's kernel reads the set's arrays directly */
        pbd_batch b = pbd_set_batch(w, set, h);
        return kernel(&b, col->identity ? NULL : col->order, lo, hi);
    }
    int skipped = 0;
    for (int q = lo; q < hi; q++) {
        int c = col->order[q];
        double dl;
        int st = pbd_project_into(w, ws, set, c, h, w->p, &dl);
        if (st == PBD_EVAL_OK) {
            set->lambda[c] += dl;
            pbd_scatter_ws(w, ws, set, c, w->p);
        } else if (st == PBD_EVAL_DEGENERATE) {
            skipped++;
        }
    }
    return skipped;
}

/* The size of the chunk that starts with rem of a colour's n constraints left: a colour of at
 * most 8 nt PBD_CHUNK_MIN constraints is cut into nt equal chunks (one per thread, as a fixed
 * split would), a larger one guided. */
static int chunk_size(int rem, int n, int nt)
{
    int size = n <= 8 * nt * PBD_CHUNK_MIN ? (n + nt - 1) / nt : (rem + 2 * nt - 1) / (2 * nt);
    if (size < PBD_CHUNK_MIN && n > 8 * nt * PBD_CHUNK_MIN) size = PBD_CHUNK_MIN;
    return size < rem ? size : rem;
}

/* Chunks of a colour of n constraints on nt threads. */
static int chunks_of(int n, int nt)
{
    int k = 0;
    for (int rem = n; rem > 0; k++) rem -= chunk_size(rem, n, nt);
    return k > 0 ? k : 1;
}

/* Wait until *done >= target: spin a little (the other thread is usually a few hundred
 * nanoseconds away), then give the CPU away while waiting, so that a thread that another
 * process has pushed off its CPU gets it back sooner and a waiting thread never burns the
 * time the others need (solver/README.md "Performance": threads under load). Returns 1
 * instead when the sweeps stop before chunk g (*stop_at <= g), else 0. */
static int wait_for(atomic_long *done, long target, const atomic_long *stop_at, long g)
{
    for (int spin = 0; atomic_load_explicit(done, memory_order_acquire) < target; spin++) {
        if (atomic_load_explicit(stop_at, memory_order_acquire) <= g) return 1;
        if (spin < 4000) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        } else {
            sched_yield();
        }
    }
    return 0;
}

/* Coloured Gauss–Seidel: sets in order, colours in order (solver/colouring.c); the
 * constraints of one colour share no particle, so they are projected in parallel. Every
 * projection reads and writes only its own particles and each kernel's result does not
 * depend on how its range is cut, so the result does not depend on the number of threads
 * or the schedule. `iterations` sweeps run inside one parallel region; returns the skips of
 * the last sweep.
 *
 * The schedule: every (iteration, set, colour) is a phase cut into chunks, numbered one after
 * the other through the whole run. A thread claims the next chunk number (one atomic
 * counter), waits until every chunk before the chunk's phase is done (a second counter), then
 * projects it. A thread that another process pushes off its CPU therefore holds up the
 * others only while it holds an unfinished chunk: the rest of its colours go to whichever
 * thread is running, instead of each thread owning a fixed share behind a barrier. */
static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The thread count for this call: the faster of one and `most` as last measured, and every
 * sweep_every calls a try of the other: three calls, the first to warm up (a pool thread may
 * be asleep), the next two measured (*trying = 1, then 2). */
static int choose_threads(struct pbd_variants_state *vs, int most, int *trying)
{
    *trying = 0;
    if (vs->sweep_threads != 1 && vs->sweep_threads != most) { /* first call, or new count */
        vs->sweep_threads = most;
        vs->sweep_cost[0] = vs->sweep_cost[1] = 0.0;
        vs->sweep_since = 0;
        vs->sweep_every = 1; /* try one thread at the next call */
        return most;
    }
    if (++vs->sweep_since >= vs->sweep_every) {
        *trying = vs->sweep_since - vs->sweep_every; /* 0: the warm-up, then 1 and 2 */
        if (*trying == 2) vs->sweep_since = 0;
        return vs->sweep_threads == 1 ? most : 1;
    }
    return vs->sweep_threads;
}

/* Record a call's seconds per projection. The current count's cost follows its calls, a
 * single slow one (a thread pushed off its CPU for a moment) counting at most twice the cost
 * so far; a try's cost is the faster of its two measured calls. After a try, keep the faster
 * count — more threads only when they were clearly faster (by PBD_THREADS_GAIN: they must
 * never be the slower choice) — and try again soon when the choice switched, later and later
 * (up to every 64 calls, or more when a try costs many calls' time) while it did not. */
#define PBD_THREADS_GAIN 0.85
static void record_cost(struct pbd_variants_state *vs, int used, int trying, double cost)
{
    double *c = &vs->sweep_cost[used > 1];
    if (used == vs->sweep_threads) { /* a call of the current choice */
        *c = *c > 0.0 ? 0.5 * (*c + fmin(cost, 2.0 * *c)) : cost;
        return;
    }
    if (trying == 0) return; /* a try's warm-up */
    *c = trying == 1 ? cost : fmin(*c, cost);
    if (trying == 1) return;
    double one = vs->sweep_cost[0], all = vs->sweep_cost[1];
    if (!(one > 0.0) || !(all > 0.0)) return;
    int better = used > 1 ? all < PBD_THREADS_GAIN * one : one < all;
    if (better) {
        vs->sweep_threads = used;
        vs->sweep_every = 8;
    } else { /* and a failed try costs at most ~5 % of the calls' time */
        double ratio = used > 1 ? all / one : one / all, every = 2.0 * vs->sweep_every;
        every = fmax(8.0, fmin(every, 64.0));
        every = fmin(fmax(every, 60.0 * ratio), 4096.0);
        vs->sweep_every = (int)every;
    }
}

int pbd_sweep_threads_now(const pbd_world *w)
{
    const struct pbd_variants_state *vs = w->variants;
    int most = pbd_variants_threads(w);
    return vs && vs->sweep_threads == 1 ? 1 : most;
}

static int coloured_run(pbd_world *w, double h, int iterations, int threads);

static int coloured_sweeps(pbd_world *w, double h, int iterations)
{
    struct pbd_variants_state *vs = w->variants;
    assert(vs && vs->col_valid && vs->n_ws > 0); /* pbd_variants_prepare ran */
    int most = pbd_variants_threads(w);
    if (most > vs->n_ws) most = vs->n_ws;
    long total = 0;
    for (int s = 0; s < w->n_sets; s++) total += w->sets[s].count;
    if (total < (long)PBD_COLOURED_MIN_PER_THREAD * most) most = 1;
    if (most == 1 || total == 0) return coloured_run(w, h, iterations, 1);
#ifdef PBD_NO_THREAD_CHOICE /* experiments: always the most threads */
    return coloured_run(w, h, iterations, most);
#endif
    int trying, threads = choose_threads(vs, most, &trying);
    if (threads > w->stats.threads) w->stats.threads = threads;
    double t0 = now_seconds();
    int skipped = coloured_run(w, h, iterations, threads);
    record_cost(vs, threads, trying, (now_seconds() - t0) / ((double)total * iterations));
    return skipped;
}

static int coloured_run(pbd_world *w, double h, int iterations, int threads)
{
    struct pbd_variants_state *vs = w->variants;
    int skipped = 0;
    if (threads == 1) {
        for (int it = 0; it < iterations; it++) {
            if (it > 0 && pbd_stop_requested()) break; /* the first sweep always runs */
            skipped = 0;
            for (int s = 0; s < w->n_sets; s++) {
                const pbd_set_colouring *col = &vs->col[s];
                for (int k = 0; k < col->n_colours; k++)
                    skipped += project_range(w, &w->sets[s], col, &vs->ws[0], h, col->start[k],
                                             col->start[k + 1]);
            }
        }
        return skipped;
    }
    long phases_per_sweep = 0;
    for (int s = 0; s < w->n_sets; s++) phases_per_sweep += vs->col[s].n_colours;
    if (phases_per_sweep == 0) return 0;
    /* A stop request (pbd_stop_requested) ends the sweeps between two iterations: a thread
     * whose next chunk opens iteration it > 0 reads the flag, and when it is set, stop_at
     * becomes that chunk's number; no thread projects a chunk from there on, and a thread
     * waiting for the chunks before its own stops waiting (every chunk before stop_at gets
     * done). The step is then abandoned (solver/step.c), so a sweep that another thread had
     * started on does no harm. */
    /* the three counters on their own cache lines: the threads write claimed and done, and
     * spin on done, all the time */
    struct {
        _Alignas(64) atomic_long claimed;
        _Alignas(64) atomic_long done;
        _Alignas(64) atomic_long stop_at;
    } sync = {0, 0, LONG_MAX};
#pragma omp parallel num_threads(threads) reduction(+ : skipped)
    {
        pbd_workspace *ws = &vs->ws[omp_get_thread_num()];
        const int nt = omp_get_num_threads();
        /* this thread's cursor: the phase (it, s, k), its first chunk number and its chunks */
        int it = 0, s = 0, k = 0;
        while (s < w->n_sets && vs->col[s].n_colours == 0) s++;
        long base = 0;
        int n_chunks = chunks_of(vs->col[s].start[1] - vs->col[s].start[0], nt);
        int cc = 0, cstart = 0; /* chunk cc of the current phase starts at cstart */
        for (;;) {
            long g = atomic_fetch_add_explicit(&sync.claimed, 1, memory_order_relaxed);
            while (it < iterations && g >= base + n_chunks) { /* advance to g's phase */
                base += n_chunks;
                if (++k == vs->col[s].n_colours) {
                    k = 0;
                    int next = 0;
                    do {
                        if (++s == w->n_sets) {
                            s = 0;
                            it++;
                            next = 1;
                        }
                    } while (vs->col[s].n_colours == 0);
                    if (next && it < iterations && pbd_stop_requested()) {
                        long seen = LONG_MAX; /* keep the earliest */
                        while (base < seen && !atomic_compare_exchange_weak(&sync.stop_at, &seen, base))
                            ;
                    }
                }
                n_chunks = chunks_of(vs->col[s].start[k + 1] - vs->col[s].start[k], nt);
                cc = cstart = 0;
            }
            if (it >= iterations || g >= atomic_load(&sync.stop_at)) break;
            if (wait_for(&sync.done, base, &sync.stop_at, g)) break; /* every chunk of the earlier phases */
            const pbd_set_colouring *col = &vs->col[s];
            int lo = col->start[k], n = col->start[k + 1] - lo;
            for (; cc < g - base; cc++) cstart += chunk_size(n - cstart, n, nt);
            int sk = project_range(w, &w->sets[s], col, ws, h, lo + cstart,
                                   lo + cstart + chunk_size(n - cstart, n, nt));
            if (it == iterations - 1) skipped += sk;
            atomic_fetch_add_explicit(&sync.done, 1, memory_order_release);
        }
    }
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
