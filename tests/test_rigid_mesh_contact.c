/* XPBD rigid bodies against static triangle-mesh colliders (solver/rigid/mesh_collider.c,
 * contact_mesh.c): the closest point of a triangle in each Voronoi region, a sphere, a box
 * and a capsule on a flat two-triangle mesh against the same body on the ground plane, a box
 * on a tilted mesh ramp against the tilted plane and the closed form, a ball's bounce, the
 * broad phase against a brute-force search, and the refusals. */
#include "tests.h"
#include "constraints/pbd_constraint.h"
#include "experiments/pbd_experiments.h"
#include "solver/rigid/pbd_rigid.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double dist3(const double *a, const double *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                (a[2] - b[2]) * (a[2] - b[2]));
}

/* ---- the closest point (Ericson Sec. 5.1.5) ----------------------------------------- */

/* The right triangle a = 0, b = x, c = y and a point in each of its seven regions with the
 * closest point by hand; then the same turned by a rotation R and moved by t: q(R p + t) =
 * R q(p) + t. Every hand answer and every intermediate of the axis-aligned case is a dyadic
 * number (sums of halves), so that case is exact; the turned one carries the rotation's and
 * the dot products' rounding, a few ε per operation on coordinates of size <= 3: 64 ε × 3. */
static void test_closest_point(void)
{
    const double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0};
    const struct {
        double p[3], q[3];
        pbd_triangle_region region;
    } cases[7] = {
        {{0.25, 0.25, 2.0}, {0.25, 0.25, 0.0}, PBD_TRIANGLE_FACE},
        {{-1.0, -1.0, 0.5}, {0.0, 0.0, 0.0}, PBD_TRIANGLE_VERTEX_A},
        {{2.0, -0.5, 0.0}, {1.0, 0.0, 0.0}, PBD_TRIANGLE_VERTEX_B},
        {{-0.5, 2.0, 1.0}, {0.0, 1.0, 0.0}, PBD_TRIANGLE_VERTEX_C},
        {{0.5, -1.0, 0.25}, {0.5, 0.0, 0.0}, PBD_TRIANGLE_EDGE_AB},
        {{1.0, 1.0, 0.25}, {0.5, 0.5, 0.0}, PBD_TRIANGLE_EDGE_BC},
        {{-1.0, 0.5, -0.5}, {0.0, 0.5, 0.0}, PBD_TRIANGLE_EDGE_CA},
    };
    const double rv[3] = {0.3, -0.7, 0.4}, t[3] = {0.5, -1.0, 2.0};
    double rq[4];
    pbd_quat_from_rotvec(rv, rq);
    double ra[3], rb[3], rc[3];
    pbd_quat_rotate(rq, a, ra);
    pbd_quat_rotate(rq, b, rb);
    pbd_quat_rotate(rq, c, rc);
    for (int k = 0; k < 3; k++) ra[k] += t[k], rb[k] += t[k], rc[k] += t[k];
    const double tol = 64 * DBL_EPSILON * 3.0;
    for (int i = 0; i < 7; i++) {
        double q[3], p[3], want[3], got[3];
        pbd_triangle_region r = pbd_rigid_triangle_closest_point(cases[i].p, a, b, c, q);
        CU_ASSERT_EQUAL(r, cases[i].region);
        CU_ASSERT_EQUAL(dist3(q, cases[i].q), 0.0);
        pbd_quat_rotate(rq, cases[i].p, p);
        pbd_quat_rotate(rq, cases[i].q, want);
        for (int k = 0; k < 3; k++) p[k] += t[k], want[k] += t[k];
        pbd_triangle_region r2 = pbd_rigid_triangle_closest_point(p, ra, rb, rc, got);
        CU_ASSERT_EQUAL(r2, cases[i].region);
        CU_ASSERT(dist3(got, want) <= tol);
        if (r != cases[i].region || r2 != cases[i].region || dist3(got, want) > tol)
            printf("\n    case %d: region %d/%d (want %d), turned off by %.2e ", i, (int)r,
                   (int)r2, (int)cases[i].region, dist3(got, want));
    }
}

/* ---- a flat mesh against the ground plane ------------------------------------------- */

/* The square [-4, 4]² at y = 0 in two triangles facing +y: their normals are (0, 4L², 0)/4L²
 * = +y exactly (L = 4: 1/64 is exact), and the body's point on a triangle has y = c_y − c_y
 * = 0 exactly, so each contact row is the ground's, number for number, and in the ground's
 * order (a box's corners 0..7, a capsule's ends 0, 1). */
static const double SQUARE[4][3] = {{-4, 0, -4}, {4, 0, -4}, {4, 0, 4}, {-4, 0, 4}};
static const int SQUARE_TRIS[2][3] = {{0, 2, 1}, {0, 3, 2}};

typedef struct {
    pbd_rigid_shape shape;
    double x[3], rv[3], v[3], omega[3];
} body_start;

/* Two worlds (20 substeps × 1 iteration at 1/60 s), the body on the ground plane and on the
 * collider (through x, placed by q, with the body's coefficients); returns the largest
 * difference of x, v (m, m/s), q and ω over `steps` steps in *dx, *dq */
static void plane_and_mesh(const body_start *s, const pbd_rigid_material *m, double theta,
                           int steps, double *dx, double *dq, double moved[2])
{
    pbd_rigid_world *w[2];
    double rz[3] = {0, 0, -theta}, qz[4], zero[3] = {0, 0, 0};
    pbd_quat_from_rotvec(rz, qz);
    for (int k = 0; k < 2; k++) {
        w[k] = pbd_rigid_world_create(1.0 / 60.0, 20, 1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w[k]);
        double q[4];
        pbd_quat_from_rotvec(s->rv, q);
        int b = pbd_rigid_add_body(w[k], &s->shape, 1.0, s->x, q);
        CU_ASSERT_EQUAL_FATAL(b, 0);
        pbd_rigid_set_material(&w[k]->bodies[b], m);
        memcpy(w[k]->bodies[b].v, s->v, sizeof s->v);
        memcpy(w[k]->bodies[b].omega, s->omega, sizeof s->omega);
    }
    w[0]->ground = 1;
    w[0]->ground_normal[0] = sin(theta);
    w[0]->ground_normal[1] = cos(theta);
    int mb = pbd_rigid_add_mesh_collider(w[1], &SQUARE[0][0], 4, &SQUARE_TRIS[0][0], 2, zero,
                                         qz, m);
    CU_ASSERT_EQUAL_FATAL(mb, 1);
    *dx = *dq = 0.0;
    for (int i = 0; i < steps; i++)
        for (int k = 0; k < 2; k++) CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w[k]), PBD_OK);
    const pbd_rigid_body *a = &w[0]->bodies[0], *b = &w[1]->bodies[0];
    *dx = fmax(dist3(a->x, b->x), dist3(a->v, b->v));
    double qd = 0.0;
    for (int k = 0; k < 4; k++) qd = fmax(qd, fabs(a->q[k] - b->q[k]));
    *dq = fmax(qd, dist3(a->omega, b->omega));
    for (int k = 0; k < 2; k++) { /* down the slope (+x turned by −θ about z) */
        const pbd_rigid_body *c = &w[k]->bodies[0];
        moved[k] = (c->x[0] - s->x[0]) * cos(theta) - (c->x[1] - s->x[1]) * sin(theta);
    }
    pbd_rigid_world_free(w[0]);
    pbd_rigid_world_free(w[1]);
}

/* A sphere, a box and a capsule dropped turned and moving, sliding and spinning on the flat
 * mesh (μs 0.5, μk 0.3, e 0.5; 1 s) follow the ground plane's trajectory exactly: the same
 * rows in the same order do the same floating-point operations, so the bound is 0. First off
 * the square's diagonal x = z (one triangle carries each), then sliding across it: the
 * neighbour's edge row under a ball held by a face comes after the face's row and finds no
 * penetration, so the rows that act are still the ground's. */
static void test_flat_equals_plane(void)
{
    const pbd_rigid_material m = {0.5, 0.3, 0.5};
    const body_start s[3] = {
        {{.kind = PBD_RIGID_SPHERE, .radius = 0.1}, {0.3, 0.5, 1.5}, {0.2, 0.1, 0.3},
         {1.0, 0.0, 0.4}, {2.0, -1.0, 3.0}},
        {{.kind = PBD_RIGID_BOX, .half = {0.2, 0.1, 0.15}}, {0.3, 0.5, 1.5}, {0.3, 0.4, 0.2},
         {1.0, 0.0, 0.4}, {1.0, 2.0, -1.0}},
        {{.kind = PBD_RIGID_CAPSULE, .radius = 0.08, .half = {0.2, 0, 0}}, {0.3, 0.5, 1.5},
         {0.1, 0.5, 0.3}, {1.0, 0.0, 0.4}, {0.5, 1.0, 2.0}},
    };
    const char *names[3] = {"sphere", "box", "capsule"};
    for (int across = 0; across < 2; across++)
        for (int i = 0; i < 3; i++) {
            body_start b = s[i];
            if (across) { /* from z − x = 0.3 m at 1.5 m/s along x (μk g = 2.9 m/s²: it
                           * crosses x = z within 0.25 s), then on the other side */
                b.x[1] = 0.15;
                b.x[2] = 0.6;
                b.v[0] = 1.5, b.v[2] = 0.0;
            }
            double dx, dq, moved[2];
            plane_and_mesh(&b, &m, 0.0, 60, &dx, &dq, moved);
            printf("\n    %s%s: |dx|, |dv| %.1e, |dq|, |dw| %.1e ", names[i],
                   across ? " across the diagonal" : "", dx, dq);
            CU_ASSERT_EQUAL(dx, 0.0);
            CU_ASSERT_EQUAL(dq, 0.0);
        }
}

/* A box on the mesh square tilted by θ about z (the ramp through the origin, the collider
 * placed by R_z(−θ)): at tan θ = 0.5 μs it holds, at 1.5 μs it slides, as on the tilted
 * plane (tests/test_rigid_contact.c tilted_ground: under 1 mm; between 0.5 and 1.3 of
 * ½ g (sin θ − μk cos θ) t², README "Findings"). Against the tilted plane itself: the mesh's
 * normal R_z(−θ) y differs from (sin θ, cos θ, 0) by the rotation's rounding, a few ε, and its
 * contact points carry the vertices' ε |x| (|x| <= 6 m), so each of the 1200 substeps may
 * part the two by about 8 ε × 6 m; the bound is 1200 × 8 ε × 6 m = 1.3e-11 m (and per s for
 * the velocities, which are the positions' differences over h = 1/1200 s: × 1200). */
static void test_tilted_ramp(void)
{
    const double mu_s = 0.5;
    const pbd_rigid_material m = {mu_s, 0.4, 0.0};
    double bound = 1200 * 8 * DBL_EPSILON * 6.0;
    for (int k = 0; k < 2; k++) {
        double ratio = k ? 1.5 : 0.5, th = atan(ratio * mu_s), dx, dq, moved[2];
        body_start s = {{.kind = PBD_RIGID_BOX, .half = {0.2, 0.1, 0.15}},
                        {0.1 * sin(th), 0.1 * cos(th), 0.0}, {0, 0, -th}, {0, 0, 0},
                        {0, 0, 0}};
        plane_and_mesh(&s, &m, th, 60, &dx, &dq, moved);
        double want = 0.5 * 9.81 * (sin(th) - 0.4 * cos(th));
        printf("\n    tan = %.1f mu_s: moved %.3e m on the mesh, %.3e m on the plane (closed form "
               "%.3f m), |dx|, |dv| %.1e (bound %.1e), |dq|, |dw| %.1e ", ratio, moved[1],
               moved[0], k ? want : 0.0, dx, bound, dq);
        if (k == 0) CU_ASSERT(fabs(moved[1]) < 1e-3);
        if (k == 1) CU_ASSERT(moved[1] > 0.5 * want && moved[1] < 1.3 * want);
        CU_ASSERT(dx <= 1200 * bound);
        CU_ASSERT(fabs(moved[1] - moved[0]) <= bound);
        CU_ASSERT(dq <= 1200 * bound);
    }
}

/* A ball (r = 0.1 m, e = 0.6 with the collider's 0.6) dropped 1 m onto the flat mesh: the
 * first apex is e² h0 to the substep's shift of the impact speed, 2 g h/v ~ 2e-3 relative at
 * h = 1/2400 s (as tests/test_rigid_contact.c ball_on_box): tolerance 5e-3. */
static void test_bounce(void)
{
    pbd_rigid_world *w = pbd_rigid_world_create(1.0 / 600.0, 4, 1);
    const pbd_rigid_material m = {0.0, 0.0, 0.6};
    double zero[3] = {0, 0, 0}, xb[3] = {0.05, 1.1, 0.7};
    pbd_rigid_shape ball = {.kind = PBD_RIGID_SPHERE, .radius = 0.1};
    int b = pbd_rigid_add_body(w, &ball, 1.0, xb, NULL);
    pbd_rigid_set_material(&w->bodies[b], &m);
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_add_mesh_collider(w, &SQUARE[0][0], 4, &SQUARE_TRIS[0][0],
                                                      2, zero, NULL, &m), 1);
    double apex = test_rigid_first_apex(w, b, 0.1);
    printf("\n    apex %.4f m against e^2 h0 = 0.36 m ", apex);
    CU_ASSERT(fabs(apex - 0.36) <= 5e-3 * 0.36);
    pbd_rigid_world_free(w);
}

/* A body settled on a collider (restitution 0, μs 0.5, μk 0.3; 20 substeps × 1 iteration at
 * 1/60 s, 1 s): its centre and its largest speed */
static void settle(const pbd_rigid_shape *shape, const double x[3], const double *v, int nv,
                   const int *tri, int nt, double centre[3], double q[4], double *speed)
{
    pbd_rigid_world *w = pbd_rigid_world_create(1.0 / 60.0, 20, 1);
    const pbd_rigid_material m = {0.5, 0.3, 0.0};
    double zero[3] = {0, 0, 0};
    int b = pbd_rigid_add_body(w, shape, 1.0, x, NULL);
    pbd_rigid_set_material(&w->bodies[b], &m);
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_add_mesh_collider(w, v, nv, tri, nt, zero, NULL, &m), 1);
    for (int k = 0; k < 60; k++) CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
    memcpy(centre, w->bodies[b].x, 3 * sizeof *centre);
    memcpy(q, w->bodies[b].q, 4 * sizeof *q);
    *speed = sqrt(w->bodies[b].v[0] * w->bodies[b].v[0] + w->bodies[b].v[1] * w->bodies[b].v[1] +
                  w->bodies[b].v[2] * w->bodies[b].v[2]);
    pbd_rigid_world_free(w);
}

/* Edge contacts: a ball (r = 0.1 m) dropped 5 cm into a square hole of half side a = 0.06 m
 * in a flat frame of 8 triangles rests on the hole's four edges, its centre at
 * y = sqrt(r² − a²) = 0.08 m (no face lies under the centre, the corners are
 * sqrt(2a² + y²) > r away). Each substep gravity sinks it g h² = 6.8e-6 m and one iteration
 * of the four edge rows lifts it back, all but what the tilted normals leave (a fraction of
 * g h²): within 4 g h² = 2.7e-5 m, at rest to g h = 8.2e-3 m/s, and centred to g h² (the
 * hole is symmetric, but the rows act one after the other, each along its tilted normal: the
 * last leaves a sideways imbalance below one substep's sink). */
static void test_ball_in_hole(void)
{
    const double a = 0.06, r = 0.1;
    const double v[8][3] = {{-1, 0, -1}, {1, 0, -1}, {1, 0, 1}, {-1, 0, 1},
                            {-a, 0, -a}, {a, 0, -a}, {a, 0, a},  {-a, 0, a}};
    /* the frame between the outer (0-3) and inner (4-7) squares, facing +y */
    const int tri[8][3] = {{0, 4, 1}, {1, 4, 5}, {1, 5, 2}, {2, 5, 6},
                           {2, 6, 3}, {3, 6, 7}, {3, 7, 0}, {0, 7, 4}};
    pbd_rigid_shape ball = {.kind = PBD_RIGID_SPHERE, .radius = r};
    double x[3] = {0, sqrt(r * r - a * a) + 0.05, 0}, c[3], q[4], speed;
    settle(&ball, x, &v[0][0], 8, &tri[0][0], 8, c, q, &speed);
    double h = 1.0 / 1200.0, want = sqrt(r * r - a * a);
    printf("\n    centre (%.2e, %.8f, %.2e) m against y = %.8f m, speed %.1e m/s ", c[0], c[1],
           c[2], want, speed);
    CU_ASSERT(fabs(c[1] - want) <= 4 * 9.81 * h * h);
    CU_ASSERT(fabs(c[0]) <= 9.81 * h * h && fabs(c[2]) <= 9.81 * h * h);
    CU_ASSERT(speed <= 9.81 * h);
}

/* Face–vertex contacts: a box of half extents (0.2, 0.1, 0.15) m dropped 5 cm onto one small
 * triangle (vertices within 0.1 m of the centre, all under its bottom face: no corner lies
 * over it) rests on the triangle's three vertices, its centre at y = 0.1 m to 4 g h² (as
 * above), level (its y axis within 4 g h²/0.08 m = 3.4e-4 rad of the vertical: the vertices'
 * residual sinks, each below 4 g h², over the shortest lever from the centre to a vertex)
 * and at rest. The landing may turn it about the vertical and shift it sideways (the rows
 * act one after the other along the box's tilting face normal): not checked. */
static void test_box_on_vertices(void)
{
    const double v[3][3] = {{-0.1, 0, -0.08}, {0.1, 0, -0.08}, {0.0, 0, 0.1}};
    const int tri[1][3] = {{0, 2, 1}};
    pbd_rigid_shape box = {.kind = PBD_RIGID_BOX, .half = {0.2, 0.1, 0.15}};
    double x[3] = {0, 0.15, 0}, c[3], q[4], speed, h = 1.0 / 1200.0;
    settle(&box, x, &v[0][0], 3, &tri[0][0], 1, c, q, &speed);
    double ey[3] = {0, 1, 0}, up[3];
    pbd_quat_rotate(q, ey, up);
    double tilt = acos(fmin(1.0, up[1]));
    printf("\n    centre (%.2e, %.8f, %.2e) m, tilt %.1e rad, speed %.1e m/s ", c[0], c[1], c[2],
           tilt, speed);
    CU_ASSERT(fabs(c[1] - 0.1) <= 4 * 9.81 * h * h);
    CU_ASSERT(tilt <= 4 * 9.81 * h * h / 0.08);
    CU_ASSERT(speed <= 9.81 * h);
}

/* Points that several triangles share give one contact: a ball resting on the apex of a
 * four-sided pyramid (its centre straight over the apex: the apex is the closest point of all
 * four triangles, with the normal +y each time) has one row, not four; a box resting on the
 * flat square with two bottom corners on its diagonal (over both triangles) has four rows,
 * not six. Counted after one step of 20 substeps, the bodies placed at rest on them. */
static void test_shared_points(void)
{
    const double apex[5][3] = {{-1, -0.5, -1}, {1, -0.5, -1}, {1, -0.5, 1}, {-1, -0.5, 1},
                               {0, 0, 0}};
    const int sides[4][3] = {{0, 4, 1}, {1, 4, 2}, {2, 4, 3}, {3, 4, 0}};
    pbd_rigid_shape ball = {.kind = PBD_RIGID_SPHERE, .radius = 0.1};
    pbd_rigid_shape box = {.kind = PBD_RIGID_BOX, .half = {0.2, 0.1, 0.2}};
    const pbd_rigid_shape *shape[2] = {&ball, &box};
    const double *v[2] = {&apex[0][0], &SQUARE[0][0]};
    const int *t[2] = {&sides[0][0], &SQUARE_TRIS[0][0]}, nv[2] = {5, 4}, nt[2] = {4, 2};
    const int want[2] = {1, 4};
    for (int k = 0; k < 2; k++) {
        pbd_rigid_world *w = pbd_rigid_world_create(1.0 / 60.0, 20, 1);
        double x[3] = {0, 0.1, 0}, zero[3] = {0, 0, 0};
        CU_ASSERT_EQUAL_FATAL(pbd_rigid_add_body(w, shape[k], 1.0, x, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(pbd_rigid_add_mesh_collider(w, v[k], nv[k], t[k], nt[k], zero,
                                                          NULL, NULL), 1);
        CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
        printf("\n    %s: %d contacts (want %d) ", k ? "box over the diagonal" : "ball on the apex",
               w->n_contacts, want[k]);
        CU_ASSERT_EQUAL(w->n_contacts, want[k]);
        pbd_rigid_world_free(w);
    }
}

/* ---- the broad phase ----------------------------------------------------------------- */

/* A bumpy terrain of 64 × 64 cells (8192 triangles): for 200 boxes of random centre and size
 * the tree's triangles are exactly those whose bounding boxes overlap the box (a brute-force
 * search over all triangles; both compare the same doubles, no rounding). */
#define TERRAIN_N 64
static void test_broad_phase(void)
{
    static double v[(TERRAIN_N + 1) * (TERRAIN_N + 1)][3];
    static int tri[2 * TERRAIN_N * TERRAIN_N][3], got[2 * TERRAIN_N * TERRAIN_N];
    static char hit[2 * TERRAIN_N * TERRAIN_N];
    const int n1 = TERRAIN_N + 1, nt = 2 * TERRAIN_N * TERRAIN_N;
    for (int i = 0; i < n1; i++)
        for (int j = 0; j < n1; j++) {
            double x = -8.0 + 16.0 * i / TERRAIN_N, z = -8.0 + 16.0 * j / TERRAIN_N;
            v[i * n1 + j][0] = x;
            v[i * n1 + j][1] = 0.3 * sin(1.3 * x) * cos(0.7 * z);
            v[i * n1 + j][2] = z;
        }
    for (int i = 0, t = 0; i < TERRAIN_N; i++)
        for (int j = 0; j < TERRAIN_N; j++) {
            int a = i * n1 + j, b = a + n1, c = b + 1, d = a + 1;
            tri[t][0] = a, tri[t][1] = d, tri[t][2] = c, t++; /* facing +y */
            tri[t][0] = a, tri[t][1] = c, tri[t][2] = b, t++;
        }
    pbd_rigid_world *w = pbd_rigid_world_create(0.01, 1, 1);
    double zero[3] = {0, 0, 0};
    int mb = pbd_rigid_add_mesh_collider(w, &v[0][0], n1 * n1, &tri[0][0], nt, zero, NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(mb, 0);
    CU_ASSERT_EQUAL(pbd_rigid_mesh_collider_query(w, 5, zero, zero, got), -1);
    unsigned s = 12345u;
    int worst = 0, total = 0, wrong = 0;
    for (int k = 0; k < 200; k++) {
        double lo[3], hi[3];
        for (int a = 0; a < 3; a++) {
            s = s * 1103515245u + 12345u;
            double c = -9.0 + 18.0 * (s >> 8 & 0xffff) / 65535.0;
            s = s * 1103515245u + 12345u;
            double r = 0.05 + 1.0 * (s >> 8 & 0xffff) / 65535.0;
            if (a == 1) c *= 0.05;
            lo[a] = c - r;
            hi[a] = c + r;
        }
        int n = pbd_rigid_mesh_collider_query(w, mb, lo, hi, got);
        memset(hit, 0, sizeof hit);
        for (int i = 0; i < n; i++) hit[got[i]]++;
        int want = 0;
        for (int t = 0; t < nt; t++) {
            int in = 1;
            for (int a = 0; a < 3; a++) {
                double tl = INFINITY, th = -INFINITY;
                for (int c = 0; c < 3; c++) {
                    tl = fmin(tl, v[tri[t][c]][a]);
                    th = fmax(th, v[tri[t][c]][a]);
                }
                if (tl > hi[a] || th < lo[a]) in = 0;
            }
            want += in;
            if (hit[t] != in) wrong++;
        }
        CU_ASSERT_EQUAL(n, want);
        worst = n > worst ? n : worst;
        total += n;
    }
    printf("\n    200 boxes: %d triangles found in all (at most %d of %d in one), %d wrong ",
           total, worst, nt, wrong);
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT(total > 0);
    pbd_rigid_world_free(w);
}

/* ---- pbd-run rigid_mesh_bowl ----------------------------------------------------------- */

/* pbd-run rigid_mesh_bowl (experiments/scenes/scene_rigid.c) writes a complete file whose
 * /results/rigid_bodies names the bowl (shape 5, mass 0) and, after 2 s, every body's centre
 * above the bottom (y > 0) and inside the bowl's sphere (centre C = (0, 1, 0) m, R = 1 m) by
 * more than 0.03 m: resting on the facets a centre is at least its smallest extent (0.06 m)
 * inside the sphere, while a body through the surface would have it beyond the facets'
 * planes, within R (1 − cos 7.5°) = 0.009 m of the sphere or outside it. An option the scene
 * does not read is refused (exit 2, naming it). */
static void test_pbd_run_bowl(void)
{
    char dir[] = "/tmp/pbd_rigid_bowl_XXXXXX", cmd[1600], err[2048], errp[1200], path[1600];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(errp, sizeof errp, "%s/err.txt", dir);
    snprintf(cmd, sizeof cmd, "%s/pbd-run rigid_mesh_bowl --ramp-angle=10 >/dev/null 2>%s",
             test_bin_dir(), errp);
    CU_ASSERT_EQUAL(test_run_stderr(cmd, errp, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--ramp-angle: cannot act here"));
    snprintf(cmd, sizeof cmd, "%s/pbd-run rigid_mesh_bowl --steps=120 --frames=120 --quiet "
             "--out=%s >/dev/null 2>%s", test_bin_dir(), dir, errp);
    CU_ASSERT_EQUAL_FATAL(test_run_stderr(cmd, errp, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/rigid_mesh_bowl/run.h5", dir);
    double complete = -1, *bodies = NULL, *x = NULL;
    long rows = 0, cols = 0;
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "complete", &complete), 0);
    CU_ASSERT_EQUAL(complete, 1);
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/results/rigid_bodies", &bodies, &rows,
                                              &cols), 0);
    CU_ASSERT_FATAL(rows == 4 && cols == 6);
    CU_ASSERT(bodies[0] == (double)PBD_RIGID_MESH && bodies[1] == 0.0);
    free(bodies);
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/frames/000001/positions", &x, &rows,
                                              &cols), 0);
    CU_ASSERT_FATAL(rows == 4 && cols == 3);
    for (int i = 1; i < 4; i++) {
        double d[3] = {x[3 * i], x[3 * i + 1] - 1.0, x[3 * i + 2]};
        printf("\n    body %d at step 120: y %.4f m, %.4f m inside the sphere ", i, x[3 * i + 1],
               1.0 - sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
        CU_ASSERT(x[3 * i + 1] > 0.0);
        CU_ASSERT(1.0 - sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) > 0.03);
    }
    free(x);
    test_remove_dir(dir);
}

/* ---- refusals -------------------------------------------------------------------------- */

static void refused(const double *v, int nv, const int *tri, int nt, const char *what)
{
    pbd_rigid_world *w = pbd_rigid_world_create(0.01, 1, 1);
    double zero[3] = {0, 0, 0};
    CU_ASSERT_EQUAL(pbd_rigid_add_mesh_collider(w, v, nv, tri, nt, zero, NULL, NULL), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(pbd_last_error(), what));
    CU_ASSERT_EQUAL(w->n_bodies, 0);
    printf("\n    refused: %s", pbd_last_error());
    pbd_rigid_world_free(w);
}

static void test_refusals(void)
{
    double v[4][3];
    int tri[2][3];
    memcpy(v, SQUARE, sizeof v);
    memcpy(tri, SQUARE_TRIS, sizeof tri);
    v[2][1] = NAN;
    refused(&v[0][0], 4, &tri[0][0], 2, "vertex 2: expected finite");
    v[2][1] = 0.0;
    tri[1][2] = 4;
    refused(&v[0][0], 4, &tri[0][0], 2, "triangle 1: expected vertex indices in [0, 4)");
    tri[1][2] = -1;
    refused(&v[0][0], 4, &tri[0][0], 2, "triangle 1: expected vertex indices");
    tri[1][2] = 0; /* a vertex repeated */
    refused(&v[0][0], 4, &tri[0][0], 2, "triangle 1: expected three vertices not on a line");
    tri[1][2] = 2;
    v[3][0] = 0.0, v[3][2] = 0.0; /* vertex 3 on the diagonal 0–2 */
    refused(&v[0][0], 4, &tri[0][0], 2, "triangle 1: expected three vertices not on a line");
    refused(&v[0][0], 2, &tri[0][0], 0, ">= 3 vertices and >= 1 triangle");
    memcpy(v, SQUARE, sizeof v);
    pbd_rigid_world *w = pbd_rigid_world_create(0.01, 1, 1);
    double zero[3] = {0, 0, 0};
    pbd_rigid_material bad = {0.5, -0.1, 0.0};
    CU_ASSERT_EQUAL(pbd_rigid_add_mesh_collider(w, &v[0][0], 4, &tri[0][0], 2, zero, NULL, &bad),
                    -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(pbd_last_error(), "material"));
    printf("\n    refused: %s", pbd_last_error());
    /* a moving mesh still has no contacts */
    pbd_rigid_shape s = {.kind = PBD_RIGID_MESH};
    double I[3] = {1, 1, 1};
    CU_ASSERT_EQUAL(pbd_rigid_add_body_inertia(w, 1.0, I, &s, zero, NULL), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(pbd_last_error(), "pbd_rigid_add_mesh_collider"));
    pbd_rigid_world_free(w);
}

void register_rigid_mesh_contact_tests(void)
{
    CU_pSuite s = CU_add_suite("rigid_mesh_contact", NULL, NULL);
    CU_add_test(s, "closest_point", test_closest_point);
    CU_add_test(s, "flat_equals_plane", test_flat_equals_plane);
    CU_add_test(s, "tilted_ramp", test_tilted_ramp);
    CU_add_test(s, "bounce", test_bounce);
    CU_add_test(s, "ball_in_hole", test_ball_in_hole);
    CU_add_test(s, "box_on_vertices", test_box_on_vertices);
    CU_add_test(s, "shared_points", test_shared_points);
    CU_add_test(s, "broad_phase", test_broad_phase);
    CU_add_test(s, "pbd_run_bowl", test_pbd_run_bowl);
    CU_add_test(s, "refusals", test_refusals);
}
