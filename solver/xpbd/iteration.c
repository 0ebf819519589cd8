/* One projection sweep: projectConstraints(C_1 … C_{M+Mcoll}, p_1 … p_N), line (10). */
#define _DEFAULT_SOURCE /* syscall(): the futex the threads sleep on (Linux) */
#include "solver/xpbd/fastpath.h"
#include "solver/pbd.h"
#include "solver/solver_private.h"
#include "solver/xpbd/xpbd.h"
#include "solver/variants.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

/* Project row c of a set, or the block of rows starting at c (pbd_constraint_type.block),
 * in place on w->p with workspace ws; returns the number of rows skipped as degenerate. */
static int project_rows(pbd_world *w, pbd_workspace *ws, pbd_constraint_set *set, int c,
                        double h)
{
    int nb = pbd_rows_at(w, set, c), st;
    double dl[PBD_MAX_BLOCK];
    if (w->def.rod_projection == PBD_ROD_CLOSED_FORM && set->type->project_element)
        st = pbd_project_orient_element_into(w, ws, set, c, 1.0 / (h * h), w->p, dl);
    else if (set->type->block > 1)
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
        for (int c = 0; c < set->count; c += pbd_rows_at(w, set, c))
            skipped += project_rows(w, &ws, set, c, h);
    }
    return skipped;
}

/* Below this many constraints per thread a sweep runs on one thread: the barriers after
 * each colour would cost more than the projections. */
#define PBD_COLOURED_MIN_PER_THREAD 128
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
    /* a block's rows are consecutive in the colour (solver/xpbd/colouring.c); lo and hi are block
     * boundaries (share_bound) */
    const int step = set->type->block > 1 ? set->type->block : 1;
    int skipped = 0;
    for (int q = lo; q < hi; q += step) skipped += project_rows(w, ws, set, col->order[q], h);
    return skipped;
}

/* Where thread t's share of a colour [lo, lo + n) begins (t = nt: its end), on a boundary
 * of the set's blocks (pbd_constraint_type.block) */
static int share_bound(const pbd_constraint_set *set, long lo, long n, int t, int nt)
{
    long step = set->type->block > 1 ? set->type->block : 1, blocks = n / step;
    return (int)(lo + step * (blocks * t / nt));
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The threads' meeting point between colours: done counts the finished shares (32 bits: the
 * futex word), sleepers the threads blocked on it, stop_at a stop request's position. Each on
 * its own cache line: the threads write done and spin on it. */
typedef struct sweep_sync {
    _Alignas(64) atomic_int done;
    _Alignas(64) atomic_int sleepers;
    _Alignas(64) atomic_long stop_at;
} sweep_sync;

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
static void futex_wait(atomic_int *word, int expected)
{
    struct timespec timeout = {0, 1000000}; /* 1 ms: a stop request is seen soon */
    syscall(SYS_futex, (int *)word, FUTEX_WAIT_PRIVATE, expected, &timeout, NULL, 0);
}
static void futex_wake(atomic_int *word)
{
    syscall(SYS_futex, (int *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}
#endif

/* A share is finished: count it, and wake the threads that sleep on the count. */
static void share_done(sweep_sync *sy)
{
    atomic_fetch_add(&sy->done, 1); /* sequentially consistent: ordered before the load */
#ifdef __linux__
    if (atomic_load(&sy->sleepers) > 0) futex_wake(&sy->done);
#endif
}

/* Wait until done >= target: spin for up to PBD_SPIN_SECONDS (the other thread is usually
 * a few microseconds away; waking a sleeping thread in a virtual machine costs ~100 µs: with
 * a 30 µs spin the 1000² cloth lost 20 % on 2 threads), then sleep on the count (a futex,
 * Linux; sched_yield elsewhere). A
 * sleeping thread leaves its CPU free, so that the scheduler can move there a thread of
 * ours that another process pushed off its own CPU (sched_yield would keep the CPU busy and
 * the other thread waiting): this is what makes two threads hold up under a competing
 * process (solver/xpbd/README.md "Performance"). Returns 1 instead when the sweeps stop at or
 * before position g (stop_at <= g), else 0. */
#define PBD_SPIN_SECONDS 300e-6 /* waking a sleeping thread (a halted virtual CPU) costs more */
static int wait_for(sweep_sync *sy, int target, long g)
{
    double spin_end = 0.0;
    int spinning = 1;
    for (int spin = 0; atomic_load_explicit(&sy->done, memory_order_acquire) < target; spin++) {
        if (atomic_load_explicit(&sy->stop_at, memory_order_acquire) <= g) return 1;
        if (spinning && spin % 256 == 0) { /* spin for PBD_SPIN_SECONDS, then sleep */
            double t = now_seconds();
            if (spin == 0) spin_end = t + PBD_SPIN_SECONDS;
            spinning = t < spin_end;
        }
        if (spinning) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
            continue;
        }
#ifdef __linux__
        atomic_fetch_add(&sy->sleepers, 1);
        int seen = atomic_load(&sy->done); /* after announcing: no wake-up is lost */
        if (seen < target) futex_wait(&sy->done, seen);
        atomic_fetch_sub(&sy->sleepers, 1);
#else
        sched_yield();
#endif
    }
    return 0;
}

/* Coloured Gauss–Seidel: sets in order, colours in order (solver/xpbd/colouring.c); the
 * constraints of one colour share no particle, so they are projected in parallel. Every
 * projection reads and writes only its own particles and each kernel's result does not
 * depend on how its range is cut, so the result does not depend on the number of threads
 * or the schedule. `iterations` sweeps run inside one parallel region; returns the skips of
 * the last sweep. A process that competes for the CPUs can make one thread faster than two
 * (a thread pushed off its CPU holds up every colour): the sweep measures both and keeps
 * the faster (choose_threads, record_cost). */

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
        vs->sweep_every = 4; /* the first try of one thread after 4 calls */
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
    } else { /* and a try that was much slower (a competing process) comes back rarely */
        double ratio = used > 1 ? all / one : one / all, every = 2.0 * vs->sweep_every;
        every = fmax(8.0, fmin(every, 64.0));
        every = fmin(fmax(every, 200.0 * (ratio - 1.0)), 4096.0);
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
    /* Each thread projects its contiguous share of every colour, the same share colour after
     * colour (its particles stay in its core's cache: on the 1000² cloth two threads were 2.4×
     * one, against 1.9× with chunks handed out first come first served), and waits for the
     * other shares of the colour before the next. done counts the finished shares; a waiting
     * thread spins, then gives its CPU away (wait_for). A stop request ends the sweeps
     * between two iterations: a thread that starts iteration it > 0 reads the flag, and when
     * it is set, stop_at becomes the count of shares before that iteration; no thread goes
     * past it, and a thread waiting for shares beyond it stops waiting. The step is then
     * abandoned (solver/step.c), so a share another thread had started does no harm. The
     * counters sit on their own cache lines: the threads write done and spin on it. */
    sweep_sync sync;
    atomic_init(&sync.done, 0);
    atomic_init(&sync.sleepers, 0);
    atomic_init(&sync.stop_at, LONG_MAX);
#pragma omp parallel num_threads(threads) reduction(+ : skipped)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        pbd_workspace *ws = &vs->ws[t];
        int base = 0; /* shares of the earlier colours */
        for (int it = 0; it < iterations; it++) {
            if (it > 0 && pbd_stop_requested()) {
                long seen = LONG_MAX; /* keep the earliest */
                while (base < seen && !atomic_compare_exchange_weak(&sync.stop_at, &seen, base))
                    ;
            }
            if (base >= atomic_load(&sync.stop_at)) break;
            int mine = 0, stopped = 0;
            for (int s = 0; s < w->n_sets && !stopped; s++) {
                const pbd_set_colouring *col = &vs->col[s];
                for (int k = 0; k < col->n_colours; k++) {
                    if (wait_for(&sync, base, base)) { /* the earlier colours */
                        stopped = 1;
                        break;
                    }
                    long lo = col->start[k], n = col->start[k + 1] - lo;
                    const pbd_constraint_set *set = &w->sets[s];
                    mine += project_range(w, &w->sets[s], col, ws, h,
                                          share_bound(set, lo, n, t, nt),
                                          share_bound(set, lo, n, t + 1, nt));
                    share_done(&sync);
                    base += nt;
                }
            }
            if (stopped) break;
            if (it == iterations - 1) skipped += mine;
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
