/* The collision state of a world: colliders, the contact sets and their side tables, the
 * cloth triangles for self collision. Everything is allocated here, when colliders, bodies
 * or triangles are added; the step only fills what was reserved (PBD Sec. 3.4, 4.3). */
#include "collide.h"

#include <stdlib.h>
#include <string.h>

/* Self-collision rows reserved per particle, and corner rows per box corner: contacts
 * beyond these are dropped and counted in pbd_collision_stats.dropped. */
#define SELF_CONTACTS_PER_PARTICLE 8
#define CORNER_CONTACTS_PER_CORNER 8

pbd_material pbd_material_default(void)
{
    pbd_material m = {0.0, 0.0, 0.0};
    return m;
}

struct pbd_collision_state *collision_state(pbd_world *w)
{
    if (w->collision) return w->collision;
    struct pbd_collision_state *cs = calloc(1, sizeof *cs);
    if (!cs) {
        pbd_error(PBD_ENOMEM, "out of memory for the collision state");
        return NULL;
    }
    cs->contact_set = cs->self_set = cs->corner_set = -1;
    cs->stats.contact_set = cs->stats.self_set = cs->stats.corner_set = -1;
    cs->cstats.penetration_max = cs->cstats.penetration_mean = NAN;
    cs->cstats.self_crossings = -1;
    w->collision = cs;
    w->collision_stages = &collision_stages;
    return cs;
}

static void cloth_free(cloth_tris *c)
{
    if (!c) return;
    free(c->t);
    free(c->vt_start);
    free(c->vt);
    free(c->tri_stamp);
    free(c);
}

void collision_free(pbd_world *w)
{
    struct pbd_collision_state *cs = w ? w->collision : NULL;
    if (!cs) return;
    for (int i = 0; i < cs->n_colliders; i++)
        if (cs->colliders[i].shape.kind == SHAPE_MESH) mesh_shape_free(cs->colliders[i].shape.mesh);
    free(cs->colliders);
    free(cs->bodies);
    free(cs->contact);
    free(cs->corner);
    cloth_free(cs->cloth);
    pbd_spatial_hash_free(cs->vhash);
    free(cs->vcand);
    free(cs->is_proxy);
    contact_measure_free(cs);
    free(cs);
    w->collision = NULL;
}

static pbd_status ensure_set(pbd_world *w, int *set, const pbd_constraint_type *type)
{
    if (*set >= 0) return PBD_OK;
    if (!type)
        return pbd_error(PBD_EINVAL, "collision: constraint type missing from the build");
    int s = pbd_world_add_set(w, type, 0);
    if (s < 0) return pbd_error(PBD_ENOMEM, "collision: cannot add the %s contact set", type->name);
    w->sets[s].fixed_order = 1; /* the side tables index its rows: never sorted by colour */
    *set = s;
    return PBD_OK;
}

/* Vertex -> triangles adjacency over the world's current particles. */
static pbd_status cloth_build_adjacency(cloth_tris *c, int n)
{
    int32_t *start = calloc((size_t)n + 1, sizeof *start);
    int32_t *vt = malloc((size_t)(3 * c->nt > 0 ? 3 * c->nt : 1) * sizeof *vt);
    if (!start || !vt) {
        free(start);
        free(vt);
        return pbd_error(PBD_ENOMEM, "out of memory for the cloth adjacency");
    }
    for (int i = 0; i < 3 * c->nt; i++) start[c->t[i] + 1]++;
    for (int v = 0; v < n; v++) start[v + 1] += start[v];
    int32_t *cursor = malloc((size_t)(n > 0 ? n : 1) * sizeof *cursor);
    if (!cursor) {
        free(start);
        free(vt);
        return pbd_error(PBD_ENOMEM, "out of memory for the cloth adjacency");
    }
    memcpy(cursor, start, (size_t)n * sizeof *cursor);
    for (int t = 0; t < c->nt; t++)
        for (int k = 0; k < 3; k++) vt[cursor[c->t[3 * t + k]]++] = t;
    free(cursor);
    free(c->vt_start);
    free(c->vt);
    c->vt_start = start;
    c->vt = vt;
    c->vt_n = n;
    return PBD_OK;
}

pbd_status collision_reserve(pbd_world *w)
{
    struct pbd_collision_state *cs = collision_state(w);
    if (!cs) return PBD_ENOMEM;
    int n = w->n, st;
    if (cs->n_colliders > 0) {
        if ((st = ensure_set(w, &cs->contact_set, &pbd_plane_collision_type)) != PBD_OK) return st;
        int cap = n * cs->n_colliders;
        if (cap < 16) cap = 16;
        pbd_constraint_set *s = &w->sets[cs->contact_set];
        if (cap > s->capacity) {
            if ((st = pbd_set_reserve(s, cap)) != PBD_OK) return st;
            contact_info *ci = realloc(cs->contact, (size_t)cap * sizeof *ci);
            if (!ci) return pbd_error(PBD_ENOMEM, "out of memory for %d contacts", cap);
            cs->contact = ci;
        }
    }
    if (cs->self_enabled) {
        if ((st = ensure_set(w, &cs->self_set, &pbd_self_collision_type)) != PBD_OK) return st;
        int cap = SELF_CONTACTS_PER_PARTICLE * n + 16;
        if ((st = pbd_set_reserve(&w->sets[cs->self_set], cap)) != PBD_OK) return st;
    }
    int corners = 0;
    for (int b = 0; b < cs->n_bodies; b++) corners += cs->bodies[b].n_corners;
    if (corners > 0 && cs->cloth) {
        if ((st = ensure_set(w, &cs->corner_set, &pbd_point_triangle_type)) != PBD_OK) return st;
        int cap = CORNER_CONTACTS_PER_CORNER * corners;
        pbd_constraint_set *s = &w->sets[cs->corner_set];
        if (cap > s->capacity) {
            if ((st = pbd_set_reserve(s, cap)) != PBD_OK) return st;
            corner_info *ci = realloc(cs->corner, (size_t)cap * sizeof *ci);
            if (!ci) return pbd_error(PBD_ENOMEM, "out of memory for %d corner contacts", cap);
            cs->corner = ci;
        }
    }
    if (cs->cloth && (cs->self_enabled || corners > 0)) {
        if (cs->cloth->vt_n != n && (st = cloth_build_adjacency(cs->cloth, n)) != PBD_OK) return st;
        if (cs->n_particles != n || !cs->vhash) {
            pbd_spatial_hash_free(cs->vhash);
            cs->vhash = pbd_spatial_hash_create(n, cs->cloth->mean_edge);
            int32_t *vc = realloc(cs->vcand, (size_t)(n > 0 ? n : 1) * sizeof *vc);
            if (vc) cs->vcand = vc;
            if (!cs->vhash || !vc)
                return pbd_error(PBD_ENOMEM, "out of memory for the spatial hash of %d particles", n);
        }
    }
    if (cs->n_particles != n || !cs->is_proxy) {
        int32_t *ip = realloc(cs->is_proxy, (size_t)(n > 0 ? n : 1) * sizeof *ip);
        if (!ip) return pbd_error(PBD_ENOMEM, "out of memory for %d particles", n);
        for (int i = cs->n_particles; i < n; i++) ip[i] = 0;
        cs->is_proxy = ip;
        for (int b = 0; b < cs->n_bodies; b++)
            for (int k = 0; k < cs->bodies[b].n_corners; k++)
                ip[cs->bodies[b].first_proxy + k] = 1;
    }
    cs->n_particles = n;
    cs->stats.contact_set = cs->contact_set;
    cs->stats.self_set = cs->self_set;
    cs->stats.corner_set = cs->corner_set;
    return PBD_OK;
}

int collision_push(pbd_world *w, int set, const int32_t *idx, const double *rest)
{
    pbd_constraint_set *s = &w->sets[set];
    if (s->count >= s->capacity) {
        w->collision->stats.dropped++;
        return -1;
    }
    int c = s->count++;
    memcpy(s->idx + (size_t)c * s->arity, idx, (size_t)s->arity * sizeof *idx);
    int nr = s->type->n_rest;
    memcpy(s->rest + (size_t)c * nr, rest, (size_t)nr * sizeof *rest);
    s->stiffness[c] = 1.0; /* PBD Sec. 3.4: collision constraints have k = 1 */
    s->k_eff[c] = 1.0;
    s->compliance[c] = 0.0;
    s->lambda[c] = 0.0;
    return c;
}

/* ---- adding colliders ----------------------------------------------------------------- */

static int bad_material(const char *what, const pbd_material *m)
{
    if (!(isfinite(m->mu_static) && m->mu_static >= 0.0)) {
        pbd_error(PBD_EINVAL, "%s: mu_static must be finite and >= 0, found %g", what, m->mu_static);
        return 1;
    }
    if (!(isfinite(m->mu_kinetic) && m->mu_kinetic >= 0.0)) {
        pbd_error(PBD_EINVAL, "%s: mu_kinetic must be finite and >= 0, found %g", what,
                  m->mu_kinetic);
        return 1;
    }
    if (!(m->restitution >= 0.0 && m->restitution <= 1.0)) {
        pbd_error(PBD_EINVAL, "%s: restitution must be in [0, 1], found %g", what, m->restitution);
        return 1;
    }
    return 0;
}

static int finite3(const double *a) { return isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]); }

int collision_add_collider(pbd_world *w, const shape *sh, const pbd_material *m, int body,
                        const char *what)
{
    pbd_material mat = m ? *m : pbd_material_default();
    if (bad_material(what, &mat)) return -1;
    struct pbd_collision_state *cs = collision_state(w);
    if (!cs) return -1;
    if (cs->n_colliders == cs->cap_colliders) {
        int cap = cs->cap_colliders ? 2 * cs->cap_colliders : 4;
        collider *c = realloc(cs->colliders, (size_t)cap * sizeof *c);
        if (!c) {
            pbd_error(PBD_ENOMEM, "out of memory adding a %s", what);
            return -1;
        }
        cs->colliders = c;
        cs->cap_colliders = cap;
    }
    collider *c = &cs->colliders[cs->n_colliders++];
    c->shape = *sh;
    c->mat = mat;
    c->body = body;
    if (collision_reserve(w) != PBD_OK) {
        cs->n_colliders--;
        return -1;
    }
    return cs->n_colliders - 1;
}

int pbd_world_add_plane(pbd_world *w, const double point[3], const double normal[3],
                        const pbd_material *m)
{
    double len = v3_norm(normal);
    if (!finite3(point) || !(isfinite(len) && len > 0.0)) {
        pbd_error(PBD_EINVAL, "plane collider: expected a finite point and a non-zero normal, "
                  "found |n| = %g", len);
        return -1;
    }
    shape s = {.kind = SHAPE_PLANE};
    v3_copy(s.c, point);
    v3_scale(s.n, normal, 1.0 / len);
    return collision_add_collider(w, &s, m, -1, "plane collider");
}

int pbd_world_add_sphere(pbd_world *w, const double center[3], double radius,
                         const pbd_material *m)
{
    if (!finite3(center) || !(isfinite(radius) && radius > 0.0)) {
        pbd_error(PBD_EINVAL, "sphere collider: expected a finite centre and a radius > 0, "
                  "found %g", radius);
        return -1;
    }
    shape s = {.kind = SHAPE_SPHERE, .radius = radius};
    v3_copy(s.c, center);
    return collision_add_collider(w, &s, m, -1, "sphere collider");
}

int collision_box_shape(shape *s, const double center[3], const double half[3], const double q[4],
                        const char *what)
{
    double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!finite3(center) || !(isfinite(qn) && qn > 0.0)) {
        pbd_error(PBD_EINVAL, "%s: expected a finite centre and a non-zero quaternion, found "
                  "|q| = %g", what, qn);
        return -1;
    }
    for (int k = 0; k < 3; k++)
        if (!(isfinite(half[k]) && half[k] > 0.0)) {
            pbd_error(PBD_EINVAL, "%s: half extent %d must be finite and > 0, found %g", what, k,
                      half[k]);
            return -1;
        }
    memset(s, 0, sizeof *s);
    s->kind = SHAPE_BOX;
    v3_copy(s->c, center);
    v3_copy(s->half, half);
    double qu[4] = {q[0] / qn, q[1] / qn, q[2] / qn, q[3] / qn}, Rt[9];
    cv_quat_to_matrix(qu, Rt); /* columns: the box axes in world coordinates */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) s->R[3 * i + j] = Rt[3 * j + i];
    return 0;
}

int pbd_world_add_aabb(pbd_world *w, const double lo[3], const double hi[3],
                       const pbd_material *m)
{
    double c[3], half[3];
    const double q[4] = {1, 0, 0, 0};
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5 * (lo[k] + hi[k]);
        half[k] = 0.5 * (hi[k] - lo[k]);
    }
    shape s;
    if (collision_box_shape(&s, c, half, q, "box collider (lo, hi)") != 0) return -1;
    return collision_add_collider(w, &s, m, -1, "box collider");
}

int pbd_world_add_obb(pbd_world *w, const double center[3], const double half[3],
                      const double q[4], const pbd_material *m)
{
    shape s;
    if (collision_box_shape(&s, center, half, q, "oriented box collider") != 0) return -1;
    return collision_add_collider(w, &s, m, -1, "oriented box collider");
}

int pbd_world_add_mesh_collider(pbd_world *w, const double *verts, int nv, const int32_t *tris,
                                int nt, const pbd_material *m)
{
    mesh_shape *mesh = mesh_shape_create(verts, nv, tris, nt);
    if (!mesh) return -1;
    shape s = {.kind = SHAPE_MESH, .mesh = mesh};
    int c = collision_add_collider(w, &s, m, -1, "mesh collider");
    if (c < 0) mesh_shape_free(mesh);
    return c;
}

int pbd_collider_query(pbd_world *w, int c, const double x[3], const double p[3], double q[3],
                       double n[3])
{
    if (!w->collision || c < 0 || c >= w->collision->n_colliders) return -1;
    return shape_contact(&w->collision->colliders[c].shape, x, p, w->collision->margin, q, n);
}

double pbd_collider_distance(pbd_world *w, int c, const double y[3])
{
    if (!w->collision || c < 0 || c >= w->collision->n_colliders) return NAN;
    return shape_signed_distance(&w->collision->colliders[c].shape, y);
}

/* ---- cloth triangles, self collision -------------------------------------------------- */

pbd_status pbd_world_set_cloth_triangles(pbd_world *w, const int32_t *tris, int n_tris)
{
    if (n_tris < 1) return pbd_error(PBD_EINVAL, "cloth triangles: expected >= 1, found %d", n_tris);
    for (int i = 0; i < 3 * n_tris; i++)
        if (tris[i] < 0 || tris[i] >= w->n)
            return pbd_error(PBD_EINVAL, "cloth triangle %d: particle index must be in [0, %d), "
                             "found %d", i / 3, w->n, tris[i]);
    struct pbd_collision_state *cs = collision_state(w);
    if (!cs) return PBD_ENOMEM;
    cloth_tris *c = calloc(1, sizeof *c);
    if (!c) return pbd_error(PBD_ENOMEM, "out of memory for %d cloth triangles", n_tris);
    c->nt = n_tris;
    c->t = malloc(3 * (size_t)n_tris * sizeof *c->t);
    c->tri_stamp = calloc((size_t)n_tris, sizeof *c->tri_stamp);
    if (!c->t || !c->tri_stamp) {
        cloth_free(c);
        return pbd_error(PBD_ENOMEM, "out of memory for %d cloth triangles", n_tris);
    }
    memcpy(c->t, tris, 3 * (size_t)n_tris * sizeof *c->t);
    c->mean_edge = pbd_mean_edge_length(w->x, tris, n_tris);
    if (!(c->mean_edge > 0.0 && isfinite(c->mean_edge))) {
        cloth_free(c);
        return pbd_error(PBD_EINVAL, "cloth triangles: expected a mean edge length > 0, found %g",
                         pbd_mean_edge_length(w->x, tris, n_tris));
    }
    pbd_status st = cloth_build_adjacency(c, w->n);
    if (st != PBD_OK) {
        cloth_free(c);
        return st;
    }
    cloth_free(cs->cloth);
    cs->cloth = c;
    pbd_spatial_hash_free(cs->vhash); /* rebuilt with the new cell size */
    cs->vhash = NULL;
    return collision_reserve(w);
}

pbd_status pbd_world_enable_self_collision(pbd_world *w, const int32_t *tris, int n_tris,
                                           double thickness)
{
    if (!(isfinite(thickness) && thickness > 0.0))
        return pbd_error(PBD_EINVAL, "self collision: thickness must be finite and > 0, found %g",
                         thickness);
    pbd_status st = pbd_world_set_cloth_triangles(w, tris, n_tris);
    if (st != PBD_OK) return st;
    w->collision->self_enabled = 1;
    w->collision->thickness = thickness;
    return collision_reserve(w);
}

pbd_status pbd_world_set_contact_margin(pbd_world *w, double margin)
{
    if (!(isfinite(margin) && margin >= 0.0))
        return pbd_error(PBD_EINVAL, "contact margin: expected a finite number >= 0, found %g",
                         margin);
    struct pbd_collision_state *cs = collision_state(w);
    if (!cs) return PBD_ENOMEM;
    cs->margin = margin;
    return PBD_OK;
}

pbd_collision_stats pbd_world_collision_stats(const pbd_world *w)
{
    if (w->collision) return w->collision->stats;
    pbd_collision_stats s = {-1, -1, -1, 0, 0, 0, 0};
    return s;
}
