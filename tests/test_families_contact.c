/* Contacts in the solver families (VBD, AVBD, PD; solver/vbd/vbd_contact.c,
 * solver/pd/pd_contact.c): suite `families_contact`. The Newton reference refuses contacts, so
 * the references here are closed forms: one particle under a plane after one iteration of
 * each family (the paths), a cloth at rest on the ground (VBD: the penalty's sink m g/k_c;
 * AVBD and PD: 0), a cloth sliding to rest after v0²/(2 μ g) (exp_contact's closed form for
 * XPBD), the friction cone |f_t| ≤ μ|f_n| of every row, and no penetration beyond the bound
 * derived per family in the contact scenes of pbd-run. */
#include "tests.h"
#include "solver/families.h"
#include "solver/variants.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define G 9.81


static const int fam[3] = {PBD_METHOD_VBD, PBD_METHOD_AVBD, PBD_METHOD_PD};
static const char *const fam_name[3] = {"vbd", "avbd", "pd"};

static pbd_family_ws *ws_of(pbd_world *w) { return pbd_variants_state_of(w)->family; }

/* One particle of mass m at (0.1, y0, −0.2) moving at v above the plane y = 0 (friction μ),
 * gravity −G along y, dt = 1/60, one substep, `iterations`. */
static pbd_world *one_particle(int method, double m, double y0, const double v[3], double mu,
                               int iterations)
{
    pbd_world *w = pbd_world_create(1);
    const double x[3] = {0.1, y0, -0.2}, o[3] = {0, 0, 0}, up[3] = {0, 1, 0};
    pbd_world_set_particle(w, 0, x, v, m);
    pbd_material mat = {mu, mu, 0.0};
    CU_ASSERT_FATAL(pbd_world_add_plane(w, o, up, &mat) >= 0);
    w->def.method = method;
    w->def.dt = 1.0 / 60.0;
    w->def.iterations = iterations;
    w->def.gravity[0] = w->def.gravity[2] = 0.0;
    w->def.gravity[1] = -G;
    return w;
}

/* The rounding bound of the paths below: the 3×3 adjugate solve and the sums before it take
 * about 20 roundings of relative size ε/2 on numbers no larger than the largest coordinate
 * involved, so 16 ε of that scale bounds their error with room. */
static double path_tol(double scale) { return 16.0 * DBL_EPSILON * scale; }

/* VBD, one iteration per step, one particle falling through the plane, initial guess
 * p = x + h v (--vbd-init=inertia), so y = p + h² g. Step 1: the contact's C = p_y < 0 and
 * the block solve (VBD Sec. 3 with Sec. 4's penalty, H = m/h² + k_c n nᵀ) gives
 *   x_y = (m/h²) y_y/(m/h² + k_c),   k_c = 1e3 m/h²  ⇒  x_y = y_y/1001,
 * and no friction (IPC's λ is lagged: a new contact has none), x_x = p_x. Step 2: the lagged
 * λ = k_c|x1_y| (the penalty's force at the end of step 1), u = h v1_x ≥ ε_v h, so the force
 * −μλ u/|u| and Hessian μλ/|u| P give x_x = p_x − μλ/(m/h² + μλ/|u|), and x_y as above. */
static void test_vbd_path_plane(void)
{
    const double m = 0.02, v[3] = {1.5, -2.0, 0.0}, mu = 0.3;
    pbd_world *w = one_particle(PBD_METHOD_VBD, m, 0.01, v, mu, 1);
    w->def.vbd_init = PBD_VBD_INIT_INERTIA;
    const double h = w->def.dt, mh = m / (h * h), kc = PBD_VBD_CONTACT_RATIO * mh;
    for (int step = 1; step <= 2; step++) {
        double p[3], y[3], lag = kc * fabs(w->x[1]), vx = w->v[0];
        for (int k = 0; k < 3; k++) {
            p[k] = w->x[k] + h * w->v[k];
            y[k] = p[k] + h * h * w->def.gravity[k];
        }
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        const double want_y = mh * y[1] / (mh + kc);
        const double want_x = step == 1 ? p[0] : p[0] - mu * lag / (mh + mu * lag / (h * vx));
        printf("\n    step %d: x_y %.9e (closed form %.9e), x_x %.9e (%.9e) ", step, w->x[1],
               want_y, w->x[0], want_x);
        CU_ASSERT(fabs(w->x[1] - want_y) <= path_tol(fabs(y[1])));
        CU_ASSERT(fabs(w->x[0] - want_x) <= path_tol(fabs(p[0])));
        CU_ASSERT(fabs(w->x[2] - p[2]) <= path_tol(fabs(p[2])));
    }
    pbd_world_free(w);
}

/* AVBD, one iteration: the contact row starts at k = k_start = m/h² (the largest m/h² of the
 * world, hard rows) and λ = 0; the block solve at C = y_y gives x_y = y_y − kC/(m/h² + k) =
 * y_y/2; the update then sets λ = λ⁺ = k C(x) = (m/h²) y_y/2 and k = m/h² + β|y_y|/2, and the
 * step stores XPBD's λ = −h² λ⁺ with λ⁺ = k C(x) + λ at the end: −h²(k + m/h²) y_y/2.
 * Frictionless. */
static void test_avbd_path_plane(void)
{
    const double m = 0.02, v[3] = {0.0, -2.0, 0.0};
    pbd_world *w = one_particle(PBD_METHOD_AVBD, m, 0.01, v, 0.0, 1);
    const double h = w->def.dt, yy = w->x[1] + h * v[1] - h * h * G, k0 = m / (h * h);
    CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    pbd_family_ws *fw = ws_of(w);
    CU_ASSERT_FATAL(fw != NULL && fw->n_contacts == 1);
    int g = fw->m_static;
    const double want_lam = k0 * yy / 2.0, want_k = k0 + w->def.avbd_beta * fabs(yy) / 2.0;
    const pbd_constraint_set *cs = &w->sets[fw->n_static];
    printf("\n    x_y %.9e (y_y/2 = %.9e), lambda %.9e (%.9e), k %.9e (%.9e), XPBD lambda "
           "%.9e ", w->x[1], yy / 2, fw->lam[g], want_lam, fw->k[g], want_k, cs->lambda[0]);
    CU_ASSERT(fabs(w->x[1] - yy / 2.0) <= path_tol(fabs(yy)));
    CU_ASSERT(fabs(fw->lam[g] - want_lam) <= path_tol(fabs(want_lam)));
    CU_ASSERT(fabs(fw->k[g] - want_k) <= path_tol(want_k));
    const double want_xpbd = -h * h * (want_k + k0) * yy / 2.0;
    CU_ASSERT(fabs(cs->lambda[0] - want_xpbd) <= path_tol(fabs(want_xpbd)));
    pbd_world_free(w);
}

/* PD, one iteration: with no constraint the global step returns y, the local contact
 * projection (PBD Eq. 8–9, k = 1) puts it on the plane, x_y = q_y (the entry point's height,
 * 0 up to rounding), and the position-level Coulomb friction takes μδ = μ|y_y| off the
 * tangential displacement u = h v_t (|u| > μδ: sliding). XPBD's λ after the step is m δ. */
static void test_pd_path_plane(void)
{
    const double m = 0.02, v[3] = {1.5, -2.0, 0.0}, mu = 0.3;
    pbd_world *w = one_particle(PBD_METHOD_PD, m, 0.01, v, mu, 1);
    const double h = w->def.dt, x0 = w->x[0];
    const double yy = w->x[1] + h * v[1] - h * h * G, yx = x0 + h * v[0];
    CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    const double want_x = yx - mu * fabs(yy);
    const pbd_constraint_set *cs = &w->sets[ws_of(w)->n_static];
    printf("\n    x_y %.3e (0), x_x %.9e (%.9e), XPBD lambda %.9e (m delta %.9e) ", w->x[1],
           w->x[0], want_x, cs->lambda[0], m * fabs(yy));
    CU_ASSERT(fabs(w->x[1]) <= path_tol(fabs(yy)));
    CU_ASSERT(fabs(w->x[0] - want_x) <= path_tol(fabs(yx)));
    CU_ASSERT(fabs(cs->lambda[0] - m * fabs(yy)) <= path_tol(m * fabs(yy)));
    pbd_world_free(w);
}

/* A contact scene of pbd-run under `method`: dt = 1/60, gravity −G along y, compliance
 * 1e-3 m/N on the cloth's edges: soft enough that 10–20 iterations of each family converge the
 * cloth itself (a stiff cloth, 1e-6 m/N, is VBD's slow case whatever the contacts: the tests
 * here are of the contacts), and k_c = 1e3 m/h² is then VBD's contact stiffness. */
static pbd_world *scene(pbd_world *(*build)(const pbd_scene_params *), pbd_scene_params *sp,
                        int method, int substeps, int iterations)
{
    sp->compliance = 1e-3;
    pbd_world *w = build(sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    w->def.method = method;
    w->def.dt = 1.0 / 60.0;
    w->def.substeps = substeps;
    w->def.iterations = iterations;
    w->def.gravity[0] = w->def.gravity[2] = 0.0;
    w->def.gravity[1] = -G;
    return w;
}

/* Largest |f_t|/(μ|f_n|) over the contact rows of the last substep with μ > 0 and f_n > 0
 * (0 when none). */
static double cone_ratio(pbd_world *w)
{
    pbd_family_ws *fw = ws_of(w);
    double worst = 0.0;
    for (int g = fw->m_static; g < fw->m_static + fw->n_contacts; g++) {
        double fn = fw->cforce[2 * g], ft = fw->cforce[2 * g + 1], mu = fw->cmu[g];
        if (mu > 0.0 && fn > 0.0) worst = fmax(worst, ft / (mu * fn));
    }
    return worst;
}

/* The cone holds to rounding: |f_t| is μλ f1 (VBD, f1 ≤ 1), the clamped λ_t⁺ (AVBD: scaled
 * onto μ|λ⁺|) or m·min(|u|, μδ)/h² (PD), each a few roundings from μ|f_n|. */
#define CONE_TOL (1.0 + 8.0 * DBL_EPSILON)

/* The cloth at rest on the ground (cloth_ground_slide, v0 = 0, μ = 0.4): every vertex holds
 * its own weight, so the rows are independent and the families' answers closed forms:
 * VBD's penalty sinks each vertex by d = m g/k_c = g h²/1e3 (k_c = 1e3 m/h²), AVBD's hard
 * rows and PD's projection leave d = 0. Checked over steps 11–60 (the first step lands at
 * y_y/(1 + k_c h²/m) from the flat start, the error shrinking by m/(m + k_c h²) ≈ 1e-3 a
 * step): VBD's d to 1e-6 relative (each row's block solve is exact, the in-plane springs
 * stay at rest length), AVBD's below the warm start's bound (below), PD's within 1e-12 m;
 * every row active, and the friction cone. */
static void test_resting(void)
{
    for (int f = 0; f < 3; f++) {
        pbd_scene_params sp = pbd_scene_params_default();
        sp.resolution = 4;
        sp.launch_speed = 0.0;
        pbd_world *w = scene(pbd_scene_cloth_ground_slide, &sp, fam[f], 1, 10);
        const double h = w->def.dt, want = f == 0 ? G * h * h / PBD_VBD_CONTACT_RATIO : 0.0;
        double worst = 0.0, cone = 0.0;
        for (int s = 0; s < 60; s++) {
            CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
            for (int i = 0; i < w->n && s >= 10; i++) /* settled: see above */
                worst = fmax(worst, fabs(-w->x[3 * i + 1] - want));
            cone = fmax(cone, cone_ratio(w));
            pbd_contact_stats c = pbd_world_contact_stats(w);
            CU_ASSERT_EQUAL(c.active, 16);
        }
        /* AVBD: the warm start keeps αγ of last step's λ (≈ m g), the rest is rebuilt by the
         * penalty k ≥ k_start = m/h²: d ≤ (1 − αγ) g h²; PD: rounding */
        const pbd_solver_def *d = &w->def;
        const double tol = f == 0 ? 1e-6 * want
                           : f == 1 ? (1.0 - d->avbd_alpha * d->avbd_gamma) * G * h * h : 1e-12;
        printf("\n    %s: depth off the closed form %.3e m (%.3e m: %s), cone ratio %.3f ",
               fam_name[f], worst, want, f == 0 ? "m g/k_c" : "0", cone);
        CU_ASSERT(worst <= tol);
        CU_ASSERT(cone <= CONE_TOL);
        pbd_world_free(w);
    }
}

/* Launched at v0 = 2 m/s on flat ground with μ = 0.3: Coulomb friction takes μ g h off the
 * speed each step (VBD: μλ with λ = m g at rest on the penalty, above ε_v; AVBD: the cone
 * μ|λ_n|; PD: μδ with δ = g h² per step), so the cloth stops after v0²/(2 μ g) within one
 * step's travel v0 h (implicit Euler's sum differs from the integral by v0 h/2); VBD's lagged
 * λ leaves the first step of a new contact without friction (one more v0 h) and its smoothing
 * creeps below ε_v over the second that follows (ε_v · 1 s). 40 iterations: the cloth's rigid
 * slide converges in VBD's vertex sweeps (at 10 VBD slid 0.81 m: a sweep moves one vertex
 * against its springs). */
static void test_slide_distance(void)
{
    const double v0 = 2.0, mu = 0.3;
    for (int f = 0; f < 3; f++) {
        pbd_scene_params sp = pbd_scene_params_default();
        sp.resolution = 4;
        sp.launch_speed = v0;
        sp.mu_static = sp.mu_kinetic = mu;
        pbd_world *w = scene(pbd_scene_cloth_ground_slide, &sp, fam[f], 1, 40);
        double x0 = 0.0, x1 = 0.0, cone = 0.0;
        for (int i = 0; i < w->n; i++) x0 += w->x[3 * i] / w->n;
        for (int s = 0; s < 60; s++) {
            CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
            cone = fmax(cone, cone_ratio(w));
        }
        for (int i = 0; i < w->n; i++) x1 += w->x[3 * i] / w->n;
        const double h = w->def.dt, want = v0 * v0 / (2.0 * mu * G);
        const double bound = v0 * h + (f == 0 ? v0 * h + PBD_FAMILY_FRICTION_EPS_V * 1.0 : 0.0);
        printf("\n    %s: slid %.5f m, v0^2/(2 mu g) = %.5f m, bound %.4f m; cone ratio %.3f, "
               "v %.1e m/s ", fam_name[f], x1 - x0, want, bound, cone, fabs(w->v[0]));
        CU_ASSERT(fabs(x1 - x0 - want) <= bound);
        CU_ASSERT(cone <= CONE_TOL);
        pbd_world_free(w);
    }
}

/* The deepest a particle may end inside a collider in a scene where the cloth meets it at
 * speed v: one substep's travel, v h. The contact is detected on the substep's predicted path
 * and every family then pushes the particle out along the row (VBD's penalty, AVBD's rows,
 * PD's projection) — the particle may end short of the surface by what the iterations leave
 * (the cloth pulling it in, VBD's penalty, AVBD's ramp), but never deeper than the
 * prediction went: no falling through. The resting test above holds the converged depths to
 * their closed forms; the values measured here are printed. */
static double depth_bound(const pbd_world *w, double v) { return v * w->def.dt / w->def.substeps; }

/* cloth_sphere (16², dropped 0.05 m onto the sphere: v = √(2 g 0.05) at impact), 90 steps,
 * and cloth_fold (10², self collision, 2 substeps; VBD 4): penetration of the colliders
 * within depth_bound, the cone, and no self crossing of the cloth. VBD at 2 substeps let one
 * pair cross in 90 steps (20 iterations; 4 at 40, 9 at 1 substep): its bound here is one
 * uniform bound from the detection's margin, not the paper's per-vertex distance to the
 * nearest primitive, and a vertex beside a triangle's outline is not over it when detected
 * (solver/vbd/README.md "Contact", limits). */
static void test_scenes(void)
{
    for (int f = 0; f < 3; f++) {
        double pen = 0.0, cone = 0.0;
        pbd_scene_params sp = pbd_scene_params_default();
        pbd_world *w = scene(pbd_scene_cloth_sphere, &sp, fam[f], 1, 20);
        for (int s = 0; s < 90; s++) {
            CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
            pbd_contact_stats c = pbd_world_contact_stats(w);
            if (c.contacts > 0) pen = fmax(pen, c.penetration_max);
            cone = fmax(cone, cone_ratio(w));
        }
        double bound = depth_bound(w, sqrt(2.0 * G * 0.05));
        printf("\n    %s cloth_sphere: deepest %.3e m (bound %.3e m), cone ratio %.3f ",
               fam_name[f], pen, bound, cone);
        CU_ASSERT(pen <= bound);
        CU_ASSERT(cone <= CONE_TOL);
        pbd_world_free(w);

        sp = pbd_scene_params_default();
        sp.resolution = 10;
        w = scene(pbd_scene_cloth_fold, &sp, fam[f], f == 0 ? 4 : 2, 20);
        long crossings = 0;
        pen = 0.0;
        for (int s = 0; s < 90; s++) {
            CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
            pbd_contact_stats c = pbd_world_contact_stats(w);
            crossings += c.self_crossings;
            if (c.contacts > 0) pen = fmax(pen, c.penetration_max);
        }
        bound = depth_bound(w, sqrt(G * sp.size)); /* the halves fall from half the side */
        printf("\n    %s cloth_fold: self crossings %ld, deepest in the ground %.3e m (bound "
               "%.3e m) ", fam_name[f], crossings, pen, bound);
        CU_ASSERT_EQUAL(crossings, 0);
        CU_ASSERT(pen <= bound);
        pbd_world_free(w);
    }
}

/* VBD on a stiff cloth (1e-6 m/N, k_c = 1/α) crumpling on the sphere and the ground: the
 * full local Hessian of a compressed spring is indefinite with det > 0, and the step it gives
 * goes uphill; VBD then takes the Gauss–Newton block (solver/vbd/vbd.c). Without it the cloth
 * was thrown 14 m up within 90 steps (measured); with it the crumpling cloth's edges flap up
 * by a few centimetres (0.62 m from a start at 0.55 m, measured), so the bound is twice the
 * start height: a sanity bound against the blow-up, not a closed form. */
static void test_vbd_stiff_crumple(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    pbd_world *w = scene(pbd_scene_cloth_sphere, &sp, PBD_METHOD_VBD, 1, 20);
    for (int s = 0; s < w->sets[0].count; s++) w->sets[0].compliance[s] = 1e-6;
    double top = 0.0, y0 = w->x[1];
    for (int s = 0; s < 90; s++) {
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        for (int i = 0; i < w->n; i++) top = fmax(top, w->x[3 * i + 1]);
    }
    printf("\n    highest particle %.3f m (start %.3f m) ", top, y0);
    CU_ASSERT(top <= 2.0 * y0);
    pbd_world_free(w);
}

/* A cloth of 46² = 2116 particles (above PBD_FAMILY_PARALLEL_MIN, so the sweeps run on the
 * threads asked for) sliding on the ground, 3 steps: 1 and 2 threads give the same bits
 * (the contact adjacency is read during a sweep, written only between; a particle's contact
 * rows are summed in a fixed order). */
static void test_threads_identical(void)
{
    for (int f = 0; f < 3; f++) {
        double sum[2] = {0, 0};
        for (int th = 1; th <= 2; th++) {
            pbd_scene_params sp = pbd_scene_params_default();
            sp.resolution = 46;
            pbd_world *w = scene(pbd_scene_cloth_ground_slide, &sp, fam[f], 1, 5);
            w->def.threads = th;
            for (int s = 0; s < 3; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
            CU_ASSERT(ws_of(w)->n_contacts > 0);
            for (int i = 0; i < 3 * w->n; i++) sum[th - 1] += w->x[i] * (i + 1);
            if (th == 2) CU_ASSERT_EQUAL(w->stats.threads, 2);
            pbd_world_free(w);
        }
        printf("\n    %s: 1 thread %.17g, 2 threads %.17g ", fam_name[f], sum[0], sum[1]);
        CU_ASSERT(sum[0] == sum[1]);
    }
}

/* What the families refuse of a contact world, up front with the reason: rigid bodies,
 * restitution, a scene set added after the colliders, a contact stiffness that is NaN or
 * negative. */
/* pbd_step refuses w up front, naming `want`; w is freed. */
static void expect_refusal(pbd_world *w, const char *want)
{
    double x0 = w->x[0];
    CU_ASSERT_EQUAL(pbd_step(w), PBD_EINVAL);
    CU_ASSERT(strstr(pbd_last_error(), want) != NULL);
    CU_ASSERT_EQUAL(w->x[0], x0);
    printf("\n    %s ", pbd_last_error());
    pbd_world_free(w);
}

static void test_refusals(void)
{
    const int32_t e[2] = {0, 1};
    const double d = 0.25, bad[2] = {NAN, -1.0};
    for (int f = 0; f < 3; f++) {
        pbd_scene_params sp = pbd_scene_params_default();
        sp.restitution = 0.5;
        expect_refusal(scene(pbd_scene_cloth_ground_slide, &sp, fam[f], 1, 2), "restitution 0");
        sp = pbd_scene_params_default();
        expect_refusal(scene(pbd_scene_rigid_coupling, &sp, fam[f], 1, 2), "rigid bodies");
        sp = pbd_scene_params_default();
        sp.resolution = 4;
        pbd_world *w = scene(pbd_scene_cloth_ground_slide, &sp, fam[f], 1, 2);
        int s = pbd_world_add_set(w, &pbd_distance_type, 1);
        CU_ASSERT_FATAL(s >= 0);
        CU_ASSERT_EQUAL(pbd_set_add(w, s, e, &d, 1.0, 1e-6), 0);
        expect_refusal(w, "expected the contact sets last");
        for (int b = 0; b < 2; b++) {
            sp = pbd_scene_params_default();
            w = scene(pbd_scene_cloth_ground_slide, &sp, fam[f], 1, 2);
            w->def.vbd_contact_stiffness = bad[b];
            expect_refusal(w, "vbd-contact-stiffness");
        }
        if (fam[f] != PBD_METHOD_PD) { /* Chebyshev over contacts (solver/vbd/README.md) */
            sp = pbd_scene_params_default();
            w = scene(pbd_scene_cloth_ground_slide, &sp, fam[f], 1, 2);
            w->def.vbd_chebyshev_rho = 0.9;
            expect_refusal(w, "vbd-chebyshev: expected 0 in a world with contacts");
        }
    }
}

void register_families_contact_tests(void)
{
    CU_pSuite s = CU_add_suite("families_contact", NULL, NULL);
    CU_add_test(s, "vbd_path_plane", test_vbd_path_plane);
    CU_add_test(s, "avbd_path_plane", test_avbd_path_plane);
    CU_add_test(s, "pd_path_plane", test_pd_path_plane);
    CU_add_test(s, "resting", test_resting);
    CU_add_test(s, "slide_distance", test_slide_distance);
    CU_add_test(s, "scenes", test_scenes);
    CU_add_test(s, "vbd_stiff_crumple", test_vbd_stiff_crumple);
    CU_add_test(s, "threads_identical", test_threads_identical);
    CU_add_test(s, "refusals", test_refusals);
}
