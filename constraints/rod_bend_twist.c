/* rod_bend_twist: the bend–twist constraint between two adjacent rod segments (Kugelstadt
 * & Schömer 2016 Sec. 4.2, Eq. 39–41): the discrete Darboux vector Ω = (2/ℓ) Im(q̄0 q1)
 * (the material-frame curvature and twist between the segments' frames) equals its rest
 * value Ω0, with the sign of q1 chosen as the paper does (Ω − Ω0 or Ω + Ω0, whichever is
 * smaller: q and −q are the same rotation). Written one component per row and times ℓ, so
 * that C is an angle:
 *   C_k = 2 Im(s a − r)_k   [rad],   a = q̄0 q1,  r = a at rest,  s = sign ⟨a, r⟩,
 * C_k ≈ the k-th component of the relative rotation from rest, in q0's frame (small angles).
 * Gradient on SO(3) (q_i ← exp(θ_i/2) q_i): δa = ½ (R0ᵀ(θ1 − θ0))^ a, and with
 * Im(v̂ a) = a_w v + v × a_v,
 *   ∇_θ1 C_k = s R0 m_k = −∇_θ0 C_k,   m_k = a_w e_k + a_v × e_k.
 * Only θ1 − θ0 enters: a rotation of both frames together changes nothing (internal). */
#include "pbd_constraint.h"
#include "vec3.h"

#include <math.h>
#include <stddef.h>

/* ⟨a, r⟩ below this: a is a half turn from its rest value and the sign s is undecided. */
#define BEND_TWIST_MIN_DOT 1e-6

static int bend_twist_eval(const pbd_eval_input *in, double *C, double *grad)
{
    const double *q0 = in->x, *q1 = in->x + 4, *r = in->rest;
    int k = (int)in->rest[4];
    k = k < 0 ? 0 : k > 2 ? 2 : k;
    double q0c[4] = {q0[0], -q0[1], -q0[2], -q0[3]}, a[4];
    pbd_quat_mul(q0c, q1, a);
    double dot = a[0] * r[0] + a[1] * r[1] + a[2] * r[2] + a[3] * r[3];
    double s = dot >= 0.0 ? 1.0 : -1.0;
    *C = 2.0 * (s * a[1 + k] - r[1 + k]);
    int st = fabs(dot) < BEND_TWIST_MIN_DOT ? PBD_EVAL_DEGENERATE : PBD_EVAL_OK;
    if (grad) {
        double m[3] = {0, 0, 0}, ek[3] = {0, 0, 0}, c[3];
        ek[k] = 1.0;
        v3_cross(c, a + 1, ek);
        for (int i = 0; i < 3; i++) m[i] = s * (a[0] * ek[i] + c[i]);
        pbd_quat_rotate(q0, m, grad + 3);
        v3_scale(grad, grad + 3, -1.0);
    }
    return st;
}

/* A random frame q0, a random rest rotation r (w >= 0) and q1 = q0 r turned by up to about
 * 1 rad (sign of q1 random); degenerate: turned by a half turn, ⟨a, r⟩ ≈ 0. */
static int bend_twist_sample(pbd_rng *r, int degenerate, double *x, double *rest,
                             int32_t *aux, int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    double *q0 = x, *q1 = x + 4, t[4], th[3], e[4];
    pbd_quat_random(r, q0);
    pbd_quat_random(r, rest);
    if (rest[0] < 0.0)
        for (int k = 0; k < 4; k++) rest[k] = -rest[k];
    rest[4] = (double)(pbd_rng_next(r) % 3);
    pbd_quat_mul(q0, rest, t);
    double amp = degenerate ? M_PI : 0.6;
    for (int i = 0; i < 3; i++) th[i] = amp * pbd_rng_gaussian(r);
    if (degenerate) { /* a half turn about a random axis, off by up to 1e-7 rad */
        double n = v3_norm(th);
        for (int i = 0; i < 3; i++) th[i] *= (M_PI + 1e-7 * pbd_rng_gaussian(r)) / n;
    }
    pbd_quat_from_rotvec(th, e);
    pbd_quat_mul(t, e, q1);
    if (pbd_rng_uniform(r) < 0.5)
        for (int k = 0; k < 4; k++) q1[k] = -q1[k];
    return 2;
}

/* The closed form of K&S Eq. 40: v = Im(q̄0 q1 − s r) = 0 (the Darboux vector's constraint
 * times ℓ/2) with q0, q1 4-vectors of scalar inverse masses w0, w1 (PBD Eq. 8–9; ∂v/∂q0 and
 * ∂v/∂q1 have transposes u ↦ −q1 u and u ↦ q0 u, u pure, so J W Jᵀ = (w0 + w1) I):
 *   Δq0 = w0 q1 v/(w0 + w1),  Δq1 = −w1 q0 v/(w0 + w1),
 * then both normalised. In our rows C = 2 s v (J W Jᵀ = 4 (w0 + w1) I) with XPBD's α̃ and PBD's
 * k per row: Δλ_k = k_k (−C_k − α̃_k λ_k)/(4 (w0 + w1) + α̃_k), Δq0 = −2 s w0 q1 (0, Δλ),
 * Δq1 = 2 s w1 q0 (0, Δλ) (k = 1, α̃ = 0: Eq. 40). w_i = the mean of orientation i's three
 * inverse inertias / 4 (½ |q̇|²/w = ½ |ω|²/(4 w)). */
static int bend_twist_project_element(const pbd_eval_input *in, const double *w,
                                      const double *at, const double *lam, const double *k,
                                      double *x, double *dl)
{
    const double *r = in->rest;
    if (r[4] != 0.0 || r[9] != 1.0 || r[14] != 2.0) return PBD_EVAL_DEGENERATE;
    for (int i = 0; i < 4; i++)
        if (r[5 + i] != r[i] || r[10 + i] != r[i]) return PBD_EVAL_DEGENERATE;
    double *q0 = x, *q1 = x + 4;
    const double w0 = (w[0] + w[1] + w[2]) / 12.0, w1 = (w[3] + w[4] + w[5]) / 12.0;
    double q0c[4] = {q0[0], -q0[1], -q0[2], -q0[3]}, a[4];
    pbd_quat_mul(q0c, q1, a);
    double dot = a[0] * r[0] + a[1] * r[1] + a[2] * r[2] + a[3] * r[3];
    double s = dot >= 0.0 ? 1.0 : -1.0, den = 4.0 * (w0 + w1);
    if (fabs(dot) < BEND_TWIST_MIN_DOT || !(den > 1e-300)) return PBD_EVAL_DEGENERATE;
    for (int c = 0; c < 3; c++) {
        double C = 2.0 * (s * a[1 + c] - r[1 + c]);
        dl[c] = k[c] * (-C - at[c] * lam[c]) / (den + at[c]);
    }
    if (!(isfinite(dl[0]) && isfinite(dl[1]) && isfinite(dl[2]))) return PBD_EVAL_DEGENERATE;
    const double u[4] = {0.0, dl[0], dl[1], dl[2]};
    double d0[4], d1[4];
    pbd_quat_mul(q1, u, d0);
    pbd_quat_mul(q0, u, d1);
    const double f[2] = {-2.0 * s * w0, 2.0 * s * w1};
    double *qs[2] = {q0, q1}, *ds[2] = {d0, d1};
    for (int j = 0; j < 2; j++) {
        if (!(f[j] != 0.0)) continue;
        double n = 0.0;
        for (int i = 0; i < 4; i++) {
            qs[j][i] += f[j] * ds[j][i];
            n += qs[j][i] * qs[j][i];
        }
        n = sqrt(n);
        for (int i = 0; i < 4; i++) qs[j][i] /= n;
    }
    return PBD_EVAL_OK;
}

double pbd_rod_bend_twist_compliance(double youngs_modulus, double shear_modulus,
                                     const double area_moments[3], double length, int component)
{
    /* E = ½ ℓ (Ω − Ω0)ᵀ K (Ω − Ω0), K = diag(E I_1, E I_2, G J) (K&S Sec. 4.2), Ω − Ω0 = C/ℓ:
     * α_k = ℓ/K_k, ℓ the mean length of the two segments */
    double K = (component == 2 ? shear_modulus : youngs_modulus) * area_moments[component];
    return K > 0.0 && isfinite(K) && length > 0.0 ? length / K : NAN;
}

const pbd_constraint_type pbd_rod_bend_twist_type = {
    .name = "rod_bend_twist",
    .description = "2 Im(s q0* q1 - r)_k: the Darboux vector against its rest value "
                   "(Kugelstadt & Schömer 2016 Sec. 4.2)",
    .unit = "rad",
    .arity = 2,
    .n_rest = 5,
    .inequality = 0,
    .internal = 1,
    .eval = bend_twist_eval,
    .rest = NULL, /* the rest rotation and the component: the builder gives them */
    .sample = bend_twist_sample,
    .n_orient = 2,
    .n_components = 3,
    .project_element = bend_twist_project_element,
};
