/* fem_tet_stvk: the St. Venant–Kirchhoff tetrahedron as one energy constraint C = √(2ΨV),
 * compliance 1 (constraints/fem.h "the energy constraint"), with
 *   E = ½(FᵀF − I),  Ψ = μ E:E + λ/2 tr²E,  P = ∂Ψ/∂F = F S,  S = 2μE + λ tr(E) I
 * (Green strain and the second Piola–Kirchhoff stress S, as in Sifakis & Barbič's course
 * notes "FEM simulation of 3D deformable solids", 2012; Bender et al. 2014 use the same energy
 * as a PBD constraint). At small
 * strain E ≈ ε and Ψ ≈ μ ε:ε + λ/2 tr²ε, so (μ, λ) are the Lamé parameters of (E, ν).
 * StVK softens under compression and has no resistance at F = 0 or to inversion (Ψ depends on
 * FᵀF only): an inverted tet is as good as its mirror image — use snh_tet or fem_tet_corotated
 * where elements invert. */
#include "fem.h"
#include "batch_generic.h"

/* rest {D_m⁻¹ (9), V0, μ, λ}. dE = ½(dFᵀF + FᵀdF), so dΨ = (2μE + λ trE I):dE = S:FᵀdF =
 * (F S):dF with S symmetric: ∂Ψ/∂F = F S; then ∂C/∂F = V F S / C and the chain rule. */
static int stvk_eval(const pbd_eval_input *in, double *C, double *grad)
{
    const double *r = in->rest;
    double F[9], E[9], S[9], P[9];
    fem_tet_F(in->x, r, F);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++) s += F[3 * k + a] * F[3 * k + b];
            E[3 * a + b] = 0.5 * (s - (a == b));
        }
    double tr = E[0] + E[4] + E[8], mu = r[10], lambda = r[11];
    for (int k = 0; k < 9; k++) S[k] = 2.0 * mu * E[k] + (k % 4 == 0 ? lambda * tr : 0.0);
    double psi = mu * m_dot(E, E, 9) + 0.5 * lambda * tr * tr;
    m3_mul(P, F, S);
    int st = r[9] > 0.0 ? fem_energy_constraint(r[9], psi, P, 9, C)
                        : fem_energy_constraint(0.0, 0.0, P, 9, C);
    if (grad) fem_tet_grad(P, r, grad);
    return st;
}

/* Batched kernels: eval inlined into the generic projection (bit for bit the generic path). */
BG_DEFINE_KERNELS(stvk, 4, 12, 0, stvk_eval);

const pbd_constraint_type pbd_fem_tet_stvk_type = {
    .name = "fem_tet_stvk",
    .description = "St. Venant-Kirchhoff tet as the energy constraint sqrt(2 Psi V), compliance 1",
    .unit = "J^1/2",
    .arity = 4,
    .n_rest = 12,
    .inequality = 0,
    .internal = 1,
    .eval = stvk_eval,
    .kernels = &stvk_kernels,
    .rest = fem_tet_lame_rest,
    .sample = fem_tet_lame_sample,
    .n_components = 1,
    .material = fem_tet_lame_material,
    .hessian = fem_stvk_hessian,
    .vertex_block = fem_stvk_vertex_block,
    .energy = 1,
};
