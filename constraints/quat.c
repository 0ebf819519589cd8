/* Unit quaternions q = (w, x, y, z), scalar first, for the orientations of rod segments
 * (Kugelstadt & Schömer 2016 Sec. 3): products, rotations and the exponential map. */
#include "pbd_constraint.h"

#include <math.h>

void pbd_quat_mul(const double a[4], const double b[4], double out[4])
{
    double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
    out[0] = w; out[1] = x; out[2] = y; out[3] = z;
}

/* R(q) v = v + 2 u × (u × v + w v), u = Im q (q of unit length) */
static void rotate(double w, const double u[3], const double v[3], double out[3])
{
    double t[3] = {u[1] * v[2] - u[2] * v[1] + w * v[0], u[2] * v[0] - u[0] * v[2] + w * v[1],
                   u[0] * v[1] - u[1] * v[0] + w * v[2]};
    double r[3] = {v[0] + 2.0 * (u[1] * t[2] - u[2] * t[1]),
                   v[1] + 2.0 * (u[2] * t[0] - u[0] * t[2]),
                   v[2] + 2.0 * (u[0] * t[1] - u[1] * t[0])};
    out[0] = r[0]; out[1] = r[1]; out[2] = r[2];
}

void pbd_quat_rotate(const double q[4], const double v[3], double out[3])
{
    rotate(q[0], q + 1, v, out);
}

void pbd_quat_rotate_inv(const double q[4], const double v[3], double out[3])
{
    double u[3] = {-q[1], -q[2], -q[3]};
    rotate(q[0], u, v, out);
}

void pbd_quat_from_rotvec(const double theta[3], double out[4])
{
    double a = sqrt(theta[0] * theta[0] + theta[1] * theta[1] + theta[2] * theta[2]);
    /* sin(a/2)/a by its series near 0, so that a tiny θ keeps its exact first order */
    double s = a > 1e-4 ? sin(0.5 * a) / a : 0.5 - a * a / 48.0;
    out[0] = cos(0.5 * a);
    out[1] = s * theta[0]; out[2] = s * theta[1]; out[3] = s * theta[2];
}

void pbd_quat_random(pbd_rng *r, double q[4])
{
    pbd_rng_unit(r, q, 4, 0.0); /* uniform on the unit 3-sphere, i.e. on SO(3) */
}

void pbd_quat_perturb(const double q[4], const double theta[3], double out[4])
{
    double e[4], r[4];
    pbd_quat_from_rotvec(theta, e);
    pbd_quat_mul(e, q, r);
    double n = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    if (!(n > 1e-300)) { /* a zero q (bad input) stays as it is rather than turning NaN */
        for (int k = 0; k < 4; k++) out[k] = q[k];
        return;
    }
    for (int k = 0; k < 4; k++) out[k] = r[k] / n;
}

void pbd_quat_add_rotation(const double q[4], const double theta[3], double s, double out[4])
{
    double o[4] = {0.0, 0.5 * s * theta[0], 0.5 * s * theta[1], 0.5 * s * theta[2]}, d[4];
    pbd_quat_mul(o, q, d);
    double n = 0.0;
    for (int k = 0; k < 4; k++) {
        out[k] = q[k] + d[k];
        n += out[k] * out[k];
    }
    n = sqrt(n);
    for (int k = 0; k < 4; k++) out[k] /= n;
}

void pbd_quat_angular_velocity(const double q[4], const double q_prev[4], double h,
                               double omega[3])
{
    double qc[4] = {q_prev[0], -q_prev[1], -q_prev[2], -q_prev[3]}, r[4];
    pbd_quat_mul(q, qc, r);
    double sgn = r[0] < 0.0 ? -1.0 : 1.0; /* the shorter way round */
    for (int k = 0; k < 3; k++) omega[k] = 2.0 * sgn * r[1 + k] / h;
}

void pbd_quat_gyroscopic_step(const double q[4], const double inv_inertia[3], double h,
                              double omega[3])
{
    double b[3], Ib[3], t[3];
    pbd_quat_rotate_inv(q, omega, b);
    for (int k = 0; k < 3; k++) Ib[k] = b[k] / inv_inertia[k];
    t[0] = b[1] * Ib[2] - b[2] * Ib[1];
    t[1] = b[2] * Ib[0] - b[0] * Ib[2];
    t[2] = b[0] * Ib[1] - b[1] * Ib[0];
    for (int k = 0; k < 3; k++) b[k] -= h * inv_inertia[k] * t[k];
    pbd_quat_rotate(q, b, omega);
}
