/* --reference=newton with --reference-failure=record|stop: a step whose Newton reference
 * does not converge (here: --newton-max-iterations=3 on a tet beam, where some steps need
 * more) is recorded and the run goes on; with stop the run stops there (exit 5). */
#include "tests.h"

#include "experiments/log/pbd_log.h"

#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BEAM "tet_beam --resolution=4 --compliance=1e-6 --method=xpbd --steps=30 --quiet " \
             "--reference=newton"
enum { STEPS = 30, CAP = 3 };

static int run(const char *args, const char *err)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s/pbd-run %s > /dev/null 2> %s", test_bin_dir(), args, err);
    return test_run(cmd);
}

static double *series(const char *path, const char *name)
{
    char ds[128];
    double *d = NULL;
    long rows = 0, cols = 0;
    snprintf(ds, sizeof ds, "/series/%s", name);
    if (pbd_h5_read_dataset(path, ds, &d, &rows, &cols) != 0 || rows != STEPS || cols != 1) {
        free(d);
        return NULL;
    }
    return d;
}

/* The capped run against the same run with the default cap (200): a failed step is one whose
 * reference needed more than CAP iterations there, and holds NaN; a step that needed at
 * most CAP holds the same numbers bit for bit (Newton stopped at the same iterate); the XPBD
 * trajectory itself is the same (the reference never touches the world). */
static void test_record_goes_on(void)
{
    char dir[] = "/tmp/pbd-ref-failure-XXXXXX", args[1024], capped[128], full[128], err[128];
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    snprintf(args, sizeof args, BEAM " --newton-max-iterations=%d --out=%s --run=capped", CAP,
             dir);
    CU_ASSERT_EQUAL_FATAL(run(args, err), 0);
    snprintf(args, sizeof args, BEAM " --out=%s --run=full", dir);
    CU_ASSERT_EQUAL_FATAL(run(args, "/dev/null"), 0);
    snprintf(capped, sizeof capped, "%s/tet_beam/capped.h5", dir);
    snprintf(full, sizeof full, "%s/tet_beam/full.h5", dir);
    double complete = 0.0, n_failed = -1.0;
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(capped, "complete", &complete), 0);
    CU_ASSERT_EQUAL(complete, 1.0);
    double *failed = series(capped, "newton_reference_failed");
    double *d_cap = series(capped, "newton_max_distance"), *d_full = series(full, "newton_max_distance");
    double *f_cap = series(capped, "newton_force_error_01_tet_volume");
    double *it_full = series(full, "newton_reference_iterations");
    double *c_cap = series(capped, "sets/00_distance/max_c"),
           *c_full = series(full, "sets/00_distance/max_c");
    CU_ASSERT_FATAL(failed && d_cap && d_full && f_cap && it_full && c_cap && c_full);
    int n = 0;
    for (int k = 0; k < STEPS; k++) {
        CU_ASSERT(failed[k] == 0.0 || failed[k] == 1.0);
        n += failed[k] == 1.0;
        if (failed[k] == 1.0) {
            CU_ASSERT(it_full[k] > CAP);
            CU_ASSERT(isnan(d_cap[k]) && isnan(f_cap[k]));
        } else {
            CU_ASSERT(isfinite(d_cap[k]) && isfinite(f_cap[k]));
        }
        if (it_full[k] <= CAP) CU_ASSERT_EQUAL(d_cap[k], d_full[k]);
        CU_ASSERT_EQUAL(c_cap[k], c_full[k]);
    }
    CU_ASSERT(n > 0 && n < STEPS); /* the case tests both kinds of step */
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(capped, "reference_failed_steps", &n_failed), 0);
    CU_ASSERT_EQUAL(n_failed, n);
    char why[4096] = "";
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(capped, "reference_failures", why, sizeof why), 0);
    int first = -1;
    for (int k = 0; k < STEPS && first < 0; k++)
        if (failed[k]) first = k + 1;
    char want[64];
    snprintf(want, sizeof want, "%d steps failed", n);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, want));
    snprintf(want, sizeof want, "step %d: newton:", first);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, want));
    snprintf(args, sizeof args, "grep -q 'step %d: newton: .*recorded, the run goes on' %s", first,
             err);
    CU_ASSERT_EQUAL(test_run(args), 0);
    free(failed), free(d_cap), free(d_full), free(f_cap), free(it_full), free(c_cap), free(c_full);
    test_remove_dir(dir);
}

/* --reference-failure=stop: the run stops at the first failure (exit 5), its steps kept. */
static void test_stop_stops(void)
{
    char dir[] = "/tmp/pbd-ref-failure-XXXXXX", args[1024], path[128], err[128];
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    snprintf(args, sizeof args, BEAM " --newton-max-iterations=%d --reference-failure=stop "
             "--out=%s --run=stop", CAP, dir);
    CU_ASSERT_EQUAL(run(args, err), 5);
    snprintf(path, sizeof path, "%s/tet_beam/stop.partial.h5", dir);
    CU_ASSERT(test_exists(path));
    snprintf(args, sizeof args, "grep -q -- '--reference=newton: step [0-9]*: newton:' %s", err);
    CU_ASSERT_EQUAL(test_run(args), 0);
    /* without --reference=newton the flag cannot act: refused */
    CU_ASSERT_EQUAL(run("chain --steps=1 --reference-failure=stop", err), 2);
    snprintf(args, sizeof args, "grep -q -- '--reference-failure: cannot act here' %s", err);
    CU_ASSERT_EQUAL(test_run(args), 0);
    test_remove_dir(dir);
}

void register_reference_failure_tests(void)
{
    CU_pSuite s = CU_add_suite("reference_failure", NULL, NULL);
    CU_add_test(s, "record_goes_on", test_record_goes_on);
    CU_add_test(s, "stop_stops", test_stop_stops);
}
