/* generateCollisionConstraints (line 8) and velocityUpdate (line 16) of PBD Algorithm 1.
 * No colliders exist yet: both stages are present and timed, and do nothing. */
#include "pbd.h"
#include "solver_private.h"

void pbd_generate_collisions(pbd_world *w, double h)
{
    (void)w;
    (void)h;
}

void pbd_velocity_update(pbd_world *w, double h)
{
    (void)w;
    (void)h;
}
