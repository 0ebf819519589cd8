/* The prismatic (slider) joint: the orientations held as the fixed joint's (Sec. 3.4.1,
 * joint_fixed.c), the joint points' offset normal to body 1's axis removed (Sec. 3.3.1) and,
 * with limits, the offset along it kept in [lower, upper] only when outside (as the hinge's
 * limits, Sec. 3.4.2); its drive (joint_drive.c).
 *
 * Body 1's lever is r1 = p2 − x1 (README "Conventions"). With dx = p1 − p2 and
 * a1 = R1 axis[0]: normal offset C = |dx − (dx·a1) a1|, n its direction, ∇C = (n, r1 × n,
 * −n, −r2 × n) exactly (a1 turning with body 1 adds (dx·a1) a1 to the lever); the offset
 * d = (p2 − p1)·a1 has ∇d = (−a1, −r1 × a1, a1, r2 × a1), and the limit C = d_c − d. */
#include "rigid_private.h"

#include <math.h>

double pbd_rigid_slider_offset(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                               const pbd_rigid_body *b2)
{
    double a1[3], r1[3], r2[3], d[3];
    pbd_quat_rotate(b1->q, j->axis[0], a1);
    rigid_world_offset(b1, j->anchor[0], r1);
    rigid_world_offset(b2, j->anchor[1], r2);
    for (int k = 0; k < 3; k++) d[k] = (b2->x[k] + r2[k]) - (b1->x[k] + r1[k]);
    return v3_dot(d, a1);
}

/* The violation dx = p1 − p2 of the joint points, and body 1's lever to p2 (ours: both
 * impulses act at the one point p2, so the pair has no moment and L is kept as by the other
 * joints; body 1's point p1 may lie anywhere along the axis from it) */
static void points(const pbd_rigid_joint *j, const pbd_rigid_body *b1, const pbd_rigid_body *b2,
                   double dx[3], double r1[3], double r2[3])
{
    double p1[3];
    rigid_world_offset(b1, j->anchor[0], p1);
    rigid_world_offset(b2, j->anchor[1], r2);
    for (int k = 0; k < 3; k++) {
        p1[k] += b1->x[k];
        double p2 = b2->x[k] + r2[k];
        dx[k] = p1[k] - p2;
        r1[k] = p2 - b1->x[k];
    }
}

void rigid_slider_offset_gradient(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                                  const pbd_rigid_body *b2, double g[12])
{
    double a1[3], dx[3], r1[3], r2[3], m[3], t1[3], t2[3];
    pbd_quat_rotate(b1->q, j->axis[0], a1);
    points(j, b1, b2, dx, r1, r2);
    v3_scale(m, a1, -1.0);
    v3_cross(t1, a1, r1);
    v3_cross(t2, r2, a1);
    rigid_gradient_pair(g, m, t1, a1, t2);
}

/* the offset normal to the axis, dx − (dx·a1) a1, and the levers */
static void normal_offset(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                          const pbd_rigid_body *b2, double perp[3], double r1[3], double r2[3])
{
    double a1[3], dx[3];
    pbd_quat_rotate(b1->q, j->axis[0], a1);
    points(j, b1, b2, dx, r1, r2);
    v3_copy(perp, dx);
    v3_axpy(perp, -v3_dot(dx, a1), a1);
}

static int normal_eval(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                       const pbd_rigid_body *b2, double *C, double g[12])
{
    double perp[3], r1[3], r2[3];
    normal_offset(j, b1, b2, perp, r1, r2);
    return rigid_distance_row(perp, r1, r2, C, g);
}

static void normal_project(pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2, double h)
{
    double perp[3], r1[3], r2[3];
    normal_offset(j, b1, b2, perp, r1, r2);
    pbd_rigid_correct_positional(b1, b2, r1, r2, perp, j->compliance, h, &j->lambda[0]);
}

const pbd_rigid_joint_row rigid_row_slider_normal = {
    "slider_normal", 0, PBD_JOINT_ALPHA_POSITIONAL, normal_eval, normal_project,
};

/* The clamped offset minus the offset d = (p2 − p1)·a1 (0 inside or without limits) */
static double limit_violation(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                              const pbd_rigid_body *b2, double a1[3], double r1[3],
                              double r2[3])
{
    if (!j->has_limit) return 0.0;
    double dx[3];
    pbd_quat_rotate(b1->q, j->axis[0], a1);
    points(j, b1, b2, dx, r1, r2);
    double off = -v3_dot(dx, a1);
    double target = off < j->lower ? j->lower : off > j->upper ? j->upper : off;
    return target - off;
}

static int limit_eval(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                      const pbd_rigid_body *b2, double *C, double g[12])
{
    double a1[3], r1[3], r2[3];
    return rigid_limit_row(limit_violation(j, b1, b2, a1, r1, r2), rigid_slider_offset_gradient,
                           j, b1, b2, C, g);
}

/* body 1 has (d_c − d) a1 too much */
static void limit_project(pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2, double h)
{
    double a1[3], r1[3], r2[3], lim[3];
    double c = limit_violation(j, b1, b2, a1, r1, r2);
    if (c == 0.0) return;
    v3_scale(lim, a1, c);
    pbd_rigid_correct_positional(b1, b2, r1, r2, lim, 0.0, h, &j->lambda[2]);
}

const pbd_rigid_joint_row rigid_row_slider_limit = {
    "slider_limit", 2, PBD_JOINT_ALPHA_NONE, limit_eval, limit_project,
};

static int check(pbd_rigid_joint *j, const pbd_rigid_joint *in)
{
    (void)in;
    if (rigid_joint_no_swing_twist(j, "prismatic")) return -1;
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
    return 0;
}

const pbd_rigid_joint_type rigid_joint_prismatic = {
    "prismatic", check, 4,
    {&rigid_row_fixed_alignment, &rigid_row_slider_normal, &rigid_row_slider_limit,
     &rigid_row_slider_drive},
    rigid_joint_damping, &rigid_drive_slider,
};
