/* Tetrahedral meshes: storage, signed volume, orientation, edges and boundary surface. */
#include "mesh_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

pbd_status pbd_tetmesh_alloc(pbd_tetmesh *m, int n_vertices, int n_tets)
{
    memset(m, 0, sizeof *m);
    if (n_vertices < 0 || n_tets < 0)
        return pbd_error(PBD_EINVAL, "tet mesh: expected non-negative counts, found %d vertices "
                         "and %d tets", n_vertices, n_tets);
    m->x = calloc(3 * (size_t)(n_vertices > 0 ? n_vertices : 1), sizeof *m->x);
    m->tet = calloc(4 * (size_t)(n_tets > 0 ? n_tets : 1), sizeof *m->tet);
    if (!m->x || !m->tet) {
        pbd_tetmesh_free(m);
        return pbd_error(PBD_ENOMEM, "tet mesh: out of memory for %d vertices and %d tets",
                         n_vertices, n_tets);
    }
    m->n_vertices = n_vertices;
    m->n_tets = n_tets;
    return PBD_OK;
}

void pbd_tetmesh_free(pbd_tetmesh *m)
{
    if (!m) return;
    free(m->x);
    free(m->tet);
    memset(m, 0, sizeof *m);
}

/* V = (1/6)(b-a)·((c-a)×(d-a)): positive when (b, c, d) turn counter-clockwise seen from
 * the side opposite a. */
double pbd_tet_volume(const double *a, const double *b, const double *c, const double *d)
{
    double e1[3], e2[3], e3[3], n[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = b[k] - a[k];
        e2[k] = c[k] - a[k];
        e3[k] = d[k] - a[k];
    }
    mesh_cross(e2, e3, n);
    return (e1[0] * n[0] + e1[1] * n[1] + e1[2] * n[2]) / 6.0;
}

int pbd_tet_is_degenerate(const double *a, const double *b, const double *c, const double *d)
{
    const double *p[4] = {a, b, c, d};
    double l2 = 0.0;
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++) s += (p[j][k] - p[i][k]) * (p[j][k] - p[i][k]);
            if (s > l2) l2 = s;
        }
    return !(fabs(6.0 * pbd_tet_volume(a, b, c, d)) > 1e-12 * l2 * sqrt(l2));
}

int pbd_tetmesh_orient(pbd_tetmesh *m)
{
    int flipped = 0;
    for (int t = 0; t < m->n_tets; t++) {
        int32_t *v = m->tet + 4 * t;
        if (pbd_tet_volume(m->x + 3 * v[0], m->x + 3 * v[1], m->x + 3 * v[2], m->x + 3 * v[3]) <
            0.0) {
            int32_t tmp = v[2];
            v[2] = v[3];
            v[3] = tmp;
            flipped++;
        }
    }
    return flipped;
}

static int pair_cmp(const void *pa, const void *pb)
{
    const int32_t *a = pa, *b = pb;
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return (a[1] > b[1]) - (a[1] < b[1]);
}

int pbd_tetmesh_edges(const pbd_tetmesh *m, int32_t **edges)
{
    static const int pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    size_t n = 6 * (size_t)m->n_tets;
    int32_t *e = malloc(2 * (n > 0 ? n : 1) * sizeof *e);
    if (!e) {
        pbd_error(PBD_ENOMEM, "tet mesh: out of memory for the edges of %d tets", m->n_tets);
        return -1;
    }
    for (int t = 0; t < m->n_tets; t++)
        for (int k = 0; k < 6; k++) {
            int32_t u = m->tet[4 * t + pairs[k][0]], v = m->tet[4 * t + pairs[k][1]];
            e[2 * (6 * (size_t)t + k)] = u < v ? u : v;
            e[2 * (6 * (size_t)t + k) + 1] = u < v ? v : u;
        }
    qsort(e, n, 2 * sizeof *e, pair_cmp);
    size_t ne = 0;
    for (size_t i = 0; i < n; i++)
        if (ne == 0 || e[2 * i] != e[2 * (ne - 1)] || e[2 * i + 1] != e[2 * (ne - 1) + 1]) {
            e[2 * ne] = e[2 * i];
            e[2 * ne + 1] = e[2 * i + 1];
            ne++;
        }
    *edges = e;
    return (int)ne;
}

/* A face: its sorted vertices (key) and its outward orientation (v). */
typedef struct tet_face {
    int32_t key[3], v[3];
} tet_face;

static int face_cmp(const void *pa, const void *pb)
{
    const tet_face *a = pa, *b = pb;
    for (int k = 0; k < 3; k++)
        if (a->key[k] != b->key[k]) return a->key[k] < b->key[k] ? -1 : 1;
    return 0;
}

static void sort3(int32_t *k)
{
    int32_t t;
    if (k[0] > k[1]) t = k[0], k[0] = k[1], k[1] = t;
    if (k[1] > k[2]) t = k[1], k[1] = k[2], k[2] = t;
    if (k[0] > k[1]) t = k[0], k[0] = k[1], k[1] = t;
}

int pbd_tetmesh_boundary(const pbd_tetmesh *m, int32_t **tri)
{
    /* outward faces of a positive tet (0, 1, 2, 3) */
    static const int faces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
    size_t n = 4 * (size_t)m->n_tets;
    tet_face *f = malloc((n > 0 ? n : 1) * sizeof *f);
    if (!f) {
        pbd_error(PBD_ENOMEM, "tet mesh: out of memory for the faces of %d tets", m->n_tets);
        return -1;
    }
    for (int t = 0; t < m->n_tets; t++) {
        int32_t v[4];
        memcpy(v, m->tet + 4 * t, sizeof v);
        if (pbd_tet_volume(m->x + 3 * v[0], m->x + 3 * v[1], m->x + 3 * v[2], m->x + 3 * v[3]) <
            0.0) {
            int32_t tmp = v[2];
            v[2] = v[3];
            v[3] = tmp;
        }
        for (int k = 0; k < 4; k++) {
            tet_face *q = &f[4 * (size_t)t + k];
            for (int j = 0; j < 3; j++) q->key[j] = q->v[j] = v[faces[k][j]];
            sort3(q->key);
        }
    }
    qsort(f, n, sizeof *f, face_cmp);
    size_t nb = 0;
    int bad = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && face_cmp(&f[i], &f[j]) == 0) j++;
        if (j - i > 2) bad = 1;
        if (j - i == 1) f[nb++] = f[i];
        i = j;
    }
    if (bad) {
        free(f);
        pbd_error(PBD_EINPUT, "tet mesh: expected each face shared by at most 2 tets "
                  "(a conforming mesh), found a face in 3 or more");
        return -1;
    }
    int32_t *out = malloc(3 * (nb > 0 ? nb : 1) * sizeof *out);
    if (!out) {
        free(f);
        pbd_error(PBD_ENOMEM, "tet mesh: out of memory for the boundary");
        return -1;
    }
    for (size_t i = 0; i < nb; i++) memcpy(out + 3 * i, f[i].v, sizeof f[i].v);
    free(f);
    *tri = out;
    return (int)nb;
}
