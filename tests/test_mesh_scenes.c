/* Scenes built from meshes (suite `mesh_scenes`): cloth from an OBJ file and generated,
 * bending, the tet beam, the balloon and the cloth bag, every registered scene, and
 * pbd-run's one error line for a bad mesh. */
#include "tests.h"
#include "mesh_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- scenes ------------------------------------------------------------------------ */

static void test_cloth_scene_from_mesh(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.mesh_path = DATA "good_square.obj";
    pbd_world *w = pbd_scene_cloth(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(w->n, 4);
    CU_ASSERT_EQUAL(w->n_sets, 1);
    CU_ASSERT_EQUAL(w->sets[0].count, 5); /* 4 sides and the diagonal */
    CU_ASSERT_DOUBLE_EQUAL(w->sets[0].rest[1], sqrt(2.0), 1e-15); /* edge 0-2 */
    CU_ASSERT_EQUAL(w->n_attach, 2); /* the top corners (0,1,0) and (1,1,0) */
    CU_ASSERT(w->attach_idx[0] == 3 && w->attach_idx[1] == 2);
    pbd_world_free(w);

    sp.mesh_path = DATA "bad_nonmanifold.obj";
    CU_ASSERT_PTR_NULL(pbd_scene_cloth(&sp));
    const char *const words[] = {"non-manifold", NULL};
    check_message(DATA "bad_nonmanifold.obj", 9, words);

    sp.mesh_path = NULL;
    sp.tet_path = DATA "good_cube.node";
    CU_ASSERT_PTR_NULL(pbd_scene_cloth(&sp));
    CU_ASSERT(contains(pbd_last_error(), "--tet"));
    sp.tet_path = NULL;
    sp.mesh_path = DATA "good_square.obj";
    CU_ASSERT_PTR_NULL(pbd_scene_chain(&sp));
    CU_ASSERT(contains(pbd_last_error(), "--mesh"));
}

/* The generated cloth keeps the foundation's layout: corners 0 and r-1 attached, per
 * vertex v the edges to v+1, v+r and v+r+1 in that order. */
static void test_cloth_scene_layout(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 5;
    pbd_world *w = pbd_scene_cloth(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(w->n, 25);
    CU_ASSERT_EQUAL(w->sets[0].count, 2 * 5 * 4 + 16);
    CU_ASSERT(w->n_attach == 2 && w->attach_idx[0] == 0 && w->attach_idx[1] == 4);
    const int32_t first[6] = {0, 1, 0, 5, 0, 6};
    for (int i = 0; i < 6; i++) CU_ASSERT_EQUAL(w->sets[0].idx[i], first[i]);
    pbd_world_free(w);
    sp.diagonal = PBD_DIAGONAL_UNION_JACK;
    w = pbd_scene_cloth(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(w->sets[0].count, 2 * 5 * 4 + 16);
    pbd_world_free(w);
}

static int find_set(const pbd_world *w, const pbd_constraint_type *type)
{
    for (int s = 0; s < w->n_sets; s++)
        if (w->sets[s].type == type) return s;
    return -1;
}

static void test_cloth_bend_scene(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 6;
    pbd_world *w = pbd_scene_cloth_bend(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    int r = 6, d = find_set(w, &pbd_distance_type), b = find_set(w, &pbd_bend_dihedral_type);
    CU_ASSERT_FATAL(d >= 0 && b >= 0);
    CU_ASSERT_EQUAL(w->sets[d].count, 2 * r * (r - 1) + (r - 1) * (r - 1));
    CU_ASSERT_EQUAL(w->sets[b].count, (r - 1) * (3 * r - 5));
    for (int c = 0; c < w->sets[b].count; c++) {
        CU_ASSERT_DOUBLE_EQUAL(w->sets[b].rest[c], M_PI, 1e-12); /* flat at rest */
        CU_ASSERT_EQUAL(w->sets[b].stiffness[c], sp.k_bend);
    }
    for (int i = 0; i < w->n; i++) CU_ASSERT_EQUAL(w->x[3 * i + 1], 0.0); /* horizontal */
    CU_ASSERT(w->n_attach == 2 && w->attach_idx[0] == 0 && w->attach_idx[1] == r - 1);
    /* it falls out of its plane, so the hinges bend: the bending set is not idle */
    w->def.iterations = 10;
    for (int s = 0; s < 30; s++) CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
    double max_bend = 0.0;
    for (int c = 0; c < w->sets[b].count; c++) {
        pbd_eval_input in;
        double x[12], C;
        for (int j = 0; j < 4; j++) memcpy(x + 3 * j, w->x + 3 * w->sets[b].idx[4 * c + j], 24);
        in = (pbd_eval_input){x, 4, w->sets[b].rest + c, NULL, 0};
        pbd_bend_dihedral_type.eval(&in, &C, NULL);
        if (fabs(C) > max_bend) max_bend = fabs(C);
    }
    CU_ASSERT(max_bend > 0.01);
    pbd_world_free(w);
    sp.k_bend = 0.0; /* no bending set */
    w = pbd_scene_cloth_bend(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(find_set(w, &pbd_bend_dihedral_type), -1);
    pbd_world_free(w);
}

static void test_tet_beam_scene(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.total_mass = 2.0;
    pbd_world *w = pbd_scene_tet_beam(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(w->n, 9 * 3 * 3);
    int v = find_set(w, &pbd_tet_volume_type);
    CU_ASSERT_FATAL(v >= 0 && find_set(w, &pbd_distance_type) >= 0);
    CU_ASSERT_EQUAL(w->sets[v].count, 6 * 8 * 2 * 2);
    double V = 0.0, m = 0.0;
    for (int c = 0; c < w->sets[v].count; c++) {
        CU_ASSERT(w->sets[v].rest[c] > 0.0);
        V += w->sets[v].rest[c];
    }
    CU_ASSERT_DOUBLE_EQUAL(V, 1.0 * 0.25 * 0.25, 1e-14);
    CU_ASSERT_EQUAL(w->n_attach, 9); /* the end x = 0 */
    for (int a = 0; a < w->n_attach; a++) CU_ASSERT_EQUAL(w->x[3 * w->attach_idx[a]], 0.0);
    for (int i = 0; i < w->n; i++) m += w->w[i] > 0 ? 1.0 / w->w[i] : 0.0;
    /* lumped masses (a quarter of each tet): in the Kuhn split corners 000 and 111 get V/4 of
     * their cube, the others V/12, so the attached face of the 4 end cubes holds half their
     * mass, 4 × (2/32)/2 = 1/8 kg; the free particles carry the rest */
    CU_ASSERT_DOUBLE_EQUAL(m, 2.0 - 0.125, 1e-12);
    /* a cantilever: it sags but holds (free fall would take the tip 13 m down in 100 steps),
     * and every tet keeps its volume within 5% */
    w->def.iterations = 20;
    for (int s = 0; s < 100; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    double tip = 0.0;
    for (int i = 0; i < w->n; i++)
        if (w->x[3 * i] > tip) tip = w->x[3 * i];
    double lowest = 0.0;
    for (int i = 0; i < w->n; i++) lowest = fmin(lowest, w->x[3 * i + 1]);
    CU_ASSERT(lowest < -1e-3 && lowest > -0.5);
    CU_ASSERT(tip > 0.9);
    for (int c = 0; c < w->sets[v].count; c++) {
        const int32_t *t = w->sets[v].idx + 4 * c;
        double Vc = pbd_tet_volume(w->x + 3 * t[0], w->x + 3 * t[1], w->x + 3 * t[2],
                                   w->x + 3 * t[3]);
        CU_ASSERT(fabs(Vc / w->sets[v].rest[c] - 1.0) < 0.05);
    }
    pbd_world_free(w);

    /* the shipped beam is the generated one */
    sp.tet_path = "data/meshes/beam_8.node";
    pbd_world *f = pbd_scene_tet_beam(&sp);
    sp.tet_path = NULL;
    w = pbd_scene_tet_beam(&sp);
    CU_ASSERT_FATAL(f && w);
    CU_ASSERT(f->n == w->n && memcmp(f->x, w->x, 3 * (size_t)w->n * sizeof *w->x) == 0);
    CU_ASSERT_EQUAL(f->sets[v].count, w->sets[v].count);
    pbd_world_free(f);
    pbd_world_free(w);

    sp.tet_path = DATA "bad_ele_range.node";
    CU_ASSERT_PTR_NULL(pbd_scene_tet_beam(&sp));
    const char *const words[] = {"out-of-range node 5", NULL};
    check_message(DATA "bad_ele_range.ele", 2, words);
    sp.tet_path = NULL;
    sp.mesh_path = DATA "good_square.obj";
    CU_ASSERT_PTR_NULL(pbd_scene_tet_beam(&sp));
    CU_ASSERT(contains(pbd_last_error(), "--mesh"));
}

/* 6 × the enclosed volume over the balloon set's triangles (PBD Eq. 14's sum). */
static double balloon_sum(const pbd_world *w, const pbd_constraint_set *s)
{
    double sum = 0.0;
    for (int t = 0; t < s->n_aux; t += 3) {
        const double *a = w->x + 3 * s->idx[s->aux[t]], *b = w->x + 3 * s->idx[s->aux[t + 1]],
                     *c = w->x + 3 * s->idx[s->aux[t + 2]];
        sum += (a[1] * b[2] - a[2] * b[1]) * c[0] + (a[2] * b[0] - a[0] * b[2]) * c[1] +
               (a[0] * b[1] - a[1] * b[0]) * c[2];
    }
    return sum;
}

static void test_balloon_scene(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.k_pressure = 1.5;
    sp.compliance = 1e-4; /* a stretchy skin (XPBD) */
    sp.k_bend = 0.0;
    pbd_world *w = pbd_scene_balloon(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(w->n, 162);
    int b = find_set(w, &pbd_balloon_volume_type);
    CU_ASSERT_FATAL(b >= 0);
    const pbd_constraint_set *s = &w->sets[b];
    CU_ASSERT_EQUAL(s->arity, 162);
    CU_ASSERT_EQUAL(s->n_aux, 3 * 320);
    pbd_trimesh m;
    pbd_trimesh_report r;
    CU_ASSERT_EQUAL_FATAL(pbd_mesh_icosphere(2, 0.5, &m), PBD_OK);
    CU_ASSERT_EQUAL(pbd_trimesh_inspect(&m, &r), PBD_OK);
    CU_ASSERT_DOUBLE_EQUAL(s->rest[0], 6.0 * r.volume, 1e-12); /* V0: outward, 6× volume */
    CU_ASSERT_EQUAL(s->rest[1], 1.5);
    pbd_trimesh_free(&m);
    CU_ASSERT_EQUAL(w->n_attach, 1);
    w->def.method = PBD_METHOD_XPBD;
    w->def.gravity[1] = 0.0;
    w->def.iterations = 20;
    for (int k = 0; k < 60; k++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    double ratio = balloon_sum(w, s) / s->rest[0];
    CU_ASSERT_DOUBLE_EQUAL(ratio, 1.5, 0.01); /* the balloon inflates to k_pressure V0 */
    pbd_world_free(w);

    sp.mesh_path = DATA "good_square.obj"; /* not closed */
    CU_ASSERT_PTR_NULL(pbd_scene_balloon(&sp));
    const char *const words[] = {"closed surface", NULL};
    check_message(DATA "good_square.obj", 17, words);
    sp.mesh_path = "data/meshes/sphere_2.obj";
    w = pbd_scene_balloon(&sp);
    CU_ASSERT_PTR_NOT_NULL(w);
    pbd_world_free(w);
}

static void test_cloth_bag_scene(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 4;
    sp.size = 0.5;
    pbd_world *w = pbd_scene_cloth_bag(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(w->n, 6 * 16 + 2 - 9);
    int d = find_set(w, &pbd_distance_type), b = find_set(w, &pbd_bend_dihedral_type);
    CU_ASSERT_FATAL(d >= 0 && b >= 0);
    CU_ASSERT_EQUAL(w->sets[b].count, w->sets[d].count - 4 * 4); /* interior edges */
    CU_ASSERT_EQUAL_FATAL(w->n_attach, 4); /* the rim's corners */
    for (int a = 0; a < 4; a++) {
        const double *x = w->x + 3 * w->attach_idx[a];
        CU_ASSERT(x[1] == 0.0 && fabs(x[0]) == 0.25 && fabs(x[2]) == 0.25);
    }
    for (int s = 0; s < 20; s++) CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
    pbd_world_free(w);
}

/* Every registered scene builds with its defaults and steps to finite residuals. */
static void test_all_scenes_step(void)
{
    for (int i = 0; i < pbd_scene_count(); i++) {
        const pbd_scene_entry *e = pbd_scene_at(i);
        pbd_scene_params sp = pbd_scene_params_default();
        pbd_world *w = e->build(&sp);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        for (int s = 0; s < 10; s++) CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
        CU_ASSERT(isfinite(w->stats.max_c) && isfinite(w->stats.l2_c));
        pbd_world_free(w);
    }
}

/* pbd-run with a bad mesh: one line on stderr naming file:line, nothing on stdout, status 1. */
static void test_pbd_run_bad_mesh(void)
{
    char dir[] = "/tmp/pbd-run-XXXXXX", cmd[1024], path[256];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "%s/pbd-run cloth --steps=2 --mesh=" DATA "bad_nan.obj >%s/out "
             "2>%s/err", test_bin_dir(), dir, dir);
    CU_ASSERT_EQUAL(test_run(cmd), 1);
    snprintf(cmd, sizeof cmd, "test ! -s %s/out && test $(wc -l < %s/err) -eq 1 && "
             "grep -q '" DATA "bad_nan.obj:3: expected a finite number' %s/err", dir, dir, dir);
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/pbd-run cloth --steps=2 --mesh=" DATA "good_forms.obj "
             ">/dev/null 2>&1", test_bin_dir());
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/pbd-run cloth --steps=2 --mesh=" DATA "no_such.obj 2>/dev/null",
             test_bin_dir());
    CU_ASSERT_EQUAL(test_run(cmd), 1);
    for (const char *f = "out"; f; f = strcmp(f, "out") == 0 ? "err" : NULL) {
        snprintf(path, sizeof path, "%s/%s", dir, f);
        remove(path);
    }
    rmdir(dir);
}

void register_mesh_scenes_tests(void)
{
    CU_pSuite s = CU_add_suite("mesh_scenes", NULL, NULL);
    CU_add_test(s, "cloth_scene_from_mesh", test_cloth_scene_from_mesh);
    CU_add_test(s, "cloth_scene_layout", test_cloth_scene_layout);
    CU_add_test(s, "cloth_bend_scene", test_cloth_bend_scene);
    CU_add_test(s, "tet_beam_scene", test_tet_beam_scene);
    CU_add_test(s, "balloon_scene", test_balloon_scene);
    CU_add_test(s, "cloth_bag_scene", test_cloth_bag_scene);
    CU_add_test(s, "all_scenes_step", test_all_scenes_step);
    CU_add_test(s, "pbd_run_bad_mesh", test_pbd_run_bad_mesh);
}
