/* What the contacts did in a step (pbd_world_contact_stats): the rows of the last substep,
 * their penetration after it, the friction pass's sticking and sliding rows, the impulses of
 * the step (collision_hooks.c adds them), and the self-collision claim of PBD Sec. 4.3 (no
 * vertex passes through a cloth triangle) checked apart from the detection: every substep,
 * every vertex–triangle pair's motion interpolated linearly in time. */
#include "collide.h"

#include <stdlib.h>
#include <string.h>

void contact_measure_free(struct pbd_collision_state *cs)
{
    free(cs->x_start);
    free(cs->xcand);
    pbd_spatial_hash_free(cs->xhash);
    cs->x_start = NULL;
    cs->xcand = NULL;
    cs->xhash = NULL;
    cs->x_cap = 0;
}

pbd_status pbd_world_measure_self_crossings(pbd_world *w, int on)
{
    struct pbd_collision_state *cs = w->collision;
    if (!on) {
        if (cs) {
            cs->measure_crossings = 0;
            contact_measure_free(cs);
        }
        return PBD_OK;
    }
    if (!cs || !cs->cloth)
        return pbd_error(PBD_EINVAL, "self crossings: expected cloth triangles "
                         "(pbd_world_set_cloth_triangles), found none");
    contact_measure_free(cs);
    int n = w->n > 0 ? w->n : 1;
    cs->x_start = malloc(3 * (size_t)n * sizeof *cs->x_start);
    cs->xcand = malloc((size_t)n * sizeof *cs->xcand);
    cs->xhash = pbd_spatial_hash_create(n, cs->cloth->mean_edge);
    if (!cs->x_start || !cs->xcand || !cs->xhash) {
        contact_measure_free(cs);
        return pbd_error(PBD_ENOMEM, "self crossings: out of memory for %d particles", n);
    }
    cs->x_cap = w->n;
    cs->measure_crossings = 1;
    return PBD_OK;
}

pbd_contact_stats pbd_world_contact_stats(const pbd_world *w)
{
    if (w->collision) return w->collision->cstats;
    pbd_contact_stats s = {.penetration_max = NAN, .penetration_mean = NAN,
                           .self_crossings = -1};
    return s;
}

void contact_stats_begin(pbd_world *w)
{
    struct pbd_collision_state *cs = w->collision;
    pbd_contact_stats *s = &cs->cstats;
    if (cs->cstats_step != w->step_count || s->step != w->step_count + 1) { /* a new step */
        cs->cstats_step = w->step_count;
        s->impulse_normal = s->impulse_tangential = 0.0;
        s->self_crossings = cs->measure_crossings ? 0 : -1;
    }
    s->step = w->step_count + 1;
    s->contacts = s->active = s->sticking = s->sliding = s->self_contacts = 0;
    s->penetration_max = s->penetration_mean = NAN;
}

/* det(b - a, c - a, q - a) */
static double orient(const double *a, const double *b, const double *c, const double *q)
{
    double ab[3], ac[3], aq[3], n[3];
    v3_sub(ab, b, a);
    v3_sub(ac, c, a);
    v3_sub(aq, q, a);
    v3_cross(n, ab, ac);
    return v3_dot(n, aq);
}

/* The four points of a pair at time t of the substep (0: start, 1: end). */
typedef struct pair_path {
    const double *q0, *q1, *a0, *a1, *b0, *b1, *c0, *c1;
} pair_path;

static double pair_orient(const pair_path *pp, double t, double q[3], double a[3], double b[3],
                          double c[3])
{
    cv_lerp(q, pp->q0, pp->q1, t);
    cv_lerp(a, pp->a0, pp->a1, t);
    cv_lerp(b, pp->b0, pp->b1, t);
    cv_lerp(c, pp->c0, pp->c1, t);
    return orient(a, b, c, q);
}

/* q over the triangle (a, b, c): its projection on the plane inside or on an edge. */
static int over(const double *q, const double *a, const double *b, const double *c)
{
    double ab[3], ac[3], n[3];
    v3_sub(ab, b, a);
    v3_sub(ac, c, a);
    v3_cross(n, ab, ac);
    if (!(v3_dot(n, n) > 0.0)) return 0;
    const double *v[3] = {a, b, c};
    for (int e = 0; e < 3; e++) {
        double ed[3], eq[3], cr[3];
        v3_sub(ed, v[(e + 1) % 3], v[e]);
        v3_sub(eq, q, v[e]);
        v3_cross(cr, ed, eq);
        if (v3_dot(cr, n) < 0.0) return 0;
    }
    return 1;
}

/* The cubic f(t) = det(...)(t) sampled at 5 times; each strict sign change is bisected to
 * its root, where the vertex must be over the triangle. 1 when the pair crossed. */
static int pair_crossed(const pair_path *pp)
{
    enum { SAMPLES = 4, BISECTIONS = 60 };
    double q[3], a[3], b[3], c[3];
    double t0 = 0.0, f0 = pair_orient(pp, 0.0, q, a, b, c);
    for (int k = 1; k <= SAMPLES; k++) {
        double t1 = (double)k / SAMPLES, f1 = pair_orient(pp, t1, q, a, b, c);
        if ((f0 > 0.0 && f1 < 0.0) || (f0 < 0.0 && f1 > 0.0)) {
            double lo = t0, hi = t1, flo = f0;
            for (int i = 0; i < BISECTIONS; i++) {
                double mid = 0.5 * (lo + hi), fm = pair_orient(pp, mid, q, a, b, c);
                if ((fm > 0.0) == (flo > 0.0) && fm != 0.0) {
                    lo = mid;
                    flo = fm;
                } else {
                    hi = mid;
                }
            }
            pair_orient(pp, 0.5 * (lo + hi), q, a, b, c);
            if (over(q, a, b, c)) return 1;
        }
        t0 = t1;
        f0 = f1;
    }
    return 0;
}

void contact_crossings_start(pbd_world *w, double h)
{
    struct pbd_collision_state *cs = w->collision;
    if (!cs->measure_crossings || !cs->cloth) return;
    if (w->n > cs->x_cap) { /* the world grew after the buffers were sized: not measured */
        cs->cstats.self_crossings = -1;
        return;
    }
    if (cs->cstats.self_crossings < 0) return;
    int m = 0;
    double dmax = 0.0;
    for (int i = 0; i < w->n; i++) {
        double d[3];
        for (int k = 0; k < 3; k++) {
            cs->x_start[3 * i + k] = w->x[3 * i + k] - h * w->v[3 * i + k];
            d[k] = w->x[3 * i + k] - cs->x_start[3 * i + k];
        }
        if (cs->is_proxy && i < cs->n_particles && cs->is_proxy[i]) continue; /* body corners */
        cs->xcand[m++] = i;
        dmax = fmax(dmax, v3_norm(d));
    }
    pbd_spatial_hash_build(cs->xhash, cs->x_start, cs->xcand, m);
    const cloth_tris *cl = cs->cloth;
    long crossed = 0;
    for (int t = 0; t < cl->nt; t++) {
        const int32_t *tri = cl->t + 3 * t;
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) {
                double s = cs->x_start[3 * tri[j] + k], e = w->x[3 * tri[j] + k];
                lo[k] = fmin(lo[k], fmin(s, e)) - dmax;
                hi[k] = fmax(hi[k], fmax(s, e)) + dmax;
            }
        /* a vertex that meets the triangle is within d_max of its swept box at the start */
        int nc = pbd_spatial_hash_query(cs->xhash, lo, hi, cs->xcand, w->n);
        for (int j = 0; j < nc && j < w->n; j++) {
            int v = cs->xcand[j];
            if (v == tri[0] || v == tri[1] || v == tri[2]) continue;
            pair_path pp = {cs->x_start + 3 * v, w->x + 3 * v,
                            cs->x_start + 3 * tri[0], w->x + 3 * tri[0],
                            cs->x_start + 3 * tri[1], w->x + 3 * tri[1],
                            cs->x_start + 3 * tri[2], w->x + 3 * tri[2]};
            crossed += pair_crossed(&pp);
        }
    }
    cs->cstats.self_crossings += crossed;
}

/* The deepest penetration of any particle (a rigid body's corner particles aside) into any
 * plane, sphere or box collider, m (0: none). Mesh colliders are left to the rows: their
 * signed distance is a closest-triangle search, too costly for every particle and substep. */
static double deepest_analytic(const pbd_world *w, const struct pbd_collision_state *cs)
{
    double mx = 0.0;
    for (int c = 0; c < cs->n_colliders; c++) {
        const shape *sh = &cs->colliders[c].shape;
        if (sh->kind == SHAPE_MESH) continue;
        for (int i = 0; i < w->n; i++) {
            if (cs->is_proxy && i < cs->n_particles && cs->is_proxy[i]) continue;
            double d = shape_signed_distance(sh, w->x + 3 * (size_t)i);
            if (d < 0.0) mx = fmax(mx, -d);
        }
    }
    return mx;
}

void contact_stats_end(pbd_world *w)
{
    struct pbd_collision_state *cs = w->collision;
    pbd_contact_stats *s = &cs->cstats;
    s->self_contacts = cs->stats.self_contacts;
    if (cs->contact_set < 0) return;
    const pbd_constraint_set *set = &w->sets[cs->contact_set];
    s->contacts = set->count;
    if (set->count == 0) return;
    double mx = deepest_analytic(w, cs), sum = 0.0;
    for (int r = 0; r < set->count; r++) {
        const shape *sh = &cs->colliders[cs->contact[r].collider].shape;
        double d = shape_signed_distance(sh, w->x + 3 * (size_t)set->idx[r]);
        double depth = d < 0.0 ? -d : 0.0;
        mx = fmax(mx, depth);
        sum += depth;
    }
    s->penetration_max = mx;
    s->penetration_mean = sum / set->count;
}
