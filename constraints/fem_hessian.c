/* Analytic Hessians ∇²C of the element types where they are tractable (pbd_constraint.h
 * `hessian`; the others — fem_tet_corotated, whose R(F) would need dR/dF, and the normalized
 * strain types — leave it NULL and get central differences of their gradient). Each is the
 * F-space Hessian H_F = ∂²C/∂F∂F mapped to the particles through F's linear dependence on x
 * (fem.h): F_ai = Σ_p x_p,a B_pi with B_pi = (D_m⁻¹)_{p−1,i} for p >= 1, B_0i = −Σ_p B_pi, so
 *   ∂²C/∂x_p,a ∂x_q,b = Σ_ij B_pi B_qj H_F[(a,i),(b,j)].
 * tests/test_materials.c holds each against central differences of eval's gradient. */
#include "fem.h"

#include <string.h>

/* B_pi of the map below (4 × 3), from D_m⁻¹. */
static void map_weights(const double *dm_inv, int cols, double B[4][3])
{
    for (int p = 0; p < 4; p++)
        for (int i = 0; i < 3; i++) B[p][i] = 0.0;
    for (int p = 1; p < cols + 1; p++)
        for (int i = 0; i < cols; i++) {
            B[p][i] = dm_inv[(p - 1) * cols + i];
            B[0][i] -= B[p][i];
        }
}

/* Block (p, q) of the map below: out[3a + b] = Σ_ij B_pi B_qj H_F[(a,i),(b,j)]. */
static void map_block(const double *HF, double B[4][3], int cols, int p, int q, double *out)
{
    const int nF = 3 * cols;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double s = 0.0;
            for (int i = 0; i < cols; i++)
                for (int j = 0; j < cols; j++)
                    s += B[p][i] * B[q][j] * HF[(a * cols + i) * nF + b * cols + j];
            out[3 * a + b] = s;
        }
}

/* H (3n × 3n) from H_F (3·cols square, F row-major: index a·cols + i), n = cols + 1. */
static void map_to_x(const double *HF, const double *dm_inv, int cols, double *H)
{
    const int n = cols + 1, N = 3 * n;
    double B[4][3], blk[9];
    map_weights(dm_inv, cols, B);
    for (int p = 0; p < n; p++)
        for (int q = 0; q < n; q++) {
            map_block(HF, B, cols, p, q, blk);
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) H[(3 * p + a) * N + 3 * q + b] = blk[3 * a + b];
        }
}

static int levi(int i, int j, int k)
{
    return (i - j) * (j - k) * (k - i) / 2; /* ε_ijk for indices in 0..2 */
}

/* snh_tet (rest {D_m⁻¹, V0, component, γ}):
 *   C_H = det F − γ:  ∂²det/∂F_ai ∂F_bj = Σ_kc ε_ijk ε_abc F_ck  (det F = (1/6) ε_ijk ε_abc
 *                     F_ai F_bj F_ck);
 *   C_D = ‖F‖:        ∂²/∂F∂F = (I − F̂ F̂ᵀ)/‖F‖. */
static void snh_HF(const pbd_eval_input *in, double *HF)
{
    double F[9];
    fem_tet_F(in->x, in->rest, F);
    if (in->rest[10] < 0.5) {
        for (int a = 0; a < 3; a++)
            for (int i = 0; i < 3; i++)
                for (int b = 0; b < 3; b++)
                    for (int j = 0; j < 3; j++) {
                        double s = 0.0;
                        for (int k = 0; k < 3; k++)
                            for (int c = 0; c < 3; c++)
                                s += levi(i, j, k) * levi(a, b, c) * F[3 * c + k];
                        HF[(3 * a + i) * 9 + 3 * b + j] = s;
                    }
    } else {
        double nF = sqrt(m_dot(F, F, 9));
        for (int r = 0; r < 9; r++)
            for (int c = 0; c < 9; c++) HF[9 * r + c] = ((r == c) - F[r] * F[c] / (nF * nF)) / nF;
    }
}

int fem_snh_hessian(const pbd_eval_input *in, double *H)
{
    double C, HF[81];
    memset(H, 0, 144 * sizeof *H);
    int st = pbd_snh_tet_type.eval(in, &C, NULL);
    if (st != PBD_EVAL_OK) return st;
    snh_HF(in, HF);
    map_to_x(HF, in->rest, 3, H);
    return PBD_EVAL_OK;
}

/* The vertex block (pbd_vertex_block_fn) of the two above: eval's row and H_F mapped to
 * block (j, j) alone, the same sums. */
int fem_snh_vertex_block(const pbd_eval_input *in, int j, double *C, double *g, double *B,
                         int *hess_ok)
{
    double grad[12], HF[81], W[4][3];
    int st = pbd_snh_tet_type.eval(in, C, grad);
    for (int a = 0; a < 3; a++) g[a] = grad[3 * j + a];
    *hess_ok = st == PBD_EVAL_OK;
    if (st != PBD_EVAL_OK) return st;
    snh_HF(in, HF);
    map_weights(in->rest, 3, W);
    map_block(HF, W, 3, j, j, B);
    return st;
}

/* StVK on F with `cols` columns: P = F S, S = 2μE + λ tr(E) I, E = ½(FᵀF − I). dP/dF column by
 * column: dP = dF S + F dS, dS = 2μ dE + λ tr(dE) I, dE = ½(dFᵀF + FᵀdF). */
static void stvk_dPdF(const double *F, int cols, double mu, double lambda, double *A)
{
    const int nF = 3 * cols;
    double E[9], S[9];
    for (int i = 0; i < cols; i++)
        for (int j = 0; j < cols; j++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++) s += F[k * cols + i] * F[k * cols + j];
            E[i * cols + j] = 0.5 * (s - (i == j));
        }
    double tr = 0.0;
    for (int i = 0; i < cols; i++) tr += E[i * cols + i];
    for (int i = 0; i < cols; i++)
        for (int j = 0; j < cols; j++) S[i * cols + j] = 2.0 * mu * E[i * cols + j] + (i == j) * lambda * tr;
    for (int e = 0; e < nF; e++) { /* dF = the unit matrix of entry e */
        int eb = e / cols, ej = e % cols;
        double dE[9], dS[9], trd = 0.0;
        for (int i = 0; i < cols; i++)
            for (int j = 0; j < cols; j++) /* (dFᵀF)_ij = δ_{i,ej} F_{eb,j} */
                dE[i * cols + j] = 0.5 * ((i == ej) * F[eb * cols + j] + (j == ej) * F[eb * cols + i]);
        for (int i = 0; i < cols; i++) trd += dE[i * cols + i];
        for (int i = 0; i < cols; i++)
            for (int j = 0; j < cols; j++) dS[i * cols + j] = 2.0 * mu * dE[i * cols + j] + (i == j) * lambda * trd;
        for (int a = 0; a < 3; a++)
            for (int j = 0; j < cols; j++) {
                double v = (a == eb) * S[ej * cols + j];
                for (int k = 0; k < cols; k++) v += F[a * cols + k] * dS[k * cols + j];
                A[(a * cols + j) * nF + e] = v;
            }
    }
}

/* The energy constraint C = √(2ΨV): ∇C = V∇Ψ/C, ∇²C = (V ∇²Ψ − ∇C ∇Cᵀ)/C with
 * ∇²Ψ = Bᵀ (dP/dF) B. At rest (C = 0) the Hessian does not exist: degenerate. */
static int energy_hessian(const pbd_constraint_type *t, const pbd_eval_input *in, int cols,
                          double V, double mu, double lambda, double *H)
{
    const int N = 3 * (cols + 1);
    double C, g[12], F[9], A[81];
    memset(H, 0, (size_t)N * N * sizeof *H);
    int st = t->eval(in, &C, g);
    if (st != PBD_EVAL_OK) return st;
    if (!(C > 0.0)) return PBD_EVAL_DEGENERATE;
    if (cols == 3)
        fem_tet_F(in->x, in->rest, F);
    else
        fem_tri_F(in->x, in->rest, F);
    stvk_dPdF(F, cols, mu, lambda, A);
    map_to_x(A, in->rest, cols, H);
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++) H[r * N + c] = (V * H[r * N + c] - g[r] * g[c]) / C;
    return PBD_EVAL_OK;
}

int fem_stvk_hessian(const pbd_eval_input *in, double *H)
{
    const double *r = in->rest;
    return energy_hessian(&pbd_fem_tet_stvk_type, in, 3, r[9], r[10], r[11], H);
}

/* The vertex block of the above: block (j, j) of the same map, then (V h − g gᵀ)/C on it. */
int fem_stvk_vertex_block(const pbd_eval_input *in, int j, double *C, double *g, double *B,
                          int *hess_ok)
{
    const double *r = in->rest;
    double grad[12], F[9], A[81], W[4][3];
    int st = pbd_fem_tet_stvk_type.eval(in, C, grad);
    for (int a = 0; a < 3; a++) g[a] = grad[3 * j + a];
    *hess_ok = st == PBD_EVAL_OK && *C > 0.0;
    if (!*hess_ok) return st;
    fem_tet_F(in->x, r, F);
    stvk_dPdF(F, 3, r[10], r[11], A);
    map_weights(r, 3, W);
    map_block(A, W, 3, j, j, B);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) B[3 * a + b] = (r[9] * B[3 * a + b] - g[a] * g[b]) / *C;
    return st;
}

int fem_triangle_hessian(const pbd_eval_input *in, double *H)
{
    const double *r = in->rest;
    return energy_hessian(&pbd_fem_triangle_type, in, 2, r[4], r[5], r[6], H);
}

/* strain (unnormalized): C = f_i·f_j − δ_ij is bilinear in F:
 *   ∂²C/∂F_ak ∂F_bl = δ_ab (δ_ki δ_lj + δ_kj δ_li), constant. */
static int strain_hessian(const pbd_constraint_type *t, const pbd_eval_input *in, int cols, int i,
                          int j, double *H)
{
    const int N = 3 * (cols + 1), nF = 3 * cols;
    double C, HF[81] = {0};
    memset(H, 0, (size_t)N * N * sizeof *H);
    int st = t->eval(in, &C, NULL);
    if (st != PBD_EVAL_OK) return st;
    for (int a = 0; a < 3; a++) {
        HF[(a * cols + i) * nF + a * cols + j] += 1.0;
        HF[(a * cols + j) * nF + a * cols + i] += 1.0;
    }
    map_to_x(HF, in->rest, cols, H);
    return PBD_EVAL_OK;
}

int fem_strain_tet_hessian(const pbd_eval_input *in, double *H)
{
    static const int pi[6] = {0, 1, 2, 0, 0, 1}, pj[6] = {0, 1, 2, 1, 2, 2};
    int c = (int)in->rest[9];
    if (c < 0 || c > 5) c = 0;
    return strain_hessian(&pbd_strain_tet_type, in, 3, pi[c], pj[c], H);
}

int fem_strain_triangle_hessian(const pbd_eval_input *in, double *H)
{
    int c = (int)in->rest[4];
    if (c < 0 || c > 2) c = 0;
    return strain_hessian(&pbd_strain_triangle_type, in, 2, c == 2 ? 0 : c, c == 2 ? 1 : c, H);
}
