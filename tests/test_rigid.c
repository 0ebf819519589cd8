/* Rigid bodies and two-way coupling with particles (PBD Sec. 4.2; solver/rigid.c). */
#include "tests.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double norm3(const double *a) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

static pbd_rigid_state state_at(double x, double y, double z)
{
    pbd_rigid_state s;
    memset(&s, 0, sizeof s);
    s.x[0] = x;
    s.x[1] = y;
    s.x[2] = z;
    s.q[0] = 1.0;
    return s;
}

/* Torque-free flight of a box: the centre moves on a straight line, the linear and angular
 * momentum stay constant to rounding (L is the state), q stays unit, and the 8 corner
 * particles are the box's corners: centroid at x, edges of length 2 half. */
static void test_free_flight(void)
{
    pbd_world *w = pbd_world_create(0);
    w->def.gravity[1] = 0.0;
    const double half[3] = {0.3, 0.2, 0.1};
    pbd_rigid_state s = state_at(1, 2, 3);
    s.v[0] = 1.0; s.v[1] = -2.0; s.v[2] = 0.5;
    s.omega[0] = 0.5; s.omega[1] = 3.0; s.omega[2] = -1.0;
    int b = pbd_world_add_rigid_box(w, half, 2.0, &s, NULL);
    CU_ASSERT_EQUAL_FATAL(b, 0);
    CU_ASSERT_EQUAL(w->n, 8); /* the corners */
    double P0[3], L0[3], P[3], L[3];
    pbd_world_total_momentum(w, P0, L0);
    for (int k = 0; k < 300; k++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    pbd_rigid_state e;
    pbd_world_rigid_get(w, b, &e);
    double t = w->time;
    for (int k = 0; k < 3; k++) CU_ASSERT_DOUBLE_EQUAL(e.x[k], s.x[k] + s.v[k] * t, 1e-12);
    pbd_world_total_momentum(w, P, L);
    for (int k = 0; k < 3; k++) {
        CU_ASSERT_DOUBLE_EQUAL(P[k], P0[k], 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(L[k], L0[k], 1e-12);
    }
    CU_ASSERT_DOUBLE_EQUAL(e.q[0] * e.q[0] + e.q[1] * e.q[1] + e.q[2] * e.q[2] + e.q[3] * e.q[3],
                           1.0, 1e-14);
    /* it did rotate */
    CU_ASSERT(fabs(e.q[0]) < 0.99);
    double c[3] = {0, 0, 0};
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 3; k++) c[k] += w->x[3 * i + k] / 8;
    for (int k = 0; k < 3; k++) CU_ASSERT_DOUBLE_EQUAL(c[k], e.x[k], 1e-12);
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 3; k++) { /* corner i and i ^ (1 << k) differ along axis k only */
            int j = i ^ (1 << k);
            double d[3] = {w->x[3 * i] - w->x[3 * j], w->x[3 * i + 1] - w->x[3 * j + 1],
                           w->x[3 * i + 2] - w->x[3 * j + 2]};
            CU_ASSERT_DOUBLE_EQUAL(norm3(d), 2 * half[k], 1e-12);
        }
    CU_ASSERT_EQUAL(pbd_world_rigid_get(w, 1, &e), PBD_EINVAL);
    pbd_world_free(w);
}

/* Under gravity alone a body is symplectic Euler: v = g t, y_n = -g dt² n(n+1)/2. */
static void test_gravity(void)
{
    pbd_world *w = pbd_world_create(0);
    pbd_rigid_state s = state_at(0, 0, 0);
    int b = pbd_world_add_rigid_sphere(w, 0.1, 3.0, &s, NULL);
    w->def.dt = 0.01;
    for (int k = 0; k < 100; k++) pbd_step(w);
    pbd_rigid_state e;
    pbd_world_rigid_get(w, b, &e);
    CU_ASSERT_DOUBLE_EQUAL(e.v[1], -9.81, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(e.x[1], -9.81 * 1e-4 * 100 * 101 / 2.0, 1e-10);
    CU_ASSERT_DOUBLE_EQUAL(pbd_world_rigid_mass(w, b), 3.0, 0.0);
    CU_ASSERT_EQUAL(pbd_world_add_rigid_sphere(w, 0.1, -1.0, &s, NULL), -1);
    CU_ASSERT(strstr(pbd_last_error(), "mass") != NULL);
    pbd_world_free(w);
}

/* A free r × r cloth patch in the plane y = 0 (distance constraints on the edges and one
 * diagonal), total mass m, side `size`, centred on the origin; its triangles in tris. */
static pbd_world *patch(int r, double size, double m, int32_t *tris, int *nt)
{
    pbd_world *w = pbd_world_create(r * r);
    double a = size / (r - 1);
    for (int j = 0; j < r; j++)
        for (int i = 0; i < r; i++) {
            const double x[3] = {a * i - size / 2, 0.0, a * j - size / 2};
            pbd_world_set_particle(w, j * r + i, x, NULL, m / (r * r));
        }
    int set = pbd_world_add_set(w, &pbd_distance_type, 0);
    *nt = 0;
    for (int j = 0; j + 1 < r; j++)
        for (int i = 0; i + 1 < r; i++) {
            int v = j * r + i;
            const int32_t t1[3] = {v, v + r + 1, v + 1}, t2[3] = {v, v + r, v + r + 1};
            memcpy(tris + 3 * (*nt)++, t1, sizeof t1);
            memcpy(tris + 3 * (*nt)++, t2, sizeof t2);
        }
    for (int j = 0; j < r; j++)
        for (int i = 0; i < r; i++) {
            int v = j * r + i;
            const int32_t h[2] = {v, v + 1}, vv[2] = {v, v + r}, dg[2] = {v, v + r + 1};
            if (i + 1 < r) pbd_set_add(w, set, h, NULL, 1.0, 0.0);
            if (j + 1 < r) pbd_set_add(w, set, vv, NULL, 1.0, 0.0);
            if (i + 1 < r && j + 1 < r) pbd_set_add(w, set, dg, NULL, 1.0, 0.0);
        }
    w->def.gravity[1] = 0.0;
    return w;
}

/* Free-flight collision (no gravity) of a rigid sphere with a free cloth patch at rest:
 * the total linear momentum (cloth + body) is conserved to 1e-12 relative, since every
 * impulse the particles get (projection λ n/Δt, restitution, friction) is applied with
 * the opposite sign to the body. (The angular momentum is not asserted here: PBD's own
 * projection of the cloth's stiff distance constraints does not conserve the discrete
 * angular momentum Σ x × m v when the cloth deforms fast — a free cloth with random
 * velocities and no contact at all loses 13 % of it in 60 steps — so the coupling's
 * angular bookkeeping is tested with free particles below.) With a contact margin of
 * half an edge no cloth particle ends a step inside the sphere (1e-9 m); with 0.3 edges a
 * neighbour of the first contacts is dragged 1.3 cm in before it has a row. */
static void sphere_hits_cloth(pbd_material m, int method, int scheme, double *dP,
                              double *exchanged, double *deepest)
{
    int32_t tris[2 * 3 * 64];
    int nt;
    pbd_world *w = patch(7, 0.6, 0.3, tris, &nt);
    CU_ASSERT_EQUAL(pbd_world_set_cloth_triangles(w, tris, nt), PBD_OK);
    pbd_rigid_state s = state_at(0.05, 0.3, -0.03);
    s.v[1] = -4.0;
    s.v[0] = 0.5;
    s.omega[2] = 2.0;
    int b = pbd_world_add_rigid_sphere(w, 0.15, 0.5, &s, &m);
    pbd_world_set_contact_margin(w, 0.05);
    w->def.method = method;
    w->def.scheme = scheme;
    w->def.iterations = 10;
    w->def.dt = 1.0 / 120.0;
    double P0[3], L0[3], P[3], L[3];
    pbd_world_total_momentum(w, P0, L0);
    int contacts = 0;
    double worst = 0.0;
    int col = pbd_world_rigid_collider(w, b);
    for (int k = 0; k < 60; k++) {
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        contacts += pbd_world_collision_stats(w).contacts;
        for (int i = 0; i < w->n; i++)
            worst = fmin(worst, pbd_collider_distance(w, col, w->x + 3 * i));
    }
    CU_ASSERT(contacts > 0);
    *deepest = worst;
    pbd_world_total_momentum(w, P, L);
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = P[k] - P0[k];
    *dP = norm3(d) / norm3(P0);
    pbd_rigid_state e;
    pbd_world_rigid_get(w, b, &e);
    *exchanged = 1.0 - e.v[1] / s.v[1]; /* fraction of the body's approach speed lost */
    pbd_world_free(w);
}

static void test_momentum_sphere_cloth(void)
{
    const pbd_material mats[3] = {{0, 0, 0}, {0.5, 0.4, 0.5}, {1.0, 0.8, 1.0}};
    const char *schemes[3] = {"GS", "Jacobi", "coloured GS"};
    for (int scheme = 0; scheme < 3; scheme++)
        for (int method = 0; method < 2; method++)
            for (int k = 0; k < 3; k++) {
                double dP, ex, deepest;
                sphere_hits_cloth(mats[k], method, scheme, &dP, &ex, &deepest);
                printf("\n    %s %s μs %.1f e %.1f: |ΔP|/|P0| = %.1e, body lost %.0f %% of its "
                       "approach speed, deepest particle inside %.1e m ",
                       method ? "XPBD" : "PBD", schemes[scheme], mats[k].mu_static,
                       mats[k].restitution, dP, 100 * ex, deepest);
                CU_ASSERT(ex > 0.2); /* momentum was exchanged */
                if (scheme == PBD_SCHEME_JACOBI) {
                    /* Jacobi averages each particle's corrections over its constraints:
                     * 10 iterations do not finish the contacts (the particles stay inside by
                     * less than the sphere's travel in one step, 3.3 cm); and PBD Jacobi's
                     * per-particle averaging does not conserve momentum even without
                     * contacts (a free tumbling cloth loses it too), so only XPBD's is held */
                    if (method == PBD_METHOD_XPBD) CU_ASSERT(dP < 1e-12);
                    CU_ASSERT(deepest > -4.0 / 120.0);
                } else {
                    CU_ASSERT(dP < 1e-12);
                    CU_ASSERT(deepest > -1e-9);
                }
            }
}

/* Free particles (no constraints among them) struck by a spinning, translating box: the
 * total linear and angular momentum (about the origin) are conserved to 1e-12 relative, with
 * and without friction and restitution. The body takes each reaction with the lever arm at
 * which the particle's own x × m v changes (solver/collision_hooks.c), so the discrete
 * balance is exact; the geometric contact point q would leave O(Δt |v_rel|) errors. */
static void test_momentum_particles_box(void)
{
    const pbd_material mats[4] = {{0, 0, 0}, {0.5, 0.5, 0.5}, {1, 1, 1}, {0.2, 0.1, 0}};
    for (int method = 0; method < 2; method++)
        for (int k = 0; k < 4; k++) {
            const int n = 30;
            pbd_world *w = pbd_world_create(n);
            pbd_rng r;
            pbd_rng_seed(&r, 5);
            for (int i = 0; i < n; i++) {
                const double x[3] = {pbd_rng_range(&r, -0.2, 0.2), pbd_rng_range(&r, -0.05, 0.05),
                                     pbd_rng_range(&r, -0.2, 0.2)};
                const double v[3] = {0, pbd_rng_range(&r, -0.5, 0.5), 0};
                pbd_world_set_particle(w, i, x, v, 0.01);
            }
            w->def.gravity[1] = 0.0;
            w->def.dt = 1.0 / 120.0;
            w->def.method = method;
            pbd_rigid_state s = state_at(0.05, 0.3, 0.0);
            s.v[0] = 0.5; s.v[1] = -4.0;
            s.omega[0] = 1.0; s.omega[2] = 2.0;
            const double half[3] = {0.15, 0.1, 0.12};
            pbd_world_add_rigid_box(w, half, 0.5, &s, &mats[k]);
            double P0[3], L0[3], P[3], L[3];
            pbd_world_total_momentum(w, P0, L0);
            int contacts = 0;
            for (int step = 0; step < 60; step++) {
                CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
                contacts += pbd_world_collision_stats(w).contacts;
            }
            pbd_world_total_momentum(w, P, L);
            double dp[3], dl[3];
            for (int c = 0; c < 3; c++) {
                dp[c] = P[c] - P0[c];
                dl[c] = L[c] - L0[c];
            }
            pbd_rigid_state e;
            pbd_world_rigid_get(w, 0, &e);
            printf("\n    %s μs %.1f e %.1f: %d contacts, |ΔP|/|P0| = %.1e, |ΔL|/|L0| = %.1e, "
                   "body v_y %.3f -> %.3f ", method ? "XPBD" : "PBD", mats[k].mu_static,
                   mats[k].restitution, contacts, norm3(dp) / norm3(P0), norm3(dl) / norm3(L0),
                   s.v[1], e.v[1]);
            CU_ASSERT(contacts > 5);
            CU_ASSERT(norm3(dp) < 1e-12 * norm3(P0));
            CU_ASSERT(norm3(dl) < 1e-12 * norm3(L0));
            CU_ASSERT(e.v[1] > s.v[1] + 0.1); /* the particles slowed the body */
            pbd_world_free(w);
        }
}

/* A small box falling flat onto the middle of one big cloth triangle: no cloth vertex is
 * near the box, so only the corner tests (point_triangle with the corners as fixed
 * particles) can stop it. The box must not pass through, must carry the cloth along, and
 * the total linear momentum must be conserved to 1e-3 relative: the body takes λ ∇_q C/Δt
 * with ∇_q C at the end of the substep, while the particles got their share with the
 * gradients of each iteration. A rigid sphere of the same size, which has no corners, goes
 * through (the control). */
static void box_through_big_triangle(int use_box, double *dP, double *min_side, int *corner_rows)
{
    pbd_world *w = pbd_world_create(3);
    const double A[3] = {-1, 0, -1}, B[3] = {1.5, 0, -1}, C[3] = {-1, 0, 1.5};
    pbd_world_set_particle(w, 0, A, NULL, 0.1);
    pbd_world_set_particle(w, 1, B, NULL, 0.1);
    pbd_world_set_particle(w, 2, C, NULL, 0.1);
    int set = pbd_world_add_set(w, &pbd_distance_type, 0);
    const int32_t e[3][2] = {{0, 1}, {1, 2}, {2, 0}};
    for (int k = 0; k < 3; k++) pbd_set_add(w, set, e[k], NULL, 1.0, 0.0);
    const int32_t tri[3] = {0, 2, 1}; /* normal +y */
    CU_ASSERT_EQUAL(pbd_world_set_cloth_triangles(w, tri, 1), PBD_OK);
    w->def.gravity[1] = 0.0;
    w->def.dt = 1.0 / 60.0;
    w->def.iterations = 10;
    pbd_rigid_state s = state_at(-0.2, 0.2, -0.1);
    s.v[1] = -3.0;
    const double half[3] = {0.05, 0.05, 0.05};
    int b = use_box ? pbd_world_add_rigid_box(w, half, 0.2, &s, NULL)
                    : pbd_world_add_rigid_sphere(w, 0.05, 0.2, &s, NULL);
    CU_ASSERT_EQUAL_FATAL(b, 0);
    double P0[3], L0[3], P[3], L[3];
    pbd_world_total_momentum(w, P0, L0);
    *corner_rows = 0;
    *min_side = INFINITY;
    for (int k = 0; k < 30; k++) {
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        *corner_rows += pbd_world_collision_stats(w).corner_contacts;
        /* the body's lowest point relative to the cloth plane (normal +y of tri 0, 2, 1) */
        pbd_rigid_state e;
        pbd_world_rigid_get(w, b, &e);
        double e1[3], e2[3], n[3], d[3];
        for (int c = 0; c < 3; c++) {
            e1[c] = w->x[3 * 2 + c] - w->x[c];
            e2[c] = w->x[3 * 1 + c] - w->x[c];
        }
        n[0] = e1[1] * e2[2] - e1[2] * e2[1];
        n[1] = e1[2] * e2[0] - e1[0] * e2[2];
        n[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double len = norm3(n);
        for (int c = 0; c < 3; c++) d[c] = e.x[c] - w->x[c];
        double centre = (d[0] * n[0] + d[1] * n[1] + d[2] * n[2]) / len;
        double lowest = centre - (use_box ? 0.05 * (fabs(n[0]) + fabs(n[1]) + fabs(n[2])) / len
                                          : 0.05);
        if (use_box && w->n == 11) { /* the corners themselves */
            lowest = INFINITY;
            for (int i = 3; i < 11; i++) {
                for (int c = 0; c < 3; c++) d[c] = w->x[3 * i + c] - w->x[c];
                lowest = fmin(lowest, (d[0] * n[0] + d[1] * n[1] + d[2] * n[2]) / len);
            }
        }
        *min_side = fmin(*min_side, lowest);
    }
    pbd_world_total_momentum(w, P, L);
    double d[3] = {P[0] - P0[0], P[1] - P0[1], P[2] - P0[2]};
    *dP = norm3(d) / norm3(P0);
    pbd_world_free(w);
}

static void test_box_corners_on_cloth(void)
{
    double dP, side, dP_s, side_s;
    int rows, rows_s;
    box_through_big_triangle(1, &dP, &side, &rows);
    box_through_big_triangle(0, &dP_s, &side_s, &rows_s);
    printf("\n    box: %d corner rows, lowest corner %.2e m from the cloth plane, |ΔP|/|P0| = "
           "%.1e; sphere (no corners): lowest point %.3f m ", rows, side, dP, side_s);
    CU_ASSERT(rows > 0);
    CU_ASSERT(side > -1e-9);
    CU_ASSERT(dP < 1e-3);
    CU_ASSERT_EQUAL(rows_s, 0);
    CU_ASSERT(side_s < -0.5); /* the control went through */
}

/* With gravity: a box dropped on a cloth hammock (rest lengths of a flat 1 m sheet, corners
 * pinned 15 % closer together so that it sags) comes to rest in it: after 5 s the box moves
 * less than 1 mm in a second (its velocity is not the measure: it reacts with a substep's
 * lag, so at rest it ends each step with +g Δt, which the next substep's gravity takes
 * away), no cloth vertex is inside the box (1e-6 m) over the last second, and
 * no box corner is below the cloth under it (1e-6 m: the corner sits on a triangle's plane,
 * measured against the lowest triangle under it). Contact margin 3 cm (a quarter edge).
 * PBD and XPBD (with zero compliance they project alike). */
static void hammock(int method, double *speed, double *inside, double *bottom_gap)
{
    const int r = 9;
    int32_t tris[2 * 3 * 64];
    int nt;
    pbd_world *w = patch(r, 1.0, 0.5, tris, &nt);
    for (int i = 0; i < r * r; i++) { /* slack */
        w->x[3 * i] *= 0.85;
        w->x[3 * i + 2] *= 0.85;
        w->p[3 * i] = w->x[3 * i];
        w->p[3 * i + 2] = w->x[3 * i + 2];
    }
    w->def.gravity[1] = -9.81;
    pbd_world_attach(w, 0);
    pbd_world_attach(w, r - 1);
    pbd_world_attach(w, r * (r - 1));
    pbd_world_attach(w, r * r - 1);
    CU_ASSERT_EQUAL(pbd_world_set_cloth_triangles(w, tris, nt), PBD_OK);
    const double half[3] = {0.15, 0.1, 0.15};
    pbd_rigid_state s = state_at(0.03, 0.3, -0.02);
    pbd_material m = {0.6, 0.5, 0.0};
    int b = pbd_world_add_rigid_box(w, half, 1.0, &s, &m);
    CU_ASSERT_EQUAL(pbd_world_set_contact_margin(w, 0.03), PBD_OK);
    w->def.dt = 1.0 / 60.0;
    w->def.substeps = 4;
    w->def.iterations = 20;
    w->def.method = method;
    w->def.damping = PBD_DAMPING_SCALE;
    w->def.k_damping = 0.01;
    int col = pbd_world_rigid_collider(w, b);
    for (int k = 0; k < 480; k++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    pbd_rigid_state e0;
    pbd_world_rigid_get(w, b, &e0);
    *inside = 0.0; /* over the last second */
    for (int k = 0; k < 60; k++) {
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        for (int i = 0; i < r * r; i++)
            *inside = fmin(*inside, pbd_collider_distance(w, col, w->x + 3 * i));
    }
    pbd_rigid_state e;
    pbd_world_rigid_get(w, b, &e);
    /* each corner's height over the cloth under it: of the triangles whose x-z projection
     * holds the corner, the lowest one at that point (the cloth may wrap up the box's
     * sides, above its bottom corners) */
    *bottom_gap = INFINITY;
    for (int i = r * r; i < r * r + 8; i++) {
        double surface = INFINITY, height = INFINITY;
        for (int t = 0; t < nt; t++) {
            const double *c = w->x + 3 * i;
            const double *a = w->x + 3 * tris[3 * t], *b1 = w->x + 3 * tris[3 * t + 1],
                         *b2 = w->x + 3 * tris[3 * t + 2];
            double e1[3] = {b1[0] - a[0], b1[1] - a[1], b1[2] - a[2]};
            double e2[3] = {b2[0] - a[0], b2[1] - a[1], b2[2] - a[2]};
            double d[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
            double det = e1[0] * e2[2] - e1[2] * e2[0];
            double bu = (d[0] * e2[2] - d[2] * e2[0]) / det, bv = (e1[0] * d[2] - e1[2] * d[0]) / det;
            if (bu < 0 || bv < 0 || bu + bv > 1) continue;
            double nn[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                            e1[0] * e2[1] - e1[1] * e2[0]};
            double len = norm3(nn) * (nn[1] < 0 ? -1.0 : 1.0);
            double y = a[1] + bu * e1[1] + bv * e2[1]; /* the cloth's height under the corner */
            if (y < surface) {
                surface = y;
                height = (d[0] * nn[0] + d[1] * nn[1] + d[2] * nn[2]) / len;
            }
        }
        *bottom_gap = fmin(*bottom_gap, height);
    }
    double dx[3] = {e.x[0] - e0.x[0], e.x[1] - e0.x[1], e.x[2] - e0.x[2]};
    *speed = norm3(dx); /* displacement over the last second */
    pbd_world_free(w);
}

static void test_box_on_hammock(void)
{
    for (int method = 0; method < 2; method++) {
        double speed, inside, gap;
        hammock(method, &speed, &inside, &gap);
        printf("\n    %s: box moved %.1e m in the last second, deepest cloth vertex inside the "
               "box %.1e m, lowest corner %.1e m over the cloth under it ",
               method ? "XPBD" : "PBD", speed, inside, gap);
        CU_ASSERT(speed < 1e-3);
        CU_ASSERT(inside > -1e-6);
        CU_ASSERT(gap > -1e-6); /* no corner through the cloth */
        CU_ASSERT(gap < 0.05);  /* and it rests on it */
    }
}

void register_rigid_tests(void)
{
    CU_pSuite s = CU_add_suite("rigid", NULL, NULL);
    CU_add_test(s, "free_flight", test_free_flight);
    CU_add_test(s, "gravity", test_gravity);
    CU_add_test(s, "momentum_sphere_cloth", test_momentum_sphere_cloth);
    CU_add_test(s, "momentum_particles_box", test_momentum_particles_box);
    CU_add_test(s, "box_corners_on_cloth", test_box_corners_on_cloth);
    CU_add_test(s, "box_on_hammock", test_box_on_hammock);
}
