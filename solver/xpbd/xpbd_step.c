/* The step of methods pbd and xpbd: PBD Algorithm 1 (Müller et al. 2006), with XPBD's λ
 * (Macklin et al. 2016, Alg. 1) and Small Steps' substeps (Macklin et al. 2019), between
 * pbd_step's prologue and epilogue (solver/step.c). Each line of the listing is a named,
 * timed stage. */
#include "solver/method.h"
#include "solver/solver_private.h"
#include "solver/variants.h"
#include "solver/xpbd/xpbd.h"

#include <math.h>

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

static void move_attachments(pbd_world *w, double t)
{
    for (int a = 0; a < w->n_attach; a++) {
        double *target = w->attach_target + 3 * a;
        if (w->attach_motion) w->attach_motion(a, t, w->attach_anchor + 3 * a, target, w->attach_user);
        double *p = w->p + 3 * (size_t)w->attach_idx[a];
        p[0] = target[0]; p[1] = target[1]; p[2] = target[2];
    }
}

/* PBD Algorithm 1 lines (5)–(16), def.substeps times: the step of methods pbd and xpbd. */
static pbd_status xpbd_step(pbd_world *w, void *ws, double h, int nt)
{
    (void)ws; /* the variants' workspaces, made per substep after the contacts */
    const pbd_solver_def *d = &w->def;
    pbd_status status;
    w->stats.threads = nt; /* the coloured sweeps raise it to theirs */
    double t0 = pbd_now_seconds();

    for (int sub = 0; sub < d->substeps; sub++) {
        /* (6) dampVelocities, on the velocity the last substep left, BEFORE (5) adds the
         * external forces: PBD Algorithm 1 damps after them, which damps the load's own
         * increment too: at rest v = Δt g is scaled to (1 − k) Δt g every substep, so the
         * settled state carries (1 − k) of the load (XPBD's rest state was 1 % short of the
         * static one at k = 0.01). Damping first leaves a state at rest
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
