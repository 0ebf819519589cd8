/* The vertex solves' fast path (suite `vertex_block`): each type's vertex_block — C, one
 * particle's gradient row ∇_jC and its Hessian block ∇²_jjC — against eval and the whole
 * Hessian (solver/hessian.c) on the type's random samples; the differences' block of one
 * particle against the whole differences; each type's batched vertex block against its
 * vertex_block at every SIMD width; whole VBD and AVBD steps with the fast path against the
 * generic one (def.kernels = 0) and on 1 against 2 threads.
 *
 * Rounding bound: a vertex_block does the operations of eval and hessian on the particle's
 * entries in the same order (it only leaves the other entries out), so the bound is zero:
 * equal bit for bit; a type whose block is summed in another order states its bound here. */
#include "tests.h"
#include "solver/families.h"
#include "solver/solver_private.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_N3 (3 * PBD_SAMPLE_MAX_ARITY)

/* Where the fast block may differ from the whole Hessian's by rounding: entrywise bound
 * relative to the block's largest entry (0: bit for bit, as explained above). */
static double block_rel_bound(const pbd_constraint_type *type)
{
    (void)type;
    return 0.0;
}

/* Every type with a vertex_block, on 2000 samples (one in four near-degenerate), every
 * particle: the same status as eval; C and ∇_jC equal to eval's; ∇²_jjC defined exactly where
 * the whole Hessian is, and equal to its (j, j) block. */
static void test_blocks_equal_generic(void)
{
    static double x[MAX_N3], xl[MAX_N3], rest[256], grad[MAX_N3], gp[MAX_N3], gm[MAX_N3],
        H[MAX_N3 * MAX_N3];
    static int32_t aux[PBD_SAMPLE_MAX_AUX];
    int n_types = 0;
    for (int t = 0; t < pbd_constraint_type_count(); t++) {
        const pbd_constraint_type *type = pbd_constraint_type_at(t);
        if (!type->vertex_block) continue;
        n_types++;
        pbd_rng r;
        pbd_rng_seed(&r, 500 + (uint64_t)t);
        long compared = 0, blocks = 0, bad = 0;
        for (int s = 0; s < 2000; s++) {
            int n_aux = 0, arity = type->sample(&r, s % 4 == 3, x, rest, aux, &n_aux);
            for (int j = 0; j < arity; j++) {
                memcpy(xl, x, 3 * (size_t)arity * sizeof *x);
                pbd_eval_input in = {xl, arity, rest, aux, n_aux};
                double C, Cf, g[3], B[9];
                int hess_ok = -1;
                int st = type->eval(&in, &C, grad);
                int sf = type->vertex_block(&in, j, &Cf, g, B, &hess_ok);
                CU_ASSERT_EQUAL(sf, st);
                CU_ASSERT_EQUAL(memcmp(xl, x, 3 * (size_t)arity * sizeof *x), 0); /* read only */
                if (st != PBD_EVAL_OK || sf != st) continue;
                compared++;
                int ok = Cf == C && memcmp(g, grad + 3 * j, sizeof g) == 0;
                int hs = pbd_constraint_hessian(type, &in, xl, gp, gm, H);
                ok = ok && hess_ok == (hs == 0);
                if (hs == 0 && hess_ok == 1) {
                    blocks++;
                    int n3 = 3 * arity;
                    double scale = 0.0, worst = 0.0;
                    for (int a = 0; a < 3; a++)
                        for (int b = 0; b < 3; b++)
                            scale = fmax(scale, fabs(H[(size_t)(3 * j + a) * n3 + 3 * j + b]));
                    for (int a = 0; a < 3; a++)
                        for (int b = 0; b < 3; b++)
                            worst = fmax(worst, fabs(B[3 * a + b] -
                                                     H[(size_t)(3 * j + a) * n3 + 3 * j + b]));
                    ok = ok && worst <= block_rel_bound(type) * scale;
                }
                if (!ok && bad++ < 3)
                    fprintf(stderr, "vertex_block %s sample %d particle %d: C %.17g vs %.17g, "
                            "hess_ok %d vs %d\n", type->name, s, j, Cf, C, hess_ok, hs == 0);
            }
        }
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT(compared > 3000 && blocks > 3000); /* the path ran, not only refusals */
    }
    CU_ASSERT(n_types >= 5); /* distance, the two bendings, snh_tet, fem_tet_stvk */
}

/* How far a batch's C may be from the scalar vertex_block's C_s (rest r): 0 where the lanes
 * do the scalar operations (distance; any type with the test hook's scalar math). The
 * dihedral's φ = atan2 is SLEEF's (≤ 3.5 ulp) against glibc's (≤ 1 ulp), so the two φ differ
 * by ≤ 4.5 ulp(φ) ≤ 4.5 ε|φ| (ε = DBL_EPSILON, ulp(x) ≤ ε|x|), and each C = fl(φ − r) adds
 * ≤ ε|C|/2 of rounding: |ΔC| ≤ ε (4.5 |φ| + |C|) to first order; 5 for 4.5 covers the second
 * order, with |φ| ≤ |C_s| + |r|. ∇_jC and ∇²_jjC do not depend on φ: bit for bit. */
double test_vblock_C_bound(const pbd_constraint_type *type, double C, const double *rest)
{
    if (pbd_test_vblock_scalar_math || type != &pbd_bend_dihedral_type) return 0.0;
    return DBL_EPSILON * (5.0 * (fabs(C) + fabs(rest[0])) + fabs(C));
}

/* Every type with a vertex_block_batch, at every SIMD width the CPU has (pbd_test_simd_width:
 * 2, 4, 8; a width the CPU lacks is skipped), with the vector math and with the test hook's
 * scalar math: 3000 samples (one in four near-degenerate) laid
 * out as a set, each particle slot's pairs handed over in one call in a shuffled order (lists
 * whose length is no multiple of the width: the last vector's unused lanes), the results
 * written to shuffled places. Each pair against the scalar vertex_block: the same status and
 * hess_ok, and where eval is OK the same ∇_jC and ∇²_jjC bit for bit and C within
 * test_vblock_C_bound (0 with the scalar math: the lanes do the scalar operations in its order);
 * degenerate (every tenth sample has
 * its first two particles coincident), the same status (C and ∇_jC are unspecified there). */
static void test_batch_equal_scalar(void)
{
    enum { NS = 3000, NR = 16 };
    const int arity_max = 4;
    double *pos = malloc(sizeof(double) * 3 * arity_max * NS), *rest = malloc(sizeof(double) * NR * NS);
    int32_t *idx = malloc(sizeof(int32_t) * arity_max * NS), *cs = malloc(sizeof(int32_t) * NS),
            *os = malloc(sizeof(int32_t) * NS);
    pbd_vertex_terms *out = malloc(sizeof *out * NS);
    CU_ASSERT_FATAL(pos && rest && idx && cs && os && out);
    static int32_t aux[PBD_SAMPLE_MAX_AUX];
    int n_types = 0;
    for (int t = 0; t < pbd_constraint_type_count(); t++) {
        const pbd_constraint_type *type = pbd_constraint_type_at(t);
        if (!type->vertex_block_batch) continue;
        n_types++;
        CU_ASSERT_FATAL(type->arity <= arity_max && type->n_rest <= NR && type->n_rest > 0);
        const int a = type->arity, nr = type->n_rest;
        pbd_rng r;
        pbd_rng_seed(&r, 700 + (uint64_t)t);
        for (int s = 0; s < NS; s++) {
            int n_aux = 0;
            double x[3 * PBD_SAMPLE_MAX_ARITY], rs[256];
            CU_ASSERT_EQUAL_FATAL(type->sample(&r, s % 4 == 3, x, rs, aux, &n_aux), a);
            if (s % 10 == 9) memcpy(x + 3, x, 3 * sizeof(double)); /* coincident: degenerate */
            /* the constraint's particles at scattered places: particle q of sample s at
             * a (NS − 1 − s) + q */
            for (int q = 0; q < a; q++) {
                idx[a * s + q] = a * (NS - 1 - s) + q;
                memcpy(pos + 3 * (size_t)idx[a * s + q], x + 3 * q, 3 * sizeof(double));
            }
            memcpy(rest + (size_t)nr * s, rs, (size_t)nr * sizeof(double));
        }
        int tested_widths = 0;
        for (int pass = 0; pass < 6; pass++) {
            int width = 8 >> (pass / 2);
            pbd_test_vblock_scalar_math = pass % 2;
            pbd_test_simd_width = width;
            if (pbd_simd_width() != width) continue; /* the CPU lacks it */
            tested_widths++;
            long ok_pairs = 0, degenerate = 0, bad = 0, inexact = 0;
            for (int j = 0; j < a; j++) {
                int n = NS - 1 - 7 * j; /* 2999, 2992, ...: every remainder of 8 */
                for (int k = 0; k < n; k++) cs[k] = os[k] = k;
                for (int k = n - 1; k > 0; k--) { /* shuffled constraints and places */
                    int u = (int)(pbd_rng_next(&r) % (uint64_t)(k + 1)), v = (int)(pbd_rng_next(&r) % (uint64_t)(k + 1));
                    int32_t tc = cs[k], to = os[k];
                    cs[k] = cs[u];
                    cs[u] = tc;
                    os[k] = os[v];
                    os[v] = to;
                }
                memset(out, 0xff, sizeof *out * NS);
                type->vertex_block_batch(pos, idx, rest, j, cs, os, n, out);
                for (int k = 0; k < n; k++) {
                    int c = cs[k];
                    double xl[3 * 4], C, g[3], B[9];
                    int hess_ok = -1;
                    for (int q = 0; q < a; q++)
                        memcpy(xl + 3 * q, pos + 3 * (size_t)idx[a * c + q], 3 * sizeof(double));
                    pbd_eval_input in = {xl, a, rest + (size_t)nr * c, NULL, 0};
                    int st = type->vertex_block(&in, j, &C, g, B, &hess_ok);
                    const pbd_vertex_terms *o = &out[os[k]];
                    int same = o->status == st && o->hess_ok == (st == PBD_EVAL_OK ? hess_ok : 0);
                    if (st == PBD_EVAL_OK) {
                        ok_pairs++;
                        double bound = test_vblock_C_bound(type, C, rest + (size_t)nr * c);
                        inexact += o->C != C;
                        same = same && (bound > 0.0 ? fabs(o->C - C) <= bound
                                                    : memcmp(&o->C, &C, sizeof C) == 0) &&
                               memcmp(o->g, g, sizeof g) == 0 &&
                               (!hess_ok || memcmp(o->B, B, sizeof B) == 0);
                    } else {
                        degenerate++;
                    }
                    if (!same && bad++ < 3)
                        fprintf(stderr, "\n  %s batch width %d slot %d constraint %d: status %d "
                                "vs %d, C %.17g vs %.17g\n", type->name, width, j, c, o->status, st,
                                o->C, C);
                }
            }
            CU_ASSERT_EQUAL(bad, 0);
            CU_ASSERT(ok_pairs > 4000 && degenerate > 400); /* both kinds of lanes ran */
            /* the dihedral's vector atan2 did run (it differs from glibc's in a fifth of
             * the pairs) */
            if (type == &pbd_bend_dihedral_type && !pbd_test_vblock_scalar_math)
                CU_ASSERT(inexact > ok_pairs / 20);
        }
        pbd_test_simd_width = 0;
        pbd_test_vblock_scalar_math = 0;
        CU_ASSERT(tested_widths >= 1);
    }
    CU_ASSERT(n_types >= 2); /* distance, bend_dihedral */
    free(pos);
    free(rest);
    free(idx);
    free(cs);
    free(os);
    free(out);
}

/* The differences' block of one particle (6 evaluations) is the whole differences' (j, j)
 * block bit for bit, wherever both are defined: every particle type without an analytic
 * Hessian, on its samples. */
static void test_difference_block(void)
{
    static double x[MAX_N3], rest[256], gp[MAX_N3], gm[MAX_N3], H[MAX_N3 * MAX_N3];
    static int32_t aux[PBD_SAMPLE_MAX_AUX];
    int n_types = 0;
    for (int t = 0; t < pbd_constraint_type_count(); t++) {
        const pbd_constraint_type *type = pbd_constraint_type_at(t);
        if (type->hessian || !type->eval || type->n_orient > 0 || !type->sample) continue;
        n_types++;
        pbd_rng r;
        pbd_rng_seed(&r, 900 + (uint64_t)t);
        long blocks = 0, bad = 0;
        for (int s = 0; s < 200; s++) {
            int n_aux = 0, arity = type->sample(&r, 0, x, rest, aux, &n_aux);
            int n3 = 3 * arity;
            pbd_eval_input in = {x, arity, rest, aux, n_aux};
            if (pbd_constraint_hessian(type, &in, x, gp, gm, H) != 0) continue;
            for (int j = 0; j < arity && j < 8; j++) {
                double B[9], Hs[9];
                if (pbd_constraint_hessian_block(type, &in, j, x, gp, gm, Hs, B) != 0) continue;
                blocks++;
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++)
                        bad += B[3 * a + b] != H[(size_t)(3 * j + a) * n3 + 3 * j + b];
            }
        }
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT(blocks > 100);
        if (bad) fprintf(stderr, "difference block %s: %ld entries differ\n", type->name, bad);
    }
    CU_ASSERT(n_types >= 1); /* fem_tet_corotated */
}

/* A 48² bending cloth (parallel above 2048 particles) with both bending models on its hinges,
 * lifted out of plane at random so that no hinge is flat (the dihedral angle's kink). */
static pbd_world *bent_cloth(pbd_method method, int kernels, int threads)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 48;
    sp.compliance = 1e-6;
    sp.k_bend = 1.0;
    sp.bend_compliance = 1e-2;
    pbd_world *w = pbd_scene_cloth_bend(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    int hinges = -1;
    for (int s = 0; s < w->n_sets; s++)
        if (w->sets[s].type == &pbd_bend_dihedral_type) hinges = s;
    CU_ASSERT_FATAL(hinges >= 0);
    int iso = pbd_world_add_set(w, &pbd_bend_isometric_type, 0);
    const pbd_constraint_set *h = &w->sets[hinges];
    for (int c = 0; c < h->count; c++) pbd_set_add(w, iso, h->idx + 4 * c, NULL, 1.0, 3e-3);
    pbd_rng r;
    pbd_rng_seed(&r, 77);
    for (int i = 0; i < w->n; i++) w->x[3 * i + 1] = w->p[3 * i + 1] = 0.02 * pbd_rng_uniform(&r);
    w->def.method = method;
    w->def.iterations = 3;
    w->def.kernels = kernels;
    w->def.threads = threads;
    return w;
}

/* Two steps of VBD and AVBD with the fast path (the batched sweep, solver/vbd/vbd_batch.c, at
 * every SIMD width the CPU has) against the generic path and on 2 threads against 1. With the
 * batches' scalar math (test hook) every result is the same bits (bound 0, see the top of the
 * file); with the dihedral's vector atan2, 1 and 2 threads still give the same bits (a pair's
 * result does not depend on its lane or block), and the fast path stays within STEP_BOUND of
 * the generic one: each dihedral pair's C moves by ≤ ε(5|φ| + |C|) ≤ 2e-15 (test_vblock_C_bound,
 * |φ| ≤ π), its force λ⁺∇_jC by ≤ k·2e-15·|∇_jC| ≤ 2e-11 N (k ≤ 1/α = 100, |∇_jC| ≤ ~2/edge
 * = 1e2 /m on this 1 m, 48² cloth), and a visit's step, over ≤ 8 hinges and H_i ≥ m/h² =
 * (1 kg/48²)/(1/60 s)² = 1.56 N/m, by ≤ 1e-10 m; 6 iterations: ≤ 6e-10 m, to first order.
 * The bound is 1e-9 m (observed 2e-16 m: the springs' 1e6 N/m, not m/h², hold the
 * particles); the batch's C itself is held to test_vblock_C_bound above. */
#define STEP_BOUND 1e-9
static void test_steps_equal(void)
{
    const pbd_method methods[2] = {PBD_METHOD_VBD, PBD_METHOD_AVBD};
    for (int width = 8; width >= 2; width /= 2)
    for (int m = 0; m < 2; m++)
    for (int scalar = 1; scalar >= 0; scalar--) {
        pbd_test_simd_width = width;
        pbd_test_vblock_scalar_math = scalar;
        if (pbd_simd_width() != width) continue; /* the CPU lacks it */
        pbd_world *fast = bent_cloth(methods[m], 1, 1), *generic = bent_cloth(methods[m], 0, 1),
                  *two = bent_cloth(methods[m], 1, 2), *start = bent_cloth(methods[m], 1, 1);
        for (int s = 0; s < 2; s++) {
            CU_ASSERT_EQUAL_FATAL(pbd_step(fast), PBD_OK);
            CU_ASSERT_EQUAL_FATAL(pbd_step(generic), PBD_OK);
            CU_ASSERT_EQUAL_FATAL(pbd_step(two), PBD_OK);
        }
        size_t bytes = 3 * (size_t)fast->n * sizeof(double);
        CU_ASSERT(two->stats.threads == 2);
        CU_ASSERT_EQUAL(memcmp(fast->x, two->x, bytes), 0);
        CU_ASSERT_EQUAL(memcmp(fast->v, two->v, bytes), 0);
        double dx = 0.0;
        for (int i = 0; i < 3 * fast->n; i++) dx = fmax(dx, fabs(fast->x[i] - generic->x[i]));
        if (scalar) {
            CU_ASSERT_EQUAL(memcmp(fast->x, generic->x, bytes), 0);
            CU_ASSERT_EQUAL(memcmp(fast->v, generic->v, bytes), 0);
        } else {
            CU_ASSERT(dx <= STEP_BOUND);
            CU_ASSERT(dx > 0.0); /* the vector atan2 ran */
        }
        double moved = 0.0; /* the bending forces acted: a real problem */
        for (int i = 0; i < 3 * fast->n; i++) moved = fmax(moved, fabs(fast->x[i] - start->x[i]));
        CU_ASSERT(moved > 1e-4);
        pbd_world_free(fast);
        pbd_world_free(generic);
        pbd_world_free(two);
        pbd_world_free(start);
    }
    pbd_test_simd_width = 0;
    pbd_test_vblock_scalar_math = 0;
}

/* The tet beam of each material (Stable Neo-Hookean, StVK: vertex blocks; corotated: the
 * differences' block), two VBD and two AVBD steps: the fast path's bits are the generic
 * path's. */
static void test_tet_steps_equal(void)
{
    const pbd_method methods[2] = {PBD_METHOD_VBD, PBD_METHOD_AVBD};
    for (int material = 1; material <= 3; material++)
        for (int m = 0; m < 2; m++) {
            pbd_world *w[2];
            for (int k = 0; k < 2; k++) {
                pbd_scene_params sp = pbd_scene_params_default();
                sp.resolution = 8;
                sp.material = material;
                w[k] = pbd_scene_tet_beam(&sp);
                CU_ASSERT_PTR_NOT_NULL_FATAL(w[k]);
                w[k]->def.method = methods[m];
                w[k]->def.iterations = 4;
                w[k]->def.kernels = k == 0;
            }
            size_t bytes = 3 * (size_t)w[0]->n * sizeof(double);
            double *x0 = malloc(bytes), moved = 0.0;
            memcpy(x0, w[0]->x, bytes);
            for (int k = 0; k < 2; k++)
                for (int s = 0; s < 2; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w[k]), PBD_OK);
            CU_ASSERT_EQUAL(memcmp(w[0]->x, w[1]->x, bytes), 0);
            for (int i = 0; i < 3 * w[0]->n; i++) moved = fmax(moved, fabs(w[0]->x[i] - x0[i]));
            CU_ASSERT(moved > 1e-4); /* the beam sags: the elastic forces act */
            if (!(moved > 1e-4)) fprintf(stderr, "tet_steps_equal: material %d moved %g\n", material, moved);
            free(x0);
            pbd_world_free(w[0]);
            pbd_world_free(w[1]);
        }
}

void register_vertex_block_tests(void)
{
    CU_pSuite s = CU_add_suite("vertex_block", NULL, NULL);
    CU_add_test(s, "blocks_equal_generic", test_blocks_equal_generic);
    CU_add_test(s, "batch_equal_scalar", test_batch_equal_scalar);
    CU_add_test(s, "difference_block", test_difference_block);
    CU_add_test(s, "steps_equal", test_steps_equal);
    CU_add_test(s, "tet_steps_equal", test_tet_steps_equal);
}
