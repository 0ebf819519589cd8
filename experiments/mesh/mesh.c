/* Triangle meshes: storage, topology (edges, bending hinges, boundary and non-manifold
 * edges) and the checks a cloth or a closed surface must pass. */
#include "mesh_private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pbd_status pbd_trimesh_alloc(pbd_trimesh *m, int n_vertices, int n_triangles)
{
    memset(m, 0, sizeof *m);
    if (n_vertices < 0 || n_triangles < 0)
        return pbd_error(PBD_EINVAL, "mesh: expected non-negative counts, found %d vertices and "
                         "%d triangles", n_vertices, n_triangles);
    m->x = calloc(3 * (size_t)(n_vertices > 0 ? n_vertices : 1), sizeof *m->x);
    m->tri = calloc(3 * (size_t)(n_triangles > 0 ? n_triangles : 1), sizeof *m->tri);
    if (!m->x || !m->tri) {
        pbd_trimesh_free(m);
        return pbd_error(PBD_ENOMEM, "mesh: out of memory for %d vertices and %d triangles",
                         n_vertices, n_triangles);
    }
    m->n_vertices = n_vertices;
    m->n_triangles = n_triangles;
    return PBD_OK;
}

void pbd_trimesh_free(pbd_trimesh *m)
{
    if (!m) return;
    free(m->x);
    free(m->tri);
    free(m->tri_line);
    free(m->source);
    memset(m, 0, sizeof *m);
}

int pbd_triangle_is_degenerate(const double *a, const double *b, const double *c)
{
    double e[3][3], l2 = 0.0;
    for (int k = 0; k < 3; k++) {
        e[0][k] = b[k] - a[k];
        e[1][k] = c[k] - a[k];
        e[2][k] = c[k] - b[k];
    }
    for (int i = 0; i < 3; i++) {
        double li = e[i][0] * e[i][0] + e[i][1] * e[i][1] + e[i][2] * e[i][2];
        if (li > l2) l2 = li;
    }
    double n[3];
    mesh_cross(e[0], e[1], n);
    double area2 = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    return !(area2 > 1e-12 * l2);
}

/* ---- half-edges: one record per (triangle, edge), sorted by edge then triangle ------- */

static int half_cmp(const void *pa, const void *pb)
{
    const mesh_half *a = pa, *b = pb;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    if (a->b != b->b) return a->b < b->b ? -1 : 1;
    return (a->t > b->t) - (a->t < b->t);
}

mesh_half *mesh_halves(const pbd_trimesh *m)
{
    size_t n = 3 * (size_t)m->n_triangles;
    mesh_half *h = malloc((n > 0 ? n : 1) * sizeof *h);
    if (!h) {
        pbd_error(PBD_ENOMEM, "mesh: out of memory for %d triangles' edges", m->n_triangles);
        return NULL;
    }
    for (int t = 0; t < m->n_triangles; t++)
        for (int e = 0; e < 3; e++) {
            int32_t u = m->tri[3 * t + e], v = m->tri[3 * t + (e + 1) % 3];
            mesh_half *r = &h[3 * (size_t)t + e];
            r->a = u < v ? u : v;
            r->b = u < v ? v : u;
            r->t = t;
            r->fwd = u < v;
            r->third = m->tri[3 * t + (e + 2) % 3];
        }
    qsort(h, n, sizeof *h, half_cmp);
    return h;
}

/* Length of the run of records on the same edge starting at k. */
static int run_length(const mesh_half *h, int n, int k)
{
    int j = k + 1;
    while (j < n && h[j].a == h[k].a && h[j].b == h[k].b) j++;
    return j - k;
}

int pbd_trimesh_edges(const pbd_trimesh *m, int32_t **edges, int32_t **valence)
{
    int n = 3 * m->n_triangles;
    mesh_half *h = mesh_halves(m);
    if (!h) return -1;
    int ne = 0;
    for (int k = 0; k < n; k += run_length(h, n, k)) ne++;
    int32_t *e = malloc(2 * (size_t)(ne > 0 ? ne : 1) * sizeof *e);
    int32_t *val = valence ? malloc((size_t)(ne > 0 ? ne : 1) * sizeof *val) : NULL;
    if (!e || (valence && !val)) {
        free(h);
        free(e);
        free(val);
        pbd_error(PBD_ENOMEM, "mesh: out of memory for %d edges", ne);
        return -1;
    }
    int i = 0;
    for (int k = 0; k < n;) {
        int r = run_length(h, n, k);
        e[2 * i] = h[k].a;
        e[2 * i + 1] = h[k].b;
        if (val) val[i] = r;
        i++;
        k += r;
    }
    free(h);
    *edges = e;
    if (valence) *valence = val;
    return ne;
}

int pbd_trimesh_hinges(const pbd_trimesh *m, int32_t **hinges)
{
    int n = 3 * m->n_triangles;
    mesh_half *h = mesh_halves(m);
    if (!h) return -1;
    int nh = 0;
    for (int k = 0; k < n; k += run_length(h, n, k))
        if (run_length(h, n, k) == 2) nh++;
    int32_t *s = malloc(4 * (size_t)(nh > 0 ? nh : 1) * sizeof *s);
    if (!s) {
        free(h);
        pbd_error(PBD_ENOMEM, "mesh: out of memory for %d hinges", nh);
        return -1;
    }
    int i = 0;
    for (int k = 0; k < n; k += run_length(h, n, k)) {
        if (run_length(h, n, k) != 2) continue;
        /* p1 -> p2 as the first triangle runs the edge, so that (p1, p2, p3) is that
         * triangle with its own orientation (PBD Appendix A stencil) */
        int32_t *q = s + 4 * (size_t)i++;
        q[0] = h[k].fwd ? h[k].a : h[k].b;
        q[1] = h[k].fwd ? h[k].b : h[k].a;
        q[2] = h[k].third;
        q[3] = h[k + 1].third;
    }
    free(h);
    *hinges = s;
    return nh;
}

pbd_status pbd_trimesh_inspect(const pbd_trimesh *m, pbd_trimesh_report *r)
{
    memset(r, 0, sizeof *r);
    int n = 3 * m->n_triangles;
    mesh_half *h = mesh_halves(m);
    if (!h) return PBD_ENOMEM;
    for (int k = 0; k < n;) {
        int len = run_length(h, n, k);
        r->n_edges++;
        if (len == 1) r->n_boundary_edges++;
        if (len > 2) r->n_nonmanifold_edges++;
        if (len == 2 && h[k].fwd == h[k + 1].fwd) r->n_misoriented_edges++;
        k += len;
    }
    free(h);
    for (int t = 0; t < m->n_triangles; t++) {
        const double *a = m->x + 3 * m->tri[3 * t], *b = m->x + 3 * m->tri[3 * t + 1],
                     *c = m->x + 3 * m->tri[3 * t + 2];
        if (pbd_triangle_is_degenerate(a, b, c)) r->n_degenerate++;
        double e1[3], e2[3], nrm[3], axb[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = b[k] - a[k];
            e2[k] = c[k] - a[k];
        }
        mesh_cross(e1, e2, nrm);
        r->area += 0.5 * sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
        /* PBD Eq. 14 sums (a×b)·c; the enclosed volume is a sixth of it */
        mesh_cross(a, b, axb);
        r->volume += (axb[0] * c[0] + axb[1] * c[1] + axb[2] * c[2]) / 6.0;
    }
    r->closed = m->n_triangles > 0 && r->n_boundary_edges == 0 && r->n_nonmanifold_edges == 0;
    r->oriented = r->n_misoriented_edges == 0;
    r->euler = m->n_vertices - r->n_edges + m->n_triangles;
    return PBD_OK;
}

/* "file:line" of triangle t when loaded, "what: triangle t" when generated. */
static void where(const pbd_trimesh *m, int t, char *buf, size_t size)
{
    if (m->source && m->tri_line)
        snprintf(buf, size, "%s:%d", m->source, (int)m->tri_line[t]);
    else
        snprintf(buf, size, "%s: triangle %d", m->source ? m->source : "mesh", t);
}

pbd_status pbd_trimesh_require(const pbd_trimesh *m, int require)
{
    char at[512];
    int base = m->tri_line ? 1 : 0; /* a file's vertices are numbered from 1 (OBJ) */
    if (require & PBD_MESH_NO_DEGENERATE)
        for (int t = 0; t < m->n_triangles; t++) {
            const int32_t *v = m->tri + 3 * t;
            if (!pbd_triangle_is_degenerate(m->x + 3 * v[0], m->x + 3 * v[1], m->x + 3 * v[2]))
                continue;
            where(m, t, at, sizeof at);
            return pbd_error(PBD_EINPUT, "%s: expected a triangle of non-zero area, found a "
                             "degenerate (zero-area) triangle of vertices %d %d %d",
                             at, v[0] + base, v[1] + base, v[2] + base);
        }
    if (!(require & (PBD_MESH_MANIFOLD | PBD_MESH_CLOSED))) return PBD_OK;
    int n = 3 * m->n_triangles;
    mesh_half *h = mesh_halves(m);
    if (!h) return PBD_ENOMEM;
    /* report the earliest offending triangle in file order */
    int bad_t = -1, bad_k = -1, bad_len = 0, bad_kind = 0;
    for (int k = 0; k < n; k += run_length(h, n, k)) {
        int len = run_length(h, n, k), t = -1, kind = 0;
        if (len > 2) {
            t = h[k + 2].t; /* the third triangle on the edge */
            kind = 1;
        } else if ((require & PBD_MESH_CLOSED) && len == 1) {
            t = h[k].t;
            kind = 2;
        } else if ((require & PBD_MESH_CLOSED) && len == 2 && h[k].fwd == h[k + 1].fwd) {
            t = h[k + 1].t;
            kind = 3;
        }
        if (kind && (bad_t < 0 || kind < bad_kind || (kind == bad_kind && t < bad_t))) {
            bad_t = t;
            bad_k = k;
            bad_len = len;
            bad_kind = kind;
        }
    }
    pbd_status st = PBD_OK;
    if (bad_t >= 0) {
        int a = h[bad_k].a + base, b = h[bad_k].b + base;
        where(m, bad_t, at, sizeof at);
        if (bad_kind == 1)
            st = pbd_error(PBD_EINPUT, "%s: expected an edge shared by at most 2 triangles "
                           "(manifold), found non-manifold edge %d-%d shared by %d triangles",
                           at, a, b, bad_len);
        else if (bad_kind == 2)
            st = pbd_error(PBD_EINPUT, "%s: expected a closed surface (every edge in 2 "
                           "triangles), found boundary edge %d-%d in this triangle only",
                           at, a, b);
        else
            st = pbd_error(PBD_EINPUT, "%s: expected consistently oriented triangles, found "
                           "edge %d-%d run in the same direction by 2 triangles", at, a, b);
    }
    free(h);
    return st;
}

void pbd_trimesh_orient_outward(pbd_trimesh *m)
{
    pbd_trimesh_report r;
    if (pbd_trimesh_inspect(m, &r) != PBD_OK || !r.closed || !(r.volume < 0.0)) return;
    for (int t = 0; t < m->n_triangles; t++) {
        int32_t tmp = m->tri[3 * t + 1];
        m->tri[3 * t + 1] = m->tri[3 * t + 2];
        m->tri[3 * t + 2] = tmp;
    }
}
