/* Private to solver/: the constraint types' batched kernels in the projection sweeps
 * (solver/xpbd/fastpath.c, solver/xpbd/README.md "Performance"). */
#ifndef PBD_FASTPATH_H
#define PBD_FASTPATH_H

#include "solver/pbd.h"

/* The kernel the sweeps use for set s, or NULL for the generic path: def.kernels is on, the
 * type has a kernel for the method (colour != 0: for a batch of one colour), and XPBD
 * constraint damping is off (Eq. 26 needs x_n, which only the generic path gathers). */
pbd_batch_fn pbd_set_kernel(const pbd_world *w, const pbd_constraint_set *s, int colour);
/* The set's arrays as a kernel batch on positions w->p for a (sub)step h. */
pbd_batch pbd_set_batch(pbd_world *w, pbd_constraint_set *s, double h);

#endif
