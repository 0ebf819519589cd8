/* pbdlab — analysis: the gradient checker, central finite differences (and later HDF5 →
 * gnuplot extraction).
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

#ifdef __cplusplus
extern "C" {
#endif

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

/* ---- the elastica (analysis/elastica.c) ---------------------------------------------- */

/* A horizontal cantilever of length L clamped at one end under its own weight w per length,
 * at large deflection (inextensible Euler–Bernoulli: θ'' = −Λ (1 − s̃) cos θ, θ(0) = 0,
 * θ'(1) = 0), for the load Λ = w L³/(E I) in [0, 1e4]: the tip's deflection δ/L (downward
 * positive; δ/L → Λ/8, i.e. wL⁴/(8EI), for small loads), its horizontal reach x/L and
 * θ'(0) L (any may be NULL). By shooting with GSL's rk8pd and Brent's root finder;
 * PBD_EINVAL for a load outside the range, PBD_ENUMERIC when the shooting fails. */
pbd_status pbd_elastica_cantilever(double load, double *deflection, double *reach,
                                   double *root_curvature);

/* ---- a planar chain of rigid links (analysis/planar_chain.c) ------------------------- */

#define PBD_CHAIN_MAX 8
/* n links (mass kg, length m, inertia about the centre kg m^2, each > 0) pinned end to end,
 * link 0 to a fixed pivot, released at rest at the angles theta0 (rad, from the downward
 * vertical) under gravity g (m/s^2): the angles at t_end k/samples, k = 1..samples (samples × n
 * doubles), from the Lagrangian equations integrated by GSL's rk8pd at 1e-13. PBD_EINVAL for
 * bad sizes, PBD_ENUMERIC when the integrator fails. */
pbd_status pbd_planar_chain(int n, const double *mass, const double *length,
                            const double *inertia, double g, const double *theta0,
                            double t_end, int samples, double *theta);

/* ---- central finite differences (analysis/fd_gradient.c) ------------------------------ */

/* A function f: R^n -> R^m for pbd_fd_jacobian: writes f(x) (m doubles) and returns
 * PBD_EVAL_OK or PBD_EVAL_DEGENERATE. m = 1 for a constraint's C, m = n for its ∇C. */
typedef int (*pbd_fd_fn)(void *user, const double *x, double *f);

enum {
    PBD_FD_OK = 0,
    PBD_FD_DEGENERATE = 1, /* an evaluation at a perturbed point returned PBD_EVAL_DEGENERATE */
    PBD_FD_NONFINITE = 2,  /* an evaluation at a perturbed point was NaN/Inf (checked first) */
    PBD_FD_ENOMEM = 3
};

/* Central differences of f at x (n coordinates, m outputs), step h in every coordinate:
 *   jac[i·m + k] = (f_k(x + h e_i) - f_k(x - h e_i)) / ((x_i + h) - (x_i - h)),
 * row i the derivatives by x_i (m = 1: the gradient; f = ∇C: the Hessian). The divisor is
 * the step actually taken, exact in floating point. work holds n + 2m doubles. Stops at
 * the first coordinate whose evaluations are non-finite or degenerate (rows from there on
 * unspecified). Returns PBD_FD_OK, PBD_FD_NONFINITE or PBD_FD_DEGENERATE. */
int pbd_fd_jacobian(pbd_fd_fn f, void *user, const double *x, int n, int m, double h,
                    double *jac, double *work);

/* L, a configuration's length scale: the largest distance of a particle from the centroid.
 * A single particle has no size of its own; the only length in its C lives in rest (the
 * target, the plane point), and |C| / |∇C| measures it: |p - t| for C = |p - t|, the
 * distance to the plane for (p - q)·n. It is kept within [1e-3, 1] · max(1, |x|) so that a
 * particle almost on its target or plane does not shrink the step into rounding. C and
 * grad are type->eval's at in->x (grad is read for arity 1 only). Never 0 (1 instead). */
double pbd_fd_length_scale(const pbd_eval_input *in, double C, const double *grad);

/* The FD gradient fd (3·arity doubles) of type's C at in->x, by pbd_fd_jacobian with
 *
 *   step h = ε^(1/3) · L,  L = pbd_fd_length_scale(in, C, grad),
 *
 * the same h for every coordinate. The central difference's error is truncation +
 * rounding, E(h) ≈ h² |C'''| / 6 + u K / h, with |C'''| ~ G / L² (G = |∇C|∞; the gradient
 * changes on the configuration's length scale L) and u K the rounding of one evaluation of
 * C (u a few ε; K = |C| + Σ_i |x_i ∂C/∂x_i|, the magnitude of the terms C is computed from,
 * not |C|, which may be ~0). The two balance at h ~ (ε K L² / G)^(1/3) ~ ε^(1/3) L, where
 * E ~ ε^(2/3) (G + K / L): with ε^(2/3) ≈ 3.7e-11 this is the best any central difference
 * can do. L rather than max(1, |x|), because in SI units a 1 cm cloth and a 10 m one must
 * both be resolved.
 *
 * C and grad are type->eval's result at in->x (which must have returned PBD_EVAL_OK); grad
 * is the analytic gradient under test. If max_rel_err != NULL it receives the gradient
 * checker's error metric, the largest over coordinates of
 *   |g_a - g_fd| / max(|g_a|, |g_fd|, floor),  floor = E / tol,
 *   E = 10 · ε^(2/3) · (G + K / L),
 * E the FD's expected absolute error with a margin of 10 for the constants above. A
 * component below the floor (~4e-4 of the gradient for tol = 1e-6) cannot be resolved by a
 * central difference to the relative tolerance tol; it is measured against the floor, so
 * its absolute error must stay below E. A wrong gradient (a sign, a factor, a missing term)
 * is off by O(G) ≫ E and fails by orders of magnitude. Returns PBD_FD_* (max_rel_err is
 * written only with PBD_FD_OK); arities above PBD_SAMPLE_MAX_ARITY allocate. */
int pbd_fd_gradient(const pbd_constraint_type *type, const pbd_eval_input *in, double C,
                    const double *grad, double tol, double *fd, double *max_rel_err);

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

#ifdef __cplusplus
}
#endif

#endif
