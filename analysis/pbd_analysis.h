/* pbdlab — analysis: the gradient checker (and later HDF5 → gnuplot extraction).
 * Public header of analysis/.
 *
 * The checker takes any pbd_constraint_type (from the registry or defined by a test),
 * draws random instances with the type's own sample(), and compares the analytic ∇C
 * with central finite differences, runs a Taylor-remainder test, checks momentum
 * conservation for internal types (PBD Eq. 1–2) and checks that near-degenerate
 * configurations stay finite through eval and the generic projection (PBD Eq. 6–9). */
#ifndef PBD_ANALYSIS_H
#define PBD_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "solver/pbd.h"

/* ---- gradient checker -------------------------------------------------------------- */

typedef struct pbd_gradcheck_options {
    int samples;             /* regular samples per type (sample(…, degenerate = 0, …)) */
    int degenerate_samples;  /* near-degenerate samples (sample(…, 1, …)) */
    uint64_t seed;           /* each type draws from seed mixed with its name */
    double max_rel_err;      /* PASS needs max_rel_err <= this (1e-6) */
    double min_taylor_order; /* PASS needs the median Taylor order >= this (1.8) */
    double momentum_tol;     /* PASS needs relative |Σ∇C|, |Σ x×∇C| <= this (1e-8) */
} pbd_gradcheck_options;

/* samples 1000, degenerate_samples 250, seed 1, thresholds as above. */
pbd_gradcheck_options pbd_gradcheck_options_default(void);

enum { PBD_GC_MOMENTUM_NA = 0, PBD_GC_MOMENTUM_OK = 1, PBD_GC_MOMENTUM_FAIL = 2 };
const char *pbd_gradcheck_momentum_name(int momentum); /* "n/a", "ok", "FAIL" */

/* Per-sample status, as stored in the HDF5 file. */
enum {
    PBD_GC_SAMPLE_OK = 0,
    PBD_GC_SAMPLE_DEGENERATE = 1, /* eval returned PBD_EVAL_DEGENERATE: skipped */
    PBD_GC_SAMPLE_NONFINITE = 2,  /* NaN/Inf in C, ∇C or the projected positions: FAIL */
    PBD_GC_SAMPLE_INVALID = 3     /* sample() broke its contract (arity outside 1..64 or
                                     not the type's own, aux index out of range): FAIL */
};

typedef struct pbd_gradcheck_result {
    const pbd_constraint_type *type;
    /* regular samples */
    int samples;
    int checked;          /* eval returned OK and everything was finite */
    int skipped;          /* eval returned PBD_EVAL_DEGENERATE */
    int nonfinite;        /* regular samples with a non-finite value */
    int invalid;          /* samples (both kinds) that broke sample()'s contract */
    double max_rel_err;   /* max over checked samples and coordinates (NaN if none) */
    double taylor_order;  /* median over checked samples; INFINITY = "exact" */
    int taylor_exact;     /* samples whose Taylor remainder stayed at rounding level */
    int momentum;         /* PBD_GC_MOMENTUM_* */
    double momentum_err;  /* max relative |Σ_i ∇_i C| and |Σ_i x_i × ∇_i C| (0 if n/a) */
    /* near-degenerate samples: only finiteness decides; FD errors kept apart */
    int degenerate_samples;
    int degenerate_skipped;   /* eval returned PBD_EVAL_DEGENERATE (expected, fine) */
    int degenerate_nonfinite; /* NaN/Inf anywhere: FAIL */
    double degenerate_max_rel_err; /* FD error where eval said OK; informative only */
    /* the analytic Hessian (type->hessian; has_hessian = 0 without one) on the regular
     * samples whose gradient was checked, against central differences of the analytic
     * gradient (analysis/hessian_check.c): entry-wise max_rel_err and the Taylor order of
     * the gradient's remainder, with the same thresholds as the gradient */
    int has_hessian;
    int hessian_checked;        /* samples where H and every perturbed gradient were defined */
    int hessian_nonfinite;      /* non-finite H or gradient: FAIL */
    double hessian_max_rel_err; /* NaN if none checked */
    double hessian_taylor_order;/* median; INFINITY = "exact" (constant Hessian) */
    int pass;
    /* per sample (owned; pbd_gradcheck_result_free releases them) */
    double *rel_err;      /* [samples] max over coordinates; NaN when not checked */
    double *order;        /* [samples] fitted Taylor order; INFINITY exact; NaN not checked */
    double *momentum_errs;/* [samples] NaN when n/a or not checked */
    int8_t *status;       /* [samples] PBD_GC_SAMPLE_* */
    double *degenerate_rel_err; /* [degenerate_samples] NaN when not evaluated */
    int8_t *degenerate_status;  /* [degenerate_samples] PBD_GC_SAMPLE_* */
    double *hessian_rel_err;    /* [samples] NaN when not checked (or no Hessian) */
    double *hessian_order;      /* [samples] NaN when not checked (or no Hessian) */
} pbd_gradcheck_result;

/* Check one type. Returns PBD_OK (the verdict is r->pass) or PBD_ENOMEM / PBD_EINVAL
 * (type without eval or sample; bad options) with pbd_last_error() set. */
pbd_status pbd_gradcheck_type(const pbd_constraint_type *type, const pbd_gradcheck_options *opt,
                              pbd_gradcheck_result *r);
void pbd_gradcheck_result_free(pbd_gradcheck_result *r);

/* The table line, exactly
 *   <name> samples=<N> max_rel_err=<x> taylor_order=<y|exact> momentum=<ok|n/a|FAIL> PASS|FAIL
 * and for a type with an analytic Hessian, before the verdict,
 *   hessian_max_rel_err=<x> hessian_taylor_order=<y|exact>
 * (no newline). Returns what snprintf returns. */
int pbd_gradcheck_format_line(char *buf, size_t size, const pbd_gradcheck_result *r);

/* ---- formula variants of the bending projection ----------------------------------- */

typedef struct pbd_variant_stats {
    double median, min, max;
} pbd_variant_stats;

typedef struct pbd_bend_variants_result {
    int samples;  /* hinges where both steps and all evaluations were defined */
    int skipped;  /* hinges where one of them reported PBD_EVAL_DEGENERATE */
    pbd_variant_stats eq28_linearized, slides_linearized; /* |C + ∇C·Δp| / |C| (PBD Eq. 3) */
    pbd_variant_stats eq28_step_ratio, slides_step_ratio; /* |C(p + Δp)| / |C(p)| */
} pbd_bend_variants_result;

/* One step (k = 1, inverse masses in [0.1, 10]) of PBD Eq. 28 (the dihedral type's closed
 * form) and of the review slides' variant on opt->samples random regular hinges drawn by
 * the dihedral type's sample() (analysis/bend_variants.c). */
pbd_status pbd_bend_variants(const pbd_gradcheck_options *opt, pbd_bend_variants_result *r);

#endif
