/* ∇²C of one constraint: the type's analytic Hessian, or central differences of its analytic
 * gradient. Shared by the Newton reference (solver/newton/newton_system.c) and the solver families
 * (solver/vbd/, VBD and AVBD's local Hessians). */
#include "solver_private.h"

#include <math.h>

#define FD_REL_STEP 6e-6 /* central differences of ∇C: truncation ≈ rounding ≈ 1e-11 */

/* The differences' step: FD_REL_STEP of the constraint's size (its particles' largest
 * distance from their centre), or of 1 m when that is 0. */
static double fd_step(const pbd_eval_input *in, const double *xl)
{
    int a = in->arity;
    double centre[3] = {0, 0, 0}, size = 0.0;
    for (int j = 0; j < a; j++)
        for (int k = 0; k < 3; k++) centre[k] += xl[3 * j + k] / a;
    for (int j = 0; j < a; j++) {
        double d2 = 0.0;
        for (int k = 0; k < 3; k++) d2 += pow(xl[3 * j + k] - centre[k], 2);
        size = fmax(size, sqrt(d2));
    }
    return FD_REL_STEP * (size > 0.0 ? size : 1.0);
}

/* ∇C at xl ± eps in coordinate col into gp, gm (xl restored); 1 when either is degenerate. */
static int fd_column(const pbd_constraint_type *type, pbd_eval_input *in, double *xl, int col,
                     double eps, double *gp, double *gm)
{
    double keep = xl[col], C;
    xl[col] = keep + eps;
    int s1 = type->eval(in, &C, gp);
    xl[col] = keep - eps;
    int s2 = type->eval(in, &C, gm);
    xl[col] = keep;
    return s1 != PBD_EVAL_OK || s2 != PBD_EVAL_OK;
}

int pbd_constraint_hessian(const pbd_constraint_type *type, pbd_eval_input *in, double *xl,
                           double *gp, double *gm, double *H)
{
    if (type->hessian) return type->hessian(in, H) != PBD_EVAL_OK;
    int n3 = 3 * in->arity;
    double eps = fd_step(in, xl);
    for (int col = 0; col < n3; col++) {
        if (fd_column(type, in, xl, col, eps, gp, gm)) return 1;
        for (int row = 0; row < n3; row++)
            H[(size_t)row * n3 + col] = (gp[row] - gm[row]) / (2.0 * eps);
    }
    for (int row = 0; row < n3; row++)
        for (int col = row + 1; col < n3; col++) {
            double avg = 0.5 * (H[(size_t)row * n3 + col] + H[(size_t)col * n3 + row]);
            H[(size_t)row * n3 + col] = H[(size_t)col * n3 + row] = avg;
        }
    return 0;
}

int pbd_constraint_hessian_block(const pbd_constraint_type *type, pbd_eval_input *in, int j,
                                 double *xl, double *gp, double *gm, double *H, double *B)
{
    int n3 = 3 * in->arity;
    if (type->hessian) {
        if (type->hessian(in, H) != PBD_EVAL_OK) return 1;
        for (int r = 0; r < 3; r++)
            for (int q = 0; q < 3; q++) B[3 * r + q] = H[(size_t)(3 * j + r) * n3 + 3 * j + q];
        return 0;
    }
    double eps = fd_step(in, xl);
    for (int q = 0; q < 3; q++) { /* the columns of particle j, as above */
        if (fd_column(type, in, xl, 3 * j + q, eps, gp, gm)) return 1;
        for (int r = 0; r < 3; r++) B[3 * r + q] = (gp[3 * j + r] - gm[3 * j + r]) / (2.0 * eps);
    }
    for (int r = 0; r < 3; r++)
        for (int q = r + 1; q < 3; q++) B[3 * r + q] = B[3 * q + r] =
            0.5 * (B[3 * r + q] + B[3 * q + r]);
    return 0;
}
