/* One step: the paper's Algorithm 2, substeps × (integrate, solve positions, update
 * velocities, solve velocities). */
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

pbd_status pbd_rigid_step(pbd_rigid_world *w)
{
    double h = w->dt / w->substeps;
    for (int s = 0; s < w->substeps; s++) {
        for (int i = 0; i < w->n_bodies; i++)
            if (rigid_dynamic(&w->bodies[i])) integrate(w, &w->bodies[i], h);
        rigid_contacts_generate(w);
        for (int i = 0; i < w->n_joints; i++)
            w->joints[i].lambda[0] = w->joints[i].lambda[1] = w->joints[i].lambda[2] = 0.0;
        for (int it = 0; it < w->iterations; it++) {
            rigid_joints_solve(w, h);
            rigid_contacts_solve_positions(w, h);
        }
        for (int i = 0; i < w->n_bodies; i++)
            if (rigid_dynamic(&w->bodies[i])) update_velocities(&w->bodies[i], h);
        rigid_contacts_solve_velocities(w, h);
        w->substeps_done++;
    }
    w->time += w->dt;
    for (int i = 0; i < w->n_bodies; i++)
        if (!finite_body(&w->bodies[i]))
            return pbd_error(PBD_ENUMERIC, "rigid body %d: non-finite state at t = %g s", i,
                             w->time);
    return PBD_OK;
}
