/* Eigen-decomposition of a small symmetric matrix by the cyclic Jacobi method (Golub & Van
 * Loan, "Matrix Computations", 4th ed., Sec. 8.5): plane rotations zero the off-diagonal
 * entries one after the other until their norm is below 1e-15 of the matrix's. Every sweep
 * reduces the off-diagonal norm, convergence is quadratic, and the method never fails on
 * finite input (no tolerance to miss, no error handler: it stops after 64 sweeps at the
 * latest with what it has). Used for the inertia tensor of momentum-conserving damping
 * (3×3) and the projection of element Hessians to positive semi-definite ones. */
#include "pbd.h"

#include <math.h>

int pbd_sym_eigen(int n, double *A, double *evals, double *V)
{
    if (n <= 0 || n > PBD_SYM_EIGEN_MAX) return -1;
    for (int k = 0; k < n * n; k++)
        if (!isfinite(A[k])) return -1;
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) V[r * n + c] = r == c;
    double total = 0.0;
    for (int k = 0; k < n * n; k++) total += A[k] * A[k];
    for (int sweep = 0; sweep < 64; sweep++) {
        double off = 0.0;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++) off += 2.0 * A[p * n + q] * A[p * n + q];
        if (!(off > 1e-30 * total)) break;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++) {
                double apq = A[p * n + q];
                if (apq == 0.0) continue;
                /* the rotation (c, s) that zeroes A_pq (Golub & Van Loan Alg. 8.5.1) */
                double theta = (A[q * n + q] - A[p * n + p]) / (2.0 * apq);
                double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(1.0 + theta * theta));
                double c = 1.0 / sqrt(1.0 + t * t), s = t * c;
                for (int k = 0; k < n; k++) { /* A <- A J (columns p, q) */
                    double akp = A[k * n + p], akq = A[k * n + q];
                    A[k * n + p] = c * akp - s * akq;
                    A[k * n + q] = s * akp + c * akq;
                }
                for (int k = 0; k < n; k++) { /* A <- Jᵀ A (rows p, q) */
                    double apk = A[p * n + k], aqk = A[q * n + k];
                    A[p * n + k] = c * apk - s * aqk;
                    A[q * n + k] = s * apk + c * aqk;
                }
                A[p * n + q] = A[q * n + p] = 0.0;
                for (int k = 0; k < n; k++) { /* V <- V J */
                    double vkp = V[k * n + p], vkq = V[k * n + q];
                    V[k * n + p] = c * vkp - s * vkq;
                    V[k * n + q] = s * vkp + c * vkq;
                }
            }
    }
    for (int k = 0; k < n; k++) evals[k] = A[k * n + k];
    return 0;
}

int pbd_sym_project_psd(int n, double *A, double floor)
{
    double B[PBD_SYM_EIGEN_MAX * PBD_SYM_EIGEN_MAX], V[PBD_SYM_EIGEN_MAX * PBD_SYM_EIGEN_MAX],
        ev[PBD_SYM_EIGEN_MAX];
    if (n <= 0 || n > PBD_SYM_EIGEN_MAX) return -1;
    for (int k = 0; k < n * n; k++) B[k] = A[k];
    if (pbd_sym_eigen(n, B, ev, V) != 0) return -1;
    int clamped = 0;
    for (int k = 0; k < n; k++)
        if (ev[k] < floor) {
            ev[k] = floor;
            clamped++;
        }
    if (!clamped) return 0;
    for (int r = 0; r < n; r++)
        for (int c = r; c < n; c++) {
            double s = 0.0;
            for (int k = 0; k < n; k++) s += V[r * n + k] * ev[k] * V[c * n + k];
            A[r * n + c] = A[c * n + r] = s;
        }
    return clamped;
}
