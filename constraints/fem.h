/* Private to constraints/: the kinematics shared by the element types (snh_tet, fem_tet_*,
 * fem_triangle, strain_*): the rest shape matrix of a tetrahedron or triangle, the
 * deformation gradient F = D_s D_m⁻¹, the chain rule from ∂C/∂F to the particles, the
 * energy constraint C = √(2ΨV), small 3×3 matrix helpers and the polar rotation (fem.c).
 *
 * Notation (Sifakis & Barbič, "FEM simulation of 3D deformable solids", 2012, Sec. 3.2):
 * for a tet (x0, x1, x2, x3), D_s = [x1−x0, x2−x0, x3−x0] (edges as columns), D_m the same at
 * rest, F = D_s D_m⁻¹. With G = ∂C/∂F, since F_ab = Σ_j (D_s)_aj (D_m⁻¹)_jb,
 *   ∂C/∂(x_j)_a = Σ_b G_ab (D_m⁻¹)_jb   (j = 1, 2, 3),   ∇_{x0} C = −(∇_{x1} + ∇_{x2} + ∇_{x3}),
 * i.e. the columns of G D_m⁻ᵀ. A triangle uses the same with 2 columns, its rest edges written
 * in a 2D frame of the rest plane. Every C here depends on x through F only, so Σ_i ∇_i C = 0;
 * the frame-invariant ones (C(QF) = C(F)) also give Σ_i x_i × ∇_i C = 0. */
#ifndef PBD_FEM_H
#define PBD_FEM_H

#include "pbd_constraint.h"
#include "vec3.h"

#include <math.h>

/* A rest element whose |det D_m| is below this fraction of (longest edge)^dim is a sliver:
 * its rest data are stored as zeros and eval reports it degenerate. */
#define FEM_SLIVER_REL 1e-12
/* 2ΨV below this (J) is the energy constraint's minimum C = √(2ΨV) = 0, where the square root
 * has no gradient: C = 0 and ∇C = 0 there (0 is its subgradient at the minimum: nothing to
 * project, and the projections skip it as their Σ w|∇C|² = 0). Far below anything a real
 * strain produces (1e-16 strain of a 1 mm³ tet of 1 kPa gives 1e-44). */
#define FEM_MIN_ENERGY 1e-290

/* ---- 3×3 matrices, row-major: A[3r + c] -------------------------------------------------- */

static inline double m3_det(const double *A)
{
    return A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
           A[2] * (A[3] * A[7] - A[4] * A[6]);
}

/* cof(A) = det(A) A⁻ᵀ = ∂det(A)/∂A: its columns are a2×a3, a3×a1, a1×a2 (a_j = columns of A). */
static inline void m3_cofactor(const double *A, double *cof)
{
    double a[3][3], c[3];
    for (int j = 0; j < 3; j++)
        for (int r = 0; r < 3; r++) a[j][r] = A[3 * r + j];
    for (int j = 0; j < 3; j++) {
        v3_cross(c, a[(j + 1) % 3], a[(j + 2) % 3]);
        for (int r = 0; r < 3; r++) cof[3 * r + j] = c[r];
    }
}

static inline void m3_mul(double *C, const double *A, const double *B)
{
    double t[9];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            t[3 * r + c] = A[3 * r] * B[c] + A[3 * r + 1] * B[3 + c] + A[3 * r + 2] * B[6 + c];
    for (int k = 0; k < 9; k++) C[k] = t[k];
}

static inline double m_dot(const double *A, const double *B, int n)
{
    double s = 0.0;
    for (int k = 0; k < n; k++) s += A[k] * B[k];
    return s;
}

/* The rotation of the polar decomposition A = R S (S symmetric), through GSL's SVD
 * A = U Σ Vᵀ: R = U Vᵀ, or U diag(1, 1, −1) Vᵀ when det(U Vᵀ) < 0 (the column of the smallest
 * singular value flipped, so R is a rotation and S = Rᵀ A symmetric, possibly indefinite:
 * Irving, Teran, Fedkiw 2004, Sec. 5). Returns PBD_EVAL_DEGENERATE (R = I) when A is not
 * finite. Nothing is allocated (constraints/fem.c). */
int fem_polar_rotation(const double *A, double *R);

/* The singular values of F (3 × cols, row-major; cols = 2 or 3) in decreasing order, the
 * smallest negated when cols = 3 and det F < 0 (signed, as the polar rotation above sees
 * them). F must be finite (fem.c). */
void fem_singular_values(const double *F, int cols, double *sigma);

/* ---- tetrahedra -------------------------------------------------------------------------- */

static inline double fem_longest_edge2(const double *x, int n)
{
    double m = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double d[3];
            v3_sub(d, x + 3 * i, x + 3 * j);
            m = fmax(m, v3_dot(d, d));
        }
    return m;
}

/* D_m⁻¹ (row-major) and the rest volume V0 = |det D_m|/6 of the tet x (12 doubles); a sliver
 * (or non-finite input) gets zeros. Returns 1 for a usable rest shape, 0 for a sliver. */
static inline int fem_tet_rest(const double *x, double *dm_inv, double *V0)
{
    double Dm[9];
    for (int j = 0; j < 3; j++)
        for (int r = 0; r < 3; r++) Dm[3 * r + j] = x[3 * (j + 1) + r] - x[r];
    double det = m3_det(Dm), L2 = fem_longest_edge2(x, 4);
    if (!(fabs(det) > FEM_SLIVER_REL * L2 * sqrt(L2)) || !isfinite(det)) {
        for (int k = 0; k < 9; k++) dm_inv[k] = 0.0;
        *V0 = 0.0;
        return 0;
    }
    double cof[9];
    m3_cofactor(Dm, cof); /* A⁻¹ = cof(A)ᵀ / det A */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) dm_inv[3 * r + c] = cof[3 * c + r] / det;
    *V0 = fabs(det) / 6.0;
    return 1;
}

/* F = D_s D_m⁻¹ at the tet x. */
static inline void fem_tet_F(const double *x, const double *dm_inv, double *F)
{
    double Ds[9];
    for (int j = 0; j < 3; j++)
        for (int r = 0; r < 3; r++) Ds[3 * r + j] = x[3 * (j + 1) + r] - x[r];
    m3_mul(F, Ds, dm_inv);
}

/* grad (12) from G = ∂C/∂F (3×3 row-major): the chain rule above. */
static inline void fem_tet_grad(const double *G, const double *dm_inv, double *grad)
{
    for (int a = 0; a < 3; a++) grad[a] = 0.0;
    for (int j = 0; j < 3; j++)
        for (int a = 0; a < 3; a++) {
            double g = G[3 * a] * dm_inv[3 * j] + G[3 * a + 1] * dm_inv[3 * j + 1] +
                       G[3 * a + 2] * dm_inv[3 * j + 2];
            grad[3 * (j + 1) + a] = g;
            grad[a] -= g;
        }
}

/* ---- triangles --------------------------------------------------------------------------- */

/* The rest frame of the triangle x (9 doubles): t1 = the world x axis projected into the
 * triangle's plane (the first edge's direction when x is within 0.1 rad of the normal), t2 =
 * n̂ × t1; D_m = [e1·t1, e2·t1; e1·t2, e2·t2] (e_j = x_j − x0), D_m⁻¹ row-major (4 doubles),
 * A0 = |e1 × e2|/2. Material axes along world x and its perpendicular make the strain
 * components of a grid cloth (strain_triangle) those of its warp and weft. Sliver: zeros,
 * returns 0. */
static inline int fem_tri_rest(const double *x, double *dm_inv, double *A0)
{
    double e1[3], e2[3], n[3], t1[3], t2[3];
    v3_sub(e1, x + 3, x);
    v3_sub(e2, x + 6, x);
    v3_cross(n, e1, e2);
    double nn = v3_norm(n), L2 = fem_longest_edge2(x, 3);
    if (!(nn > FEM_SLIVER_REL * L2) || !isfinite(nn)) {
        for (int k = 0; k < 4; k++) dm_inv[k] = 0.0;
        *A0 = 0.0;
        return 0;
    }
    v3_scale(n, n, 1.0 / nn);
    double ex[3] = {1.0, 0.0, 0.0};
    v3_copy(t1, ex);
    v3_axpy(t1, -v3_dot(ex, n), n);
    double tl = v3_norm(t1);
    if (tl < 0.1) { /* x nearly normal to the plane: the first edge */
        v3_copy(t1, e1);
        tl = v3_norm(e1);
    }
    v3_scale(t1, t1, 1.0 / tl);
    v3_cross(t2, n, t1);
    double a = v3_dot(e1, t1), b = v3_dot(e2, t1), c = v3_dot(e1, t2), d = v3_dot(e2, t2);
    double det = a * d - b * c; /* = |e1 × e2| > 0: (t1, t2, n̂) is right-handed */
    dm_inv[0] = d / det;
    dm_inv[1] = -b / det;
    dm_inv[2] = -c / det;
    dm_inv[3] = a / det;
    *A0 = 0.5 * nn;
    return 1;
}

/* F (3×2 row-major, F[2a + b]) = D_s D_m⁻¹, D_s = [x1−x0, x2−x0]. */
static inline void fem_tri_F(const double *x, const double *dm_inv, double *F)
{
    for (int a = 0; a < 3; a++) {
        double e1 = x[3 + a] - x[a], e2 = x[6 + a] - x[a];
        F[2 * a] = e1 * dm_inv[0] + e2 * dm_inv[2];
        F[2 * a + 1] = e1 * dm_inv[1] + e2 * dm_inv[3];
    }
}

/* grad (9) from G = ∂C/∂F (3×2 row-major). */
static inline void fem_tri_grad(const double *G, const double *dm_inv, double *grad)
{
    for (int a = 0; a < 3; a++) {
        double g1 = G[2 * a] * dm_inv[0] + G[2 * a + 1] * dm_inv[1];
        double g2 = G[2 * a] * dm_inv[2] + G[2 * a + 1] * dm_inv[3];
        grad[3 + a] = g1;
        grad[6 + a] = g2;
        grad[a] = -(g1 + g2);
    }
}

/* ---- the energy constraint --------------------------------------------------------------- */

/* C = √(2ΨV) with compliance α = 1: XPBD's elastic potential U = ½ Cᵀα⁻¹C (Macklin et al.
 * 2016, Eq. 3) is then exactly the element's elastic energy ΨV, so XPBD solves the FEM model
 * (the energy-as-constraint idea of Bender, Koschier, Charrier, Weber 2014, whose C = ΨV has
 * the wrong units for a compliance; the square root fixes that). With P = ∂Ψ/∂F (n entries,
 * overwritten), ∂C/∂F = ∂(2ΨV)/∂F / (2C):
 *   ∂C/∂F = V P / C.
 * Where 2ΨV <= FEM_MIN_ENERGY (at rest): C = 0, G = 0, PBD_EVAL_OK (see FEM_MIN_ENERGY);
 * PBD_EVAL_DEGENERATE for V = 0 (a sliver at rest) and a non-finite energy. */
static inline int fem_energy_constraint(double V, double psi, double *PG, int n, double *C)
{
    double e2 = 2.0 * psi * V;
    if (!(e2 > FEM_MIN_ENERGY) || !isfinite(e2)) {
        *C = 0.0;
        for (int k = 0; k < n; k++) PG[k] = 0.0;
        /* at rest: the minimum (∇C = 0 is its subgradient); a sliver at rest (V = 0), a
         * non-finite or negative energy: degenerate */
        return isfinite(e2) && e2 >= 0.0 && V > 0.0 ? PBD_EVAL_OK : PBD_EVAL_DEGENERATE;
    }
    *C = sqrt(e2);
    double s = V / *C;
    for (int k = 0; k < n; k++) PG[k] *= s;
    return PBD_EVAL_OK;
}

/* Lamé parameters of Young's modulus E and Poisson ratio ν (3D; λ = ∞ at ν = 1/2), and the
 * plane-stress λ of a membrane, Eν/(1−ν²). Return 0 outside E > 0, −1 < ν <= 1/2. */
static inline int fem_lame(double E, double nu, double *mu, double *lambda)
{
    if (!(E > 0.0) || !isfinite(E) || !(nu > -1.0) || !(nu <= 0.5)) return 0;
    *mu = E / (2.0 * (1.0 + nu));
    *lambda = nu >= 0.5 ? INFINITY : E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
    return 1;
}

/* A random element for a material type's `sample` (constraints/element_sample.c): n = 4 (tet)
 * or 3 (triangle) particles into x, rest values from material() at a rest shape of good
 * quality (6|V| >= 0.35 L³, triangles |e1×e2| >= 0.5 L², L the longest edge)
 * with E in [0.5, 2], ν in [0, nu_max] and a random component; the current shape a rotated
 * random stretch and shear of the rest one (inverted one time in four), kept where every
 * type is smooth and well conditioned: singular values of F in [0.6, 1.6], a strain of at
 * least 20 % (C = √(2ΨV) curves on the scale of the strain: nearer rest a central difference
 * cannot resolve it to 1e-6; the degenerate batch goes there), and for an inverted tet the two
 * smallest singular values apart by 0.2 (where the polar rotation is smooth). The rest data
 * must start with D_m⁻¹ (all material types' do). degenerate != 0:
 * nearly flat or collinear, nearly or exactly coincident, exactly at rest (rotated), a sliver
 * at rest, or one vertex reflected. Returns n. */
/* The strain-based constraint of components (i, j) of S = FᵀF (constraints/strain_tet.c):
 * C and G = ∂C/∂F (F row-major, 3 rows of `cols`). */
int fem_strain_eval(const double *F, int cols, int i, int j, int normalize, double *C,
                    double *G);

/* Analytic Hessians (constraints/fem_hessian.c), the `hessian` of the types they name. */
int fem_snh_hessian(const pbd_eval_input *in, double *H);
int fem_stvk_hessian(const pbd_eval_input *in, double *H);
int fem_triangle_hessian(const pbd_eval_input *in, double *H);
int fem_strain_tet_hessian(const pbd_eval_input *in, double *H);
int fem_strain_triangle_hessian(const pbd_eval_input *in, double *H);
/* ... and the vertex blocks (pbd_vertex_block_fn) of snh_tet and fem_tet_stvk from them */
int fem_snh_vertex_block(const pbd_eval_input *in, int j, double *C, double *g, double *B,
                         int *hess_ok);
int fem_stvk_vertex_block(const pbd_eval_input *in, int j, double *C, double *g, double *B,
                          int *hess_ok);

int fem_sample_element(pbd_rng *r, int degenerate, int n, pbd_material_fn material,
                       int n_components, double nu_max, double *x, double *rest);

/* The rest data {D_m⁻¹ (9), V0, μ, λ} of a tet energy constraint whose Ψ takes the Lamé
 * parameters (StVK, corotated; constraints/fem.c): material() from E and ν, rest() with
 * E = 1 Pa, ν = 1/4, and the checker's samples. */
double fem_tet_lame_material(const pbd_eval_input *in, double E, double nu, int component,
                             double *rest);
void fem_tet_lame_rest(const pbd_eval_input *in, double *rest);
int fem_tet_lame_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                        int *n_aux);

#endif
