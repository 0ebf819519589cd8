/* The step: PBD Algorithm 1 (Müller et al. 2006), with XPBD's λ (Macklin et al. 2016,
 * Alg. 1) and Small Steps' substeps (Macklin et al. 2019). Each line of the listing is
 * a named, timed stage. */
#include "pbd.h"
#include "solver_private.h"
#include "variants.h"
#include "solver/method.h"
#include "solver/test_hooks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

const char *const pbd_stage_names[PBD_STAGE_COUNT] = {
    "external_forces", "damp_velocities", "predict",        "generate_collisions",
    "project",         "update",          "velocity_update", "measure",
    "neighbour_search",
};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define STAGE(w, id, t0)                                                    \
    do {                                                                    \
        double t1_ = now_seconds();                                         \
        (w)->stats.stage_seconds[id] += t1_ - (t0);                         \
        (t0) = t1_;                                                         \
    } while (0)

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

/* Stiffness used this step: raw k, or k' = 1 - (1-k)^(1/n) so that n iterations
 * leave (1-k) of an isolated constraint's error (seed review slides). */
static void prepare_sets(pbd_world *w, int threads)
{
    int n = w->def.iterations;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        double k_last = NAN, k_lin = NAN; /* pow once per run of equal stiffnesses */
        for (int s = 0; s < w->n_sets; s++) {
            pbd_constraint_set *set = &w->sets[s];
#pragma omp for schedule(static)
            for (int c = 0; c < set->count; c++) {
                double k = set->stiffness[c];
                if (w->def.linearize_stiffness && k != k_last) {
                    k_last = k;
                    k_lin = 1.0 - pow(1.0 - k, 1.0 / n);
                }
                set->k_eff[c] = w->def.linearize_stiffness ? k_lin : k;
                set->lambda[c] = 0.0; /* XPBD: λ = 0 at the start of each (sub)step */
            }
        }
    }
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

static void move_attachments(pbd_world *w, double t)
{
    for (int a = 0; a < w->n_attach; a++) {
        double *target = w->attach_target + 3 * a;
        if (w->attach_motion) w->attach_motion(a, t, w->attach_anchor + 3 * a, target, w->attach_user);
        double *p = w->p + 3 * (size_t)w->attach_idx[a];
        p[0] = target[0]; p[1] = target[1]; p[2] = target[2];
    }
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

/* The test hook above: a NaN velocity on the first free particle. */
static void inject_test_fault(pbd_world *w)
{
    for (int i = 0; i < w->n; i++)
        if (w->w[i] > 0.0) {
            w->v[3 * i] = NAN;
            return;
        }
}

/* PBD Algorithm 1 lines (5)–(16), def.substeps times: the step of methods pbd and xpbd. */
static pbd_status xpbd_step(pbd_world *w, void *ws, double h, int nt)
{
    (void)ws; /* the variants' workspaces, made per substep after the contacts */
    const pbd_solver_def *d = &w->def;
    pbd_status status;
    w->stats.threads = nt; /* the coloured sweeps raise it to theirs */
    double t0 = now_seconds();

    for (int sub = 0; sub < d->substeps; sub++) {
        /* (6) dampVelocities, on the velocity the last substep left, BEFORE (5) adds the
         * external forces: PBD Algorithm 1 damps after them, which damps the load's own
         * increment too: at rest v = Δt g is scaled to (1 − k) Δt g every substep, so the
         * settled state carries (1 − k) of the load (XPBD's rest state was 1 % short of the
         * static one at k = 0.01: issue 24 item 14). Damping first leaves a state at rest
         * exactly where M(x − x̃) = ∇Cᵀλ puts it; momentum conservation is unchanged. */
        pbd_damp_velocities(w);
        STAGE(w, PBD_STAGE_DAMP_VELOCITIES, t0);
        /* (5) v_i <- v_i + Δt w_i f_ext(x_i), with f_ext = m_i g */
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
        for (int i = 0; i < w->n; i++) {
            if (w->w[i] <= 0.0) continue;
            for (int c = 0; c < 3; c++) w->v[3 * i + c] += h * d->gravity[c];
        }
        if (w->n_orient) pbd_orient_forces(w, h); /* rods: gyroscopic term (solver/orient.c) */
        STAGE(w, PBD_STAGE_EXTERNAL_FORCES, t0);
        /* (7) p_i <- x_i + Δt v_i; attachments follow their (kinematic) targets */
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
        for (int i = 0; i < 3 * w->n; i++) w->p[i] = w->x[i] + h * w->v[i];
        move_attachments(w, w->time + h);
        if (w->n_orient) pbd_orient_predict(w, h);
        STAGE(w, PBD_STAGE_PREDICT, t0);
        /* (8) generateCollisionConstraints(x_i -> p_i) */
        if (w->collision_stages) w->collision_stages->generate_collisions(w, h);
        STAGE(w, PBD_STAGE_GENERATE_COLLISIONS, t0);
        /* a fluid's neighbour lists, once per (sub)step (solver/fluid/) */
        const pbd_step_stages *fs = w->fluid_stages;
        if (fs) fs->generate_collisions(w, h);
        STAGE(w, PBD_STAGE_NEIGHBOUR_SEARCH, t0);
        /* (9–11) solverIterations × projectConstraints */
        prepare_sets(w, nt);
        if ((status = pbd_variants_prepare(w)) != PBD_OK) return status;
        if (!d->record_iterations && !fs) /* all sweeps at once (one parallel region) */
            w->stats.skipped = pbd_project_iterations(w, h, d->iterations);
        for (int it = 0; (d->record_iterations || fs) && it < d->iterations &&
                         !pbd_stop_requested(); it++) {
            w->stats.skipped = fs ? fs->project(w, h) : pbd_project_iteration(w, h);
            if (w->stats.skipped < 0) return PBD_EINVAL; /* the fluid refused (its error) */
            if (!d->record_iterations) continue;
            int k = sub * d->iterations + it;
            pbd_world_residuals_per_set(w, w->p, 1.0 / (h * h),
                                        w->iter_sets + (size_t)k * w->n_sets * 3,
                                        &w->iter_max_c[k], &w->iter_l2_c[k], &w->iter_xpbd[k]);
        }
        STAGE(w, PBD_STAGE_PROJECT, t0);
        if (pbd_stop_requested()) /* the projection stopped early: abandon the step */
            return pbd_error(PBD_EINTR, "step %ld abandoned in substep %d of %d on a stop request",
                             w->step_count + 1, sub + 1, d->substeps);
        /* (12–15) v_i <- (p_i - x_i)/Δt, x_i <- p_i */
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
        for (int i = 0; i < 3 * w->n; i++) {
            w->v[i] = (w->p[i] - w->x[i]) / h;
            w->x[i] = w->p[i];
        }
        if (w->n_orient) pbd_orient_update(w, h);
        STAGE(w, PBD_STAGE_UPDATE, t0);
        /* (16) velocityUpdate: friction and restitution */
        if (w->collision_stages) w->collision_stages->velocity_update(w, h);
        if (fs) fs->velocity_update(w, h); /* vorticity confinement, XSPH viscosity */
        STAGE(w, PBD_STAGE_VELOCITY_UPDATE, t0);
        w->time += h;
    }
    return PBD_OK;
}

const pbd_method_ops pbd_pbd_method = {
    .name = "pbd",
    .step = xpbd_step,
};

const pbd_method_ops pbd_xpbd_method = {
    .name = "xpbd",
    .step = xpbd_step,
    .compliance = 1,
    .energy = 1,
};

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
    double t0 = now_seconds();
    const int measure = d->measure_every > 0 && w->step_count % d->measure_every == 0;
    if (status == PBD_OK && measure) pbd_measure(w, h, m->energy);
    STAGE(w, PBD_STAGE_MEASURE, t0);
    if (status == PBD_OK && measure) status = check_measured(w);
    return status;
}
