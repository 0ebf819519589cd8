/* rod_cantilever — a Cosserat rod (Kugelstadt & Schömer 2016: rod_stretch_shear and
 * rod_bend_twist, experiments/scenes/scene_rod.c) clamped horizontally at one end, bending
 * under its own weight, against the elastica (analysis/elastica.c: the large-deflection
 * Euler–Bernoulli cantilever by shooting) and the small-deflection δ = wL⁴/(8EI). The load is
 * Λ = w L³/(E I) (w = ρ A g): E is chosen for each Λ. The static state is reached by steps
 * from rest with the velocities (and angular velocities) set to zero before each step, so
 * that each step's fixed point is the static equilibrium ∇Cᵀλ/h² + M g = 0, C + αλ/h² = 0
 * (XPBD's forces, Eq. 9) when each step's iterations converge; steps until the tip moves less
 * than tol·L in a step. The orientations' inertia is raised (inertia-scale): it does not
 * change the equilibrium, and with the cross section's own (about 10³ times lighter, in
 * ∇Cᵀ W ∇C, than the particles) Gauss–Seidel needs far more iterations to converge. The clamp
 * holds the first segment (p_0 and q_0), whose orientation stands for the tangent at its
 * middle: the reference is the elastica of the length L − ℓ/2 clamped there (load w, so
 * Λ_e = Λ (1 − ℓ/2L)³), beside the nominal one of length L; the rod also shears (GA finite,
 * the elastica does not): the reference adds Timoshenko's shear deflection w L_e²/(2 G A) (a
 * fraction (E/G)(r/L)² of the bending one, 0.23 % here). Sweep: loads ×
 * {PBD, XPBD} × iterations per step (at `segments`), and XPBD's discretisation: segments at
 * the largest iteration count. The step size matters even with converged iterations: XPBD
 * accumulates Δx = Σ_k W ∇C(x_k)ᵀ Δλ_k with the gradients of the iterates x_k, not
 * W ∇C(x)ᵀ λ at the solution (the approximation of XPBD Eq. 11), so its fixed point carries
 * an error that grows with how far the gradients turn within a step (h² g here): at Λ = 2,
 * 20 segments, +0.81 % at dt = 0.05 s and +0.07 % at 0.02 s (the full sweep's). PBD's stiffness (k = 1 here) has no material: it stiffens
 * the rod towards rigid as the iterations grow, whatever E is. */
#include "pbd_drivers.h"

#include "analysis/pbd_analysis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 16

static struct {
    const char *loads, *methods, *iterations, *segment_list;
    int segments, max_steps;
    double radius, density, poisson, dt, tol, inertia_scale;
} P;

static const char *const method_names[] = {"pbd", "xpbd", NULL};

static int options(cli_option *out, int quick)
{
    P.loads = quick ? "2" : "0.5,2";
    P.methods = "pbd,xpbd";
    P.iterations = quick ? "20,500" : "20,100,1000";
    P.segment_list = quick ? "5" : "10";
    P.segments = quick ? 10 : 20;
    P.max_steps = quick ? 1000 : 5000; /* the headline runs rest after 145 (QUICK), 608 steps */
    P.radius = 0.03;
    P.density = 1000.0;
    P.poisson = 0.3;
    P.dt = quick ? 0.05 : 0.02;
    P.tol = quick ? 1e-7 : 1e-6;
    P.inertia_scale = 1000.0;
    const cli_option rows[] = {
        {"loads", CLI_STRING, &P.loads, 0, 0, 0, "loads w L^3/(E I) (list; E follows)", NULL},
        {"methods", CLI_STRING, &P.methods, 0, 0, 0, "pbd, xpbd (list)", NULL},
        {"iterations", CLI_STRING, &P.iterations, 0, 0, 0, "iterations per step (list)", NULL},
        {"segments", CLI_INT, &P.segments, 2, 1e5, 0, "segments of the iterations sweep", NULL},
        {"segment-list", CLI_STRING, &P.segment_list, 0, 0, 0,
         "segments of XPBD's discretisation sweep, at the most iterations (list)", NULL},
        {"max-steps", CLI_INT, &P.max_steps, 1, 1e8, 0, "steps at most per run", NULL},
        {"radius", CLI_DOUBLE, &P.radius, 0, 1, 1, "cross section's radius in m (L = 1 m)", NULL},
        {"density", CLI_DOUBLE, &P.density, 0, 1e6, 1, "density in kg/m^3", NULL},
        {"poisson", CLI_DOUBLE, &P.poisson, -0.99, 0.5, 0, "nu: G = E/(2(1 + nu))", NULL},
        {"dt", CLI_DOUBLE, &P.dt, 0, 10, 1, "time step in s", NULL},
        {"tol", CLI_DOUBLE, &P.tol, 0, 1, 1, "static when the tip moves less than tol L per step",
         NULL},
        {"inertia-scale", CLI_DOUBLE, &P.inertia_scale, 0, 1e12, 1,
         "the orientations' inertia x this (the equilibrium does not depend on it)", NULL},
    };
    int n = (int)(sizeof rows / sizeof rows[0]);
    for (int i = 0; i < n; i++) out[i] = rows[i];
    return n;
}

static int run_one(pbd_exp_ctx *ctx, const char *name, double load, int method, int iterations,
                   int segments)
{
    const double g = 9.81, L = 1.0;
    pbd_rod_spec r = pbd_rod_spec_default();
    const double A = M_PI * P.radius * P.radius, I = 0.25 * M_PI * pow(P.radius, 4);
    const double wl = P.density * A * g; /* N/m */
    r.segments = segments;
    r.length = L;
    r.radius = P.radius;
    r.density = P.density;
    r.youngs_modulus = wl * L * L * L / (load * I);
    r.shear_modulus = r.youngs_modulus / (2.0 * (1.0 + P.poisson));
    r.inertia_scale = P.inertia_scale;
    pbd_world *w = pbd_world_create(0);
    if (!w) return PBD_ENOMEM;
    pbd_status st = pbd_rod_add(w, &r, NULL);
    if (st != PBD_OK) {
        pbd_world_free(w);
        return st;
    }
    w->def.method = method ? PBD_METHOD_XPBD : PBD_METHOD_PBD;
    w->def.iterations = iterations;
    w->def.dt = P.dt;
    w->def.gravity[0] = w->def.gravity[2] = 0.0;
    w->def.gravity[1] = -g;
    double nominal = NAN, elastica = NAN;
    const double Le = L - 0.5 * L / segments; /* clamped at the first segment's middle */
    if ((st = pbd_elastica_cantilever(load, &nominal, NULL, NULL)) != PBD_OK ||
        (st = pbd_elastica_cantilever(load * pow(Le / L, 3), &elastica, NULL, NULL)) != PBD_OK) {
        pbd_world_free(w);
        return st;
    }
    elastica *= Le / L; /* δ/L */
    const double shear = wl * Le * Le / (2.0 * r.shear_modulus * A) / L;
    elastica += shear;
    pbd_h5log *log = pbd_exp_log_open(ctx, name, w, NULL);
    if (!log) {
        pbd_world_free(w);
        return PBD_EIO;
    }
    pbd_h5log_attr_double(log, "load", load);
    pbd_h5log_attr_string(log, "method", method_names[method]);
    pbd_h5log_attr_int(log, "iterations", iterations);
    pbd_h5log_attr_int(log, "segments", segments);
    pbd_h5log_attr_double(log, "youngs_modulus", r.youngs_modulus);
    pbd_h5log_attr_double(log, "shear_modulus", r.shear_modulus);
    pbd_h5log_attr_double(log, "radius", P.radius);
    pbd_h5log_attr_double(log, "elastica_deflection", elastica);
    pbd_h5log_attr_double(log, "elastica_nominal_deflection", nominal);
    pbd_h5log_attr_double(log, "shear_deflection", shear);
    pbd_h5log_attr_double(log, "inertia_scale", P.inertia_scale);
    pbd_h5log_attr_double(log, "small_deflection", load / 8.0);
    int c_tip = pbd_h5log_column(log, "tip_deflection", 1, "m");
    const int tip = w->n - 1;
    double prev = 0.0, delta = INFINITY;
    int steps = 0;
    while (st == PBD_OK && steps < P.max_steps) {
        memset(w->v, 0, 3 * sizeof(double) * (size_t)w->n);      /* quasi-static: from rest */
        memset(w->omega, 0, 3 * sizeof(double) * (size_t)w->n_orient);
        if ((st = pbd_step(w)) != PBD_OK) break;
        steps++;
        double y = -w->x[3 * tip + 1];
        delta = fabs(y - prev);
        prev = y;
        pbd_h5log_set1(log, c_tip, y);
        st = pbd_h5log_step(log, w);
        pbd_exp_progress(ctx, steps, P.max_steps);
        if (delta < P.tol * L) break;
    }
    if (st != PBD_OK) {
        pbd_exp_log_abort(ctx, log, st);
        pbd_world_free(w);
        return st;
    }
    double tip_y = prev / L, err = (tip_y - elastica) / elastica;
    pbd_h5log_attr_double(log, "result.tip_deflection", tip_y);
    pbd_h5log_attr_double(log, "result.relative_error", err);
    pbd_h5log_attr_int(log, "result.steps", steps);
    pbd_h5log_attr_int(log, "result.static", delta < P.tol * L);
    st = pbd_exp_log_finish(ctx, log, "tip deflection %.5f L, elastica + shear %.5f L (%+.2f%%; "
                            "shear %.5f L; nominal length %.5f L), small-deflection %.4f L, %d "
                            "steps%s", tip_y, elastica, 100.0 * err, shear, nominal, load / 8.0,
                            steps, delta < P.tol * L ? "" : " (not static)");
    pbd_world_free(w);
    return st;
}

static int run(pbd_exp_ctx *ctx)
{
    double loads[MAX_LIST], its[MAX_LIST], segs[MAX_LIST];
    int methods[2];
    int n_l = pbd_exp_numbers(ctx, "loads", P.loads, loads, MAX_LIST, 1e-6, 1e4);
    int n_m = pbd_exp_words(ctx, "methods", P.methods, method_names, methods, 2);
    int n_i = pbd_exp_numbers(ctx, "iterations", P.iterations, its, MAX_LIST, 1, 1e6);
    int n_s = pbd_exp_numbers(ctx, "segment-list", P.segment_list, segs, MAX_LIST, 2, 1e5);
    if (n_l < 0 || n_m < 0 || n_i < 0 || n_s < 0) return PBD_EINVAL;
    int it_max = 0;
    for (int i = 0; i < n_i; i++) it_max = its[i] > it_max ? (int)its[i] : it_max;
    for (int l = 0; l < n_l; l++) {
        for (int m = 0; m < n_m; m++)
            for (int i = 0; i < n_i; i++) {
                char name[96];
                snprintf(name, sizeof name, "%s_load%g_n%d_it%d", method_names[methods[m]],
                         loads[l], P.segments, (int)its[i]);
                if (!pbd_exp_want(ctx, name)) continue;
                int st = run_one(ctx, name, loads[l], methods[m], (int)its[i], P.segments);
                if (st != PBD_OK) return st;
            }
        for (int s = 0; s < n_s; s++) { /* XPBD's discretisation at the most iterations */
            if ((int)segs[s] == P.segments) continue; /* run above */
            char name[96];
            snprintf(name, sizeof name, "xpbd_load%g_n%d_it%d", loads[l], (int)segs[s], it_max);
            if (!pbd_exp_want(ctx, name)) continue;
            int st = run_one(ctx, name, loads[l], 1, it_max, (int)segs[s]);
            if (st != PBD_OK) return st;
        }
    }
    return PBD_OK;
}

enum { COLS = 10 };

static int summarize(pbd_exp_ctx *ctx)
{
    double *rows = calloc((size_t)ctx->n_runs * COLS + COLS, sizeof(double));
    if (!rows) return PBD_ENOMEM;
    int n = 0;
    for (int i = 0; i < ctx->n_runs; i++) {
        char path[4096], method[16] = "";
        pbd_exp_run_path(ctx, ctx->runs[i], path, sizeof path);
        double *r = rows + COLS * n, it, seg;
        if (pbd_h5_read_attr_double(path, "load", &r[0]) ||
            pbd_h5_read_attr_string(path, "method", method, sizeof method) ||
            pbd_h5_read_attr_double(path, "segments", &seg) ||
            pbd_h5_read_attr_double(path, "iterations", &it) ||
            pbd_h5_read_attr_double(path, "result.tip_deflection", &r[4]) ||
            pbd_h5_read_attr_double(path, "elastica_deflection", &r[5]) ||
            pbd_h5_read_attr_double(path, "small_deflection", &r[6]) ||
            pbd_h5_read_attr_double(path, "result.relative_error", &r[7]) ||
            pbd_h5_read_attr_double(path, "result.static", &r[8]) ||
            pbd_h5_read_attr_double(path, "result.steps", &r[9]))
            continue;
        r[1] = strcmp(method, "xpbd") == 0;
        r[2] = seg;
        r[3] = it;
        n++;
    }
    pbd_exp_sort_rows(rows, n, COLS, 4);
    pbd_exp_summary *s = pbd_exp_summary_open(ctx);
    if (!s) {
        free(rows);
        return PBD_EIO;
    }
    const char *cols[] = {"load", "xpbd", "segments", "iterations", "tip_deflection",
                          "elastica", "small_deflection", "relative_error", "static", "steps"};
    /* deflections are δ/L: dimensionless */
    pbd_exp_summary_table(s, "tip", rows, n, COLS, cols, "1 1 1 1 1 1 1 1 1 1");
    pbd_exp_summary_double(s, "segments", P.segments); /* the iterations sweep's (plots) */
    /* headline: per load, XPBD at the most iterations and segments against the elastica */
    char text[1024] = "tip deflection/L, converged XPBD vs elastica + shear (small-deflection):";
    for (int i = 0; i < n; i++) {
        const double *r = rows + COLS * i;
        int best = 1;
        for (int j = 0; j < n; j++) {
            const double *q = rows + COLS * j;
            if (q[0] == r[0] && q[1] == 1 && (q[2] > r[2] || (q[2] == r[2] && q[3] > r[3])))
                best = 0;
        }
        if (!best || r[1] != 1) continue;
        char part[160];
        snprintf(part, sizeof part, " load %g: %.4f vs %.4f (%+.2f%%; %.4f) n=%g it=%g%s;", r[0],
                 r[4], r[5], 100.0 * r[7], r[6], r[2], r[3],
                 r[8] == 1 ? "" : " NOT AT REST (raise max-steps)");
        strncat(text, part, sizeof text - strlen(text) - 1);
        char key[96];
        snprintf(key, sizeof key, "headline.relative_error_load%g", r[0]);
        pbd_exp_summary_double(s, key, r[7]);
        snprintf(key, sizeof key, "headline.static_load%g", r[0]);
        pbd_exp_summary_double(s, key, r[8]);
    }
    free(rows);
    return pbd_exp_summary_finish(s, "%s", text);
}

const pbd_experiment pbd_exp_rod_cantilever = {
    .name = "rod_cantilever",
    .description = "Cosserat rod (Kugelstadt & Schoemer 2016) clamped horizontally, bent by its "
                   "weight: tip deflection vs the elastica and wL^4/(8EI), vs iterations and "
                   "segments, PBD and XPBD",
    .paper = "the elastica (large-deflection Euler-Bernoulli cantilever under its weight; "
             "small loads: wL^4/(8EI)); converged XPBD within 1 % of it",
    .timing = 0,
    .options = options,
    .run = run,
    .summarize = summarize,
};
