/* Colliders, contact constraints, friction and restitution (PBD Sec. 3.4, 4.3;
 * solver/collision/), suite `collision`. Self collision is suite `collision_self`
 * (tests/test_collision_self.c). */
#include "tests.h"
#include "collision_check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- each collider: a particle dropped on it comes to rest on its surface ------------- */

static void drop_and_rest(const char *name, pbd_world *w, int c, int *ok)
{
    w->def.dt = 1.0 / 60.0;
    w->def.substeps = 4;
    double worst = INFINITY;
    for (int s = 0; s < 120; s++) {
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        worst = fmin(worst, pbd_collider_distance(w, c, w->x));
    }
    double d = pbd_collider_distance(w, c, w->x), speed = norm3(w->v);
    printf("\n    %-12s min distance %+.2e m, final %+.2e m, speed %.2e m/s ", name, worst, d,
           speed);
    int pass = worst >= -PENETRATION_TOL && fabs(d) < 1e-6 && speed < 1e-6;
    CU_ASSERT(pass);
    if (!pass) *ok = 0;
    pbd_world_free(w);
}

static void test_rest_on_each_collider(void)
{
    const pbd_material sticky = mat(1.0, 0.8, 0.0);
    int ok = 1;
    {   /* a tilted plane through (0, -1, 0) */
        const double x[3] = {0.1, 0.0, 0.2}, o[3] = {0, -1, 0}, n[3] = {0.1, 1.0, -0.2};
        pbd_world *w = one_particle(x, NULL);
        drop_and_rest("plane", w, pbd_world_add_plane(w, o, n, &sticky), &ok);
    }
    {   /* a sphere, dropped slightly off its top (5.7 degrees: sticks with μs = 1) */
        const double x[3] = {0.05, 1.0, 0.0}, c[3] = {0, 0, 0};
        pbd_world *w = one_particle(x, NULL);
        drop_and_rest("sphere", w, pbd_world_add_sphere(w, c, 0.5, &sticky), &ok);
    }
    {
        const double x[3] = {0.1, 0.8, -0.2}, lo[3] = {-0.5, -0.5, -0.5}, hi[3] = {0.5, 0.5, 0.5};
        pbd_world *w = one_particle(x, NULL);
        drop_and_rest("aabb", w, pbd_world_add_aabb(w, lo, hi, &sticky), &ok);
    }
    {   /* box tilted 20 degrees about z and 15 about x: the top face slopes less than 45° */
        const double x[3] = {0.05, 1.0, 0.05}, c[3] = {0, 0, 0}, half[3] = {0.5, 0.3, 0.4};
        double a = 20 * M_PI / 180 / 2, b = 15 * M_PI / 180 / 2;
        /* q = q_z(20°) ⊗ q_x(15°) */
        const double q[4] = {cos(a) * cos(b), cos(a) * sin(b), sin(a) * sin(b), sin(a) * cos(b)};
        pbd_world *w = one_particle(x, NULL);
        drop_and_rest("obb", w, pbd_world_add_obb(w, c, half, q, &sticky), &ok);
    }
    {   /* a closed box mesh (12 triangles); the particle lands inside one top triangle */
        const double x[3] = {0.2, 0.9, -0.1}, lo[3] = {-0.5, -0.5, -0.5}, hi[3] = {0.5, 0.5, 0.5};
        double v[24];
        int32_t t[36];
        box_mesh(lo, hi, v, t);
        pbd_world *w = one_particle(x, NULL);
        drop_and_rest("mesh closed", w, pbd_world_add_mesh_collider(w, v, 8, t, 12, &sticky), &ok);
    }
    {   /* an open mesh: a ground quad of two triangles at y = -0.3, slightly slanted */
        const double v[12] = {-1, -0.3, -1, 1, -0.35, -1, 1, -0.3, 1, -1, -0.25, 1};
        const int32_t t[6] = {0, 3, 2, 0, 2, 1}; /* normals up */
        const double x[3] = {0.3, 0.5, 0.4};
        pbd_world *w = one_particle(x, NULL);
        drop_and_rest("mesh open", w, pbd_world_add_mesh_collider(w, v, 4, t, 2, &sticky), &ok);
    }
    CU_ASSERT(ok);
}

/* ---- entry point q_c versus closest point q_s ---------------------------------------- */

static void assert_vec(const double *a, const double *b, double tol)
{
    for (int k = 0; k < 3; k++) CU_ASSERT_DOUBLE_EQUAL(a[k], b[k], tol);
}

/* The queries against analytic answers for every shape, both cases. */
static void test_entry_and_closest_queries(void)
{
    pbd_world *w = pbd_world_create(1);
    const double c0[3] = {0, 0, 0}, up[3] = {0, 2, 0}, lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
    int plane = pbd_world_add_plane(w, c0, up, NULL);
    int sphere = pbd_world_add_sphere(w, c0, 1.0, NULL);
    int box = pbd_world_add_aabb(w, lo, hi, NULL);
    /* an OBB: the same cube turned 90 degrees about y (the same set, other axes) */
    const double qy[4] = {cos(M_PI / 4), 0, sin(M_PI / 4), 0}, half[3] = {1, 1, 1};
    int obb = pbd_world_add_obb(w, c0, half, qy, NULL);
    double v[24];
    int32_t t[36];
    box_mesh(lo, hi, v, t);
    int mesh = pbd_world_add_mesh_collider(w, v, 8, t, 12, NULL);
    double q[3], n[3];

    /* plane: entry at the crossing, inside -> straight up */
    const double xa[3] = {0, 1, 0}, pa[3] = {1, -1, 0};
    CU_ASSERT_EQUAL(pbd_collider_query(w, plane, xa, pa, q, n), 1);
    assert_vec(q, (double[3]){0.5, 0, 0}, 1e-15);
    assert_vec(n, (double[3]){0, 1, 0}, 1e-15);
    const double xb[3] = {0, -1, 0}, pb[3] = {1, -2, 0};
    CU_ASSERT_EQUAL(pbd_collider_query(w, plane, xb, pb, q, n), 2);
    assert_vec(q, (double[3]){1, 0, 0}, 1e-15);

    /* sphere: the ray (0.6, 2, 0) -> (0.6, 0, 0) enters at (0.6, 0.8, 0); the closest point to
     * p would be (1, 0, 0) */
    const double xs[3] = {0.6, 2, 0}, ps[3] = {0.6, 0, 0};
    CU_ASSERT_EQUAL(pbd_collider_query(w, sphere, xs, ps, q, n), 1);
    assert_vec(q, (double[3]){0.6, 0.8, 0}, 1e-14);
    assert_vec(n, (double[3]){0.6, 0.8, 0}, 1e-14);
    const double xi[3] = {0.3, 0.1, 0}, pi[3] = {0.6, 0, 0.8 * 0.5};
    CU_ASSERT_EQUAL(pbd_collider_query(w, sphere, xi, pi, q, n), 2);
    double r = norm3(pi);
    assert_vec(q, (double[3]){pi[0] / r, pi[1] / r, pi[2] / r}, 1e-14);
    const double xo[3] = {0.5, 0, 0}, po[3] = {2, 0, 0}; /* leaving: nothing */
    CU_ASSERT_EQUAL(pbd_collider_query(w, sphere, xo, po, q, n), 0);
    const double xm[3] = {-2, 0.99, 0}, pm[3] = {2, 0.99, 0}; /* passes through: entry */
    CU_ASSERT_EQUAL(pbd_collider_query(w, sphere, xm, pm, q, n), 1);
    CU_ASSERT_DOUBLE_EQUAL(q[0], -sqrt(1 - 0.99 * 0.99), 1e-12);

    /* boxes and the box mesh: enter through the top face at (0.2, 1, 0.1); a point inside
     * near the +x face goes out through it */
    const int boxes[3] = {box, obb, mesh};
    for (int b = 0; b < 3; b++) {
        const double xt[3] = {0.2, 3, 0.1}, pt[3] = {0.2, 0.5, 0.1};
        CU_ASSERT_EQUAL(pbd_collider_query(w, boxes[b], xt, pt, q, n), 1);
        assert_vec(q, (double[3]){0.2, 1, 0.1}, 1e-14);
        assert_vec(n, (double[3]){0, 1, 0}, 1e-14);
        const double xf[3] = {0.5, 0.1, 0.2}, pf[3] = {0.8, 0.2, 0.3};
        CU_ASSERT_EQUAL(pbd_collider_query(w, boxes[b], xf, pf, q, n), 2);
        assert_vec(q, (double[3]){1, 0.2, 0.3}, 1e-14);
        assert_vec(n, (double[3]){1, 0, 0}, 1e-14);
        const double xg[3] = {3, 3, 0}, pg[3] = {2, 2, 0}; /* misses */
        CU_ASSERT_EQUAL(pbd_collider_query(w, boxes[b], xg, pg, q, n), 0);
        const double xe[3] = {-3, 0.3, 0.2}, pe[3] = {3, 0.3, 0.2}; /* through: -x face */
        CU_ASSERT_EQUAL(pbd_collider_query(w, boxes[b], xe, pe, q, n), 1);
        assert_vec(q, (double[3]){-1, 0.3, 0.2}, 1e-14);
        assert_vec(n, (double[3]){-1, 0, 0}, 1e-14);
    }
    /* degenerate: at the sphere's centre (no direction) and a zero-length ray stay finite */
    const double cc[3] = {0, 0, 0};
    CU_ASSERT_EQUAL(pbd_collider_query(w, sphere, cc, cc, q, n), 2);
    CU_ASSERT(isfinite(q[0] + q[1] + q[2] + n[0] + n[1] + n[2]));
    CU_ASSERT_DOUBLE_EQUAL(norm3(n), 1.0, 1e-15);
    CU_ASSERT_EQUAL(pbd_collider_query(w, 99, cc, cc, q, n), -1);
    pbd_world_free(w);
}

/* Through the step: a particle shot at a sphere off-centre gets its constraint at the entry
 * point and ends on the tangent plane there (outside the sphere, not at the closest point
 * to p); a particle starting inside is pushed to the closest surface point to p. */
static void test_entry_and_closest_in_step(void)
{
    const double c[3] = {0, 0, 0};
    /* entry: x = (0.6, 1.5, 0), v = (0, -60, 0), dt = 1/60: p = (0.6, 0.5, 0) */
    const double x[3] = {0.6, 1.5, 0}, v[3] = {0, -60, 0};
    pbd_world *w = one_particle(x, v);
    w->def.gravity[1] = 0.0;
    int s = pbd_world_add_sphere(w, c, 1.0, NULL);
    CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
    pbd_collision_stats st = pbd_world_collision_stats(w);
    CU_ASSERT_EQUAL(st.contacts, 1);
    const pbd_constraint_set *set = &w->sets[st.contact_set];
    CU_ASSERT_EQUAL(set->count, 1);
    CU_ASSERT_PTR_EQUAL(set->type, &pbd_plane_collision_type);
    assert_vec(set->rest, (double[3]){0.6, 0.8, 0}, 1e-14);     /* q_c */
    assert_vec(set->rest + 3, (double[3]){0.6, 0.8, 0}, 1e-14); /* n_c */
    CU_ASSERT_DOUBLE_EQUAL(set->stiffness[0], 1.0, 0.0);
    /* on the tangent plane at q_c: (x - q_c)·n_c = 0, x = p - ((p - q_c)·n_c) n_c */
    double d = (w->x[0] - 0.6) * 0.6 + (w->x[1] - 0.8) * 0.8;
    CU_ASSERT_DOUBLE_EQUAL(d, 0.0, 1e-14);
    CU_ASSERT_DOUBLE_EQUAL(w->x[0], 0.6 + 0.3 * 0.8 * 0.6, 1e-14);
    CU_ASSERT(pbd_collider_distance(w, s, w->x) > 0.01); /* not the closest point */
    pbd_world_free(w);

    /* closest point: x inside and p inside: out along c -> p */
    const double xi[3] = {0.2, 0.1, 0.3}, vi[3] = {6, 0, 0};
    w = one_particle(xi, vi);
    w->def.gravity[1] = 0.0;
    s = pbd_world_add_sphere(w, c, 1.0, NULL);
    CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
    const double p[3] = {0.3, 0.1, 0.3};
    double rp = norm3(p);
    assert_vec(w->x, (double[3]){p[0] / rp, p[1] / rp, p[2] / rp}, 1e-14);
    CU_ASSERT_DOUBLE_EQUAL(pbd_collider_distance(w, s, w->x), 0.0, 1e-14);
    pbd_world_free(w);
}

/* The contact set is an ordinary set, emptied and refilled every substep from reserved
 * rows: its capacity does not change while the particles bounce in and out of contact. */
static void test_contact_set_lifecycle(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 6;
    pbd_world *w = pbd_scene_cloth(&sp);
    const double o[3] = {0, -0.6, 0}, n[3] = {0, 1, 0};
    int sets_before = w->n_sets;
    CU_ASSERT(pbd_world_add_plane(w, o, n, NULL) >= 0);
    CU_ASSERT_EQUAL(w->n_sets, sets_before + 1);
    pbd_collision_stats st = pbd_world_collision_stats(w);
    CU_ASSERT_EQUAL(st.contact_set, sets_before);
    int cap = w->sets[st.contact_set].capacity, max_contacts = 0;
    CU_ASSERT(cap >= w->n);
    for (int s = 0; s < 100; s++) {
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        st = pbd_world_collision_stats(w);
        CU_ASSERT_EQUAL(w->sets[st.contact_set].count, st.contacts);
        if (st.contacts > max_contacts) max_contacts = st.contacts;
        for (int i = 0; i < w->n; i++) CU_ASSERT(w->x[3 * i + 1] >= -0.6 - PENETRATION_TOL);
    }
    CU_ASSERT(max_contacts > 0);
    CU_ASSERT_EQUAL(w->sets[st.contact_set].capacity, cap);
    CU_ASSERT_EQUAL(st.dropped, 0);
    pbd_world_free(w);
}

static void test_bad_input(void)
{
    pbd_world *w = pbd_world_create(3);
    const double o[3] = {0, 0, 0}, zero[3] = {0, 0, 0}, n[3] = {0, 1, 0};
    CU_ASSERT_EQUAL(pbd_world_add_plane(w, o, zero, NULL), -1);
    CU_ASSERT(strstr(pbd_last_error(), "normal") != NULL);
    CU_ASSERT_EQUAL(pbd_world_add_sphere(w, o, -1.0, NULL), -1);
    CU_ASSERT(strstr(pbd_last_error(), "radius") != NULL);
    pbd_material m = mat(0.5, 0.3, 1.5);
    CU_ASSERT_EQUAL(pbd_world_add_plane(w, o, n, &m), -1);
    CU_ASSERT(strstr(pbd_last_error(), "restitution") != NULL);
    m = mat(-1, 0, 0);
    CU_ASSERT_EQUAL(pbd_world_add_plane(w, o, n, &m), -1);
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 0, 1};
    CU_ASSERT_EQUAL(pbd_world_add_aabb(w, lo, hi, NULL), -1); /* flat box */
    const double v[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const int32_t t[3] = {0, 1, 3};
    CU_ASSERT_EQUAL(pbd_world_add_mesh_collider(w, v, 3, t, 1, NULL), -1);
    CU_ASSERT(strstr(pbd_last_error(), "found 3") != NULL);
    CU_ASSERT_EQUAL(pbd_world_enable_self_collision(w, t, 1, 0.01), PBD_EINVAL); /* index 3 */
    const int32_t t2[3] = {0, 1, 2};
    CU_ASSERT_EQUAL(pbd_world_enable_self_collision(w, t2, 1, 0.0), PBD_EINVAL);
    CU_ASSERT_EQUAL(pbd_world_collision_stats(w).contacts, 0);
    pbd_world_free(w);
}

/* ---- friction ------------------------------------------------------------------------ */

/* A 3×3 block of particles joined by distance constraints (edges and diagonals), resting
 * on a plane inclined by θ about z, released at rest. Returns the downhill displacement of
 * its centre after T seconds. */
static double slide(double theta, pbd_material m, double T, int method, int scheme,
                    double *max_pen)
{
    const int r = 3;
    const double a = 0.05;
    double u[3] = {cos(theta), sin(theta), 0}, nrm[3] = {-sin(theta), cos(theta), 0};
    pbd_world *w = pbd_world_create(r * r);
    for (int j = 0; j < r; j++)
        for (int i = 0; i < r; i++) {
            double x[3] = {a * i * u[0], a * i * u[1], a * j};
            pbd_world_set_particle(w, j * r + i, x, NULL, 0.01);
        }
    int set = pbd_world_add_set(w, &pbd_distance_type, 0);
    for (int j = 0; j < r; j++)
        for (int i = 0; i < r; i++) {
            int v = j * r + i;
            const int32_t e[4][2] = {{v, v + 1}, {v, v + r}, {v, v + r + 1}, {v + 1, v + r}};
            if (i + 1 < r) pbd_set_add(w, set, e[0], NULL, 1.0, 0.0);
            if (j + 1 < r) pbd_set_add(w, set, e[1], NULL, 1.0, 0.0);
            if (i + 1 < r && j + 1 < r) {
                pbd_set_add(w, set, e[2], NULL, 1.0, 0.0);
                pbd_set_add(w, set, e[3], NULL, 1.0, 0.0);
            }
        }
    const double o[3] = {0, 0, 0};
    pbd_world_add_plane(w, o, nrm, &m);
    w->def.dt = 1.0 / 100.0;
    w->def.iterations = 10;
    w->def.method = method;
    w->def.scheme = scheme;
    double c0 = 0.0, c1 = 0.0;
    for (int i = 0; i < w->n; i++) c0 += w->x[3 * i] * u[0] + w->x[3 * i + 1] * u[1];
    *max_pen = 0.0;
    int steps = (int)lround(T / w->def.dt);
    for (int s = 0; s < steps; s++) {
        pbd_step(w);
        for (int i = 0; i < w->n; i++)
            *max_pen = fmax(*max_pen, -(w->x[3 * i] * nrm[0] + w->x[3 * i + 1] * nrm[1]));
    }
    for (int i = 0; i < w->n; i++) c1 += w->x[3 * i] * u[0] + w->x[3 * i + 1] * u[1];
    pbd_world_free(w);
    return -(c1 - c0) / (r * r); /* downhill is -u */
}

/* Coulomb: the block sticks when tan θ < μs and slides when tan θ > μs, then with the
 * kinetic acceleration a = g (sin θ - μk cos θ). Symplectic Euler gives
 * s_N = a Δt² N(N+1)/2 after N steps, within 1/N of a T²/2; asserted to 1e-6 relative
 * (the friction model itself, not the integrator, is what's checked). PBD and XPBD, with
 * each iteration scheme (the normal impulse is the contact's λ/Δt, which every scheme
 * accumulates). */
static void test_friction_incline(void)
{
    const double g = 9.81, mu_s = 0.5, mu_k = 0.3, T = 1.0;
    const pbd_material m = mat(mu_s, mu_k, 0.0);
    const char *scheme_names[3] = {"Gauss-Seidel", "Jacobi", "coloured GS"};
    for (int scheme = 0; scheme < 3; scheme++)
        for (int method = 0; method < 2; method++) {
            double pen;
            double below = atan(0.9 * mu_s), above = atan(1.1 * mu_s);
            /* Jacobi averages a particle's corrections over its constraints (up to 7 here),
             * so 10 iterations leave a fraction of each substep's sag g Δt² = 9.8e-4 m */
            double pen_tol = scheme == PBD_SCHEME_JACOBI ? 9.81e-4 : PENETRATION_TOL, pen2;
            double s_stick = slide(below, m, T, method, scheme, &pen);
            CU_ASSERT(fabs(s_stick) < 1e-9);
            CU_ASSERT(pen < pen_tol);
            double s_slide = slide(above, m, T, method, scheme, &pen2);
            pen = fmax(pen, pen2);
            int N = 100;
            double dt = T / N, acc = g * (sin(above) - mu_k * cos(above));
            double expect = acc * dt * dt * N * (N + 1) / 2.0;
            printf("\n    %s %s: tan θ = 0.9 μs moved %.1e m; tan θ = 1.1 μs slid %.6f m "
                   "(a Δt² N(N+1)/2 = %.6f, ½ a T² = %.6f), penetration %.1e m ",
                   method ? "XPBD" : "PBD", scheme_names[scheme], s_stick, s_slide, expect,
                   0.5 * acc * T * T, pen);
            CU_ASSERT_DOUBLE_EQUAL(s_slide, expect, 1e-6 * expect);
            CU_ASSERT(pen < pen_tol);
            /* frictionless: a = g sin θ */
            double s_free = slide(below, mat(0, 0, 0), T, method, scheme, &pen);
            double expect_free = g * sin(below) * dt * dt * N * (N + 1) / 2.0;
            CU_ASSERT_DOUBLE_EQUAL(s_free, expect_free, 1e-6 * expect_free);
        }
}

/* ---- restitution --------------------------------------------------------------------- */

/* A particle dropped from H = 1 m on a plane bounces to e² H. Tolerance 0.01 on the ratio:
 * the impact happens somewhere inside a substep (h = 1 ms) and the particle is put on the
 * surface at its end, and symplectic Euler's apex is off by about v h / 2; both shift the
 * ratio by O(h √(2g/H)) ≈ 0.5 %. The apex is sampled every step (error g h²/8). */
static void test_restitution_bounce(void)
{
    const double es[] = {0.0, 0.3, 0.5, 0.8, 1.0}, H = 1.0;
    for (unsigned k = 0; k < sizeof es / sizeof es[0]; k++) {
        const double x[3] = {0, H, 0}, o[3] = {0, 0, 0}, n[3] = {0, 1, 0};
        pbd_world *w = one_particle(x, NULL);
        pbd_material m = mat(0, 0, es[k]);
        pbd_world_add_plane(w, o, n, &m);
        w->def.dt = 1e-3;
        int touched = 0;
        double apex = 0.0, min_y = INFINITY;
        for (int s = 0; s < 2000; s++) {
            pbd_step(w);
            min_y = fmin(min_y, w->x[1]);
            if (!touched && pbd_world_collision_stats(w).contacts > 0) touched = 1;
            else if (touched) {
                apex = fmax(apex, w->x[1]);
                if (w->v[1] < 0 && w->x[1] < apex) break; /* past the first apex */
            }
        }
        double ratio = apex / H, expect = es[k] * es[k];
        printf("\n    e = %.1f: bounce height ratio %.4f, e² = %.4f ", es[k], ratio, expect);
        CU_ASSERT(touched);
        CU_ASSERT_DOUBLE_EQUAL(ratio, expect, 0.01);
        CU_ASSERT(min_y >= -PENETRATION_TOL);
        pbd_world_free(w);
    }
}

void register_collision_tests(void)
{
    CU_pSuite s = CU_add_suite("collision", NULL, NULL);
    CU_add_test(s, "rest_on_each_collider", test_rest_on_each_collider);
    CU_add_test(s, "entry_and_closest_queries", test_entry_and_closest_queries);
    CU_add_test(s, "entry_and_closest_in_step", test_entry_and_closest_in_step);
    CU_add_test(s, "contact_set_lifecycle", test_contact_set_lifecycle);
    CU_add_test(s, "bad_input", test_bad_input);
    CU_add_test(s, "friction_incline", test_friction_incline);
    CU_add_test(s, "restitution_bounce", test_restitution_bounce);
}
