/* pbdlab — one HDF5 file per run, its XDMF sidecar, and reading results back
 * (experiments/log/; the schema is in experiments/README.md). */
#ifndef PBD_LOG_H
#define PBD_LOG_H

#include "analysis/pbd_analysis.h"
#include "experiments/cli/pbd_cli.h"
#include "experiments/scenes/pbd_scenes.h"
#include "solver/pbd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- HDF5 logging: one file per run (h5log*.c; experiments/README.md "HDF5 results") */

/* A run's file: written as <out>/<experiment>/<run>.h5.partial-<pid>, flushed every block of
 * steps, at most once per flush_seconds (an interrupted run keeps valid data under that name)
 * and renamed to <run>.h5 by pbd_h5log_finish. */
typedef struct pbd_h5log pbd_h5log;

typedef struct pbd_h5log_options {
    int frames_every;         /* /frames every K steps (0: no /frames): positions, λ per set */
    int frame_velocities;     /* 1: velocities in every frame too */
    int block;                /* steps per chunk of /series, and at least per flush (0: 64) */
    double flush_seconds;     /* a full block is flushed once this long has passed since the
                               * last flush; until then the buffers grow (0: 0.5 s; negative:
                               * every block). A SIGKILL that lands inside HDF5's flush can
                               * leave the file unreadable (HDF5 has no journal): rare flushes
                               * keep that window a small share of the run */
    const int32_t *triangles; /* optional surface (/scene/triangles, the sidecar's cells), 3
                               * per triangle; a world with tearing gives its own */
    int n_triangles;
    const int32_t *tets;      /* optional tetrahedra (/scene/tets, the sidecar's cells), 4 each */
    int n_tets;
    int scene_counts_only;    /* /scene without its arrays (huge scenes): counts and types
                               * only, and no /frames */
} pbd_h5log_options;

/* Open the run's file and write the root attributes (experiment, run, solver.* from w->def,
 * seed, git revision, compiler, flags, date, version, command line, machine and load) and
 * /scene (initial positions, inverse masses, every constraint set). /series holds per set
 * columns in each type's unit; /iterations is written when w->def.record_iterations.
 * The world may grow between steps (tearing): /frames record each frame's particles and
 * topology. Its number of constraint sets is fixed.
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
/* The same with a `description` attribute. */
int pbd_h5log_column_described(pbd_h5log *log, const char *name, int width, const char *units,
                               const char *description);
void pbd_h5log_set(pbd_h5log *log, int column, const double *values);
void pbd_h5log_set1(pbd_h5log *log, int column, double value);

/* A small dataset /results/<name> (rows × cols doubles; cols = 1 gives 1-D) written at once. */
pbd_status pbd_h5log_dataset(pbd_h5log *log, const char *name, const double *data, long rows,
                             long cols, const char *units, const char *description);

/* Append the world's state after a step: /series row (NaN in the measured columns when
 * the measure stage did not run after it), /iterations row, /frames. PBD_EIO when it cannot
 * be logged (a write error, or the world's constraint sets changed in number).
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

/* Root attributes every result file carries: pbdlab_version, git_revision (with
 * "-dirty" and the diff's hash when the tree had uncommitted changes), compiler, cflags (of
 * the objects linked), date, command (this process's command line), machine.cpu_model,
 * machine.cores, machine.loadavg_start, blas and blas_threads (pbd_blas_name,
 * pbd_blas_threads: the BLAS of the Newton reference) (file: an HDF5 hid_t). Returns 0 or -1. */
int pbd_h5_write_provenance(long long file);
/* What the provenance says of this build: the revision (with its dirty mark) and the
 * compiler and flags its objects were built with (Makefile, build/flags.stamp). */
const char *pbd_build_revision(void);
const char *pbd_build_cflags(void);
/* The CPU's model name (/proc/cpuinfo), or "unknown". */
void pbd_machine_cpu_model(char *buf, size_t size);

/* Writing HDF5 files the way every pbdlab file is written (h5file.c): pbd_h5_create makes
 * a file in HDF5 1.10's format, whose metadata carry checksums (a hid_t, < 0 on failure);
 * pbd_h5_write_array writes a whole dataset (dims: hsize_t), chunked with a Fletcher-32
 * checksum (and shuffle + deflate from 64 values on). Return 0 on success. */
long long pbd_h5_create(const char *path);
int pbd_h5_write_array(long long loc, const char *name, long long type, int rank,
                       const unsigned long long *dims, const void *data);

/* FNV-1a 64 of text, chained (start with *h = 0): the parameter hashes (param_hash of every
 * run file, sweep_hash of an experiment's runs; experiments/README.md "HDF5 results"). */
void pbd_hash_text(unsigned long long *h, const char *text);

/* Before reading a file (h5check.c; any file may be hostile): pbd_h5_regular_file refuses
 * anything but a regular file without blocking (a FIFO); pbd_h5_check_file also reads all
 * of it in a child process (every object, attribute and dataset: checksums verified), so
 * that a corrupt file is named (why: one line, "<path>: expected …, found …") instead of
 * crashing or hanging the program. Both return 0 when the file is fit to read, else -1. */
int pbd_h5_regular_file(const char *path, char *why, size_t size);
int pbd_h5_check_file(const char *path, char *why, size_t size);

/* Reading results back (summaries, pbd-report, pbd-h5extract). Return 0 on success; a path
 * that is not a regular file is -1 before anything is opened. */
int pbd_h5_read_attr_double(const char *path, const char *name, double *v);
int pbd_h5_read_attr_string(const char *path, const char *name, char *buf, size_t size);
/* A root attribute of exactly n numbers (e.g. solver.gravity, 3). */
int pbd_h5_read_attr_doubles(const char *path, const char *name, double *v, int n);
/* The names of a group's members, in name order (count may exceed PBD_H5_MAX_NAMES: only
 * that many are kept). */
#define PBD_H5_MAX_NAMES 64
typedef struct pbd_h5_names {
    int count;
    char name[PBD_H5_MAX_NAMES][128];
} pbd_h5_names;
int pbd_h5_read_names(const char *path, const char *group, pbd_h5_names *out);
/* Read a whole dataset of numbers (any rank: rows × the product of the other dimensions,
 * converted to double); *data is malloc'd (rows × cols). */
int pbd_h5_read_dataset(const char *path, const char *dataset, double **data, long *rows,
                        long *cols);

#ifdef __cplusplus
}
#endif

#endif
