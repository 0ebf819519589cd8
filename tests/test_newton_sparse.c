/* The sparse Newton reference (solver/newton/newton_system.c, newton_linear.c): the same implicit
 * step as the dense GSL oracle on every scene small enough for it, quadratic convergence
 * on the 64² cloth of XPBD Table 1 and on the tet beam, the Hessian fallback, the method in
 * the step (substeps, the iteration log) and the refusals. */
#include "tests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const solver_names[] = {"auto", "umfpack", "cholmod", "dense"};

/* A scene in motion: built with compliance (bending compliance where it bends), then 3
 * XPBD steps so that the step measured starts from a moving, deformed state. */
static pbd_world *moving_scene(const pbd_scene_entry *e, int resolution, double alpha)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = resolution;
    sp.compliance = alpha;
    sp.bend_compliance = 1e-3;
    sp.k_bend = 1.0;
    pbd_world *w = e->build(&sp);
    if (!w) return NULL;
    w->def.method = PBD_METHOD_XPBD;
    w->def.iterations = 20;
    for (int s = 0; s < 3; s++)
        if (pbd_step(w) != PBD_OK) {
            pbd_world_free(w);
            return NULL;
        }
    w->post_step = NULL; /* tear: the step measured is one of the torn state (the Newton
                          * reference refuses a tearing world: test_refusals) */
    return w;
}

static double max_abs_diff(const double *a, const double *b, int n)
{
    double d = 0.0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

/* Every built-in scene at a size the dense LU takes (≤ 4000 unknowns), compliant and, where
 * the constraints allow it, rigid: positions of the sparse solvers within 1e-10 m of the
 * dense oracle's, multipliers within 1e-8 of its largest. */
static void test_sparse_equals_dense(void)
{
    static const struct {
        const char *scene;
        int resolution;
        double alpha;
    } cases[] = {
        {"chain", 20, 1e-8}, {"chain", 12, 0.0},   {"cloth", 8, 1e-6},    {"cloth", 6, 0.0},
        {"cloth_bend", 6, 1e-6}, {"tet_beam", 4, 1e-6}, {"tet_beam", 4, 0.0},
        {"balloon", 1, 1e-5}, {"cloth_bag", 2, 1e-6}, {"tear", 6, 1e-6},
    };
    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const pbd_scene_entry *e = pbd_scene_find(cases[k].scene);
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        double *x[4] = {NULL}, *lam[4] = {NULL};
        int n = 0, m = 0, iters[4];
        for (int solver = PBD_NEWTON_DENSE; solver >= PBD_NEWTON_AUTO; solver--) {
            pbd_world *w = moving_scene(e, cases[k].resolution, cases[k].alpha);
            CU_ASSERT_PTR_NOT_NULL_FATAL(w);
            n = 3 * w->n;
            m = 0;
            for (int s = 0; s < w->n_sets; s++) m += w->sets[s].count;
            x[solver] = malloc((size_t)n * sizeof(double));
            lam[solver] = malloc((size_t)(m > 0 ? m : 1) * sizeof(double));
            w->def.newton_solver = solver;
            pbd_status st = pbd_newton_solve(w, 30, 1e-11, x[solver], lam[solver], NULL,
                                             &iters[solver]);
            if (st != PBD_OK)
                fprintf(stderr, "\n%s r=%d alpha=%g %s: %s\n", cases[k].scene,
                        cases[k].resolution, cases[k].alpha, solver_names[solver],
                        pbd_last_error());
            CU_ASSERT_EQUAL(st, PBD_OK);
            pbd_newton_info info;
            pbd_newton_last_info(w, &info);
            CU_ASSERT(info.residual <= 1e-11);
            if (solver == PBD_NEWTON_DENSE) CU_ASSERT(info.unknowns <= 4000);
            int n_free = 0;
            for (int i = 0; i < w->n; i++) n_free += w->w[i] > 0.0;
            CU_ASSERT_EQUAL(info.unknowns, 3 * n_free + (solver == PBD_NEWTON_UMFPACK ||
                                                         solver == PBD_NEWTON_DENSE ? m : 0));
            pbd_world_free(w);
        }
        double lmax = 0.0;
        for (int c = 0; c < m; c++) lmax = fmax(lmax, fabs(lam[PBD_NEWTON_DENSE][c]));
        for (int solver = PBD_NEWTON_AUTO; solver < PBD_NEWTON_DENSE; solver++) {
            double dx = max_abs_diff(x[solver], x[PBD_NEWTON_DENSE], n);
            double dl = max_abs_diff(lam[solver], lam[PBD_NEWTON_DENSE], m);
            CU_ASSERT(dx <= 1e-10);
            /* rigid constraints are redundant here (a flat mesh, the beam's edges and
             * volumes): λ is not unique there, only ∇Cᵀλ = M(x - x̃), i.e. x */
            if (cases[k].alpha > 0.0) CU_ASSERT(dl <= 1e-8 * lmax);
        }
        /* and the step is a real one: the particles moved */
        pbd_world *w0 = moving_scene(e, cases[k].resolution, cases[k].alpha);
        CU_ASSERT(max_abs_diff(x[PBD_NEWTON_DENSE], w0->x, n) > 1e-5);
        pbd_world_free(w0);
        for (int solver = 0; solver < 4; solver++) {
            free(x[solver]);
            free(lam[solver]);
        }
    }
    for (int i = 0; i < pbd_scene_count(); i++) { /* every built-in scene is among them */
        int found = 0;
        for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++)
            found |= strcmp(cases[k].scene, pbd_scene_at(i)->name) == 0;
        if (!found) { /* or the reference refuses it with the reason (fluids, rods,
                       * contacts: solver/fluid/README.md, solver/README.md "Orientations") */
            pbd_scene_params sp = pbd_scene_params_default();
            sp.resolution = 3;
            pbd_world *w = pbd_scene_at(i)->build(&sp);
            found = w && pbd_newton_check(w) == PBD_EINVAL &&
                    (strstr(pbd_last_error(), "fluid") || w->n_orient > 0 ||
                     strstr(pbd_last_error(), "colliders"));
            pbd_world_free(w);
        }
        CU_ASSERT(found);
    }
}

/* chain_forces (XPBD Fig. 3–4): the Newton chain stepped by the sparse solver gives the top
 * constraint's force of the dense oracle, frame by frame (relative 1e-10). */
static void test_chain_forces_sparse_equals_dense(void)
{
    pbd_world *w[2];
    for (int k = 0; k < 2; k++) {
        pbd_scene_params sp = pbd_scene_params_default();
        sp.resolution = 20;
        sp.total_mass = 20.0;
        sp.compliance = 1e-8;
        w[k] = pbd_scene_chain(&sp);
        for (int i = 0; i < w[k]->n; i++) { /* released horizontally, as chain_forces */
            double y = w[k]->x[3 * i + 1];
            w[k]->x[3 * i] = w[k]->p[3 * i] = -y;
            w[k]->x[3 * i + 1] = w[k]->p[3 * i + 1] = 0.0;
        }
        w[k]->def.newton_solver = k ? PBD_NEWTON_AUTO : PBD_NEWTON_DENSE;
    }
    double worst = 0.0, fmax_seen = 0.0;
    for (int f = 0; f < 60; f++) {
        for (int k = 0; k < 2; k++) CU_ASSERT_EQUAL_FATAL(pbd_newton_step(w[k], 50, 1e-12, NULL, NULL), PBD_OK);
        double ld = w[0]->sets[0].lambda[0], ls = w[1]->sets[0].lambda[0];
        worst = fmax(worst, fabs(ls - ld) / fabs(ld));
        fmax_seen = fmax(fmax_seen, fabs(ld) * 3600.0);
    }
    CU_ASSERT(worst <= 1e-10);
    CU_ASSERT(fmax_seen > 20.0 * 9.81); /* it swung: more than the chain's weight */
    CU_ASSERT(max_abs_diff(w[0]->x, w[1]->x, 3 * w[0]->n) <= 1e-10);
    pbd_world_free(w[0]);
    pbd_world_free(w[1]);
}

/* Quadratic convergence from the XPBD prediction (x = x̃, λ = 0) to ||(g, h)|| ≤ 1e-10 in at
 * most 10 iterations at the default (relative) tolerance: once r_{k-1} < 1e-2 each residual
 * above rounding is at most 1e3 r_{k-1}², and the last ratio is tiny. world: a scene in
 * motion. */
static void check_quadratic(pbd_world *w, const char *what)
{
    double res[11];
    int it = -1;
    pbd_status st = pbd_newton_solve(w, 10, w->def.newton_tol, NULL, NULL, res, &it);
    if (st != PBD_OK) fprintf(stderr, "\n%s: %s\n", what, pbd_last_error());
    CU_ASSERT_EQUAL_FATAL(st, PBD_OK);
    CU_ASSERT(it >= 3 && it <= 10);
    CU_ASSERT(res[it] <= 1e-10);
    CU_ASSERT(res[0] > 1e-3); /* a real problem to start with */
    int checked = 0;
    for (int k = 1; k <= it; k++) {
        /* below 1e-14 the last MINRES solve decides: it stops at a tenth of the stop's bound
         * on ||g|| (solver/newton/README.md "The modified factorisation"), not at the rounding — with
         * L in float (newton_precond.c) the tet beam's last residual is 1.9e-15 where a solve
         * with L in double, an exact one with A's fresh factor, reached 5e-16 */
        if (!(res[k - 1] < 1e-2) || res[k] < 1e-14) continue;
        CU_ASSERT(res[k] <= 1e3 * res[k - 1] * res[k - 1]);
        checked++;
    }
    CU_ASSERT(checked >= 2);
    CU_ASSERT(res[it] / res[it - 1] < 1e-3);
    if (checked < 2 || !(res[it] / res[it - 1] < 1e-3)) {
        fprintf(stderr, "\n%s:", what);
        for (int k = 0; k <= it; k++) fprintf(stderr, " %.2e", res[k]);
        fprintf(stderr, "\n");
    }
}

/* The 64² cloth of XPBD Table 1 (structural, shear and bend springs: 4096 particles,
 * 23 938 constraints, α = 1e-7 m/N) after 5 XPBD frames, and the tet beam (8 × 2 × 2 cubes,
 * 6 tets each; the experiment takes 16 × 4 × 4); full size, it takes ~1 s. */
static void test_quadratic_cloth64_and_beam(void)
{
    pbd_exp_cloth c = {.resolution = 64, .size = 1.0, .mass = 1.0, .shear = 1, .bend = 1,
                       .pinned = 1, .stiffness = 1.0, .compliance = 1e-7};
    pbd_world *w = pbd_exp_cloth_build(&c, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(w->n, 4096);
    CU_ASSERT_EQUAL(w->sets[0].count, 23938);
    w->def.method = PBD_METHOD_XPBD;
    w->def.iterations = 20;
    for (int s = 0; s < 5; s++) pbd_step(w);
    check_quadratic(w, "cloth 64");
    pbd_newton_info info;
    pbd_newton_last_info(w, &info);
    CU_ASSERT_EQUAL(info.unknowns, 3 * 4094); /* the Schur complement */
    CU_ASSERT(info.bytes > 0 && info.nonzeros > 0);
    pbd_world_free(w);

    pbd_world *b = moving_scene(pbd_scene_find("tet_beam"), 8, 1e-6);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    check_quadratic(b, "tet beam");
    pbd_world_free(b);
}

/* A type without an analytic Hessian: distance with hessian = NULL gets central differences
 * of its gradient (local to the constraint) and the same step. */
static int distance_eval(const pbd_eval_input *in, double *C, double *grad)
{
    return pbd_distance_type.eval(in, C, grad);
}
static pbd_constraint_type distance_fd_hessian;

static void test_hessian_fallback(void)
{
    distance_fd_hessian = pbd_distance_type;
    distance_fd_hessian.name = "distance_fd_hessian";
    distance_fd_hessian.eval = distance_eval;
    distance_fd_hessian.hessian = NULL;
    distance_fd_hessian.kernels = NULL;
    double *x[2];
    int it[2];
    for (int k = 0; k < 2; k++) {
        pbd_world *w = moving_scene(pbd_scene_find("cloth"), 10, 1e-6);
        if (k) w->sets[0].type = &distance_fd_hessian;
        x[k] = malloc(3 * (size_t)w->n * sizeof(double));
        CU_ASSERT_EQUAL(pbd_newton_solve(w, 20, 1e-11, x[k], NULL, NULL, &it[k]), PBD_OK);
        pbd_newton_info info;
        pbd_newton_last_info(w, &info);
        CU_ASSERT_EQUAL(info.hessians_skipped, 0);
        if (k) CU_ASSERT(max_abs_diff(x[0], x[1], 3 * w->n) <= 1e-10);
        pbd_world_free(w);
    }
    CU_ASSERT(abs(it[0] - it[1]) <= 1);
    free(x[0]);
    free(x[1]);
}

/* def.method = newton in pbd_step: two substeps equal two implicit steps of dt/2 (the same
 * tolerance, so the same path); the iteration log holds ||(g, h)|| per iterate of the solve
 * that gave the answer, down to <= newton_tol, NaN after. The moving cloth's compressed rows
 * make the first solve of each substep end at a saddle of G, so the answer comes from a
 * solve that descends G ([solver/README.md] "A minimum, not a saddle") and is a proven
 * minimum; ||(g, h)|| decreases at every iterate where the line search is on it: the
 * hanging chain's steps (tension only: no saddle, no second solve). */
static void test_method_newton_in_the_step(void)
{
    pbd_world *a = moving_scene(pbd_scene_find("cloth"), 8, 1e-6);
    pbd_world *b = moving_scene(pbd_scene_find("cloth"), 8, 1e-6);
    a->def.method = PBD_METHOD_NEWTON;
    a->def.substeps = 2;
    CU_ASSERT_EQUAL_FATAL(pbd_step(a), PBD_OK);
    CU_ASSERT_EQUAL(a->stats.newton_minimum, PBD_NEWTON_MINIMUM_PROVEN);
    b->def.dt /= 2;
    for (int s = 0; s < 2; s++)
        CU_ASSERT_EQUAL_FATAL(pbd_newton_step(b, a->def.newton_max_iterations,
                                              a->def.newton_tol, NULL, NULL), PBD_OK);
    CU_ASSERT(max_abs_diff(a->x, b->x, 3 * a->n) <= 1e-12);
    CU_ASSERT(max_abs_diff(a->v, b->v, 3 * a->n) <= 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(a->time, b->time, 1e-15);
    int width = pbd_iteration_log_width(&a->def), per = a->def.newton_max_iterations + 1;
    CU_ASSERT_EQUAL(width, 2 * per);
    pbd_world *c = moving_scene(pbd_scene_find("chain"), 8, 1e-6);
    c->def.method = PBD_METHOD_NEWTON;
    c->def.substeps = 2;
    CU_ASSERT_EQUAL_FATAL(pbd_step(c), PBD_OK);
    pbd_newton_info info;
    pbd_newton_last_info(c, &info);
    CU_ASSERT_EQUAL(info.escapes, 0);
    for (int sub = 0; sub < 2; sub++)
        for (int monotone = 0; monotone < 2; monotone++) {
            const double *r = (monotone ? c->iter_newton : a->iter_newton) + sub * per;
            int k = 1;
            CU_ASSERT(r[0] > (monotone ? 0.0 : 1e-4));
            for (; k < per && !isnan(r[k]); k++)
                if (monotone) CU_ASSERT(r[k] < r[k - 1]);
            CU_ASSERT(k >= 2 && r[k - 1] <= a->def.newton_tol);
            for (; k < per; k++) CU_ASSERT(isnan(r[k]));
        }
    CU_ASSERT(a->stats.newton_iterations >= 2);
    pbd_world_free(c);
    CU_ASSERT(a->stats.xpbd_residual <= 1e-9); /* h = C + α̃λ at the end */
    a->def.damping = PBD_DAMPING_SCALE; /* the implicit step has no damping: refused */
    CU_ASSERT_EQUAL(pbd_step(a), PBD_EINVAL);
    CU_ASSERT(strstr(pbd_last_error(), "damping") != NULL);
    pbd_world_free(a);
    pbd_world_free(b);
}

/* What the implicit step refuses, one line each and before anything moves: contacts (a
 * collider), PBD stiffness without compliance, the dense solver on a big scene. */
static void test_refusals(void)
{
    pbd_world *w = moving_scene(pbd_scene_find("cloth"), 8, 1e-6);
    double x0 = w->x[3 * 10];
    w->sets[0].stiffness[5] = 0.5;
    w->sets[0].compliance[5] = 0.0;
    CU_ASSERT_EQUAL(pbd_newton_step(w, 20, 1e-10, NULL, NULL), PBD_EINVAL);
    CU_ASSERT(strstr(pbd_last_error(), "PBD stiffness k = 0.5") != NULL);
    CU_ASSERT_EQUAL(pbd_newton_check(w), PBD_EINVAL);
    w->sets[0].compliance[5] = 1e-6;
    CU_ASSERT_EQUAL(pbd_newton_check(w), PBD_OK);
    double point[3] = {0.0, -5.0, 0.0}, normal[3] = {0.0, 1.0, 0.0};
    CU_ASSERT(pbd_world_add_plane(w, point, normal, NULL) >= 0);
    CU_ASSERT_EQUAL(pbd_newton_step(w, 20, 1e-10, NULL, NULL), PBD_EINVAL);
    CU_ASSERT(strstr(pbd_last_error(), "colliders or contacts") != NULL);
    CU_ASSERT_EQUAL(w->x[3 * 10], x0);
    pbd_world_free(w);
    /* tearing (a post-step hook changing the topology) is refused before the first step */
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 6;
    sp.compliance = 1e-6;
    sp.bend_compliance = 1e-3;
    w = pbd_scene_find("tear")->build(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(pbd_newton_check(w), PBD_EINVAL);
    CU_ASSERT(strstr(pbd_last_error(), "post-step hook") != NULL);
    w->def.method = PBD_METHOD_NEWTON;
    CU_ASSERT_EQUAL(pbd_step(w), PBD_EINVAL);
    CU_ASSERT_EQUAL(w->step_count, 0);
    pbd_world_free(w);

    pbd_exp_cloth c = {.resolution = 40, .size = 1.0, .mass = 1.0, .pinned = 1,
                       .stiffness = 1.0, .compliance = 1e-6};
    pbd_world *big = pbd_exp_cloth_build(&c, NULL, NULL);
    big->def.newton_solver = PBD_NEWTON_DENSE;
    CU_ASSERT_EQUAL(pbd_newton_solve(big, 10, 1e-10, NULL, NULL, NULL, NULL), PBD_EINVAL);
    CU_ASSERT(strstr(pbd_last_error(), "dense") != NULL);
    pbd_world_free(big);
}

void register_newton_sparse_tests(void)
{
    CU_pSuite s = CU_add_suite("newton_sparse", NULL, NULL);
    CU_add_test(s, "sparse_equals_dense", test_sparse_equals_dense);
    CU_add_test(s, "chain_forces_sparse_equals_dense", test_chain_forces_sparse_equals_dense);
    CU_add_test(s, "quadratic_cloth64_and_beam", test_quadratic_cloth64_and_beam);
    CU_add_test(s, "hessian_fallback", test_hessian_fallback);
    CU_add_test(s, "method_newton_in_the_step", test_method_newton_in_the_step);
    CU_add_test(s, "refusals", test_refusals);
}
