/* fem_tet_corotated: the (fixed) corotated tetrahedron as one energy constraint C = √(2ΨV),
 * compliance 1 (constraints/fem.h "the energy constraint"), with
 *   Ψ = μ ‖F − R‖²_F + λ/2 (J − 1)²,  P = ∂Ψ/∂F = 2μ(F − R) + λ(J − 1) cof F,
 * R the rotation of the polar decomposition F = R S (Stomakhin, Howes, Schroeder, Teran 2012,
 * "Energetically consistent invertible elasticity": their fixed corotated energy). R is taken through the SVD with the smallest singular value's
 * sign flipped when det F < 0 (Irving et al. 2004), so the energy is smooth through flat and
 * inverted tets and pushes them back. At small strain Ψ ≈ μ ε:ε + λ/2 tr²ε: (μ, λ) are the
 * Lamé parameters of (E, ν). */
#include "fem.h"
#include "batch_generic.h"

/* rest {D_m⁻¹ (9), V0, μ, λ}. ∂/∂F ‖F − R(F)‖² = 2(F − R): the term through dR vanishes, as
 * (F − R):dR = R(S − I):dR = (S − I):RᵀdR with S − I symmetric and RᵀdR antisymmetric. And
 * ∂J/∂F = cof F. Then ∂C/∂F = V P / C and the chain rule of fem.h. */
static int corot_eval(const pbd_eval_input *in, double *C, double *grad)
{
    const double *r = in->rest;
    double F[9], R[9], cof[9], P[9], D[9];
    fem_tet_F(in->x, r, F);
    int st = fem_polar_rotation(F, R);
    double J = m3_det(F), mu = r[10], lambda = r[11];
    m3_cofactor(F, cof);
    for (int k = 0; k < 9; k++) {
        D[k] = F[k] - R[k];
        P[k] = 2.0 * mu * D[k] + lambda * (J - 1.0) * cof[k];
    }
    double psi = mu * m_dot(D, D, 9) + 0.5 * lambda * (J - 1.0) * (J - 1.0);
    if (st != PBD_EVAL_OK) psi = NAN; /* non-finite F: degenerate (a sliver at rest: V = 0) */
    st = fem_energy_constraint(r[9], psi, P, 9, C);
    if (grad) fem_tet_grad(P, r, grad);
    return st;
}

/* Batched kernels: eval inlined into the generic projection (bit for bit the generic path). */
BG_DEFINE_KERNELS(corot, 4, 12, 0, corot_eval);

const pbd_constraint_type pbd_fem_tet_corotated_type = {
    .name = "fem_tet_corotated",
    .description = "corotated tet (Stomakhin et al. 2012) as the energy constraint "
                   "sqrt(2 Psi V), compliance 1",
    .unit = "J^1/2",
    .arity = 4,
    .n_rest = 12,
    .inequality = 0,
    .internal = 1,
    .eval = corot_eval,
    .kernels = &corot_kernels,
    .rest = fem_tet_lame_rest,
    .sample = fem_tet_lame_sample,
    .n_components = 1,
    .material = fem_tet_lame_material,
    .energy = 1,
};
