/* Private to experiments/scenes/: building worlds from meshes
 * (experiments/scenes/scene_build.c). */
#ifndef PBD_SCENE_PRIVATE_H
#define PBD_SCENE_PRIVATE_H

#include "pbd_scenes.h"
#include "solver/tearing/pbd_tearing.h"

/* Fails (PBD_EINVAL, one line) when --mesh or --tet was given to a scene that does not
 * take that kind of geometry. */
pbd_status scene_inputs(const pbd_scene_params *sp, const char *scene, int takes_mesh,
                        int takes_tet);

/* Particles along a chain or a grid's side: --resolution, or `fallback` for 0; PBD_EINVAL
 * (one line) and -1 for 1, which makes no chain or grid (it used to become the default). */
int scene_side(const pbd_scene_params *sp, const char *scene, int fallback);

/* A world with the mesh's vertices as particles; `mass` per particle (NULL: total/n each). */
pbd_world *scene_world(int n_vertices, const double *x, const double *mass, double total_mass);
/* One distance constraint per unique edge (rest length from x). Returns the set or -1. */
int scene_add_edges(pbd_world *w, int n_edges, const int32_t *edges, double k, double alpha);
/* The largest side of the world's bounding box (m); "on the same level" is within 1e-9 of it. */
double scene_extent(const pbd_world *w);
/* --pin (scene_pin.c): with sp->pin set, attach the vertices it selects (indices, a box, the
 * top row, or the open boundary of the surface tri, NULL for a tet mesh) and return 1; without
 * it return 0 (the caller attaches the scene's own); -1 with one line (PBD_EINVAL) when the
 * text is malformed, an index is out of range or it selects nothing. */
int scene_pin(pbd_world *w, const pbd_scene_params *sp, const char *scene, const int32_t *tri,
              int n_tri);
/* Attach the two ends of the top edge: of the vertices at the largest y, the ones with
 * the smallest and the largest x (the grid's corners 0 and r-1). */
void scene_attach_top_corners(pbd_world *w);
/* Of the vertices at the largest y, attach the extremes along ±x±z (the open bag's four
 * rim corners); each vertex once. */
void scene_attach_top_extremes(pbd_world *w);
/* Attach every particle whose coordinate `axis` is within 1e-9 of its minimum (max_side=0)
 * or maximum (max_side=1) over the world. Returns how many. */
int scene_attach_side(pbd_world *w, int axis, int max_side);

/* While pbd_scene_build asks for them, keep a copy of the cells the scene is built on
 * (no-ops otherwise). */
void scene_keep_triangles(const int32_t *tri, int n);
void scene_keep_tets(const int32_t *tet, int n);

/* --material, --stretch and --long-range-attachments on a scene that cannot take them:
 * PBD_EINVAL with one line (scene_materials.c). */
pbd_status scene_material_inputs(const pbd_scene_params *sp, const char *scene,
                                 int takes_material, int takes_stretch);
/* One set of the material type `type`: type->n_components constraints per element (n_elem
 * rows of type->arity particle indices, rest shape = the world's positions) for
 * sp->youngs_modulus and sp->poisson_ratio, with the compliances the type gives and PBD
 * stiffness sp->stiffness. Returns the set or -1 (pbd_last_error: one line naming `scene`). */
int scene_add_material(pbd_world *w, const pbd_constraint_type *type, int n_elem,
                       const int32_t *elem, const pbd_scene_params *sp, const char *scene);
/* Long-range attachments (Kim et al. 2012): from each attached particle to every free vertex
 * of the surface m (the particles are its vertices), hard, with the geodesic rest distance.
 * Call after attaching. Returns the set or -1. */
int scene_add_long_range_attachments(pbd_world *w, const pbd_trimesh *m);

#endif
