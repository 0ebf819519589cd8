/* The experiment `contact` (experiments/drivers/exp_contact.c) recomputed from its run files:
 * each run's closed form from the run's own inputs (scene.*, solver.* attributes, /scene),
 * its measured number from its own series, both against the driver's result.* and against
 * the closed form within a stated bound; then the summary's headline numbers from the runs.
 * A slip in the driver's closed form (μs for μk, e for e²) breaks the first comparison, a
 * slip in the physics (μs and μk swapped, a normal's sign) the second. Suite
 * `contact_truths`; one quick sweep (`contact --quick`, about 30 runs) shared by the tests. */
#include "tests.h"
#include "tests/refs_check.h"

#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[64];
static int swept;

static int suite_init(void)
{
    if (!refs_fresh_dir(dir, "contact")) return 1;
    swept = refs_run(dir, "contact --quick") == 0 &&
            refs_run(dir, "contact --quick --summarize") == 0;
    return 0;
}
static int suite_clean(void) { return test_remove_dir(dir) == 0 ? 0 : 1; }

#define attr refs_attr
/* Numbers the driver and the test compute from the same doubles by the same formula in a
 * different order: a few roundings, far below 1e-12 relative. */
#define SAME 1e-12

/* The runs of the quick sweep whose name starts with `prefix`, as paths (at most max). */
static int runs_of(const char *prefix, char paths[][256], int max)
{
    char list[256];
    snprintf(list, sizeof list, "%s/contact/summary.h5", dir);
    char *merged = malloc(65536);
    int n = 0;
    if (merged && pbd_h5_read_attr_string(list, "runs_merged", merged, 65536) == 0)
        for (char *t = strtok(merged, " ,"); t && n < max; t = strtok(NULL, " ,"))
            if (strncmp(t, prefix, strlen(prefix)) == 0)
                snprintf(paths[n++], 256, "%s/contact/%s.h5", dir, t);
    free(merged);
    return n;
}

static double last_row(const char *path, const char *series, long *rows)
{
    double *d = refs_series(path, series, rows), v = d && *rows > 0 ? d[*rows - 1] : NAN;
    free(d);
    return v;
}

static double gravity(const char *path)
{
    double g[3] = {NAN, NAN, NAN};
    pbd_h5_read_attr_doubles(path, "solver.gravity", g, 3);
    return sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
}

/* slide, ramp, tilt: the distance slid (the last row of `measured`) against v0²/(2 μk g) on
 * flat ground, 0 on a ramp below tan θ = μs, ½ g (sin θ − μk cos θ) t² above. The velocity
 * update's friction is symplectic Euler in the substep h: the slide is short by at most one
 * substep's travel v0 h, the ramp's distance off by at most a t h. A block that sticks does
 * not creep: |d| ≤ 1e-12 m (positions of 1 m rounded 240 times, each by 1.1e-16 m). */
static void test_friction_recomputed(void)
{
    CU_ASSERT_FATAL(swept);
    const char *kinds[] = {"slide_", "ramp_", "tilt_"};
    int checked = 0, stuck = 0;
    for (int k = 0; k < 3; k++) {
        char paths[32][256];
        int n = runs_of(kinds[k], paths, 32);
        CU_ASSERT(n >= 2);
        for (int i = 0; i < n; i++) {
            const char *p = paths[i];
            long rows = 0;
            const double d = last_row(p, "measured", &rows), g = gravity(p);
            const double dt = attr(p, "solver.dt"), h = dt / attr(p, "solver.substeps");
            const double mu_s = attr(p, "scene.mu-static"), mu_k = attr(p, "scene.mu-kinetic");
            const double th = attr(p, "scene.ramp-angle") * M_PI / 180.0, t = rows * dt;
            const double v0 = attr(p, "scene.launch-speed"), a = g * (sin(th) - mu_k * cos(th));
            double want, bound;
            if (k == 0) {
                want = v0 * v0 / (2.0 * mu_k * g);
                bound = v0 * h;
            } else if (tan(th) < mu_s) {
                want = 0.0;
                bound = 1e-12;
                stuck++;
            } else {
                want = 0.5 * a * t * t;
                bound = a * t * h;
            }
            if (!(fabs(d - want) <= bound))
                printf("\n    %s: slid %.6f m, closed form %.6f m, bound %.1e m", p, d, want, bound);
            CU_ASSERT(attr(p, "result.measured") == d);
            CU_ASSERT(refs_rel_eq(attr(p, "result.expected"), want, SAME) ||
                      (want == 0.0 && attr(p, "result.expected") == 0.0));
            CU_ASSERT(fabs(d - want) <= bound);
            checked++;
        }
    }
    printf("\n    %d runs, %d of them below tan(theta) = mu_s ", checked, stuck);
    CU_ASSERT(stuck >= 1);
}

/* bounce: the apexes again from the series (height `measured`, velocity `velocity`): the
 * step after the velocity turns upward, y + v²/(2g); then the fall. Each apex over the one
 * before (the first over the drop height) is e² (v_n ← −e v_n, the height v²/(2g)); the
 * impact falls inside a substep, so the ratio is first order in h: within 6 h s⁻¹ (0.1 at one
 * substep of 1/60 s, where the worst of three bounces is 0.077). */
static void test_bounce_recomputed(void)
{
    CU_ASSERT_FATAL(swept);
    char paths[8][256];
    int n = runs_of("bounce_", paths, 8);
    CU_ASSERT(n >= 2);
    for (int i = 0; i < n; i++) {
        const char *p = paths[i];
        long rows = 0, rv = 0;
        double *y = refs_series(p, "measured", &rows), *v = refs_series(p, "velocity", &rv);
        CU_ASSERT_FATAL(y && v && rows == rv);
        const double e = attr(p, "scene.restitution"), g = gravity(p);
        const double h = attr(p, "solver.dt") / attr(p, "solver.substeps");
        double last = attr(p, "scene.drop-height");
        int phase = 0, b = 0;
        for (long s = 0; s < rows && b < 3; s++) {
            if (phase == 1) {
                const double apex = y[s] + (v[s] > 0.0 ? v[s] * v[s] / (2.0 * g) : 0.0);
                char key[32];
                snprintf(key, sizeof key, "result.apex_%d", b + 1);
                CU_ASSERT(attr(p, key) == apex);
                const double ratio = apex / last;
                printf("\n    %s bounce %d: apex ratio %.4f (e^2 = %.4f, bound %.3f)", strrchr(p, '/') + 1,
                       b + 1, ratio, e * e, 6.0 * h);
                CU_ASSERT(fabs(ratio - e * e) <= 6.0 * h);
                last = apex;
                b++;
                phase = 2;
            } else if (phase == 0 && v[s] > 0.0) {
                phase = 1;
            } else if (phase == 2 && v[s] < 0.0) {
                phase = 0;
            }
        }
        CU_ASSERT_EQUAL(b, 3);
        CU_ASSERT(refs_rel_eq(attr(p, "result.expected"), e * e, SAME));
        free(y);
        free(v);
    }
}

/* Most rows on one particle: its distance rows (/scene/sets/00_distance/indices) and one
 * contact. */
static int rows_on_busiest(const char *path)
{
    double *idx = NULL;
    long rows = 0, width = 0;
    if (pbd_h5_read_dataset(path, "/scene/sets/00_distance/indices", &idx, &rows, &width) != 0)
        return 0;
    int count[4096] = {0}, most = 0;
    for (long k = 0; k < rows * width; k++) {
        int i = (int)idx[k];
        if (i >= 0 && i < 4096 && ++count[i] > most) most = count[i];
    }
    free(idx);
    return most + 1;
}

/* rest: the penetration after the last step's solve (the last row of
 * /series/contact/penetration_max). Gauss–Seidel projects the contacts last: 0 up to the
 * rounding of a coordinate of 1 m (4 ulps, 1e-15 m). Jacobi: d_N = g h² r^k (1 − r^kN)/(1 −
 * r^k), r = 1 − ω/n with n the busiest particle's rows (6 edges + the contact), within 1e-6
 * relative plus 1e-15 m: the boundary particles (fewer rows) rest shallower, and the edges
 * they tilt move the interior at third order in the depth difference (at most 7e-7 relative
 * in the full sweep, at 64 iterations; 1e-15 in the quick one). */
static void test_rest_penetration_recomputed(void)
{
    CU_ASSERT_FATAL(swept);
    char paths[16][256];
    int n = runs_of("rest_", paths, 16), jacobi = 0;
    CU_ASSERT(n >= 4);
    for (int i = 0; i < n; i++) {
        const char *p = paths[i];
        char scheme[32] = "";
        pbd_h5_read_attr_string(p, "solver.scheme", scheme, sizeof scheme);
        long rows = 0;
        const double d = last_row(p, "contact/penetration_max", &rows);
        const double S = attr(p, "solver.substeps"), h = attr(p, "solver.dt") / S;
        const double k = attr(p, "solver.iterations"), omega = attr(p, "solver.sor-omega");
        double want = 0.0;
        if (strcmp(scheme, "jacobi") == 0) {
            const double rk = pow(1.0 - omega / rows_on_busiest(p), k), N = rows * S;
            want = gravity(p) * h * h * rk * (1.0 - pow(rk, N)) / (1.0 - rk);
            jacobi++;
        }
        if (!(fabs(d - want) <= 1e-6 * want + 1e-15))
            printf("\n    %s: %s penetration %.6e m, closed form %.6e m", p, scheme, d, want);
        CU_ASSERT(fabs(d - want) <= 1e-6 * want + 1e-15);
        CU_ASSERT(attr(p, "result.measured") == d);
        CU_ASSERT(refs_rel_eq(attr(p, "result.expected"), want, SAME) ||
                  (want == 0.0 && attr(p, "result.expected") == 0.0));
        CU_ASSERT(want == 0.0 || d > 0.0); /* Jacobi does leave the cloth in the ground */
    }
    CU_ASSERT(jacobi >= 2);
}

/* fold: the crossings over the run are the sum of /series/contact/self_crossings; with self
 * collision on, PBD Sec. 4.3's claim is 0; without it, the halves swing through (> 0). */
static void test_fold_crossings_recomputed(void)
{
    CU_ASSERT_FATAL(swept);
    char paths[8][256];
    int n = runs_of("fold_", paths, 8);
    CU_ASSERT(n >= 2);
    for (int i = 0; i < n; i++) {
        long rows = 0;
        double *c = refs_series(paths[i], "contact/self_crossings", &rows), sum = 0.0;
        CU_ASSERT_FATAL(c && rows > 0);
        for (long s = 0; s < rows; s++) sum += c[s];
        free(c);
        const int on = attr(paths[i], "scene.self-collision") != 0.0;
        printf("\n    %s: %g crossings", strrchr(paths[i], '/') + 1, sum);
        CU_ASSERT(attr(paths[i], "result.measured") == sum);
        if (on) CU_ASSERT(sum == 0.0);
        if (!on) CU_ASSERT(sum > 0.0);
    }
}

/* coupling: the total Σ m v (/series/linear_momentum, the particles) + Σ M V
 * (/series/contact/rigid_linear_momentum) of every step against the body's M V0 before the
 * impact, gravity off. Its largest drift over M V0 is the run's result, to 1e-13 (81
 * particles summed in another order: 81 ulps of 3 N s). Bounds: the sphere 1e-12 (rounding
 * of the exchanged impulses); the box 1e-3 (its corners' reactions take ∇_q C at the
 * predicted positions: solver/collision/README.md). The cloth must have taken some. */
static void test_coupling_momentum_recomputed(void)
{
    CU_ASSERT_FATAL(swept);
    char paths[8][256];
    int n = runs_of("coupling_", paths, 8);
    CU_ASSERT(n >= 2);
    for (int i = 0; i < n; i++) {
        const char *p = paths[i];
        double *lin = NULL, *body = NULL;
        long rows = 0, w = 0, rb = 0, wb = 0;
        CU_ASSERT_FATAL(pbd_h5_read_dataset(p, "/series/linear_momentum", &lin, &rows, &w) == 0);
        CU_ASSERT_FATAL(pbd_h5_read_dataset(p, "/series/contact/rigid_linear_momentum", &body,
                                            &rb, &wb) == 0);
        CU_ASSERT_FATAL(rows == rb && w == 3 && wb == 3);
        CU_ASSERT(gravity(p) == 0.0);
        const double p0[3] = {0.0, -attr(p, "scene.body-mass") * attr(p, "scene.body-speed"), 0.0};
        double drift = 0.0;
        for (long s = 0; s < rows; s++)
            for (int k = 0; k < 3; k++)
                drift = fmax(drift, fabs(lin[3 * s + k] + body[3 * s + k] - p0[k]));
        drift /= fabs(p0[1]);
        const double cloth = lin[3 * (rows - 1) + 1];
        const int sphere = attr(p, "variant") == 1.0;
        printf("\n    %s: drift %.2e of M V0, cloth took %.3f N s", strrchr(p, '/') + 1, drift, cloth);
        CU_ASSERT(fabs(attr(p, "result.measured") - drift) <= 1e-13);
        CU_ASSERT(drift <= (sphere ? 1e-12 : 1e-3));
        CU_ASSERT(cloth < 0.1 * p0[1]); /* the cloth took at least a tenth */
        free(lin);
        free(body);
    }
}

/* The summary's headline numbers from the runs' own results, and units on its tables. */
static void test_headlines_recomputed(void)
{
    CU_ASSERT_FATAL(swept);
    char sum[256], paths[64][256];
    snprintf(sum, sizeof sum, "%s/contact/summary.h5", dir);
    /* the largest of result.measured (or error) over the runs with a prefix */
    struct {
        const char *prefix, *key, *what;
        int abs_measured;
    } rows[] = {
        {"rest_gs_", "headline.penetration_gs_max", "result.measured", 1},
        {"rest_jacobi_", "headline.penetration_jacobi_rel_error", "result.error", 0},
        {"fold_on_", "headline.fold_crossings_on_max", "result.measured", 0},
        {"coupling_box_", "headline.coupling_drift_box", "result.measured", 0},
        {"coupling_sphere_", "headline.coupling_drift_sphere", "result.measured", 0},
        {"tilt_", "headline.tilt_slide_rel_error", "result.error", 0},
    };
    for (unsigned r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        int n = runs_of(rows[r].prefix, paths, 64);
        double most = -INFINITY;
        for (int i = 0; i < n; i++) {
            if (r == 5 && attr(paths[i], "result.expected") == 0.0) continue; /* stuck ones */
            most = fmax(most, attr(paths[i], rows[r].what));
        }
        CU_ASSERT(n > 0);
        if (attr(sum, rows[r].key) != most) printf("\n    %s: %g, runs say %g", rows[r].key, attr(sum, rows[r].key), most);
        CU_ASSERT(attr(sum, rows[r].key) == most);
    }
    /* the fewest crossings without self collision; the slide at the most substeps */
    int n = runs_of("fold_off_", paths, 64);
    double fewest = INFINITY;
    for (int i = 0; i < n; i++) fewest = fmin(fewest, attr(paths[i], "result.measured"));
    CU_ASSERT(attr(sum, "headline.fold_crossings_off_min") == fewest);
    char slide[256];
    snprintf(slide, sizeof slide, "%s/contact/slide_s4_it10.h5", dir);
    CU_ASSERT(attr(sum, "headline.slide_rel_error") == attr(slide, "result.error"));
    hid_t f = H5Fopen(sum, H5F_ACC_RDONLY, H5P_DEFAULT);
    CU_ASSERT_FATAL(f >= 0);
    const char *tables[] = {"errors", "tilt", "bounces", "penetration", "self_collision",
                            "coupling"};
    for (unsigned t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        char name[64], units[256] = "";
        snprintf(name, sizeof name, "/tables/%s", tables[t]);
        CU_ASSERT(H5LTget_attribute_string(f, name, "units", units) >= 0 && strlen(units) > 0);
    }
    H5Fclose(f);
}

void register_contact_truths_tests(void)
{
    CU_pSuite s = CU_add_suite("contact_truths", suite_init, suite_clean);
    CU_add_test(s, "friction_recomputed", test_friction_recomputed);
    CU_add_test(s, "bounce_recomputed", test_bounce_recomputed);
    CU_add_test(s, "rest_penetration_recomputed", test_rest_penetration_recomputed);
    CU_add_test(s, "fold_crossings_recomputed", test_fold_crossings_recomputed);
    CU_add_test(s, "coupling_momentum_recomputed", test_coupling_momentum_recomputed);
    CU_add_test(s, "headlines_recomputed", test_headlines_recomputed);
}
