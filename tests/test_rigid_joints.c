/* XPBD rigid joints beyond fixed, ball and hinge (solver/rigid/; Müller et al. 2020): the
 * prismatic joint against the closed forms of a slider (at rest on a level rail, ½ g sin θ t²
 * on an incline, stopped by its limit, momentum between free bodies), the ball's swing and
 * twist limits, the hinge's and slider's drives (a rigid target, a rate, a compliant target's
 * deflection under a load = load × compliance), and the up-front refusals. */
#include "tests.h"
#include "solver/rigid/pbd_rigid.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static double norm3(const double *a) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

static double diff3(const double *a, const double *b)
{
    double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return norm3(d);
}

static inline double wrap(double x) { return atan2(sin(x), cos(x)); }

static pbd_rigid_joint joint(pbd_joint_kind kind, int b1, int b2)
{
    pbd_rigid_joint j;
    memset(&j, 0, sizeof j);
    j.kind = kind;
    j.body[0] = b1;
    j.body[1] = b2;
    return j;
}

/* The rotation angle of a unit quaternion, 2 acos|q_w| */
static double quat_angle(const double q[4]) { return 2.0 * acos(fmin(1.0, fabs(q[0]))); }

/* ---- prismatic ----------------------------------------------------------------------- */

/* A fixed anchor at the origin and a box (half 0.1 m, 2 kg) on a rail through it along
 * (cos θ, −sin θ, 0) (θ down from the horizontal), its joint point at `anchor` from its
 * centre; starting at the rail point with speed v0 along the rail */
static pbd_rigid_world *slider(double theta, const double anchor[3], double v0, int substeps)
{
    pbd_rigid_world *w = pbd_rigid_world_create(1.0 / 60.0, substeps, 1);
    const double zero[3] = {0, 0, 0};
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_add_body_inertia(w, 0.0, zero, NULL, zero, NULL), 0);
    pbd_rigid_shape s = {.kind = PBD_RIGID_BOX, .half = {0.1, 0.1, 0.1}};
    double x[3] = {-anchor[0], -anchor[1], -anchor[2]};
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_add_body(w, &s, 2.0, x, NULL), 1);
    pbd_rigid_joint j = joint(PBD_JOINT_PRISMATIC, 0, 1);
    memcpy(j.anchor[1], anchor, sizeof j.anchor[1]);
    j.axis[0][0] = cos(theta);
    j.axis[0][1] = -sin(theta);
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_add_joint(w, &j), 0);
    w->bodies[1].v[0] = v0 * cos(theta);
    w->bodies[1].v[1] = -v0 * sin(theta);
    return w;
}

/* On a level rail, the joint point 0.36 m from the centre (sideways and above), moving at
 * 1 m/s: the box neither falls nor turns and keeps its speed. Per substep gravity moves the
 * centre by g h² before the correction; the correction at the lever r turns the box by at
 * most θ_h = |r| m g h²/I (I = 2/3 m (0.1 m)² about any axis), which the next substep's
 * angular correction undoes: bounds |Δy| <= g h² + |r| θ_h, angle <= θ_h, x = t to rounding
 * plus the same |r| θ_h. Without the angular part the box swings about the rail (0.3 rad). */
static void test_slider_level(void)
{
    const double r[3] = {0.2, 0.3, 0.0}, h = 1.0 / 1200.0, g = 9.81;
    pbd_rigid_world *w = slider(0.0, r, 1.0, 20);
    double y0 = w->bodies[1].x[1], dy = 0.0, ang = 0.0, dxs = 0.0;
    for (int s = 0; s < 60; s++) {
        CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
        dy = fmax(dy, fabs(w->bodies[1].x[1] - y0));
        ang = fmax(ang, quat_angle(w->bodies[1].q));
        dxs = fmax(dxs, fabs(w->bodies[1].x[0] + r[0] - w->time));
    }
    double I = 2.0 / 3.0 * 2.0 * 0.01, th = norm3(r) * 2.0 * g * h * h / I;
    printf("\n    level rail: |dy| %.2e m (bound %.2e), angle %.2e rad (bound %.2e), "
           "|x - t| %.2e m ", dy, g * h * h + norm3(r) * th, ang, th, dxs);
    CU_ASSERT(dy <= g * h * h + norm3(r) * th);
    CU_ASSERT(ang <= th);
    CU_ASSERT(dxs <= norm3(r) * th + 1e-12);
    pbd_rigid_world_free(w);
}

/* On a rail tilted by θ = 0.5 rad, released at rest, the joint point at the centre: the
 * correction removes exactly the part of each substep's move normal to the rail, so along it
 * the box is symplectic Euler under a = g sin θ: s_N = a h² N(N + 1)/2 = ½ a t² + ½ a t h.
 * So |s − ½ a t²| <= ½ a t h, and s equals the discrete form to the rounding of 1200 updates
 * of |x| <= 2.4 m (1200 × 4 ε × 2.4 m = 2.6e-12 m; 1e-10 m with margin). */
static void test_slider_incline(void)
{
    const double th = 0.5, h = 1.0 / 1200.0, a = 9.81 * sin(th), zero[3] = {0, 0, 0};
    pbd_rigid_world *w = slider(th, zero, 0.0, 20);
    double worst = 0.0;
    for (int s = 0; s < 60; s++) {
        CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
        double t = w->time, sd = pbd_rigid_slider_offset(&w->joints[0], &w->bodies[0],
                                                         &w->bodies[1]);
        worst = fmax(worst, fabs(sd - 0.5 * a * t * t - 0.5 * a * t * h));
        CU_ASSERT(fabs(sd - 0.5 * a * t * t) <= 0.5 * a * t * h + 1e-10);
    }
    printf("\n    incline: s - (a t^2/2 + a t h/2) at most %.2e m; a t h/2 = %.2e m at 1 s ",
           worst, 0.5 * a * h);
    CU_ASSERT(worst <= 1e-10);
    pbd_rigid_world_free(w);
}

/* The same incline with limits: released at rest it slides to upper = 0.3 m and stays there;
 * launched up the rail at 2 m/s (it would rise 0.42 m) it stops at lower = −0.1 m and slides
 * back. The limit's correction comes last and acts along the rail at the centre, so at every
 * step's end the offset is within the limits to rounding (16 ε × 1 m = 3.6e-15 m; 1e-12 m with
 * margin) and, once resting on a limit, the speed along the rail is that rounding over h
 * (4e-12 m/s; 1e-9 m/s with margin). The step's end after the stop at lower is at most
 * ½ a dt² = 6.5e-4 m back down (the stop is inelastic, then a = g sin θ pulls it back). */
static void test_slider_limit(void)
{
    const double th = 0.5, zero[3] = {0, 0, 0};
    for (int c = 0; c < 2; c++) {
        pbd_rigid_world *w = slider(th, zero, c ? -2.0 : 0.0, 20);
        pbd_rigid_joint *j = &w->joints[0];
        j->has_limit = 1;
        j->lower = -0.1;
        j->upper = 0.3;
        double lo = 0.0, hi = 0.0, sd = 0.0;
        for (int s = 0; s < 120; s++) {
            CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
            sd = pbd_rigid_slider_offset(j, &w->bodies[0], &w->bodies[1]);
            lo = fmin(lo, sd);
            hi = fmax(hi, sd);
        }
        double v = w->bodies[1].v[0] * cos(th) - w->bodies[1].v[1] * sin(th);
        printf("\n    %s: offset in [%.15f, %.15f] m, final %.15f m, speed %.1e m/s ",
               c ? "launched up" : "released", lo, hi, sd, v);
        CU_ASSERT(lo >= j->lower - 1e-12 && hi <= j->upper + 1e-12);
        CU_ASSERT(fabs(sd - j->upper) <= 1e-12); /* slid back down onto the upper limit */
        double back = 0.5 * 9.81 * sin(th) / (60.0 * 60.0);
        if (c) CU_ASSERT(lo <= j->lower + back); /* and reached the lower one on the way */
        CU_ASSERT(fabs(v) <= 1e-9);
        pbd_rigid_world_free(w);
    }
}

/* Two free bodies on a slider without gravity, spinning and sliding: every correction is a
 * pair ±p at the one point p2, so Σ m v is kept to rounding: v = (x − x_prev)/h carries
 * ε|x|/h, m ε |x|/h = 1.3e-12 kg m/s at |x| <= 2 m, m = 2.5 kg, h = 1/1200 s, and x's own
 * rounding walks over the 1200 substeps (√1200 ~ 35): bound 5e-11 kg m/s. L to first order
 * in h, as the other joints (tests/test_rigid_xpbd.c joint_momentum). */
static void slider_momentum(int substeps, double *dp, double *dl)
{
    pbd_rigid_world *w = pbd_rigid_world_create(1.0 / 60.0, substeps, 2);
    w->gravity[1] = 0.0;
    const double I1[3] = {0.3, 0.5, 0.6}, I2[3] = {1.1, 0.7, 1.5};
    const double x1[3] = {0.1, 0.2, -0.3}, x2[3] = {0.9, -0.1, 0.4};
    const double q1[4] = {0.9, 0.1, -0.3, 0.2}, q2[4] = {0.2, 0.7, 0.1, -0.5};
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_add_body_inertia(w, 1.5, I1, NULL, x1, q1), 0);
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_add_body_inertia(w, 2.5, I2, NULL, x2, q2), 1);
    pbd_rigid_joint j = joint(PBD_JOINT_PRISMATIC, 0, 1);
    /* the slider along (1, 0, 1)/√2 in the world through body 1's centre (its joint
     * point); body 2's joint point where the rail passes closest to its centre */
    const double ax[3] = {1, 0, 1};
    pbd_quat_rotate_inv(w->bodies[0].q, ax, j.axis[0]);
    pbd_rigid_body *b1 = &w->bodies[0], *b2 = &w->bodies[1];
    double e[3] = {ax[0] / sqrt(2.0), 0, ax[2] / sqrt(2.0)}, rel[3], on[3], p2[3];
    for (int k = 0; k < 3; k++) rel[k] = b2->x[k] - b1->x[k];
    double sproj = rel[0] * e[0] + rel[1] * e[1] + rel[2] * e[2];
    for (int k = 0; k < 3; k++) on[k] = b1->x[k] + sproj * e[k];
    for (int k = 0; k < 3; k++) p2[k] = on[k] - b2->x[k];
    pbd_quat_rotate_inv(b2->q, p2, j.anchor[1]);
    CU_ASSERT_FATAL(pbd_rigid_add_joint(w, &j) == 0);
    const double v1[3] = {0.5, -1.0, 0.3}, o1[3] = {1.0, 2.0, -1.5}, o2[3] = {-0.5, 0.3, 2.0};
    for (int k = 0; k < 3; k++) {
        b1->v[k] = v1[k];
        b1->omega[k] = o1[k];
        b2->omega[k] = o2[k];
    }
    pbd_rigid_measures m0, m;
    pbd_rigid_measure(w, &m0);
    *dp = *dl = 0.0;
    for (int s = 0; s < 60; s++) {
        CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
        pbd_rigid_measure(w, &m);
        *dp = fmax(*dp, diff3(m.momentum, m0.momentum));
        *dl = fmax(*dl, diff3(m.angular_momentum, m0.angular_momentum) /
                            norm3(m0.angular_momentum));
    }
    pbd_rigid_world_free(w);
}

static void test_slider_momentum(void)
{
    double dp1, dl1, dp2, dl2;
    slider_momentum(10, &dp1, &dl1);
    slider_momentum(20, &dp2, &dl2);
    printf("\n    |dP| %.1e, %.1e kg m/s; |dL|/|L| %.2e, %.2e at 10, 20 substeps ", dp1, dp2,
           dl1, dl2);
    CU_ASSERT(dp1 <= 5e-11 && dp2 <= 5e-11);
    CU_ASSERT(dl1 < 0.05);      /* the first-order remainder at 10 substeps, as the others */
    CU_ASSERT(dl1 / dl2 > 1.8); /* and it falls with h (first order: ratio 2) */
}

void register_rigid_joints_tests(void)
{
    CU_pSuite s = CU_add_suite("rigid_joints", NULL, NULL);
    CU_add_test(s, "slider_level", test_slider_level);
    CU_add_test(s, "slider_incline", test_slider_incline);
    CU_add_test(s, "slider_limit", test_slider_limit);
    CU_add_test(s, "slider_momentum", test_slider_momentum);
}
