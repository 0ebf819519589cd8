/* The fast path is held equal to the reference: batched kernels against the generic
 * projection (constraint by constraint and over whole runs), coloured GS with kernels
 * against coloured GS without, 1 against 2 threads, the sorted layout against the unsorted
 * one; the measure switch, the memory count, and the generic path's committed hash. */
#include "tests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double max_abs_diff(const double *a, const double *b, size_t n)
{
    double d = 0.0;
    for (size_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

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

enum { SCENE_CLOTH_DIHEDRAL, SCENE_CLOTH_ISOMETRIC, SCENE_TET_BEAM, SCENE_CHAIN, SCENE_COUNT };

static pbd_world *scene(int which, int method)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.stiffness = 0.9;
    sp.compliance = 1e-6;
    sp.k_bend = 0.5;
    sp.bend_compliance = 1e-3;
    pbd_world *w = NULL;
    switch (which) {
    case SCENE_CLOTH_DIHEDRAL: /* horizontal, draping from two corners: the hinges fold */
        sp.resolution = 14;
        w = pbd_scene_cloth_bend(&sp);
        break;
    case SCENE_CLOTH_ISOMETRIC: { /* the same cloth, its hinges as isometric bending */
        sp.resolution = 14;
        w = pbd_scene_cloth_bend(&sp);
        int iso = pbd_world_add_set(w, &pbd_bend_isometric_type, 0);
        pbd_constraint_set *dihedral = &w->sets[1]; /* after add_set: sets may move */
        for (int c = 0; c < dihedral->count; c++)
            pbd_set_add(w, iso, dihedral->idx + 4 * c, NULL, 0.5, 1e-3);
        dihedral->count = 0;
        break;
    }
    case SCENE_TET_BEAM: /* 8 × 2 × 2 cubes, 6 tets each */
        sp.resolution = 8;
        sp.size = 0.8;
        w = pbd_scene_tet_beam(&sp);
        break;
    default:
        sp.resolution = 40;
        w = pbd_scene_chain(&sp);
        break;
    }
    w->def.method = method;
    w->def.iterations = 6;
    return w;
}

/* Run a and b for `steps` steps; the largest position difference relative to the scene's
 * size, and the largest λ difference relative to max |λ|. */
static void run_pair(pbd_world *a, pbd_world *b, int steps, double *dx, double *dl)
{
    for (int s = 0; s < steps; s++) {
        CU_ASSERT_EQUAL_FATAL(pbd_step(a), PBD_OK);
        CU_ASSERT_EQUAL_FATAL(pbd_step(b), PBD_OK);
    }
    *dx = max_abs_diff(a->x, b->x, 3 * (size_t)a->n);
    *dl = 0.0;
    for (int s = 0; s < a->n_sets; s++) {
        double top = 1e-30;
        for (int c = 0; c < a->sets[s].count; c++) top = fmax(top, fabs(b->sets[s].lambda[c]));
        *dl = fmax(*dl, max_abs_diff(a->sets[s].lambda, b->sets[s].lambda,
                                     (size_t)a->sets[s].count) / top);
    }
}

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

/* ---- threads and layout ------------------------------------------------------------ */

/* Coloured GS with kernels: 1 and 2 threads give bit-identical x, v and λ (PBD and XPBD,
 * with substeps), also on a sorted layout. The draping cloth has 533 distance constraints
 * and 365 hinges, enough for the sweep to use both threads. */
static void test_threads_bit_identical(void)
{
    for (int sorted = 0; sorted < 2; sorted++)
        for (int method = 0; method < 2; method++) {
            pbd_world *w[2];
            for (int t = 0; t < 2; t++) {
                w[t] = scene(SCENE_CLOTH_DIHEDRAL, method);
                w[t]->def.scheme = PBD_SCHEME_COLORED_GS;
                w[t]->def.threads = t + 1;
                w[t]->def.substeps = 2;
                w[t]->def.iterations = 3;
                w[t]->def.sort_by_colour = sorted;
            }
            double dx, dl;
            run_pair(w[0], w[1], 8, &dx, &dl);
            size_t bytes = 3 * (size_t)w[0]->n * sizeof(double);
            CU_ASSERT(memcmp(w[0]->x, w[1]->x, bytes) == 0);
            CU_ASSERT(memcmp(w[0]->v, w[1]->v, bytes) == 0);
            for (int s = 0; s < w[0]->n_sets; s++)
                CU_ASSERT(memcmp(w[0]->sets[s].lambda, w[1]->sets[s].lambda,
                                 (size_t)w[0]->sets[s].count * sizeof(double)) == 0);
            CU_ASSERT(w[0]->x[3 * (w[0]->n - 1) + 1] < -0.05); /* it fell */
            pbd_world_free(w[0]);
            pbd_world_free(w[1]);
        }
}

/* A world big enough for the step's own loops (forces, predict, update, stiffness and λ
 * reset) to run on the coloured scheme's threads too: still bit for bit on 1 and 2 threads,
 * with linearised, per-constraint random stiffness (each thread memoises pow separately). */
static void test_big_world_threads(void)
{
    pbd_world *w[2];
    for (int t = 0; t < 2; t++) {
        pbd_scene_params sp = pbd_scene_params_default();
        sp.resolution = 130; /* 16900 particles */
        w[t] = pbd_scene_cloth(&sp);
        pbd_rng r;
        pbd_rng_seed(&r, 8);
        for (int c = 0; c < w[t]->sets[0].count; c++)
            w[t]->sets[0].stiffness[c] = c % 3 ? 1.0 : pbd_rng_range(&r, 0.2, 1.0);
        w[t]->def.scheme = PBD_SCHEME_COLORED_GS;
        w[t]->def.linearize_stiffness = 1;
        w[t]->def.iterations = 3;
        w[t]->def.threads = t + 1;
    }
    CU_ASSERT_FATAL(w[0]->n >= 16384);
    double dx, dl;
    run_pair(w[0], w[1], 3, &dx, &dl);
    size_t bytes = 3 * (size_t)w[0]->n * sizeof(double), m = (size_t)w[0]->sets[0].count;
    CU_ASSERT(memcmp(w[0]->x, w[1]->x, bytes) == 0);
    CU_ASSERT(memcmp(w[0]->v, w[1]->v, bytes) == 0);
    CU_ASSERT(memcmp(w[0]->sets[0].k_eff, w[1]->sets[0].k_eff, m * sizeof(double)) == 0);
    CU_ASSERT(w[0]->sets[0].k_eff[0] < 1.0 || w[0]->sets[0].k_eff[3] < 1.0); /* linearised */
    pbd_world_free(w[0]);
    pbd_world_free(w[1]);
}

/* Sorting by colour keeps the physics: coloured GS on a sorted world gives the same bits as
 * on the unsorted one (positions, and λ mapped back through origin), with and without
 * kernels; origin is a permutation that maps each sorted row to the row it was added as;
 * the sorted set's colouring is the identity; constraints added later keep working. */
static void test_sorted_layout_same_physics(void)
{
    for (int kernels = 0; kernels < 2; kernels++)
        for (int method = 0; method < 2; method++) {
            pbd_world *w[2], *ref = scene(SCENE_TET_BEAM, method);
            for (int v = 0; v < 2; v++) {
                w[v] = scene(SCENE_TET_BEAM, method);
                w[v]->def.scheme = PBD_SCHEME_COLORED_GS;
                w[v]->def.kernels = kernels;
                w[v]->def.sort_by_colour = v;
            }
            double dx, dl;
            run_pair(w[0], w[1], 25, &dx, &dl);
            CU_ASSERT(memcmp(w[0]->x, w[1]->x, 3 * (size_t)w[0]->n * sizeof(double)) == 0);
            for (int s = 0; s < w[1]->n_sets; s++) {
                const pbd_constraint_set *u = &w[0]->sets[s], *o = &w[1]->sets[s],
                                         *r0 = &ref->sets[s];
                CU_ASSERT_PTR_NULL(u->origin);
                CU_ASSERT_PTR_NOT_NULL_FATAL(o->origin);
                int32_t *where = malloc((size_t)o->count * sizeof *where);
                pbd_set_current_index(w[1], s, where);
                int perm = 1, rows = 1, lambdas = 1;
                char *seen = calloc((size_t)o->count, 1);
                for (int c = 0; c < o->count; c++) {
                    int a = o->origin[c];
                    if (a < 0 || a >= o->count || seen[a]++) {
                        perm = 0;
                        continue;
                    }
                    if (where[a] != c) perm = 0;
                    if (memcmp(o->idx + (size_t)c * o->arity, r0->idx + (size_t)a * o->arity,
                               (size_t)o->arity * sizeof(int32_t)) != 0 ||
                        o->rest[c] != r0->rest[a])
                        rows = 0;
                    if (o->lambda[c] != u->lambda[a]) lambdas = 0;
                }
                CU_ASSERT(perm);
                CU_ASSERT(rows);
                CU_ASSERT(lambdas);
                const int32_t *order, *start;
                int nc = pbd_set_colours(w[1], s, &order, &start);
                CU_ASSERT_FATAL(nc > 1);
                int identity = 1;
                for (int q = 0; q < o->count; q++) identity = identity && order[q] == q;
                CU_ASSERT(identity);
                free(where);
                free(seen);
            }
            /* a constraint added after sorting gets origin = its add index; stepping on
             * recolours and sorts again, the two worlds still agree */
            for (int v = 0; v < 2; v++) {
                int32_t idx[2] = {0, w[v]->n - 1};
                int c = pbd_set_add(w[v], 0, idx, NULL, 0.5, 1e-4);
                CU_ASSERT_EQUAL(c, w[v]->sets[0].count - 1);
                if (v) CU_ASSERT_EQUAL(w[v]->sets[0].origin[c], c);
            }
            run_pair(w[0], w[1], 5, &dx, &dl);
            CU_ASSERT(memcmp(w[0]->x, w[1]->x, 3 * (size_t)w[0]->n * sizeof(double)) == 0);
            pbd_world_free(w[0]);
            pbd_world_free(w[1]);
            pbd_world_free(ref);
        }
}

/* A cloth whose particles are numbered at random (the same particles and constraints as
 * pbd_scene_cloth, constraints in the same order): a scene without locality. */
static pbd_world *shuffled_cloth(int r, uint64_t seed)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = r;
    sp.stiffness = 0.9;
    pbd_world *o = pbd_scene_cloth(&sp);
    int n = o->n;
    int32_t *perm = malloc((size_t)n * sizeof *perm);
    for (int i = 0; i < n; i++) perm[i] = i;
    pbd_rng g;
    pbd_rng_seed(&g, seed);
    for (int i = n - 1; i > 0 && seed; i--) {
        int j = (int)(pbd_rng_next(&g) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    pbd_world *w = pbd_world_create(n);
    for (int i = 0; i < n; i++)
        pbd_world_set_particle(w, perm[i], o->x + 3 * i, NULL, o->w[i] > 0 ? 1.0 / o->w[i] : 0.0);
    int s = pbd_world_add_set(w, &pbd_distance_type, 0);
    for (int c = 0; c < o->sets[0].count; c++) {
        int32_t idx[2] = {perm[o->sets[0].idx[2 * c]], perm[o->sets[0].idx[2 * c + 1]]};
        pbd_set_add(w, s, idx, NULL, 0.9, 1e-6);
    }
    pbd_world_attach(w, perm[0]);
    pbd_world_attach(w, perm[r - 1]);
    pbd_world_free(o);
    free(perm);
    return w;
}

static double mean_index_gap(const pbd_world *w)
{
    double sum = 0.0;
    const pbd_constraint_set *s = &w->sets[0];
    for (int c = 0; c < s->count; c++) sum += abs(s->idx[2 * c] - s->idx[2 * c + 1]);
    return sum / s->count;
}

/* Renumbering the particles along a Morton curve brings a shuffled cloth's constraints back
 * to nearby indices, and changes no result: stepped with GS and coloured GS (PBD and XPBD),
 * the positions mapped back to the input numbering and the λ are bit for bit those of the
 * world that was not renumbered. Sorting the constraints too changes the Gauss–Seidel order
 * (and the colouring): the result is then equivalent, not identical — after 30 steps of the
 * swinging, under-converged cloth the residual ||C|| agrees within a factor 1.5 and the
 * positions within 0.1 of the cloth's size (~0.05 observed). */
static void test_reorder_particles(void)
{
    for (int scheme = 0; scheme <= PBD_SCHEME_COLORED_GS; scheme += PBD_SCHEME_COLORED_GS)
        for (int method = 0; method < 2; method++) {
            pbd_world *a = shuffled_cloth(24, 11), *b = shuffled_cloth(24, 11),
                      *c = shuffled_cloth(24, 11);
            double gap = mean_index_gap(a);
            CU_ASSERT_EQUAL_FATAL(pbd_world_reorder(b, 0), PBD_OK);
            CU_ASSERT_EQUAL_FATAL(pbd_world_reorder(c, 1), PBD_OK);
            CU_ASSERT(mean_index_gap(b) < 0.1 * gap);
            pbd_world *all[3] = {a, b, c};
            for (int v = 0; v < 3; v++) {
                all[v]->def.scheme = scheme;
                all[v]->def.method = method;
                all[v]->def.threads = 2;
            }
            for (int s = 0; s < 30; s++)
                for (int v = 0; v < 3; v++) CU_ASSERT_EQUAL_FATAL(pbd_step(all[v]), PBD_OK);
            size_t n3 = 3 * (size_t)a->n;
            double *xb = malloc(n3 * sizeof *xb), *xc = malloc(n3 * sizeof *xc);
            pbd_world_in_input_order(b, b->x, 3, xb);
            pbd_world_in_input_order(c, c->x, 3, xc);
            CU_ASSERT(memcmp(a->x, xb, n3 * sizeof *xb) == 0);
            CU_ASSERT(memcmp(a->sets[0].lambda, b->sets[0].lambda,
                             (size_t)a->sets[0].count * sizeof(double)) == 0);
            CU_ASSERT(max_abs_diff(a->x, xc, n3) < 0.1); /* observed ~0.05 */
            CU_ASSERT(c->stats.l2_c < 1.5 * a->stats.l2_c && a->stats.l2_c < 1.5 * c->stats.l2_c);
            CU_ASSERT(max_abs_diff(a->x, xc, n3) > 0.0); /* the order did change */
            /* the particle origin is a permutation; attachments followed their particles */
            for (int k = 0; k < b->n_attach; k++)
                CU_ASSERT_EQUAL(b->w[b->attach_idx[k]], 0.0);
            free(xb);
            free(xc);
            for (int v = 0; v < 3; v++) pbd_world_free(all[v]);
        }
}

/* Sets whose rows a side table indexes (the collision module's contact sets, fixed_order)
 * are never sorted: a cloth falling on two spheres of different materials, coloured GS with
 * and without sorting, gives the same bits (contacts, friction and restitution included),
 * and the contact set keeps its order (sorting it would pair rows with the wrong side-table
 * entries: the test fails then). */
static void test_sort_keeps_contact_sets(void)
{
    pbd_world *w[2];
    for (int v = 0; v < 2; v++) {
        w[v] = scene(SCENE_CLOTH_ISOMETRIC, PBD_METHOD_PBD); /* x in [0,1], z in [-1,0] */
        /* two overlapping spheres: a particle on both has two contact rows, which then fall
         * into different colours, so sorting would move rows */
        const double c1[3] = {0.45, -0.4, -0.5}, c2[3] = {0.55, -0.4, -0.5};
        pbd_material m = pbd_material_default();
        m.mu_static = m.mu_kinetic = 0.3;
        CU_ASSERT_FATAL(pbd_world_add_sphere(w[v], c1, 0.3, &m) >= 0);
        m.restitution = 0.5;
        CU_ASSERT_FATAL(pbd_world_add_sphere(w[v], c2, 0.3, &m) >= 0);
        w[v]->def.scheme = PBD_SCHEME_COLORED_GS;
        w[v]->def.threads = 2;
        w[v]->def.sort_by_colour = v;
    }
    int contacts = 0;
    for (int s = 0; s < 40; s++)
        for (int v = 0; v < 2; v++) {
            CU_ASSERT_EQUAL_FATAL(pbd_step(w[v]), PBD_OK);
            for (int k = 0; k < w[v]->n_sets; k++)
                if (w[v]->sets[k].fixed_order) {
                    CU_ASSERT_PTR_NULL(w[v]->sets[k].origin);
                    contacts += v ? w[v]->sets[k].count : 0;
                }
        }
    CU_ASSERT(contacts > 100); /* the cloth did hit the sphere */
    CU_ASSERT(memcmp(w[0]->x, w[1]->x, 3 * (size_t)w[0]->n * sizeof(double)) == 0);
    CU_ASSERT(memcmp(w[0]->v, w[1]->v, 3 * (size_t)w[0]->n * sizeof(double)) == 0);
    CU_ASSERT_PTR_NOT_NULL(w[1]->sets[0].origin); /* the cloth's own sets were sorted */
    pbd_world_free(w[0]);
    pbd_world_free(w[1]);
}

/* ---- the measure switch and the memory count ---------------------------------------- */

/* def.measure_every = 0 skips the measure stage (stats keep their values) and changes no
 * position; measure_every = 3 measures after steps 3 and 6 only. */
static void test_measure_switch(void)
{
    pbd_world *w[3];
    const int every[3] = {1, 0, 3};
    for (int k = 0; k < 3; k++) {
        w[k] = scene(SCENE_CHAIN, PBD_METHOD_PBD);
        w[k]->def.measure_every = every[k];
    }
    for (int s = 1; s <= 7; s++) {
        for (int k = 0; k < 3; k++) CU_ASSERT_EQUAL_FATAL(pbd_step(w[k]), PBD_OK);
        if (s == 6) CU_ASSERT_EQUAL(w[2]->stats.l2_c, w[0]->stats.l2_c);
        if (s == 7) CU_ASSERT(w[2]->stats.l2_c != w[0]->stats.l2_c);
    }
    CU_ASSERT(w[0]->stats.l2_c > 0.0);
    CU_ASSERT_EQUAL(w[1]->stats.l2_c, 0.0);
    CU_ASSERT_EQUAL(w[1]->stats.kinetic_energy, 0.0);
    CU_ASSERT(memcmp(w[0]->x, w[1]->x, 3 * (size_t)w[0]->n * sizeof(double)) == 0);
    for (int k = 0; k < 3; k++) pbd_world_free(w[k]);
}

/* pbd_world_bytes counts at least the particle and constraint arrays; compacting and sorting
 * trim the sets to their counts, and a distance-only cloth ready for coloured GS then holds
 * ≤ 256 bytes per particle (x, p, v, w: 80; 3 edges × 48; colour order and origin 3 × 8). */
static void test_memory_count(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 60;
    pbd_world *w = pbd_scene_cloth(&sp);
    const pbd_constraint_set *s = &w->sets[0];
    size_t least = (size_t)w->n * 80 + (size_t)s->count * 48;
    size_t before = pbd_world_bytes(w);
    CU_ASSERT(before >= least);
    CU_ASSERT(s->capacity > s->count); /* grown by doubling */
    w->def.scheme = PBD_SCHEME_COLORED_GS;
    w->def.sort_by_colour = 1;
    CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    CU_ASSERT_EQUAL(s->capacity, s->count); /* sorting allocated exactly */
    size_t sorted = pbd_world_bytes(w);
    CU_ASSERT_EQUAL(pbd_world_compact(w), PBD_OK);
    size_t compact = pbd_world_bytes(w);
    CU_ASSERT(compact < sorted);
    CU_ASSERT(compact >= least + (size_t)s->count * 8);
    CU_ASSERT((double)compact / w->n <= 256.0);
    CU_ASSERT_EQUAL(pbd_step(w), PBD_OK); /* colours again if needed after compact */
    pbd_world_free(w);
}

/* The new solver fields are pbd-run flags with checked ranges; pbd-bench --quick runs one
 * small scene and writes its CSV and HDF5 files (no speed is asserted). */
static void test_programs(void)
{
    char cmd[1024];
    const char *flags[] = {"--kernels=0", "--sort-by-colour=1 --scheme=colored", "--measure-every=0"};
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd, "%s/pbd-run cloth --steps=2 --quiet %s >/dev/null 2>&1",
                 test_bin_dir(), flags[i]);
        CU_ASSERT_EQUAL(test_run(cmd), 0);
    }
    const char *bad[] = {"--kernels=2", "--sort-by-colour=-1", "--measure-every=-3"};
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd, "%s/pbd-run cloth %s >/dev/null 2>&1", test_bin_dir(), bad[i]);
        CU_ASSERT_EQUAL(test_run(cmd), 2);
    }
    char dir[] = "/tmp/pbd-fastpath-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "%s/pbd-bench --quick --reps=1 --scene=chain --output=%s/b >/dev/null",
             test_bin_dir(), dir);
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    snprintf(cmd, sizeof cmd, "grep -q '^chain,colour-2t,' %s/b.csv && test -s %s/b.h5", dir, dir);
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/pbd-bench --reps=-1 >/dev/null 2>&1", test_bin_dir());
    CU_ASSERT_EQUAL(test_run(cmd), 2);
    test_remove_dir(dir);
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
    CU_add_test(s, "threads_bit_identical", test_threads_bit_identical);
    CU_add_test(s, "big_world_threads", test_big_world_threads);
    CU_add_test(s, "sorted_layout_same_physics", test_sorted_layout_same_physics);
    CU_add_test(s, "reorder_particles", test_reorder_particles);
    CU_add_test(s, "sort_keeps_contact_sets", test_sort_keeps_contact_sets);
    CU_add_test(s, "measure_switch", test_measure_switch);
    CU_add_test(s, "memory_count", test_memory_count);
    CU_add_test(s, "programs", test_programs);
}
