/* The prismatic (slider) joint: the orientations held as the fixed joint's (Sec. 3.4.1), the
 * joint points' offset normal to body 1's axis removed (Sec. 3.3.1) and, with limits, the
 * offset along it kept in [lower, upper] only when outside (as the hinge's limits, Sec. 3.4.2). */
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

void rigid_prismatic_solve(pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2, double h)
{
    /* the orientations: the fixed joint's */
    double dtheta[3];
    rigid_fixed_rotation(j, b1, b2, dtheta);
    pbd_rigid_correct_angular(b1, b2, dtheta, j->angular_compliance, h, &j->lambda[1]);
    /* the offset normal to the axis: dx − (dx·a1) a1 */
    double a1[3], dx[3], r1[3], r2[3], perp[3];
    pbd_quat_rotate(b1->q, j->axis[0], a1);
    points(j, b1, b2, dx, r1, r2);
    v3_copy(perp, dx);
    v3_axpy(perp, -v3_dot(dx, a1), a1);
    pbd_rigid_correct_positional(b1, b2, r1, r2, perp, j->compliance, h, &j->lambda[0]);
    if (!j->has_limit) return;
    /* the offset along the axis d = (p2 − p1)·a1 clamped: body 1 has (d_c − d) a1 too much */
    pbd_quat_rotate(b1->q, j->axis[0], a1);
    points(j, b1, b2, dx, r1, r2);
    double off = -v3_dot(dx, a1);
    double target = off < j->lower ? j->lower : off > j->upper ? j->upper : off;
    if (target == off) return;
    double lim[3];
    v3_scale(lim, a1, target - off);
    pbd_rigid_correct_positional(b1, b2, r1, r2, lim, 0.0, h, &j->lambda[2]);
}
