/* The contact scenes of pbd-run (experiments/scenes/scene_contact.c) against closed forms:
 * PBD Sec. 3.4's contacts with the velocity update's Coulomb friction and restitution
 * (solver/collision/collision_hooks.c), Sec. 4.2's two-way coupling and Sec. 4.3's self
 * collision, measured through pbd_world_contact_stats, which /series/contact/ logs.
 * Suite `contact_scenes`. */
#include "tests.h"

#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define G 9.81

/* A contact scene with dt = 1/60 s, `substeps`, `iterations`, gravity -G along y. */
static pbd_world *contact_scene(pbd_world *(*build)(const pbd_scene_params *),
                                const pbd_scene_params *sp, int substeps, int iterations)
{
    pbd_world *w = build(sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    w->def.dt = 1.0 / 60.0;
    w->def.substeps = substeps;
    w->def.iterations = iterations;
    w->def.gravity[1] = -G;
    return w;
}

/* Mean position of the free particles. */
static void centroid(const pbd_world *w, double c[3])
{
    int n = 0;
    c[0] = c[1] = c[2] = 0.0;
    for (int i = 0; i < w->n; i++) {
        if (w->w[i] <= 0.0) continue;
        for (int k = 0; k < 3; k++) c[k] += w->x[3 * i + k];
        n++;
    }
    for (int k = 0; k < 3; k++) c[k] /= n;
}

static pbd_scene_params slide_params(double v0, double mu_s, double mu_k, double e)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 4;
    sp.launch_speed = v0;
    sp.mu_static = mu_s;
    sp.mu_kinetic = mu_k;
    sp.restitution = e;
    return sp;
}

/* Each scene runs in pbd-run (small, few steps) and writes /series/contact/ with a row per
 * step and units on every column; cloth_ground_slide's contacts are all 16 particles. */
static void test_scenes_write_contact_series(void)
{
    char dir[] = "/tmp/pbd-contact-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    const char *runs[][2] = {{"cloth_sphere", "--resolution=6"},
                             {"cloth_ground_slide", "--resolution=4"},
                             {"cloth_fold", "--resolution=6"},
                             {"rigid_coupling", "--resolution=6 --body=sphere"}};
    static const char *const cols[] = {"contacts", "contacts_active", "penetration_max",
                                       "penetration_mean", "sticking", "sliding",
                                       "impulse_normal", "impulse_tangential", "self_contacts",
                                       "self_crossings"};
    for (unsigned k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        char cmd[1024], path[512];
        snprintf(cmd, sizeof cmd, "%s/pbd-run %s %s --steps=5 --quiet --out=%s --frames=5 "
                 ">/dev/null", test_bin_dir(), runs[k][0], runs[k][1], dir);
        CU_ASSERT_EQUAL_FATAL(test_run(cmd), 0);
        snprintf(path, sizeof path, "%s/%s/run.h5", dir, runs[k][0]);
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        CU_ASSERT_FATAL(f >= 0);
        for (unsigned c = 0; c < sizeof cols / sizeof cols[0]; c++) {
            char name[128], units[64] = "";
            snprintf(name, sizeof name, "/series/contact/%s", cols[c]);
            double *d = NULL;
            long rows = 0, width = 0;
            CU_ASSERT_EQUAL(pbd_h5_read_dataset(path, name, &d, &rows, &width), 0);
            CU_ASSERT_EQUAL(rows, 5);
            CU_ASSERT(H5LTget_attribute_string(f, name, "units", units) >= 0);
            CU_ASSERT(strlen(units) > 0);
            if (strcmp(runs[k][0], "cloth_ground_slide") == 0 && c == 0)
                CU_ASSERT(d && d[4] == 16.0);
            if (c == 9) CU_ASSERT(d && isfinite(d[4])); /* measured in every contact scene */
            free(d);
        }
        H5Fclose(f);
        snprintf(path, sizeof path, "%s/%s/run.xdmf", dir, runs[k][0]);
        CU_ASSERT(test_exists(path));
    }
    CU_ASSERT_EQUAL(test_remove_dir(dir), 0);
}

/* Bad input is refused before any step: a collider file by FILE:LINE (exit 1: NaN or inf
 * vertices, empty, no faces, inverted or flipped faces, a directory, a device), μk > μs,
 * e > 1 or NaN, a radius of 0, a body whose inverse mass or inertia overflows (exit 2,
 * naming the flag), a method without contacts (exit 2). */
static void test_refusals(void)
{
    static const struct {
        const char *args, *want;
        int status;
    } cases[] = {
        {"cloth_sphere --collider=tests/data/bad_collider_inverted.obj", "bad_collider_inverted.obj:10:", 1},
        {"cloth_sphere --collider=tests/data/bad_collider_flipped_face.obj",
         "flipped_face.obj:15: expected faces oriented", 1},
        {"cloth_fold --collider=tests/data/bad_nan.obj", "bad_nan.obj:3:", 1},
        {"cloth_fold --collider=tests/data/bad_empty.obj", "bad_empty.obj:1:", 1},
        {"rigid_coupling --collider=tests/data/bad_degenerate.obj", "bad_degenerate.obj:6:", 1},
        {"cloth_sphere --collider=tests/data/no_such.obj", "no_such.obj", 1},
        {"cloth_ground_slide --mu-static=0.2 --mu-kinetic=0.3",
         "--mu-kinetic: expected a value <= --mu-static", 2},
        {"cloth_ground_slide --restitution=1.5", "--restitution: expected a number in [0, 1]", 2},
        {"cloth_sphere --sphere-radius=0", "--sphere-radius: expected", 2},
        {"cloth_sphere --mu-static=-1", "--mu-static: expected", 2},
        {"cloth_sphere --contact-margin=-0.1", "--contact-margin: expected", 2},
        {"rigid_coupling --method=vbd", "vbd: contacts: expected no rigid bodies", 2},
        {"cloth_fold --method=newton --compliance=1e-6", "newton: expected a world without", 2},
        {"cloth_fold --self-collision=0 --thickness=0.01", "--thickness: cannot act", 2},
        {"cloth --mu-static=0.3", "--mu-static: cannot act here", 2},
        /* hostile values: NaN, zero and underflowing sizes, a directory, a device */
        {"cloth_sphere --sphere-radius=nan", "--sphere-radius: expected a number in (0", 2},
        {"cloth_sphere --mu-static=nan", "--mu-static: expected a number in [0", 2},
        {"cloth_ground_slide --restitution=nan", "--restitution: expected a number in [0, 1]", 2},
        {"rigid_coupling --body-size=0", "--body-size: expected a number in (0", 2},
        {"rigid_coupling --body-size=1e-160", "--body-size, --body-mass: rigid box: expected a "
         "moment of inertia with a finite inverse", 2},
        {"rigid_coupling --body=sphere --body-size=1e-160", "rigid sphere: expected a moment", 2},
        {"rigid_coupling --body-mass=1e-320", "--body-mass: rigid box: expected a finite mass", 2},
        {"cloth_sphere --collider=tests/data/bad_inf.obj", "bad_inf.obj:3: expected a finite", 1},
        {"cloth_sphere --collider=tests/data/bad_no_faces.obj", "bad_no_faces.obj:3:", 1},
        {"cloth_sphere --collider=tests/data", "tests/data: expected a readable Wavefront OBJ file "
         "in a regular file, found a directory", 1},
        {"cloth_sphere --collider=/dev/zero", "/dev/zero: expected a readable Wavefront OBJ", 1},
    };
    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "%s/pbd-run %s --steps=1 --quiet >/dev/null 2>/tmp/pbd-contact-"
                 "err.%d", test_bin_dir(), cases[k].args, (int)getpid());
        int st = test_run(cmd);
        snprintf(cmd, sizeof cmd, "test $(wc -l < /tmp/pbd-contact-err.%d) -eq 1 && grep -qF -- "
                 "'%s' /tmp/pbd-contact-err.%d", (int)getpid(), cases[k].want, (int)getpid());
        int found = test_run(cmd) == 0;
        if (st != cases[k].status || !found)
            printf("\n    %s: exit %d (expected %d), message %s ", cases[k].args, st,
                   cases[k].status, found ? "as expected" : "missing");
        CU_ASSERT_EQUAL(st, cases[k].status);
        CU_ASSERT(found);
    }
    char err[64];
    snprintf(err, sizeof err, "/tmp/pbd-contact-err.%d", (int)getpid());
    remove(err);
}

/* A cloth resting on the ground: after every step no particle is below it by more than
 * 1e-9 m (the projection puts p on the plane exactly, up to rounding), every particle is
 * an active contact, and the normal impulse of a step is the weight's, m g dt (1e-9). */
static void test_resting_penetration(void)
{
    pbd_scene_params sp = slide_params(0.0, 0.5, 0.4, 0.0);
    pbd_world *w = contact_scene(pbd_scene_cloth_ground_slide, &sp, 4, 10);
    double worst = 0.0, impulse_err = 0.0;
    for (int s = 0; s < 60; s++) {
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        pbd_contact_stats c = pbd_world_contact_stats(w);
        CU_ASSERT_EQUAL(c.step, w->step_count);
        CU_ASSERT_EQUAL(c.active, 16);
        worst = fmax(worst, c.penetration_max);
        for (int i = 0; i < w->n; i++) worst = fmax(worst, -w->x[3 * i + 1]);
        impulse_err = fmax(impulse_err, fabs(c.impulse_normal - sp.total_mass * G * w->def.dt) /
                                            (sp.total_mass * G * w->def.dt));
    }
    printf("\n    deepest %.1e m, normal impulse vs m g dt %.1e ", worst, impulse_err);
    CU_ASSERT(worst <= 1e-9);
    CU_ASSERT(impulse_err <= 1e-9);
    pbd_world_free(w);
}

/* Launched at v0 on flat ground with μk: the Coulomb velocity update takes μk g h off the
 * speed every substep h (|Δv_n| = g h at rest on the ground), so the cloth stops after
 * v0²/(2 μk g), within one substep's travel at v0 (the discrete sum h Σ (v0 - k μk g h)
 * differs from the integral by v0 h/2, and the last substep sticks once |v| <= μs g h). */
static void test_slide_distance(void)
{
    const double v0 = 2.0, mu_s = 0.5, mu_k = 0.3;
    pbd_scene_params sp = slide_params(v0, mu_s, mu_k, 0.0);
    pbd_world *w = contact_scene(pbd_scene_cloth_ground_slide, &sp, 4, 10);
    double c0[3], c1[3];
    centroid(w, c0);
    for (int s = 0; s < 60; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK); /* 1 s > 0.68 s */
    centroid(w, c1);
    const double h = w->def.dt / w->def.substeps, d = c1[0] - c0[0];
    const double want = v0 * v0 / (2.0 * mu_k * G), bound = v0 * h;
    pbd_contact_stats c = pbd_world_contact_stats(w);
    printf("\n    slid %.5f m, v0^2/(2 mu_k g) = %.5f m, bound v0 h = %.5f m; sticking %d of %d ",
           d, want, bound, c.sticking, c.active);
    CU_ASSERT(fabs(d - want) <= bound);
    CU_ASSERT_EQUAL(c.sticking, 16); /* at rest: every contact sticks */
    CU_ASSERT(fabs(w->v[0]) < 1e-12);
    pbd_world_free(w);
}

/* On a ramp of slope θ with μs = 0.5, μk = 0.4, released at rest: tan θ = 0.9 μs sticks
 * (moves < 1e-9 m in 1 s: the velocity update's position correction leaves no creep),
 * tan θ = 1.1 μs slides with a = g (sin θ - μk cos θ): ½ a t² within a t h (first order). */
static void test_ramp_sticks_below_mu_s(void)
{
    const double mu_s = 0.5, mu_k = 0.4;
    for (int slide = 0; slide < 2; slide++) {
        const double th = atan((slide ? 1.1 : 0.9) * mu_s);
        pbd_scene_params sp = slide_params(0.0, mu_s, mu_k, 0.0);
        sp.ramp_angle = th * 180.0 / M_PI;
        pbd_world *w = contact_scene(pbd_scene_cloth_ground_slide, &sp, 4, 10);
        double c0[3], c1[3];
        centroid(w, c0);
        for (int s = 0; s < 60; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        centroid(w, c1);
        const double t[3] = {cos(th), -sin(th), 0.0};
        double d = 0.0, off = 0.0;
        for (int k = 0; k < 3; k++) d += (c1[k] - c0[k]) * t[k];
        for (int k = 0; k < 3; k++) off = fmax(off, fabs(c1[k] - c0[k] - d * t[k]));
        const double a = G * (sin(th) - mu_k * cos(th)), T = w->time;
        const double h = w->def.dt / w->def.substeps;
        printf("\n    tan(theta) = %.2f mu_s: moved %.3e m along the slope (%s: %.3e m), %.1e m "
               "off it ", slide ? 1.1 : 0.9, d, slide ? "1/2 a t^2" : "sticks",
               slide ? 0.5 * a * T * T : 0.0, off);
        if (slide) {
            CU_ASSERT(fabs(d - 0.5 * a * T * T) <= a * T * h);
        } else {
            CU_ASSERT(fabs(d) < 1e-9);
        }
        CU_ASSERT(off < 1e-9); /* it stays on the ramp */
        pbd_world_free(w);
    }
}

/* Dropped from 1 m with restitution e: each bounce's apex over the last is e² (the speed
 * v_n <- -e v_n, the height v²/(2g)), within 0.01, with the impact inside a substep of about
 * 1 ms (16 substeps of 1/60 s). */
static void test_bounce_height_ratio(void)
{
    const double e = 0.6;
    pbd_scene_params sp = slide_params(0.0, 0.0, 0.0, e);
    sp.drop_height = 1.0;
    pbd_world *w = contact_scene(pbd_scene_cloth_ground_slide, &sp, 16, 10);
    double apex[4] = {1.0, 0, 0, 0}, top = 0.0;
    int bounces = 0, falling = 1;
    for (int s = 0; s < 240 && bounces < 3; s++) {
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        double c[3];
        centroid(w, c);
        double vy = w->v[1];
        if (falling && vy > 0.0) falling = 0; /* bounced */
        if (!falling) top = fmax(top, c[1]);
        if (!falling && vy < 0.0) { /* past the apex */
            apex[++bounces] = top;
            top = 0.0;
            falling = 1;
        }
    }
    CU_ASSERT_EQUAL_FATAL(bounces, 3);
    for (int b = 1; b <= 3; b++) {
        double ratio = apex[b] / apex[b - 1];
        printf("\n    bounce %d: apex %.4f m, ratio %.4f (e^2 = %.4f) ", b, apex[b], ratio, e * e);
        CU_ASSERT(fabs(ratio - e * e) <= 0.01);
    }
    pbd_world_free(w);
}

/* Two-way coupling without gravity: a rigid body thrown at a free cloth (rigid_coupling
 * with --pin-corners=0) exchanges momentum with it; the total Σ m v + Σ M V stays the body's
 * initial M V0 across the impact (before the cloth reaches the ground): the sphere to 1e-12
 * relative, the box to 1e-3 (its corners' reactions take ∇_q C at the predicted positions,
 * solver/collision/README.md). The cloth must have taken part of it. */
static void test_coupling_momentum(void)
{
    for (int body = 0; body < 2; body++) {
        pbd_scene_params sp = pbd_scene_params_default();
        sp.resolution = 9; /* a vertex under the body's centre */
        sp.body_size = 0.15;
        sp.pin_corners = 0;
        sp.body = body;
        sp.body_speed = 3.0;
        sp.body_mass = 1.0;
        pbd_world *w = contact_scene(pbd_scene_rigid_coupling, &sp, 4, 10);
        w->def.gravity[1] = 0.0;
        const double p0 = -sp.body_mass * sp.body_speed;
        double worst = 0.0, lin[3], ang[3];
        int touched = 0;
        for (int s = 0; s < 12; s++) {
            CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
            pbd_world_total_momentum(w, lin, ang);
            worst = fmax(worst, fabs(lin[1] - p0) / fabs(p0));
            worst = fmax(worst, (fabs(lin[0]) + fabs(lin[2])) / fabs(p0));
            pbd_collision_stats cs = pbd_world_collision_stats(w);
            touched |= cs.contacts + cs.corner_contacts > 0;
        }
        pbd_rigid_state st;
        pbd_world_rigid_get(w, 0, &st);
        const double tol = body == 1 ? 1e-12 : 1e-3;
        printf("\n    %s: momentum drift %.1e of M V0 (bound %.0e), body now %.3f m/s ",
               pbd_body_names[body], worst, tol, st.v[1]);
        CU_ASSERT(touched);
        CU_ASSERT(st.v[1] > -0.9 * sp.body_speed); /* the cloth took some of it */
        CU_ASSERT(worst <= tol);
        pbd_world_free(w);
    }
}

/* cloth_fold: the halves of the towel meet hanging; with self collision no vertex passes
 * through a triangle in any substep (the crossing count, measured apart from the
 * detection, is 0), without it they swing through each other (> 0). */
static void test_fold_self_crossings(void)
{
    long total[2] = {0, 0};
    for (int on = 0; on < 2; on++) {
        pbd_scene_params sp = pbd_scene_params_default();
        sp.resolution = 10;
        sp.self_collision = on;
        pbd_world *w = contact_scene(pbd_scene_cloth_fold, &sp, 2, 10);
        for (int s = 0; s < 90; s++) {
            CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
            pbd_contact_stats c = pbd_world_contact_stats(w);
            CU_ASSERT_FATAL(c.self_crossings >= 0);
            total[on] += c.self_crossings;
        }
        pbd_world_free(w);
    }
    printf("\n    crossings in 1.5 s: %ld with self collision, %ld without ", total[1], total[0]);
    CU_ASSERT_EQUAL(total[1], 0);
    CU_ASSERT(total[0] > 0);
}

/* The penetration logged covers every particle, not only those with a contact row: a pinned
 * particle 0.05 m inside a sphere gets no row (only free particles do), while a free one
 * resting on the ground has one; after a step, penetration_max is the pinned one's depth
 * (to rounding: |x - c| of values ~1 m, 1e-15 m), and the mean is over the rows (0). */
static void test_penetration_every_particle(void)
{
    const double inside[3] = {2.0, 0.45, 0.0}, resting[3] = {0.0, 0.0, 0.0};
    pbd_world *w = test_two_particles(inside, resting, 0.0, 1.0);
    const double c[3] = {2.0, 0.5, 0.0}, o[3] = {0, 0, 0}, up[3] = {0, 1, 0};
    pbd_material m = pbd_material_default();
    CU_ASSERT_FATAL(pbd_world_add_sphere(w, c, 0.1, &m) >= 0);
    CU_ASSERT_FATAL(pbd_world_add_plane(w, o, up, &m) >= 0);
    w->def.gravity[1] = -9.81;
    CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    pbd_contact_stats st = pbd_world_contact_stats(w);
    CU_ASSERT_EQUAL(st.contacts, 1);
    CU_ASSERT_DOUBLE_EQUAL(st.penetration_max, 0.05, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(st.penetration_mean, 0.0, 1e-15);
    pbd_world_free(w);
}

void register_contact_scenes_tests(void)
{
    CU_pSuite s = CU_add_suite("contact_scenes", NULL, NULL);
    CU_add_test(s, "scenes_write_contact_series", test_scenes_write_contact_series);
    CU_add_test(s, "refusals", test_refusals);
    CU_add_test(s, "resting_penetration", test_resting_penetration);
    CU_add_test(s, "penetration_every_particle", test_penetration_every_particle);
    CU_add_test(s, "slide_distance", test_slide_distance);
    CU_add_test(s, "ramp_sticks_below_mu_s", test_ramp_sticks_below_mu_s);
    CU_add_test(s, "bounce_height_ratio", test_bounce_height_ratio);
    CU_add_test(s, "coupling_momentum", test_coupling_momentum);
    CU_add_test(s, "fold_self_crossings", test_fold_self_crossings);
}
