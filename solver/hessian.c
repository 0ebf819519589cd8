/* ∇²C of one constraint: the type's analytic Hessian, or central differences of its analytic
 * gradient. Shared by the Newton reference (solver/newton/newton_system.c) and the solver families
 * (solver/vbd/, VBD and AVBD's local Hessians). */
#include "solver_private.h"

#include <math.h>

#define FD_REL_STEP 6e-6 /* central differences of ∇C: truncation ≈ rounding ≈ 1e-11 */

int pbd_constraint_hessian(const pbd_constraint_type *type, pbd_eval_input *in, double *xl,
                           double *gp, double *gm, double *H)
{
    if (type->hessian) return type->hessian(in, H) != PBD_EVAL_OK;
    int a = in->arity, n3 = 3 * a;
    double centre[3] = {0, 0, 0}, size = 0.0, C;
    for (int j = 0; j < a; j++)
        for (int k = 0; k < 3; k++) centre[k] += xl[3 * j + k] / a;
    for (int j = 0; j < a; j++) {
        double d2 = 0.0;
        for (int k = 0; k < 3; k++) d2 += pow(xl[3 * j + k] - centre[k], 2);
        size = fmax(size, sqrt(d2));
    }
    double eps = FD_REL_STEP * (size > 0.0 ? size : 1.0);
    for (int col = 0; col < n3; col++) {
        double keep = xl[col];
        xl[col] = keep + eps;
        int s1 = type->eval(in, &C, gp);
        xl[col] = keep - eps;
        int s2 = type->eval(in, &C, gm);
        xl[col] = keep;
        if (s1 != PBD_EVAL_OK || s2 != PBD_EVAL_OK) return 1;
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
