/* Private to analysis/. */
#ifndef PBD_ANALYSIS_PRIVATE_H
#define PBD_ANALYSIS_PRIVATE_H

#include "pbd_analysis.h"

/* The checker for a type without a scalar C (eval NULL, project_goal set; goalcheck.c):
 * fills r like pbd_gradcheck_type, with per-sample rel_err the largest of its relative
 * errors, order NaN (no Taylor test) and momentum_errs. */
pbd_status pbd_goalcheck_type(const pbd_constraint_type *type, const pbd_gradcheck_options *opt,
                              pbd_gradcheck_result *r);
/* FNV-1a of a type's name: each type draws from (seed, name) (gradcheck.c). */
uint64_t pbd_gradcheck_name_hash(const char *s);

#endif
