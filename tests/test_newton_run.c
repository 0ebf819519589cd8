/* pbd-run with the Newton reference: --method=newton (the 64² cloth runs; /iterations holds
 * ||(g, h)|| per iterate), --reference=newton (the distance to the implicit step and the
 * force errors in /series) and the refusals (one line, exit status 2, no file). */
#include "tests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int run(const char *args, const char *out)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/pbd-run %s > %s 2>&1", test_bin_dir(), args,
             out ? out : "/dev/null");
    return test_run(cmd);
}

static int file_has(const char *path, const char *text)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "grep -q -- '%s' '%s'", text, path);
    return test_run(cmd) == 0;
}

static int count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    int n = 0, c;
    while (f && (c = fgetc(f)) != EOF) n += c == '\n';
    if (f) fclose(f);
    return n;
}

/* The command, and the 64² cloth with compliance: it runs, each step converged. */
static void test_cloth64_runs(void)
{
    char dir[] = "/tmp/pbd-newton-run-XXXXXX", out[256];
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    snprintf(out, sizeof out, "%s/stdout", dir);
    CU_ASSERT_EQUAL(run("cloth --resolution=64 --method=newton --steps=1", out), 0);
    CU_ASSERT(file_has(out, "method=newton"));
    CU_ASSERT_EQUAL(run("cloth --resolution=64 --method=newton --steps=1 --compliance=1e-7 "
                        "--quiet", out), 0);
    FILE *f = fopen(out, "r");
    char line[512] = "";
    while (f && fgets(line, sizeof line, f) && line[0] == '#') {}
    if (f) fclose(f);
    int step = 0, iters = 0;
    double t, max_c, res = 1.0, seconds = -1.0;
    /* step, time, max |C| of the one set (distance), Newton's iterations, residual, seconds */
    CU_ASSERT_EQUAL(sscanf(line, "%d %lf %lf %d %lf %lf", &step, &t, &max_c, &iters, &res,
                           &seconds), 6);
    CU_ASSERT(seconds >= 0.0);
    CU_ASSERT_EQUAL(step, 1);
    CU_ASSERT(iters >= 2 && iters <= 10);
    CU_ASSERT(res <= 1e-10);
    test_remove_dir(dir);
}

/* --method=newton --out: /iterations/newton_residual row by row decreasing to ≤ tol, NaN
 * after the last iterate; /series/newton_iterations. */
static void test_newton_iteration_log(void)
{
    char dir[] = "/tmp/pbd-newton-run-XXXXXX", args[512], path[512];
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    snprintf(args, sizeof args, "cloth --resolution=8 --compliance=1e-6 --method=newton "
             "--steps=3 --newton-max-iterations=12 --newton-tol=1e-11 --quiet --out=%s", dir);
    CU_ASSERT_EQUAL_FATAL(run(args, NULL), 0);
    snprintf(path, sizeof path, "%s/cloth/run.h5", dir);
    double *d = NULL, *it = NULL;
    long rows = 0, cols = 0, r2 = 0, c2 = 0;
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/iterations/newton_residual", &d, &rows,
                                              &cols), 0);
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/series/newton_iterations", &it, &r2, &c2), 0);
    CU_ASSERT_EQUAL(rows, 3);
    CU_ASSERT_EQUAL(cols, 13);
    CU_ASSERT_EQUAL(r2, 3);
    for (long r = 0; r < rows && cols == 13; r++) {
        const double *row = d + r * cols;
        int n = (int)it[r];
        CU_ASSERT(n >= 2 && n <= 12);
        CU_ASSERT(row[0] > 1e-4);
        for (int k = 1; k <= n; k++) CU_ASSERT(row[k] < row[k - 1]);
        CU_ASSERT(row[n] <= 1e-11);
        for (int k = n + 1; k < cols; k++) CU_ASSERT(isnan(row[k]));
    }
    free(d);
    /* per set, in its unit: ||h||_2 = ||C + α̃λ||_2 of the distances at every iterate */
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/iterations/sets/00_distance/xpbd_residual",
                                              &d, &rows, &cols), 0);
    CU_ASSERT_EQUAL(rows, 3);
    CU_ASSERT_EQUAL(cols, 13);
    for (long r = 0; r < rows && cols == 13; r++) {
        int n = (int)it[r];
        CU_ASSERT(d[r * cols] > d[r * cols + n]);
        CU_ASSERT(d[r * cols + n] <= 1e-11);
        CU_ASSERT(isnan(d[r * cols + n + 1]));
    }
    free(d);
    free(it);
    double tol = 0.0;
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "solver.newton-tol", &tol), 0);
    CU_ASSERT_DOUBLE_EQUAL(tol, 1e-11, 1e-25);
    test_remove_dir(dir);
}

/* --reference=newton: XPBD with 200 iterations is closer to the implicit step than with 2,
 * its forces too; the reference of a Newton run is the run itself. */
static void test_reference_newton(void)
{
    char dir[] = "/tmp/pbd-newton-run-XXXXXX", args[512], path[512];
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    double dist[3], force[3];
    const char *runs[3] = {"it2", "it200", "newton"};
    for (int k = 0; k < 3; k++) {
        snprintf(args, sizeof args, "tet_beam --resolution=4 --compliance=1e-6 --steps=5 "
                 "--reference=newton --quiet --out=%s --run=%s %s", dir, runs[k],
                 k == 0 ? "--method=xpbd --iterations=2" : k == 1 ?
                 "--method=xpbd --iterations=200" : "--method=newton");
        CU_ASSERT_EQUAL_FATAL(run(args, NULL), 0);
        snprintf(path, sizeof path, "%s/tet_beam/%s.h5", dir, runs[k]);
        double *d = NULL, *f = NULL, *rms = NULL;
        long rows = 0, cols = 0;
        CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/series/newton_max_distance", &d, &rows,
                                                  &cols), 0);
        CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/series/newton_rms_distance", &rms,
                                                  &rows, &cols), 0);
        CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/series/newton_force_error_01_tet_volume",
                                                  &f, &rows, &cols), 0);
        CU_ASSERT_EQUAL(rows, 5);
        dist[k] = d[4];
        force[k] = f[4];
        CU_ASSERT(rms[4] <= d[4] && rms[4] >= 0.0);
        free(d);
        free(f);
        free(rms);
    }
    CU_ASSERT(dist[0] > 1e-6);
    CU_ASSERT(dist[1] < 0.2 * dist[0]);
    CU_ASSERT(force[1] < 0.5 * force[0]);
    CU_ASSERT(dist[2] <= 1e-12);
    CU_ASSERT(force[2] <= 1e-9);
    char reference[32] = "";
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(path, "reference", reference, sizeof reference), 0);
    CU_ASSERT_STRING_EQUAL(reference, "newton");
    test_remove_dir(dir);
}

/* Refused with one line and exit status 2, before any file is made: PBD stiffness without
 * compliance (the bending of cloth_bend by default; --stiffness for the reference), the PBD
 * stiffness linearisation, the dense solver on a large scene. */
static void test_refusals(void)
{
    char dir[] = "/tmp/pbd-newton-run-XXXXXX", out[256], args[512];
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    snprintf(out, sizeof out, "%s/stderr", dir);
    const char *bad[] = {
        "cloth_bend --method=newton --steps=1",
        "cloth --reference=newton --stiffness=0.5 --steps=1",
        "cloth --method=newton --linearize --steps=1",
        "cloth --resolution=64 --method=newton --newton-solver=dense --steps=1",
    };
    const char *says[] = {"PBD stiffness k = 0.5", "--reference=newton: newton:", "--linearize",
                          "solver dense"};
    for (int k = 0; k < 4; k++) {
        snprintf(args, sizeof args, "%s --out=%s/files", bad[k], dir);
        CU_ASSERT_EQUAL(run(args, out), 2);
        CU_ASSERT(file_has(out, says[k]));
        CU_ASSERT_EQUAL(count_lines(out), 1);
    }
    char files[300];
    snprintf(files, sizeof files, "%s/files", dir);
    CU_ASSERT_NOT_EQUAL(access(files, F_OK), 0);
    /* with a bending compliance the bending cloth is taken */
    CU_ASSERT_EQUAL(run("cloth_bend --resolution=6 --method=newton --bend-compliance=1e-3 "
                        "--compliance=1e-6 --steps=2 --quiet", NULL), 0);
    test_remove_dir(dir);
}

void register_newton_run_tests(void)
{
    CU_pSuite s = CU_add_suite("newton_run", NULL, NULL);
    CU_add_test(s, "cloth64_runs", test_cloth64_runs);
    CU_add_test(s, "newton_iteration_log", test_newton_iteration_log);
    CU_add_test(s, "reference_newton", test_reference_newton);
    CU_add_test(s, "refusals", test_refusals);
}
