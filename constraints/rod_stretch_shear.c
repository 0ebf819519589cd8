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
};
