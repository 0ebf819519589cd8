/* Private to analysis/: the Hessian check of one sample (analysis/hessian_check.c), used by
 * the gradient checker for the types with an analytic `hessian`. */
#ifndef PBD_HESSIAN_CHECK_H
#define PBD_HESSIAN_CHECK_H

#include "pbd_analysis.h"

/* Check type->hessian at in->x (L: the sample's length scale, tol: the relative tolerance
 * that sets the FD floor) against central differences of type->eval's gradient: *rel_err the
 * largest relative error over the (3·arity)² entries, *order the Taylor order of the
 * gradient's remainder (INFINITY: at rounding level). Returns PBD_EVAL_OK,
 * PBD_EVAL_DEGENERATE (hessian, eval or a perturbed point said so: not checked), -1 on a
 * non-finite value, -2 out of memory. */
int pbd_hessian_check_sample(const pbd_constraint_type *type, const pbd_eval_input *in,
                             double L, double tol, pbd_rng *rng, double *rel_err, double *order);
/* Median of the non-NaN values (reorders them); NAN when there are none. */
double pbd_hessian_median(double *values, int n);

#endif
