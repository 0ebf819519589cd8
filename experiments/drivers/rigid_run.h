/* The rigid experiments' runs (experiments/drivers/rigid_run.c): a rigid world logged
 * through its stand-in particle world (experiments/log/pbd_log_rigid.h), and the summaries'
 * rows read back from the runs' attributes. */
#ifndef PBD_RIGID_RUN_H
#define PBD_RIGID_RUN_H

#include "experiments/drivers/pbd_drivers.h"
#include "experiments/log/pbd_log_rigid.h"
#include "experiments/scenes/pbd_scenes.h"

typedef struct rigid_run {
    pbd_rigid_world *w;
    pbd_rigid_log rl;
} rigid_run;

/* Open the run `name` on the world w (taken over; NULL: it could not be built): the log with
 * the rigid columns and attributes (frames with --frames). */
pbd_status rigid_run_open(pbd_exp_ctx *ctx, const char *name, pbd_rigid_world *w, rigid_run *r);
/* One step, a stop request honoured, logged. */
pbd_status rigid_run_step(pbd_exp_ctx *ctx, rigid_run *r);
/* st == PBD_OK: finish the log with the one-line result text; otherwise keep its steps as
 * .partial (pbd_exp_log_abort). Frees the run; returns the status. */
pbd_status rigid_run_close(pbd_exp_ctx *ctx, rigid_run *r, pbd_status st, const char *result);

/* A run of a sweep: the run named name at substeps × iterations (user: the driver's). */
typedef int (*rigid_run_fn)(pbd_exp_ctx *ctx, const char *name, int substeps, int iterations,
                            void *user);
/* Every substep count of the list text (the option `option`, 1..10000) × 1 iteration: the run
 * "<prefix>s<S>" when pbd_exp_want; the first failure's status, else PBD_OK. */
int rigid_each_substeps(pbd_exp_ctx *ctx, const char *option, const char *text,
                        const char *prefix, rigid_run_fn fn, void *user);
/* Every pair SxI of the list text ("20x1,5x4"): the run "<prefix>s<S>_i<I>". */
int rigid_each_pair(pbd_exp_ctx *ctx, const char *option, const char *text, const char *prefix,
                    rigid_run_fn fn, void *user);

/* The rows (n_attrs columns: the root attributes attrs) of the runs whose name starts with
 * prefix, sorted by the first n_keys columns; *rows malloc'd (free it). Returns the count or
 * -1 (out of memory). */
int rigid_rows(const pbd_exp_ctx *ctx, const char *prefix, const char *const *attrs,
               int n_attrs, int n_keys, double **rows);

#endif
