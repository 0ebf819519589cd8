/* contact — PBD Sec. 3.4's contacts with the velocity update's Coulomb friction and
 * restitution (solver/collision/collision_hooks.c) against closed forms, on the
 * cloth_ground_slide scene (a 4 × 4 cloth of 1 kg that moves as one block), over substeps and
 * iterations:
 *   slide:  launched at v0 = 2 m/s on flat ground with μk = 0.3 (μs = 0.5), it stops after
 *           v0²/(2 μk g);
 *   bounce: dropped from 1 m with e = 0.6, the first bounce's apex is e² of the drop height
 *           (taken as y + v_y²/(2g) one step after the bounce, so that the step's sampling
 *           does not cut the apex);
 *   ramp:   released on a slope tan θ = 1.1 μs (μk = 0.4), it has slid ½ g (sin θ − μk cos θ) t²
 *           after t = 1 s (at tan θ = 0.9 μs it would stick: tests/test_contact_scenes.c).
 * Runs: <case>_s<S>_it<I>. Each run's result.measured, result.expected (m, or 1 for the
 * ratio) and result.rel_error = |measured − expected|/expected; the series carry /series/
 * contact/ and the run's own column `measured` (the distance slid or the height, m). */
#include "pbd_drivers.h"
#include "solver/collision/pbd_collision.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 16
#define G 9.81
static const char *const case_words[] = {"slide", "bounce", "ramp", NULL};

static struct {
    const char *substeps, *iterations, *cases;
    double rate;
} P;

static int options(cli_option *out, int quick)
{
    P.substeps = quick ? "1,4" : "1,2,4,8,16,32";
    P.iterations = quick ? "1,10" : "1,4,16";
    P.cases = "slide,bounce,ramp";
    P.rate = 60.0;
    const cli_option rows[] = {
        {"substeps", CLI_STRING, &P.substeps, 0, 0, 0, "substeps per step (list)", NULL},
        {"iterations", CLI_STRING, &P.iterations, 0, 0, 0, "PBD iterations per substep (list)",
         NULL},
        {"cases", CLI_STRING, &P.cases, 0, 0, 0, "slide, bounce, ramp (list)", NULL},
        {"rate", CLI_DOUBLE, &P.rate, 0, 1e7, 1, "steps per second", NULL},
    };
    int n = (int)(sizeof rows / sizeof rows[0]);
    for (int i = 0; i < n; i++) out[i] = rows[i];
    return n;
}

/* The case's scene parameters and closed form. */
static pbd_scene_params case_params(int which, double *expected, double *duration)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 4;
    sp.launch_speed = 0.0;
    if (which == 0) { /* slide */
        sp.launch_speed = 2.0;
        sp.mu_static = 0.5;
        sp.mu_kinetic = 0.3;
        *expected = sp.launch_speed * sp.launch_speed / (2.0 * sp.mu_kinetic * G);
        *duration = 1.0;
    } else if (which == 1) { /* bounce */
        sp.drop_height = 1.0;
        sp.mu_static = sp.mu_kinetic = 0.0;
        sp.restitution = 0.6;
        *expected = sp.restitution * sp.restitution * sp.drop_height;
        *duration = 1.5;
    } else { /* ramp */
        sp.mu_static = 0.5;
        sp.mu_kinetic = 0.4;
        double th = atan(1.1 * sp.mu_static);
        sp.ramp_angle = th * 180.0 / M_PI;
        *duration = 1.0;
        *expected = 0.5 * G * (sin(th) - sp.mu_kinetic * cos(th)) * *duration * *duration;
    }
    return sp;
}

static double mean_axis(const pbd_world *w, const double t[3])
{
    double s = 0.0;
    for (int i = 0; i < w->n; i++)
        s += w->x[3 * i] * t[0] + w->x[3 * i + 1] * t[1] + w->x[3 * i + 2] * t[2];
    return s / w->n;
}

static int run_one(pbd_exp_ctx *ctx, const char *name, int which, int substeps, int iterations)
{
    double expected, duration;
    pbd_scene_params sp = case_params(which, &expected, &duration);
    pbd_world *w = pbd_scene_cloth_ground_slide(&sp);
    if (!w) return pbd_error(PBD_EINVAL, "contact: %s", pbd_last_error());
    w->def.dt = 1.0 / P.rate;
    w->def.substeps = substeps;
    w->def.iterations = iterations;
    pbd_h5log *log = pbd_exp_log_open(ctx, name, w, NULL);
    if (!log) {
        pbd_world_free(w);
        return PBD_EIO;
    }
    pbd_h5log_scene_params(log, &sp);
    pbd_h5log_attr_string(log, "case", case_words[which]);
    int c_m = pbd_h5log_column(log, "measured", 1, "m");
    const double th = sp.ramp_angle * M_PI / 180.0;
    const double along[3] = {cos(th), -sin(th), 0.0}, height[3] = {0.0, 1.0, 0.0};
    const double *axis = which == 1 ? height : along;
    const double start = mean_axis(w, axis);
    int steps = (int)ceil(duration * P.rate);
    double measured = 0.0, top = 0.0;
    int bounced = 0;
    pbd_status st = PBD_OK;
    for (int s = 1; s <= steps && st == PBD_OK; s++) {
        if ((st = pbd_step(w)) != PBD_OK) break;
        double m = mean_axis(w, axis) - (which == 1 ? 0.0 : start);
        if (which == 1) { /* the first apex after the first bounce, from the state of the
                           * step after it (in flight): y + v_y²/(2g), not sampled at 1/dt */
            if (bounced == 1) {
                top = m + (w->v[1] > 0.0 ? w->v[1] * w->v[1] / (2.0 * G) : 0.0);
                bounced = 2;
            }
            if (!bounced && w->v[1] > 0.0) bounced = 1;
        }
        pbd_h5log_set1(log, c_m, m);
        measured = which == 1 ? top : m;
        st = pbd_h5log_step(log, w);
        pbd_exp_progress(ctx, s, steps);
    }
    if (st == PBD_OK) {
        double rel = fabs(measured - expected) / expected;
        pbd_h5log_attr_double(log, "result.measured", measured);
        pbd_h5log_attr_double(log, "result.expected", expected);
        pbd_h5log_attr_double(log, "result.rel_error", rel);
        st = pbd_exp_log_finish(ctx, log, "%s: measured %.5g m, closed form %.5g m, relative "
                                "error %.2e", case_words[which], measured, expected, rel);
    } else {
        pbd_exp_log_abort(ctx, log, st);
    }
    pbd_world_free(w);
    return st;
}

static int run(pbd_exp_ctx *ctx)
{
    double subs[MAX_LIST], its[MAX_LIST];
    int cases[3];
    int n_s = pbd_exp_numbers(ctx, "substeps", P.substeps, subs, MAX_LIST, 1, 1e4);
    int n_i = pbd_exp_numbers(ctx, "iterations", P.iterations, its, MAX_LIST, 1, 1e4);
    int n_c = pbd_exp_words(ctx, "cases", P.cases, case_words, cases, 3);
    if (n_s < 0 || n_i < 0 || n_c < 0) return PBD_EINVAL;
    for (int c = 0; c < n_c; c++)
        for (int s = 0; s < n_s; s++)
            for (int i = 0; i < n_i; i++) {
                char name[64];
                snprintf(name, sizeof name, "%s_s%d_it%d", case_words[cases[c]], (int)subs[s],
                         (int)its[i]);
                if (!pbd_exp_want(ctx, name)) continue;
                int st = run_one(ctx, name, cases[c], (int)subs[s], (int)its[i]);
                if (st != PBD_OK) return st;
            }
    return PBD_OK;
}

static int summarize(pbd_exp_ctx *ctx)
{
    /* case, substeps, iterations, h (s), measured, expected, rel_error */
    enum { W = 7 };
    double *rows = calloc((size_t)ctx->n_runs * W + W, sizeof *rows);
    if (!rows) return PBD_ENOMEM;
    int n = 0;
    for (int i = 0; i < ctx->n_runs; i++) {
        char path[4096], word[16];
        pbd_exp_run_path(ctx, ctx->runs[i], path, sizeof path);
        double *r = rows + W * n, dt;
        if (pbd_h5_read_attr_string(path, "case", word, sizeof word) ||
            pbd_h5_read_attr_double(path, "solver.substeps", &r[1]) ||
            pbd_h5_read_attr_double(path, "solver.iterations", &r[2]) ||
            pbd_h5_read_attr_double(path, "solver.dt", &dt) ||
            pbd_h5_read_attr_double(path, "result.measured", &r[4]) ||
            pbd_h5_read_attr_double(path, "result.expected", &r[5]) ||
            pbd_h5_read_attr_double(path, "result.rel_error", &r[6]))
            continue;
        r[0] = -1;
        for (int k = 0; case_words[k]; k++)
            if (strcmp(word, case_words[k]) == 0) r[0] = k;
        r[3] = dt / r[1];
        n++;
    }
    pbd_exp_sort_rows(rows, n, W, 3);
    pbd_exp_summary *s = pbd_exp_summary_open(ctx);
    if (!s) {
        free(rows);
        return PBD_EIO;
    }
    const char *cols[] = {"case", "substeps", "iterations", "h", "measured", "expected",
                          "rel_error"};
    pbd_exp_summary_table(s, "errors", rows, n, W, cols, "1 1 1 s m m 1");
    /* per case: the error at the fewest and the most substeps (most iterations), and the
     * observed order log(e1/e2)/log(s2/s1) */
    char text[1024] = "relative error vs the closed form (most iterations), fewest -> most "
                      "substeps:";
    for (int c = 0; c < 3; c++) {
        int lo = -1, hi = -1;
        for (int k = 0; k < n; k++) {
            const double *r = rows + W * k;
            if (r[0] != c) continue;
            if (lo < 0 || r[1] < rows[W * lo + 1] ||
                (r[1] == rows[W * lo + 1] && r[2] > rows[W * lo + 2]))
                lo = k;
            if (hi < 0 || r[1] > rows[W * hi + 1] ||
                (r[1] == rows[W * hi + 1] && r[2] > rows[W * hi + 2]))
                hi = k;
        }
        if (lo < 0) continue;
        const double *a = rows + W * lo, *b = rows + W * hi;
        double order = b[1] > a[1] && a[6] > 0 && b[6] > 0 ? log(a[6] / b[6]) / log(b[1] / a[1])
                                                           : NAN;
        char part[200], key[64];
        snprintf(part, sizeof part, " %s %.2e (%g) -> %.2e (%g), order %.2f;", case_words[c],
                 a[6], a[1], b[6], b[1], order);
        strncat(text, part, sizeof text - strlen(text) - 1);
        snprintf(key, sizeof key, "headline.%s_rel_error", case_words[c]);
        pbd_exp_summary_double(s, key, b[6]);
        snprintf(key, sizeof key, "headline.%s_order", case_words[c]);
        pbd_exp_summary_double(s, key, order);
    }
    free(rows);
    return pbd_exp_summary_finish(s, "%s", text);
}

const pbd_experiment pbd_exp_contact = {
    .name = "contact",
    .description = "contacts with Coulomb friction and restitution (PBD Sec. 3.4, the velocity "
                   "update) on the cloth_ground_slide scene against closed forms: slide "
                   "distance v0^2/(2 mu_k g), bounce apex e^2 h, ramp slide 1/2 g (sin - mu_k "
                   "cos) t^2, vs substeps and iterations",
    .paper = "PBD Sec. 3.4 gives the contact constraints and leaves friction and restitution "
             "to the velocity update; the closed forms are Coulomb's and Newton's laws of "
             "impact (no number in the paper)",
    .timing = 0,
    .options = options,
    .run = run,
    .summarize = summarize,
};
