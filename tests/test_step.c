/* The step (PBD Algorithm 1): stiffness modes, attachments, a hanging chain. */
#include "tests.h"

#include <math.h>

/* One isolated distance constraint stretched by C0 along its own direction: each
 * projection with stiffness k removes the fraction k of the error, so n iterations leave
 * (1-k)^n C0 with raw k and (1-k) C0 with k' = 1-(1-k)^(1/n) (seed review slides). */
static double remaining_fraction(double k, int n, int linearize)
{
    const double p1[3] = {0, 0, 0}, p2[3] = {2, 0, 0};
    pbd_world *w = test_two_particles(p1, p2, 1.0, 3.0);
    int s = pbd_world_add_set(w, &pbd_distance_type, 0);
    int32_t idx[2] = {0, 1};
    double rest = 1.0;
    pbd_set_add(w, s, idx, &rest, k, 0.0);
    w->def.iterations = n;
    w->def.linearize_stiffness = linearize;
    pbd_step(w);
    double d = w->x[3] - w->x[0];
    pbd_world_free(w);
    return (d - 1.0) / 1.0;
}

static void test_stiffness_modes(void)
{
    const double ks[] = {0.01, 0.1, 0.5, 0.9};
    const int ns[] = {1, 4, 20};
    for (unsigned a = 0; a < sizeof ks / sizeof ks[0]; a++)
        for (unsigned b = 0; b < sizeof ns / sizeof ns[0]; b++) {
            double k = ks[a];
            int n = ns[b];
            CU_ASSERT_DOUBLE_EQUAL(remaining_fraction(k, n, 0), pow(1 - k, n), 1e-12);
            CU_ASSERT_DOUBLE_EQUAL(remaining_fraction(k, n, 1), 1 - k, 1e-12);
        }
}

/* A 20-particle chain with its top attached hangs at its rest lengths once enough
 * iterations are spent, and the attached end stays put. */
static void test_hanging_chain(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 20;
    pbd_world *w = pbd_scene_chain(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    w->def.iterations = 2000;
    w->def.damping = PBD_DAMPING_SCALE;
    w->def.k_damping = 0.05;
    for (int s = 0; s < 300; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    const pbd_constraint_set *set = &w->sets[0];
    double max_stretch = 0.0;
    for (int c = 0; c < set->count; c++) {
        const double *a = w->x + 3 * set->idx[2 * c], *b = w->x + 3 * set->idx[2 * c + 1];
        double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                        (a[2] - b[2]) * (a[2] - b[2]));
        double stretch = fabs(d - set->rest[c]) / set->rest[c];
        if (stretch > max_stretch) max_stretch = stretch;
    }
    CU_ASSERT(max_stretch < 1e-6);
    CU_ASSERT_EQUAL(w->x[0], 0.0);
    CU_ASSERT_EQUAL(w->x[1], 0.0);
    CU_ASSERT_EQUAL(w->x[2], 0.0);
    /* and it hangs down: the free end is below the top by about the chain length */
    CU_ASSERT(w->x[3 * 19 + 1] < -0.99);
    pbd_world_free(w);
}

/* A kinematic attachment follows its target every step (PBD Sec. 3.6). */
static void circle(int a, double t, const double anchor[3], double target[3], void *user)
{
    (void)a;
    (void)user;
    target[0] = anchor[0] + cos(t);
    target[1] = anchor[1] + sin(t);
    target[2] = anchor[2];
}

static void test_kinematic_attachment(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 5;
    pbd_world *w = pbd_scene_chain(&sp);
    w->attach_motion = circle;
    w->def.iterations = 20;
    for (int s = 0; s < 50; s++) {
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        CU_ASSERT_DOUBLE_EQUAL(w->x[0], cos(w->time), 1e-14);
        CU_ASSERT_DOUBLE_EQUAL(w->x[1], sin(w->time), 1e-14);
    }
    CU_ASSERT_EQUAL(w->w[0], 0.0);
    pbd_world_free(w);
}

/* With no constraints a particle falls freely: v = g t, the symplectic Euler position. */
static void test_free_fall(void)
{
    pbd_world *w = pbd_world_create(1);
    const double x0[3] = {0, 0, 0};
    pbd_world_set_particle(w, 0, x0, NULL, 2.0);
    w->def.dt = 0.01;
    for (int s = 0; s < 100; s++) pbd_step(w);
    CU_ASSERT_DOUBLE_EQUAL(w->v[1], -9.81 * 1.0, 1e-12);
    /* symplectic Euler: y_n = -g dt² n(n+1)/2 */
    CU_ASSERT_DOUBLE_EQUAL(w->x[1], -9.81 * 1e-4 * 100 * 101 / 2.0, 1e-10);
    pbd_world_free(w);
}

void register_step_tests(void)
{
    CU_pSuite s = CU_add_suite("step", NULL, NULL);
    CU_add_test(s, "stiffness_modes", test_stiffness_modes);
    CU_add_test(s, "hanging_chain", test_hanging_chain);
    CU_add_test(s, "kinematic_attachment", test_kinematic_attachment);
    CU_add_test(s, "free_fall", test_free_fall);
}
