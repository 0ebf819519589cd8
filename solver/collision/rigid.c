/* Minimal rigid bodies for two-way coupling (PBD Sec. 4.2): a sphere or a box with mass,
 * principal inertia, pose (centre x, unit quaternion q) and velocity (v, angular momentum L
 * in world coordinates, ω = R I⁻¹ Rᵀ L).
 *
 * Each substep (symplectic Euler, the same order as the particles' lines 5–7):
 *   v <- v + h g;  ω = I_w(q)⁻¹ L;  x* = x + h v;  q* = normalize(q + h/2 (0, ω) ⊗ q);
 * the particles then collide with the body at its predicted pose (x*, q*), which stays
 * fixed during the projection; in velocityUpdate every contact's impulse J acts back on the
 * body at its contact point y: v <- v + J/M, L <- L + (y - x*) × J; finally x, q <- x*, q*
 * (the impulses move the body from the next substep on).
 * Without impulses L is constant (torque-free motion conserves angular momentum exactly).
 * A box's corners are 8 kinematic particles (w = 0) appended to the world; they follow the
 * body (x = corner at the old pose, p = at the predicted pose) so that point_triangle
 * constraints can keep them out of the cloth triangles. */
#include "collide.h"

#include <stdlib.h>
#include <string.h>

static void quat_normalize(double q[4])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++) q[k] /= n;
}

/* y = x + R(q) l */
static void body_point(const double x[3], const double q[4], const double l[3], double y[3])
{
    double R[9];
    cv_quat_to_matrix(q, R);
    cv_mat(y, R, l);
    v3_add(y, y, x);
}

/* r = I_w⁻¹ a = R diag(I⁻¹) Rᵀ a */
static void inv_inertia_world(const rigid_body *b, const double q[4], const double a[3],
                              double r[3])
{
    double R[9], l[3];
    cv_quat_to_matrix(q, R);
    cv_mat_t(l, R, a);
    for (int k = 0; k < 3; k++) l[k] *= b->inv_inertia_body[k];
    cv_mat(r, R, l);
}

void rigid_omega(const rigid_body *b, const double q[4], double omega[3])
{
    inv_inertia_world(b, q, b->L, omega);
}

void rigid_update_shape(pbd_world *w, int body)
{
    struct pbd_collision_state *cs = w->collision;
    rigid_body *b = &cs->bodies[body];
    shape *s = &cs->colliders[b->collider].shape;
    v3_copy(s->c, b->x_pred);
    if (s->kind == SHAPE_BOX) {
        double Rq[9];
        cv_quat_to_matrix(b->q_pred, Rq);
        for (int i = 0; i < 3; i++) /* rows of the shape's R: the body axes = columns of R(q) */
            for (int j = 0; j < 3; j++) s->R[3 * i + j] = Rq[3 * j + i];
    }
}

/* Corner particles: x at the pose (x, q), p at the predicted pose, v = (p - x)/h. */
static void place_proxies(pbd_world *w, const rigid_body *b, double h)
{
    for (int k = 0; k < b->n_corners; k++) {
        int i = b->first_proxy + k;
        body_point(b->x, b->q, b->corner_local[k], w->x + 3 * i);
        body_point(b->x_pred, b->q_pred, b->corner_local[k], w->p + 3 * i);
        for (int c = 0; c < 3; c++)
            w->v[3 * i + c] = h > 0.0 ? (w->p[3 * i + c] - w->x[3 * i + c]) / h : 0.0;
    }
}

/* x* = x + h v, q* = normalize(q + h/2 (0, ω) ⊗ q) with (0, ω) ⊗ (w, u) = (-ω·u, w ω + ω × u) */
static void predict_pose(rigid_body *b, double h)
{
    double omega[3], u[3] = {b->q[1], b->q[2], b->q[3]}, cr[3];
    rigid_omega(b, b->q, omega);
    v3_copy(b->x_pred, b->x);
    v3_axpy(b->x_pred, h, b->v);
    v3_cross(cr, omega, u);
    b->q_pred[0] = b->q[0] - 0.5 * h * v3_dot(omega, u);
    for (int k = 0; k < 3; k++) b->q_pred[k + 1] = b->q[k + 1] + 0.5 * h * (b->q[0] * omega[k] + cr[k]);
    quat_normalize(b->q_pred);
}

void rigid_predict(pbd_world *w, double h)
{
    struct pbd_collision_state *cs = w->collision;
    for (int bi = 0; bi < cs->n_bodies; bi++) {
        rigid_body *b = &cs->bodies[bi];
        v3_axpy(b->v, h, w->def.gravity); /* v <- v + h g */
        predict_pose(b, h);
        rigid_update_shape(w, bi);
        place_proxies(w, b, h);
    }
}

void rigid_apply_impulse(rigid_body *b, const double J[3], const double at[3])
{
    double r[3], t[3];
    v3_axpy(b->v, b->inv_mass, J);
    v3_sub(r, at, b->x_pred);
    v3_cross(t, r, J);
    v3_add(b->L, b->L, t);
}

void rigid_point_velocity(const rigid_body *b, const double y[3], double v[3])
{
    double omega[3], r[3], t[3];
    rigid_omega(b, b->q_pred, omega);
    v3_sub(r, y, b->x_pred);
    v3_cross(t, omega, r);
    v3_add(v, b->v, t);
}

double rigid_inv_mass_at(const rigid_body *b, const double y[3], const double d[3])
{
    double r[3], rd[3], ird[3];
    v3_sub(r, y, b->x_pred);
    v3_cross(rd, r, d);
    inv_inertia_world(b, b->q_pred, rd, ird);
    return b->inv_mass + v3_dot(rd, ird);
}

void rigid_commit(pbd_world *w)
{
    struct pbd_collision_state *cs = w->collision;
    for (int bi = 0; bi < cs->n_bodies; bi++) {
        rigid_body *b = &cs->bodies[bi];
        v3_copy(b->x, b->x_pred);
        memcpy(b->q, b->q_pred, sizeof b->q);
        place_proxies(w, b, 0.0); /* the corners where the body ends the substep */
    }
}

/* ---- public API ----------------------------------------------------------------------- */

/* Append `extra` kinematic particles (w = 0) at the origin through the world's own growth
 * (pbd_world_add_particle keeps every per-particle array consistent); returns the first
 * or -1. */
static int grow_particles(pbd_world *w, int extra)
{
    static const double origin[3] = {0.0, 0.0, 0.0};
    int first = w->n;
    for (int k = 0; k < extra; k++)
        if (pbd_world_add_particle(w, origin, NULL, 0.0) < 0) return -1;
    return first;
}

static int check_state(const pbd_rigid_state *s, const char *what)
{
    double qn = sqrt(s->q[0] * s->q[0] + s->q[1] * s->q[1] + s->q[2] * s->q[2] + s->q[3] * s->q[3]);
    for (int k = 0; k < 3; k++)
        if (!isfinite(s->x[k]) || !isfinite(s->v[k]) || !isfinite(s->omega[k])) {
            pbd_error(PBD_EINVAL, "%s: expected finite x, v and omega, found component %d = %g, "
                      "%g, %g", what, k, s->x[k], s->v[k], s->omega[k]);
            return -1;
        }
    if (!(isfinite(qn) && qn > 0.0)) {
        pbd_error(PBD_EINVAL, "%s: expected a non-zero finite quaternion, found |q| = %g", what, qn);
        return -1;
    }
    return 0;
}

/* Pose, velocity and L = I_w ω from a state; the predicted pose is the pose. */
static void body_set_state(pbd_world *w, int bi, const pbd_rigid_state *s)
{
    rigid_body *b = &w->collision->bodies[bi];
    v3_copy(b->x, s->x);
    memcpy(b->q, s->q, sizeof b->q);
    quat_normalize(b->q);
    v3_copy(b->v, s->v);
    double R[9], l[3];
    cv_quat_to_matrix(b->q, R);
    cv_mat_t(l, R, s->omega); /* L = R I Rᵀ ω */
    for (int k = 0; k < 3; k++) l[k] /= b->inv_inertia_body[k];
    cv_mat(b->L, R, l);
    v3_copy(b->x_pred, b->x);
    memcpy(b->q_pred, b->q, sizeof b->q);
    rigid_update_shape(w, bi);
    place_proxies(w, b, 0.0);
}

static int add_body(pbd_world *w, const shape *sh, double mass, const double inertia[3],
                    const pbd_rigid_state *s, const pbd_material *m, int n_corners,
                    const char *what)
{
    if (!(isfinite(mass) && mass > 0.0 && isfinite(1.0 / mass))) {
        pbd_error(PBD_EINVAL, "%s: expected a finite mass > 0 with a finite inverse, found %g kg",
                  what, mass);
        return -1;
    }
    for (int k = 0; k < 3; k++) /* M size² can underflow where M and the size do not */
        if (!(inertia[k] > 0.0 && isfinite(1.0 / inertia[k]))) {
            pbd_error(PBD_EINVAL, "%s: expected a moment of inertia with a finite inverse, "
                      "found %g kg m^2 about axis %d (mass %g kg: the size is too small)", what,
                      inertia[k], k, mass);
            return -1;
        }
    if (check_state(s, what) != 0) return -1;
    struct pbd_collision_state *cs = collision_state(w);
    if (!cs) return -1;
    if (cs->n_bodies == cs->cap_bodies) {
        int cap = cs->cap_bodies ? 2 * cs->cap_bodies : 2;
        rigid_body *b = realloc(cs->bodies, (size_t)cap * sizeof *b);
        if (!b) {
            pbd_error(PBD_ENOMEM, "out of memory adding a %s", what);
            return -1;
        }
        cs->bodies = b;
        cs->cap_bodies = cap;
    }
    int bi = cs->n_bodies;
    rigid_body *b = &cs->bodies[bi];
    memset(b, 0, sizeof *b);
    b->mass = mass;
    b->inv_mass = 1.0 / mass;
    for (int k = 0; k < 3; k++) b->inv_inertia_body[k] = 1.0 / inertia[k];
    b->first_proxy = -1;
    if (n_corners > 0) {
        int first = grow_particles(w, n_corners);
        if (first < 0) return -1;
        b->first_proxy = first;
        b->n_corners = n_corners;
        for (int k = 0; k < n_corners; k++)
            for (int c = 0; c < 3; c++)
                b->corner_local[k][c] = ((k >> c) & 1 ? 1.0 : -1.0) * sh->half[c];
    }
    cs->n_bodies++; /* before the collider: reserving sizes the corner set from the bodies */
    int c = collision_add_collider(w, sh, m, bi, what);
    if (c < 0) {
        cs->n_bodies--;
        return -1;
    }
    b = &cs->bodies[bi];
    b->collider = c;
    body_set_state(w, bi, s);
    return bi;
}

int pbd_world_add_rigid_sphere(pbd_world *w, double radius, double mass,
                               const pbd_rigid_state *s, const pbd_material *m)
{
    if (!(isfinite(radius) && radius > 0.0)) {
        pbd_error(PBD_EINVAL, "rigid sphere: radius must be finite and > 0, found %g", radius);
        return -1;
    }
    shape sh = {.kind = SHAPE_SPHERE, .radius = radius};
    double I = 0.4 * mass * radius * radius; /* solid sphere: 2/5 M r² */
    const double inertia[3] = {I, I, I};
    return add_body(w, &sh, mass, inertia, s, m, 0, "rigid sphere");
}

int pbd_world_add_rigid_box(pbd_world *w, const double half[3], double mass,
                            const pbd_rigid_state *s, const pbd_material *m)
{
    shape sh;
    if (collision_box_shape(&sh, s->x, half, s->q, "rigid box") != 0) return -1;
    /* solid box with edges a = 2 half: I_x = M (a_y² + a_z²) / 12 = M (h_y² + h_z²) / 3 */
    const double inertia[3] = {mass * (half[1] * half[1] + half[2] * half[2]) / 3.0,
                               mass * (half[0] * half[0] + half[2] * half[2]) / 3.0,
                               mass * (half[0] * half[0] + half[1] * half[1]) / 3.0};
    return add_body(w, &sh, mass, inertia, s, m, 8, "rigid box");
}

int pbd_world_rigid_count(const pbd_world *w) { return w->collision ? w->collision->n_bodies : 0; }

static int bad_body(const pbd_world *w, int body)
{
    if (w->collision && body >= 0 && body < w->collision->n_bodies) return 0;
    pbd_error(PBD_EINVAL, "rigid body: index must be in [0, %d), found %d",
              pbd_world_rigid_count(w), body);
    return 1;
}

pbd_status pbd_world_rigid_get(const pbd_world *w, int body, pbd_rigid_state *s)
{
    if (bad_body(w, body)) return PBD_EINVAL;
    const rigid_body *b = &w->collision->bodies[body];
    v3_copy(s->x, b->x);
    memcpy(s->q, b->q, sizeof s->q);
    v3_copy(s->v, b->v);
    rigid_omega(b, b->q, s->omega);
    return PBD_OK;
}

pbd_status pbd_world_rigid_set(pbd_world *w, int body, const pbd_rigid_state *s)
{
    if (bad_body(w, body)) return PBD_EINVAL;
    if (check_state(s, "rigid body") != 0) return PBD_EINVAL;
    body_set_state(w, body, s);
    return PBD_OK;
}

double pbd_world_rigid_mass(const pbd_world *w, int body)
{
    return bad_body(w, body) ? NAN : w->collision->bodies[body].mass;
}

int pbd_world_rigid_collider(const pbd_world *w, int body)
{
    return bad_body(w, body) ? -1 : w->collision->bodies[body].collider;
}

void pbd_world_total_momentum(const pbd_world *w, double lin[3], double ang[3])
{
    pbd_momentum(w, w->x, w->v, lin, ang);
    for (int bi = 0; bi < pbd_world_rigid_count(w); bi++) {
        const rigid_body *b = &w->collision->bodies[bi];
        double P[3], xP[3];
        v3_scale(P, b->v, b->mass);
        v3_cross(xP, b->x, P);
        v3_add(lin, lin, P);
        v3_add(ang, ang, xP);
        v3_add(ang, ang, b->L);
    }
}
