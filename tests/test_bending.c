/* Bending constraints: the dihedral angle (PBD Sec. 4.1, App. A Eq. 16–28) and the review
 * slides' variant of its projection (suite `bending`). Isometric bending (Bergou et al.
 * 2006), both types through the world and the folded-hinge limitation are suite
 * `bending_isometric` (tests/test_bending_isometric.c). */
#include "analysis/pbd_analysis.h"
#include "tests.h"
#include "bending_check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* (a) Hand-checked hinges. Right-angle fold: p1 = 0, p2 = x̂, p3 = ŷ, p4 = ẑ: n1 = ẑ,
 * n2 = -ŷ, d = 0, φ = π/2; with the flat rest φ0 = π, C = -π/2. Opening the fold by moving
 * p3 along -ẑ raises φ at rate 1/height = 1: ∇_{p3}C = (0,0,-1), ∇_{p4}C = (0,-1,0),
 * ∇_{p2}C = 0 (both feet at p1), ∇_{p1}C = (0,1,1).
 * Isometric, the seed's square hinge p1 = 0, p2 = ŷ, p3 = (-½,½,0), p4 = (½,½,0): all four
 * edge angles 45°, K = (2, 2, -2, -2), A0 = A1 = ¼, Q = 6 K Kᵀ; folding p4 up to (0,½,½)
 * gives Σ K_i x_i = (1, 0, -1), E = ½·6·2 = 6 = 6|e|² sin²(θ/2)/(A0+A1) at θ = π/2, and
 * ∇_i C = 6 K_i (1, 0, -1). */
static void test_hand_checked(void)
{
    const double fold[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    const double flat[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.3, -2, 0};
    const double folded[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.7, 0.5, 0};
    double rest, g[12];
    compute_rest(&pbd_bend_dihedral_type, flat, &rest);
    CU_ASSERT_DOUBLE_EQUAL(rest, M_PI, 1e-15);
    compute_rest(&pbd_bend_dihedral_type, folded, &rest);
    CU_ASSERT_DOUBLE_EQUAL(rest, 0.0, 1e-15);
    compute_rest(&pbd_bend_dihedral_type, fold, &rest);
    CU_ASSERT_DOUBLE_EQUAL(rest, M_PI / 2, 1e-15);
    rest = M_PI;
    int st;
    double C = eval_c(&pbd_bend_dihedral_type, fold, &rest, g, &st);
    CU_ASSERT_EQUAL(st, PBD_EVAL_OK);
    CU_ASSERT_DOUBLE_EQUAL(C, -M_PI / 2, 1e-15);
    const double expect[12] = {0, 1, 1, 0, 0, 0, 0, 0, -1, 0, -1, 0};
    for (int i = 0; i < 12; i++) CU_ASSERT_DOUBLE_EQUAL(g[i], expect[i], 1e-15);
    /* 60° fold, edge of length 2: φ = π/3 */
    const double f60[12] = {0, 0, 0, 0, 0, 2, 1, 0, 0.5, 0.5, sqrt(3) / 2, 1.5};
    C = eval_c(&pbd_bend_dihedral_type, f60, &rest, NULL, &st);
    CU_ASSERT_DOUBLE_EQUAL(C, M_PI / 3 - M_PI, 1e-14);

    const double sq[12] = {0, 0, 0, 0, 1, 0, -0.5, 0.5, 0, 0.5, 0.5, 0};
    double qr[11];
    compute_rest(&pbd_bend_isometric_type, sq, qr);
    const double Kv[4] = {2, 2, -2, -2};
    int k = 0;
    for (int i = 0; i < 4; i++)
        for (int j = i; j < 4; j++) CU_ASSERT_DOUBLE_EQUAL(qr[k++], 6 * Kv[i] * Kv[j], 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(qr[10], 0.0, 1e-14);
    double bent[12];
    memcpy(bent, sq, sizeof bent);
    bent[9] = 0.0, bent[10] = 0.5, bent[11] = 0.5;
    C = eval_c(&pbd_bend_isometric_type, bent, qr, g, &st);
    CU_ASSERT_EQUAL(st, PBD_EVAL_OK);
    CU_ASSERT_DOUBLE_EQUAL(C, 6.0, 1e-12);
    const double v[3] = {1, 0, -1};
    for (int i = 0; i < 4; i++)
        for (int c = 0; c < 3; c++) CU_ASSERT_DOUBLE_EQUAL(g[3 * i + c], 6 * Kv[i] * v[c], 1e-12);
}

/* (b) Analytic ∇C against central differences on random (non-degenerate) samples, with the
 * gradient checker's step and metric (pbd_fd_gradient: per coordinate
 * |g - fd| / max(|g|, |fd|, floor)) and threshold. */
static double fd_relative_error(const pbd_constraint_type *t, const double *x0,
                                const double *rest)
{
    double g[12], fd[12], e = INFINITY;
    int st;
    double C = eval_c(t, x0, rest, g, &st);
    if (st != PBD_EVAL_OK) return INFINITY;
    pbd_eval_input in = {x0, 4, rest, NULL, 0};
    double tol = pbd_gradcheck_options_default().max_rel_err;
    if (pbd_fd_gradient(t, &in, C, g, tol, fd, &e) != PBD_FD_OK) return INFINITY;
    return e;
}

static void test_gradient_vs_finite_differences(void)
{
    for (int ti = 0; ti < 2; ti++) {
        const pbd_constraint_type *t = bending_types[ti];
        pbd_rng r;
        pbd_rng_seed(&r, 1000 + ti);
        double worst = 0.0;
        for (int n = 0; n < 200; n++) {
            double x[3 * PBD_SAMPLE_MAX_ARITY], rest[16];
            int32_t aux[4];
            int n_aux = -1;
            CU_ASSERT_EQUAL(t->sample(&r, 0, x, rest, aux, &n_aux), 4);
            CU_ASSERT_EQUAL(n_aux, 0);
            double e = fd_relative_error(t, x, rest);
            CU_ASSERT(e <= pbd_gradcheck_options_default().max_rel_err);
            if (e > worst) worst = e;
        }
        printf("\n    %s: worst relative FD error (checker's metric) over 200 samples = %.2e ",
               t->name, worst);
    }
}

/* (c) The closed form (Eq. 28, q_i from Eq. 24–27) equals the generic path (Eq. 6–9). */
static void test_closed_form_equals_generic(void)
{
    pbd_rng r;
    pbd_rng_seed(&r, 28);
    double worst = 0.0;
    for (int n = 0; n < 5000; n++) {
        double x[12], rest, a[12], b[12], g[12], w[4];
        int32_t aux[1];
        int n_aux;
        pbd_bend_dihedral_type.sample(&r, 0, x, &rest, aux, &n_aux);
        for (int j = 0; j < 4; j++)
            w[j] = pbd_rng_uniform(&r) < 0.15 ? 0.0 : pow(10.0, pbd_rng_range(&r, -2, 2));
        if (w[0] + w[1] + w[2] + w[3] == 0.0) w[2] = 1.0;
        double k = pbd_rng_range(&r, 0.05, 1.0);
        memcpy(a, x, sizeof a);
        memcpy(b, x, sizeof b);
        pbd_eval_input ia = {a, 4, &rest, NULL, 0}, ib = {b, 4, &rest, NULL, 0};
        CU_ASSERT_EQUAL(pbd_bend_dihedral_type.project_closed_form(&ia, w, k, a), PBD_EVAL_OK);
        CU_ASSERT_EQUAL(pbd_project_generic(&pbd_bend_dihedral_type, &ib, w, k, b, g),
                        PBD_EVAL_OK);
        double da[12], dd[12];
        for (int i = 0; i < 12; i++) da[i] = a[i] - x[i], dd[i] = a[i] - b[i];
        double rel = norm(dd, 12) / norm(da, 12);
        CU_ASSERT(rel <= 1e-10);
        if (rel > worst) worst = rel;
        for (int j = 0; j < 4; j++)
            if (w[j] == 0.0)
                for (int c = 0; c < 3; c++) CU_ASSERT_EQUAL(a[3 * j + c], x[3 * j + c]);
    }
    printf("\n    Eq. 28 vs generic: worst relative difference of Δp = %.2e ", worst);
}

/* (d) Eq. 28 solves the linearized constraint C + ∇C·Δp = 0 (PBD Eq. 3); the slides' step
 * (Σ|q| in place of Σ w|q|², times 4/Σw) does not, with uniform or non-uniform masses. */
static void test_slides_variant_fails_linearized(void)
{
    pbd_rng r;
    pbd_rng_seed(&r, 4);
    for (int uniform = 0; uniform < 2; uniform++) {
        const int N = 1000;
        double worst_eq28 = 0.0, min_slides = INFINITY, sum_slides = 0.0;
        int slides_small = 0;
        for (int n = 0; n < N; n++) {
            double x[12], rest, a[12], b[12], w[4], da[12], db[12];
            int32_t aux[1];
            int n_aux;
            pbd_bend_dihedral_type.sample(&r, 0, x, &rest, aux, &n_aux);
            double w0 = pbd_rng_range(&r, 0.1, 10);
            for (int j = 0; j < 4; j++) w[j] = uniform ? w0 : pow(10.0, pbd_rng_range(&r, -1, 1));
            memcpy(a, x, sizeof a);
            memcpy(b, x, sizeof b);
            pbd_eval_input in = {x, 4, &rest, NULL, 0};
            CU_ASSERT_EQUAL(pbd_bend_dihedral_type.project_closed_form(&in, w, 1.0, a),
                            PBD_EVAL_OK);
            CU_ASSERT_EQUAL(pbd_bend_dihedral_slides_project(&in, w, 1.0, b), PBD_EVAL_OK);
            for (int i = 0; i < 12; i++) da[i] = a[i] - x[i], db[i] = b[i] - x[i];
            double ra = pbd_linearized_residual(&pbd_bend_dihedral_type, &in, da);
            double rb = pbd_linearized_residual(&pbd_bend_dihedral_type, &in, db);
            CU_ASSERT(ra >= 0.0 && ra <= 1e-11);
            CU_ASSERT(rb >= 0.0);
            if (ra > worst_eq28) worst_eq28 = ra;
            if (rb < min_slides) min_slides = rb;
            sum_slides += rb;
            if (rb < 1e-2) slides_small++;
        }
        /* the slides' residual is 1 - (4/Σw) Σ w|q|² / Σ|q|: zero only by coincidence */
        CU_ASSERT(slides_small <= N / 20);
        CU_ASSERT(sum_slides / N > 0.1);
        printf("\n    %s masses: Eq. 28 worst residual %.1e; slides mean %.3f, min %.1e, "
               "%d of %d below 1e-2 ",
               uniform ? "uniform" : "non-uniform", worst_eq28, sum_slides / N, min_slides,
               slides_small, N);
    }
}

/* The slides' step is not even scale invariant: for the hinge scaled by λ, a projection
 * must move the points by λ times as much (Eq. 28 does); the slides' one does not (|q| ~ 1/L). */
static void test_slides_variant_scale(void)
{
    pbd_rng r;
    pbd_rng_seed(&r, 44);
    double worst_eq28 = 0.0, least_slides = INFINITY;
    for (int n = 0; n < 200; n++) {
        double x[12], rest, w[4], lam = pbd_rng_range(&r, 2.0, 10.0);
        int32_t aux[1];
        int n_aux;
        pbd_bend_dihedral_type.sample(&r, 0, x, &rest, aux, &n_aux);
        for (int j = 0; j < 4; j++) w[j] = pow(10.0, pbd_rng_range(&r, -1, 1));
        for (int variant = 0; variant < 2; variant++) {
            double a[12], b[12], xs[12], da[12], db[12];
            for (int i = 0; i < 12; i++) a[i] = x[i], b[i] = xs[i] = lam * x[i];
            pbd_eval_input ia = {a, 4, &rest, NULL, 0}, ib = {b, 4, &rest, NULL, 0};
            if (variant == 0) {
                pbd_bend_dihedral_type.project_closed_form(&ia, w, 1.0, a);
                pbd_bend_dihedral_type.project_closed_form(&ib, w, 1.0, b);
            } else {
                pbd_bend_dihedral_slides_project(&ia, w, 1.0, a);
                pbd_bend_dihedral_slides_project(&ib, w, 1.0, b);
            }
            for (int i = 0; i < 12; i++) da[i] = lam * (a[i] - x[i]) - (b[i] - xs[i]), db[i] = b[i] - xs[i];
            double rel = norm(da, 12) / norm(db, 12);
            if (variant == 0 && rel > worst_eq28) worst_eq28 = rel;
            if (variant == 1 && rel < least_slides) least_slides = rel;
        }
    }
    CU_ASSERT(worst_eq28 <= 1e-10);
    /* the slides' Δp does not scale at all (dp ~ L, q ~ 1/L): Δp(λx) = Δp(x), off by λ */
    CU_ASSERT(least_slides > 0.5);
    printf("\n    scaled hinges: |λΔp(x) - Δp(λx)| / |Δp(λx)|: Eq. 28 <= %.1e, slides >= %.2f ",
           worst_eq28, least_slides);
}

/* (e) Internal: Σ_i ∇_i C = 0 and Σ_i x_i × ∇_i C = 0, and projections with unequal masses
 * conserve linear and angular momentum (PBD Eq. 1–2). */
static void test_momentum(void)
{
    for (int ti = 0; ti < 2; ti++) {
        const pbd_constraint_type *t = bending_types[ti];
        pbd_rng r;
        pbd_rng_seed(&r, 77 + ti);
        double worst_grad = 0.0, worst_proj = 0.0;
        for (int n = 0; n < 500; n++) {
            double x[12], rest[16], g[12], gw[12];
            int32_t aux[1];
            int n_aux, st;
            t->sample(&r, 0, x, rest, aux, &n_aux);
            eval_c(t, x, rest, g, &st);
            CU_ASSERT_EQUAL(st, PBD_EVAL_OK);
            double lin[3] = {0, 0, 0}, ang[3] = {0, 0, 0}, scale = 0.0;
            for (int i = 0; i < 4; i++) {
                const double *p = x + 3 * i, *gi = g + 3 * i;
                for (int c = 0; c < 3; c++) lin[c] += gi[c];
                ang[0] += p[1] * gi[2] - p[2] * gi[1];
                ang[1] += p[2] * gi[0] - p[0] * gi[2];
                ang[2] += p[0] * gi[1] - p[1] * gi[0];
                scale += norm(gi, 3) * (1.0 + norm(p, 3));
            }
            CU_ASSERT(norm(lin, 3) <= 1e-13 * scale);
            CU_ASSERT(norm(ang, 3) <= 1e-13 * scale);
            worst_grad = fmax(worst_grad, fmax(norm(lin, 3), norm(ang, 3)) / scale);
            /* a generic projection with unequal masses */
            /* (x_out starts at zero, so it receives Δp itself, free of cancellation) */
            double w[4], y[12] = {0}, mom[3] = {0, 0, 0}, amom[3] = {0, 0, 0}, mscale = 0.0;
            for (int j = 0; j < 4; j++) w[j] = pow(10.0, pbd_rng_range(&r, -1, 1));
            pbd_eval_input in = {x, 4, rest, NULL, 0};
            CU_ASSERT_EQUAL(pbd_project_generic(t, &in, w, 1.0, y, gw), PBD_EVAL_OK);
            for (int j = 0; j < 4; j++) {
                double dp[3];
                for (int c = 0; c < 3; c++) dp[c] = y[3 * j + c] / w[j];
                const double *p = x + 3 * j;
                for (int c = 0; c < 3; c++) mom[c] += dp[c];
                amom[0] += p[1] * dp[2] - p[2] * dp[1];
                amom[1] += p[2] * dp[0] - p[0] * dp[2];
                amom[2] += p[0] * dp[1] - p[1] * dp[0];
                mscale += norm(dp, 3) * (1.0 + norm(p, 3));
            }
            CU_ASSERT(norm(mom, 3) <= 1e-13 * mscale);
            CU_ASSERT(norm(amom, 3) <= 1e-13 * mscale);
            worst_proj = fmax(worst_proj, fmax(norm(mom, 3), norm(amom, 3)) / mscale);
        }
        printf("\n    %s: |sum grad|, |sum x × grad| <= %.1e; projected momenta <= %.1e (relative) ",
               t->name, worst_grad, worst_proj);
    }
}

/* (f) Flat (d = -1), fully folded (d = +1), zero-area and coincident-point hinges, and the
 * types' own near-degenerate samples: C, ∇C and every projection stay finite; exactly
 * degenerate ones report PBD_EVAL_DEGENERATE and move nothing. */
static void check_finite_everywhere(const pbd_constraint_type *t, const double *x,
                                    const double *rest, int expect_degenerate)
{
    double g[12], y[12], gw[12], w[4] = {1.0, 0.5, 2.0, 0.25};
    int st;
    double C = eval_c(t, x, rest, g, &st);
    CU_ASSERT(isfinite(C));
    CU_ASSERT(test_all_finite(g, 12));
    if (expect_degenerate) CU_ASSERT_EQUAL(st, PBD_EVAL_DEGENERATE);
    memcpy(y, x, sizeof y);
    pbd_eval_input in = {y, 4, rest, NULL, 0};
    int pst = pbd_project_generic(t, &in, w, 1.0, y, gw);
    CU_ASSERT(test_all_finite(y, 12));
    if (expect_degenerate) {
        CU_ASSERT_EQUAL(pst, PBD_EVAL_DEGENERATE);
        CU_ASSERT(memcmp(x, y, sizeof y) == 0);
    }
    if (t->project_closed_form) {
        memcpy(y, x, sizeof y);
        pst = t->project_closed_form(&in, w, 1.0, y);
        CU_ASSERT(test_all_finite(y, 12));
        if (expect_degenerate) CU_ASSERT_EQUAL(pst, PBD_EVAL_DEGENERATE);
    }
    if (t == &pbd_bend_dihedral_type) {
        memcpy(y, x, sizeof y);
        pst = pbd_bend_dihedral_slides_project(&in, w, 1.0, y);
        CU_ASSERT(test_all_finite(y, 12));
        if (expect_degenerate) CU_ASSERT_EQUAL(pst, PBD_EVAL_DEGENERATE);
    }
}

static void test_degenerate_hinges_finite(void)
{
    const double flat[12] = {0, 0, 0, 1, 0, 0, 0.2, 1, 0, 0.6, -0.7, 0};
    const double folded[12] = {0, 0, 0, 1, 0, 0, 0.2, 1, 0, 0.6, 0.7, 0};
    const double zero_area[12] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0.6, 0.7, 0.1};
    const double p1_is_p2[12] = {0, 0, 0, 0, 0, 0, 0.2, 1, 0, 0.6, 0.7, 0.1};
    const double p3_is_p1[12] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0.6, 0.7, 0.1};
    const double all_same[12] = {1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3};
    const double *cases[6] = {flat, folded, zero_area, p1_is_p2, p3_is_p1, all_same};
    const double good[12] = {0, 0, 0, 1, 0, 0, 0.2, 1, 0, 0.6, 0.7, 0.4};

    double phi0s[3] = {M_PI, 0.0, 1.0};
    for (int c = 0; c < 6; c++) {
        for (int p = 0; p < 3; p++) check_finite_everywhere(&pbd_bend_dihedral_type, cases[c],
                                                            &phi0s[p], 1);
        double qr[11], qd[11];
        compute_rest(&pbd_bend_isometric_type, good, qr);
        /* a good rest state: the current degenerate positions have a defined C, ∇C */
        check_finite_everywhere(&pbd_bend_isometric_type, cases[c], qr, 0);
        /* rest taken from the degenerate configuration: Q = 0 for zero areas */
        compute_rest(&pbd_bend_isometric_type, cases[c], qd);
        CU_ASSERT(test_all_finite(qd, 11));
        check_finite_everywhere(&pbd_bend_isometric_type, good, qd, c >= 2);
        check_finite_everywhere(&pbd_bend_isometric_type, cases[c], qd, c >= 2);
    }
    /* the flat and folded hinges' C is still reported, φ = π and 0 */
    double phi0 = 1.0;
    CU_ASSERT_DOUBLE_EQUAL(eval_c(&pbd_bend_dihedral_type, flat, &phi0, NULL, NULL),
                           M_PI - 1.0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(eval_c(&pbd_bend_dihedral_type, folded, &phi0, NULL, NULL), -1.0,
                           1e-15);
    /* the types' near-degenerate samples */
    for (int ti = 0; ti < 2; ti++) {
        pbd_rng r;
        pbd_rng_seed(&r, 5 + ti);
        int n_degenerate = 0;
        for (int n = 0; n < 2000; n++) {
            double x[12], rest[16], g[12];
            int32_t aux[1];
            int n_aux, st;
            CU_ASSERT_EQUAL(bending_types[ti]->sample(&r, 1, x, rest, aux, &n_aux), 4);
            CU_ASSERT(test_all_finite(x, 12) && test_all_finite(rest, bending_types[ti]->n_rest));
            eval_c(bending_types[ti], x, rest, g, &st);
            n_degenerate += st == PBD_EVAL_DEGENERATE;
            check_finite_everywhere(bending_types[ti], x, rest, 0);
        }
        /* some, not all, near-degenerate samples are degenerate */
        CU_ASSERT(n_degenerate > 0 && n_degenerate < 2000);
    }
}

void register_bending_tests(void)
{
    CU_pSuite s = CU_add_suite("bending", NULL, NULL);
    CU_add_test(s, "hand_checked", test_hand_checked);
    CU_add_test(s, "gradient_vs_finite_differences", test_gradient_vs_finite_differences);
    CU_add_test(s, "closed_form_equals_generic", test_closed_form_equals_generic);
    CU_add_test(s, "slides_variant_fails_linearized", test_slides_variant_fails_linearized);
    CU_add_test(s, "slides_variant_scale", test_slides_variant_scale);
    CU_add_test(s, "momentum", test_momentum);
    CU_add_test(s, "degenerate_hinges_finite", test_degenerate_hinges_finite);
}
