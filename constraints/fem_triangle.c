/* fem_triangle: a St. Venant–Kirchhoff membrane triangle as one energy constraint C = √(2ΨA),
 * compliance 1 (constraints/fem.h "the energy constraint"). F = D_s D_m⁻¹ is 3×2 (the rest
 * edges in the rest frame of fem.h), and
 *   E = ½(FᵀF − I₂),  Ψ = μ E:E + λ/2 tr²E,  P = ∂Ψ/∂F = F S,  S = 2μE + λ tr(E) I₂,
 * the FEM triangle of Bender et al. 2014 (their isotropic case) with Ψ per unit rest area.
 * material() takes the membrane's E·h (N/m) for E and uses plane stress: μ = E/(2(1+ν)),
 * λ = Eν/(1−ν²), so a strip stretched along one axis (free across) has modulus E. Bending
 * is not included: cloth adds it with bend_dihedral or bend_isometric. */
#include "fem.h"
#include "batch_generic.h"

/* rest {D_m⁻¹ (4, row-major 2×2), A0, μ, λ}. As for the tet (fem_tet_stvk.c), dΨ = S:FᵀdF =
 * (F S):dF; ∂C/∂F = A0 F S / C and the 3×2 chain rule of fem.h. */
static int tri_eval(const pbd_eval_input *in, double *C, double *grad)
{
    const double *r = in->rest;
    double F[6], E[4], S[4], P[6];
    fem_tri_F(in->x, r, F);
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            E[2 * a + b] = 0.5 * (F[a] * F[b] + F[2 + a] * F[2 + b] + F[4 + a] * F[4 + b] -
                                  (a == b));
    double tr = E[0] + E[3], mu = r[5], lambda = r[6];
    for (int k = 0; k < 4; k++) S[k] = 2.0 * mu * E[k] + (k == 0 || k == 3 ? lambda * tr : 0.0);
    for (int a = 0; a < 3; a++) {
        P[2 * a] = F[2 * a] * S[0] + F[2 * a + 1] * S[2];
        P[2 * a + 1] = F[2 * a] * S[1] + F[2 * a + 1] * S[3];
    }
    double psi = mu * m_dot(E, E, 4) + 0.5 * lambda * tr * tr;
    if (!(r[4] > 0.0)) psi = 0.0; /* a sliver at rest */
    int st = fem_energy_constraint(r[4], psi, P, 6, C);
    if (grad) fem_tri_grad(P, r, grad);
    return st;
}

static double tri_material(const pbd_eval_input *in, double E, double nu, int component,
                           double *rest)
{
    (void)component;
    double mu, lambda;
    fem_tri_rest(in->x, rest, &rest[4]);
    if (!fem_lame(E, nu, &mu, &lambda)) {
        rest[5] = rest[6] = 0.0;
        return NAN;
    }
    rest[5] = mu;
    rest[6] = E * nu / (1.0 - nu * nu); /* plane stress */
    return 1.0;
}

/* From x: E·h = 1 N/m, ν = 1/4; builders call material(). */
static void tri_rest(const pbd_eval_input *in, double *rest)
{
    tri_material(in, 1.0, 0.25, 0, rest);
}

static int tri_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                      int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    return fem_sample_element(r, degenerate, 3, tri_material, 1, 0.5, x, rest);
}

/* Batched kernels: eval inlined into the generic projection (bit for bit the generic path). */
BG_DEFINE_KERNELS(tri, 3, 7, 0, tri_eval);

const pbd_constraint_type pbd_fem_triangle_type = {
    .name = "fem_triangle",
    .description = "St. Venant-Kirchhoff membrane triangle as the energy constraint "
                   "sqrt(2 Psi A), compliance 1",
    .unit = "J^1/2",
    .arity = 3,
    .n_rest = 7,
    .inequality = 0,
    .internal = 1,
    .eval = tri_eval,
    .kernels = &tri_kernels,
    .rest = tri_rest,
    .sample = tri_sample,
    .n_components = 1,
    .material = tri_material,
    .hessian = fem_triangle_hessian,
    .energy = 1,
};
