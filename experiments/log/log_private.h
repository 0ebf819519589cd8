/* Private to experiments/log/: the run file's state and the helpers its files share
 * (h5log.c: open, finish and the space reservation; h5log_attrs.c; h5log_series.c: /scene,
 * /series, /iterations, /frames; xdmf.c: the sidecar). */
#ifndef PBD_LOG_PRIVATE_H
#define PBD_LOG_PRIVATE_H

#include "pbd_log.h"

#include <hdf5.h>
#include <hdf5_hl.h>


#define LOG_MAX_COLUMNS 64
#define LOG_PATH 4096

typedef struct log_column {
    char name[64];
    int width;
    hid_t dset;
    double *buf; /* block × width */
    int set;     /* this step's value was given */
} log_column;

struct pbd_h5log {
    hid_t file;
    char dir[3000], run[256], path[3400], partial[3500], stopped[3400];
    int n;         /* particles */
    int block, buffered;
    hsize_t rows;  /* steps written to the file */
    long steps;    /* steps seen */
    log_column cols[LOG_MAX_COLUMNS];
    int n_cols;
    /* standard columns */
    int c_time, c_max, c_l2, c_xpbd, c_lin, c_ang, c_ke, c_pe, c_stage, c_skipped;
    /* /iterations: per step × (iterations · substeps) */
    int iter_width;
    hid_t it_max, it_l2, it_xpbd, it_newton; /* it_newton: method newton only */
    double *it_buf_max, *it_buf_l2, *it_buf_xpbd, *it_buf_newton;
    int c_newton;  /* /series/newton_iterations (method newton), or -1 */
    /* /frames */
    int frames_every;
    hid_t fr_pos, fr_time;
    hsize_t n_frames;
    double *frame_times; /* for the XDMF sidecar */
    size_t frame_cap;
    /* space reserved ahead of HDF5's writes (a full disk): see reserve_space */
    hsize_t reserve, reserved_end;
    int write_failed;
    /* topology for the sidecar */
    int n_tris;
    char edges_dataset[256];
    long n_edges;
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
int log_write_scene(pbd_h5log *log, const pbd_world *w, const pbd_h5log_options *opt);
int log_make_series(pbd_h5log *log, const pbd_world *w);
int log_make_iterations(pbd_h5log *log, const pbd_world *w);
int log_make_frames(pbd_h5log *log, const pbd_world *w);
int log_write_frame(pbd_h5log *log, const pbd_world *w);
int log_add_column(pbd_h5log *log, hid_t group, const char *name, int width,
                      const char *units, const char *description);
pbd_status log_write_xdmf(pbd_h5log *log);
void log_free(pbd_h5log *log);

#endif
