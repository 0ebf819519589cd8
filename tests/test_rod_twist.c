/* rod_twist's headlines recomputed independently of the driver (issue 22; the rule of
 * tests/test_headlines.c): the twist angles from the stored quaternions by another route
 * (the twist part of q̄_0 q_i, 2 atan2(z, w), instead of the driver's directors), the linear
 * distribution Φ i/(N − 1), the wave speed c = √(G/ρ) from the material alone (J = I_p for a
 * circular section), the scene's segment inertia ρ I_p ℓ against /scene/inverse_inertias, and
 * the arrival times and their fit from the logged station series. */
#include "tests.h"
#include "tests/refs_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static char dir[64];

static void path_of(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/rod_twist/%s.h5", dir, name);
}

/* θ_i = twist angle of q̄_0 q_i about the body d_3, unwrapped along the rod. */
static void twist_of(const double *q, int n, double *theta)
{
    for (int i = 0; i < n; i++) {
        const double *a = q, *b = q + 4 * i; /* r = ā b: only w and z are needed */
        double rw = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
        double rz = a[0] * b[3] - a[3] * b[0] - a[1] * b[2] + a[2] * b[1];
        double t = 2.0 * atan2(rz, rw);
        theta[i] = i == 0 ? t : theta[i - 1] + remainder(t - theta[i - 1], 2.0 * M_PI);
    }
}

/* The static runs: the driver's max deviation is the one of the stored orientations; XPBD
 * (converged, 50 iterations, 10 segments) is within 1e-3 rad of the linear twist and turns
 * the way Φ says; PBD (k = 1) sits one joint's share Φ/(N − 1) off it. */
static void check_static(const char *name, int xpbd)
{
    char path[256];
    path_of(path, sizeof path, name);
    double phi = refs_attr(path, "angle"), *q = NULL, th[64] = {0};
    long rows = 0, cols = 0;
    CU_ASSERT_FATAL(pbd_h5_read_dataset(path, "/results/orientations", &q, &rows, &cols) == 0);
    CU_ASSERT_FATAL(cols == 4 && rows == (long)refs_attr(path, "segments") && rows >= 3 && rows <= 64);
    int n = (int)rows;
    twist_of(q, n, th);
    double dev = 0.0;
    for (int i = 0; i < n; i++) dev = fmax(dev, fabs(th[i] - phi * i / (n - 1)));
    CU_ASSERT(fabs(th[n - 1] - phi) < 1e-12);
    for (int i = 1; i < n - !xpbd; i++) CU_ASSERT(th[i] > th[i - 1]); /* PBD: to N − 2 */
    CU_ASSERT(fabs(refs_attr(path, "result.max_deviation") - dev) < 1e-9);
    CU_ASSERT(refs_attr(path, "result.static") == 1.0);
    if (xpbd) {
        CU_ASSERT(dev < 1e-3);
    } else {
        CU_ASSERT(refs_rel_eq(dev, phi / (n - 1), 0.01));
    }
    free(q);
}

static void test_rod_twist_headline(void)
{
    CU_ASSERT_FATAL(refs_fresh_dir(dir, "twist"));
    CU_ASSERT_EQUAL_FATAL(refs_run(dir, "rod_twist --quick --iterations=50"), 0);
    CU_ASSERT_EQUAL_FATAL(refs_run(dir, "rod_twist --quick --iterations=50 --summarize"), 0);
    char path[256], sum[256];
    check_static("static_xpbd_n10_it50_ss1", 1);
    check_static("static_pbd_n10_it50_ss1", 0);
    path_of(sum, sizeof sum, "summary");
    path_of(path, sizeof path, "static_xpbd_n10_it50_ss1");
    CU_ASSERT(refs_attr(sum, "headline.static_xpbd_deviation") ==
              refs_attr(path, "result.max_deviation"));

    /* the wave: c from the material alone, the scene's segment inertia ρ I_p ℓ */
    path_of(path, sizeof path, "wave_xpbd_n20_it20_c0.5");
    double E = refs_attr(path, "param.youngs-modulus"), nu = refs_attr(path, "param.poisson");
    double rho = refs_attr(path, "param.density"), r = refs_attr(path, "param.radius");
    double c = sqrt(E / (2.0 * (1.0 + nu)) / rho), ell = 1.0 / refs_attr(path, "segments");
    CU_ASSERT(refs_rel_eq(refs_attr(path, "analytic_speed"), c, 1e-12));
    double *ii = NULL;
    long rows = 0, cols = 0;
    CU_ASSERT_FATAL(pbd_h5_read_dataset(path, "/scene/inverse_inertias", &ii, &rows, &cols) == 0);
    CU_ASSERT_FATAL(cols == 3 && rows > 2);
    CU_ASSERT(refs_rel_eq(1.0 / ii[3 * 1 + 2], rho * 0.5 * M_PI * pow(r, 4) * ell, 1e-12));
    free(ii);

    /* arrival: the first crossing of half the step, interpolated; the slope of a line fit */
    double *tw = NULL, *t = NULL, *d = NULL, arrive[3];
    long n = 0, n2 = 0, c1 = 0, c2 = 0, c3 = 0, ns = 0;
    CU_ASSERT_FATAL(pbd_h5_read_dataset(path, "/series/station_twist", &tw, &n, &c1) == 0);
    CU_ASSERT_FATAL(pbd_h5_read_dataset(path, "/series/time", &t, &n2, &c2) == 0);
    CU_ASSERT_FATAL(pbd_h5_read_dataset(path, "/results/station_distances", &d, &ns, &c3) == 0);
    CU_ASSERT_FATAL(c1 == 3 && n2 == n && ns == 3 && n > 1);
    double half = 0.5 * refs_attr(path, "wave_angle");
    for (int j = 0; j < 3; j++) {
        arrive[j] = NAN;
        for (long k = 1; k < n && isnan(arrive[j]); k++)
            if (tw[3 * k + j] >= half && tw[3 * (k - 1) + j] < half)
                arrive[j] = t[k - 1] + (t[k] - t[k - 1]) * (half - tw[3 * (k - 1) + j]) /
                                           (tw[3 * k + j] - tw[3 * (k - 1) + j]);
    }
    double md = (d[0] + d[1] + d[2]) / 3, mt = (arrive[0] + arrive[1] + arrive[2]) / 3;
    double sdt = 0.0, stt = 0.0;
    for (int j = 0; j < 3; j++) sdt += (d[j] - md) * (arrive[j] - mt), stt += (d[j] - md) * (d[j] - md);
    double speed = stt / sdt;
    CU_ASSERT(refs_rel_eq(refs_attr(path, "result.wave_speed"), speed, 1e-9));
    CU_ASSERT(fabs(speed / c - 1.0) < 0.01);
    CU_ASSERT(refs_rel_eq(refs_attr(sum, "headline.wave_ratio"), speed / c, 1e-9));
    free(tw);
    free(t);
    free(d);
    test_remove_dir(dir);
}

void register_rod_twist_tests(void)
{
    CU_pSuite s = CU_add_suite("rod_twist", NULL, NULL);
    CU_add_test(s, "headline", test_rod_twist_headline);
}
