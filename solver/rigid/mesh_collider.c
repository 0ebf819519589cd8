/* Static triangle-mesh colliders of the rigid world: the input's check, the fixed body that
 * carries the surface, and a bounding-volume tree over the triangles (boxes split at the
 * median centroid along the longest axis) so that a body's contacts test only the triangles
 * near it. The contacts themselves: contact_mesh.c. */
#include "rigid_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LEAF_TRIANGLES 4

typedef struct pbd_rigid_mesh_collider mesh;

static void mesh_free(mesh *m)
{
    free(m->v);
    free(m->tri);
    free(m->normal);
    free(m->order);
    free(m->node);
    free(m->found);
}

void rigid_mesh_colliders_free(pbd_rigid_world *w)
{
    for (int i = 0; i < w->n_meshes; i++) mesh_free(&w->meshes[i]);
    free(w->meshes);
    w->meshes = NULL;
    w->n_meshes = 0;
}

/* Finite vertices, indices in range, triangles not on a line: 0, or -1 with pbd_error
 * naming the vertex or triangle */
static int check_input(const double *v, int nv, const int *tri, int nt)
{
    if (nv < 3 || nt < 1 || !v || !tri) {
        pbd_error(PBD_EINVAL, "rigid mesh collider: expected >= 3 vertices and >= 1 triangle, "
                  "found %d and %d", nv, nt);
        return -1;
    }
    for (int i = 0; i < nv; i++)
        if (!(isfinite(v[3 * i]) && isfinite(v[3 * i + 1]) && isfinite(v[3 * i + 2]))) {
            pbd_error(PBD_EINVAL, "rigid mesh collider vertex %d: expected finite coordinates, "
                      "found (%g, %g, %g)", i, v[3 * i], v[3 * i + 1], v[3 * i + 2]);
            return -1;
        }
    for (int t = 0; t < nt; t++) {
        const int *k = tri + 3 * t;
        for (int c = 0; c < 3; c++)
            if (k[c] < 0 || k[c] >= nv) {
                pbd_error(PBD_EINVAL, "rigid mesh collider triangle %d: expected vertex "
                          "indices in [0, %d), found %d %d %d", t, nv, k[0], k[1], k[2]);
                return -1;
            }
        double ab[3], ac[3], bc[3], n[3];
        v3_sub(ab, v + 3 * k[1], v + 3 * k[0]);
        v3_sub(ac, v + 3 * k[2], v + 3 * k[0]);
        v3_sub(bc, v + 3 * k[2], v + 3 * k[1]);
        v3_cross(n, ab, ac);
        /* |ab × ac| = 2 area; on a line to rounding when below 1e-12 of the longest edge² */
        double l2 = fmax(v3_dot(ab, ab), fmax(v3_dot(ac, ac), v3_dot(bc, bc)));
        if (!(v3_norm(n) > 1e-12 * l2)) {
            pbd_error(PBD_EINVAL, "rigid mesh collider triangle %d: expected three vertices not "
                      "on a line, found vertices %d %d %d with area %g m^2", t, k[0], k[1],
                      k[2], 0.5 * v3_norm(n));
            return -1;
        }
    }
    return 0;
}

static void triangle_box(const mesh *m, int t, double lo[3], double hi[3])
{
    for (int a = 0; a < 3; a++) {
        lo[a] = INFINITY;
        hi[a] = -INFINITY;
    }
    for (int c = 0; c < 3; c++)
        for (int a = 0; a < 3; a++) {
            double x = m->v[3 * m->tri[3 * t + c] + a];
            lo[a] = fmin(lo[a], x);
            hi[a] = fmax(hi[a], x);
        }
}

static double centroid(const mesh *m, int t, int axis)
{
    const int *k = m->tri + 3 * t;
    return (m->v[3 * k[0] + axis] + m->v[3 * k[1] + axis] + m->v[3 * k[2] + axis]) / 3.0;
}

/* Reorder o[0 .. n) so that o[mid] has the mid-th smallest centroid along axis, none before
 * it larger, none after it smaller (quickselect) */
static void select_median(const mesh *m, int *o, int n, int mid, int axis)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = centroid(m, o[(lo + hi) / 2], axis);
        int i = lo, j = hi;
        while (i <= j) {
            while (centroid(m, o[i], axis) < pivot) i++;
            while (centroid(m, o[j], axis) > pivot) j--;
            if (i <= j) {
                int t = o[i];
                o[i++] = o[j];
                o[j--] = t;
            }
        }
        if (mid <= j) hi = j;
        else if (mid >= i) lo = i;
        else return;
    }
}

/* Node k over order[first .. first + count); its children at m->n_nodes on */
static void build(mesh *m, int k, int first, int count)
{
    rigid_mesh_node *nd = &m->node[k];
    double clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int a = 0; a < 3; a++) {
        nd->lo[a] = INFINITY;
        nd->hi[a] = -INFINITY;
    }
    for (int i = first; i < first + count; i++) {
        double lo[3], hi[3];
        triangle_box(m, m->order[i], lo, hi);
        for (int a = 0; a < 3; a++) {
            nd->lo[a] = fmin(nd->lo[a], lo[a]);
            nd->hi[a] = fmax(nd->hi[a], hi[a]);
            double c = centroid(m, m->order[i], a);
            clo[a] = fmin(clo[a], c);
            chi[a] = fmax(chi[a], c);
        }
    }
    nd->first = first;
    nd->count = count;
    nd->left = -1;
    if (count <= LEAF_TRIANGLES) return;
    int axis = 0;
    for (int a = 1; a < 3; a++)
        if (chi[a] - clo[a] > chi[axis] - clo[axis]) axis = a;
    int half = count / 2;
    select_median(m, m->order + first, count, half, axis);
    nd->count = 0;
    nd->left = m->n_nodes;
    m->n_nodes += 2;
    build(m, nd->left, first, half);
    build(m, m->node[k].left + 1, first + half, count - half);
}

int rigid_mesh_query(const mesh *m, const double lo[3], const double hi[3])
{
    int stack[128], top = 0, n = 0;
    stack[top++] = 0;
    while (top > 0) {
        const rigid_mesh_node *nd = &m->node[stack[--top]];
        int apart = 0;
        for (int a = 0; a < 3; a++)
            if (nd->lo[a] > hi[a] || nd->hi[a] < lo[a]) apart = 1;
        if (apart) continue;
        if (nd->left < 0) {
            for (int i = nd->first; i < nd->first + nd->count; i++) {
                double tlo[3], thi[3];
                int t = m->order[i], overlap = 1;
                triangle_box(m, t, tlo, thi);
                for (int a = 0; a < 3; a++)
                    if (tlo[a] > hi[a] || thi[a] < lo[a]) overlap = 0;
                if (overlap) m->found[n++] = t;
            }
            continue;
        }
        stack[top++] = nd->left + 1;
        stack[top++] = nd->left;
    }
    return n;
}

int pbd_rigid_add_mesh_collider(pbd_rigid_world *w, const double *v, int nv, const int *tri,
                                int nt, const double x[3], const double q[4],
                                const pbd_rigid_material *mat)
{
    double qu[4];
    if (rigid_unit_pose(x, q, qu) || check_input(v, nv, tri, nt)) return -1;
    if (mat && !(mat->static_friction >= 0.0 && mat->dynamic_friction >= 0.0 &&
                 mat->restitution >= 0.0 && isfinite(mat->static_friction + mat->dynamic_friction +
                                                     mat->restitution))) {
        pbd_error(PBD_EINVAL, "rigid mesh collider material: expected finite coefficients >= 0, "
                  "found static %g, dynamic %g, restitution %g", mat->static_friction,
                  mat->dynamic_friction, mat->restitution);
        return -1;
    }
    mesh *grown = realloc(w->meshes, (size_t)(w->n_meshes + 1) * sizeof *grown);
    if (!grown) {
        pbd_error(PBD_ENOMEM, "rigid world: out of memory for %d mesh colliders",
                  w->n_meshes + 1);
        return -1;
    }
    w->meshes = grown;
    mesh *m = &w->meshes[w->n_meshes];
    memset(m, 0, sizeof *m);
    m->nv = nv;
    m->nt = nt;
    m->v = malloc(3 * (size_t)nv * sizeof *m->v);
    m->tri = malloc(3 * (size_t)nt * sizeof *m->tri);
    m->normal = malloc(3 * (size_t)nt * sizeof *m->normal);
    m->order = malloc((size_t)nt * sizeof *m->order);
    m->node = malloc(2 * (size_t)nt * sizeof *m->node);
    m->found = malloc((size_t)nt * sizeof *m->found);
    if (!m->v || !m->tri || !m->normal || !m->order || !m->node || !m->found) {
        mesh_free(m);
        pbd_error(PBD_ENOMEM, "rigid mesh collider: out of memory for %d vertices and %d "
                  "triangles", nv, nt);
        return -1;
    }
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < nv; i++) { /* placed: p = x + R(q) v */
        double *p = m->v + 3 * i;
        pbd_quat_rotate(qu, v + 3 * i, p);
        v3_add(p, p, x);
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], p[a]);
            hi[a] = fmax(hi[a], p[a]);
        }
    }
    memcpy(m->tri, tri, 3 * (size_t)nt * sizeof *tri);
    for (int t = 0; t < nt; t++) {
        const int *k = tri + 3 * t;
        double ab[3], ac[3], *n = m->normal + 3 * t;
        v3_sub(ab, m->v + 3 * k[1], m->v + 3 * k[0]);
        v3_sub(ac, m->v + 3 * k[2], m->v + 3 * k[0]);
        v3_cross(n, ab, ac);
        v3_scale(n, n, 1.0 / v3_norm(n));
        m->order[t] = t;
    }
    m->n_nodes = 1;
    build(m, 0, 0, nt);
    double centre[3], identity[4] = {1, 0, 0, 0}, zero[3] = {0, 0, 0};
    for (int a = 0; a < 3; a++) centre[a] = 0.5 * (lo[a] + hi[a]);
    pbd_rigid_shape s = {.kind = PBD_RIGID_NO_SHAPE};
    int b = pbd_rigid_add_body_inertia(w, 0.0, zero, &s, centre, identity);
    if (b < 0) {
        mesh_free(m);
        return -1;
    }
    w->bodies[b].shape.kind = PBD_RIGID_MESH;
    if (mat) pbd_rigid_set_material(&w->bodies[b], mat);
    m->body = b;
    w->n_meshes++;
    return b;
}

int pbd_rigid_mesh_collider_query(const pbd_rigid_world *w, int body, const double lo[3],
                                  const double hi[3], int *out)
{
    for (int k = 0; k < w->n_meshes; k++)
        if (w->meshes[k].body == body) {
            int n = rigid_mesh_query(&w->meshes[k], lo, hi);
            memcpy(out, w->meshes[k].found, (size_t)n * sizeof *out);
            return n;
        }
    return -1;
}
