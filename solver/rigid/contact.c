/* Contacts with the ground plane (paper Sec. 3.5 and 3.6): the non-penetration constraint and
 * static friction in the position solve, dynamic friction and restitution in the velocity
 * solve. The ground is a fixed plane y = ground_height with normal n = +y. */
#include "rigid_private.h"

#include <math.h>

static const double up[3] = {0.0, 1.0, 0.0};

static void add(pbd_rigid_world *w, int body, const double r[3])
{
    pbd_rigid_contact *c = &w->contacts[w->n_contacts++];
    c->body = body;
    v3_copy(c->r, r);
    c->lambda_n = c->lambda_t = 0.0;
}

/* the body-frame point at world offset −radius n from the body-frame point at */
static void lowest_of_ball(const pbd_rigid_body *b, const double at[3], double radius,
                           double r[3])
{
    double down[3] = {0.0, -radius, 0.0}, l[3];
    pbd_quat_rotate_inv(b->q, down, l);
    v3_add(r, at, l);
}

/* Every substep, at the predicted poses: a sphere's lowest point, a box's 8 corners, a
 * capsule's two end spheres' lowest points (body frame; a point becomes a contact of the
 * solve only while it is under the plane). */
void rigid_contacts_generate(pbd_rigid_world *w)
{
    w->n_contacts = 0;
    if (!w->ground) return;
    for (int i = 0; i < w->n_bodies; i++) {
        const pbd_rigid_body *b = &w->bodies[i];
        if (!rigid_dynamic(b)) continue;
        const pbd_rigid_shape *s = &b->shape;
        double r[3], zero[3] = {0, 0, 0};
        if (s->kind == PBD_RIGID_SPHERE) {
            lowest_of_ball(b, zero, s->radius, r);
            add(w, i, r);
        } else if (s->kind == PBD_RIGID_BOX) {
            for (int k = 0; k < 8; k++) {
                for (int a = 0; a < 3; a++) r[a] = (k >> a & 1) ? s->half[a] : -s->half[a];
                add(w, i, r);
            }
        } else if (s->kind == PBD_RIGID_CAPSULE) {
            for (int e = -1; e <= 1; e += 2) {
                double end[3] = {e * s->half[0], 0.0, 0.0};
                lowest_of_ball(b, end, s->radius, r);
                add(w, i, r);
            }
        }
    }
}

/* The penetration d = ground − p·n of the contact point (> 0: inside) and its world offset */
static double depth(const pbd_rigid_world *w, const pbd_rigid_body *b, const double rb[3],
                    double r[3])
{
    rigid_world_offset(b, rb, r);
    return w->ground_height - (b->x[1] + r[1]);
}

void rigid_contacts_solve_positions(pbd_rigid_world *w, double h)
{
    for (int i = 0; i < w->n_contacts; i++) {
        pbd_rigid_contact *c = &w->contacts[i];
        pbd_rigid_body *b = &w->bodies[c->body];
        double r[3];
        double d = depth(w, b, c->r, r);
        if (d <= 0.0) continue;
        /* non-penetration: dx = p1 − p2 = −d n, α = 0 */
        double dx[3] = {-d * up[0], -d * up[1], -d * up[2]};
        pbd_rigid_correct_positional(b, NULL, r, r, dx, 0.0, h, &c->lambda_n);
        /* static friction: the contact point's tangential move over the substep,
         * Δp_t of Δp = (p1 − p̄1) − (p2 − p̄2) with p̄ at the substep's start and the ground
         * still, is undone while |λ_t| stays within μ_s |λ_n| */
        if (!(b->static_friction > 0.0)) continue;
        double rp[3], p[3], pbar[3], dp[3];
        rigid_world_offset(b, c->r, r);
        pbd_quat_rotate(b->q_prev, c->r, rp);
        v3_add(p, b->x, r);
        v3_add(pbar, b->x_prev, rp);
        v3_sub(dp, p, pbar);
        v3_axpy(dp, -v3_dot(dp, up), up);
        double dt = v3_norm(dp);
        if (!(dt > 0.0)) continue;
        double t[3];
        v3_scale(t, dp, 1.0 / dt);
        double wt = pbd_rigid_inverse_mass_positional(b, r, t);
        double tentative = c->lambda_t - dt / wt; /* Δλ_t of α = 0 */
        if (fabs(tentative) < b->static_friction * fabs(c->lambda_n))
            pbd_rigid_correct_positional(b, NULL, r, r, dp, 0.0, h, &c->lambda_t);
    }
}

void rigid_contacts_solve_velocities(pbd_rigid_world *w, double h)
{
    double g = v3_norm(w->gravity);
    for (int i = 0; i < w->n_contacts; i++) {
        pbd_rigid_contact *c = &w->contacts[i];
        if (c->lambda_n == 0.0) continue; /* not in contact during this substep's solve */
        pbd_rigid_body *b = &w->bodies[c->body];
        double r[3], wr[3], v[3];
        rigid_world_offset(b, c->r, r);
        /* v = v1 + ω1 × r1 (the ground is still) */
        v3_cross(wr, b->omega, r);
        v3_add(v, b->v, wr);
        double vn = v3_dot(v, up), vt[3];
        v3_copy(vt, v);
        v3_axpy(vt, -vn, up);
        double vt_norm = v3_norm(vt);
        /* dynamic friction: the normal force f_n = λ_n/h² (N) for the substep gives the
         * tangential impulse h μ_d |f_n| (kg m/s), i.e. the velocity change w_t h μ_d |f_n|
         * of the contact point (README errata: the paper prints it without w_t) */
        if (vt_norm > 0.0 && b->dynamic_friction > 0.0) {
            double t[3];
            v3_scale(t, vt, 1.0 / vt_norm);
            double wt = pbd_rigid_inverse_mass_positional(b, r, t);
            double fn = fabs(c->lambda_n) / (h * h);
            double limit = h * b->dynamic_friction * fn;
            if (w->friction_form == PBD_RIGID_FRICTION_CONSISTENT) limit *= wt;
            double dv = vt_norm < limit ? vt_norm : limit;
            double p[3];
            v3_scale(p, t, -dv / wt); /* p = Δv/(w1 + w2) */
            pbd_rigid_apply_impulse(b, NULL, r, r, p);
            v3_cross(wr, b->omega, r);
            v3_add(v, b->v, wr);
            vn = v3_dot(v, up);
        }
        /* restitution: the normal velocity becomes −e ṽ_n of the pre-solve velocities, with
         * e = 0 when |ṽ_n| <= 2|g|h (resting contact) */
        double pre[3];
        v3_cross(pre, b->omega_pre, r);
        v3_add(pre, pre, b->v_pre);
        double vn_pre = v3_dot(pre, up);
        double e = fabs(vn_pre) <= 2.0 * g * h ? 0.0 : b->restitution;
        double target = -e * vn_pre > 0.0 ? -e * vn_pre : 0.0;
        double wn = pbd_rigid_inverse_mass_positional(b, r, up);
        double p[3];
        v3_scale(p, up, (target - vn) / wn);
        pbd_rigid_apply_impulse(b, NULL, r, r, p);
    }
}
