/* The hinge (Sec. 3.4.1, 3.4.2): the axes aligned, the angle kept within its limits, the
 * joint points (joint_point.c), and its drive (joint_drive.c).
 *
 * Alignment: v = a2 × a1 (body 1's axis is turned from body 2's about v by ψ), C = |v| =
 * sin ψ, n = v/C; with δa_i = δθ_i × a_i, ∇C = (0, cos ψ n, 0, −cos ψ n), cos ψ = a1·a2. The
 * correction turns along n itself, the first-order gradient.
 * Limit: the angle φ = atan2(s, c) of body 2 about a1 relative to body 1, s = (u1 × u2)·a1,
 * c = u1·u2 (u_i the references), clamped: C = φ_c − φ (body 1 has C a1 too much), α = 0,
 * only when outside; ∇φ = (c ∇s − s ∇c)/(s² + c²) below, which is (0, −a1, 0, a1) when the
 * axes are aligned. */
#include "rigid_private.h"

#include <math.h>

static void axes(const pbd_rigid_joint *j, const pbd_rigid_body *b1, const pbd_rigid_body *b2,
                 double a1[3], double a2[3])
{
    pbd_quat_rotate(b1->q, j->axis[0], a1);
    pbd_quat_rotate(b2->q, j->axis[1], a2);
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

/* ∂s/∂θ1 = u1 × (u2 × a1) + a1 × (u1 × u2), ∂s/∂θ2 = u2 × (a1 × u1), ∂c/∂θ1 = u1 × u2 =
 * −∂c/∂θ2 (δu_i = δθ_i × u_i, δa1 = δθ1 × a1; a·(b × c) rearranged) */
void rigid_hinge_angle_gradient(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                                const pbd_rigid_body *b2, double g[12])
{
    double a1[3], u1[3], u2[3], w[3], t[3], ds1[3], ds2[3];
    pbd_quat_rotate(b1->q, j->axis[0], a1);
    pbd_quat_rotate(b1->q, j->ref[0], u1);
    pbd_quat_rotate(b2->q, j->ref[1], u2);
    v3_cross(w, u1, u2);
    double s = v3_dot(w, a1), c = v3_dot(u1, u2), r2 = s * s + c * c;
    v3_cross(t, u2, a1);
    v3_cross(ds1, u1, t);
    v3_cross(t, a1, w);
    v3_add(ds1, ds1, t);
    v3_cross(t, a1, u1);
    v3_cross(ds2, u2, t);
    double g1[3], g2[3];
    for (int k = 0; k < 3; k++) {
        g1[k] = (c * ds1[k] - s * w[k]) / r2;
        g2[k] = (c * ds2[k] + s * w[k]) / r2;
    }
    rigid_gradient_pair(g, NULL, g1, NULL, g2);
}

static int alignment_eval(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                          const pbd_rigid_body *b2, double *C, double g[12])
{
    double a1[3], a2[3], n[3], t1[3], t2[3];
    axes(j, b1, b2, a1, a2);
    v3_cross(n, a2, a1);
    *C = v3_norm(n);
    rigid_gradient_pair(g, NULL, NULL, NULL, NULL);
    if (!(*C > 0.0)) return 1;
    double cs = v3_dot(a1, a2);
    v3_scale(t1, n, cs / *C);
    v3_scale(t2, n, -cs / *C);
    rigid_gradient_pair(g, NULL, t1, NULL, t2);
    return 0;
}

static void alignment_project(pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2,
                              double h)
{
    double a1[3], a2[3], dtheta[3];
    axes(j, b1, b2, a1, a2);
    v3_cross(dtheta, a2, a1);
    pbd_rigid_correct_angular(b1, b2, dtheta, j->angular_compliance, h, &j->lambda[1]);
}

const pbd_rigid_joint_row rigid_row_hinge_alignment = {
    "hinge_alignment", 1, PBD_JOINT_ALPHA_ANGULAR, alignment_eval, alignment_project,
};

/* The clamped angle minus the angle: 0 inside the limits or without them */
static double limit_violation(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                              const pbd_rigid_body *b2)
{
    if (!j->has_limit) return 0.0;
    double phi = pbd_rigid_hinge_angle(j, b1, b2);
    double target = phi < j->lower ? j->lower : phi > j->upper ? j->upper : phi;
    return target - phi;
}

static int limit_eval(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                      const pbd_rigid_body *b2, double *C, double g[12])
{
    return rigid_limit_row(limit_violation(j, b1, b2), rigid_hinge_angle_gradient, j, b1, b2, C,
                           g);
}

/* body 2 is at φ about a1 relative to body 1: body 1 is at −φ relative to body 2, too much
 * by (φ_c − φ) */
static void limit_project(pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2, double h)
{
    double c = limit_violation(j, b1, b2);
    if (c == 0.0) return;
    double a1[3], dtheta[3];
    pbd_quat_rotate(b1->q, j->axis[0], a1);
    v3_scale(dtheta, a1, c);
    pbd_rigid_correct_angular(b1, b2, dtheta, 0.0, h, &j->lambda[2]);
}

const pbd_rigid_joint_row rigid_row_hinge_limit = {
    "hinge_limit", 2, PBD_JOINT_ALPHA_NONE, limit_eval, limit_project,
};

static int check(pbd_rigid_joint *j, const pbd_rigid_joint *in)
{
    if (rigid_joint_axes_and_limits(j, in, "hinge")) return -1;
    return rigid_joint_no_swing_twist(j, "hinge");
}

const pbd_rigid_joint_type rigid_joint_hinge = {
    "hinge", check, 4,
    {&rigid_row_hinge_alignment, &rigid_row_hinge_limit, &rigid_row_point, &rigid_row_hinge_drive},
    rigid_joint_damping, &rigid_drive_hinge,
};
