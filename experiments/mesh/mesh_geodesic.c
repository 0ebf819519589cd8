/* Geodesic distances on a triangle mesh from one vertex, for the long-range attachments
 * (Kim, Chentanez, Müller 2012: each attachment's rest length is the geodesic distance along
 * the cloth in its rest state). Dijkstra's order over the vertices with two kinds of update:
 * along an edge (T_b = T_a + |ab|), and across a triangle whose two other vertices are done,
 * from a virtual point source unfolded into the triangle's plane (the fast-marching update of
 * Kimmel & Sethian 1998, "Computing geodesic paths on manifolds", with the source kept as a
 * point rather than a plane wave). On a flat mesh a front from one vertex has an exact point
 * source, so the distances are the straight-line ones wherever the straight path stays on the
 * mesh; edge updates alone would give the edge-path length, up to 8 % longer on a grid (√2 + 1
 * against √5 for the step (2, 1)), which would let a long-range attachment allow that much
 * stretch. On a curved mesh the update is the usual first-order approximation. */
#include "mesh_private.h"

#include <math.h>
#include <stdlib.h>

/* Distance of c from the point source s in the plane of triangle (a, b, c), where s is the
 * point on the far side of ab from c with |s − a| = Ta and |s − b| = Tb; NAN when no such s
 * exists or when the straight path from s to c does not cross the segment ab (then an edge
 * update is the right one). */
static double unfold(const double *a, const double *b, const double *c, double Ta, double Tb)
{
    double e[3], f[3];
    for (int k = 0; k < 3; k++) e[k] = b[k] - a[k], f[k] = c[k] - a[k];
    double L = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    if (!(L > 0.0)) return NAN;
    double u[3], fe = 0.0;
    for (int k = 0; k < 3; k++) u[k] = e[k] / L;
    for (int k = 0; k < 3; k++) fe += f[k] * u[k];
    double cv[3], ch = 0.0;
    for (int k = 0; k < 3; k++) cv[k] = f[k] - fe * u[k];
    ch = sqrt(cv[0] * cv[0] + cv[1] * cv[1] + cv[2] * cv[2]); /* c at (fe, ch), ch > 0 */
    if (!(ch > 0.0)) return NAN;
    /* s at (sx, −sy) with sx² + sy² = Ta², (sx − L)² + sy² = Tb² */
    double sx = (Ta * Ta - Tb * Tb + L * L) / (2.0 * L), sy2 = Ta * Ta - sx * sx;
    if (!(sy2 >= 0.0)) return NAN;
    double sy = sqrt(sy2);
    /* the segment from s to c crosses the line ab at x = sx + (fe − sx) sy / (sy + ch) */
    double xc = sx + (fe - sx) * sy / (sy + ch);
    if (xc < 0.0 || xc > L) return NAN;
    return sqrt((fe - sx) * (fe - sx) + (ch + sy) * (ch + sy));
}

int pbd_trimesh_geodesic(const pbd_trimesh *m, int source, double *dist)
{
    int n = m->n_vertices;
    if (source < 0 || source >= n) {
        pbd_error(PBD_EINVAL, "geodesic: expected a source vertex in [0, %d), found %d", n, source);
        return -1;
    }
    /* vertex -> triangles (CSR) */
    int32_t *start = calloc((size_t)n + 1, sizeof *start);
    int32_t *tris = malloc(3 * (size_t)(m->n_triangles > 0 ? m->n_triangles : 1) * sizeof *tris);
    char *done = calloc((size_t)n, 1);
    if (!start || !tris || !done) {
        free(start);
        free(tris);
        free(done);
        pbd_error(PBD_ENOMEM, "geodesic: out of memory for %d vertices", n);
        return -1;
    }
    for (int t = 0; t < 3 * m->n_triangles; t++) start[m->tri[t] + 1]++;
    for (int v = 0; v < n; v++) start[v + 1] += start[v];
    int32_t *fill = malloc((size_t)n * sizeof *fill);
    if (!fill) {
        free(start);
        free(tris);
        free(done);
        pbd_error(PBD_ENOMEM, "geodesic: out of memory for %d vertices", n);
        return -1;
    }
    for (int v = 0; v < n; v++) fill[v] = start[v];
    for (int t = 0; t < m->n_triangles; t++)
        for (int k = 0; k < 3; k++) tris[fill[m->tri[3 * t + k]]++] = t;
    free(fill);
    for (int v = 0; v < n; v++) dist[v] = INFINITY;
    dist[source] = 0.0;
    /* Dijkstra's order by selection: O(n²), fine for cloth meshes of a few thousand
     * vertices built once per scene */
    for (int it = 0; it < n; it++) {
        int a = -1;
        for (int v = 0; v < n; v++)
            if (!done[v] && (a < 0 || dist[v] < dist[a])) a = v;
        if (a < 0 || isinf(dist[a])) break; /* the rest is not connected to the source */
        done[a] = 1;
        const double *xa = m->x + 3 * a;
        for (int q = start[a]; q < start[a + 1]; q++) {
            const int32_t *tri = m->tri + 3 * tris[q];
            for (int k = 0; k < 3; k++) {
                int b = tri[k];
                if (b == a || done[b]) continue;
                const double *xb = m->x + 3 * b;
                double d = sqrt((xb[0] - xa[0]) * (xb[0] - xa[0]) + (xb[1] - xa[1]) * (xb[1] - xa[1]) +
                                (xb[2] - xa[2]) * (xb[2] - xa[2]));
                if (dist[a] + d < dist[b]) dist[b] = dist[a] + d; /* along the edge */
                int o = tri[0] + tri[1] + tri[2] - a - b;          /* the third vertex */
                if (o != a && o != b && done[o]) {                 /* across the triangle */
                    double t = unfold(m->x + 3 * a, m->x + 3 * o, xb, dist[a], dist[o]);
                    if (t < dist[b]) dist[b] = t;
                }
            }
        }
    }
    free(start);
    free(tris);
    free(done);
    return 0;
}
