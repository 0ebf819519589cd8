/* balloon_pressure — PBD Sec. 4.4, Eq. 14–15: a closed skin (icosphere: distance constraints
 * on its edges, dihedral bending on its hinges) with the overpressure constraint
 * C = Σ_triangles (p_i × p_j)·p_k - k_pressure V0 (V0: that sum at rest) over all its vertices,
 * hung from its top vertex under gravity. The overpressure constraint is hard (k = 1) and is
 * the last set the Gauss–Seidel sweep projects, so the volume reaches k_pressure V0 and the
 * skin stretches as much as that takes; the skin's stiffness only shows in how much it
 * stretches and in the last iterations' tug of war. Sweep: k_pressure × skin stiffness. Measured: the enclosed volume V/V0
 * and the mean edge stretch, both averaged over the second half of the run. */
#include "pbd_drivers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 16

static struct {
    const char *pressures, *skins;
    int level, steps, iterations;
    double k_bend, rate;
} P;

static int options(cli_option *out, int quick)
{
    P.pressures = quick ? "1,2,4" : "1,1.25,1.5,2,3,4";
    P.skins = quick ? "0.1,1" : "0.05,0.2,1";
    P.level = 2;
    P.steps = quick ? 120 : 300;
    P.iterations = 10;
    P.k_bend = 0.1;
    P.rate = 60.0;
    const cli_option rows[] = {
        {"pressures", CLI_STRING, &P.pressures, 0, 0, 0, "k_pressure values (list)", NULL},
        {"skins", CLI_STRING, &P.skins, 0, 0, 0, "PBD stiffness of the skin's edges (list)", NULL},
        {"level", CLI_INT, &P.level, 1, 6, 0, "icosphere subdivision level", NULL},
        {"steps", CLI_INT, &P.steps, 1, 1e8, 0, "steps per run", NULL},
        {"iterations", CLI_INT, &P.iterations, 1, 1e6, 0, "solver iterations per step", NULL},
        {"k-bend", CLI_DOUBLE, &P.k_bend, 0, 1, 0, "PBD stiffness of the bending constraints", NULL},
        {"rate", CLI_DOUBLE, &P.rate, 0, 1e7, 1, "steps per second (1/dt)", NULL},
    };
    int n = (int)(sizeof rows / sizeof rows[0]);
    for (int i = 0; i < n; i++) out[i] = rows[i];
    return n;
}

/* V = (1/6) Σ (p_i × p_j)·p_k over the (outward) triangles (PBD Eq. 14). */
static double enclosed_volume(const pbd_world *w, const pbd_constraint_set *s)
{
    double v = 0.0;
    for (int t = 0; t + 2 < s->n_aux; t += 3) {
        const double *a = w->x + 3 * (size_t)s->idx[s->aux[t]], *b = w->x + 3 * (size_t)s->idx[s->aux[t + 1]];
        const double *c = w->x + 3 * (size_t)s->idx[s->aux[t + 2]];
        v += (a[1] * b[2] - a[2] * b[1]) * c[0] + (a[2] * b[0] - a[0] * b[2]) * c[1] +
             (a[0] * b[1] - a[1] * b[0]) * c[2];
    }
    return v / 6.0;
}

static int run_one(pbd_exp_ctx *ctx, const char *name, double kp, double skin)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = P.level;
    sp.stiffness = skin;
    sp.k_bend = P.k_bend;
    sp.k_pressure = kp;
    pbd_world *w = pbd_scene_balloon(&sp);
    if (!w) return pbd_error(PBD_EINVAL, "balloon_pressure: cannot build the balloon: %s",
                             pbd_last_error());
    const pbd_constraint_set *balloon = NULL;
    int edges = -1;
    for (int s = 0; s < w->n_sets; s++) {
        if (w->sets[s].type == &pbd_balloon_volume_type) balloon = &w->sets[s];
        if (w->sets[s].type == &pbd_distance_type && edges < 0) edges = s;
    }
    if (!balloon || edges < 0) {
        pbd_world_free(w);
        return pbd_error(PBD_EINVAL, "balloon_pressure: the balloon scene has no overpressure or "
                         "distance set");
    }
    double v0 = enclosed_volume(w, balloon);
    w->def.dt = 1.0 / P.rate;
    w->def.iterations = P.iterations;
    pbd_h5log *log = pbd_exp_log_open(ctx, name, w, NULL);
    if (!log) {
        pbd_world_free(w);
        return PBD_EIO;
    }
    pbd_h5log_scene_params(log, &sp);
    pbd_h5log_attr_double(log, "k_pressure", kp);
    pbd_h5log_attr_double(log, "skin_stiffness", skin);
    pbd_h5log_attr_double(log, "rest_volume", v0);
    int c_v = pbd_h5log_column(log, "volume_ratio", 1, "1");
    int c_s = pbd_h5log_column(log, "stretch_mean", 1, "1");
    double sum_v = 0.0, sum_s = 0.0;
    long n_avg = 0;
    pbd_status st = PBD_OK;
    for (int s = 1; s <= P.steps && st == PBD_OK; s++) {
        if ((st = pbd_step(w)) != PBD_OK) break;
        double ratio = enclosed_volume(w, balloon) / v0, mean, max;
        pbd_exp_stretch(w, edges, &mean, &max);
        if (s > P.steps / 2) {
            sum_v += ratio;
            sum_s += mean;
            n_avg++;
        }
        pbd_h5log_set1(log, c_v, ratio);
        pbd_h5log_set1(log, c_s, mean);
        st = pbd_h5log_step(log, w);
        pbd_exp_progress(ctx, s, P.steps);
    }
    if (st == PBD_OK) {
        pbd_h5log_attr_double(log, "result.volume_ratio", sum_v / n_avg);
        pbd_h5log_attr_double(log, "result.stretch", sum_s / n_avg);
        st = pbd_exp_log_finish(ctx, log, "V/V0 %.3f, skin stretch %.2f%%", sum_v / n_avg,
                                100.0 * sum_s / n_avg);
    } else {
        pbd_exp_log_abort(ctx, log, st);
    }
    pbd_world_free(w);
    return st;
}

static int run(pbd_exp_ctx *ctx)
{
    double kps[MAX_LIST], skins[MAX_LIST];
    int n_k = pbd_exp_numbers(ctx, "pressures", P.pressures, kps, MAX_LIST, 0.01, 100);
    int n_s = pbd_exp_numbers(ctx, "skins", P.skins, skins, MAX_LIST, 1e-6, 1);
    if (n_k < 0 || n_s < 0) return PBD_EINVAL;
    for (int s = 0; s < n_s; s++)
        for (int k = 0; k < n_k; k++) {
            char name[64];
            snprintf(name, sizeof name, "skin%g_kp%g", skins[s], kps[k]);
            if (!pbd_exp_want(ctx, name)) continue;
            int st = run_one(ctx, name, kps[k], skins[s]);
            if (st != PBD_OK) return st;
        }
    return PBD_OK;
}

static int summarize(pbd_exp_ctx *ctx)
{
    double *rows = calloc((size_t)ctx->n_runs * 4 + 4, sizeof(double));
    if (!rows) return PBD_ENOMEM;
    int n = 0;
    for (int i = 0; i < ctx->n_runs; i++) {
        char path[4096];
        pbd_exp_run_path(ctx, ctx->runs[i], path, sizeof path);
        double *r = rows + 4 * n;
        if (pbd_h5_read_attr_double(path, "skin_stiffness", &r[0]) ||
            pbd_h5_read_attr_double(path, "k_pressure", &r[1]) ||
            pbd_h5_read_attr_double(path, "result.volume_ratio", &r[2]) ||
            pbd_h5_read_attr_double(path, "result.stretch", &r[3]))
            continue;
        n++;
    }
    pbd_exp_sort_rows(rows, n, 4, 2);
    pbd_exp_summary *s = pbd_exp_summary_open(ctx);
    if (!s) {
        free(rows);
        return PBD_EIO;
    }
    const char *cols[] = {"skin_stiffness", "k_pressure", "volume_ratio", "stretch"};
    pbd_exp_summary_table(s, "volume", rows, n, 4, cols, "1 1 1 1");
    char text[1024] = "enclosed volume V/V0 for k_pressure";
    double skin = NAN;
    for (int i = 0; i < n; i++) {
        const double *r = rows + 4 * i;
        char part[96];
        if (r[0] != skin) {
            snprintf(part, sizeof part, "%s skin k=%g:", isnan(skin) ? "" : ";", r[0]);
            strncat(text, part, sizeof text - strlen(text) - 1);
            skin = r[0];
        }
        snprintf(part, sizeof part, " %g->%.2f", r[1], r[2]);
        strncat(text, part, sizeof text - strlen(text) - 1);
    }
    free(rows);
    return pbd_exp_summary_finish(s, "%s", text);
}

const pbd_experiment pbd_exp_balloon_pressure = {
    .name = "balloon_pressure",
    .description = "PBD Sec. 4.4: a hanging icosphere balloon with the overpressure constraint "
                   "(Eq. 14-15); enclosed volume vs k_pressure for several skin stiffnesses",
    .paper = "PBD Sec. 4.4 (no number): the overpressure constraint inflates the closed mesh "
             "to k_pressure times its rest volume",
    .timing = 0,
    .options = options,
    .run = run,
    .summarize = summarize,
};
