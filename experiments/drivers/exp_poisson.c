/* poisson — a bar of tetrahedra (L = 1 m, square section a = L/4, clamped at both ends)
 * stretched along x by ε = 5 % (the end x = L pulled over `ramp` s, then held; no gravity;
 * velocities damped so that it settles), for Poisson ratios ν up to the incompressible limit
 * 1/2, with the Stable Neo-Hookean material (snh_tet, Macklin & Müller 2021; E = 10⁵ Pa).
 * Measured in the middle half of the bar, away from the clamped ends (Saint-Venant): the
 * axial stretch λ_a (the distance between the planes x = L/4 and 3L/4 against L/2), the
 * lateral stretch λ_l (the extent of the section at x = L/2 in y and z against a) and the
 * volume ratio J of the tets whose rest centroid lies in the middle half. Reported:
 *   ν_eff = −ln λ_l / ln λ_a   (the Poisson ratio of the deformation: ν for a linear material
 *                                at small strain, exactly 1/2 for an incompressible one),
 *   J against λ_a^(1 − 2ν), the volume ratio of λ_l = λ_a^(−ν) (to first order the linear
 *   (1 + ε)(1 − νε)², and exactly 1 at ν = 1/2).
 * Two parametrisations of the SNH energy (constraints/snh_tet.c):
 *   matched: λ_SNH = λ + μ, which gives the small-strain Lamé parameters of (E, ν) (the
 *            library's default), so ν_eff should follow ν;
 *   raw:     λ_SNH = λ (the Lamé λ put straight into the energy), whose small-strain response
 *            is that of (μ, λ − μ): ν_eff = (λ − μ)/(2λ) instead of ν; only for ν > 1/8, below
 *            which its bulk modulus λ − μ/3 is negative.
 * Other materials (--materials) are measured alike with their own parametrisation. */
#include "pbd_drivers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 16
static const char *const lame_words[] = {"matched", "raw", NULL};

static struct {
    const char *materials, *ratios, *lames;
    int cubes, substeps, iterations;
    double youngs, strain, ramp, duration, rate, damping;
} P;

static int options(cli_option *out, int quick)
{
    P.materials = "neo-hookean";
    P.ratios = quick ? "0.3,0.5" : "0,0.1,0.2,0.3,0.4,0.45,0.49,0.5";
    P.lames = quick ? "matched" : "matched,raw";
    P.cubes = quick ? 1 : 2;
    P.substeps = 100;
    P.iterations = 2;
    P.youngs = 1e5;
    P.strain = 0.05;
    P.ramp = quick ? 0.2 : 0.5;
    P.duration = quick ? 0.5 : 2.0;
    P.rate = 60.0;
    P.damping = 0.02;
    const cli_option rows[] = {
        {"materials", CLI_STRING, &P.materials, 0, 0, 0,
         "tet_beam --material values, but distance-volume (list)", NULL},
        {"poisson-ratios", CLI_STRING, &P.ratios, 0, 0, 0, "nu (list, each in (-1, 0.5])", NULL},
        {"lame", CLI_STRING, &P.lames, 0, 0, 0,
         "neo-hookean's lambda: matched (lambda + mu), raw (lambda) (list)", NULL},
        {"cubes", CLI_INT, &P.cubes, 1, 16, 0, "cubes across the section (4x as many along)",
         NULL},
        {"substeps", CLI_INT, &P.substeps, 1, 10000, 0, "substeps per frame", NULL},
        {"iterations", CLI_INT, &P.iterations, 1, 1000, 0, "XPBD iterations per substep", NULL},
        {"youngs-modulus", CLI_DOUBLE, &P.youngs, 0, INFINITY, 1, "E in Pa", NULL},
        {"strain", CLI_DOUBLE, &P.strain, 0, 1, 1, "imposed axial strain of the bar", NULL},
        {"ramp", CLI_DOUBLE, &P.ramp, 0, 1e5, 1, "time over which the end is pulled, in s", NULL},
        {"duration", CLI_DOUBLE, &P.duration, 0, 1e5, 1, "simulated time in s", NULL},
        {"rate", CLI_DOUBLE, &P.rate, 0, 1e7, 1, "frames per second", NULL},
        {"damping", CLI_DOUBLE, &P.damping, 0, 1, 0,
         "velocity scaling per substep, v <- (1 - k) v (so that the bar settles)", NULL},
    };
    int n = (int)(sizeof rows / sizeof rows[0]);
    for (int i = 0; i < n; i++) out[i] = rows[i];
    return n;
}

/* The end x = L moves by strain·L·min(t/ramp, 1) along x; the end x = 0 stays. */
static void pull(int a, double t, const double anchor[3], double target[3], void *user)
{
    (void)a;
    double L = *(const double *)user, s = P.ramp > 0.0 ? fmin(t / P.ramp, 1.0) : 1.0;
    target[0] = anchor[0] + (anchor[0] > 0.5 * L ? P.strain * L * s : 0.0);
    target[1] = anchor[1];
    target[2] = anchor[2];
}

typedef struct measure {
    double axial, lateral, volume;
} measure;

/* λ_a, λ_l and J of the middle half (see the top of the file), from the rest positions X. */
static measure middle(const pbd_world *w, const double *X, const pbd_tetmesh *m, double L,
                      double a)
{
    double xa = 0.0, xb = 0.0, lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    int na = 0, nb = 0;
    const double tol = 1e-9 * L;
    for (int i = 0; i < w->n; i++) {
        const double *r = X + 3 * i, *x = w->x + 3 * i;
        if (fabs(r[0] - 0.25 * L) < tol) xa += x[0], na++;
        if (fabs(r[0] - 0.75 * L) < tol) xb += x[0], nb++;
        if (fabs(r[0] - 0.5 * L) < tol)
            for (int k = 0; k < 2; k++) {
                lo[k] = fmin(lo[k], x[k + 1]);
                hi[k] = fmax(hi[k], x[k + 1]);
            }
    }
    double V = 0.0, V0 = 0.0;
    for (int t = 0; t < m->n_tets; t++) {
        const int32_t *q = m->tet + 4 * t;
        double cx = 0.25 * (X[3 * q[0]] + X[3 * q[1]] + X[3 * q[2]] + X[3 * q[3]]);
        if (cx < 0.25 * L || cx > 0.75 * L) continue;
        V0 += pbd_tet_volume(X + 3 * q[0], X + 3 * q[1], X + 3 * q[2], X + 3 * q[3]);
        V += pbd_tet_volume(w->x + 3 * q[0], w->x + 3 * q[1], w->x + 3 * q[2], w->x + 3 * q[3]);
    }
    measure r = {(xb / nb - xa / na) / (0.5 * L), 0.5 * ((hi[0] - lo[0]) + (hi[1] - lo[1])) / a,
                 V / V0};
    return r;
}

/* (E, ν) that make material() put λ (instead of λ + μ) into the SNH energy: μ' = μ,
 * λ' = λ − μ. Returns 0 when that has no valid (E', ν') (ν <= 1/8, or ν = 1/2). */
static int raw_parameters(double E, double nu, double *E2, double *nu2)
{
    double mu, lambda;
    if (!pbd_lame(E, nu, &mu, &lambda) || isinf(lambda)) return 0;
    double l2 = lambda - mu, m2 = mu;
    if (!(3.0 * l2 + 2.0 * m2 > 0.0) || !(l2 + m2 > 0.0)) return 0;
    *E2 = m2 * (3.0 * l2 + 2.0 * m2) / (l2 + m2);
    *nu2 = l2 / (2.0 * (l2 + m2));
    return 1;
}

static double log_stretch(double s) { return log(s); }

static int run_one(pbd_exp_ctx *ctx, const char *name, int material, double nu, int raw)
{
    double L = 1.0, a = 0.25, E = P.youngs, nu_in = nu;
    if (raw && !raw_parameters(P.youngs, nu, &E, &nu_in))
        return pbd_error(PBD_EINVAL, "poisson: --lame=raw: no valid parameters for nu = %g "
                         "(expected 1/8 < nu < 1/2)", nu);
    pbd_tetmesh m;
    if (pbd_mesh_tet_beam(4 * P.cubes, P.cubes, P.cubes, L, a, a, 6, &m) != PBD_OK)
        return pbd_error(PBD_EINVAL, "poisson: %s", pbd_last_error());
    pbd_world *w = pbd_world_create(m.n_vertices);
    double mass = 1.0 / m.n_vertices;
    for (int i = 0; w && i < m.n_vertices; i++) pbd_world_set_particle(w, i, m.x + 3 * i, NULL, mass);
    int set = w ? pbd_world_add_set(w, pbd_scene_material_type(material), 0) : -1;
    /* the material's constraints per tet, as the tet_beam scene adds them */
    double rest[16], x[12];
    const pbd_constraint_type *type = pbd_scene_material_type(material);
    for (int t = 0; set >= 0 && t < m.n_tets; t++) {
        const int32_t *q = m.tet + 4 * t;
        for (int j = 0; j < 4; j++) memcpy(x + 3 * j, m.x + 3 * q[j], 3 * sizeof(double));
        pbd_eval_input in = {x, 4, NULL, NULL, 0};
        for (int c = 0; c < type->n_components; c++) {
            double alpha = type->material(&in, E, nu_in, c, rest);
            if (isnan(alpha) || pbd_set_add(w, set, q, rest, 1.0, alpha) < 0) set = -1;
        }
    }
    if (set < 0) {
        pbd_world_free(w);
        pbd_tetmesh_free(&m);
        return pbd_error(PBD_EINVAL, "poisson: cannot build the bar of %s at nu = %g",
                         pbd_material_names[material], nu);
    }
    /* the static equilibrium of the same bar with the end already pulled: the discrete
     * model's own answer, which XPBD's settled state approaches as the substeps shrink
     * (none at ν = 1/2: α_H = 0) */
    measure ref = {NAN, NAN, NAN};
    pbd_world *sw = pbd_world_create(w->n);
    for (int i = 0; sw && i < w->n; i++) {
        double xi[3] = {m.x[3 * i] * (m.x[3 * i] > L - 1e-9 ? 1.0 + P.strain : 1.0), m.x[3 * i + 1],
                        m.x[3 * i + 2]};
        pbd_world_set_particle(sw, i, xi, NULL, mass);
        if (m.x[3 * i] < 1e-9 || m.x[3 * i] > L - 1e-9) pbd_world_attach(sw, i);
    }
    int sset = sw ? pbd_world_add_set(sw, type, 0) : -1;
    for (int c = 0; sset >= 0 && c < w->sets[set].count; c++)
        if (pbd_set_add(sw, sset, w->sets[set].idx + 4 * (size_t)c, w->sets[set].rest +
                        (size_t)c * type->n_rest, 1.0, w->sets[set].compliance[c]) < 0)
            sset = -1;
    int static_iters = 0;
    if (sw) sw->def.gravity[1] = 0.0;
    if (sset >= 0 && nu < 0.5 && pbd_exp_static_equilibrium(sw, 1e-10, 50, &static_iters) == PBD_OK)
        ref = middle(sw, m.x, &m, L, a);
    pbd_world_free(sw);
    for (int i = 0; i < w->n; i++)
        if (m.x[3 * i] < 1e-9 || m.x[3 * i] > L - 1e-9) pbd_world_attach(w, i);
    w->attach_motion = pull;
    w->attach_user = &L;
    w->def.method = PBD_METHOD_XPBD;
    w->def.dt = 1.0 / P.rate;
    w->def.substeps = P.substeps;
    w->def.iterations = P.iterations;
    w->def.gravity[1] = 0.0;
    w->def.damping = P.damping > 0.0 ? PBD_DAMPING_SCALE : PBD_DAMPING_NONE;
    w->def.k_damping = P.damping;
    pbd_h5log *log = pbd_exp_log_open(ctx, name, w, NULL);
    pbd_status st = log ? PBD_OK : PBD_EIO;
    if (log) {
        pbd_h5log_attr_string(log, "material", pbd_material_names[material]);
        pbd_h5log_attr_int(log, "material_index", material);
        pbd_h5log_attr_string(log, "lame", lame_words[raw]);
        pbd_h5log_attr_double(log, "poisson_ratio", nu);
        pbd_h5log_attr_double(log, "material_youngs_modulus", E);
        pbd_h5log_attr_double(log, "material_poisson_ratio", nu_in);
    }
    int c_a = log ? pbd_h5log_column(log, "axial_stretch", 1, "1") : -1;
    int c_l = log ? pbd_h5log_column(log, "lateral_stretch", 1, "1") : -1;
    int c_v = log ? pbd_h5log_column(log, "volume_ratio", 1, "1") : -1;
    int steps = (int)ceil(P.duration * P.rate);
    measure r = {NAN, NAN, NAN};
    for (int s = 1; log && s <= steps && st == PBD_OK; s++) {
        if ((st = pbd_step(w)) != PBD_OK) break;
        r = middle(w, m.x, &m, L, a);
        pbd_h5log_set1(log, c_a, r.axial);
        pbd_h5log_set1(log, c_l, r.lateral);
        pbd_h5log_set1(log, c_v, r.volume);
        st = pbd_h5log_step(log, w);
        pbd_exp_progress(ctx, s, steps);
    }
    if (log && st == PBD_OK) {
        double nu_eff = -log_stretch(r.lateral) / log_stretch(r.axial);
        double j_lin = pow(r.axial, 1.0 - 2.0 * nu); /* λ_l = λ_a^(−ν) */
        pbd_h5log_attr_double(log, "result.axial_stretch", r.axial);
        pbd_h5log_attr_double(log, "result.lateral_stretch", r.lateral);
        pbd_h5log_attr_double(log, "result.volume_ratio", r.volume);
        pbd_h5log_attr_double(log, "result.effective_poisson_ratio", nu_eff);
        pbd_h5log_attr_double(log, "result.theory_volume_ratio", j_lin);
        double nu_static = -log_stretch(ref.lateral) / log_stretch(ref.axial);
        pbd_h5log_attr_double(log, "result.static_effective_poisson_ratio", nu_static);
        pbd_h5log_attr_double(log, "result.static_volume_ratio", ref.volume);
        char s_nu[32] = "none", s_vol[32] = "none"; /* NaN: no static reference was solved */
        if (!isnan(nu_static)) snprintf(s_nu, sizeof s_nu, "%.4f", nu_static);
        if (!isnan(ref.volume)) snprintf(s_vol, sizeof s_vol, "%.5f", ref.volume);
        st = pbd_exp_log_finish(ctx, log, "nu %.3g: effective nu %.4f (static %s), volume ratio "
                                "%.5f (static %s, theory %.5f)", nu, nu_eff, s_nu, r.volume,
                                s_vol, j_lin);
    } else if (log) {
        pbd_exp_log_abort(ctx, log, st);
    }
    pbd_world_free(w);
    pbd_tetmesh_free(&m);
    return st;
}

/* 1 when the material has rest values for ν (its material() does not return NaN). */
static int takes_ratio(int material, double nu)
{
    const pbd_constraint_type *t = pbd_scene_material_type(material);
    if (!t) return 0;
    double x[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, rest[16];
    pbd_eval_input in = {x, t->arity, NULL, NULL, 0};
    return !isnan(t->material(&in, P.youngs, nu, 0, rest));
}

static int run(pbd_exp_ctx *ctx)
{
    int mats[8], lames[2];
    double nus[MAX_LIST];
    int n_m = pbd_exp_words(ctx, "materials", P.materials, pbd_material_names, mats, 8);
    int n_l = pbd_exp_words(ctx, "lame", P.lames, lame_words, lames, 2);
    int n_n = pbd_exp_numbers(ctx, "poisson-ratios", P.ratios, nus, MAX_LIST, -1 + 1e-12, 0.5);
    if (n_m < 0 || n_l < 0 || n_n < 0) return PBD_EINVAL;
    for (int k = 0; k < n_m; k++)
        if (mats[k] == 0)
            return pbd_error(PBD_EINVAL, "poisson: --materials: expected materials with a "
                             "Poisson ratio, found distance-volume");
    for (int k = 0; k < n_m; k++)
        for (int l = 0; l < n_l; l++) {
            int raw = lames[l] == 1;
            if (raw && pbd_scene_material_type(mats[k]) != &pbd_snh_tet_type)
                continue; /* the reparametrisation is of the SNH energy */
            for (int i = 0; i < n_n; i++) {
                double E2, nu2;
                if (raw && !raw_parameters(P.youngs, nus[i], &E2, &nu2)) continue;
                if (!takes_ratio(mats[k], nus[i])) continue; /* e.g. 0.5 without the limit */
                char name[96];
                snprintf(name, sizeof name, "%s_%s_nu%g", pbd_material_names[mats[k]],
                         lame_words[raw], nus[i]);
                if (!pbd_exp_want(ctx, name)) continue;
                int st = run_one(ctx, name, mats[k], nus[i], raw);
                if (st != PBD_OK) return st;
            }
        }
    return PBD_OK;
}

/* Small-strain theory of the raw parametrisation: ν_eff = (λ − μ)/(2λ). */
static double raw_theory(double nu)
{
    double mu, lambda;
    if (!pbd_lame(1.0, nu, &mu, &lambda)) return NAN;
    return isinf(lambda) ? 0.5 : (lambda - mu) / (2.0 * lambda);
}

static int summarize(pbd_exp_ctx *ctx)
{
    /* material, lame (0 matched, 1 raw), nu, nu_eff, theory nu_eff, J, J theory, static nu_eff,
     * static J */
    double *rows = calloc((size_t)ctx->n_runs * 9 + 9, sizeof *rows);
    if (!rows) return PBD_ENOMEM;
    int n = 0;
    for (int i = 0; i < ctx->n_runs; i++) {
        char path[4096], lame[16];
        pbd_exp_run_path(ctx, ctx->runs[i], path, sizeof path);
        double *r = rows + 9 * n;
        if (pbd_h5_read_attr_double(path, "material_index", &r[0]) ||
            pbd_h5_read_attr_string(path, "lame", lame, sizeof lame) ||
            pbd_h5_read_attr_double(path, "poisson_ratio", &r[2]) ||
            pbd_h5_read_attr_double(path, "result.effective_poisson_ratio", &r[3]) ||
            pbd_h5_read_attr_double(path, "result.volume_ratio", &r[5]) ||
            pbd_h5_read_attr_double(path, "result.theory_volume_ratio", &r[6]))
            continue;
        if (pbd_h5_read_attr_double(path, "result.static_effective_poisson_ratio", &r[7]))
            r[7] = NAN;
        if (pbd_h5_read_attr_double(path, "result.static_volume_ratio", &r[8])) r[8] = NAN;
        r[1] = strcmp(lame, "raw") == 0;
        r[4] = r[1] ? raw_theory(r[2]) : r[2];
        n++;
    }
    pbd_exp_sort_rows(rows, n, 9, 3);
    pbd_exp_summary *s = pbd_exp_summary_open(ctx);
    if (!s) {
        free(rows);
        return PBD_EIO;
    }
    const char *cols[] = {"material", "raw_lame", "poisson_ratio", "effective_poisson_ratio",
                          "theory_poisson_ratio", "volume_ratio", "theory_volume_ratio",
                          "static_effective_poisson_ratio", "static_volume_ratio"};
    pbd_exp_summary_table(s, "poisson", rows, n, 9, cols, "index 1 1 1 1 1 1 1 1");
    char text[2048] = "effective Poisson ratio (theory) of the stretched bar, XPBD:";
    double worst = 0.0, j_half = NAN;
    for (int i = 0; i < n; i++) {
        const double *r = rows + 9 * i;
        char part[128];
        snprintf(part, sizeof part, "%s %s%s nu %g: %.3f (%.3f)", i ? ";" : "",
                 pbd_material_names[(int)r[0]], r[1] ? " raw" : "", r[2], r[3], r[4]);
        strncat(text, part, sizeof text - strlen(text) - 1);
        if (!r[1]) worst = fmax(worst, fabs(r[3] - r[4]));
        if (!r[1] && r[2] == 0.5) j_half = r[5];
    }
    if (isfinite(j_half)) {
        char part[96];
        snprintf(part, sizeof part, ". Volume ratio at nu = 0.5: %.5f (theory 1)", j_half);
        strncat(text, part, sizeof text - strlen(text) - 1);
        pbd_exp_summary_double(s, "headline.volume_ratio_incompressible", j_half);
    }
    pbd_exp_summary_double(s, "headline.max_poisson_deviation_matched", worst);
    free(rows);
    return pbd_exp_summary_finish(s, "%s", text);
}

const pbd_experiment pbd_exp_poisson = {
    .name = "poisson",
    .description = "a Stable Neo-Hookean bar (L = 1 m, a = L/4, clamped ends) stretched 5 %: "
                   "effective Poisson ratio -ln(lateral)/ln(axial) and volume ratio of its middle "
                   "half vs nu up to 0.5, with the matched and the raw Lame parameters",
    .paper = "small-strain elasticity: effective Poisson ratio nu, volume ratio "
             "stretch^(1-2nu); incompressible limit nu = 0.5: volume ratio 1",
    .timing = 0,
    .options = options,
    .run = run,
    .summarize = summarize,
};
