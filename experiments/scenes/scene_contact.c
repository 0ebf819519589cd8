/* Contact scenes (solver/collision/): a cloth draped over a sphere, a cloth sliding on the
 * ground or a ramp, a towel folding over a rail onto itself, a rigid body dropped onto a
 * cloth. Every collider and body gets the material {--mu-static, --mu-kinetic,
 * --restitution} (PBD Sec. 3.4 for the contacts; friction and restitution as
 * solver/collision/collision_hooks.c applies them), the contact margin --contact-margin, and
 * the cloth's triangles, whose self crossings the step measures (pbd_contact_stats).
 * --collider=FILE.obj adds a static mesh collider. Colliders are added after the cloth's
 * constraints, so that contacts are projected last in each sweep. */
#include "scene_private.h"
#include "solver/collision/pbd_collision.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const pbd_body_names[] = {"box", "sphere", NULL};

/* The material of every collider and body; μk <= μs (the CLI checked the ranges). */
static pbd_status contact_material(const pbd_scene_params *sp, const char *scene,
                                   pbd_material *m)
{
    if (!(sp->mu_kinetic <= sp->mu_static))
        return pbd_error(PBD_EINVAL, "%s: --mu-kinetic: expected a value <= --mu-static (%g): "
                         "kinetic friction cannot exceed static friction, found %g", scene,
                         sp->mu_static, sp->mu_kinetic);
    m->mu_static = sp->mu_static;
    m->mu_kinetic = sp->mu_kinetic;
    m->restitution = sp->restitution;
    return PBD_OK;
}

/* Half-edges of a mesh sorted by their undirected edge: two triangles running an edge the
 * same way are oriented against each other. */
typedef struct half_edge {
    int32_t lo, hi, t, fwd;
} half_edge;

static int cmp_half(const void *a, const void *b)
{
    const half_edge *x = a, *y = b;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* The OBJ as a collider: finite vertices, at least one face, no zero-area face (the loader),
 * no edge in more than two faces, faces consistently oriented, and a closed mesh not
 * inverted (positive enclosed volume: counter-clockwise seen from outside). */
static pbd_status load_collider(const char *path, pbd_trimesh *m)
{
    pbd_status st = pbd_trimesh_load_obj(path, PBD_MESH_NO_DEGENERATE | PBD_MESH_MANIFOLD, m);
    if (st != PBD_OK) return st;
    int n = 3 * m->n_triangles;
    half_edge *h = malloc((size_t)n * sizeof *h);
    if (!h) {
        pbd_trimesh_free(m);
        return pbd_error(PBD_ENOMEM, "%s: out of memory", path);
    }
    for (int t = 0; t < m->n_triangles; t++)
        for (int k = 0; k < 3; k++) {
            int32_t a = m->tri[3 * t + k], b = m->tri[3 * t + (k + 1) % 3];
            h[3 * t + k] = (half_edge){a < b ? a : b, a < b ? b : a, t, a < b};
        }
    qsort(h, (size_t)n, sizeof *h, cmp_half);
    int bad = -1, ea = 0, eb = 0;
    for (int k = 0; k + 1 < n; k++)
        if (h[k].lo == h[k + 1].lo && h[k].hi == h[k + 1].hi && h[k].fwd == h[k + 1].fwd &&
            (bad < 0 || h[k + 1].t < bad)) {
            bad = h[k + 1].t;
            ea = h[k].lo + 1;
            eb = h[k].hi + 1;
        }
    free(h);
    if (bad >= 0) {
        st = pbd_error(PBD_EINPUT, "%s:%d: expected faces oriented like their neighbours "
                       "(counter-clockwise seen from outside), found an inverted face: edge "
                       "%d-%d run the same way by 2 faces", path, m->tri_line[bad], ea, eb);
        pbd_trimesh_free(m);
        return st;
    }
    pbd_trimesh_report r;
    if ((st = pbd_trimesh_inspect(m, &r)) != PBD_OK) {
        pbd_trimesh_free(m);
        return st;
    }
    if (r.closed && !(r.volume > 0.0)) {
        st = pbd_error(PBD_EINPUT, "%s:%d: expected a closed mesh counter-clockwise seen from "
                       "outside (positive enclosed volume), found inverted faces (volume %g m^3)",
                       path, m->tri_line[0], r.volume);
        pbd_trimesh_free(m);
    }
    return st;
}

/* --collider: the mesh as a static collider (-1 on failure, pbd_last_error set). */
static int add_mesh_collider(pbd_world *w, const char *path, const pbd_material *mat)
{
    pbd_trimesh m;
    if (load_collider(path, &m) != PBD_OK) return -1;
    int c = pbd_world_add_mesh_collider(w, m.x, m.n_vertices, m.tri, m.n_triangles, mat);
    pbd_trimesh_free(&m);
    return c;
}

/* The r × r grid of side `size` laid horizontal (x–z plane) and centred on the y axis at
 * height y, as particles of equal mass with a distance constraint on every edge (rest
 * lengths of the flat sheet); *m keeps the mesh. NULL on failure. */
static pbd_world *flat_cloth(const pbd_scene_params *sp, const char *scene, int fallback,
                             double y, pbd_trimesh *m)
{
    if (scene_inputs(sp, scene, 0, 0) != PBD_OK ||
        scene_material_inputs(sp, scene, 0, 0) != PBD_OK)
        return NULL;
    int r = scene_side(sp, scene, fallback);
    if (r < 0 || pbd_mesh_grid(r, r, sp->size, sp->size, sp->diagonal, m) != PBD_OK) return NULL;
    for (int i = 0; i < m->n_vertices; i++) {
        double *x = m->x + 3 * i, gx = x[0], gy = x[1];
        x[0] = gx - 0.5 * sp->size;
        x[1] = y;
        x[2] = -gy - 0.5 * sp->size;
    }
    int32_t *edges = NULL;
    int ne = pbd_trimesh_edges(m, &edges, NULL);
    pbd_world *w = ne < 0 ? NULL : scene_world(m->n_vertices, m->x, NULL, sp->total_mass);
    if (w) scene_keep_triangles(m->tri, m->n_triangles);
    if (w && scene_add_edges(w, ne, edges, sp->stiffness, sp->compliance) < 0) {
        pbd_world_free(w);
        w = NULL;
    }
    free(edges);
    if (!w) pbd_trimesh_free(m);
    return w;
}

/* What every contact scene ends with: the ground (the plane y = 0, or the ramp's through the
 * origin with normal n), --collider, the margin, the cloth's triangles (with self collision
 * of thickness h > 0, or only for the crossing measure when h = 0), the crossing measure.
 * Frees w and m and returns NULL on failure. */
static pbd_world *finish(pbd_world *w, const pbd_scene_params *sp, const pbd_material *mat,
                         const double ground_n[3], pbd_trimesh *m, double h)
{
    static const double origin[3] = {0.0, 0.0, 0.0};
    int ok = w && (!ground_n || pbd_world_add_plane(w, origin, ground_n, mat) >= 0) &&
             (!sp->collider_path || add_mesh_collider(w, sp->collider_path, mat) >= 0) &&
             pbd_world_set_contact_margin(w, sp->contact_margin) == PBD_OK;
    if (ok)
        ok = (h > 0.0 ? pbd_world_enable_self_collision(w, m->tri, m->n_triangles, h)
                      : pbd_world_set_cloth_triangles(w, m->tri, m->n_triangles)) == PBD_OK &&
             pbd_world_measure_self_crossings(w, 1) == PBD_OK;
    pbd_trimesh_free(m);
    if (!ok) {
        pbd_world_free(w);
        return NULL;
    }
    return w;
}

static const double up[3] = {0.0, 1.0, 0.0};

/* The drape: the cloth falls from 5 % of its side above a fixed sphere of radius R that
 * rests on the ground at the origin (or onto --collider, which replaces the sphere). */
pbd_world *pbd_scene_cloth_sphere(const pbd_scene_params *sp)
{
    pbd_material mat;
    if (contact_material(sp, "cloth_sphere", &mat) != PBD_OK) return NULL;
    const double R = sp->sphere_radius;
    pbd_trimesh m;
    pbd_world *w = flat_cloth(sp, "cloth_sphere", 16, 2.0 * R + 0.05 * sp->size, &m);
    const double c[3] = {0.0, R, 0.0};
    if (w && !sp->collider_path && pbd_world_add_sphere(w, c, R, &mat) < 0) {
        pbd_world_free(w);
        pbd_trimesh_free(&m);
        return NULL;
    }
    return w ? finish(w, sp, &mat, up, &m, 0.0) : NULL;
}

/* The ground descends along +x at θ = ramp_angle: tangent t = (cos θ, -sin θ, 0), normal
 * n = (sin θ, cos θ, 0). The cloth lies drop_height above it (its plane parallel to the
 * ground) and moves at launch_speed along t. On flat ground a block launched at v0 slides
 * v0²/(2 μk g) (Coulomb, PBD Sec. 3.4's velocity update); on the ramp it sticks while
 * tan θ < μs. */
pbd_world *pbd_scene_cloth_ground_slide(const pbd_scene_params *sp)
{
    pbd_material mat;
    if (contact_material(sp, "cloth_ground_slide", &mat) != PBD_OK) return NULL;
    pbd_trimesh m;
    pbd_world *w = flat_cloth(sp, "cloth_ground_slide", 8, 0.0, &m);
    if (!w) return NULL;
    const double th = sp->ramp_angle * M_PI / 180.0;
    const double t[3] = {cos(th), -sin(th), 0.0}, n[3] = {sin(th), cos(th), 0.0};
    for (int i = 0; i < w->n; i++) {
        double x[3], v[3], u = w->x[3 * i], z = w->x[3 * i + 2];
        for (int k = 0; k < 3; k++) {
            x[k] = u * t[k] + sp->drop_height * n[k];
            v[k] = sp->launch_speed * t[k];
        }
        x[2] = z;
        pbd_world_set_particle_w(w, i, x, v, w->w[i]);
    }
    return finish(w, sp, &mat, n, &m, 0.0);
}

/* A towel over a rail: the cloth lies horizontal at half its side's height, its middle
 * column of vertices (x = 0 or just left of it) held; both halves fold down under gravity
 * and meet hanging face to face, their lower edges on the ground. Self collision (PBD
 * Sec. 4.3, thickness h) keeps them apart; without it they swing through each other. */
pbd_world *pbd_scene_cloth_fold(const pbd_scene_params *sp)
{
    pbd_material mat;
    if (contact_material(sp, "cloth_fold", &mat) != PBD_OK) return NULL;
    pbd_trimesh m;
    pbd_world *w = flat_cloth(sp, "cloth_fold", 16, 0.5 * sp->size, &m);
    if (!w) return NULL;
    int r = (int)lround(sqrt((double)w->n)), rail = (r - 1) / 2;
    for (int j = 0; j < r; j++) pbd_world_attach(w, j * r + rail);
    double h = 0.0;
    if (sp->self_collision)
        h = sp->thickness > 0.0 ? sp->thickness
                                : 0.25 * pbd_mean_edge_length(w->x, m.tri, m.n_triangles);
    return finish(w, sp, &mat, up, &m, h);
}

/* Two-way coupling (PBD Sec. 4.2): the cloth at half its side's height, its corners held
 * 15 % closer together than its rest shape (a sagging hammock; pin_corners = 0: free), and
 * the body above its centre, its lowest point a fifth of the side higher, falling at
 * body_speed. The ground is under both (bodies do not collide with it). */
pbd_world *pbd_scene_rigid_coupling(const pbd_scene_params *sp)
{
    pbd_material mat;
    if (contact_material(sp, "rigid_coupling", &mat) != PBD_OK) return NULL;
    pbd_trimesh m;
    const double H = 0.5 * sp->size;
    pbd_world *w = flat_cloth(sp, "rigid_coupling", 12, H, &m);
    if (!w) return NULL;
    int r = (int)lround(sqrt((double)w->n));
    if (sp->pin_corners) {
        for (int i = 0; i < w->n; i++) {
            w->x[3 * i] *= 0.85;
            w->x[3 * i + 2] *= 0.85;
            for (int k = 0; k < 3; k++) w->p[3 * i + k] = w->x[3 * i + k];
        }
        const int corner[4] = {0, r - 1, r * (r - 1), r * r - 1};
        for (int k = 0; k < 4; k++) pbd_world_attach(w, corner[k]);
    }
    pbd_status st = pbd_world_set_cloth_triangles(w, m.tri, m.n_triangles);
    const double b = sp->body_size;
    pbd_rigid_state s = {.x = {0.0, H + 0.2 * sp->size + b, 0.0}, .q = {1.0, 0.0, 0.0, 0.0},
                         .v = {0.0, -sp->body_speed, 0.0}};
    const double half[3] = {b, b, b};
    int body = st != PBD_OK ? -1
               : sp->body == 1 ? pbd_world_add_rigid_sphere(w, b, sp->body_mass, &s, &mat)
                               : pbd_world_add_rigid_box(w, half, sp->body_mass, &s, &mat);
    if (body < 0) {
        if (st == PBD_OK && pbd_last_status() == PBD_EINVAL) /* the body's own values */
            pbd_error(PBD_EINVAL, "rigid_coupling: --body-size, --body-mass: %s", pbd_last_error());
        pbd_world_free(w);
        pbd_trimesh_free(&m);
        return NULL;
    }
    return finish(w, sp, &mat, up, &m, 0.0);
}
