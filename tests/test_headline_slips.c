/* Four slips that survived the whole suite (issue 24, planted last session), each caught by
 * recomputing the run's number from its own file, independently of the driver:
 *   xpbd_vs_implicit's means over the frames where XPBD did not diverge (not all frames);
 *   material_beam's headline a largest |δ/δ_static − 1| (not signed);
 *   substeps_vs_iterations' E_0 = −Σ m g·x₀ (the sign: released at a height ≠ 0);
 *   convergence's RMS distance over the n particles, √(Σ|x − x_N|²/n) (not over 3n). */
#include "tests.h"
#include "tests/refs_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[64];

static void path_of(char *out, size_t size, const char *exp, const char *name)
{
    snprintf(out, size, "%s/%s/%s.h5", dir, exp, name);
}

/* The mean of the finite rows of /series/<name>, their count in *finite. */
static double finite_mean(const char *path, const char *name, long *finite, long *rows)
{
    double *d = refs_series(path, name, rows), sum = 0.0;
    *finite = 0;
    for (long i = 0; d && i < *rows; i++)
        if (isfinite(d[i])) sum += d[i], (*finite)++;
    free(d);
    return *finite > 0 ? sum / *finite : NAN;
}

/* xpbd_vs_implicit: a frame where XPBD fails (here: the test hook's NaN velocity, which the
 * watchdog stops) counts as diverged, its row NaN, and the run's means are over the others. */
static void test_xpbd_vs_implicit_diverged(void)
{
    CU_ASSERT_FATAL(refs_fresh_dir(dir, "slips"));
    CU_ASSERT_EQUAL_FATAL(refs_run(dir, "xpbd_vs_implicit --quick --scenes=tet_beam "
                                        "--modes=iterations --budgets=10 --steps=3 "
                                        "--test-fault-step=5"), 0);
    char path[256];
    path_of(path, sizeof path, "xpbd_vs_implicit", "tet_beam_iterations_n10");
    const char *cols[4] = {"newton_rms_distance", "newton_max_distance",
                           "newton_force_error_00_distance", "newton_force_error_01_tet_volume"};
    const char *attrs[4] = {"result.mean_rms_distance", "result.mean_max_distance",
                            "result.mean_force_error_set0", "result.mean_force_error_set1"};
    for (int c = 0; c < 4; c++) {
        long finite = 0, rows = 0;
        double mean = finite_mean(path, cols[c], &finite, &rows);
        CU_ASSERT(rows == 3 && finite == 2); /* one frame diverged, two did not */
        CU_ASSERT(refs_attr(path, "result.diverged_frames") == (double)(rows - finite));
        CU_ASSERT(refs_rel_eq(refs_attr(path, attrs[c]), mean, 1e-12));
    }
    test_remove_dir(dir);
}

/* material_beam: stopped at 0.2 s the beam is still swinging down, so every XPBD run is short
 * of the static deflection (ratio < 1): the headline is the largest |ratio − 1|, which a
 * signed deviation (largest ratio − 1, here ≤ 0) would miss. */
static void test_material_beam_deviation_absolute(void)
{
    CU_ASSERT_FATAL(refs_fresh_dir(dir, "slips"));
    const char *args = "material_beam --quick --materials=stvk --pbd-stiffness=0 "
                       "--implicit-resolution=0 --duration=0.2";
    char cmd[256], sum[256], spath[256];
    CU_ASSERT_EQUAL_FATAL(refs_run(dir, args), 0);
    snprintf(cmd, sizeof cmd, "%s --summarize", args);
    CU_ASSERT_EQUAL_FATAL(refs_run(dir, cmd), 0);
    path_of(spath, sizeof spath, "material_beam", "static_stvk_r4");
    double stat = refs_attr(spath, "result.static_deflection"), worst = 0.0;
    CU_ASSERT_FATAL(stat > 0.0);
    for (int it = 1; it <= 5; it += 4) {
        char name[64], path[256];
        snprintf(name, sizeof name, "xpbd_stvk_it%d", it);
        path_of(path, sizeof path, "material_beam", name);
        long n = 0;
        double *d = refs_series(path, "tip_deflection", &n);
        CU_ASSERT_FATAL(d != NULL && n == 12);
        double ratio = refs_second_half_mean(d, n) / stat;
        free(d);
        CU_ASSERT(ratio < 0.9); /* short of the static answer: the case the sign matters */
        worst = fmax(worst, fabs(ratio - 1.0));
    }
    path_of(sum, sizeof sum, "material_beam", "summary");
    CU_ASSERT(refs_rel_eq(refs_attr(sum, "headline.xpbd_max_deviation_from_static"), worst, 1e-12));
    test_remove_dir(dir);
}

/* E_0 of a run file: −Σ m g·x over its initial free particles (/scene), the gravitational
 * energy of /series/total_energy's convention (at rest, no elastic energy). */
static double initial_energy(const char *path)
{
    double *x = NULL, *w = NULL, g[3] = {NAN, NAN, NAN}, e0 = 0.0;
    long n = 0, c = 0, nw = 0, cw = 0;
    if (pbd_h5_read_dataset(path, "/scene/positions", &x, &n, &c) != 0 || c != 3 ||
        pbd_h5_read_dataset(path, "/scene/inverse_masses", &w, &nw, &cw) != 0 || nw != n ||
        pbd_h5_read_attr_doubles(path, "solver.gravity", g, 3) != 0)
        e0 = NAN;
    for (long i = 0; isfinite(e0) && i < n; i++)
        if (w[i] > 0.0)
            for (int k = 0; k < 3; k++) e0 -= g[k] * x[3 * i + k] / w[i];
    free(x);
    free(w);
    return e0;
}

/* substeps_vs_iterations: the energy lost, E_0 − E_end, does not depend on the height the
 * chain is released at; with E_0's sign wrong it would change by 2 m g Δy (19.6 J at 1 m). */
static void test_substeps_energy_lost_height(void)
{
    double lost[2];
    for (int h = 0; h < 2; h++) {
        CU_ASSERT_FATAL(refs_fresh_dir(dir, "slips"));
        char args[128], path[256];
        snprintf(args, sizeof args, "substeps_vs_iterations --quick --only=substeps_n4 --height=%d",
                 h);
        CU_ASSERT_EQUAL_FATAL(refs_run(dir, args), 0);
        path_of(path, sizeof path, "substeps_vs_iterations", "substeps_n4");
        long n = 0;
        double *e = refs_series(path, "total_energy", &n);
        CU_ASSERT_FATAL(e != NULL && n == 60);
        double e0 = initial_energy(path);
        CU_ASSERT(h ? e0 > 9.0 && e0 < 9.81 : fabs(e0) < 1e-12); /* its free 19/20 kg at y = h */
        lost[h] = refs_attr(path, "result.energy_lost");
        CU_ASSERT(fabs(lost[h] - (e0 - e[n - 1])) <= 1e-9 * fmax(1.0, fabs(e0)));
        free(e);
        test_remove_dir(dir);
    }
    CU_ASSERT(lost[0] > 0.1 && fabs(lost[1] - lost[0]) < 1e-9);
}

/* convergence: rms_distance_to_newton is √(Σ_i |x_i − x_N,i|²/n) over the n particles (as
 * every RMS distance of the suite, experiments/drivers/reference.c), recomputed from the
 * frames (one per iteration count: the step from the same state) and the Newton step's
 * positions the run file keeps. */
static void test_convergence_rms_over_particles(void)
{
    CU_ASSERT_FATAL(refs_fresh_dir(dir, "slips"));
    CU_ASSERT_EQUAL_FATAL(refs_run(dir, "convergence --quick --scenes=tet_beam "
                                        "--schemes=gauss-seidel --frames=1"), 0);
    char path[256];
    path_of(path, sizeof path, "convergence", "tet_beam_gauss-seidel");
    double *xn = NULL;
    long n = 0, c = 0, rows = 0;
    CU_ASSERT_FATAL(pbd_h5_read_dataset(path, "/results/newton_positions", &xn, &n, &c) == 0);
    CU_ASSERT_FATAL(c == 3 && n > 1);
    double *rms = refs_series(path, "rms_distance_to_newton", &rows);
    CU_ASSERT_FATAL(rms != NULL && rows == 7);
    for (long k = 1; k <= rows; k++) {
        char ds[64];
        double *x = NULL;
        long nx = 0, cx = 0;
        snprintf(ds, sizeof ds, "/frames/%06ld/positions", k);
        CU_ASSERT_FATAL(pbd_h5_read_dataset(path, ds, &x, &nx, &cx) == 0 && nx == n && cx == 3);
        double sum = 0.0;
        for (long i = 0; i < 3 * n; i++) sum += (x[i] - xn[i]) * (x[i] - xn[i]);
        CU_ASSERT(refs_rel_eq(rms[k - 1], sqrt(sum / n), 1e-12));
        free(x);
    }
    free(rms);
    free(xn);
    test_remove_dir(dir);
}

void register_headline_slips_tests(void)
{
    CU_pSuite s = CU_add_suite("headline_slips", NULL, NULL);
    CU_add_test(s, "xpbd_vs_implicit_diverged", test_xpbd_vs_implicit_diverged);
    CU_add_test(s, "material_beam_deviation_absolute", test_material_beam_deviation_absolute);
    CU_add_test(s, "substeps_energy_lost_height", test_substeps_energy_lost_height);
    CU_add_test(s, "convergence_rms_over_particles", test_convergence_rms_over_particles);
}
