/* The datasets a run file grows step by step: /scene once, then /series and /iterations
 * rows buffered and flushed every block, and /frames every K steps. */
#include "log_private.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- /scene ------------------------------------------------------------------------- */

int log_write_scene(pbd_h5log *log, const pbd_world *w, const pbd_h5log_options *opt)
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

int log_add_column(pbd_h5log *log, hid_t group, const char *name, int width,
                      const char *units, const char *description)
{
    if (log->n_cols >= LOG_MAX_COLUMNS || width < 1) return -1;
    log_column *c = &log->cols[log->n_cols];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->width = width;
    c->buf = malloc((size_t)log->block * (size_t)width * sizeof(double));
    if (!c->buf) return -1;
    hsize_t inner[1] = {(hsize_t)width}, chunk[2] = {(hsize_t)log->block, (hsize_t)width};
    c->dset = log_create_extendible(group, name, H5T_NATIVE_DOUBLE, width > 1 ? 2 : 1, inner, chunk, 0);
    if (c->dset < 0) {
        free(c->buf);
        return -1;
    }
    log_set_units(c->dset, units, description);
    return log->n_cols++;
}

int log_make_series(pbd_h5log *log, const pbd_world *w)
{
    hid_t g = H5Gcreate2(log->file, "series", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    log->c_time = log_add_column(log, g, "time", 1, "s", "simulated time after the step");
    log->c_max = log_add_column(log, g, "max_c", 1, "constraint units (m for distances)",
                            "max |C| over active constraints after the step");
    log->c_l2 = log_add_column(log, g, "l2_c", 1, "constraint units", "||C||_2 after the step");
    log->c_xpbd = log_add_column(log, g, "xpbd_residual", 1, "constraint units",
                             "||C + alpha_tilde lambda||_2 after the step (XPBD Eq. 17; "
                             "alpha_tilde of the last substep; lambda = 0 for PBD)");
    log->c_lin = log_add_column(log, g, "linear_momentum", 3, "kg m/s", "sum m v (free particles)");
    log->c_ang = log_add_column(log, g, "angular_momentum", 3, "kg m^2/s",
                            "sum m x cross v about the origin (free particles)");
    log->c_ke = log_add_column(log, g, "kinetic_energy", 1, "J", "sum 1/2 m |v|^2");
    log->c_pe = log_add_column(log, g, "potential_energy", 1, "J", "gravity: -sum m g.x");
    log->c_stage = log_add_column(log, g, "stage_seconds", PBD_STAGE_COUNT, "s",
                              "wall time per stage of the step (columns: attribute stages)");
    log->c_skipped = log_add_column(log, g, "skipped", 1, "constraints",
                                "degenerate constraints skipped in the last iteration");
    if (log->c_stage >= 0) {
        char names[512] = "";
        for (int k = 0; k < PBD_STAGE_COUNT; k++) {
            strcat(names, pbd_stage_names[k]);
            if (k + 1 < PBD_STAGE_COUNT) strcat(names, " ");
        }
        H5LTset_attribute_string(log->cols[log->c_stage].dset, ".", "stages", names);
    }
    log->c_newton = -1;
    if (w->def.method == PBD_METHOD_NEWTON) {
        log->c_newton = log_add_column(log, g, "newton_iterations", 1, "1",
                                       "Newton iterations of the step's last substep");
        if (log->c_newton < 0) return -1;
    }
    H5Gclose(g);
    int ids[] = {log->c_time, log->c_max, log->c_l2,  log->c_xpbd,  log->c_lin,
                 log->c_ang,  log->c_ke,  log->c_pe,  log->c_stage, log->c_skipped};
    for (unsigned i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (ids[i] < 0) return -1;
    return 0;
}

int log_make_iterations(pbd_h5log *log, const pbd_world *w)
{
    int newton = w->def.method == PBD_METHOD_NEWTON;
    if (!w->def.record_iterations && !newton) return 0;
    log->iter_width = pbd_iteration_log_width(&w->def);
    hid_t g = H5Gcreate2(log->file, "iterations", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    hsize_t inner[1] = {(hsize_t)log->iter_width};
    hsize_t chunk[2] = {(hsize_t)log->block, (hsize_t)log->iter_width};
    log->it_max = log_create_extendible(g, "max_c", H5T_NATIVE_DOUBLE, 2, inner, chunk, 1);
    log->it_l2 = log_create_extendible(g, "l2_c", H5T_NATIVE_DOUBLE, 2, inner, chunk, 1);
    log->it_xpbd = log_create_extendible(g, "xpbd_residual", H5T_NATIVE_DOUBLE, 2, inner, chunk, 1);
    int iters = w->def.iterations, subs = w->def.substeps;
    H5LTset_attribute_int(g, ".", "iterations", &iters, 1);
    H5LTset_attribute_int(g, ".", "substeps", &subs, 1);
    H5LTset_attribute_string(g, ".", "layout", newton ?
                             "method newton: row = step, column = substep * "
                             "(newton_max_iterations + 1) + k, residuals at Newton iterate k "
                             "(k = 0: the prediction x~, lambda = 0); NaN past the last" :
                             "row = step, column = substep * iterations + iteration; "
                             "residual at the predicted positions after that iteration");
    if (newton) {
        log->it_newton = log_create_extendible(g, "newton_residual", H5T_NATIVE_DOUBLE, 2, inner,
                                               chunk, 1);
        log->it_buf_newton = malloc((size_t)log->block * (size_t)log->iter_width * sizeof(double));
        if (log->it_newton < 0 || !log->it_buf_newton) return -1;
        log_set_units(log->it_newton, "kg m (g), constraint units (h)",
                      "||(g, h)||_2 of the implicit step (XPBD Eq. 8-9) at each Newton iterate");
    }
    H5Gclose(g);
    size_t sz = (size_t)log->block * (size_t)log->iter_width * sizeof(double);
    log->it_buf_max = malloc(sz);
    log->it_buf_l2 = malloc(sz);
    log->it_buf_xpbd = malloc(sz);
    if (log->it_max < 0 || log->it_l2 < 0 || log->it_xpbd < 0 || !log->it_buf_max ||
        !log->it_buf_l2 || !log->it_buf_xpbd)
        return -1;
    log_set_units(log->it_max, "constraint units", "max |C| after each iteration");
    log_set_units(log->it_l2, "constraint units", "||C||_2 after each iteration");
    log_set_units(log->it_xpbd, "constraint units", "||C + alpha_tilde lambda||_2 after each iteration");
    return 0;
}

int log_write_frame(pbd_h5log *log, const pbd_world *w)
{
    if (log_append_rows(log->fr_pos, log->n_frames, 1, w->x) < 0) return -1;
    double t = w->time;
    if (log_append_rows(log->fr_time, log->n_frames, 1, &t) < 0) return -1;
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

int log_make_frames(pbd_h5log *log, const pbd_world *w)
{
    if (log->frames_every <= 0 || w->n == 0) return 0;
    hid_t g = H5Gcreate2(log->file, "frames", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    hsize_t inner[2] = {(hsize_t)w->n, 3}, chunk[3] = {1, (hsize_t)w->n, 3};
    log->fr_pos = log_create_extendible(g, "positions", H5T_NATIVE_DOUBLE, 3, inner, chunk, 1);
    hsize_t chunk_t[1] = {64};
    log->fr_time = log_create_extendible(g, "time", H5T_NATIVE_DOUBLE, 1, NULL, chunk_t, 0);
    int every = log->frames_every;
    H5LTset_attribute_int(g, ".", "every", &every, 1);
    H5Gclose(g);
    if (log->fr_pos < 0 || log->fr_time < 0) return -1;
    log_set_units(log->fr_pos, "m", "positions, frame × particle × xyz");
    log_set_units(log->fr_time, "s", "time of each frame");
    return log_write_frame(log, w); /* frame 0: the initial state */
}

int pbd_h5log_column(pbd_h5log *log, const char *name, int width, const char *units)
{
    if (log->rows > 0 || log->buffered > 0) {
        pbd_error(PBD_EINVAL, "%s: column %s: expected before the first step, found %ld steps",
                  log->partial, name, log->steps);
        return -1;
    }
    hid_t g = H5Gopen2(log->file, "series", H5P_DEFAULT);
    int id = log_add_column(log, g, name, width, units, NULL);
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
    pbd_status st = log_reserve_space(log, 8 * (hsize_t)(rows > 0 ? rows : 1) * (hsize_t)(cols > 0 ? cols : 1), what);
    if (st != PBD_OK) return st;
    hid_t g = H5Gopen2(log->file, "results", H5P_DEFAULT);
    if (g < 0) g = H5Gcreate2(log->file, "results", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return pbd_error(PBD_EIO, "%s: cannot create /results", log->partial);
    hsize_t dims[2] = {(hsize_t)rows, (hsize_t)cols};
    double dummy = 0.0;
    int bad = H5LTmake_dataset_double(g, name, cols > 1 ? 2 : 1, dims, rows > 0 ? data : &dummy) < 0;
    if (!bad) {
        hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
        log_set_units(d, units, description);
        H5Dclose(d);
    }
    H5Gclose(g);
    return bad ? pbd_error(PBD_EIO, "%s: cannot write /results/%s", log->partial, name) : PBD_OK;
}

pbd_status log_flush_block(pbd_h5log *log)
{
    if (log->buffered == 0) return PBD_OK;
    hsize_t n = (hsize_t)log->buffered;
    char what[64];
    snprintf(what, sizeof what, "steps %ld-%ld", (long)log->rows + 1, log->steps);
    pbd_status st = log_reserve_space(log, 0, what);
    if (st != PBD_OK) return st;
    int bad = 0;
    errno = 0;
    for (int i = 0; i < log->n_cols; i++)
        bad |= log_append_rows(log->cols[i].dset, log->rows, n, log->cols[i].buf) < 0;
    if (log->iter_width > 0) {
        bad |= log_append_rows(log->it_max, log->rows, n, log->it_buf_max) < 0;
        bad |= log_append_rows(log->it_l2, log->rows, n, log->it_buf_l2) < 0;
        bad |= log_append_rows(log->it_xpbd, log->rows, n, log->it_buf_xpbd) < 0;
        if (log->it_buf_newton)
            bad |= log_append_rows(log->it_newton, log->rows, n, log->it_buf_newton) < 0;
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
    return pbd_error(PBD_EIO, "%s: cannot append %s: %s", log->partial, what, log_io_reason(err));
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
    if (log->c_newton >= 0) put1(log, log->c_newton, st->newton_iterations);
    for (int i = 0; i < log->n_cols; i++) {
        log_column *c = &log->cols[i];
        if (i > log->c_skipped && i != log->c_newton && !c->set)
            for (int k = 0; k < c->width; k++) c->buf[(size_t)log->buffered * c->width + k] = NAN;
        c->set = 0;
    }
    if (log->iter_width > 0) {
        int newton = w->def.method == PBD_METHOD_NEWTON;
        int have = pbd_iteration_log_width(&w->def);
        if (have > w->iter_capacity) have = w->iter_capacity;
        double *nr = log->it_buf_newton ? log->it_buf_newton + (size_t)log->buffered * log->iter_width
                                        : NULL;
        double *m = log->it_buf_max + (size_t)log->buffered * log->iter_width;
        double *l = log->it_buf_l2 + (size_t)log->buffered * log->iter_width;
        double *x = log->it_buf_xpbd + (size_t)log->buffered * log->iter_width;
        for (int k = 0; k < log->iter_width; k++) {
            int ok = k < have && (w->def.record_iterations || newton);
            if (nr) nr[k] = ok && newton && w->iter_newton ? w->iter_newton[k] : NAN;
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
        pbd_status st = log_reserve_space(log, 0, what);
        if (st != PBD_OK) return st;
        errno = 0;
        if (log_write_frame(log, w) != 0) {
            int err = errno;
            log->write_failed = 1;
            return pbd_error(PBD_EIO, "%s: cannot append %s: %s", log->partial, what,
                             log_io_reason(err));
        }
    }
    if (log->buffered == log->block) {
        pbd_status st = log_flush_block(log);
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
