/* Private to experiments/log/: the run file's state and the helpers its files share
 * (h5log.c: open, finish and the space reservation; h5log_attrs.c; h5log_series.c: /scene,
 * /series, /iterations, /frames; xdmf.c: the sidecar). */
#ifndef PBD_LOG_PRIVATE_H
#define PBD_LOG_PRIVATE_H

#include "pbd_log.h"

#include <hdf5.h>
#include <hdf5_hl.h>


#define LOG_MAX_COLUMNS 256
#define LOG_MAX_ITER 64
#define LOG_PATH 4096
#define LOG_BUFFER_BYTES (16u << 20) /* the most a run buffers between flushes */

typedef struct log_column {
    char name[64];
    int width;
    hid_t dset;
    double *buf; /* capacity × width */
    int set;     /* this step's value was given */
} log_column;

/* One /iterations dataset: a row per step, a value per (substep, iteration); set = -1 for
 * the overall value, kind 0 max |C|, 1 ||C||_2, 2 ||C + α̃λ||_2, 3 ||(g, h)||_2 (method
 * newton: per Newton iterate). */
typedef struct log_iter {
    hid_t dset;
    double *buf; /* capacity × iter_width */
    int set, kind;
} log_iter;

/* The world's topology as last written (/scene or /frames/topology/<v>), to tell when a
 * frame needs a new version: particle count and inverse masses, triangles, every set's rows. */
typedef struct log_topology {
    int version;
    int n;
    double *w;
    int n_tris;
    int32_t *tri;
    int *count;              /* per set */
    int32_t **idx;           /* per set: count × arity */
    double **rest, **k, **alpha;
    char edges[256];         /* the first arity-2 set's indices (a polyline), or "" */
    long n_edges;
} log_topology;

/* What the XDMF sidecar needs of each frame. */
typedef struct log_frame {
    double time;
    int n, version, n_tris;
    long n_edges;
    int n_orient; /* /frames/<k>/orientations rows (0: none) */
} log_frame;

struct pbd_h5log {
    hid_t file;
    char dir[3000], run[256], path[3400], partial[3500], stopped[3400];
    int n;         /* particles at the last step (the world may grow: tearing) */
    int n_sets;    /* constraint sets, fixed when the file is opened */
    char (*set_names)[96]; /* "00_distance": /scene/sets, /series/sets, /frames/.../lambda */
    int block, buffered;
    int capacity;         /* rows the buffers hold (a multiple of block) */
    double flush_seconds; /* see pbd_h5log_options */
    double flushed_at;    /* CLOCK_MONOTONIC seconds of the last flush (0: none yet) */
    hsize_t row_bytes;    /* one step's buffered row over every column, bytes */
    hsize_t rows;  /* steps written to the file */
    long steps;    /* steps seen */
    log_column cols[LOG_MAX_COLUMNS];
    int n_cols;
    /* standard columns (-1: not in this file, e.g. the overall residuals of sets whose
     * units differ) */
    int c_step, c_time, c_particles, c_max, c_l2, c_xpbd, c_lin, c_ang, c_ke, c_grav, c_elastic,
        c_total, c_stage, c_skipped, c_threads, c_degenerate;
    int c_first_extra; /* columns from here on are the experiments' (NaN unless set) */
    int *c_set;        /* per set: max_c, l2_c, xpbd_residual, elastic_energy column ids */
    int c_newton;      /* /series/newton_iterations (method newton), or -1 */
    int c_newton_min;  /* /series/newton_minimum (method newton), or -1 */
#define LOG_FLUID_COLUMNS 9
    int c_fluid[LOG_FLUID_COLUMNS]; /* /series/fluid/ (h5log_fluid.c), -1 without a fluid */
#define LOG_CONTACT_COLUMNS 11
    int c_contact[LOG_CONTACT_COLUMNS]; /* /series/contact/ (h5log_contact.c), -1 without
                                         * colliders */
    int threads_used;  /* the most threads a step ran on */
    /* /iterations: per step × (iterations · substeps) */
    int iter_width;
    log_iter its[LOG_MAX_ITER];
    int n_its;
    /* /frames */
    int frames_every, frame_velocities;
    hid_t fr_time, fr_step, fr_n, fr_topo;
    hsize_t n_frames;
    hsize_t frames_flushed; /* frames of the steps flushed so far (rows) */
    log_frame *frames; /* for the XDMF sidecar */
    size_t frame_cap;
    log_topology topo;
    int n_tets;        /* /scene/tets (fixed) */
    /* space reserved ahead of HDF5's writes (a full disk): see reserve_space */
    hsize_t reserve, reserved_end;
    int write_failed;
    /* topology of /scene for the sidecar */
    int n_tris;
    /* the grace timer (experiments/cli/interrupt.c): depth of log_enter, and whether HDF5
     * was written since the last flush */
    int depth, dirty;
    int lock_fd; /* flock(2) on <dir>/.<run>.lock, held while the run is written */
};

void log_quiet_hdf5(void);
const char *log_io_reason(int err);
hid_t log_create_extendible(hid_t loc, const char *name, hid_t type, int rank,
                               const hsize_t *inner, const hsize_t *chunk, int deflate);
herr_t log_append_rows(hid_t d, hsize_t at, hsize_t nrows, const double *buf);
void log_set_units(hid_t d, const char *units, const char *description);
pbd_status log_reserve_space(pbd_h5log *log, hsize_t extra, const char *what);
long log_check_and_trim(const char *path);
void log_close_handles(pbd_h5log *log);
int log_valid_name(const char *s);
pbd_status log_write_provenance(pbd_h5log *log, const char *experiment, const char *run);
pbd_status log_write_solver_def(pbd_h5log *log, const pbd_solver_def *def);
pbd_status log_flush_block(pbd_h5log *log);
double log_now(void);
int log_write_scene(pbd_h5log *log, const pbd_world *w, const pbd_h5log_options *opt);
int log_make_series(pbd_h5log *log, const pbd_world *w);
int log_make_iterations(pbd_h5log *log, const pbd_world *w);
/* /series/fluid/ when the world has a fluid (h5log_fluid.c): columns made with the series,
 * one row put per step. */
int log_make_fluid(pbd_h5log *log, hid_t series, const pbd_world *w);
void log_put_fluid(pbd_h5log *log, const pbd_world *w);
/* /series/contact/ when the world has colliders, bodies or cloth triangles (h5log_contact.c):
 * made with the series, one row put per step. */
int log_make_contact(pbd_h5log *log, hid_t series, const pbd_world *w);
void log_put_contact(pbd_h5log *log, const pbd_world *w);
int log_make_frames(pbd_h5log *log, const pbd_world *w);
int log_write_frame(pbd_h5log *log, const pbd_world *w);
void log_free_frames(pbd_h5log *log);
/* An upper bound of the bytes one frame of w adds (space to reserve before writing it). */
hsize_t log_frame_bytes(const pbd_h5log *log, const pbd_world *w);
int log_add_column(pbd_h5log *log, hid_t group, const char *name, int width,
                      const char *units, const char *description);
/* The unit all of the world's sets share, or NULL when they differ (or there is none). */
const char *log_common_unit(const pbd_world *w);
hid_t log_create_frame_column(hid_t g, const char *name, hid_t type, const char *units,
                              const char *description);
herr_t log_append_value(hid_t d, hsize_t at, hid_t mem_type, const void *v);
pbd_status log_write_xdmf(pbd_h5log *log);
/* Remove <dir>/<run>.xdmf (an earlier run's sidecar: before the data file is renamed, so
 * that no sidecar ever points into a file it does not describe). */
void log_remove_xdmf(const pbd_h5log *log);
/* complete / steps / frames / threads_used / stopped, created at open and overwritten in
 * place after (h5log_attrs.c): what a file holds and why it stopped, even after a failed
 * write. */
#define LOG_RUNNING "not finished: the run was killed, or stopped by a write error before it " \
                    "could say why"
int log_attr_long_in_place(hid_t file, const char *name, long v);
int log_attr_doubles_in_place(hid_t file, const char *name, const double *v, int n);
int log_attr_reason(hid_t file, const char *text);
int log_write_progress(pbd_h5log *log, long complete, const char *stopped);
void log_free(pbd_h5log *log);
/* param_hash (h5log_attrs.c): FNV-1a 64 of the root attributes solver.*, scene.*, param.*,
 * quick and seed (name, then value as text; in name order), written when the run closes. */
int log_write_param_hash(pbd_h5log *log);
/* Around every write to the run's file (h5log.c): log_enter marks the section busy for the
 * grace timer; log_leave, at the outermost level, flushes what was written (log->dirty), so
 * that outside these sections the file on disk is readable as its last flush left it. */
void log_enter(pbd_h5log *log);
void log_leave(pbd_h5log *log);
/* machine.loadavg_end (h5log_attrs.c): NaN when the file is made (at_end = 0), the load
 * average when the run closes (at_end = 1), overwritten in place; the start's is part of the
 * provenance. */
int log_write_machine(pbd_h5log *log, int at_end);
/* A stopped run's /frames cut to the frames of the steps flushed to /series (h5log_frames.c):
 * the frame groups and topology versions past them unlinked, the frame columns shrunk. */
void log_trim_frames(pbd_h5log *log);

#endif
