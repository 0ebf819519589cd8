/* pbd-run --sweep=FILE (suite `sweep`): a 2 × 2 sweep file gives 4 run files made with their
 * grid values, a summary whose table holds each run's numbers as its own file does, the
 * generic figures of make plots; a sweep resumes, the merge takes only its own sweep's
 * files, and bad sweep files are refused with FILE:LINE, exit status 1. */
#include "tests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static int suite_init(void)
{
    snprintf(dir, sizeof dir, "/tmp/pbd-sweep-XXXXXX");
    return mkdtemp(dir) ? 0 : 1;
}

static int suite_clean(void) { return test_remove_dir(dir) != 0; }

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

/* Run pbd-run with args (a shell word list), stderr into err: the exit status. */
static int run(const char *args, char *err, size_t size)
{
    char cmd[2048], errf[128];
    snprintf(errf, sizeof errf, "%s/err.txt", dir);
    snprintf(cmd, sizeof cmd, "%s/pbd-run %s >%s/out.txt 2>%s", test_bin_dir(), args, dir, errf);
    return test_run_stderr(cmd, errf, err, size);
}

static const char *const grid_file =
    "# the hanging cloth, 2 x 2\n"
    "scene = cloth\n"
    "resolution = 5   # a small one\n"
    "steps = 12\n"
    "iterations = 2, 8\n"
    "method = pbd, xpbd\n";
/* in grid order: the file's last key varies fastest */
static const char *const names[4] = {"iterations-2_method-pbd", "iterations-2_method-xpbd",
                                     "iterations-8_method-pbd", "iterations-8_method-xpbd"};

static void test_grid_runs_and_summary(void)
{
    char path[256], args[512], err[4096];
    snprintf(path, sizeof path, "%s/grid.sweep", dir);
    write_file(path, grid_file);
    snprintf(args, sizeof args, "--sweep=%s --out=%s/r --list", path, dir);
    CU_ASSERT_EQUAL_FATAL(run(args, err, sizeof err), 0);
    char out[128], listed[512] = "";
    snprintf(out, sizeof out, "%s/out.txt", dir);
    FILE *f = fopen(out, "r");
    size_t n = f ? fread(listed, 1, sizeof listed - 1, f) : 0;
    listed[n] = '\0';
    if (f) fclose(f);
    char want[512];
    snprintf(want, sizeof want, "%s\n%s\n%s\n%s\n", names[0], names[1], names[2], names[3]);
    CU_ASSERT_STRING_EQUAL(listed, want);

    snprintf(args, sizeof args, "--sweep=%s --out=%s/r --quiet", path, dir);
    int rc = run(args, err, sizeof err);
    if (rc) fprintf(stderr, "\n%s", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    char summary[256];
    snprintf(summary, sizeof summary, "%s/r/cloth/summary.h5", dir);
    double *table = NULL;
    long rows = 0, cols = 0;
    CU_ASSERT_FATAL(pbd_h5_read_dataset(summary, "/tables/runs", &table, &rows, &cols) == 0);
    CU_ASSERT_EQUAL_FATAL(rows, 4);
    CU_ASSERT_EQUAL_FATAL(cols, 11); /* run, iterations, method, 8 results */
    for (int r = 0; r < 4; r++) {
        char file[300];
        snprintf(file, sizeof file, "%s/r/cloth/%s.h5", dir, names[r]);
        double it = 0.0, complete = 0.0, steps = 0.0;
        char method[32] = "";
        CU_ASSERT(pbd_h5_read_attr_double(file, "complete", &complete) == 0 && complete == 1.0);
        /* the run was made with its grid point's values */
        CU_ASSERT(pbd_h5_read_attr_double(file, "solver.iterations", &it) == 0);
        CU_ASSERT_EQUAL(it, r < 2 ? 2.0 : 8.0);
        CU_ASSERT(pbd_h5_read_attr_string(file, "solver.method", method, sizeof method) == 0);
        CU_ASSERT_STRING_EQUAL(method, r % 2 ? "xpbd" : "pbd");
        CU_ASSERT(pbd_h5_read_attr_double(file, "steps", &steps) == 0 && steps == 12.0);
        /* its summary row: grid index, value, the method's place in the list, and the last
         * max |C| and total energy of its own /series, copied (no arithmetic: equal) */
        const double *row = table + (size_t)r * (size_t)cols;
        CU_ASSERT_EQUAL(row[0], r + 1.0);
        CU_ASSERT_EQUAL(row[1], it);
        CU_ASSERT_EQUAL(row[2], (double)(r % 2));
        double *max_c = NULL, *energy = NULL, *time = NULL;
        long m, c, me, ce, mt, ct;
        CU_ASSERT_FATAL(pbd_h5_read_dataset(file, "/series/time", &time, &mt, &ct) == 0);
        CU_ASSERT_FATAL(pbd_h5_read_dataset(file, "/series/max_c", &max_c, &m, &c) == 0);
        CU_ASSERT_FATAL(pbd_h5_read_dataset(file, "/series/total_energy", &energy, &me, &ce) == 0);
        CU_ASSERT_EQUAL(row[3], time[mt - 1]);
        CU_ASSERT_EQUAL(row[4], max_c[m - 1]);
        CU_ASSERT_EQUAL(row[5], energy[0]);
        CU_ASSERT_EQUAL(row[6], energy[me - 1]);
        CU_ASSERT_EQUAL(row[10], 12.0);
        free(max_c);
        free(energy);
        free(time);
    }
    free(table);
    char runs_merged[512] = "";
    CU_ASSERT(pbd_h5_read_attr_string(summary, "runs_merged", runs_merged, sizeof runs_merged) == 0);
    snprintf(want, sizeof want, "%s %s %s %s", names[0], names[1], names[2], names[3]);
    CU_ASSERT_STRING_EQUAL(runs_merged, want);

    /* make plots RESULTS=DIR: the generic figures, one curve per run */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "sh analysis/make_plots.sh %s %s/r >/dev/null 2>&1", test_bin_dir(),
             dir);
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    static const char *const figures[] = {"cloth_residual_00_distance", "cloth_energy",
                                          "cloth_momentum"};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 2; k++) {
            char fig[300];
            struct stat sb;
            snprintf(fig, sizeof fig, "%s/r/figures/%s.%s", dir, figures[i], k ? "svg" : "png");
            CU_ASSERT(stat(fig, &sb) == 0 && sb.st_size > 1000);
        }
    char svg[300], text[1 << 16];
    snprintf(svg, sizeof svg, "%s/r/figures/cloth_energy.svg", dir);
    f = fopen(svg, "r");
    n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f) fclose(f);
    for (int r = 0; r < 4; r++) CU_ASSERT(strstr(text, names[r]) != NULL); /* a curve each */
    CU_ASSERT(strstr(text, "E (J)") != NULL);                              /* units */

    /* again: every run kept, nothing rerun; the merge refuses another sweep's files */
    snprintf(args, sizeof args, "--sweep=%s --out=%s/r", path, dir);
    CU_ASSERT_EQUAL(run(args, err, sizeof err), 0);
    snprintf(cmd, sizeof cmd, "grep -c 'kept from before' %s/out.txt | grep -qx 4", dir);
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    write_file(path, "scene = cloth\nresolution = 5\nsteps = 13\niterations = 2, 8\n"
                     "method = pbd, xpbd\n");
    snprintf(args, sizeof args, "--sweep=%s --out=%s/r --summarize", path, dir);
    CU_ASSERT_EQUAL(run(args, err, sizeof err), 1);
    CU_ASSERT(strstr(err, "sweep_hash") != NULL);
}

/* A run that fails (here: --compliance refused under --method=pbd) is named, the others run,
 * and there is no summary unless --allow-missing. */
static void test_failed_run(void)
{
    char path[256], args[512], err[4096], summary[256];
    snprintf(path, sizeof path, "%s/fail.sweep", dir);
    write_file(path, "scene = chain\nsteps = 3\nmethod = pbd, xpbd\ncompliance = 1e-6\n");
    snprintf(args, sizeof args, "--sweep=%s --out=%s/f --quiet", path, dir);
    CU_ASSERT_EQUAL(run(args, err, sizeof err), 2);
    CU_ASSERT(strstr(err, "run 1 of 2 (method-pbd) FAILED (exit status 2)") != NULL);
    snprintf(summary, sizeof summary, "%s/f/chain/summary.h5", dir);
    CU_ASSERT(!test_exists(summary));
    snprintf(args, sizeof args, "--sweep=%s --out=%s/f --quiet --allow-missing", path, dir);
    CU_ASSERT_EQUAL(run(args, err, sizeof err), 2);
    CU_ASSERT(test_exists(summary));
}

/* Each bad line: exit status 1, one line "pbd-run: FILE:LINE: …expected …, found …". */
static void test_bad_files(void)
{
    static const struct {
        const char *text;
        int line;
        const char *words;
    } cases[] = {
        {"scene = cloth\niterations 5\n", 2, "expected KEY = VALUE"},
        {"scene = cloth\nfoo = 1\n", 2, "found 'foo'"},
        {"scene = cloth\n\n# c\niterations = 5, x\n", 4, "expected an integer in [1, 1000000], found 'x'"},
        {"scene = cloth\niterations = 5,,6\n", 2, "found an empty value"},
        {"scene = cloth\niterations = 5, 5\n", 2, "found '5' twice"},
        {"scene = clth\n", 1, "found 'clth'"},
        {"scene = cloth\nlinearize = maybe\n", 2, "expected yes or no"},
        {"scene = cloth\nout = /tmp\n", 2, "found 'out'"},
        {"scene = cloth\nsteps = 1\nsteps = 2\n", 3, "first at line 2"},
        {"scene = cloth\nmethod = pbd, nope\n", 2, "found 'nope'"},
        {"scene = cloth\nsteps =\n", 2, "found no value"},
        {"scene = cloth, chain\n", 1, "expected one scene of"},
    };
    char path[256], args[512], err[4096], where[300];
    snprintf(path, sizeof path, "%s/bad.sweep", dir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_file(path, cases[i].text);
        snprintf(args, sizeof args, "--sweep=%s --out=%s/b", path, dir);
        int rc = run(args, err, sizeof err);
        snprintf(where, sizeof where, "%s:%d: ", path, cases[i].line);
        int ok = rc == 1 && test_count_lines(err) == 1 && strstr(err, where) &&
                 strstr(err, "expected") && strstr(err, cases[i].words);
        if (!ok) fprintf(stderr, "\ncase %zu: exit %d: %s", i, rc, err);
        CU_ASSERT(ok);
    }
    char b[128];
    snprintf(b, sizeof b, "%s/b", dir);
    CU_ASSERT(!test_exists(b)); /* nothing run */
    write_file(path, "iterations = 5\n");
    snprintf(args, sizeof args, "--sweep=%s --out=%s/b", path, dir);
    CU_ASSERT_EQUAL(run(args, err, sizeof err), 1);
    CU_ASSERT(strstr(err, "scene = NAME") != NULL);
    snprintf(args, sizeof args, "--sweep=%s", path); /* no --out */
    CU_ASSERT_EQUAL(run(args, err, sizeof err), 2);
    CU_ASSERT_EQUAL(run("chain --sweep-hash=0123456789abcdef", err, sizeof err), 2);
    CU_ASSERT(strstr(err, "--sweep-hash: cannot act here") != NULL);
}

void register_sweep_tests(void)
{
    CU_pSuite s = CU_add_suite("sweep", suite_init, suite_clean);
    CU_add_test(s, "grid_runs_summary_plots", test_grid_runs_and_summary);
    CU_add_test(s, "failed_run_named", test_failed_run);
    CU_add_test(s, "bad_sweep_files", test_bad_files);
}
