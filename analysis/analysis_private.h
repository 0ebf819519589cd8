/* Private to analysis/. */
#ifndef PBD_ANALYSIS_PRIVATE_H
#define PBD_ANALYSIS_PRIVATE_H

#include "pbd_analysis.h"

#include <math.h>

/* 1 when every a[0..n) is finite. */
static inline int all_finite(const double *a, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(a[i])) return 0;
    return 1;
}

/* Euclidean norm of a[0..n). */
static inline double norm2(const double *a, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += a[i] * a[i];
    return sqrt(s);
}

/* The least-squares slope of ly against lx over m >= 2 points (the Taylor tests' order). */
static inline double pbd_fit_slope(const double *lx, const double *ly, int m)
{
    double mx = 0.0, my = 0.0, sxy = 0.0, sxx = 0.0;
    for (int k = 0; k < m; k++) mx += lx[k] / m, my += ly[k] / m;
    for (int k = 0; k < m; k++) {
        sxy += (lx[k] - mx) * (ly[k] - my);
        sxx += (lx[k] - mx) * (lx[k] - mx);
    }
    return sxy / sxx;
}

/* Allocate r's per-sample arrays for N regular and M near-degenerate samples (gradcheck_result.c);
 * PBD_ENOMEM (r freed) when memory runs out. */
pbd_status pbd_gradcheck_result_alloc(pbd_gradcheck_result *r, int N, int M);

/* The checker for a type without a scalar C (eval NULL, project_goal set; goalcheck.c):
 * fills r like pbd_gradcheck_type, with per-sample rel_err the largest of its relative
 * errors, order NaN (no Taylor test) and momentum_errs. */
pbd_status pbd_goalcheck_type(const pbd_constraint_type *type, const pbd_gradcheck_options *opt,
                              pbd_gradcheck_result *r);
/* The checker for orientation types (n_orient > 0, the rods; orientcheck.c): fills r like
 * pbd_gradcheck_type, the orientations differenced on SO(3) (q ← exp(±h e_a/2) q). */
pbd_status pbd_orientcheck_type(const pbd_constraint_type *type,
                                const pbd_gradcheck_options *opt, pbd_gradcheck_result *r);
/* FNV-1a of a type's name: each type draws from (seed, name) (gradcheck.c). */
uint64_t pbd_gradcheck_name_hash(const char *s);
/* One regular sample's verdict from its FD error e and Taylor order o: non-finite (e or o < 0),
 * degenerate (NaN: a perturbed point was too close to call) or checked (its e and o recorded,
 * o appended to orders). Returns 1 when checked. */
int pbd_gradcheck_record(pbd_gradcheck_result *r, int s, double e, double o, double *orders,
                         int *n_orders);
/* A degenerate sample's class before its FD check: non-finite (finite = 0) or skipped
 * (eval_ok = 0, the type reported the point degenerate). Returns 1 when it is to be checked. */
int pbd_gradcheck_degenerate_sample(pbd_gradcheck_result *r, int s, int finite, int eval_ok);
/* A degenerate sample's FD error e: non-finite (e < 0), too close to call (NaN) or checked
 * (e recorded, the maximum raised). Returns 1 when checked. */
int pbd_gradcheck_degenerate_record(pbd_gradcheck_result *r, int s, double e);

#endif
