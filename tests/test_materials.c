/* Issue 15's constraint types in use: the Stable Neo-Hookean blocks, the materials' rest state
 * and small-strain moduli, long-range attachments and their geodesics, shape matching in a
 * world and its checker, the scene flags, the static equilibrium solver. */
#include "tests.h"

#include "analysis/pbd_analysis.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double unit_tet[12] = {0, 0, 0, 0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.1};

/* One free SNH tet (E = 1e5 Pa, ν = 0.3, 0.04 kg), vertex 1 pushed 1 mm, no gravity, XPBD
 * with `substeps` of 1 iteration for 2 s: the largest relative edge change over the run. */
static double snh_tet_strain(const pbd_constraint_type *t, int substeps)
{
    pbd_world *w = pbd_world_create(4);
    for (int i = 0; i < 4; i++) pbd_world_set_particle(w, i, unit_tet + 3 * i, NULL, 0.01);
    w->x[3] += 0.001;
    w->def.gravity[1] = 0.0;
    w->def.method = PBD_METHOD_XPBD;
    w->def.iterations = 1;
    w->def.substeps = substeps;
    int set = pbd_world_add_set(w, t, 0);
    int32_t idx[4] = {0, 1, 2, 3};
    double rest[12];
    pbd_eval_input in = {unit_tet, 4, NULL, NULL, 0};
    for (int c = 0; c < 2; c++) pbd_set_add(w, set, idx, rest, 1.0, t->material(&in, 1e5, 0.3, c, rest));
    double worst = 0.0;
    for (int s = 0; s < 120; s++) {
        if (pbd_step(w) != PBD_OK) {
            worst = INFINITY;
            break;
        }
        for (int i = 0; i < 4; i++)
            for (int j = i + 1; j < 4; j++) {
                double d = 0, d0 = 0;
                for (int k = 0; k < 3; k++) {
                    d += pow(w->x[3 * i + k] - w->x[3 * j + k], 2);
                    d0 += pow(unit_tet[3 * i + k] - unit_tet[3 * j + k], 2);
                }
                worst = fmax(worst, fabs(sqrt(d) - sqrt(d0)) / sqrt(d0));
            }
    }
    pbd_world_free(w);
    return worst;
}

/* The hydrostatic and deviatoric rows solved as one block hold a tet at rest where one after
 * the other they crush it (constraints/snh_tet.c's table). */
static void test_snh_block_coupled(void)
{
    pbd_constraint_type one_by_one = pbd_snh_tet_type;
    one_by_one.block = 0;
    double coupled = snh_tet_strain(&pbd_snh_tet_type, 16), apart = snh_tet_strain(&one_by_one, 16);
    printf("\n    16 substeps: largest edge strain coupled %.2g, one by one %.2g ", coupled, apart);
    CU_ASSERT(coupled < 0.01);
    CU_ASSERT(apart > 0.05);
}

/* A tet inverted by reflecting one vertex through the opposite face: the Stable Neo-Hookean
 * pair (C_H = det F − γ pulls det F back through 0) recovers within 1 s; StVK, whose energy
 * sees only FᵀF, is as happy inverted as not and stays so. */
static void test_inversion(void)
{
    const pbd_constraint_type *types[2] = {&pbd_snh_tet_type, &pbd_fem_tet_stvk_type};
    double sign[2];
    for (int t = 0; t < 2; t++) {
        pbd_world *w = pbd_world_create(4);
        for (int i = 0; i < 4; i++) pbd_world_set_particle(w, i, unit_tet + 3 * i, NULL, 0.01);
        w->x[3 * 3 + 2] = w->p[3 * 3 + 2] = -0.1; /* vertex 3 through the face z = 0 */
        w->def.gravity[1] = 0.0;
        w->def.method = PBD_METHOD_XPBD;
        w->def.iterations = 1;
        w->def.substeps = 16;
        int set = pbd_world_add_set(w, types[t], 0);
        int32_t idx[4] = {0, 1, 2, 3};
        double rest[12];
        pbd_eval_input in = {unit_tet, 4, NULL, NULL, 0};
        for (int c = 0; c < types[t]->n_components; c++)
            pbd_set_add(w, set, idx, rest, 1.0, types[t]->material(&in, 1e5, 0.3, c, rest));
        for (int s = 0; s < 60; s++) pbd_step(w);
        sign[t] = pbd_tet_volume(w->x, w->x + 3, w->x + 6, w->x + 9);
        pbd_world_free(w);
    }
    printf("\n    volume after 1 s: snh %.3g m^3, stvk %.3g m^3 (rest 1.67e-4) ", sign[0], sign[1]);
    CU_ASSERT(sign[0] > 0.5 * 1e-3 / 6);
    CU_ASSERT(sign[1] < 0.0);
}

/* The elastic force Σ_k (C_k/α_k) ∇C_k of every material's components vanishes at rest (and
 * rotated rest): the rest state is stress free (for SNH: γ = 1 + μ/λ balances C_D's force). */
static void test_rest_stress_free(void)
{
    pbd_rng r;
    pbd_rng_seed(&r, 99);
    for (int t = 0; t < pbd_constraint_type_count(); t++) {
        const pbd_constraint_type *type = pbd_constraint_type_at(t);
        if (!type->material) continue;
        double worst = 0.0;
        for (int s = 0; s < 50; s++) {
            double x[12], rest[16], g[12], force[12] = {0}, scale = 0.0;
            int n = type->arity;
            for (int i = 0; i < 3 * n; i++) x[i] = pbd_rng_gaussian(&r);
            pbd_eval_input in = {x, n, NULL, NULL, 0};
            double nu = pbd_rng_range(&r, 0.0, 0.45);
            for (int c = 0; c < type->n_components; c++) {
                double alpha = type->material(&in, 1e5, nu, c, rest), C;
                pbd_eval_input e = {x, n, rest, NULL, 0};
                CU_ASSERT_EQUAL(type->eval(&e, &C, g), PBD_EVAL_OK);
                for (int i = 0; i < 3 * n; i++) {
                    force[i] += C / alpha * g[i];
                    scale += fabs(C / alpha * g[i]);
                }
            }
            /* against E L²: the force of a unit strain (rounding of a C ≈ 1e-16 at rest
             * stays far below; SNH's terms are ~μ L² each and must cancel) */
            double f = 0.0, L2 = 0.0;
            for (int i = 0; i < 3 * n; i++) f = fmax(f, fabs(force[i]));
            for (int i = 1; i < n; i++)
                for (int k = 0; k < 3; k++) L2 = fmax(L2, pow(x[3 * i + k] - x[k], 2));
            worst = fmax(worst, f / (1e5 * L2));
            (void)scale;
        }
        CU_ASSERT(worst < 1e-12);
        printf("\n    %-26s force at rest / (E L^2): %.2g", type->name, worst);
    }
}

/* U = Σ C²/(2α) for F = I + ε (random small symmetric ε) against the linear energy
 * V(μ ε:ε + λ/2 tr²ε) (tets; triangles: in-plane ε with the plane-stress λ): the materials'
 * compliances give E and ν at small strain. SNH's matched λ_SNH = λ + μ is what makes it hold
 * for SNH; the strain types decouple the axes, so they match at ν = 0 only. */
static void test_small_strain_moduli(void)
{
    pbd_rng r;
    pbd_rng_seed(&r, 7);
    for (int t = 0; t < pbd_constraint_type_count(); t++) {
        const pbd_constraint_type *type = pbd_constraint_type_at(t);
        if (!type->material) continue;
        int n = type->arity, strain = strncmp(type->name, "strain", 6) == 0;
        double worst = 0.0;
        for (int s = 0; s < 20; s++) {
            double X[12], x[12], rest[PBD_MAX_BLOCK][16], alpha[PBD_MAX_BLOCK];
            for (int i = 0; i < 3 * n; i++) X[i] = 0.0;
            X[3] = 1.0, X[7] = 1.0; /* x0 = 0, x1 = e_x, x2 = e_y (, x3 = e_z): D_m = I */
            if (n == 4) X[11] = 1.0;
            double E = 1e5, nu = strain ? 0.0 : pbd_rng_range(&r, 0.0, 0.45), mu, lambda;
            pbd_lame(E, nu, &mu, &lambda);
            if (n == 3) lambda = E * nu / (1 - nu * nu);
            double eps[9] = {0}, h = 1e-4;
            for (int a = 0; a < 3; a++)
                for (int b = a; b < 3; b++) eps[3 * a + b] = eps[3 * b + a] = h * pbd_rng_gaussian(&r);
            if (n == 3)
                for (int k = 0; k < 3; k++) eps[3 * 2 + k] = eps[3 * k + 2] = 0.0;
            for (int i = 0; i < n; i++)
                for (int a = 0; a < 3; a++)
                    x[3 * i + a] = X[3 * i + a] + eps[3 * a] * X[3 * i] + eps[3 * a + 1] * X[3 * i + 1] +
                                   eps[3 * a + 2] * X[3 * i + 2];
            pbd_eval_input in = {X, n, NULL, NULL, 0};
            double U = 0.0, U0 = 0.0, V = n == 4 ? 1.0 / 6.0 : 0.5;
            for (int c = 0; c < type->n_components; c++) {
                alpha[c] = type->material(&in, E, nu, c, rest[c]);
                double C, C0;
                pbd_eval_input e = {x, n, rest[c], NULL, 0}, e0 = {X, n, rest[c], NULL, 0};
                type->eval(&e, &C, NULL);
                type->eval(&e0, &C0, NULL);
                U += C * C / (2 * alpha[c]);
                U0 += C0 * C0 / (2 * alpha[c]);
            }
            double ee = 0.0, tr = eps[0] + eps[4] + eps[8];
            for (int k = 0; k < 9; k++) ee += eps[k] * eps[k];
            double lin = V * (mu * ee + 0.5 * lambda * tr * tr);
            worst = fmax(worst, fabs((U - U0) - lin) / lin);
        }
        printf("\n    %-26s small-strain energy vs linear elasticity: %.2g", type->name, worst);
        CU_ASSERT(worst < 1e-2);
    }
}

/* On a flat grid the geodesic distance from a corner is the straight line (edge paths alone
 * would be up to 8 % longer); the cloth scene's long-range attachments get those lengths and
 * pull a particle dragged beyond them back in one step. */
static void test_long_range_attachments(void)
{
    pbd_trimesh m;
    CU_ASSERT_EQUAL_FATAL(pbd_mesh_grid(9, 9, 1.0, 1.0, PBD_DIAGONAL_SAME, &m), PBD_OK);
    double *d = malloc((size_t)m.n_vertices * sizeof *d), worst = 0.0;
    for (int src = 0; src < m.n_vertices; src += 8) { /* two corners */
        CU_ASSERT_EQUAL(pbd_trimesh_geodesic(&m, src, d), 0);
        for (int v = 0; v < m.n_vertices; v++) {
            double e = 0.0;
            for (int k = 0; k < 3; k++) e += pow(m.x[3 * v + k] - m.x[3 * src + k], 2);
            worst = fmax(worst, fabs(d[v] - sqrt(e)));
        }
    }
    CU_ASSERT(worst < 1e-12);
    CU_ASSERT_EQUAL(pbd_trimesh_geodesic(&m, -1, d), -1);
    free(d);
    pbd_trimesh_free(&m);

    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 8;
    sp.long_range_attachments = 1;
    pbd_world *w = pbd_scene_cloth(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(w->n_sets, 2);
    CU_ASSERT_PTR_EQUAL(w->sets[1].type, &pbd_long_range_attachment_type);
    CU_ASSERT_EQUAL(w->sets[1].count, 2 * (64 - 2));
    /* the bottom-right particle's attachment to the top-left corner: the diagonal, √2 m */
    int c = -1;
    for (int k = 0; k < w->sets[1].count; k++)
        if (w->sets[1].idx[2 * k] == 63 && w->sets[1].idx[2 * k + 1] == 0) c = k;
    CU_ASSERT_FATAL(c >= 0);
    CU_ASSERT_DOUBLE_EQUAL(w->sets[1].rest[c], sqrt(2.0), 1e-12);
    w->def.gravity[1] = 0.0;
    w->x[3 * 63 + 1] -= 0.5; /* dragged 0.5 m down, beyond both corners' reach */
    w->p[3 * 63 + 1] = w->x[3 * 63 + 1];
    w->def.iterations = 1;
    pbd_step(w);
    double dist = 0.0;
    for (int k = 0; k < 3; k++) dist += pow(w->x[3 * 63 + k] - w->x[k], 2);
    CU_ASSERT(sqrt(dist) <= sqrt(2.0) + 1e-9);
    pbd_world_free(w);
}

/* Scene flags: the materials' sets and compliances, and one clear line for what cannot be. */
static void test_scene_flags(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 4;
    sp.material = 1; /* neo-hookean */
    pbd_world *w = pbd_scene_tet_beam(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(w->n_sets, 1);
    CU_ASSERT_PTR_EQUAL(w->sets[0].type, &pbd_snh_tet_type);
    CU_ASSERT_EQUAL(w->sets[0].count, 2 * 4 * 6);
    double mu, lambda, V = w->sets[0].rest[9];
    pbd_lame(sp.youngs_modulus, sp.poisson_ratio, &mu, &lambda);
    CU_ASSERT_DOUBLE_EQUAL(w->sets[0].compliance[0], 1.0 / ((lambda + mu) * V), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(w->sets[0].compliance[1], 1.0 / (mu * V), 1e-12);
    pbd_world_free(w);
    sp.material = 2; /* stvk has no incompressible limit */
    sp.poisson_ratio = 0.5;
    CU_ASSERT_PTR_NULL(pbd_scene_tet_beam(&sp));
    CU_ASSERT(strstr(pbd_last_error(), "--poisson-ratio") != NULL);
    CU_ASSERT(strstr(pbd_last_error(), "fem_tet_stvk") != NULL);
    CU_ASSERT_PTR_NULL(pbd_scene_cloth(&sp)); /* --material on a cloth */
    CU_ASSERT(strstr(pbd_last_error(), "--material") != NULL);
    sp = pbd_scene_params_default();
    sp.resolution = 5;
    for (int s = 1; s <= 2; s++) {
        sp.stretch = s;
        w = pbd_scene_cloth(&sp);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        const pbd_constraint_type *t = pbd_scene_stretch_type(s);
        CU_ASSERT_PTR_EQUAL(w->sets[0].type, t);
        CU_ASSERT_EQUAL(w->sets[0].count, t->n_components * 2 * 4 * 4);
        pbd_world_free(w);
    }
    sp.stretch = 1;
    CU_ASSERT_PTR_NULL(pbd_scene_tet_beam(&sp));
    CU_ASSERT(strstr(pbd_last_error(), "--stretch") != NULL);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s/pbd-run tet_beam --material=corotated --method=xpbd --steps=3 "
             "--quiet >/dev/null 2>&1", test_bin_dir());
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/pbd-run tet_beam --material=rubber >/dev/null 2>&1",
             test_bin_dir());
    CU_ASSERT_EQUAL(test_run(cmd), 2);
}

/* A cube of 8 particles held by one shape_match cluster: it falls as a rigid body; a dented
 * cube springs back to a rotation of its rest shape in one step (k = 1) with zero momentum
 * kept zero, under PBD and XPBD, Gauss–Seidel, Jacobi and coloured GS. */
static void test_shape_match_world(void)
{
    for (int variant = 0; variant < 4; variant++) {
        pbd_world *w = pbd_world_create(8);
        for (int i = 0; i < 8; i++) {
            double x[3] = {i & 1 ? 0.5 : 0.0, i & 2 ? 0.5 : 0.0, i & 4 ? 0.5 : 0.0};
            pbd_world_set_particle(w, i, x, NULL, 1.0 + i);
        }
        int set = pbd_world_add_set(w, &pbd_shape_match_type, 8);
        int32_t idx[8] = {0, 1, 2, 3, 4, 5, 6, 7};
        CU_ASSERT_EQUAL(pbd_set_add(w, set, idx, NULL, 1.0, 0.0), 0);
        w->def.method = variant == 1 ? PBD_METHOD_XPBD : PBD_METHOD_PBD;
        w->def.scheme = variant == 2 ? PBD_SCHEME_JACOBI
                                     : variant == 3 ? PBD_SCHEME_COLORED_GS : PBD_SCHEME_GAUSS_SEIDEL;
        for (int s = 0; s < 30; s++) pbd_step(w);
        double t = w->time, drop = 0.0, shape = 0.0;
        for (int i = 0; i < 8; i++) drop += (0.25 * ((i & 2) != 0) * 2 - w->x[3 * i + 1]) / 8.0;
        for (int i = 0; i < 8; i++)
            for (int j = i + 1; j < 8; j++) {
                double d = 0, d0 = 0;
                for (int k = 0; k < 3; k++) {
                    d += pow(w->x[3 * i + k] - w->x[3 * j + k], 2);
                    d0 += pow(w->sets[0].rest[3 * i + k] - w->sets[0].rest[3 * j + k], 2);
                }
                shape = fmax(shape, fabs(sqrt(d) - sqrt(d0)));
            }
        CU_ASSERT(shape < 1e-12);
        /* symplectic Euler free fall of the centroid: g Δt² N(N+1)/2 (here with the mean of
         * unweighted y; every particle falls alike) */
        CU_ASSERT_DOUBLE_EQUAL(drop, 9.81 * (t / 30) * (t / 30) * 30 * 31 / 2, 1e-9);
        /* dent vertex 7, no gravity, one step */
        w->def.gravity[1] = 0.0;
        memset(w->v, 0, sizeof(double) * 24);
        w->x[3 * 7] += 0.2;
        w->x[3 * 7 + 2] -= 0.1;
        double lin0[3], ang0[3], lin[3], ang[3], x_before[24];
        memcpy(x_before, w->x, sizeof x_before);
        pbd_momentum(w, w->x, w->v, lin0, ang0);
        pbd_step(w);
        pbd_momentum(w, w->x, w->v, lin, ang);
        /* Rounding bound of the momenta (exact arithmetic gives 0: Σ m_i (g_i − x_i) =
         * M c − Σ m_i x_i + R Σ m_i q_i = 0). c and c0 are sums of n = 8 terms (γ_n each),
         * g_i = c + R q_i adds 4 roundings, the move, the update x += Δx and v = Δx/h add 3
         * more: at most (n + 7) ε Σ m_i (|x_i| + |x'_i|) / h for p, and the same times the
         * largest |x| (twice: x × v and its sum) for L. Any correctly rounded kernel meets it,
         * whichever BLAS the SVD's caller links. */
        double mass_x = 0.0, xmax = 0.0;
        for (int i = 0; i < 8; i++)
            for (int k = 0; k < 3; k++) {
                mass_x += (fabs(x_before[3 * i + k]) + fabs(w->x[3 * i + k])) / w->w[i];
                xmax = fmax(xmax, fabs(w->x[3 * i + k]));
            }
        const double lin_bound = (8 + 7) * DBL_EPSILON * mass_x / w->def.dt;
        const double ang_bound = 2.0 * xmax * lin_bound;
        double after = 0.0;
        for (int i = 0; i < 8; i++)
            for (int j = i + 1; j < 8; j++) {
                double d = 0, d0 = 0;
                for (int k = 0; k < 3; k++) {
                    d += pow(w->x[3 * i + k] - w->x[3 * j + k], 2);
                    d0 += pow(w->sets[0].rest[3 * i + k] - w->sets[0].rest[3 * j + k], 2);
                }
                after = fmax(after, fabs(sqrt(d) - sqrt(d0)));
            }
        CU_ASSERT(after < 1e-12);
        for (int k = 0; k < 3; k++) {
            CU_ASSERT(fabs(lin[k]) <= lin_bound);
            CU_ASSERT(fabs(ang[k]) <= ang_bound);
        }
        CU_ASSERT_EQUAL(w->stats.max_c, 0.0); /* no scalar C: no residual */
        CU_ASSERT_EQUAL(pbd_newton_step(w, 5, 1e-9, NULL, NULL), PBD_EINVAL);
        pbd_world_free(w);
    }
    /* a cluster larger than the type allows is refused with one line */
    pbd_world *w = pbd_world_create(70);
    CU_ASSERT_EQUAL(pbd_world_add_set(w, &pbd_shape_match_type, 70), -1);
    CU_ASSERT(strstr(pbd_last_error(), "at most 64") != NULL);
    pbd_world_free(w);
}

/* A goal projection that moves k² of the way, or one whose centroid ignores the masses: the
 * checker fails them (the fraction check, the momentum check). */
static double broken_k;
static int broken_goal(const pbd_eval_input *in, const double *w, double k, double *x_out)
{
    double wk[PBD_SAMPLE_MAX_ARITY];
    for (int j = 0; j < in->arity; j++) wk[j] = broken_k > 0.0 ? w[j] : 1.0; /* equal masses */
    return pbd_shape_match_type.project_goal(in, wk, broken_k > 0.0 ? k * k : k, x_out);
}

static void test_goal_checker_fails(void)
{
    pbd_constraint_type t = pbd_shape_match_type;
    t.name = "broken_goal";
    t.project_goal = broken_goal;
    pbd_gradcheck_options o = pbd_gradcheck_options_default();
    o.samples = 50;
    o.degenerate_samples = 10;
    pbd_gradcheck_result r;
    for (int mode = 0; mode < 2; mode++) {
        broken_k = mode == 0 ? 1.0 : 0.0;
        CU_ASSERT_EQUAL(pbd_gradcheck_type(&t, &o, &r), PBD_OK);
        CU_ASSERT_FALSE(r.pass);
        if (mode == 0) CU_ASSERT(r.max_rel_err > 0.01);
        if (mode == 1) CU_ASSERT_EQUAL(r.momentum, PBD_GC_MOMENTUM_FAIL);
        pbd_gradcheck_result_free(&r);
    }
    CU_ASSERT_EQUAL(pbd_gradcheck_type(&pbd_shape_match_type, &o, &r), PBD_OK);
    CU_ASSERT(r.pass);
    char line[256];
    pbd_gradcheck_format_line(line, sizeof line, &r);
    CU_ASSERT(strstr(line, "taylor_order=n/a") != NULL);
    pbd_gradcheck_result_free(&r);
}

/* The static solver on a case with a closed form: a mass m on a spring of compliance α settles
 * at extension m g α. */
static void test_static_equilibrium(void)
{
    const double a[3] = {0, 0, 0}, b[3] = {0, -1, 0};
    pbd_world *w = test_two_particles(a, b, 0.0, 2.0);
    w->def.gravity[1] = -9.81;
    int set = pbd_world_add_set(w, &pbd_distance_type, 0);
    int32_t idx[2] = {0, 1};
    pbd_set_add(w, set, idx, NULL, 1.0, 1e-3);
    int it = 0;
    CU_ASSERT_EQUAL(pbd_exp_static_equilibrium(w, 1e-12, 20, &it), PBD_OK);
    CU_ASSERT_DOUBLE_EQUAL(-1.0 - w->x[4], 2.0 * 9.81 * 1e-3, 1e-12);
    w->sets[0].compliance[0] = 0.0;
    CU_ASSERT_EQUAL(pbd_exp_static_equilibrium(w, 1e-12, 20, &it), PBD_EINVAL);
    pbd_world_free(w);
}

/* Every analytic Hessian of the registry against central differences of eval's gradient on
 * the type's regular samples: max |H − H_fd| <= 1e-6 max |H| (step 1e-5 of the sample's size,
 * FD error ~1e-10). A planted slip (a Hessian entry off by 1e-4) would fail. */
static void test_hessians(void)
{
    static double x[3 * PBD_SAMPLE_MAX_ARITY], rest[3 * PBD_SAMPLE_MAX_ARITY];
    static double H[144], gp[12], gm[12];
    static int32_t aux[PBD_SAMPLE_MAX_AUX];
    int with = 0;
    for (int t = 0; t < pbd_constraint_type_count(); t++) {
        const pbd_constraint_type *type = pbd_constraint_type_at(t);
        if (!type->hessian || type->arity < 1 || type->arity > 4) continue;
        pbd_rng r;
        pbd_rng_seed(&r, 5 + (uint64_t)t);
        double worst = 0.0;
        int checked = 0;
        for (int s = 0; s < 200; s++) {
            int n_aux = 0, n = type->sample(&r, 0, x, rest, aux, &n_aux), N = 3 * n;
            pbd_eval_input in = {x, n, rest, aux, n_aux};
            if (type->hessian(&in, H) != PBD_EVAL_OK) continue;
            double L = 0.0, hmax = 0.0, err = 0.0;
            for (int i = 1; i < n; i++)
                for (int k = 0; k < 3; k++) L = fmax(L, fabs(x[3 * i + k] - x[k]));
            double h = 1e-5 * (L > 0.0 ? L : 1.0), C;
            int ok = 1;
            for (int c = 0; c < N && ok; c++) {
                double keep = x[c];
                x[c] = keep + h;
                ok &= type->eval(&in, &C, gp) == PBD_EVAL_OK;
                x[c] = keep - h;
                ok &= type->eval(&in, &C, gm) == PBD_EVAL_OK;
                x[c] = keep;
                for (int rr = 0; rr < N; rr++) {
                    err = fmax(err, fabs(H[rr * N + c] - (gp[rr] - gm[rr]) / (2 * h)));
                    hmax = fmax(hmax, fabs(H[rr * N + c]));
                }
            }
            if (!ok || !(hmax > 0.0)) continue;
            checked++;
            worst = fmax(worst, err / hmax);
        }
        printf("\n    %-22s Hessian vs FD of the gradient: %.2g (%d samples)", type->name, worst,
               checked);
        CU_ASSERT(checked >= 150);
        CU_ASSERT(worst < 1e-6);
        with++;
    }
    CU_ASSERT(with >= 6); /* snh_tet, fem_tet_stvk, fem_triangle, strain_tet, strain_triangle, LRA */
}

void register_materials_tests(void)
{
    CU_pSuite s = CU_add_suite("materials", NULL, NULL);
    CU_add_test(s, "snh_block_coupled", test_snh_block_coupled);
    CU_add_test(s, "inversion", test_inversion);
    CU_add_test(s, "rest_stress_free", test_rest_stress_free);
    CU_add_test(s, "small_strain_moduli", test_small_strain_moduli);
    CU_add_test(s, "long_range_attachments", test_long_range_attachments);
    CU_add_test(s, "scene_flags", test_scene_flags);
    CU_add_test(s, "shape_match_world", test_shape_match_world);
    CU_add_test(s, "goal_checker_fails", test_goal_checker_fails);
    CU_add_test(s, "static_equilibrium", test_static_equilibrium);
    CU_add_test(s, "hessians", test_hessians);
}
