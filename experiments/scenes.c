/* Built-in scenes: a hanging chain and a cloth grid pinned at two corners; the cloth
 * takes a user's OBJ surface (--mesh) in place of its generated grid. */
#include "scene_private.h"

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
    if (scene_inputs(sp, "chain", 0, 0) != PBD_OK) return NULL;
    int n = sp->resolution > 1 ? sp->resolution : 20;
    pbd_world *w = pbd_world_create(n);
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
    if (st != PBD_OK) return st;
    if (sp->mesh_path) return pbd_trimesh_load_obj(sp->mesh_path, PBD_MESH_CLOTH, m);
    int r = sp->resolution > 1 ? sp->resolution : 16;
    return pbd_mesh_grid(r, r, sp->size, sp->size, sp->diagonal, m);
}

/* Particles of equal mass on the vertices, a distance constraint on every edge (sorted
 * edges: for the grid, per vertex v the edges to v+1, v+r, then the diagonal). */
static pbd_world *cloth_world(const pbd_scene_params *sp, const pbd_trimesh *m)
{
    int32_t *edges;
    int ne = pbd_trimesh_edges(m, &edges, NULL);
    if (ne < 0) return NULL;
    pbd_world *w = scene_world(m->n_vertices, m->x, NULL, sp->total_mass);
    if (w && scene_add_edges(w, ne, edges, sp->stiffness, sp->compliance) < 0) {
        pbd_world_free(w);
        w = NULL;
    }
    free(edges);
    return w;
}

pbd_world *pbd_scene_cloth(const pbd_scene_params *sp)
{
    pbd_trimesh m;
    if (cloth_surface(sp, "cloth", &m) != PBD_OK) return NULL;
    pbd_world *w = cloth_world(sp, &m);
    pbd_trimesh_free(&m);
    if (w) scene_attach_top_corners(w);
    return w;
}

static const pbd_scene_entry scenes[] = {
    {"chain", "hanging chain, top particle attached", pbd_scene_chain, 20},
    {"cloth", "cloth grid hanging from its two top corners", pbd_scene_cloth, 16},
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
