/* One HDF5 file per run (DESIGN.md "HDF5 output"; the schema is in README "HDF5 results").
 *
 * The file is written as <run>.h5.partial-<pid>; every `block` steps the buffered /series
 * and /iterations rows are appended to extendible, chunked datasets and the file is flushed,
 * so an interrupted run keeps valid data under the temporary name. pbd_h5log_finish writes
 * the XDMF sidecar and renames the file: a truncated file never carries the final name.
 * A run stopped early (watchdog, SIGINT/SIGTERM, write error) is closed cleanly by
 * pbd_h5log_finish_partial and renamed to <run>.partial.h5 instead. */
#include "pbd_log.h"

#include <hdf5.h>
#include <hdf5_hl.h>

#include <hdf5.h>
#include <hdf5_hl.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef PBD_GIT_REVISION
#define PBD_GIT_REVISION "unknown"
#endif
#ifndef PBD_CFLAGS
#define PBD_CFLAGS "unknown"
#endif
#if defined(__clang__)
#define PBD_COMPILER "clang " __VERSION__
#elif defined(__GNUC__)
#define PBD_COMPILER "gcc " __VERSION__
#else
#define PBD_COMPILER "unknown"
#endif

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
    hid_t it_max, it_l2, it_xpbd;
    double *it_buf_max, *it_buf_l2, *it_buf_xpbd;
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

/* ---- small helpers ---------------------------------------------------------------- */

static void quiet_hdf5(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

/* HDF5 1.10 crashes in its atexit handler (H5_term_library -> H5F__close_cb) after an
 * H5Fclose that failed because the disk was full; every file is closed explicitly here, so
 * the handler is not needed. It must be switched off before the library's first call. */
__attribute__((constructor)) static void no_hdf5_atexit(void) { H5dont_atexit(); }

/* Why a write failed, for the error line: the system's reason (errno of the first failing
 * write, e.g. "File too large", "No space left on device") when there is one. */
static const char *io_reason(int err)
{
    return err ? strerror(err) : "HDF5 write error";
}

static hid_t create_extendible(hid_t loc, const char *name, hid_t type, int rank,
                               const hsize_t *inner, const hsize_t *chunk, int deflate)
{
    hsize_t dims[3] = {0, 0, 0}, maxd[3] = {H5S_UNLIMITED, 0, 0};
    for (int r = 1; r < rank; r++) dims[r] = maxd[r] = inner[r - 1];
    hid_t space = H5Screate_simple(rank, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank, chunk);
    if (deflate) {
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 4);
    }
    hid_t d = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    return d;
}

/* Append `nrows` rows (of inner size given by the dataset) at row `at`. */
static herr_t append_rows(hid_t d, hsize_t at, hsize_t nrows, const double *buf)
{
    hid_t fs = H5Dget_space(d);
    int rank = H5Sget_simple_extent_ndims(fs);
    hsize_t dims[3];
    H5Sget_simple_extent_dims(fs, dims, NULL);
    H5Sclose(fs);
    dims[0] = at + nrows;
    if (H5Dset_extent(d, dims) < 0) return -1;
    fs = H5Dget_space(d);
    hsize_t start[3] = {at, 0, 0}, count[3];
    count[0] = nrows;
    for (int r = 1; r < rank; r++) count[r] = dims[r];
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t ms = H5Screate_simple(rank, count, NULL);
    herr_t st = H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf);
    H5Sclose(ms);
    H5Sclose(fs);
    return st;
}

static void set_units(hid_t d, const char *units, const char *description)
{
    if (units) H5LTset_attribute_string(d, ".", "units", units);
    if (description) H5LTset_attribute_string(d, ".", "description", description);
}

/* ---- space for the next writes (a full disk) ------------------------------------------ */

/* Before HDF5 writes a block of steps, a frame or a /results dataset, the file is made to
 * own the space those writes (and the metadata that follows) can take: posix_fallocate from
 * the end of HDF5's allocated space (EOA), `reserve` bytes ahead. On a full disk (ENOSPC) or
 * at the file-size limit (EFBIG) that fails BEFORE HDF5 has touched the file, which stays as
 * its last flush left it: closing it then writes only into space it owns, and the steps
 * flushed so far stay readable. (Without this, HDF5 fails half-way through a flush and the
 * file cannot be opened again: "truncated file".) */
static pbd_status reserve_space(pbd_h5log *log, hsize_t extra, const char *what)
{
    if (log->write_failed)
        return pbd_error(PBD_EIO, "%s: an earlier write failed; not writing %s", log->partial,
                         what);
    haddr_t eoa;
    void *handle = NULL;
    if (H5Fget_eoa(log->file, &eoa) < 0 || H5Fget_vfd_handle(log->file, H5P_DEFAULT, &handle) < 0 ||
        !handle)
        return PBD_OK; /* cannot tell: let HDF5 try */
    hsize_t need = log->reserve + extra;
    if ((hsize_t)eoa + need <= log->reserved_end) return PBD_OK;
    int err = posix_fallocate(*(int *)handle, (off_t)eoa, (off_t)(2 * need));
    if (err == EINVAL || err == EOPNOTSUPP) return PBD_OK; /* no fallocate: let HDF5 try */
    if (err) {
        log->write_failed = 1;
        return pbd_error(PBD_EIO, "%s: cannot reserve %llu bytes for %s: %s", log->partial,
                         (unsigned long long)(2 * need), what, strerror(err));
    }
    log->reserved_end = (hsize_t)eoa + 2 * need;
    return PBD_OK;
}

/* Open a closed file again: the rows of /series/time whose last one reads back (-1 when
 * the file cannot be read), and the file cut to its EOA (the unused reservation). */
static long check_and_trim(const char *path)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return -1;
    long rows = -1;
    haddr_t eoa = 0;
    if (H5Fget_eoa(f, &eoa) < 0) eoa = 0;
    hid_t d = H5Dopen2(f, "/series/time", H5P_DEFAULT);
    if (d >= 0) {
        hid_t sp = H5Dget_space(d);
        hsize_t dims[1];
        if (H5Sget_simple_extent_ndims(sp) == 1 && H5Sget_simple_extent_dims(sp, dims, NULL) == 1) {
            if (dims[0] == 0) {
                rows = 0;
            } else { /* the last row must read back, not only the extent */
                double last = 0.0;
                hsize_t start[1] = {dims[0] - 1}, count[1] = {1};
                hid_t ms = H5Screate_simple(1, count, NULL);
                H5Sselect_hyperslab(sp, H5S_SELECT_SET, start, NULL, count, NULL);
                if (H5Dread(d, H5T_NATIVE_DOUBLE, ms, sp, H5P_DEFAULT, &last) >= 0)
                    rows = (long)dims[0];
                H5Sclose(ms);
            }
        }
        H5Sclose(sp);
        H5Dclose(d);
    }
    H5Fclose(f);
    struct stat sb;
    if (rows >= 0 && eoa > 0 && stat(path, &sb) == 0 && (haddr_t)sb.st_size > eoa)
        if (truncate(path, (off_t)eoa) != 0) rows = -1;
    return rows;
}

/* ---- attributes --------------------------------------------------------------------- */

pbd_status pbd_h5log_attr_double(pbd_h5log *log, const char *name, double v)
{
    if (H5LTset_attribute_double(log->file, "/", name, &v, 1) < 0)
        return pbd_error(PBD_EIO, "%s: attribute %s: cannot write", log->partial, name);
    return PBD_OK;
}

pbd_status pbd_h5log_attr_int(pbd_h5log *log, const char *name, long v)
{
    if (H5LTset_attribute_long(log->file, "/", name, &v, 1) < 0)
        return pbd_error(PBD_EIO, "%s: attribute %s: cannot write", log->partial, name);
    return PBD_OK;
}

pbd_status pbd_h5log_attr_string(pbd_h5log *log, const char *name, const char *v)
{
    if (H5LTset_attribute_string(log->file, "/", name, v ? v : "") < 0)
        return pbd_error(PBD_EIO, "%s: attribute %s: cannot write", log->partial, name);
    return PBD_OK;
}

pbd_status pbd_h5log_attr_options(pbd_h5log *log, const char *prefix, const cli_option *rows,
                                  int n_rows)
{
    pbd_status st = PBD_OK;
    for (int i = 0; i < n_rows && st == PBD_OK; i++) {
        const cli_option *o = &rows[i];
        char name[160];
        snprintf(name, sizeof name, "%s%s", prefix, o->name);
        switch (o->kind) {
        case CLI_DOUBLE: st = pbd_h5log_attr_double(log, name, *(const double *)o->value); break;
        case CLI_INT:
        case CLI_FLAG: st = pbd_h5log_attr_int(log, name, *(const int *)o->value); break;
        case CLI_CHOICE:
            st = pbd_h5log_attr_string(log, name, o->choices[*(const int *)o->value]);
            break;
        case CLI_STRING: st = pbd_h5log_attr_string(log, name, *(const char *const *)o->value); break;
        }
    }
    return st;
}

static pbd_status write_solver_def(pbd_h5log *log, const pbd_solver_def *def)
{
    pbd_solver_def copy = *def;
    cli_option rows[PBD_MAX_OPTIONS];
    int n = pbd_solver_options(&copy, rows);
    pbd_status st = pbd_h5log_attr_options(log, "solver.", rows, n);
    if (st != PBD_OK) return st;
    /* fields without a command-line row of their own */
    if (H5LTset_attribute_double(log->file, "/", "solver.gravity", def->gravity, 3) < 0)
        return pbd_error(PBD_EIO, "%s: attribute solver.gravity: cannot write", log->partial);
    return pbd_h5log_attr_int(log, "solver.record_iterations", def->record_iterations);
}

pbd_status pbd_h5log_scene_params(pbd_h5log *log, const pbd_scene_params *sp)
{
    pbd_scene_params copy = *sp;
    cli_option rows[PBD_MAX_OPTIONS];
    int n = pbd_scene_options(&copy, rows);
    pbd_status st = pbd_h5log_attr_options(log, "scene.", rows, n);
    if (st == PBD_OK) st = pbd_h5log_attr_int(log, "seed", (long)sp->seed);
    return st;
}

int pbd_h5_write_provenance(long long file)
{
    char date[64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    int bad = H5LTset_attribute_string(file, "/", "pbdlab_version", PBD_VERSION) < 0;
    bad |= H5LTset_attribute_string(file, "/", "git_revision", PBD_GIT_REVISION) < 0;
    bad |= H5LTset_attribute_string(file, "/", "compiler", PBD_COMPILER) < 0;
    bad |= H5LTset_attribute_string(file, "/", "cflags", PBD_CFLAGS) < 0;
    bad |= H5LTset_attribute_string(file, "/", "date", date) < 0;
    return bad ? -1 : 0;
}

static pbd_status write_provenance(pbd_h5log *log, const char *experiment, const char *run)
{
    pbd_status st = pbd_h5log_attr_string(log, "experiment", experiment);
    if (st == PBD_OK) st = pbd_h5log_attr_string(log, "run", run);
    if (st == PBD_OK && pbd_h5_write_provenance(log->file) != 0)
        st = pbd_error(PBD_EIO, "%s: cannot write the provenance attributes", log->partial);
    if (st == PBD_OK) st = pbd_h5log_attr_int(log, "seed", 0); /* overwritten by the scene's */
    return st;
}

/* ---- /scene ------------------------------------------------------------------------- */

static int write_scene(pbd_h5log *log, const pbd_world *w, const pbd_h5log_options *opt)
{
    hid_t g = H5Gcreate2(log->file, "scene", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    hsize_t d2[2] = {(hsize_t)w->n, 3}, d1[1] = {(hsize_t)w->n};
    int bad = 0, arrays = !(opt && opt->scene_counts_only);
    H5LTset_attribute_int(g, ".", "arrays", &arrays, 1);
    if (w->n > 0 && arrays) {
        bad |= H5LTmake_dataset_double(g, "positions", 2, d2, w->x) < 0;
        bad |= H5LTmake_dataset_double(g, "velocities", 2, d2, w->v) < 0;
        bad |= H5LTmake_dataset_double(g, "inverse_masses", 1, d1, w->w) < 0;
    }
    if (w->n_attach > 0) {
        hsize_t da[1] = {(hsize_t)w->n_attach};
        bad |= H5LTmake_dataset_int(g, "attachments", 1, da, w->attach_idx) < 0;
    }
    if (opt && opt->triangles && opt->n_triangles > 0) {
        hsize_t dt[2] = {(hsize_t)opt->n_triangles, 3};
        bad |= H5LTmake_dataset_int(g, "triangles", 2, dt, opt->triangles) < 0;
        log->n_tris = opt->n_triangles;
    }
    hid_t sets = H5Gcreate2(g, "sets", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    long n_constraints = 0;
    for (int s = 0; s < w->n_sets && !bad; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        char name[128];
        snprintf(name, sizeof name, "%02d_%s", s, set->type->name);
        hid_t sg = H5Gcreate2(sets, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        bad |= sg < 0;
        if (bad) break;
        long count = set->count;
        n_constraints += count;
        H5LTset_attribute_string(sg, ".", "type", set->type->name);
        H5LTset_attribute_int(sg, ".", "arity", &set->arity, 1);
        H5LTset_attribute_long(sg, ".", "count", &count, 1);
        H5LTset_attribute_int(sg, ".", "n_rest", &set->type->n_rest, 1);
        if (count > 0 && arrays) {
            hsize_t di[2] = {(hsize_t)count, (hsize_t)set->arity};
            bad |= H5LTmake_dataset_int(sg, "indices", 2, di, set->idx) < 0;
            if (set->type->n_rest > 0) {
                hsize_t dr[2] = {(hsize_t)count, (hsize_t)set->type->n_rest};
                bad |= H5LTmake_dataset_double(sg, "rest", 2, dr, set->rest) < 0;
            }
            hsize_t dc[1] = {(hsize_t)count};
            bad |= H5LTmake_dataset_double(sg, "stiffness", 1, dc, set->stiffness) < 0;
            bad |= H5LTmake_dataset_double(sg, "compliance", 1, dc, set->compliance) < 0;
            if (set->arity == 2 && log->n_edges == 0) {
                snprintf(log->edges_dataset, sizeof log->edges_dataset, "/scene/sets/%s/indices",
                         name);
                log->n_edges = count;
            }
        }
        if (set->n_aux > 0 && arrays) {
            hsize_t dx[1] = {(hsize_t)set->n_aux};
            bad |= H5LTmake_dataset_int(sg, "aux", 1, dx, set->aux) < 0;
        }
        H5Gclose(sg);
    }
    H5Gclose(sets);
    H5Gclose(g);
    if (bad) return -1;
    long n = w->n;
    H5LTset_attribute_long(log->file, "/", "n_particles", &n, 1);
    H5LTset_attribute_long(log->file, "/", "n_constraints", &n_constraints, 1);
    return 0;
}

/* ---- /series, /iterations, /frames ------------------------------------------------ */

static int add_column(pbd_h5log *log, hid_t group, const char *name, int width,
                      const char *units, const char *description)
{
    if (log->n_cols >= LOG_MAX_COLUMNS || width < 1) return -1;
    log_column *c = &log->cols[log->n_cols];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->width = width;
    c->buf = malloc((size_t)log->block * (size_t)width * sizeof(double));
    if (!c->buf) return -1;
    hsize_t inner[1] = {(hsize_t)width}, chunk[2] = {(hsize_t)log->block, (hsize_t)width};
    c->dset = create_extendible(group, name, H5T_NATIVE_DOUBLE, width > 1 ? 2 : 1, inner, chunk, 0);
    if (c->dset < 0) {
        free(c->buf);
        return -1;
    }
    set_units(c->dset, units, description);
    return log->n_cols++;
}

static int make_series(pbd_h5log *log)
{
    hid_t g = H5Gcreate2(log->file, "series", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    log->c_time = add_column(log, g, "time", 1, "s", "simulated time after the step");
    log->c_max = add_column(log, g, "max_c", 1, "constraint units (m for distances)",
                            "max |C| over active constraints after the step");
    log->c_l2 = add_column(log, g, "l2_c", 1, "constraint units", "||C||_2 after the step");
    log->c_xpbd = add_column(log, g, "xpbd_residual", 1, "constraint units",
                             "||C + alpha_tilde lambda||_2 after the step (XPBD Eq. 17; "
                             "alpha_tilde of the last substep; lambda = 0 for PBD)");
    log->c_lin = add_column(log, g, "linear_momentum", 3, "kg m/s", "sum m v (free particles)");
    log->c_ang = add_column(log, g, "angular_momentum", 3, "kg m^2/s",
                            "sum m x cross v about the origin (free particles)");
    log->c_ke = add_column(log, g, "kinetic_energy", 1, "J", "sum 1/2 m |v|^2");
    log->c_pe = add_column(log, g, "potential_energy", 1, "J", "gravity: -sum m g.x");
    log->c_stage = add_column(log, g, "stage_seconds", PBD_STAGE_COUNT, "s",
                              "wall time per stage of the step (columns: attribute stages)");
    log->c_skipped = add_column(log, g, "skipped", 1, "constraints",
                                "degenerate constraints skipped in the last iteration");
    if (log->c_stage >= 0) {
        char names[512] = "";
        for (int k = 0; k < PBD_STAGE_COUNT; k++) {
            strcat(names, pbd_stage_names[k]);
            if (k + 1 < PBD_STAGE_COUNT) strcat(names, " ");
        }
        H5LTset_attribute_string(log->cols[log->c_stage].dset, ".", "stages", names);
    }
    H5Gclose(g);
    int ids[] = {log->c_time, log->c_max, log->c_l2,  log->c_xpbd,  log->c_lin,
                 log->c_ang,  log->c_ke,  log->c_pe,  log->c_stage, log->c_skipped};
    for (unsigned i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (ids[i] < 0) return -1;
    return 0;
}

static int make_iterations(pbd_h5log *log, const pbd_world *w)
{
    if (!w->def.record_iterations) return 0;
    log->iter_width = w->def.iterations * w->def.substeps;
    hid_t g = H5Gcreate2(log->file, "iterations", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    hsize_t inner[1] = {(hsize_t)log->iter_width};
    hsize_t chunk[2] = {(hsize_t)log->block, (hsize_t)log->iter_width};
    log->it_max = create_extendible(g, "max_c", H5T_NATIVE_DOUBLE, 2, inner, chunk, 1);
    log->it_l2 = create_extendible(g, "l2_c", H5T_NATIVE_DOUBLE, 2, inner, chunk, 1);
    log->it_xpbd = create_extendible(g, "xpbd_residual", H5T_NATIVE_DOUBLE, 2, inner, chunk, 1);
    int iters = w->def.iterations, subs = w->def.substeps;
    H5LTset_attribute_int(g, ".", "iterations", &iters, 1);
    H5LTset_attribute_int(g, ".", "substeps", &subs, 1);
    H5LTset_attribute_string(g, ".", "layout",
                             "row = step, column = substep * iterations + iteration; "
                             "residual at the predicted positions after that iteration");
    H5Gclose(g);
    size_t sz = (size_t)log->block * (size_t)log->iter_width * sizeof(double);
    log->it_buf_max = malloc(sz);
    log->it_buf_l2 = malloc(sz);
    log->it_buf_xpbd = malloc(sz);
    if (log->it_max < 0 || log->it_l2 < 0 || log->it_xpbd < 0 || !log->it_buf_max ||
        !log->it_buf_l2 || !log->it_buf_xpbd)
        return -1;
    set_units(log->it_max, "constraint units", "max |C| after each iteration");
    set_units(log->it_l2, "constraint units", "||C||_2 after each iteration");
    set_units(log->it_xpbd, "constraint units", "||C + alpha_tilde lambda||_2 after each iteration");
    return 0;
}

static int write_frame(pbd_h5log *log, const pbd_world *w)
{
    if (append_rows(log->fr_pos, log->n_frames, 1, w->x) < 0) return -1;
    double t = w->time;
    if (append_rows(log->fr_time, log->n_frames, 1, &t) < 0) return -1;
    if (log->n_frames >= log->frame_cap) {
        size_t cap = log->frame_cap ? 2 * log->frame_cap : 64;
        double *ft = realloc(log->frame_times, cap * sizeof *ft);
        if (!ft) return -1;
        log->frame_times = ft;
        log->frame_cap = cap;
    }
    log->frame_times[log->n_frames++] = t;
    return 0;
}

static int make_frames(pbd_h5log *log, const pbd_world *w)
{
    if (log->frames_every <= 0 || w->n == 0) return 0;
    hid_t g = H5Gcreate2(log->file, "frames", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    hsize_t inner[2] = {(hsize_t)w->n, 3}, chunk[3] = {1, (hsize_t)w->n, 3};
    log->fr_pos = create_extendible(g, "positions", H5T_NATIVE_DOUBLE, 3, inner, chunk, 1);
    hsize_t chunk_t[1] = {64};
    log->fr_time = create_extendible(g, "time", H5T_NATIVE_DOUBLE, 1, NULL, chunk_t, 0);
    int every = log->frames_every;
    H5LTset_attribute_int(g, ".", "every", &every, 1);
    H5Gclose(g);
    if (log->fr_pos < 0 || log->fr_time < 0) return -1;
    set_units(log->fr_pos, "m", "positions, frame × particle × xyz");
    set_units(log->fr_time, "s", "time of each frame");
    return write_frame(log, w); /* frame 0: the initial state */
}

/* ---- open / step / finish ----------------------------------------------------------- */

static void close_handles(pbd_h5log *log)
{
    for (int i = 0; i < log->n_cols; i++) {
        if (log->cols[i].dset > 0) H5Dclose(log->cols[i].dset);
        free(log->cols[i].buf);
    }
    if (log->it_max > 0) H5Dclose(log->it_max);
    if (log->it_l2 > 0) H5Dclose(log->it_l2);
    if (log->it_xpbd > 0) H5Dclose(log->it_xpbd);
    if (log->fr_pos > 0) H5Dclose(log->fr_pos);
    if (log->fr_time > 0) H5Dclose(log->fr_time);
    if (log->file > 0) H5Fclose(log->file);
    log->file = -1;
    log->n_cols = 0;
}

static void log_free(pbd_h5log *log)
{
    close_handles(log);
    free(log->it_buf_max);
    free(log->it_buf_l2);
    free(log->it_buf_xpbd);
    free(log->frame_times);
    free(log);
}

static int valid_name(const char *s)
{
    if (!s || !*s || strlen(s) > 200) return 0;
    for (; *s; s++)
        if (*s == '/' || *s == ' ' || (unsigned char)*s < 32) return 0;
    return 1;
}

pbd_h5log *pbd_h5log_open(const char *out_dir, const char *experiment, const char *run,
                          const pbd_world *w, const pbd_h5log_options *opt)
{
    quiet_hdf5();
    if (!valid_name(experiment) || !valid_name(run)) {
        pbd_error(PBD_EINVAL, "h5log: run name: expected a non-empty name without '/' or "
                  "spaces, found '%s/%s'", experiment ? experiment : "", run ? run : "");
        return NULL;
    }
    pbd_h5log *log = calloc(1, sizeof *log);
    if (!log) return NULL;
    log->file = -1;
    log->block = opt && opt->block > 0 ? opt->block : 64;
    log->frames_every = opt ? opt->frames_every : 0;
    log->n = w->n;
    snprintf(log->run, sizeof log->run, "%s", run);
    if (snprintf(log->dir, sizeof log->dir, "%s/%s", out_dir, experiment) >= (int)sizeof log->dir) {
        pbd_error(PBD_EINVAL, "h5log: --out: expected a path shorter than %d bytes, found %zu",
                  (int)sizeof log->dir - 64, strlen(out_dir));
        free(log);
        return NULL;
    }
    snprintf(log->path, sizeof log->path, "%s/%s.h5", log->dir, run);
    snprintf(log->partial, sizeof log->partial, "%s.partial-%ld", log->path, (long)getpid());
    snprintf(log->stopped, sizeof log->stopped, "%s/%s.partial.h5", log->dir, run);
    if (pbd_mkdirs(log->dir) != 0) {
        pbd_error(PBD_EIO, "%s: cannot create the results directory: %s", log->dir,
                  strerror(errno));
        free(log);
        return NULL;
    }
    errno = 0;
    log->file = H5Fcreate(log->partial, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (log->file < 0) {
        pbd_error(PBD_EIO, "%s: cannot create the HDF5 file: %s", log->partial,
                  errno ? strerror(errno) : "is the directory writable?");
        free(log);
        return NULL;
    }
    errno = 0;
    if (write_provenance(log, experiment, run) != PBD_OK ||
        write_solver_def(log, &w->def) != PBD_OK || write_scene(log, w, opt) != 0 ||
        make_series(log) != 0 || make_iterations(log, w) != 0 || make_frames(log, w) != 0 ||
        H5Fflush(log->file, H5F_SCOPE_GLOBAL) < 0) {
        int err = errno;
        pbd_error(PBD_EIO, "%s: cannot write the file's header datasets: %s", log->partial,
                  io_reason(err));
        pbd_h5log_discard(log);
        return NULL;
    }
    /* what one block of steps can add: its rows, its frames, and metadata */
    hsize_t row = 0;
    for (int i = 0; i < log->n_cols; i++) row += (hsize_t)log->cols[i].width;
    row += 3 * (hsize_t)log->iter_width;
    hsize_t frames = log->frames_every > 0 ? (hsize_t)(log->block / log->frames_every + 1) : 0;
    log->reserve = 8 * ((hsize_t)log->block * row + frames * (3 * (hsize_t)log->n + 1)) +
                   (256u << 10);
    return log;
}

const char *pbd_h5log_path(const pbd_h5log *log) { return log->path; }
const char *pbd_h5log_partial_path(const pbd_h5log *log) { return log->partial; }

int pbd_h5log_column(pbd_h5log *log, const char *name, int width, const char *units)
{
    if (log->rows > 0 || log->buffered > 0) {
        pbd_error(PBD_EINVAL, "%s: column %s: expected before the first step, found %ld steps",
                  log->partial, name, log->steps);
        return -1;
    }
    hid_t g = H5Gopen2(log->file, "series", H5P_DEFAULT);
    int id = add_column(log, g, name, width, units, NULL);
    H5Gclose(g);
    if (id < 0) pbd_error(PBD_EIO, "%s: cannot add column /series/%s", log->partial, name);
    return id;
}

void pbd_h5log_set(pbd_h5log *log, int column, const double *values)
{
    if (column < 0 || column >= log->n_cols) return;
    log_column *c = &log->cols[column];
    memcpy(c->buf + (size_t)log->buffered * c->width, values, (size_t)c->width * sizeof(double));
    c->set = 1;
}

void pbd_h5log_set1(pbd_h5log *log, int column, double value)
{
    if (column >= 0 && column < log->n_cols && log->cols[column].width == 1)
        pbd_h5log_set(log, column, &value);
}

pbd_status pbd_h5log_dataset(pbd_h5log *log, const char *name, const double *data, long rows,
                             long cols, const char *units, const char *description)
{
    char what[300];
    snprintf(what, sizeof what, "/results/%s", name);
    pbd_status st = reserve_space(log, 8 * (hsize_t)(rows > 0 ? rows : 1) * (hsize_t)(cols > 0 ? cols : 1), what);
    if (st != PBD_OK) return st;
    hid_t g = H5Gopen2(log->file, "results", H5P_DEFAULT);
    if (g < 0) g = H5Gcreate2(log->file, "results", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return pbd_error(PBD_EIO, "%s: cannot create /results", log->partial);
    hsize_t dims[2] = {(hsize_t)rows, (hsize_t)cols};
    double dummy = 0.0;
    int bad = H5LTmake_dataset_double(g, name, cols > 1 ? 2 : 1, dims, rows > 0 ? data : &dummy) < 0;
    if (!bad) {
        hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
        set_units(d, units, description);
        H5Dclose(d);
    }
    H5Gclose(g);
    return bad ? pbd_error(PBD_EIO, "%s: cannot write /results/%s", log->partial, name) : PBD_OK;
}

static pbd_status flush_block(pbd_h5log *log)
{
    if (log->buffered == 0) return PBD_OK;
    hsize_t n = (hsize_t)log->buffered;
    char what[64];
    snprintf(what, sizeof what, "steps %ld-%ld", (long)log->rows + 1, log->steps);
    pbd_status st = reserve_space(log, 0, what);
    if (st != PBD_OK) return st;
    int bad = 0;
    errno = 0;
    for (int i = 0; i < log->n_cols; i++)
        bad |= append_rows(log->cols[i].dset, log->rows, n, log->cols[i].buf) < 0;
    if (log->iter_width > 0) {
        bad |= append_rows(log->it_max, log->rows, n, log->it_buf_max) < 0;
        bad |= append_rows(log->it_l2, log->rows, n, log->it_buf_l2) < 0;
        bad |= append_rows(log->it_xpbd, log->rows, n, log->it_buf_xpbd) < 0;
    }
    log->rows += n;
    log->buffered = 0;
    long rows = (long)log->rows;
    bad |= H5LTset_attribute_long(log->file, "/", "steps", &rows, 1) < 0;
    bad |= H5Fflush(log->file, H5F_SCOPE_GLOBAL) < 0;
    if (!bad) return PBD_OK;
    int err = errno;
    log->rows -= n; /* not known to be in the file */
    log->write_failed = 1;
    return pbd_error(PBD_EIO, "%s: cannot append %s: %s", log->partial, what, io_reason(err));
}

static void put(pbd_h5log *log, int col, const double *v)
{
    log_column *c = &log->cols[col];
    memcpy(c->buf + (size_t)log->buffered * c->width, v, (size_t)c->width * sizeof(double));
}

static void put1(pbd_h5log *log, int col, double v) { put(log, col, &v); }

pbd_status pbd_h5log_step(pbd_h5log *log, const pbd_world *w)
{
    if (w->n != log->n)
        return pbd_error(PBD_EINVAL, "%s: step: expected %d particles, found %d", log->partial,
                         log->n, w->n);
    const pbd_step_stats *st = &w->stats;
    put1(log, log->c_time, w->time);
    put1(log, log->c_max, st->max_c);
    put1(log, log->c_l2, st->l2_c);
    put1(log, log->c_xpbd, w->stats.xpbd_residual);
    put(log, log->c_lin, st->linear_momentum);
    put(log, log->c_ang, st->angular_momentum);
    put1(log, log->c_ke, st->kinetic_energy);
    put1(log, log->c_pe, st->potential_energy);
    put(log, log->c_stage, st->stage_seconds);
    put1(log, log->c_skipped, st->skipped);
    for (int i = 0; i < log->n_cols; i++) {
        log_column *c = &log->cols[i];
        if (i > log->c_skipped && !c->set)
            for (int k = 0; k < c->width; k++) c->buf[(size_t)log->buffered * c->width + k] = NAN;
        c->set = 0;
    }
    if (log->iter_width > 0) {
        int have = w->def.iterations * w->def.substeps;
        if (have > w->iter_capacity) have = w->iter_capacity;
        double *m = log->it_buf_max + (size_t)log->buffered * log->iter_width;
        double *l = log->it_buf_l2 + (size_t)log->buffered * log->iter_width;
        double *x = log->it_buf_xpbd + (size_t)log->buffered * log->iter_width;
        for (int k = 0; k < log->iter_width; k++) {
            int ok = k < have && w->def.record_iterations;
            m[k] = ok ? w->iter_max_c[k] : NAN;
            l[k] = ok ? w->iter_l2_c[k] : NAN;
            x[k] = ok && w->iter_xpbd ? w->iter_xpbd[k] : NAN;
        }
    }
    log->buffered++;
    log->steps++;
    if (log->frames_every > 0 && log->steps % log->frames_every == 0) {
        char what[64];
        snprintf(what, sizeof what, "the frame of step %ld", log->steps);
        pbd_status st = reserve_space(log, 0, what);
        if (st != PBD_OK) return st;
        errno = 0;
        if (write_frame(log, w) != 0) {
            int err = errno;
            log->write_failed = 1;
            return pbd_error(PBD_EIO, "%s: cannot append %s: %s", log->partial, what,
                             io_reason(err));
        }
    }
    if (log->buffered == log->block) {
        pbd_status st = flush_block(log);
        if (st != PBD_OK) return st;
    }
    int sig = pbd_interrupt_signal();
    if (sig)
        return pbd_error(PBD_EINTR, "interrupted by %s after step %ld", pbd_signal_name(sig),
                         log->steps);
    return PBD_OK;
}

/* XDMF sidecar (ParaView: File > Open <run>.xdmf): a temporal collection whose grids take
 * their geometry as hyperslabs of /frames/positions and their topology from /scene. */
static pbd_status write_xdmf(pbd_h5log *log)
{
    if (log->n_frames == 0) return PBD_OK;
    char path[3300], tmp[3400];
    snprintf(path, sizeof path, "%s/%s.xdmf", log->dir, log->run);
    snprintf(tmp, sizeof tmp, "%s.partial-%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return pbd_error(PBD_EIO, "%s: cannot write the XDMF sidecar: %s", tmp, strerror(errno));
    const char *h5 = strrchr(log->path, '/') ? strrchr(log->path, '/') + 1 : log->path;
    long n = log->n, F = (long)log->n_frames;
    fprintf(f, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
               "<Xdmf Version=\"2.0\">\n <Domain>\n"
               "  <Grid Name=\"%s\" GridType=\"Collection\" CollectionType=\"Temporal\">\n",
            log->run);
    for (long k = 0; k < F; k++) {
        fprintf(f, "   <Grid Name=\"frame %ld\" GridType=\"Uniform\">\n", k);
        fprintf(f, "    <Time Value=\"%.17g\"/>\n", log->frame_times[k]);
        if (log->n_tris > 0)
            fprintf(f, "    <Topology TopologyType=\"Triangle\" NumberOfElements=\"%d\">\n"
                       "     <DataItem Dimensions=\"%d 3\" NumberType=\"Int\" Precision=\"4\" "
                       "Format=\"HDF\">%s:/scene/triangles</DataItem>\n    </Topology>\n",
                    log->n_tris, log->n_tris, h5);
        else if (log->n_edges > 0)
            fprintf(f, "    <Topology TopologyType=\"Polyline\" NodesPerElement=\"2\" "
                       "NumberOfElements=\"%ld\">\n"
                       "     <DataItem Dimensions=\"%ld 2\" NumberType=\"Int\" Precision=\"4\" "
                       "Format=\"HDF\">%s:%s</DataItem>\n    </Topology>\n",
                    log->n_edges, log->n_edges, h5, log->edges_dataset);
        else
            fprintf(f, "    <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%ld\"/>\n", n);
        fprintf(f, "    <Geometry GeometryType=\"XYZ\">\n"
                   "     <DataItem ItemType=\"HyperSlab\" Dimensions=\"1 %ld 3\" Type=\"HyperSlab\">\n"
                   "      <DataItem Dimensions=\"3 3\" Format=\"XML\">%ld 0 0 1 1 1 1 %ld 3</DataItem>\n"
                   "      <DataItem Dimensions=\"%ld %ld 3\" NumberType=\"Float\" Precision=\"8\" "
                   "Format=\"HDF\">%s:/frames/positions</DataItem>\n"
                   "     </DataItem>\n    </Geometry>\n   </Grid>\n",
                n, k, n, F, n, h5);
    }
    fprintf(f, "  </Grid>\n </Domain>\n</Xdmf>\n");
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return pbd_error(PBD_EIO, "%s: cannot write the XDMF sidecar", path);
    }
    return PBD_OK;
}

pbd_status pbd_h5log_finish(pbd_h5log *log)
{
    pbd_status st = flush_block(log);
    if (st == PBD_OK) {
        long frames = (long)log->n_frames;
        if (H5LTset_attribute_long(log->file, "/", "frames", &frames, 1) < 0 ||
            H5LTset_attribute_long(log->file, "/", "complete", &(long){1}, 1) < 0)
            st = pbd_error(PBD_EIO, "%s: cannot write the closing attributes", log->partial);
    }
    close_handles(log);
    if (st == PBD_OK && check_and_trim(log->partial) < 0)
        st = pbd_error(PBD_EIO, "%s: expected a readable HDF5 file after closing, found none",
                       log->partial);
    if (st == PBD_OK) st = write_xdmf(log);
    if (st == PBD_OK && rename(log->partial, log->path) != 0)
        st = pbd_error(PBD_EIO, "%s: cannot rename to %s: %s", log->partial, log->path,
                       strerror(errno));
    if (st != PBD_OK) remove(log->partial);
    else remove(log->stopped); /* a partial file of an earlier, stopped attempt */
    log_free(log);
    return st;
}

pbd_status pbd_h5log_finish_partial(pbd_h5log *log, const char *reason, char *kept,
                                    size_t kept_size, long *steps_kept)
{
    if (kept && kept_size) kept[0] = '\0';
    if (steps_kept) *steps_kept = -1;
    /* after a failed write nothing more is written: the file stays as its last flush */
    pbd_status st = log->write_failed ? PBD_EIO : flush_block(log);
    char why[1024] = "";
    if (st != PBD_OK) snprintf(why, sizeof why, "%s", pbd_last_error());
    if (!log->write_failed && reserve_space(log, 0, "the closing attributes") == PBD_OK) {
        /* the attributes say the file is partial and why */
        long frames = (long)log->n_frames, rows = (long)log->rows;
        H5LTset_attribute_long(log->file, "/", "frames", &frames, 1);
        H5LTset_attribute_long(log->file, "/", "steps", &rows, 1);
        H5LTset_attribute_long(log->file, "/", "complete", &(long){0}, 1);
        H5LTset_attribute_string(log->file, "/", "stopped", reason ? reason : "");
    }
    close_handles(log);
    if (rename(log->partial, log->stopped) != 0) {
        int err = errno;
        remove(log->partial);
        st = pbd_error(PBD_EIO, "%s: cannot rename to %s: %s", log->partial, log->stopped,
                       strerror(err));
        log_free(log);
        return st;
    }
    long n = check_and_trim(log->stopped);
    if (steps_kept) *steps_kept = n;
    if (n < 0) { /* e.g. the disk filled up while HDF5 wrote its metadata: nothing to keep */
        remove(log->stopped);
        st = pbd_error(PBD_EIO, "%s: could not be completed as a readable HDF5 file%s%s",
                       log->stopped, *why ? " after: " : "", why);
    } else {
        if (kept && kept_size) snprintf(kept, kept_size, "%s", log->stopped);
        if (st != PBD_OK) pbd_error(st, "%s", why);
    }
    log_free(log);
    return st;
}

pbd_status pbd_h5log_stop(pbd_h5log *log, pbd_status st)
{
    char reason[1024], kept[4096], why[1024];
    snprintf(reason, sizeof reason, "%s", pbd_last_error());
    long steps = -1;
    pbd_h5log_finish_partial(log, reason, kept, sizeof kept, &steps);
    snprintf(why, sizeof why, "%s", pbd_last_error());
    if (!*kept)
        return pbd_error(st, "%s; nothing kept (%s)", reason, why);
    if (steps == 0)
        return pbd_error(st, "%s; no step completed: the scene and parameters are in %s", reason,
                         kept);
    return pbd_error(st, "%s; kept steps 1-%ld in %s", reason, steps, kept);
}

void pbd_h5log_discard(pbd_h5log *log)
{
    if (!log) return;
    close_handles(log);
    remove(log->partial);
    log_free(log);
}

/* ---- reading back ------------------------------------------------------------------- */

int pbd_h5_read_attr_double(const char *path, const char *name, double *v)
{
    quiet_hdf5();
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return -1;
    int rc = -1;
    if (H5Aexists(f, name) > 0) {
        H5T_class_t cls;
        size_t size;
        hsize_t dims[4] = {1, 1, 1, 1};
        if (H5LTget_attribute_info(f, "/", name, dims, &cls, &size) >= 0 &&
            (cls == H5T_FLOAT || cls == H5T_INTEGER) && dims[0] == 1)
            rc = H5LTget_attribute_double(f, "/", name, v) < 0 ? -1 : 0;
    }
    H5Fclose(f);
    return rc;
}

int pbd_h5_read_attr_string(const char *path, const char *name, char *buf, size_t size)
{
    quiet_hdf5();
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return -1;
    int rc = -1;
    if (H5Aexists(f, name) > 0) {
        H5T_class_t cls;
        size_t len;
        hsize_t dims[4] = {1, 1, 1, 1};
        if (H5LTget_attribute_info(f, "/", name, dims, &cls, &len) >= 0 && cls == H5T_STRING) {
            char *tmp = malloc(len + 1);
            if (tmp && H5LTget_attribute_string(f, "/", name, tmp) >= 0) {
                tmp[len] = '\0';
                snprintf(buf, size, "%s", tmp);
                rc = 0;
            }
            free(tmp);
        }
    }
    H5Fclose(f);
    return rc;
}

int pbd_h5_read_dataset(const char *path, const char *dataset, double **data, long *rows,
                        long *cols)
{
    quiet_hdf5();
    *data = NULL;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return -1;
    int rc = -1;
    hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
    if (d >= 0) {
        hid_t s = H5Dget_space(d);
        int rank = H5Sget_simple_extent_ndims(s);
        hsize_t dims[8] = {0};
        if (rank >= 1 && rank <= 8) {
            H5Sget_simple_extent_dims(s, dims, NULL);
            hsize_t inner = 1;
            for (int r = 1; r < rank; r++) inner *= dims[r];
            size_t total = (size_t)(dims[0] * inner);
            double *buf = malloc((total ? total : 1) * sizeof *buf);
            if (buf && (total == 0 || H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                                              H5P_DEFAULT, buf) >= 0)) {
                *data = buf;
                *rows = (long)dims[0];
                *cols = (long)inner;
                rc = 0;
            } else {
                free(buf);
            }
        }
        H5Sclose(s);
        H5Dclose(d);
    }
    H5Fclose(f);
    return rc;
}
