/* Newton's stop is relative to the step's scales (solver/newton/README.md "Newton reference", issue
 * 24): the same motion in other units — masses × 1e6 (compliances ÷ 1e6, E × 1e6) or lengths
 * in mm (sizes and g × 1e3; E × 1e-3, as Pa = kg/(m s²)) — takes the same iterations, step by
 * step, and lands on the same (scaled) positions. With the absolute ‖(g, h)‖ <= 1e-10 of
 * before, the heavy chain stopped at its rounding floor one iteration later or earlier. */
#include "tests.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { STEPS = 4, MAX_N = 512 };

typedef struct {
    const char *scene;
    int material; /* tet_beam: index into pbd_material_names */
    double compliance, E;
} units_case;

/* Steps a copy of the scene with masses × ms and lengths × ls, its iterations into it[] and
 * its positions / ls into x[] (3 MAX_N). */
static void run(const units_case *u, double ms, double ls, int *it, double *x, int *n)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.total_mass *= ms;
    sp.size *= ls;
    sp.compliance = u->compliance / ms; /* m/N = s²/kg: no length in it */
    sp.material = u->material;
    sp.youngs_modulus = u->E * ms / ls;
    pbd_world *w = pbd_scene_find(u->scene)->build(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_FATAL(w->n <= MAX_N);
    w->def.method = PBD_METHOD_NEWTON;
    w->def.dt = 1.0 / 60;
    for (int k = 0; k < 3; k++) w->def.gravity[k] *= ls;
    for (int s = 0; s < STEPS; s++) {
        CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
        pbd_newton_info info;
        pbd_newton_last_info(w, &info);
        it[s] = info.iterations;
    }
    for (int i = 0; i < 3 * w->n; i++) x[i] = w->x[i] / ls;
    *n = w->n;
    pbd_world_free(w);
}

static void test_same_iterations_in_other_units(void)
{
    int nh = -1;
    for (int i = 0; pbd_material_names[i]; i++)
        if (strcmp(pbd_material_names[i], "neo-hookean") == 0) nh = i;
    const units_case cases[] = {
        {"chain", 0, 1e-6, 1e5},       /* KKT form */
        {"cloth", 0, 1e-7, 1e5},       /* KKT form, redundant springs */
        {"tet_beam", nh, 0.0, 1e5},    /* Stable Neo-Hookean: potential form */
    };
    const double scales[2][2] = {{1e6, 1.0}, {1.0, 1e3}}; /* mass, length */
    static double x0[3 * MAX_N], x1[3 * MAX_N];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int it0[STEPS], n0 = 0;
        run(&cases[c], 1.0, 1.0, it0, x0, &n0);
        for (int k = 0; k < 2; k++) {
            int it1[STEPS], n1 = 0;
            run(&cases[c], scales[k][0], scales[k][1], it1, x1, &n1);
            CU_ASSERT_FATAL(n1 == n0);
            for (int s = 0; s < STEPS; s++) {
                if (it1[s] != it0[s])
                    printf("\n    %s, masses x %g, lengths x %g: step %d took %d iterations, "
                           "%d in SI", cases[c].scene, scales[k][0], scales[k][1], s + 1, it1[s],
                           it0[s]);
                CU_ASSERT_EQUAL(it1[s], it0[s]);
            }
            double worst = 0.0, size = 0.0;
            for (int i = 0; i < 3 * n0; i++) {
                worst = fmax(worst, fabs(x1[i] - x0[i]));
                size = fmax(size, fabs(x0[i]));
            }
            CU_ASSERT(worst <= 1e-9 * size);
        }
    }
}

void register_newton_units_tests(void)
{
    CU_pSuite s = CU_add_suite("newton_units", NULL, NULL);
    CU_add_test(s, "same_iterations_in_other_units", test_same_iterations_in_other_units);
}
