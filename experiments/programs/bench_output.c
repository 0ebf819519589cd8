/* The performance table as CSV and HDF5, each written under a temporary name and renamed
 * when complete (DESIGN.md "HDF5 output").
 *
 * bench.h5:  /            attributes: cpu_model, cores, compiler, flags, blas, blas_threads,
 *                         simd_isa, simd_width, date, revision,
 *                         pbdlab_version, reps, quick, threads, targets (one line each)
 *            /rows/<col>  one dataset per column of bench.csv, one entry per row */
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* NAME.partial-<pid>, renamed when complete (pbd_atomic_*: removed on SIGINT/SIGTERM). */
static pbd_status temp_name(const char *path, pbd_atomic_file *a)
{
    if (pbd_mkdir_parents(path) != 0)
        return pbd_error(PBD_EIO, "%s: output directory: expected to create it, found %s", path,
                         strerror(errno));
    return pbd_atomic_begin(a, path);
}

static pbd_status finish(pbd_atomic_file *a, int failed)
{
    if (failed) {
        pbd_atomic_abort(a);
        return pbd_error(PBD_EIO, "%s: expected to write the bench table, found a write error",
                         a->tmp);
    }
    return pbd_atomic_commit(a);
}

pbd_status bench_write_csv(const char *path, const bench_row *rows, int n,
                           const bench_machine *m)
{
    pbd_atomic_file a;
    pbd_status st = temp_name(path, &a);
    if (st != PBD_OK) return st;
    FILE *f = fopen(a.tmp, "w");
    if (!f) {
        pbd_atomic_abort(&a);
        return pbd_error(PBD_EIO, "%s: expected a writable file, found %s", a.tmp, strerror(errno));
    }
    fprintf(f, "# pbd-bench %s; %s, %d cores; %s; flags %s; SIMD %s, %d lanes; BLAS %s, %d "
            "threads; revision %s; %d repetitions%s\n", m->date, m->cpu, m->cores, m->compiler,
            m->flags, m->simd_isa, m->simd_width, m->blas, m->blas_threads, m->revision, m->reps,
            m->quick ? "; quick" : "");
    fprintf(f, "scene,solver,particles,constraints,iterations,threads,steps_timed,"
               "projections_per_step,ms_step_min,ms_step_median,ns_per_projection,"
               "mproj_per_s,ns_per_particle_step,bytes_per_particle,max_stretch,x_baseline,"
               "checksum,load_before,load_after\n");
    for (int i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        fprintf(f, "%s,%s,%d,%d,%d,%d,%d,%ld,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%016llx,"
                   "%.2f,%.2f\n",
                r->scene, r->solver, r->particles, r->constraints, r->iterations, r->threads,
                r->steps_timed, r->projections_per_step, r->ms_min, r->ms_median,
                r->ns_per_projection, r->mproj_per_s, r->ns_per_particle_step,
                r->bytes_per_particle, r->max_stretch, r->x_baseline,
                (unsigned long long)r->checksum, r->load_before, r->load_after);
    }
    int failed = ferror(f) != 0;
    failed |= fclose(f) != 0;
    return finish(&a, failed);
}

/* One column: the field at byte offset `off` of every row, as double or int. */
static int column(hid_t g, const char *name, const bench_row *rows, int n, size_t off, int is_int)
{
    hsize_t dim = (hsize_t)n;
    if (is_int) {
        int *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
        if (!v) return 1;
        for (int i = 0; i < n; i++) v[i] = *(const int *)((const char *)&rows[i] + off);
        int err = H5LTmake_dataset_int(g, name, 1, &dim, v) < 0;
        free(v);
        return err;
    }
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (!v) return 1;
    for (int i = 0; i < n; i++) v[i] = *(const double *)((const char *)&rows[i] + off);
    int err = H5LTmake_dataset_double(g, name, 1, &dim, v) < 0;
    free(v);
    return err;
}

/* A column of fixed-length strings (scene or solver names). */
static int strings(hid_t g, const char *name, const bench_row *rows, int n, size_t off,
                   size_t len)
{
    char *buf = calloc((size_t)(n > 0 ? n : 1), len);
    if (!buf) return 1;
    for (int i = 0; i < n; i++) memcpy(buf + (size_t)i * len, (const char *)&rows[i] + off, len);
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, len);
    hsize_t dim = (hsize_t)n;
    int err = H5LTmake_dataset(g, name, 1, &dim, type, buf) < 0;
    H5Tclose(type);
    free(buf);
    return err;
}

pbd_status bench_write_h5(const char *path, const bench_row *rows, int n, const bench_machine *m,
                          const char *const *targets, int n_targets)
{
    pbd_atomic_file a;
    pbd_status st = temp_name(path, &a);
    if (st != PBD_OK) return st;
    H5E_auto2_t old_func;
    void *old_data;
    H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* failures reach the user as one pbd_error line */
    hid_t file = H5Fcreate(a.tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0) {
        H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
        pbd_atomic_abort(&a);
        return pbd_error(PBD_EIO, "%s: expected a writable file, found that HDF5 cannot create it",
                         a.tmp);
    }
    int err = 0;
    err |= H5LTset_attribute_string(file, "/", "program", "pbd-bench") < 0;
    err |= H5LTset_attribute_string(file, "/", "cpu_model", m->cpu) < 0;
    err |= H5LTset_attribute_int(file, "/", "cores", &m->cores, 1) < 0;
    err |= H5LTset_attribute_string(file, "/", "compiler", m->compiler) < 0;
    err |= H5LTset_attribute_string(file, "/", "flags", m->flags) < 0;
    err |= H5LTset_attribute_string(file, "/", "blas", m->blas) < 0;
    err |= H5LTset_attribute_int(file, "/", "blas_threads", &m->blas_threads, 1) < 0;
    err |= H5LTset_attribute_string(file, "/", "simd_isa", m->simd_isa) < 0;
    err |= H5LTset_attribute_int(file, "/", "simd_width", &m->simd_width, 1) < 0;
    err |= H5LTset_attribute_string(file, "/", "date", m->date) < 0;
    err |= H5LTset_attribute_string(file, "/", "revision", m->revision) < 0;
    err |= H5LTset_attribute_string(file, "/", "pbdlab_version", PBD_VERSION) < 0;
    err |= H5LTset_attribute_int(file, "/", "reps", &m->reps, 1) < 0;
    err |= H5LTset_attribute_int(file, "/", "quick", &m->quick, 1) < 0;
    err |= H5LTset_attribute_int(file, "/", "threads", &m->threads, 1) < 0;
    err |= H5LTset_attribute_string(file, "/", "timing",
                                    "wall clock per step, measure stage off (def.measure_every = "
                                    "0); derived columns from the minimum over repetitions") < 0;
    for (int i = 0; i < n_targets; i++) {
        char name[32];
        snprintf(name, sizeof name, "target_%d", i + 1);
        err |= H5LTset_attribute_string(file, "/", name, targets[i]) < 0;
    }
    hid_t g = H5Gcreate2(file, "rows", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    err |= g < 0;
    if (g >= 0) {
#define COL(f, is_int) err |= column(g, #f, rows, n, offsetof(bench_row, f), is_int)
        err |= strings(g, "scene", rows, n, offsetof(bench_row, scene), sizeof rows->scene);
        err |= strings(g, "solver", rows, n, offsetof(bench_row, solver), sizeof rows->solver);
        COL(particles, 1);
        COL(constraints, 1);
        COL(iterations, 1);
        COL(threads, 1);
        COL(steps_timed, 1);
        COL(ms_min, 0);
        COL(ms_median, 0);
        COL(ns_per_projection, 0);
        COL(mproj_per_s, 0);
        COL(ns_per_particle_step, 0);
        COL(bytes_per_particle, 0);
        COL(max_stretch, 0);
        COL(x_baseline, 0);
        COL(load_before, 0);
        COL(load_after, 0);
#undef COL
        double *pps = malloc((size_t)(n > 0 ? n : 1) * sizeof *pps);
        unsigned long long *sums = malloc((size_t)(n > 0 ? n : 1) * sizeof *sums);
        if (pps && sums) {
            for (int i = 0; i < n; i++) {
                pps[i] = (double)rows[i].projections_per_step;
                sums[i] = (unsigned long long)rows[i].checksum;
            }
            hsize_t dim = (hsize_t)n;
            err |= H5LTmake_dataset_double(g, "projections_per_step", 1, &dim, pps) < 0;
            err |= H5LTmake_dataset(g, "checksum", 1, &dim, H5T_NATIVE_ULLONG, sums) < 0;
        } else {
            err = 1;
        }
        free(pps);
        free(sums);
        err |= H5Gclose(g) < 0;
    }
    err |= H5Fclose(file) < 0;
    H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
    return finish(&a, err);
}

int bench_only_exact = 0;

int bench_selected(const char *scene, const char *only)
{
    if (!only) return 1;
    for (const char *p = only; *p;) { /* a comma-separated list */
        size_t n = strcspn(p, ",");
        char item[64];
        snprintf(item, sizeof item, "%.*s", (int)(n < sizeof item ? n : sizeof item - 1), p);
        if (*item && (bench_only_exact ? strcmp(scene, item) == 0 : strstr(scene, item) != NULL))
            return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

long bench_resident_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0) kb = atol(line + n);
    if (f) fclose(f);
    return kb;
}

double bench_load_average(void)
{
    double l = -1.0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1.0;
        fclose(f);
    }
    return l;
}

/* The history's columns (data/README.md "Measurements"). */
#define HISTORY_HEADER "revision,date,machine,isa,load,threads,what,value,unit\n"

/* s with its commas and line ends as spaces: one CSV field without quoting. */
static const char *field(char *buf, size_t size, const char *s)
{
    snprintf(buf, size, "%s", s);
    for (char *c = buf; *c; c++)
        if (*c == ',' || *c == '\n' || *c == '\r') *c = ' ';
    return buf;
}

pbd_status bench_append_history(const char *path, const bench_row *rows, int n,
                                const bench_machine *m)
{
    char rev[64], machine[160], isa[32], what[128];
    char cpu[160];
    snprintf(cpu, sizeof cpu, "%s (%d cores)", m->cpu, m->cores);
    field(rev, sizeof rev, m->revision);
    field(machine, sizeof machine, cpu);
    field(isa, sizeof isa, m->simd_isa);
    size_t cap = sizeof HISTORY_HEADER + (size_t)n * 2 * 512, len = 0;
    char *text = malloc(cap);
    if (!text) return pbd_error(PBD_ENOMEM, "%s: expected memory for %d rows, found none", path, n);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 2; k++) {
            char name[96];
            snprintf(name, sizeof name, "%s/%s/%s", rows[i].scene, rows[i].solver,
                     k ? "median" : "min");
            len += (size_t)snprintf(text + len, cap - len, "%s,%s,%s,%s,%.2f,%d,%s,%.6g,ms\n",
                                    rev, m->date, machine, isa, rows[i].load_before,
                                    rows[i].threads, field(what, sizeof what, name),
                                    k ? rows[i].ms_median : rows[i].ms_min);
        }
    if (pbd_mkdir_parents(path) != 0) {
        free(text);
        return pbd_error(PBD_EIO, "%s: directory: expected to create it, found %s", path,
                         strerror(errno));
    }
    /* a new file gets the header in the same write as its first rows (O_EXCL: only one
     * writer creates it); every append is one write(2) with O_APPEND, which the kernel does
     * as a whole: concurrent benches' rows never interleave */
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) {
        memmove(text + strlen(HISTORY_HEADER), text, len + 1);
        memcpy(text, HISTORY_HEADER, strlen(HISTORY_HEADER));
        len += strlen(HISTORY_HEADER);
    } else if (errno == EEXIST) {
        fd = open(path, O_WRONLY | O_APPEND);
    }
    if (fd < 0) {
        free(text);
        return pbd_error(PBD_EIO, "%s: expected a file to append to, found %s", path,
                         strerror(errno));
    }
    ssize_t w = write(fd, text, len);
    int err = w < 0 ? errno : 0;
    free(text);
    if (close(fd) != 0 && !err) err = errno;
    if (w != (ssize_t)len || err)
        return pbd_error(PBD_EIO, "%s: expected to append %zu bytes, found %s", path, len,
                         err ? strerror(err) : "a short write");
    return PBD_OK;
}
