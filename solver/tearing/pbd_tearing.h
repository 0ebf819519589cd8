/* pbdlab — tearing (PBD Sec. 5): a post-step hook that splits over-stretched cloth vertices
 * (solver/tearing/). */
#ifndef PBD_TEARING_H
#define PBD_TEARING_H

#include "solver/pbd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tearing of a cloth built from a triangle mesh whose vertex i is world particle i. After a
 * step, every edge of the distance set stretched beyond the threshold,
 *   (|x_a - x_b| - L) / L > threshold    (L its rest length),
 * most stretched first, splits one of its two vertices v (the one with more triangles
 * first; the other when v cannot be split): the plane through x_v perpendicular to the
 * edge puts the triangles whose centroid lies on the edge's side (towards the other
 * vertex) on the original and the rest on a duplicate (PBD Sec. 5). The two sides are
 * taken as two contiguous arcs of v's triangle fan, the arcs closest to the plane's
 * division, so that both vertices keep one fan each. The duplicate has v's position and
 * velocity; v's mass is split in proportion to the rest areas of the two sides' triangles
 * (so a mass lumped by triangle area stays lumped; total mass and momentum are conserved).
 * A neighbour whose fan the cut separates into pieces (the crack reached the boundary)
 * gets a duplicate per extra piece, so that the mesh stays manifold at every vertex.
 * Constraints follow: a distance constraint per current edge (an edge that the split
 * doubles gets a copy with the same rest length), a bending constraint per current hinge
 * (removed where its two triangles no longer share the edge). Not done: a split that would
 * leave a side without triangles, or that would have to split a pinned particle (w = 0:
 * attachments are never split, so they keep their particles). At most one split per
 * vertex per step (a vertex split or created in this pass is not split again), and at most
 * max_splits per step when set. Other constraint sets are not touched.
 * Cost of a split: O(its fans + the distance and bending sets). */
typedef struct pbd_tearing pbd_tearing;

/* A cloth as tearing sees it: n_triangles × 3 particle indices and the rest positions of
 * its n_vertices vertices; source names it in error lines (NULL: "tearing"). */
typedef struct pbd_tear_mesh {
    int n_vertices;
    const double *x;
    int n_triangles;
    const int32_t *tri;
    const char *source;
} pbd_tear_mesh;

/* The mesh (copied) must be a cloth (no edge in more than two triangles, no zero-area
 * triangle) whose every vertex's triangles form one fan; its triangles index world
 * particles; its x is taken as the rest positions (mesh vertices beyond m->n_vertices
 * take the world's x). distance_set: the set (arity 2) of its edge constraints;
 * bending_set: its hinges' (arity 4, stencils as in experiments/mesh's pbd_trimesh_hinges), or -1.
 * threshold > 0. NULL with pbd_last_error() on bad input. */
pbd_tearing *pbd_tearing_create(const pbd_world *w, const pbd_tear_mesh *m, int distance_set,
                                int bending_set, double threshold);
void pbd_tearing_free(pbd_tearing *t);
/* Keep the collision module's cloth triangles (self collision, rigid corners: see
 * pbd_world_set_cloth_triangles) equal to the torn mesh's: set them now and after every
 * pass that changed the mesh. Without it they keep the triangles they were given. */
pbd_status pbd_tearing_share_triangles(pbd_world *w, pbd_tearing *t);
/* At most max_splits splits per pass (0, the default: only one per vertex). */
void pbd_tearing_set_max_splits(pbd_tearing *t, int max_splits);
/* One tearing pass now (between steps). *n_splits (may be NULL) gets the vertices split
 * by the threshold rule (not counting neighbours split to keep the mesh manifold). */
pbd_status pbd_tearing_apply(pbd_world *w, pbd_tearing *t, int *n_splits);
/* Run a pass after every pbd_step (the world's post-step hook); the world owns t from then
 * on and frees it. PBD_EINVAL when the world already has a post-step hook. */
pbd_status pbd_tearing_attach(pbd_world *w, pbd_tearing *t);
/* The tearing attached to w, or NULL. */
pbd_tearing *pbd_world_tearing(const pbd_world *w);
/* The current mesh: triangles in particle indices, n_vertices = the particles it knows
 * (duplicates included), x = rest positions (the world holds the current ones). */
pbd_tear_mesh pbd_tearing_mesh(const pbd_tearing *t);
/* The particle that particle i was split off from (a duplicate made by a split or a
 * repair: it took i's position, velocity and part of its mass), or -1 (not made by tearing). */
int pbd_tearing_parent(const pbd_tearing *t, int i);
/* Splits by the threshold rule since creation, and by the manifold repair. */
long pbd_tearing_splits(const pbd_tearing *t);
long pbd_tearing_repairs(const pbd_tearing *t);

#ifdef __cplusplus
}
#endif

#endif
