/* XPBD rigid joints beyond fixed, ball and hinge (solver/rigid/; Müller et al. 2020): the
 * prismatic joint against the closed forms of a slider (at rest on a level rail, ½ g sin θ t²
 * on an incline, stopped by its limit, momentum between free bodies), the ball's swing and
 * twist limits, the hinge's and slider's drives (a rigid target, a rate, a compliant target's
 * deflection under a load = load × compliance), the up-front refusals, and the cylinder's
 * inertia. */
#include "tests.h"
#include "solver/rigid/pbd_rigid.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double norm3(const double *a) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

static inline double wrap(double x) { return atan2(sin(x), cos(x)); }

static void v3_cross_test(double out[3], const double a[3], const double b[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
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
    pbd_rigid_joint j = test_rigid_joint(PBD_JOINT_PRISMATIC, 0, 1);
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
    pbd_rigid_joint j = test_rigid_joint(PBD_JOINT_PRISMATIC, 0, 1);
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
    test_rigid_momentum_drift(w, dp, dl);
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

/* ---- drives ------------------------------------------------------------------------- */

/* A box pendulum (half extents 0.05, 0.5, 0.05 m, 2 kg) hung by its top end from a fixed
 * anchor on a hinge about z (angle from −y), at θ0 from the vertical, with a drive */
static pbd_rigid_world *driven_pendulum(double theta0, pbd_joint_drive drive, double target,
                                        double compliance, double damping)
{
    pbd_rigid_world *w = pbd_rigid_world_create(1.0 / 60.0, 20, 1);
    const double zero[3] = {0, 0, 0}, d = 0.5;
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_add_body_inertia(w, 0.0, zero, NULL, zero, NULL), 0);
    pbd_rigid_shape s = {.kind = PBD_RIGID_BOX, .half = {0.05, 0.5, 0.05}};
    double x[3] = {d * sin(theta0), -d * cos(theta0), 0}, rv[3] = {0, 0, theta0}, q[4];
    pbd_quat_from_rotvec(rv, q);
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_add_body(w, &s, 2.0, x, q), 1);
    pbd_rigid_joint j = test_rigid_joint(PBD_JOINT_HINGE, 0, 1);
    j.anchor[1][1] = 0.5;
    j.axis[0][2] = j.axis[1][2] = 1.0;
    j.ref[0][1] = j.ref[1][1] = -1.0;
    j.drive = drive;
    j.drive_target = target;
    j.drive_compliance = compliance;
    j.drive_damping = damping;
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_add_joint(w, &j), 0);
    return w;
}

static double angle_of(const pbd_rigid_world *w)
{
    return pbd_rigid_hinge_angle(&w->joints[0], &w->bodies[0], &w->bodies[1]);
}

/* A rigid (α = 0) angle drive to 0.8 rad, released hanging at rest: the drive comes last in
 * the joint's solve, so every substep ends at the target but for the first-order quaternion
 * update's remainder c³/12 of its correction c (2 tan(c/2) − c), and c is the turn of the
 * substep before it: the hinge's positional correction of gravity's g h² at the lever
 * d = 0.5 m, c <= g h²/d = 1.4e-5 rad, c³/12 = 2e-16; plus the rounding of atan2 (1e-15):
 * 1e-13 rad with margin, from the fourth step on: the first step's correction of 0.8 rad
 * at once leaves the remainder 0.8³/12 = 0.04 rad, turned into a spin by the velocity update,
 * and that chain of remainders dies out over the next steps (2.7e-9, 3.6e-14, 1e-15 rad at
 * the ends of steps 2, 3, 4). */
static void test_hinge_drive_angle(void)
{
    pbd_rigid_world *w = driven_pendulum(0.0, PBD_DRIVE_POSITION, 0.8, 0.0, 0.0);
    double worst = 0.0;
    for (int s = 0; s < 3; s++) CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
    for (int s = 3; s < 120; s++) {
        CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
        worst = fmax(worst, fabs(angle_of(w) - 0.8));
    }
    printf("\n    |angle - 0.8| at most %.2e rad over 2 s, omega_z %.2e rad/s ", worst,
           w->bodies[1].omega[2]);
    CU_ASSERT(worst <= 1e-13);
    pbd_rigid_world_free(w);
}

/* A rigid rate drive at 2 rad/s turning the pendulum through full turns against gravity,
 * started hanging with ω = −1 rad/s: the angle follows 2 t (wrapped), as the angle drive its
 * target: the substep's correction c <= g h²/d + (ω h)³/12 (the gravity lever and the
 * quaternion update's own lag), c³/12 < 1e-15 rad, and the target's sum of 1200 steps of
 * ω h rounds by 1200 ε × π = 8e-13 rad: 1e-11 rad with margin. The angular velocity,
 * read as 2 vec(q q_prev⁻¹)/h = 2 sin(ω h/2)/h, is ω (1 − (ω h)²/24) = ω − 1.2e-7 rad/s;
 * within (ω h)²/24 ω × 1.5 of ω (the remainder of the lever's correction: ~1e-9 rad/s). */
static void test_hinge_drive_rate(void)
{
    const double om = 2.0, h = 1.0 / 1200.0;
    pbd_rigid_world *w = driven_pendulum(0.0, PBD_DRIVE_VELOCITY, om, 0.0, 0.0);
    w->bodies[1].omega[2] = -1.0;
    w->bodies[1].v[0] = -0.5;
    double worst = 0.0, wrate = 0.0;
    for (int s = 0; s < 240; s++) {
        CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
        worst = fmax(worst, fabs(wrap(angle_of(w) - om * w->time)));
        if (s > 0) wrate = fmax(wrate, fabs(w->bodies[1].omega[2] - om));
    }
    printf("\n    |angle - 2 t| at most %.2e rad over 4 s; |omega - 2| %.2e rad/s (bound %.2e) ",
           worst, wrate, 1.5 * om * om * om * h * h / 24.0);
    CU_ASSERT(worst <= 1e-11);
    CU_ASSERT(wrate <= 1.5 * om * om * om * h * h / 24.0);
    pbd_rigid_world_free(w);
}

/* A compliant angle drive to π/2 (the pendulum horizontal) with α = 0.01 rad/(N m) and
 * damping β = 16 N m s/rad (about critical: ω_n = √((1/α)/I) = 12.2 rad/s, I = 0.668 kg m²
 * about the pivot): it settles at the deflection δ = α τ under gravity's torque
 * τ = m g d cos δ about the pivot, δ = α m g d cos δ (solved by fixed point). With the drive
 * solved last the steady state is exact at any h: the substep's λ balances τ h², and
 * C = α̃ λ = α τ (the damping term is (1+γ)-balanced, README "Drives"). The transient decays
 * as (1 + ω_n t) e^{−ω_n t} < 1e-14 at t = 4 s; 1e-10 rad with margin for the rounding. */
static void test_hinge_drive_compliant(void)
{
    const double alpha = 0.01, m = 2.0, g = 9.81, d = 0.5;
    pbd_rigid_world *w = driven_pendulum(M_PI / 2.0, PBD_DRIVE_POSITION, M_PI / 2.0, alpha,
                                         16.0);
    for (int s = 0; s < 240; s++) CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
    double delta = 0.0;
    for (int k = 0; k < 100; k++) delta = alpha * m * g * d * cos(delta);
    double got = M_PI / 2.0 - angle_of(w);
    printf("\n    deflection %.12f rad, alpha m g d cos(delta) = %.12f rad ", got, delta);
    CU_ASSERT(fabs(got - delta) <= 1e-10);
    pbd_rigid_world_free(w);
}

/* A compliant position drive on the slider of the incline (θ = 0.5 rad, joint point at the
 * centre) to offset 0 with α = 0.01 m/N, β = 28 N s/m (about critical: 2 √(m/α)): it settles
 * at the offset s = α m g sin θ down the rail (force × compliance), exactly as the hinge's; the
 * transient (1 + ω_n t) e^{−ω_n t} < 1e-13 m at 5 s (ω_n = 7.1 rad/s); 1e-10 m with margin. */
static void test_slider_drive_compliant(void)
{
    const double th = 0.5, alpha = 0.01, zero[3] = {0, 0, 0};
    pbd_rigid_world *w = slider(th, zero, 0.0, 20);
    pbd_rigid_joint *j = &w->joints[0];
    j->drive = PBD_DRIVE_POSITION;
    j->drive_compliance = alpha;
    j->drive_damping = 28.0;
    for (int s = 0; s < 300; s++) CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
    double got = pbd_rigid_slider_offset(j, &w->bodies[0], &w->bodies[1]);
    double want = alpha * 2.0 * 9.81 * sin(th);
    printf("\n    offset %.12f m, alpha m g sin(theta) = %.12f m ", got, want);
    CU_ASSERT(fabs(got - want) <= 1e-10);
    pbd_rigid_world_free(w);
}

/* A rigid rate drive on the level rail (joint point at the centre) at 0.5 m/s, the box
 * launched the other way at 1 m/s: the offset is 0.5 t at every step's end and the speed
 * 0.5 m/s: the correction is along the rail at the centre, linear in x, so exact but for
 * rounding: the target's sum of 1200 steps rounds by 1200 ε × 2 m = 5e-13 m (1e-11 m with
 * margin), the speed (x − x_prev)/h by ε × 2 m/h = 5e-13 m/s (1e-10 m/s with margin). */
static void test_slider_drive_rate(void)
{
    const double zero[3] = {0, 0, 0};
    pbd_rigid_world *w = slider(0.0, zero, -1.0, 20);
    pbd_rigid_joint *j = &w->joints[0];
    j->drive = PBD_DRIVE_VELOCITY;
    j->drive_target = 0.5;
    double worst = 0.0, wv = 0.0;
    for (int s = 0; s < 120; s++) {
        CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
        worst = fmax(worst, fabs(pbd_rigid_slider_offset(j, &w->bodies[0], &w->bodies[1]) -
                                 0.5 * w->time));
        wv = fmax(wv, fabs(w->bodies[1].v[0] - 0.5));
    }
    printf("\n    |offset - 0.5 t| at most %.1e m, |v - 0.5| %.1e m/s over 2 s ", worst, wv);
    CU_ASSERT(worst <= 1e-11);
    CU_ASSERT(wv <= 1e-10);
    pbd_rigid_world_free(w);
}

/* A compliant, damped rate drive on the level rail (joint point at the centre): 0.5 m/s with
 * α = 0.01 m/N, β = 20 N s/m (ζ = β/(2 √(m/α)) = 0.71), the box starting at rest. With no
 * load the target runs ahead only in the transient: the damping acts on the change of C, which
 * is zero in the steady motion (a damping on the box's own speed would leave a lag α β v =
 * 0.1 m). The transient decays as e^{−ζ ω_n t} (ζ ω_n = 5/s) from about v/ω_n = 0.07 m:
 * 1e-14 m at t = 6 s; the target's sum of 7200 steps rounds by 7200 ε × 3 m = 4.8e-12 m:
 * 1e-10 m with margin. */
static void test_slider_drive_damped_rate(void)
{
    const double zero[3] = {0, 0, 0};
    pbd_rigid_world *w = slider(0.0, zero, 0.0, 20);
    pbd_rigid_joint *j = &w->joints[0];
    j->drive = PBD_DRIVE_VELOCITY;
    j->drive_target = 0.5;
    j->drive_compliance = 0.01;
    j->drive_damping = 20.0;
    for (int s = 0; s < 360; s++) CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
    double lag = 0.5 * w->time - pbd_rigid_slider_offset(j, &w->bodies[0], &w->bodies[1]);
    printf("\n    lag behind the target after 6 s %.1e m ", lag);
    CU_ASSERT(fabs(lag) <= 1e-10);
    pbd_rigid_world_free(w);
}

/* ---- ball joint limits ---------------------------------------------------------------- */

/* The box pendulum on a ball joint, its axis along the box (−y hanging), references x;
 * kicked about the pivot with ω0 */
static pbd_rigid_world *ball_pendulum(const double omega0[3], int swing, double swing_limit,
                                      int twist, double lo, double hi)
{
    pbd_rigid_world *w = pbd_rigid_world_create(1.0 / 60.0, 20, 1);
    const double zero[3] = {0, 0, 0};
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_add_body_inertia(w, 0.0, zero, NULL, zero, NULL), 0);
    pbd_rigid_shape s = {.kind = PBD_RIGID_BOX, .half = {0.05, 0.5, 0.05}};
    double x[3] = {0, -0.5, 0}, r[3] = {0, -0.5, 0};
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_add_body(w, &s, 2.0, x, NULL), 1);
    pbd_rigid_joint j = test_rigid_joint(PBD_JOINT_BALL, 0, 1);
    j.anchor[1][1] = 0.5;
    j.axis[0][1] = j.axis[1][1] = -1.0;
    j.ref[0][0] = j.ref[1][0] = 1.0;
    j.has_swing_limit = swing;
    j.swing_limit = swing_limit;
    j.has_twist_limit = twist;
    j.twist_lower = lo;
    j.twist_upper = hi;
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_add_joint(w, &j), 0);
    for (int k = 0; k < 3; k++) w->bodies[1].omega[k] = omega0[k];
    v3_cross_test(w->bodies[1].v, omega0, r);
    return w;
}

/* The swing and twist the limits read, against orientations with known ones: body 2 turned
 * by τ about its axis (−y): swing 0, twist τ; body 2 swung by ψ about a unit n normal to the
 * axis: swing ψ, twist 0, as such a swing maps the reference u1 to a vector whose projection
 * normal to the mean axis (a1 + a2)/|a1 + a2| is along u1's own (in the plane of a1, a2 both
 * make the angle ψ/2 with that axis). (Both at once: the mean-axis twist is not the twist of
 * the swing-twist decomposition, 2.0099 rad for τ = 2, ψ = 0.3, so no closed form here.)
 * To the rounding of building q from the rotation vector and of atan2 of products of unit
 * vectors, some 100 ε × the angle (<= 3 rad): 7e-14 rad; 2e-13 rad with margin. */
static void test_swing_twist_measure(void)
{
    const double zero[3] = {0, 0, 0}, vals[4] = {0.3, 1.2, 2.5, 3.0};
    pbd_rigid_world *w = ball_pendulum(zero, 0, 0, 0, 0, 0);
    pbd_rigid_joint *j = &w->joints[0];
    j->axis[0][1] = j->axis[1][1] = -1.0; /* as the limits' checks make them (unit, normal) */
    j->ref[0][0] = j->ref[1][0] = 1.0;
    double worst = 0.0, sw, tw;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 3; b++) {
            double beta = 0.7 * (a + 1) + 0.9 * b; /* n = (cos β, 0, sin β) */
            double rs[3] = {vals[a] * cos(beta), 0.0, vals[a] * sin(beta)};
            double rt[3] = {0.0, b == 1 ? vals[a] : -vals[a], 0.0};
            pbd_quat_from_rotvec(rs, w->bodies[1].q);
            pbd_rigid_swing_twist(j, &w->bodies[0], &w->bodies[1], &sw, &tw);
            worst = fmax(worst, fmax(fabs(sw - vals[a]), fabs(tw)));
            pbd_quat_from_rotvec(rt, w->bodies[1].q); /* about −y by ∓ the value */
            pbd_rigid_swing_twist(j, &w->bodies[0], &w->bodies[1], &sw, &tw);
            worst = fmax(worst, fmax(fabs(sw), fabs(tw - (b == 1 ? -vals[a] : vals[a]))));
        }
    printf("\n    largest error of swing and twist %.1e rad ", worst);
    CU_ASSERT(worst <= 2e-13);
    pbd_rigid_world_free(w);
}

/* Kicked at ω0 = (1.5, 0, 3) rad/s about the pivot (free, it would swing out ~0.9 rad) inside
 * a swing cone of 0.3 rad: the swing never exceeds the cone by more than the one substep's
 * turn before the limit acts, |ω| h with |ω| <= |ω0| (the limit only takes energy out) =
 * 2.8e-3 rad, and it reaches the cone. Released outside the cone (at 0.6 rad, at rest) it is
 * inside after the first step (the limit's correction is rigid), within the same bound
 * with the speed the snap back gave it (read from the bodies after the first step). */
static void test_swing_limit(void)
{
    const double om[3] = {1.5, 0.0, 3.0}, h = 1.0 / 1200.0, lim = 0.3;
    pbd_rigid_world *w = ball_pendulum(om, 1, lim, 0, 0, 0);
    double most = 0.0, sw, tw;
    for (int s = 0; s < 120; s++) {
        CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
        pbd_rigid_swing_twist(&w->joints[0], &w->bodies[0], &w->bodies[1], &sw, &tw);
        most = fmax(most, sw);
    }
    printf("\n    kicked: largest swing %.5f rad under the cone %.2f (+ %.1e) ", most, lim,
           norm3(om) * h);
    CU_ASSERT(most <= lim + norm3(om) * h);
    CU_ASSERT(most > lim - 0.01);
    pbd_rigid_world_free(w);
    /* released outside: the body at 0.6 rad about z */
    const double still[3] = {0, 0, 0};
    w = ball_pendulum(still, 1, lim, 0, 0, 0);
    double rv[3] = {0, 0, 0.6}, dn[3] = {0, -0.5, 0};
    pbd_quat_from_rotvec(rv, w->bodies[1].q);
    pbd_quat_rotate(w->bodies[1].q, dn, w->bodies[1].x);
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
    double om1 = norm3(w->bodies[1].omega);
    most = 0.0;
    for (int s = 1; s < 120; s++) {
        pbd_rigid_swing_twist(&w->joints[0], &w->bodies[0], &w->bodies[1], &sw, &tw);
        most = fmax(most, sw);
        CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
    }
    printf("\n    released at 0.6 rad: largest swing from step 1 on %.5f rad (|omega| %.2f "
           "rad/s after it) ", most, om1);
    CU_ASSERT(most <= lim + om1 * h);
    pbd_rigid_world_free(w);
}

/* Spun about its own axis (ω0 = ±3 rad/s about y, the hanging box's long axis) with the twist
 * in [−0.2, 0.25] rad: the twist stays within the range but for one substep's turn ω0 h
 * (2.5e-3 rad), and it reaches the limit. */
static void test_twist_limit(void)
{
    const double h = 1.0 / 1200.0, lo = -0.2, hi = 0.25;
    for (int c = 0; c < 2; c++) {
        double om[3] = {0, c ? -3.0 : 3.0, 0}, sw, tw, tmin = 0.0, tmax = 0.0;
        pbd_rigid_world *w = ball_pendulum(om, 0, 0, 1, lo, hi);
        for (int s = 0; s < 60; s++) {
            CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(w), PBD_OK);
            pbd_rigid_swing_twist(&w->joints[0], &w->bodies[0], &w->bodies[1], &sw, &tw);
            tmin = fmin(tmin, tw);
            tmax = fmax(tmax, tw);
        }
        printf("\n    spun %+g rad/s: twist in [%.5f, %.5f] rad, range [%g, %g] ", om[1], tmin,
               tmax, lo, hi);
        CU_ASSERT(tmin >= lo - 3.0 * h && tmax <= hi + 3.0 * h);
        /* +3 rad/s about y is −3 about the joint's axis −y: towards the lower limit */
        CU_ASSERT(c ? tmax > hi - 0.01 : tmin < lo + 0.01);
        pbd_rigid_world_free(w);
    }
}

/* Limits that never act (swing π, twist [−π, π]) leave the ball joint's motion bit for bit
 * as without them: they correct only when violated (Sec. 3.4.2). */
static void test_inactive_limits(void)
{
    const double om[3] = {1.5, 0.7, 3.0};
    pbd_rigid_world *a = ball_pendulum(om, 0, 0, 0, 0, 0);
    pbd_rigid_world *b = ball_pendulum(om, 1, M_PI, 1, -M_PI, M_PI);
    for (int s = 0; s < 60; s++) {
        CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(a), PBD_OK);
        CU_ASSERT_EQUAL_FATAL(pbd_rigid_step(b), PBD_OK);
    }
    CU_ASSERT(memcmp(a->bodies[1].x, b->bodies[1].x, sizeof a->bodies[1].x) == 0);
    CU_ASSERT(memcmp(a->bodies[1].q, b->bodies[1].q, sizeof a->bodies[1].q) == 0);
    pbd_rigid_world_free(a);
    pbd_rigid_world_free(b);
}

/* ---- refusals ----------------------------------------------------------------------- */

/* pbd_rigid_add_joint with j; expects -1 and the message to name `field` */
static void refused(pbd_rigid_world *w, const pbd_rigid_joint *j, const char *field)
{
    CU_ASSERT_EQUAL(pbd_rigid_add_joint(w, j), -1);
    int named = strstr(pbd_last_error(), field) != NULL;
    if (!named) printf("\n    expected '%s' in: %s ", field, pbd_last_error());
    CU_ASSERT(named);
}

static void test_refusals(void)
{
    pbd_rigid_world *w = pbd_rigid_world_create(0.01, 1, 1);
    const double x[3] = {0, 0, 0}, I[3] = {1, 1, 1};
    CU_ASSERT_EQUAL(pbd_rigid_add_body_inertia(w, 1.0, I, NULL, x, NULL), 0);
    CU_ASSERT_EQUAL(pbd_rigid_add_body_inertia(w, 0.0, I, NULL, x, NULL), 1);
    /* prismatic: a zero axis, lower > upper, a non-finite limit */
    pbd_rigid_joint p = test_rigid_joint(PBD_JOINT_PRISMATIC, 0, 1);
    refused(w, &p, "prismatic joint axis[0]");
    p.axis[0][0] = 2.0;
    p.has_limit = 1;
    p.lower = 0.5;
    p.upper = 0.1;
    refused(w, &p, "prismatic joint limits");
    p.upper = INFINITY;
    refused(w, &p, "prismatic joint limits");
    p.upper = 1.0;
    /* drives: negative compliance or damping, an unknown kind, a non-finite target */
    p.drive = PBD_DRIVE_POSITION;
    p.drive_compliance = -1.0;
    refused(w, &p, "drive_compliance");
    p.drive_compliance = 0.0;
    p.drive_damping = -2.0;
    refused(w, &p, "drive_damping");
    p.drive_damping = 0.0;
    p.drive = (pbd_joint_drive)7;
    refused(w, &p, "prismatic joint drive");
    p.drive = PBD_DRIVE_VELOCITY;
    p.drive_target = NAN;
    refused(w, &p, "drive_target");
    p.drive_target = 0.3;
    CU_ASSERT_EQUAL(pbd_rigid_add_joint(w, &p), 0);
    CU_ASSERT(fabs(w->joints[0].axis[0][0] - 1.0) <= DBL_EPSILON); /* normalised */
    /* a hinge's angle target outside [-pi, pi]; a drive on a ball joint */
    pbd_rigid_joint h = test_rigid_joint(PBD_JOINT_HINGE, 0, 1);
    h.axis[0][2] = h.axis[1][2] = 1.0;
    h.ref[0][0] = h.ref[1][0] = 1.0;
    h.drive = PBD_DRIVE_POSITION;
    h.drive_target = 4.0;
    refused(w, &h, "hinge joint drive_target");
    pbd_rigid_joint b = test_rigid_joint(PBD_JOINT_BALL, 0, 1);
    b.drive = PBD_DRIVE_VELOCITY;
    refused(w, &b, "ball joint drive");
    b.drive = PBD_DRIVE_NONE;
    /* swing and twist: outside their ranges, lower > upper, on another kind, a zero axis */
    b.has_swing_limit = 1;
    b.axis[0][1] = b.axis[1][1] = 1.0;
    b.ref[0][0] = b.ref[1][0] = 1.0;
    b.swing_limit = -0.1;
    refused(w, &b, "swing_limit");
    b.swing_limit = 4.0;
    refused(w, &b, "swing_limit");
    b.swing_limit = 0.5;
    b.has_twist_limit = 1;
    b.twist_lower = 0.3;
    b.twist_upper = 0.2;
    refused(w, &b, "twist limits");
    b.twist_lower = -4.0;
    refused(w, &b, "twist limits");
    b.twist_lower = -0.2;
    b.axis[1][1] = 0.0;
    refused(w, &b, "ball joint body 2");
    b.axis[1][1] = 1.0;
    CU_ASSERT_EQUAL(pbd_rigid_add_joint(w, &b), 1);
    h.drive = PBD_DRIVE_NONE;
    h.has_twist_limit = 1;
    refused(w, &h, "has_swing_limit/has_twist_limit");
    pbd_rigid_world_free(w);
}

/* ---- the cylinder's inertia ------------------------------------------------------------ */

/* A solid cylinder (r = 0.3 m, half length 0.7 m along x, 2.5 kg) against slicing it into
 * disks of mass m dx/L: I_x = ∫ dm r²/2, I_y = ∫ dm (r²/4 + x²); Simpson's rule is exact on
 * these polynomials of degree <= 2, so the two agree to the rounding of 200 sums (1e-13
 * relative with margin). Then its refusals: a zero half length; as a body's shape (no
 * contacts for it), while its inertia with no shape is accepted. */
static void test_cylinder_inertia(void)
{
    const double m = 2.5, r = 0.3, a = 0.7;
    const int n = 200;
    double hx = 2.0 * a / n, ix = 0.0, iy = 0.0, got[3];
    for (int k = 0; k <= n; k++) {
        double x = -a + k * hx, c = (k == 0 || k == n) ? 1.0 : (k % 2 ? 4.0 : 2.0);
        double dm = c * hx / 3.0 * m / (2.0 * a);
        ix += dm * r * r / 2.0;
        iy += dm * (r * r / 4.0 + x * x);
    }
    pbd_rigid_shape cyl = {.kind = PBD_RIGID_CYLINDER, .radius = r, .half = {a, 0, 0}};
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_shape_inertia(&cyl, m, got), PBD_OK);
    printf("\n    I %.15f %.15f %.15f; slices %.15f %.15f ", got[0], got[1], got[2], ix, iy);
    CU_ASSERT(fabs(got[0] - ix) <= 1e-13 * ix);
    CU_ASSERT(fabs(got[1] - iy) <= 1e-13 * iy && got[2] == got[1]);
    pbd_rigid_world *w = pbd_rigid_world_create(0.01, 1, 1);
    const double x[3] = {0, 0, 0};
    CU_ASSERT_EQUAL(pbd_rigid_add_body(w, &cyl, m, x, NULL), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(pbd_last_error(), "rigid body shape"));
    CU_ASSERT_PTR_NOT_NULL(strstr(pbd_last_error(), "cylinder: its contacts are not implemented"));
    CU_ASSERT_EQUAL(pbd_rigid_add_body_inertia(w, m, got, NULL, x, NULL), 0);
    pbd_rigid_shape flat = cyl;
    flat.half[0] = 0.0;
    CU_ASSERT_EQUAL(pbd_rigid_shape_inertia(&flat, m, got), PBD_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(pbd_last_error(), "half length"));
    pbd_rigid_world_free(w);
}

/* ---- pbd-run rigid_slider ------------------------------------------------------------ */

/* pbd-run rigid_slider (experiments/scenes/scene_rigid.c) writes a complete result file with
 * every step's row, and refuses a scene option it does not read (exit 2, naming it). Its box,
 * launched at 2 m/s down a rail tilted 30° against the limit at 0.25 m and held by a drive of
 * α = 0.01 m/N: its offset never leaves [-0.5, 0.25] m (the limit's 1e-12 m, as above; read
 * back from the last frame's positions with the anchor at the origin). */
static void test_pbd_run_slider(void)
{
    char dir[] = "/tmp/pbd_rigid_slider_XXXXXX", cmd[1600], err[2048], errp[1200], path[1600];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(errp, sizeof errp, "%s/err.txt", dir);
    snprintf(cmd, sizeof cmd, "%s/pbd-run rigid_slider --mu-static=0.3 >/dev/null 2>%s",
             test_bin_dir(), errp);
    CU_ASSERT_EQUAL(test_run_stderr(cmd, errp, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--mu-static: cannot act here"));
    snprintf(cmd, sizeof cmd, "%s/pbd-run rigid_slider --steps=100 --frames=100 --quiet "
             "--out=%s >/dev/null 2>%s", test_bin_dir(), dir, errp);
    CU_ASSERT_EQUAL_FATAL(test_run_stderr(cmd, errp, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/rigid_slider/run.h5", dir);
    double complete = -1, *steps = NULL, *x = NULL;
    long rows = 0, cols = 0;
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "complete", &complete), 0);
    CU_ASSERT_EQUAL(complete, 1);
    CU_ASSERT_EQUAL(pbd_h5_read_dataset(path, "/series/step", &steps, &rows, &cols), 0);
    CU_ASSERT_EQUAL(rows, 100);
    free(steps);
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/frames/000001/positions", &x, &rows,
                                              &cols), 0);
    CU_ASSERT_FATAL(rows == 2 && cols == 3);
    double off = x[3] * cos(M_PI / 6.0) - x[4] * sin(M_PI / 6.0);
    printf("\n    offset along the rail at step 100: %.6f m ", off);
    CU_ASSERT(off >= -0.5 - 1e-12 && off <= 0.25 + 1e-12);
    free(x);
    test_remove_dir(dir);
}

void register_rigid_joints_tests(void)
{
    CU_pSuite s = CU_add_suite("rigid_joints", NULL, NULL);
    CU_add_test(s, "slider_level", test_slider_level);
    CU_add_test(s, "slider_incline", test_slider_incline);
    CU_add_test(s, "slider_limit", test_slider_limit);
    CU_add_test(s, "slider_momentum", test_slider_momentum);
    CU_add_test(s, "hinge_drive_angle", test_hinge_drive_angle);
    CU_add_test(s, "hinge_drive_rate", test_hinge_drive_rate);
    CU_add_test(s, "hinge_drive_compliant", test_hinge_drive_compliant);
    CU_add_test(s, "slider_drive_compliant", test_slider_drive_compliant);
    CU_add_test(s, "slider_drive_rate", test_slider_drive_rate);
    CU_add_test(s, "slider_drive_damped_rate", test_slider_drive_damped_rate);
    CU_add_test(s, "swing_twist_measure", test_swing_twist_measure);
    CU_add_test(s, "swing_limit", test_swing_limit);
    CU_add_test(s, "twist_limit", test_twist_limit);
    CU_add_test(s, "inactive_limits", test_inactive_limits);
    CU_add_test(s, "refusals", test_refusals);
    CU_add_test(s, "cylinder_inertia", test_cylinder_inertia);
    CU_add_test(s, "pbd_run_slider", test_pbd_run_slider);
}
