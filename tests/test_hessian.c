/* The analytic Hessians ∇²C of the constraint types and their check against central
 * differences of the analytic gradient (analysis/hessian_check.c): the registry's Hessians
 * pass, planted wrong ones (a 1e-4 relative error, a missing projector, a wrong sign) fail. */
#include "analysis/pbd_analysis.h"
#include "tests.h"

#include <math.h>
#include <string.h>

static pbd_gradcheck_result check(const pbd_constraint_type *t, int samples)
{
    pbd_gradcheck_options o = pbd_gradcheck_options_default();
    o.samples = samples;
    o.degenerate_samples = samples / 4;
    pbd_gradcheck_result r;
    CU_ASSERT_EQUAL_FATAL(pbd_gradcheck_type(t, &o, &r), PBD_OK);
    return r;
}

/* The five types have one, and it passes; the others have none and their table line
 * is unchanged. */
static void test_registry_hessians(void)
{
    const pbd_constraint_type *with[] = {&pbd_distance_type, &pbd_bend_dihedral_type,
                                         &pbd_bend_isometric_type, &pbd_tet_volume_type,
                                         &pbd_attachment_type};
    for (unsigned i = 0; i < sizeof with / sizeof with[0]; i++) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(with[i]->hessian);
        pbd_gradcheck_result r = check(with[i], 300);
        CU_ASSERT(r.pass);
        CU_ASSERT(r.has_hessian);
        CU_ASSERT(r.hessian_checked >= 290);
        CU_ASSERT_EQUAL(r.hessian_nonfinite, 0);
        CU_ASSERT(r.hessian_max_rel_err <= 1e-6);
        /* isometric bending: a constant Hessian, its gradient's remainder is rounding */
        if (with[i] == &pbd_bend_isometric_type) {
            CU_ASSERT(isinf(r.hessian_taylor_order));
        } else {
            CU_ASSERT(r.hessian_taylor_order >= 1.8 && r.hessian_taylor_order <= 2.2);
        }
        char line[256];
        pbd_gradcheck_format_line(line, sizeof line, &r);
        CU_ASSERT(strstr(line, " hessian_max_rel_err=") != NULL);
        pbd_gradcheck_result_free(&r);
    }
    pbd_gradcheck_result r = check(&pbd_tet_plane_type, 50);
    CU_ASSERT(!r.has_hessian && r.pass && isnan(r.hessian_max_rel_err));
    char line[256];
    pbd_gradcheck_format_line(line, sizeof line, &r);
    CU_ASSERT(strstr(line, "hessian") == NULL);
    pbd_gradcheck_result_free(&r);
}

/* distance with a planted wrong Hessian: mode 0 scales it by 1 + 1e-4, mode 1 drops the
 * projector (I/|d| instead of (I - nnᵀ)/|d|), mode 2 flips the off-diagonal blocks' sign. */
static int planted_mode;
static int wrong_hessian(const pbd_eval_input *in, double *H)
{
    int st = pbd_distance_type.hessian(in, H);
    double d[3] = {in->x[0] - in->x[3], in->x[1] - in->x[4], in->x[2] - in->x[5]};
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++) {
            double *h = &H[6 * r + c];
            int same = r / 3 == c / 3;
            if (planted_mode == 0) *h *= 1.0 + 1e-4;
            if (planted_mode == 1) *h += (same ? 1.0 : -1.0) * d[r % 3] * d[c % 3] / (len * len * len);
            if (planted_mode == 2 && !same) *h = -*h;
        }
    return st;
}
static int distance_eval(const pbd_eval_input *in, double *C, double *grad)
{
    return pbd_distance_type.eval(in, C, grad);
}
static int distance_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                           int *n_aux)
{
    return pbd_distance_type.sample(r, degenerate, x, rest, aux, n_aux);
}
static const pbd_constraint_type distance_wrong_hessian = {
    .name = "distance_wrong_hessian", .arity = 2, .n_rest = 1, .internal = 1,
    .eval = distance_eval, .sample = distance_sample, .hessian = wrong_hessian,
};

static void test_planted_hessians_fail(void)
{
    for (planted_mode = 0; planted_mode < 3; planted_mode++) {
        pbd_gradcheck_result r = check(&distance_wrong_hessian, 300);
        CU_ASSERT(!r.pass);
        CU_ASSERT(r.max_rel_err <= 1e-6); /* the gradient itself is right */
        CU_ASSERT(r.taylor_order >= 1.8);
        if (planted_mode == 0) {
            CU_ASSERT(r.hessian_max_rel_err > 5e-5 && r.hessian_max_rel_err < 2e-4);
        } else {
            CU_ASSERT(r.hessian_max_rel_err > 0.1);
            CU_ASSERT(r.hessian_taylor_order < 1.2); /* remainder ~ h |ΔH d|: first order */
        }
        char line[256];
        pbd_gradcheck_format_line(line, sizeof line, &r);
        CU_ASSERT(strstr(line, " FAIL") != NULL);
        pbd_gradcheck_result_free(&r);
    }
}

/* Symmetry and the invariances the Hessians inherit from their types: for an internal type
 * Σ_i ∇_i C = 0 everywhere, so every column of ∇²C sums to zero over the particles. */
static void test_hessians_symmetric_translation_invariant(void)
{
    const pbd_constraint_type *with[] = {&pbd_distance_type, &pbd_bend_dihedral_type,
                                         &pbd_bend_isometric_type, &pbd_tet_volume_type};
    pbd_rng rng;
    pbd_rng_seed(&rng, 11);
    for (unsigned t = 0; t < sizeof with / sizeof with[0]; t++) {
        for (int s = 0; s < 50; s++) {
            double x[12], rest[16], H[144];
            int32_t aux[4];
            int n_aux = 0;
            int a = with[t]->sample(&rng, 0, x, rest, aux, &n_aux), n = 3 * a;
            pbd_eval_input in = {x, a, rest, aux, n_aux};
            if (with[t]->hessian(&in, H) != PBD_EVAL_OK) continue;
            double scale = 0.0, asym = 0.0, colsum = 0.0;
            for (int i = 0; i < n * n; i++) scale = fmax(scale, fabs(H[i]));
            for (int r = 0; r < n; r++)
                for (int c = 0; c < n; c++) asym = fmax(asym, fabs(H[r * n + c] - H[c * n + r]));
            for (int c = 0; c < n; c++)
                for (int k = 0; k < 3; k++) {
                    double sum = 0.0;
                    for (int j = 0; j < a; j++) sum += H[(3 * j + k) * n + c];
                    colsum = fmax(colsum, fabs(sum));
                }
            CU_ASSERT(asym <= 1e-12 * scale);
            CU_ASSERT(colsum <= 1e-12 * scale);
        }
    }
}

void register_hessian_tests(void)
{
    CU_pSuite s = CU_add_suite("hessian", NULL, NULL);
    CU_add_test(s, "registry_hessians", test_registry_hessians);
    CU_add_test(s, "planted_hessians_fail", test_planted_hessians_fail);
    CU_add_test(s, "symmetric_translation_invariant", test_hessians_symmetric_translation_invariant);
}
