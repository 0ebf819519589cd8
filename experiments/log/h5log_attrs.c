/* Root attributes of a run file: solver definition, scene parameters, option rows and
 * provenance (DESIGN.md "HDF5 output"). */
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

pbd_status log_write_solver_def(pbd_h5log *log, const pbd_solver_def *def)
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

pbd_status log_write_provenance(pbd_h5log *log, const char *experiment, const char *run)
{
    pbd_status st = pbd_h5log_attr_string(log, "experiment", experiment);
    if (st == PBD_OK) st = pbd_h5log_attr_string(log, "run", run);
    if (st == PBD_OK && pbd_h5_write_provenance(log->file) != 0)
        st = pbd_error(PBD_EIO, "%s: cannot write the provenance attributes", log->partial);
    if (st == PBD_OK) st = pbd_h5log_attr_int(log, "seed", 0); /* overwritten by the scene's */
    return st;
}

/* ---- the attributes that say how far a run got ------------------------------------------ */

/* complete, steps, frames and stopped are made when the file is created and later only
 * overwritten in place (H5Awrite on the same type and size: no new space in the file), so
 * that a file closed after a failed write (a full disk) still says what it holds and why it
 * stopped. stopped is a fixed-size string of LOG_REASON_BYTES. */
#define LOG_REASON_BYTES 1024

int log_attr_long_in_place(hid_t file, const char *name, long v)
{
    hid_t a = H5Aexists(file, name) > 0 ? H5Aopen(file, name, H5P_DEFAULT) : -1;
    if (a < 0) return H5LTset_attribute_long(file, "/", name, &v, 1) < 0 ? -1 : 0;
    herr_t st = H5Awrite(a, H5T_NATIVE_LONG, &v);
    H5Aclose(a);
    return st < 0 ? -1 : 0;
}

int log_attr_reason(hid_t file, const char *text)
{
    char buf[LOG_REASON_BYTES];
    memset(buf, 0, sizeof buf);
    snprintf(buf, sizeof buf, "%s", text ? text : "");
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, LOG_REASON_BYTES);
    H5Tset_strpad(type, H5T_STR_NULLTERM);
    hid_t a = -1;
    if (H5Aexists(file, "stopped") > 0) {
        a = H5Aopen(file, "stopped", H5P_DEFAULT);
    } else {
        hid_t space = H5Screate(H5S_SCALAR);
        a = H5Acreate2(file, "stopped", type, space, H5P_DEFAULT, H5P_DEFAULT);
        H5Sclose(space);
    }
    herr_t st = a < 0 ? -1 : H5Awrite(a, type, buf);
    if (a >= 0) H5Aclose(a);
    H5Tclose(type);
    return st < 0 ? -1 : 0;
}

int log_write_progress(pbd_h5log *log, long complete, const char *stopped)
{
    int bad = log_attr_long_in_place(log->file, "steps", (long)log->rows) != 0;
    bad |= log_attr_long_in_place(log->file, "frames", (long)log->frames_flushed) != 0;
    bad |= log_attr_long_in_place(log->file, "complete", complete) != 0;
    if (stopped) bad |= log_attr_reason(log->file, stopped) != 0;
    return bad ? -1 : 0;
}
