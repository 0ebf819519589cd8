/* The joint catalogue: one row per pbd_joint_kind, the kind its index (the types are in
 * joint_fixed.c, joint_ball.c, joint_hinge.c, joint_prismatic.c; README "Joint types"). */
#include "rigid_private.h"

static const pbd_rigid_joint_type *const table[] = {
    [PBD_JOINT_FIXED] = &rigid_joint_fixed,
    [PBD_JOINT_BALL] = &rigid_joint_ball,
    [PBD_JOINT_HINGE] = &rigid_joint_hinge,
    [PBD_JOINT_PRISMATIC] = &rigid_joint_prismatic,
};

int pbd_rigid_joint_type_count(void) { return (int)(sizeof table / sizeof table[0]); }

const pbd_rigid_joint_type *pbd_rigid_joint_type_of(pbd_joint_kind kind)
{
    int k = (int)kind;
    return k >= 0 && k < pbd_rigid_joint_type_count() ? table[k] : NULL;
}
