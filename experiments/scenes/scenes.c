/* Built-in scenes: a hanging chain; a cloth grid pinned at two corners, with and without
 * bending; a cantilevered tetrahedral beam; a balloon; a cloth bag (PBD Fig. 3). Scenes
 * on a surface take a user's OBJ (--mesh), the beam a TetGen mesh (--tet), in place of
 * the generated geometry. */
#include "scene_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

pbd_scene_params pbd_scene_params_default(void)
{
    pbd_scene_params sp = {
        .resolution = 0, /* 0: the scene's default */
        .size = 1.0,
        .total_mass = 1.0,
        .stiffness = 1.0,
        .compliance = 0.0,
        .seed = 1,
        .diagonal = PBD_DIAGONAL_SAME,
        .k_bend = 0.5,
        .bend_compliance = 0.0,
        .k_pressure = 1.0,
        .tets_per_cube = 6,
        .mesh_path = NULL,
        .tet_path = NULL,
        .tear_threshold = 0.5,
        .material = 0,
        .youngs_modulus = 1e5,
        .poisson_ratio = 0.3,
        .stretch = 0,
        .long_range_attachments = 0,
        .fluid = pbd_fluid_def_default(),
        .rod_radius = 0.05,
        .mu_static = 0.5,
        .mu_kinetic = 0.4,
        .restitution = 0.0,
        .contact_margin = 0.03,
        .sphere_radius = 0.25,
        .self_collision = 1,
        .thickness = 0.0,
        .collider_path = NULL,
        .launch_speed = 2.0,
        .drop_height = 0.0,
        .ramp_angle = 0.0,
        .body = 0,
        .body_mass = 1.0,
        .body_size = 0.1,
        .body_speed = 0.0,
        .pin_corners = 1,
        .velocity_passes = 1,
        .pin = NULL,
    };
    return sp;
}

static int add_distance(pbd_world *w, int set, int a, int b, const pbd_scene_params *sp)
{
    int32_t idx[2] = {a, b};
    return pbd_set_add(w, set, idx, NULL, sp->stiffness, sp->compliance);
}

pbd_world *pbd_scene_chain(const pbd_scene_params *sp)
{
    if (scene_inputs(sp, "chain", 0, 0) != PBD_OK ||
        scene_material_inputs(sp, "chain", 0, 0) != PBD_OK)
        return NULL;
    int n = scene_side(sp, "chain", 20);
    pbd_world *w = n < 0 ? NULL : pbd_world_create(n);
    if (!w) return NULL;
    double seg = sp->size / (n - 1), m = sp->total_mass / n;
    for (int i = 0; i < n; i++) {
        double x[3] = {0.0, -seg * i, 0.0};
        pbd_world_set_particle(w, i, x, NULL, m);
    }
    int set = pbd_world_add_set(w, &pbd_distance_type, 0);
    for (int i = 0; i + 1 < n; i++)
        if (add_distance(w, set, i, i + 1, sp) < 0) goto fail;
    pbd_world_attach(w, 0);
    return w;
fail:
    pbd_world_free(w);
    return NULL;
}

/* The cloth's surface: the user's OBJ (a cloth: manifold, no zero-area triangle) or the
 * r × r grid with the chosen diagonal pattern. */
static pbd_status cloth_surface(const pbd_scene_params *sp, const char *scene, pbd_trimesh *m)
{
    pbd_status st = scene_inputs(sp, scene, 1, 0);
    if (st == PBD_OK) st = scene_material_inputs(sp, scene, 0, 1);
    if (st != PBD_OK) return st;
    if (sp->mesh_path) return pbd_trimesh_load_obj(sp->mesh_path, PBD_MESH_CLOTH, m);
    int r = scene_side(sp, scene, 16);
    return r < 0 ? PBD_EINVAL : pbd_mesh_grid(r, r, sp->size, sp->size, sp->diagonal, m);
}

/* Particles of equal mass on the vertices and the stretch constraints: --stretch=distance, a
 * distance constraint on every edge (sorted edges: for the grid, per vertex v the edges to
 * v+1, v+r, then the diagonal); fem or strain, the membrane type's constraints per triangle
 * (scene_materials.c). */
static pbd_world *cloth_world(const pbd_scene_params *sp, const pbd_trimesh *m)
{
    int32_t *edges = NULL;
    const pbd_constraint_type *membrane = pbd_scene_stretch_type(sp->stretch);
    int ne = membrane ? 0 : pbd_trimesh_edges(m, &edges, NULL);
    if (ne < 0) return NULL;
    pbd_world *w = scene_world(m->n_vertices, m->x, NULL, sp->total_mass);
    if (w) scene_keep_triangles(m->tri, m->n_triangles);
    int set = !w ? -1
              : membrane ? scene_add_material(w, membrane, m->n_triangles, m->tri, sp, "cloth")
                         : scene_add_edges(w, ne, edges, sp->stiffness, sp->compliance);
    if (w && set < 0) {
        pbd_world_free(w);
        w = NULL;
    }
    free(edges);
    return w;
}

/* --long-range-attachments after the scene's attachments; frees w on failure. */
static pbd_world *cloth_lra(pbd_world *w, const pbd_scene_params *sp, const pbd_trimesh *m)
{
    if (w && sp->long_range_attachments && scene_add_long_range_attachments(w, m) < 0) {
        pbd_world_free(w);
        return NULL;
    }
    return w;
}

/* The scene's own attachments (own), or --pin's in their place (scene_pin.c: tri NULL for
 * a tet mesh); frees w and returns NULL when --pin is refused. */
static pbd_world *attach(pbd_world *w, const pbd_scene_params *sp, const char *scene,
                         const int32_t *tri, int n_tri, void (*own)(pbd_world *))
{
    if (!w) return NULL;
    int pinned = scene_pin(w, sp, scene, tri, n_tri);
    if (pinned < 0) {
        pbd_world_free(w);
        return NULL;
    }
    if (!pinned) own(w);
    return w;
}

pbd_world *pbd_scene_cloth(const pbd_scene_params *sp)
{
    pbd_trimesh m;
    if (cloth_surface(sp, "cloth", &m) != PBD_OK) return NULL;
    pbd_world *w = attach(cloth_world(sp, &m), sp, "cloth", m.tri, m.n_triangles,
                          scene_attach_top_corners);
    w = cloth_lra(w, sp, &m);
    pbd_trimesh_free(&m);
    return w;
}

/* Bending (PBD Sec. 4.1): a dihedral constraint on every interior edge, stiffness k_bend
 * (none when k_bend = 0). Returns 0, or -1 on failure. */
static int add_bending(pbd_world *w, const pbd_scene_params *sp, const pbd_trimesh *m)
{
    if (!(sp->k_bend > 0.0)) return 0;
    int32_t *h;
    int nh = pbd_trimesh_hinges(m, &h);
    if (nh < 0) return -1;
    int set = pbd_world_add_set(w, &pbd_bend_dihedral_type, 0), rc = set < 0 ? -1 : 0;
    for (int i = 0; rc == 0 && i < nh; i++)
        if (pbd_set_add(w, set, h + 4 * i, NULL, sp->k_bend, sp->bend_compliance) < 0) rc = -1;
    free(h);
    return rc;
}

/* The grid lies horizontal (x–z plane) so that it folds down under gravity and bends;
 * hung in its own plane, like `cloth`, it would never leave it. */
pbd_world *pbd_scene_cloth_bend(const pbd_scene_params *sp)
{
    pbd_trimesh m;
    if (cloth_surface(sp, "cloth_bend", &m) != PBD_OK) return NULL;
    if (!sp->mesh_path)
        for (int i = 0; i < m.n_vertices; i++) {
            m.x[3 * i + 2] = m.x[3 * i + 1];
            m.x[3 * i + 1] = 0.0;
        }
    pbd_world *w = cloth_world(sp, &m);
    if (w && add_bending(w, sp, &m) < 0) {
        pbd_world_free(w);
        w = NULL;
    }
    w = attach(w, sp, "cloth_bend", m.tri, m.n_triangles, scene_attach_top_corners);
    w = cloth_lra(w, sp, &m);
    pbd_trimesh_free(&m);
    return w;
}

/* The beam: its end at the smallest x. */
static void attach_min_x(pbd_world *w) { scene_attach_side(w, 0, 0); }

/* The beam: resolution cubes along x (length size), a square section of side size/4 with
 * resolution/4 cubes (at least 1). Particles carry the mass of a quarter of each tet they
 * belong to (lumped by volume); distance constraints on every tet edge and a volume
 * constraint per tet, or with --material that material's constraints per tet; the end
 * x = min is attached (a cantilever). */
pbd_world *pbd_scene_tet_beam(const pbd_scene_params *sp)
{
    if (scene_inputs(sp, "tet_beam", 0, 1) != PBD_OK ||
        scene_material_inputs(sp, "tet_beam", 1, 0) != PBD_OK)
        return NULL;
    pbd_tetmesh m;
    pbd_status st;
    if (sp->tet_path) {
        st = pbd_tetmesh_load_tetgen(sp->tet_path, &m);
    } else {
        int nx = sp->resolution > 0 ? sp->resolution : 8, ns = nx / 4 > 0 ? nx / 4 : 1;
        st = pbd_mesh_tet_beam(nx, ns, ns, sp->size, sp->size / 4, sp->size / 4,
                               sp->tets_per_cube, &m);
    }
    if (st != PBD_OK) return NULL;
    pbd_world *w = NULL;
    int32_t *edges = NULL;
    double *mass = calloc((size_t)m.n_vertices, sizeof *mass), total = 0.0;
    int ne = pbd_tetmesh_edges(&m, &edges);
    if (!mass || ne < 0) goto done;
    for (int t = 0; t < m.n_tets; t++) {
        const int32_t *v = m.tet + 4 * t;
        double V = pbd_tet_volume(m.x + 3 * v[0], m.x + 3 * v[1], m.x + 3 * v[2], m.x + 3 * v[3]);
        total += V;
        for (int k = 0; k < 4; k++) mass[v[k]] += V / 4;
    }
    for (int i = 0; i < m.n_vertices; i++) mass[i] *= sp->total_mass / total;
    w = scene_world(m.n_vertices, m.x, mass, sp->total_mass);
    if (!w) goto done;
    scene_keep_tets(m.tet, m.n_tets);
    const pbd_constraint_type *material = pbd_scene_material_type(sp->material);
    int vol = -1;
    if (material) { /* --material: its constraints per tet, compliances from E and ν */
        vol = scene_add_material(w, material, m.n_tets, m.tet, sp, "tet_beam");
    } else {
        int set = scene_add_edges(w, ne, edges, sp->stiffness, sp->compliance);
        vol = set < 0 ? -1 : pbd_world_add_set(w, &pbd_tet_volume_type, 0);
        for (int t = 0; vol >= 0 && t < m.n_tets; t++)
            if (pbd_set_add(w, vol, m.tet + 4 * t, NULL, sp->stiffness, sp->compliance) < 0)
                vol = -1;
    }
    if (vol < 0) {
        pbd_world_free(w);
        w = NULL;
        goto done;
    }
    w = attach(w, sp, "tet_beam", NULL, 0, attach_min_x);
done:
    if (!mass) pbd_error(PBD_ENOMEM, "tet_beam: out of memory");
    free(mass);
    free(edges);
    pbd_tetmesh_free(&m);
    return w;
}

/* The balloon's top vertex (the first at the largest y). */
static void attach_top_vertex(pbd_world *w)
{
    int top = 0;
    for (int i = 1; i < w->n; i++)
        if (w->x[3 * i + 1] > w->x[3 * top + 1]) top = i;
    pbd_world_attach(w, top);
}

/* A closed surface (the icosphere of level `resolution`, diameter size, or --mesh) with
 * distance constraints on its edges, bending on its hinges (k_bend) and the overpressure
 * constraint over all vertices (PBD Sec. 4.4, Eq. 14): target volume k_pressure V0. The
 * overpressure constraint is hard (k = 1, α = 0): k_pressure sets the pressure, the skin's
 * stiffness/compliance how far it stretches. It hangs from its top vertex. */
pbd_world *pbd_scene_balloon(const pbd_scene_params *sp)
{
    pbd_trimesh m;
    pbd_status st = scene_inputs(sp, "balloon", 1, 0);
    if (st == PBD_OK) st = scene_material_inputs(sp, "balloon", 0, 1);
    if (st == PBD_OK && sp->mesh_path) {
        st = pbd_trimesh_load_obj(sp->mesh_path, PBD_MESH_CLOSED_SURFACE, &m);
        if (st == PBD_OK) pbd_trimesh_orient_outward(&m);
    } else if (st == PBD_OK) {
        int level = sp->resolution > 0 ? sp->resolution : 2;
        if (level > 6) {
            pbd_error(PBD_EINVAL, "balloon: --resolution: expected a subdivision level in [1, 6] "
                      "(0: 2), found %d", level);
            return NULL;
        }
        st = pbd_mesh_icosphere(level, sp->size / 2, &m);
    }
    if (st != PBD_OK) return NULL;
    pbd_world *w = cloth_world(sp, &m);
    int32_t *all = malloc((size_t)m.n_vertices * sizeof *all);
    int ok = w && all && add_bending(w, sp, &m) == 0;
    if (ok) {
        for (int i = 0; i < m.n_vertices; i++) all[i] = i;
        int set = pbd_world_add_set(w, &pbd_balloon_volume_type, m.n_vertices);
        ok = set >= 0 && pbd_set_aux(w, set, m.tri, 3 * m.n_triangles) == PBD_OK &&
             pbd_set_add(w, set, all, NULL, 1.0, 0.0) == 0; /* hard: k_pressure sets it */
        if (ok) w->sets[set].rest[1] = sp->k_pressure; /* rest {V0, k_pressure} */
        /* a surface that encloses nothing (a triangle and its reverse) has no volume to keep */
        double V0 = ok ? w->sets[set].rest[0] : 0.0;
        if (ok && !(fabs(V0) > 0.0)) {
            pbd_error(PBD_EINPUT, "%s: balloon: expected a closed surface enclosing a volume > 0, "
                      "found %g m^3", sp->mesh_path ? sp->mesh_path : "icosphere", V0);
            ok = 0;
        } else if (!ok && !all) {
            pbd_error(PBD_ENOMEM, "balloon: out of memory");
        }
    }
    if (!ok) {
        if (!all) pbd_error(PBD_ENOMEM, "balloon: out of memory");
        pbd_world_free(w);
        w = NULL;
    }
    free(all);
    w = attach(w, sp, "balloon", m.tri, m.n_triangles, attach_top_vertex);
    w = cloth_lra(w, sp, &m);
    pbd_trimesh_free(&m);
    return w;
}

/* The cloth bag of PBD Fig. 3: an open-top box of cloth (resolution quads per face side,
 * side size), or --mesh; stretch constraints on the edges and bending (k_bend) on the
 * hinges, hung from the four corners of its rim. */
pbd_world *pbd_scene_cloth_bag(const pbd_scene_params *sp)
{
    pbd_trimesh m;
    pbd_status st = scene_inputs(sp, "cloth_bag", 1, 0);
    if (st == PBD_OK) st = scene_material_inputs(sp, "cloth_bag", 0, 1);
    if (st == PBD_OK && sp->mesh_path)
        st = pbd_trimesh_load_obj(sp->mesh_path, PBD_MESH_CLOTH, &m);
    else if (st == PBD_OK)
        st = pbd_mesh_cloth_bag(sp->resolution > 0 ? sp->resolution : 8, sp->size, 0,
                                sp->diagonal, &m);
    if (st != PBD_OK) return NULL;
    pbd_world *w = cloth_world(sp, &m);
    if (w && add_bending(w, sp, &m) < 0) {
        pbd_world_free(w);
        w = NULL;
    }
    w = attach(w, sp, "cloth_bag", m.tri, m.n_triangles, scene_attach_top_extremes);
    w = cloth_lra(w, sp, &m);
    pbd_trimesh_free(&m);
    return w;
}

static const pbd_scene_entry scenes[] = {
    {"chain", "hanging chain, top particle attached", pbd_scene_chain, 20},
    {"cloth", "cloth grid hanging from its two top corners", pbd_scene_cloth, 16},
    {"cloth_bend", "horizontal cloth with dihedral bending (k_bend) falling from 2 corners",
     pbd_scene_cloth_bend, 16},
    {"tet_beam", "tetrahedral cantilever beam: edge distances + tet volumes", pbd_scene_tet_beam,
     8},
    {"balloon", "icosphere with edges, bending and overpressure k_pressure", pbd_scene_balloon, 2},
    {"cloth_bag", "open cloth bag hung from its rim's corners (PBD Fig. 3)", pbd_scene_cloth_bag,
     8},
    {"tear", "hanging cloth whose top row is pulled apart in two halves until it tears "
     "(PBD Sec. 5)", pbd_scene_tear, 16},
    {"dam_break", "block of fluid released in the corner of a box (Position Based Fluids)",
     pbd_scene_dam_break, 22},
    {"fluid_rest", "column of fluid at rest in a box: hydrostatic pressure, density error",
     pbd_scene_fluid_rest, 22},
    {"rod", "Cosserat rod cantilever along +x, first segment clamped (Kugelstadt & Schoemer "
     "2016)", pbd_scene_rod, 20},
    {"helix", "Cosserat rod with a helical, twisted rest shape hanging from its clamped top",
     pbd_scene_helix, 40},
    {"cloth_sphere", "horizontal cloth falling onto a fixed sphere on the ground (the drape; "
     "PBD Sec. 3.4)", pbd_scene_cloth_sphere, 16},
    {"cloth_ground_slide", "cloth launched along the ground (or a ramp) with Coulomb friction "
     "and restitution", pbd_scene_cloth_ground_slide, 8},
    {"cloth_fold", "towel over a rail: a cloth held along its middle row folds onto itself "
     "(self collision, PBD Sec. 4.3)", pbd_scene_cloth_fold, 16},
    {"rigid_coupling", "rigid box or sphere dropped onto a cloth hammock or free cloth (two-way "
     "coupling, PBD Sec. 4.2)", pbd_scene_rigid_coupling, 12},
};

int pbd_scene_count(void) { return (int)(sizeof scenes / sizeof scenes[0]); }

const pbd_scene_entry *pbd_scene_at(int i)
{
    return (i >= 0 && i < pbd_scene_count()) ? &scenes[i] : NULL;
}

const pbd_scene_entry *pbd_scene_find(const char *name)
{
    for (int i = 0; i < pbd_scene_count(); i++)
        if (strcmp(scenes[i].name, name) == 0) return &scenes[i];
    return NULL;
}
