/* The Newton reference's rows of the performance table, with their targets: one implicit
 * step (XPBD Eq. 8–9 solved by Newton to ||(g, h)|| ≤ 1e-10 from the prediction x̃, the
 * sparse path of def.newton_solver = auto) of
 *   - the 64² hanging cloth of XPBD Table 1 (structural, shear, bend springs, α = 1e-7 m/N):
 *     target ≤ 0.10 s per step;
 *   - a 100² cloth with dihedral bending (the cloth_bend scene, α = 1e-7 m/N stretch, 1e-3
 *     bending): target ≤ 0.75 s per step;
 *   - the 316² cloth (10⁵ particles) like the 64² one: measured, with its memory;
 * each with the BLAS on 1 thread and on pbd_blas_threads() (the first two scenes), and on 1
 * thread with MINRES' preconditioner reading L in double (CHOLMOD's solve: the `krylov-f64`
 * row) beside the default, L in float (solver/newton/newton_precond.c), in the same process;
 * wall clock per time step (min and median over the timed steps, after one untimed step),
 * with the Newton iterations, the time per iteration and the memory the reference holds
 * (workspace, pattern, matrix and the factorisation's peak as SuiteSparse counts it). */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* This process's CPU time (all threads): on a loaded machine, the work a step took. */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 1 while a row runs MINRES' preconditioner in double (pbd_newton_set_precond_float(0)) */
static int precond_f64;

typedef struct newton_scene {
    const char *name;
    int bending, resolution, timed;
    double target_seconds;
} newton_scene;

static pbd_world *build(const newton_scene *sc)
{
    if (!sc->bending) {
        pbd_exp_cloth c = {.resolution = sc->resolution, .size = 1.0, .mass = 1.0, .shear = 1,
                           .bend = 1, .pinned = 1, .stiffness = 1.0, .compliance = 1e-7};
        return pbd_exp_cloth_build(&c, NULL, NULL);
    }
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = sc->resolution;
    sp.compliance = 1e-7;
    sp.k_bend = 1.0;
    sp.bend_compliance = 1e-3;
    return pbd_scene_cloth_bend(&sp);
}

/* One row: `timed` implicit steps of the scene after an untimed first one (symbolic
 * analysis, pattern, pool), the BLAS on `threads` threads, the Schur form's solves by
 * MINRES with a kept factor (`krylov`) or by a factorisation every iteration (the path
 * before it). *seconds gets the min wall time per step. Returns 0 or -1. */
static int run_row(const newton_scene *sc, int threads, int own, int krylov, int quick,
                   bench_row *rows, int *n_rows, char out[][256], int *n_targets, double *seconds)
{
    pbd_blas_set_threads(threads);
    pbd_newton_set_threads(own); /* the assembly's and MINRES' product's threads */
    pbd_newton_set_krylov(krylov);
    threads = pbd_blas_threads();
    double load0 = bench_load_average();
    pbd_world *w = build(sc);
    if (!w) {
        fprintf(stderr, "pbd-bench: cannot build %s: %s\n", sc->name, pbd_last_error());
        return -1;
    }
    size_t estimate = 0;
    const long rss0 = bench_resident_kb("VmRSS:"), hwm0 = bench_resident_kb("VmHWM:");
    double t[8], per_it = 0.0, cpu = 0.0, assemble = 0.0;
    int its = 0, facts = 0, kits = 0;
    pbd_newton_info info = {0};
    pbd_status st = pbd_newton_prepare(w, &estimate);
    for (int s = 0; s <= sc->timed && st == PBD_OK; s++) { /* step 0: untimed */
        double c0 = cpu_seconds();
        if ((st = pbd_newton_step(w, 30, 1e-10, NULL, NULL)) != PBD_OK) break;
        pbd_newton_last_info(w, &info);
        if (s == 0) continue;
        cpu += cpu_seconds() - c0;
        t[s - 1] = info.seconds_total;
        its += info.iterations;
        facts += info.factorisations;
        kits += info.krylov_iterations;
        per_it += info.seconds_assemble + info.seconds_solve;
        assemble += info.seconds_assemble;
    }
    pbd_newton_set_krylov(1);
    pbd_newton_set_threads(0);
    if (st != PBD_OK) {
        fprintf(stderr, "pbd-bench: %s: %s\n", sc->name, pbd_last_error());
        pbd_world_free(w);
        return -1;
    }
    qsort(t, (size_t)sc->timed, sizeof t[0], bench_cmp_double);
    *seconds = t[0];
    /* the process's peak resident memory grown from before the set-up: only where this row
     * raised the peak (else an earlier, larger row set it: "-") */
    const long hwm = bench_resident_kb("VmHWM:");
    char grown[48] = "-";
    if (rss0 > 0 && hwm > hwm0)
        snprintf(grown, sizeof grown, "%.0f MB", (double)(hwm - rss0) * 1024.0 / 1e6);
    bench_row *r = &rows[(*n_rows)++];
    memset(r, 0, sizeof *r);
    snprintf(r->scene, sizeof r->scene, "%s", sc->name);
    snprintf(r->solver, sizeof r->solver, "newton-%s-blas%dt%s",
             info.solver != PBD_NEWTON_CHOLMOD ? "umfpack"
             : !krylov                         ? "direct"
             : precond_f64                     ? "krylov-f64"
                                               : "krylov",
             threads, own != threads ? "-own2t" : "");
    r->particles = w->n;
    for (int s = 0; s < w->n_sets; s++) r->constraints += w->sets[s].count;
    r->iterations = (int)lround((double)its / sc->timed);
    r->threads = threads;
    r->steps_timed = sc->timed;
    r->ms_min = 1e3 * t[0];
    r->ms_median = 1e3 * t[sc->timed / 2];
    r->ns_per_projection = r->mproj_per_s = r->x_baseline = r->max_stretch = NAN;
    r->ns_per_particle_step = 1e9 * t[0] / w->n;
    r->bytes_per_particle = (double)info.bytes / w->n;
    r->load_before = load0;
    r->load_after = bench_load_average();
    printf("%-24s %-22s %7d %7d  %2d its (%.1f factorisations, %.0f MINRES its)  %8.1f ms/step "
           "(median %8.1f)  %7.1f ms/iteration  %d unknowns, %ld nonzeros, %.0f MB (estimated "
           "%.0f MB, resident grew %s), load %.1f -> %.1f, CPU %.0f ms/step (mean, all "
           "threads), assembly %.0f ms/step on %d thread%s\n",
           r->scene, r->solver, r->particles, r->constraints, r->iterations,
           (double)facts / sc->timed, (double)kits / sc->timed, r->ms_min, r->ms_median,
           1e3 * per_it / its, info.unknowns, info.nonzeros, info.bytes / 1e6, estimate / 1e6,
           grown, r->load_before, r->load_after, 1e3 * cpu / sc->timed,
           1e3 * assemble / sc->timed, own, own > 1 ? "s" : "");
    fflush(stdout);
    if (!krylov || precond_f64) { /* baselines: ratios' denominators, no target */
    } else if (sc->target_seconds > 0.0)
        snprintf(out[(*n_targets)++], 256, "Newton step (to 1e-10), %s, BLAS on %d thread%s, "
                 "assembly on %d: %.2f s (%d iterations, %.3f s each), memory %.0f MB, load %.1f "
                 "(target <= %g s%s): %s", sc->name, threads, threads > 1 ? "s" : "", own, t[0],
                 r->iterations,
                 per_it / its, info.bytes / 1e6, r->load_after, sc->target_seconds,
                 quick ? ", full size only" : "", t[0] <= sc->target_seconds ? "met" : "NOT met");
    else
        snprintf(out[(*n_targets)++], 256, "Newton step (to 1e-10), %s, BLAS on %d thread%s: "
                 "%.1f s (%d iterations), memory %.0f MB (estimated up front %.0f MB, resident "
                 "grew %s), load %.1f (measured, no target)", sc->name, threads,
                 threads > 1 ? "s" : "", t[0], r->iterations, info.bytes / 1e6, estimate / 1e6,
                 grown, r->load_after);
    pbd_world_free(w);
    return 0;
}

int bench_newton(int quick, const char *only, bench_row *rows, int *n_rows, char out[][256],
                 int *n_targets)
{
    /* the targets; the 316² cloth (10⁵ particles) measured with its memory */
    const newton_scene full[] = {{"newton-cloth64", 0, 64, 3, 0.10},
                                 {"newton-cloth100-bending", 1, 100, 2, 0.75},
                                 {"newton-cloth316", 0, 316, 1, 0.0}};
    const newton_scene small[] = {{"newton-cloth32", 0, 32, 2, 0.10},
                                  {"newton-cloth48-bending", 1, 48, 2, 0.75}};
    const newton_scene *scenes = quick ? small : full;
    int n_scenes = quick ? 2 : 3, cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    printf("# Newton rows: BLAS %s; the reference's default is 1 BLAS thread (bit-reproducible "
           "results); the 2-thread rows, run where the load leaves a core idle, set 2 "
           "(PBD_BLAS_THREADS=2 does it for a run); load average %.1f\n", pbd_blas_name(),
           bench_load_average());
    for (int k = 0; k < n_scenes; k++) {
        const newton_scene *sc = &scenes[k];
        if (!bench_selected(sc->name, only)) continue;
        double direct = 0.0, one = 0.0, two = 0.0, f64 = 0.0;
        /* the targeted scenes: the path before (a factorisation every iteration) as the
         * ratio's baseline, then MINRES with a kept factor on 1 and on 2 BLAS threads; the
         * 316² cloth: MINRES on 1 thread only (the old path's first step had not finished
         * after 37 minutes: experiments/programs/README.md) */
        if (sc->target_seconds > 0.0 &&
            run_row(sc, 1, 1, 0, quick, rows, n_rows, out, n_targets, &direct) < 0)
            return -1;
        /* ... and MINRES' preconditioner in double (CHOLMOD's solve) beside the float copy
         * of L (solver/newton/newton_precond.c, the default) */
        if (sc->target_seconds > 0.0) {
            pbd_newton_set_precond_float(0);
            precond_f64 = 1;
            int rc = run_row(sc, 1, 1, 1, quick, rows, n_rows, out, n_targets, &f64);
            pbd_newton_set_precond_float(1);
            precond_f64 = 0;
            if (rc < 0) return -1;
        }
        if (run_row(sc, 1, 1, 1, quick, rows, n_rows, out, n_targets, &one) < 0) return -1;
        if (sc->target_seconds > 0.0)
            snprintf(out[(*n_targets)++], 256, "Newton step, %s, 1 thread: MINRES' preconditioner "
                     "on L in float %.3f s vs in double %.3f s (%.2fx, same run), load %.1f",
                     sc->name, one, f64, f64 / one, bench_load_average());
        /* 2 BLAS threads only where a core is idle: under load OpenMP's barriers wait for
         * threads other processes keep off the cores (on a loaded machine the 64² cloth's
         * step took over ten times its 1-thread time) */
        /* two rows on 2 threads: the step's own loops only (assembly and MINRES' product:
         * the same bits as 1 thread), then the BLAS too (PBD_BENCH_TWO_THREADS=1 runs them
         * whatever the load) */
        double load = bench_load_average(), own2 = 0.0;
        const char *force = getenv("PBD_BENCH_TWO_THREADS");
        int two_ok = sc->target_seconds > 0.0 &&
                     ((force && atoi(force) == 1) || (load >= 0.0 && load < cores - 0.5));
        if (two_ok && (run_row(sc, 1, 2, 1, quick, rows, n_rows, out, n_targets, &own2) < 0 ||
                       run_row(sc, 2, 2, 1, quick, rows, n_rows, out, n_targets, &two) < 0))
            return -1;
        if (sc->target_seconds > 0.0 && two_ok)
            snprintf(out[(*n_targets)++], 256, "Newton step, %s: MINRES %.2fx a factorisation "
                     "every iteration (%.3f s vs %.3f s); 1 thread %.3f s, own loops on 2 %.3f s "
                     "(%.2fx), BLAS too %.3f s (%.2fx), load %.1f -> %.1f (same run)", sc->name,
                     direct / one, one, direct, one, own2, one / own2, two, one / two, load,
                     bench_load_average());
        else if (sc->target_seconds > 0.0)
            snprintf(out[(*n_targets)++], 256, "Newton step, %s: the kept factor with MINRES "
                     "%.2fx faster than a factorisation every iteration on 1 BLAS thread "
                     "(%.3f s vs %.3f s, same run); 2 threads not run: load %.1f on %d cores",
                     sc->name, direct / one, one, direct, load, cores);
    }
    pbd_blas_set_threads(0);
    pbd_newton_set_threads(0);
    return 0;
}
