/* dampVelocities, line (6) of PBD Algorithm 1. */
#include "solver/pbd.h"
#include "solver/solver_private.h"
#include "solver/xpbd/xpbd.h"
#include "solver/variants.h"

#include <float.h>
#include <math.h>

/* Eigenvalues of I below this fraction of the largest are treated as zero. */
#define PBD_INERTIA_RCOND 1e-12

/* Momentum-conserving damping (PBD Sec. 3.5), over the free particles (w > 0) only:
 *   x_cm = Σ m x / Σ m,  v_cm = Σ m v / Σ m,  r_i = x_i - x_cm,
 *   L = Σ r_i × m_i v_i,  I = Σ r̃_i r̃_iᵀ m_i,  ω = I⁻¹ L,
 *   Δv_i = v_cm + ω × r_i - v_i,  v_i <- v_i + k_damping Δv_i.
 * r̃ is the cross-product matrix (r̃ a = r × a), skew-symmetric, so r̃ r̃ᵀ = -r̃² =
 * |r|² E - r rᵀ: I is the usual inertia tensor about x_cm, symmetric positive
 * semi-definite. It is singular when the particles are collinear (or one point); then
 * ω = I⁺ L with the pseudo-inverse from I's eigen-decomposition: L has no component along a null
 * direction of I (r × v ⊥ r), so L and Σ m v are still conserved, and the rotation about
 * the line, which the particles cannot express, is left out. Σ m Δv_i = 0 and
 * Σ r_i × m_i Δv_i = Iω - L = 0: linear and angular momentum are unchanged. */
void pbd_damp_momentum(pbd_world *w, double k_damping)
{
    double mass = 0.0, xcm[3] = {0, 0, 0}, vcm[3] = {0, 0, 0};
    for (int i = 0; i < w->n; i++) {
        if (w->w[i] <= 0.0) continue;
        double m = 1.0 / w->w[i];
        mass += m;
        for (int k = 0; k < 3; k++) {
            xcm[k] += m * w->x[3 * i + k];
            vcm[k] += m * w->v[3 * i + k];
        }
    }
    if (!(mass > 0.0)) return;
    for (int k = 0; k < 3; k++) {
        xcm[k] /= mass;
        vcm[k] /= mass;
    }
    double L[3] = {0, 0, 0}, I[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < w->n; i++) {
        if (w->w[i] <= 0.0) continue;
        double m = 1.0 / w->w[i];
        const double *v = w->v + 3 * i;
        double r[3] = {w->x[3 * i] - xcm[0], w->x[3 * i + 1] - xcm[1], w->x[3 * i + 2] - xcm[2]};
        L[0] += m * (r[1] * v[2] - r[2] * v[1]);
        L[1] += m * (r[2] * v[0] - r[0] * v[2]);
        L[2] += m * (r[0] * v[1] - r[1] * v[0]);
        double rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) I[3 * a + b] += m * ((a == b ? rr : 0.0) - r[a] * r[b]);
    }
    for (int k = 0; k < 9; k++)
        if (!isfinite(I[k])) return;

    /* ω = I⁺ L = Σ_k v_k (v_k·L) / λ_k over the eigenpairs of the symmetric I with λ_k above
     * PBD_INERTIA_RCOND of the largest (solver/symeig.c: cyclic Jacobi, which cannot fail on
     * finite input; GSL's Jacobi SVD missed its tolerance on 5 of 5·10⁶ random tensors and
     * would have aborted through GSL's default error handler) */
    double V[9], ev[3], omega[3] = {0, 0, 0};
    if (pbd_sym_eigen(3, I, ev, V) != 0) return;
    /* an eigenvalue counts above PBD_INERTIA_RCOND of the largest and above the rounding of
     * r_i = x_i − x_cm (ε|x_i| each: 64 ε Σ m |x_i|²); without the latter, one particle or
     * coincident ones (I = rounding noise) got ω = L/noise and velocities of order |v| */
    double emax = fmax(fabs(ev[0]), fmax(fabs(ev[1]), fabs(ev[2]))), xx = 0.0;
    for (int i = 0; i < w->n; i++)
        if (w->w[i] > 0.0)
            for (int k = 0; k < 3; k++) xx += w->x[3 * i + k] * w->x[3 * i + k] / w->w[i];
    double floor_ev = fmax(PBD_INERTIA_RCOND * emax, 64.0 * DBL_EPSILON * xx);
    for (int k = 0; k < 3; k++) {
        if (!(ev[k] > floor_ev)) continue;
        double vL = V[k] * L[0] + V[3 + k] * L[1] + V[6 + k] * L[2]; /* column k of V · L */
        for (int a = 0; a < 3; a++) omega[a] += V[3 * a + k] * vL / ev[k];
    }

    for (int i = 0; i < w->n; i++) {
        if (w->w[i] <= 0.0) continue;
        double *v = w->v + 3 * i;
        double r[3] = {w->x[3 * i] - xcm[0], w->x[3 * i + 1] - xcm[1], w->x[3 * i + 2] - xcm[2]};
        double rigid[3] = {vcm[0] + omega[1] * r[2] - omega[2] * r[1],
                           vcm[1] + omega[2] * r[0] - omega[0] * r[2],
                           vcm[2] + omega[0] * r[1] - omega[1] * r[0]};
        /* v + k (rigid - v), written so that k = 1 leaves exactly the rigid motion */
        for (int k = 0; k < 3; k++) v[k] = rigid[k] + (1.0 - k_damping) * (v[k] - rigid[k]);
    }
}

void pbd_damp_velocities(pbd_world *w)
{
    switch (w->def.damping) {
    case PBD_DAMPING_SCALE:
        for (int i = 0; i < 3 * w->n; i++) w->v[i] *= 1.0 - w->def.k_damping;
        break;
    case PBD_DAMPING_MOMENTUM:
        pbd_damp_momentum(w, w->def.k_damping);
        break;
    case PBD_DAMPING_NONE:
    default:
        break;
    }
}
