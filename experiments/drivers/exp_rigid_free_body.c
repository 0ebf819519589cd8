/* rigid_free_body — XPBD rigid bodies (Müller et al. 2020; solver/rigid/): torque-free motion
 * of an asymmetric body (principal inertias 1, 2, 3 kg m², 1 kg, no gravity) spun at 2 rad/s
 * about its intermediate axis with a 1 % perturbation about the first: it flips (the
 * intermediate-axis theorem). Runs "s<S>": S substeps × 1 iteration, dt = 1/60 s, 10 s.
 * Exact: angular momentum L and kinetic energy E conserved; the body-frame ω_2 changes sign
 * with the period of the separatrix motion. Results: the largest |L − L0|/|L0| and
 * |E − E0|/E0 over the run, the number of flips. Series: ω in the body frame. */
#include "pbd_drivers.h"
#include "experiments/drivers/rigid_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    const char *substeps;
    double seconds;
} P;

static int options(cli_option *out, int quick)
{
    P.substeps = quick ? "5,20" : "1,2,5,10,20,50,100";
    P.seconds = 10.0;
    const cli_option rows[] = {
        {"substeps", CLI_STRING, &P.substeps, 0, 0, 0, "substep counts (list), 1 iteration each",
         NULL},
        {"seconds", CLI_DOUBLE, &P.seconds, 0, 1e5, 1, "simulated time in s", NULL},
    };
    memcpy(out, rows, sizeof rows);
    return (int)(sizeof rows / sizeof rows[0]);
}

static pbd_rigid_world *spinning(int substeps, int iterations)
{
    pbd_rigid_world *w = pbd_rigid_world_create(1.0 / 60.0, substeps, iterations);
    if (!w) return NULL;
    w->gravity[1] = 0.0;
    const double I[3] = {1.0, 2.0, 3.0}, x[3] = {0, 0, 0};
    int b = pbd_rigid_add_body_inertia(w, 1.0, I, NULL, x, NULL);
    if (b < 0) {
        pbd_rigid_world_free(w);
        return NULL;
    }
    w->bodies[b].omega[0] = 0.02;
    w->bodies[b].omega[1] = 2.0;
    return w;
}

static void norms(const pbd_rigid_world *w, double *L, double *E)
{
    pbd_rigid_measures m;
    pbd_rigid_measure(w, &m);
    *L = sqrt(m.angular_momentum[0] * m.angular_momentum[0] +
              m.angular_momentum[1] * m.angular_momentum[1] +
              m.angular_momentum[2] * m.angular_momentum[2]);
    *E = m.kinetic_rotational;
}

static int run_one(pbd_exp_ctx *ctx, const char *name, int substeps, int iterations, void *user)
{
    rigid_run r;
    (void)user;
    pbd_status st = rigid_run_open(ctx, name, spinning(substeps, iterations), &r);
    if (st != PBD_OK) return st;
    int c_wb = pbd_h5log_column_described(r.rl.log, "omega_body", 3, "rad/s",
                                          "the angular velocity in the body frame");
    double L0, E0, L, E, dL = 0.0, dE = 0.0, prev = 1.0;
    norms(r.w, &L0, &E0);
    long steps = lround(P.seconds * 60.0), flips = 0;
    for (long k = 0; k < steps && st == PBD_OK; k++) {
        const pbd_rigid_body *b = &r.w->bodies[0];
        double wb[3];
        pbd_quat_rotate_inv(b->q, b->omega, wb);
        pbd_h5log_set(r.rl.log, c_wb, wb);
        if ((st = rigid_run_step(ctx, &r)) != PBD_OK) break;
        norms(r.w, &L, &E);
        dL = fmax(dL, fabs(L - L0) / L0);
        dE = fmax(dE, fabs(E - E0) / E0);
        pbd_quat_rotate_inv(b->q, b->omega, wb);
        if (wb[1] * prev < 0.0) flips++;
        if (wb[1] != 0.0) prev = wb[1];
    }
    char text[256];
    snprintf(text, sizeof text, "%d substeps: max |dL|/|L| %.3g, |dE|/E %.3g over %g s, %ld "
             "flips", substeps, dL, dE, P.seconds, flips);
    if (st == PBD_OK) st = pbd_h5log_attr_double(r.rl.log, "result.momentum_drift", dL);
    if (st == PBD_OK) st = pbd_h5log_attr_double(r.rl.log, "result.energy_drift", dE);
    if (st == PBD_OK) st = pbd_h5log_attr_double(r.rl.log, "result.flips", (double)flips);
    return rigid_run_close(ctx, &r, st, text);
}

static int run(pbd_exp_ctx *ctx)
{
    return rigid_each_substeps(ctx, "substeps", P.substeps, "", run_one, NULL);
}

static int summarize(pbd_exp_ctx *ctx)
{
    const char *attrs[] = {"rigid.substeps", "result.momentum_drift", "result.energy_drift",
                           "result.flips"};
    double *rows;
    int n = rigid_rows(ctx, "s", attrs, 4, 1, &rows);
    pbd_exp_summary *s = n < 0 ? NULL : pbd_exp_summary_open(ctx);
    if (!s) {
        free(rows);
        return n < 0 ? PBD_ENOMEM : PBD_EIO;
    }
    const char *cols[] = {"substeps", "momentum_drift", "energy_drift", "flips"};
    pbd_exp_summary_table(s, "drift", rows, n, 4, cols, "1 1 1 1");
    char text[768] = "torque-free asymmetric body (I = 1, 2, 3 kg m^2), max |dL|/|L|, |dE|/E:";
    for (int i = 0; i < n; i++) {
        char part[128];
        snprintf(part, sizeof part, "%s %.2g, %.2g at %g substeps (%g flips)", i ? ";" : "",
                 rows[4 * i + 1], rows[4 * i + 2], rows[4 * i], rows[4 * i + 3]);
        strncat(text, part, sizeof text - strlen(text) - 1);
    }
    if (n > 0) {
        pbd_exp_summary_double(s, "headline.momentum_drift", rows[4 * (n - 1) + 1]);
        pbd_exp_summary_double(s, "headline.energy_drift", rows[4 * (n - 1) + 2]);
    }
    free(rows);
    return pbd_exp_summary_finish(s, "%s", text);
}

const pbd_experiment pbd_exp_rigid_free_body = {
    .name = "rigid_free_body",
    .description = "XPBD rigid bodies (Mueller et al. 2020): torque-free motion of an asymmetric "
                   "body spun about its intermediate axis (it flips); angular momentum and "
                   "energy drift vs substeps",
    .paper = "the gyroscopic term keeps the flip (Sec. 3.2, Algorithm 2); conservation not "
             "quantified",
    .timing = 0,
    .options = options,
    .run = run,
    .summarize = summarize,
};
