/* Collision geometry of the analytic shapes (PBD Sec. 3.4): for the ray x -> p, the entry
 * point q_c and normal n_c when it enters the solid, or the closest surface point q_s and
 * normal n_s when it lies completely inside. A point is inside when its signed distance is
 * < 0; a point on the surface counts as outside, so a particle resting on a surface and
 * pushed in by gravity enters at t = 0. */
#include "collide.h"

void cv_quat_to_matrix(const double q[4], double R[9])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - w * z);     R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y);     R[7] = 2 * (y * z + w * x);     R[8] = 1 - 2 * (x * x + y * y);
}

/* ---- plane ---------------------------------------------------------------------------- */

static double plane_distance(const shape *s, const double y[3])
{
    double d[3];
    v3_sub(d, y, s->c);
    return v3_dot(d, s->n);
}

static int plane_contact(const shape *s, const double x[3], const double p[3], double q[3],
                         double n[3])
{
    double dx = plane_distance(s, x), dp = plane_distance(s, p);
    if (dp >= 0.0) return CONTACT_NONE;
    v3_copy(n, s->n);
    if (dx >= 0.0) { /* enters: q_c = x + t (p - x), t = dx / (dx - dp) in [0, 1) */
        cv_lerp(q, x, p, dx / (dx - dp));
        return CONTACT_ENTRY;
    }
    v3_copy(q, p); /* inside: q_s = p - dp n */
    v3_axpy(q, -dp, s->n);
    return CONTACT_INSIDE;
}

/* ---- sphere --------------------------------------------------------------------------- */

static double sphere_distance(const shape *s, const double y[3])
{
    double d[3];
    v3_sub(d, y, s->c);
    return v3_norm(d) - s->radius;
}

/* Outward normal at a point y on (or near) the sphere; falls back to `alt - c`, then +y,
 * when y is at the centre. */
static void sphere_normal(const shape *s, const double y[3], const double alt[3], double n[3])
{
    double d[3];
    v3_sub(d, y, s->c);
    double len = v3_norm(d);
    if (!(len > 1e-12 * s->radius)) {
        v3_sub(d, alt, s->c);
        len = v3_norm(d);
    }
    if (!(len > 1e-12 * s->radius)) {
        d[0] = 0.0; d[1] = 1.0; d[2] = 0.0;
        len = 1.0;
    }
    v3_scale(n, d, 1.0 / len);
}

static int sphere_contact(const shape *s, const double x[3], const double p[3], double q[3],
                          double n[3])
{
    double r = s->radius, ex[3], d[3];
    v3_sub(ex, x, s->c);
    v3_sub(d, p, x);
    double cx = v3_dot(ex, ex) - r * r;
    if (cx >= 0.0) {
        /* |ex + t d|² = r²: a t² + 2 b t + cx = 0, first root t = (-b - sqrt(b² - a cx)) / a,
         * written as cx / (-b + sqrt(...)) to avoid cancellation (b < 0 when approaching). */
        double a = v3_dot(d, d), b = v3_dot(ex, d);
        if (!(a > 0.0) || b >= 0.0) return CONTACT_NONE;
        double disc = b * b - a * cx;
        if (disc < 0.0) return CONTACT_NONE;
        double t = cx / (-b + sqrt(disc));
        if (t > 1.0) return CONTACT_NONE;
        cv_lerp(q, x, p, t);
        sphere_normal(s, q, x, n);
        /* q_c on the surface exactly (t carries the rounding of the root) */
        v3_copy(q, s->c);
        v3_axpy(q, r, n);
        return CONTACT_ENTRY;
    }
    if (sphere_distance(s, p) >= 0.0) return CONTACT_NONE; /* leaving */
    sphere_normal(s, p, x, n);
    v3_copy(q, s->c);
    v3_axpy(q, r, n);
    return CONTACT_INSIDE;
}

/* ---- box (axis-aligned or oriented): local = R (y - c) -------------------------------- */

static void box_local(const shape *s, const double y[3], double l[3])
{
    double d[3];
    v3_sub(d, y, s->c);
    cv_mat(l, s->R, d);
}

static void box_world(const shape *s, const double l[3], double y[3])
{
    cv_mat_t(y, s->R, l);
    v3_add(y, y, s->c);
}

static void box_world_dir(const shape *s, const double l[3], double y[3]) { cv_mat_t(y, s->R, l); }

static double box_distance_local(const shape *s, const double l[3])
{
    double out = 0.0, in = -INFINITY;
    for (int k = 0; k < 3; k++) {
        double e = fabs(l[k]) - s->half[k];
        if (e > 0.0) out += e * e;
        if (e > in) in = e;
    }
    return out > 0.0 ? sqrt(out) : in; /* in <= 0: minus the distance to the nearest face */
}

static double box_distance(const shape *s, const double y[3])
{
    double l[3];
    box_local(s, y, l);
    return box_distance_local(s, l);
}

static int box_contact(const shape *s, const double x[3], const double p[3], double q[3],
                       double n[3])
{
    double lx[3], lp[3], nl[3] = {0, 0, 0};
    box_local(s, x, lx);
    box_local(s, p, lp);
    if (box_distance_local(s, lx) >= 0.0) {
        /* slabs: t_enter = max of the entry times, t_exit = min of the exit times */
        double t_in = -INFINITY, t_out = INFINITY;
        int axis = -1;
        double sgn = 0.0;
        for (int k = 0; k < 3; k++) {
            double d = lp[k] - lx[k], hk = s->half[k];
            if (d == 0.0) {
                if (lx[k] < -hk || lx[k] > hk) return CONTACT_NONE;
                continue;
            }
            double t1 = (-hk - lx[k]) / d, t2 = (hk - lx[k]) / d;
            double face = -1.0; /* moving +: enters through the -h face */
            if (t1 > t2) {
                double tmp = t1; t1 = t2; t2 = tmp;
                face = 1.0;
            }
            if (t1 > t_in) { t_in = t1; axis = k; sgn = face; }
            if (t2 < t_out) t_out = t2;
        }
        if (axis < 0 || t_in > t_out || t_in > 1.0 || t_in < 0.0) return CONTACT_NONE;
        double lq[3];
        cv_lerp(lq, lx, lp, t_in);
        lq[axis] = sgn * s->half[axis]; /* exactly on the face */
        nl[axis] = sgn;
        box_world(s, lq, q);
        box_world_dir(s, nl, n);
        return CONTACT_ENTRY;
    }
    if (box_distance_local(s, lp) >= 0.0) return CONTACT_NONE; /* leaving */
    /* closest face to p */
    int axis = 0;
    double best = INFINITY;
    for (int k = 0; k < 3; k++) {
        double gap = s->half[k] - fabs(lp[k]);
        if (gap < best) { best = gap; axis = k; }
    }
    double sgn = lp[axis] >= 0.0 ? 1.0 : -1.0;
    double lq[3] = {lp[0], lp[1], lp[2]};
    lq[axis] = sgn * s->half[axis];
    nl[axis] = sgn;
    box_world(s, lq, q);
    box_world_dir(s, nl, n);
    return CONTACT_INSIDE;
}

/* ---- near contacts: p outside, within the margin -------------------------------------- */

/* Surface point closest to p (outside the solid or on it) and the outward normal there. */
static void closest_outside(const shape *s, const double p[3], double q[3], double n[3])
{
    switch (s->kind) {
    case SHAPE_PLANE:
        v3_copy(q, p);
        v3_axpy(q, -plane_distance(s, p), s->n);
        v3_copy(n, s->n);
        return;
    case SHAPE_SPHERE:
        sphere_normal(s, p, p, n);
        v3_copy(q, s->c);
        v3_axpy(q, s->radius, n);
        return;
    case SHAPE_BOX: {
        double l[3], lq[3], d[3], nl[3] = {0, 0, 0};
        box_local(s, p, l);
        int axis = 0;
        double best = -INFINITY;
        for (int k = 0; k < 3; k++) {
            lq[k] = fmax(-s->half[k], fmin(s->half[k], l[k]));
            double e = fabs(l[k]) - s->half[k];
            if (e > best) { best = e; axis = k; }
        }
        v3_sub(d, l, lq);
        double len = v3_norm(d);
        if (len > 1e-12 * (s->half[0] + s->half[1] + s->half[2])) {
            v3_scale(nl, d, 1.0 / len);
        } else { /* on the surface: the face it lies on */
            nl[axis] = l[axis] >= 0.0 ? 1.0 : -1.0;
            lq[axis] = nl[axis] * s->half[axis];
        }
        box_world(s, lq, q);
        box_world_dir(s, nl, n);
        return;
    }
    case SHAPE_MESH:
        break; /* mesh_shape_contact handles its own margin */
    }
}

int shape_push_out(const shape *s, double p[3])
{
    if (s->kind == SHAPE_MESH || !(shape_signed_distance(s, p) < 0.0)) return 0;
    double q[3], n[3];
    closest_outside(s, p, q, n);
    v3_copy(p, q);
    return 1;
}

/* ---- dispatch ------------------------------------------------------------------------- */

int shape_contact(const shape *s, const double x[3], const double p[3], double margin,
                  double q[3], double n[3])
{
    int k = CONTACT_NONE;
    switch (s->kind) {
    case SHAPE_PLANE: k = plane_contact(s, x, p, q, n); break;
    case SHAPE_SPHERE: k = sphere_contact(s, x, p, q, n); break;
    case SHAPE_BOX: k = box_contact(s, x, p, q, n); break;
    case SHAPE_MESH: return mesh_shape_contact(s->mesh, x, p, margin, q, n);
    }
    if (k != CONTACT_NONE || !(margin > 0.0)) return k;
    double d = shape_signed_distance(s, p);
    if (!(d >= 0.0 && d < margin)) return CONTACT_NONE;
    closest_outside(s, p, q, n);
    return CONTACT_NEAR;
}

double shape_signed_distance(const shape *s, const double y[3])
{
    switch (s->kind) {
    case SHAPE_PLANE: return plane_distance(s, y);
    case SHAPE_SPHERE: return sphere_distance(s, y);
    case SHAPE_BOX: return box_distance(s, y);
    case SHAPE_MESH: return mesh_shape_signed_distance(s->mesh, y);
    }
    return INFINITY;
}
