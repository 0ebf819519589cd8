/* The rigid contacts' velocity solve run more than once per substep (pbd_rigid_world's
 * velocity_passes; the paper, Müller et al. 2020 Sec. 3.6, makes one pass): a 5-box tower
 * that walks at 20 substeps x 1 iteration with one pass stands with four, dynamic friction
 * acts in the first pass only, and a count below 1 is refused. */
#include "tests.h"
#include "experiments/scenes/pbd_scenes.h"
#include "solver/rigid/pbd_rigid.h"
#include "experiments/pbd_experiments.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rigid_tower scene's stack (n boxes of half side 0.1 m, 1 kg, μs 0.5, μk 0.4, e 0) at
 * 20 substeps x `iterations` for 10 s with `passes` velocity passes: the largest distance a
 * box's centre moved (m). */
static double stack_drift(int n, int iterations, int passes)
{
    pbd_rigid_world *w = pbd_rigid_world_create(1.0 / 60.0, 20, iterations);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    w->ground = 1;
    w->velocity_passes = passes;
    const double half[3] = {0.1, 0.1, 0.1}, base[3] = {0, 0, 0};
    const pbd_rigid_material m = {0.5, 0.4, 0.0};
    CU_ASSERT_FATAL(n <= 16 && pbd_rigid_add_stack(w, n, half, 1.0, base, &m) >= 0);
    double x0[16][3];
    for (int i = 0; i < n; i++) memcpy(x0[i], w->bodies[i].x, sizeof x0[i]);
    for (int s = 0; s < 600; s++) CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
    double drift = 0.0;
    for (int i = 0; i < n; i++) {
        double d = 0.0;
        for (int k = 0; k < 3; k++) d += (w->bodies[i].x[k] - x0[i][k]) * (w->bodies[i].x[k] - x0[i][k]);
        drift = fmax(drift, sqrt(d));
    }
    pbd_rigid_world_free(w);
    return drift;
}

static double tower_drift(int passes) { return stack_drift(5, 1, passes); }

/* One pass (the paper's): the tower rocks as one body (up to 1 degree) and walks, its boxes
 * 8 cm from where they started after 10 s, far beyond the 1 mm of a tower at rest; four
 * passes: it stands (every centre within 1 mm, the settling under gravity g h² per substep
 * being ~1e-5 m). README "Findings", Stacks. */
static void test_tower_passes(void)
{
    double one = tower_drift(1), four = tower_drift(4);
    printf("\n    largest drift over 10 s: %.3g m with 1 pass, %.3g m with 4 ", one, four);
    CU_ASSERT(one > 1e-2);
    CU_ASSERT(four < 1e-3);
}

/* A flat box (half height 5 mm, 1 kg) launched at v0 = 3 m/s on the ground (μk 0.4) stops
 * after v0²/(2 μk g) with four passes as with one: dynamic friction acts once per substep
 * (applied in every pass it would stop the box after a quarter of the distance). The
 * tolerance, 1 %, is the one-pass test's (rigid_xpbd/stopping_distance). */
/* The sweeps a stack needs grow with its height, and a position iteration serves as a
 * velocity pass does (README "Findings", Stacks): at 20 substeps, 5 boxes move with 2 passes
 * and rest with 4; 7 boxes move with 4 passes and rest with 12, and at one pass move with 4
 * position iterations and rest with 6. Resting: every centre within 1 mm over 10 s (as
 * tower_passes); moving: a centre 5 mm or more from where it started. */
static void test_passes_grow_with_height(void)
{
    const struct { int n, iterations, passes, rests; } runs[] = {
        {5, 1, 2, 0}, {5, 1, 4, 1}, {7, 1, 4, 0}, {7, 1, 12, 1}, {7, 4, 1, 0}, {7, 6, 1, 1}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        double d = stack_drift(runs[i].n, runs[i].iterations, runs[i].passes);
        printf("\n    %d boxes, 20 x %d, %d passes: drift %.3g m ", runs[i].n,
               runs[i].iterations, runs[i].passes, d);
        CU_ASSERT(runs[i].rests ? d < 1e-3 : d > 5e-3);
    }
}

static void test_friction_once(void)
{
    const double want = 9.0 / (2.0 * 0.4 * 9.81);
    const double d = test_rigid_stopping(1.0, PBD_RIGID_FRICTION_CONSISTENT, 4);
    printf("\n    stopped after %.4f m with 4 passes; v0^2/(2 mu g) = %.4f m ", d, want);
    CU_ASSERT(fabs(d - want) <= 0.01 * want);
}

/* pbd-run rigid_tower --velocity-passes=N sets the world's count (logged as the attribute
 * rigid.velocity_passes): with 4 the tower's top box is within 1 mm of where it started,
 * (0, 0.9, 0) m, after 10 s, as tower_passes finds; without the flag (1 pass) it has moved
 * 5 mm or more. A scene without contacts refuses the flag (exit 2, naming it). */
static double pbd_run_top_moved(const char *dir, const char *flag)
{
    char cmd[1600], err[2048], errp[1200], path[1200];
    snprintf(errp, sizeof errp, "%s/err.txt", dir);
    snprintf(cmd, sizeof cmd, "%s/pbd-run rigid_tower --steps=600 --frames=600 --quiet %s "
             "--out=%s --run=passes >/dev/null 2>%s", test_bin_dir(), flag, dir, errp);
    CU_ASSERT_EQUAL_FATAL(test_run_stderr(cmd, errp, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/rigid_tower/passes.h5", dir);
    double passes = -1, *x = NULL, top;
    long rows = 0, cols = 0;
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "rigid.velocity_passes", &passes), 0);
    CU_ASSERT_EQUAL(passes, flag[0] ? 4 : 1);
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/frames/000001/positions", &x, &rows,
                                              &cols), 0);
    CU_ASSERT_FATAL(rows == 5 && cols == 3);
    top = sqrt(x[12] * x[12] + (x[13] - 0.9) * (x[13] - 0.9) + x[14] * x[14]);
    free(x);
    return top;
}

static void test_pbd_run_passes(void)
{
    char dir[] = "/tmp/pbd_rigid_passes_XXXXXX", cmd[1600], err[2048], errp[1200];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    double four = pbd_run_top_moved(dir, "--velocity-passes=4");
    double one = pbd_run_top_moved(dir, "");
    printf("\n    pbd-run rigid_tower: top box moved %.3g m with 4 passes, %.3g m with 1 ", four,
           one);
    CU_ASSERT(four < 1e-3);
    CU_ASSERT(one > 5e-3);
    snprintf(errp, sizeof errp, "%s/err.txt", dir);
    snprintf(cmd, sizeof cmd, "%s/pbd-run rigid_chain --velocity-passes=2 >/dev/null 2>%s",
             test_bin_dir(), errp);
    CU_ASSERT_EQUAL(test_run_stderr(cmd, errp, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--velocity-passes: cannot act here"));
    test_remove_dir(dir);
}

static void test_passes_refused(void)
{
    pbd_rigid_world *w = pbd_rigid_world_create(1.0 / 60.0, 20, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(w->velocity_passes, 1); /* the paper's */
    w->velocity_passes = 0;
    CU_ASSERT_EQUAL(pbd_rigid_step(w), PBD_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(pbd_last_error(), "velocity_passes"));
    CU_ASSERT_PTR_NOT_NULL(strstr(pbd_last_error(), "found 0"));
    pbd_rigid_world_free(w);
}

void register_rigid_velocity_tests(void)
{
    CU_pSuite s = CU_add_suite("rigid_velocity", NULL, NULL);
    CU_add_test(s, "tower_passes", test_tower_passes);
    CU_add_test(s, "passes_grow_with_height", test_passes_grow_with_height);
    CU_add_test(s, "friction_once", test_friction_once);
    CU_add_test(s, "passes_refused", test_passes_refused);
    CU_add_test(s, "pbd_run_passes", test_pbd_run_passes);
}
