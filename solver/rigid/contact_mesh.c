/* Contacts of spheres, capsules and boxes with the static triangle-mesh colliders
 * (mesh_collider.c), generated every substep at the predicted poses like the ground's and
 * solved by the same rows (contact.c; paper Sec. 3.5, 3.6): body 1 the dynamic body, body 2
 * the collider's fixed body, n from the surface towards the body. A triangle has a front, the
 * side of its normal (v1 − v0) × (v2 − v0); a body behind it is not held. */
#include "rigid_private.h"

#include <math.h>

typedef struct pbd_rigid_mesh_collider mesh;

pbd_triangle_region pbd_rigid_triangle_closest_point(const double p[3], const double a[3],
                                                     const double b[3], const double c[3],
                                                     double q[3])
{
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    v3_sub(ab, b, a);
    v3_sub(ac, c, a);
    v3_sub(ap, p, a);
    double d1 = v3_dot(ab, ap), d2 = v3_dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        v3_copy(q, a);
        return PBD_TRIANGLE_VERTEX_A;
    }
    v3_sub(bp, p, b);
    double d3 = v3_dot(ab, bp), d4 = v3_dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        v3_copy(q, b);
        return PBD_TRIANGLE_VERTEX_B;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        v3_copy(q, a);
        v3_axpy(q, d1 / (d1 - d3), ab);
        return PBD_TRIANGLE_EDGE_AB;
    }
    v3_sub(cp, p, c);
    double d5 = v3_dot(ab, cp), d6 = v3_dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        v3_copy(q, c);
        return PBD_TRIANGLE_VERTEX_C;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        v3_copy(q, a);
        v3_axpy(q, d2 / (d2 - d6), ac);
        return PBD_TRIANGLE_EDGE_CA;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
        double bc[3];
        v3_sub(bc, c, b);
        v3_copy(q, b);
        v3_axpy(q, (d4 - d3) / ((d4 - d3) + (d5 - d6)), bc);
        return PBD_TRIANGLE_EDGE_BC;
    }
    double den = 1.0 / (va + vb + vc); /* inside: barycentric (va, vb, vc)/(va + vb + vc) */
    v3_copy(q, a);
    v3_axpy(q, vb * den, ab);
    v3_axpy(q, vc * den, ac);
    return PBD_TRIANGLE_FACE;
}

static const double *corner(const mesh *m, int t, int c) { return m->v + 3 * m->tri[3 * t + c]; }

/* A contact of body i (body-frame point r1) with the mesh's world point p along n, unless
 * one of the contacts from `from` on has the same points and normal (a point on an edge or
 * vertex that several triangles share): 0, or -1 when out of memory */
static int add_once(pbd_rigid_world *w, int from, int i, const mesh *m, const double r1[3],
                    const double p[3], const double n[3], double tol)
{
    double r2[3];
    v3_sub(r2, p, w->bodies[m->body].x); /* the collider's frame has the world's axes */
    for (int k = from; k < w->n_contacts; k++) {
        const pbd_rigid_contact *c = &w->contacts[k];
        double d2[3], d1[3];
        v3_sub(d2, c->r2, r2);
        v3_sub(d1, c->r, r1);
        if (v3_norm(d2) <= tol && v3_norm(d1) <= tol && v3_dot(c->n, n) >= 1.0 - 1e-12)
            return 0;
    }
    return rigid_contact_add(w, i, m->body, r1, r2, n) ? 0 : -1;
}

/* A ball of body i (world centre c, body-frame centre cb, radius r) against the triangles
 * found. First the faces: the centre over a triangle (its closest point inside) in front of
 * it, or behind it by less than r: n the triangle's normal, the mesh point the centre's
 * projection. Then edges and vertices: the centre in front of the triangle's plane and its
 * closest point q on the outline nearer than r: n = (c − q)/|c − q| (Ericson Sec. 5.1.5).
 * The faces' rows come first in every iteration, so a neighbour's edge in a face's plane or
 * below it finds the ball already lifted off it. The ball's point is cb − r n in the body
 * frame, as the ground's. */
static int ball_mesh(pbd_rigid_world *w, int i, const double c[3], const double cb[3], double r,
                     const mesh *m, int nf, double margin)
{
    const pbd_rigid_body *b = &w->bodies[i];
    const double tol = 1e-9 * r;
    const int start = w->n_contacts;
    for (int pass = 0; pass < 2; pass++)
        for (int f = 0; f < nf; f++) {
            int t = m->found[f];
            const double *nt = m->normal + 3 * t;
            double q[3], ca[3], n[3], p[3];
            pbd_triangle_region region = pbd_rigid_triangle_closest_point(
                c, corner(m, t, 0), corner(m, t, 1), corner(m, t, 2), q);
            v3_sub(ca, c, corner(m, t, 0));
            double s = v3_dot(ca, nt); /* the centre's height over the triangle's plane */
            if (pass == 0) {
                if (region != PBD_TRIANGLE_FACE || !(s < r + margin && s > -r)) continue;
                v3_copy(n, nt);
                v3_copy(p, c);
                v3_axpy(p, -s, n);
            } else {
                if (region == PBD_TRIANGLE_FACE || !(s > 0.0)) continue;
                double d[3];
                v3_sub(d, c, q);
                double dist = v3_norm(d);
                if (!(dist < r + margin && dist > 0.0)) continue;
                v3_scale(n, d, 1.0 / dist);
                v3_copy(p, q);
            }
            double down[3] = {-n[0], -n[1], -n[2]}, l[3], r1[3];
            pbd_quat_rotate_inv(b->q, down, l);
            v3_copy(r1, cb);
            v3_axpy(r1, r, l);
            if (add_once(w, start, i, m, r1, p, n, tol)) return -1;
        }
    return 0;
}

/* 1 when the projection of p on triangle t's plane lies in the triangle (its edges widened
 * by tol) */
static int over_triangle(const mesh *m, int t, const double p[3], double tol)
{
    const double *nt = m->normal + 3 * t;
    for (int e = 0; e < 3; e++) {
        const double *a = corner(m, t, e), *b = corner(m, t, (e + 1) % 3);
        double ab[3], ap[3], x[3];
        v3_sub(ab, b, a);
        v3_sub(ap, p, a);
        v3_cross(x, ab, ap);
        if (v3_dot(x, nt) < -tol * v3_norm(ab)) return 0;
    }
    return 1;
}

/* A box of body i against the triangles found: each corner over a triangle, in front of it
 * within the margin or behind it by less than the half diagonal (vertex–face: n the
 * triangle's normal, the mesh point the corner's projection), corners in the ground's
 * order; then each triangle vertex inside the box (widened by the margin), against the box
 * face of least penetration when that face looks at the triangle's front (face–vertex: n
 * the face's inward normal, the box point the vertex's projection on the face). */
static int box_mesh(pbd_rigid_world *w, int i, const mesh *m, int nf, double margin)
{
    const pbd_rigid_body *b = &w->bodies[i];
    const double *h = b->shape.half, reach = v3_norm(h), tol = 1e-9 * reach;
    const int start = w->n_contacts;
    for (int k = 0; k < 8; k++) {
        double rc[3], cw[3];
        for (int a = 0; a < 3; a++) rc[a] = (k >> a & 1) ? h[a] : -h[a];
        rigid_world_offset(b, rc, cw);
        v3_add(cw, cw, b->x);
        for (int f = 0; f < nf; f++) {
            int t = m->found[f];
            const double *nt = m->normal + 3 * t;
            double ca[3], p[3];
            v3_sub(ca, cw, corner(m, t, 0));
            double s = v3_dot(ca, nt);
            if (!(s < margin && s > -reach) || !over_triangle(m, t, cw, tol)) continue;
            v3_copy(p, cw);
            v3_axpy(p, -s, nt);
            if (add_once(w, start, i, m, rc, p, nt, tol)) return -1;
        }
    }
    for (int f = 0; f < nf; f++) {
        int t = m->found[f];
        for (int c = 0; c < 3; c++) {
            const double *vw = corner(m, t, c);
            double d[3], l[3];
            v3_sub(d, vw, b->x);
            pbd_quat_rotate_inv(b->q, d, l);
            int k = 0, outside = 0;
            for (int a = 0; a < 3; a++) {
                double pen = h[a] - fabs(l[a]);
                if (pen < -margin) outside = 1;
                if (pen < h[k] - fabs(l[k])) k = a;
            }
            if (outside) continue;
            double nl[3] = {0, 0, 0}, n[3], r1[3];
            nl[k] = l[k] < 0.0 ? 1.0 : -1.0; /* into the box through the face */
            pbd_quat_rotate(b->q, nl, n);
            if (!(v3_dot(n, m->normal + 3 * t) > 0.0)) continue;
            v3_copy(r1, l);
            r1[k] = l[k] < 0.0 ? -h[k] : h[k];
            if (add_once(w, start, i, m, r1, vw, n, tol)) return -1;
        }
    }
    return 0;
}

/* The world box of body b at its predicted pose, widened by its margin; the margin */
static double body_box(const pbd_rigid_body *b, double lo[3], double hi[3])
{
    const pbd_rigid_shape *s = &b->shape;
    double ext[3] = {s->radius, s->radius, s->radius};
    if (s->kind == PBD_RIGID_CAPSULE) {
        double e[3] = {s->half[0], 0, 0}, d[3];
        rigid_world_offset(b, e, d);
        for (int a = 0; a < 3; a++) ext[a] += fabs(d[a]);
    } else if (s->kind == PBD_RIGID_BOX) {
        for (int a = 0; a < 3; a++) {
            double u[3] = {0, 0, 0};
            u[a] = 1.0;
            ext[a] = rigid_box_extent(b, u);
        }
    }
    double margin = RIGID_CONTACT_MARGIN * rigid_body_reach(b);
    for (int a = 0; a < 3; a++) {
        lo[a] = b->x[a] - ext[a] - margin;
        hi[a] = b->x[a] + ext[a] + margin;
    }
    return margin;
}

pbd_status rigid_mesh_contacts_generate(pbd_rigid_world *w)
{
    for (int k = 0; k < w->n_meshes; k++) {
        const mesh *m = &w->meshes[k];
        for (int i = 0; i < w->n_bodies; i++) {
            const pbd_rigid_body *b = &w->bodies[i];
            pbd_rigid_shape_kind kind = b->shape.kind;
            if (!rigid_dynamic(b) || rigid_bodies_jointed(w, i, m->body) ||
                !(kind == PBD_RIGID_SPHERE || kind == PBD_RIGID_CAPSULE || kind == PBD_RIGID_BOX))
                continue;
            double lo[3], hi[3], margin = body_box(b, lo, hi);
            int nf = rigid_mesh_query(m, lo, hi), err = 0;
            if (nf == 0) continue;
            if (kind == PBD_RIGID_BOX) {
                err = box_mesh(w, i, m, nf, margin);
            } else { /* a sphere, or a capsule's two end balls (as on the ground) */
                int ends = kind == PBD_RIGID_CAPSULE ? 2 : 1;
                for (int e = 0; e < ends && !err; e++) {
                    double cb[3] = {0, 0, 0}, c[3];
                    if (kind == PBD_RIGID_CAPSULE) cb[0] = (2 * e - 1) * b->shape.half[0];
                    rigid_world_offset(b, cb, c);
                    v3_add(c, c, b->x);
                    err = ball_mesh(w, i, c, cb, b->shape.radius, m, nf, margin);
                }
            }
            if (err) return PBD_ENOMEM;
        }
    }
    return PBD_OK;
}
