/* The ball (spherical) joint (Sec. 3.4): the joint points (joint_point.c), with the swing and
 * twist limits before them (Sec. 3.4.2, the paper's limitAngle): the swing ψ, the angle
 * between the bodies' axes a1, a2 about n_s = a1 × a2/|a1 × a2|, and the twist φ, the angle
 * of body 2's reference about the mean axis n_t = (a1 + a2)/|a1 + a2| relative to body 1's,
 * are corrected (α = 0) only when outside their ranges: C = angle_c − angle (body 1 has C n
 * too much, the hinge limit's convention).
 *
 * Swing: ∇ψ = (0, −n_s, 0, n_s) exactly, so ∇C = (0, n_s, 0, −n_s). Twist: with
 * t_i = n_t·u_i, φ = atan2(s, c), s = (u1 × u2)·n_t, c = u1·u2 − t1 t2 (the references
 * projected normal to n_t); its gradient (below) moves n_t too, so the correction along n_t
 * is its first-order gradient. */
#include "rigid_private.h"

#include <math.h>

/* The swing ψ, its unit axis n_s (zero when ψ is 0 or π), the twist φ about the unit n_t
 * (φ = 0, n_t zero when the axes are opposite) */
static void swing_twist(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                        const pbd_rigid_body *b2, double *psi, double ns[3], double *phi,
                        double nt[3])
{
    double a1[3], a2[3], c[3], u1[3], u2[3];
    pbd_quat_rotate(b1->q, j->axis[0], a1);
    pbd_quat_rotate(b2->q, j->axis[1], a2);
    v3_cross(c, a1, a2);
    double sn = v3_norm(c);
    *psi = atan2(sn, v3_dot(a1, a2));
    v3_scale(ns, c, sn > 0.0 ? 1.0 / sn : 0.0);
    v3_add(nt, a1, a2);
    double m = v3_norm(nt);
    *phi = 0.0;
    if (!(m > 1e-9)) { /* opposite axes: no twist axis */
        nt[0] = nt[1] = nt[2] = 0.0;
        return;
    }
    v3_scale(nt, nt, 1.0 / m);
    /* the references projected normal to n: u_i − (n·u_i) n */
    pbd_quat_rotate(b1->q, j->ref[0], u1);
    pbd_quat_rotate(b2->q, j->ref[1], u2);
    v3_axpy(u1, -v3_dot(nt, u1), nt);
    v3_axpy(u2, -v3_dot(nt, u2), nt);
    v3_cross(c, u1, u2);
    *phi = atan2(v3_dot(c, nt), v3_dot(u1, u2));
}

void pbd_rigid_swing_twist(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                           const pbd_rigid_body *b2, double *swing, double *twist)
{
    double ns[3], nt[3];
    swing_twist(j, b1, b2, swing, ns, twist, nt);
}

/* The clamped angle minus the angle, 0 inside [lo, hi] or about a zero axis n */
static double violation(const double n[3], double angle, double lo, double hi)
{
    double c = angle < lo ? lo : angle > hi ? hi : angle;
    if (c == angle || !(v3_norm(n) > 0.0)) return 0.0;
    return c - angle;
}

static double swing_violation(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                              const pbd_rigid_body *b2, double ns[3])
{
    double psi, phi, nt[3];
    if (!j->has_swing_limit) return 0.0;
    swing_twist(j, b1, b2, &psi, ns, &phi, nt);
    return violation(ns, psi, 0.0, j->swing_limit);
}

static double twist_violation(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                              const pbd_rigid_body *b2, double nt[3])
{
    double psi, phi, ns[3];
    if (!j->has_twist_limit) return 0.0;
    swing_twist(j, b1, b2, &psi, ns, &phi, nt);
    return violation(nt, phi, j->twist_lower, j->twist_upper);
}

/* Body 2 is turned by the angle about n relative to body 1: body 1 has c n too much */
static void correct(pbd_rigid_body *b1, pbd_rigid_body *b2, const double n[3], double c,
                    double h, double *lambda)
{
    if (c == 0.0) return;
    double dtheta[3];
    v3_scale(dtheta, n, c);
    pbd_rigid_correct_angular(b1, b2, dtheta, 0.0, h, lambda);
}

static int swing_eval(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                      const pbd_rigid_body *b2, double *C, double g[12])
{
    double ns[3], m[3];
    *C = swing_violation(j, b1, b2, ns);
    rigid_gradient_pair(g, NULL, NULL, NULL, NULL);
    if (*C == 0.0) return 1;
    v3_scale(m, ns, -1.0);
    rigid_gradient_pair(g, NULL, ns, NULL, m);
    return 0;
}

static void swing_project(pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2, double h)
{
    double ns[3];
    correct(b1, b2, ns, swing_violation(j, b1, b2, ns), h, &j->lambda[2]);
}

const pbd_rigid_joint_row rigid_row_swing_limit = {
    "swing_limit", 2, PBD_JOINT_ALPHA_NONE, swing_eval, swing_project,
};

/* out = a × (v − (v·n) n)/m: the part of ∂(n·v)/∂θ from n = (a1 + a2)/m turning with a */
static void mean_axis_part(double out[3], const double a[3], const double v[3],
                           const double n[3], double m)
{
    double p[3];
    v3_copy(p, v);
    v3_axpy(p, -v3_dot(v, n), n);
    v3_cross(out, a, p);
    v3_scale(out, out, 1.0 / m);
}

/* ∇φ of the twist: ∂s/∂θ1 = u1 × (u2 × n) + a1 × P w/m, ∂s/∂θ2 = u2 × (n × u1) + a2 × P w/m
 * (w = u1 × u2, P = I − n nᵀ, m = |a1 + a2|); ∂t1/∂θ1 = u1 × n + a1 × P u1/m, ∂t1/∂θ2 =
 * a2 × P u1/m, and t2 likewise; ∂c = ±w − t2 ∂t1 − t1 ∂t2 */
static void twist_gradient(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                           const pbd_rigid_body *b2, double g[12])
{
    double a[2][3], u[2][3], n[3], w[3], t[3];
    pbd_quat_rotate(b1->q, j->axis[0], a[0]);
    pbd_quat_rotate(b2->q, j->axis[1], a[1]);
    pbd_quat_rotate(b1->q, j->ref[0], u[0]);
    pbd_quat_rotate(b2->q, j->ref[1], u[1]);
    v3_add(n, a[0], a[1]);
    double m = v3_norm(n);
    v3_scale(n, n, 1.0 / m);
    v3_cross(w, u[0], u[1]);
    double s = v3_dot(w, n), t1 = v3_dot(n, u[0]), t2 = v3_dot(n, u[1]);
    double c = v3_dot(u[0], u[1]) - t1 * t2, r2 = s * s + c * c;
    for (int b = 0; b < 2; b++) { /* the body turned */
        double ds[3], dt1[3], dt2[3], dc[3];
        v3_cross(t, b == 0 ? u[1] : n, b == 0 ? n : u[0]);
        v3_cross(ds, u[b], t);
        mean_axis_part(t, a[b], w, n, m);
        v3_add(ds, ds, t);
        mean_axis_part(dt1, a[b], u[0], n, m);
        mean_axis_part(dt2, a[b], u[1], n, m);
        v3_cross(t, u[b], n);
        v3_add(b == 0 ? dt1 : dt2, b == 0 ? dt1 : dt2, t);
        for (int k = 0; k < 3; k++) {
            dc[k] = (b == 0 ? w[k] : -w[k]) - t2 * dt1[k] - t1 * dt2[k];
            g[3 + 6 * b + k] = (c * ds[k] - s * dc[k]) / r2;
            g[6 * b + k] = 0.0;
        }
    }
}

static int twist_eval(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                      const pbd_rigid_body *b2, double *C, double g[12])
{
    double nt[3];
    return rigid_limit_row(twist_violation(j, b1, b2, nt), twist_gradient, j, b1, b2, C, g);
}

static void twist_project(pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2, double h)
{
    double nt[3];
    correct(b1, b2, nt, twist_violation(j, b1, b2, nt), h, &j->lambda[3]);
}

const pbd_rigid_joint_row rigid_row_twist_limit = {
    "twist_limit", 3, PBD_JOINT_ALPHA_NONE, twist_eval, twist_project,
};

static int check(pbd_rigid_joint *j, const pbd_rigid_joint *in)
{
    if ((j->has_swing_limit || j->has_twist_limit) && rigid_joint_axes_and_limits(j, in, "ball"))
        return -1;
    if (j->has_swing_limit && !(j->swing_limit >= 0.0 && j->swing_limit <= M_PI)) {
        pbd_error(PBD_EINVAL, "ball joint swing_limit: expected 0 <= swing_limit <= pi rad, "
                  "found %g", j->swing_limit);
        return -1;
    }
    if (j->has_twist_limit &&
        !(j->twist_lower <= j->twist_upper && j->twist_lower >= -M_PI && j->twist_upper <= M_PI)) {
        pbd_error(PBD_EINVAL, "ball joint twist limits: expected -pi <= twist_lower <= "
                  "twist_upper <= pi rad, found twist_lower %g, twist_upper %g", j->twist_lower,
                  j->twist_upper);
        return -1;
    }
    return 0;
}

const pbd_rigid_joint_type rigid_joint_ball = {
    "ball", check, 3, {&rigid_row_swing_limit, &rigid_row_twist_limit, &rigid_row_point},
    rigid_joint_damping, NULL,
};
