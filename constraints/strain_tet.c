/* strain_tet, strain_tet_normalized: strain-based dynamics on a tetrahedron (Müller,
 * Chentanez, Kim, Macklin 2014, "Strain Based Dynamics", Sec. 3–4). With F = D_s D_m⁻¹ (its
 * columns f_i: the rest axes i mapped into the current shape) and the right Cauchy–Green
 * tensor S = FᵀF, S_ij = f_i·f_j, each element gives six constraints, one per component:
 *   stretch (components 0, 1, 2 = axes x, y, z of the rest frame):  C = S_ii − 1,
 *   shear   (components 3, 4, 5 = pairs 01, 02, 12):                 C = S_ij,
 * projected one after the other (the paper's Gauss–Seidel over the components; rest stretch
 * s_i = 1). The normalized variant (the paper's Sec. 4, which decouples stretch from shear):
 *   stretch  C = |f_i| − 1,   shear  C = f_i·f_j / (|f_i| |f_j|) = cos θ_ij.
 * Rest {D_m⁻¹ (9), component}. Like the Green strain E = ½(S − I), these are invariant to
 * rotations, not to inversion (S of a mirrored tet is the same).
 *
 * Compliances (material()): at small strain f_i ≈ e_i + ε e_i, S_ii − 1 ≈ 2ε_ii and
 * S_ij ≈ cos θ_ij ≈ 2ε_ij. Matching ½C²/α to the element's linear energy V(E/2 ε_ii² for a
 * stretch along one axis, 2μ ε_ij² for a shear pair) gives α = 4/(EV) for S_ii − 1, 1/(EV) for
 * |f_i| − 1 and 1/(μV) for either shear. The axes are decoupled: a stretch along x does not
 * contract y and z (an effective ν = 0 for the stretch part), so the model is exact for a
 * bar in uniaxial tension and for the bending of a slender beam, not for a confined block. */
#include "fem.h"
#include "batch_generic.h"

static const int pair_i[6] = {0, 1, 2, 0, 0, 1}, pair_j[6] = {0, 1, 2, 1, 2, 2};

#define STRAIN_MIN_LENGTH 1e-12 /* |f_i| below this (a collapsed axis): normalized C skipped */

/* G = ∂C/∂F, column by column (column i of G is ∂C/∂f_i):
 *   S_ii:  2 f_i;   S_ij:  f_j in column i, f_i in column j;
 *   |f_i|:  f_i/|f_i|;   cos θ = n_i·n_j (n = f/|f|):  (n_j − cos θ n_i)/|f_i| in column i,
 *   (n_i − cos θ n_j)/|f_j| in column j;
 * then ∇C by the chain rule of fem.h (cols = 3 for tets, 2 for triangles; F row-major, 3
 * rows of `cols`). Returns PBD_EVAL_DEGENERATE for a sliver at rest (D_m⁻¹ = 0) or a
 * collapsed axis in the normalized variant. */
int fem_strain_eval(const double *F, int cols, int i, int j, int normalize, double *C,
                    double *G)
{
    double fi[3], fj[3];
    for (int a = 0; a < 3; a++) fi[a] = F[cols * a + i], fj[a] = F[cols * a + j];
    for (int k = 0; k < 3 * cols; k++) G[k] = 0.0;
    if (!normalize) {
        *C = v3_dot(fi, fj) - (i == j);
        for (int a = 0; a < 3; a++) {
            G[cols * a + i] += fj[a];
            G[cols * a + j] += fi[a];
        }
        return isfinite(*C) ? PBD_EVAL_OK : PBD_EVAL_DEGENERATE;
    }
    double li = v3_norm(fi), lj = v3_norm(fj);
    if (!(li > STRAIN_MIN_LENGTH) || !(lj > STRAIN_MIN_LENGTH) || !isfinite(li * lj)) {
        *C = 0.0;
        return PBD_EVAL_DEGENERATE;
    }
    if (i == j) {
        *C = li - 1.0;
        for (int a = 0; a < 3; a++) G[cols * a + i] = fi[a] / li;
        return PBD_EVAL_OK;
    }
    double ni[3], nj[3];
    v3_scale(ni, fi, 1.0 / li);
    v3_scale(nj, fj, 1.0 / lj);
    double c = v3_dot(ni, nj);
    *C = c;
    for (int a = 0; a < 3; a++) {
        G[cols * a + i] = (nj[a] - c * ni[a]) / li;
        G[cols * a + j] = (ni[a] - c * nj[a]) / lj;
    }
    return PBD_EVAL_OK;
}

static inline int strain_tet_eval_common(const pbd_eval_input *in, double *C, double *grad,
                                         int normalize)
{
    const double *r = in->rest;
    double F[9], G[9];
    int comp = (int)r[9];
    if (comp < 0 || comp > 5) comp = 0;
    fem_tet_F(in->x, r, F);
    int st = fem_strain_eval(F, 3, pair_i[comp], pair_j[comp], normalize, C, G);
    if (m_dot(r, r, 9) == 0.0 || st != PBD_EVAL_OK) { /* sliver at rest */
        st = PBD_EVAL_DEGENERATE;
        for (int k = 0; k < 9; k++) G[k] = 0.0;
        if (!isfinite(*C)) *C = 0.0;
    }
    if (grad) fem_tet_grad(G, r, grad);
    return st;
}

/* Müller et al. 2014 Sec. 3: C = S_ij − δ_ij, ∇C as fem_strain_eval derives it. */
static int strain_tet_eval(const pbd_eval_input *in, double *C, double *grad)
{
    return strain_tet_eval_common(in, C, grad, 0);
}

/* Müller et al. 2014 Sec. 4 (normalized): C = |f_i| − 1 or cos θ_ij. */
static int strain_tet_normalized_eval(const pbd_eval_input *in, double *C, double *grad)
{
    return strain_tet_eval_common(in, C, grad, 1);
}

static inline double strain_tet_material_common(const pbd_eval_input *in, double E, double nu,
                                                int component, double *rest, int normalize)
{
    double mu, lambda, V;
    fem_tet_rest(in->x, rest, &V);
    rest[9] = component >= 0 && component < 6 ? component : 0;
    if (!fem_lame(E, nu, &mu, &lambda)) return NAN;
    if (!(V > 0.0)) return 0.0;
    if (component >= 3) return 1.0 / (mu * V);
    return (normalize ? 1.0 : 4.0) / (E * V);
}

static double strain_tet_material(const pbd_eval_input *in, double E, double nu, int component,
                                  double *rest)
{
    return strain_tet_material_common(in, E, nu, component, rest, 0);
}

static double strain_tet_normalized_material(const pbd_eval_input *in, double E, double nu,
                                             int component, double *rest)
{
    return strain_tet_material_common(in, E, nu, component, rest, 1);
}

/* From x: component 0 (the stretch along the rest frame's x axis). */
static void strain_tet_rest(const pbd_eval_input *in, double *rest)
{
    strain_tet_material(in, 1.0, 0.25, 0, rest);
}

static int strain_tet_sample(pbd_rng *r, int degenerate, double *x, double *rest,
                             int32_t *aux, int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    return fem_sample_element(r, degenerate, 4, strain_tet_material, 6, 0.45, x, rest);
}

static int strain_tet_normalized_sample(pbd_rng *r, int degenerate, double *x, double *rest,
                                        int32_t *aux, int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    return fem_sample_element(r, degenerate, 4, strain_tet_normalized_material, 6, 0.45, x,
                              rest);
}

/* Batched kernels: eval inlined into the generic projection (bit for bit the generic path). */
BG_DEFINE_KERNELS(strain_tet, 4, 10, 0, strain_tet_eval);

const pbd_constraint_type pbd_strain_tet_type = {
    .name = "strain_tet",
    .description = "strain-based dynamics tet: S_ii - 1 (stretch) or S_ij (shear), S = F^T F "
                   "(Mueller et al. 2014)",
    .unit = "1",
    .arity = 4,
    .n_rest = 10,
    .inequality = 0,
    .internal = 1,
    .eval = strain_tet_eval,
    .kernels = &strain_tet_kernels,
    .rest = strain_tet_rest,
    .sample = strain_tet_sample,
    .n_components = 6,
    .material = strain_tet_material,
    .hessian = fem_strain_tet_hessian,
};

/* Batched kernels: eval inlined into the generic projection (bit for bit the generic path). */
BG_DEFINE_KERNELS(strain_tet_normalized, 4, 10, 0, strain_tet_normalized_eval);

const pbd_constraint_type pbd_strain_tet_normalized_type = {
    .name = "strain_tet_normalized",
    .description = "strain-based dynamics tet, normalized: |f_i| - 1 (stretch) or cos of the "
                   "angle between f_i and f_j (shear)",
    .unit = "1",
    .arity = 4,
    .n_rest = 10,
    .inequality = 0,
    .internal = 1,
    .eval = strain_tet_normalized_eval,
    .kernels = &strain_tet_normalized_kernels,
    .rest = strain_tet_rest,
    .sample = strain_tet_normalized_sample,
    .n_components = 6,
    .material = strain_tet_normalized_material,
};
