/* The fast path's threads and layout (suite `fastpath_layout`): 1 against 2 threads, the
 * sorted and renumbered layouts against the unsorted one, contact sets through sorting; the
 * measure switch, the memory count and the programs' flags. */
#include "tests.h"
#include "fastpath_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Whole runs at every SIMD width (the hook pbd_test_simd_width, as PBD_SIMD_WIDTH forces it
 * in the programs): the draping cloth with dihedral bending, coloured GS, PBD and XPBD,
 * sorted by colour (the kernels' contiguous path: indices, particles and λ read as vectors)
 * and not, 1 and 2 threads. Widths 8 and 4 (AVX-512, AVX2: the same SLEEF FMA atan2) give the
 * same bits, 1 and 2 threads the same bits at each width; width 2 (SSE2's atan2 without FMA)
 * within 1e-9 m. A width the CPU lacks runs at the next one down (the check still holds). */
static void test_widths_whole_run(void)
{
    for (int sorted = 0; sorted < 2; sorted++)
        for (int method = 0; method < 2; method++) {
            pbd_world *w[6]; /* widths 8, 4, 2 on 1 and 2 threads */
            int got[6];
            for (int v = 0; v < 6; v++) {
                w[v] = scene(SCENE_CLOTH_DIHEDRAL, method);
                w[v]->def.scheme = PBD_SCHEME_COLORED_GS;
                w[v]->def.threads = 1 + v % 2;
                w[v]->def.iterations = 4;
                w[v]->def.sort_by_colour = sorted;
                pbd_test_simd_width = 8 >> (v / 2);
                got[v] = pbd_simd_width();
                for (int st = 0; st < 12; st++) CU_ASSERT_EQUAL_FATAL(pbd_step(w[v]), PBD_OK);
            }
            pbd_test_simd_width = 0;
            const size_t n3 = 3 * (size_t)w[0]->n;
            for (int v = 1; v < 6; v++) {
                if (got[v] == got[0] || (got[v] >= 4 && got[0] >= 4))
                    CU_ASSERT(memcmp(w[0]->x, w[v]->x, n3 * sizeof(double)) == 0);
                CU_ASSERT(max_abs_diff(w[0]->x, w[v]->x, n3) <= 1e-9);
                if (v % 2) /* 1 and 2 threads at one width */
                    CU_ASSERT(memcmp(w[v - 1]->x, w[v]->x, n3 * sizeof(double)) == 0);
            }
            CU_ASSERT(w[0]->x[3 * (w[0]->n - 1) + 1] < -0.05); /* it fell */
            for (int v = 0; v < 6; v++) pbd_world_free(w[v]);
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
    /* the SIMD width forced (PBD_SIMD_WIDTH or --simd-width) and recorded: SSE2 runs on every
     * x86-64; a bad width is refused (exit status 2) */
    snprintf(cmd, sizeof cmd, "PBD_SIMD_WIDTH=2 %s/pbd-bench --quick --reps=1 --scene=chain --exact "
             "--output=%s/w >/dev/null && head -1 %s/w.csv | grep -q 'SIMD SSE2, 2 lanes' && "
             "grep -q '^chain,gs,' %s/w.csv", test_bin_dir(), dir, dir, dir);
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/pbd-bench --quick --reps=1 --scene=chain --simd-width=4 "
             "--output=%s/w4 >/dev/null && head -1 %s/w4.csv | grep -q 'SIMD %s, %d lanes'",
             test_bin_dir(), dir, dir, pbd_simd_width() >= 4 ? "AVX2" : "SSE2",
             pbd_simd_width() >= 4 ? 4 : 2);
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    snprintf(cmd, sizeof cmd, "PBD_SIMD_WIDTH=3 %s/pbd-bench --quick --scene=chain --output=%s/x "
             ">/dev/null 2>&1", test_bin_dir(), dir);
    CU_ASSERT_EQUAL(test_run(cmd), 2);
    snprintf(cmd, sizeof cmd, "%s/pbd-bench --quick --scene=chain --simd-width=5 --output=%s/x "
             ">/dev/null 2>&1", test_bin_dir(), dir);
    CU_ASSERT_EQUAL(test_run(cmd), 2);
    test_remove_dir(dir);
}

void register_fastpath_layout_tests(void)
{
    CU_pSuite s = CU_add_suite("fastpath_layout", NULL, NULL);
    CU_add_test(s, "threads_bit_identical", test_threads_bit_identical);
    CU_add_test(s, "big_world_threads", test_big_world_threads);
    CU_add_test(s, "widths_whole_run", test_widths_whole_run);
    CU_add_test(s, "sorted_layout_same_physics", test_sorted_layout_same_physics);
    CU_add_test(s, "reorder_particles", test_reorder_particles);
    CU_add_test(s, "sort_keeps_contact_sets", test_sort_keeps_contact_sets);
    CU_add_test(s, "measure_switch", test_measure_switch);
    CU_add_test(s, "memory_count", test_memory_count);
    CU_add_test(s, "programs", test_programs);
}
