/* solver_families: PBD (Müller et al. 2006; stiffness k = 1, so it ignores the
 * compliance and its fixed point is the rigid constraints' step), XPBD (Macklin et al. 2016),
 * XPBD with substeps at equal cost (Small Steps), Vertex Block Descent (Chen et al. 2024) with and without Chebyshev
 * acceleration, Augmented VBD (Giles et al. 2025) and Projective Dynamics (Bouaziz et al.
 * 2014) on the same constraints, each against the exact implicit step (the Newton reference,
 * XPBD Eq. 8–9 solved to 1e-12).
 *
 * Each scene is moved to a common state (a few XPBD steps; the chain starts released
 * horizontally), the Newton reference solves the next step x* from it, and every method
 * steps the same state with N iterations for each N of the sweep. A run's /series has one row
 * per N: the distance max|x − x*| in m, the residual h²‖∇G(x)‖ = ‖M(x − x̃) + h² Σ C∇C/α‖ in
 * kg m (G the implicit step's objective; NaN for scenes with hard constraints, whose G has
 * no finite energy), and the step's wall time. The time to accuracy is the first N's time at
 * which the distance falls below 1e-2, 1e-3, 1e-4 of the Newton step's displacement
 * max|x* − x_n| (NaN: not within the sweep). Methods that refuse a scene (VBD: hard
 * constraints; PD: types without a projection) have no run for it. */
#include "pbd_drivers.h"

#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_LIST 16

enum { S_CLOTH, S_BEAM_SNH, S_BEAM_COROT, S_CHAIN, S_BEND, S_DRAPE, N_SCENES };
static const char *const scene_words[] = {"cloth", "beam_snh", "beam_corotated", "chain",
                                          "bend_cloth", "drape", NULL};
enum { M_XPBD, M_XPBD_SUB, M_VBD, M_VBD_CHEB, M_AVBD, M_PD, M_NEWTON, M_PBD, N_METHODS };
static const char *const method_words[] = {"xpbd", "xpbd_substeps", "vbd", "vbd_chebyshev",
                                           "avbd", "pd", "newton", "pbd", NULL};

static struct {
    const char *scenes, *methods, *iterations, *threads;
    int cloth_res, bend_res, beam_res, chain_n, drape_res, drape_warm, warm;
    double cloth_alpha, rho, avbd_beta, avbd_k_start;
} P;

static int options(cli_option *out, int quick)
{
    P.scenes = "cloth,beam_snh,beam_corotated,chain,bend_cloth,drape";
    P.methods = "pbd,xpbd,xpbd_substeps,vbd,vbd_chebyshev,avbd,pd,newton";
    P.iterations = quick ? "1,10,100" : "1,3,10,30,100,300";
    P.cloth_res = quick ? 12 : 64;
    P.bend_res = quick ? 8 : 100;
    P.beam_res = quick ? 2 : 4;
    P.chain_n = 20;
    P.drape_res = quick ? 8 : 24;
    P.drape_warm = quick ? 20 : 60;
    P.threads = quick ? "1" : "1,2";
    P.warm = 3;
    P.cloth_alpha = 1e-7;
    P.rho = 0.9;
    P.avbd_beta = pbd_solver_def_default().avbd_beta;
    P.avbd_k_start = 0.0;
    const cli_option rows[] = {
        {"scenes", CLI_STRING, &P.scenes, 0, 0, 0, "scenes (list of cloth, beam_snh, "
         "beam_corotated, chain, bend_cloth, drape)", NULL},
        {"methods", CLI_STRING, &P.methods, 0, 0, 0, "methods (list of pbd, xpbd, "
         "xpbd_substeps, vbd, vbd_chebyshev, avbd, pd, newton)", NULL},
        {"iterations", CLI_STRING, &P.iterations, 0, 0, 0,
         "iterations per step (list; xpbd_substeps: substeps of 1 iteration)", NULL},
        {"cloth-resolution", CLI_INT, &P.cloth_res, 2, 1000, 0, "cloth side (particles)", NULL},
        {"cloth-compliance", CLI_DOUBLE, &P.cloth_alpha, 0, 1, 0, "cloth alpha in m/N", NULL},
        {"bend-resolution", CLI_INT, &P.bend_res, 2, 1000, 0, "bending cloth side", NULL},
        {"beam-resolution", CLI_INT, &P.beam_res, 1, 100, 0, "tet beam cubes along it", NULL},
        {"chain-particles", CLI_INT, &P.chain_n, 2, 1000, 0, "chain particles", NULL},
        {"drape-resolution", CLI_INT, &P.drape_res, 2, 1000, 0, "drape: cloth side (particles)",
         NULL},
        {"drape-warm", CLI_INT, &P.drape_warm, 0, 10000, 0,
         "drape: XPBD steps that lay the cloth on the sphere and the ground", NULL},
        {"threads", CLI_STRING, &P.threads, 0, 0, 0, "threads of every method (list: one run "
         "per count)", NULL},
        {"warm", CLI_INT, &P.warm, 0, 100, 0, "XPBD steps to the common state", NULL},
        {"chebyshev", CLI_DOUBLE, &P.rho, 0, 0.999, 0, "vbd_chebyshev's rho", NULL},
        {"avbd-beta", CLI_DOUBLE, &P.avbd_beta, 0, 1e100, 0, "avbd's beta", NULL},
        {"avbd-k-start", CLI_DOUBLE, &P.avbd_k_start, 0, 1e100, 0, "avbd's k_start (0: auto)",
         NULL},
    };
    int n = (int)(sizeof rows / sizeof rows[0]);
    for (int i = 0; i < n; i++) out[i] = rows[i];
    return n;
}

static pbd_scene_params sp;

/* The scene in its common state, with the method's definition. */
static pbd_world *build(int scene, int method, int iterations, int threads)
{
    sp = pbd_scene_params_default();
    pbd_world *w = NULL;
    int warm = P.warm;
    if (scene == S_CLOTH) { /* XPBD Table 1's cloth: springs, α = 1e-7 m/N */
        sp.resolution = P.cloth_res;
        sp.compliance = P.cloth_alpha;
        w = pbd_scene_cloth(&sp);
    } else if (scene == S_BEAM_SNH || scene == S_BEAM_COROT) {
        sp.resolution = P.beam_res;
        sp.material = scene == S_BEAM_SNH ? 1 : 3; /* neo-hookean, corotated */
        sp.youngs_modulus = 1e5;
        sp.poisson_ratio = scene == S_BEAM_SNH ? 0.3 : 0.0; /* corotated: PD's form (λ = 0) */
        w = pbd_scene_tet_beam(&sp);
        warm = 0; /* from rest: XPBD's stretched states are far for Newton (solver/README.md) */
    } else if (scene == S_CHAIN) { /* hard, the last particle 1000× heavier (AVBD's showcase) */
        sp.resolution = P.chain_n;
        w = pbd_scene_chain(&sp);
        if (w) {
            w->w[w->n - 1] /= 1000.0;
            for (int i = 0; i < w->n; i++) {
                w->x[3 * i] = w->p[3 * i] = -w->x[3 * i + 1];
                w->x[3 * i + 1] = w->p[3 * i + 1] = 0.0;
            }
        }
        warm = 0; /* released horizontally: the first step is the problem */
    } else if (scene == S_DRAPE) { /* cloth_sphere after it has settled: contact everywhere */
        sp.resolution = P.drape_res;
        sp.compliance = 1e-3;
        w = pbd_scene_cloth_sphere(&sp);
        warm = P.drape_warm;
    } else {
        sp.resolution = P.bend_res;
        sp.compliance = 1e-6;
        sp.bend_compliance = 1e-2;
        w = pbd_scene_cloth_bend(&sp);
    }
    if (!w) return NULL;
    w->def.method = PBD_METHOD_XPBD;
    w->def.iterations = 20;
    w->def.threads = threads;
    for (int s = 0; s < warm; s++)
        if (pbd_step(w) != PBD_OK) {
            pbd_world_free(w);
            return NULL;
        }
    static const pbd_method as[N_METHODS] = {PBD_METHOD_XPBD, PBD_METHOD_XPBD, PBD_METHOD_VBD,
                                             PBD_METHOD_VBD, PBD_METHOD_AVBD, PBD_METHOD_PD,
                                             PBD_METHOD_NEWTON, PBD_METHOD_PBD};
    w->def.method = as[method];
    w->def.iterations = method == M_XPBD_SUB ? 1 : iterations;
    w->def.substeps = method == M_XPBD_SUB ? iterations : 1;
    w->def.vbd_chebyshev_rho = method == M_VBD_CHEB ? P.rho : 0.0;
    w->def.avbd_beta = P.avbd_beta;
    w->def.avbd_k_start = P.avbd_k_start;
    return w;
}

/* Which methods take which scene (the refusals of solver/README.md "Solver families"). */
static int applies(int scene, int method)
{
    if (scene == S_DRAPE && method == M_NEWTON) return 0; /* it refuses contacts */
    if (scene == S_DRAPE && method == M_VBD_CHEB) return 0; /* refused with contacts */
    if (scene == S_CHAIN && (method == M_VBD || method == M_VBD_CHEB || method == M_PD)) return 0;
    if (method == M_PD) return scene == S_CLOTH || scene == S_BEAM_COROT || scene == S_DRAPE;
    return 1;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* h²‖∇G(x)‖ = ‖M(x − x̃) + h² Σ_j C_j ∇C_j/α_j‖ over the free particles, x̃ = x_n + h v_n + h² g;
 * NaN when a constraint is hard. */
static double gradient_norm(const pbd_world *w0, const pbd_world *w)
{
    double h = w0->def.dt, *g = calloc(3 * (size_t)w->n, sizeof *g), grad[3 * 64], xl[3 * 64];
    if (!g) return NAN;
    double sum = 0.0;
    for (int i = 0; i < w->n && g; i++)
        if (w->w[i] > 0.0)
            for (int k = 0; k < 3; k++)
                g[3 * i + k] = (w->x[3 * i + k] - w0->x[3 * i + k] - h * w0->v[3 * i + k] -
                                h * h * w0->def.gravity[k]) / w->w[i];
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        for (int c = 0; c < set->count && set->arity <= 64; c++) {
            double alpha = set->compliance[c], C;
            if (!(alpha > 0.0)) {
                free(g);
                return NAN;
            }
            const int32_t *idx = set->idx + (size_t)c * set->arity;
            for (int j = 0; j < set->arity; j++)
                for (int k = 0; k < 3; k++) xl[3 * j + k] = w->x[3 * (size_t)idx[j] + k];
            int nr = set->type->n_rest;
            pbd_eval_input in = {xl, set->arity, set->rest + (size_t)c * (nr > 0 ? nr : 1),
                                 set->aux, set->n_aux};
            if (set->type->eval(&in, &C, grad) != PBD_EVAL_OK) continue;
            for (int j = 0; j < set->arity; j++)
                if (w->w[idx[j]] > 0.0)
                    for (int k = 0; k < 3; k++)
                        g[3 * (size_t)idx[j] + k] += h * h * C / alpha * grad[3 * j + k];
        }
    }
    for (int i = 0; i < 3 * w->n; i++) sum += g[i] * g[i];
    free(g);
    return sqrt(sum);
}

/* The drape's deepest particle below the ground (y = 0) or inside the sphere of radius R
 * resting on it (centre (0, R, 0)), in m; 0 when none is. */
static double drape_penetration(const pbd_world *w)
{
    const double R = sp.sphere_radius;
    double depth = 0.0;
    for (int i = 0; i < w->n; i++) {
        const double *x = w->x + 3 * (size_t)i;
        double r = sqrt(x[0] * x[0] + (x[1] - R) * (x[1] - R) + x[2] * x[2]);
        depth = fmax(depth, fmax(-x[1], R - r));
    }
    return depth;
}

static int run_one(pbd_exp_ctx *ctx, const char *name, int scene, int method, int threads,
                   const double *its, int n_it)
{
    pbd_world *w0 = build(scene, method, 1, threads);
    if (!w0) return pbd_error(PBD_EINVAL, "solver_families: cannot build %s: %s",
                              scene_words[scene], pbd_last_error());
    int n3 = 3 * w0->n;
    double *xs = malloc((size_t)n3 * sizeof *xs);
    double t0 = now();
    /* the reference: the Newton step; on the drape, which it refuses (contacts), the method's
     * own step at 4x the sweep's largest N, its own contact model converged */
    double n_max = 0.0;
    for (int k = 0; k < n_it; k++) n_max = fmax(n_max, its[k]);
    const int n_ref = scene == S_DRAPE ? 4 * (int)n_max : 0;
    pbd_status st = xs ? PBD_OK : PBD_ENOMEM;
    if (st == PBD_OK && n_ref > 0) {
        pbd_world *wr = build(scene, method, n_ref, threads);
        st = wr ? pbd_step(wr) : PBD_ENOMEM;
        if (st == PBD_OK) memcpy(xs, wr->x, (size_t)n3 * sizeof *xs);
        pbd_world_free(wr);
    } else if (st == PBD_OK) {
        st = pbd_newton_solve(w0, 50, 1e-12, xs, NULL, NULL, NULL);
    }
    double t_newton = now() - t0;
    if (st != PBD_OK) {
        free(xs);
        pbd_world_free(w0);
        return st;
    }
    double disp = 0.0;
    for (int i = 0; i < n3; i++) disp = fmax(disp, fabs(xs[i] - w0->x[i]));
    pbd_h5log *log = pbd_exp_log_open(ctx, name, w0, NULL);
    if (!log) {
        free(xs);
        pbd_world_free(w0);
        return PBD_EIO;
    }
    pbd_h5log_scene_params(log, &sp);
    int c_it = pbd_h5log_column(log, "iterations", 1, "1");
    int c_d = pbd_h5log_column(log, "distance", 1, "m");
    int c_g = pbd_h5log_column(log, "gradient_residual", 1, "kg m");
    int c_t = pbd_h5log_column(log, "wall_seconds", 1, "s");
    int c_p = scene == S_DRAPE ? pbd_h5log_column(log, "penetration", 1, "m") : -1;
    double tta[3] = {NAN, NAN, NAN}, last = NAN, diverged_at = NAN;
    for (int k = 0; k < n_it && st == PBD_OK; k++) {
        pbd_world *w = method == M_NEWTON ? NULL : build(scene, method, (int)its[k], threads);
        double d = 0.0, secs = t_newton, gn = 0.0;
        if (w) {
            t0 = now();
            pbd_status stepped = pbd_step(w);
            secs = now() - t0;
            if (stepped == PBD_ENUMERIC) { /* diverged (the watchdog): a row of NaN, and on */
                d = gn = NAN;
                if (isnan(diverged_at)) diverged_at = its[k];
                fprintf(stderr, "solver_families: %s, %s, N = %g diverged (%s): distance NaN\n",
                        scene_words[scene], method_words[method], its[k], pbd_last_error());
            } else if ((st = stepped) != PBD_OK) {
                pbd_world_free(w);
                break;
            } else {
                for (int i = 0; i < n3; i++) d = fmax(d, fabs(w->x[i] - xs[i]));
                gn = gradient_norm(w0, w);
            }
        }
        for (int q = 0; q < 3; q++)
            if (isnan(tta[q]) && d <= pow(10.0, -2 - q) * disp) tta[q] = secs;
        last = d;
        pbd_h5log_set1(log, c_it, method == M_NEWTON ? 0.0 : its[k]);
        pbd_h5log_set1(log, c_d, d);
        pbd_h5log_set1(log, c_g, gn);
        pbd_h5log_set1(log, c_t, secs);
        if (c_p >= 0) pbd_h5log_set1(log, c_p, w && !isnan(d) ? drape_penetration(w) : NAN);
        st = pbd_h5log_step(log, w && !isnan(d) ? w : w0); /* diverged: the common state */
        pbd_world_free(w);
        pbd_exp_progress(ctx, k + 1, n_it);
        if (method == M_NEWTON) break; /* one row: the reference's own solve */
    }
    if (st == PBD_OK) {
        pbd_h5log_attr_double(log, "result.scene", scene);
        pbd_h5log_attr_double(log, "result.method", method);
        pbd_h5log_attr_double(log, "result.threads", threads);
        pbd_h5log_attr_double(log, "result.newton_displacement", disp);
        pbd_h5log_attr_double(log, "result.reference_iterations", n_ref); /* 0: Newton's step */
        pbd_h5log_attr_double(log, "result.final_distance", last);
        pbd_h5log_attr_double(log, "result.diverged_at_iterations", diverged_at);
        pbd_h5log_attr_double(log, "result.time_to_1e-2_seconds", tta[0]);
        pbd_h5log_attr_double(log, "result.time_to_1e-3_seconds", tta[1]);
        pbd_h5log_attr_double(log, "result.time_to_1e-4_seconds", tta[2]);
        char reached[48] = "not reached in the budget", div[64] = ""; /* tta NaN: never */
        if (!isnan(tta[1])) snprintf(reached, sizeof reached, "%.3g s", tta[1]);
        if (!isnan(diverged_at)) snprintf(div, sizeof div, "; diverged from N = %g", diverged_at);
        st = pbd_exp_log_finish(ctx, log, "%s, %s: distance %.3g m at the last N (%s %.3g m); "
                                "time to 1e-3: %s%s", scene_words[scene], method_words[method],
                                last, n_ref ? "its own converged step" : "Newton step", disp,
                                reached, div);
    } else {
        pbd_exp_log_abort(ctx, log, st);
    }
    free(xs);
    pbd_world_free(w0);
    return st;
}

static int run(pbd_exp_ctx *ctx)
{
    int scenes[N_SCENES], methods[N_METHODS];
    double its[MAX_LIST], threads[MAX_LIST];
    int ns = pbd_exp_words(ctx, "scenes", P.scenes, scene_words, scenes, N_SCENES);
    int nm = pbd_exp_words(ctx, "methods", P.methods, method_words, methods, N_METHODS);
    int n_it = pbd_exp_numbers(ctx, "iterations", P.iterations, its, MAX_LIST, 1, 1e6);
    int n_th = pbd_exp_numbers(ctx, "threads", P.threads, threads, MAX_LIST, 1, 64);
    if (ns < 0 || nm < 0 || n_it < 0 || n_th < 0) return PBD_EINVAL;
    for (int t = 0; t < n_th; t++)
        if (threads[t] != floor(threads[t]))
            return pbd_error(PBD_EINVAL, "solver_families: --threads: expected whole numbers, "
                             "found %g in '%s'", threads[t], P.threads);
    for (int t = 0; t < n_th; t++)
        for (int a = 0; a < ns; a++)
            for (int b = 0; b < nm; b++) {
                if (!applies(scenes[a], methods[b])) continue;
                char name[64];
                snprintf(name, sizeof name, "%s_%s_t%d", scene_words[scenes[a]],
                         method_words[methods[b]], (int)threads[t]);
                if (!pbd_exp_want(ctx, name)) continue;
                int st = run_one(ctx, name, scenes[a], methods[b], (int)threads[t], its, n_it);
                if (st != PBD_OK) return st;
            }
    return PBD_OK;
}

static int summarize(pbd_exp_ctx *ctx)
{
    enum { NC = 8 };
    double *rows = calloc((size_t)ctx->n_runs * NC + NC, sizeof(double));
    if (!rows) return PBD_ENOMEM;
    static const char *const keys[NC] = {"result.scene", "result.method", "result.threads",
                                         "result.time_to_1e-2_seconds", "result.time_to_1e-3_seconds",
                                         "result.time_to_1e-4_seconds", "result.final_distance",
                                         "result.newton_displacement"};
    int n = 0;
    for (int i = 0; i < ctx->n_runs; i++) {
        char path[4096];
        pbd_exp_run_path(ctx, ctx->runs[i], path, sizeof path);
        int ok = 1;
        for (int k = 0; k < NC && ok; k++)
            ok = !pbd_h5_read_attr_double(path, keys[k], &rows[NC * n + k]);
        n += ok;
    }
    pbd_exp_sort_rows(rows, n, NC, 2);
    pbd_exp_summary *s = pbd_exp_summary_open(ctx);
    if (!s) {
        free(rows);
        return PBD_EIO;
    }
    const char *cols[NC] = {"scene", "method", "threads", "time_to_1e-2_seconds", "time_to_1e-3_seconds",
                            "time_to_1e-4_seconds", "final_distance", "newton_displacement"};
    pbd_exp_summary_table(s, "time_to_accuracy", rows, n, NC, cols, "1 1 1 s s s m m");
    /* the names behind the table's codes */
    char names[512] = "";
    for (int k = 0; k < N_SCENES; k++) snprintf(names + strlen(names), sizeof names - strlen(names),
                                                "%s%s", k ? " " : "", scene_words[k]);
    H5LTset_attribute_string(pbd_exp_summary_file(s), "/tables/time_to_accuracy", "scene_names",
                             names);
    names[0] = '\0';
    for (int k = 0; k < N_METHODS; k++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? " " : "",
                 method_words[k]);
    H5LTset_attribute_string(pbd_exp_summary_file(s), "/tables/time_to_accuracy",
                             "method_names", names);
    /* headline: per thread count (ascending) and scene the fastest iterative method to 1e-3
     * of the Newton step's displacement, beside Newton's own solve */
    char text[4096] = "time to 1e-3 of the Newton step";
    for (int th = 0, prev = 0;; prev = th, th = 0) {
        for (int i = 0; i < n; i++) /* the next thread count above prev */
            if ((int)rows[NC * i + 2] > prev && (!th || (int)rows[NC * i + 2] < th))
                th = (int)rows[NC * i + 2];
        if (!th) break;
        char part[96];
        snprintf(part, sizeof part, "%s %d thread%s:", prev ? "." : ",", th, th > 1 ? "s" : "");
        strncat(text, part, sizeof text - strlen(text) - 1);
        int listed = 0;
        for (int sc = 0; sc < N_SCENES; sc++) {
            int best = -1, newton = -1;
            for (int j = 0; j < n; j++) {
                const double *r = rows + NC * j;
                if ((int)r[0] != sc || (int)r[2] != th) continue;
                if ((int)r[1] == M_NEWTON) newton = j;
                else if (!isnan(r[4]) && (best < 0 || r[4] < rows[NC * best + 4])) best = j;
            }
            if (best < 0 && newton < 0) continue;
            char line[256], fastest[96] = "no iterative method reached 1e-3 in its budget";
            if (best >= 0)
                snprintf(fastest, sizeof fastest, "%s %.3g s",
                         method_words[(int)rows[NC * best + 1]], rows[NC * best + 4]);
            char ref[48] = ", against each method's own converged step";
            if (newton >= 0) snprintf(ref, sizeof ref, ", newton %.3g s", rows[NC * newton + 4]);
            snprintf(line, sizeof line, "%s %s: %s%s", listed++ ? ";" : "", scene_words[sc],
                     fastest, ref);
            strncat(text, line, sizeof text - strlen(text) - 1);
            if (sc == S_CLOTH && !prev) /* the fewest threads' */
                pbd_exp_summary_double(s, "headline.cloth_fastest_to_1e-3_seconds",
                                       best >= 0 ? rows[NC * best + 4] : NAN);
        }
        if (!listed)
            strncat(text, " no Newton row, and no method reached it",
                    sizeof text - strlen(text) - 1);
    }
    free(rows);
    return pbd_exp_summary_finish(s, "%s", text);
}

const pbd_experiment pbd_exp_solver_families = {
    .name = "solver_families",
    .description = "XPBD, XPBD with substeps, VBD (+ Chebyshev), AVBD, Projective "
                   "Dynamics and Newton on the same constraints (cloth, tet beams, a hard 1:1000 "
                   "chain, a bending cloth): distance to the exact implicit step and h^2 |grad "
                   "G| vs iterations and wall time, time to 1e-2/1e-3/1e-4 of the Newton step",
    .paper = "VBD (Chen et al. 2024), AVBD (Giles et al. 2025) and PD (Bouaziz et al. 2014) "
             "each compare on their own scenes; no common number",
    .timing = 1,
    .options = options,
    .run = run,
    .summarize = summarize,
};
