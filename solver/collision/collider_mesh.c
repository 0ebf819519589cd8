/* Static triangle-mesh collider (PBD Sec. 3.4). A ray x -> p that crosses a triangle from
 * its front side (the side its normal (v1-v0)×(v2-v0) points to) enters the mesh at the
 * first such crossing q_c with n_c the triangle's normal. A closed mesh bounds a solid:
 * when p is inside it (generalized winding number > 1/2) and no crossing was found, the
 * ray lies inside and the closest surface point q_s with n_s = (q_s - p)/|q_s - p| is used.
 * With a contact margin, a p outside the mesh (in front of an open one) but closer than the
 * margin gets its closest surface point and n = (p - q)/|p - q|. The triangles' centroids sit in a spatial hash, so a ray only tests the triangles near
 * it; the inside test and the closest point are O(nt). */
#include "collide.h"

#include <stdlib.h>
#include <string.h>

/* Closest point on a triangle by its Voronoi regions (Ericson, Real-Time Collision
 * Detection, Sec. 5.1.5). */
static void closest_point_on_triangle(const double y[3], const double a[3], const double b[3],
                                      const double c[3], double q[3], double bary[3])
{
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    v3_sub(ab, b, a);
    v3_sub(ac, c, a);
    v3_sub(ap, y, a);
    double d1 = v3_dot(ab, ap), d2 = v3_dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) { bary[0] = 1; bary[1] = 0; bary[2] = 0; goto done; }
    v3_sub(bp, y, b);
    double d3 = v3_dot(ab, bp), d4 = v3_dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) { bary[0] = 0; bary[1] = 1; bary[2] = 0; goto done; }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        double v = d1 / (d1 - d3);
        bary[0] = 1 - v; bary[1] = v; bary[2] = 0;
        goto done;
    }
    v3_sub(cp, y, c);
    double d5 = v3_dot(ab, cp), d6 = v3_dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) { bary[0] = 0; bary[1] = 0; bary[2] = 1; goto done; }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        double wv = d2 / (d2 - d6);
        bary[0] = 1 - wv; bary[1] = 0; bary[2] = wv;
        goto done;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        double wv = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        bary[0] = 0; bary[1] = 1 - wv; bary[2] = wv;
        goto done;
    }
    {
        double denom = va + vb + vc;
        double v = denom != 0.0 ? vb / denom : 1.0 / 3.0;
        double wv = denom != 0.0 ? vc / denom : 1.0 / 3.0;
        bary[0] = 1 - v - wv; bary[1] = v; bary[2] = wv;
    }
done:
    for (int k = 0; k < 3; k++) q[k] = bary[0] * a[k] + bary[1] * b[k] + bary[2] * c[k];
}

/* A crossing at barycentric coordinates >= -this is on the triangle: closes the cracks
 * between neighbours that rounding would open. */
#define MESH_BARY_EPS 1e-12
/* A ray may start this far (times the mean edge) behind a triangle and still cross it
 * from the front: a particle left on the surface by the last projection sits there up to
 * rounding, on either side. */
#define MESH_SIDE_EPS 1e-9

void mesh_shape_free(mesh_shape *m)
{
    if (!m) return;
    free(m->v);
    free(m->t);
    free(m->tn);
    free(m->centroid);
    free(m->cand);
    pbd_spatial_hash_free(m->hash);
    free(m);
}

static int cmp_edge(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return (*x > *y) - (*x < *y);
}

/* Closed: every undirected edge belongs to exactly two triangles. */
static int mesh_is_closed(const int32_t *t, int nt, int nv)
{
    int64_t *e = malloc((size_t)(3 * nt > 0 ? 3 * nt : 1) * sizeof *e);
    if (!e) return 0;
    for (int i = 0; i < nt; i++)
        for (int k = 0; k < 3; k++) {
            int64_t a = t[3 * i + k], b = t[3 * i + (k + 1) % 3];
            e[3 * i + k] = a < b ? a * nv + b : b * nv + a;
        }
    qsort(e, (size_t)(3 * nt), sizeof *e, cmp_edge);
    int closed = nt > 0;
    for (int i = 0; i < 3 * nt && closed;) {
        int j = i;
        while (j < 3 * nt && e[j] == e[i]) j++;
        if (j - i != 2) closed = 0;
        i = j;
    }
    free(e);
    return closed;
}

mesh_shape *mesh_shape_create(const double *verts, int nv, const int32_t *tris, int nt)
{
    if (nv < 3 || nt < 1) {
        pbd_error(PBD_EINVAL, "mesh collider: expected >= 3 vertices and >= 1 triangle, found %d "
                  "and %d", nv, nt);
        return NULL;
    }
    for (int i = 0; i < 3 * nv; i++)
        if (!isfinite(verts[i])) {
            pbd_error(PBD_EINVAL, "mesh collider: vertex %d: expected finite coordinates, found %g",
                      i / 3, verts[i]);
            return NULL;
        }
    for (int i = 0; i < 3 * nt; i++)
        if (tris[i] < 0 || tris[i] >= nv) {
            pbd_error(PBD_EINVAL, "mesh collider: triangle %d: vertex index must be in [0, %d), "
                      "found %d", i / 3, nv, tris[i]);
            return NULL;
        }
    mesh_shape *m = calloc(1, sizeof *m);
    if (!m) goto oom;
    m->nv = nv;
    m->nt = nt;
    m->v = malloc(3 * (size_t)nv * sizeof *m->v);
    m->t = malloc(3 * (size_t)nt * sizeof *m->t);
    m->tn = malloc(3 * (size_t)nt * sizeof *m->tn);
    m->centroid = malloc(3 * (size_t)nt * sizeof *m->centroid);
    m->cand = malloc((size_t)nt * sizeof *m->cand);
    if (!m->v || !m->t || !m->tn || !m->centroid || !m->cand) goto oom;
    memcpy(m->v, verts, 3 * (size_t)nv * sizeof *m->v);
    memcpy(m->t, tris, 3 * (size_t)nt * sizeof *m->t);
    for (int k = 0; k < 3; k++) {
        m->lo[k] = INFINITY;
        m->hi[k] = -INFINITY;
    }
    for (int i = 0; i < nv; i++)
        for (int k = 0; k < 3; k++) {
            if (verts[3 * i + k] < m->lo[k]) m->lo[k] = verts[3 * i + k];
            if (verts[3 * i + k] > m->hi[k]) m->hi[k] = verts[3 * i + k];
        }
    m->max_radius = 0.0;
    for (int i = 0; i < nt; i++) {
        const double *a = m->v + 3 * m->t[3 * i], *b = m->v + 3 * m->t[3 * i + 1],
                     *c = m->v + 3 * m->t[3 * i + 2];
        double ab[3], ac[3], nrm[3], *g = m->centroid + 3 * i;
        v3_sub(ab, b, a);
        v3_sub(ac, c, a);
        v3_cross(nrm, ab, ac);
        double len = v3_norm(nrm), scale = v3_dot(ab, ab) + v3_dot(ac, ac);
        if (len > 1e-12 * scale) v3_scale(m->tn + 3 * i, nrm, 1.0 / len);
        else m->tn[3 * i] = m->tn[3 * i + 1] = m->tn[3 * i + 2] = 0.0; /* zero area: ignored */
        for (int k = 0; k < 3; k++) g[k] = (a[k] + b[k] + c[k]) / 3.0;
        const double *corner[3] = {a, b, c};
        for (int j = 0; j < 3; j++) {
            double d[3];
            v3_sub(d, corner[j], g);
            double r = v3_norm(d);
            if (r > m->max_radius) m->max_radius = r;
        }
    }
    m->closed = mesh_is_closed(m->t, nt, nv);
    double cell = pbd_mean_edge_length(m->v, m->t, nt);
    m->side_eps = MESH_SIDE_EPS * cell;
    m->hash = pbd_spatial_hash_create(nt, cell > 0.0 ? cell : 1.0);
    if (!m->hash || pbd_spatial_hash_build(m->hash, m->centroid, NULL, nt) != PBD_OK) goto oom;
    return m;
oom:
    mesh_shape_free(m);
    pbd_error(PBD_ENOMEM, "mesh collider: out of memory for %d triangles", nt);
    return NULL;
}

/* Generalized winding number of the closed mesh about y (Van Oosterom–Strackee solid
 * angles): about 1 inside, 0 outside. */
static double winding_number(const mesh_shape *m, const double y[3])
{
    double sum = 0.0;
    for (int i = 0; i < m->nt; i++) {
        double a[3], b[3], c[3], bc[3];
        v3_sub(a, m->v + 3 * m->t[3 * i], y);
        v3_sub(b, m->v + 3 * m->t[3 * i + 1], y);
        v3_sub(c, m->v + 3 * m->t[3 * i + 2], y);
        double la = v3_norm(a), lb = v3_norm(b), lc = v3_norm(c);
        v3_cross(bc, b, c);
        double num = v3_dot(a, bc);
        double den = la * lb * lc + v3_dot(a, b) * lc + v3_dot(b, c) * la + v3_dot(c, a) * lb;
        sum += 2.0 * atan2(num, den);
    }
    return sum / (4.0 * M_PI);
}

/* Closest surface point to y over all triangles; returns the triangle. */
static int closest_triangle(const mesh_shape *m, const double y[3], double q[3])
{
    double best = INFINITY;
    int best_t = -1;
    for (int i = 0; i < m->nt; i++) {
        if (m->tn[3 * i] == 0.0 && m->tn[3 * i + 1] == 0.0 && m->tn[3 * i + 2] == 0.0) continue;
        double c[3], bary[3], d[3];
        closest_point_on_triangle(y, m->v + 3 * m->t[3 * i], m->v + 3 * m->t[3 * i + 1],
                                  m->v + 3 * m->t[3 * i + 2], c, bary);
        v3_sub(d, c, y);
        double d2 = v3_dot(d, d);
        if (d2 < best) {
            best = d2;
            best_t = i;
            v3_copy(q, c);
        }
    }
    return best_t;
}

static int point_inside(const mesh_shape *m, const double y[3])
{
    for (int k = 0; k < 3; k++)
        if (y[k] < m->lo[k] || y[k] > m->hi[k]) return 0;
    return winding_number(m, y) > 0.5;
}

double mesh_shape_signed_distance(const mesh_shape *m, const double y[3])
{
    double q[3], d[3];
    int t = closest_triangle(m, y, q);
    if (t < 0) return INFINITY;
    v3_sub(d, y, q);
    double dist = v3_norm(d);
    if (m->closed) return point_inside(m, y) ? -dist : dist;
    return v3_dot(d, m->tn + 3 * t) < 0.0 ? -dist : dist;
}

/* First front-side crossing of x -> p (smallest t), or -1. */
static int first_crossing(mesh_shape *m, const double x[3], const double p[3], double q[3],
                          double n[3])
{
    double lo[3], hi[3], d[3];
    v3_sub(d, p, x);
    for (int k = 0; k < 3; k++) {
        lo[k] = fmin(x[k], p[k]) - m->max_radius;
        hi[k] = fmax(x[k], p[k]) + m->max_radius;
    }
    int nc = pbd_spatial_hash_query(m->hash, lo, hi, m->cand, m->nt);
    double best_t = INFINITY;
    int best = -1;
    for (int j = 0; j < nc && j < m->nt; j++) {
        int i = m->cand[j];
        const double *nt = m->tn + 3 * i;
        double denom = v3_dot(d, nt);
        if (!(denom < 0.0)) continue; /* parallel, from behind, or a zero-area triangle */
        const double *a = m->v + 3 * m->t[3 * i], *b = m->v + 3 * m->t[3 * i + 1],
                     *c = m->v + 3 * m->t[3 * i + 2];
        double ax[3];
        v3_sub(ax, a, x);
        double front = -v3_dot(ax, nt); /* (x - a)·n: x's height over the triangle's plane */
        if (front < -m->side_eps) continue; /* x starts behind it */
        double t = fmax(0.0, -front / denom); /* (a - x)·n / (d·n) */
        if (t > 1.0 || t >= best_t) continue;
        double y[3];
        cv_lerp(y, x, p, t);
        /* inside: y on the inner side of each edge (edge × (y - vertex) along n) */
        const double *v[3] = {a, b, c};
        double area2 = 0.0, ab[3], ac[3], cr[3];
        v3_sub(ab, b, a);
        v3_sub(ac, c, a);
        v3_cross(cr, ab, ac);
        area2 = v3_dot(cr, nt);
        int in = 1;
        for (int e = 0; e < 3 && in; e++) {
            double ed[3], ey[3], ce[3];
            v3_sub(ed, v[(e + 1) % 3], v[e]);
            v3_sub(ey, y, v[e]);
            v3_cross(ce, ed, ey);
            if (v3_dot(ce, nt) < -MESH_BARY_EPS * area2) in = 0;
        }
        if (!in) continue;
        best_t = t;
        best = i;
        v3_copy(q, y);
    }
    if (best >= 0) v3_copy(n, m->tn + 3 * best);
    return best;
}

/* p outside (or on the front side of an open mesh) within margin: the closest point. */
static int mesh_near(const mesh_shape *m, const double p[3], double margin, double q[3],
                     double n[3])
{
    int t = closest_triangle(m, p, q);
    if (t < 0) return CONTACT_NONE;
    double d[3];
    v3_sub(d, p, q);
    double len = v3_norm(d);
    if (!(len < margin)) return CONTACT_NONE;
    if (m->closed ? point_inside(m, p) : v3_dot(d, m->tn + 3 * t) < 0.0) return CONTACT_NONE;
    if (len > 1e-12 * (1.0 + v3_norm(p))) v3_scale(n, d, 1.0 / len);
    else v3_copy(n, m->tn + 3 * t);
    return CONTACT_NEAR;
}

int mesh_shape_contact(mesh_shape *m, const double x[3], const double p[3], double margin,
                       double q[3], double n[3])
{
    double grow = m->max_radius + (margin > 0.0 ? margin : 0.0);
    for (int k = 0; k < 3; k++) /* the segment misses the bounds: nothing to test */
        if (fmax(x[k], p[k]) < m->lo[k] - grow || fmin(x[k], p[k]) > m->hi[k] + grow)
            return CONTACT_NONE;
    if (first_crossing(m, x, p, q, n) >= 0) return CONTACT_ENTRY;
    if (!m->closed || !point_inside(m, p))
        return margin > 0.0 ? mesh_near(m, p, margin, q, n) : CONTACT_NONE;
    int t = closest_triangle(m, p, q);
    if (t < 0) return CONTACT_NONE;
    double d[3];
    v3_sub(d, q, p);
    double len = v3_norm(d);
    if (len > 1e-12 * (1.0 + v3_norm(p))) v3_scale(n, d, 1.0 / len);
    else v3_copy(n, m->tn + 3 * t);
    return CONTACT_INSIDE;
}
