/* Bending constraints: the dihedral angle (PBD Sec. 4.1, App. A Eq. 16–28), the review
 * slides' variant of its projection, and isometric bending (Bergou et al. 2006). */
#include "tests.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const pbd_constraint_type *const bending_types[2] = {&pbd_bend_dihedral_type,
                                                            &pbd_bend_isometric_type};

static double norm(const double *a, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += a[i] * a[i];
    return sqrt(s);
}

static double eval_c(const pbd_constraint_type *t, const double *x, const double *rest,
                     double *grad, int *status)
{
    pbd_eval_input in = {x, 4, rest, NULL, 0};
    double C = NAN;
    int st = t->eval(&in, &C, grad);
    if (status) *status = st;
    return C;
}

static void compute_rest(const pbd_constraint_type *t, const double *x, double *rest)
{
    pbd_eval_input in = {x, 4, NULL, NULL, 0};
    t->rest(&in, rest);
}

/* Rotate x (4 points) by the rotation matrix R and translate by tr. */
static void rigid_motion(const double R[9], const double tr[3], const double *x, double *y)
{
    for (int i = 0; i < 4; i++)
        for (int r = 0; r < 3; r++)
            y[3 * i + r] = R[3 * r] * x[3 * i] + R[3 * r + 1] * x[3 * i + 1] +
                           R[3 * r + 2] * x[3 * i + 2] + tr[r];
}

/* Rotation about a unit axis by angle (Rodrigues). */
static void rotation(const double axis[3], double angle, double R[9])
{
    double c = cos(angle), s = sin(angle), t = 1.0 - c;
    double x = axis[0], y = axis[1], z = axis[2];
    double M[9] = {t * x * x + c,     t * x * y - s * z, t * x * z + s * y,
                   t * x * y + s * z, t * y * y + c,     t * y * z - s * x,
                   t * x * z - s * y, t * y * z + s * x, t * z * z + c};
    memcpy(R, M, sizeof M);
}

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

/* (b) Analytic ∇C against central differences on random (non-degenerate) samples. */
static double fd_relative_error(const pbd_constraint_type *t, const double *x0,
                                const double *rest)
{
    double x[12], g[12], fd[12];
    int st;
    eval_c(t, x0, rest, g, &st);
    if (st != PBD_EVAL_OK) return INFINITY;
    const double h = 1e-6;
    for (int i = 0; i < 12; i++) {
        memcpy(x, x0, sizeof x);
        x[i] = x0[i] + h;
        double cp = eval_c(t, x, rest, NULL, NULL);
        x[i] = x0[i] - h;
        double cm = eval_c(t, x, rest, NULL, NULL);
        fd[i] = (cp - cm) / (2 * h);
    }
    double diff[12];
    for (int i = 0; i < 12; i++) diff[i] = g[i] - fd[i];
    return norm(diff, 12) / norm(g, 12);
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
            CU_ASSERT(e <= 1e-6);
            if (e > worst) worst = e;
        }
        printf("\n    %s: worst |grad - fd| / |grad| over 200 samples = %.2e ", t->name, worst);
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

/* (g) Isometric bending: C = 0 and ∇C = 0 at a flat rest state; invariance under rigid
 * motion; a bent cloth patch projected with it flattens. */
static void test_isometric_properties(void)
{
    pbd_rng r;
    pbd_rng_seed(&r, 99);
    for (int n = 0; n < 200; n++) {
        double x[12], rest[16], g[12];
        int32_t aux[1];
        int n_aux, st;
        /* a flat rest hinge: take a sample's rest positions' plane by rebuilding flat */
        pbd_bend_dihedral_type.sample(&r, 0, x, rest, aux, &n_aux);
        /* flatten x: rotate p4 about the edge onto the far side of p3's half-plane */
        double e[3], a[3], b[3], en = 0.0;
        for (int c = 0; c < 3; c++) e[c] = x[3 + c] - x[c], en += e[c] * e[c];
        en = sqrt(en);
        for (int c = 0; c < 3; c++) e[c] /= en;
        double ae = 0, be = 0;
        for (int c = 0; c < 3; c++) ae += (x[6 + c] - x[c]) * e[c], be += (x[9 + c] - x[c]) * e[c];
        for (int c = 0; c < 3; c++) a[c] = x[6 + c] - x[c] - ae * e[c];
        for (int c = 0; c < 3; c++) b[c] = x[9 + c] - x[c] - be * e[c];
        double an = norm(a, 3), bn = norm(b, 3);
        for (int c = 0; c < 3; c++) x[9 + c] = x[c] + be * e[c] - bn / an * a[c];
        compute_rest(&pbd_bend_isometric_type, x, rest);
        double C = eval_c(&pbd_bend_isometric_type, x, rest, g, &st);
        CU_ASSERT_EQUAL(st, PBD_EVAL_OK);
        double qscale = fabs(rest[0]) + fabs(rest[4]) + fabs(rest[7]) + fabs(rest[9]);
        CU_ASSERT(fabs(C) <= 1e-13 * qscale * (1 + norm(x, 12) * norm(x, 12)));
        CU_ASSERT(norm(g, 12) <= 1e-13 * qscale * (1 + norm(x, 12)));
        /* rigid motion of a bent configuration leaves C unchanged */
        double y[12], z[12], R[9], axis[3], tr[3];
        pbd_bend_isometric_type.sample(&r, 0, y, rest, aux, &n_aux);
        for (int c = 0; c < 3; c++) axis[c] = pbd_rng_gaussian(&r), tr[c] = 3 * pbd_rng_gaussian(&r);
        double an2 = norm(axis, 3);
        for (int c = 0; c < 3; c++) axis[c] /= an2;
        rotation(axis, pbd_rng_range(&r, -M_PI, M_PI), R);
        rigid_motion(R, tr, y, z);
        double Cy = eval_c(&pbd_bend_isometric_type, y, rest, NULL, NULL);
        double Cz = eval_c(&pbd_bend_isometric_type, z, rest, NULL, NULL);
        CU_ASSERT(fabs(Cy - Cz) <= 1e-11 * (fabs(Cy) + rest[10] + qscale));
        /* and the dihedral angle's too */
        double phi0 = 1.0;
        double Dy = eval_c(&pbd_bend_dihedral_type, y, &phi0, NULL, NULL);
        double Dz = eval_c(&pbd_bend_dihedral_type, z, &phi0, NULL, NULL);
        CU_ASSERT_DOUBLE_EQUAL(Dy, Dz, 1e-12);
    }
}

/* A flat 5×5 cloth patch in the xy-plane (spacing 0.1), with one hinge per interior edge. */
#define PATCH_N 5
static int patch_hinges(int32_t (*h)[4])
{
    int count = 0;
#define V(i, j) ((i) * PATCH_N + (j))
    /* each cell (i, j) is split along its diagonal V(i,j)–V(i+1,j+1) */
    for (int i = 0; i + 1 < PATCH_N; i++)
        for (int j = 0; j + 1 < PATCH_N; j++) {
            /* the diagonal: triangles (V(i,j), V(i+1,j+1), V(i+1,j)) and (…, V(i,j+1)) */
            int32_t d[4] = {V(i, j), V(i + 1, j + 1), V(i + 1, j), V(i, j + 1)};
            memcpy(h[count++], d, sizeof d);
            /* the horizontal edge V(i,j+1)–V(i+1,j+1) shared with cell (i, j+1) */
            if (j + 2 < PATCH_N) {
                int32_t e[4] = {V(i, j + 1), V(i + 1, j + 1), V(i, j), V(i + 1, j + 2)};
                memcpy(h[count++], e, sizeof e);
            }
            /* the vertical edge V(i+1,j)–V(i+1,j+1) shared with cell (i+1, j) */
            if (i + 2 < PATCH_N) {
                int32_t f[4] = {V(i + 1, j), V(i + 1, j + 1), V(i, j), V(i + 2, j + 1)};
                memcpy(h[count++], f, sizeof f);
            }
        }
#undef V
    return count;
}

static void gather4(const double *pos, const int32_t *idx, double *x)
{
    for (int j = 0; j < 4; j++) memcpy(x + 3 * j, pos + 3 * idx[j], 3 * sizeof(double));
}

static double patch_max_bend(const double *pos, const int32_t (*h)[4], int nh)
{
    double mx = 0.0, phi0 = M_PI, x[12];
    for (int c = 0; c < nh; c++) {
        gather4(pos, h[c], x);
        double C = eval_c(&pbd_bend_dihedral_type, x, &phi0, NULL, NULL);
        if (fabs(C) > mx) mx = fabs(C);
    }
    return mx;
}

static void test_isometric_patch_flattens(void)
{
    int32_t h[3 * PATCH_N * PATCH_N][4];
    int nh = patch_hinges(h);
    double pos[3 * PATCH_N * PATCH_N], rest[3 * PATCH_N * PATCH_N][11], x[12], g[12];
    for (int i = 0; i < PATCH_N; i++)
        for (int j = 0; j < PATCH_N; j++) {
            double *p = pos + 3 * (i * PATCH_N + j);
            p[0] = 0.1 * i, p[1] = 0.1 * j, p[2] = 0.0;
        }
    CU_ASSERT_DOUBLE_EQUAL(patch_max_bend(pos, h, nh), 0.0, 1e-12);
    for (int c = 0; c < nh; c++) {
        gather4(pos, h[c], x);
        compute_rest(&pbd_bend_isometric_type, x, rest[c]);
    }
    /* bend it onto a cylinder of radius 0.25 around an axis parallel to y (isometric) */
    for (int v = 0; v < PATCH_N * PATCH_N; v++) {
        double *p = pos + 3 * v, s = p[0] - 0.2, R = 0.25;
        p[0] = 0.2 + R * sin(s / R);
        p[2] = R * (1 - cos(s / R));
    }
    double bend0 = patch_max_bend(pos, h, nh);
    CU_ASSERT(bend0 > 0.3);
    double w[4] = {1, 1, 1, 1};
    double energy0 = 0.0, energy = 0.0;
    for (int c = 0; c < nh; c++) {
        gather4(pos, h[c], x);
        energy0 += eval_c(&pbd_bend_isometric_type, x, rest[c], NULL, NULL);
    }
    for (int it = 0; it < 200; it++)
        for (int c = 0; c < nh; c++) {
            gather4(pos, h[c], x);
            pbd_eval_input in = {x, 4, rest[c], NULL, 0};
            if (pbd_project_generic(&pbd_bend_isometric_type, &in, w, 1.0, x, g) == PBD_EVAL_OK)
                for (int j = 0; j < 4; j++) memcpy(pos + 3 * h[c][j], x + 3 * j, 3 * sizeof(double));
        }
    for (int c = 0; c < nh; c++) {
        gather4(pos, h[c], x);
        energy += eval_c(&pbd_bend_isometric_type, x, rest[c], NULL, NULL);
    }
    double bend = patch_max_bend(pos, h, nh);
    CU_ASSERT(test_all_finite(pos, 3 * PATCH_N * PATCH_N));
    CU_ASSERT(bend < 0.1 * bend0);
    CU_ASSERT(energy < 1e-2 * energy0);
    printf("\n    patch: max |pi - phi| %.3f -> %.2e, total bending energy %.3e -> %.2e ", bend0,
           bend, energy0, energy);
}

/* Through the world: rest values from the positions (pbd_set_add with rest = NULL), then a
 * step without gravity on a bent hinge brings it towards its rest angle; an exactly flat
 * hinge at rest is skipped (dihedral: the kink) or left alone (isometric: C = ∇C = 0). */
static void test_through_world_step(void)
{
    const double flat[12] = {0, 0, 0, 1, 0, 0, 0.3, 0.8, 0, 0.6, -0.9, 0};
    const double bent[12] = {0, 0, 0, 1, 0, 0, 0.3, 0.8, 0, 0.6, -0.5, 0.6};
    for (int ti = 0; ti < 2; ti++) {
        for (int moved = 0; moved < 2; moved++) {
            pbd_world *w = pbd_world_create(4);
            for (int i = 0; i < 4; i++) pbd_world_set_particle(w, i, flat + 3 * i, NULL, 1.0 + i);
            w->def.gravity[0] = w->def.gravity[1] = w->def.gravity[2] = 0.0;
            w->def.iterations = 10;
            int s = pbd_world_add_set(w, bending_types[ti], 0);
            int32_t idx[4] = {0, 1, 2, 3};
            CU_ASSERT_EQUAL_FATAL(pbd_set_add(w, s, idx, NULL, 1.0, 0.0), 0);
            if (moved) memcpy(w->x, bent, sizeof bent);
            double before = fabs(eval_c(bending_types[ti], w->x, w->sets[s].rest, NULL, NULL));
            CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
            double after = fabs(eval_c(bending_types[ti], w->x, w->sets[s].rest, NULL, NULL));
            CU_ASSERT(test_all_finite(w->x, 12));
            if (moved) {
                CU_ASSERT(before > 0.1);
                CU_ASSERT(after < 1e-3 * before);
            } else {
                CU_ASSERT(memcmp(w->x, flat, sizeof flat) == 0);
            }
            pbd_world_free(w);
        }
    }
}

/* (h) A few generic projections (k = 1) shrink |C| of bent hinges, for both types. */
static void test_projection_reduces_c(void)
{
    for (int ti = 0; ti < 2; ti++) {
        const pbd_constraint_type *t = bending_types[ti];
        pbd_rng r;
        pbd_rng_seed(&r, 321 + ti);
        int reduced = 0, N = 500;
        double worst = 0.0;
        for (int n = 0; n < N; n++) {
            double x[12], rest[16], g[12], w[4];
            int32_t aux[1];
            int n_aux;
            t->sample(&r, 0, x, rest, aux, &n_aux);
            for (int j = 0; j < 4; j++) w[j] = pow(10.0, pbd_rng_range(&r, -1, 1));
            double C0 = fabs(eval_c(t, x, rest, NULL, NULL)), C1 = C0;
            if (C0 < 1e-3) continue;
            for (int it = 0; it < 5; it++) {
                pbd_eval_input in = {x, 4, rest, NULL, 0};
                if (pbd_project_generic(t, &in, w, 1.0, x, g) != PBD_EVAL_OK) break;
            }
            C1 = fabs(eval_c(t, x, rest, NULL, NULL));
            CU_ASSERT(C1 < C0);
            if (C1 < 1e-3 * C0) reduced++;
            if (C1 / C0 > worst) worst = C1 / C0;
        }
        printf("\n    %s: after 5 projections |C|/|C0| <= %.2e, %d hinges below 1e-3 ", t->name,
               worst, reduced);
        CU_ASSERT(reduced > N / 2);
    }
}

/* ---- Limitation: folded hinges (constraints/README.md "Bending constraints") ---------- */

/* (i) The trigger. A flat hinge (rest φ0 = π) whose wing p4 crosses the edge's line inside
 * the plane (a sliver inverting, a stretch event) reads as a hinge folded flat: C jumps from
 * about 0 to about -π for a displacement of 2e-3 |e|. Isometric bending (E quadratic in x)
 * changes only by O(displacement) there; its value is large on both sides, since p4 moved
 * far from its rest place within the plane and the model takes the cloth as inextensible.
 * (A 1e-6 rad tilt out of the plane keeps both states off the kinks at d = ±1.) */
static void test_inplane_flip_reads_as_fold(void)
{
    const double rest_x[12] = {0, 0, 0, 1, 0, 0, 0.4, 0.9, 0, 0.5, -0.7, 0};
    double rest_d, rest_i[16];
    compute_rest(&pbd_bend_dihedral_type, rest_x, &rest_d);
    compute_rest(&pbd_bend_isometric_type, rest_x, rest_i);
    CU_ASSERT_DOUBLE_EQUAL(rest_d, M_PI, 1e-15);
    double C_d[2], C_i[2];
    for (int side = 0; side < 2; side++) {
        double x[12], h = side ? -1e-3 : 1e-3; /* p4's height over the edge's line, signed */
        memcpy(x, rest_x, sizeof x);
        x[10] = -h * cos(1e-6); /* p4 = (0.5, -h, h·1e-6): the apex on either side of p1–p2 */
        x[11] = fabs(h) * sin(1e-6);
        int st_d, st_i;
        C_d[side] = eval_c(&pbd_bend_dihedral_type, x, &rest_d, NULL, &st_d);
        C_i[side] = eval_c(&pbd_bend_isometric_type, x, rest_i, NULL, &st_i);
        CU_ASSERT_EQUAL(st_d, PBD_EVAL_OK);
        CU_ASSERT_EQUAL(st_i, PBD_EVAL_OK);
    }
    CU_ASSERT(fabs(C_d[0]) < 1e-5);          /* still (almost) flat: φ ≈ π */
    CU_ASSERT(fabs(C_d[1] + M_PI) < 1e-5);   /* flipped: φ ≈ 0, "folded" */
    CU_ASSERT(fabs(C_i[1] - C_i[0]) < 1e-2 * C_i[0]); /* continuous: 1.870 -> 1.880 */
    printf("\n    p4 crossing the edge's line in-plane (2e-3 |e|): dihedral C %.2e -> %.4f, "
           "isometric C %.3e -> %.3e ", C_d[0], C_d[1], C_i[0], C_i[1]);
}

/* (j) The smallest case of the divergence in stretch_bend_independence (dihedral, k_stretch
 * 1/100, k_bend 1, 10 iterations, Δt = 1/60 s, 8×8 bag of 0.5 m and 1 kg): the bag's state
 * after 54 steps (t = 0.9 s), cut down to bag vertex 329 (free, local 5) and its six
 * neighbours 235, 237, 321, 322, 328, 336 (fixed at their predicted positions; the bottom
 * face has collapsed to a strip, they lie nearly on a line). Vertex 329 is predicted
 * through that line (x + Δt v + Δt² g), which folds hinges 2 (and, after one projection, 1)
 * to C ≈ -3: every sweep of the six dihedral projections then moves it about 100 times
 * farther, two hinges staying folded — PBD's step is |C| / |∇C| and |∇C| falls as 1/distance.
 * Eq. 28 does exactly the same. Isometric bending with the bag's (flat) rest state, on the
 * same fan, settles 0.033 m from the ring. This documents a limitation of the formulation (no
 * bug): a remedy built into bend_dihedral must change this test and constraints/README.md. */
static const double fan_x[7][3] = {
    {0.17860548428074507, -3.9864976115132387, 0.22848536514310636},
    {0.20809789516982291, -3.9945653539984289, 0.22924616688476609},
    {0.12282076100989825, -3.9699351080160201, 0.12392173611678124},
    {0.14463222577122156, -3.9763987286713012, 0.1611641512721094},
    {0.14585710028051918, -3.9768697423002948, 0.15382599762720861},
    {0.16811639356442176, -3.8970472680324515, 0.17540636786305394},
    {0.19460501004152619, -3.9899496450613339, 0.20006033461323072}};
static const double fan_v5[3] = {0.35444543615991642, -5.055407338497595, 0.12830283683343602};
static const double fan_rest[7][3] = {{0.125, -0.5, 0.25},    {0.1875, -0.5, 0.25},
                                      {0.0625, -0.5, 0.125},  {0.0625, -0.5, 0.1875},
                                      {0.125, -0.5, 0.125},   {0.125, -0.5, 0.1875},
                                      {0.1875, -0.5, 0.1875}};
static const int32_t fan_hinges[6][4] = {{5, 0, 3, 1}, {1, 5, 6, 0}, {5, 2, 4, 3},
                                         {5, 3, 2, 0}, {4, 5, 2, 6}, {6, 5, 4, 1}};

/* Gauss–Seidel sweeps of the fan's six hinges (generic path, or Eq. 28 when closed != 0),
 * k = 1; dist[s] = |p5 - p4| after sweep s, C_seen[s][h] = hinge h's C as it is projected. */
static void fan_sweeps(const pbd_constraint_type *t, int closed, int n_sweeps, double *dist,
                       double (*C_seen)[6], double p[7][3])
{
    const double dt = 1.0 / 60.0, w[7] = {0, 0, 0, 0, 0, 337.0, 0}; /* m = 1 kg / 337 */
    double rest[6][16];
    memcpy(p, fan_x, sizeof fan_x);
    for (int c = 0; c < 3; c++) p[5][c] += dt * fan_v5[c] + (c == 1 ? -9.81 * dt * dt : 0.0);
    for (int h = 0; h < 6; h++) {
        double x[12];
        for (int j = 0; j < 4; j++)
            memcpy(x + 3 * j, fan_rest[fan_hinges[h][j]], sizeof fan_rest[0]);
        compute_rest(t, x, rest[h]);
    }
    for (int s = 0; s < n_sweeps; s++) {
        for (int h = 0; h < 6; h++) {
            double x[12], g[12], wj[4];
            for (int j = 0; j < 4; j++) {
                memcpy(x + 3 * j, p[fan_hinges[h][j]], sizeof p[0]);
                wj[j] = w[fan_hinges[h][j]];
            }
            pbd_eval_input in = {x, 4, rest[h], NULL, 0};
            C_seen[s][h] = eval_c(t, x, rest[h], NULL, NULL);
            if (closed) t->project_closed_form(&in, wj, 1.0, x);
            else pbd_project_generic(t, &in, wj, 1.0, x, g);
            for (int j = 0; j < 4; j++) /* only the free vertex moves */
                if (wj[j] > 0.0) memcpy(p[fan_hinges[h][j]], x + 3 * j, sizeof p[0]);
        }
        double d[3] = {p[5][0] - p[4][0], p[5][1] - p[4][1], p[5][2] - p[4][2]};
        dist[s] = norm(d, 3);
    }
}

static void test_folded_fan_runs_away(void)
{
    enum { SWEEPS = 4 };
    double dist[3][SWEEPS], C[3][SWEEPS][6], p[3][7][3];
    fan_sweeps(&pbd_bend_dihedral_type, 0, SWEEPS, dist[0], C[0], p[0]);
    fan_sweeps(&pbd_bend_dihedral_type, 1, SWEEPS, dist[1], C[1], p[1]);
    double ring[3];
    for (int c = 0; c < 3; c++) ring[c] = fan_x[1][c] - fan_x[2][c];
    double size = norm(ring, 3); /* 0.14 m */
    CU_ASSERT(C[0][0][2] < -3.0);  /* the predicted position folds hinge 2 */
    for (int s = 1; s < SWEEPS; s++) {
        CU_ASSERT(dist[0][s] > 30.0 * dist[0][s - 1]);           /* geometric growth */
        CU_ASSERT(C[0][s][1] < -3.0 && C[0][s][2] < -3.0);       /* and no progress */
    }
    CU_ASSERT(dist[0][SWEEPS - 1] > 1e5 * size);
    /* Eq. 28 is the same step: equal to rounding after one sweep; the runaway amplifies the
     * rounding differences about as much as the positions (1e-13, 1e-11, 1e-9, 1e-7) */
    double worst_cf = 0.0;
    for (int s = 0; s < SWEEPS; s++)
        worst_cf = fmax(worst_cf, fabs(dist[1][s] - dist[0][s]) / dist[0][s]);
    CU_ASSERT(fabs(dist[1][0] - dist[0][0]) <= 1e-11 * dist[0][0]);
    CU_ASSERT(worst_cf <= 1e-6);
    /* isometric bending, same fan, same bag rest state: bounded, after ten sweeps */
    double dist_i[10], C_i[10][6];
    fan_sweeps(&pbd_bend_isometric_type, 0, 10, dist_i, C_i, p[2]);
    CU_ASSERT(test_all_finite(&p[2][0][0], 21));
    CU_ASSERT(dist_i[9] < size);
    printf("\n    fan cut from the bag: dihedral |p - p_ring| after sweeps 1-%d:", SWEEPS);
    for (int s = 0; s < SWEEPS; s++) printf(" %.3g", dist[0][s]);
    printf(" m (ring %.2f m), folded hinges C %.2f %.2f; Eq. 28 the same to %.0e; "
           "isometric %.3g m ",
           size, C[0][SWEEPS - 1][1], C[0][SWEEPS - 1][2], worst_cf, dist_i[9]);
}

/* (k) Why isometric bending stays bounded: C = E - E0 with E = ½ c |u|², u = Σ_i K_i x_i,
 * is quadratic, and for a flat rest state (E0 = 0) one PBD projection (k = 1) halves u
 * whatever the configuration and the masses: u' = u - Σ_i K_i (½ w_i K_i u / Σ_j w_j K_j²) =
 * u/2, so C' = C/4 — also for folded and in-plane flipped hinges, where the dihedral
 * angle's step can fail to reduce C at all (test folded_fan_runs_away). */
static void test_isometric_projection_quarters_energy(void)
{
    pbd_rng r;
    pbd_rng_seed(&r, 2006);
    double worst = 0.0;
    int n_folded = 0;
    for (int n = 0; n < 1000; n++) {
        double L = pow(10.0, pbd_rng_range(&r, -2, 1));
        double rest_x[12] = {0, 0, 0, L, 0, 0, 0, 0, 0, 0, 0, 0};
        rest_x[6] = L * pbd_rng_range(&r, -0.3, 1.3), rest_x[7] = L * pbd_rng_range(&r, 0.2, 1.5);
        rest_x[9] = L * pbd_rng_range(&r, -0.3, 1.3), rest_x[10] = -L * pbd_rng_range(&r, 0.2, 1.5);
        double rest[16], x[12], g[12], w[4];
        compute_rest(&pbd_bend_isometric_type, rest_x, rest);
        for (int i = 0; i < 12; i++) x[i] = rest_x[i] + 0.7 * L * pbd_rng_gaussian(&r);
        for (int j = 0; j < 4; j++)
            w[j] = pbd_rng_uniform(&r) < 0.2 ? 0.0 : pow(10.0, pbd_rng_range(&r, -2, 2));
        w[n % 4] = 1.0; /* never all fixed */
        double phi0 = M_PI;
        if (eval_c(&pbd_bend_dihedral_type, x, &phi0, NULL, NULL) < -M_PI / 2) n_folded++;
        int st;
        double C = eval_c(&pbd_bend_isometric_type, x, rest, NULL, &st);
        pbd_eval_input in = {x, 4, rest, NULL, 0};
        if (st != PBD_EVAL_OK || pbd_project_generic(&pbd_bend_isometric_type, &in, w, 1.0, x, g) !=
                                     PBD_EVAL_OK)
            continue; /* K·w = 0 (only fixed points carry K): nothing to move */
        double C1 = eval_c(&pbd_bend_isometric_type, x, rest, NULL, NULL);
        double rel = fabs(C1 - C / 4) / (fabs(C) + 1e-12 * rest[0] * L * L);
        CU_ASSERT(rel <= 1e-9);
        if (rel > worst) worst = rel;
    }
    CU_ASSERT(n_folded > 100); /* the sample includes many folded hinges */
    printf("\n    one projection: |C' - C/4| / |C| <= %.1e over 1000 hinges (%d folded past pi/2) ",
           worst, n_folded);
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
    CU_add_test(s, "isometric_properties", test_isometric_properties);
    CU_add_test(s, "isometric_patch_flattens", test_isometric_patch_flattens);
    CU_add_test(s, "projection_reduces_c", test_projection_reduces_c);
    CU_add_test(s, "through_world_step", test_through_world_step);
    CU_add_test(s, "inplane_flip_reads_as_fold", test_inplane_flip_reads_as_fold);
    CU_add_test(s, "folded_fan_runs_away", test_folded_fan_runs_away);
    CU_add_test(s, "isometric_projection_quarters_energy",
                test_isometric_projection_quarters_energy);
}
