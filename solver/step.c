/* The step of every method: one prologue, the method's (sub)steps from the method table
 * (solver/method.h; PBD/XPBD's in solver/xpbd/xpbd_step.c), one epilogue — the watchdogs,
 * the post-step hook, the measure stage. */
#include "pbd.h"
#include "solver_private.h"
#include "variants.h"
#include "solver/method.h"
#include "solver/test_hooks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

const char *const pbd_stage_names[PBD_STAGE_COUNT] = {
    "external_forces", "damp_velocities", "predict",        "generate_collisions",
    "project",         "update",          "velocity_update", "measure",
    "neighbour_search",
};

double pbd_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Threads for the step's per-particle and per-constraint loops: the coloured scheme's, for
 * worlds big enough to pay for the fork (else the serial part of a parallel step would bound
 * its speed-up; experiments/programs/README.md "Performance"). Element by element: the same
 * bits either way. */
#define PBD_PARALLEL_LOOP_MIN 16384
static int loop_threads(const pbd_world *w)
{
    if (w->def.scheme != PBD_SCHEME_COLORED_GS || w->n < PBD_PARALLEL_LOOP_MIN) return 1;
    return pbd_sweep_threads_now(w); /* 1 while the sweeps find one thread faster */
}

/* Per-iteration residual buffers (overall and per set); sized on the first step of a
 * definition and again when sets were added. */
static pbd_status reserve_iteration_log(pbd_world *w)
{
    /* the buffers are only written then (Newton fills them at every iterate) */
    if (!w->def.record_iterations && !pbd_method_of(&w->def)->reference) return PBD_OK;
    int need = pbd_iteration_log_width(&w->def); /* <= 1e8: validated */
    if (need <= w->iter_capacity && w->iter_sets_n == w->n_sets) return PBD_OK;
    if (need < w->iter_capacity) need = w->iter_capacity;
    double *a = realloc(w->iter_max_c, (size_t)need * sizeof *a);
    if (a) w->iter_max_c = a;
    double *b = realloc(w->iter_l2_c, (size_t)need * sizeof *b);
    if (b) w->iter_l2_c = b;
    double *c = realloc(w->iter_xpbd, (size_t)need * sizeof *c);
    if (c) w->iter_xpbd = c;
    size_t per = (size_t)need * (w->n_sets > 0 ? (size_t)w->n_sets : 1) * 3;
    double *d = realloc(w->iter_sets, per * sizeof *d);
    if (d) w->iter_sets = d;
    double *e = realloc(w->iter_newton, (size_t)need * sizeof *e);
    if (e) w->iter_newton = e;
    if (!a || !b || !c || !d || !e)
        return pbd_error(PBD_ENOMEM, "out of memory for the iteration log");
    w->iter_capacity = need;
    w->iter_sets_n = w->n_sets;
    return PBD_OK;
}

static int particle_finite(const pbd_world *w, int i)
{
    const double *x = w->x + 3 * (size_t)i, *v = w->v + 3 * (size_t)i;
    return isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]) && isfinite(v[0]) &&
           isfinite(v[1]) && isfinite(v[2]);
}

/* The divergence watchdog's reference: the scene as the first step finds it. */
static void watch_init(pbd_world *w)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double speed2 = 0.0;
    for (int i = 0; i < w->n; i++) {
        const double *x = w->x + 3 * (size_t)i, *v = w->v + 3 * (size_t)i;
        for (int k = 0; k < 3; k++) {
            if (x[k] < lo[k]) lo[k] = x[k];
            if (x[k] > hi[k]) hi[k] = x[k];
        }
        double s2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        if (s2 > speed2) speed2 = s2;
    }
    double d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        w->watch_centre[k] = w->n > 0 && isfinite(lo[k] + hi[k]) ? 0.5 * (lo[k] + hi[k]) : 0.0;
        if (w->n > 0 && isfinite(hi[k] - lo[k])) d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    w->watch_extent = sqrt(d2);
    w->watch_speed = isfinite(speed2) ? sqrt(speed2) : 0.0;
    w->watch_time0 = w->time;
    w->watch_ready = 1;
}

/* The distance from the initial centre no particle may pass at the current time:
 * watch_position × max(L, 1 m), plus what the fastest initial speed and free fall can
 * carry a particle in the time since (INFINITY when the bound is off). */
static double watch_radius(const pbd_world *w)
{
    const pbd_solver_def *d = &w->def;
    if (d->watch_position <= 0.0) return INFINITY;
    double t = w->time - w->watch_time0;
    double g = sqrt(d->gravity[0] * d->gravity[0] + d->gravity[1] * d->gravity[1] +
                    d->gravity[2] * d->gravity[2]);
    double L = w->watch_extent > 1.0 ? w->watch_extent : 1.0;
    return d->watch_position * L + w->watch_speed * t + 0.5 * g * t * t;
}

static int particle_ok(const pbd_world *w, int i, double r2)
{
    if (!particle_finite(w, i)) return 0;
    const double *x = w->x + 3 * (size_t)i;
    double dx = x[0] - w->watch_centre[0], dy = x[1] - w->watch_centre[1],
           dz = x[2] - w->watch_centre[2];
    return dx * dx + dy * dy + dz * dz <= r2;
}

/* Watchdog: after a step every position, velocity and λ must be finite, and every particle
 * within watch_radius of the scene's centre. When one is not, name the first constraint (in
 * projection order) that holds a non-finite λ or touches the particle, so that the user sees
 * which type and index blew up. */
/* The common case, everything finite and bounded, scanned on the loop threads; the serial
 * search that names the culprit runs only when something is not. */
static int all_ok(const pbd_world *w, int threads, double r2)
{
    long bad = 0;
#pragma omp parallel for num_threads(threads) if (threads > 1) reduction(+ : bad) schedule(static)
    for (int i = 0; i < w->n; i++) bad += !particle_ok(w, i, r2);
    for (int s = 0; s < w->n_sets && bad == 0; s++) {
        const pbd_constraint_set *set = &w->sets[s];
#pragma omp parallel for num_threads(threads) if (threads > 1) reduction(+ : bad) schedule(static)
        for (int c = 0; c < set->count; c++) bad += !isfinite(set->lambda[c]);
    }
    return bad == 0;
}

static pbd_status check_finite(pbd_world *w, int threads)
{
    double r = watch_radius(w), r2 = r * r;
    if (all_ok(w, threads, r2)) return PBD_OK;
    int bad = -1;
    for (int i = 0; i < w->n && bad < 0; i++)
        if (!particle_ok(w, i, r2)) bad = i;
    int runaway = bad >= 0 && particle_finite(w, bad); /* finite but out of bounds */
    char what[200];
    if (runaway)
        snprintf(what, sizeof what, "that diverged: %.3g m from the scene's centre, past the "
                 "watchdog's bound of %.3g m (watch-position %g)",
                 sqrt(pow(w->x[3 * (size_t)bad] - w->watch_centre[0], 2) +
                      pow(w->x[3 * (size_t)bad + 1] - w->watch_centre[1], 2) +
                      pow(w->x[3 * (size_t)bad + 2] - w->watch_centre[2], 2)),
                 r, w->def.watch_position);
    else
        snprintf(what, sizeof what, "with a non-finite position or velocity");
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        for (int c = 0; c < set->count; c++) {
            if (!isfinite(set->lambda[c]) && !runaway)
                return pbd_error(PBD_ENUMERIC,
                                 "step %ld: constraint %s #%d (set %d) has a non-finite lambda",
                                 w->step_count, set->type->name, c, s);
            if (bad < 0) continue;
            for (int j = 0; j < set->arity - set->type->n_orient; j++) /* particles only */
                if (set->idx[(size_t)c * set->arity + j] == bad)
                    return pbd_error(PBD_ENUMERIC,
                                     "step %ld: constraint %s #%d (set %d) holds particle %d %s",
                                     w->step_count, set->type->name, c, s, bad, what);
        }
    }
    if (bad >= 0)
        return pbd_error(PBD_ENUMERIC, "step %ld: particle %d %s", w->step_count, bad, what);
    for (int s = 0; s < w->n_sets; s++) /* a non-finite λ found by all_ok */
        for (int c = 0; c < w->sets[s].count; c++)
            if (!isfinite(w->sets[s].lambda[c]))
                return pbd_error(PBD_ENUMERIC,
                                 "step %ld: constraint %s #%d (set %d) has a non-finite lambda",
                                 w->step_count, w->sets[s].type->name, c, s);
    return PBD_OK;
}

/* After a step that measured (pbd_measure, after the post-step hook): every measured value
 * finite (no inf reaches a series), and no set's max |C| above watch_residual in that set's
 * own unit (m, rad, m³ …: never one bound across units), naming the set and its worst
 * constraint. Reads what the measure stage left in set->stats and w->stats. */
static pbd_status check_measured(pbd_world *w)
{
    const int energy = pbd_method_of(&w->def)->energy; /* elastic energy NaN otherwise */
    const double bound = w->def.watch_residual;
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        const pbd_set_stats *ss = &set->stats;
        const struct {
            const char *name;
            double v;
        } m[] = {{"max |C|", ss->max_c}, {"||C||_2", ss->l2_c},
                 {"XPBD residual", ss->xpbd_residual}, {"elastic energy", ss->elastic_energy}};
        for (int k = 0; k < (energy ? 4 : 3); k++)
            if (!isfinite(m[k].v))
                return pbd_error(PBD_ENUMERIC, "step %ld: constraint set %d (%s): the measured "
                                 "%s is not finite (%g): the run diverged", w->step_count, s,
                                 set->type->name, m[k].name, m[k].v);
        if (bound > 0.0 && ss->max_c > bound)
            return pbd_error(PBD_ENUMERIC, "step %ld: constraint set %d (%s) diverged: its max "
                             "|C| is %.3g %s (constraint #%d), past the watchdog's bound of %g "
                             "%s (watch-residual)", w->step_count, s, set->type->name,
                             ss->max_c, set->type->unit, ss->max_at, bound, set->type->unit);
    }
    const pbd_step_stats *st = &w->stats;
    const struct {
        const char *name;
        double v;
    } m[] = {{"max |C|", st->max_c}, {"||C||_2", st->l2_c}, {"XPBD residual", st->xpbd_residual},
             {"kinetic energy", st->kinetic_energy},
             {"gravitational energy", st->gravitational_energy},
             {"total energy", st->total_energy},
             {"linear momentum", st->linear_momentum[0] + st->linear_momentum[1] +
                                 st->linear_momentum[2]},
             {"angular momentum", st->angular_momentum[0] + st->angular_momentum[1] +
                                  st->angular_momentum[2]}};
    for (unsigned k = 0; k < sizeof m / sizeof m[0]; k++)
        if (!isfinite(m[k].v))
            return pbd_error(PBD_ENUMERIC, "step %ld: the measured %s is not finite (%g): the "
                             "run diverged", w->step_count, m[k].name, m[k].v);
    return PBD_OK;
}

long pbd_test_fault_step = 0;
int pbd_test_fault_oom = 0;
int pbd_test_fault_hang = 0;

/* The test hook above: a NaN velocity on the first free particle. */
static void inject_test_fault(pbd_world *w)
{
    for (int i = 0; i < w->n; i++)
        if (w->w[i] > 0.0) {
            w->v[3 * i] = NAN;
            return;
        }
}

/* The step of every method: one prologue (the test hook, the definition, the iteration log,
 * the rods' schemes, the watchdog's reference, the method's refusals and workspace), the
 * method's (sub)steps, one epilogue (the finite and divergence watchdog, the rods' check,
 * the post-step hook, the measure stage and the measured values' check). */
pbd_status pbd_step(pbd_world *w)
{
    if (pbd_test_fault_step > 0 && w->step_count + 1 == pbd_test_fault_step) {
        if (pbd_test_fault_oom) /* as an allocation inside the step would fail */
            return pbd_error(PBD_ENOMEM, "step %ld: out of memory (test hook)",
                             w->step_count + 1);
        if (pbd_test_fault_hang) /* as work that never looks at the stop flag */
            for (;;) pause();
        inject_test_fault(w);
    }
    pbd_status status = pbd_solver_def_validate(&w->def);
    if (status != PBD_OK) return status;
    if ((status = reserve_iteration_log(w)) != PBD_OK) return status;
    if ((status = pbd_orient_check(w, 0)) != PBD_OK) return status; /* rods: the schemes */
    if (!w->watch_ready) watch_init(w);
    const pbd_solver_def *d = &w->def;
    const pbd_method_ops *m = pbd_method_of(d);
    if (m->check && (status = m->check(w)) != PBD_OK) return status;
    void *ws = NULL;
    if (m->workspace && (status = m->workspace(w, &ws)) != PBD_OK) return status;
    const double h = d->dt / d->substeps;
    const int nt = loop_threads(w);
    for (int k = 0; k < PBD_STAGE_COUNT; k++) w->stats.stage_seconds[k] = 0.0;
    const char *was = m->running ? pbd_running_set(m->running) : NULL;
    status = m->step(w, ws, h, nt);
    if (m->running) pbd_running_set(was);
    if (status != PBD_OK) return status;

    w->step_count++;
    status = check_finite(w, nt);
    if (status == PBD_OK && w->n_orient) status = pbd_orient_check(w, 1);
    /* after the step, outside its stages: topology changes (tearing) */
    if (status == PBD_OK && w->post_step) status = w->post_step(w, w->post_step_user);
    /* the measure stage costs about one more sweep; def.measure_every thins it out. It
     * measures the world as the step leaves it, after any topology change, so that a
     * result file's /series row and its frame describe the same constraints; the
     * divergence watchdog then reads what it measured. */
    double t0 = pbd_now_seconds();
    const int measure = d->measure_every > 0 && w->step_count % d->measure_every == 0;
    if (status == PBD_OK && measure) pbd_measure(w, h, m->energy);
    STAGE(w, PBD_STAGE_MEASURE, t0);
    if (status == PBD_OK && measure) status = check_measured(w);
    return status;
}
