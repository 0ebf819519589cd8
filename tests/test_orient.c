/* The orientations' integration (solver/orient.c; Kugelstadt & Schömer 2016 Algorithm 1):
 * the gyroscopic update ω ← ω + h I⁻¹(τ − ω × Iω) (τ = 0, body frame) against its closed form
 * on a hand-computed case, and torque-free rotation of an anisotropic body conserving the
 * world-frame angular momentum and the kinetic energy to the integrator's truncation bound. */
#include "tests.h"
#include "solver/variants.h"
#include "solver/xpbd/xpbd.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* q = 90° about z (R(x, y, z) = (−y, x, z)), I = diag(1, 2, 3) kg m², ω = (1, 2, 3) rad/s,
 * h = 0.01 s. Body frame b = Rᵀω = (2, −1, 3), Ib = (2, −2, 9),
 * b × Ib = (−3, −12, −2), I⁻¹(b × Ib) = (−3, −6, −2/3),
 * b' = b − h I⁻¹(b × Ib) = (2.03, −0.94, 3 + 0.02/3), ω' = R b' = (0.94, 2.03, 3 + 0.02/3).
 * Without the term ω' = (1, 2, 3); sign flipped (0.94 → 1.06); I for I⁻¹ (0.76, 2.03, 3.06). */
static void test_gyroscopic_one_step(void)
{
    pbd_world *w = pbd_world_create(0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    const double s = sqrt(0.5), q[4] = {s, 0.0, 0.0, s}, om[3] = {1.0, 2.0, 3.0};
    const double iinv[3] = {1.0, 0.5, 1.0 / 3.0};
    CU_ASSERT_EQUAL_FATAL(pbd_world_add_orientation(w, q, om, iinv), 0);
    pbd_orient_forces(w, 0.01);
    const double want[3] = {0.94, 2.03, 3.0 + 0.02 / 3.0};
    /* two quaternion rotations (~30 flops each, |q| = 1) and the update: each component
     * within 64 ε |ω| of the exact value */
    const double tol = 64.0 * DBL_EPSILON * sqrt(14.0);
    printf("\n    omega' = (%.17g, %.17g, %.17g)", w->omega[0], w->omega[1], w->omega[2]);
    for (int k = 0; k < 3; k++) CU_ASSERT(fabs(w->omega[k] - want[k]) <= tol);
    /* a fixed orientation (inverse inertias 0) is stopped; a partly free one keeps ω */
    const double zero[3] = {0, 0, 0}, part[3] = {1.0, 0.0, 1.0};
    CU_ASSERT_EQUAL_FATAL(pbd_world_add_orientation(w, q, om, zero), 1);
    CU_ASSERT_EQUAL_FATAL(pbd_world_add_orientation(w, q, om, part), 2);
    pbd_orient_forces(w, 0.01);
    for (int k = 0; k < 3; k++) {
        CU_ASSERT(w->omega[3 + k] == 0.0);
        CU_ASSERT(w->omega[6 + k] == om[k]);
    }
    pbd_world_free(w);
}

/* |a| */
static double norm3(const double *a) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/* Torque-free rotation through the world's step (no particles, no constraints): per step the
 * body-frame update is explicit Euler on Euler's equations, then u = q + ½hωq normalised turns
 * by θ = 2 atan(h|ω|/2) and ω = 2 Im(u q̄)/h shrinks ω by 1/√(1 + h²|ω|²/4). Expanding
 * L_world = R I b to second order, the first-order terms h(L × b) and h(b × L) cancel, and what
 * is left per step is bounded by
 *   |ΔL| ≤ h² |ω|² |L| (κ + 2),   κ = I_max/I_min
 * (the terms b × (L × b), (I⁻¹(b × L)) × L, ½ b × (b × L) and the shrink ⅛|b|²L), and the
 * energy E = ½ bᵀIb changes by +½h² tᵀI⁻¹t (t = b × Ib, bᵀt = 0) and by the shrink, so
 *   |ΔE| ≤ h² |ω|² E (κ² + ¼).
 * Over N steps these add, to leading order (N h² |ω|² ≪ 1); rounding adds N · 64 ε. */
static void torque_free(double h, int steps, double *l_err, double *l_bound, double *e_err,
                        double *e_bound)
{
    pbd_world *w = pbd_world_create(0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    w->def.dt = h;
    w->def.gravity[0] = w->def.gravity[1] = w->def.gravity[2] = 0.0;
    const double I[3] = {1e-3, 2e-3, 4e-3}, iinv[3] = {1.0 / I[0], 1.0 / I[1], 1.0 / I[2]};
    const double q[4] = {0.9, 0.1, -0.3, 0.2}, om[3] = {6.0, -3.0, 7.0}; /* |ω| ≈ 9.7 rad/s */
    CU_ASSERT_EQUAL_FATAL(pbd_world_add_orientation(w, q, om, iinv), 0);
    double L0[3], E0, L[3], E, wmax2 = 0.0;
    pbd_orientation_momentum(w, L0, &E0);
    for (int s = 0; s < steps; s++) {
        double o = norm3(w->omega);
        wmax2 = fmax(wmax2, o * o);
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    }
    pbd_orientation_momentum(w, L, &E);
    double d[3] = {L[0] - L0[0], L[1] - L0[1], L[2] - L0[2]}, kappa = I[2] / I[0];
    *l_err = norm3(d) / norm3(L0);
    *e_err = fabs(E - E0) / E0;
    *l_bound = steps * (h * h * wmax2 * (kappa + 2.0) + 64.0 * DBL_EPSILON);
    *e_bound = steps * (h * h * wmax2 * (kappa * kappa + 0.25) + 64.0 * DBL_EPSILON);
    /* the body did turn: the test is not of a body at rest */
    double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), th = 0.0;
    for (int k = 0; k < 4; k++) th += (w->q[k] - q[k] / qn) * (w->q[k] - q[k] / qn);
    CU_ASSERT(sqrt(th) > 0.1);
    pbd_world_free(w);
}

static void test_torque_free_conservation(void)
{
    const double hs[2] = {2e-4, 1e-4};
    const int ns[2] = {1000, 2000}; /* the same time, 0.2 s: about 2 rad */
    double le[2], lb[2], ee[2], eb[2];
    for (int i = 0; i < 2; i++) {
        torque_free(hs[i], ns[i], &le[i], &lb[i], &ee[i], &eb[i]);
        printf("\n    h %g, %d steps: |ΔL|/|L| %.3g (bound %.3g), |ΔE|/E %.3g (bound %.3g)",
               hs[i], ns[i], le[i], lb[i], ee[i], eb[i]);
        CU_ASSERT(le[i] <= lb[i]);
        CU_ASSERT(ee[i] <= eb[i]);
    }
    /* first order in h over a fixed time (N h² = T h): halving h halves the drift, within
     * the O(h³) remainder */
    CU_ASSERT(le[1] < 0.6 * le[0] && le[1] > 0.4 * le[0]);
}

void register_orient_tests(void)
{
    CU_pSuite s = CU_add_suite("orient", NULL, NULL);
    CU_add_test(s, "gyroscopic_one_step", test_gyroscopic_one_step);
    CU_add_test(s, "torque_free_conservation", test_torque_free_conservation);
}
