/* rigid_stack — XPBD rigid bodies (Müller et al. 2020; solver/rigid/): resting contact and
 * large mass ratios.
 * Runs "stack_s<S>_i<I>": 5 boxes (half side 0.1 m, 1 kg, μs = 0.5, μk = 0.4) stacked on the
 * ground; "pyramid_s<S>_i<I>": 4 rows (10 boxes, 2 cm apart in a row) on the ground; at rest
 * for 10 s, S substeps × I iterations, dt = 1/60 s. Exact: nothing moves. Results: the drift
 * (the largest distance of a box from where it started) and the jitter (the largest speed of
 * a box over the last second).
 * Runs "heavy_s<S>": a 100 kg box (half side 0.1 m) hanging from a chain of 4 links of 0.1 kg
 * (0.2 m, ball joints; mass ratio 1000), pushed sideways at 1 m/s, 2 s, S substeps × 1
 * iteration: the largest joint gap |p1 − p2| (exact 0; the paper: XPBD handles the ratio). */
#include "pbd_drivers.h"
#include "experiments/drivers/rigid_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    const char *pairs, *substeps;
    double seconds;
} P;

static int options(cli_option *out, int quick)
{
    P.pairs = quick ? "20x1,20x4" : "20x1,5x4,20x4";
    P.substeps = quick ? "5,20" : "1,5,20,100";
    P.seconds = quick ? 2.0 : 10.0;
    const cli_option rows[] = {
        {"pairs", CLI_STRING, &P.pairs, 0, 0, 0,
         "stack and pyramid: substeps x iterations pairs (list, e.g. 20x1,5x4)", NULL},
        {"substeps", CLI_STRING, &P.substeps, 0, 0, 0, "heavy: substep counts (list)", NULL},
        {"seconds", CLI_DOUBLE, &P.seconds, 0, 1e5, 1, "stack and pyramid: time at rest in s",
         NULL},
    };
    memcpy(out, rows, sizeof rows);
    return (int)(sizeof rows / sizeof rows[0]);
}

static pbd_rigid_world *boxes(int pyramid, int substeps, int iterations)
{
    pbd_rigid_world *w = pbd_rigid_world_create(1.0 / 60.0, substeps, iterations);
    if (!w) return NULL;
    w->ground = 1;
    const double half[3] = {0.1, 0.1, 0.1}, base[3] = {0, 0, 0};
    const pbd_rigid_material m = {0.5, 0.4, 0.0};
    int first = pyramid ? pbd_rigid_add_pyramid(w, 4, half, 1.0, 0.02, &m)
                        : pbd_rigid_add_stack(w, 5, half, 1.0, base, &m);
    if (first < 0) {
        pbd_rigid_world_free(w);
        return NULL;
    }
    return w;
}

static int run_rest(pbd_exp_ctx *ctx, const char *name, int substeps, int iterations,
                    void *user)
{
    const int pyramid = user != NULL;
    rigid_run r;
    pbd_status st = rigid_run_open(ctx, name, boxes(pyramid, substeps, iterations), &r);
    if (st != PBD_OK) return st;
    int n = r.w->n_bodies;
    double *x0 = malloc((size_t)n * 3 * sizeof *x0), drift = 0.0, jitter = 0.0;
    if (!x0) return rigid_run_close(ctx, &r, pbd_error(PBD_ENOMEM, "out of memory"), "");
    for (int i = 0; i < n; i++) memcpy(x0 + 3 * i, r.w->bodies[i].x, sizeof r.w->bodies[i].x);
    long steps = lround(P.seconds * 60.0);
    for (long k = 0; k < steps && st == PBD_OK; k++) {
        if ((st = rigid_run_step(ctx, &r)) != PBD_OK) break;
        for (int i = 0; i < n; i++) {
            const pbd_rigid_body *b = &r.w->bodies[i];
            double d[3] = {b->x[0] - x0[3 * i], b->x[1] - x0[3 * i + 1], b->x[2] - x0[3 * i + 2]};
            drift = fmax(drift, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
            if (k >= steps - 60)
                jitter = fmax(jitter, sqrt(b->v[0] * b->v[0] + b->v[1] * b->v[1] +
                                           b->v[2] * b->v[2]));
        }
    }
    free(x0);
    char text[256];
    snprintf(text, sizeof text, "%s, %d substeps x %d iterations: drift %.3g m, jitter %.3g m/s "
             "over %g s", pyramid ? "pyramid of 10" : "stack of 5", substeps, iterations, drift,
             jitter, P.seconds);
    if (st == PBD_OK) st = pbd_h5log_attr_double(r.rl.log, "result.drift", drift);
    if (st == PBD_OK) st = pbd_h5log_attr_double(r.rl.log, "result.jitter", jitter);
    return rigid_run_close(ctx, &r, st, text);
}

/* The chain of 4 light links with the heavy box at its end (body 5), ball joints */
static pbd_rigid_world *heavy(int substeps, int iterations)
{
    const double th[4] = {0, 0, 0, 0};
    pbd_rigid_world *w = pbd_rigid_chain_world(4, 0.2, 0.1, th, 1.0 / 60.0, substeps, iterations);
    if (!w) return NULL;
    for (int j = 0; j < w->n_joints; j++) w->joints[j].kind = PBD_JOINT_BALL;
    pbd_rigid_shape s = {.kind = PBD_RIGID_BOX, .half = {0.1, 0.1, 0.1}};
    double x[3] = {0, -0.9, 0};
    int b = pbd_rigid_add_body(w, &s, 100.0, x, NULL);
    pbd_rigid_joint j;
    memset(&j, 0, sizeof j);
    j.kind = PBD_JOINT_BALL;
    j.body[0] = 4;
    j.body[1] = b;
    j.anchor[0][1] = -0.1;
    j.anchor[1][1] = 0.1;
    if (b < 0 || pbd_rigid_add_joint(w, &j) < 0) {
        pbd_rigid_world_free(w);
        return NULL;
    }
    w->bodies[b].v[0] = 1.0;
    return w;
}

static double joint_gap(const pbd_rigid_world *w)
{
    double worst = 0.0;
    for (int k = 0; k < w->n_joints; k++) {
        const pbd_rigid_joint *j = &w->joints[k];
        const pbd_rigid_body *a = &w->bodies[j->body[0]], *b = &w->bodies[j->body[1]];
        double ra[3], rb[3], d = 0.0;
        pbd_quat_rotate(a->q, j->anchor[0], ra);
        pbd_quat_rotate(b->q, j->anchor[1], rb);
        for (int i = 0; i < 3; i++) d += pow(a->x[i] + ra[i] - b->x[i] - rb[i], 2);
        worst = fmax(worst, sqrt(d));
    }
    return worst;
}

static int run_heavy(pbd_exp_ctx *ctx, const char *name, int substeps, int iterations,
                     void *user)
{
    rigid_run r;
    (void)user;
    pbd_status st = rigid_run_open(ctx, name, heavy(substeps, iterations), &r);
    if (st != PBD_OK) return st;
    int c_gap = pbd_h5log_column_described(r.rl.log, "joint_gap", 1, "m",
                                           "the largest |p1 - p2| of a joint");
    double gap = 0.0;
    for (int k = 0; k < 120 && st == PBD_OK; k++) {
        if ((st = rigid_run_step(ctx, &r)) != PBD_OK) break;
        double g = joint_gap(r.w);
        pbd_h5log_set1(r.rl.log, c_gap, g); /* logged with the next step's row */
        gap = fmax(gap, g);
    }
    char text[256];
    snprintf(text, sizeof text, "100 kg on 0.1 kg links, %d substeps: largest joint gap %.3g m "
             "over 2 s", substeps, gap);
    if (st == PBD_OK) st = pbd_h5log_attr_double(r.rl.log, "result.joint_gap", gap);
    return rigid_run_close(ctx, &r, st, text);
}

static int run(pbd_exp_ctx *ctx)
{
    static int pyramid = 1;
    int st = rigid_each_pair(ctx, "pairs", P.pairs, "stack_", run_rest, NULL);
    if (st == PBD_OK) st = rigid_each_pair(ctx, "pairs", P.pairs, "pyramid_", run_rest, &pyramid);
    return st != PBD_OK ? st : rigid_each_substeps(ctx, "substeps", P.substeps, "heavy_",
                                                   run_heavy, NULL);
}

static int summarize(pbd_exp_ctx *ctx)
{
    const char *ra[] = {"rigid.substeps", "rigid.iterations", "result.drift", "result.jitter"};
    const char *ha[] = {"rigid.substeps", "result.joint_gap"};
    double *stack, *pyr, *hv;
    int ns = rigid_rows(ctx, "stack", ra, 4, 2, &stack);
    int np = rigid_rows(ctx, "pyramid", ra, 4, 2, &pyr);
    int nh = rigid_rows(ctx, "heavy", ha, 2, 1, &hv);
    pbd_exp_summary *s = ns < 0 || np < 0 || nh < 0 ? NULL : pbd_exp_summary_open(ctx);
    if (!s) {
        free(stack);
        free(pyr);
        free(hv);
        return PBD_EIO;
    }
    const char *rc[] = {"substeps", "iterations", "drift", "jitter"};
    const char *hc[] = {"substeps", "joint_gap"};
    pbd_exp_summary_table(s, "stack", stack, ns, 4, rc, "1 1 m m/s");
    pbd_exp_summary_table(s, "pyramid", pyr, np, 4, rc, "1 1 m m/s");
    pbd_exp_summary_table(s, "heavy", hv, nh, 2, hc, "1 m");
    char text[1400] = "at rest (exact: 0), drift / jitter: stack of 5";
    for (int k = 0; k < 2; k++) {
        const double *t = k ? pyr : stack;
        int n = k ? np : ns;
        if (k) strncat(text, "; pyramid of 10", sizeof text - strlen(text) - 1);
        for (int i = 0; i < n; i++) {
            char part[96];
            snprintf(part, sizeof part, "%s %.2g m / %.2g m/s at %gx%g", i ? "," : "",
                     t[4 * i + 2], t[4 * i + 3], t[4 * i], t[4 * i + 1]);
            strncat(text, part, sizeof text - strlen(text) - 1);
        }
    }
    strncat(text, "; 100 kg on 0.1 kg links, largest joint gap:", sizeof text - strlen(text) - 1);
    for (int i = 0; i < nh; i++) {
        char part[64];
        snprintf(part, sizeof part, "%s %.2g m at %g substeps", i ? "," : "", hv[2 * i + 1],
                 hv[2 * i]);
        strncat(text, part, sizeof text - strlen(text) - 1);
    }
    if (ns > 0) pbd_exp_summary_double(s, "headline.stack_drift", stack[2]);
    if (nh > 0) pbd_exp_summary_double(s, "headline.joint_gap", hv[2 * (nh - 1) + 1]);
    free(stack);
    free(pyr);
    free(hv);
    return pbd_exp_summary_finish(s, "%s", text);
}

const pbd_experiment pbd_exp_rigid_stack = {
    .name = "rigid_stack",
    .description = "XPBD rigid bodies (Mueller et al. 2020): a stack and a pyramid of boxes at "
                   "rest for 10 s (drift, jitter vs substeps x iterations) and a heavy box on a "
                   "chain of light links (mass ratio 1000: joint gap vs substeps)",
    .paper = "stable stacks and large mass ratios with substeps (Sec. 5, Fig. 1, 8)",
    .timing = 0,
    .options = options,
    .run = run,
    .summarize = summarize,
};
