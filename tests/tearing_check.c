/* The brute-force checkers of the tearing suites (tests/tearing_check.h): written
 * independently of solver/tearing/, so that they can catch what it gets wrong. */
#include "tearing_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tearing's current mesh as a pbd_trimesh (borrowed arrays: not to be freed). */
pbd_trimesh torn(const pbd_tearing *t)
{
    pbd_tear_mesh v = pbd_tearing_mesh(t);
    pbd_trimesh m = {v.n_vertices, (double *)v.x, v.n_triangles, (int32_t *)v.tri, NULL, NULL};
    return m;
}

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

int has(const int32_t *tri, int32_t v) { return tri[0] == v || tri[1] == v || tri[2] == v; }

int find_root(int32_t *p, int32_t i)
{
    while (p[i] != i) i = p[i] = p[p[i]];
    return i;
}

/* 0 when the mesh over n particles is manifold as stated in tearing_check.h; otherwise 1
 * with the first problem in why. */
int mesh_problem(const pbd_trimesh *m, int n, char *why, size_t size)
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

/* 0 when the world's constraints match the mesh (rest positions X) as stated in
 * tearing_check.h. */
int constraint_problem(const pbd_world *w, const pbd_trimesh *m, const double *X, int dist,
                       int bend, char *why, size_t size)
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
int components(const pbd_world *w, int dist)
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

double free_mass(const pbd_world *w, int *pinned)
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

int all_finite(const pbd_world *w)
{
    for (int i = 0; i < 3 * w->n; i++)
        if (!isfinite(w->x[i]) || !isfinite(w->v[i]) || !isfinite(w->p[i])) return 0;
    for (int i = 0; i < w->n; i++)
        if (!isfinite(w->w[i])) return 0;
    return 1;
}

/* Both checkers on the tearing's mesh; prints the problem when there is one. */
int tear_consistent(const pbd_world *w, const pbd_tearing *t, int dist, int bend)
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

/* 1 when every set's colouring covers each constraint once and no colour holds two
 * constraints on one particle. */
int colouring_valid(const pbd_world *w)
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
