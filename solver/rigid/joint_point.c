/* The joint points coincide (Sec. 3.4, with the positional correction of Sec. 3.3.1): the
 * row of the fixed, ball and hinge joints. C = |p1 − p2| with n = (p1 − p2)/C and
 * ∇C = (n, r1 × n, −n, −r2 × n), r_i = p_i − x_i (δp_i = δx_i + δθ_i × r_i). */
#include "rigid_private.h"

static double points(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                     const pbd_rigid_body *b2, double r1[3], double r2[3], double dx[3])
{
    rigid_world_offset(b1, j->anchor[0], r1);
    rigid_world_offset(b2, j->anchor[1], r2);
    for (int k = 0; k < 3; k++) dx[k] = (b1->x[k] + r1[k]) - (b2->x[k] + r2[k]);
    return v3_norm(dx);
}

static int eval(const pbd_rigid_joint *j, const pbd_rigid_body *b1, const pbd_rigid_body *b2,
                double *C, double g[12])
{
    double r1[3], r2[3], dx[3];
    points(j, b1, b2, r1, r2, dx);
    return rigid_distance_row(dx, r1, r2, C, g);
}

/* the joint points coincide: dx = p1 − p2 */
static void project(pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2, double h)
{
    double r1[3], r2[3], dx[3];
    points(j, b1, b2, r1, r2, dx);
    pbd_rigid_correct_positional(b1, b2, r1, r2, dx, j->compliance, h, &j->lambda[0]);
}

const pbd_rigid_joint_row rigid_row_point = {
    "point", 0, PBD_JOINT_ALPHA_POSITIONAL, eval, project,
};
