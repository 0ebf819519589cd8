/* Private to solver/: the stages and helpers the step is made of. */
#ifndef PBD_SOLVER_PRIVATE_H
#define PBD_SOLVER_PRIVATE_H

#include "pbd.h"

void pbd_gather(pbd_world *w, const pbd_constraint_set *s, int c, const double *pos,
                pbd_eval_input *in);
void pbd_scatter(pbd_world *w, const pbd_constraint_set *s, int c, double *pos);
/* Project one constraint in place on w->p with the method of w->def; alpha_scale = 1/h². */
int pbd_project_one(pbd_world *w, pbd_constraint_set *s, int c, double alpha_scale);

/* Stages of Algorithm 1 that live in their own files. */
void pbd_damp_velocities(pbd_world *w);
/* One projection sweep over all constraint sets with the scheme of w->def. Returns the
 * number of constraints skipped as degenerate. */
int pbd_project_iteration(pbd_world *w, double h);
/* `iterations` such sweeps (the coloured scheme in one parallel region); returns the
 * number skipped in the last one. */
int pbd_project_iterations(pbd_world *w, double h, int iterations);


#endif
