/* fluid_density — Position Based Fluids (Macklin & Müller 2013; solver/fluid/): how the density
 * error of the paper's Jacobi density update converges with iterations and substeps, how the
 * relaxation ε and the artificial pressure s_corr (Eq. 13) bias it, the volume lost over time,
 * and whether the rest column's pressure is hydrostatic.
 *
 * Runs (one process each):
 *   rest_it<I>_sub<S>        the fluid_rest column (resolution³ particles) settling for `steps`
 *                            steps at I iterations and S substeps, ε = 100 1/m², no s_corr
 *   rest_it4_sub1_eps<E>     the same at 4 iterations with ε = E
 *   rest_it4_sub1_scorr      with s_corr (k = scorr_k, n = 4, |Δq| = 0.2 h)
 *   rest_it4_sub1_xpbd       XPBD's compliance form of ε: α = ε w h² (α̃ = w ε, plus α̃λ)
 *   dam_it<I>[_scorr]        the dam_break block at I iterations (and with s_corr)
 * Measured per step (in /series/fluid/ of each file, and here): the density error |ρ/ρ0 − 1|
 * after the projection (max, mean over particles; units of ρ0; ρ with the walls' density: the
 * constraint C), the largest compression max_i (ρ_i/ρ0 − 1) at the step's end
 * (/series/max_compression), the volume ratio V/V0 = ρ0/ρ̄ of the interior
 * particles (ρ̄ their mean SPH density; interior: at least 80 % of the lattice's neighbour
 * count, so the free surface's missing neighbours do not count as expansion), and for the
 * column the mean height ratio ȳ/ȳ0 (a column's volume, whatever the SPH estimate says).
 * Results, over the second half of the run: mean_abs_error (the time mean of the particles'
 * mean |ρ/ρ0 − 1|), max_abs_error_time_mean (the time mean of the largest |ρ/ρ0 − 1|),
 * max_abs_error_worst_step (the largest |ρ/ρ0 − 1| of any step), max_compression (the largest
 * ρ/ρ0 − 1 of any particle and step: one-sided); the final volume ratio, and
 * for the rest column the pressure p_i = −λ_i/(h² V) (pbd_world_fluid_pressure) by depth
 * against ρ0 g depth, with the least-squares slope of p on ρ0 g depth. */
#include "pbd_drivers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 16
#define MAX_LAYERS 256

static struct {
    const char *iterations, *substeps, *epsilons, *dam_iterations;
    int rest_resolution, dam_resolution, steps, dam_steps;
    double scorr_k, rate;
} P;

static int options(cli_option *out, int quick)
{
    P.iterations = quick ? "1,4" : "1,2,4,8";
    P.substeps = quick ? "1" : "1,2";
    P.epsilons = quick ? "1000" : "10,1000";
    P.dam_iterations = quick ? "4" : "2,4,8";
    P.rest_resolution = quick ? 6 : 10;
    P.dam_resolution = quick ? 6 : 12;
    P.steps = quick ? 40 : 200;
    P.dam_steps = quick ? 30 : 150;
    P.scorr_k = 0.001;
    P.rate = 60.0;
    const cli_option rows[] = {
        {"iterations", CLI_STRING, &P.iterations, 0, 0, 0, "rest column: iterations (list)",
         NULL},
        {"substeps", CLI_STRING, &P.substeps, 0, 0, 0, "rest column: substeps (list)", NULL},
        {"epsilons", CLI_STRING, &P.epsilons, 0, 0, 0,
         "rest column at 4 iterations: epsilon values besides 100 1/m^2 (list)", NULL},
        {"dam-iterations", CLI_STRING, &P.dam_iterations, 0, 0, 0, "dam break: iterations (list)",
         NULL},
        {"rest-resolution", CLI_INT, &P.rest_resolution, 3, 100, 0,
         "rest column: particles along each side", NULL},
        {"dam-resolution", CLI_INT, &P.dam_resolution, 3, 100, 0,
         "dam break: particles along each side of the block", NULL},
        {"steps", CLI_INT, &P.steps, 2, 1e7, 0, "rest column: steps per run", NULL},
        {"dam-steps", CLI_INT, &P.dam_steps, 2, 1e7, 0, "dam break: steps per run", NULL},
        {"scorr-k", CLI_DOUBLE, &P.scorr_k, 0, 10, 1,
         "s_corr's k in the _scorr runs (the paper's 0.1 diverges at this scale: README)", NULL},
        {"rate", CLI_DOUBLE, &P.rate, 1, 1e6, 0, "steps per second (1/dt)", NULL},
    };
    int n = (int)(sizeof rows / sizeof rows[0]);
    for (int i = 0; i < n; i++) out[i] = rows[i];
    return n;
}

typedef struct fluid_run {
    int dam, iterations, substeps, s_corr, xpbd;
    double epsilon;
} fluid_run;

/* Interior volume ratio ρ0/ρ̄ (see the header) and the mean height ȳ. */
static void measure(const pbd_world *w, double *rho, double nb_full, double *volume,
                    double *mean_y, double *compression)
{
    int first, n = pbd_world_fluid_particles(w, &first);
    pbd_world_fluid_density(w, rho);
    const pbd_constraint_set *set = &w->sets[0];
    double sum = 0.0, y = 0.0, rho0 = set->rest[0], top = -INFINITY;
    int m = 0;
    for (int k = 0; k < n; k++) {
        y += w->x[3 * (size_t)(first + k) + 1];
        top = fmax(top, rho[k] / rho0 - 1.0);
        if (set->rest[PBD_FLUID_N_REST * (size_t)k + 4] - 1.0 < 0.8 * nb_full) continue;
        sum += rho[k];
        m++;
    }
    *volume = m > 0 ? rho0 / (sum / m) : NAN;
    *mean_y = y / n;
    *compression = top;
}

/* Pressure by layer of depth below the column's top (layer width d): mean p, and ρ0 g depth at
 * the layer's mean depth; rows into table (depth, p, ρ0 g depth); returns the rows and the
 * least-squares slope of p on ρ0 g depth through the origin, over the layers farther than h
 * from the floor (the floor holds the column through the bottom particles' own constraints,
 * whose λ carries the walls' force too: not a pressure; solver/fluid/README.md). */
static int pressure_profile(const pbd_world *w, double d, double *table, double *slope)
{
    int first, n = pbd_world_fluid_particles(w, &first);
    double *p = malloc((size_t)n * sizeof *p), top = -INFINITY, bottom = INFINITY;
    double sum_p[MAX_LAYERS] = {0}, sum_z[MAX_LAYERS] = {0};
    int cnt[MAX_LAYERS] = {0};
    if (!p) return 0;
    pbd_world_fluid_pressure(w, p);
    for (int k = 0; k < n; k++) {
        top = fmax(top, w->x[3 * (size_t)(first + k) + 1]);
        bottom = fmin(bottom, w->x[3 * (size_t)(first + k) + 1]);
    }
    top += 0.5 * d; /* the surface: half a spacing above the top particles' centres */
    for (int k = 0; k < n; k++) {
        double z = top - w->x[3 * (size_t)(first + k) + 1];
        int l = (int)(z / d);
        if (l < 0 || l >= MAX_LAYERS) continue;
        sum_p[l] += p[k];
        sum_z[l] += z;
        cnt[l]++;
    }
    free(p);
    const double g = fabs(w->def.gravity[1]), rho0 = w->sets[0].rest[0], h = w->sets[0].rest[1];
    double sxy = 0.0, sxx = 0.0;
    int rows = 0;
    for (int l = 0; l < MAX_LAYERS; l++) {
        if (cnt[l] == 0) continue;
        double z = sum_z[l] / cnt[l], hydro = rho0 * g * z, pm = sum_p[l] / cnt[l];
        table[3 * rows] = z;
        table[3 * rows + 1] = pm;
        table[3 * rows + 2] = hydro;
        if (top - z - bottom > h) { /* away from the floor */
            sxy += pm * hydro;
            sxx += hydro * hydro;
        }
        rows++;
    }
    *slope = sxx > 0.0 ? sxy / sxx : NAN;
    return rows;
}

static int run_one(pbd_exp_ctx *ctx, const char *name, const fluid_run *r)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = r->dam ? P.dam_resolution : P.rest_resolution;
    sp.fluid.epsilon = r->epsilon;
    sp.fluid.s_corr = r->s_corr;
    sp.fluid.s_corr_k = P.scorr_k;
    const double dt = 1.0 / P.rate, h = dt / r->substeps;
    /* XPBD: α̃ = α/h² = w ε, the paper's ε as a compliance; w from the scene's mass (below) */
    pbd_world *w = r->dam ? pbd_scene_dam_break(&sp) : pbd_scene_fluid_rest(&sp);
    if (!w) return pbd_error(PBD_EINVAL, "fluid_density: cannot build the scene: %s",
                             pbd_last_error());
    if (r->xpbd) {
        double alpha = r->epsilon * w->w[0] * h * h;
        for (int k = 0; k < w->sets[0].count; k++) w->sets[0].compliance[k] = alpha;
        w->def.method = PBD_METHOD_XPBD;
    }
    w->def.dt = dt;
    w->def.iterations = r->iterations;
    w->def.substeps = r->substeps;
    w->def.record_iterations = 1;
    const int n = w->n, steps = r->dam ? P.dam_steps : P.steps;
    const double d = sp.size / sp.resolution;
    double nb_full = pbd_world_fluid_stats(w).neighbours_max; /* the lattice's interior */
    double *rho = malloc((size_t)n * sizeof *rho), *table = malloc(3 * MAX_LAYERS * sizeof *table);
    pbd_h5log *log = rho && table ? pbd_exp_log_open(ctx, name, w, NULL) : NULL;
    if (!log) {
        free(rho);
        free(table);
        pbd_world_free(w);
        return rho && table ? PBD_EIO : PBD_ENOMEM;
    }
    pbd_h5log_scene_params(log, &sp);
    pbd_h5log_attr_double(log, "iterations", r->iterations);
    pbd_h5log_attr_double(log, "substeps", r->substeps);
    pbd_h5log_attr_double(log, "epsilon", r->epsilon);
    pbd_h5log_attr_double(log, "s_corr", r->s_corr);
    pbd_h5log_attr_double(log, "xpbd", r->xpbd);
    pbd_h5log_attr_double(log, "dam", r->dam);
    int c_vol = pbd_h5log_column(log, "volume_ratio", 1, "1");
    int c_y = pbd_h5log_column(log, "height_ratio", 1, "1");
    int c_c = pbd_h5log_column(log, "max_compression", 1, "1");
    double vol, y0, y = NAN, sum_mean = 0.0, sum_max = 0.0, worst = 0.0, comp, comp_max = -INFINITY;
    measure(w, rho, nb_full, &vol, &y0, &comp);
    long n_avg = 0;
    pbd_status st = PBD_OK;
    for (int s = 1; s <= steps && st == PBD_OK; s++) {
        if ((st = pbd_step(w)) != PBD_OK) break;
        measure(w, rho, nb_full, &vol, &y, &comp);
        pbd_fluid_stats fs = pbd_world_fluid_stats(w);
        if (s > steps / 2) {
            sum_mean += fs.error_mean;
            sum_max += fs.error_max;
            worst = fmax(worst, fs.error_max);
            comp_max = fmax(comp_max, comp);
            n_avg++;
        }
        pbd_h5log_set1(log, c_vol, vol);
        pbd_h5log_set1(log, c_c, comp);
        pbd_h5log_set1(log, c_y, y / y0);
        st = pbd_h5log_step(log, w);
        pbd_exp_progress(ctx, s, steps);
    }
    if (st == PBD_OK) {
        double slope = NAN;
        int rows = r->dam ? 0 : pressure_profile(w, d, table, &slope);
        if (rows > 0)
            st = pbd_h5log_dataset(log, "pressure", table, rows, 3, "m Pa Pa",
                                   "by layer below the surface: depth, mean pressure -lambda/(h^2 "
                                   "V), rho0 g depth");
        pbd_h5log_attr_double(log, "result.mean_abs_error", sum_mean / n_avg);
        pbd_h5log_attr_double(log, "result.max_abs_error_time_mean", sum_max / n_avg);
        pbd_h5log_attr_double(log, "result.max_abs_error_worst_step", worst);
        pbd_h5log_attr_double(log, "result.max_compression", comp_max);
        pbd_h5log_attr_double(log, "result.volume_ratio", vol);
        pbd_h5log_attr_double(log, "result.height_ratio", y / y0);
        pbd_h5log_attr_double(log, "result.pressure_slope", slope);
        if (st == PBD_OK)
            st = pbd_exp_log_finish(ctx, log, "mean |rho/rho0 - 1| %.3g%% (time mean), largest "
                                    "|rho/rho0 - 1| %.3g%% (time mean) %.3g%% (worst step), "
                                    "largest rho/rho0 - 1 %.3g%%, V/V0 %.3f%s",
                                    100.0 * sum_mean / n_avg, 100.0 * sum_max / n_avg,
                                    100.0 * worst, 100.0 * comp_max, vol,
                                    r->dam ? "" : " (column)");
        else
            pbd_exp_log_abort(ctx, log, st);
    } else {
        pbd_exp_log_abort(ctx, log, st);
    }
    free(rho);
    free(table);
    pbd_world_free(w);
    return st;
}

static int want_run(pbd_exp_ctx *ctx, const char *name, const fluid_run *r)
{
    if (!pbd_exp_want(ctx, name)) return PBD_OK;
    return run_one(ctx, name, r);
}

static int run(pbd_exp_ctx *ctx)
{
    double its[MAX_LIST], subs[MAX_LIST], eps[MAX_LIST], dits[MAX_LIST];
    int n_i = pbd_exp_numbers(ctx, "iterations", P.iterations, its, MAX_LIST, 1, 1000);
    int n_s = pbd_exp_numbers(ctx, "substeps", P.substeps, subs, MAX_LIST, 1, 1000);
    int n_e = pbd_exp_numbers(ctx, "epsilons", P.epsilons, eps, MAX_LIST, 0, 1e12);
    int n_d = pbd_exp_numbers(ctx, "dam-iterations", P.dam_iterations, dits, MAX_LIST, 1, 1000);
    if (n_i < 0 || n_s < 0 || n_e < 0 || n_d < 0) return PBD_EINVAL;
    char name[96];
    int st = PBD_OK;
    for (int s = 0; s < n_s && st == PBD_OK; s++)
        for (int i = 0; i < n_i && st == PBD_OK; i++) {
            fluid_run r = {0, (int)its[i], (int)subs[s], 0, 0, 100.0};
            snprintf(name, sizeof name, "rest_it%d_sub%d", r.iterations, r.substeps);
            st = want_run(ctx, name, &r);
        }
    for (int e = 0; e < n_e && st == PBD_OK; e++) {
        fluid_run r = {0, 4, 1, 0, 0, eps[e]};
        snprintf(name, sizeof name, "rest_it4_sub1_eps%g", eps[e]);
        st = want_run(ctx, name, &r);
    }
    const fluid_run sc = {0, 4, 1, 1, 0, 100.0}, xp = {0, 4, 1, 0, 1, 100.0};
    if (st == PBD_OK) st = want_run(ctx, "rest_it4_sub1_scorr", &sc);
    if (st == PBD_OK) st = want_run(ctx, "rest_it4_sub1_xpbd", &xp);
    for (int i = 0; i < n_d && st == PBD_OK; i++)
        for (int c = 0; c < 2 && st == PBD_OK; c++) {
            if (c == 1 && (int)dits[i] != 4) continue; /* s_corr at 4 iterations only */
            fluid_run r = {1, (int)dits[i], 1, c, 0, 100.0};
            snprintf(name, sizeof name, "dam_it%d%s", r.iterations, c ? "_scorr" : "");
            st = want_run(ctx, name, &r);
        }
    return st;
}

/* Columns of /tables/runs, in this order. */
static const char *const run_cols[] = {"dam", "iterations", "substeps", "epsilon", "s_corr",
                                       "xpbd", "mean_abs_error", "max_abs_error_time_mean",
                                       "volume_ratio", "height_ratio", "pressure_slope",
                                       "max_abs_error_worst_step", "max_compression"};
#define RUN_COLS 13

static int summarize(pbd_exp_ctx *ctx)
{
    double *rows = calloc((size_t)ctx->n_runs * RUN_COLS + RUN_COLS, sizeof(double));
    double *pressure = NULL;
    int n = 0, n_p = 0;
    if (!rows) return PBD_ENOMEM;
    for (int i = 0; i < ctx->n_runs; i++) {
        char path[4096];
        pbd_exp_run_path(ctx, ctx->runs[i], path, sizeof path);
        double *r = rows + RUN_COLS * n;
        const char *attrs[] = {"dam", "iterations", "substeps", "epsilon", "s_corr", "xpbd",
                               "result.mean_abs_error", "result.max_abs_error_time_mean",
                               "result.volume_ratio", "result.height_ratio",
                               "result.pressure_slope", "result.max_abs_error_worst_step",
                               "result.max_compression"};
        int bad = 0;
        for (int c = 0; c < RUN_COLS && !bad; c++) bad = pbd_h5_read_attr_double(path, attrs[c], &r[c]);
        if (bad) continue;
        n++;
        if (!strcmp(ctx->runs[i], "rest_it4_sub1")) { /* the pressure figure's run */
            long pr = 0, pc = 0;
            free(pressure);
            pressure = NULL;
            if (pbd_h5_read_dataset(path, "/results/pressure", &pressure, &pr, &pc) == 0 && pc == 3)
                n_p = (int)pr;
        }
    }
    pbd_exp_sort_rows(rows, n, RUN_COLS, 6);
    pbd_exp_summary *s = pbd_exp_summary_open(ctx);
    if (!s) {
        free(rows);
        free(pressure);
        return PBD_EIO;
    }
    pbd_exp_summary_table(s, "runs", rows, n, RUN_COLS, run_cols, "1 1 1 1/m^2 1 1 1 1 1 1 1 1 1");
    const char *pcols[] = {"depth", "pressure", "rho0_g_depth"};
    if (pressure) pbd_exp_summary_table(s, "pressure", pressure, n_p, 3, pcols, "m Pa Pa");
    /* headline: the rest column at ε = 100, 1 substep, no s_corr, PBD, by iterations */
    char text[1024] = "rest column by iterations: time mean of the mean |rho/rho0 - 1| (largest "
                      "rho/rho0 - 1 of any particle and step):";
    double at4 = NAN, comp4 = NAN, slope = NAN;
    for (int i = 0; i < n; i++) {
        const double *r = rows + RUN_COLS * i;
        if (r[0] != 0 || r[2] != 1 || r[3] != 100.0 || r[4] != 0 || r[5] != 0) continue;
        char part[96];
        snprintf(part, sizeof part, " %g: %.2f%% (%.1f%%)", r[1], 100 * r[6], 100 * r[12]);
        strncat(text, part, sizeof text - strlen(text) - 1);
        if (r[1] == 4) {
            at4 = r[6];
            comp4 = r[12];
            slope = r[10];
        }
    }
    char tail[160];
    snprintf(tail, sizeof tail, "; pressure / (rho0 g depth) = %.2f at 4 iterations (layers "
             "above h from the floor)", slope);
    strncat(text, tail, sizeof text - strlen(text) - 1);
    pbd_exp_summary_double(s, "headline.rest_mean_abs_error_at_4_iterations", at4);
    pbd_exp_summary_double(s, "headline.rest_max_compression_at_4_iterations", comp4);
    free(rows);
    free(pressure);
    return pbd_exp_summary_finish(s, "%s", text);
}

const pbd_experiment pbd_exp_fluid_density = {
    .name = "fluid_density",
    .description = "Position Based Fluids: density error vs iterations, substeps, epsilon and "
                   "s_corr (rest column, dam break), volume over time, hydrostatic pressure",
    .paper = "Macklin & Mueller 2013 (PBF): incompressibility comparable to PCISPH-type SPH "
             "solvers at 2-4 iterations per frame; no average density error figure is quoted "
             "here (not verified against the paper's text)",
    .timing = 0,
    .options = options,
    .run = run,
    .summarize = summarize,
};
