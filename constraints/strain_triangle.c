/* strain_triangle, strain_triangle_normalized: strain-based dynamics on a triangle (Müller,
 * Chentanez, Kim, Macklin 2014, "Strain Based Dynamics", the 2D case of Sec. 3–4). F = D_s D_m⁻¹
 * is 3×2, its columns f_0, f_1 the rest frame's axes (constraints/fem.h: world x projected
 * into the rest plane, and its perpendicular; the warp and weft of a grid cloth) mapped
 * into the current shape, S = FᵀF. Three constraints per triangle:
 *   components 0, 1, stretch:  C = S_ii − 1   (normalized: |f_i| − 1),
 *   component 2, shear:         C = S_01      (normalized: cos θ_01),
 * with C and ∇C as in strain_tet.c (fem_strain_eval, 2 columns). Rest {D_m⁻¹ (4), component}.
 * Compliances (material(), E the membrane's E·h in N/m, A the rest area): 4/(EA) for S_ii − 1,
 * 1/(EA) for |f_i| − 1, 1/(μA) for the shear (μ = E/(2(1+ν))), from the small-strain match
 * explained in strain_tet.c. */
#include "fem.h"
#include "batch_generic.h"

static inline int strain_tri_eval_common(const pbd_eval_input *in, double *C, double *grad,
                                         int normalize)
{
    const double *r = in->rest;
    double F[6], G[6];
    int comp = (int)r[4];
    if (comp < 0 || comp > 2) comp = 0;
    fem_tri_F(in->x, r, F);
    int i = comp == 2 ? 0 : comp, j = comp == 2 ? 1 : comp;
    int st = fem_strain_eval(F, 2, i, j, normalize, C, G);
    if (m_dot(r, r, 4) == 0.0 || st != PBD_EVAL_OK) { /* sliver at rest */
        st = PBD_EVAL_DEGENERATE;
        for (int k = 0; k < 6; k++) G[k] = 0.0;
        if (!isfinite(*C)) *C = 0.0;
    }
    if (grad) fem_tri_grad(G, r, grad);
    return st;
}

/* Müller et al. 2014 Sec. 3 (2D): C = S_ij − δ_ij. */
static int strain_tri_eval(const pbd_eval_input *in, double *C, double *grad)
{
    return strain_tri_eval_common(in, C, grad, 0);
}

/* Müller et al. 2014 Sec. 4 (2D, normalized): C = |f_i| − 1 or cos θ_01. */
static int strain_tri_normalized_eval(const pbd_eval_input *in, double *C, double *grad)
{
    return strain_tri_eval_common(in, C, grad, 1);
}

static inline double strain_tri_material_common(const pbd_eval_input *in, double E, double nu,
                                                int component, double *rest, int normalize)
{
    double mu, lambda, A;
    fem_tri_rest(in->x, rest, &A);
    rest[4] = component >= 0 && component < 3 ? component : 0;
    if (!fem_lame(E, nu, &mu, &lambda)) return NAN;
    if (!(A > 0.0)) return 0.0;
    if (component == 2) return 1.0 / (mu * A);
    return (normalize ? 1.0 : 4.0) / (E * A);
}

static double strain_tri_material(const pbd_eval_input *in, double E, double nu, int component,
                                  double *rest)
{
    return strain_tri_material_common(in, E, nu, component, rest, 0);
}

static double strain_tri_normalized_material(const pbd_eval_input *in, double E, double nu,
                                             int component, double *rest)
{
    return strain_tri_material_common(in, E, nu, component, rest, 1);
}

/* From x: component 0 (the stretch along the rest frame's first axis). */
static void strain_tri_rest(const pbd_eval_input *in, double *rest)
{
    strain_tri_material(in, 1.0, 0.25, 0, rest);
}

static int strain_tri_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                             int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    return fem_sample_element(r, degenerate, 3, strain_tri_material, 3, 0.45, x, rest);
}

static int strain_tri_normalized_sample(pbd_rng *r, int degenerate, double *x, double *rest,
                                        int32_t *aux, int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    return fem_sample_element(r, degenerate, 3, strain_tri_normalized_material, 3, 0.45, x,
                              rest);
}

/* Batched kernels: eval inlined into the generic projection (bit for bit the generic path). */
BG_DEFINE_KERNELS(strain_tri, 3, 5, 0, strain_tri_eval);

const pbd_constraint_type pbd_strain_triangle_type = {
    .name = "strain_triangle",
    .description = "strain-based dynamics triangle: S_ii - 1 (stretch) or S_01 (shear) "
                   "(Mueller et al. 2014)",
    .unit = "1",
    .arity = 3,
    .n_rest = 5,
    .inequality = 0,
    .internal = 1,
    .eval = strain_tri_eval,
    .kernels = &strain_tri_kernels,
    .rest = strain_tri_rest,
    .sample = strain_tri_sample,
    .n_components = 3,
    .material = strain_tri_material,
    .hessian = fem_strain_triangle_hessian,
};

/* Batched kernels: eval inlined into the generic projection (bit for bit the generic path). */
BG_DEFINE_KERNELS(strain_tri_normalized, 3, 5, 0, strain_tri_normalized_eval);

const pbd_constraint_type pbd_strain_triangle_normalized_type = {
    .name = "strain_triangle_normalized",
    .description = "strain-based dynamics triangle, normalized: |f_i| - 1 or cos of the angle "
                   "between f_0 and f_1",
    .unit = "1",
    .arity = 3,
    .n_rest = 5,
    .inequality = 0,
    .internal = 1,
    .eval = strain_tri_normalized_eval,
    .kernels = &strain_tri_normalized_kernels,
    .rest = strain_tri_rest,
    .sample = strain_tri_normalized_sample,
    .n_components = 3,
    .material = strain_tri_normalized_material,
};
