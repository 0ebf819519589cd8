/* The gradient checker must fail what is wrong: planted wrong gradients (sign, factor 2,
 * a 1e-4 relative error), a type that wrongly claims to be internal, a type that makes
 * NaN on near-degenerate input, a sampler that breaks its contract; and it must pass the
 * real distance type and a linear type whose Taylor remainder is pure rounding. */
#include "analysis/pbd_analysis.h"
#include "tests.h"

#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- planted types -------------------------------------------------------------------- */

static pbd_gradcheck_result check(const pbd_constraint_type *t, int samples)
{
    pbd_gradcheck_options o = pbd_gradcheck_options_default();
    o.samples = samples;
    o.degenerate_samples = samples / 4;
    pbd_gradcheck_result r;
    CU_ASSERT_EQUAL_FATAL(pbd_gradcheck_type(t, &o, &r), PBD_OK);
    return r;
}

/* distance with ∇C scaled by a planted factor */
static double planted_factor;
static int distance_scaled_eval(const pbd_eval_input *in, double *C, double *grad)
{
    int st = pbd_distance_type.eval(in, C, grad);
    if (grad)
        for (int i = 0; i < 6; i++) grad[i] *= planted_factor;
    return st;
}
static int distance_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                           int *n_aux)
{
    return pbd_distance_type.sample(r, degenerate, x, rest, aux, n_aux);
}
static const pbd_constraint_type distance_scaled = {
    .name = "distance_scaled", .arity = 2, .n_rest = 1, .internal = 1,
    .eval = distance_scaled_eval, .sample = distance_sample,
};

static pbd_gradcheck_result check_scaled(double factor)
{
    planted_factor = factor;
    return check(&distance_scaled, 1000);
}

/* |p1 - t| with a fixed target t = rest, and p2 unused, wrongly claiming to be internal:
 * its gradient is right but Σ∇C ≠ 0 (a pinned particle takes momentum). */
static int tether_eval(const pbd_eval_input *in, double *C, double *grad)
{
    double d[3] = {in->x[0] - in->rest[0], in->x[1] - in->rest[1], in->x[2] - in->rest[2]};
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    *C = len;
    if (len < 1e-12) return PBD_EVAL_DEGENERATE;
    if (grad) {
        for (int k = 0; k < 3; k++) grad[k] = d[k] / len, grad[3 + k] = 0.0;
    }
    return PBD_EVAL_OK;
}
static int tether_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                         int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    for (int i = 0; i < 6; i++) x[i] = pbd_rng_gaussian(r);
    for (int k = 0; k < 3; k++) rest[k] = x[k] + (degenerate ? 1e-9 : 1.0) * pbd_rng_gaussian(r);
    return 2;
}
static const pbd_constraint_type tether_claims_internal = {
    .name = "tether_claims_internal", .arity = 2, .n_rest = 3, .internal = 1,
    .eval = tether_eval, .sample = tether_sample,
};

/* distance without the degenerate guard: 0/0 when the points coincide, which its
 * near-degenerate sampler produces exactly. */
static int unguarded_eval(const pbd_eval_input *in, double *C, double *grad)
{
    const double *a = in->x, *b = in->x + 3;
    double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    *C = len - in->rest[0];
    if (grad)
        for (int k = 0; k < 3; k++) grad[k] = d[k] / len, grad[3 + k] = -d[k] / len;
    return PBD_EVAL_OK;
}
static int coincident_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                             int *n_aux)
{
    int a = pbd_distance_type.sample(r, degenerate, x, rest, aux, n_aux);
    if (degenerate)
        for (int k = 0; k < 3; k++) x[3 + k] = x[k];
    return a;
}
static const pbd_constraint_type distance_unguarded = {
    .name = "distance_unguarded", .arity = 2, .n_rest = 1, .internal = 1,
    .eval = unguarded_eval, .sample = coincident_sample,
};

/* C = (p - q)·n, linear (a plane), with a factor on ∇C. */
static int plane_eval(const pbd_eval_input *in, double *C, double *grad)
{
    const double *q = in->rest, *n = in->rest + 3;
    *C = (in->x[0] - q[0]) * n[0] + (in->x[1] - q[1]) * n[1] + (in->x[2] - q[2]) * n[2];
    if (grad)
        for (int k = 0; k < 3; k++) grad[k] = planted_factor * n[k];
    return PBD_EVAL_OK;
}
static int plane_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                        int *n_aux)
{
    (void)aux, (void)degenerate;
    *n_aux = 0;
    double n[3], len = 0.0;
    for (int k = 0; k < 3; k++) {
        x[k] = pbd_rng_gaussian(r);
        rest[k] = pbd_rng_gaussian(r);
        n[k] = pbd_rng_gaussian(r);
        len += n[k] * n[k];
    }
    for (int k = 0; k < 3; k++) rest[3 + k] = n[k] / sqrt(len);
    return 1;
}
static const pbd_constraint_type plane_linear = {
    .name = "plane_linear", .arity = 1, .n_rest = 6, .inequality = 1,
    .eval = plane_eval, .sample = plane_sample,
};

/* A sampler that returns 3 particles for an arity-2 type. */
static int wrong_arity_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                              int *n_aux)
{
    pbd_distance_type.sample(r, degenerate, x, rest, aux, n_aux);
    for (int k = 0; k < 3; k++) x[6 + k] = x[k];
    return 3;
}

/* ---- the checker ------------------------------------------------------------------------ */

static void test_real_distance_passes(void)
{
    pbd_gradcheck_result r = check(&pbd_distance_type, 1000);
    CU_ASSERT(r.pass);
    CU_ASSERT_EQUAL(r.checked, 1000);
    CU_ASSERT(r.max_rel_err <= 1e-6);
    CU_ASSERT(r.taylor_order >= 1.8 && r.taylor_order <= 2.2);
    CU_ASSERT_EQUAL(r.momentum, PBD_GC_MOMENTUM_OK);
    CU_ASSERT_EQUAL(r.degenerate_samples, 250);
    CU_ASSERT_EQUAL(r.degenerate_nonfinite, 0);
    char line[256];
    pbd_gradcheck_format_line(line, sizeof line, &r);
    char name[64], verdict[16], momentum[16], order[16];
    int n;
    double err, h_err, h_order;
    CU_ASSERT_EQUAL(sscanf(line, "%63s samples=%d max_rel_err=%lg taylor_order=%15s momentum=%15s "
                           "hessian_max_rel_err=%lg hessian_taylor_order=%lg %15s", name, &n,
                           &err, order, momentum, &h_err, &h_order, verdict), 8);
    CU_ASSERT(r.has_hessian && h_err <= 1e-6); /* distance has one */
    CU_ASSERT(h_order >= 1.8 && h_order <= 2.2);
    CU_ASSERT_STRING_EQUAL(name, "distance");
    CU_ASSERT_EQUAL(n, 1000);
    CU_ASSERT_STRING_EQUAL(momentum, "ok");
    CU_ASSERT_STRING_EQUAL(verdict, "PASS");
    pbd_gradcheck_result_free(&r);
}

static void test_sign_flip_fails(void)
{
    pbd_gradcheck_result r = check_scaled(-1.0);
    CU_ASSERT(!r.pass);
    CU_ASSERT(r.max_rel_err > 1.5 && r.max_rel_err <= 2.0 + 1e-9); /* |g - (-g)| / |g| = 2 */
    CU_ASSERT(r.taylor_order < 1.2); /* remainder ~ 2h|∇C·d|: first order */
    char line[256];
    pbd_gradcheck_format_line(line, sizeof line, &r);
    CU_ASSERT(strstr(line, " FAIL") != NULL);
    pbd_gradcheck_result_free(&r);
}

static void test_factor_two_fails(void)
{
    pbd_gradcheck_result r = check_scaled(2.0);
    CU_ASSERT(!r.pass);
    CU_ASSERT(r.max_rel_err > 0.4 && r.max_rel_err < 0.6); /* |2g - g| / |2g| = 1/2 */
    CU_ASSERT(r.taylor_order < 1.2);
    /* momentum is still conserved: Σ 2∇C = 0 — the FD and Taylor checks catch it */
    CU_ASSERT_EQUAL(r.momentum, PBD_GC_MOMENTUM_OK);
    pbd_gradcheck_result_free(&r);
}

/* A relative error of 1e-4 is far above the FD's resolution. */
static void test_small_error_fails(void)
{
    pbd_gradcheck_result r = check_scaled(1.0 + 1e-4);
    CU_ASSERT(!r.pass);
    CU_ASSERT(r.max_rel_err > 5e-5 && r.max_rel_err < 2e-4);
    pbd_gradcheck_result_free(&r);
    r = check_scaled(1.0); /* the same wrapper unscaled passes: the wrapper is not the cause */
    CU_ASSERT(r.pass);
    pbd_gradcheck_result_free(&r);
}

static void test_false_internal_fails_momentum(void)
{
    pbd_gradcheck_result r = check(&tether_claims_internal, 500);
    CU_ASSERT(r.max_rel_err <= 1e-6); /* the gradient itself is right */
    CU_ASSERT(r.taylor_order >= 1.8);
    CU_ASSERT_EQUAL(r.momentum, PBD_GC_MOMENTUM_FAIL);
    CU_ASSERT(r.momentum_err > 0.1);
    CU_ASSERT(!r.pass);
    pbd_gradcheck_result_free(&r);
    pbd_constraint_type honest = tether_claims_internal; /* not internal: n/a and PASS */
    honest.internal = 0;
    r = check(&honest, 500);
    CU_ASSERT_EQUAL(r.momentum, PBD_GC_MOMENTUM_NA);
    CU_ASSERT(r.pass);
    pbd_gradcheck_result_free(&r);
}

static void test_nan_on_degenerate_fails(void)
{
    pbd_gradcheck_result r = check(&distance_unguarded, 400);
    CU_ASSERT(r.max_rel_err <= 1e-6); /* regular samples are fine … */
    CU_ASSERT_EQUAL(r.nonfinite, 0);
    CU_ASSERT_EQUAL(r.degenerate_nonfinite, 100); /* … every coincident one makes NaN */
    CU_ASSERT(!r.pass);
    for (int s = 0; s < r.degenerate_samples; s++)
        CU_ASSERT_EQUAL(r.degenerate_status[s], PBD_GC_SAMPLE_NONFINITE);
    pbd_gradcheck_result_free(&r);
    /* the guarded distance skips the same coincident points without NaN */
    pbd_constraint_type guarded = distance_unguarded;
    guarded.eval = pbd_distance_type.eval;
    r = check(&guarded, 400);
    CU_ASSERT(r.pass);
    CU_ASSERT_EQUAL(r.degenerate_skipped, 100);
    CU_ASSERT_EQUAL(r.degenerate_nonfinite, 0);
    pbd_gradcheck_result_free(&r);
}

/* Linear C: the remainder is rounding at every h, so the order is "exact" and passes;
 * with a wrong gradient the remainder is h|δ∇C·d| and the order is 1. */
static void test_linear_exact(void)
{
    planted_factor = 1.0;
    pbd_gradcheck_result r = check(&plane_linear, 500);
    CU_ASSERT(r.pass);
    CU_ASSERT(isinf(r.taylor_order) && r.taylor_order > 0);
    CU_ASSERT_EQUAL(r.taylor_exact, 500);
    CU_ASSERT_EQUAL(r.momentum, PBD_GC_MOMENTUM_NA);
    char line[256];
    pbd_gradcheck_format_line(line, sizeof line, &r);
    CU_ASSERT(strstr(line, " taylor_order=exact momentum=n/a PASS") != NULL);
    pbd_gradcheck_result_free(&r);
    planted_factor = 2.0;
    r = check(&plane_linear, 500);
    CU_ASSERT(!r.pass);
    CU_ASSERT(r.taylor_order < 1.2);
    CU_ASSERT_EQUAL(r.taylor_exact, 0);
    pbd_gradcheck_result_free(&r);
}

static void test_broken_sampler_fails(void)
{
    pbd_constraint_type t = pbd_distance_type;
    t.name = "distance_wrong_arity";
    t.sample = wrong_arity_sample;
    pbd_gradcheck_result r = check(&t, 40);
    CU_ASSERT(!r.pass);
    CU_ASSERT_EQUAL(r.invalid, 50);
    pbd_gradcheck_result_free(&r);
    pbd_constraint_type none = pbd_distance_type;
    none.sample = NULL;
    pbd_gradcheck_options o = pbd_gradcheck_options_default();
    CU_ASSERT_EQUAL(pbd_gradcheck_type(&none, &o, &r), PBD_EINVAL);
}

/* The same seed gives the same samples, whether a type is checked alone or not. */
static void test_reproducible(void)
{
    pbd_gradcheck_result a = check(&pbd_distance_type, 200), b = check(&pbd_distance_type, 200);
    CU_ASSERT_EQUAL(memcmp(a.rel_err, b.rel_err, 200 * sizeof(double)), 0);
    CU_ASSERT_EQUAL(memcmp(a.order, b.order, 200 * sizeof(double)), 0);
    pbd_gradcheck_options o = pbd_gradcheck_options_default();
    o.samples = 200;
    o.seed = 2;
    pbd_gradcheck_result c;
    pbd_gradcheck_type(&pbd_distance_type, &o, &c);
    CU_ASSERT(memcmp(a.rel_err, c.rel_err, 200 * sizeof(double)) != 0);
    pbd_gradcheck_result_free(&a);
    pbd_gradcheck_result_free(&b);
    pbd_gradcheck_result_free(&c);
}

/* Every registered type passes (what `make gradcheck` checks, with fewer samples). */
static void test_registry_passes(void)
{
    for (int i = 0; i < pbd_constraint_type_count(); i++) {
        const pbd_constraint_type *t = pbd_constraint_type_at(i);
        pbd_gradcheck_result r = check(t, 300);
        if (!r.pass) {
            char line[256];
            pbd_gradcheck_format_line(line, sizeof line, &r);
            fprintf(stderr, "\n  %s\n", line);
        }
        CU_ASSERT(r.pass);
        CU_ASSERT(r.checked >= 290);
        CU_ASSERT_EQUAL(r.momentum, t->internal ? PBD_GC_MOMENTUM_OK : PBD_GC_MOMENTUM_NA);
        pbd_gradcheck_result_free(&r);
    }
}

/* Eq. 28 solves the linearized constraint (PBD Eq. 3) to rounding; the slides' step
 * does not, and reduces |C| less. */
static void test_bend_variants(void)
{
    pbd_gradcheck_options o = pbd_gradcheck_options_default();
    o.samples = 300;
    pbd_bend_variants_result v;
    CU_ASSERT_EQUAL_FATAL(pbd_bend_variants(&o, &v), PBD_OK);
    CU_ASSERT_EQUAL(v.samples + v.skipped, 300);
    CU_ASSERT(v.samples >= 290);
    CU_ASSERT(v.eq28_linearized.max < 1e-10);
    CU_ASSERT(v.slides_linearized.median > 1e-2);
    CU_ASSERT(v.slides_linearized.min <= v.slides_linearized.median &&
              v.slides_linearized.median <= v.slides_linearized.max);
    CU_ASSERT(v.eq28_step_ratio.median < v.slides_step_ratio.median);
}

/* ---- the program and its HDF5 file ------------------------------------------------------ */

static int run_gradcheck(const char *args, const char *out_file)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/pbd-gradcheck %s >%s 2>&1", test_bin_dir(), args,
             out_file ? out_file : "/dev/null");
    return test_run(cmd);
}

static void test_program_output(void)
{
    char dir[] = "/tmp/pbd-gradcheck-XXXXXX";
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    char h5[256], txt[256], args[512];
    snprintf(h5, sizeof h5, "%s/sub/gradcheck.h5", dir); /* sub/ is created */
    snprintf(txt, sizeof txt, "%s/out.txt", dir);
    snprintf(args, sizeof args, "--constraint distance --samples 300 --seed 5 --output %s", h5);
    CU_ASSERT_EQUAL(run_gradcheck(args, txt), 0);

    FILE *f = fopen(txt, "r");
    CU_ASSERT_FATAL(f != NULL);
    char line[512];
    CU_ASSERT_FATAL(fgets(line, sizeof line, f) != NULL);
    char verdict[16], order[16];
    int n;
    double err;
    CU_ASSERT_EQUAL(sscanf(line, "distance samples=%d max_rel_err=%lg taylor_order=%15s "
                           "momentum=ok hessian_max_rel_err=%*g hessian_taylor_order=%*s %15s",
                           &n, &err, order, verdict), 4);
    CU_ASSERT_EQUAL(n, 300);
    CU_ASSERT_STRING_EQUAL(verdict, "PASS");
    CU_ASSERT_FATAL(fgets(line, sizeof line, f) != NULL);
    CU_ASSERT_STRING_EQUAL(line, "1 passed, 0 failed\n");
    while (fgets(line, sizeof line, f)) CU_ASSERT_EQUAL(line[0], '#');
    fclose(f);

    hid_t file = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
    CU_ASSERT_FATAL(file >= 0);
    int samples = 0, rank = 0;
    CU_ASSERT(H5LTget_attribute_int(file, "/", "samples", &samples) >= 0);
    CU_ASSERT_EQUAL(samples, 300);
    unsigned long seed = 0;
    CU_ASSERT(H5LTget_attribute_ulong(file, "/", "seed", &seed) >= 0);
    CU_ASSERT_EQUAL(seed, 5);
    CU_ASSERT(H5LTfind_attribute(file, "date") == 1);
    CU_ASSERT(H5LTfind_attribute(file, "pbdlab_version") == 1);
    CU_ASSERT(H5LTget_dataset_ndims(file, "/distance/max_rel_err", &rank) >= 0);
    hsize_t dims[1] = {0};
    H5T_class_t cls;
    size_t size;
    CU_ASSERT(H5LTget_dataset_info(file, "/distance/max_rel_err", dims, &cls, &size) >= 0);
    CU_ASSERT_EQUAL(dims[0], 300);
    double rel[300], file_max = 0.0;
    CU_ASSERT(H5LTread_dataset_double(file, "/distance/max_rel_err", rel) >= 0);
    for (int i = 0; i < 300; i++) file_max = fmax(file_max, rel[i]);
    CU_ASSERT(fabs(file_max - err) <= 5e-3 * err); /* the table prints it with %.3g */
    CU_ASSERT(H5LTget_dataset_info(file, "/distance/degenerate_status", dims, &cls, &size) >= 0);
    CU_ASSERT_EQUAL(dims[0], 75);
    CU_ASSERT(H5LTfind_dataset(file, "distance") == 1);
    H5Fclose(file);

    /* no temporary file is left next to it */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls %s/sub | grep -q tmp", dir);
    CU_ASSERT_NOT_EQUAL(test_run(cmd), 0);
    test_remove_dir(dir);
}

static void test_program_flags(void)
{
    CU_ASSERT_EQUAL(run_gradcheck("--help", NULL), 0);
    CU_ASSERT_EQUAL(run_gradcheck("--version", NULL), 0);
    CU_ASSERT_EQUAL(run_gradcheck("--samples=0", NULL), 2);
    CU_ASSERT_EQUAL(run_gradcheck("--samples=abc", NULL), 2);
    CU_ASSERT_EQUAL(run_gradcheck("--seed=-1", NULL), 2);
    CU_ASSERT_EQUAL(run_gradcheck("--constraint=no_such_type", NULL), 2);
    CU_ASSERT_EQUAL(run_gradcheck("--no-such-flag", NULL), 2);
    CU_ASSERT_EQUAL(run_gradcheck("extra", NULL), 2);
    /* an unwritable output: one error line, exit 3 (experiments/README.md "Robustness"),
     * nothing left */
    CU_ASSERT_EQUAL(run_gradcheck("--constraint distance --samples 20 "
                                  "--output /proc/pbd-no-such-dir/x.h5", NULL), 3);
}

void register_gradcheck_tests(void)
{
    CU_pSuite s = CU_add_suite("gradcheck", NULL, NULL);
    CU_add_test(s, "real_distance_passes", test_real_distance_passes);
    CU_add_test(s, "sign_flip_fails", test_sign_flip_fails);
    CU_add_test(s, "factor_two_fails", test_factor_two_fails);
    CU_add_test(s, "small_error_fails", test_small_error_fails);
    CU_add_test(s, "false_internal_fails_momentum", test_false_internal_fails_momentum);
    CU_add_test(s, "nan_on_degenerate_fails", test_nan_on_degenerate_fails);
    CU_add_test(s, "linear_exact", test_linear_exact);
    CU_add_test(s, "broken_sampler_fails", test_broken_sampler_fails);
    CU_add_test(s, "reproducible", test_reproducible);
    CU_add_test(s, "registry_passes", test_registry_passes);
    CU_add_test(s, "bend_variants", test_bend_variants);
    CU_add_test(s, "program_output", test_program_output);
    CU_add_test(s, "program_flags", test_program_flags);
}
