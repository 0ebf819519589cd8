/* Tearing (PBD Sec. 5) and the world growing between steps: suite `tearing` (the world
 * grows, one split by hand, bad input, the checkers themselves); the tear scene is suite
 * `tearing_scene` (tests/test_tearing_scene.c). The invariants are checked by brute force
 * (tests/tearing_check.c), independently of solver/tearing/. */
#include "tests.h"
#include "tearing_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the world grows: particles, rows, the post-step hook -------------------------------- */

static void test_add_particle(void)
{
    const pbd_scheme schemes[] = {PBD_SCHEME_GAUSS_SEIDEL, PBD_SCHEME_JACOBI,
                                  PBD_SCHEME_COLORED_GS};
    for (int k = 0; k < 3; k++) {
        const double a[3] = {0, 0, 0}, b[3] = {1, 0, 0};
        pbd_world *w = test_two_particles(a, b, 1.0, 2.0);
        w->def.gravity[1] = -9.81;
        w->def.scheme = schemes[k];
        w->def.threads = 2;
        int set = pbd_world_add_set(w, &pbd_distance_type, 0);
        int32_t e01[2] = {0, 1};
        pbd_set_add(w, set, e01, NULL, 1.0, 0.0);
        pbd_world_attach(w, 0);
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK); /* the variants' workspaces exist now */
        double x1[3];
        memcpy(x1, w->x + 3, sizeof x1);
        const double c[3] = {2, 0, 0}, vc[3] = {0, 1, 0};
        CU_ASSERT_EQUAL(pbd_world_add_particle(w, c, vc, 4.0), 2);
        CU_ASSERT_EQUAL(w->n, 3);
        CU_ASSERT_EQUAL(memcmp(w->x + 3, x1, sizeof x1), 0); /* old particles kept */
        CU_ASSERT_EQUAL(w->w[0], 0.0);
        CU_ASSERT_EQUAL(w->w[2], 0.25);
        CU_ASSERT_EQUAL(w->x[6], 2.0);
        CU_ASSERT_EQUAL(w->p[6], 2.0);
        CU_ASSERT_EQUAL(w->v[7], 1.0);
        int32_t e12[2] = {1, 2};
        CU_ASSERT_EQUAL(pbd_set_add(w, set, e12, NULL, 1.0, 0.0), 1);
        for (int s = 0; s < 30; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        CU_ASSERT(all_finite(w));
        /* the new particle hangs on the chain: it fell, and |x2 - x1| stays near 1 */
        double d = sqrt(pow(w->x[6] - w->x[3], 2) + pow(w->x[7] - w->x[4], 2) +
                        pow(w->x[8] - w->x[5], 2));
        CU_ASSERT(w->x[7] < -0.1);
        CU_ASSERT(fabs(d - 1.0) < 0.05);
        if (schemes[k] == PBD_SCHEME_COLORED_GS) CU_ASSERT(colouring_valid(w));
        const double bad[3] = {NAN, 0, 0};
        CU_ASSERT_EQUAL(pbd_world_add_particle(w, bad, NULL, 1.0), -1);
        CU_ASSERT_EQUAL(pbd_world_add_particle(w, c, NULL, -1.0), -1);
        CU_ASSERT_EQUAL(w->n, 3);
        pbd_world_free(w);
    }
}

static void test_rewrite_remove(void)
{
    pbd_world *w = pbd_world_create(5);
    for (int i = 0; i < 5; i++) {
        double x[3] = {i * (i + 1) / 2.0, 0, 0}; /* rest lengths 1, 2, 3, 4 */
        pbd_world_set_particle(w, i, x, NULL, 1.0);
    }
    int set = pbd_world_add_set(w, &pbd_distance_type, 0);
    for (int i = 0; i < 4; i++) {
        int32_t e[2] = {i, i + 1};
        pbd_set_add(w, set, e, NULL, 0.5 + 0.1 * i, 0.0);
    }
    int32_t r[2] = {0, 3};
    CU_ASSERT_EQUAL(pbd_set_rewrite(w, set, 1, r), PBD_OK);
    CU_ASSERT_EQUAL(w->sets[set].idx[2], 0);
    CU_ASSERT_EQUAL(w->sets[set].idx[3], 3);
    CU_ASSERT_EQUAL(w->sets[set].rest[1], 2.0); /* rest values stay */
    int32_t out[2] = {0, 5};
    CU_ASSERT_EQUAL(pbd_set_rewrite(w, set, 1, out), PBD_EINVAL);
    CU_ASSERT_EQUAL(w->sets[set].idx[3], 3); /* unchanged */
    CU_ASSERT_EQUAL(pbd_set_rewrite(w, set, 4, r), PBD_EINVAL);
    CU_ASSERT_EQUAL(pbd_set_rewrite(w, 1, 0, r), PBD_EINVAL);
    CU_ASSERT_EQUAL(pbd_set_remove(w, set, 1), PBD_OK);
    CU_ASSERT_EQUAL(w->sets[set].count, 3);
    const double rest[3] = {1, 3, 4}, k[3] = {0.5, 0.7, 0.8};
    const int32_t rows[6] = {0, 1, 2, 3, 3, 4};
    for (int c = 0; c < 3; c++) { /* the ones after it moved down, in order */
        CU_ASSERT_EQUAL(w->sets[set].rest[c], rest[c]);
        CU_ASSERT_DOUBLE_EQUAL(w->sets[set].stiffness[c], k[c], 1e-15);
        CU_ASSERT_EQUAL(w->sets[set].idx[2 * c], rows[2 * c]);
        CU_ASSERT_EQUAL(w->sets[set].idx[2 * c + 1], rows[2 * c + 1]);
    }
    CU_ASSERT_EQUAL(pbd_set_remove(w, set, 3), PBD_EINVAL);
    CU_ASSERT_EQUAL(pbd_set_remove(w, set, -1), PBD_EINVAL);
    pbd_world_free(w);
}

static int hook_calls;
static long hook_seen_step;
static int hook_freed;
static pbd_status counting_hook(pbd_world *w, void *user)
{
    hook_calls++;
    hook_seen_step = w->step_count;
    return *(pbd_status *)user;
}
static void note_free(void *user)
{
    (void)user;
    hook_freed++;
}

static void test_post_step_hook(void)
{
    const double a[3] = {0, 0, 0}, b[3] = {1, 0, 0};
    pbd_world *w = test_two_particles(a, b, 1.0, 1.0);
    pbd_status answer = PBD_OK;
    hook_calls = hook_freed = 0;
    w->post_step = counting_hook;
    w->post_step_user = &answer;
    w->post_step_free = note_free;
    for (int s = 1; s <= 3; s++) {
        CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
        CU_ASSERT_EQUAL(hook_calls, s);
        CU_ASSERT_EQUAL(hook_seen_step, s); /* after the step is complete */
    }
    answer = PBD_EIO;
    CU_ASSERT_EQUAL(pbd_step(w), PBD_EIO);
    pbd_world_free(w);
    CU_ASSERT_EQUAL(hook_freed, 1);
}

/* ---- one split by hand ------------------------------------------------------------------ */

/* The 3 × 3 grid (vertex 4 in the middle, 6 triangles around it) with distance and
 * bending constraints of the given type and tearing at threshold 0.5. */
static pbd_world *small_cloth(const pbd_constraint_type *bending, pbd_tearing **t, pbd_trimesh *m)
{
    pbd_mesh_grid(3, 3, 2.0, 2.0, PBD_DIAGONAL_SAME, m);
    pbd_world *w = pbd_world_create(m->n_vertices);
    for (int i = 0; i < m->n_vertices; i++)
        pbd_world_set_particle(w, i, m->x + 3 * i, NULL, 0.5 + 0.1 * i);
    int32_t *e, *h;
    int ne = pbd_trimesh_edges(m, &e, NULL), nh = pbd_trimesh_hinges(m, &h);
    int ds = pbd_world_add_set(w, &pbd_distance_type, 0);
    int bs = pbd_world_add_set(w, bending, 0);
    for (int i = 0; i < ne; i++) pbd_set_add(w, ds, e + 2 * i, NULL, 1.0, 0.0);
    for (int i = 0; i < nh; i++) pbd_set_add(w, bs, h + 4 * i, NULL, 0.5, 0.0);
    free(e);
    free(h);
    *t = pbd_tearing_create(w, TEAR_VIEW(m), ds, bs, 0.5);
    return w;
}

/* Edge 4–7 stretched by 60 %: vertex 4 (6 triangles, 7 has 3) splits by the
 * plane through x4 perpendicular to the edge (horizontal): triangles on 7's side keep 4,
 * the others go to the duplicate 9, with 4's velocity and position and the mass of their
 * share of the rest area. The cut edges 4–3 and 4–5 end on the boundary, so 3 and 5 are
 * split too (repairs): the cloth falls in two pieces. */
static void test_split_by_plane(void)
{
    const pbd_constraint_type *types[2] = {&pbd_bend_dihedral_type, &pbd_bend_isometric_type};
    for (int k = 0; k < 2; k++) {
        pbd_trimesh m;
        pbd_tearing *t;
        pbd_world *w = small_cloth(types[k], &t, &m);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        CU_ASSERT(tear_consistent(w, t, 0, 1));
        /* 4–7 of length 1 becomes 1.6: stretch 0.6 > 0.5; 3–7 (√2 → √3.56) 0.33, 6–7 and
         * 7–8 (1 → √1.36) 0.17: only 4–7 is beyond the threshold */
        w->x[3 * 7 + 1] -= 0.6;
        for (int i = 0; i < 3 * w->n; i++) w->v[i] = sin(1.0 + i); /* any velocities */
        int pinned0;
        double mass0 = free_mass(w, &pinned0), lin0[3], ang0[3];
        pbd_momentum(w, w->x, w->v, lin0, ang0);
        double m4 = 1.0 / w->w[4], v4[3];
        memcpy(v4, w->v + 12, sizeof v4);
        /* the expected sides, from the mesh before the split */
        int stays[8], n_fan = 0;
        double a_stay = 0, a_all = 0;
        int32_t fan[8];
        for (int tr = 0; tr < m.n_triangles; tr++) {
            const int32_t *q = m.tri + 3 * tr;
            if (!has(q, 4)) continue;
            double cy = (w->x[3 * q[0] + 1] + w->x[3 * q[1] + 1] + w->x[3 * q[2] + 1]) / 3;
            stays[n_fan] = cy < w->x[13]; /* on 7's side: below */
            double area = 0.5 * 1.0; /* every triangle of this grid has area 1/2 at rest */
            a_all += area;
            a_stay += stays[n_fan] ? area : 0.0;
            fan[n_fan++] = tr;
        }
        CU_ASSERT_EQUAL(n_fan, 6);
        int n_split = -1;
        CU_ASSERT_EQUAL_FATAL(pbd_tearing_apply(w, t, &n_split), PBD_OK);
        CU_ASSERT_EQUAL(n_split, 1);
        CU_ASSERT_EQUAL(pbd_tearing_repairs(t), 2);
        CU_ASSERT_EQUAL(w->n, 12);
        const pbd_trimesh torn_m = torn(t), *tm = &torn_m;
        for (int i = 0; i < n_fan; i++) {
            const int32_t *q = tm->tri + 3 * fan[i];
            CU_ASSERT_EQUAL(has(q, 4), stays[i]);
            CU_ASSERT_EQUAL(has(q, 9), !stays[i]);
        }
        CU_ASSERT_EQUAL(memcmp(w->x + 27, w->x + 12, 3 * sizeof(double)), 0);
        CU_ASSERT_EQUAL(memcmp(w->v + 27, v4, 3 * sizeof(double)), 0);
        CU_ASSERT_DOUBLE_EQUAL(1.0 / w->w[4], m4 * a_stay / a_all, 1e-14);
        CU_ASSERT_DOUBLE_EQUAL(1.0 / w->w[9], m4 * (1 - a_stay / a_all), 1e-14);
        int pinned1;
        double lin1[3], ang1[3];
        CU_ASSERT_DOUBLE_EQUAL(free_mass(w, &pinned1), mass0, 1e-13 * mass0);
        CU_ASSERT_EQUAL(pinned1, pinned0);
        pbd_momentum(w, w->x, w->v, lin1, ang1);
        for (int c = 0; c < 3; c++) {
            CU_ASSERT_DOUBLE_EQUAL(lin1[c], lin0[c], 1e-13);
            CU_ASSERT_DOUBLE_EQUAL(ang1[c], ang0[c], 1e-13);
        }
        CU_ASSERT(tear_consistent(w, t, 0, 1));
        CU_ASSERT_EQUAL(components(w, 0), 2);
        /* 4–7 is still stretched, but every triangle of 4 and of 7 now lies on one side of
         * the plane: a split would leave a side empty, and is not done */
        CU_ASSERT_EQUAL(pbd_tearing_apply(w, t, &n_split), PBD_OK);
        CU_ASSERT_EQUAL(n_split, 0);
        CU_ASSERT_EQUAL(w->n, 12);
        pbd_tearing_free(t);
        pbd_trimesh_free(&m);
        pbd_world_free(w);
    }
}

/* Pinned particles are never split: with 4 pinned, edge 4–7 can only split 7, whose
 * triangles all lie on 4's side; with 3 and 5 pinned, splitting 4 would have to split them
 * (the cut reaches the boundary there): neither is done, and nothing changes. */
static void test_pinned_not_split(void)
{
    const int pins[2][2] = {{4, -1}, {3, 5}};
    for (int k = 0; k < 2; k++) {
        pbd_trimesh m;
        pbd_tearing *t;
        pbd_world *w = small_cloth(&pbd_bend_dihedral_type, &t, &m);
        for (int j = 0; j < 2; j++)
            if (pins[k][j] >= 0) pbd_world_attach(w, pins[k][j]);
        w->x[3 * 7 + 1] -= 0.6;
        int n_split = -1, rows = w->sets[0].count, hinges = w->sets[1].count;
        CU_ASSERT_EQUAL(pbd_tearing_apply(w, t, &n_split), PBD_OK);
        CU_ASSERT_EQUAL(n_split, 0);
        CU_ASSERT_EQUAL(w->n, 9);
        CU_ASSERT_EQUAL(w->sets[0].count, rows);
        CU_ASSERT_EQUAL(w->sets[1].count, hinges);
        CU_ASSERT(tear_consistent(w, t, 0, 1));
        pbd_tearing_free(t);
        pbd_trimesh_free(&m);
        pbd_world_free(w);
    }
}

/* Stress: a cloth blown up to 2.5–3× its size has every edge beyond the threshold. One pass
 * splits at most max_splits vertices; unlimited passes shatter it further and further,
 * and after every pass the mesh and the constraints stay consistent, mass conserved. */
static void test_shatter(void)
{
    const pbd_diagonal diags[3] = {PBD_DIAGONAL_SAME, PBD_DIAGONAL_ALTERNATE,
                                   PBD_DIAGONAL_UNION_JACK};
    for (int d = 0; d < 3; d++) {
        pbd_scene_params sp = pbd_scene_params_default();
        sp.resolution = 7;
        sp.diagonal = diags[d];
        pbd_world *w = pbd_scene_tear(&sp);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        pbd_tearing *t = pbd_world_tearing(w);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        for (int i = 0; i < 3 * w->n; i++) /* x × 3, y and z × 2.5 .. 2.56 */
            w->x[i] *= 1.0 + (i % 3 == 0 ? 2.0 : 1.5 + 0.01 * (i % 7));
        int pinned0;
        double mass0 = free_mass(w, &pinned0);
        int n_split;
        pbd_tearing_set_max_splits(t, 1);
        CU_ASSERT_EQUAL(pbd_tearing_apply(w, t, &n_split), PBD_OK);
        CU_ASSERT_EQUAL(n_split, 1);
        CU_ASSERT(tear_consistent(w, t, 0, 1));
        pbd_tearing_set_max_splits(t, 0);
        int passes = 0, total = 1;
        do {
            CU_ASSERT_EQUAL_FATAL(pbd_tearing_apply(w, t, &n_split), PBD_OK);
            total += n_split;
            CU_ASSERT(tear_consistent(w, t, 0, 1));
        } while (n_split > 0 && ++passes < 50);
        CU_ASSERT(passes < 50);
        CU_ASSERT(total > 10);
        CU_ASSERT(components(w, 0) > 2);
        int pinned1;
        CU_ASSERT_DOUBLE_EQUAL(free_mass(w, &pinned1), mass0, 1e-12 * mass0);
        CU_ASSERT_EQUAL(pinned1, pinned0);
        CU_ASSERT_EQUAL(pbd_tearing_splits(t), total);
        /* and the shattered cloth still steps */
        for (int s = 0; s < 5; s++) CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
        CU_ASSERT(all_finite(w));
        pbd_world_free(w);
    }
}

/* ---- bad input, and the checkers themselves ---------------------------------------------- */

static void test_bad_input(void)
{
    pbd_trimesh m;
    pbd_tearing *t;
    pbd_world *w = small_cloth(&pbd_bend_dihedral_type, &t, &m);
    CU_ASSERT_PTR_NULL(pbd_tearing_create(w, TEAR_VIEW(&m), 0, 1, 0.0));
    CU_ASSERT_PTR_NOT_NULL(strstr(pbd_last_error(), "threshold"));
    CU_ASSERT_PTR_NULL(pbd_tearing_create(w, TEAR_VIEW(&m), 0, 1, NAN));
    CU_ASSERT_PTR_NULL(pbd_tearing_create(w, TEAR_VIEW(&m), 1, 0, 0.5)); /* arities swapped */
    CU_ASSERT_PTR_NULL(pbd_tearing_create(w, TEAR_VIEW(&m), 0, 7, 0.5));
    CU_ASSERT_EQUAL(pbd_tearing_attach(w, t), PBD_OK);
    CU_ASSERT_PTR_EQUAL(pbd_world_tearing(w), t);
    pbd_tearing *t2 = pbd_tearing_create(w, TEAR_VIEW(&m), 0, 1, 0.5);
    CU_ASSERT_EQUAL(pbd_tearing_attach(w, t2), PBD_EINVAL); /* one hook only */
    pbd_tearing_free(t2);
    /* a bowtie: two triangles meeting only at vertex 0 */
    pbd_trimesh bow;
    pbd_trimesh_alloc(&bow, 5, 2);
    const double bx[15] = {0, 0, 0, 1, 0, 0, 1, 1, 0, -1, 0, 0, -1, -1, 0};
    const int32_t bt[6] = {0, 1, 2, 0, 3, 4};
    memcpy(bow.x, bx, sizeof bx);
    memcpy(bow.tri, bt, sizeof bt);
    pbd_world *wb = pbd_world_create(5);
    int ds = pbd_world_add_set(wb, &pbd_distance_type, 0);
    CU_ASSERT_PTR_NULL(pbd_tearing_create(wb, TEAR_VIEW(&bow), ds, -1, 0.5));
    CU_ASSERT_PTR_NOT_NULL(strstr(pbd_last_error(), "one fan"));
    pbd_world_free(wb);
    pbd_trimesh_free(&bow);
    pbd_trimesh_free(&m);
    pbd_world_free(w); /* frees t */
}

/* The checkers above can fail: a bowtie vertex, an edge in three triangles, a missing and
 * a duplicated distance constraint, a stray bending row and an out-of-range index are
 * each reported. */
static void test_checkers_catch_errors(void)
{
    char why[256];
    pbd_trimesh m;
    pbd_trimesh_alloc(&m, 6, 3);
    const int32_t bow[9] = {0, 1, 2, 0, 3, 4, 0, 4, 5};
    memcpy(m.tri, bow, sizeof bow);
    m.n_triangles = 2;
    CU_ASSERT_EQUAL(mesh_problem(&m, 5, why, sizeof why), 1); /* vertex 0: 2 fans */
    const int32_t fin[9] = {0, 1, 2, 0, 1, 3, 0, 1, 4};
    memcpy(m.tri, fin, sizeof fin);
    m.n_triangles = 3;
    CU_ASSERT_EQUAL(mesh_problem(&m, 5, why, sizeof why), 1); /* edge 0-1 in 3 */
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "3 triangles"));
    pbd_trimesh_free(&m);

    pbd_tearing *t;
    pbd_world *w = small_cloth(&pbd_bend_dihedral_type, &t, &m);
    CU_ASSERT(tear_consistent(w, t, 0, 1));
    int32_t keep[2];
    memcpy(keep, w->sets[0].idx, sizeof keep);
    int32_t dup[2] = {w->sets[0].idx[2], w->sets[0].idx[3]};
    pbd_set_rewrite(w, 0, 0, dup); /* edge 0 missing, edge 1 twice */
    CU_ASSERT_EQUAL(constraint_problem(w, &m, m.x, 0, 1, why, sizeof why), 1);
    pbd_set_rewrite(w, 0, 0, keep);
    CU_ASSERT_EQUAL(constraint_problem(w, &m, m.x, 0, 1, why, sizeof why), 0);
    w->sets[0].rest[0] *= 1.001;
    CU_ASSERT_EQUAL(constraint_problem(w, &m, m.x, 0, 1, why, sizeof why), 1);
    w->sets[0].rest[0] /= 1.001;
    int32_t stray[4] = {0, 1, 2, 8};
    pbd_set_add(w, 1, stray, NULL, 0.5, 0.0);
    CU_ASSERT_EQUAL(constraint_problem(w, &m, m.x, 0, 1, why, sizeof why), 1);
    pbd_set_remove(w, 1, w->sets[1].count - 1);
    CU_ASSERT_EQUAL(constraint_problem(w, &m, m.x, 0, 1, why, sizeof why), 0);
    w->sets[1].idx[0] = 9; /* out of range */
    CU_ASSERT_EQUAL(constraint_problem(w, &m, m.x, 0, 1, why, sizeof why), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "outside"));
    pbd_tearing_free(t);
    pbd_trimesh_free(&m);
    pbd_world_free(w);
}

void register_tearing_tests(void)
{
    CU_pSuite s = CU_add_suite("tearing", NULL, NULL);
    CU_add_test(s, "add_particle", test_add_particle);
    CU_add_test(s, "rewrite_remove", test_rewrite_remove);
    CU_add_test(s, "post_step_hook", test_post_step_hook);
    CU_add_test(s, "split_by_plane", test_split_by_plane);
    CU_add_test(s, "pinned_not_split", test_pinned_not_split);
    CU_add_test(s, "shatter", test_shatter);
    CU_add_test(s, "bad_input", test_bad_input);
    CU_add_test(s, "checkers_catch_errors", test_checkers_catch_errors);
}
