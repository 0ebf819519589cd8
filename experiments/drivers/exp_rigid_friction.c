/* rigid_friction — XPBD rigid bodies (Müller et al. 2020; solver/rigid/): Coulomb friction
 * of a box, static in the position solve, dynamic in the velocity solve (Sec. 3.5, 3.6).
 * Runs "tilt_<R>": a box (half extents 0.2 × 0.1 × 0.15 m, 1 kg, μs = 0.5, μk = 0.4) released
 * at rest on a ramp with tan θ = R/100 μs, 20 substeps × 1 iteration, 1 s: the distance slid
 * against 0 (R < 100) or ½ g (sin θ − μk cos θ) t² (R > 100).
 * Runs "slide_s<S>": a flat box (half extents 0.2 × 0.005 × 0.15 m, 1 kg, μk = 0.4) on level
 * ground, settled for 0.5 s, launched at v0 = 3 m/s: the stopping distance against
 * v0²/(2 μk g) at S substeps × 1 iteration. dt = 1/60 s. */
#include "pbd_drivers.h"
#include "experiments/drivers/rigid_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 16
#define G 9.81

static struct {
    const char *ratios, *substeps;
} P;

static int options(cli_option *out, int quick)
{
    P.ratios = quick ? "50,150" : "50,80,90,110,150";
    P.substeps = quick ? "5,20" : "1,2,5,10,20,50";
    const cli_option rows[] = {
        {"ratios", CLI_STRING, &P.ratios, 0, 0, 0,
         "tilt runs: 100 tan(theta)/mu_s (list; below 100 the box holds)", NULL},
        {"substeps", CLI_STRING, &P.substeps, 0, 0, 0, "slide runs: substep counts (list)", NULL},
    };
    memcpy(out, rows, sizeof rows);
    return (int)(sizeof rows / sizeof rows[0]);
}

static int finish(pbd_exp_ctx *ctx, rigid_run *r, pbd_status st, double measured,
                  double expected, int relative, const char *what)
{
    double err = relative ? fabs(measured - expected) / expected : fabs(measured - expected);
    char text[256];
    snprintf(text, sizeof text, "%s: %.4f m against %.4f m (%s error %.3g)", what, measured,
             expected, relative ? "relative" : "absolute", err);
    if (st == PBD_OK) st = pbd_h5log_attr_double(r->rl.log, "result.measured", measured);
    if (st == PBD_OK) st = pbd_h5log_attr_double(r->rl.log, "result.expected", expected);
    if (st == PBD_OK) st = pbd_h5log_attr_double(r->rl.log, "result.error", err);
    return rigid_run_close(ctx, r, st, text);
}

static int run_tilt(pbd_exp_ctx *ctx, const char *name, double ratio)
{
    const double mu_s = 0.5, mu_k = 0.4, half[3] = {0.2, 0.1, 0.15};
    double th = atan(ratio / 100.0 * mu_s);
    pbd_rigid_material m = {mu_s, mu_k, 0.0};
    rigid_run r;
    pbd_status st = rigid_run_open(ctx, name,
                                   pbd_rigid_ramp_world(th, half, 1.0, &m, 0.0, 1.0 / 60.0, 20, 1),
                                   &r);
    if (st != PBD_OK) return st;
    double x0 = r.w->bodies[0].x[0], y0 = r.w->bodies[0].x[1];
    for (int k = 0; k < 60 && st == PBD_OK; k++) st = rigid_run_step(ctx, &r);
    const double *x = r.w->bodies[0].x;
    double moved = (x[0] - x0) * cos(th) - (x[1] - y0) * sin(th); /* along the slope */
    double expected = ratio > 100.0 ? 0.5 * G * (sin(th) - mu_k * cos(th)) : 0.0;
    if (st == PBD_OK) st = pbd_h5log_attr_double(r.rl.log, "result.ratio", ratio / 100.0);
    return finish(ctx, &r, st, moved, expected, ratio > 100.0, "slid in 1 s");
}

static int run_slide(pbd_exp_ctx *ctx, const char *name, int substeps, int iterations,
                     void *user)
{
    (void)user;
    const double mu_k = 0.4, v0 = 3.0, half[3] = {0.2, 0.005, 0.15};
    pbd_rigid_material m = {0.5, mu_k, 0.0};
    rigid_run r;
    pbd_status st = rigid_run_open(
        ctx, name, pbd_rigid_ramp_world(0.0, half, 1.0, &m, 0.0, 1.0 / 60.0, substeps, iterations), &r);
    if (st != PBD_OK) return st;
    for (int k = 0; k < 30 && st == PBD_OK; k++) st = rigid_run_step(ctx, &r);
    double x0 = r.w->bodies[0].x[0];
    r.w->bodies[0].v[0] = v0;
    for (int k = 0; k < 120 && st == PBD_OK; k++) st = rigid_run_step(ctx, &r);
    return finish(ctx, &r, st, r.w->bodies[0].x[0] - x0, v0 * v0 / (2.0 * mu_k * G), 1,
                  "stopped after");
}

static int run(pbd_exp_ctx *ctx)
{
    double list[MAX_LIST];
    int n = pbd_exp_numbers(ctx, "ratios", P.ratios, list, MAX_LIST, 1, 1000);
    if (n < 0) return PBD_EINVAL;
    for (int k = 0; k < n; k++) {
        char name[64];
        snprintf(name, sizeof name, "tilt_%03d", (int)list[k]);
        if (!pbd_exp_want(ctx, name)) continue;
        int st = run_tilt(ctx, name, list[k]);
        if (st != PBD_OK) return st;
    }
    return rigid_each_substeps(ctx, "substeps", P.substeps, "slide_", run_slide, NULL);
}

static int summarize(pbd_exp_ctx *ctx)
{
    const char *ta[] = {"result.ratio", "result.measured", "result.expected", "result.error"};
    const char *sa[] = {"rigid.substeps", "result.measured", "result.expected", "result.error"};
    double *tilt, *slide;
    int nt = rigid_rows(ctx, "tilt", ta, 4, 1, &tilt);
    int ns = rigid_rows(ctx, "slide", sa, 4, 1, &slide);
    pbd_exp_summary *s = nt < 0 || ns < 0 ? NULL : pbd_exp_summary_open(ctx);
    if (!s) {
        free(tilt);
        free(slide);
        return nt < 0 || ns < 0 ? PBD_ENOMEM : PBD_EIO;
    }
    const char *tc[] = {"tan_theta_over_mu_s", "slid", "expected", "error"};
    const char *sc[] = {"substeps", "distance", "expected", "relative_error"};
    pbd_exp_summary_table(s, "tilt", tilt, nt, 4, tc, "1 m m 1");
    pbd_exp_summary_table(s, "slide", slide, ns, 4, sc, "1 m m 1");
    char text[1024] = "box on a ramp (mu_s 0.5, mu_k 0.4), slid in 1 s:";
    for (int i = 0; i < nt; i++) {
        char part[128];
        snprintf(part, sizeof part, "%s %.3g m at tan/mu_s %.2f (expected %.3g)", i ? "," : "",
                 tilt[4 * i + 1], tilt[4 * i], tilt[4 * i + 2]);
        strncat(text, part, sizeof text - strlen(text) - 1);
    }
    strncat(text, "; stopping distance vs v0^2/(2 mu_k g) = 1.147 m:",
            sizeof text - strlen(text) - 1);
    for (int i = 0; i < ns; i++) {
        char part[96];
        snprintf(part, sizeof part, "%s %+.2g%% at %g substeps", i ? "," : "",
                 100.0 * (slide[4 * i + 1] - slide[4 * i + 2]) / slide[4 * i + 2], slide[4 * i]);
        strncat(text, part, sizeof text - strlen(text) - 1);
    }
    if (ns > 0) pbd_exp_summary_double(s, "headline.stopping_error", slide[4 * (ns - 1) + 3]);
    free(tilt);
    free(slide);
    return pbd_exp_summary_finish(s, "%s", text);
}

const pbd_experiment pbd_exp_rigid_friction = {
    .name = "rigid_friction",
    .description = "XPBD rigid bodies (Mueller et al. 2020): a box on a ramp below and above "
                   "tan(theta) = mu_s (holds / slides), and a box launched at v0 stopping at "
                   "v0^2/(2 mu_k g) vs substeps",
    .paper = "static friction in the position solve, dynamic in the velocity solve (Sec. 3.5, "
             "3.6); no friction numbers given",
    .timing = 0,
    .options = options,
    .run = run,
    .summarize = summarize,
};
