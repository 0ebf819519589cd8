/* Contacts (paper Sec. 3.5 and 3.6): with the ground plane n_g·x = ground_height and between
 * bodies (sphere, box, capsule). The non-penetration constraint and static friction in the
 * position solve, dynamic friction and restitution in the velocity solve. A contact joins
 * body 1 (body[0]) to body 2 (body[1], -1: the ground) along the world normal n, which points
 * from body 2 towards body 1 (body 1 is pushed along +n). */
#include "rigid_private.h"

#include <math.h>
#include <stdlib.h>

/* Room for one more contact; -1 when out of memory (pbd_last_error set). */
static pbd_rigid_contact *add(pbd_rigid_world *w, int b1, int b2, const double r1[3],
                              const double r2[3], const double n[3])
{
    if (w->n_contacts == w->contact_capacity) {
        int cap = w->contact_capacity ? 2 * w->contact_capacity : 64;
        pbd_rigid_contact *c = realloc(w->contacts, (size_t)cap * sizeof *c);
        if (!c) {
            pbd_error(PBD_ENOMEM, "rigid world: out of memory for %d contacts", cap);
            return NULL;
        }
        w->contacts = c;
        w->contact_capacity = cap;
    }
    pbd_rigid_contact *c = &w->contacts[w->n_contacts++];
    c->body[0] = b1;
    c->body[1] = b2;
    v3_copy(c->r, r1);
    v3_copy(c->r2, r2);
    v3_copy(c->n, n);
    c->lambda_n = c->lambda_t = 0.0;
    return c;
}

/* The body-frame point of body b at world position p */
static void to_body(const pbd_rigid_body *b, const double p[3], double r[3])
{
    double d[3];
    v3_sub(d, p, b->x);
    pbd_quat_rotate_inv(b->q, d, r);
}

/* The world position of body b's body-frame point r */
static void to_world(const pbd_rigid_body *b, const double r[3], double p[3])
{
    rigid_world_offset(b, r, p);
    v3_add(p, p, b->x);
}

/* ---- the candidates: a body's points against the ground ------------------------------ */

/* The body-frame points that can touch a plane of normal n: a sphere's point farthest along
 * −n, a box's 8 corners, a capsule's two end spheres' points along −n. Returns their number. */
static int support_points(const pbd_rigid_body *b, const double n[3], double pts[8][3])
{
    const pbd_rigid_shape *s = &b->shape;
    double down[3] = {-n[0], -n[1], -n[2]}, l[3];
    if (s->kind == PBD_RIGID_SPHERE || s->kind == PBD_RIGID_CAPSULE)
        pbd_quat_rotate_inv(b->q, down, l);
    if (s->kind == PBD_RIGID_SPHERE) {
        v3_scale(pts[0], l, s->radius);
        return 1;
    }
    if (s->kind == PBD_RIGID_BOX) {
        for (int k = 0; k < 8; k++)
            for (int a = 0; a < 3; a++) pts[k][a] = (k >> a & 1) ? s->half[a] : -s->half[a];
        return 8;
    }
    if (s->kind == PBD_RIGID_CAPSULE) {
        for (int e = 0; e < 2; e++) {
            double end[3] = {(2 * e - 1) * s->half[0], 0.0, 0.0};
            v3_copy(pts[e], end);
            v3_axpy(pts[e], s->radius, l);
        }
        return 2;
    }
    return 0;
}

static int ground_contacts(pbd_rigid_world *w, int i)
{
    const pbd_rigid_body *b = &w->bodies[i];
    double pts[8][3], zero[3] = {0, 0, 0};
    int n = support_points(b, w->ground_normal, pts);
    for (int k = 0; k < n; k++)
        if (!add(w, i, -1, pts[k], zero, w->ground_normal)) return -1;
    return 0;
}

/* ---- between bodies ------------------------------------------------------------------ */

/* Two balls (centres c1, c2 in world, radii) of bodies i (1) and j (2): one contact when
 * they overlap, n from c2 to c1 (+y when the centres coincide). */
static int balls(pbd_rigid_world *w, int i, const double c1[3], double r1, int j,
                 const double c2[3], double r2)
{
    double d[3];
    v3_sub(d, c1, c2);
    double dist = v3_norm(d);
    if (dist >= r1 + r2) return 0;
    double n[3] = {0, 1, 0};
    if (dist > 1e-12) v3_scale(n, d, 1.0 / dist);
    double p1[3], p2[3], a[3], b[3];
    v3_copy(p1, c1);
    v3_axpy(p1, -r1, n); /* body 1's deepest point */
    v3_copy(p2, c2);
    v3_axpy(p2, r2, n);  /* body 2's */
    to_body(&w->bodies[i], p1, a);
    to_body(&w->bodies[j], p2, b);
    return add(w, i, j, a, b, n) ? 0 : -1;
}

/* A ball (world centre c, radius r) of body i against the box body j: the closest point of
 * the box to the centre; inside the box, the face of least penetration. */
static int ball_box(pbd_rigid_world *w, int i, const double c[3], double r, int j)
{
    const pbd_rigid_body *bx = &w->bodies[j];
    const double *hx = bx->shape.half;
    double l[3], q[3], nl[3] = {0, 0, 0};
    to_body(bx, c, l);
    int inside = 1;
    for (int a = 0; a < 3; a++) {
        q[a] = l[a] < -hx[a] ? -hx[a] : l[a] > hx[a] ? hx[a] : l[a];
        if (q[a] != l[a]) inside = 0;
    }
    if (!inside) {
        double d[3];
        v3_sub(d, l, q);
        double dist = v3_norm(d);
        if (dist >= r) return 0;
        v3_scale(nl, d, 1.0 / dist);
    } else { /* the nearest face */
        int best = 0;
        double least = INFINITY;
        for (int a = 0; a < 3; a++) {
            double pen = hx[a] - fabs(l[a]);
            if (pen < least) least = pen, best = a;
        }
        nl[best] = l[best] < 0.0 ? -1.0 : 1.0;
        q[best] = nl[best] * hx[best];
    }
    double n[3], p1[3], a1[3];
    pbd_quat_rotate(bx->q, nl, n); /* out of the box, towards the ball */
    v3_copy(p1, c);
    v3_axpy(p1, -r, n);
    to_body(&w->bodies[i], p1, a1);
    return add(w, i, j, a1, q, n) ? 0 : -1;
}

/* The extent Σ_k half_k |axis_k·u| of a box along the world direction u */
double rigid_box_extent(const pbd_rigid_body *b, const double u[3])
{
    double l[3];
    pbd_quat_rotate_inv(b->q, u, l);
    return b->shape.half[0] * fabs(l[0]) + b->shape.half[1] * fabs(l[1]) +
           b->shape.half[2] * fabs(l[2]);
}

/* The face of box b whose outward normal is most anti-parallel to the world direction m: its
 * four corners in world, in order round the face. */
static void incident_face(const pbd_rigid_body *b, const double m[3], double face[4][3])
{
    const double *h = b->shape.half;
    static const double su[4] = {1, -1, -1, 1}, sv[4] = {1, 1, -1, -1};
    double ml[3];
    pbd_quat_rotate_inv(b->q, m, ml);
    int k = 0;
    for (int a = 1; a < 3; a++)
        if (fabs(ml[a]) > fabs(ml[k])) k = a;
    for (int c = 0; c < 4; c++) {
        double l[3];
        l[k] = ml[k] > 0.0 ? -h[k] : h[k];
        l[(k + 1) % 3] = su[c] * h[(k + 1) % 3];
        l[(k + 2) % 3] = sv[c] * h[(k + 2) % 3];
        to_world(b, l, face[c]);
    }
}

/* A box face clipped to another's: at most 8 points (each of the four planes adds at most
 * one to a convex polygon) */
#define RIGID_CLIP_MAX 8

/* Sutherland–Hodgman: the convex polygon in[0 .. n) clipped to the half-space t·x <= off, into
 * out (at most RIGID_CLIP_MAX points: a polygon that rounding has made to cross the plane
 * more than twice loses the rest); returns their number. A point on the plane is kept and
 * starts no crossing, so no point is doubled. */
static int clip_polygon(double in[][3], int n, const double t[3], double off, double out[][3])
{
    int m = 0;
    for (int i = 0; i < n && m < RIGID_CLIP_MAX; i++) {
        const double *p = in[i], *q = in[(i + 1) % n];
        double sp = v3_dot(t, p) - off, sq = v3_dot(t, q) - off;
        if (sp <= 0.0) v3_copy(out[m++], p);
        if (m < RIGID_CLIP_MAX && ((sp < 0.0 && sq > 0.0) || (sp > 0.0 && sq < 0.0))) {
            double s = sp / (sp - sq); /* the edge crosses the plane */
            for (int a = 0; a < 3; a++) out[m][a] = p[a] + s * (q[a] - p[a]);
            m++;
        }
    }
    return m;
}

/* The incident face poly[*cur] (m points) clipped to the four side planes ±t·(x − x_ref) <= half
 * of the reference box's face of axis k, through poly's two buffers; returns the count left,
 * *cur the buffer that holds them. */
static int clip_to_sides(const pbd_rigid_body *ref, int k, double poly[2][RIGID_CLIP_MAX][3],
                         int m, int *cur)
{
    for (int j = 1; j < 3 && m > 0; j++) {
        int s = (k + j) % 3;
        double e[3] = {0, 0, 0}, t[3];
        e[s] = 1.0;
        pbd_quat_rotate(ref->q, e, t);
        double c = v3_dot(t, ref->x), h = ref->shape.half[s];
        m = clip_polygon(poly[*cur], m, t, c + h, poly[1 - *cur]);
        *cur = 1 - *cur;
        v3_scale(t, t, -1.0);
        m = clip_polygon(poly[*cur], m, t, h - c, poly[1 - *cur]);
        *cur = 1 - *cur;
    }
    return m;
}

/* The distance of p from the line through a and b (from a when a and b nearly coincide) */
static double off_line(const double a[3], const double p[3], const double b[3], double tol)
{
    double ab[3], ap[3], c[3];
    v3_sub(ab, b, a);
    v3_sub(ap, p, a);
    double len = v3_norm(ab);
    if (len < tol) return v3_norm(ap);
    v3_cross(c, ap, ab);
    return v3_norm(c) / len;
}

/* The convex polygon pts[0 .. m) without its redundant points: one within tol of the line
 * through its two neighbours (a doubled corner, or a point on a straight edge, which clipping
 * a nearly parallel edge leaves) adds nothing to the support; returns the count left. */
static int drop_redundant(double pts[][3], int m, double tol)
{
    for (int i = 0, checked = 0; m > 2 && checked < m;) {
        if (off_line(pts[(i + m - 1) % m], pts[i], pts[(i + 1) % m], tol) < tol) {
            for (int j = i + 1; j < m; j++) v3_copy(pts[j - 1], pts[j]);
            m--;
            checked = 0;
            if (i >= m) i = 0;
        } else {
            i = (i + 1) % m;
            checked++;
        }
    }
    if (m == 2) {
        double gap[3];
        v3_sub(gap, pts[1], pts[0]);
        if (v3_norm(gap) < tol) m = 1;
    }
    return m;
}

/* A face axis: the reference box (a when ref_a, n from b to a then leaves a's face along −n)
 * and its face of axis k towards the other box. The other box's incident face (the one most
 * anti-parallel to the reference face's normal) is clipped against the reference face's four
 * side planes (Ericson 2005, Sec. 5.2; Sutherland–Hodgman), at most 8 points, not reduced.
 * Each clipped point below the reference face (depth > −margin: a candidate; not deeper than
 * `deepest`) is a contact: the point on the incident box and its projection on the reference
 * face; redundant points (drop_redundant) are left out. */
static int face_contacts(pbd_rigid_world *w, int ia, int ib, int ref_a, int k, const double n[3],
                         double tol, double margin, double deepest)
{
    const pbd_rigid_body *ref = &w->bodies[ref_a ? ia : ib], *inc = &w->bodies[ref_a ? ib : ia];
    double nf[3], poly[2][RIGID_CLIP_MAX][3];
    v3_scale(nf, n, ref_a ? -1.0 : 1.0); /* the reference face's outward normal */
    incident_face(inc, nf, poly[0]);
    int cur = 0, m = clip_to_sides(ref, k, poly, 4, &cur);
    const double plane = v3_dot(nf, ref->x) + ref->shape.half[k]; /* the face: nf·x = plane */
    int kept = drop_redundant(poly[cur], m, tol), quadrant[RIGID_CLIP_MAX];
    double t1[3], t2[3], e1[3] = {0, 0, 0}, e2[3] = {0, 0, 0};
    e1[(k + 2) % 3] = e2[(k + 1) % 3] = 1.0;
    pbd_quat_rotate(ref->q, e1, t1);
    pbd_quat_rotate(ref->q, e2, t2);
    for (int i = 0; i < kept; i++) {
        double r[3];
        v3_sub(r, poly[cur][i], ref->x);
        quadrant[i] = (v3_dot(r, t1) > 0.0) + 2 * (v3_dot(r, t2) > 0.0);
    }
    /* in the order of the reference face's quadrants, fixed in its frame (not where the
     * clipping happened to start): Gauss–Seidel over the contacts depends on their order */
    for (int qd = 0; qd < 4; qd++)
        for (int i = 0; i < kept; i++) {
            if (quadrant[i] != qd) continue;
            const double *p = poly[cur][i];
            double depth = plane - v3_dot(nf, p);
            if (depth <= -margin || depth > deepest) continue; /* a candidate: the solve acts
                                                                 * while depth > 0 */
            double q[3], ri[3], rr[3];
            v3_copy(q, p);
            v3_axpy(q, depth, nf); /* its projection on the reference face */
            to_body(inc, p, ri);
            to_body(ref, q, rr);
            if (!(ref_a ? add(w, ia, ib, rr, ri, n) : add(w, ia, ib, ri, rr, n))) return -1;
        }
    return 0;
}

/* The closest points s, t (parameters in [0, 1]) of segments p0 + s d1 and q0 + t d2 */
static void segments_closest(const double p0[3], const double d1[3], const double q0[3],
                             const double d2[3], double *s, double *t)
{
    double r[3];
    v3_sub(r, p0, q0);
    double a = v3_dot(d1, d1), e = v3_dot(d2, d2), f = v3_dot(d2, r), c = v3_dot(d1, r);
    double b = v3_dot(d1, d2), den = a * e - b * b;
    double ss = den > 1e-14 * a * e ? (b * f - c * e) / den : 0.0;
    ss = ss < 0.0 ? 0.0 : ss > 1.0 ? 1.0 : ss;
    double tt = e > 0.0 ? (b * ss + f) / e : 0.0;
    if (tt < 0.0) {
        tt = 0.0;
        ss = a > 0.0 ? -c / a : 0.0;
    } else if (tt > 1.0) {
        tt = 1.0;
        ss = a > 0.0 ? (b - c) / a : 0.0;
    }
    *s = ss < 0.0 ? 0.0 : ss > 1.0 ? 1.0 : ss;
    *t = tt;
}

/* The edge of box b extremal along the world direction m (its points maximise m·x) that runs
 * along b's axis k: its end point p0 and its full extent d (world). */
static void box_edge(const pbd_rigid_body *b, int k, const double m[3], double p0[3],
                     double d[3])
{
    double ml[3], l[3];
    pbd_quat_rotate_inv(b->q, m, ml);
    for (int a = 0; a < 3; a++)
        l[a] = a == k ? -b->shape.half[a] : (ml[a] < 0.0 ? -1.0 : 1.0) * b->shape.half[a];
    to_world(b, l, p0);
    double e[3] = {0, 0, 0};
    e[k] = 2.0 * b->shape.half[k];
    pbd_quat_rotate(b->q, e, d);
}

/* Two boxes: the separating-axis test on the six face normals and the nine edge–edge cross
 * products; when every one overlaps, the axis of least overlap is the normal n (from b
 * towards a; of near-equal face axes the larger face's, an edge axis only when clearly
 * smaller; Gottschalk's OBB test). A face axis: its box is the reference, the contacts are
 * the other box's incident face clipped to the reference face (face_contacts), none deeper
 * than the overlap. An edge axis: one contact at the closest points of the two edges that
 * meet (edge–edge). */
static int box_box(pbd_rigid_world *w, int ia, int ib)
{
    const pbd_rigid_body *a = &w->bodies[ia], *b = &w->bodies[ib];
    double d[3], u[15][3], overlap[15], least = INFINITY;
    double margin = RIGID_CONTACT_MARGIN * fmin(v3_norm(a->shape.half), v3_norm(b->shape.half));
    v3_sub(d, a->x, b->x);
    for (int k = 0; k < 15; k++) {
        overlap[k] = INFINITY;
        if (k < 6) {
            double e[3] = {0, 0, 0};
            e[k % 3] = 1.0;
            pbd_quat_rotate(k < 3 ? a->q : b->q, e, u[k]);
        } else { /* a's axis (k − 6)/3 × b's axis (k − 6) % 3 */
            double ea[3] = {0, 0, 0}, eb[3] = {0, 0, 0}, wa[3], wb[3];
            ea[(k - 6) / 3] = 1.0;
            eb[(k - 6) % 3] = 1.0;
            pbd_quat_rotate(a->q, ea, wa);
            pbd_quat_rotate(b->q, eb, wb);
            v3_cross(u[k], wa, wb);
            double len = v3_norm(u[k]);
            if (!(len > 1e-6)) continue; /* parallel edges: the face axes decide */
            v3_scale(u[k], u[k], 1.0 / len);
        }
        overlap[k] = rigid_box_extent(a, u[k]) + rigid_box_extent(b, u[k]) - fabs(v3_dot(d, u[k]));
        if (overlap[k] <= -margin) return 0; /* separated */
        if (k < 6) least = fmin(least, overlap[k]);
    }
    double tol = 1e-3 * fmin(v3_norm(a->shape.half), v3_norm(b->shape.half));
    int ref = -1;
    double area = -1.0;
    for (int k = 0; k < 6; k++) {
        const double *h = (k < 3 ? a : b)->shape.half;
        double ak = h[(k + 1) % 3] * h[(k + 2) % 3];
        if (overlap[k] <= least + tol && ak > area) area = ak, ref = k;
    }
    if (ref < 0) return 0; /* non-finite poses: no axis compares (the watchdog names them) */
    for (int k = 6; k < 15; k++) /* an edge axis: clearly less overlap than every face */
        if (overlap[k] < 0.95 * least - tol && (ref < 6 || overlap[k] < overlap[ref])) ref = k;
    double n[3];
    v3_scale(n, u[ref], v3_dot(d, u[ref]) < 0.0 ? -1.0 : 1.0);
    if (ref >= 6) { /* edge–edge: a's edge farthest along −n, b's farthest along +n */
        double mn[3] = {-n[0], -n[1], -n[2]}, pa[3], da[3], pb[3], db[3], sa, sb, p1[3], p2[3];
        double r1[3], r2[3];
        box_edge(a, (ref - 6) / 3, mn, pa, da);
        box_edge(b, (ref - 6) % 3, n, pb, db);
        segments_closest(pa, da, pb, db, &sa, &sb);
        v3_copy(p1, pa);
        v3_axpy(p1, sa, da);
        v3_copy(p2, pb);
        v3_axpy(p2, sb, db);
        double depth = v3_dot(p2, n) - v3_dot(p1, n);
        if (depth <= -margin || depth > overlap[ref] + margin) return 0;
        to_body(a, p1, r1);
        to_body(b, p2, r2);
        return add(w, ia, ib, r1, r2, n) ? 0 : -1;
    }
    /* no point can be deeper along n than the boxes overlap along it: a deeper one is not on
     * the touching faces and is left out */
    return face_contacts(w, ia, ib, ref < 3, ref % 3, n, tol, margin, overlap[ref] + margin);
}

/* A body's core: a sphere's centre (segment of length 0), a capsule's segment, in world */
static void core(const pbd_rigid_body *b, double p0[3], double d[3])
{
    double e[3] = {b->shape.kind == PBD_RIGID_CAPSULE ? b->shape.half[0] : 0.0, 0, 0}, m[3];
    rigid_world_offset(b, e, m);
    v3_sub(p0, b->x, m);
    v3_scale(d, m, 2.0);
}

static int pair_contacts(pbd_rigid_world *w, int i, int j)
{
    const pbd_rigid_body *a = &w->bodies[i], *b = &w->bodies[j];
    pbd_rigid_shape_kind ka = a->shape.kind, kb = b->shape.kind;
    if (ka == PBD_RIGID_NO_SHAPE || kb == PBD_RIGID_NO_SHAPE) return 0;
    if (ka == PBD_RIGID_MESH || kb == PBD_RIGID_MESH) return 0; /* contact_mesh.c */
    if (ka == PBD_RIGID_BOX && kb == PBD_RIGID_BOX)
        return box_box(w, i, j);
    if (ka == PBD_RIGID_BOX) return pair_contacts(w, j, i); /* the box second */
    double p0[3], d1[3];
    core(a, p0, d1);
    if (kb == PBD_RIGID_BOX) { /* a ball, or a capsule's two end balls, against the box */
        int ends = ka == PBD_RIGID_CAPSULE ? 2 : 1;
        for (int e = 0; e < ends; e++) {
            double c[3];
            v3_copy(c, p0);
            v3_axpy(c, (double)e, d1);
            if (ball_box(w, i, c, a->shape.radius, j)) return -1;
        }
        return 0;
    }
    double q0[3], d2[3], s, t, c1[3], c2[3]; /* balls and capsules: their cores' closest points */
    core(b, q0, d2);
    segments_closest(p0, d1, q0, d2, &s, &t);
    v3_copy(c1, p0);
    v3_axpy(c1, s, d1);
    v3_copy(c2, q0);
    v3_axpy(c2, t, d2);
    return balls(w, i, c1, a->shape.radius, j, c2, b->shape.radius);
}

/* A bounding radius about the centre, for the pair test */
double rigid_body_reach(const pbd_rigid_body *b)
{
    const pbd_rigid_shape *s = &b->shape;
    if (s->kind == PBD_RIGID_SPHERE) return s->radius;
    if (s->kind == PBD_RIGID_CAPSULE) return s->radius + s->half[0];
    if (s->kind == PBD_RIGID_BOX) return v3_norm(s->half);
    return 0.0;
}

/* 1 when a joint joins bodies i and j (jointed bodies do not collide) */
int rigid_bodies_jointed(const pbd_rigid_world *w, int i, int j)
{
    for (int k = 0; k < w->n_joints; k++) {
        const int *b = w->joints[k].body;
        if ((b[0] == i && b[1] == j) || (b[0] == j && b[1] == i)) return 1;
    }
    return 0;
}

/* Every substep, at the predicted poses: the ground candidates of every dynamic body (a
 * point becomes a contact of the solve only while it is under the plane), the contacts
 * of every pair of bodies (one dynamic at least, not jointed) that overlap, when
 * w->body_contacts, and those with the mesh colliders (contact_mesh.c). */
pbd_status rigid_contacts_generate(pbd_rigid_world *w)
{
    w->n_contacts = 0;
    for (int i = 0; i < w->n_bodies; i++) {
        const pbd_rigid_body *b = &w->bodies[i];
        if (w->ground && rigid_dynamic(b) && ground_contacts(w, i)) return PBD_ENOMEM;
        if (!w->body_contacts || b->shape.kind == PBD_RIGID_NO_SHAPE) continue;
        for (int j = i + 1; j < w->n_bodies; j++) {
            const pbd_rigid_body *c = &w->bodies[j];
            if (!rigid_dynamic(b) && !rigid_dynamic(c)) continue;
            double d[3];
            v3_sub(d, b->x, c->x);
            if (v3_norm(d) > rigid_body_reach(b) + rigid_body_reach(c) ||
                rigid_bodies_jointed(w, i, j))
                continue;
            if (pair_contacts(w, i, j)) return PBD_ENOMEM;
        }
    }
    return rigid_mesh_contacts_generate(w);
}

pbd_rigid_contact *rigid_contact_add(pbd_rigid_world *w, int b1, int b2, const double r1[3],
                                     const double r2[3], const double n[3])
{
    return add(w, b1, b2, r1, r2, n);
}

/* ---- the solve ----------------------------------------------------------------------- */

/* The contact's bodies (b2 NULL for the ground), world offsets r1, r2 and the penetration
 * d = (p2 − p1)·n (> 0: inside); for the ground p2·n = ground_height. */
static double depth(pbd_rigid_world *w, const pbd_rigid_contact *c, pbd_rigid_body **b1,
                    pbd_rigid_body **b2, double r1[3], double r2[3])
{
    *b1 = &w->bodies[c->body[0]];
    *b2 = c->body[1] >= 0 ? &w->bodies[c->body[1]] : NULL;
    double p1[3];
    rigid_world_offset(*b1, c->r, r1);
    v3_add(p1, (*b1)->x, r1);
    if (!*b2) {
        v3_copy(r2, r1);
        return w->ground_height - v3_dot(p1, c->n);
    }
    double p2[3];
    rigid_world_offset(*b2, c->r2, r2);
    v3_add(p2, (*b2)->x, r2);
    return v3_dot(p2, c->n) - v3_dot(p1, c->n);
}

/* A coefficient of the pair: with the ground the body's own (a), between two bodies the
 * mean of theirs (a, b) */
static double mix(double a, const pbd_rigid_body *b2, double b)
{
    return b2 ? 0.5 * (a + b) : a;
}

/* The relative velocity (v1 + ω1 × r1) − (v2 + ω2 × r2) of the contact points, from the
 * current velocities (pre = 0) or the pre-solve ones (pre = 1) */
static void relative_velocity(const pbd_rigid_body *b1, const pbd_rigid_body *b2,
                              const double r1[3], const double r2[3], int pre, double v[3])
{
    double wr[3];
    v3_cross(wr, pre ? b1->omega_pre : b1->omega, r1);
    v3_add(v, pre ? b1->v_pre : b1->v, wr);
    if (!b2) return;
    double v2[3];
    v3_cross(wr, pre ? b2->omega_pre : b2->omega, r2);
    v3_add(v2, pre ? b2->v_pre : b2->v, wr);
    v3_sub(v, v, v2);
}

/* Static friction of one contact: the contact points' relative tangential move over the
 * substep, Δp_t of Δp = (p1 − p̄1) − (p2 − p̄2) with p̄ at the substep's start (the ground
 * still), is undone while |λ_t| stays within μ_s |λ_n| */
static void static_friction(pbd_rigid_world *w, pbd_rigid_contact *c, double h)
{
    pbd_rigid_body *b1, *b2;
    double r1[3], r2[3], dp[3], rp[3], q[3];
    depth(w, c, &b1, &b2, r1, r2);
    double mu_s = mix(b1->static_friction, b2, b2 ? b2->static_friction : 0.0);
    if (!(mu_s > 0.0)) return;
    pbd_quat_rotate(b1->q_prev, c->r, rp);
    for (int k = 0; k < 3; k++) dp[k] = (b1->x[k] + r1[k]) - (b1->x_prev[k] + rp[k]);
    if (b2) {
        pbd_quat_rotate(b2->q_prev, c->r2, rp);
        for (int k = 0; k < 3; k++) q[k] = (b2->x[k] + r2[k]) - (b2->x_prev[k] + rp[k]);
        v3_sub(dp, dp, q);
    }
    v3_axpy(dp, -v3_dot(dp, c->n), c->n);
    double dt = v3_norm(dp);
    if (!(dt > 0.0)) return;
    double t[3];
    v3_scale(t, dp, 1.0 / dt);
    double wt = pbd_rigid_inverse_mass_positional(b1, r1, t) +
                pbd_rigid_inverse_mass_positional(b2, r2, t);
    if (!(wt > 0.0)) return;
    double tentative = c->lambda_t - dt / wt; /* λ_t + Δλ_t of α = 0 */
    if (fabs(tentative) < mu_s * fabs(c->lambda_n))
        pbd_rigid_correct_positional(b1, b2, r1, r2, dp, 0.0, h, &c->lambda_t);
}

/* One iteration over the contacts: non-penetration of every contact, then static friction
 * of every contact that has pushed (README "Readings": the two in separate sweeps) */
void rigid_contacts_solve_positions(pbd_rigid_world *w, double h)
{
    for (int i = 0; i < w->n_contacts; i++) {
        pbd_rigid_contact *c = &w->contacts[i];
        pbd_rigid_body *b1, *b2;
        double r1[3], r2[3];
        double d = depth(w, c, &b1, &b2, r1, r2);
        if (d <= 0.0) continue;
        /* non-penetration: dx = p1 − p2 = −d n, α = 0 */
        double dx[3];
        v3_scale(dx, c->n, -d);
        pbd_rigid_correct_positional(b1, b2, r1, r2, dx, 0.0, h, &c->lambda_n);
    }
    for (int i = 0; i < w->n_contacts; i++)
        if (w->contacts[i].lambda_n != 0.0) static_friction(w, &w->contacts[i], h);
}

/* One pass over the contacts (Sec. 3.6): dynamic friction when `friction`, then the
 * normal velocity −e ṽ_n of restitution */
static void velocity_pass(pbd_rigid_world *w, double h, int friction)
{
    double g = v3_norm(w->gravity);
    for (int i = 0; i < w->n_contacts; i++) {
        pbd_rigid_contact *c = &w->contacts[i];
        if (c->lambda_n == 0.0) continue; /* not in contact during this substep's solve */
        pbd_rigid_body *b1, *b2;
        double r1[3], r2[3], v[3];
        depth(w, c, &b1, &b2, r1, r2);
        const double *n = c->n;
        relative_velocity(b1, b2, r1, r2, 0, v);
        double vn = v3_dot(v, n), vt[3];
        v3_copy(vt, v);
        v3_axpy(vt, -vn, n);
        double vt_norm = v3_norm(vt), mu_d = mix(b1->dynamic_friction, b2, b2 ? b2->dynamic_friction : 0.0);
        /* dynamic friction: the normal force f_n = λ_n/h² (N) for the substep gives the
         * tangential impulse h μ_d |f_n| (kg m/s), i.e. the velocity change w_t h μ_d |f_n|
         * of the contact point (README errata: the paper prints it without w_t) */
        if (friction && vt_norm > 0.0 && mu_d > 0.0) {
            double t[3];
            v3_scale(t, vt, 1.0 / vt_norm);
            double wt = pbd_rigid_inverse_mass_positional(b1, r1, t) +
                        pbd_rigid_inverse_mass_positional(b2, r2, t);
            double fn = fabs(c->lambda_n) / (h * h);
            double limit = h * mu_d * fn;
            if (w->friction_form == PBD_RIGID_FRICTION_CONSISTENT) limit *= wt;
            double dv = vt_norm < limit ? vt_norm : limit, p[3];
            v3_scale(p, t, -dv / wt); /* p = Δv/(w1 + w2) */
            pbd_rigid_apply_impulse(b1, b2, r1, r2, p);
            relative_velocity(b1, b2, r1, r2, 0, v);
            vn = v3_dot(v, n);
        }
        /* restitution: the normal velocity becomes −e ṽ_n of the pre-solve velocities, with
         * e = 0 when |ṽ_n| <= 2|g|h (resting contact) */
        double pre[3];
        relative_velocity(b1, b2, r1, r2, 1, pre);
        double vn_pre = v3_dot(pre, n);
        double e = fabs(vn_pre) <= 2.0 * g * h ? 0.0 : mix(b1->restitution, b2, b2 ? b2->restitution : 0.0);
        double target = -e * vn_pre > 0.0 ? -e * vn_pre : 0.0;
        double wn = pbd_rigid_inverse_mass_positional(b1, r1, n) +
                    pbd_rigid_inverse_mass_positional(b2, r2, n);
        if (!(wn > 0.0)) continue;
        double p[3];
        v3_scale(p, n, (target - vn) / wn);
        pbd_rigid_apply_impulse(b1, b2, r1, r2, p);
    }
}

void rigid_contacts_solve_velocities(pbd_rigid_world *w, double h)
{
    for (int pass = 0; pass < w->velocity_passes; pass++) velocity_pass(w, h, pass == 0);
}
