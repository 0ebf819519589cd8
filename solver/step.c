/* The step: PBD Algorithm 1 (Müller et al. 2006), with XPBD's λ (Macklin et al. 2016,
 * Alg. 1) and Small Steps' substeps (Macklin et al. 2019). Each line of the listing is
 * a named, timed stage. */
#include "pbd.h"
#include "solver_private.h"
#include "variants.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

const char *const pbd_stage_names[PBD_STAGE_COUNT] = {
    "external_forces", "damp_velocities", "predict",        "generate_collisions",
    "project",         "update",          "velocity_update", "measure",
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
    return pbd_variants_threads(w);
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
    int need = w->def.iterations * w->def.substeps;
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
    if (!a || !b || !c || !d) return pbd_error(PBD_ENOMEM, "out of memory for the iteration log");
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

/* Watchdog: after a step every position, velocity and λ must be finite. When one is not,
 * name the first constraint (in projection order) that holds a non-finite λ or touches a
 * non-finite particle, so that the user sees which type and index blew up. */
/* The common case, everything finite, scanned on the loop threads; check_finite's serial
 * search that names the culprit runs only when something is not. */
static int all_finite(const pbd_world *w, int threads)
{
    long bad = 0;
#pragma omp parallel for num_threads(threads) if (threads > 1) reduction(+ : bad) schedule(static)
    for (int i = 0; i < w->n; i++) bad += !particle_finite(w, i);
    for (int s = 0; s < w->n_sets && bad == 0; s++) {
        const pbd_constraint_set *set = &w->sets[s];
#pragma omp parallel for num_threads(threads) if (threads > 1) reduction(+ : bad) schedule(static)
        for (int c = 0; c < set->count; c++) bad += !isfinite(set->lambda[c]);
    }
    return bad == 0;
}

static pbd_status check_finite(pbd_world *w, int threads)
{
    if (all_finite(w, threads)) return PBD_OK;
    int bad = -1;
    for (int i = 0; i < w->n && bad < 0; i++)
        if (!particle_finite(w, i)) bad = i;
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        for (int c = 0; c < set->count; c++) {
            if (!isfinite(set->lambda[c]))
                return pbd_error(PBD_ENUMERIC,
                                 "step %ld: constraint %s #%d (set %d) has a non-finite lambda",
                                 w->step_count, set->type->name, c, s);
            if (bad < 0) continue;
            for (int j = 0; j < set->arity; j++) {
                int i = set->idx[(size_t)c * set->arity + j];
                if (!particle_finite(w, i))
                    return pbd_error(PBD_ENUMERIC,
                                     "step %ld: constraint %s #%d (set %d) holds particle %d "
                                     "with a non-finite position or velocity",
                                     w->step_count, set->type->name, c, s, i);
            }
        }
    }
    if (bad >= 0)
        return pbd_error(PBD_ENUMERIC,
                         "step %ld: particle %d has a non-finite position or velocity",
                         w->step_count, bad);
    return PBD_OK;
}

long pbd_test_fault_step = 0;

/* The test hook above: a NaN velocity on the first free particle. */
static void inject_test_fault(pbd_world *w)
{
    for (int i = 0; i < w->n; i++)
        if (w->w[i] > 0.0) {
            w->v[3 * i] = NAN;
            return;
        }
}

pbd_status pbd_step(pbd_world *w)
{
    if (pbd_test_fault_step > 0 && w->step_count + 1 == pbd_test_fault_step)
        inject_test_fault(w);
    pbd_status status = pbd_solver_def_validate(&w->def);
    if (status != PBD_OK) return status;
    if ((status = reserve_iteration_log(w)) != PBD_OK) return status;
    const pbd_solver_def *d = &w->def;
    const double h = d->dt / d->substeps;
    const int nt = loop_threads(w);
    for (int k = 0; k < PBD_STAGE_COUNT; k++) w->stats.stage_seconds[k] = 0.0;
    w->stats.threads = nt; /* the coloured sweeps raise it to theirs */
    double t0 = now_seconds();

    for (int sub = 0; sub < d->substeps; sub++) {
        /* (5) v_i <- v_i + Δt w_i f_ext(x_i), with f_ext = m_i g */
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
        for (int i = 0; i < w->n; i++) {
            if (w->w[i] <= 0.0) continue;
            for (int c = 0; c < 3; c++) w->v[3 * i + c] += h * d->gravity[c];
        }
        STAGE(w, PBD_STAGE_EXTERNAL_FORCES, t0);
        /* (6) dampVelocities */
        pbd_damp_velocities(w);
        STAGE(w, PBD_STAGE_DAMP_VELOCITIES, t0);
        /* (7) p_i <- x_i + Δt v_i; attachments follow their (kinematic) targets */
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
        for (int i = 0; i < 3 * w->n; i++) w->p[i] = w->x[i] + h * w->v[i];
        move_attachments(w, w->time + h);
        STAGE(w, PBD_STAGE_PREDICT, t0);
        /* (8) generateCollisionConstraints(x_i -> p_i) */
        if (w->collision_stages) w->collision_stages->generate_collisions(w, h);
        STAGE(w, PBD_STAGE_GENERATE_COLLISIONS, t0);
        /* (9–11) solverIterations × projectConstraints */
        prepare_sets(w, nt);
        if ((status = pbd_variants_prepare(w)) != PBD_OK) return status;
        if (!d->record_iterations) /* all sweeps at once (one parallel region) */
            w->stats.skipped = pbd_project_iterations(w, h, d->iterations);
        for (int it = 0; d->record_iterations && it < d->iterations; it++) {
            w->stats.skipped = pbd_project_iteration(w, h);
            int k = sub * d->iterations + it;
            pbd_world_residuals_per_set(w, w->p, 1.0 / (h * h),
                                        w->iter_sets + (size_t)k * w->n_sets * 3,
                                        &w->iter_max_c[k], &w->iter_l2_c[k], &w->iter_xpbd[k]);
        }
        STAGE(w, PBD_STAGE_PROJECT, t0);
        /* (12–15) v_i <- (p_i - x_i)/Δt, x_i <- p_i */
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
        for (int i = 0; i < 3 * w->n; i++) {
            w->v[i] = (w->p[i] - w->x[i]) / h;
            w->x[i] = w->p[i];
        }
        STAGE(w, PBD_STAGE_UPDATE, t0);
        /* (16) velocityUpdate: friction and restitution */
        if (w->collision_stages) w->collision_stages->velocity_update(w, h);
        STAGE(w, PBD_STAGE_VELOCITY_UPDATE, t0);
        w->time += h;
    }
    w->step_count++;
    status = check_finite(w, nt);
    /* after the step, outside its stages: topology changes (tearing) */
    if (status == PBD_OK && w->post_step) status = w->post_step(w, w->post_step_user);
    /* the measure stage costs about one more sweep; def.measure_every thins it out. It
     * measures the world as the step leaves it, after any topology change, so that a
     * result file's /series row and its frame describe the same constraints. */
    t0 = now_seconds();
    if (status == PBD_OK && d->measure_every > 0 && w->step_count % d->measure_every == 0)
        pbd_measure(w, h, d->method == PBD_METHOD_XPBD);
    STAGE(w, PBD_STAGE_MEASURE, t0);
    return status;
}
