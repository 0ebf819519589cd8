/* scaling — cost of the step vs problem size: a hanging cloth (pbd_scene_cloth: ~3 distance
 * constraints per particle) of 10³ to 10⁶ particles, PBD, a fixed number of iterations, for
 * each iteration scheme (Gauss–Seidel, Jacobi, graph-coloured Gauss–Seidel) and, for the
 * coloured scheme (the one that runs in parallel, OpenMP), each thread count.
 *
 * Measured: the median over the timed steps of the wall time per step (solver stages) and
 * of the projection stage per constraint projection (ns). One warm-up step is not timed (it
 * colours the constraint graph). This experiment measures time: the suite runs it alone. */
#include "pbd_drivers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 16
static const char *const scheme_words[] = {"gauss-seidel", "jacobi", "colored", NULL};

static struct {
    const char *particles, *schemes, *threads;
    int iterations, steps;
} P;

static int options(cli_option *out, int quick)
{
    P.particles = quick ? "1000,10000" : "1000,10000,100000,1000000";
    P.schemes = "gauss-seidel,jacobi,colored";
    P.threads = "1,2";
    P.iterations = 10;
    P.steps = 3;
    const cli_option rows[] = {
        {"particles", CLI_STRING, &P.particles, 0, 0, 0,
         "particle counts (list; the cloth's side is the rounded square root)", NULL},
        {"schemes", CLI_STRING, &P.schemes, 0, 0, 0, "gauss-seidel, jacobi, colored (list)", NULL},
        {"threads", CLI_STRING, &P.threads, 0, 0, 0,
         "thread counts for the coloured scheme (list; the others run on one)", NULL},
        {"iterations", CLI_INT, &P.iterations, 1, 1e6, 0, "solver iterations per step", NULL},
        {"steps", CLI_INT, &P.steps, 1, 1e6, 0, "timed steps per run (after one warm-up)", NULL},
    };
    int n = (int)(sizeof rows / sizeof rows[0]);
    for (int i = 0; i < n; i++) out[i] = rows[i];
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int run_one(pbd_exp_ctx *ctx, const char *name, int side, int scheme, int threads)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = side;
    pbd_world *w = pbd_scene_cloth(&sp);
    if (!w) return pbd_error(PBD_EINVAL, "scaling: cannot build a %dx%d cloth: %s", side, side,
                             pbd_last_error());
    w->def.iterations = P.iterations;
    w->def.scheme = scheme;
    w->def.threads = threads;
    w->def.sort_by_colour = 1; /* the fast layout (solver/README.md): same physics */
    long constraints = 0;
    for (int s = 0; s < w->n_sets; s++) constraints += w->sets[s].count;
    pbd_h5log_options o = {.scene_counts_only = 1};
    pbd_h5log *log = pbd_exp_log_open(ctx, name, w, &o);
    if (!log) {
        pbd_world_free(w);
        return PBD_EIO;
    }
    pbd_h5log_scene_params(log, &sp);
    pbd_h5log_attr_string(log, "scheme", scheme_words[scheme]);
    pbd_h5log_attr_int(log, "threads", threads);
    pbd_h5log_attr_int(log, "particles", w->n);
    pbd_h5log_attr_int(log, "constraints", constraints);
    double ms[64], ns[64];
    int n_t = P.steps < 64 ? P.steps : 64;
    pbd_status st = pbd_step(w); /* warm-up: colouring, workspaces */
    if (st == PBD_OK) st = pbd_h5log_step(log, w);
    for (int s = 0; s < n_t && st == PBD_OK; s++) {
        if ((st = pbd_step(w)) != PBD_OK) break;
        ms[s] = 1e3 * pbd_exp_step_seconds(w);
        ns[s] = 1e9 * w->stats.stage_seconds[PBD_STAGE_PROJECT] /
                ((double)P.iterations * (double)constraints);
        st = pbd_h5log_step(log, w);
        pbd_exp_progress(ctx, s + 1, n_t);
    }
    if (st == PBD_OK) {
        qsort(ms, (size_t)n_t, sizeof ms[0], cmp_double);
        qsort(ns, (size_t)n_t, sizeof ns[0], cmp_double);
        pbd_h5log_attr_double(log, "result.ms_per_step", ms[n_t / 2]);
        pbd_h5log_attr_double(log, "result.ns_per_projection", ns[n_t / 2]);
        st = pbd_exp_log_finish(ctx, log, "%d particles, %ld constraints: %.3g ms/step, %.3g ns per "
                                "projection", w->n, constraints, ms[n_t / 2], ns[n_t / 2]);
    } else {
        pbd_exp_log_abort(ctx, log, st);
    }
    pbd_world_free(w);
    return st;
}

static int run(pbd_exp_ctx *ctx)
{
    double counts[MAX_LIST], threads[MAX_LIST];
    int schemes[6];
    int n_c = pbd_exp_numbers(ctx, "particles", P.particles, counts, MAX_LIST, 4, 1e8);
    int n_s = pbd_exp_words(ctx, "schemes", P.schemes, scheme_words, schemes, 6);
    int n_t = pbd_exp_numbers(ctx, "threads", P.threads, threads, MAX_LIST, 1, 1024);
    if (n_c < 0 || n_s < 0 || n_t < 0) return PBD_EINVAL;
    for (int s = 0; s < n_s; s++)
        for (int t = 0; t < (schemes[s] == PBD_SCHEME_COLORED_GS ? n_t : 1); t++)
            for (int c = 0; c < n_c; c++) {
                int side = (int)lround(sqrt(counts[c]));
                int th = schemes[s] == PBD_SCHEME_COLORED_GS ? (int)threads[t] : 1;
                char name[96];
                snprintf(name, sizeof name, "%s_t%d_n%d", scheme_words[schemes[s]], th, side * side);
                if (!pbd_exp_want(ctx, name)) continue;
                int st = run_one(ctx, name, side, schemes[s], th);
                if (st != PBD_OK) return st;
            }
    return PBD_OK;
}

static int summarize(pbd_exp_ctx *ctx)
{
    double *rows = calloc((size_t)ctx->n_runs * 5 + 5, sizeof(double));
    if (!rows) return PBD_ENOMEM;
    int n = 0;
    for (int i = 0; i < ctx->n_runs; i++) {
        char path[4096], scheme[32];
        pbd_exp_run_path(ctx, ctx->runs[i], path, sizeof path);
        double *r = rows + 5 * n;
        if (pbd_h5_read_attr_string(path, "scheme", scheme, sizeof scheme) ||
            pbd_h5_read_attr_double(path, "threads", &r[1]) ||
            pbd_h5_read_attr_double(path, "particles", &r[2]) ||
            pbd_h5_read_attr_double(path, "result.ms_per_step", &r[3]) ||
            pbd_h5_read_attr_double(path, "result.ns_per_projection", &r[4]))
            continue;
        r[0] = strcmp(scheme, "gauss-seidel") == 0 ? 0 : strcmp(scheme, "jacobi") == 0 ? 1 : 2;
        n++;
    }
    pbd_exp_sort_rows(rows, n, 5, 3);
    pbd_exp_summary *s = pbd_exp_summary_open(ctx);
    if (!s) {
        free(rows);
        return PBD_EIO;
    }
    const char *cols[] = {"scheme", "threads", "particles", "ms_per_step", "ns_per_projection"};
    pbd_exp_summary_table(s, "timing", rows, n, 5, cols, "0=GS,1=Jacobi,2=coloured 1 1 ms ns");
    /* headline at the largest size: ns per projection of each scheme, coloured speed-up */
    double big = 0.0;
    for (int i = 0; i < n; i++) big = fmax(big, rows[5 * i + 2]);
    char text[768];
    snprintf(text, sizeof text, "at %g particles, ns per projection:", big);
    double c1 = NAN, cmax = NAN, tmax = 0;
    for (int i = 0; i < n; i++) {
        const double *r = rows + 5 * i;
        if (r[2] != big) continue;
        char part[96];
        snprintf(part, sizeof part, " %s%s %.3g;",
                 r[0] == 0 ? "GS" : r[0] == 1 ? "Jacobi" : "coloured GS",
                 r[0] == 2 ? (r[1] == 1 ? " (1 thread)" : " (2+ threads)") : "", r[4]);
        strncat(text, part, sizeof text - strlen(text) - 1);
        if (r[0] == 2 && r[1] == 1) c1 = r[3];
        if (r[0] == 2 && r[1] > tmax) {
            tmax = r[1];
            cmax = r[3];
        }
    }
    if (tmax > 1 && isfinite(c1) && isfinite(cmax)) {
        char tail[128];
        snprintf(tail, sizeof tail, " coloured GS speed-up on %g threads: %.2fx", tmax, c1 / cmax);
        strncat(text, tail, sizeof text - strlen(text) - 1);
    }
    pbd_exp_summary_double(s, "headline.colored_speedup", c1 / cmax);
    free(rows);
    return pbd_exp_summary_finish(s, "%s", text);
}

const pbd_experiment pbd_exp_scaling = {
    .name = "scaling",
    .description = "ms/step and ns per constraint projection vs particle count (10^3 to 10^6 "
                   "cloth particles), per iteration scheme and thread count",
    .paper = "no number in the papers: cost linear in the number of constraints; coloured "
             "Gauss-Seidel parallelises over threads",
    .timing = 1,
    .options = options,
    .run = run,
    .summarize = summarize,
};
