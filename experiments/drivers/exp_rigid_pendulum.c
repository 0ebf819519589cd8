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
#include "solver/rigid/pbd_rigid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 16
#define HALF_WIDTH 0.05

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

/* A chain of n links of length l hanging from a fixed pivot at the origin at angles th. */
static pbd_rigid_world *chain(int n, double l, const double *th, int substeps, int iterations)
{
    pbd_rigid_world *w = pbd_rigid_world_create(1.0 / 60.0, substeps, iterations);
    if (!w) return NULL;
    const double zero[3] = {0, 0, 0};
    int prev = pbd_rigid_add_body_inertia(w, 0.0, zero, NULL, zero, NULL);
    double top[3] = {0, 0, 0};
    for (int i = 0; i < n && prev >= 0; i++) {
        pbd_rigid_shape s = {.kind = PBD_RIGID_BOX, .half = {HALF_WIDTH, 0.5 * l, HALF_WIDTH}};
        double e[3] = {sin(th[i]), -cos(th[i]), 0}, c[3], rv[3] = {0, 0, th[i]}, q[4];
        for (int k = 0; k < 3; k++) c[k] = top[k] + 0.5 * l * e[k];
        pbd_quat_from_rotvec(rv, q);
        int b = pbd_rigid_add_body(w, &s, 1.0, c, q);
        pbd_rigid_joint j;
        memset(&j, 0, sizeof j);
        j.kind = PBD_JOINT_HINGE;
        j.body[0] = prev;
        j.body[1] = b;
        if (i > 0) j.anchor[0][1] = -0.5 * l;
        j.anchor[1][1] = 0.5 * l;
        j.axis[0][2] = j.axis[1][2] = 1.0;
        j.ref[0][1] = j.ref[1][1] = -1.0;
        if (b < 0 || pbd_rigid_add_joint(w, &j) < 0) prev = -1;
        else prev = b;
        for (int k = 0; k < 3; k++) top[k] += l * e[k];
    }
    if (prev < 0) {
        pbd_rigid_world_free(w);
        return NULL;
    }
    return w;
}

/* the angle of body b's long axis from the downward vertical */
static double link_angle(const pbd_rigid_body *b)
{
    const double down[3] = {0, -1, 0};
    double a[3];
    pbd_quat_rotate(b->q, down, a);
    return atan2(a[0], -a[1]);
}

typedef struct {
    int c_kt, c_kr, c_pot, c_p, c_l, c_th, c_ref;
} columns;

static void log_columns(pbd_h5log *log, columns *c, int triple)
{
    c->c_kt = pbd_h5log_column(log, "kinetic_translational", 1, "J");
    c->c_kr = pbd_h5log_column(log, "kinetic_rotational", 1, "J");
    c->c_pot = pbd_h5log_column(log, "potential", 1, "J");
    c->c_p = pbd_h5log_column(log, "rigid_momentum", 3, "kg m/s");
    c->c_l = pbd_h5log_column(log, "rigid_angular_momentum", 3, "kg m^2/s");
    c->c_th = triple ? pbd_h5log_column(log, "link_angle", 3, "rad") : -1;
    c->c_ref = triple ? pbd_h5log_column(log, "link_angle_reference", 3, "rad") : -1;
}

static double log_measures(pbd_h5log *log, const columns *c, const pbd_rigid_world *w)
{
    pbd_rigid_measures m;
    pbd_rigid_measure(w, &m);
    pbd_h5log_set1(log, c->c_kt, m.kinetic_translational);
    pbd_h5log_set1(log, c->c_kr, m.kinetic_rotational);
    pbd_h5log_set1(log, c->c_pot, m.potential);
    pbd_h5log_set(log, c->c_p, m.momentum);
    pbd_h5log_set(log, c->c_l, m.angular_momentum);
    return m.kinetic_translational + m.kinetic_rotational + m.potential;
}

/* A run: the rigid world and its log. The log expects a particle world: an empty stand-in
 * carries the rigid world's step and time. */
typedef struct {
    pbd_rigid_world *w;
    pbd_world *shadow;
    pbd_h5log *log;
    columns c;
} rigid_run;

static void run_close(rigid_run *r)
{
    pbd_rigid_world_free(r->w);
    pbd_world_free(r->shadow);
}

/* Open the log of the world w (taken over; NULL: it could not be built) and log the start. */
static pbd_status run_open(pbd_exp_ctx *ctx, const char *name, pbd_rigid_world *w, int triple,
                           rigid_run *r)
{
    memset(r, 0, sizeof *r);
    r->w = w;
    r->shadow = pbd_world_create(0);
    r->log = w && r->shadow ? pbd_exp_log_open(ctx, name, r->shadow, NULL) : NULL;
    if (!r->log) {
        run_close(r);
        return pbd_last_status() ? pbd_last_status() : PBD_EIO;
    }
    log_columns(r->log, &r->c, triple);
    pbd_h5log_attr_double(r->log, "rigid.substeps", w->substeps);
    pbd_h5log_attr_double(r->log, "rigid.iterations", w->iterations);
    log_measures(r->log, &r->c, w);
    return PBD_OK;
}

/* One step of the world, a stop request honoured; the measures set (energy in *E). */
static pbd_status run_step(rigid_run *r, double *E)
{
    pbd_status st = pbd_rigid_step(r->w);
    if (st == PBD_OK && pbd_stop_requested()) st = pbd_error(PBD_EINTR, "stopped on request");
    if (st == PBD_OK) *E = log_measures(r->log, &r->c, r->w);
    return st;
}

static pbd_status run_log_step(rigid_run *r)
{
    r->shadow->time = r->w->time;
    r->shadow->step_count++;
    return pbd_h5log_step(r->log, r->shadow);
}

static int run_single(pbd_exp_ctx *ctx, const char *name, int substeps, int iterations)
{
    const double th0 = 1.0, l = 1.0;
    rigid_run r;
    pbd_status st = run_open(ctx, name, chain(1, l, &th0, substeps, iterations), 0, &r);
    if (st != PBD_OK) return st;
    pbd_rigid_measures m0;
    pbd_rigid_measure(r.w, &m0);
    double E0 = m0.kinetic_translational + m0.kinetic_rotational + m0.potential, E = E0;
    double scale = 9.81 * 0.5 * l * (1.0 - cos(th0)), drift = 0.0;
    long steps = lround(P.seconds * 60.0);
    for (long k = 0; k < steps && st == PBD_OK; k++) {
        st = run_step(&r, &E);
        if (st != PBD_OK) break;
        drift = fmax(drift, fabs(E - E0) / scale);
        st = run_log_step(&r);
    }
    if (st == PBD_OK) {
        pbd_h5log_attr_double(r.log, "result.energy_drift", drift);
        st = pbd_exp_log_finish(ctx, r.log, "%d substeps x %d iterations: max |E - E0| = %.3g "
                                "of the swing energy over %g s", substeps, iterations, drift,
                                P.seconds);
    } else {
        pbd_exp_log_abort(ctx, r.log, st);
    }
    run_close(&r);
    return st;
}

static int run_triple(pbd_exp_ctx *ctx, const char *name, int substeps)
{
    const double th0[3] = {0.6, 0.3, -0.2}, l = 0.5;
    const double mass[3] = {1, 1, 1}, len[3] = {l, l, l};
    double I = (0.25 * l * l + HALF_WIDTH * HALF_WIDTH) / 3.0; /* box about z, m = 1 kg */
    const double inertia[3] = {I, I, I};
    long steps = lround(P.triple_seconds * 60.0);
    double *ref = malloc((size_t)steps * 3 * sizeof *ref);
    if (!ref) return pbd_error(PBD_ENOMEM, "rigid_pendulum: out of memory");
    pbd_status st = pbd_planar_chain(3, mass, len, inertia, 9.81, th0, P.triple_seconds,
                                     (int)steps, ref);
    if (st != PBD_OK) {
        free(ref);
        return st;
    }
    rigid_run r;
    st = run_open(ctx, name, chain(3, l, th0, substeps, 1), 1, &r);
    if (st != PBD_OK) {
        free(ref);
        return st;
    }
    double err = 0.0, E;
    for (long k = 0; k < steps && st == PBD_OK; k++) {
        st = run_step(&r, &E);
        if (st != PBD_OK) break;
        double th[3];
        for (int i = 0; i < 3; i++) {
            th[i] = link_angle(&r.w->bodies[1 + i]);
            err = fmax(err, fabs(remainder(th[i] - ref[3 * k + i], 2.0 * M_PI)));
        }
        pbd_h5log_set(r.log, r.c.c_th, th);
        pbd_h5log_set(r.log, r.c.c_ref, ref + 3 * k);
        st = run_log_step(&r);
    }
    if (st == PBD_OK) {
        pbd_h5log_attr_double(r.log, "result.angle_error", err);
        st = pbd_exp_log_finish(ctx, r.log, "%d substeps: max angle error %.3g rad over %g s "
                                "vs the Lagrangian reference", substeps, err, P.triple_seconds);
    } else {
        pbd_exp_log_abort(ctx, r.log, st);
    }
    free(ref);
    run_close(&r);
    return st;
}

static int run(pbd_exp_ctx *ctx)
{
    char list[256];
    snprintf(list, sizeof list, "%s", P.pairs);
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        int s, i;
        if (sscanf(tok, "%dx%d", &s, &i) != 2 || s < 1 || i < 1 || s > 10000 || i > 10000)
            return pbd_error(PBD_EINVAL, "--pairs: expected SxI with 1 <= S, I <= 10000 "
                             "(e.g. 1x20,20x1), found '%s'", tok);
        char name[64];
        snprintf(name, sizeof name, "single_s%d_i%d", s, i);
        if (!pbd_exp_want(ctx, name)) continue;
        int st = run_single(ctx, name, s, i);
        if (st != PBD_OK) return st;
    }
    double sub[MAX_LIST];
    int n = pbd_exp_numbers(ctx, "substeps", P.substeps, sub, MAX_LIST, 1, 10000);
    if (n < 0) return PBD_EINVAL;
    for (int k = 0; k < n; k++) {
        char name[64];
        snprintf(name, sizeof name, "triple_s%d", (int)sub[k]);
        if (!pbd_exp_want(ctx, name)) continue;
        int st = run_triple(ctx, name, (int)sub[k]);
        if (st != PBD_OK) return st;
    }
    return PBD_OK;
}

static int summarize(pbd_exp_ctx *ctx)
{
    double *single = calloc((size_t)ctx->n_runs * 3 + 3, sizeof(double));
    double *triple = calloc((size_t)ctx->n_runs * 2 + 2, sizeof(double));
    if (!single || !triple) {
        free(single);
        free(triple);
        return PBD_ENOMEM;
    }
    int ns = 0, nt = 0;
    for (int i = 0; i < ctx->n_runs; i++) {
        char path[4096];
        pbd_exp_run_path(ctx, ctx->runs[i], path, sizeof path);
        double *r = single + 3 * ns, *t = triple + 2 * nt;
        if (!strncmp(ctx->runs[i], "single", 6) &&
            !pbd_h5_read_attr_double(path, "rigid.substeps", &r[0]) &&
            !pbd_h5_read_attr_double(path, "rigid.iterations", &r[1]) &&
            !pbd_h5_read_attr_double(path, "result.energy_drift", &r[2]))
            ns++;
        else if (!strncmp(ctx->runs[i], "triple", 6) &&
                 !pbd_h5_read_attr_double(path, "rigid.substeps", &t[0]) &&
                 !pbd_h5_read_attr_double(path, "result.angle_error", &t[1]))
            nt++;
    }
    pbd_exp_sort_rows(single, ns, 3, 1);
    pbd_exp_sort_rows(triple, nt, 2, 1);
    pbd_exp_summary *s = pbd_exp_summary_open(ctx);
    if (!s) {
        free(single);
        free(triple);
        return PBD_EIO;
    }
    const char *cs[] = {"substeps", "iterations", "energy_drift"};
    const char *ct[] = {"substeps", "angle_error"};
    pbd_exp_summary_table(s, "single_energy_drift", single, ns, 3, cs, "1 1 1");
    pbd_exp_summary_table(s, "triple_angle_error", triple, nt, 2, ct, "1 rad");
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
