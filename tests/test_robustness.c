/* Robustness: degenerate geometry never produces NaN/Inf, and a standard scene's result
 * is bit-for-bit reproducible. */
#include "tests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long stress_samples(void)
{
    const char *s = getenv("PBD_STRESS_SAMPLES");
    long n = s ? atol(s) : 0;
    return n > 0 ? n : 1000000;
}

/* Make a sampled configuration degenerate in one of several ways. */
static void degrade(pbd_rng *r, double *x, int arity, int how)
{
    switch (how) {
    case 0: /* all points coincide */
        for (int j = 1; j < arity; j++) memcpy(x + 3 * j, x, 3 * sizeof(double));
        break;
    case 1: /* all points on one line */
        for (int j = 1; j < arity; j++)
            for (int c = 0; c < 3; c++) x[3 * j + c] = x[c] + pbd_rng_uniform(r) * (c == 0);
        break;
    case 2: /* all points in one plane */
        for (int j = 0; j < arity; j++) x[3 * j + 2] = 0.0;
        break;
    case 3: /* two points coincide */
        if (arity > 1) memcpy(x + 3, x, 3 * sizeof(double));
        break;
    case 4: /* tiny scale */
        for (int j = 0; j < 3 * arity; j++) x[j] *= 1e-150;
        break;
    default: /* huge scale */
        for (int j = 0; j < 3 * arity; j++) x[j] *= 1e100;
        break;
    }
}

/* ≥ 10⁶ random and degenerate configurations per registered constraint type, projected
 * with PBD (k = 1 or random), random or zero inverse masses: every C, ∇C and
 * projected position is finite. */
static void test_stress_finite(void)
{
    long n = stress_samples();
    static double x[3 * PBD_SAMPLE_MAX_ARITY], x0[3 * PBD_SAMPLE_MAX_ARITY],
        g[3 * PBD_SAMPLE_MAX_ARITY], w[PBD_SAMPLE_MAX_ARITY], rest[3 * PBD_SAMPLE_MAX_ARITY];
    static int32_t aux[PBD_SAMPLE_MAX_AUX];
    for (int t = 0; t < pbd_constraint_type_count(); t++) {
        const pbd_constraint_type *type = pbd_constraint_type_at(t);
        pbd_rng r;
        pbd_rng_seed(&r, 1234 + (uint64_t)t);
        long bad = 0;
        for (long s = 0; s < n; s++) {
            int n_aux = 0;
            int arity = type->sample(&r, (int)(s & 1), x0, rest, aux, &n_aux);
            /* rods: the quaternions after the particles take one more double each */
            const int nx = 3 * arity + type->n_orient;
            memcpy(x, x0, (size_t)nx * sizeof(double));
            if (s % 3 == 0) degrade(&r, x, arity, (int)((s / 3) % 6));
            for (int j = 0; j < arity; j++)
                w[j] = (s % 11 == 0) ? 0.0 : pbd_rng_range(&r, 0.0, 10.0);
            pbd_eval_input in = {x, arity, rest, aux, n_aux};
            double C = 0.0;
            if (type->eval) type->eval(&in, &C, g); /* shape_match has no scalar C */
            if (!isfinite(C)) bad++;
            pbd_project_generic(type, &in, w, (s % 2) ? pbd_rng_uniform(&r) : 1.0, x, g);
            if (!test_all_finite(x, nx)) bad++;
        }
        if (bad) fprintf(stderr, "\n  %s: %ld non-finite results\n", type->name, bad);
        CU_ASSERT_EQUAL(bad, 0);
    }
}

/* FNV-1a over the bytes of the final positions. */
static uint64_t hash_doubles(const double *a, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    const unsigned char *b = (const unsigned char *)a;
    for (size_t i = 0; i < n * sizeof(double); i++) h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

/* The standard cloth scene after 200 steps hashes to a committed value. When the physics
 * changes on purpose, run `build/pbd-tests robustness/determinism` and replace the value
 * with the one it prints (and say why in the commit message). */
#define CLOTH_REFERENCE_HASH 0x7d6351cdf4538e31ULL

static uint64_t run_cloth(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    pbd_world *w = pbd_scene_cloth(&sp);
    w->def.iterations = 10;
    for (int s = 0; s < 200; s++) pbd_step(w);
    uint64_t h = hash_doubles(w->x, 3 * (size_t)w->n);
    pbd_world_free(w);
    return h;
}

static void test_determinism(void)
{
    uint64_t a = run_cloth(), b = run_cloth();
    CU_ASSERT_EQUAL(a, b);
    if (a != CLOTH_REFERENCE_HASH)
        fprintf(stderr, "\n  cloth hash 0x%016llxULL (reference 0x%016llxULL)\n",
                (unsigned long long)a, (unsigned long long)CLOTH_REFERENCE_HASH);
    CU_ASSERT_EQUAL(a, CLOTH_REFERENCE_HASH);
}

/* The watchdog stops a step that produced a non-finite value and names the step, the
 * constraint type and its index. An absurd velocity overflows the squared distance. (An
 * absurd time step is refused by pbd_solver_def_validate before it can run.) */
static void test_watchdog(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 5;
    pbd_world *w = pbd_scene_chain(&sp);
    CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
    w->def.dt = 1e306;
    CU_ASSERT_EQUAL(pbd_step(w), PBD_EINVAL);
    w->def.dt = 1.0 / 60.0;
    for (int i = 0; i < w->n; i++)
        if (w->w[i] > 0.0) w->v[3 * i] = 1e306;
    CU_ASSERT_EQUAL(pbd_step(w), PBD_ENUMERIC);
    const char *msg = pbd_last_error();
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "step 2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "constraint distance #0"));
    pbd_world_free(w);
}

void register_robustness_tests(void)
{
    CU_pSuite s = CU_add_suite("robustness", NULL, NULL);
    CU_add_test(s, "stress_finite", test_stress_finite);
    CU_add_test(s, "determinism", test_determinism);
    CU_add_test(s, "watchdog", test_watchdog);
}
