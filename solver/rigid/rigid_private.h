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

void rigid_joints_solve(pbd_rigid_world *w, double h);
void rigid_joints_solve_velocities(pbd_rigid_world *w, double h);
pbd_status rigid_contacts_generate(pbd_rigid_world *w);
void rigid_contacts_solve_positions(pbd_rigid_world *w, double h);
void rigid_contacts_solve_velocities(pbd_rigid_world *w, double h);

#endif
