/* rigid_restitution — XPBD rigid bodies (Müller et al. 2020; solver/rigid/): a ball
 * (r = 0.1 m, 1 kg, no friction) dropped from h0 = 1 m onto the ground with restitution e
 * (Sec. 3.6: the normal velocity becomes −e ṽn, e = 0 when |ṽn| <= 2 |g| h).
 * Runs "e<100 e>_s<S>": S substeps × 1 iteration, dt = 1/60 s, 4 s. After each bounce the
 * apex h_n = y + v_y²/(2g) one step after it (in flight: no sampling error), against
 * e^{2n} h0 for the first three bounces: the largest relative error. */
#include "pbd_drivers.h"
#include "experiments/drivers/rigid_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 16
#define G 9.81
#define RADIUS 0.1

static struct {
    const char *restitutions, *substeps;
} P;

static int options(cli_option *out, int quick)
{
    P.restitutions = quick ? "0.8" : "0.5,0.8";
    P.substeps = quick ? "5,20" : "1,5,20,100";
    const cli_option rows[] = {
        {"restitutions", CLI_STRING, &P.restitutions, 0, 0, 0, "coefficients e (list)", NULL},
        {"substeps", CLI_STRING, &P.substeps, 0, 0, 0, "substep counts (list)", NULL},
    };
    memcpy(out, rows, sizeof rows);
    return (int)(sizeof rows / sizeof rows[0]);
}

static pbd_rigid_world *drop(double e, int substeps, int iterations)
{
    pbd_rigid_world *w = pbd_rigid_world_create(1.0 / 60.0, substeps, iterations);
    if (!w) return NULL;
    w->ground = 1;
    pbd_rigid_shape s = {.kind = PBD_RIGID_SPHERE, .radius = RADIUS};
    double x[3] = {0, 1.0 + RADIUS, 0};
    int b = pbd_rigid_add_body(w, &s, 1.0, x, NULL);
    if (b < 0) {
        pbd_rigid_world_free(w);
        return NULL;
    }
    w->bodies[b].restitution = e;
    return w;
}

static int run_one(pbd_exp_ctx *ctx, const char *name, int substeps, int iterations, void *user)
{
    const double e = *(const double *)user;
    rigid_run r;
    pbd_status st = rigid_run_open(ctx, name, drop(e, substeps, iterations), &r);
    if (st != PBD_OK) return st;
    int c_apex = pbd_h5log_column_described(r.rl.log, "apex", 1, "m",
                                            "y + v_y^2/(2g) of the ball's bottom: the height "
                                            "it reaches in flight");
    double apex[3] = {NAN, NAN, NAN}, pv = 0.0, worst = 0.0;
    int n = 0;
    for (int k = 0; k < 240 && st == PBD_OK; k++) {
        const pbd_rigid_body *b = &r.w->bodies[0];
        double h = b->x[1] - RADIUS + b->v[1] * b->v[1] / (2.0 * G);
        pbd_h5log_set1(r.rl.log, c_apex, h);
        if ((st = rigid_run_step(ctx, &r)) != PBD_OK) break;
        double v = b->v[1];
        if (pv <= 0.0 && v > 0.0 && n < 3) { /* bounced: the apex it flies to */
            apex[n] = b->x[1] - RADIUS + v * v / (2.0 * G);
            worst = fmax(worst, fabs(apex[n] - pow(e, 2 * (n + 1))) / pow(e, 2 * (n + 1)));
            n++;
        }
        pv = v;
    }
    if (n < 3) worst = INFINITY;
    char text[256];
    snprintf(text, sizeof text, "e %.2f, %d substeps: apexes %.4f %.4f %.4f m against e^2n h0 "
             "%.4f %.4f %.4f m (max relative error %.3g)", e, substeps, apex[0], apex[1],
             apex[2], pow(e, 2), pow(e, 4), pow(e, 6), worst);
    const char *keys[] = {"result.apex_1", "result.apex_2", "result.apex_3"};
    for (int i = 0; i < 3 && st == PBD_OK; i++) st = pbd_h5log_attr_double(r.rl.log, keys[i], apex[i]);
    if (st == PBD_OK) st = pbd_h5log_attr_double(r.rl.log, "result.restitution", e);
    if (st == PBD_OK) st = pbd_h5log_attr_double(r.rl.log, "result.error", worst);
    return rigid_run_close(ctx, &r, st, text);
}

static int run(pbd_exp_ctx *ctx)
{
    double es[MAX_LIST];
    int ne = pbd_exp_numbers(ctx, "restitutions", P.restitutions, es, MAX_LIST, 0.01, 1);
    if (ne < 0) return PBD_EINVAL;
    for (int i = 0; i < ne; i++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "e%03d_", (int)lround(100 * es[i]));
        int st = rigid_each_substeps(ctx, "substeps", P.substeps, prefix, run_one, &es[i]);
        if (st != PBD_OK) return st;
    }
    return PBD_OK;
}

static int summarize(pbd_exp_ctx *ctx)
{
    const char *attrs[] = {"result.restitution", "rigid.substeps", "result.apex_1",
                           "result.apex_2", "result.apex_3", "result.error"};
    double *rows;
    int n = rigid_rows(ctx, "e", attrs, 6, 2, &rows);
    pbd_exp_summary *s = n < 0 ? NULL : pbd_exp_summary_open(ctx);
    if (!s) {
        free(rows);
        return n < 0 ? PBD_ENOMEM : PBD_EIO;
    }
    const char *cols[] = {"restitution", "substeps", "apex_1", "apex_2", "apex_3", "error"};
    pbd_exp_summary_table(s, "bounces", rows, n, 6, cols, "1 1 m m m 1");
    char text[1024] = "ball dropped from 1 m, apexes vs e^2n h0, max relative error over 3 bounces:";
    for (int i = 0; i < n; i++) {
        char part[96];
        snprintf(part, sizeof part, "%s %.2g at e %.2f, %g substeps", i ? "," : "",
                 rows[6 * i + 5], rows[6 * i], rows[6 * i + 1]);
        strncat(text, part, sizeof text - strlen(text) - 1);
    }
    if (n > 0) pbd_exp_summary_double(s, "headline.bounce_error", rows[6 * (n - 1) + 5]);
    free(rows);
    return pbd_exp_summary_finish(s, "%s", text);
}

const pbd_experiment pbd_exp_rigid_restitution = {
    .name = "rigid_restitution",
    .description = "XPBD rigid bodies (Mueller et al. 2020): a ball dropped on the ground, its "
                   "bounce heights against e^2n h0 vs substeps",
    .paper = "restitution in the velocity solve, e = 0 below 2|g|h (Sec. 3.6); no numbers "
             "given",
    .timing = 0,
    .options = options,
    .run = run,
    .summarize = summarize,
};
