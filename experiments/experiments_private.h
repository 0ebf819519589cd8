/* Private to experiments/: helpers shared by the HDF5 writers. */
#ifndef PBD_EXPERIMENTS_PRIVATE_H
#define PBD_EXPERIMENTS_PRIVATE_H

#include <hdf5.h>
#include <hdf5_hl.h>

#include "pbd_experiments.h"

/* Root attributes every file carries: pbdlab_version, git_revision, compiler, cflags, date. */
int pbd_h5_write_provenance(hid_t file);
/* mkdir -p; returns 0 or -1 (errno set). */
/* Seconds on a monotonic clock. */
double pbd_exp_now(void);

#endif
