/* The solver families (solver/README.md "Solver families"): VBD, AVBD and Projective
 * Dynamics against closed forms and the Newton reference's implicit step. */
#include "tests.h"
#include "solver/families.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double max_dist(const double *a, const double *b, int n3)
{
    double d = 0.0;
    for (int i = 0; i < n3; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

/* One spring from a fixed particle at the origin to a particle at x0 on the x axis moving at
 * v0 along it, no gravity: the implicit Euler step minimises m/(2h²)(x − y)² + (x − d)²/(2α)
 * along the axis, y = x0 + h v0, so x = (m y/h² + d/α)/(m/h² + 1/α). */
static void test_two_particle_spring(void)
{
    const pbd_method methods[3] = {PBD_METHOD_VBD, PBD_METHOD_AVBD, PBD_METHOD_PD};
    const double m = 0.3, d = 1.0, alpha = 2e-3, x0 = 1.2, v0 = -0.7, h = 0.02;
    const double y = x0 + h * v0, exact = (m * y / (h * h) + d / alpha) / (m / (h * h) + 1 / alpha);
    for (int k = 0; k < 3; k++) {
        double p1[3] = {0, 0, 0}, p2[3] = {x0, 0, 0}, v[3] = {v0, 0, 0};
        pbd_world *w = test_two_particles(p1, p2, INFINITY, m);
        pbd_world_set_particle(w, 1, p2, v, m);
        int set = pbd_world_add_set(w, &pbd_distance_type, 0);
        int32_t idx[2] = {0, 1};
        pbd_set_add(w, set, idx, &d, 1.0, alpha);
        w->def.method = methods[k];
        w->def.dt = h;
        w->def.iterations = 3;
        w->def.avbd_k_start = 1e12; /* AVBD: start at the material stiffness (capped to 1/α) */
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        CU_ASSERT(fabs(w->x[3] - exact) < 1e-12 * fabs(exact));
        CU_ASSERT(fabs(w->v[3] - (exact - x0) / h) < 1e-9);
        CU_ASSERT(w->x[4] == 0.0 && w->x[5] == 0.0);
        /* λ in XPBD's convention: −h² C/α, the spring's force times h² */
        CU_ASSERT(fabs(w->sets[0].lambda[0] + h * h * (exact - d) / alpha) < 1e-12);
        pbd_world_free(w);
    }
}

static pbd_world *cloth(int res, double alpha, pbd_method method, int iterations)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = res;
    sp.compliance = alpha;
    pbd_world *w = pbd_scene_cloth(&sp);
    w->def.method = method;
    w->def.iterations = iterations;
    return w;
}

/* The distance of a method's step to the Newton reference's from the same state (a cloth
 * moved by a few XPBD steps, so that it is swinging). */
static double distance_to_newton(pbd_world *(*make)(pbd_method, int), pbd_method method,
                                 int iterations)
{
    pbd_world *w = make(method, iterations);
    double *xs = malloc(3 * (size_t)w->n * sizeof *xs);
    CU_ASSERT_EQUAL_FATAL(pbd_newton_solve(w, 40, 1e-12, xs, NULL, NULL, NULL), PBD_OK);
    double d = NAN;
    if (pbd_step(w) == PBD_OK) d = max_dist(w->x, xs, 3 * w->n);
    free(xs);
    pbd_world_free(w);
    return d;
}

static pbd_world *swinging_cloth(pbd_method method, int iterations)
{
    pbd_world *w = cloth(8, 1e-4, PBD_METHOD_XPBD, 20);
    for (int s = 0; s < 3; s++) pbd_step(w);
    w->def.method = method;
    w->def.iterations = iterations;
    return w;
}

/* VBD and PD converge to the implicit step as the iterations grow: below 1e-6 m on the 8²
 * cloth at α = 1e-4 m/N (the Newton reference's step moves it by about 3e-3 m). */
static void test_converge_to_newton(void)
{
    const pbd_method methods[2] = {PBD_METHOD_VBD, PBD_METHOD_PD};
    const int iters[3] = {5, 50, 1000};
    for (int k = 0; k < 2; k++) {
        double d[3];
        for (int i = 0; i < 3; i++) d[i] = distance_to_newton(swinging_cloth, methods[k], iters[i]);
        CU_ASSERT(d[0] > d[1] && d[1] > d[2]);
        CU_ASSERT(d[2] < 1e-6);
        CU_ASSERT(d[0] > 1e-6); /* a real problem to start with */
    }
}

/* VBD with Chebyshev acceleration (ρ = 0.9) converges to the same step, closer at equal
 * iterations than without. */
static void test_chebyshev(void)
{
    pbd_world *a = swinging_cloth(PBD_METHOD_VBD, 60), *b = swinging_cloth(PBD_METHOD_VBD, 60);
    b->def.vbd_chebyshev_rho = 0.9;
    double *xs = malloc(3 * (size_t)a->n * sizeof *xs);
    CU_ASSERT_EQUAL_FATAL(pbd_newton_solve(a, 40, 1e-12, xs, NULL, NULL, NULL), PBD_OK);
    CU_ASSERT_EQUAL_FATAL(pbd_step(a), PBD_OK);
    CU_ASSERT_EQUAL_FATAL(pbd_step(b), PBD_OK);
    double da = max_dist(a->x, xs, 3 * a->n), db = max_dist(b->x, xs, 3 * b->n);
    CU_ASSERT(db < 0.5 * da);
    free(xs);
    pbd_world_free(a);
    pbd_world_free(b);
}

static pbd_world *hard_chain(pbd_method method, int iterations)
{
    pbd_scene_params sp = pbd_scene_params_default(); /* compliance 0: hard */
    sp.resolution = 8;
    pbd_world *w = pbd_scene_chain(&sp);
    for (int i = 0; i < w->n; i++) { /* laid out along +x: it swings down */
        w->x[3 * i] = w->p[3 * i] = -w->x[3 * i + 1];
        w->x[3 * i + 1] = w->p[3 * i + 1] = 0.0;
    }
    w->def.method = method;
    w->def.iterations = iterations;
    return w;
}

/* AVBD's augmented Lagrangian takes hard constraints (α = 0) and converges to the implicit
 * step of the hard chain; VBD refuses them with the reason. */
static void test_avbd_hard_chain(void)
{
    double d50 = distance_to_newton(hard_chain, PBD_METHOD_AVBD, 50);
    double d = distance_to_newton(hard_chain, PBD_METHOD_AVBD, 2000);
    CU_ASSERT(d < 1e-6);
    CU_ASSERT(d < d50);
    pbd_world *w = hard_chain(PBD_METHOD_VBD, 10);
    CU_ASSERT_EQUAL(pbd_step(w), PBD_EINVAL);
    CU_ASSERT(strstr(pbd_last_error(), "alpha = 0") != NULL);
    pbd_world_free(w);
    char cmd[1024]; /* pbd-run refuses it up front (nothing on stdout): exit status 2 */
    snprintf(cmd, sizeof cmd, "out=$(%s/pbd-run chain --method=vbd --steps=1 2>/dev/null); "
             "rc=$?; [ -z \"$out\" ] || exit 9; exit $rc", test_bin_dir());
    CU_ASSERT_EQUAL(test_run(cmd), 2);
}

/* Internal constraints, no gravity, nothing fixed: the implicit step conserves linear
 * momentum (its internal forces sum to zero). PD's global solve keeps it at every iteration
 * (Σ_rows of SᵀAᵀ is zero), VBD and AVBD as they converge. */
static void test_momentum(void)
{
    const pbd_method methods[3] = {PBD_METHOD_VBD, PBD_METHOD_AVBD, PBD_METHOD_PD};
    const double bound[3] = {1e-12, 1e-12, 1e-12};
    for (int k = 0; k < 3; k++) {
        pbd_world *w = cloth(6, 1e-2, methods[k], k == 2 ? 3 : 300);
        w->n_attach = 0;
        pbd_rng r;
        pbd_rng_seed(&r, 7);
        for (int i = 0; i < w->n; i++) {
            w->w[i] = 1.0 / (0.01 * (1 + i % 3));
            for (int c = 0; c < 3; c++) w->v[3 * i + c] = pbd_rng_range(&r, -1, 1);
        }
        w->def.gravity[1] = 0.0;
        double l0[3], a0[3], l1[3], a1[3], scale = 0.0;
        pbd_momentum(w, w->x, w->v, l0, a0);
        for (int s = 0; s < 5; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        pbd_momentum(w, w->x, w->v, l1, a1);
        for (int i = 0; i < w->n; i++) scale += sqrt(pow(w->v[3 * i], 2) + pow(w->v[3 * i + 1], 2) +
                                                     pow(w->v[3 * i + 2], 2)) / w->w[i];
        for (int c = 0; c < 3; c++) CU_ASSERT(fabs(l1[c] - l0[c]) < bound[k] * scale);
        pbd_world_free(w);
    }
}

/* 1 and 2 threads give the same bits (a 48² cloth: parallel above 2048 particles). */
static void test_threads_identical(void)
{
    const pbd_method methods[3] = {PBD_METHOD_VBD, PBD_METHOD_AVBD, PBD_METHOD_PD};
    for (int k = 0; k < 3; k++) {
        pbd_world *a = cloth(48, 1e-5, methods[k], 4), *b = cloth(48, 1e-5, methods[k], 4);
        a->def.threads = 1;
        b->def.threads = 2;
        a->def.vbd_chebyshev_rho = b->def.vbd_chebyshev_rho = 0.5;
        for (int s = 0; s < 2; s++) {
            CU_ASSERT_EQUAL_FATAL(pbd_step(a), PBD_OK);
            CU_ASSERT_EQUAL_FATAL(pbd_step(b), PBD_OK);
        }
        CU_ASSERT(b->stats.threads == 2);
        CU_ASSERT(memcmp(a->x, b->x, 3 * (size_t)a->n * sizeof(double)) == 0);
        CU_ASSERT(memcmp(a->v, b->v, 3 * (size_t)a->n * sizeof(double)) == 0);
        pbd_world_free(a);
        pbd_world_free(b);
    }
}

/* Projective Dynamics' corotated tet (Lamé λ = 0: ν = 0) converges to the implicit step; a
 * type without a projection, and the corotated tet with λ != 0, are refused with the reason. */
static void test_pd_tets_and_refusals(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 2;
    sp.material = 3; /* corotated */
    sp.poisson_ratio = 0.0;
    sp.youngs_modulus = 1e5;
    pbd_world *w = pbd_scene_tet_beam(&sp);
    CU_ASSERT_FATAL(w != NULL);
    w->def.method = PBD_METHOD_PD;
    w->def.iterations = 300;
    double *xs = malloc(3 * (size_t)w->n * sizeof *xs);
    CU_ASSERT_EQUAL_FATAL(pbd_newton_solve(w, 40, 1e-12, xs, NULL, NULL, NULL), PBD_OK);
    double move = max_dist(xs, w->x, 3 * w->n);
    CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    CU_ASSERT(max_dist(w->x, xs, 3 * w->n) < 1e-6 * move);
    free(xs);
    pbd_world_free(w);

    sp.poisson_ratio = 0.3;
    w = pbd_scene_tet_beam(&sp);
    w->def.method = PBD_METHOD_PD;
    CU_ASSERT_EQUAL(pbd_step(w), PBD_EINVAL);
    CU_ASSERT(strstr(pbd_last_error(), "Lame lambda = 0") != NULL);
    pbd_world_free(w);

    sp = pbd_scene_params_default();
    sp.resolution = 4;
    sp.bend_compliance = 1e-3;
    w = pbd_scene_cloth_bend(&sp);
    for (int s = 0; s < w->n_sets; s++)
        for (int c = 0; c < w->sets[s].count; c++) w->sets[s].compliance[c] = 1e-3;
    w->def.method = PBD_METHOD_PD;
    CU_ASSERT_EQUAL(pbd_step(w), PBD_EINVAL);
    CU_ASSERT(strstr(pbd_last_error(), "bend_dihedral") != NULL);
    w->def.method = PBD_METHOD_VBD; /* VBD takes the bending energy */
    CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
    pbd_world_free(w);
}

/* Worlds the families cannot step are refused before any step, with the reason: rods
 * (orientations), fluids (rows rebuilt every step), tearing (a post-step hook) and rigid
 * bodies (PBD's two-way coupling: rigid_coupling; the other contact scenes are taken,
 * tests/test_families_contact.c), for every
 * built-in scene that has one and every family method. */
static void test_refuse_orientations_fluids_tearing(void)
{
    const int methods[] = {PBD_METHOD_VBD, PBD_METHOD_AVBD, PBD_METHOD_PD};
    int refused = 0;
    for (int i = 0; i < pbd_scene_count(); i++) {
        pbd_scene_params sp = pbd_scene_params_default();
        sp.resolution = 4;
        pbd_world *w = pbd_scene_at(i)->build(&sp);
        CU_ASSERT_FATAL(w != NULL);
        const char *why = w->n_orient > 0 ? "orientations" : w->fluid ? "fluid"
                          : w->post_step  ? "post-step"
                          : pbd_world_rigid_count(w) > 0 ? "rigid bodies"
                                          : NULL;
        for (unsigned m = 0; why && m < sizeof methods / sizeof methods[0]; m++) {
            w->def.method = methods[m];
            double x0 = w->x[0];
            CU_ASSERT_EQUAL(pbd_family_check(w), PBD_EINVAL);
            CU_ASSERT(strstr(pbd_last_error(), why) != NULL);
            CU_ASSERT_EQUAL(pbd_step(w), PBD_EINVAL);
            CU_ASSERT_EQUAL(w->x[0], x0);
            refused++;
        }
        pbd_world_free(w);
    }
    CU_ASSERT(refused >= 6 * 3); /* rod, helix, dam_break, fluid_rest, tear, rigid_coupling */
}

/* A stop request abandons the step (PBD_EINTR); --record-iterations fills the log, the
 * gradient norm ||M(x − y) + h² ∇E|| falling over the iterations. */
static void test_stop_and_log(void)
{
    static volatile sig_atomic_t flag = 1;
    pbd_world *w = swinging_cloth(PBD_METHOD_VBD, 30);
    pbd_set_stop_flag(&flag);
    CU_ASSERT_EQUAL(pbd_step(w), PBD_EINTR);
    pbd_set_stop_flag(NULL);
    pbd_world_free(w);
    w = swinging_cloth(PBD_METHOD_VBD, 30);
    w->def.record_iterations = 1;
    CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    CU_ASSERT(w->iter_newton[29] < 0.5 * w->iter_newton[0]);
    CU_ASSERT(isfinite(w->iter_max_c[29]) && w->iter_max_c[29] > 0.0);
    pbd_world_free(w);
}

/* Inequalities (a long-range attachment C = ℓ − |p − a| >= 0, Kim et al. 2012): AVBD's λ⁺ is
 * clamped to pushing only, so a particle inside the radius falls freely, and one moving out of
 * it is held at |p − a| = ℓ (hard: to 1e-9 m); VBD's one-sided penalty (α > 0) holds it at the
 * implicit step's stretch. */
static void test_inequality(void)
{
    const double l = 1.0, h = 1.0 / 60.0;
    for (int inside = 0; inside < 2; inside++)
        for (int k = 0; k < 2; k++) {
            double a[3] = {0, 0, 0}, p[3] = {inside ? 0.5 : 0.99, 0, 0};
            double v[3] = {inside ? 0 : 3, 0, 0};
            pbd_world *w = test_two_particles(a, p, INFINITY, 0.1);
            pbd_world_set_particle(w, 1, p, v, 0.1);
            w->def.gravity[1] = -9.81;
            int set = pbd_world_add_set(w, &pbd_long_range_attachment_type, 0);
            int32_t idx[2] = {1, 0};
            pbd_set_add(w, set, idx, &l, 1.0, k ? 1e-4 : 0.0);
            w->def.method = k ? PBD_METHOD_VBD : PBD_METHOD_AVBD;
            w->def.dt = h;
            w->def.iterations = 200;
            CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
            double r = sqrt(w->x[3] * w->x[3] + w->x[4] * w->x[4] + w->x[5] * w->x[5]);
            if (inside) { /* free fall: y = −g h² */
                CU_ASSERT(fabs(w->x[4] + 9.81 * h * h) < 1e-12);
                CU_ASSERT(fabs(w->x[3] - 0.5) < 1e-12);
            } else if (!k) {
                CU_ASSERT(fabs(r - l) < 1e-9);
            } else { /* the penalty: out by about m v/(h k) at most, and not free */
                CU_ASSERT(r > l && r < 0.99 + 3 * h - 1e-3);
            }
            pbd_world_free(w);
        }
}

/* VBD's initial guesses (previous, inertia, acceleration, adaptive) converge to the same step;
 * its damping k_d takes kinetic energy out. */
static void test_init_and_damping(void)
{
    pbd_world *ref = swinging_cloth(PBD_METHOD_VBD, 1000);
    double *xs = malloc(3 * (size_t)ref->n * sizeof *xs);
    CU_ASSERT_EQUAL_FATAL(pbd_newton_solve(ref, 40, 1e-12, xs, NULL, NULL, NULL), PBD_OK);
    for (int init = 0; init < 4; init++) {
        pbd_world *w = swinging_cloth(PBD_METHOD_VBD, 1000);
        w->def.vbd_init = (pbd_vbd_init)init;
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        CU_ASSERT(max_dist(w->x, xs, 3 * w->n) < 1e-6);
        pbd_world_free(w);
    }
    free(xs);
    pbd_world_free(ref);
    double ke[2];
    for (int damped = 0; damped < 2; damped++) {
        pbd_world *w = swinging_cloth(PBD_METHOD_VBD, 50);
        w->def.vbd_damping = damped ? 1e-2 : 0.0;
        for (int s = 0; s < 10; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        ke[damped] = w->stats.kinetic_energy;
        pbd_world_free(w);
    }
    CU_ASSERT(ke[1] < 0.9 * ke[0]);
}

/* The watchdog reads what the families' measure stage found: a set's max |C| above
 * watch-residual stops the step with PBD_ENUMERIC, naming the set. */
static void test_watchdog(void)
{
    pbd_world *w = swinging_cloth(PBD_METHOD_VBD, 10);
    w->def.watch_residual = 1e-9;
    CU_ASSERT_EQUAL(pbd_step(w), PBD_ENUMERIC);
    CU_ASSERT(strstr(pbd_last_error(), "watch-residual") != NULL);
    pbd_world_free(w);
}

/* Projective Dynamics on one thread is one thread: its prefactorisation by CHOLMOD runs
 * CHOLMOD's own OpenMP loops on 1 (solver/pd/pd.c; they open teams of 4 whatever the
 * setting, solver/newton/README.md "The BLAS"). Before: pbd-run's 64² cloth with --threads=1 held 4
 * threads. */
static void test_pd_one_thread(void)
{
    const char *args[] = {"cloth", "--resolution=64", "--method=pd", "--compliance=1e-7",
                          "--steps=2", "--threads=1", "--quiet", NULL};
    int status = -1, most = test_run_threads("pbd-run", args, &status);
    CU_ASSERT_EQUAL(status, 0);
    CU_ASSERT_EQUAL(most, 1);
    if (most != 1) fprintf(stderr, "pd_one_thread: %d threads\n", most);
}

/* The serial sweep written out: VBD's per-vertex solve on the free particles 0 .. n−1. */
static void serial_index_sweep(pbd_world *w, pbd_family_ws *fw, double h)
{
    for (int i = 0; i < w->n; i++)
        if (w->w[i] > 0.0) pbd_vbd_vertex_update(w, fw, &fw->scratch[0], i, h);
}

/* A 12-particle chain (α = 1e-6) swinging with random velocities, 4 steps of 3 iterations. */
static pbd_world *order_chain(pbd_method method, pbd_vbd_order order)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 12;
    sp.compliance = 1e-6;
    pbd_world *w = pbd_scene_chain(&sp);
    pbd_rng r;
    pbd_rng_seed(&r, 7);
    for (int i = 0; i < 3 * w->n; i++) w->v[i] = w->w[i / 3] > 0.0 ? pbd_rng_gaussian(&r) : 0.0;
    w->def.method = method;
    w->def.iterations = 3;
    w->def.vbd_order = order;
    for (int s = 0; s < 4; s++) CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
    return w;
}

/* --vbd-order=index is the serial Gauss–Seidel sweep over the vertices in index order: bit for
 * bit the per-vertex solve called on 0 .. n−1 by hand, and not the colour order (a chain's
 * colouring is even, odd). VBD and AVBD. */
static void test_vbd_index_order(void)
{
    const pbd_method methods[2] = {PBD_METHOD_VBD, PBD_METHOD_AVBD};
    for (int m = 0; m < 2; m++) {
        pbd_world *index = order_chain(methods[m], PBD_VBD_ORDER_INDEX);
        pbd_test_vbd_sweep = serial_index_sweep;
        pbd_world *hand = order_chain(methods[m], PBD_VBD_ORDER_COLOUR);
        pbd_test_vbd_sweep = NULL;
        pbd_world *colour = order_chain(methods[m], PBD_VBD_ORDER_COLOUR);
        size_t bytes = 3 * (size_t)index->n * sizeof(double);
        CU_ASSERT_EQUAL(memcmp(index->x, hand->x, bytes), 0);
        CU_ASSERT_EQUAL(memcmp(index->v, hand->v, bytes), 0);
        CU_ASSERT(max_dist(index->x, colour->x, 3 * index->n) > 1e-9);
        pbd_world_free(index);
        pbd_world_free(hand);
        pbd_world_free(colour);
    }
}

/* AVBD on a stiff soft chain (α = 1e-8 m/N, k* = 1e8 N/m, from rest, one step of 1000
 * iterations): the default ramp starts at the particles' m/h² and adds β|C| ≈ 1e5 · 1e-4 per
 * iteration, so k stays orders below k* and the step ends > 1e-3 m from the implicit one;
 * started at k* (--avbd-k-start=1e8) it ends < 1e-5 m from it (solver/README.md). */
static void test_avbd_stiff_soft_chain(void)
{
    const double k_start[2] = {0.0, 1e8};
    double d[2];
    for (int k = 0; k < 2; k++) {
        pbd_scene_params sp = pbd_scene_params_default();
        sp.compliance = 1e-8;
        pbd_world *w = pbd_scene_chain(&sp);
        w->def.method = PBD_METHOD_AVBD;
        w->def.iterations = 1000;
        w->def.avbd_k_start = k_start[k];
        double *xs = malloc(3 * (size_t)w->n * sizeof *xs);
        CU_ASSERT_EQUAL_FATAL(pbd_newton_solve(w, 40, 1e-12, xs, NULL, NULL, NULL), PBD_OK);
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        d[k] = max_dist(w->x, xs, 3 * w->n);
        free(xs);
        pbd_world_free(w);
    }
    if (!(d[0] > 1e-3 && d[1] < 1e-5)) printf("\n    default %.3g m, k_start = k* %.3g m", d[0], d[1]);
    CU_ASSERT(d[0] > 1e-3);
    CU_ASSERT(d[1] < 1e-5);
}

void register_families_tests(void)
{
    CU_pSuite s = CU_add_suite("families", NULL, NULL);
    CU_add_test(s, "two_particle_spring", test_two_particle_spring);
    CU_add_test(s, "converge_to_newton", test_converge_to_newton);
    CU_add_test(s, "chebyshev", test_chebyshev);
    CU_add_test(s, "avbd_hard_chain", test_avbd_hard_chain);
    CU_add_test(s, "momentum", test_momentum);
    CU_add_test(s, "threads_identical", test_threads_identical);
    CU_add_test(s, "pd_tets_and_refusals", test_pd_tets_and_refusals);
    CU_add_test(s, "refuse_orientations_fluids_tearing", test_refuse_orientations_fluids_tearing);
    CU_add_test(s, "stop_and_log", test_stop_and_log);
    CU_add_test(s, "inequality", test_inequality);
    CU_add_test(s, "init_and_damping", test_init_and_damping);
    CU_add_test(s, "watchdog", test_watchdog);
    CU_add_test(s, "pd_one_thread", test_pd_one_thread);
    CU_add_test(s, "vbd_index_order", test_vbd_index_order);
    CU_add_test(s, "avbd_stiff_soft_chain", test_avbd_stiff_soft_chain);
}
