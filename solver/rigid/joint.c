/* Joints (paper Sec. 3.4): fixed, ball (spherical) and hinge with angle limits, each a
 * positional constraint on the joint points and angular constraints on the orientations; the
 * checks of every kind, and the dispatch to the prismatic joint, the ball's swing and twist
 * limits and the drives (joint_prismatic.c, joint_limits.c, joint_drive.c). */
#include "rigid_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *kind_name(pbd_joint_kind k)
{
    return k == PBD_JOINT_FIXED ? "fixed" : k == PBD_JOINT_BALL ? "ball"
           : k == PBD_JOINT_HINGE ? "hinge" : "prismatic";
}

static int finite_nonneg(double a) { return a >= 0.0 && isfinite(a); }

/* The checks of the prismatic joint, the ball's swing and twist limits and the drives;
 * 0 or -1 with pbd_error naming the field */
static int check_extensions(pbd_rigid_joint *j, const char *name)
{
    if ((j->has_swing_limit || j->has_twist_limit) && j->kind != PBD_JOINT_BALL) {
        pbd_error(PBD_EINVAL, "%s joint has_swing_limit/has_twist_limit: expected 0 (only the "
                  "ball joint has swing and twist limits), found %d/%d", name,
                  j->has_swing_limit, j->has_twist_limit);
        return -1;
    }
    if (j->kind == PBD_JOINT_BALL && j->has_swing_limit &&
        !(j->swing_limit >= 0.0 && j->swing_limit <= M_PI)) {
        pbd_error(PBD_EINVAL, "ball joint swing_limit: expected 0 <= swing_limit <= pi rad, "
                  "found %g", j->swing_limit);
        return -1;
    }
    if (j->kind == PBD_JOINT_BALL && j->has_twist_limit &&
        !(j->twist_lower <= j->twist_upper && j->twist_lower >= -M_PI && j->twist_upper <= M_PI)) {
        pbd_error(PBD_EINVAL, "ball joint twist limits: expected -pi <= twist_lower <= "
                  "twist_upper <= pi rad, found twist_lower %g, twist_upper %g", j->twist_lower,
                  j->twist_upper);
        return -1;
    }
    if (j->kind == PBD_JOINT_PRISMATIC) {
        double n = v3_norm(j->axis[0]);
        if (!(n > 1e-12 && isfinite(n))) {
            pbd_error(PBD_EINVAL, "prismatic joint axis[0]: expected a non-zero finite slider "
                      "direction in body 1's frame, found (%g, %g, %g)", j->axis[0][0],
                      j->axis[0][1], j->axis[0][2]);
            return -1;
        }
        v3_scale(j->axis[0], j->axis[0], 1.0 / n);
        if (j->has_limit && !(j->lower <= j->upper && isfinite(j->lower) && isfinite(j->upper))) {
            pbd_error(PBD_EINVAL, "prismatic joint limits: expected finite lower <= upper m, "
                      "found lower %g, upper %g", j->lower, j->upper);
            return -1;
        }
    }
    if (j->drive == PBD_DRIVE_NONE) return 0;
    if (j->drive != PBD_DRIVE_POSITION && j->drive != PBD_DRIVE_VELOCITY) {
        pbd_error(PBD_EINVAL, "%s joint drive: expected none, position or velocity, found %d",
                  name, (int)j->drive);
        return -1;
    }
    if (j->kind != PBD_JOINT_HINGE && j->kind != PBD_JOINT_PRISMATIC) {
        pbd_error(PBD_EINVAL, "%s joint drive: expected none (only hinge and prismatic joints "
                  "have drives), found %s", name,
                  j->drive == PBD_DRIVE_POSITION ? "position" : "velocity");
        return -1;
    }
    if (!finite_nonneg(j->drive_compliance) || !finite_nonneg(j->drive_damping)) {
        pbd_error(PBD_EINVAL, "%s joint drive_compliance, drive_damping: expected >= 0 and "
                  "finite, found %g and %g", name, j->drive_compliance, j->drive_damping);
        return -1;
    }
    int angle = j->kind == PBD_JOINT_HINGE && j->drive == PBD_DRIVE_POSITION;
    if (!isfinite(j->drive_target) ||
        (angle && !(j->drive_target >= -M_PI && j->drive_target <= M_PI))) {
        pbd_error(PBD_EINVAL, "%s joint drive_target: expected %s, found %g", name,
                  angle ? "an angle in [-pi, pi] rad" : "a finite value", j->drive_target);
        return -1;
    }
    return 0;
}

/* a unit v; b made unit and normal to a (Gram–Schmidt); 0 when a is zero or b ∥ a */
static int orthonormalise(double a[3], double b[3])
{
    double na = v3_norm(a);
    if (!(na > 1e-12)) return 0;
    v3_scale(a, a, 1.0 / na);
    v3_axpy(b, -v3_dot(a, b), a);
    double nb = v3_norm(b);
    if (!(nb > 1e-9)) return 0; /* b within ~1e-9 rad of the axis: no angle reference */
    v3_scale(b, b, 1.0 / nb);
    return 1;
}

int pbd_rigid_add_joint(pbd_rigid_world *w, const pbd_rigid_joint *in)
{
    pbd_rigid_joint j = *in;
    const char *name = kind_name(j.kind);
    if (j.kind != PBD_JOINT_FIXED && j.kind != PBD_JOINT_BALL && j.kind != PBD_JOINT_HINGE &&
        j.kind != PBD_JOINT_PRISMATIC) {
        pbd_error(PBD_EINVAL, "rigid joint kind: expected fixed, ball, hinge or prismatic, "
                  "found %d", (int)j.kind);
        return -1;
    }
    for (int s = 0; s < 2; s++)
        if (j.body[s] < 0 || j.body[s] >= w->n_bodies) {
            pbd_error(PBD_EINVAL, "%s joint body %d: expected a body index in 0..%d, found %d",
                      name, s + 1, w->n_bodies - 1, j.body[s]);
            return -1;
        }
    if (j.body[0] == j.body[1]) {
        pbd_error(PBD_EINVAL, "%s joint: expected two different bodies, found body %d joined to "
                  "itself", name, j.body[0]);
        return -1;
    }
    if (!rigid_dynamic(&w->bodies[j.body[0]]) && !rigid_dynamic(&w->bodies[j.body[1]])) {
        pbd_error(PBD_EINVAL, "%s joint: expected at least one dynamic body, found bodies %d and "
                  "%d both fixed", name, j.body[0], j.body[1]);
        return -1;
    }
    if (!(j.compliance >= 0.0 && isfinite(j.compliance)) ||
        !(j.angular_compliance >= 0.0 && isfinite(j.angular_compliance))) {
        pbd_error(PBD_EINVAL, "%s joint compliance: expected >= 0 and finite, found %g m/N and "
                  "%g rad/(N m)", name, j.compliance, j.angular_compliance);
        return -1;
    }
    if (!(j.damping >= 0.0 && isfinite(j.damping)) ||
        !(j.angular_damping >= 0.0 && isfinite(j.angular_damping))) {
        pbd_error(PBD_EINVAL, "%s joint damping: expected >= 0 and finite, found %g 1/s and "
                  "%g 1/s (angular)", name, j.damping, j.angular_damping);
        return -1;
    }
    if (j.kind == PBD_JOINT_HINGE ||
        (j.kind == PBD_JOINT_BALL && (j.has_swing_limit || j.has_twist_limit))) {
        for (int s = 0; s < 2; s++)
            if (!orthonormalise(j.axis[s], j.ref[s])) {
                pbd_error(PBD_EINVAL, "%s joint body %d: expected a non-zero axis and a "
                          "reference vector not parallel to it, found axis (%g, %g, %g), "
                          "reference (%g, %g, %g)", name, s + 1, in->axis[s][0], in->axis[s][1],
                          in->axis[s][2], in->ref[s][0], in->ref[s][1], in->ref[s][2]);
                return -1;
            }
        if (j.has_limit && !(j.lower <= j.upper && j.lower >= -M_PI && j.upper <= M_PI)) {
            pbd_error(PBD_EINVAL, "hinge joint limits: expected -pi <= lower <= upper <= pi rad, "
                      "found lower %g, upper %g", j.lower, j.upper);
            return -1;
        }
    }
    if (check_extensions(&j, name)) return -1;
    /* the fixed joint's rest: q_rel = q2⁻¹ q1 at creation */
    const double *q1 = w->bodies[j.body[0]].q, *q2 = w->bodies[j.body[1]].q;
    double q2c[4] = {q2[0], -q2[1], -q2[2], -q2[3]};
    pbd_quat_mul(q2c, q1, j.q_rel);
    memset(j.lambda, 0, sizeof j.lambda);
    j.drive_at = j.drive == PBD_DRIVE_VELOCITY
                 ? rigid_drive_coordinate(&j, &w->bodies[j.body[0]], &w->bodies[j.body[1]], 0)
                 : 0.0;
    pbd_rigid_joint *a = realloc(w->joints, ((size_t)w->n_joints + 1) * sizeof *a);
    if (!a) {
        pbd_error(PBD_ENOMEM, "rigid world: out of memory for %d joints", w->n_joints + 1);
        return -1;
    }
    w->joints = a;
    w->joints[w->n_joints] = j;
    return w->n_joints++;
}

/* The world rotation vector 2 vec(d) (sign of d_w) of the unit quaternion d, to first order
 * the rotation's angle times axis (the paper's Δq_fixed = 2 (q1 q2⁻¹)_xyz) */
static void rotation_vector(const double d[4], double out[3])
{
    double s = d[0] < 0.0 ? -2.0 : 2.0;
    out[0] = s * d[1]; out[1] = s * d[2]; out[2] = s * d[3];
}

void rigid_fixed_rotation(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                          const pbd_rigid_body *b2, double dtheta[3])
{
    double t[4], d[4];
    pbd_quat_mul(b2->q, j->q_rel, t);
    double tc[4] = {t[0], -t[1], -t[2], -t[3]};
    pbd_quat_mul(b1->q, tc, d);
    rotation_vector(d, dtheta);
}

double pbd_rigid_hinge_angle(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                             const pbd_rigid_body *b2)
{
    double a1[3], u1[3], u2[3], c[3];
    pbd_quat_rotate(b1->q, j->axis[0], a1);
    pbd_quat_rotate(b1->q, j->ref[0], u1);
    pbd_quat_rotate(b2->q, j->ref[1], u2);
    v3_cross(c, u1, u2);
    return atan2(v3_dot(c, a1), v3_dot(u1, u2));
}

static void solve_joint(pbd_rigid_world *w, pbd_rigid_joint *j, double h)
{
    pbd_rigid_body *b1 = &w->bodies[j->body[0]], *b2 = &w->bodies[j->body[1]];
    if (j->kind == PBD_JOINT_PRISMATIC) {
        rigid_prismatic_solve(j, b1, b2, h);
        if (j->drive != PBD_DRIVE_NONE) rigid_drive_solve(j, b1, b2, h);
        return;
    }
    if (j->kind == PBD_JOINT_BALL && (j->has_swing_limit || j->has_twist_limit))
        rigid_swing_twist_solve(j, b1, b2, h);
    if (j->kind == PBD_JOINT_FIXED) {
        double dtheta[3];
        rigid_fixed_rotation(j, b1, b2, dtheta);
        pbd_rigid_correct_angular(b1, b2, dtheta, j->angular_compliance, h, &j->lambda[1]);
    } else if (j->kind == PBD_JOINT_HINGE) {
        /* align the axes: body 1's axis is rotated from body 2's about a2 × a1 (by the sine
         * of the angle between them: the first-order violation) */
        double a1[3], a2[3], dtheta[3];
        pbd_quat_rotate(b1->q, j->axis[0], a1);
        pbd_quat_rotate(b2->q, j->axis[1], a2);
        v3_cross(dtheta, a2, a1);
        pbd_rigid_correct_angular(b1, b2, dtheta, j->angular_compliance, h, &j->lambda[1]);
        if (j->has_limit) {
            double phi = pbd_rigid_hinge_angle(j, b1, b2);
            double target = phi < j->lower ? j->lower : phi > j->upper ? j->upper : phi;
            if (target != phi) {
                /* body 2 is at φ about a1 relative to body 1: body 1 is at −φ relative to
                 * body 2, too much by (target − φ) */
                pbd_quat_rotate(b1->q, j->axis[0], a1);
                v3_scale(dtheta, a1, target - phi);
                pbd_rigid_correct_angular(b1, b2, dtheta, 0.0, h, &j->lambda[2]);
            }
        }
    }
    /* the joint points coincide: dx = p1 − p2 */
    double r1[3], r2[3], dx[3];
    rigid_world_offset(b1, j->anchor[0], r1);
    rigid_world_offset(b2, j->anchor[1], r2);
    for (int k = 0; k < 3; k++) dx[k] = (b1->x[k] + r1[k]) - (b2->x[k] + r2[k]);
    pbd_rigid_correct_positional(b1, b2, r1, r2, dx, j->compliance, h, &j->lambda[0]);
    /* the drive last: its steady state under a load is then the load × compliance */
    if (j->drive != PBD_DRIVE_NONE) rigid_drive_solve(j, b1, b2, h);
}

void rigid_joints_begin_substep(pbd_rigid_world *w, double h)
{
    for (int i = 0; i < w->n_joints; i++) {
        pbd_rigid_joint *j = &w->joints[i];
        memset(j->lambda, 0, sizeof j->lambda);
        if (j->drive != PBD_DRIVE_VELOCITY) continue;
        j->drive_at += j->drive_target * h;
        if (j->kind == PBD_JOINT_HINGE) j->drive_at = rigid_wrap_angle(j->drive_at);
    }
}

void rigid_joints_solve(pbd_rigid_world *w, double h)
{
    for (int i = 0; i < w->n_joints; i++) solve_joint(w, &w->joints[i], h);
}

/* Joint damping (Sec. 3.6): Δv = (v2 − v1) min(μ_lin h, 1) of the joint points and Δω =
 * (ω2 − ω1) min(μ_ang h, 1), each applied as the impulse Δv/(w1 + w2) along its direction
 * (μ in 1/s: μ h is a number) */
void rigid_joints_solve_velocities(pbd_rigid_world *w, double h)
{
    for (int i = 0; i < w->n_joints; i++) {
        const pbd_rigid_joint *j = &w->joints[i];
        pbd_rigid_body *b1 = &w->bodies[j->body[0]], *b2 = &w->bodies[j->body[1]];
        if (j->damping > 0.0) {
            double r1[3], r2[3], v[3], v2[3], t[3];
            rigid_world_offset(b1, j->anchor[0], r1);
            rigid_world_offset(b2, j->anchor[1], r2);
            v3_cross(t, b1->omega, r1);
            v3_add(v, b1->v, t);
            v3_cross(t, b2->omega, r2);
            v3_add(v2, b2->v, t);
            v3_sub(v, v, v2); /* v1 − v2 at the joint points */
            double speed = v3_norm(v);
            if (speed > 0.0) {
                double n[3], p[3];
                v3_scale(n, v, 1.0 / speed);
                double wsum = pbd_rigid_inverse_mass_positional(b1, r1, n) +
                              pbd_rigid_inverse_mass_positional(b2, r2, n);
                double dv = speed * fmin(j->damping * h, 1.0);
                if (wsum > 0.0) {
                    v3_scale(p, n, -dv / wsum);
                    pbd_rigid_apply_impulse(b1, b2, r1, r2, p);
                }
            }
        }
        if (j->angular_damping > 0.0) {
            double dw[3];
            v3_sub(dw, b1->omega, b2->omega);
            double rate = v3_norm(dw);
            if (!(rate > 0.0)) continue;
            double n[3], L[3], t[3];
            v3_scale(n, dw, 1.0 / rate);
            double wsum = pbd_rigid_inverse_mass_angular(b1, n) +
                          pbd_rigid_inverse_mass_angular(b2, n);
            if (!(wsum > 0.0)) continue;
            v3_scale(L, n, -rate * fmin(j->angular_damping * h, 1.0) / wsum);
            if (rigid_dynamic(b1)) {
                pbd_rigid_inv_inertia_apply(b1, L, t);
                v3_axpy(b1->omega, 1.0, t); /* ω1 += I1⁻¹ L */
            }
            if (rigid_dynamic(b2)) {
                pbd_rigid_inv_inertia_apply(b2, L, t);
                v3_axpy(b2->omega, -1.0, t); /* ω2 −= I2⁻¹ L */
            }
        }
    }
}
