/* Solver variants: XPBD (with constraint damping), Jacobi with averaging and SOR,
 * coloured Gauss–Seidel, the per-iteration XPBD residual. */
#include "tests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A mass m hanging from a fixed particle by a distance constraint of rest length 1:
 * particle 0 fixed at the origin, particle 1 below it at rest length. */
static pbd_world *hanging_mass(double m, double stiffness, double compliance)
{
    const double top[3] = {0, 0, 0}, bottom[3] = {0, -1, 0};
    pbd_world *w = test_two_particles(top, bottom, 0.0, m);
    w->def.gravity[1] = -9.81;
    int s = pbd_world_add_set(w, &pbd_distance_type, 0);
    int32_t idx[2] = {0, 1};
    double rest = 1.0;
    pbd_set_add(w, s, idx, &rest, stiffness, compliance);
    return w;
}

static double extension(const pbd_world *w)
{
    const double *a = w->x, *b = w->x + 3;
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                (a[2] - b[2]) * (a[2] - b[2])) - 1.0;
}

static double max_abs_diff(const double *a, const double *b, int n)
{
    double d = 0.0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

/* XPBD's static extension of a spring (α = 1/k) under a weight is m g α, whatever the
 * iteration count and time step (XPBD Sec. 3.3); it settles under XPBD's own constraint
 * damping (Eq. 26), which leaves the static solution alone. Scale damping would not do
 * here: PBD Algorithm 1 damps after adding gravity, which scales the weight by 1 - k. */
static void test_xpbd_static_extension(void)
{
    const double m = 1.0, k = 1000.0, alpha = 1.0 / k, expect = m * 9.81 * alpha;
    const int iterations[] = {1, 5, 50};
    const double dts[] = {1.0 / 60, 1.0 / 240};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 2; b++) {
            pbd_world *w = hanging_mass(m, 1.0, alpha);
            w->def.method = PBD_METHOD_XPBD;
            w->def.iterations = iterations[a];
            w->def.dt = dts[b];
            w->def.xpbd_beta = 50.0; /* N s/m, near critical (2 sqrt(k m) = 63) */
            int steps = (int)(10.0 / w->def.dt);
            for (int s = 0; s < steps; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
            CU_ASSERT(fabs(extension(w) - expect) <= 1e-6 * expect);
            CU_ASSERT(fabs(w->v[4]) < 1e-9);
            pbd_world_free(w);
        }
}

/* PBD's stiffness depends on the iteration count: with k = 0.1 the static extension is
 * (1-k)^n Δt² g / (1 - (1-k)^n), 9 Δt² g for n = 1 and 0.005 Δt² g for n = 50. */
static void test_pbd_extension_depends_on_iterations(void)
{
    double ext[2];
    const int iterations[2] = {1, 50};
    for (int a = 0; a < 2; a++) {
        pbd_world *w = hanging_mass(1.0, 0.1, 0.0);
        w->def.iterations = iterations[a];
        w->def.damping = PBD_DAMPING_SCALE;
        w->def.k_damping = 0.05;
        for (int s = 0; s < 1500; s++) pbd_step(w);
        ext[a] = extension(w);
        pbd_world_free(w);
    }
    CU_ASSERT(ext[0] > 100.0 * ext[1]);
    CU_ASSERT(ext[1] > 0.0);
}

/* One XPBD iteration with constraint damping against XPBD Eq. 26 worked by hand:
 * a free particle moving along a spring to a fixed one. */
static void test_xpbd_damping_formula(void)
{
    const double alpha = 2e-3, beta = 7.0, dt = 0.01, m = 0.5, vy = -3.0;
    pbd_world *w = hanging_mass(m, 1.0, alpha);
    w->def.gravity[1] = 0.0;
    w->def.method = PBD_METHOD_XPBD;
    w->def.iterations = 1;
    w->def.dt = dt;
    w->def.xpbd_beta = beta;
    w->v[4] = vy;
    CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    /* along -y: x̃ = -1 + dt vy, C = |x̃| - 1, ∇C·(x̃ - x_n) = -dt vy (∇C = -e_y) */
    double at = alpha / (dt * dt), bt = dt * dt * beta, gamma = at * bt / dt;
    double C = (1.0 - dt * vy) - 1.0, rate = -dt * vy, wi = 1.0 / m;
    double dlambda = (-C - gamma * rate) / ((1.0 + gamma) * wi + at);
    double y = (-1.0 + dt * vy) + wi * dlambda * (-1.0);
    CU_ASSERT_DOUBLE_EQUAL(w->x[4], y, 1e-14);
    CU_ASSERT_DOUBLE_EQUAL(w->sets[0].lambda[0], dlambda, 1e-14);
    CU_ASSERT_DOUBLE_EQUAL(w->v[4], (y + 1.0) / dt, 1e-11);
    /* and the damping did something: without it the particle moves further */
    pbd_world *u = hanging_mass(m, 1.0, alpha);
    u->def = w->def;
    u->def.xpbd_beta = 0.0;
    u->v[4] = vy;
    pbd_step(u);
    CU_ASSERT(u->x[4] < w->x[4] - 1e-4);
    pbd_world_free(u);
    pbd_world_free(w);
}

/* α = 0 XPBD is k = 1 PBD (XPBD Eq. 18 with α̃ = 0 is PBD Eq. 8–9). */
static void test_xpbd_rigid_equals_pbd(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 8;
    pbd_world *a = pbd_scene_cloth(&sp), *b = pbd_scene_cloth(&sp);
    sp.resolution = 12;
    pbd_world *c = pbd_scene_chain(&sp), *d = pbd_scene_chain(&sp);
    a->def.method = c->def.method = PBD_METHOD_XPBD;
    for (int s = 0; s < 30; s++) {
        pbd_step(a);
        pbd_step(b);
        pbd_step(c);
        pbd_step(d);
    }
    CU_ASSERT(max_abs_diff(a->x, b->x, 3 * a->n) <= 1e-12);
    CU_ASSERT(max_abs_diff(c->x, d->x, 3 * c->n) <= 1e-12);
    /* and the cloth did move */
    CU_ASSERT(fabs(a->x[3 * (a->n - 1) + 1] - (-1.0)) > 1e-2);
    pbd_world_free(a);
    pbd_world_free(b);
    pbd_world_free(c);
    pbd_world_free(d);
}

/* The measured XPBD residual ||C + α̃λ||: near zero once XPBD has converged on soft
 * constraints, while C itself is not; per iteration it falls. */
static void test_xpbd_residual(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 6;
    sp.compliance = 1e-3;
    pbd_world *w = pbd_scene_chain(&sp);
    w->def.method = PBD_METHOD_XPBD;
    w->def.iterations = 200;
    w->def.substeps = 2;
    w->def.record_iterations = 1;
    for (int s = 0; s < 10; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    CU_ASSERT(w->stats.xpbd_residual < 1e-12);
    CU_ASSERT(w->stats.l2_c > 1e-3);
    int n = w->def.iterations * w->def.substeps;
    CU_ASSERT(w->iter_xpbd[n - 1] < 1e-12);
    CU_ASSERT(w->iter_xpbd[w->def.iterations] < w->iter_xpbd[0] || w->iter_xpbd[0] < 1e-12);
    CU_ASSERT(w->iter_xpbd[5] < 1e-2 * w->iter_xpbd[0]);
    pbd_world_free(w);
}

/* A 10-particle chain, top fixed, stretched by 20 % and bent a little, no gravity. */
static pbd_world *stretched_chain(int n)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = n;
    pbd_world *w = pbd_scene_chain(&sp);
    for (int i = 0; i < n; i++) {
        w->x[3 * i + 1] *= 1.2;
        w->x[3 * i] = i ? 0.05 * sin(1.7 * i) : 0.0;
    }
    memcpy(w->p, w->x, 3 * (size_t)n * sizeof(double));
    w->def.gravity[1] = 0.0;
    return w;
}

/* Jacobi with averaging and ω = 1 converges on a chain, the residual falling after every
 * iteration; over-relaxation ω = 1.5 gets further in the same iterations. */
static void test_jacobi_converges(void)
{
    double last[2];
    const double omegas[2] = {1.0, 1.5};
    for (int o = 0; o < 2; o++) {
        pbd_world *w = stretched_chain(10);
        w->def.scheme = PBD_SCHEME_JACOBI;
        w->def.sor_omega = omegas[o];
        w->def.iterations = 2000;
        w->def.record_iterations = 1;
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        int monotone = 1;
        for (int k = 1; k < w->def.iterations; k++)
            if (w->iter_l2_c[k] > w->iter_l2_c[k - 1]) monotone = 0;
        CU_ASSERT(monotone);
        last[o] = w->iter_l2_c[w->def.iterations - 1];
        CU_ASSERT(last[o] < 1e-8);
        CU_ASSERT(w->iter_l2_c[0] > 1e-2);
        pbd_world_free(w);
    }
    CU_ASSERT(last[1] < 1e-2 * last[0]);
}

/* Jacobi differs from Gauss–Seidel in a sweep: every constraint sees the same positions.
 * Two constraints sharing the middle particle of three, both stretched: one Jacobi
 * iteration moves the middle particle by the average of the two corrections. */
static void test_jacobi_one_sweep(void)
{
    pbd_world *w = pbd_world_create(3);
    const double x0[3] = {-2, 0, 0}, x1[3] = {0, 0, 0}, x2[3] = {0, 3, 0};
    pbd_world_set_particle(w, 0, x0, NULL, 0.0);
    pbd_world_set_particle(w, 1, x1, NULL, 1.0);
    pbd_world_set_particle(w, 2, x2, NULL, 0.0);
    w->def.gravity[1] = 0.0;
    w->def.iterations = 1;
    w->def.scheme = PBD_SCHEME_JACOBI;
    w->def.sor_omega = 0.8;
    int s = pbd_world_add_set(w, &pbd_distance_type, 0);
    int32_t a[2] = {0, 1}, b[2] = {1, 2};
    double rest = 1.0;
    pbd_set_add(w, s, a, &rest, 1.0, 0.0);
    pbd_set_add(w, s, b, &rest, 1.0, 0.0);
    CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    /* alone, constraint a moves particle 1 by (-1, 0, 0), constraint b by (0, 2, 0) */
    CU_ASSERT_DOUBLE_EQUAL(w->x[3], 0.8 * -1.0 / 2, 1e-14);
    CU_ASSERT_DOUBLE_EQUAL(w->x[4], 0.8 * 2.0 / 2, 1e-14);
    pbd_world_free(w);
}

/* XPBD with Jacobi converges to the same hanging chain as XPBD with Gauss–Seidel: the
 * stretch of every link is α × the weight below it. */
static void test_jacobi_xpbd_static_chain(void)
{
    double end[2];
    for (int scheme = 0; scheme < 2; scheme++) {
        pbd_scene_params sp = pbd_scene_params_default();
        sp.resolution = 10;
        sp.compliance = 1e-3;
        pbd_world *w = pbd_scene_chain(&sp);
        w->def.method = PBD_METHOD_XPBD;
        w->def.scheme = scheme == 0 ? PBD_SCHEME_GAUSS_SEIDEL : PBD_SCHEME_JACOBI;
        w->def.iterations = 300;
        w->def.xpbd_beta = 0.5;
        for (int s = 0; s < 400; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        end[scheme] = w->x[3 * 9 + 1];
        pbd_world_free(w);
    }
    /* links carry 9, 8, … 1 particles of 0.1 kg: Σ = 45 × 0.981 N × α */
    double expect = -1.0 - 45 * 0.1 * 9.81 * 1e-3;
    CU_ASSERT_DOUBLE_EQUAL(end[0], expect, 1e-7);
    CU_ASSERT_DOUBLE_EQUAL(end[1], expect, 1e-7);
}

/* The colouring is a valid one: each set's order is a permutation, no two constraints of
 * a colour share a particle, and there are at least as many colours as constraints meet
 * at one particle (a lower bound for any valid colouring). */
static void check_colouring(pbd_world *w)
{
    CU_ASSERT_EQUAL_FATAL(pbd_world_colour(w), PBD_OK);
    int *seen_particle = malloc((size_t)w->n * sizeof *seen_particle);
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        const int32_t *order, *start;
        int nc = pbd_set_colours(w, s, &order, &start);
        CU_ASSERT_FATAL(nc >= 1);
        CU_ASSERT_EQUAL(start[0], 0);
        CU_ASSERT_EQUAL(start[nc], set->count);
        char *used = calloc((size_t)set->count, 1);
        int *degree = calloc((size_t)w->n, sizeof *degree);
        for (int c = 0; c < set->count; c++)
            for (int j = 0; j < set->arity; j++) degree[set->idx[c * set->arity + j]]++;
        int max_degree = 0;
        for (int i = 0; i < w->n; i++) max_degree = degree[i] > max_degree ? degree[i] : max_degree;
        CU_ASSERT(nc >= max_degree);
        int valid = 1, perm = 1;
        for (int k = 0; k < nc; k++) {
            for (int i = 0; i < w->n; i++) seen_particle[i] = 0;
            for (int q = start[k]; q < start[k + 1]; q++) {
                int c = order[q];
                if (c < 0 || c >= set->count || used[c]) {
                    perm = 0;
                    continue;
                }
                used[c] = 1;
                for (int j = 0; j < set->arity; j++)
                    if (seen_particle[set->idx[c * set->arity + j]]++) valid = 0;
            }
        }
        CU_ASSERT(valid);
        CU_ASSERT(perm);
        free(used);
        free(degree);
    }
    free(seen_particle);
}

static void test_colouring_valid(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 12;
    pbd_world *cloth = pbd_scene_cloth(&sp);
    check_colouring(cloth);
    const int32_t *order, *start;
    CU_ASSERT(pbd_set_colours(cloth, 0, &order, &start) <= 12); /* greedy stays near 6 */
    pbd_world *chain = pbd_scene_chain(&sp);
    check_colouring(chain);
    CU_ASSERT_EQUAL(pbd_set_colours(chain, 0, &order, &start), 2);
    /* adding a constraint makes the colouring stale; the step colours it again */
    int32_t idx[2] = {0, 5};
    CU_ASSERT(pbd_set_add(chain, 0, idx, NULL, 1.0, 0.0) >= 0);
    CU_ASSERT_EQUAL(pbd_set_colours(chain, 0, &order, &start), -1);
    chain->def.scheme = PBD_SCHEME_COLORED_GS;
    CU_ASSERT_EQUAL(pbd_step(chain), PBD_OK);
    int nc = pbd_set_colours(chain, 0, &order, &start);
    CU_ASSERT_EQUAL(nc, 3);
    CU_ASSERT_EQUAL(start[nc], chain->sets[0].count);
    check_colouring(chain);
    pbd_world_free(cloth);
    pbd_world_free(chain);
}

/* Coloured Gauss–Seidel gives bit-identical results with 1 and 2 threads (PBD, and XPBD
 * with constraint damping and substeps). The 14 × 14 cloth has 533 constraints, enough
 * for the sweep to run on 2 threads. */
static void test_coloured_threads_identical(void)
{
    for (int method = 0; method < 2; method++) {
        pbd_world *w[2];
        for (int t = 0; t < 2; t++) {
            pbd_scene_params sp = pbd_scene_params_default();
            sp.resolution = 14;
            sp.stiffness = 0.8;
            sp.compliance = 1e-5;
            w[t] = pbd_scene_cloth(&sp);
            w[t]->def.scheme = PBD_SCHEME_COLORED_GS;
            w[t]->def.threads = t + 1;
            w[t]->def.method = method;
            w[t]->def.xpbd_beta = 0.1;
            w[t]->def.substeps = 2;
            w[t]->def.iterations = 3; /* few barriers: fast even on a loaded machine */
            for (int s = 0; s < 6; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w[t]), PBD_OK);
        }
        size_t bytes = 3 * (size_t)w[0]->n * sizeof(double);
        CU_ASSERT(memcmp(w[0]->x, w[1]->x, bytes) == 0);
        CU_ASSERT(memcmp(w[0]->v, w[1]->v, bytes) == 0);
        CU_ASSERT(memcmp(w[0]->sets[0].lambda, w[1]->sets[0].lambda,
                         (size_t)w[0]->sets[0].count * sizeof(double)) == 0);
        CU_ASSERT(w[0]->x[3 * (w[0]->n - 1) + 1] < -1.001); /* it fell */
        pbd_world_free(w[0]);
        pbd_world_free(w[1]);
    }
}

/* Gauss–Seidel and coloured Gauss–Seidel both bring a hanging chain to its rest lengths. */
static void test_chain_rest_lengths(void)
{
    for (int scheme = 0; scheme < 3; scheme += 2) {
        pbd_scene_params sp = pbd_scene_params_default();
        sp.resolution = 12;
        pbd_world *w = pbd_scene_chain(&sp);
        w->def.scheme = scheme;
        w->def.threads = 1; /* the colouring's order; threads are tested above */
        w->def.iterations = 600;
        w->def.damping = PBD_DAMPING_SCALE;
        w->def.k_damping = 0.05;
        for (int s = 0; s < 200; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        const pbd_constraint_set *set = &w->sets[0];
        double worst = 0.0;
        for (int c = 0; c < set->count; c++) {
            const double *a = w->x + 3 * set->idx[2 * c], *b = w->x + 3 * set->idx[2 * c + 1];
            double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                            (a[2] - b[2]) * (a[2] - b[2]));
            worst = fmax(worst, fabs(d - set->rest[c]) / set->rest[c]);
        }
        CU_ASSERT(worst < 1e-6);
        CU_ASSERT(w->x[3 * 11 + 1] < -0.99);
        pbd_world_free(w);
    }
}

/* Every variant is a pbd-run flag; bad values give exit status 2. */
static int run(const char *args)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s/pbd-run %s >/dev/null 2>&1", test_bin_dir(), args);
    return test_run(cmd);
}

static void test_pbd_run_flags(void)
{
    CU_ASSERT_EQUAL(run("chain --steps=3 --quiet --method=xpbd --compliance=1e-4 "
                        "--xpbd-damping=2 --substeps=2"), 0);
    CU_ASSERT_EQUAL(run("cloth --steps=3 --quiet --scheme=jacobi --sor-omega=1.5"), 0);
    CU_ASSERT_EQUAL(run("cloth --steps=3 --quiet --scheme=colored --threads=2"), 0);
    CU_ASSERT_EQUAL(run("cloth --steps=3 --quiet --damping=momentum --k-damping=0.2"), 0);
    CU_ASSERT_EQUAL(run("chain --xpbd-damping=-1"), 2);
    CU_ASSERT_EQUAL(run("chain --xpbd-damping=nan"), 2);
    CU_ASSERT_EQUAL(run("chain --sor-omega=2.5"), 2);
    CU_ASSERT_EQUAL(run("chain --scheme=red-black"), 2);
    CU_ASSERT_EQUAL(run("chain --damping=viscous"), 2);
    CU_ASSERT_EQUAL(run("chain --threads=-1"), 2);
}

void register_variants_tests(void)
{
    CU_pSuite s = CU_add_suite("variants", NULL, NULL);
    CU_add_test(s, "xpbd_static_extension", test_xpbd_static_extension);
    CU_add_test(s, "pbd_extension_depends_on_iterations", test_pbd_extension_depends_on_iterations);
    CU_add_test(s, "xpbd_damping_formula", test_xpbd_damping_formula);
    CU_add_test(s, "xpbd_rigid_equals_pbd", test_xpbd_rigid_equals_pbd);
    CU_add_test(s, "xpbd_residual", test_xpbd_residual);
    CU_add_test(s, "jacobi_converges", test_jacobi_converges);
    CU_add_test(s, "jacobi_one_sweep", test_jacobi_one_sweep);
    CU_add_test(s, "jacobi_xpbd_static_chain", test_jacobi_xpbd_static_chain);
    CU_add_test(s, "colouring_valid", test_colouring_valid);
    CU_add_test(s, "coloured_threads_identical", test_coloured_threads_identical);
    CU_add_test(s, "chain_rest_lengths", test_chain_rest_lengths);
    CU_add_test(s, "pbd_run_flags", test_pbd_run_flags);
}
