/* The fixed joint (Sec. 3.4.1): the orientations held at their relative rest q_rel, then
 * the joint points (joint_point.c). The alignment row is also the prismatic joint's.
 *
 * Alignment: d = q1 (q2 q_rel)⁻¹, Δθ = 2 vec(d) (sign of d_w; the paper's
 * Δq_fixed = 2 (q1 q2⁻¹)_xyz), C = |Δθ| = 2 sin(φ/2) of the rotation angle φ, n = Δθ/C.
 * With q1 ← exp(δθ1/2) q1, d ← exp(δθ1/2) d and with q2 ← exp(δθ2/2) q2, d ← d exp(−δθ2/2),
 * so ∇C = (0, |d_w| n, 0, −|d_w| n). The correction (Sec. 3.3.2) turns along n itself, the
 * first-order gradient (|d_w| = cos(φ/2) → 1). */
#include "rigid_private.h"

#include <math.h>

void rigid_fixed_rotation(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                          const pbd_rigid_body *b2, double dtheta[3], double *dw)
{
    double t[4], d[4];
    pbd_quat_mul(b2->q, j->q_rel, t);
    double tc[4] = {t[0], -t[1], -t[2], -t[3]};
    pbd_quat_mul(b1->q, tc, d);
    double s = d[0] < 0.0 ? -2.0 : 2.0;
    dtheta[0] = s * d[1]; dtheta[1] = s * d[2]; dtheta[2] = s * d[3];
    if (dw) *dw = fabs(d[0]);
}

static int eval(const pbd_rigid_joint *j, const pbd_rigid_body *b1, const pbd_rigid_body *b2,
                double *C, double g[12])
{
    double n[3], dw, t1[3], t2[3];
    rigid_fixed_rotation(j, b1, b2, n, &dw);
    *C = v3_norm(n);
    rigid_gradient_pair(g, NULL, NULL, NULL, NULL);
    if (!(*C > 0.0)) return 1;
    v3_scale(t1, n, dw / *C);
    v3_scale(t2, n, -dw / *C);
    rigid_gradient_pair(g, NULL, t1, NULL, t2);
    return 0;
}

static void project(pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2, double h)
{
    double dtheta[3];
    rigid_fixed_rotation(j, b1, b2, dtheta, NULL);
    pbd_rigid_correct_angular(b1, b2, dtheta, j->angular_compliance, h, &j->lambda[1]);
}

const pbd_rigid_joint_row rigid_row_fixed_alignment = {
    "fixed_alignment", 1, PBD_JOINT_ALPHA_ANGULAR, eval, project,
};

static int check(pbd_rigid_joint *j, const pbd_rigid_joint *in)
{
    (void)in;
    return rigid_joint_no_swing_twist(j, "fixed");
}

const pbd_rigid_joint_type rigid_joint_fixed = {
    "fixed", check, 2, {&rigid_row_fixed_alignment, &rigid_row_point}, rigid_joint_damping, NULL,
};
