/* rigid_pendulum — XPBD rigid bodies (Müller et al. 2020; solver/rigid/): chains of box links
 * (half extents 0.05 × l/2 × 0.05 m, 1 kg) on hinges about z.
 * Runs "single_sS_iI": one link (l = 1 m) released at 1 rad, 10 s at 60 Hz, with S substeps
 * × I iterations at equal cost S·I: the largest |E(t) − E(0)| over the swing energy
 * m g d (1 − cos θ0) (the paper's claim: substeps beat iterations).
 * Runs "triple_sS": three links (l = 0.5 m) released at (0.6, 0.3, −0.2) rad, 2 s, S substeps
 * × 1 iteration: the largest angle error against the independent Lagrangian integration
 * (analysis/planar_chain.c, GSL rk8pd at 1e-13) over the 2 s.
 * The series log per step the energies (kinetic translational and rotational, potential, J),
 * linear and angular momentum and the link angles beside the reference's. */
#include "pbd_drivers.h"
#include "analysis/pbd_analysis.h"
#include "experiments/drivers/rigid_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    const char *pairs, *substeps;
    double seconds, triple_seconds;
} P;

static int options(cli_option *out, int quick)
{
    P.pairs = quick ? "1x8,8x1" : "1x20,2x10,4x5,5x4,10x2,20x1";
    P.substeps = quick ? "2,8" : "1,2,5,10,20,50,100";
    P.seconds = quick ? 2.0 : 10.0;
    P.triple_seconds = 2.0;
    const cli_option rows[] = {
        {"pairs", CLI_STRING, &P.pairs, 0, 0, 0,
         "single pendulum: substeps x iterations pairs (list, e.g. 1x20,20x1)", NULL},
        {"substeps", CLI_STRING, &P.substeps, 0, 0, 0,
         "triple pendulum: substep counts (list), 1 iteration each", NULL},
        {"seconds", CLI_DOUBLE, &P.seconds, 0, 1e6, 1, "single pendulum: simulated time in s",
         NULL},
        {"triple-seconds", CLI_DOUBLE, &P.triple_seconds, 0, 1e3, 1,
         "triple pendulum: simulated time in s", NULL},
    };
    memcpy(out, rows, sizeof rows);
    return (int)(sizeof rows / sizeof rows[0]);
}

/* A chain of n links of length l (1 kg each) at angles th, at 60 Hz */
static pbd_rigid_world *chain(int n, double l, const double *th, int substeps, int iterations)
{
    return pbd_rigid_chain_world(n, l, 1.0, th, 1.0 / 60.0, substeps, iterations);
}

/* the angle of body b's long axis from the downward vertical */
static double link_angle(const pbd_rigid_body *b)
{
    const double down[3] = {0, -1, 0};
    double a[3];
    pbd_quat_rotate(b->q, down, a);
    return atan2(a[0], -a[1]);
}

static double energy(const pbd_rigid_world *w)
{
    pbd_rigid_measures m;
    pbd_rigid_measure(w, &m);
    return m.kinetic_translational + m.kinetic_rotational + m.potential;
}

static int run_single(pbd_exp_ctx *ctx, const char *name, int substeps, int iterations,
                      void *user)
{
    const double th0 = 1.0, l = 1.0;
    (void)user;
    rigid_run r;
    pbd_status st = rigid_run_open(ctx, name, chain(1, l, &th0, substeps, iterations), &r);
    if (st != PBD_OK) return st;
    double E0 = energy(r.w), scale = 9.81 * 0.5 * l * (1.0 - cos(th0)), drift = 0.0;
    long steps = lround(P.seconds * 60.0);
    for (long k = 0; k < steps && st == PBD_OK; k++)
        if ((st = rigid_run_step(ctx, &r)) == PBD_OK)
            drift = fmax(drift, fabs(energy(r.w) - E0) / scale);
    char text[256];
    snprintf(text, sizeof text, "%d substeps x %d iterations: max |E - E0| = %.3g of the swing "
             "energy over %g s", substeps, iterations, drift, P.seconds);
    if (st == PBD_OK) st = pbd_h5log_attr_double(r.rl.log, "result.energy_drift", drift);
    return rigid_run_close(ctx, &r, st, text);
}

static int run_triple(pbd_exp_ctx *ctx, const char *name, int substeps, int iterations,
                      void *user)
{
    const double th0[3] = {0.6, 0.3, -0.2}, l = 0.5;
    (void)user;
    const double mass[3] = {1, 1, 1}, len[3] = {l, l, l};
    double hw = PBD_RIGID_LINK_HALF_WIDTH;
    double I = (0.25 * l * l + hw * hw) / 3.0; /* box about z, m = 1 kg */
    const double inertia[3] = {I, I, I};
    long steps = lround(P.triple_seconds * 60.0);
    double *ref = malloc((size_t)steps * 3 * sizeof *ref);
    if (!ref) return pbd_error(PBD_ENOMEM, "rigid_pendulum: out of memory");
    pbd_status st = pbd_planar_chain(3, mass, len, inertia, 9.81, th0, P.triple_seconds,
                                     (int)steps, ref);
    rigid_run r;
    if (st == PBD_OK) st = rigid_run_open(ctx, name, chain(3, l, th0, substeps, iterations), &r);
    if (st != PBD_OK) {
        free(ref);
        return st;
    }
    int c_th = pbd_h5log_column(r.rl.log, "link_angle", 3, "rad");
    int c_ref = pbd_h5log_column(r.rl.log, "link_angle_reference", 3, "rad");
    double err = 0.0;
    for (long k = 0; k < steps && st == PBD_OK; k++) {
        st = pbd_rigid_step(r.w);
        if (st == PBD_OK && pbd_stop_requested()) st = pbd_error(PBD_EINTR, "stopped on request");
        if (st != PBD_OK) break;
        double th[3];
        for (int i = 0; i < 3; i++) {
            th[i] = link_angle(&r.w->bodies[1 + i]);
            err = fmax(err, fabs(remainder(th[i] - ref[3 * k + i], 2.0 * M_PI)));
        }
        pbd_h5log_set(r.rl.log, c_th, th);
        pbd_h5log_set(r.rl.log, c_ref, ref + 3 * k);
        st = pbd_rigid_log_step(&r.rl);
    }
    free(ref);
    char text[256];
    snprintf(text, sizeof text, "%d substeps: max angle error %.3g rad over %g s vs the "
             "Lagrangian reference", substeps, err, P.triple_seconds);
    if (st == PBD_OK) st = pbd_h5log_attr_double(r.rl.log, "result.angle_error", err);
    return rigid_run_close(ctx, &r, st, text);
}

static int run(pbd_exp_ctx *ctx)
{
    int st = rigid_each_pair(ctx, "pairs", P.pairs, "single_", run_single, NULL);
    return st != PBD_OK ? st : rigid_each_substeps(ctx, "substeps", P.substeps, "triple_",
                                                   run_triple, NULL);
}

static int summarize(pbd_exp_ctx *ctx)
{
    const char *cs[] = {"rigid.substeps", "rigid.iterations", "result.energy_drift"};
    const char *ct[] = {"rigid.substeps", "result.angle_error"};
    double *single, *triple;
    int ns = rigid_rows(ctx, "single", cs, 3, 1, &single);
    int nt = rigid_rows(ctx, "triple", ct, 2, 1, &triple);
    pbd_exp_summary *s = ns < 0 || nt < 0 ? NULL : pbd_exp_summary_open(ctx);
    if (!s) {
        free(single);
        free(triple);
        return ns < 0 || nt < 0 ? PBD_ENOMEM : PBD_EIO;
    }
    const char *cs_names[] = {"substeps", "iterations", "energy_drift"};
    const char *ct_names[] = {"substeps", "angle_error"};
    pbd_exp_summary_table(s, "single_energy_drift", single, ns, 3, cs_names, "1 1 1");
    pbd_exp_summary_table(s, "triple_angle_error", triple, nt, 2, ct_names, "1 rad");
    char text[768] = "single pendulum, energy drift of the swing energy at equal cost:";
    for (int i = 0; i < ns; i++) {
        char part[96];
        snprintf(part, sizeof part, "%s %.2g at %gx%g", i ? "," : "", single[3 * i + 2],
                 single[3 * i], single[3 * i + 1]);
        strncat(text, part, sizeof text - strlen(text) - 1);
    }
    strncat(text, "; triple pendulum, max angle error vs the Lagrangian reference:",
            sizeof text - strlen(text) - 1);
    for (int i = 0; i < nt; i++) {
        char part[96], key[64];
        snprintf(part, sizeof part, "%s %.2g rad at %g substeps", i ? "," : "",
                 triple[2 * i + 1], triple[2 * i]);
        strncat(text, part, sizeof text - strlen(text) - 1);
        snprintf(key, sizeof key, "headline.triple_error_s%g", triple[2 * i]);
        pbd_exp_summary_double(s, key, triple[2 * i + 1]);
    }
    free(single);
    free(triple);
    return pbd_exp_summary_finish(s, "%s", text);
}

const pbd_experiment pbd_exp_rigid_pendulum = {
    .name = "rigid_pendulum",
    .description = "XPBD rigid bodies (Mueller et al. 2020): a hinged box pendulum's energy "
                   "drift over 10 s at equal cost substeps x iterations, and a triple "
                   "pendulum's angles against an independent Lagrangian integration (GSL "
                   "rk8pd) vs substeps",
    .paper = "substeps beat iterations at equal cost (Sec. 5); no reference trajectory given",
    .timing = 0,
    .options = options,
    .run = run,
    .summarize = summarize,
};
