/* Private to solver/xpbd/: the stages of PBD/XPBD's step (solver/xpbd/xpbd_step.c) that live
 * in their own files of this room (solver/xpbd/README.md). */
#ifndef PBD_XPBD_H
#define PBD_XPBD_H

#include "solver/pbd.h"

/* Stages of Algorithm 1 that live in their own files. */
void pbd_damp_velocities(pbd_world *w);
/* One projection sweep over all constraint sets with the scheme of w->def. Returns the
 * number of constraints skipped as degenerate. */
int pbd_project_iteration(pbd_world *w, double h);
/* `iterations` such sweeps (the coloured scheme in one parallel region); returns the
 * number skipped in the last one. */
int pbd_project_iterations(pbd_world *w, double h, int iterations);

#endif
