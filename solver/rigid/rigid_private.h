/* Private to solver/rigid/: the 3-vector helpers and the stages of the step. */
#ifndef PBD_RIGID_PRIVATE_H
#define PBD_RIGID_PRIVATE_H

#include "constraints/pbd_constraint.h"
#include "constraints/vec3.h"
#include "solver/rigid/pbd_rigid.h"

#include <float.h>

/* The world offset R(q) r of a body-frame point */
static inline void rigid_world_offset(const pbd_rigid_body *b, const double r[3], double out[3])
{
    pbd_quat_rotate(b->q, r, out);
}
static inline int rigid_dynamic(const pbd_rigid_body *b) { return b && b->inv_mass > 0.0; }

/* The corrections' updates (Sec. 3.3): the impulse p (kg m) at world offsets r1 to body 1
 * and −p at r2 to body 2, moving x and q; the angular impulse p (kg m^2) likewise */
void rigid_apply_positional(pbd_rigid_body *b1, pbd_rigid_body *b2, const double r1[3],
                            const double r2[3], const double p[3]);
void rigid_apply_angular(pbd_rigid_body *b1, pbd_rigid_body *b2, const double p[3]);

/* The fixed joint's violation: the rotation vector 2 vec(q1 (q2 q_rel)⁻¹) (sign of the real
 * part) of body 1 away from its rest relative to body 2 */
void rigid_fixed_rotation(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                          const pbd_rigid_body *b2, double dtheta[3]);
/* Joints: the per-substep reset (λ, the velocity drives' targets) and the solves */
void rigid_joints_begin_substep(pbd_rigid_world *w, double h);
void rigid_joints_solve(pbd_rigid_world *w, double h);
/* The extensions of joint.c: the prismatic joint (joint_prismatic.c), the ball's swing and
 * twist limits (joint_limits.c), the drives (joint_drive.c) */
void rigid_prismatic_solve(pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2, double h);
void rigid_swing_twist_solve(pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2,
                             double h);
double rigid_drive_coordinate(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                              const pbd_rigid_body *b2, int at_start);
void rigid_drive_solve(pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2, double h);
/* the angle x wrapped to (-pi, pi] */
double rigid_wrap_angle(double x);
void rigid_joints_solve_velocities(pbd_rigid_world *w, double h);
pbd_status rigid_contacts_generate(pbd_rigid_world *w);
void rigid_contacts_solve_positions(pbd_rigid_world *w, double h);
void rigid_contacts_solve_velocities(pbd_rigid_world *w, double h);

#endif
