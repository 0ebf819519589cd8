/* bend_isometric: the isometric quadratic bending model (Bergou, Wardetzky, Harmon, Zorin,
 * Grinspun 2006, "A quadratic bending model for inextensible surfaces"), as used for XPBD
 * cloth (seed xpbd-isometric-bending.txt):
 *
 *     C(x) = E(x) - E0,   E(x) = ½ Σ_ij Q_ij x_i·x_j,   Q = 3/(A0 + A1) K Kᵀ,
 *     ∇_i C = Σ_j Q_ij x_j,
 *
 * Q (4×4, acting on each coordinate alike) is computed once from the rest configuration:
 * A0, A1 the rest areas of the two triangles, K the cotangent vector. E0 = E(rest), so that
 * C = 0 at rest also for a curved rest state (for a flat one E0 = 0 up to rounding).
 *
 * Normalisation (published versions differ by constant factors): exactly the seed's
 * Q = 3/(A0+A1) K Kᵀ with the factor ½ in E, i.e. E = 3/(2(A0+A1)) |Σ_i K_i x_i|². For an
 * isometric bend by an angle θ away from flat, |Σ_i K_i x_i| = 2|e| sin(θ/2), so
 * E = 6 |e|² sin²(θ/2) / (A0 + A1)  (≈ 3|e|²θ² / (2(A0 + A1)) for small θ).
 *
 * Stencil mapping. The contract's order is (p1, p2, p3, p4), p1–p2 the shared edge,
 * triangles T0 = (p1, p2, p3) and T1 = (p1, p2, p4). The seed (Bergou's stencil) numbers the
 * vertices x0 … x3 with x0–x1 the shared edge and x2, x3 opposite, so x0 = p1, x1 = p2,
 * x2 = p3, x3 = p4, and writes K = [c01 + c04, c02 + c03, -c01 - c02, -c03 - c04],
 * c0k = cot of the angle between edge e0 = x1 - x0 and edge e_k at their common vertex, with
 * e1 = x2 - x1, e2 = x2 - x0, e3 = x3 - x0, e4 = x3 - x1 (the only labelling that makes K
 * vanish on flat hinges). In interior angles, α_t at p1 and β_t at p2 of triangle T_t:
 *
 *     K = ( cot β0 + cot β1,  cot α0 + cot α1,  -cot α0 - cot β0,  -cot α1 - cot β1 ).
 *
 * Why: u_t = (cot α_t + cot β_t) p_opp - cot β_t p1 - cot α_t p2 is the perpendicular from the
 * edge's line to T_t's opposite vertex, of length |e| (|e| = h (cot α + cot β)), and
 * Σ_i K_i x_i = -(u0 + u1), which is zero exactly when the hinge is flat.
 *
 * Internal: K sums to zero, so Σ_j Q_ij = 0 (translation invariance, Σ_i ∇_i C = 0), and Q is
 * symmetric and acts on each coordinate alike (rotation invariance, Σ_i x_i × ∇_i C = 0).
 * Because the rows sum to zero, E is evaluated on y_i = x_i - p1 (the same value, without
 * the cancellation that large coordinates would cause).
 *
 * Rest layout (n_rest = 11): Q's upper triangle row by row, Q00 Q01 Q02 Q03 Q11 Q12 Q13 Q22
 * Q23 Q33 (indices 0 … 3 = p1 … p4), then E0. A degenerate rest state (a triangle of zero
 * area, or coincident points) stores Q = 0, E0 = 0; eval then returns PBD_EVAL_DEGENERATE. */
#include "pbd_constraint.h"
#include "batch_generic.h"
#include "hinge_sample.h"
#include "vec3.h"

#include <math.h>
#include <stddef.h>

#define ISO_MIN_REL 1e-10   /* twice a rest area below this × (hinge size)²: zero area */
#define ISO_MIN_SIZE 1e-100 /* m */
#define ISO_N_REST 11

static void q_unpack(const double *rest, double Q[4][4])
{
    int k = 0;
    for (int i = 0; i < 4; i++)
        for (int j = i; j < 4; j++) Q[i][j] = Q[j][i] = rest[k++];
}

/* ∇_i E = Σ_j Q_ij y_j and E = ½ Σ_i y_i·∇_i E, on y_i = x_i - p1. */
static double iso_energy(const double Q[4][4], const double *x, double *grad)
{
    double y[4][3], E = 0.0;
    for (int j = 0; j < 4; j++) v3_sub(y[j], x + 3 * j, x);
    for (int i = 0; i < 4; i++) {
        double g[3] = {0.0, 0.0, 0.0};
        for (int j = 1; j < 4; j++) v3_axpy(g, Q[i][j], y[j]); /* y[0] = 0 */
        E += 0.5 * v3_dot(y[i], g);
        if (grad) v3_copy(grad + 3 * i, g);
    }
    return E;
}

static int isometric_eval(const pbd_eval_input *in, double *C, double *grad)
{
    double Q[4][4];
    q_unpack(in->rest, Q);
    int zero = 1;
    for (int k = 0; k < 10; k++)
        if (in->rest[k] != 0.0) zero = 0;
    double E = zero ? 0.0 : iso_energy(Q, in->x, grad);
    *C = E - in->rest[10];
    int finite = isfinite(*C);
    if (grad)
        for (int i = 0; i < 12; i++) finite = finite && isfinite(grad[i]);
    if (zero || !finite) {
        *C = 0.0;
        if (grad) for (int i = 0; i < 12; i++) grad[i] = 0.0;
        return PBD_EVAL_DEGENERATE;
    }
    return PBD_EVAL_OK;
}

/* ∇²C = Q ⊗ I₃: ∂²C/∂x_i^a ∂x_k^b = Q_ik δ_ab (E is quadratic; XPBD's isometric bending
 * has a constant Hessian). Degenerate where eval is. */
static int isometric_hessian(const pbd_eval_input *in, double *H)
{
    double Q[4][4], C;
    q_unpack(in->rest, Q);
    int st = isometric_eval(in, &C, NULL);
    for (int r = 0; r < 12; r++)
        for (int c = 0; c < 12; c++)
            H[12 * r + c] = st == PBD_EVAL_OK && r % 3 == c % 3 ? Q[r / 3][c / 3] : 0.0;
    return st;
}

/* One particle's row and block (pbd_vertex_block_fn): eval's ∇_jC and ∇²_jjC = Q_jj I. */
static int isometric_vertex_block(const pbd_eval_input *in, int j, double *C, double *g,
                                  double *B, int *hess_ok)
{
    double grad[12], Q[4][4];
    int st = isometric_eval(in, C, grad);
    v3_copy(g, grad + 3 * j);
    q_unpack(in->rest, Q);
    for (int k = 0; k < 9; k++) B[k] = k % 4 == 0 ? Q[j][j] : 0.0;
    *hess_ok = st == PBD_EVAL_OK;
    return st;
}

/* Q = 3/(A0 + A1) K Kᵀ from the rest configuration, and E0 = E(rest). */
static void isometric_rest(const pbd_eval_input *in, double *rest)
{
    const double *x = in->x;
    double e[3], a[3], b[3], ae[3], be[3], c1[3], c2[3];
    v3_sub(e, x + 3, x); /* p2 - p1 */
    v3_sub(a, x + 6, x); /* p3 - p1 */
    v3_sub(b, x + 9, x); /* p4 - p1 */
    v3_sub(ae, x + 6, x + 3); /* p3 - p2 */
    v3_sub(be, x + 9, x + 3); /* p4 - p2 */
    v3_cross(c1, e, a);
    v3_cross(c2, e, b);
    double twoA0 = v3_norm(c1), twoA1 = v3_norm(c2);
    double size = fmax(fmax(v3_norm(e), v3_norm(a)), fmax(v3_norm(b), fmax(v3_norm(ae), v3_norm(be))));
    for (int k = 0; k < ISO_N_REST; k++) rest[k] = 0.0;
    double tol = ISO_MIN_REL * size * size;
    if (!(size > ISO_MIN_SIZE) || !(size < INFINITY) || !(twoA0 > tol) || !(twoA1 > tol))
        return; /* degenerate rest state: Q = 0, E0 = 0 */
    /* cot = (u·v) / |u×v|; |u×v| is twice the triangle's area for any pair of its edges */
    double cot_a0 = v3_dot(e, a) / twoA0, cot_b0 = -v3_dot(e, ae) / twoA0;
    double cot_a1 = v3_dot(e, b) / twoA1, cot_b1 = -v3_dot(e, be) / twoA1;
    double K[4] = {cot_b0 + cot_b1, cot_a0 + cot_a1, -cot_a0 - cot_b0, -cot_a1 - cot_b1};
    double c = 3.0 / (0.5 * twoA0 + 0.5 * twoA1);
    int k = 0;
    for (int i = 0; i < 4; i++)
        for (int j = i; j < 4; j++) rest[k++] = c * K[i] * K[j];
    double Q[4][4];
    q_unpack(rest, Q);
    rest[10] = iso_energy(Q, x, NULL);
}

/* Random instances: a rest hinge (flat one time in three, else opening angle in
 * [0.3, π - 0.3]; heights >= 0.3 × edge), Q and E0 from it, and the current positions the
 * rest ones plus noise of 0.3 × edge. Near-degenerate: a sliver or zero-area rest triangle
 * (Q huge or 0), or nearly coincident current points. */
static int isometric_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                            int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    double len = pbd_rng_range(r, 0.5, 2.0);
    double h3 = len * pbd_rng_range(r, 0.3, 1.5), h4 = len * pbd_rng_range(r, 0.3, 1.5);
    double t3 = pbd_rng_range(r, -0.3, 1.3), t4 = pbd_rng_range(r, -0.3, 1.3);
    double phi = pbd_rng_uniform(r) < 1.0 / 3.0 ? M_PI : pbd_rng_range(r, 0.3, M_PI - 0.3);
    int mode = degenerate ? (int)(pbd_rng_next(r) % 3) : -1;
    if (mode == 0) h3 = pbd_rng_uniform(r) < 0.2 ? 0.0 : len * pow(10.0, pbd_rng_range(r, -14, -5));
    double xr[12];
    pbd_hinge_build(r, len, t3, h3, t4, h4, phi, xr);
    pbd_eval_input in = {xr, 4, NULL, NULL, 0};
    isometric_rest(&in, rest);
    double noise = mode == 1 ? 1e-9 * len : 0.3 * len;
    for (int i = 0; i < 12; i++)
        x[i] = (mode == 1 ? xr[i % 3] : xr[i]) + noise * pbd_rng_gaussian(r);
    if (mode == 2) /* p2 onto p1 */
        for (int c = 0; c < 3; c++) x[3 + c] = x[c] + 1e-12 * pbd_rng_gaussian(r);
    return 4;
}

/* Batched kernels: eval inlined into the generic projection (bit for bit the generic path). */
BG_DEFINE_KERNELS(isometric, 4, ISO_N_REST, 0, isometric_eval);

const pbd_constraint_type pbd_bend_isometric_type = {
    .name = "bend_isometric",
    .description = "1/2 sum Q_ij x_i.x_j - E0, Q = 3/(A0+A1) K K^T (Bergou et al. 2006)",
    .unit = "1",
    .arity = 4,
    .n_rest = ISO_N_REST,
    .inequality = 0,
    .internal = 1,
    .eval = isometric_eval,
    .hessian = isometric_hessian,
    .rest = isometric_rest,
    .sample = isometric_sample,
    .project_closed_form = NULL,
    .kernels = &isometric_kernels,
    .vertex_block = isometric_vertex_block,
};
