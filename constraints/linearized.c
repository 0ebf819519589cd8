/* The residual of the linearized constraint, PBD Eq. 3: C(p) + ∇C(p)·Δp, which a projection
 * along ∇C with the scaling of Eq. 8 makes zero. Used to show the review slides' bending
 * step is not such a projection, and printed by diagnostics. */
#include "pbd_constraint.h"

#include <math.h>
#include <stdlib.h>

double pbd_linearized_residual(const pbd_constraint_type *type, const pbd_eval_input *in,
                               const double *dx)
{
    if (!type->eval) return -1.0; /* no scalar C */
    double stack[3 * PBD_SAMPLE_MAX_ARITY];
    double *grad = stack;
    if (in->arity > PBD_SAMPLE_MAX_ARITY) {
        grad = malloc(3 * (size_t)in->arity * sizeof *grad);
        if (!grad) return -1.0;
    }
    double C, result = -1.0;
    if (type->eval(in, &C, grad) == PBD_EVAL_OK) {
        double lin = C;
        for (int i = 0; i < 3 * in->arity; i++) lin += grad[i] * dx[i];
        result = C != 0.0 ? fabs(lin) / fabs(C) : fabs(lin);
        if (!isfinite(result)) result = -1.0;
    }
    if (grad != stack) free(grad);
    return result;
}
