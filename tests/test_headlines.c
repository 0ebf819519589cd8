/* Experiments' reference formulas and headlines (issue 24, "an experiment's reference
 * formula and headline are code too"): each recomputed here, independently of the driver,
 * from the physics or from the run file's own series, so that a plausible slip in the driver
 * (a wrong constant, an averaging window shifted, a force off by a power of Δt) fails. */
#include "tests.h"
#include "tests/refs_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

static int fresh_dir(void) { return refs_fresh_dir(dir, "heads"); }
static int run(const char *args) { return refs_run(dir, args); }
#define attr refs_attr
#define rel_eq refs_rel_eq

#define series refs_series

static void run_path(char *out, size_t size, const char *exp, const char *name)
{
    snprintf(out, size, "%s/%s/%s.h5", dir, exp, name);
}

#define second_half_mean refs_second_half_mean

/* balloon_pressure (PBD Sec. 4.4, Eq. 14): the rest volume of the icosphere of radius
 * size/2 is that of the polyhedron inscribed in the sphere, a little under (4/3)πR³ (level 2:
 * 320 faces, 96.6 %); with the overpressure constraint hard, V/V0 settles at k_pressure;
 * result.volume_ratio is the mean of the logged V/V0 over the second half of the run. */
static void test_balloon_pressure(void)
{
    CU_ASSERT_FATAL(fresh_dir());
    CU_ASSERT_EQUAL_FATAL(run("balloon_pressure --quick --only=skin1_kp2"), 0);
    char path[256];
    run_path(path, sizeof path, "balloon_pressure", "skin1_kp2");
    double R = attr(path, "scene.size") / 2.0, v0 = attr(path, "rest_volume");
    double sphere = 4.0 / 3.0 * M_PI * R * R * R;
    CU_ASSERT(v0 > 0.95 * sphere && v0 < sphere);
    long n = 0;
    double *v = series(path, "volume_ratio", &n);
    CU_ASSERT_FATAL(v != NULL && n == 120);
    CU_ASSERT(rel_eq(attr(path, "result.volume_ratio"), second_half_mean(v, n), 1e-12));
    CU_ASSERT(fabs(attr(path, "result.volume_ratio") - 2.0) < 0.05);
    free(v);
    test_remove_dir(dir);
}

/* chain_forces (XPBD Sec. 4): the force on the pinned top particle is |λ|/Δt². A chain that
 * hangs at rest (α = 1e-8 m/N: its stretch is 1e-6 of a link) carries the weight of the 19
 * particles below its top one, 19 m g, in the Newton reference and in XPBD; the logged error
 * is |f_X − f_N|/|f_N| per frame, its mean and max the run's results, the mean the headline. */
static void test_chain_forces(void)
{
    CU_ASSERT_FATAL(fresh_dir());
    CU_ASSERT_EQUAL_FATAL(run("chain_forces --start=hanging --iterations=1000 --steps=20"), 0);
    CU_ASSERT_EQUAL_FATAL(run("chain_forces --start=hanging --iterations=1000 --steps=20 "
                              "--summarize"), 0);
    char path[256], sum[256];
    run_path(path, sizeof path, "chain_forces", "xpbd_it1000");
    run_path(sum, sizeof sum, "chain_forces", "summary");
    long n = 0, n2 = 0, n3 = 0;
    double *fx = series(path, "force_xpbd", &n), *fn = series(path, "force_newton", &n2);
    double *err = series(path, "relative_error", &n3);
    CU_ASSERT_FATAL(fx && fn && err && n == 20 && n2 == 20 && n3 == 20);
    const double weight = 19.0 * 1.0 * 9.81;
    double mean = 0.0, max = 0.0;
    for (long i = 0; i < n; i++) {
        CU_ASSERT(rel_eq(fn[i], weight, 1e-2)); /* the first frames ring by 0.5 % */
        CU_ASSERT(rel_eq(fx[i], weight, 1e-2));
        double e = fabs(fx[i] - fn[i]) / fn[i];
        CU_ASSERT(fabs(err[i] - e) <= 1e-9 * fmax(e, 1e-6));
        mean += e / n;
        max = fmax(max, e);
    }
    CU_ASSERT(rel_eq(fn[n - 1], weight, 1e-6) && rel_eq(fx[n - 1], weight, 1e-6));
    CU_ASSERT(rel_eq(attr(path, "result.mean_relative_error"), mean, 1e-9));
    CU_ASSERT(rel_eq(attr(path, "result.max_relative_error"), max, 1e-9));
    CU_ASSERT(rel_eq(attr(sum, "headline.error_it1000"), mean, 1e-9));
    free(fx);
    free(fn);
    free(err);
    test_remove_dir(dir);
}

/* stiffness_vs_iterations (XPBD Fig. 6): XPBD gets the compliance that matches PBD's k, so
 * that one XPBD iteration on an isolated constraint (Eq. 18, λ = 0) removes the fraction k of
 * its error: (w1 + w2)/(w1 + w2 + α/Δt²) = k, w = r²/m for every particle of the r × r cloth.
 * Sag: the second half's mean of the logged sag; the headline's spread (max − min)/mean of
 * one variant's sags over its iteration counts, the overhead Σ ms XPBD / Σ ms PBD − 1. */
static void test_stiffness_vs_iterations(void)
{
    CU_ASSERT_FATAL(fresh_dir());
    const char *args = "stiffness_vs_iterations --quick --iterations=10,20 --variants=pbd,xpbd "
                       "--frames-every=0";
    char cmd[256];
    CU_ASSERT_EQUAL_FATAL(run(args), 0);
    snprintf(cmd, sizeof cmd, "%s --summarize", args);
    CU_ASSERT_EQUAL_FATAL(run(cmd), 0);
    const char *names[4] = {"pbd_it10", "pbd_it20", "xpbd_it10", "xpbd_it20"};
    double sag[4], ms[4];
    for (int i = 0; i < 4; i++) {
        char path[256];
        run_path(path, sizeof path, "stiffness_vs_iterations", names[i]);
        double r = attr(path, "param.resolution"), k = attr(path, "param.stiffness");
        double dt = 1.0 / attr(path, "param.rate"), wp = r * r / attr(path, "param.mass");
        double alpha = attr(path, "xpbd_compliance");
        CU_ASSERT(r == 24.0 && k == 0.9);
        CU_ASSERT(rel_eq(2.0 * wp / (2.0 * wp + alpha / (dt * dt)), k, 1e-12));
        long n = 0;
        double *d = series(path, "sag", &n);
        CU_ASSERT_FATAL(d != NULL && n == 30);
        sag[i] = attr(path, "result.sag");
        ms[i] = attr(path, "result.ms_per_step");
        CU_ASSERT(rel_eq(sag[i], second_half_mean(d, n), 1e-12));
        free(d);
    }
    /* the physics: PBD's cloth stiffens with iterations (less sag), XPBD's much less so */
    CU_ASSERT(sag[1] < sag[0]);
    char sum[256];
    run_path(sum, sizeof sum, "stiffness_vs_iterations", "summary");
    for (int v = 0; v < 2; v++) {
        double a = sag[2 * v], b = sag[2 * v + 1];
        double spread = (fmax(a, b) - fmin(a, b)) / ((a + b) / 2.0);
        CU_ASSERT(rel_eq(attr(sum, v ? "headline.sag_spread_xpbd" : "headline.sag_spread_pbd"),
                         spread, 1e-12));
    }
    CU_ASSERT(rel_eq(attr(sum, "headline.xpbd_overhead"), (ms[2] + ms[3]) / (ms[0] + ms[1]) - 1.0,
                     1e-12));
    test_remove_dir(dir);
}

/* momentum_drift (PBD Sec. 3.5): velocity scaling multiplies every velocity by (1 − k) once a
 * step and the internal constraints move no momentum, so P(s) = (1 − k)^s P(0) and the logged
 * drift |P(s) − P(0)|/(M v_rms) is (1 − (1 − k)^s)|P(0)|/(M v_rms): the initial velocities
 * regenerated here from the seed (Gaussian, σ = 1 m/s; M = 1 kg in equal masses). Without
 * damping and with momentum damping the drift is round-off; the headline takes the largest
 * conserving drift and the smallest scaled one. */
static void test_momentum_drift(void)
{
    CU_ASSERT_FATAL(fresh_dir());
    const char *args = "momentum_drift --quick --steps=200";
    char cmd[256], path[256], sum[256];
    CU_ASSERT_EQUAL_FATAL(run(args), 0);
    snprintf(cmd, sizeof cmd, "%s --summarize", args);
    CU_ASSERT_EQUAL_FATAL(run(cmd), 0);
    run_path(path, sizeof path, "momentum_drift", "tet_scale");
    double n_part = attr(path, "n_particles"), k = attr(path, "param.k-damping");
    CU_ASSERT_FATAL(n_part > 0 && k == 0.01);
    pbd_rng rng;
    pbd_rng_seed(&rng, (uint64_t)attr(path, "param.seed"));
    double P0[3] = {0, 0, 0}, v2 = 0.0, m = 1.0 / n_part;
    for (int i = 0; i < (int)n_part; i++)
        for (int c = 0; c < 3; c++) {
            double v = pbd_rng_gaussian(&rng);
            P0[c] += m * v;
            v2 += v * v;
        }
    double p0 = sqrt(P0[0] * P0[0] + P0[1] * P0[1] + P0[2] * P0[2]);
    CU_ASSERT(rel_eq(attr(path, "initial_linear_momentum_norm"), p0, 1e-12));
    double scale = 1.0 * sqrt(v2 / n_part);
    long n = 0;
    double *d = series(path, "linear_drift", &n);
    CU_ASSERT_FATAL(d != NULL && n == 200);
    long off = 0; /* steps whose drift is not the law's */
    for (long s = 1; s <= n; s++)
        off += fabs(d[s - 1] - (1.0 - pow(1.0 - k, (double)s)) * p0 / scale) > 1e-9 * p0 / scale;
    CU_ASSERT_EQUAL(off, 0);
    CU_ASSERT(rel_eq(attr(path, "result.max_linear_drift"), d[n - 1], 1e-12));
    free(d);
    double cons = 0.0, scaled = INFINITY;
    const char *runs[6] = {"tet_none", "tet_momentum", "cloth_none", "cloth_momentum",
                           "tet_scale", "cloth_scale"};
    for (int i = 0; i < 6; i++) {
        char p[256];
        run_path(p, sizeof p, "momentum_drift", runs[i]);
        double lin = attr(p, "result.max_linear_drift");
        if (i < 4) {
            CU_ASSERT(lin < 1e-12);
            cons = fmax(cons, lin);
        } else {
            CU_ASSERT(lin > 0.01);
            scaled = fmin(scaled, lin);
        }
    }
    run_path(sum, sizeof sum, "momentum_drift", "summary");
    CU_ASSERT(attr(sum, "headline.max_linear_drift_conserving") == cons);
    CU_ASSERT(attr(sum, "headline.min_linear_drift_scale") == scaled);
    test_remove_dir(dir);
}

/* The mean over a run's frames of /series/<name>. */
static double series_mean(const char *path, const char *name)
{
    long n = 0;
    double *d = series(path, name, &n), sum = 0.0;
    for (long i = 0; d && i < n; i++) sum += d[i];
    free(d);
    return d && n > 0 ? sum / n : NAN;
}

/* xpbd_vs_implicit (XPBD Sec. 4): the force of a constraint is λ/h² with h the step XPBD took
 * (Δt/N with N substeps), Newton's λ_N/Δt²; at a budget of 1000 both ways of spending it come
 * within 10 % of Newton's forces on the tet beam (a force λ/Δt² in substep mode would be off
 * by N²), and within 1e-5 m of its positions. The run's means are its series' means; the
 * headline per mode is the RMS distance at the largest budget. */
static void test_xpbd_vs_implicit(void)
{
    CU_ASSERT_FATAL(fresh_dir());
    const char *args = "xpbd_vs_implicit --quick --scenes=tet_beam --budgets=10,1000";
    char cmd[256], sum[256];
    CU_ASSERT_EQUAL_FATAL(run(args), 0);
    snprintf(cmd, sizeof cmd, "%s --summarize", args);
    CU_ASSERT_EQUAL_FATAL(run(cmd), 0);
    run_path(sum, sizeof sum, "xpbd_vs_implicit", "summary");
    const char *modes[2] = {"iterations", "substeps"};
    for (int m = 0; m < 2; m++) {
        double f[2];
        for (int b = 0; b < 2; b++) {
            char name[64], path[256];
            snprintf(name, sizeof name, "tet_beam_%s_n%d", modes[m], b ? 1000 : 10);
            run_path(path, sizeof path, "xpbd_vs_implicit", name);
            CU_ASSERT(attr(path, "result.diverged_frames") == 0.0);
            f[b] = attr(path, "result.mean_force_error_set0");
            CU_ASSERT(rel_eq(f[b], series_mean(path, "newton_force_error_00_distance"), 1e-12));
            CU_ASSERT(rel_eq(attr(path, "result.mean_force_error_set1"),
                             series_mean(path, "newton_force_error_01_tet_volume"), 1e-12));
            double rms = attr(path, "result.mean_rms_distance");
            CU_ASSERT(rel_eq(rms, series_mean(path, "newton_rms_distance"), 1e-12));
            CU_ASSERT(rel_eq(attr(path, "result.mean_max_distance"),
                             series_mean(path, "newton_max_distance"), 1e-12));
            if (b == 1) {
                CU_ASSERT(f[1] < 0.1 && rms < 1e-5);
                char key[96];
                snprintf(key, sizeof key, "headline.tet_beam_%s_rms_distance_max_budget", modes[m]);
                CU_ASSERT(attr(sum, key) == rms);
            }
        }
        CU_ASSERT(f[1] < f[0]);
    }
    test_remove_dir(dir);
}

/* material_beam's headline xpbd_max_deviation_from_static: the largest |δ_XPBD/δ_static − 1|
 * over the XPBD runs (not the PBD contrast runs, whose cloth-like softness would dominate),
 * δ_XPBD the second half's mean of the logged tip deflection, δ_static the static run's. */
static void test_material_beam_headline(void)
{
    CU_ASSERT_FATAL(fresh_dir());
    const char *args = "material_beam --quick --materials=stvk,corotated --pbd-stiffness=0.5 "
                       "--implicit-resolution=0";
    char cmd[256], sum[256];
    CU_ASSERT_EQUAL_FATAL(run(args), 0);
    snprintf(cmd, sizeof cmd, "%s --summarize", args);
    CU_ASSERT_EQUAL_FATAL(run(cmd), 0);
    const char *mats[2] = {"stvk", "corotated"}, *methods[2] = {"xpbd", "pbd"};
    double worst = 0.0, pbd_worst = 0.0;
    for (int m = 0; m < 2; m++) {
        char spath[256], sname[64];
        snprintf(sname, sizeof sname, "static_%s_r4", mats[m]);
        run_path(spath, sizeof spath, "material_beam", sname);
        double stat = attr(spath, "result.static_deflection");
        CU_ASSERT(stat > 0.0);
        for (int k = 0; k < 2; k++)
            for (int it = 1; it <= 5; it += 4) {
                char name[64], path[256];
                snprintf(name, sizeof name, "%s_%s_it%d", methods[k], mats[m], it);
                run_path(path, sizeof path, "material_beam", name);
                long n = 0;
                double *d = series(path, "tip_deflection", &n);
                CU_ASSERT_FATAL(d != NULL && n == 30);
                double tip = second_half_mean(d, n);
                free(d);
                CU_ASSERT(rel_eq(attr(path, "result.tip_deflection"), tip, 1e-12));
                CU_ASSERT(attr(path, "result.static_deflection") == stat);
                CU_ASSERT(rel_eq(attr(path, "result.ratio_to_static"), tip / stat, 1e-12));
                if (k == 0) worst = fmax(worst, fabs(tip / stat - 1.0));
                else pbd_worst = fmax(pbd_worst, fabs(tip / stat - 1.0));
            }
    }
    CU_ASSERT(worst < 0.2 && pbd_worst > worst); /* so that mixing them in shows */
    run_path(sum, sizeof sum, "material_beam", "summary");
    CU_ASSERT(rel_eq(attr(sum, "headline.xpbd_max_deviation_from_static"), worst, 1e-12));
    test_remove_dir(dir);
}

/* long_range_attachments: per run the second half's mean and maximum of the logged largest
 * edge stretch; the headline lra_max_stretch is the LRA run's at its fewest iterations, and
 * plain_iterations_needed the fewest iterations at which the plain cloth stretches no more
 * (NaN when none does). Long-range attachments cap the hanging cloth's stretch: at one
 * iteration it stretches less with them than without (Kim et al. 2012). */
static void test_long_range_attachments(void)
{
    CU_ASSERT_FATAL(fresh_dir());
    const char *args = "long_range_attachments --quick --iterations=1,4,64,256";
    char cmd[256], sum[256];
    CU_ASSERT_EQUAL_FATAL(run(args), 0);
    snprintf(cmd, sizeof cmd, "%s --summarize", args);
    CU_ASSERT_EQUAL_FATAL(run(cmd), 0);
    const int its[4] = {1, 4, 64, 256};
    double mx[2][4];
    for (int m = 0; m < 2; m++)
        for (int i = 0; i < 4; i++) {
            char name[64], path[256];
            snprintf(name, sizeof name, "%s_it%d", m ? "lra" : "plain", its[i]);
            run_path(path, sizeof path, "long_range_attachments", name);
            long n = 0;
            double *d = series(path, "max_stretch", &n), peak = 0.0;
            CU_ASSERT_FATAL(d != NULL && n == 60);
            for (long st = n / 2 + 1; st <= n; st++) peak = fmax(peak, d[st - 1]);
            mx[m][i] = attr(path, "result.max_stretch");
            CU_ASSERT(rel_eq(mx[m][i], second_half_mean(d, n), 1e-12));
            CU_ASSERT(attr(path, "result.peak_stretch") == peak);
            free(d);
            d = series(path, "mean_stretch", &n);
            CU_ASSERT_FATAL(d != NULL);
            CU_ASSERT(rel_eq(attr(path, "result.mean_stretch"), second_half_mean(d, n), 1e-12));
            free(d);
        }
    CU_ASSERT(mx[1][0] < mx[0][0]);
    CU_ASSERT(mx[0][3] < mx[1][0] && mx[0][2] > mx[1][0]); /* 256 plain iterations do it */
    double need = NAN;
    for (int i = 3; i >= 0; i--)
        if (mx[0][i] <= mx[1][0]) need = its[i];
    run_path(sum, sizeof sum, "long_range_attachments", "summary");
    CU_ASSERT(attr(sum, "headline.lra_max_stretch") == mx[1][0]);
    double got = attr(sum, "headline.plain_iterations_needed");
    CU_ASSERT(got == need || (isnan(got) && isnan(need)));
    test_remove_dir(dir);
}

/* tet_inversion (seed "tetrahedron constraint gradients"): edge lengths cannot tell a tet from
 * its mirror image, so with distances alone the inverted tet and the mirrored beam stay
 * exactly inverted (every tet, V/V0 = −1: no gravity, nothing moves); the signed volume and
 * the plane constraints bring every tet back (V/V0 → 1, within 0.2 % for the planes). The results are the series' last
 * rows; recovered_at_step the first step from which no tet is inverted to the end (−1: none). */
static void test_tet_inversion(void)
{
    CU_ASSERT_FATAL(fresh_dir());
    CU_ASSERT_EQUAL_FATAL(run("tet_inversion --quick"), 0);
    const char *bodies[2] = {"tet", "beam"};
    const char *sets[4] = {"distance", "distance_volume", "plane", "distance_plane"};
    for (int b = 0; b < 2; b++)
        for (int k = 0; k < 4; k++) {
            char name[64], path[256];
            snprintf(name, sizeof name, "%s_%s", bodies[b], sets[k]);
            run_path(path, sizeof path, "tet_inversion", name);
            long n = 0, n2 = 0;
            double *f = series(path, "inverted_fraction", &n);
            double *mn = series(path, "min_volume_ratio", &n2);
            CU_ASSERT_FATAL(f && mn && n > 0 && n2 == n);
            long rec = -1;
            for (long st = n; st >= 1 && f[st - 1] == 0.0; st--) rec = st;
            CU_ASSERT(attr(path, "initial_inverted_fraction") == 1.0);
            CU_ASSERT(attr(path, "result.final_inverted_fraction") == f[n - 1]);
            CU_ASSERT(attr(path, "result.final_min_volume_ratio") == mn[n - 1]);
            CU_ASSERT(attr(path, "result.recovered_at_step") == (double)rec);
            if (k == 0) {
                CU_ASSERT(f[n - 1] == 1.0 && fabs(mn[n - 1] + 1.0) < 1e-9 && rec == -1);
            } else {
                CU_ASSERT(f[n - 1] == 0.0 && fabs(mn[n - 1] - 1.0) < 1e-2 && rec > 0);
            }
            free(f);
            free(mn);
        }
    test_remove_dir(dir);
}

/* stretch_bend_independence (PBD Fig. 3): per run the second half's means of the logged edge
 * stretch and hinge bending; the headline max_stretch_change_with_bending the largest
 * |s(k_bend > 0) − s(k_bend = 0)|/s(k_bend = 0) over models and k_stretch. Bending stiffness
 * keeps the hinges much straighter than none (0.002 vs 0.25 rad at k_stretch 1). */
static void test_stretch_bend_independence(void)
{
    CU_ASSERT_FATAL(fresh_dir());
    const char *args = "stretch_bend_independence --quick --k-stretch=1,0.5";
    char cmd[256], sum[256];
    CU_ASSERT_EQUAL_FATAL(run(args), 0);
    snprintf(cmd, sizeof cmd, "%s --summarize", args);
    CU_ASSERT_EQUAL_FATAL(run(cmd), 0);
    const char *models[2] = {"dihedral", "isometric"};
    const double kss[2] = {1, 0.5};
    double worst = 0.0;
    for (int m = 0; m < 2; m++)
        for (int k = 0; k < 2; k++) {
            double st[2], bend[2];
            for (int b = 0; b < 2; b++) { /* b = 0: k_bend 1, b = 1: none */
                char name[64], path[256];
                snprintf(name, sizeof name, "%s_kb%d_ks%g", models[m], b ? 0 : 1, kss[k]);
                run_path(path, sizeof path, "stretch_bend_independence", name);
                long n = 0;
                double *d = series(path, "stretch_mean", &n);
                CU_ASSERT_FATAL(d != NULL && n == 120);
                st[b] = attr(path, "result.stretch");
                CU_ASSERT(rel_eq(st[b], second_half_mean(d, n), 1e-12));
                free(d);
                d = series(path, "bending_mean", &n);
                CU_ASSERT_FATAL(d != NULL && n == 120);
                bend[b] = attr(path, "result.bending");
                CU_ASSERT(rel_eq(bend[b], second_half_mean(d, n), 1e-12));
                free(d);
                CU_ASSERT(attr(path, "result.diverged") == 0.0);
            }
            CU_ASSERT(bend[0] < 0.1 * bend[1]);
            worst = fmax(worst, fabs(st[0] - st[1]) / st[1]);
        }
    run_path(sum, sizeof sum, "stretch_bend_independence", "summary");
    CU_ASSERT(rel_eq(attr(sum, "headline.max_stretch_change_with_bending"), worst, 1e-12));
    CU_ASSERT(attr(sum, "headline.diverged_runs") == 0.0);
    test_remove_dir(dir);
}

/* substeps_vs_iterations (Small Steps): the chain starts horizontal at y = 0, at rest, so
 * E_0 = 0 and the energy lost is −E at the last step (/series/total_energy), as a fraction
 * of m g L/2 (1 kg, 1 m); mean max|C| the mean of /series/max_c (distances only, in m). The
 * headline at the largest budget both modes ran (16): max|C| of iterations over substeps
 * (substeps leave less: > 1) and each mode's energy lost. */
static void test_substeps_vs_iterations(void)
{
    CU_ASSERT_FATAL(fresh_dir());
    CU_ASSERT_EQUAL_FATAL(run("substeps_vs_iterations --quick"), 0);
    CU_ASSERT_EQUAL_FATAL(run("substeps_vs_iterations --quick --summarize"), 0);
    const char *modes[2] = {"substeps", "iterations"};
    double c16[2] = {NAN, NAN}, e16[2] = {NAN, NAN};
    for (int m = 0; m < 2; m++)
        for (int b = 1; b <= 16; b *= 4) {
            char name[64], path[256];
            snprintf(name, sizeof name, "%s_n%d", modes[m], b);
            run_path(path, sizeof path, "substeps_vs_iterations", name);
            long n = 0;
            double *e = series(path, "total_energy", &n);
            CU_ASSERT_FATAL(e != NULL && n == 60);
            double lost = -e[n - 1];
            free(e);
            CU_ASSERT(rel_eq(attr(path, "result.energy_lost"), lost, 1e-12));
            CU_ASSERT(rel_eq(attr(path, "result.energy_lost_fraction"), lost / (9.81 / 2.0), 1e-12));
            double c = attr(path, "result.mean_max_c");
            CU_ASSERT(rel_eq(c, series_mean(path, "max_c"), 1e-12));
            if (b == 16) {
                c16[m] = c;
                e16[m] = lost / (9.81 / 2.0);
            }
        }
    CU_ASSERT(c16[0] < c16[1]);
    char sum[256];
    run_path(sum, sizeof sum, "substeps_vs_iterations", "summary");
    CU_ASSERT(attr(sum, "headline.budget") == 16.0);
    CU_ASSERT(rel_eq(attr(sum, "headline.error_ratio"), c16[1] / c16[0], 1e-12));
    CU_ASSERT(rel_eq(attr(sum, "headline.substeps_energy_lost"), e16[0], 1e-12));
    CU_ASSERT(rel_eq(attr(sum, "headline.iterations_energy_lost"), e16[1], 1e-12));
    test_remove_dir(dir);
}

/* scaling's headline colored_speedup: at the largest cloth run, the coloured Gauss–Seidel's
 * ms per step on one thread over its ms on the most threads (no timing asserted, only the
 * ratio of the run files' own medians); the runs' sizes are the nearest squares (1024, 10⁴). */
static void test_scaling_headline(void)
{
    CU_ASSERT_FATAL(fresh_dir());
    CU_ASSERT_EQUAL_FATAL(run("scaling --quick"), 0);
    CU_ASSERT_EQUAL_FATAL(run("scaling --quick --summarize"), 0);
    char p1[256], p2[256], small[256], sum[256];
    run_path(p1, sizeof p1, "scaling", "colored_t1_n10000");
    run_path(p2, sizeof p2, "scaling", "colored_t2_n10000");
    run_path(small, sizeof small, "scaling", "colored_t1_n1024");
    run_path(sum, sizeof sum, "scaling", "summary");
    CU_ASSERT(attr(p1, "particles") == 10000.0 && attr(small, "particles") == 1024.0);
    double t1 = attr(p1, "result.ms_per_step"), t2 = attr(p2, "result.ms_per_step");
    CU_ASSERT(t1 > 0.0 && t2 > 0.0);
    CU_ASSERT(rel_eq(attr(sum, "headline.colored_speedup"), t1 / t2, 1e-12));
    test_remove_dir(dir);
}

/* convergence: the run's final distance is its series' last row (64 iterations, QUICK), and
 * Gauss–Seidel comes closer to the Newton step with every doubling of the iterations; the
 * Newton reference's own residual (/results/newton_residual, before each iteration and after
 * the last) ends at round-off, its iteration count its rows − 1 and the beam's headline. */
static void test_convergence(void)
{
    CU_ASSERT_FATAL(fresh_dir());
    const char *args = "convergence --quick --scenes=tet_beam --schemes=gauss-seidel";
    char cmd[256], path[256], sum[256];
    CU_ASSERT_EQUAL_FATAL(run(args), 0);
    snprintf(cmd, sizeof cmd, "%s --summarize", args);
    CU_ASSERT_EQUAL_FATAL(run(cmd), 0);
    run_path(path, sizeof path, "convergence", "tet_beam_gauss-seidel");
    run_path(sum, sizeof sum, "convergence", "summary");
    long n = 0;
    double *d = series(path, "rms_distance_to_newton", &n);
    CU_ASSERT_FATAL(d != NULL && n == 7);
    for (long i = 1; i < n; i++) CU_ASSERT(d[i] < d[i - 1]);
    CU_ASSERT(attr(path, "result.rms_distance_to_newton") == d[n - 1]);
    free(d);
    double *res = NULL;
    long rows = 0, cols = 0;
    CU_ASSERT_FATAL(pbd_h5_read_dataset(path, "/results/newton_residual", &res, &rows, &cols) == 0);
    CU_ASSERT(rows >= 2 && cols == 1 && res[rows - 1] < 1e-12);
    CU_ASSERT(attr(path, "result.newton_iterations") == (double)(rows - 1));
    CU_ASSERT(attr(path, "result.newton_residual") == res[rows - 1]);
    CU_ASSERT(attr(sum, "headline.newton_iterations_beam") == (double)(rows - 1));
    free(res);
    test_remove_dir(dir);
}

void register_headlines_tests(void)
{
    CU_pSuite s = CU_add_suite("headlines", NULL, NULL);
    CU_add_test(s, "balloon_pressure", test_balloon_pressure);
    CU_add_test(s, "chain_forces", test_chain_forces);
    CU_add_test(s, "stiffness_vs_iterations", test_stiffness_vs_iterations);
    CU_add_test(s, "momentum_drift", test_momentum_drift);
    CU_add_test(s, "xpbd_vs_implicit", test_xpbd_vs_implicit);
    CU_add_test(s, "material_beam_headline", test_material_beam_headline);
    CU_add_test(s, "long_range_attachments", test_long_range_attachments);
    CU_add_test(s, "tet_inversion", test_tet_inversion);
    CU_add_test(s, "stretch_bend_independence", test_stretch_bend_independence);
    CU_add_test(s, "substeps_vs_iterations", test_substeps_vs_iterations);
    CU_add_test(s, "scaling_headline", test_scaling_headline);
    CU_add_test(s, "convergence", test_convergence);
}
