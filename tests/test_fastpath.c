/* The fast path is held equal to the reference (suite `fastpath`): batched kernels against
 * the generic projection (constraint by constraint and over whole runs), coloured GS with
 * kernels against coloured GS without, and the generic path's committed hash. Threads,
 * the sorted layout, the measure switch and the memory count are suite `fastpath_layout`
 * (tests/test_fastpath_layout.c). */
#include "tests.h"
#include "fastpath_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_doubles(const double *a, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    const unsigned char *b = (const unsigned char *)a;
    for (size_t i = 0; i < n * sizeof(double); i++) h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

/* ---- one constraint at a time ------------------------------------------------------ */

/* A world of one constraint of `type` on particles 0 .. arity-1 at x (inverse masses w),
 * no gravity, at rest: a step predicts p = x, projects with def's scheme and method, and
 * leaves the projected positions in x and the step's λ in the set. */
static pbd_world *one_constraint(const pbd_constraint_type *type, const double *x,
                                 const double *w, int arity, const double *rest, double k,
                                 double alpha)
{
    pbd_world *wd = pbd_world_create(arity);
    for (int j = 0; j < arity; j++)
        pbd_world_set_particle(wd, j, x + 3 * j, NULL, w[j] > 0.0 ? 1.0 / w[j] : 0.0);
    wd->def.gravity[1] = 0.0;
    int s = pbd_world_add_set(wd, type, arity);
    int32_t idx[PBD_SAMPLE_MAX_ARITY];
    for (int j = 0; j < arity; j++) idx[j] = j;
    pbd_set_add(wd, s, idx, rest, k, alpha);
    return wd;
}

/* Every kernel of every type (GS and colour, PBD and XPBD) against the generic path
 * (def.kernels = 0, the same one-constraint world) on the type's random samples, regular
 * and near-degenerate, with random inverse masses (some zero, some constraints all fixed),
 * random stiffness and compliance, two iterations (so XPBD's α̃λ term is exercised): the
 * same constraints skipped, and the same positions and λ — bit for bit for the kernels that
 * do the generic arithmetic, to 1e-13 relative for distance's closed form (Eq. 10/11). */
static void test_kernels_equal_generic(void)
{
    static double x0[3 * PBD_SAMPLE_MAX_ARITY], w[PBD_SAMPLE_MAX_ARITY], rest[64];
    static int32_t aux[PBD_SAMPLE_MAX_AUX];
    int with_kernels = 0;
    for (int t = 0; t < pbd_constraint_type_count(); t++) {
        const pbd_constraint_type *type = pbd_constraint_type_at(t);
        if (!type->kernels) continue;
        with_kernels++;
        const int closed_form = type == &pbd_distance_type;
        pbd_rng r;
        pbd_rng_seed(&r, 99 + (uint64_t)t);
        long mismatched = 0, moved = 0, skip_mismatch = 0, skipped = 0;
        double worst = 0.0;
        for (int s = 0; s < 1500; s++) {
            int n_aux = 0;
            int arity = type->sample(&r, s % 4 == 3, x0, rest, aux, &n_aux);
            for (int j = 0; j < arity; j++)
                w[j] = s % 9 == 0 && j == 0 ? 0.0 : pbd_rng_range(&r, 0.1, 5.0);
            if (s % 97 == 0)
                for (int j = 0; j < arity; j++) w[j] = 0.0; /* all fixed: skipped */
            double k = pbd_rng_uniform(&r), alpha = s % 5 == 0 ? 0.0 : pbd_rng_range(&r, 0.0, 1e-3);
            for (int combo = 0; combo < 4; combo++) {
                pbd_world *a = one_constraint(type, x0, w, arity, rest, k, alpha);
                pbd_world *b = one_constraint(type, x0, w, arity, rest, k, alpha);
                a->def.method = b->def.method = combo % 2;
                a->def.scheme = b->def.scheme = combo < 2 ? PBD_SCHEME_GAUSS_SEIDEL
                                                          : PBD_SCHEME_COLORED_GS;
                a->def.iterations = b->def.iterations = 2;
                b->def.kernels = 0;
                pbd_step(a); /* PBD_ENUMERIC is possible on near-degenerate input: compare anyway */
                pbd_step(b);
                if (a->stats.skipped != b->stats.skipped) skip_mismatch++;
                skipped += b->stats.skipped;
                if (memcmp(a->x, x0, 3 * (size_t)arity * sizeof *x0) != 0) moved++;
                double la = a->sets[0].lambda[0], lb = b->sets[0].lambda[0];
                if (closed_form) {
                    double scale = 1.0;
                    for (int i = 0; i < 3 * arity; i++) scale = fmax(scale, fabs(x0[i]));
                    double e = fmax(max_abs_diff(a->x, b->x, 3 * (size_t)arity) / scale,
                                    fabs(la - lb) / fmax(1.0, fabs(lb)));
                    worst = fmax(worst, e);
                } else if (memcmp(a->x, b->x, 3 * (size_t)arity * sizeof *x0) != 0 ||
                           memcmp(&la, &lb, sizeof la) != 0) {
                    mismatched++;
                }
                pbd_world_free(a);
                pbd_world_free(b);
            }
        }
        if (mismatched || skip_mismatch || worst > 1e-13)
            fprintf(stderr, "\n  %s: %ld not bit-identical, %ld skip mismatches, worst %.2e\n",
                    type->name, mismatched, skip_mismatch, worst);
        CU_ASSERT_EQUAL(mismatched, 0);
        CU_ASSERT_EQUAL(skip_mismatch, 0);
        CU_ASSERT(worst <= 1e-13);
        CU_ASSERT(moved > 2000); /* the comparison saw real projections */
        CU_ASSERT(skipped > 20);  /* and degenerate ones */
    }
    CU_ASSERT(with_kernels >= 4); /* distance, dihedral, isometric bending, tet volume */
}

/* The colour kernels (which may group constraints, e.g. two per SIMD vector) against the
 * Gauss–Seidel kernels: on a world of many disjoint constraints (the type's random samples,
 * some near-degenerate, some with fixed particles) Gauss–Seidel order and one colour are
 * the same schedule, so coloured GS on 1 or 2 threads must give GS's bits exactly. */
static void test_colour_kernels_equal_sequential(void)
{
    enum { N = 600 };
    static double x[3 * PBD_SAMPLE_MAX_ARITY], rest[64];
    static int32_t aux[PBD_SAMPLE_MAX_AUX];
    for (int t = 0; t < pbd_constraint_type_count(); t++) {
        const pbd_constraint_type *type = pbd_constraint_type_at(t);
        if (!type->kernels || type->arity < 1) continue;
        for (int method = 0; method < 2; method++) {
            pbd_world *w[3];
            for (int v = 0; v < 3; v++) {
                pbd_rng r;
                pbd_rng_seed(&r, 1000 + (uint64_t)t);
                w[v] = pbd_world_create(N * type->arity);
                w[v]->def.gravity[1] = -1.0;
                w[v]->def.method = method;
                w[v]->def.iterations = 2;
                w[v]->def.scheme = v ? PBD_SCHEME_COLORED_GS : PBD_SCHEME_GAUSS_SEIDEL;
                w[v]->def.threads = v;
                int set = pbd_world_add_set(w[v], type, 0);
                for (int c = 0; c < N; c++) {
                    int n_aux = 0, arity = type->sample(&r, c % 5 == 4, x, rest, aux, &n_aux);
                    int32_t idx[PBD_SAMPLE_MAX_ARITY];
                    for (int j = 0; j < arity; j++) {
                        idx[j] = c * arity + j;
                        double m = c % 7 == 0 && j == 1 ? 0.0 : pbd_rng_range(&r, 0.2, 5.0);
                        pbd_world_set_particle(w[v], idx[j], x + 3 * j, NULL, m);
                    }
                    pbd_set_add(w[v], set, idx, rest, pbd_rng_uniform(&r), pbd_rng_range(&r, 0, 1e-4));
                }
            }
            for (int s = 0; s < 3; s++)
                for (int v = 0; v < 3; v++) pbd_step(w[v]);
            size_t bytes = 3 * (size_t)w[0]->n * sizeof(double);
            const int32_t *order, *start;
            CU_ASSERT_EQUAL(pbd_set_colours(w[1], 0, &order, &start), 1); /* one colour */
            for (int v = 1; v < 3; v++) {
                CU_ASSERT(memcmp(w[0]->x, w[v]->x, bytes) == 0);
                CU_ASSERT(memcmp(w[0]->sets[0].lambda, w[v]->sets[0].lambda,
                                 N * sizeof(double)) == 0);
                CU_ASSERT_EQUAL(w[0]->stats.skipped, w[v]->stats.skipped);
            }
            for (int v = 0; v < 3; v++) pbd_world_free(w[v]);
        }
    }
}

/* ---- whole runs ------------------------------------------------------------------------ */

/* Gauss–Seidel and coloured GS with kernels against the same scheme without them (the
 * generic path, def.kernels = 0), PBD and XPBD, on cloth with either bending model, a tet
 * beam and a chain: the same positions to 1e-11 m after 40 steps (distance's closed form
 * rounds differently, by ~1e-16 per projection; the draping, folding cloth amplifies that to
 * at most 1.3e-12 m here; everything else is bit for bit, see the next test). */
static void test_runs_equal_generic(void)
{
    for (int scheme = 0; scheme <= PBD_SCHEME_COLORED_GS; scheme += PBD_SCHEME_COLORED_GS)
        for (int method = 0; method < 2; method++)
            for (int sc = 0; sc < SCENE_COUNT; sc++) {
                pbd_world *a = scene(sc, method), *b = scene(sc, method);
                a->def.scheme = b->def.scheme = scheme;
                a->def.threads = b->def.threads = 1;
                b->def.kernels = 0;
                double y0 = a->x[3 * (a->n - 1) + 1], dx, dl;
                run_pair(a, b, 40, &dx, &dl);
                if (dx > 1e-11 || dl > 1e-9)
                    fprintf(stderr, "\n  scheme %d method %d scene %d: |dx| %.2e |dλ|/|λ| %.2e\n",
                            scheme, method, sc, dx, dl);
                CU_ASSERT(dx <= 1e-11);
                CU_ASSERT(dl <= 1e-9);
                CU_ASSERT(fabs(a->x[3 * (a->n - 1) + 1] - y0) > 1e-3); /* it moved */
                CU_ASSERT_EQUAL(a->stats.skipped, b->stats.skipped);
                pbd_world_free(a);
                pbd_world_free(b);
            }
}

/* Without distance constraints every kernel does the generic arithmetic: bending-only
 * cloth (both models) and a volume-only tet beam, shaken so that no hinge is flat, give
 * bit-identical positions and λ with and without kernels, for GS and coloured GS. */
static void test_runs_bit_identical_without_distance(void)
{
    const int scenes[3] = {SCENE_CLOTH_DIHEDRAL, SCENE_CLOTH_ISOMETRIC, SCENE_TET_BEAM};
    for (int scheme = 0; scheme <= PBD_SCHEME_COLORED_GS; scheme += PBD_SCHEME_COLORED_GS)
        for (int method = 0; method < 2; method++)
            for (int k = 0; k < 3; k++) {
                pbd_world *w[2];
                for (int v = 0; v < 2; v++) {
                    w[v] = scene(scenes[k], method);
                    w[v]->sets[0].count = 0; /* drop the distance constraints */
                    pbd_rng r;
                    pbd_rng_seed(&r, 5);
                    for (int i = 0; i < 3 * w[v]->n; i++) w[v]->x[i] += 0.01 * pbd_rng_gaussian(&r);
                    w[v]->def.scheme = scheme;
                    w[v]->def.threads = 1;
                    w[v]->def.kernels = v;
                }
                double dx, dl;
                run_pair(w[0], w[1], 20, &dx, &dl);
                size_t bytes = 3 * (size_t)w[0]->n * sizeof(double);
                CU_ASSERT(memcmp(w[0]->x, w[1]->x, bytes) == 0);
                CU_ASSERT(memcmp(w[0]->v, w[1]->v, bytes) == 0);
                int kept = 0;
                for (int q = 1; q < w[0]->n_sets; q++) {
                    const pbd_constraint_set *s0 = &w[0]->sets[q], *s1 = &w[1]->sets[q];
                    CU_ASSERT(memcmp(s0->lambda, s1->lambda, (size_t)s0->count * sizeof(double)) == 0);
                    kept += s0->count;
                }
                CU_ASSERT(kept > 100);
                pbd_world_free(w[0]);
                pbd_world_free(w[1]);
            }
}

/* The generic path is the reference and stays what it was: the standard cloth with
 * def.kernels = 0 still hashes to the value tests/test_robustness.c committed before the
 * fast path (0x202ac30f41db375b); with kernels the default path hashes to that file's
 * current reference (distance's closed form rounds differently; the two agree to 1e-15). */
static void test_generic_reference_hash(void)
{
    pbd_world *w[2];
    for (int k = 0; k < 2; k++) {
        pbd_scene_params sp = pbd_scene_params_default();
        w[k] = pbd_scene_cloth(&sp);
        w[k]->def.iterations = 10;
        w[k]->def.kernels = k;
    }
    for (int s = 0; s < 200; s++) {
        pbd_step(w[0]);
        pbd_step(w[1]);
    }
    uint64_t h = hash_doubles(w[0]->x, 3 * (size_t)w[0]->n);
    if (h != 0x202ac30f41db375bULL)
        fprintf(stderr, "\n  generic cloth hash 0x%016llxULL\n", (unsigned long long)h);
    CU_ASSERT_EQUAL(h, 0x202ac30f41db375bULL);
    CU_ASSERT(max_abs_diff(w[0]->x, w[1]->x, 3 * (size_t)w[0]->n) <= 1e-14);
    pbd_world_free(w[0]);
    pbd_world_free(w[1]);
}

/* XPBD constraint damping (Eq. 26) needs x_n, which only the generic path gathers: with
 * β > 0 the kernels step aside and the results are the generic ones, bit for bit. */
static void test_xpbd_damping_uses_generic(void)
{
    pbd_world *w[2];
    for (int k = 0; k < 2; k++) {
        w[k] = scene(SCENE_CLOTH_DIHEDRAL, PBD_METHOD_XPBD);
        w[k]->def.xpbd_beta = 0.3;
        w[k]->def.kernels = k;
    }
    double dx, dl;
    run_pair(w[0], w[1], 15, &dx, &dl);
    CU_ASSERT(memcmp(w[0]->x, w[1]->x, 3 * (size_t)w[0]->n * sizeof(double)) == 0);
    pbd_world_free(w[0]);
    pbd_world_free(w[1]);
}

/* Without per-iteration residuals the step runs all sweeps of a substep at once (the
 * coloured scheme in one parallel region): the same bits as sweep by sweep. */
static void test_sweeps_at_once(void)
{
    for (int scheme = 0; scheme < 3; scheme++) {
        pbd_world *w[2];
        for (int v = 0; v < 2; v++) {
            w[v] = scene(SCENE_CLOTH_ISOMETRIC, PBD_METHOD_XPBD);
            w[v]->def.scheme = scheme;
            w[v]->def.threads = 2;
            w[v]->def.record_iterations = v;
        }
        double dx, dl;
        run_pair(w[0], w[1], 10, &dx, &dl);
        if (dx != 0.0) fprintf(stderr, "\n  scheme %d: |dx| %.3e\n", scheme, dx);
        CU_ASSERT(memcmp(w[0]->x, w[1]->x, 3 * (size_t)w[0]->n * sizeof(double)) == 0);
        CU_ASSERT_EQUAL(w[0]->stats.skipped, w[1]->stats.skipped);
        pbd_world_free(w[0]);
        pbd_world_free(w[1]);
    }
}

void register_fastpath_tests(void)
{
    CU_pSuite s = CU_add_suite("fastpath", NULL, NULL);
    CU_add_test(s, "kernels_equal_generic", test_kernels_equal_generic);
    CU_add_test(s, "colour_kernels_equal_sequential", test_colour_kernels_equal_sequential);
    CU_add_test(s, "runs_equal_generic", test_runs_equal_generic);
    CU_add_test(s, "runs_bit_identical_without_distance", test_runs_bit_identical_without_distance);
    CU_add_test(s, "generic_reference_hash", test_generic_reference_hash);
    CU_add_test(s, "xpbd_damping_uses_generic", test_xpbd_damping_uses_generic);
    CU_add_test(s, "sweeps_at_once", test_sweeps_at_once);
}
