/* One step: the paper's Algorithm 2, substeps × (integrate, solve positions, update
 * velocities, solve velocities: joint damping, then the contacts). */
#include "rigid_private.h"

#include <math.h>

/* Algorithm 2 lines 5–11: v += h g; x += h v; ω += h I⁻¹(τ − ω × (I ω)) with τ = 0 (the
 * gyroscopic term); q += h/2 (0, ω) q, normalised */
static void integrate(pbd_rigid_world *w, pbd_rigid_body *b, double h)
{
    v3_copy(b->x_prev, b->x);
    for (int k = 0; k < 4; k++) b->q_prev[k] = b->q[k];
    v3_axpy(b->v, h, w->gravity);
    v3_axpy(b->x, h, b->v);
    pbd_quat_gyroscopic_step(b->q, b->inv_inertia, h, b->omega);
    double theta[3];
    v3_scale(theta, b->omega, h);
    pbd_quat_add_rotation(b->q, theta, 1.0, b->q);
    v3_copy(b->v_pre, b->v);
    v3_copy(b->omega_pre, b->omega);
}

/* Algorithm 2 lines 15–19: v = (x − x_prev)/h; Δq = q q_prev⁻¹; ω = ±2 Δq_xyz/h (the sign
 * of Δq_w, the shorter way round) */
static void update_velocities(pbd_rigid_body *b, double h)
{
    for (int k = 0; k < 3; k++) b->v[k] = (b->x[k] - b->x_prev[k]) / h;
    pbd_quat_angular_velocity(b->q, b->q_prev, h, b->omega);
}

static int finite_body(const pbd_rigid_body *b)
{
    double s = 0.0;
    for (int k = 0; k < 3; k++) s += b->x[k] + b->v[k] + b->omega[k] + b->q[k];
    return isfinite(s + b->q[3]);
}

/* The divergence watchdog's reference (as the particles', solver/step.c): the centres'
 * bounding box and the fastest initial speed, at the first step. */
static void watch_init(pbd_rigid_world *w)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double speed = 0.0, d2 = 0.0;
    for (int i = 0; i < w->n_bodies; i++) {
        const pbd_rigid_body *b = &w->bodies[i];
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], b->x[k]);
            hi[k] = fmax(hi[k], b->x[k]);
        }
        speed = fmax(speed, v3_norm(b->v));
    }
    for (int k = 0; k < 3; k++) {
        w->watch_centre[k] = w->n_bodies > 0 ? 0.5 * (lo[k] + hi[k]) : 0.0;
        if (w->n_bodies > 0) d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    w->watch_extent = sqrt(d2);
    w->watch_speed = isfinite(speed) ? speed : 0.0;
    w->watch_time0 = w->time;
    w->watch_ready = 1;
}

/* After a step: every body finite and within watch_position × max(L, 1 m) + |v0| t + |g| t²/2
 * of the initial centre. */
static pbd_status watch(const pbd_rigid_world *w)
{
    double t = w->time - w->watch_time0, g = v3_norm(w->gravity);
    double bound = w->watch_position * fmax(w->watch_extent, 1.0) + w->watch_speed * t +
                   0.5 * g * t * t;
    for (int i = 0; i < w->n_bodies; i++) {
        const pbd_rigid_body *b = &w->bodies[i];
        if (!finite_body(b))
            return pbd_error(PBD_ENUMERIC, "step %ld: rigid body %d has a non-finite position, "
                             "orientation or velocity (t = %g s)", w->steps_done, i, w->time);
        double d[3];
        v3_sub(d, b->x, w->watch_centre);
        if (w->watch_position > 0.0 && v3_norm(d) > bound)
            return pbd_error(PBD_ENUMERIC, "step %ld: rigid body %d diverged: %.3g m from the "
                             "scene's centre, past the watchdog's bound of %.3g m "
                             "(watch-position %g)", w->steps_done, i, v3_norm(d), bound,
                             w->watch_position);
    }
    return PBD_OK;
}

pbd_status pbd_rigid_step(pbd_rigid_world *w)
{
    if (w->velocity_passes < 1)
        return pbd_error(PBD_EINVAL, "rigid world velocity_passes: expected at least 1 pass of "
                         "the velocity solve, found %d", w->velocity_passes);
    double h = w->dt / w->substeps;
    if (!w->watch_ready) watch_init(w);
    for (int s = 0; s < w->substeps; s++) {
        for (int i = 0; i < w->n_bodies; i++)
            if (rigid_dynamic(&w->bodies[i])) integrate(w, &w->bodies[i], h);
        pbd_status st = rigid_contacts_generate(w);
        if (st != PBD_OK) return st;
        rigid_joints_begin_substep(w, h);
        for (int it = 0; it < w->iterations; it++) {
            rigid_joints_solve(w, h);
            rigid_contacts_solve_positions(w, h);
        }
        for (int i = 0; i < w->n_bodies; i++)
            if (rigid_dynamic(&w->bodies[i])) update_velocities(&w->bodies[i], h);
        rigid_joints_solve_velocities(w, h);
        rigid_contacts_solve_velocities(w, h);
        w->substeps_done++;
    }
    w->time += w->dt;
    w->steps_done++;
    return watch(w);
}
