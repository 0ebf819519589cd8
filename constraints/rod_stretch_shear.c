/* rod_stretch_shear: the stretch–shear constraint of a Cosserat rod segment (Kugelstadt &
 * Schömer 2016, "Position and Orientation Based Cosserat Rods", Sec. 4.1, Eq. 31–32):
 *   Γ = (p1 − p0)/ℓ − d_3(q) = 0,
 * the segment's centre line (p0 → p1) along its third director, at rest length. Written
 * here one material-frame component per row, times ℓ so that C is a length:
 *   C_k = d_k(q)·(p1 − p0) − ℓ δ_k2   [m],   d_k = R(q) e_k   (k = 0, 1 shear, 2 stretch),
 * Σ_k C_k² = ℓ² |Γ|² (R is orthogonal), so the three rows hold exactly the paper's Γ = 0;
 * each row is invariant to rigid motions of (p0, p1, q) together, which the paper's
 * world-frame components are not one by one (momentum with the spin, gradcheck).
 * Gradient (q ← exp(θ/2) q rotates d_k to d_k + θ × d_k):
 *   ∇_p0 C = −d_k,   ∇_p1 C = d_k,   ∇_θ C = d_k × (p1 − p0). */
#include "pbd_constraint.h"
#include "vec3.h"

#include <math.h>
#include <stddef.h>

static int component(const double *rest)
{
    int k = (int)rest[1];
    return k < 0 ? 0 : k > 2 ? 2 : k;
}

static int stretch_shear_eval(const pbd_eval_input *in, double *C, double *grad)
{
    const int k = component(in->rest);
    double e[3], ek[3] = {0, 0, 0}, d[3];
    ek[k] = 1.0;
    v3_sub(e, in->x + 3, in->x);
    pbd_quat_rotate(in->x + 6, ek, d);
    *C = v3_dot(d, e) - (k == 2 ? in->rest[0] : 0.0);
    if (grad) {
        v3_scale(grad, d, -1.0);
        v3_copy(grad + 3, d);
        v3_cross(grad + 6, d, e);
    }
    return PBD_EVAL_OK;
}

/* A segment near its rest state: p1 ≈ p0 + ℓ d_2 plus a shear and stretch of up to ~30 %,
 * a random orientation; degenerate: p1 ≈ p0 (C stays smooth there: nothing to skip). */
static int stretch_shear_sample(pbd_rng *r, int degenerate, double *x, double *rest,
                                int32_t *aux, int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    double *q = x + 6, d2[3], ez[3] = {0, 0, 1};
    pbd_quat_random(r, q);
    pbd_quat_rotate(q, ez, d2);
    rest[0] = pbd_rng_range(r, 0.1, 2.0);
    rest[1] = (double)(pbd_rng_next(r) % 3);
    double len = degenerate ? 1e-7 : rest[0];
    for (int i = 0; i < 3; i++) {
        x[i] = pbd_rng_range(r, -3.0, 3.0);
        x[3 + i] = x[i] + len * (d2[i] + 0.3 * pbd_rng_gaussian(r));
    }
    return 3;
}

/* The closed form of K&S Eq. 37: Γ = (p1 − p0)/ℓ − q e3 q̄ projected as one 3-vector, q a
 * 4-vector of scalar inverse mass w_q (PBD Eq. 8–9; ∂(q e3 q̄)/∂q has transpose
 * v ↦ 2 (0, v) q ē3, so its J W Jᵀ is 4 w_q I):
 *   Δp0 = w0 ℓ Γ/D,  Δp1 = −w1 ℓ Γ/D,  Δq = 2 w_q ℓ² (0, Γ) q ē3 / D,  D = w0 + w1 + 4 w_q ℓ²,
 * then q normalised (the paper's unit-length constraint). In our rows C_k = ℓ (Rᵀ Γ)_k (J W Jᵀ
 * = D I in them too) with XPBD's α̃ and PBD's k per row: Δλ_k = k_k (−C_k − α̃_k λ_k)/(D + α̃_k),
 * g = R Δλ, Δp0 = −w0 g, Δp1 = w1 g, Δq = −2 w_q ℓ (0, g) q ē3 (k = 1, α̃ = 0: Eq. 37).
 * w_q = (1/I_1 + 1/I_2)/8: ½ |q̇|²/w_q = ½ |ω|²/(4 w_q), the inertia about the two axes that
 * turn d_3. Linear in Δq, so the linearised Γ vanishes; the normalisation then drops Δq's
 * part along q, (C_2/ℓ) 2 w_q ℓ²/D · q: the stretch keeps the fraction 4 w_q ℓ²/D. */
static int stretch_shear_project_element(const pbd_eval_input *in, const double *w,
                                         const double *at, const double *lam, const double *k,
                                         double *x, double *dl)
{
    const double *r = in->rest, l = r[0];
    if (r[1] != 0.0 || r[3] != 1.0 || r[5] != 2.0 || r[2] != l || r[4] != l) return PBD_EVAL_DEGENERATE;
    double *p0 = x, *p1 = x + 3, *q = x + 6;
    const double wq = 0.125 * (w[2] + w[3]), D = w[0] + w[1] + 4.0 * wq * l * l;
    if (!(D > 1e-300) || !(l > 0.0)) return PBD_EVAL_DEGENERATE;
    double e[3], g[3], d[3];
    v3_sub(e, p1, p0);
    for (int c = 0; c < 3; c++) {
        double ec[3] = {0, 0, 0};
        ec[c] = 1.0;
        pbd_quat_rotate(q, ec, d);
        double C = v3_dot(d, e) - (c == 2 ? l : 0.0);
        dl[c] = k[c] * (-C - at[c] * lam[c]) / (D + at[c]);
    }
    if (!(isfinite(dl[0]) && isfinite(dl[1]) && isfinite(dl[2]))) return PBD_EVAL_DEGENERATE;
    pbd_quat_rotate(q, dl, g);
    for (int i = 0; i < 3; i++) {
        p0[i] -= w[0] * g[i];
        p1[i] += w[1] * g[i];
    }
    if (wq > 0.0) {
        const double g4[4] = {0.0, g[0], g[1], g[2]}, e3c[4] = {0.0, 0.0, 0.0, -1.0};
        double t[4], dq[4], n = 0.0;
        pbd_quat_mul(g4, q, t);
        pbd_quat_mul(t, e3c, dq);
        for (int i = 0; i < 4; i++) {
            q[i] -= 2.0 * wq * l * dq[i];
            n += q[i] * q[i];
        }
        n = sqrt(n);
        for (int i = 0; i < 4; i++) q[i] /= n;
    }
    return PBD_EVAL_OK;
}

double pbd_rod_stretch_shear_compliance(double youngs_modulus, double shear_modulus,
                                        double area, double length, int component)
{
    /* E = ½ ℓ Γᵀ K Γ with K = diag(GA, GA, EA) (K&S Sec. 4.1), Γ_k = C_k/ℓ: α_k = ℓ/K_k */
    double K = (component == 2 ? youngs_modulus : shear_modulus) * area;
    return K > 0.0 && isfinite(K) && length > 0.0 ? length / K : NAN;
}

const pbd_constraint_type pbd_rod_stretch_shear_type = {
    .name = "rod_stretch_shear",
    .description = "d_k(q)·(p1 - p0) - l δ_k2: stretch and shear of a rod segment "
                   "(Kugelstadt & Schömer 2016 Sec. 4.1)",
    .unit = "m",
    .arity = 3,
    .n_rest = 2,
    .inequality = 0,
    .internal = 1,
    .eval = stretch_shear_eval,
    .rest = NULL, /* ℓ and the component: the builder gives them */
    .sample = stretch_shear_sample,
    .n_orient = 1,
    .n_components = 3,
    .project_element = stretch_shear_project_element,
};
