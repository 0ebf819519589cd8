/* The Python route (suite `python`): python/pbdlab.py and its two worked examples
 * (python/examples/) on files pbd-run writes here; every number and unit the examples print
 * is held against the same number read by the C readers (pbd_h5_read_dataset, the datasets'
 * `units` attributes), and the module's parameter units against pbd-run --help. The
 * interpreter is PBD_PYTHON, else Debian's /usr/bin/python3 (python3-h5py, python3-numpy,
 * python3-matplotlib: scripts/deps.sh installs them); matplotlib draws with Agg. */
#include "tests.h"

#include <float.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];

static int suite_init(void)
{
    snprintf(dir, sizeof dir, "/tmp/pbd-python-XXXXXX");
    return mkdtemp(dir) ? 0 : 1;
}

static int suite_clean(void) { return test_remove_dir(dir) != 0; }

static const char *python(void)
{
    const char *p = getenv("PBD_PYTHON");
    if (p && *p) return p;
    return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

/* Run a shell command, its stdout into out (size bytes): the exit status. */
static int capture(const char *cmd, char *out, size_t size)
{
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = fread(out, 1, size - 1, p);
    out[n] = '\0';
    int rc = pclose(p);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int pbd_run(const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/pbd-run %s --quiet >/dev/null", test_bin_dir(), args);
    return test_run(cmd);
}

/* The last row of a one-column /series dataset, the mean of all its rows, the norm of the
 * last row of a 3-column one. */
static double last_of(const char *file, const char *dataset, int norm, double *mean, long *n)
{
    double *v = NULL, x = NAN, sum = 0.0;
    long rows = 0, cols = 0;
    if (pbd_h5_read_dataset(file, dataset, &v, &rows, &cols) != 0 || rows == 0) return NAN;
    if (norm) {
        double s2 = 0.0;
        for (long c = 0; c < cols; c++) s2 += v[(rows - 1) * cols + c] * v[(rows - 1) * cols + c];
        x = sqrt(s2);
    } else {
        x = v[rows - 1];
    }
    for (long i = 0; i < rows; i++) sum += v[i * cols];
    if (mean) *mean = sum / (double)rows;
    if (n) *n = rows;
    free(v);
    return x;
}

/* A dataset's `units` attribute, read by HDF5's own API. */
static void units_of(const char *file, const char *dataset, char *buf, size_t size)
{
    buf[0] = '\0';
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return;
    char tmp[256] = "";
    if (H5LTget_attribute_string(f, dataset, "units", tmp) >= 0) snprintf(buf, size, "%s", tmp);
    H5Fclose(f);
}

/* In text, the number after "<prefix>" and the unit word after it. */
static int find_value(const char *text, const char *prefix, double *v, char *unit, size_t size)
{
    const char *p = strstr(text, prefix);
    if (!p) return -1;
    char *end;
    *v = strtod(p + strlen(prefix), &end);
    if (end == p + strlen(prefix)) return -1;
    if (unit) {
        size_t n = strcspn(end + 1, ",\n");
        snprintf(unit, size, "%.*s", (int)n, end + 1);
    }
    return 0;
}

static int python_ready(void)
{
    char cmd[512], out[256];
    snprintf(cmd, sizeof cmd, "%s -c 'import h5py, numpy, matplotlib; print(1)' 2>&1", python());
    if (capture(cmd, out, sizeof out) == 0 && !strcmp(out, "1\n")) return 1;
    fprintf(stderr, "\n%s: expected h5py, numpy and matplotlib (Debian: python3-h5py "
            "python3-numpy python3-matplotlib; scripts/deps.sh), found: %s", python(), out);
    return 0;
}

/* compare_runs.py: each printed number equals the C readers' (printed with repr: exact), each
 * unit the dataset's `units`; the norm of the momentum within 8 ε of it (numpy's and this
 * loop's sums of three squares round differently, each within 4 ε). */
static void test_compare_runs(void)
{
    CU_ASSERT_FATAL(python_ready());
    char args[512];
    snprintf(args, sizeof args, "cloth --resolution=6 --steps=15 --out=%s/c --run=a --frames=5",
             dir);
    CU_ASSERT_EQUAL_FATAL(pbd_run(args), 0);
    snprintf(args, sizeof args, "cloth --resolution=6 --steps=15 --iterations=30 --out=%s/c "
             "--run=b", dir);
    CU_ASSERT_EQUAL_FATAL(pbd_run(args), 0);
    char cmd[1024], out[8192], png[256];
    snprintf(png, sizeof png, "%s/compare.png", dir);
    snprintf(cmd, sizeof cmd, "MPLBACKEND=Agg %s python/examples/compare_runs.py %s/c/cloth/a.h5 "
             "%s/c/cloth/b.h5 %s", python(), dir, dir, png);
    int rc = capture(cmd, out, sizeof out);
    if (rc) fprintf(stderr, "\n%s: exit %d\n%s", cmd, rc, out);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    const char *names[2] = {"a", "b"};
    for (int r = 0; r < 2; r++) {
        char file[256], prefix[128], unit[64], want_unit[64];
        double v;
        snprintf(file, sizeof file, "%s/c/cloth/%s.h5", dir, names[r]);
        snprintf(prefix, sizeof prefix, "RUN %s: set 00_distance (distance): max_c_end ", names[r]);
        CU_ASSERT_FATAL(find_value(out, prefix, &v, unit, sizeof unit) == 0);
        CU_ASSERT_EQUAL(v, last_of(file, "/series/sets/00_distance/max_c", 0, NULL, NULL));
        units_of(file, "/series/sets/00_distance/max_c", want_unit, sizeof want_unit);
        CU_ASSERT_STRING_EQUAL(unit, want_unit);
        snprintf(prefix, sizeof prefix, "RUN %s: total_energy_end ", names[r]);
        CU_ASSERT_FATAL(find_value(out, prefix, &v, unit, sizeof unit) == 0);
        CU_ASSERT_EQUAL(v, last_of(file, "/series/total_energy", 0, NULL, NULL));
        units_of(file, "/series/total_energy", want_unit, sizeof want_unit);
        CU_ASSERT_STRING_EQUAL(unit, want_unit);
        snprintf(prefix, sizeof prefix, "RUN %s: total_energy_end ", names[r]);
        const char *line = strstr(out, prefix);
        CU_ASSERT_FATAL(line && find_value(line, "linear_momentum_end ", &v, unit, sizeof unit) == 0);
        double p = last_of(file, "/series/linear_momentum", 1, NULL, NULL);
        CU_ASSERT(fabs(v - p) <= 8 * DBL_EPSILON * p);
        snprintf(prefix, sizeof prefix, "PLOTTED %s: |linear_momentum| (kg m/s) last ", names[r]);
        CU_ASSERT_FATAL(find_value(out, prefix, &v, NULL, 0) == 0); /* the figure's curve */
        CU_ASSERT(fabs(v - p) <= 8 * DBL_EPSILON * p);
        units_of(file, "/series/linear_momentum", want_unit, sizeof want_unit);
        CU_ASSERT_STRING_EQUAL(unit, want_unit);
        snprintf(prefix, sizeof prefix, "RUN %s: 15 steps, dt 0.016666666666666666 s, t_end ",
                 names[r]);
        CU_ASSERT_FATAL(find_value(out, prefix, &v, NULL, 0) == 0);
        CU_ASSERT_EQUAL(v, last_of(file, "/series/time", 0, NULL, NULL));
        /* run a's frames (every 5 steps: frames 0..3): the last one's time and last particle */
        if (r == 1) continue;
        double *x = NULL, *ft = NULL, got[3];
        long rows, cols, nf, cf;
        CU_ASSERT_FATAL(pbd_h5_read_dataset(file, "/frames/000003/positions", &x, &rows, &cols) == 0);
        CU_ASSERT_FATAL(pbd_h5_read_dataset(file, "/frames/time", &ft, &nf, &cf) == 0);
        CU_ASSERT_FATAL(find_value(out, "RUN a: frame 3 at ", &v, unit, sizeof unit) == 0);
        CU_ASSERT(nf == 4 && v == ft[3]);
        const char *at = strstr(out, "last particle at ");
        CU_ASSERT_FATAL(at && sscanf(at, "last particle at %lf %lf %lf %63s", &got[0], &got[1],
                                     &got[2], unit) == 4);
        for (int k = 0; k < 3; k++) CU_ASSERT_EQUAL(got[k], x[3 * (rows - 1) + k]);
        units_of(file, "/frames/000003/positions", want_unit, sizeof want_unit);
        CU_ASSERT_STRING_EQUAL(unit, want_unit);
        free(x);
        free(ft);
    }
    CU_ASSERT(strstr(out, "FIGURE") && strstr(out, "max_c (m)")); /* the axis names the unit */
    struct stat sb;
    CU_ASSERT(stat(png, &sb) == 0 && sb.st_size > 10000);
}

/* newton_distance.py on a sweep over iterations with --reference=newton: each run's iteration
 * count is its file's, its last distance the C reader's, its mean within n ε max d of the
 * C loop's (numpy sums pairwise, this loop in order: each within (n - 1) ε Σ|d|/n of the
 * exact mean, and the values are positive). */
static void test_newton_distance(void)
{
    CU_ASSERT_FATAL(python_ready());
    char sweep[256], args[512];
    snprintf(sweep, sizeof sweep, "%s/newton.sweep", dir);
    FILE *f = fopen(sweep, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("scene = cloth\nresolution = 6\nsteps = 8\nmethod = xpbd\ncompliance = 1e-6\n"
          "reference = newton\niterations = 1, 4, 16\n", f);
    fclose(f);
    snprintf(args, sizeof args, "--sweep=%s --out=%s/n", sweep, dir);
    CU_ASSERT_EQUAL_FATAL(pbd_run(args), 0);
    char cmd[1024], out[8192], png[256];
    snprintf(png, sizeof png, "%s/newton.png", dir);
    snprintf(cmd, sizeof cmd, "MPLBACKEND=Agg %s python/examples/newton_distance.py %s/n/cloth %s",
             python(), dir, png);
    int rc = capture(cmd, out, sizeof out);
    if (rc) fprintf(stderr, "\n%s: exit %d\n%s", cmd, rc, out);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    static const int iterations[3] = {1, 4, 16};
    double previous = INFINITY;
    for (int r = 0; r < 3; r++) {
        char file[256], prefix[128], unit[64];
        double it = 0.0, mean_c = 0.0, v;
        long n = 0;
        snprintf(file, sizeof file, "%s/n/cloth/iterations-%d.h5", dir, iterations[r]);
        CU_ASSERT(pbd_h5_read_attr_double(file, "solver.iterations", &it) == 0);
        CU_ASSERT_EQUAL(it, iterations[r]);
        double last = last_of(file, "/series/newton_rms_distance", 0, &mean_c, &n);
        snprintf(prefix, sizeof prefix, "ITERATIONS %d: iterations-%d: mean newton_rms_distance ",
                 iterations[r], iterations[r]);
        CU_ASSERT_FATAL(find_value(out, prefix, &v, unit, sizeof unit) == 0);
        CU_ASSERT(fabs(v - mean_c) <= (double)n * DBL_EPSILON * mean_c);
        CU_ASSERT_STRING_EQUAL(unit, "m");
        CU_ASSERT(v < previous); /* more iterations, closer to the implicit step */
        previous = v;
        const char *at = strstr(out, prefix);
        CU_ASSERT_FATAL(at && find_value(at, ", last ", &v, NULL, 0) == 0);
        CU_ASSERT_EQUAL(v, last);
    }
    struct stat sb;
    CU_ASSERT(stat(png, &sb) == 0 && sb.st_size > 10000);
}

/* PARAMETER_UNITS: each unit is the one pbd-run --help gives its option ("... in UNIT"). */
static void test_parameter_units(void)
{
    CU_ASSERT_FATAL(python_ready());
    char cmd[512], units[4096], help[1 << 16];
    snprintf(cmd, sizeof cmd, "cd python && %s -c 'import pbdlab\nfor k, v in "
             "pbdlab.PARAMETER_UNITS.items(): print(k, v)'", python());
    CU_ASSERT_EQUAL_FATAL(capture(cmd, units, sizeof units), 0);
    snprintf(cmd, sizeof cmd, "%s/pbd-run --help", test_bin_dir());
    CU_ASSERT_EQUAL_FATAL(capture(cmd, help, sizeof help), 0);
    int n = 0;
    for (char *line = strtok(units, "\n"); line; line = strtok(NULL, "\n"), n++) {
        char name[128], unit[64], flag[160], phrase[96];
        CU_ASSERT_FATAL(sscanf(line, "%127s %63s", name, unit) == 2);
        const char *option = strchr(name, '.') + 1;
        snprintf(flag, sizeof flag, "\n  --%s=", option);
        const char *at = strstr(help, flag), *eol = at ? strchr(at + 1, '\n') : NULL;
        snprintf(phrase, sizeof phrase, " in %s", unit);
        const char *hit = at ? strstr(at, phrase) : NULL;
        int ok = hit && (!eol || hit < eol) && strchr(" :(;,", hit[strlen(phrase)]);
        if (!ok) fprintf(stderr, "\n%s: --help does not say 'in %s'\n", name, unit);
        CU_ASSERT(ok);
    }
    CU_ASSERT(n >= 10);
}

void register_python_tests(void)
{
    CU_pSuite s = CU_add_suite("python", suite_init, suite_clean);
    CU_add_test(s, "compare_runs_example", test_compare_runs);
    CU_add_test(s, "newton_distance_example", test_newton_distance);
    CU_add_test(s, "parameter_units_as_help", test_parameter_units);
}
