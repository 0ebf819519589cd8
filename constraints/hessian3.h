/* 3×3 blocks for the types' analytic Hessians ∇²C (private to constraints/). A Hessian is
 * 3·arity × 3·arity, row-major: H[(3i+a)·3·arity + 3k+b] = ∂²C / ∂x_i^a ∂x_k^b. */
#ifndef PBD_HESSIAN3_H
#define PBD_HESSIAN3_H

#include "vec3.h"

/* m = [v]×, the matrix with m u = v × u. */
static inline void m3_skew(double *m, const double *v, double s)
{
    m[0] = 0.0;       m[1] = -s * v[2]; m[2] = s * v[1];
    m[3] = s * v[2];  m[4] = 0.0;       m[5] = -s * v[0];
    m[6] = -s * v[1]; m[7] = s * v[0];  m[8] = 0.0;
}

/* m = s (I - n nᵀ): the derivative of a unit vector n = d/|d| is (I - n nᵀ)/|d|. */
static inline void m3_projector(double *m, const double *n, double s)
{
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) m[3 * a + b] = s * ((a == b) - n[a] * n[b]);
}

/* r = a b (3×3 products; r may not alias a or b) */
static inline void m3_mul(double *r, const double *a, const double *b)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}

/* r += s u vᵀ */
static inline void m3_add_outer(double *r, double s, const double *u, const double *v)
{
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) r[3 * a + b] += s * u[a] * v[b];
}

/* H (n×n, n = 3·arity) block (i, k) += s m, and with transpose != 0 block (k, i) += s mᵀ. */
static inline void h3_add_block(double *H, int n, int i, int k, double s, const double *m,
                                int transpose)
{
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            H[(3 * i + a) * n + 3 * k + b] += s * m[3 * a + b];
            if (transpose) H[(3 * k + b) * n + 3 * i + a] += s * m[3 * a + b];
        }
}

/* A function of y_j = p_j - p_0 (j = 1 … 3) only: with G its 9×9 Hessian in (y1, y2, y3),
 * the 12×12 Hessian in (p0, p1, p2, p3) is Tᵀ G T, T = [-1 1 0 0; -1 0 1 0; -1 0 0 1] ⊗ I:
 *   H_jk = G_jk,  H_0k = -Σ_j G_jk,  H_j0 = -Σ_k G_jk,  H_00 = Σ_jk G_jk. */
static inline void h3_expand_relative(const double *G, double *H)
{
    for (int r = 0; r < 12; r++)
        for (int c = 0; c < 12; c++) {
            int i = r / 3, a = r % 3, k = c / 3, b = c % 3;
            double s = 0.0;
            for (int j = 1; j <= 3; j++) {
                if (i != 0 && i != j) continue;
                for (int l = 1; l <= 3; l++) {
                    if (k != 0 && k != l) continue;
                    double g = G[(3 * (j - 1) + a) * 9 + 3 * (l - 1) + b];
                    s += (i == 0 ? -1.0 : 1.0) * (k == 0 ? -1.0 : 1.0) * g;
                }
            }
            H[12 * r + c] = s;
        }
}

#endif
