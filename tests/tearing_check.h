/* Brute-force checkers for the tearing suites (tests/test_tearing.c, suite `tearing`, and
 * tests/test_tearing_scene.c, suite `tearing_scene`), in tests/tearing_check.c. Private to
 * the tests.
 *
 * The invariants are checked by brute force, independently of solver/tearing/:
 * - the mesh is manifold: every edge in at most 2 triangles; every vertex's triangles form
 *   ONE fan (connected through edges from the vertex) with 0 boundary edges at the vertex
 *   (a closed disk) or 2 (a half-disk on the boundary); every particle is in a triangle
 *   (a split never leaves a vertex without one); triangles have 3 distinct vertices;
 * - every index of every constraint and attachment is a particle of the world;
 * - the distance rows are exactly the mesh's edges (one each) with rest length = the
 *   distance of the rest positions; the bending rows exactly its hinges (one each);
 * - the mass Σ 1/w of the free particles and the number of pinned ones do not change. */
#ifndef PBD_TEARING_CHECK_H
#define PBD_TEARING_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "tests.h"
#include "solver/tearing/pbd_tearing.h"

/* A mesh as tearing takes it. */
#define TEAR_VIEW(m) (&(pbd_tear_mesh){(m)->n_vertices, (m)->x, (m)->n_triangles, (m)->tri, NULL})

/* The tearing's current mesh as a pbd_trimesh (borrowed arrays: not to be freed). */
pbd_trimesh torn(const pbd_tearing *t);
/* 1 when the triangle tri (3 indices) has vertex v. */
int has(const int32_t *tri, int32_t v);
/* Union–find root of i in p (with path halving). */
int find_root(int32_t *p, int32_t i);
/* 0 when the mesh over n particles is manifold as above; otherwise 1 with the first
 * problem in why. */
int mesh_problem(const pbd_trimesh *m, int n, char *why, size_t size);
/* 0 when the world's constraints (distance set dist, bending set bend or -1) match the mesh
 * with rest positions X as above; otherwise 1 with the first problem in why. */
int constraint_problem(const pbd_world *w, const pbd_trimesh *m, const double *X, int dist,
                       int bend, char *why, size_t size);
/* Connected pieces: particles joined by the distance constraints of set dist. */
int components(const pbd_world *w, int dist);
/* Σ 1/w of the free particles; the number of pinned ones in *pinned. */
double free_mass(const pbd_world *w, int *pinned);
/* 1 when x, v, p and w are all finite. */
int all_finite(const pbd_world *w);
/* Both checkers on the tearing's mesh; prints the problem when there is one. 1 when
 * consistent. */
int tear_consistent(const pbd_world *w, const pbd_tearing *t, int dist, int bend);
/* 1 when every set's colouring covers each constraint once and no colour holds two
 * constraints on one particle. */
int colouring_valid(const pbd_world *w);

#endif
