/* Root attributes of a run file: solver definition, scene parameters, option rows and
 * provenance (DESIGN.md "HDF5 output"). */
#define _DEFAULT_SOURCE /* getloadavg */
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

/* A root attribute written (rc, HDF5's status) inside the log's busy section: see
 * log_enter; the section opened by begin() is closed here, flushing the file. */
static pbd_h5log *begin(pbd_h5log *log)
{
    log_enter(log);
    log->dirty = 1;
    return log;
}

static pbd_status done(pbd_h5log *log, const char *name, herr_t rc)
{
    pbd_status st = rc < 0 ? pbd_error(PBD_EIO, "%s: attribute %s: cannot write", log->partial,
                                       name)
                           : PBD_OK;
    log_leave(log);
    return st;
}

pbd_status pbd_h5log_attr_double(pbd_h5log *log, const char *name, double v)
{
    return done(log, name, H5LTset_attribute_double(begin(log)->file, "/", name, &v, 1));
}

pbd_status pbd_h5log_attr_int(pbd_h5log *log, const char *name, long v)
{
    return done(log, name, H5LTset_attribute_long(begin(log)->file, "/", name, &v, 1));
}

pbd_status pbd_h5log_attr_string(pbd_h5log *log, const char *name, const char *v)
{
    return done(log, name, H5LTset_attribute_string(begin(log)->file, "/", name, v ? v : ""));
}

pbd_status pbd_h5log_attr_options(pbd_h5log *log, const char *prefix, const cli_option *rows,
                                  int n_rows)
{
    pbd_status st = PBD_OK;
    log_enter(log); /* one flush for all the rows */
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
    log_leave(log);
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
    log_enter(log);
    pbd_status st = pbd_h5log_attr_options(log, "scene.", rows, n);
    if (st == PBD_OK) st = pbd_h5log_attr_int(log, "seed", (long)sp->seed);
    log_leave(log);
    return st;
}

const char *pbd_build_revision(void) { return PBD_GIT_REVISION; }
const char *pbd_build_cflags(void) { return PBD_CFLAGS; }

void pbd_machine_cpu_model(char *buf, size_t size)
{
    snprintf(buf, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                c += 1 + (c[1] == ' ');
                c[strcspn(c, "\n")] = '\0';
                snprintf(buf, size, "%s", c);
            }
            break;
        }
    fclose(f);
}

/* This process's command line, from /proc/self/cmdline (arguments joined by spaces, those
 * with spaces or quotes in single quotes); "" when it cannot be read. */
static void command_line(char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f) return;
    char raw[8192];
    size_t n = fread(raw, 1, sizeof raw - 1, f);
    fclose(f);
    raw[n] = '\0';
    size_t at = 0;
    for (size_t i = 0; i < n && at + 4 < size;) {
        const char *arg = raw + i;
        size_t len = strlen(arg);
        int quote = arg[0] == '\0' || strpbrk(arg, " \t'\"$\\") != NULL;
        at += (size_t)snprintf(buf + at, size - at, "%s%s%s%s", at ? " " : "", quote ? "'" : "",
                               arg, quote ? "'" : "");
        if (at >= size) {
            buf[size - 1] = '\0';
            break;
        }
        i += len + 1;
    }
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
    /* the BLAS that serves the Newton reference's factorisations, and its threads */
    long blas_threads = pbd_blas_threads();
    bad |= H5LTset_attribute_string(file, "/", "blas", pbd_blas_name()) < 0;
    bad |= H5LTset_attribute_long(file, "/", "blas_threads", &blas_threads, 1) < 0;
    char cmd[4096], cpu[256];
    command_line(cmd, sizeof cmd);
    bad |= H5LTset_attribute_string(file, "/", "command", cmd) < 0;
    pbd_machine_cpu_model(cpu, sizeof cpu);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    bad |= H5LTset_attribute_string(file, "/", "machine.cpu_model", cpu) < 0;
    bad |= H5LTset_attribute_long(file, "/", "machine.cores", &cores, 1) < 0;
    double load[3] = {NAN, NAN, NAN};
    if (getloadavg(load, 3) != 3) load[0] = load[1] = load[2] = NAN;
    bad |= H5LTset_attribute_double(file, "/", "machine.loadavg_start", load, 3) < 0;
    return bad ? -1 : 0;
}

/* machine.loadavg_end: made NaN when the file is created (at_end = 0) and overwritten in
 * place when the run closes, complete or partial (at_end = 1): the load average then (1, 5,
 * 15 min; with the one at the start it tells whether the machine was busy while the run was
 * timed). NaN in a file whose run was killed. threads_used goes with the progress below. */
int log_write_machine(pbd_h5log *log, int at_end)
{
    double load[3] = {NAN, NAN, NAN};
    if (at_end && getloadavg(load, 3) != 3) load[0] = load[1] = load[2] = NAN;
    return log_attr_doubles_in_place(log->file, "machine.loadavg_end", load, 3);
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

/* complete, steps, frames, threads_used, stopped and machine.loadavg_end are made when the
 * file is created and later only overwritten in place (H5Awrite on the same type and size:
 * no new space in the file), so that a file closed after a failed write (a full disk) still
 * says what it holds and why it stopped. stopped is a fixed-size string of LOG_REASON_BYTES. */
#define LOG_REASON_BYTES 1024

/* A vector attribute of n values of `type` on the root, created when missing (H5LT would
 * delete and remake an existing one: new space). */
static int attr_in_place(hid_t file, const char *name, hid_t type, const void *v, hsize_t n)
{
    hid_t a = H5Aexists(file, name) > 0 ? H5Aopen(file, name, H5P_DEFAULT) : -1;
    if (a < 0) {
        hid_t space = H5Screate_simple(1, &n, NULL);
        a = space < 0 ? -1 : H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
        if (space >= 0) H5Sclose(space);
        if (a < 0) return -1;
    }
    herr_t st = H5Awrite(a, type, v);
    H5Aclose(a);
    return st < 0 ? -1 : 0;
}

int log_attr_long_in_place(hid_t file, const char *name, long v)
{
    return attr_in_place(file, name, H5T_NATIVE_LONG, &v, 1);
}

int log_attr_doubles_in_place(hid_t file, const char *name, const double *v, int n)
{
    return attr_in_place(file, name, H5T_NATIVE_DOUBLE, v, (hsize_t)n);
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
    bad |= log_attr_long_in_place(log->file, "threads_used", (long)log->threads_used) != 0;
    if (stopped) bad |= log_attr_reason(log->file, stopped) != 0;
    return bad ? -1 : 0;
}

/* ---- the parameter hash (a merge compares parameters) ---------------------------------- */

void pbd_hash_text(unsigned long long *h, const char *text)
{
    if (*h == 0) *h = 14695981039346656037ull; /* FNV-1a, 64 bits */
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        *h ^= *c;
        *h *= 1099511628211ull;
    }
    *h ^= 0xff; /* a separator, so that "ab","c" and "a","bc" differ */
    *h *= 1099511628211ull;
}

static int is_parameter(const char *name)
{
    return strncmp(name, "solver.", 7) == 0 || strncmp(name, "scene.", 6) == 0 ||
           strncmp(name, "param.", 6) == 0 || strcmp(name, "quick") == 0 ||
           strcmp(name, "seed") == 0;
}

/* One root attribute into the hash: its name, then its value as text (numbers as %.17g). */
static herr_t hash_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    if (!is_parameter(name)) return 0;
    unsigned long long *h = data;
    pbd_hash_text(h, name);
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    hssize_t n = H5Sget_simple_extent_npoints(s);
    int bad = n < 0 || n > 64;
    if (!bad && H5Tget_class(t) == H5T_STRING && !H5Tis_variable_str(t)) {
        size_t len = H5Tget_size(t);
        char *buf = calloc(len + 1, 1);
        bad = !buf || H5Aread(a, t, buf) < 0;
        if (!bad) pbd_hash_text(h, buf);
        free(buf);
    } else if (!bad) {
        double v[64];
        bad = H5Aread(a, H5T_NATIVE_DOUBLE, v) < 0;
        for (hssize_t k = 0; !bad && k < n; k++) {
            char text[40];
            snprintf(text, sizeof text, "%.17g", v[k]);
            pbd_hash_text(h, text);
        }
    }
    H5Sclose(s);
    H5Tclose(t);
    H5Aclose(a);
    return bad ? -1 : 0;
}

int log_write_param_hash(pbd_h5log *log)
{
    unsigned long long h = 0;
    hsize_t idx = 0;
    if (H5Aiterate2(log->file, H5_INDEX_NAME, H5_ITER_INC, &idx, hash_attr, &h) < 0) return -1;
    char hex[24];
    snprintf(hex, sizeof hex, "%016llx", h);
    return H5LTset_attribute_string(log->file, "/", "param_hash", hex) < 0 ? -1 : 0;
}
