/* Built-in surfaces for the standard scenes: the cloth grid (three diagonal patterns), the
 * icosphere (balloons) and the cloth bag (PBD Fig. 3). */
#include "mesh_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const pbd_diagonal_names[4] = {"same", "alternate", "union-jack", NULL};

/* Does quad (u, v) take the diagonal (u,v)–(u+1,v+1)? Otherwise (u+1,v)–(u,v+1). */
static int main_diagonal(pbd_diagonal d, int u, int v)
{
    switch (d) {
    case PBD_DIAGONAL_ALTERNATE: return v % 2 == 0;
    case PBD_DIAGONAL_UNION_JACK: return (u + v) % 2 == 0;
    default: return 1;
    }
}

/* Two triangles of the quad a=(u,v), b=(u+1,v), c=(u,v+1), d=(u+1,v+1), counter-clockwise
 * when u runs along +x and v along -y. */
static void split_quad(int32_t a, int32_t b, int32_t c, int32_t d, int main, int32_t *t)
{
    const int32_t q[2][6] = {{a, c, b, b, c, d}, {a, c, d, a, d, b}};
    memcpy(t, q[main], sizeof q[main]);
}

pbd_status pbd_mesh_grid(int nx, int ny, double sx, double sy, pbd_diagonal d, pbd_trimesh *out)
{
    memset(out, 0, sizeof *out);
    if (nx < 2 || ny < 2 || (double)nx * ny > 1e8)
        return pbd_error(PBD_EINVAL, "grid: expected at least 2 vertices per side and at most "
                         "100000000 in all (10000 x 10000), found %d x %d", nx, ny);
    if (!(sx > 0.0 && sy > 0.0 && isfinite(sx) && isfinite(sy)))
        return pbd_error(PBD_EINVAL, "grid: expected finite sides > 0, found %g x %g", sx, sy);
    if ((int)d < 0 || d > PBD_DIAGONAL_UNION_JACK)
        return pbd_error(PBD_EINVAL, "grid: expected a diagonal pattern 0..2, found %d", (int)d);
    pbd_status st = pbd_trimesh_alloc(out, nx * ny, 2 * (nx - 1) * (ny - 1));
    if (st != PBD_OK) return st;
    double hx = sx / (nx - 1), hy = sy / (ny - 1);
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            double *x = out->x + 3 * ((size_t)j * nx + i);
            x[0] = hx * i;
            x[1] = -hy * j;
            x[2] = 0.0;
        }
    int32_t *t = out->tri;
    for (int j = 0; j + 1 < ny; j++)
        for (int i = 0; i + 1 < nx; i++, t += 6) {
            int32_t a = j * nx + i;
            split_quad(a, a + 1, a + nx, a + nx + 1, main_diagonal(d, i, j), t);
        }
    return PBD_OK;
}

/* ---- icosphere ----------------------------------------------------------------------- */

static int edge_find(const int32_t *e, int ne, int32_t u, int32_t v)
{
    int32_t a = u < v ? u : v, b = u < v ? v : u;
    int lo = 0, hi = ne - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        const int32_t *m = e + 2 * mid;
        if (m[0] == a && m[1] == b) return mid;
        if (m[0] < a || (m[0] == a && m[1] < b))
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static void normalize(double *p)
{
    double l = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    for (int k = 0; k < 3; k++) p[k] /= l;
}

/* One subdivision: a vertex on every edge, each triangle into four. */
static pbd_status subdivide(pbd_trimesh *m)
{
    int32_t *e;
    int ne = pbd_trimesh_edges(m, &e, NULL);
    if (ne < 0) return PBD_ENOMEM;
    pbd_trimesh s;
    pbd_status st = pbd_trimesh_alloc(&s, m->n_vertices + ne, 4 * m->n_triangles);
    if (st != PBD_OK) {
        free(e);
        return st;
    }
    memcpy(s.x, m->x, 3 * (size_t)m->n_vertices * sizeof *s.x);
    for (int i = 0; i < ne; i++) {
        double *p = s.x + 3 * ((size_t)m->n_vertices + i);
        for (int k = 0; k < 3; k++) p[k] = 0.5 * (m->x[3 * e[2 * i] + k] + m->x[3 * e[2 * i + 1] + k]);
        normalize(p);
    }
    for (int t = 0; t < m->n_triangles; t++) {
        const int32_t *v = m->tri + 3 * t;
        int32_t mid[3];
        for (int k = 0; k < 3; k++)
            mid[k] = m->n_vertices + edge_find(e, ne, v[k], v[(k + 1) % 3]);
        const int32_t q[12] = {v[0],   mid[0], mid[2], v[1],   mid[1], mid[0],
                               v[2],   mid[2], mid[1], mid[0], mid[1], mid[2]};
        memcpy(s.tri + 12 * (size_t)t, q, sizeof q);
    }
    free(e);
    pbd_trimesh_free(m);
    *m = s;
    return PBD_OK;
}

pbd_status pbd_mesh_icosphere(int level, double radius, pbd_trimesh *out)
{
    memset(out, 0, sizeof *out);
    if (level < 0 || level > 8)
        return pbd_error(PBD_EINVAL, "icosphere: expected a subdivision level in [0, 8], found %d",
                         level);
    if (!(radius > 0.0 && isfinite(radius)))
        return pbd_error(PBD_EINVAL, "icosphere: expected a finite radius > 0, found %g", radius);
    /* the icosahedron: cyclic permutations of (0, ±1, ±φ) */
    const double g = 0.5 * (1.0 + sqrt(5.0));
    const double v[12][3] = {{-1, g, 0}, {1, g, 0},  {-1, -g, 0}, {1, -g, 0},
                             {0, -1, g}, {0, 1, g},  {0, -1, -g}, {0, 1, -g},
                             {g, 0, -1}, {g, 0, 1},  {-g, 0, -1}, {-g, 0, 1}};
    const int32_t f[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                              {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                              {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                              {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
    pbd_status st = pbd_trimesh_alloc(out, 12, 20);
    if (st != PBD_OK) return st;
    for (int i = 0; i < 12; i++) {
        memcpy(out->x + 3 * i, v[i], sizeof v[i]);
        normalize(out->x + 3 * i);
    }
    memcpy(out->tri, f, sizeof f);
    for (int l = 0; l < level; l++)
        if ((st = subdivide(out)) != PBD_OK) {
            pbd_trimesh_free(out);
            return st;
        }
    for (int i = 0; i < 3 * out->n_vertices; i++) out->x[i] *= radius;
    pbd_trimesh_orient_outward(out);
    return PBD_OK;
}

/* ---- cloth bag ----------------------------------------------------------------------- */

pbd_status pbd_mesh_cloth_bag(int n, double size, int closed, pbd_diagonal d, pbd_trimesh *out)
{
    memset(out, 0, sizeof *out);
    if (n < 1 || n > 1000)
        return pbd_error(PBD_EINVAL, "cloth bag: expected 1..1000 quads per face side, found %d",
                         n);
    if (!(size > 0.0 && isfinite(size)))
        return pbd_error(PBD_EINVAL, "cloth bag: expected a finite size > 0, found %g", size);
    if ((int)d < 0 || d > PBD_DIAGONAL_UNION_JACK)
        return pbd_error(PBD_EINVAL, "cloth bag: expected a diagonal pattern 0..2, found %d",
                         (int)d);
    int L = n + 1, faces = closed ? 6 : 5;
    size_t lattice = (size_t)L * L * L;
    int32_t *id = malloc(lattice * sizeof *id);
    pbd_status st = pbd_trimesh_alloc(out, 6 * n * n + 2, faces * 2 * n * n);
    if (!id || st != PBD_OK) {
        free(id);
        pbd_trimesh_free(out);
        return pbd_error(PBD_ENOMEM, "cloth bag: out of memory for n = %d", n);
    }
    for (size_t i = 0; i < lattice; i++) id[i] = -1;
    const double h = size / n, center[3] = {0.0, -0.5 * size, 0.0};
    int nv = 0, nt = 0;
    /* face f: the axis it is normal to and the side (0 or n); the top (y = n) comes last */
    const int face_axis[6] = {0, 0, 2, 2, 1, 1}, face_side[6] = {0, n, 0, n, 0, n};
    for (int f = 0; f < faces; f++) {
        int ax = face_axis[f], au = (ax + 1) % 3, av = (ax + 2) % 3;
        for (int v = 0; v < n; v++)
            for (int u = 0; u < n; u++) {
                int32_t c[4];
                for (int k = 0; k < 4; k++) {
                    int g[3];
                    g[ax] = face_side[f];
                    g[au] = u + (k & 1);
                    g[av] = v + (k >> 1);
                    size_t key = ((size_t)g[2] * L + g[1]) * L + g[0];
                    if (id[key] < 0) {
                        double *x = out->x + 3 * (size_t)nv;
                        x[0] = -0.5 * size + h * g[0];
                        x[1] = -size + h * g[1];
                        x[2] = -0.5 * size + h * g[2];
                        id[key] = nv++;
                    }
                    c[k] = id[key];
                }
                int32_t *t = out->tri + 3 * (size_t)nt;
                split_quad(c[0], c[1], c[2], c[3], main_diagonal(d, u, v), t);
                for (int s = 0; s < 2; s++, nt++) { /* outward: normal away from the centre */
                    int32_t *q = out->tri + 3 * (size_t)nt;
                    const double *a = out->x + 3 * q[0], *b = out->x + 3 * q[1],
                                 *cc = out->x + 3 * q[2];
                    double e1[3], e2[3], nrm[3], dot = 0.0;
                    for (int k = 0; k < 3; k++) {
                        e1[k] = b[k] - a[k];
                        e2[k] = cc[k] - a[k];
                    }
                    mesh_cross(e1, e2, nrm);
                    for (int k = 0; k < 3; k++) dot += nrm[k] * ((a[k] + b[k] + cc[k]) / 3.0 - center[k]);
                    if (dot < 0.0) {
                        int32_t tmp = q[1];
                        q[1] = q[2];
                        q[2] = tmp;
                    }
                }
            }
    }
    free(id);
    out->n_vertices = nv; /* the open bag has no vertices inside its top face */
    return PBD_OK;
}
