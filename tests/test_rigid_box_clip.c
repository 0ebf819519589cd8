/* Box–box contacts by face clipping (solver/rigid/contact.c, face_contacts; Ericson, "Real-Time
 * Collision Detection" 2005, Sec. 5.2): the manifold of two boxes against its closed form
 * (aligned faces, nearly aligned, a box turned 45 degrees on an equal one, a small box on a big one in both
 * body orders, a box tilted onto an edge), and a turned box resting on a fixed one. */
#include "tests.h"
#include "solver/rigid/pbd_rigid.h"
#include "solver/rigid/rigid_private.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

/* Every point below passes through a few quaternion rotations (to a body frame and back),
 * dot products and at most one clipping interpolation p + s (q − p) whose s has no
 * cancellation (sp, sq of opposite signs); each step's error is below 16 ε of the lengths
 * involved (at most 1 m here), so 100 ε m bounds a point's and a depth's error. */
#define CLIP_TOL (100.0 * DBL_EPSILON)

/* The fixed box's centre, off the origin so that every plane's offset counts */
static const double base[3] = {0.21, -0.13, 0.37};

/* A fixed box (half extents hb, at base) and a free box (ht at base + xt, turned by the
 * rotation vector rv), added in that order or (top_first) the other way; the contacts of the
 * pair at these poses. */
static pbd_rigid_world *pair_world(const double hb[3], const double ht[3], const double xt[3],
                                   const double rv[3], int top_first)
{
    pbd_rigid_world *w = pbd_rigid_world_create(1.0 / 60.0, 20, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    const pbd_rigid_shape bottom = {.kind = PBD_RIGID_BOX, .half = {hb[0], hb[1], hb[2]}};
    const pbd_rigid_shape top = {.kind = PBD_RIGID_BOX, .half = {ht[0], ht[1], ht[2]}};
    double x[3] = {base[0] + xt[0], base[1] + xt[1], base[2] + xt[2]}, q[4];
    pbd_quat_from_rotvec(rv, q);
    for (int k = 0; k < 2; k++) {
        int is_top = k == 0 ? top_first : !top_first;
        int b = is_top ? pbd_rigid_add_body(w, &top, 1.0, x, q)
                       : pbd_rigid_add_body(w, &bottom, 0.0, base, NULL);
        CU_ASSERT_EQUAL_FATAL(b, k);
    }
    CU_ASSERT_EQUAL_FATAL(rigid_contacts_generate(w), PBD_OK);
    return w;
}

/* The contacts of pair_world(hb, ht, x, rv, top_first) against the expected points (x, z) of
 * the touching region (relative to base), the top box's lowest face or edge d below the
 * fixed box's face y = hb[1]: each contact's normal is ±y from body 2 towards body 1, its
 * top-box point at height y_low = hb[1] − d, its fixed-box point on the face straight above
 * it, their depth d; each expected point is met within tol by exactly one contact, and the
 * normal, heights, depths and the two points' alignment are within CLIP_TOL. */
static void expect_manifold(const double hb[3], const double ht[3], const double x[3],
                            const double rv[3], int top_first, double d,
                            const double (*want)[2], int n_want, double tol)
{
    pbd_rigid_world *w = pair_world(hb, ht, x, rv, top_first);
    const int top = !top_first;
    const double y_face = hb[1], y_low = hb[1] - d;
    CU_ASSERT_EQUAL(w->n_contacts, n_want);
    int met[8] = {0};
    double worst = 0.0;
    for (int i = 0; i < w->n_contacts; i++) {
        const pbd_rigid_contact *c = &w->contacts[i];
        const pbd_rigid_body *b1 = &w->bodies[c->body[0]], *b2 = &w->bodies[c->body[1]];
        double p[2][3], ny = top == 0 ? 1.0 : -1.0; /* n from body 2 to body 1 */
        pbd_quat_rotate(b1->q, c->r, p[0]);
        pbd_quat_rotate(b2->q, c->r2, p[1]);
        for (int a = 0; a < 3; a++) p[0][a] += b1->x[a] - base[a], p[1][a] += b2->x[a] - base[a];
        const double *pt = p[top], *pb = p[1 - top];
        double depth = (p[1][0] - p[0][0]) * c->n[0] + (p[1][1] - p[0][1]) * c->n[1] +
                       (p[1][2] - p[0][2]) * c->n[2];
        double e = fmax(fmax(fabs(c->n[0]), fabs(c->n[1] - ny)), fabs(c->n[2]));
        e = fmax(e, fmax(fabs(pt[1] - y_low), fabs(pb[1] - y_face)));
        e = fmax(e, fmax(fabs(pt[0] - pb[0]), fabs(pt[2] - pb[2])));
        e = fmax(e, fabs(depth - (y_face - y_low)));
        int match = -1;
        for (int k = 0; k < n_want; k++)
            if (fabs(pt[0] - want[k][0]) <= tol && fabs(pt[2] - want[k][1]) <= tol)
                match = k;
        CU_ASSERT(match >= 0);
        if (match >= 0) met[match]++;
        worst = fmax(worst, e);
    }
    for (int k = 0; k < n_want; k++) CU_ASSERT_EQUAL(met[k], 1);
    printf("\n    %d contacts, largest error %.1e m (bound %.1e) ", w->n_contacts, worst,
           CLIP_TOL);
    CU_ASSERT(worst <= CLIP_TOL);
    pbd_rigid_world_free(w);
}

/* Two equal boxes, faces aligned, overlapping by d: the four corners of the face, depth d;
 * the free box added second (the fixed box's face the reference) and first (its own). */
static void test_aligned(void)
{
    const double h[3] = {0.3, 0.1, 0.2}, d = 2e-3, x[3] = {0, 2 * h[1] - d, 0}, none[3] = {0};
    const double want[4][2] = {{0.3, 0.2}, {-0.3, 0.2}, {-0.3, -0.2}, {0.3, -0.2}};
    for (int top_first = 0; top_first < 2; top_first++)
        expect_manifold(h, h, x, none, top_first, d, want, 4, CLIP_TOL);
}

/* The same boxes, the top one turned by θ = 1e-7 rad about the vertical: clipping leaves a
 * point near each corner doubled (an edge crossing the side plane a distance ~ |h| θ from
 * the corner); each pair counts once, so 4 contacts, each within 2 |h| θ (7.2e-8 m) of a
 * corner, at depths d within that tilt-free turn's rounding. */
static void test_nearly_aligned(void)
{
    const double h[3] = {0.3, 0.1, 0.2}, d = 2e-3, x[3] = {0, 2 * h[1] - d, 0}, th = 1e-7;
    const double rv[3] = {0, th, 0}, reach = 2.0 * sqrt(0.13) * th;
    const double want[4][2] = {{0.3, 0.2}, {-0.3, 0.2}, {-0.3, -0.2}, {0.3, -0.2}};
    expect_manifold(h, h, x, rv, 0, d, want, 4, reach);
}

/* The top box turned 45 degrees about the vertical on an equal one: the square |x|, |z| <= s
 * and the diamond |x| + |z| <= s √2 meet in a regular octagon whose vertices are
 * (±s, ±s(√2 − 1)) and (±s(√2 − 1), ±s); no corner of either face lies inside the other. */
static void test_turned_45(void)
{
    const double s = 0.15, h[3] = {s, 0.1, s}, d = 1e-3, x[3] = {0, 2 * h[1] - d, 0};
    const double rv[3] = {0, M_PI / 4.0, 0}, t = s * (sqrt(2.0) - 1.0);
    const double want[8][2] = {{s, t}, {s, -t}, {-s, t}, {-s, -t},
                               {t, s}, {-t, s}, {t, -s}, {-t, -s}};
    expect_manifold(h, h, x, rv, 0, d, want, 8, CLIP_TOL);
}

/* A small box (turned 0.4 rad about the vertical, off centre) on a big one: its four bottom
 * corners, depth d; added after the big box (its face then the incident one) and before it
 * (the big box's face is the reference either way: the larger face of equal overlap). */
static void test_small_on_big(void)
{
    const double hb[3] = {0.5, 0.1, 0.4}, ht[3] = {0.1, 0.05, 0.15}, d = 1.5e-3;
    const double x[3] = {0.12, hb[1] + ht[1] - d, -0.07}, rv[3] = {0, 0.4, 0};
    double want[4][2], c = cos(0.4), sn = sin(0.4);
    for (int k = 0; k < 4; k++) { /* R_y(θ) (lx, lz) = (lx c + lz s, −lx s + lz c) */
        double lx = (k & 1 ? 1 : -1) * ht[0], lz = (k & 2 ? 1 : -1) * ht[2];
        want[k][0] = x[0] + lx * c + lz * sn;
        want[k][1] = x[2] - lx * sn + lz * c;
    }
    for (int top_first = 0; top_first < 2; top_first++)
        expect_manifold(hb, ht, x, rv, top_first, d, (const double (*)[2])want, 4, CLIP_TOL);
}

/* A box tilted by θ about z onto its lowest edge (local x = −a, y = −b, along z), that edge
 * d below the face of a big box: two contacts, its ends, at x = x_c − a cos θ + b sin θ,
 * z = z_c ± c; the rest of its incident face is above the face by more than the margin. */
static void test_on_edge(void)
{
    const double hb[3] = {0.5, 0.1, 0.5}, ht[3] = {0.2, 0.1, 0.15}, d = 1e-3, th = 0.3;
    const double x[3] = {0.05, hb[1] - d + ht[0] * sin(th) + ht[1] * cos(th), 0.02};
    const double rv[3] = {0, 0, th}, xe = x[0] - ht[0] * cos(th) + ht[1] * sin(th);
    const double want[2][2] = {{xe, x[2] + ht[2]}, {xe, x[2] - ht[2]}};
    expect_manifold(hb, ht, x, rv, 0, d, want, 2, CLIP_TOL);
}

/* The 45-degree box of turned_45 resting on the fixed box (1 kg, μs 0.5, μk 0.4, e 0) for
 * 2 s at 20 substeps × 1 iteration (h = 1/1200 s). Each substep gravity moves it down by
 * g h² = 6.8e-6 m from rest before the contacts lift it back (they push only while a point is
 * inside, never above the face): at rest its centre stays within g h² of where it started,
 * and it tilts by less than one side sinking g h² over the half side s (g h²/s = 4.5e-5 rad). */
static void test_turned_45_rests(void)
{
    pbd_rigid_world *w = pbd_rigid_world_create(1.0 / 60.0, 20, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    const double s = 0.15;
    const pbd_rigid_shape box = {.kind = PBD_RIGID_BOX, .half = {s, 0.1, s}};
    const pbd_rigid_material m = {0.5, 0.4, 0.0};
    double origin[3] = {0, 0, 0}, x0[3] = {0, 0.2, 0}, rv[3] = {0, M_PI / 4.0, 0}, q0[4];
    pbd_quat_from_rotvec(rv, q0);
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_add_body(w, &box, 0.0, origin, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_add_body(w, &box, 1.0, x0, q0), 1);
    pbd_rigid_set_material(&w->bodies[0], &m);
    pbd_rigid_set_material(&w->bodies[1], &m);
    const double h = w->dt / w->substeps, sag = 9.81 * h * h;
    double drift = 0.0, tilt = 0.0;
    for (int k = 0; k < 120; k++) {
        CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
        const pbd_rigid_body *b = &w->bodies[1];
        double dx[3] = {b->x[0] - x0[0], b->x[1] - x0[1], b->x[2] - x0[2]};
        drift = fmax(drift, sqrt(dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2]));
        double up[3] = {0, 1, 0}, u[3]; /* the box's axis y against the vertical */
        pbd_quat_rotate(b->q, up, u);
        tilt = fmax(tilt, atan2(sqrt(u[0] * u[0] + u[2] * u[2]), u[1]));
    }
    printf("\n    drift %.2e m (bound g h^2 = %.2e), tilt %.2e rad (bound g h^2/s = %.2e) ",
           drift, sag, tilt, sag / s);
    CU_ASSERT(drift <= sag);
    CU_ASSERT(tilt <= sag / s);
    pbd_rigid_world_free(w);
}

void register_rigid_box_clip_tests(void)
{
    CU_pSuite s = CU_add_suite("rigid_box_clip", NULL, NULL);
    CU_add_test(s, "aligned", test_aligned);
    CU_add_test(s, "nearly_aligned", test_nearly_aligned);
    CU_add_test(s, "turned_45", test_turned_45);
    CU_add_test(s, "small_on_big", test_small_on_big);
    CU_add_test(s, "on_edge", test_on_edge);
    CU_add_test(s, "turned_45_rests", test_turned_45_rests);
}
