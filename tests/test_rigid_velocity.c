/* The rigid contacts' velocity solve run more than once per substep (pbd_rigid_world's
 * velocity_passes; the paper, Müller et al. 2020 Sec. 3.6, makes one pass): a 5-box tower
 * that walks at 20 substeps x 1 iteration with one pass stands with four, dynamic friction
 * acts in the first pass only, and a count below 1 is refused. */
#include "tests.h"
#include "experiments/scenes/pbd_scenes.h"
#include "solver/rigid/pbd_rigid.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The rigid_tower scene's stack (5 boxes of half side 0.1 m, 1 kg, μs 0.5, μk 0.4, e 0) at
 * 20 x 1 for 10 s: the largest distance a box's centre moved (m). */
static double tower_drift(int passes)
{
    pbd_rigid_world *w = pbd_rigid_world_create(1.0 / 60.0, 20, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    w->ground = 1;
    w->velocity_passes = passes;
    const double half[3] = {0.1, 0.1, 0.1}, base[3] = {0, 0, 0};
    const pbd_rigid_material m = {0.5, 0.4, 0.0};
    CU_ASSERT_FATAL(pbd_rigid_add_stack(w, 5, half, 1.0, base, &m) >= 0);
    double x0[5][3];
    for (int i = 0; i < 5; i++) memcpy(x0[i], w->bodies[i].x, sizeof x0[i]);
    for (int s = 0; s < 600; s++) CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
    double drift = 0.0;
    for (int i = 0; i < 5; i++) {
        double d = 0.0;
        for (int k = 0; k < 3; k++) d += (w->bodies[i].x[k] - x0[i][k]) * (w->bodies[i].x[k] - x0[i][k]);
        drift = fmax(drift, sqrt(d));
    }
    pbd_rigid_world_free(w);
    return drift;
}

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
static void test_friction_once(void)
{
    const double want = 9.0 / (2.0 * 0.4 * 9.81);
    const double d = test_rigid_stopping(1.0, PBD_RIGID_FRICTION_CONSISTENT, 4);
    printf("\n    stopped after %.4f m with 4 passes; v0^2/(2 mu g) = %.4f m ", d, want);
    CU_ASSERT(fabs(d - want) <= 0.01 * want);
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
    CU_add_test(s, "friction_once", test_friction_once);
    CU_add_test(s, "passes_refused", test_passes_refused);
}
