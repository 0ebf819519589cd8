/* pbd-run on a rigid scene (experiments/programs/run_rigid.c). */
#ifndef PBD_RUN_RIGID_H
#define PBD_RUN_RIGID_H

#include "experiments/pbd_experiments.h"

/* What pbd-run parsed, for a rigid scene */
typedef struct pbd_rigid_run {
    const pbd_rigid_scene_entry *scene;
    const pbd_scene_params *sp;
    const pbd_solver_def *def;
    const cli_option *solver_rows, *scene_rows; /* to refuse the given options it cannot read */
    int n_solver_rows, n_scene_rows;
    int steps, every, quiet, frames, frame_velocities, reference;
    const char *out_dir, *run, *sweep_hash;
} pbd_rigid_run;

/* Refuse what cannot act (a method other than XPBD, the Newton reference, options the scene
 * or the rigid solver do not read: exit 2), build, step, print and log; the exit status. */
int pbd_run_rigid(const pbd_rigid_run *r);

#endif
