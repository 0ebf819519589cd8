/* Tearing (PBD Sec. 5) in the tear scene: suite `tearing_scene`. The cloth is pulled apart
 * hard (it tears in two) and gently (it does not), under every scheme, with self collision
 * and through pbd-run; the invariants of tests/tearing_check.h hold after every split. */
#include "tests.h"
#include "tearing_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tear scene ----------------------------------------------------------------------- */

/* Runs the scene's world for `steps`, checking the invariants whenever the particle count
 * changed and finiteness always. Returns the number of failed checks. */
static int run_checked(pbd_world *w, int steps)
{
    pbd_tearing *t = pbd_world_tearing(w);
    int pinned0, pinned, failures = 0, n = w->n;
    double mass0 = free_mass(w, &pinned0);
    for (int s = 0; s < steps; s++) {
        if (pbd_step(w) != PBD_OK) {
            printf("\n    step %d: %s\n", s, pbd_last_error());
            return failures + 1;
        }
        if (!all_finite(w)) failures++;
        if (w->n != n || s == steps - 1) {
            n = w->n;
            if (t && !tear_consistent(w, t, 0, 1)) failures++;
            double mass = free_mass(w, &pinned);
            if (fabs(mass - mass0) > 1e-12 * mass0 || pinned != pinned0) failures++;
        }
    }
    return failures;
}

/* Pulled apart at 0.5 m/s per side for 5 s, the cloth tears from the middle of its top
 * row down and ends in two pieces, one on each half of the row. */
static void test_hard_pull_tears_in_two(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    pbd_world *w = pbd_scene_tear(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pbd_world_tearing(w));
    CU_ASSERT_EQUAL(w->n, 256);
    CU_ASSERT_EQUAL(w->n_attach, 15);
    CU_ASSERT(tear_consistent(w, pbd_world_tearing(w), 0, 1));
    CU_ASSERT_EQUAL(components(w, 0), 1);
    CU_ASSERT_EQUAL(run_checked(w, 300), 0);
    CU_ASSERT(pbd_tearing_splits(pbd_world_tearing(w)) > 10);
    CU_ASSERT_EQUAL(components(w, 0), 2);
    /* one piece holds the left group, the other the right */
    int32_t *p = malloc((size_t)w->n * sizeof *p);
    for (int i = 0; i < w->n; i++) p[i] = i;
    const pbd_constraint_set *s = &w->sets[0];
    for (int c = 0; c < s->count; c++)
        p[find_root(p, s->idx[2 * c])] = find_root(p, s->idx[2 * c + 1]);
    for (int a = 2; a < w->n_attach; a++)
        CU_ASSERT_EQUAL(find_root(p, w->attach_idx[a]), find_root(p, w->attach_idx[a % 2]));
    CU_ASSERT_NOT_EQUAL(find_root(p, w->attach_idx[0]), find_root(p, w->attach_idx[1]));
    free(p);
    pbd_world_free(w);
}

/* The same cloth, its two halves moved apart by only 1 cm each (then held): the stretch
 * stays below the threshold and nothing tears. */
static void gentle(int a, double t, const double anchor[3], double target[3], void *user)
{
    (void)user;
    double d = fmin(0.1 * t, 0.01);
    target[0] = anchor[0] + (a % 2 == 0 ? -d : d);
    target[1] = anchor[1];
    target[2] = anchor[2];
}

static void test_gentle_pull_does_not_tear(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    pbd_world *w = pbd_scene_tear(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    w->attach_motion = gentle;
    CU_ASSERT_EQUAL(run_checked(w, 300), 0);
    CU_ASSERT_EQUAL(pbd_tearing_splits(pbd_world_tearing(w)), 0);
    CU_ASSERT_EQUAL(w->n, 256);
    CU_ASSERT_EQUAL(components(w, 0), 1);
    pbd_world_free(w);
}

/* Coloured Gauss–Seidel and Jacobi follow the changing topology: after tearing the next
 * step recolours, and the colouring then covers every constraint once with no two
 * constraints of one colour on the same particle. */
static void test_schemes_follow_topology(void)
{
    const pbd_scheme schemes[2] = {PBD_SCHEME_COLORED_GS, PBD_SCHEME_JACOBI};
    for (int k = 0; k < 2; k++) {
        pbd_scene_params sp = pbd_scene_params_default();
        sp.resolution = 12;
        pbd_world *w = pbd_scene_tear(&sp);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        w->def.scheme = schemes[k];
        w->def.threads = 1; /* the colouring does not depend on it; spinning threads on a
                               busy machine would only make the test slow */
        w->def.iterations = 20;
        CU_ASSERT_EQUAL(run_checked(w, 150), 0);
        CU_ASSERT(pbd_tearing_splits(pbd_world_tearing(w)) > 0);
        if (schemes[k] == PBD_SCHEME_COLORED_GS) {
            CU_ASSERT_EQUAL(pbd_world_colour(w), PBD_OK);
            CU_ASSERT(colouring_valid(w));
            /* a step without the hook colours the current topology by itself */
            pbd_status (*hook)(pbd_world *, void *) = w->post_step;
            w->post_step = NULL;
            const double at[3] = {5, 5, 5};
            int i = pbd_world_add_particle(w, at, NULL, 1.0);
            int32_t row[2] = {i, 0};
            pbd_set_add(w, 0, row, NULL, 1.0, 0.0);
            CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
            CU_ASSERT(colouring_valid(w));
            w->post_step = hook;
        }
        pbd_world_free(w);
    }
}

/* Self collision (solver/collision_self.c) sees the torn cloth when the tearing shares its
 * triangles: every self-collision row of a step names a triangle of the mesh as it was in
 * that step. Without sharing, rows name triangles that no longer exist (the check bites). */
static int self_contacts_on_mesh(int share, int *rows_seen)
{
    pbd_scene_params sp = pbd_scene_params_default();
    pbd_world *w = pbd_scene_tear(&sp);
    pbd_tearing *t = pbd_world_tearing(w);
    const pbd_trimesh torn_m = torn(t), *m = &torn_m;
    pbd_world_enable_self_collision(w, m->tri, m->n_triangles, 0.02);
    if (share) pbd_tearing_share_triangles(w, t);
    int nt = m->n_triangles, stale = 0;
    int32_t *before = malloc(3 * (size_t)nt * sizeof *before);
    *rows_seen = 0;
    for (int s = 0; s < 300 && stale == 0; s++) {
        memcpy(before, m->tri, 3 * (size_t)nt * sizeof *before);
        if (pbd_step(w) != PBD_OK || !all_finite(w)) {
            stale = -1;
            break;
        }
        pbd_collision_stats cs = pbd_world_collision_stats(w);
        if (cs.self_set < 0) continue;
        const pbd_constraint_set *set = &w->sets[cs.self_set];
        for (int c = 0; c < set->count; c++) {
            const int32_t *r = set->idx + 4 * c + 1;
            int found = 0;
            for (int k = 0; k < nt && !found; k++) {
                const int32_t *q = before + 3 * k;
                found = has(q, r[0]) && has(q, r[1]) && has(q, r[2]);
            }
            stale += !found;
            (*rows_seen)++;
        }
    }
    if (stale == 0 && !tear_consistent(w, t, 0, 1)) stale = -1;
    if (stale == 0 && components(w, 0) != 2) stale = -1;
    free(before);
    pbd_world_free(w);
    return stale;
}

static void test_self_collision_sees_tears(void)
{
    int rows_shared, rows_stale;
    CU_ASSERT_EQUAL(self_contacts_on_mesh(1, &rows_shared), 0);
    CU_ASSERT(rows_shared > 0);
    CU_ASSERT(self_contacts_on_mesh(0, &rows_stale) > 0);
}

static int run_prog(const char *args)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s/pbd-run %s >/dev/null 2>&1", test_bin_dir(), args);
    return test_run(cmd);
}

static void test_pbd_run_tear(void)
{
    CU_ASSERT_EQUAL(run_prog("tear --steps=60 --quiet"), 0);
    CU_ASSERT_EQUAL(run_prog("tear --steps=20 --quiet --tear-threshold=0"), 0);
    CU_ASSERT_EQUAL(run_prog("tear --steps=20 --quiet --scheme=colored --resolution=9"), 0);
    CU_ASSERT_EQUAL(run_prog("tear --tear-threshold=-1"), 2);
    CU_ASSERT_EQUAL(run_prog("tear --tear-threshold=nan"), 2);
    CU_ASSERT_EQUAL(run_prog("tear --steps=30 --quiet --mesh=data/meshes/cloth_16.obj"), 0);
    /* its top row has 2 vertices: nothing to hold apart around a free middle vertex */
    CU_ASSERT_EQUAL(run_prog("tear --steps=5 --mesh=tests/data/good_square.obj"), 1);
}

void register_tearing_scene_tests(void)
{
    CU_pSuite s = CU_add_suite("tearing_scene", NULL, NULL);
    CU_add_test(s, "hard_pull_tears_in_two", test_hard_pull_tears_in_two);
    CU_add_test(s, "gentle_pull_does_not_tear", test_gentle_pull_does_not_tear);
    CU_add_test(s, "schemes_follow_topology", test_schemes_follow_topology);
    CU_add_test(s, "self_collision_sees_tears", test_self_collision_sees_tears);
    CU_add_test(s, "pbd_run_tear", test_pbd_run_tear);
}
