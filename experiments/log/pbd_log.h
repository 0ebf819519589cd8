/* pbdlab — one HDF5 file per run, its XDMF sidecar, and reading results back
 * (experiments/log/; the schema is in experiments/README.md). */
#ifndef PBD_LOG_H
#define PBD_LOG_H

#include "analysis/pbd_analysis.h"
#include "experiments/cli/pbd_cli.h"
#include "experiments/scenes/pbd_scenes.h"
#include "solver/pbd.h"

/* ---- HDF5 logging: one file per run (h5log*.c; experiments/README.md "HDF5 results") */

/* A run's file: written as <out>/<experiment>/<run>.h5.partial-<pid>, flushed every block of
 * steps (an interrupted run keeps valid data under that name) and renamed to <run>.h5 by
 * pbd_h5log_finish. */
typedef struct pbd_h5log pbd_h5log;

typedef struct pbd_h5log_options {
    int frames_every;         /* positions to /frames every K steps (0: no /frames) */
    int block;                /* steps buffered per write + flush (0: 64) */
    const int32_t *triangles; /* optional surface for the XDMF sidecar, 3 per triangle */
    int n_triangles;
    int scene_counts_only;    /* /scene without its arrays (huge scenes): counts and types only */
} pbd_h5log_options;

/* Open the run's file and write the root attributes (experiment, run, solver.* from w->def,
 * seed, git revision, compiler, flags, date, version) and /scene (initial positions,
 * inverse masses, every constraint set). /iterations is written when w->def.record_iterations.
 * Returns NULL with pbd_last_error() set when the file cannot be made. */
pbd_h5log *pbd_h5log_open(const char *out_dir, const char *experiment, const char *run,
                          const pbd_world *w, const pbd_h5log_options *opt);
/* Final path (<out>/<experiment>/<run>.h5) and the temporary one being written. */
const char *pbd_h5log_path(const pbd_h5log *log);
const char *pbd_h5log_partial_path(const pbd_h5log *log);

/* Root attributes. Names may carry a prefix ("scene.size", "result.sag"). */
pbd_status pbd_h5log_attr_double(pbd_h5log *log, const char *name, double v);
pbd_status pbd_h5log_attr_int(pbd_h5log *log, const char *name, long v);
pbd_status pbd_h5log_attr_string(pbd_h5log *log, const char *name, const char *v);
/* One attribute per option row, named prefix + row name, holding the row's current value. */
pbd_status pbd_h5log_attr_options(pbd_h5log *log, const char *prefix, const cli_option *rows,
                                  int n_rows);
pbd_status pbd_h5log_scene_params(pbd_h5log *log, const pbd_scene_params *sp);

/* An extra per-step column /series/<name> of `width` doubles (before the first step).
 * Returns its id, or -1. pbd_h5log_set stores this step's values (NaN when not set). */
int pbd_h5log_column(pbd_h5log *log, const char *name, int width, const char *units);
void pbd_h5log_set(pbd_h5log *log, int column, const double *values);
void pbd_h5log_set1(pbd_h5log *log, int column, double value);

/* A small dataset /results/<name> (rows × cols doubles; cols = 1 gives 1-D) written at once. */
pbd_status pbd_h5log_dataset(pbd_h5log *log, const char *name, const double *data, long rows,
                             long cols, const char *units, const char *description);

/* Append the world's state after a step: /series row, /iterations row, /frames.
 * PBD_EINTR (the step is kept) when SIGINT/SIGTERM arrived since pbd_interrupt_install:
 * the caller stops and keeps the file with pbd_h5log_finish_partial. */
pbd_status pbd_h5log_step(pbd_h5log *log, const pbd_world *w);
/* Write what is buffered, close, write the XDMF sidecar and rename to the final name.
 * Frees log. */
pbd_status pbd_h5log_finish(pbd_h5log *log);
/* Close and delete the temporary file (an error path before any step). Frees log. */
void pbd_h5log_discard(pbd_h5log *log);
/* A run stopped early (the watchdog, an interruption, a write error): write what is
 * buffered, mark the file complete = 0 with the attribute stopped = reason, close it and
 * rename it to <out>/<experiment>/<run>.partial.h5 — never the final name. The file is then
 * opened again to count the steps it really holds (*steps_kept). When it cannot be read
 * (e.g. the disk filled up while HDF5 wrote its metadata) it is deleted, *steps_kept = -1
 * and kept = "". kept (may be NULL) receives the kept file's path. Frees log.
 * PBD_OK or PBD_EIO (pbd_last_error() says why). */
pbd_status pbd_h5log_finish_partial(pbd_h5log *log, const char *reason, char *kept,
                                    size_t kept_size, long *steps_kept);
/* The usual error path after a failed step or write (status st, pbd_last_error() saying
 * why): pbd_h5log_finish_partial with that reason, then pbd_last_error() becomes the one
 * line "<why it stopped>; kept steps 1-N in <dir>/<run>.partial.h5" (or why nothing could be
 * kept). Frees log; returns st. */
pbd_status pbd_h5log_stop(pbd_h5log *log, pbd_status st);

/* The gradient checker's results (analysis/gradcheck.c) as one HDF5 file, one group per
 * type (experiments/log/gradcheck_h5.c). */
/* Write results[0..n) to path (a temporary file renamed on success; parent directories
 * are created). Returns PBD_OK or PBD_EIO with pbd_last_error() set. */
pbd_status pbd_gradcheck_write_h5(const char *path, const pbd_gradcheck_options *opt,
                                  const pbd_gradcheck_result *results, int n);

/* Root attributes every result file carries: pbdlab_version, git_revision, compiler,
 * cflags, date (file: an HDF5 hid_t). Returns 0 or -1. */
int pbd_h5_write_provenance(long long file);

/* Reading results back (summaries, pbd-report, pbd-h5extract). Return 0 on success. */
int pbd_h5_read_attr_double(const char *path, const char *name, double *v);
int pbd_h5_read_attr_string(const char *path, const char *name, char *buf, size_t size);
/* Read a whole 1-D or 2-D double dataset; *data is malloc'd (rows × cols). */
int pbd_h5_read_dataset(const char *path, const char *dataset, double **data, long *rows,
                        long *cols);

#endif
