/* A run's declared physical bound (experiments/drivers/bounds.c): the first step past it is
 * the step the run diverged at, stored in the run file, found again from the file's own
 * series, marked in the summary's table and findings; a run within it is not marked. */
#include "tests.h"
#include "tests/refs_check.h"

#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[64];

static void path_of(char *out, size_t size, const char *exp, const char *name)
{
    snprintf(out, size, "%s/%s/%s.h5", dir, exp, name);
}

/* The step of the first row of /series/<column> above limit or not finite, 0 when none is:
 * the rule written out again, independently of bounds.c. */
static long first_step_past(const char *path, const char *column, double limit)
{
    long rows = 0, srows = 0;
    double *v = refs_series(path, column, &rows), *step = refs_series(path, "step", &srows);
    long found = -1;
    if (v && step && rows == srows) {
        found = 0;
        for (long i = 0; i < rows && !found; i++)
            if (!isfinite(v[i]) || v[i] > limit) found = (long)step[i];
    }
    free(v);
    free(step);
    return found;
}

/* The check itself on a world whose step count and time the test sets: within at the limit
 * (the bound is "at most"), left above it and at NaN, and the first step past it kept. */
static void test_check_first_step(void)
{
    pbd_exp_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    pbd_world w;
    memset(&w, 0, sizeof w);
    CU_ASSERT(pbd_exp_bound_check(&ctx, &w, 1e300) == 0); /* none declared: never left */
    pbd_exp_bound(&ctx, "energy_gain", 2.0, "energy gained (J)", NULL);
    const double values[] = {0.5, 2.0, -1.0, 2.5, 1.0, NAN};
    const int left[] = {0, 0, 0, 1, 0, 1};
    for (int k = 0; k < 6; k++) {
        w.step_count = k + 1;
        w.time = 0.1 * (k + 1);
        CU_ASSERT(pbd_exp_bound_check(&ctx, &w, values[k]) == left[k]);
    }
    CU_ASSERT(pbd_exp_bound_step(&ctx) == 4); /* the first past it, not the last */
    CU_ASSERT(ctx.bound_value == 2.5 && fabs(ctx.bound_time - 0.4) < 1e-15);
    pbd_exp_bound(&ctx, "energy_gain", 2.0, "energy gained (J)", NULL);
    w.step_count = 9;
    CU_ASSERT(pbd_exp_bound_check(&ctx, &w, NAN) == 1 && pbd_exp_bound_step(&ctx) == 9);
}

/* long_range_attachments on its full-size cloth: at 1 iteration the plain solver gains
 * energy from nowhere (PBD's projections only take it out) and leaves the bound m|g|L
 * (1 kg, 1 m: 9.81 J) near t = 1.2 s; with long-range attachments it stays far within. */
static void test_long_range_attachments_marked(void)
{
    CU_ASSERT_FATAL(refs_fresh_dir(dir, "bounds"));
    const char *args = "long_range_attachments --iterations=1 --duration=1.5";
    char cmd[256], plain[256], lra[256], sum[256];
    CU_ASSERT_EQUAL_FATAL(refs_run(dir, args), 0);
    snprintf(cmd, sizeof cmd, "%s --summarize", args);
    CU_ASSERT_EQUAL_FATAL(refs_run(dir, cmd), 0);
    path_of(plain, sizeof plain, "long_range_attachments", "plain_it1");
    path_of(lra, sizeof lra, "long_range_attachments", "lra_it1");
    path_of(sum, sizeof sum, "long_range_attachments", "summary");

    double limit = refs_attr(plain, "bound.limit");
    CU_ASSERT(refs_rel_eq(limit, 1.0 * 9.81 * 1.0, 1e-15)); /* m |g| L, one rounding */
    long expected = first_step_past(plain, "energy_gain", limit), step = -1, rows = 0;
    CU_ASSERT_FATAL(expected > 1);
    CU_ASSERT(refs_attr(plain, "result.diverged") == 1.0);
    CU_ASSERT(refs_attr(plain, "result.diverged_step") == (double)expected);
    CU_ASSERT(pbd_exp_bound_recompute(plain, &step) == 0 && step == expected);
    double *gain = refs_series(plain, "energy_gain", &rows);
    CU_ASSERT(gain && rows == expected); /* the run ends at the step it diverged at */
    free(gain);
    CU_ASSERT(isnan(refs_attr(plain, "result.max_stretch"))); /* a finding, not a number */

    CU_ASSERT(refs_attr(lra, "bound.limit") == limit); /* declared, and kept */
    CU_ASSERT(isnan(refs_attr(lra, "result.diverged")));
    CU_ASSERT(first_step_past(lra, "energy_gain", limit) == 0);
    CU_ASSERT(pbd_exp_bound_recompute(lra, &step) == 0 && step == 0);
    CU_ASSERT(refs_attr(lra, "result.max_stretch") > 0.0);

    /* the summary: the table's diverged_step column, the finding, the headline */
    double *t = NULL;
    long n = 0, cols = 0;
    CU_ASSERT_FATAL(pbd_h5_read_dataset(sum, "/tables/stretch", &t, &n, &cols) == 0);
    CU_ASSERT_FATAL(n == 2 && cols == 6);
    for (long i = 0; i < n; i++) {
        int is_lra = t[i * cols] == 1.0;
        CU_ASSERT(t[i * cols + 5] == (is_lra ? 0.0 : (double)expected));
        CU_ASSERT(is_lra ? t[i * cols + 2] > 0.0 : isnan(t[i * cols + 2]));
    }
    free(t);
    char text[4096], want[64];
    snprintf(want, sizeof want, "plain_it1: diverged at step %ld", expected);
    CU_ASSERT(pbd_h5_read_attr_string(sum, "findings", text, sizeof text) == 0 &&
              strstr(text, want) && !strstr(text, "lra_it1"));
    snprintf(want, sizeof want, "1 it diverged at step %ld / ", expected);
    CU_ASSERT(pbd_h5_read_attr_string(sum, "headline", text, sizeof text) == 0 &&
              strstr(text, want) && !strstr(text, "nan"));
    test_remove_dir(dir);
}

/* xpbd_vs_implicit: a frame the test hook makes fail (NaN velocity at step 5, stopped by the
 * watchdog) leaves the kinetic-energy bound at that step; the summary's row says so and
 * shows no distance for the run. The frames before are within (ratio below the bound). */
static void test_xpbd_vs_implicit_marked(void)
{
    CU_ASSERT_FATAL(refs_fresh_dir(dir, "bounds"));
    const char *args = "xpbd_vs_implicit --quick --scenes=tet_beam --modes=iterations "
                       "--budgets=10 --steps=3 --test-fault-step=5";
    char cmd[256], path[256], sum[256];
    CU_ASSERT_EQUAL_FATAL(refs_run(dir, args), 0);
    snprintf(cmd, sizeof cmd, "%s --summarize", args);
    CU_ASSERT_EQUAL_FATAL(refs_run(dir, cmd), 0);
    path_of(path, sizeof path, "xpbd_vs_implicit", "tet_beam_iterations_n10");
    path_of(sum, sizeof sum, "xpbd_vs_implicit", "summary");
    long step = -1;
    CU_ASSERT(refs_attr(path, "result.diverged_step") == 5.0);
    CU_ASSERT(pbd_exp_bound_recompute(path, &step) == 0 && step == 5);
    CU_ASSERT(first_step_past(path, "kinetic_energy_ratio", refs_attr(path, "bound.limit")) == 5);
    double *t = NULL;
    long n = 0, cols = 0;
    CU_ASSERT_FATAL(pbd_h5_read_dataset(sum, "/tables/tet_beam_iterations", &t, &n, &cols) == 0);
    CU_ASSERT(n == 1 && cols == 10 && t[9] == 5.0 && isnan(t[1]) && t[8] == 1.0);
    free(t);
    test_remove_dir(dir);
}

void register_bounds_tests(void)
{
    CU_pSuite s = CU_add_suite("bounds", NULL, NULL);
    CU_add_test(s, "check_first_step", test_check_first_step);
    CU_add_test(s, "long_range_attachments_marked", test_long_range_attachments_marked);
    CU_add_test(s, "xpbd_vs_implicit_marked", test_xpbd_vs_implicit_marked);
}
