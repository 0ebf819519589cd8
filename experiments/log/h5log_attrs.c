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

/* At the end of a run: the load average then (1, 5, 15 min; with the one at the start it
 * tells whether the machine was busy while the run was timed) and the threads used. */
void log_write_machine(pbd_h5log *log, int at_end)
{
    if (!at_end) return; /* the start's are part of the provenance */
    double load[3] = {NAN, NAN, NAN};
    if (getloadavg(load, 3) != 3) load[0] = load[1] = load[2] = NAN;
    H5LTset_attribute_double(log->file, "/", "machine.loadavg_end", load, 3);
    long used = log->threads_used;
    H5LTset_attribute_long(log->file, "/", "threads_used", &used, 1);
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
