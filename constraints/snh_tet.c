/* snh_tet: the Stable Neo-Hookean tetrahedron as two constraints (Macklin & Müller 2021, "A
 * Constraint-based Formulation of Stable Neo-Hookean Materials"). Their energy
 *   Ψ = μ/2 (I_C − 3) + λ/2 (J − γ)²,   I_C = ‖F‖²_F, J = det F, γ = 1 + μ/λ
 * (Smith, de Goes, Kim 2018 without the log term) is XPBD's ½ Σ C²/α of the constraints
 *   component 0, hydrostatic:  C_H = det F − γ,  α_H = 1/(λ V0)
 *   component 1, deviatoric:   C_D = ‖F‖_F,      α_D = 1/(μ V0)
 * (up to the constant −3μ/2 V0). γ = 1 + μ/λ makes the rest state stress free: at F = I the
 * deviatoric force μ F = μ I balances the hydrostatic λ(1 − γ) cof F = −μ I. Both C are smooth
 * through inversion (J < 0) and flat tets: only a tet collapsed to a line (cof F = 0) or a
 * point (F = 0) is degenerate.
 *
 * The two rows of a tet are one block (pbd_constraint_type.block): the solver projects them
 * together, the coupled solve of the paper. One after the other they fail: C_D's target is
 * F = 0, and when α̃_D = 1/(μ V h²) is small against w|∇C_D|² (a shear wave crosses the element
 * in less than a substep h), C_D's projection alone moves the tet most of the way to a point
 * before C_H answers. Both constraints also carry a rest-state multiplier (C_D = √3 at rest)
 * whose geometric stiffness λ∇²C XPBD's update leaves out, so even the coupled solve needs
 * small substeps. Measured on one free tet (E = 10⁵ Pa, ν = 0.3, edge 0.1 m, 0.04 kg, one
 * vertex pushed 1 mm, 1 iteration per substep, 2 s at 60 Hz), the largest edge strain:
 *   substeps        1          4      8       16       64
 *   coupled      1e5 (blows up) 0.46   0.055   0.0009   0.0025
 *   one by one   1 (a point)    1      0.34    0.13     0.012
 * so the coupled block holds the tet from a substep h with c h/l ≈ 0.13 (16 substeps here;
 * l the edge, c = √(μ/ρ) the shear wave speed), where one-by-one projection still crushes it
 * (tests/test_materials.c). The same multipliers bias XPBD's settled state: it is not quite
 * the static equilibrium (XPBD's update assumes g = 0, which its iterates do not keep), by a
 * few % at 25 substeps of 1/60 s, less with more (the material_beam and poisson experiments).
 *
 * Lamé parameters (material()): matching Ψ to linear elasticity at small strain. With
 * F = I + ε, I_C = 3 + 2 tr ε + tr ε², J = 1 + tr ε + ½(tr²ε − tr ε²) + O(ε³), so
 *   Ψ = const + μ tr ε² + (λ − μ)/2 tr²ε + O(ε³):
 * the model's λ acts as λ − μ. material() therefore uses λ_SNH = λ + μ from (E, ν) (Smith
 * et al. 2018 Sec. 3.4 make the same correction for their energy), so that the small-strain
 * Young's modulus and Poisson ratio are E and ν; without it ν would act as (λ−μ)/(2λ) (0.17
 * for ν = 0.3). At ν = 1/2, λ = ∞: α_H = 0, γ = 1 (incompressible). */
#include "fem.h"

#include <stddef.h>

#define SNH_MIN_NORM 1e-12 /* ‖F‖ (or ‖cof F‖ against ‖F‖²) below this: collapsed, skip */

/* rest {D_m⁻¹ (9), V0, component, γ}. With G = ∂C/∂F and the chain rule of fem.h:
 *   C_H = det F − γ:  ∂C_H/∂F = cof F = det F · F⁻ᵀ (columns f2×f3, f3×f1, f1×f2),
 *   C_D = ‖F‖_F:      ∂C_D/∂F = F / ‖F‖_F. */
static int snh_eval(const pbd_eval_input *in, double *C, double *grad)
{
    const double *r = in->rest;
    double F[9], G[9];
    fem_tet_F(in->x, r, F);
    double nF = sqrt(m_dot(F, F, 9));
    int st = PBD_EVAL_OK;
    if (r[10] < 0.5) {
        *C = m3_det(F) - r[11];
        m3_cofactor(F, G);
        if (!(sqrt(m_dot(G, G, 9)) > SNH_MIN_NORM * nF * nF)) st = PBD_EVAL_DEGENERATE;
    } else {
        *C = nF;
        if (!(nF > SNH_MIN_NORM)) st = PBD_EVAL_DEGENERATE;
        for (int k = 0; k < 9; k++) G[k] = st == PBD_EVAL_OK ? F[k] / nF : 0.0;
    }
    if (!(r[9] > 0.0) || !isfinite(*C)) { /* sliver at rest, or non-finite positions */
        st = PBD_EVAL_DEGENERATE;
        if (!isfinite(*C)) *C = 0.0;
    }
    if (grad) {
        if (st == PBD_EVAL_OK)
            fem_tet_grad(G, r, grad);
        else
            for (int k = 0; k < 12; k++) grad[k] = 0.0;
    }
    return st;
}

static double snh_material(const pbd_eval_input *in, double E, double nu, int component,
                           double *rest)
{
    double mu, lambda;
    if (!fem_lame(E, nu, &mu, &lambda)) return NAN;
    double lambda_snh = lambda + mu; /* small-strain match, see the top of the file */
    fem_tet_rest(in->x, rest, &rest[9]);
    rest[10] = component == 0 ? 0.0 : 1.0;
    rest[11] = 1.0 + mu / lambda_snh; /* γ (1 when λ = ∞) */
    if (!(rest[9] > 0.0)) return 0.0; /* a sliver: degenerate whatever its compliance */
    if (component == 0) return isinf(lambda_snh) ? 0.0 : 1.0 / (lambda_snh * rest[9]);
    return 1.0 / (mu * rest[9]);
}

/* From x: the hydrostatic component of E = 1 Pa, ν = 1/4 (builders call material()). */
static void snh_rest(const pbd_eval_input *in, double *rest)
{
    snh_material(in, 1.0, 0.25, 0, rest);
}

static int snh_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                      int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    return fem_sample_element(r, degenerate, 4, snh_material, 2, 0.5, x, rest);
}

const pbd_constraint_type pbd_snh_tet_type = {
    .name = "snh_tet",
    .description = "Stable Neo-Hookean tet: det F - gamma (hydrostatic) or |F|_F (deviatoric) "
                   "(Macklin & Mueller 2021)",
    .unit = "1",
    .arity = 4,
    .n_rest = 12,
    .inequality = 0,
    .internal = 1,
    .eval = snh_eval,
    .rest = snh_rest,
    .sample = snh_sample,
    .n_components = 2,
    .material = snh_material,
    .block = 2, /* hydrostatic and deviatoric solved together (Macklin & Müller 2021) */
    .hessian = fem_snh_hessian,
    .vertex_block = fem_snh_vertex_block,
};
