/* What the element types share beyond fem.h's inline helpers: the rotation of the polar
 * decomposition of a 3×3 matrix through GSL's SVD, used by the corotated tet
 * (fem_tet_corotated) and shape matching (shape_match); the Lamé parameters (public). */
#include "fem.h"

#include <gsl/gsl_linalg.h>

int fem_polar_rotation(const double *A, double *R)
{
    int finite = 1;
    for (int k = 0; k < 9; k++) finite &= isfinite(A[k]) != 0;
    if (!finite) {
        for (int k = 0; k < 9; k++) R[k] = k % 4 == 0 ? 1.0 : 0.0;
        return PBD_EVAL_DEGENERATE;
    }
    /* A = U Σ Vᵀ by Golub–Reinsch (gsl_linalg_SV_decomp) on stack memory; Σ is sorted in
     * decreasing order, so column 2 belongs to the smallest one. Not the one-sided Jacobi
     * variant: on 5·10⁶ random 3×3 matrices it missed its tolerance 5 times, and GSL's error
     * handler then aborts the program; Golub–Reinsch never did. R does not depend on the
     * scale of A: A is scaled to a largest entry of 1, entries below 1e-100 of it set to
     * zero, so that the iteration never meets overflow or subnormal numbers. */
    double U[9], V[9], S[3], work[3], scale = 0.0;
    for (int k = 0; k < 9; k++) scale = fmax(scale, fabs(A[k]));
    for (int k = 0; k < 9; k++) {
        U[k] = scale > 0.0 ? A[k] / scale : 0.0;
        if (fabs(U[k]) < 1e-100) U[k] = 0.0;
    }
    gsl_matrix_view Um = gsl_matrix_view_array(U, 3, 3);
    gsl_matrix_view Vm = gsl_matrix_view_array(V, 3, 3);
    gsl_vector_view Sv = gsl_vector_view_array(S, 3), Wv = gsl_vector_view_array(work, 3);
    gsl_linalg_SV_decomp(&Um.matrix, &Vm.matrix, &Sv.vector, &Wv.vector);
    /* A rank-deficient A leaves zero columns in U: complete U to an orthonormal basis. */
    double u[3][3];
    for (int j = 0; j < 3; j++)
        for (int r = 0; r < 3; r++) u[j][r] = U[3 * r + j];
    double n0 = v3_norm(u[0]);
    if (!(n0 > 0.5)) { /* A = 0 */
        u[0][0] = 1.0, u[0][1] = u[0][2] = 0.0;
    }
    if (!(v3_norm(u[1]) > 0.5)) { /* rank 1: any unit vector perpendicular to u0 */
        double e[3] = {0, 0, 0};
        int k = fabs(u[0][0]) < 0.6 ? 0 : 1;
        e[k] = 1.0;
        v3_axpy(e, -v3_dot(e, u[0]), u[0]);
        v3_scale(u[1], e, 1.0 / v3_norm(e));
    }
    if (!(v3_norm(u[2]) > 0.5)) v3_cross(u[2], u[0], u[1]); /* rank 2 */
    double v[3][3];
    for (int j = 0; j < 3; j++)
        for (int r = 0; r < 3; r++) v[j][r] = V[3 * r + j];
    /* R = Σ_j d_j u_j v_jᵀ with d = (1, 1, det(U)det(V)) */
    double Ur[9], Vr[9];
    for (int j = 0; j < 3; j++)
        for (int r = 0; r < 3; r++) Ur[3 * r + j] = u[j][r], Vr[3 * r + j] = v[j][r];
    double d2 = m3_det(Ur) * m3_det(Vr) < 0.0 ? -1.0 : 1.0;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            R[3 * r + c] = u[0][r] * v[0][c] + u[1][r] * v[1][c] + d2 * u[2][r] * v[2][c];
    return PBD_EVAL_OK;
}

void fem_singular_values(const double *F, int cols, double *sigma)
{
    double U[9], V[9], work[3], scale = 0.0;
    for (int k = 0; k < 3 * cols; k++) scale = fmax(scale, fabs(F[k]));
    if (!(scale > 0.0)) {
        for (int k = 0; k < cols; k++) sigma[k] = 0.0;
        return;
    }
    for (int k = 0; k < 3 * cols; k++) U[k] = fabs(F[k]) < 1e-100 * scale ? 0.0 : F[k] / scale;
    gsl_matrix_view Um = gsl_matrix_view_array(U, 3, (size_t)cols);
    gsl_matrix_view Vm = gsl_matrix_view_array(V, (size_t)cols, (size_t)cols);
    gsl_vector_view Sv = gsl_vector_view_array(sigma, (size_t)cols);
    gsl_vector_view Wv = gsl_vector_view_array(work, (size_t)cols);
    gsl_linalg_SV_decomp(&Um.matrix, &Vm.matrix, &Sv.vector, &Wv.vector); /* as above */
    for (int k = 0; k < cols; k++) sigma[k] *= scale;
    if (cols == 3 && m3_det(F) < 0.0) sigma[2] = -sigma[2];
}

int pbd_lame(double youngs_modulus, double poisson_ratio, double *mu, double *lambda)
{
    return fem_lame(youngs_modulus, poisson_ratio, mu, lambda);
}
