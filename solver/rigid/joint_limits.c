/* The ball joint's swing and twist limits (paper Sec. 3.4.2, its limitAngle): the
 * swing, the angle between the bodies' axes a1, a2 about n = a1 × a2, and the twist, the angle
 * of body 2's reference about the mean axis n = (a1 + a2)/|a1 + a2| relative to body 1's, are
 * corrected (α = 0) only when outside their ranges. */
#include "rigid_private.h"

#include <math.h>

double rigid_wrap_angle(double x)
{
    x = fmod(x, 2.0 * M_PI); /* in (-2π, 2π) */
    if (x > M_PI) x -= 2.0 * M_PI;
    else if (x <= -M_PI) x += 2.0 * M_PI;
    return x;
}

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

/* Body 2 is turned by the angle about n relative to body 1: body 1 has (clamped − angle) n too
 * much (the hinge limit's convention) */
static void limit(pbd_rigid_body *b1, pbd_rigid_body *b2, const double n[3], double angle,
                  double lo, double hi, double h, double *lambda)
{
    double c = angle < lo ? lo : angle > hi ? hi : angle;
    if (c == angle || !(v3_norm(n) > 0.0)) return;
    double dtheta[3];
    v3_scale(dtheta, n, c - angle);
    pbd_rigid_correct_angular(b1, b2, dtheta, 0.0, h, lambda);
}

void rigid_swing_twist_solve(pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2,
                             double h)
{
    double psi, phi, ns[3], nt[3];
    if (j->has_swing_limit) {
        swing_twist(j, b1, b2, &psi, ns, &phi, nt);
        limit(b1, b2, ns, psi, 0.0, j->swing_limit, h, &j->lambda[2]);
    }
    if (j->has_twist_limit) {
        swing_twist(j, b1, b2, &psi, ns, &phi, nt);
        limit(b1, b2, nt, phi, j->twist_lower, j->twist_upper, h, &j->lambda[3]);
    }
}
