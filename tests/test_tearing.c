/* Tearing (PBD Sec. 5) and the world growing between steps: suite `tearing`.
 *
 * The invariants are checked here by brute force, independently of solver/tearing/tearing.c:
 * - the mesh is manifold: every edge in at most 2 triangles; every vertex's triangles form
 *   ONE fan (connected through edges from the vertex) with 0 boundary edges at the vertex
 *   (a closed disk) or 2 (a half-disk on the boundary); every particle is in a triangle
 *   (a split never leaves a vertex without one); triangles have 3 distinct vertices;
 * - every index of every constraint and attachment is a particle of the world;
 * - the distance rows are exactly the mesh's edges (one each) with rest length = the
 *   distance of the rest positions; the bending rows exactly its hinges (one each);
 * - the mass Σ 1/w of the free particles and the number of pinned ones do not change. */
#include "tests.h"
#include "solver/tearing/pbd_tearing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- brute-force checkers -------------------------------------------------------------- */

/* The tearing's current mesh as a pbd_trimesh (borrowed arrays: not to be freed). */
static pbd_trimesh torn(const pbd_tearing *t)
{
    pbd_tear_mesh v = pbd_tearing_mesh(t);
    pbd_trimesh m = {v.n_vertices, (double *)v.x, v.n_triangles, (int32_t *)v.tri, NULL, NULL};
    return m;
}

/* A mesh as tearing takes it. */
#define TEAR_VIEW(m) (&(pbd_tear_mesh){(m)->n_vertices, (m)->x, (m)->n_triangles, (m)->tri, NULL})

static int cmp_pair(const void *pa, const void *pb)
{
    const int32_t *a = pa, *b = pb;
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return (a[1] > b[1]) - (a[1] < b[1]);
}

static int cmp_quad(const void *pa, const void *pb)
{
    const int32_t *a = pa, *b = pb;
    for (int k = 0; k < 4; k++)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

/* Sorted unique edges (a < b) of the triangles, with their triangle counts; returns the count. */
static int mesh_edges(const pbd_trimesh *m, int32_t **edges, int32_t **count)
{
    int n = 3 * m->n_triangles;
    int32_t *all = malloc(2 * (size_t)(n + 1) * sizeof *all);
    for (int t = 0; t < m->n_triangles; t++)
        for (int j = 0; j < 3; j++) {
            int32_t a = m->tri[3 * t + j], b = m->tri[3 * t + (j + 1) % 3];
            all[2 * (3 * t + j)] = a < b ? a : b;
            all[2 * (3 * t + j) + 1] = a < b ? b : a;
        }
    qsort(all, (size_t)n, 2 * sizeof *all, cmp_pair);
    int32_t *cnt = malloc((size_t)(n + 1) * sizeof *cnt);
    int ne = 0;
    for (int i = 0; i < n; i++) {
        if (ne > 0 && all[2 * i] == all[2 * (ne - 1)] && all[2 * i + 1] == all[2 * (ne - 1) + 1]) {
            cnt[ne - 1]++;
            continue;
        }
        all[2 * ne] = all[2 * i];
        all[2 * ne + 1] = all[2 * i + 1];
        cnt[ne++] = 1;
    }
    *edges = all;
    *count = cnt;
    return ne;
}

static int has(const int32_t *tri, int32_t v) { return tri[0] == v || tri[1] == v || tri[2] == v; }

static int find_root(int32_t *p, int32_t i)
{
    while (p[i] != i) i = p[i] = p[p[i]];
    return i;
}

/* 0 when the mesh over n particles is manifold as stated at the top; otherwise 1 with the
 * first problem in why. */
static int mesh_problem(const pbd_trimesh *m, int n, char *why, size_t size)
{
    for (int t = 0; t < m->n_triangles; t++) {
        const int32_t *q = m->tri + 3 * t;
        for (int j = 0; j < 3; j++)
            if (q[j] < 0 || q[j] >= n) {
                snprintf(why, size, "triangle %d has vertex %d outside [0, %d)", t, q[j], n);
                return 1;
            }
        if (q[0] == q[1] || q[1] == q[2] || q[0] == q[2]) {
            snprintf(why, size, "triangle %d repeats a vertex", t);
            return 1;
        }
    }
    int32_t *e, *cnt;
    int ne = mesh_edges(m, &e, &cnt), bad = 0;
    for (int i = 0; i < ne && !bad; i++)
        if (cnt[i] > 2) {
            snprintf(why, size, "edge %d-%d in %d triangles", e[2 * i], e[2 * i + 1], cnt[i]);
            bad = 1;
        }
    int32_t *fan = malloc((size_t)(m->n_triangles + 1) * sizeof *fan);
    int32_t *parent = malloc((size_t)(m->n_triangles + 1) * sizeof *parent);
    for (int v = 0; v < n && !bad; v++) {
        int k = 0;
        for (int t = 0; t < m->n_triangles; t++)
            if (has(m->tri + 3 * t, v)) fan[k++] = t;
        if (k == 0) {
            snprintf(why, size, "particle %d is in no triangle", v);
            bad = 1;
            break;
        }
        for (int i = 0; i < k; i++) parent[i] = i;
        for (int i = 0; i < k; i++)
            for (int j = i + 1; j < k; j++)
                for (int c = 0; c < 3; c++) {
                    int32_t u = m->tri[3 * fan[i] + c];
                    if (u != v && has(m->tri + 3 * fan[j], u))
                        parent[find_root(parent, i)] = find_root(parent, j);
                }
        int roots = 0;
        for (int i = 0; i < k; i++) roots += find_root(parent, i) == i;
        int boundary = 0;
        for (int i = 0; i < ne; i++)
            if ((e[2 * i] == v || e[2 * i + 1] == v) && cnt[i] == 1) boundary++;
        if (roots != 1 || (boundary != 0 && boundary != 2)) {
            snprintf(why, size, "vertex %d: %d fans, %d boundary edges (expected 1 fan with 0 "
                     "or 2)", v, roots, boundary);
            bad = 1;
        }
    }
    free(fan);
    free(parent);
    free(e);
    free(cnt);
    return bad;
}

/* Hinges (interior edges) as keys (min p1p2, max p1p2, min wing, max wing), sorted. */
static int mesh_hinge_keys(const pbd_trimesh *m, int32_t **keys)
{
    int32_t *e, *cnt;
    int ne = mesh_edges(m, &e, &cnt), nh = 0;
    int32_t *k = malloc(4 * (size_t)(ne + 1) * sizeof *k);
    for (int i = 0; i < ne; i++) {
        if (cnt[i] != 2) continue;
        int32_t wing[2], nw = 0;
        for (int t = 0; t < m->n_triangles && nw < 2; t++) {
            const int32_t *q = m->tri + 3 * t;
            if (!has(q, e[2 * i]) || !has(q, e[2 * i + 1])) continue;
            for (int j = 0; j < 3; j++)
                if (q[j] != e[2 * i] && q[j] != e[2 * i + 1]) wing[nw++] = q[j];
        }
        int32_t *r = k + 4 * nh++;
        r[0] = e[2 * i];
        r[1] = e[2 * i + 1];
        r[2] = wing[0] < wing[1] ? wing[0] : wing[1];
        r[3] = wing[0] < wing[1] ? wing[1] : wing[0];
    }
    qsort(k, (size_t)nh, 4 * sizeof *k, cmp_quad);
    free(e);
    free(cnt);
    *keys = k;
    return nh;
}

/* 0 when the world's constraints match the mesh (rest positions X) as stated at the top. */
static int constraint_problem(const pbd_world *w, const pbd_trimesh *m, const double *X,
                              int dist, int bend, char *why, size_t size)
{
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        for (int i = 0; i < set->count * set->arity; i++)
            if (set->idx[i] < 0 || set->idx[i] >= w->n) {
                snprintf(why, size, "set %d (%s) row %d refers to particle %d outside [0, %d)",
                         s, set->type->name, i / set->arity, set->idx[i], w->n);
                return 1;
            }
    }
    for (int a = 0; a < w->n_attach; a++)
        if (w->attach_idx[a] < 0 || w->attach_idx[a] >= w->n || w->w[w->attach_idx[a]] != 0.0) {
            snprintf(why, size, "attachment %d: particle %d is not a pinned particle", a,
                     w->attach_idx[a]);
            return 1;
        }
    int bad = 0;
    const pbd_constraint_set *ds = &w->sets[dist];
    int32_t *e, *cnt;
    int ne = mesh_edges(m, &e, &cnt);
    int32_t *rows = malloc(2 * (size_t)(ds->count + 1) * sizeof *rows);
    for (int c = 0; c < ds->count && !bad; c++) {
        int32_t a = ds->idx[2 * c], b = ds->idx[2 * c + 1];
        rows[2 * c] = a < b ? a : b;
        rows[2 * c + 1] = a < b ? b : a;
        const double *xa = X + 3 * a, *xb = X + 3 * b;
        double L = sqrt((xa[0] - xb[0]) * (xa[0] - xb[0]) + (xa[1] - xb[1]) * (xa[1] - xb[1]) +
                        (xa[2] - xb[2]) * (xa[2] - xb[2]));
        if (fabs(L - ds->rest[c]) > 1e-12 * L) {
            snprintf(why, size, "distance %d-%d: rest %.17g, rest positions say %.17g", a, b,
                     ds->rest[c], L);
            bad = 1;
        }
    }
    qsort(rows, (size_t)ds->count, 2 * sizeof *rows, cmp_pair);
    if (!bad && ds->count != ne) {
        snprintf(why, size, "%d distance constraints for %d edges", ds->count, ne);
        bad = 1;
    }
    for (int i = 0; i < ne && !bad; i++)
        if (rows[2 * i] != e[2 * i] || rows[2 * i + 1] != e[2 * i + 1]) {
            snprintf(why, size, "edge %d-%d has no distance constraint (or a duplicate)", e[2 * i],
                     e[2 * i + 1]);
            bad = 1;
        }
    free(rows);
    free(e);
    free(cnt);
    if (bad || bend < 0) return bad;
    const pbd_constraint_set *bs = &w->sets[bend];
    int32_t *hk, *bk = malloc(4 * (size_t)(bs->count + 1) * sizeof *bk);
    int nh = mesh_hinge_keys(m, &hk);
    for (int c = 0; c < bs->count; c++) {
        const int32_t *r = bs->idx + 4 * c;
        int32_t *k = bk + 4 * c;
        k[0] = r[0] < r[1] ? r[0] : r[1];
        k[1] = r[0] < r[1] ? r[1] : r[0];
        k[2] = r[2] < r[3] ? r[2] : r[3];
        k[3] = r[2] < r[3] ? r[3] : r[2];
    }
    qsort(bk, (size_t)bs->count, 4 * sizeof *bk, cmp_quad);
    if (bs->count != nh) {
        snprintf(why, size, "%d bending constraints for %d hinges", bs->count, nh);
        bad = 1;
    }
    for (int i = 0; i < nh && !bad; i++)
        if (cmp_quad(bk + 4 * i, hk + 4 * i) != 0) {
            snprintf(why, size, "hinge %d-%d (%d, %d) has no bending constraint (or a duplicate)",
                     hk[4 * i], hk[4 * i + 1], hk[4 * i + 2], hk[4 * i + 3]);
            bad = 1;
        }
    free(hk);
    free(bk);
    return bad;
}

/* Connected pieces: particles joined by distance constraints. */
static int components(const pbd_world *w, int dist)
{
    int32_t *p = malloc((size_t)w->n * sizeof *p);
    for (int i = 0; i < w->n; i++) p[i] = i;
    const pbd_constraint_set *s = &w->sets[dist];
    for (int c = 0; c < s->count; c++)
        p[find_root(p, s->idx[2 * c])] = find_root(p, s->idx[2 * c + 1]);
    int n = 0;
    for (int i = 0; i < w->n; i++) n += find_root(p, i) == i;
    free(p);
    return n;
}

static double free_mass(const pbd_world *w, int *pinned)
{
    double m = 0.0;
    *pinned = 0;
    for (int i = 0; i < w->n; i++) {
        if (w->w[i] > 0.0)
            m += 1.0 / w->w[i];
        else
            (*pinned)++;
    }
    return m;
}

static int all_finite(const pbd_world *w)
{
    for (int i = 0; i < 3 * w->n; i++)
        if (!isfinite(w->x[i]) || !isfinite(w->v[i]) || !isfinite(w->p[i])) return 0;
    for (int i = 0; i < w->n; i++)
        if (!isfinite(w->w[i])) return 0;
    return 1;
}

/* Both checkers on the tearing's mesh; prints the problem when there is one. */
static int tear_consistent(const pbd_world *w, const pbd_tearing *t, int dist, int bend)
{
    char why[256];
    const pbd_trimesh torn_m = torn(t), *m = &torn_m;
    if (m->n_vertices != w->n) {
        printf("\n    mesh knows %d vertices, the world has %d particles\n", m->n_vertices, w->n);
        return 0;
    }
    if (mesh_problem(m, w->n, why, sizeof why) ||
        constraint_problem(w, m, m->x, dist, bend, why, sizeof why)) {
        printf("\n    %s\n", why);
        return 0;
    }
    return 1;
}

/* ---- the world grows: particles, rows, the post-step hook -------------------------------- */

static int colouring_valid(const pbd_world *w)
{
    for (int s = 0; s < w->n_sets; s++) {
        const int32_t *order, *start;
        int nc = pbd_set_colours(w, s, &order, &start);
        const pbd_constraint_set *set = &w->sets[s];
        if (nc < 0 || start[nc] != set->count) return 0;
        int *seen = calloc((size_t)set->count + 1, sizeof *seen);
        int *stamp = malloc((size_t)w->n * sizeof *stamp), ok = 1;
        for (int i = 0; i < w->n; i++) stamp[i] = -1;
        for (int k = 0; k < nc && ok; k++)
            for (int q = start[k]; q < start[k + 1] && ok; q++) {
                int c = order[q];
                if (c < 0 || c >= set->count || seen[c]++) ok = 0;
                for (int j = 0; ok && j < set->arity; j++) {
                    int i = set->idx[c * set->arity + j];
                    if (stamp[i] == k) ok = 0;
                    stamp[i] = k;
                }
            }
        free(seen);
        free(stamp);
        if (!ok) return 0;
    }
    return 1;
}

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
    CU_add_test(s, "hard_pull_tears_in_two", test_hard_pull_tears_in_two);
    CU_add_test(s, "gentle_pull_does_not_tear", test_gentle_pull_does_not_tear);
    CU_add_test(s, "schemes_follow_topology", test_schemes_follow_topology);
    CU_add_test(s, "self_collision_sees_tears", test_self_collision_sees_tears);
    CU_add_test(s, "pbd_run_tear", test_pbd_run_tear);
    CU_add_test(s, "bad_input", test_bad_input);
    CU_add_test(s, "checkers_catch_errors", test_checkers_catch_errors);
}
