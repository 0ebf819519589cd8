/* contact — PBD Sec. 3.4's contacts (with the velocity update's Coulomb friction and
 * restitution, solver/collision/collision_hooks.c), Sec. 4.2's two-way coupling and
 * Sec. 4.3's self collision on the contact scenes, each against a closed form or a
 * conservation law, over substeps and iterations (dt = 1/rate; g = 9.81 m/s²):
 *   slide:    cloth_ground_slide (4 × 4, 1 kg, one block) launched at v0 = 2 m/s on flat
 *             ground, μk = 0.3 (μs = 0.5): it stops after v0²/(2 μk g);
 *   ramp:     released on a slope tan θ = 1.1 μs (μk = 0.4): ½ g (sin θ − μk cos θ) t² after
 *             t = 1 s;
 *   tilt:     the same at tan θ = ratio × μs, 4 substeps × 4 iterations: 0 below ratio 1 (it
 *             sticks), ½ g (sin θ − μk cos θ) t² above;
 *   bounce:   dropped from 1 m with e = 0.6, no friction: each apex over the one before is
 *             e² (the apex y + v_y²/(2g) from the state one step after the bounce, in flight);
 *   rest:     the 8 × 8 cloth resting on the ground; the penetration after the last step's
 *             solve. Gauss–Seidel (contacts projected last): 0. Jacobi (averaging, ω): every
 *             substep the prediction sinks a particle by g h² and each of the k sweeps lifts
 *             it by ω/n of its depth (n its rows: edges + contact), d_j+1 = (d_j + g h²) r^k
 *             with r = 1 − ω/n, so after N substeps from d_0 = 0 (largest n: the interior)
 *             d_N = g h² r^k (1 − r^kN)/(1 − r^k), settling at g h² r^k/(1 − r^k);
 *   fold:     cloth_fold (12², 1.5 s) with self collision on (claim: 0 vertex–triangle
 *             crossings over the run) and off (the count);
 *   coupling: rigid_coupling with the corners free, gravity off, a box or a sphere thrown at
 *             3 m/s into the cloth: Σ m v + Σ M V stays M V0 across the impact (0.25 s).
 * Runs: slide|ramp|bounce_s<S>_it<I>, tilt_<100 ratio>, rest_gs|jacobi_s<S>_it<I>,
 * fold_on|off_s<S>_it<I>, coupling_box|sphere_s<S>. Each run: result.measured,
 * result.expected and result.error (relative where the closed form is not 0, else absolute:
 * result.error_kind), the series `measured` and `velocity` (along the case's axis). */
#include "pbd_drivers.h"
#include "solver/collision/pbd_collision.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 16
#define BOUNCES 3
#define G 9.81 /* |g| of pbd_solver_def_default, m/s^2 */
enum { C_SLIDE, C_BOUNCE, C_RAMP, C_TILT, C_REST, C_FOLD, C_COUPLING, N_CASES };
static const char *const case_words[] = {"slide", "bounce", "ramp", "tilt", "rest", "fold",
                                         "coupling", NULL};

static struct {
    const char *substeps, *iterations, *cases, *tilts, *rest_substeps, *fold_substeps,
        *coupling_substeps;
    double rate;
    int fold_resolution;
} P;

static int options(cli_option *out, int quick)
{
    P.substeps = quick ? "1,4" : "1,2,4,8,16,32";
    P.iterations = quick ? "1,10" : "1,4,16,64";
    P.cases = "slide,bounce,ramp,tilt,rest,fold,coupling";
    P.tilts = quick ? "0.9,1.1" : "0.5,0.8,0.9,0.95,1.05,1.1,1.2,1.5";
    P.rest_substeps = quick ? "1,4" : "1,4,16";
    P.fold_substeps = quick ? "1" : "1,4";
    P.coupling_substeps = quick ? "4" : "1,4,16";
    P.rate = 60.0;
    P.fold_resolution = quick ? 8 : 12;
    const cli_option rows[] = {
        {"substeps", CLI_STRING, &P.substeps, 0, 0, 0,
         "slide, ramp, bounce: substeps per step (list)", NULL},
        {"iterations", CLI_STRING, &P.iterations, 0, 0, 0,
         "iterations per substep (list; slide, ramp, bounce: the fewest and the most, a block "
         "is met in one sweep; fold: all but the fewest)", NULL},
        {"rest-substeps", CLI_STRING, &P.rest_substeps, 0, 0, 0, "rest: substeps (list)", NULL},
        {"fold-substeps", CLI_STRING, &P.fold_substeps, 0, 0, 0, "fold: substeps (list)", NULL},
        {"coupling-substeps", CLI_STRING, &P.coupling_substeps, 0, 0, 0,
         "coupling: substeps (list; 10 iterations)", NULL},
        {"cases", CLI_STRING, &P.cases, 0, 0, 0,
         "slide, bounce, ramp, tilt, rest, fold, coupling (list)", NULL},
        {"tilts", CLI_STRING, &P.tilts, 0, 0, 0, "tilt: tan(theta)/mu_s of each run (list)",
         NULL},
        {"rate", CLI_DOUBLE, &P.rate, 0, 1e7, 1, "steps per second", NULL},
        {"fold-resolution", CLI_INT, &P.fold_resolution, 0, 64, 0,
         "fold: vertices per side of the cloth", NULL},
    };
    int n = (int)(sizeof rows / sizeof rows[0]);
    for (int i = 0; i < n; i++) out[i] = rows[i];
    return n;
}

/* One run: its case and settings, the scene, the closed form. */
typedef struct contact_run {
    int which, substeps, iterations, variant; /* variant: scheme, self collision, body */
    double tilt;                              /* tan θ/μs (tilt) */
    pbd_scene_params sp;
    pbd_world *(*build)(const pbd_scene_params *);
    double duration, expected; /* s; the closed form (m, 1 or a count) */
} contact_run;

static double ramp_slide(const pbd_scene_params *sp, double t)
{
    const double th = sp->ramp_angle * M_PI / 180.0;
    return 0.5 * G * (sin(th) - sp->mu_kinetic * cos(th)) * t * t;
}

/* The scene and duration of a run; the closed forms that need the built world (rest) are
 * set in run_one. */
static void setup(contact_run *r)
{
    pbd_scene_params *sp = &r->sp;
    *sp = pbd_scene_params_default();
    sp->resolution = 4;
    sp->launch_speed = 0.0;
    r->build = pbd_scene_cloth_ground_slide;
    r->duration = 1.0;
    switch (r->which) {
    case C_SLIDE:
        sp->launch_speed = 2.0;
        sp->mu_static = 0.5;
        sp->mu_kinetic = 0.3;
        r->expected = sp->launch_speed * sp->launch_speed / (2.0 * sp->mu_kinetic * G);
        break;
    case C_BOUNCE:
        sp->drop_height = 1.0;
        sp->mu_static = sp->mu_kinetic = 0.0;
        sp->restitution = 0.6;
        r->expected = sp->restitution * sp->restitution; /* each apex over the last */
        r->duration = 2.0;
        break;
    case C_RAMP:
    case C_TILT:
        sp->mu_static = 0.5;
        sp->mu_kinetic = 0.4;
        sp->ramp_angle = atan((r->which == C_RAMP ? 1.1 : r->tilt) * sp->mu_static) * 180.0 / M_PI;
        r->expected = r->which == C_TILT && r->tilt < 1.0 ? 0.0 : ramp_slide(sp, r->duration);
        break;
    case C_REST:
        sp->resolution = 8;
        break;
    case C_FOLD:
        sp->resolution = P.fold_resolution;
        sp->self_collision = r->variant;
        r->build = pbd_scene_cloth_fold;
        r->duration = 1.5;
        r->expected = r->variant ? 0.0 : NAN; /* no claim without self collision */
        break;
    default: /* C_COUPLING */
        sp->resolution = 9; /* a vertex under the body's centre */
        sp->pin_corners = 0;
        sp->body = r->variant;
        sp->body_size = 0.15;
        sp->body_speed = 3.0;
        sp->body_mass = 1.0;
        r->build = pbd_scene_rigid_coupling;
        r->duration = 0.25;
        r->expected = 0.0;
    }
}

/* Most rows on one free particle: its distance rows and one contact. */
static int most_rows(const pbd_world *w)
{
    int *n = calloc((size_t)w->n, sizeof *n), most = 0;
    if (!n) return 0;
    for (int s = 0; s < w->n_sets; s++)
        for (int c = 0; c < w->sets[s].count; c++)
            for (int j = 0; j < w->sets[s].arity; j++) {
                int i = w->sets[s].idx[(size_t)c * w->sets[s].arity + j];
                if (w->w[i] > 0.0 && ++n[i] > most) most = n[i];
            }
    free(n);
    return most + 1;
}

/* The Jacobi rest depth after N substeps, g h² r^k (1 − r^kN)/(1 − r^k), r = 1 − ω/n (the
 * file's comment). */
static double jacobi_rest_depth(double g, double h, double omega, int n, int k, long N)
{
    const double rk = pow(1.0 - omega / n, k);
    return g * h * h * rk * (1.0 - pow(rk, (double)N)) / (1.0 - rk);
}

static double mean_axis(const pbd_world *w, const double *a, const double t[3])
{
    double s = 0.0;
    int n = 0;
    for (int i = 0; i < w->n; i++) {
        if (w->w[i] <= 0.0) continue;
        s += a[3 * i] * t[0] + a[3 * i + 1] * t[1] + a[3 * i + 2] * t[2];
        n++;
    }
    return s / n;
}

/* The bounce's apexes: after the velocity along +y turns positive (the bounce), the apex is
 * y + v_y²/(2g) of the next step's state; then wait for the fall. */
typedef struct bounce_state {
    int phase, count; /* 0 falling, 1 bounced this step, 2 rising */
    double apex[BOUNCES];
} bounce_state;

static void bounce_track(bounce_state *b, double y, double vy)
{
    if (b->phase == 1 && b->count < BOUNCES) {
        b->apex[b->count++] = y + (vy > 0.0 ? vy * vy / (2.0 * G) : 0.0);
        b->phase = 2;
    } else if (b->phase == 0 && vy > 0.0) {
        b->phase = 1;
    } else if (b->phase == 2 && vy < 0.0) {
        b->phase = 0;
    }
}

static int run_one(pbd_exp_ctx *ctx, const char *name, contact_run *r)
{
    setup(r);
    pbd_world *w = r->build(&r->sp);
    if (!w) return pbd_error(PBD_EINVAL, "contact: %s", pbd_last_error());
    const pbd_scene_params *sp = &r->sp;
    w->def.dt = 1.0 / P.rate;
    w->def.substeps = r->substeps;
    w->def.iterations = r->iterations;
    if (r->which == C_REST && r->variant) w->def.scheme = PBD_SCHEME_JACOBI;
    if (r->which == C_COUPLING) w->def.gravity[1] = 0.0;
    const double h = w->def.dt / r->substeps, g = -w->def.gravity[1];
    const int steps = (int)ceil(r->duration * P.rate - 1e-9);
    if (r->which == C_REST)
        r->expected = r->variant ? jacobi_rest_depth(g, h, w->def.sor_omega, most_rows(w),
                                                     r->iterations, (long)steps * r->substeps)
                                 : 0.0;
    pbd_h5log *log = pbd_exp_log_open(ctx, name, w, NULL);
    if (!log) {
        pbd_world_free(w);
        return PBD_EIO;
    }
    pbd_h5log_scene_params(log, sp);
    pbd_h5log_attr_string(log, "case", case_words[r->which]);
    /* rest: 1 Jacobi, 0 Gauss-Seidel; fold: self collision; coupling: 0 box, 1 sphere */
    pbd_h5log_attr_double(log, "variant", r->variant);
    if (r->which == C_TILT) pbd_h5log_attr_double(log, "tilt", r->tilt);
    int c_m = pbd_h5log_column(log, "measured", 1, r->which == C_COUPLING ? "kg m/s" : "m");
    int c_v = pbd_h5log_column(log, "velocity", 1, "m/s");
    const double th = sp->ramp_angle * M_PI / 180.0;
    const double along[3] = {cos(th), -sin(th), 0.0}, up[3] = {0.0, 1.0, 0.0};
    const double *axis = r->which == C_BOUNCE || r->which == C_COUPLING ? up : along;
    const double start = r->which == C_BOUNCE ? 0.0 : mean_axis(w, w->x, axis); /* bounce: y */
    double lin0[3], ang[3];
    pbd_world_total_momentum(w, lin0, ang);
    bounce_state bs = {0};
    double measured = 0.0, drift = 0.0;
    long crossings = 0;
    pbd_status st = PBD_OK;
    for (int s = 1; s <= steps && st == PBD_OK; s++) {
        if ((st = pbd_step(w)) != PBD_OK) break;
        const double y = mean_axis(w, w->x, axis), v = mean_axis(w, w->v, axis);
        pbd_contact_stats cst = pbd_world_contact_stats(w);
        double lin[3];
        pbd_world_total_momentum(w, lin, ang);
        for (int k = 0; k < 3; k++) drift = fmax(drift, fabs(lin[k] - lin0[k]));
        if (r->which == C_BOUNCE) bounce_track(&bs, y, v);
        crossings += cst.self_crossings > 0 ? cst.self_crossings : 0;
        /* coupling: the body's momentum along y (the cloth's is lin - it) */
        double logged = y - start;
        if (r->which == C_COUPLING) {
            pbd_rigid_state b;
            pbd_world_rigid_get(w, 0, &b);
            logged = pbd_world_rigid_mass(w, 0) * b.v[1];
        }
        pbd_h5log_set1(log, c_m, logged);
        pbd_h5log_set1(log, c_v, v);
        if (r->which == C_SLIDE || r->which == C_RAMP || r->which == C_TILT) measured = y - start;
        if (r->which == C_REST) measured = cst.penetration_max;
        st = pbd_h5log_step(log, w);
        pbd_exp_progress(ctx, s, steps);
    }
    if (r->which == C_FOLD) measured = (double)crossings;
    if (r->which == C_COUPLING) measured = drift / fabs(sp->body_mass * sp->body_speed);
    if (r->which == C_BOUNCE) { /* the apex ratio farthest from e² */
        double last = sp->drop_height, worst = 0.0;
        measured = NAN;
        for (int k = 0; k < bs.count; k++) {
            char key[32];
            double ratio = bs.apex[k] / last;
            snprintf(key, sizeof key, "result.apex_%d", k + 1);
            pbd_h5log_attr_double(log, key, bs.apex[k]);
            snprintf(key, sizeof key, "result.ratio_%d", k + 1);
            pbd_h5log_attr_double(log, key, ratio);
            if (!(fabs(ratio - r->expected) <= worst)) {
                worst = fabs(ratio - r->expected);
                measured = ratio;
            }
            last = bs.apex[k];
        }
        pbd_h5log_attr_double(log, "result.bounces", bs.count);
        if (bs.count < BOUNCES) measured = NAN; /* fewer bounces than the claim needs */
    }
    if (st == PBD_OK) {
        const int relative = r->expected != 0.0 && isfinite(r->expected);
        double err = relative ? fabs(measured - r->expected) / fabs(r->expected)
                              : fabs(measured - (isfinite(r->expected) ? r->expected : 0.0));
        if (!isfinite(r->expected)) err = NAN;
        pbd_h5log_attr_double(log, "result.measured", measured);
        pbd_h5log_attr_double(log, "result.expected", r->expected);
        pbd_h5log_attr_double(log, "result.error", err);
        pbd_h5log_attr_string(log, "result.error_kind", relative ? "relative" : "absolute");
        st = pbd_exp_log_finish(ctx, log, "%s: measured %.6g, closed form %.6g, %s error "
                                "%.2e", case_words[r->which], measured, r->expected,
                                relative ? "relative" : "absolute", err);
    } else {
        pbd_exp_log_abort(ctx, log, st);
    }
    pbd_world_free(w);
    return st;
}

static int want_run(pbd_exp_ctx *ctx, contact_run *r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int want_run(pbd_exp_ctx *ctx, contact_run *r, const char *fmt, ...)
{
    char name[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    if (!pbd_exp_want(ctx, name)) return PBD_OK;
    return run_one(ctx, name, r);
}

static int run(pbd_exp_ctx *ctx)
{
    double subs[MAX_LIST], its[MAX_LIST], tilts[MAX_LIST], rest_s[MAX_LIST], fold_s[MAX_LIST],
        coup_s[MAX_LIST];
    int cases[N_CASES];
    static const char *const schemes[] = {"gs", "jacobi"}, *const onoff[] = {"off", "on"};
    int n_s = pbd_exp_numbers(ctx, "substeps", P.substeps, subs, MAX_LIST, 1, 1e4);
    int n_i = pbd_exp_numbers(ctx, "iterations", P.iterations, its, MAX_LIST, 1, 1e4);
    int n_t = pbd_exp_numbers(ctx, "tilts", P.tilts, tilts, MAX_LIST, 0.01, 2.0);
    int n_rs = pbd_exp_numbers(ctx, "rest-substeps", P.rest_substeps, rest_s, MAX_LIST, 1, 1e4);
    int n_fs = pbd_exp_numbers(ctx, "fold-substeps", P.fold_substeps, fold_s, MAX_LIST, 1, 1e4);
    int n_cs = pbd_exp_numbers(ctx, "coupling-substeps", P.coupling_substeps, coup_s, MAX_LIST,
                               1, 1e4);
    int n_c = pbd_exp_words(ctx, "cases", P.cases, case_words, cases, N_CASES);
    if (n_s < 0 || n_i < 0 || n_t < 0 || n_rs < 0 || n_fs < 0 || n_cs < 0 || n_c < 0)
        return PBD_EINVAL;
    int st = PBD_OK;
    for (int c = 0; c < n_c && st == PBD_OK; c++) {
        const int which = cases[c];
        contact_run r = {.which = which, .substeps = 4, .iterations = 4};
        if (which == C_TILT) {
            for (int t = 0; t < n_t && st == PBD_OK; t++) {
                r.tilt = tilts[t];
                st = want_run(ctx, &r, "tilt_%d", (int)lround(100.0 * tilts[t]));
            }
            continue;
        }
        if (which == C_COUPLING) {
            for (int b = 0; b < 2 && st == PBD_OK; b++)
                for (int s = 0; s < n_cs && st == PBD_OK; s++) {
                    r.variant = b;
                    r.substeps = (int)coup_s[s];
                    r.iterations = 10;
                    st = want_run(ctx, &r, "coupling_%s_s%d", pbd_body_names[b], r.substeps);
                }
            continue;
        }
        const double *sl = which == C_REST ? rest_s : which == C_FOLD ? fold_s : subs;
        const int n_sl = which == C_REST ? n_rs : which == C_FOLD ? n_fs : n_s;
        for (int v = 0; v < (which == C_REST || which == C_FOLD ? 2 : 1); v++)
            for (int s = 0; s < n_sl && st == PBD_OK; s++)
                for (int i = 0; i < n_i && st == PBD_OK; i++) {
                    const int friction = which == C_SLIDE || which == C_RAMP || which == C_BOUNCE;
                    if (friction && i != 0 && i != n_i - 1) continue; /* a block: one sweep */
                    if (which == C_FOLD && n_i > 1 && i == 0) continue;
                    r.variant = v;
                    r.substeps = (int)sl[s];
                    r.iterations = (int)its[i];
                    if (which == C_REST)
                        st = want_run(ctx, &r, "rest_%s_s%d_it%d", schemes[v], r.substeps,
                                      r.iterations);
                    else if (which == C_FOLD)
                        st = want_run(ctx, &r, "fold_%s_s%d_it%d", onoff[v], r.substeps,
                                      r.iterations);
                    else
                        st = want_run(ctx, &r, "%s_s%d_it%d", case_words[which], r.substeps,
                                      r.iterations);
                }
    }
    return st;
}

/* One run's file as a row: case, variant, substeps, iterations, h (s), tilt, measured,
 * expected, error, then the bounce's apexes and ratios. */
enum { R_CASE, R_VAR, R_SUB, R_IT, R_H, R_TILT, R_MEAS, R_EXP, R_ERR, R_APEX, R_RATIO = R_APEX + BOUNCES,
       R_W = R_RATIO + BOUNCES };

static int read_run(const char *path, double *r)
{
    char word[16], key[32];
    double dt;
    if (pbd_h5_read_attr_string(path, "case", word, sizeof word) ||
        pbd_h5_read_attr_double(path, "variant", &r[R_VAR]) ||
        pbd_h5_read_attr_double(path, "solver.substeps", &r[R_SUB]) ||
        pbd_h5_read_attr_double(path, "solver.iterations", &r[R_IT]) ||
        pbd_h5_read_attr_double(path, "solver.dt", &dt) ||
        pbd_h5_read_attr_double(path, "result.measured", &r[R_MEAS]) ||
        pbd_h5_read_attr_double(path, "result.expected", &r[R_EXP]) ||
        pbd_h5_read_attr_double(path, "result.error", &r[R_ERR]))
        return -1;
    r[R_CASE] = -1;
    for (int k = 0; case_words[k]; k++)
        if (strcmp(word, case_words[k]) == 0) r[R_CASE] = k;
    r[R_H] = dt / r[R_SUB];
    if (pbd_h5_read_attr_double(path, "tilt", &r[R_TILT])) r[R_TILT] = NAN;
    for (int k = 0; k < BOUNCES; k++) {
        snprintf(key, sizeof key, "result.apex_%d", k + 1);
        if (pbd_h5_read_attr_double(path, key, &r[R_APEX + k])) r[R_APEX + k] = NAN;
        snprintf(key, sizeof key, "result.ratio_%d", k + 1);
        if (pbd_h5_read_attr_double(path, key, &r[R_RATIO + k])) r[R_RATIO + k] = NAN;
    }
    return r[R_CASE] < 0 ? -1 : 0;
}

/* A table of the rows of one case: the columns `take` (indices into a row, -1: the bounce
 * number) of every row with r[R_CASE] == which (one row per bounce when `per_bounce`). */
static pbd_status case_table(pbd_exp_summary *s, const double *rows, int n, int which,
                             const char *name, const int *take, int n_take,
                             const char *const *cols, const char *units, int per_bounce)
{
    double *t = calloc((size_t)(n * BOUNCES + 1) * (size_t)n_take, sizeof *t);
    if (!t) return PBD_ENOMEM;
    int m = 0;
    for (int k = 0; k < n; k++) {
        const double *r = rows + R_W * k;
        if (r[R_CASE] != which) continue;
        for (int b = 0; b < (per_bounce ? BOUNCES : 1); b++, m++)
            for (int c = 0; c < n_take; c++)
                t[n_take * m + c] = take[c] < 0 ? b + 1 : r[take[c] + (take[c] >= R_APEX ? b : 0)];
    }
    pbd_status st = pbd_exp_summary_table(s, name, t, m, n_take, cols, units);
    free(t);
    return st;
}

/* The largest value of column col over the rows of a case with variant v (-1: any) and
 * r[R_SUB] == sub (0: any), or NAN; *at the row. */
static double case_max(const double *rows, int n, int which, int v, double sub, int col, int *at)
{
    double best = NAN;
    for (int k = 0; k < n; k++) {
        const double *r = rows + R_W * k;
        if (r[R_CASE] != which || (v >= 0 && r[R_VAR] != v) || (sub > 0 && r[R_SUB] != sub))
            continue;
        if (isnan(best) || r[col] > best) {
            best = r[col];
            if (at) *at = k;
        }
    }
    return best;
}

/* The error of a friction case at the fewest and the most substeps (most iterations) and the
 * observed order log(e1/e2)/log(s2/s1). */
static void friction_order(const double *rows, int n, int which, double *e_lo, double *e_hi,
                           double *s_lo, double *s_hi, double *order)
{
    int lo = -1, hi = -1;
    for (int k = 0; k < n; k++) {
        const double *r = rows + R_W * k, *a = rows + R_W * lo, *b = rows + R_W * hi;
        if (r[R_CASE] != which) continue;
        if (lo < 0 || r[R_SUB] < a[R_SUB] || (r[R_SUB] == a[R_SUB] && r[R_IT] > a[R_IT])) lo = k;
        if (hi < 0 || r[R_SUB] > b[R_SUB] || (r[R_SUB] == b[R_SUB] && r[R_IT] > b[R_IT])) hi = k;
    }
    *e_lo = *e_hi = *s_lo = *s_hi = *order = NAN;
    if (lo < 0) return;
    const double *a = rows + R_W * lo, *b = rows + R_W * hi;
    *e_lo = a[R_ERR], *e_hi = b[R_ERR], *s_lo = a[R_SUB], *s_hi = b[R_SUB];
    if (b[R_SUB] > a[R_SUB] && a[R_ERR] > 0 && b[R_ERR] > 0)
        *order = log(a[R_ERR] / b[R_ERR]) / log(b[R_SUB] / a[R_SUB]);
}

static void append(char *text, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void append(char *text, size_t size, const char *fmt, ...)
{
    size_t len = strlen(text);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text + len, size - len, fmt, ap);
    va_end(ap);
}

static int summarize(pbd_exp_ctx *ctx)
{
    double *rows = calloc((size_t)ctx->n_runs * R_W + R_W, sizeof *rows);
    if (!rows) return PBD_ENOMEM;
    int n = 0;
    for (int i = 0; i < ctx->n_runs; i++) {
        char path[4096];
        pbd_exp_run_path(ctx, ctx->runs[i], path, sizeof path);
        if (read_run(path, rows + R_W * n) == 0) n++;
    }
    pbd_exp_sort_rows(rows, n, R_W, 6);
    pbd_exp_summary *s = pbd_exp_summary_open(ctx);
    if (!s) {
        free(rows);
        return PBD_EIO;
    }
    static const char *const c_err[] = {"case", "substeps", "iterations", "h", "error"};
    static const char *const c_tilt[] = {"tan_theta_over_mu_s", "measured", "expected"};
    static const char *const c_bounce[] = {"substeps", "iterations", "bounce", "apex", "ratio",
                                           "e2"};
    static const char *const c_pen[] = {"jacobi", "substeps", "iterations", "h", "measured",
                                        "expected"};
    static const char *const c_fold[] = {"self_collision", "substeps", "iterations",
                                         "crossings"};
    static const char *const c_coup[] = {"sphere", "substeps", "drift"};
    const int t_err[] = {R_CASE, R_SUB, R_IT, R_H, R_ERR}, t_tilt[] = {R_TILT, R_MEAS, R_EXP};
    const int t_bounce[] = {R_SUB, R_IT, -1, R_APEX, R_RATIO, R_EXP};
    const int t_pen[] = {R_VAR, R_SUB, R_IT, R_H, R_MEAS, R_EXP};
    const int t_fold[] = {R_VAR, R_SUB, R_IT, R_MEAS}, t_coup[] = {R_VAR, R_SUB, R_MEAS};
    /* errors: slide, bounce, ramp in one table (case 0, 1, 2), as contact_error draws them */
    double *e = calloc((size_t)n * 5 + 5, sizeof *e);
    int m = 0;
    for (int k = 0; e && k < n; k++)
        if (rows[R_W * k + R_CASE] <= C_RAMP) {
            for (int c = 0; c < 5; c++) e[5 * m + c] = rows[R_W * k + t_err[c]];
            m++;
        }
    pbd_status st = e ? pbd_exp_summary_table(s, "errors", e, m, 5, c_err, "1 1 1 s 1")
                      : PBD_ENOMEM;
    free(e);
    if (st == PBD_OK)
        st = case_table(s, rows, n, C_TILT, "tilt", t_tilt, 3, c_tilt, "1 m m", 0);
    if (st == PBD_OK)
        st = case_table(s, rows, n, C_BOUNCE, "bounces", t_bounce, 6, c_bounce, "1 1 1 m 1 1", 1);
    if (st == PBD_OK)
        st = case_table(s, rows, n, C_REST, "penetration", t_pen, 6, c_pen, "1 1 1 s m m", 0);
    if (st == PBD_OK)
        st = case_table(s, rows, n, C_FOLD, "self_collision", t_fold, 4, c_fold, "1 1 1 1", 0);
    if (st == PBD_OK)
        st = case_table(s, rows, n, C_COUPLING, "coupling", t_coup, 3, c_coup, "1 1 1", 0);
    if (st != PBD_OK) {
        free(rows);
        pbd_exp_summary_finish(s, "contact: could not write the tables");
        return st;
    }
    char text[2048] = "";
    /* friction and restitution: relative error at the fewest -> most substeps, the order */
    for (int c = C_SLIDE; c <= C_RAMP; c++) {
        double a, b, sa, sb, order;
        friction_order(rows, n, c, &a, &b, &sa, &sb, &order);
        if (isnan(a)) continue;
        append(text, sizeof text, "%s%s rel. error %.1e (%g substeps) -> %.1e (%g), order %.2f",
               *text ? "; " : "", case_words[c], a, sa, b, sb, order);
        char key[64];
        snprintf(key, sizeof key, "headline.%s_rel_error", case_words[c]);
        pbd_exp_summary_double(s, key, b);
        snprintf(key, sizeof key, "headline.%s_order", case_words[c]);
        pbd_exp_summary_double(s, key, order);
    }
    /* tilt: the largest travel of the runs below μs, the largest relative error above */
    double stuck = NAN, slid_err = NAN, below = NAN, above = NAN;
    for (int k = 0; k < n; k++) {
        const double *r = rows + R_W * k;
        if (r[R_CASE] != C_TILT) continue;
        if (r[R_TILT] < 1.0) {
            stuck = isnan(stuck) ? fabs(r[R_MEAS]) : fmax(stuck, fabs(r[R_MEAS]));
            below = isnan(below) ? r[R_TILT] : fmax(below, r[R_TILT]);
        } else {
            slid_err = isnan(slid_err) ? r[R_ERR] : fmax(slid_err, r[R_ERR]);
            above = isnan(above) ? r[R_TILT] : fmin(above, r[R_TILT]);
        }
    }
    if (!isnan(stuck) || !isnan(slid_err)) {
        append(text, sizeof text, "; ramp at tan(theta) <= %.2f mu_s moved at most %.1e m, at "
               ">= %.2f mu_s slid within %.1e of 1/2 g (sin - mu_k cos) t^2", below, stuck,
               above, slid_err);
        pbd_exp_summary_double(s, "headline.tilt_stuck_travel", stuck);
        pbd_exp_summary_double(s, "headline.tilt_slide_rel_error", slid_err);
    }
    /* rest: Gauss-Seidel's largest depth, Jacobi's largest relative error */
    double gs = case_max(rows, n, C_REST, 0, 0, R_MEAS, NULL);
    double jac = case_max(rows, n, C_REST, 1, 0, R_ERR, NULL);
    if (!isnan(gs) || !isnan(jac)) {
        append(text, sizeof text, "; resting cloth's penetration: Gauss-Seidel at most %.1e m, "
               "Jacobi within %.1e of g h^2 r^k (1 - r^kN)/(1 - r^k)", gs, jac);
        pbd_exp_summary_double(s, "headline.penetration_gs_max", gs);
        pbd_exp_summary_double(s, "headline.penetration_jacobi_rel_error", jac);
    }
    /* fold: the most crossings with self collision, the fewest without */
    double on = case_max(rows, n, C_FOLD, 1, 0, R_MEAS, NULL);
    double off = -case_max(rows, n, C_FOLD, 0, 0, R_MEAS, NULL);
    for (int k = 0; k < n; k++)
        if (rows[R_W * k + R_CASE] == C_FOLD && rows[R_W * k + R_VAR] == 0)
            off = isnan(off) || off < 0 ? rows[R_W * k + R_MEAS] : fmin(off, rows[R_W * k + R_MEAS]);
    if (!isnan(on)) {
        append(text, sizeof text, "; cloth_fold crossings over the run: at most %g with self "
               "collision, at least %g without", on, off);
        pbd_exp_summary_double(s, "headline.fold_crossings_on_max", on);
        pbd_exp_summary_double(s, "headline.fold_crossings_off_min", off);
    }
    /* coupling: the largest momentum drift per body */
    for (int b = 0; b < 2; b++) {
        double d = case_max(rows, n, C_COUPLING, b, 0, R_MEAS, NULL);
        if (isnan(d)) continue;
        append(text, sizeof text, "%s momentum drift (rigid %s) at most %.1e of M V0",
               b ? "," : "; cloth + body", pbd_body_names[b], d);
        char key[64];
        snprintf(key, sizeof key, "headline.coupling_drift_%s", pbd_body_names[b]);
        pbd_exp_summary_double(s, key, d);
    }
    /* the bounce's worst apex ratio at the most substeps */
    int at = -1;
    double most = case_max(rows, n, C_BOUNCE, -1, 0, R_SUB, NULL);
    double bounce = case_max(rows, n, C_BOUNCE, -1, most, R_ERR, &at);
    if (at >= 0) pbd_exp_summary_double(s, "headline.bounce_ratio_rel_error", bounce);
    free(rows);
    return pbd_exp_summary_finish(s, "contact: %s", text);
}

const pbd_experiment pbd_exp_contact = {
    .name = "contact",
    .description = "contacts on the contact scenes against closed forms and conservation "
                   "laws, vs substeps and iterations: Coulomb friction (slide v0^2/(2 mu_k "
                   "g), ramp 1/2 g (sin - mu_k cos) t^2, sticking below tan theta = mu_s), "
                   "restitution (apex ratio e^2 per bounce), penetration of a resting cloth "
                   "(Gauss-Seidel 0, Jacobi g h^2 r^k (1 - r^kN)/(1 - r^k)), self-collision "
                   "crossings of cloth_fold (on: 0, off: the count), momentum of cloth + "
                   "rigid body across an impact without gravity",
    .paper = "PBD (Mueller et al. 2006) gives no numbers for contact. Sec. 3.4: collision "
             "constraints are inequalities with k = 1, friction and restitution act on the "
             "velocities in the velocity update; Sec. 4.2: a body takes m_i dp_i/dt for each "
             "projection of a vertex against it (momentum exchanged, so conserved); Sec. "
             "4.3: Eq. 12/13 keep a vertex on its side of a triangle by the thickness h "
             "(no crossing), and 'projecting these constraints conserves linear and angular "
             "momentum'",
    .timing = 0,
    .options = options,
    .run = run,
    .summarize = summarize,
};
