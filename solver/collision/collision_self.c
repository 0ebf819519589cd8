/* Collisions against the cloth's triangles: self collision (PBD Sec. 4.3) and the convex
 * corners of rigid boxes (PBD Sec. 4.2). Both use one spatial hash of the particles'
 * predicted positions p (cells of the cloth's mean edge length, as the paper assumes
 * triangles of about the same size).
 *
 * Self collision: triangle t = (p1, p2, p3) queries the box around its swept positions
 * (x and p of its corners) grown by 2h + 2 d_max (d_max: the largest particle displacement
 * of the substep), so every particle whose path x_q -> p_q comes within 2h + d_max of the
 * swept triangle is a candidate. With n̂ the unit normal (p2-p1)×(p3-p1)/|…| and
 * d = (q - p1)·n̂, the side the particle came from is sign(d) at the start of the step
 * (x positions); the candidate gets the constraint C = sign (q - p1)·n̂ - h >= 0 (Eq. 12
 * for sign +1, Eq. 13 for -1) when it ends within 2h + d_max of the triangle or behind it
 * (a margin: the projection still moves the triangle), and
 * either its path crosses the triangle's plane inside the triangle (continuous test,
 * linearized: particle and triangle interpolated to the crossing time) or its end point
 * projects into the triangle (proximity test).
 *
 * Corners: a box corner moving c0 -> c1 (a kinematic particle, w = 0) that crosses a
 * cloth triangle, or ends behind it (or within a margin) inside its outline, gets the
 * point_triangle constraint sign (c - p1)·[(p2-p1)×(p3-p1)] >= 0, the sign being the side
 * of the body's centre (not the corner's start side: see corner_test). The triangle is
 * pushed, the body takes the reaction in velocityUpdate. */
#include "collide.h"

/* A point at barycentric coordinates >= -this is on the triangle. */
#define CLOTH_BARY_EPS 1e-9
/* |d| below this fraction of the mean edge: the start side is undefined. */
#define CLOTH_SIDE_EPS 1e-9
/* Detection margins. The projection moves the triangles after the detection (the cloth's
 * own constraints), so a pair that the prediction leaves just clear can still cross: pairs
 * are kept up to a distance of 2h + d_max (self collision) and 0.05 × mean edge + d_max
 * (corners). The extra rows are inactive inequalities until they are violated. */
#define CLOTH_CORNER_MARGIN 0.05
/* A corner counts as over a triangle when its projection is inside it or outside by at most
 * this (barycentric): the corner pressed into a fold lies behind both planes but over
 * neither outline, and would slip through the crease. */
#define CORNER_BARY_TOL 0.25

/* Unit normal of (a, b, c); 0 for a zero-area triangle. */
static int unit_normal(const double *a, const double *b, const double *c, double n[3])
{
    double ab[3], ac[3];
    v3_sub(ab, b, a);
    v3_sub(ac, c, a);
    v3_cross(n, ab, ac);
    double len = v3_norm(n);
    if (!(len > 1e-12 * (v3_dot(ab, ab) + v3_dot(ac, ac)))) return 0;
    v3_scale(n, n, 1.0 / len);
    return 1;
}

/* y lies over the triangle (a, b, c) with unit normal n: its projection is inside, or
 * outside by at most tol in barycentric terms. */
static int over_triangle_tol(const double *y, const double *a, const double *b, const double *c,
                             const double n[3], double tol)
{
    const double *v[3] = {a, b, c};
    double ab[3], ac[3], m[3];
    v3_sub(ab, b, a);
    v3_sub(ac, c, a);
    v3_cross(m, ab, ac);
    double area2 = v3_dot(m, n);
    for (int e = 0; e < 3; e++) {
        double ed[3], ey[3], cr[3];
        v3_sub(ed, v[(e + 1) % 3], v[e]);
        v3_sub(ey, y, v[e]);
        v3_cross(cr, ed, ey);
        if (v3_dot(cr, n) < -tol * area2) return 0;
    }
    return 1;
}

static int over_triangle(const double *y, const double *a, const double *b, const double *c,
                         const double n[3])
{
    return over_triangle_tol(y, a, b, c, n, CLOTH_BARY_EPS);
}

/* Did the path q0 -> q1 cross the plane of the moving triangle (a0 b0 c0 -> a1 b1 c1) inside
 * it? d0, d1: signed distances at both ends. Linearized: everything is interpolated to the
 * crossing time t = d0 / (d0 - d1). */
static int crossed_inside(const double *q0, const double *q1, const double *a0, const double *a1,
                          const double *b0, const double *b1, const double *c0, const double *c1,
                          double d0, double d1)
{
    double t = d0 / (d0 - d1), q[3], a[3], b[3], c[3], n[3];
    cv_lerp(q, q0, q1, t);
    cv_lerp(a, a0, a1, t);
    cv_lerp(b, b0, b1, t);
    cv_lerp(c, c0, c1, t);
    return unit_normal(a, b, c, n) && over_triangle(q, a, b, c, n);
}

/* Self-collision test of particle v against triangle (i1, i2, i3); the sign of Eq. 12/13
 * or 0 for no constraint. */
static double self_test(const pbd_world *w, int v, const int32_t *tri, double detect,
                        double eps)
{
    const double *xq = w->x + 3 * v, *pq = w->p + 3 * v;
    const double *x1 = w->x + 3 * tri[0], *x2 = w->x + 3 * tri[1], *x3 = w->x + 3 * tri[2];
    const double *p1 = w->p + 3 * tri[0], *p2 = w->p + 3 * tri[1], *p3 = w->p + 3 * tri[2];
    double n0[3], n1[3], e[3];
    if (!unit_normal(x1, x2, x3, n0) || !unit_normal(p1, p2, p3, n1)) return 0.0;
    v3_sub(e, xq, x1);
    double d0 = v3_dot(e, n0);
    if (fabs(d0) <= eps) return 0.0; /* no side to keep */
    double sign = d0 > 0.0 ? 1.0 : -1.0;
    v3_sub(e, pq, p1);
    double d1 = v3_dot(e, n1);
    if (sign * d1 >= detect) return 0.0; /* ends clear of the cloth's thickness */
    if (sign * d1 < 0.0 && crossed_inside(xq, pq, x1, p1, x2, p2, x3, p3, d0, d1)) return sign;
    return over_triangle(pq, p1, p2, p3, n1) ? sign : 0.0;
}

/* Corner test: the sign for point_triangle, or 0. centre0: the body's centre at the start.
 * The side to keep is the centre's: a cloth triangle touching a convex body from outside
 * lies in a supporting plane, with the whole body on one side; this also pushes a corner
 * that has got through a triangle back out, where the start side would keep it inside. */
static double corner_test(const pbd_world *w, int v, const int32_t *tri, const double *centre0,
                          double detect)
{
    const double *c0 = w->x + 3 * v, *c1 = w->p + 3 * v;
    const double *x1 = w->x + 3 * tri[0], *x2 = w->x + 3 * tri[1], *x3 = w->x + 3 * tri[2];
    const double *p1 = w->p + 3 * tri[0], *p2 = w->p + 3 * tri[1], *p3 = w->p + 3 * tri[2];
    double n0[3], n1[3], e[3];
    if (!unit_normal(x1, x2, x3, n0) || !unit_normal(p1, p2, p3, n1)) return 0.0;
    v3_sub(e, centre0, x1);
    double dc = v3_dot(e, n0);
    if (dc == 0.0) return 0.0;
    double sign = dc > 0.0 ? 1.0 : -1.0;
    v3_sub(e, c0, x1);
    double d0 = v3_dot(e, n0);
    v3_sub(e, c1, p1);
    double d1 = v3_dot(e, n1);
    if (sign * d1 >= detect) return 0.0;
    if (sign * d0 > 0.0 && sign * d1 < 0.0 && crossed_inside(c0, c1, x1, p1, x2, p2, x3, p3, d0, d1))
        return sign;
    return over_triangle_tol(c1, p1, p2, p3, n1, CORNER_BARY_TOL) ? sign : 0.0;
}

static int in_triangle(const int32_t *tri, int v) { return tri[0] == v || tri[1] == v || tri[2] == v; }

/* Hash the free and fixed particles (not the corners) at p; returns d_max = max |p - x|. */
static double build_hash(pbd_world *w)
{
    struct pbd_collision_state *cs = w->collision;
    int m = 0;
    double dmax = 0.0;
    for (int i = 0; i < w->n; i++) {
        if (cs->is_proxy[i]) continue;
        cs->vcand[m++] = i; /* the id list; copied into the hash, so vcand is free again */
        double d[3];
        v3_sub(d, w->p + 3 * i, w->x + 3 * i);
        double len = v3_norm(d);
        if (len > dmax) dmax = len;
    }
    pbd_spatial_hash_build(cs->vhash, w->p, cs->vcand, m);
    return dmax;
}

static void self_pass(pbd_world *w, double dmax)
{
    struct pbd_collision_state *cs = w->collision;
    const cloth_tris *cl = cs->cloth;
    double thick = cs->thickness, eps = CLOTH_SIDE_EPS * cl->mean_edge;
    double detect = 2.0 * thick + dmax, grow = detect + dmax;
    for (int t = 0; t < cl->nt; t++) {
        const int32_t *tri = cl->t + 3 * t;
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) {
                double a = w->x[3 * tri[j] + k], b = w->p[3 * tri[j] + k];
                lo[k] = fmin(lo[k], fmin(a, b));
                hi[k] = fmax(hi[k], fmax(a, b));
            }
        for (int k = 0; k < 3; k++) {
            lo[k] -= grow;
            hi[k] += grow;
        }
        int tri_free = w->w[tri[0]] > 0.0 || w->w[tri[1]] > 0.0 || w->w[tri[2]] > 0.0;
        int nc = pbd_spatial_hash_query(cs->vhash, lo, hi, cs->vcand, w->n);
        for (int j = 0; j < nc && j < w->n; j++) {
            int v = cs->vcand[j];
            if (in_triangle(tri, v) || (!tri_free && w->w[v] <= 0.0)) continue;
            double sign = self_test(w, v, tri, detect, eps);
            if (sign == 0.0) continue;
            const int32_t idx[4] = {v, tri[0], tri[1], tri[2]};
            const double rest[2] = {thick, sign};
            if (collision_push(w, cs->self_set, idx, rest) >= 0) cs->stats.self_contacts++;
        }
    }
}

/* Longest cloth edge over the x and p positions. */
static double max_edge(const pbd_world *w, const cloth_tris *cl)
{
    double m = 0.0;
    for (int t = 0; t < cl->nt; t++)
        for (int e = 0; e < 3; e++) {
            int a = cl->t[3 * t + e], b = cl->t[3 * t + (e + 1) % 3];
            double d[3];
            v3_sub(d, w->x + 3 * a, w->x + 3 * b);
            m = fmax(m, v3_norm(d));
            v3_sub(d, w->p + 3 * a, w->p + 3 * b);
            m = fmax(m, v3_norm(d));
        }
    return m;
}

static void corner_pass(pbd_world *w, double dmax)
{
    struct pbd_collision_state *cs = w->collision;
    cloth_tris *cl = cs->cloth;
    /* a triangle touching the corner's path has a corner within the longest edge of it,
     * and that corner's p within d_max of where it was then */
    double detect = CLOTH_CORNER_MARGIN * cl->mean_edge + dmax;
    double grow = max_edge(w, cl) + dmax + detect;
    for (int bi = 0; bi < cs->n_bodies; bi++) {
        const rigid_body *b = &cs->bodies[bi];
        for (int k = 0; k < b->n_corners; k++) {
            int v = b->first_proxy + k;
            double lo[3], hi[3];
            for (int d = 0; d < 3; d++) {
                lo[d] = fmin(w->x[3 * v + d], w->p[3 * v + d]) - grow;
                hi[d] = fmax(w->x[3 * v + d], w->p[3 * v + d]) + grow;
            }
            if (++cl->stamp == INT32_MAX) {
                for (int t = 0; t < cl->nt; t++) cl->tri_stamp[t] = 0;
                cl->stamp = 1;
            }
            int nc = pbd_spatial_hash_query(cs->vhash, lo, hi, cs->vcand, w->n);
            for (int j = 0; j < nc && j < w->n; j++) {
                int u = cs->vcand[j];
                for (int a = cl->vt_start[u]; a < cl->vt_start[u + 1]; a++) {
                    int t = cl->vt[a];
                    if (cl->tri_stamp[t] == cl->stamp) continue;
                    cl->tri_stamp[t] = cl->stamp;
                    const int32_t *tri = cl->t + 3 * t;
                    double sign = corner_test(w, v, tri, b->x, detect);
                    if (sign == 0.0) continue;
                    const int32_t idx[4] = {v, tri[0], tri[1], tri[2]};
                    int row = collision_push(w, cs->corner_set, idx, &sign);
                    if (row < 0) continue;
                    corner_info *ki = &cs->corner[row];
                    ki->body = bi;
                    /* ∇_q C = sign (p2 - p1) × (p3 - p1) where the projection starts */
                    double e2[3], e3[3];
                    v3_sub(e2, w->p + 3 * tri[1], w->p + 3 * tri[0]);
                    v3_sub(e3, w->p + 3 * tri[2], w->p + 3 * tri[0]);
                    v3_cross(ki->grad_q, e2, e3);
                    v3_scale(ki->grad_q, ki->grad_q, sign);
                    cs->stats.corner_contacts++;
                }
            }
        }
    }
}

void collision_self_generate(pbd_world *w, double h)
{
    (void)h;
    struct pbd_collision_state *cs = w->collision;
    if (!cs->cloth || !cs->vhash) return;
    int corners = cs->corner_set >= 0 && cs->n_bodies > 0;
    if (!cs->self_enabled && !corners) return;
    double dmax = build_hash(w);
    if (cs->self_enabled) self_pass(w, dmax);
    if (corners) corner_pass(w, dmax);
}
