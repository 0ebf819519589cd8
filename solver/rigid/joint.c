/* Joints (paper Sec. 3.4): the checks every type shares, adding a joint, and the solves,
 * each through the joint's type in the catalogue (joint_registry.c): its check, its rows in
 * the position solve, its velocity-solve part. */
#include "rigid_private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int finite_nonneg(double a) { return a >= 0.0 && isfinite(a); }

int rigid_joint_no_swing_twist(const pbd_rigid_joint *j, const char *name)
{
    if (!j->has_swing_limit && !j->has_twist_limit) return 0;
    pbd_error(PBD_EINVAL, "%s joint has_swing_limit/has_twist_limit: expected 0 (only the "
              "ball joint has swing and twist limits), found %d/%d", name, j->has_swing_limit,
              j->has_twist_limit);
    return -1;
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

int rigid_joint_axes_and_limits(pbd_rigid_joint *j, const pbd_rigid_joint *in, const char *name)
{
    for (int s = 0; s < 2; s++)
        if (!orthonormalise(j->axis[s], j->ref[s])) {
            pbd_error(PBD_EINVAL, "%s joint body %d: expected a non-zero axis and a reference "
                      "vector not parallel to it, found axis (%g, %g, %g), reference (%g, %g, "
                      "%g)", name, s + 1, in->axis[s][0], in->axis[s][1], in->axis[s][2],
                      in->ref[s][0], in->ref[s][1], in->ref[s][2]);
            return -1;
        }
    if (j->has_limit && !(j->lower <= j->upper && j->lower >= -M_PI && j->upper <= M_PI)) {
        pbd_error(PBD_EINVAL, "%s joint limits: expected -pi <= lower <= upper <= pi rad, "
                  "found lower %g, upper %g", name, j->lower, j->upper);
        return -1;
    }
    return 0;
}

/* The names of the kinds in the table (with a drive only when drives), "a, b or c" */
static void kind_names(char *out, size_t size, int drives)
{
    int n = 0, total = 0;
    for (int k = 0; k < pbd_rigid_joint_type_count(); k++)
        total += !drives || pbd_rigid_joint_type_of((pbd_joint_kind)k)->drive;
    out[0] = '\0';
    for (int k = 0; k < pbd_rigid_joint_type_count(); k++) {
        const pbd_rigid_joint_type *t = pbd_rigid_joint_type_of((pbd_joint_kind)k);
        if (drives && !t->drive) continue;
        size_t used = strlen(out);
        snprintf(out + used, size - used, "%s%s", n == 0 ? "" : n == total - 1 ?
                 (drives ? " and " : " or ") : ", ", t->name);
        n++;
    }
}

/* The drive's checks: a known drive on a type with one, compliance and damping >= 0, a
 * finite target (an angle's in [-pi, pi]) */
static int check_drive(const pbd_rigid_joint *j, const pbd_rigid_joint_type *t)
{
    if (j->drive == PBD_DRIVE_NONE) return 0;
    if (j->drive != PBD_DRIVE_POSITION && j->drive != PBD_DRIVE_VELOCITY) {
        pbd_error(PBD_EINVAL, "%s joint drive: expected none, position or velocity, found %d",
                  t->name, (int)j->drive);
        return -1;
    }
    if (!t->drive) {
        char names[128];
        kind_names(names, sizeof names, 1);
        pbd_error(PBD_EINVAL, "%s joint drive: expected none (only %s joints have drives), "
                  "found %s", t->name, names,
                  j->drive == PBD_DRIVE_POSITION ? "position" : "velocity");
        return -1;
    }
    if (!finite_nonneg(j->drive_compliance) || !finite_nonneg(j->drive_damping)) {
        pbd_error(PBD_EINVAL, "%s joint drive_compliance, drive_damping: expected >= 0 and "
                  "finite, found %g and %g", t->name, j->drive_compliance, j->drive_damping);
        return -1;
    }
    int angle = t->drive->angular && j->drive == PBD_DRIVE_POSITION;
    if (!isfinite(j->drive_target) ||
        (angle && !(j->drive_target >= -M_PI && j->drive_target <= M_PI))) {
        pbd_error(PBD_EINVAL, "%s joint drive_target: expected %s, found %g", t->name,
                  angle ? "an angle in [-pi, pi] rad" : "a finite value", j->drive_target);
        return -1;
    }
    return 0;
}

/* The checks of every type: the bodies, compliance and damping */
static int check_common(const pbd_rigid_world *w, const pbd_rigid_joint *j, const char *name)
{
    for (int s = 0; s < 2; s++)
        if (j->body[s] < 0 || j->body[s] >= w->n_bodies) {
            pbd_error(PBD_EINVAL, "%s joint body %d: expected a body index in 0..%d, found %d",
                      name, s + 1, w->n_bodies - 1, j->body[s]);
            return -1;
        }
    if (j->body[0] == j->body[1]) {
        pbd_error(PBD_EINVAL, "%s joint: expected two different bodies, found body %d joined to "
                  "itself", name, j->body[0]);
        return -1;
    }
    if (!rigid_dynamic(&w->bodies[j->body[0]]) && !rigid_dynamic(&w->bodies[j->body[1]])) {
        pbd_error(PBD_EINVAL, "%s joint: expected at least one dynamic body, found bodies %d and "
                  "%d both fixed", name, j->body[0], j->body[1]);
        return -1;
    }
    if (!finite_nonneg(j->compliance) || !finite_nonneg(j->angular_compliance)) {
        pbd_error(PBD_EINVAL, "%s joint compliance: expected >= 0 and finite, found %g m/N and "
                  "%g rad/(N m)", name, j->compliance, j->angular_compliance);
        return -1;
    }
    if (!finite_nonneg(j->damping) || !finite_nonneg(j->angular_damping)) {
        pbd_error(PBD_EINVAL, "%s joint damping: expected >= 0 and finite, found %g 1/s and "
                  "%g 1/s (angular)", name, j->damping, j->angular_damping);
        return -1;
    }
    return 0;
}

int pbd_rigid_add_joint(pbd_rigid_world *w, const pbd_rigid_joint *in)
{
    pbd_rigid_joint j = *in;
    const pbd_rigid_joint_type *t = pbd_rigid_joint_type_of(j.kind);
    if (!t) {
        char names[128];
        kind_names(names, sizeof names, 0);
        pbd_error(PBD_EINVAL, "rigid joint kind: expected %s, found %d", names, (int)j.kind);
        return -1;
    }
    if (check_common(w, &j, t->name) || t->check(&j, in) || check_drive(&j, t)) return -1;
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

void rigid_joints_begin_substep(pbd_rigid_world *w, double h)
{
    for (int i = 0; i < w->n_joints; i++) {
        pbd_rigid_joint *j = &w->joints[i];
        memset(j->lambda, 0, sizeof j->lambda);
        if (j->drive != PBD_DRIVE_VELOCITY) continue;
        j->drive_at += j->drive_target * h;
        if (pbd_rigid_joint_type_of(j->kind)->drive->angular)
            j->drive_at = rigid_wrap_angle(j->drive_at);
    }
}

/* Every joint's rows in its type's order (the drive last: its steady state under a load is
 * then the load × compliance, README "Drives") */
void rigid_joints_solve(pbd_rigid_world *w, double h)
{
    for (int i = 0; i < w->n_joints; i++) {
        pbd_rigid_joint *j = &w->joints[i];
        const pbd_rigid_joint_type *t = pbd_rigid_joint_type_of(j->kind);
        pbd_rigid_body *b1 = &w->bodies[j->body[0]], *b2 = &w->bodies[j->body[1]];
        for (int r = 0; r < t->n_rows; r++) t->rows[r]->project(j, b1, b2, h);
    }
}

void rigid_joints_solve_velocities(pbd_rigid_world *w, double h)
{
    for (int i = 0; i < w->n_joints; i++) {
        const pbd_rigid_joint *j = &w->joints[i];
        const pbd_rigid_joint_type *t = pbd_rigid_joint_type_of(j->kind);
        if (t->solve_velocities)
            t->solve_velocities(j, &w->bodies[j->body[0]], &w->bodies[j->body[1]], h);
    }
}

/* Joint damping (Sec. 3.6): Δv = (v2 − v1) min(μ_lin h, 1) of the joint points and Δω =
 * (ω2 − ω1) min(μ_ang h, 1), each applied as the impulse Δv/(w1 + w2) along its direction
 * (μ in 1/s: μ h is a number) */
void rigid_joint_damping(const pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2,
                         double h)
{
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
        if (!(rate > 0.0)) return;
        double n[3], L[3], t[3];
        v3_scale(n, dw, 1.0 / rate);
        double wsum = pbd_rigid_inverse_mass_angular(b1, n) +
                      pbd_rigid_inverse_mass_angular(b2, n);
        if (!(wsum > 0.0)) return;
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

int rigid_distance_row(const double dx[3], const double r1[3], const double r2[3], double *C,
                       double g[12])
{
    double n[3], m[3], t1[3], t2[3];
    *C = v3_norm(dx);
    rigid_gradient_pair(g, NULL, NULL, NULL, NULL);
    if (!(*C > 0.0)) return 1;
    v3_scale(n, dx, 1.0 / *C);
    v3_scale(m, n, -1.0);
    v3_cross(t1, r1, n);
    v3_cross(t2, n, r2);
    rigid_gradient_pair(g, n, t1, m, t2);
    return 0;
}

int rigid_limit_row(double c, void (*coordinate_gradient)(const pbd_rigid_joint *,
                                                          const pbd_rigid_body *,
                                                          const pbd_rigid_body *, double[12]),
                    const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                    const pbd_rigid_body *b2, double *C, double g[12])
{
    *C = c;
    rigid_gradient_pair(g, NULL, NULL, NULL, NULL);
    if (c == 0.0) return 1;
    coordinate_gradient(j, b1, b2, g);
    for (int k = 0; k < 12; k++) g[k] = -g[k];
    return 0;
}

void rigid_gradient_pair(double g[12], const double g1[3], const double t1[3],
                         const double g2[3], const double t2[3])
{
    const double *part[4] = {g1, t1, g2, t2};
    for (int p = 0; p < 4; p++)
        for (int k = 0; k < 3; k++) g[3 * p + k] = part[p] ? part[p][k] : 0.0;
}
