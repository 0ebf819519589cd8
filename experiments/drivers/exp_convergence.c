/* convergence — how the iteration schemes approach the implicit step (XPBD Eq. 8–11):
 * Gauss–Seidel, Jacobi with constraint averaging at several over-relaxation factors ω
 * (Macklin et al. 2014) and graph-coloured Gauss–Seidel, on the 64² hanging cloth of XPBD
 * Table 1 (structural, shear and bend springs: 23 938 constraints) and on a tet beam, with
 * the sparse Newton reference (pbd_newton_solve) as ground truth.
 *
 * Each scene is first brought into motion from rest by warm-up frames of the implicit step
 * itself (Newton; XPBD with 20 iterations would leave the 64² cloth at α = 1e-7 stretched by
 * centimetres, and the measured step would be its violent snap back); from that one saved
 * state every scheme then takes the next step with
 * k = 1, 2, 4, … iterations, and we measure the RMS distance of its positions to the Newton
 * solution of the same step, and ||C + α̃λ||_2 after each iteration (/iterations, the run
 * with the most iterations). The Newton reference's own residual ||(g, h)||_2 per Newton
 * iteration is stored in /results/newton_residual. Runs: <scene>_<scheme>. */
#include "pbd_drivers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 24
static const char *const scene_words[] = {"cloth", "tet_beam", NULL};
static const char *const scheme_words[] = {"gauss-seidel", "jacobi", "colored", NULL};

static struct {
    const char *scenes, *schemes, *omegas, *iterations;
    int cloth_resolution, beam_resolution, warmup;
    double cloth_compliance, beam_compliance, rate;
} P;

static int options(cli_option *out, int quick)
{
    P.scenes = "cloth,tet_beam";
    P.schemes = "gauss-seidel,jacobi,colored";
    P.omegas = "1,1.5";
    P.iterations = quick ? "1,2,4,8,16,32,64" : "1,2,4,8,16,32,64,128,256,512";
    P.cloth_resolution = quick ? 16 : 64;
    P.beam_resolution = quick ? 4 : 8;
    P.warmup = 5;
    P.cloth_compliance = 1e-7;
    P.beam_compliance = 1e-6;
    P.rate = 60.0;
    const cli_option rows[] = {
        {"scenes", CLI_STRING, &P.scenes, 0, 0, 0, "cloth, tet_beam (list)", NULL},
        {"schemes", CLI_STRING, &P.schemes, 0, 0, 0, "gauss-seidel, jacobi, colored (list)", NULL},
        {"omegas", CLI_STRING, &P.omegas, 0, 0, 0, "Jacobi over-relaxation factors (list)", NULL},
        {"iterations", CLI_STRING, &P.iterations, 0, 0, 0, "iteration counts k (list)", NULL},
        {"cloth-resolution", CLI_INT, &P.cloth_resolution, 2, 512, 0,
         "cloth grid side (64: XPBD Table 1)", NULL},
        {"beam-resolution", CLI_INT, &P.beam_resolution, 1, 32, 0, "beam cubes along x", NULL},
        {"warmup", CLI_INT, &P.warmup, 0, 1e6, 0,
         "implicit (Newton) frames from rest before the measured step", NULL},
        {"cloth-compliance", CLI_DOUBLE, &P.cloth_compliance, 0, INFINITY, 0,
         "XPBD alpha of the cloth's distances (m/N)", NULL},
        {"beam-compliance", CLI_DOUBLE, &P.beam_compliance, 0, INFINITY, 0,
         "XPBD alpha of the beam's constraints", NULL},
        {"rate", CLI_DOUBLE, &P.rate, 0, 1e7, 1, "steps per second (1/dt)", NULL},
    };
    int n = (int)(sizeof rows / sizeof rows[0]);
    for (int i = 0; i < n; i++) out[i] = rows[i];
    return n;
}

static pbd_scene_params sp; /* the scene of the last build, for the run's attributes */
static pbd_exp_cloth cloth;

static pbd_world *build(int scene)
{
    sp = pbd_scene_params_default();
    sp.seed = 1;
    pbd_world *w;
    if (scene == 0) { /* XPBD Table 1's cloth: 64², structural, shear and bend springs */
        cloth = (pbd_exp_cloth){.resolution = P.cloth_resolution, .size = 1.0, .mass = 1.0,
                                .shear = 1, .bend = 1, .pinned = 1, .stiffness = 1.0,
                                .compliance = P.cloth_compliance};
        w = pbd_exp_cloth_build(&cloth, NULL, NULL);
    } else {
        sp.resolution = P.beam_resolution;
        sp.compliance = P.beam_compliance;
        w = pbd_scene_tet_beam(&sp);
    }
    if (!w) return NULL;
    w->def.dt = 1.0 / P.rate;
    w->def.method = PBD_METHOD_XPBD;
    for (int f = 0; f < P.warmup; f++) /* along the implicit trajectory (see the top) */
        if (pbd_newton_step(w, w->def.newton_max_iterations, w->def.newton_tol, NULL, NULL) !=
            PBD_OK) {
            pbd_world_free(w);
            return NULL;
        }
    return w;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int run_one(pbd_exp_ctx *ctx, const char *name, int scene, int scheme, double omega,
                   const double *its, int n_it)
{
    pbd_world *w = build(scene);
    if (!w) return pbd_error(PBD_EINVAL, "convergence: cannot build %s: %s", scene_words[scene],
                             pbd_last_error());
    size_t n3 = 3 * (size_t)w->n;
    double *x0 = malloc(n3 * sizeof *x0), *v0 = malloc(n3 * sizeof *v0);
    double *xn = malloc(n3 * sizeof *xn), *res = malloc(51 * sizeof *res);
    int k_max = (int)its[n_it - 1];
    if (!x0 || !v0 || !xn || !res) {
        free(x0); free(v0); free(xn); free(res);
        pbd_world_free(w);
        return pbd_error(PBD_ENOMEM, "convergence: out of memory");
    }
    memcpy(x0, w->x, n3 * sizeof *x0);
    memcpy(v0, w->v, n3 * sizeof *v0);
    double t0 = w->time;
    int newton_it = 0;
    pbd_status st = pbd_newton_solve(w, 50, 1e-12, xn, NULL, res, &newton_it);
    if (st != PBD_OK) {
        free(x0); free(v0); free(xn); free(res);
        pbd_world_free(w);
        return st;
    }
    w->def.scheme = scheme;
    w->def.sor_omega = omega;
    w->def.threads = 1;
    w->def.iterations = k_max;
    w->def.record_iterations = 1;
    pbd_h5log *log = pbd_exp_log_open(ctx, name, w, NULL);
    if (!log) {
        free(x0); free(v0); free(xn); free(res);
        pbd_world_free(w);
        return PBD_EIO;
    }
    if (scene == 0) pbd_exp_cloth_attrs(log, &cloth);
    else pbd_h5log_scene_params(log, &sp);
    pbd_h5log_attr_string(log, "scene", scene_words[scene]);
    pbd_h5log_attr_string(log, "scheme", scheme_words[scheme]);
    pbd_h5log_attr_double(log, "omega", omega);
    pbd_h5log_attr_int(log, "warmup_frames", P.warmup);
    pbd_h5log_dataset(log, "newton_residual", res, newton_it + 1, 1, "1",
                      "||(g, h)||_2 of the Newton reference before each iteration and after the last");
    pbd_h5log_dataset(log, "newton_positions", xn, w->n, 3, "m",
                      "the Newton step's positions, which rms_distance_to_newton is measured from");
    int c_k = pbd_h5log_column(log, "iterations_k", 1, "1");
    int c_err = pbd_h5log_column(log, "rms_distance_to_newton", 1, "m");
    double last_err = NAN, last_res = NAN;
    for (int i = 0; i < n_it && st == PBD_OK; i++) {
        memcpy(w->x, x0, n3 * sizeof *x0);
        memcpy(w->v, v0, n3 * sizeof *v0);
        w->time = t0;
        w->def.iterations = (int)its[i];
        if ((st = pbd_step(w)) != PBD_OK) break;
        double sum = 0.0;
        for (size_t j = 0; j < n3; j++) sum += (w->x[j] - xn[j]) * (w->x[j] - xn[j]);
        last_err = sqrt(sum / w->n);
        last_res = pbd_exp_xpbd_residual(w, "m"); /* the distance constraints' (m) */
        pbd_h5log_set1(log, c_k, its[i]);
        pbd_h5log_set1(log, c_err, last_err);
        st = pbd_h5log_step(log, w);
        pbd_exp_progress(ctx, i + 1, n_it);
    }
    if (st == PBD_OK) {
        pbd_h5log_attr_double(log, "result.rms_distance_to_newton", last_err);
        pbd_h5log_attr_double(log, "result.xpbd_residual_distance", last_res);
        for (int s = 0; s < w->n_sets; s++) { /* every set's, in its unit */
            char name[160];
            snprintf(name, sizeof name, "result.xpbd_residual.%02d_%s", s, w->sets[s].type->name);
            pbd_h5log_attr_double(log, name, w->sets[s].stats.xpbd_residual);
        }
        pbd_h5log_attr_double(log, "result.newton_iterations", newton_it);
        pbd_h5log_attr_double(log, "result.newton_residual", res[newton_it]);
        st = pbd_exp_log_finish(ctx, log, "after %d iterations %.3g m from Newton (which took %d "
                                "iterations to %.2g)", k_max, last_err, newton_it, res[newton_it]);
    } else {
        pbd_exp_log_abort(ctx, log, st);
    }
    free(x0); free(v0); free(xn); free(res);
    pbd_world_free(w);
    return st;
}

static int run(pbd_exp_ctx *ctx)
{
    int scenes[4], schemes[6];
    double omegas[MAX_LIST], its[MAX_LIST];
    int n_sc = pbd_exp_words(ctx, "scenes", P.scenes, scene_words, scenes, 4);
    int n_sh = pbd_exp_words(ctx, "schemes", P.schemes, scheme_words, schemes, 6);
    int n_om = pbd_exp_numbers(ctx, "omegas", P.omegas, omegas, MAX_LIST, 1e-3, 2);
    int n_it = pbd_exp_numbers(ctx, "iterations", P.iterations, its, MAX_LIST, 1, 1e5);
    if (n_sc < 0 || n_sh < 0 || n_om < 0 || n_it < 0) return PBD_EINVAL;
    qsort(its, (size_t)n_it, sizeof its[0], cmp_double);
    for (int a = 0; a < n_sc; a++)
        for (int b = 0; b < n_sh; b++)
            for (int o = 0; o < (schemes[b] == PBD_SCHEME_JACOBI ? n_om : 1); o++) {
                char name[128];
                double omega = schemes[b] == PBD_SCHEME_JACOBI ? omegas[o] : 1.0;
                if (schemes[b] == PBD_SCHEME_JACOBI)
                    snprintf(name, sizeof name, "%s_jacobi_w%g", scene_words[scenes[a]], omega);
                else
                    snprintf(name, sizeof name, "%s_%s", scene_words[scenes[a]],
                             scheme_words[schemes[b]]);
                if (!pbd_exp_want(ctx, name)) continue;
                int st = run_one(ctx, name, scenes[a], schemes[b], omega, its, n_it);
                if (st != PBD_OK) return st;
            }
    return PBD_OK;
}

static int summarize(pbd_exp_ctx *ctx)
{
    /* one row per run: scene (0 cloth, 1 beam), scheme, omega, final distance, residual */
    double *rows = calloc((size_t)ctx->n_runs * 5 + 5, sizeof(double));
    if (!rows) return PBD_ENOMEM;
    int n = 0;
    double newton_its[2] = {NAN, NAN}, newton_res[2] = {NAN, NAN};
    for (int i = 0; i < ctx->n_runs; i++) {
        char path[4096], scene[32], scheme[32];
        pbd_exp_run_path(ctx, ctx->runs[i], path, sizeof path);
        double *r = rows + 5 * n;
        if (pbd_h5_read_attr_string(path, "scene", scene, sizeof scene) ||
            pbd_h5_read_attr_string(path, "scheme", scheme, sizeof scheme) ||
            pbd_h5_read_attr_double(path, "omega", &r[2]) ||
            pbd_h5_read_attr_double(path, "result.rms_distance_to_newton", &r[3]) ||
            pbd_h5_read_attr_double(path, "result.xpbd_residual_distance", &r[4]))
            continue;
        r[0] = strcmp(scene, "cloth") == 0 ? 0 : 1;
        r[1] = strcmp(scheme, "gauss-seidel") == 0 ? 0 : strcmp(scheme, "jacobi") == 0 ? 1 : 2;
        int sc = (int)r[0];
        pbd_h5_read_attr_double(path, "result.newton_iterations", &newton_its[sc]);
        pbd_h5_read_attr_double(path, "result.newton_residual", &newton_res[sc]);
        n++;
    }
    pbd_exp_summary *s = pbd_exp_summary_open(ctx);
    if (!s) {
        free(rows);
        return PBD_EIO;
    }
    const char *cols[] = {"scene", "scheme", "omega", "rms_distance_to_newton",
                          "xpbd_residual_distance"};
    pbd_exp_summary_table(s, "final", rows, n, 5, cols, "0=cloth,1=beam 0=GS,1=Jacobi,2=coloured 1 m m");
    /* headline on the cloth: each scheme's final distance */
    char text[768];
    snprintf(text, sizeof text, "after the largest iteration count, RMS distance to the Newton step "
             "on the cloth:");
    for (int i = 0; i < n; i++) {
        const double *r = rows + 5 * i;
        if (r[0] != 0) continue;
        char part[96];
        if (r[1] == 1) snprintf(part, sizeof part, " Jacobi w=%g %.2g m;", r[2], r[3]);
        else snprintf(part, sizeof part, " %s %.2g m;", r[1] == 0 ? "GS" : "coloured GS", r[3]);
        strncat(text, part, sizeof text - strlen(text) - 1);
    }
    char tail[160];
    snprintf(tail, sizeof tail, " Newton converges to %.1e in %g iterations (cloth), %.1e in %g "
             "(beam)", newton_res[0], newton_its[0], newton_res[1], newton_its[1]);
    strncat(text, tail, sizeof text - strlen(text) - 1);
    pbd_exp_summary_double(s, "headline.newton_iterations_cloth", newton_its[0]);
    pbd_exp_summary_double(s, "headline.newton_iterations_beam", newton_its[1]);
    free(rows);
    return pbd_exp_summary_finish(s, "%s", text);
}

const pbd_experiment pbd_exp_convergence = {
    .name = "convergence",
    .description = "residual and distance to the Newton step vs iteration for Gauss-Seidel, "
                   "Jacobi (several omega) and coloured Gauss-Seidel, on a cloth and a tet "
                   "beam; the Newton reference's residual on the same plot",
    .paper = "XPBD Sec. 5 / Macklin et al. 2014: Gauss-Seidel converges faster per iteration "
             "than Jacobi, over-relaxation (omega > 1) speeds Jacobi up; XPBD approaches the "
             "implicit (Newton) solution as iterations grow",
    .timing = 0,
    .options = options,
    .run = run,
    .summarize = summarize,
};
