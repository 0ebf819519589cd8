/* dampVelocities, line (6) of PBD Algorithm 1. */
#include "pbd.h"
#include "solver_private.h"

void pbd_damp_velocities(pbd_world *w)
{
    switch (w->def.damping) {
    case PBD_DAMPING_SCALE:
        for (int i = 0; i < 3 * w->n; i++) w->v[i] *= 1.0 - w->def.k_damping;
        break;
    case PBD_DAMPING_NONE:
    default:
        break;
    }
}
