/* The datasets a run file grows step by step: /series and /iterations rows buffered and
 * flushed in whole blocks, at most every flush_seconds (/scene and /frames: h5log_frames.c). */
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

/* ---- /series, /iterations, /frames ------------------------------------------------ */

int log_add_column(pbd_h5log *log, hid_t group, const char *name, int width,
                      const char *units, const char *description)
{
    if (log->n_cols >= LOG_MAX_COLUMNS || width < 1) return -1;
    log_column *c = &log->cols[log->n_cols];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->width = width;
    c->buf = malloc((size_t)log->capacity * (size_t)width * sizeof(double));
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

const char *log_common_unit(const pbd_world *w)
{
    const char *u = NULL;
    for (int s = 0; s < w->n_sets; s++) {
        const char *t = w->sets[s].type->unit ? w->sets[s].type->unit : "?";
        if (u && strcmp(u, t) != 0) return NULL;
        u = t;
    }
    return u;
}

/* /series/sets/<NN_type>/: the set's residuals and elastic energy in its type's unit. */
static int make_set_columns(pbd_h5log *log, hid_t series, const pbd_world *w)
{
    log->c_set = malloc((size_t)(w->n_sets > 0 ? w->n_sets : 1) * 4 * sizeof *log->c_set);
    if (!log->c_set) return -1;
    if (w->n_sets == 0) return 0;
    hid_t g = H5Gcreate2(series, "sets", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    int bad = 0;
    for (int s = 0; s < w->n_sets && !bad; s++) {
        const pbd_constraint_type *type = w->sets[s].type;
        const char *unit = type->unit ? type->unit : "?";
        hid_t sg = H5Gcreate2(g, log->set_names[s], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (sg < 0) {
            bad = 1;
            break;
        }
        H5LTset_attribute_string(sg, ".", "type", type->name);
        H5LTset_attribute_string(sg, ".", "unit", unit);
        int *c = log->c_set + 4 * s;
        c[0] = log_add_column(log, sg, "max_c", 1, unit,
                              "max |C| over the set's equalities and violated inequalities "
                              "(C < 0) at the step's end");
        c[1] = log_add_column(log, sg, "l2_c", 1, unit, "||C||_2 over the same constraints");
        c[2] = log_add_column(log, sg, "xpbd_residual", 1, unit,
                              "||C + alpha_tilde lambda||_2 (XPBD Eq. 9), alpha_tilde = "
                              "alpha/h^2 of the last substep h, over the same constraints and "
                              "inequalities with lambda != 0");
        c[3] = log_add_column(log, sg, "elastic_energy", 1, "J",
                              "sum C^2/(2 alpha) over the same constraints with alpha > 0 "
                              "(XPBD Eq. 3); NaN for PBD, whose stiffness defines no energy");
        bad = c[0] < 0 || c[1] < 0 || c[2] < 0 || c[3] < 0;
        H5Gclose(sg);
    }
    H5Gclose(g);
    return bad ? -1 : 0;
}

int log_make_series(pbd_h5log *log, const pbd_world *w)
{
    hid_t g = H5Gcreate2(log->file, "series", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    H5LTset_attribute_string(g, ".", "unmeasured",
                             "the measure stage runs after every solver.measure_every-th step; "
                             "the columns it fills (residuals, momenta, energies) are NaN in the "
                             "other rows (column step numbers the rows)");
    H5LTset_attribute_string(g, ".", "velocities",
                             "v of the last substep, (x_end - x_start)/h with h = dt/substeps, "
                             "after velocityUpdate (friction, restitution)");
    log->c_step = log_add_column(log, g, "step", 1, "1", "step number (1 = the first step)");
    log->c_time = log_add_column(log, g, "time", 1, "s", "simulated time after the step");
    log->c_particles = log_add_column(log, g, "particles", 1, "1",
                                      "particles after the step (tearing adds some)");
    const char *unit = log_common_unit(w);
    log->c_max = log->c_l2 = log->c_xpbd = -1;
    if (unit) { /* one unit for every set: the overall values mean something */
        log->c_max = log_add_column(log, g, "max_c", 1, unit,
                                    "max |C| over every set (all in this unit), see sets/");
        log->c_l2 = log_add_column(log, g, "l2_c", 1, unit, "||C||_2 over every set");
        log->c_xpbd = log_add_column(log, g, "xpbd_residual", 1, unit,
                                     "||C + alpha_tilde lambda||_2 over every set");
    }
    log->c_lin = log_add_column(log, g, "linear_momentum", 3, "kg m/s",
                                "sum m v over the free particles (v: attribute velocities of "
                                "/series)");
    log->c_ang = log_add_column(log, g, "angular_momentum", 3, "kg m^2/s",
                                "sum m x cross v about the origin (free particles)");
    log->c_ke = log_add_column(log, g, "kinetic_energy", 1, "J", "sum 1/2 m |v|^2 (free particles)");
    log->c_grav = log_add_column(log, g, "gravitational_energy", 1, "J",
                                 "-sum m g.x (free particles; zero at x = 0)");
    log->c_elastic = log_add_column(log, g, "elastic_energy", 1, "J",
                                    "sum of the sets' elastic_energy (XPBD); NaN for PBD");
    log->c_total = log_add_column(log, g, "total_energy", 1, "J",
                                  "kinetic + gravitational + elastic (XPBD); kinetic + "
                                  "gravitational for PBD");
    log->c_stage = log_add_column(log, g, "stage_seconds", PBD_STAGE_COUNT, "s",
                                  "wall time per stage of the step (columns: attribute stages)");
    log->c_skipped = log_add_column(log, g, "skipped", 1, "constraints",
                                    "constraints the last iteration skipped, at the positions it "
                                    "saw: degenerate geometry, or no movable particle (sum w "
                                    "|grad C|^2 = 0, e.g. all pinned: see /scene/sets/*/pinned)"
                                    "; newton: degenerate at the last iterate");
    log->c_degenerate = log_add_column(log, g, "degenerate", 1, "constraints",
                                       "constraints whose C has no gradient (eval: degenerate) "
                                       "at the step's end positions, as measured");
    log->c_threads = log_add_column(log, g, "threads", 1, "1",
                                    "the most threads the step's parallel loops ran on");
    if (log->c_stage >= 0) {
        char names[512] = "";
        for (int k = 0; k < PBD_STAGE_COUNT; k++) {
            strcat(names, pbd_stage_names[k]);
            if (k + 1 < PBD_STAGE_COUNT) strcat(names, " ");
        }
        H5LTset_attribute_string(log->cols[log->c_stage].dset, ".", "stages", names);
    }
    int bad = make_set_columns(log, g, w);
    log->c_newton = log->c_newton_min = -1;
    if (!bad && w->def.method == PBD_METHOD_NEWTON) {
        log->c_newton = log_add_column(log, g, "newton_iterations", 1, "1",
                                       "Newton iterations of the step's last substep");
        log->c_newton_min = log_add_column(log, g, "newton_minimum", 1, "1",
                                           "the last substep's answer checked: 1 a minimum of G "
                                           "(Hessian positive definite), 2 marginal (singular to "
                                           "rounding), -1 not checked (a hard row: no G); a "
                                           "saddle (0) is refused and ends the run");
        bad = log->c_newton < 0 || log->c_newton_min < 0;
    }
    if (!bad) bad = log_make_fluid(log, g, w) != 0;
    if (!bad) bad = log_make_contact(log, g, w) != 0;
    H5Gclose(g);
    log->c_first_extra = log->n_cols;
    int ids[] = {log->c_step, log->c_time, log->c_particles, log->c_lin, log->c_ang,
                 log->c_ke, log->c_grav, log->c_elastic, log->c_total, log->c_stage,
                 log->c_skipped, log->c_threads, log->c_degenerate};
    for (unsigned i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (ids[i] < 0) return -1;
    if (unit && (log->c_max < 0 || log->c_l2 < 0 || log->c_xpbd < 0)) return -1;
    return bad;
}

static int add_iter(pbd_h5log *log, hid_t g, const char *name, int set, int kind,
                    const char *unit, const char *description)
{
    if (log->n_its >= LOG_MAX_ITER) return -1;
    log_iter *it = &log->its[log->n_its];
    hsize_t inner[1] = {(hsize_t)log->iter_width};
    hsize_t chunk[2] = {(hsize_t)log->block, (hsize_t)log->iter_width};
    it->dset = log_create_extendible(g, name, H5T_NATIVE_DOUBLE, 2, inner, chunk, 1);
    it->buf = malloc((size_t)log->capacity * (size_t)log->iter_width * sizeof(double));
    it->set = set;
    it->kind = kind;
    log->n_its++;
    if (it->dset < 0 || !it->buf) return -1;
    log_set_units(it->dset, unit, description);
    return 0;
}

static const char *const iter_names[3] = {"max_c", "l2_c", "xpbd_residual"};
static const char *const iter_descriptions[3] = {
    "max |C| after each iteration", "||C||_2 after each iteration",
    "||C + alpha_tilde lambda||_2 after each iteration"};

int log_make_iterations(pbd_h5log *log, const pbd_world *w)
{
    const int newton = w->def.method == PBD_METHOD_NEWTON; /* always: its iterates are free */
    if (!w->def.record_iterations && !newton) return 0;
    long long per = newton ? (long long)w->def.newton_max_iterations + 1 : w->def.iterations;
    if (per * w->def.substeps > 100000000LL) return -1; /* validated */
    log->iter_width = pbd_iteration_log_width(&w->def);
    hid_t g = H5Gcreate2(log->file, "iterations", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    int iters = w->def.iterations, subs = w->def.substeps, bad = 0;
    H5LTset_attribute_int(g, ".", "iterations", &iters, 1);
    H5LTset_attribute_int(g, ".", "substeps", &subs, 1);
    H5LTset_attribute_string(g, ".", "layout", newton ?
                             "method newton: row = step, column = substep * "
                             "(newton_max_iterations + 1) + k, the residuals at Newton iterate k "
                             "(k = 0: the prediction x~, lambda = 0), NaN past the last; per set "
                             "in sets/<NN_type>/ in its unit, overall here only when every set "
                             "has the same unit; newton_residual = ||(g, h)||_2 always" :
                             "row = step, column = substep * iterations + iteration; "
                             "residual at the predicted positions after that iteration; "
                             "per set in sets/<NN_type>/ in its unit, overall here only when "
                             "every set has the same unit");
    if (newton)
        bad = add_iter(log, g, "newton_residual", -1, 3, "kg m (g), constraint units (h)",
                       "||(g, h)||_2 of the implicit step (XPBD Eq. 8-9) at each Newton iterate");
    else if (w->def.method >= PBD_METHOD_VBD) /* the solver families (solver/families.c) */
        bad = add_iter(log, g, "gradient_residual", -1, 3, "kg m",
                       "||M(x - y) + h^2 sum grad E||_2 = h^2 ||grad G|| of the implicit step's "
                       "objective (VBD Sec. 3) after each iteration, E = C^2/(2 alpha), hard "
                       "constraints left out");
    const char *unit = log_common_unit(w);
    for (int k = 0; unit && k < 3 && !bad; k++)
        bad = add_iter(log, g, iter_names[k], -1, k, unit, iter_descriptions[k]);
    hid_t sets = w->n_sets > 0 ? H5Gcreate2(g, "sets", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    for (int s = 0; s < w->n_sets && !bad; s++) {
        hid_t sg = H5Gcreate2(sets, log->set_names[s], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        const char *u = w->sets[s].type->unit ? w->sets[s].type->unit : "?";
        for (int k = 0; k < 3 && !bad; k++)
            bad = sg < 0 || add_iter(log, sg, iter_names[k], s, k, u, iter_descriptions[k]);
        if (sg >= 0) H5Gclose(sg);
    }
    if (sets >= 0) H5Gclose(sets);
    H5Gclose(g);
    return bad ? -1 : 0;
}

int pbd_h5log_column(pbd_h5log *log, const char *name, int width, const char *units)
{
    return pbd_h5log_column_described(log, name, width, units, NULL);
}

int pbd_h5log_column_described(pbd_h5log *log, const char *name, int width, const char *units,
                               const char *description)
{
    if (log->rows > 0 || log->buffered > 0) {
        pbd_error(PBD_EINVAL, "%s: column %s: expected before the first step, found %ld steps",
                  log->partial, name, log->steps);
        return -1;
    }
    log_enter(log);
    log->dirty = 1;
    hid_t g = H5Gopen2(log->file, "series", H5P_DEFAULT);
    int id = log_add_column(log, g, name, width, units, description);
    H5Gclose(g);
    log_leave(log);
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

static pbd_status write_dataset(pbd_h5log *log, const char *name, const double *data,
                                long rows, long cols, const char *units,
                                const char *description);

pbd_status pbd_h5log_dataset(pbd_h5log *log, const char *name, const double *data, long rows,
                             long cols, const char *units, const char *description)
{
    log_enter(log);
    log->dirty = 1;
    pbd_status st = write_dataset(log, name, data, rows, cols, units, description);
    log_leave(log);
    return st;
}

static pbd_status write_dataset(pbd_h5log *log, const char *name, const double *data,
                                long rows, long cols, const char *units,
                                const char *description)
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
    int bad = pbd_h5_write_array(g, name, H5T_NATIVE_DOUBLE, cols > 1 ? 2 : 1, dims,
                                 rows > 0 ? data : &dummy) != 0;
    if (!bad) {
        hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
        log_set_units(d, units, description);
        H5Dclose(d);
    }
    H5Gclose(g);
    return bad ? pbd_error(PBD_EIO, "%s: cannot write /results/%s", log->partial, name) : PBD_OK;
}

double log_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Twice the rows in every buffer, up to LOG_BUFFER_BYTES in all; 0 when grown. */
static int grow_buffers(pbd_h5log *log)
{
    int cap = 2 * log->capacity;
    if (cap < log->capacity || (hsize_t)cap * log->row_bytes > LOG_BUFFER_BYTES) return -1;
    for (int i = 0; i < log->n_cols; i++) {
        double *b = realloc(log->cols[i].buf, (size_t)cap * (size_t)log->cols[i].width * sizeof *b);
        if (!b) return -1;
        log->cols[i].buf = b;
    }
    for (int i = 0; i < log->n_its; i++) {
        double *b = realloc(log->its[i].buf, (size_t)cap * (size_t)log->iter_width * sizeof *b);
        if (!b) return -1;
        log->its[i].buf = b;
    }
    log->capacity = cap;
    log->reserve = log->row_bytes * (hsize_t)cap + (256u << 10);
    return 0;
}

/* Whether the buffered rows go to the file after this step: whole blocks (each fills new
 * chunks; a chunk is rewritten only when a frame flushes a part-filled block), the first one
 * or flush_seconds after the last flush, or when the buffers are full and cannot grow. */
static int flush_due(pbd_h5log *log)
{
    if (log->buffered == 0 || log->buffered % log->block != 0) return 0;
    if (log->flush_seconds < 0 || log->flushed_at == 0.0 ||
        log_now() - log->flushed_at >= log->flush_seconds)
        return 1;
    return log->buffered == log->capacity && grow_buffers(log) != 0;
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
    for (int i = 0; i < log->n_its; i++)
        bad |= log_append_rows(log->its[i].dset, log->rows, n, log->its[i].buf) < 0;
    log->rows += n;
    log->buffered = 0;
    hsize_t frames_before = log->frames_flushed;
    log->frames_flushed = log->n_frames;
    bad |= log_write_progress(log, 0, NULL) != 0;
    bad |= H5Fflush(log->file, H5F_SCOPE_GLOBAL) < 0;
    if (!bad) {
        log->dirty = 0;
        log->flushed_at = log_now();
        return PBD_OK;
    }
    int err = errno;
    log->rows -= n; /* not known to be in the file */
    log->frames_flushed = frames_before;
    log->write_failed = 1;
    return pbd_error(PBD_EIO, "%s: cannot append %s: %s", log->partial, what, log_io_reason(err));
}

static void put(pbd_h5log *log, int col, const double *v)
{
    if (col < 0) return;
    log_column *c = &log->cols[col];
    memcpy(c->buf + (size_t)log->buffered * c->width, v, (size_t)c->width * sizeof(double));
}

static void put1(pbd_h5log *log, int col, double v) { put(log, col, &v); }

/* A measured value, or NaN when the measure stage did not run after this step. */
static void putm(pbd_h5log *log, int col, const double *v, int measured)
{
    if (col < 0) return;
    double nan3[PBD_STAGE_COUNT > 3 ? PBD_STAGE_COUNT : 3];
    for (int k = 0; k < (int)(sizeof nan3 / sizeof nan3[0]); k++) nan3[k] = NAN;
    put(log, col, measured ? v : nan3);
}

static void putm1(pbd_h5log *log, int col, double v, int measured)
{
    putm(log, col, &v, measured);
}

pbd_status pbd_h5log_step(pbd_h5log *log, const pbd_world *w)
{
    if (w->n_sets != log->n_sets)
        return pbd_error(PBD_EIO, "%s: cannot log step %ld: expected the %d constraint sets of "
                         "the file's /scene, found %d", log->partial, log->steps + 1,
                         log->n_sets, w->n_sets);
    const pbd_step_stats *st = &w->stats;
    const int m = st->step == w->step_count && w->step_count > 0;
    log->n = w->n;
    put1(log, log->c_step, (double)w->step_count);
    put1(log, log->c_time, w->time);
    put1(log, log->c_particles, (double)w->n);
    putm1(log, log->c_max, st->max_c, m);
    putm1(log, log->c_l2, st->l2_c, m);
    putm1(log, log->c_xpbd, st->xpbd_residual, m);
    putm(log, log->c_lin, st->linear_momentum, m);
    putm(log, log->c_ang, st->angular_momentum, m);
    putm1(log, log->c_ke, st->kinetic_energy, m);
    putm1(log, log->c_grav, st->gravitational_energy, m);
    putm1(log, log->c_elastic, st->elastic_energy, m);
    putm1(log, log->c_total, st->total_energy, m);
    put(log, log->c_stage, st->stage_seconds);
    put1(log, log->c_skipped, st->skipped);
    put1(log, log->c_threads, st->threads);
    putm1(log, log->c_degenerate, st->degenerate, m);
    if (log->c_newton >= 0) put1(log, log->c_newton, st->newton_iterations);
    if (log->c_newton_min >= 0) put1(log, log->c_newton_min, st->newton_minimum);
    if (st->threads > log->threads_used) log->threads_used = st->threads;
    log_put_fluid(log, w);
    log_put_contact(log, w);
    for (int s = 0; s < log->n_sets; s++) {
        const pbd_set_stats *ss = &w->sets[s].stats;
        const int ms = m && ss->step == w->step_count;
        putm1(log, log->c_set[4 * s], ss->max_c, ms);
        putm1(log, log->c_set[4 * s + 1], ss->l2_c, ms);
        putm1(log, log->c_set[4 * s + 2], ss->xpbd_residual, ms);
        putm1(log, log->c_set[4 * s + 3], ss->elastic_energy, ms);
    }
    for (int i = log->c_first_extra; i < log->n_cols; i++) {
        log_column *c = &log->cols[i];
        if (!c->set)
            for (int k = 0; k < c->width; k++) c->buf[(size_t)log->buffered * c->width + k] = NAN;
        c->set = 0;
    }
    if (log->iter_width > 0) {
        const int newton = w->def.method == PBD_METHOD_NEWTON;
        long long have_ll = pbd_iteration_log_width(&w->def);
        int have = have_ll > w->iter_capacity ? w->iter_capacity : (int)have_ll;
        const double *overall[4] = {w->iter_max_c, w->iter_l2_c, w->iter_xpbd, w->iter_newton};
        for (int i = 0; i < log->n_its; i++) {
            const log_iter *it = &log->its[i];
            double *row = it->buf + (size_t)log->buffered * log->iter_width;
            for (int k = 0; k < log->iter_width; k++) {
                int ok = k < have && (w->def.record_iterations || newton);
                if (it->set < 0)
                    row[k] = ok && overall[it->kind] ? overall[it->kind][k] : NAN;
                else
                    row[k] = ok && w->iter_sets && w->iter_sets_n == w->n_sets
                                 ? w->iter_sets[((size_t)k * w->n_sets + it->set) * 3 + it->kind]
                                 : NAN;
            }
        }
    }
    log->buffered++;
    log->steps++;
    if (log->frames_every > 0 && log->steps % log->frames_every == 0) {
        char what[64];
        snprintf(what, sizeof what, "the frame of step %ld", log->steps);
        pbd_status st = log_reserve_space(log, log_frame_bytes(log, w), what);
        if (st != PBD_OK) return st;
        log_enter(log); /* flushed when it leaves: see log_enter */
        /* /series first, up to this step (flushed): a SIGKILL never leaves a frame of a step
         * /series lacks; the frame and the `frames` attribute saying it is there go into the
         * same flush */
        st = log_flush_block(log);
        if (st != PBD_OK) {
            log_leave(log);
            return st;
        }
        errno = 0;
        log->dirty = 1;
        int bad = log_write_frame(log, w) != 0;
        if (!bad) {
            log->frames_flushed = log->n_frames;
            bad = log_write_progress(log, 0, NULL) != 0;
        }
        int err = errno;
        if (bad) log->write_failed = 1;
        log_leave(log);
        if (bad)
            return pbd_error(PBD_EIO, "%s: cannot append %s: %s", log->partial, what,
                             log_io_reason(err));
    }
    if (flush_due(log)) {
        log_enter(log);
        pbd_status st = log_flush_block(log);
        log_leave(log);
        if (st != PBD_OK) return st;
    }
    int sig = pbd_interrupt_signal();
    if (sig)
        return pbd_error(PBD_EINTR, "interrupted by %s after step %ld", pbd_signal_name(sig),
                         log->steps);
    return PBD_OK;
}
