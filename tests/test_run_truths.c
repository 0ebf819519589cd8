/* Run files that say what their numbers are: every dataset of a run file carries a `units`
 * attribute (experiments/README.md "HDF5 results"), walked over scene runs of every kind
 * (frames, iterations, rods, fluids, tearing, the Newton reference) and the experiments' runs
 * below; and the headlines of rod_cantilever, fluid_density and solver_families recomputed
 * from their run files' own datasets and inputs. */
#include "tests.h"
#include "tests/refs_check.h"
#include "analysis/pbd_analysis.h"

#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

static int suite_init(void) { return refs_fresh_dir(dir, "truths") ? 0 : 1; }
static int suite_clean(void) { return test_remove_dir(dir) == 0 ? 0 : 1; }

#define attr refs_attr
#define rel_eq refs_rel_eq

/* ---- units on every dataset ------------------------------------------------------------ */

typedef struct walk {
    long datasets, missing;
    const char *path;
} walk;

static herr_t visit(hid_t root, const char *name, const H5O_info_t *info, void *data)
{
    walk *wk = data;
    if (info->type != H5O_TYPE_DATASET) return 0;
    wk->datasets++;
    htri_t has = H5Aexists_by_name(root, name, "units", H5P_DEFAULT);
    if (has <= 0 && wk->missing++ < 12) printf("\n    %s: /%s has no units", wk->path, name);
    return 0;
}

/* The datasets of a file and how many lack `units`; -1 when it cannot be read. */
static long missing_units(const char *path, long *datasets)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return -1;
    walk wk = {0, 0, path};
    herr_t st = H5Ovisit2(f, H5_INDEX_NAME, H5_ITER_INC, visit, &wk, H5O_INFO_BASIC);
    H5Fclose(f);
    *datasets = wk.datasets;
    return st < 0 ? -1 : wk.missing;
}

static void test_every_dataset_has_units(void)
{
    static const struct {
        const char *scene, *args;
    } runs[] = {
        {"cloth", "--steps=4 --frames=2 --frame-velocities --record-iterations --method=xpbd "
                  "--compliance=1e-6"},
        {"chain", "--steps=3 --reference=newton --method=xpbd --compliance=1e-6"},
        {"tet_beam", "--steps=2 --material=neo-hookean --method=xpbd --frames=1"},
        {"tear", "--steps=12 --frames=4"},
        {"balloon", "--steps=2 --method=xpbd --compliance=1e-4 --frames=1"},
        {"rod", "--steps=3 --method=xpbd --frames=1 --frame-velocities"},
        {"dam_break", "--steps=3 --resolution=5 --frames=1 --frame-velocities"},
    };
    long total = 0, bad = 0;
    for (unsigned i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char args[512], path[256];
        snprintf(args, sizeof args, "%s %s --run=units", runs[i].scene, runs[i].args);
        CU_ASSERT_EQUAL_FATAL(refs_run(dir, args), 0);
        snprintf(path, sizeof path, "%s/%s/units.h5", dir, runs[i].scene);
        long n = 0, m = missing_units(path, &n);
        CU_ASSERT(m == 0);
        CU_ASSERT(n > 5); /* a file with datasets, not an empty walk */
        total += n;
        bad += m;
    }
    printf("\n    %ld datasets walked, %ld without units", total, bad);
}

/* Every dataset of every run file of an experiment's directory has units. */
static void experiment_units(const char *exp, const char *const *runs, int n)
{
    for (int i = 0; i < n; i++) {
        char path[256];
        long d = 0;
        snprintf(path, sizeof path, "%s/%s/%s.h5", dir, exp, runs[i]);
        CU_ASSERT(missing_units(path, &d) == 0 && d > 0);
    }
}

static char *summary_text(const char *path, char *buf, size_t size)
{
    buf[0] = '\0';
    if (pbd_h5_read_attr_string(path, "headline", buf, size) != 0) buf[0] = '\0';
    return buf;
}

/* ---- rod_cantilever -------------------------------------------------------------------- */

/* The reference from the run's own inputs: E = w L³/(Λ I) (w = ρ A g, A = π r², I = π r⁴/4),
 * the elastica of the length L_e = L − ℓ/2 (ℓ = L/segments) clamped at the first segment's
 * middle under the same w, Λ_e = Λ (L_e/L)³, δ_e/L = elastica(Λ_e) L_e/L, plus Timoshenko's
 * shear w L_e²/(2 G A); the tip deflection is the last logged tip drop over L, static when
 * the last step moved it less than tol L. Numbers written from the same doubles: 1e-12. */
static void check_rod_run(const char *path, double *rel_err, double *is_static)
{
    const double L = 1.0, g = 9.81;
    double load = attr(path, "load"), n = attr(path, "segments"), r = attr(path, "radius");
    double rho = attr(path, "param.density"), tol = attr(path, "param.tol");
    double E = attr(path, "youngs_modulus"), G = attr(path, "shear_modulus");
    double nu = attr(path, "param.poisson");
    CU_ASSERT_FATAL(isfinite(load) && isfinite(n) && isfinite(r) && isfinite(rho) && isfinite(tol));
    const double A = M_PI * r * r, I = 0.25 * M_PI * pow(r, 4), wl = rho * A * g;
    CU_ASSERT(rel_eq(E, wl * L * L * L / (load * I), 1e-12));
    CU_ASSERT(rel_eq(G, E / (2.0 * (1.0 + nu)), 1e-12));
    const double Le = L - 0.5 * L / n;
    double el = NAN, nominal = NAN;
    CU_ASSERT_FATAL(pbd_elastica_cantilever(load * pow(Le / L, 3), &el, NULL, NULL) == PBD_OK);
    CU_ASSERT_FATAL(pbd_elastica_cantilever(load, &nominal, NULL, NULL) == PBD_OK);
    const double shear = wl * Le * Le / (2.0 * G * A) / L, ref = el * Le / L + shear;
    CU_ASSERT(rel_eq(attr(path, "shear_deflection"), shear, 1e-12));
    CU_ASSERT(rel_eq(attr(path, "elastica_deflection"), ref, 1e-12));
    CU_ASSERT(rel_eq(attr(path, "elastica_nominal_deflection"), nominal, 1e-12));
    CU_ASSERT(rel_eq(attr(path, "small_deflection"), load / 8.0, 1e-15));
    long rows = 0;
    double *tip = refs_series(path, "tip_deflection", &rows);
    CU_ASSERT_FATAL(tip && rows >= 2);
    const double t = tip[rows - 1] / L, moved = fabs(tip[rows - 1] - tip[rows - 2]);
    CU_ASSERT(attr(path, "result.tip_deflection") == t);
    CU_ASSERT(rel_eq(attr(path, "result.relative_error"), (t - ref) / ref, 1e-12));
    CU_ASSERT(attr(path, "result.steps") == (double)rows);
    CU_ASSERT(attr(path, "result.static") == (double)(moved < tol * L));
    *rel_err = (t - ref) / ref;
    *is_static = moved < tol * L;
    free(tip);
}

/* QUICK at the load 2: XPBD at 500 iterations, 10 and 5 segments; the headline (the most
 * segments) at rest and within 1 % of the reference; its table's δ/L columns dimensionless. */
static void test_rod_cantilever_recomputed(void)
{
    const char *args = "rod_cantilever --quick --methods=xpbd --iterations=500";
    char cmd[256], sum[256], text[2048];
    CU_ASSERT_EQUAL_FATAL(refs_run(dir, args), 0);
    snprintf(cmd, sizeof cmd, "%s --summarize", args);
    CU_ASSERT_EQUAL_FATAL(refs_run(dir, cmd), 0);
    const char *runs[2] = {"xpbd_load2_n10_it500", "xpbd_load2_n5_it500"};
    double err[2], st[2];
    for (int i = 0; i < 2; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/rod_cantilever/%s.h5", dir, runs[i]);
        check_rod_run(path, &err[i], &st[i]);
        printf("\n    %s: %+.3f %% of elastica + shear, %s", runs[i], 100.0 * err[i],
               st[i] ? "at rest" : "NOT at rest");
    }
    experiment_units("rod_cantilever", runs, 2);
    CU_ASSERT(st[0] == 1.0);
    CU_ASSERT(fabs(err[0]) < 0.01);
    snprintf(sum, sizeof sum, "%s/rod_cantilever/summary.h5", dir);
    CU_ASSERT(attr(sum, "headline.relative_error_load2") == err[0]);
    CU_ASSERT(attr(sum, "headline.static_load2") == 1.0);
    CU_ASSERT_PTR_NULL(strstr(summary_text(sum, text, sizeof text), "NOT AT REST"));
    char units[256] = "";
    hid_t f = H5Fopen(sum, H5F_ACC_RDONLY, H5P_DEFAULT);
    CU_ASSERT_FATAL(f >= 0);
    H5LTget_attribute_string(f, "/tables/tip", "units", units);
    H5Fclose(f);
    CU_ASSERT_PTR_NULL(strchr(units, 'm')); /* δ/L is dimensionless */
}

/* ---- fluid_density ------------------------------------------------------------------ */

/* Each run's results from its own series (the second half: steps s > n/2): the time mean of
 * /series/fluid/error_mean and error_max, the worst error_max, the largest max_compression;
 * and the relations that make the names true: max compression ≤ worst |ρ/ρ0 − 1|, the mean
 * ≤ the time mean of the max. */
static void test_fluid_density_recomputed(void)
{
    const char *args = "fluid_density --quick";
    char cmd[256], sum[256];
    CU_ASSERT_EQUAL_FATAL(refs_run(dir, args), 0);
    snprintf(cmd, sizeof cmd, "%s --summarize", args);
    CU_ASSERT_EQUAL_FATAL(refs_run(dir, cmd), 0);
    const char *runs[] = {"rest_it1_sub1", "rest_it4_sub1", "rest_it4_sub1_eps1000",
                          "rest_it4_sub1_scorr", "rest_it4_sub1_xpbd", "dam_it4", "dam_it4_scorr"};
    const int n_runs = (int)(sizeof runs / sizeof runs[0]);
    double at4 = NAN, comp4 = NAN;
    for (int i = 0; i < n_runs; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/fluid_density/%s.h5", dir, runs[i]);
        long n = 0, n2 = 0, n3 = 0;
        double *mean = refs_series(path, "fluid/error_mean", &n);
        double *mx = refs_series(path, "fluid/error_max", &n2);
        double *comp = refs_series(path, "max_compression", &n3);
        CU_ASSERT_FATAL(mean && mx && comp && n == n2 && n == n3 && n > 2);
        double worst = 0.0, cmax = -INFINITY;
        for (long s = n / 2 + 1; s <= n; s++) {
            worst = fmax(worst, mx[s - 1]);
            cmax = fmax(cmax, comp[s - 1]);
        }
        double m = refs_second_half_mean(mean, n), tm = refs_second_half_mean(mx, n);
        CU_ASSERT(rel_eq(attr(path, "result.mean_abs_error"), m, 1e-12));
        CU_ASSERT(rel_eq(attr(path, "result.max_abs_error_time_mean"), tm, 1e-12));
        CU_ASSERT(attr(path, "result.max_abs_error_worst_step") == worst);
        CU_ASSERT(attr(path, "result.max_compression") == cmax);
        /* ρ/ρ0 − 1 ≤ |ρ/ρ0 − 1| at the same positions and rows (x = p after the step) */
        CU_ASSERT(cmax <= worst * (1.0 + 1e-12));
        for (long s = 1; s <= n; s++) CU_ASSERT(comp[s - 1] <= mx[s - 1] * (1.0 + 1e-12));
        CU_ASSERT(m <= tm && tm <= worst);
        if (!strcmp(runs[i], "rest_it4_sub1")) {
            at4 = m;
            comp4 = cmax;
        }
        free(mean);
        free(mx);
        free(comp);
    }
    experiment_units("fluid_density", runs, n_runs);
    snprintf(sum, sizeof sum, "%s/fluid_density/summary.h5", dir);
    CU_ASSERT(attr(sum, "headline.rest_mean_abs_error_at_4_iterations") == at4);
    CU_ASSERT(attr(sum, "headline.rest_max_compression_at_4_iterations") == comp4);
    printf("\n    rest column, 4 iterations: mean |rho/rho0 - 1| %.2f %%, largest rho/rho0 - 1 "
           "%.1f %%", 100.0 * at4, 100.0 * comp4);
}

/* ---- solver_families ----------------------------------------------------------------- */

/* A world from a run file's /scene: particles, masses, attachments, every set's rows, rest
 * values and compliances; the solver's dt and gravity from its attributes. */
static pbd_world *world_from_scene(const char *path)
{
    double *x = NULL, *v = NULL, *w = NULL, *att = NULL;
    long n = 0, c = 0, na = 0, r1, c1;
    if (pbd_h5_read_dataset(path, "/scene/positions", &x, &n, &c) != 0) return NULL;
    pbd_h5_read_dataset(path, "/scene/velocities", &v, &r1, &c1);
    pbd_h5_read_dataset(path, "/scene/inverse_masses", &w, &r1, &c1);
    pbd_world *wd = pbd_world_create((int)n);
    CU_ASSERT_FATAL(wd && v && w);
    memcpy(wd->x, x, 3 * (size_t)n * sizeof(double));
    memcpy(wd->p, x, 3 * (size_t)n * sizeof(double));
    memcpy(wd->v, v, 3 * (size_t)n * sizeof(double));
    memcpy(wd->w, w, (size_t)n * sizeof(double));
    if (pbd_h5_read_dataset(path, "/scene/attachments", &att, &na, &c1) == 0)
        for (long i = 0; i < na; i++) pbd_world_attach(wd, (int)att[i]);
    static pbd_h5_names sets;
    CU_ASSERT_FATAL(pbd_h5_read_names(path, "/scene/sets", &sets) == 0);
    for (int s = 0; s < sets.count; s++) {
        const pbd_constraint_type *t = pbd_constraint_type_find(strchr(sets.name[s], '_') + 1);
        CU_ASSERT_FATAL(t != NULL);
        char name[300];
        double *idx = NULL, *rest = NULL, *alpha = NULL, *k = NULL;
        long rows = 0, ar = 0, r2, c2;
        snprintf(name, sizeof name, "/scene/sets/%s/indices", sets.name[s]);
        CU_ASSERT_FATAL(pbd_h5_read_dataset(path, name, &idx, &rows, &ar) == 0);
        snprintf(name, sizeof name, "/scene/sets/%s/rest", sets.name[s]);
        if (t->n_rest > 0) CU_ASSERT_FATAL(pbd_h5_read_dataset(path, name, &rest, &r2, &c2) == 0);
        snprintf(name, sizeof name, "/scene/sets/%s/compliance", sets.name[s]);
        CU_ASSERT_FATAL(pbd_h5_read_dataset(path, name, &alpha, &r2, &c2) == 0);
        snprintf(name, sizeof name, "/scene/sets/%s/stiffness", sets.name[s]);
        CU_ASSERT_FATAL(pbd_h5_read_dataset(path, name, &k, &r2, &c2) == 0);
        int set = pbd_world_add_set(wd, t, (int)ar);
        CU_ASSERT_FATAL(set >= 0);
        for (long r = 0; r < rows; r++) {
            int32_t row[64];
            for (long j = 0; j < ar; j++) row[j] = (int32_t)idx[r * ar + j];
            CU_ASSERT_FATAL(pbd_set_add(wd, set, row, rest ? rest + r * t->n_rest : NULL, k[r],
                                        alpha[r]) >= 0);
        }
        free(idx);
        free(rest);
        free(alpha);
        free(k);
    }
    double dt = attr(path, "solver.dt");
    wd->def.dt = dt;
    CU_ASSERT_FATAL(pbd_h5_read_attr_doubles(path, "solver.gravity", wd->def.gravity, 3) == 0);
    wd->def.threads = 1;
    free(x);
    free(v);
    free(w);
    free(att);
    return wd;
}

/* The cloth (QUICK, 8², α = 1e-2 m/N: soft enough for XPBD to reach 1e-2 of the Newton
 * step within 100 iterations) under XPBD, PBD and Newton at 1, 10, 100 iterations: the Newton step
 * solved again here from the file's /scene (XPBD Eq. 8–9 to 1e-12), its displacement; each
 * method's step from the same state, its distance max|x − x*| against the file's rows (both
 * Newton solves within their tolerance: 1e-8 of the displacement); the time to 1e-k from the
 * rows, the final distance, and the headline (the fastest method to 1e-3). */
static void test_solver_families_recomputed(void)
{
    const char *args = "solver_families --quick --scenes=cloth --methods=pbd,xpbd,newton "
                       "--cloth-resolution=8 --cloth-compliance=1e-2";
    char cmd[256], sum[256];
    CU_ASSERT_EQUAL_FATAL(refs_run(dir, args), 0);
    snprintf(cmd, sizeof cmd, "%s --summarize", args);
    CU_ASSERT_EQUAL_FATAL(refs_run(dir, cmd), 0);
    const char *runs[3] = {"cloth_pbd_t1", "cloth_xpbd_t1", "cloth_newton_t1"};
    const pbd_method methods[3] = {PBD_METHOD_PBD, PBD_METHOD_XPBD, PBD_METHOD_NEWTON};
    double fastest = INFINITY;
    for (int m = 0; m < 3; m++) {
        char path[256];
        snprintf(path, sizeof path, "%s/solver_families/%s.h5", dir, runs[m]);
        pbd_world *w0 = world_from_scene(path);
        const int n3 = 3 * w0->n;
        double *xs = malloc((size_t)n3 * sizeof *xs), disp = 0.0;
        CU_ASSERT_FATAL(xs && pbd_newton_solve(w0, 50, 1e-12, xs, NULL, NULL, NULL) == PBD_OK);
        for (int i = 0; i < n3; i++) disp = fmax(disp, fabs(xs[i] - w0->x[i]));
        CU_ASSERT(rel_eq(attr(path, "result.newton_displacement"), disp, 1e-8));
        long rows = 0;
        long r3 = 0;
        double *its = refs_series(path, "iterations", &rows), *d = refs_series(path, "distance", &r3);
        double *secs = refs_series(path, "wall_seconds", &r3);
        CU_ASSERT_FATAL(its && d && secs && rows == (m == 2 ? 1 : 3));
        double tta[3] = {NAN, NAN, NAN};
        for (long r = 0; r < rows; r++) {
            double mine = 0.0;
            if (methods[m] != PBD_METHOD_NEWTON) {
                pbd_world *w = world_from_scene(path);
                w->def.method = methods[m];
                w->def.iterations = (int)its[r];
                CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
                for (int i = 0; i < n3; i++) mine = fmax(mine, fabs(w->x[i] - xs[i]));
                pbd_world_free(w);
            }
            printf("\n    %s it %g: distance %.6g m (file %.6g; Newton step %.3g m)", runs[m],
                   its[r], mine, d[r], disp);
            CU_ASSERT(fabs(d[r] - mine) <= 1e-8 * disp);
            for (int q = 0; q < 3; q++)
                if (isnan(tta[q]) && d[r] <= pow(10.0, -2 - q) * attr(path, "result.newton_displacement"))
                    tta[q] = secs[r];
        }
        static const char *const keys[3] = {"result.time_to_1e-2_seconds",
                                            "result.time_to_1e-3_seconds",
                                            "result.time_to_1e-4_seconds"};
        for (int q = 0; q < 3; q++) {
            double f = attr(path, keys[q]);
            CU_ASSERT(f == tta[q] || (isnan(f) && isnan(tta[q])));
        }
        CU_ASSERT(attr(path, "result.final_distance") == d[rows - 1]);
        if (m != 2 && !isnan(tta[1])) fastest = fmin(fastest, tta[1]);
        if (m == 1) CU_ASSERT(d[rows - 1] < d[0]); /* closer with more iterations */
        if (m == 1) CU_ASSERT(!isnan(tta[0])); /* XPBD reached 1e-2: the times are tested */
        if (m == 2) CU_ASSERT(d[0] == 0.0);
        free(its);
        free(d);
        free(secs);
        free(xs);
        pbd_world_free(w0);
    }
    experiment_units("solver_families", runs, 3);
    snprintf(sum, sizeof sum, "%s/solver_families/summary.h5", dir);
    double h = attr(sum, "headline.cloth_fastest_to_1e-3_seconds");
    CU_ASSERT(h == fastest || (isnan(h) && isinf(fastest)));
}

/* A step that fails (here the test hook's NaN at the measured step, step 4 after the 3 warm
 * steps) is a row of NaN, the first such N is result.diverged_at_iterations, and the sweep goes
 * on: every N has its row, and the Newton run beside it is complete. */
static void test_solver_families_diverged_row(void)
{
    const char *args = "solver_families --quick --scenes=cloth --methods=xpbd,newton "
                       "--cloth-resolution=8 --test-fault-step=4";
    CU_ASSERT_EQUAL_FATAL(refs_run(dir, args), 0);
    char path[256];
    snprintf(path, sizeof path, "%s/solver_families/cloth_xpbd_t1.h5", dir);
    long rows = 0;
    double *its = refs_series(path, "iterations", &rows), *d = refs_series(path, "distance", &rows);
    CU_ASSERT_FATAL(its && d && rows == 3);
    for (long r = 0; r < rows; r++) CU_ASSERT(isnan(d[r]));
    CU_ASSERT(attr(path, "result.diverged_at_iterations") == its[0]);
    CU_ASSERT(isnan(attr(path, "result.final_distance")));
    snprintf(path, sizeof path, "%s/solver_families/cloth_newton_t1.h5", dir);
    CU_ASSERT(isnan(attr(path, "result.diverged_at_iterations")));
    CU_ASSERT(attr(path, "result.final_distance") == 0.0);
    free(its);
    free(d);
}

/* The drape (contacts, which the Newton reference refuses): each method against its own step
 * at 4x the sweep's largest N, so N = 10 of 1, 10 is 40; the distance falls towards it, and
 * the penetration column is the deepest particle below the ground or inside the sphere. */
static void test_solver_families_drape_reference(void)
{
    const char *args = "solver_families --quick --scenes=drape --methods=xpbd,newton "
                       "--drape-resolution=8 --drape-warm=20 --iterations=1,10";
    CU_ASSERT_EQUAL_FATAL(refs_run(dir, args), 0);
    char path[256];
    snprintf(path, sizeof path, "%s/solver_families/drape_newton_t1.h5", dir);
    CU_ASSERT(access(path, F_OK) != 0); /* no Newton run: it refuses contacts */
    snprintf(path, sizeof path, "%s/solver_families/drape_xpbd_t1.h5", dir);
    CU_ASSERT(attr(path, "result.reference_iterations") == 40.0);
    long rows = 0;
    double *d = refs_series(path, "distance", &rows), *pen = refs_series(path, "penetration", &rows);
    CU_ASSERT_FATAL(d && pen && rows == 2);
    CU_ASSERT(d[1] < d[0]);
    for (long r = 0; r < rows; r++) CU_ASSERT(pen[r] >= 0.0 && pen[r] < 0.05);
    free(d);
    free(pen);
}

void register_run_truths_tests(void)
{
    CU_pSuite s = CU_add_suite("run_truths", suite_init, suite_clean);
    CU_add_test(s, "every_dataset_has_units", test_every_dataset_has_units);
    CU_add_test(s, "rod_cantilever_recomputed", test_rod_cantilever_recomputed);
    CU_add_test(s, "fluid_density_recomputed", test_fluid_density_recomputed);
    CU_add_test(s, "solver_families_recomputed", test_solver_families_recomputed);
    CU_add_test(s, "solver_families_diverged_row", test_solver_families_diverged_row);
    CU_add_test(s, "solver_families_drape_reference", test_solver_families_drape_reference);
}
