/* pbdlab — triangle and tet meshes: types, topology, checks, OBJ and TetGen files, generators
 * (experiments/mesh/). */
#ifndef PBD_MESH_H
#define PBD_MESH_H

#include <stdint.h>

#include <stdio.h>

#include "solver/pbd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- meshes (experiments/mesh/mesh*.c) ------------------------------------------ */

/* A triangle mesh: n_vertices × 3 coordinates, n_triangles × 3 vertex indices (0-based).
 * A loaded mesh remembers its file (source) and the line of each triangle (tri_line) so
 * that later checks can point at the line; both are NULL for generated meshes. */
typedef struct pbd_trimesh {
    int n_vertices;
    double *x;
    int n_triangles;
    int32_t *tri;
    int32_t *tri_line;
    char *source;
} pbd_trimesh;

/* A tetrahedral mesh: n_tets × 4 vertex indices, every tet of positive volume
 * (p1-p0)·((p2-p0)×(p3-p0)) > 0 after loading or generating. */
typedef struct pbd_tetmesh {
    int n_vertices;
    double *x;
    int n_tets;
    int32_t *tet;
} pbd_tetmesh;

/* Allocate zeroed arrays (the struct is the caller's); free releases them and zeroes m. */
pbd_status pbd_trimesh_alloc(pbd_trimesh *m, int n_vertices, int n_triangles);
void pbd_trimesh_free(pbd_trimesh *m);
pbd_status pbd_tetmesh_alloc(pbd_tetmesh *m, int n_vertices, int n_tets);
void pbd_tetmesh_free(pbd_tetmesh *m);

/* Topology. Each returns a count and a malloc'ed array (the caller frees it), or -1 with
 * pbd_last_error() set. Edges are unique pairs a < b, sorted lexicographically; valence
 * (may be NULL) receives the number of triangles on each edge. Hinges are the interior
 * edges shared by exactly two triangles, as bending stencils in the order of
 * constraints/pbd_constraint.h: (p1, p2, p3, p4) with p1–p2 the shared edge, oriented
 * as in the first triangle (p1, p2, p3), and p4 the second triangle's wing. */
int pbd_trimesh_edges(const pbd_trimesh *m, int32_t **edges, int32_t **valence);
int pbd_trimesh_hinges(const pbd_trimesh *m, int32_t **hinges);
int pbd_tetmesh_edges(const pbd_tetmesh *m, int32_t **edges);
/* Geodesic distances dist[v] (n_vertices) along the surface from vertex `source` at the mesh's
 * positions, by Dijkstra's order with edge updates and fast-marching updates across
 * triangles (experiments/mesh/mesh_geodesic.c): exact straight-line distances on a flat
 * convex mesh; INFINITY for vertices not connected to the source. Returns 0, or -1 with
 * pbd_last_error() set. */
int pbd_trimesh_geodesic(const pbd_trimesh *m, int source, double *dist);
/* The boundary triangles of a tet mesh (faces of exactly one tet), oriented outward;
 * -1 when a face is shared by more than two tets (the mesh does not conform). */
int pbd_tetmesh_boundary(const pbd_tetmesh *m, int32_t **tri);

/* Zero area: |(b-a)×(c-a)| <= 1e-12 × (longest edge)², which includes repeated vertices. */
int pbd_triangle_is_degenerate(const double *a, const double *b, const double *c);
/* (1/6)(b-a)·((c-a)×(d-a)); zero volume: |6V| <= 1e-12 × (longest edge)³. */
double pbd_tet_volume(const double *a, const double *b, const double *c, const double *d);
int pbd_tet_is_degenerate(const double *a, const double *b, const double *c, const double *d);

typedef struct pbd_trimesh_report {
    int n_edges, n_boundary_edges, n_nonmanifold_edges, n_degenerate;
    int n_misoriented_edges;   /* interior edges run the same way by both triangles */
    int closed;                /* every edge in exactly two triangles */
    int oriented;              /* closed-or-not, no misoriented edge */
    int euler;                 /* V - E + F */
    double volume;             /* signed enclosed volume (PBD Eq. 14 / 6); closed meshes */
    double area;
} pbd_trimesh_report;
pbd_status pbd_trimesh_inspect(const pbd_trimesh *m, pbd_trimesh_report *r);

/* What a use of a surface requires; a violation is ONE pbd_error line (PBD_EINPUT) that
 * names the file and line of the offending triangle (or its number when generated). */
enum {
    PBD_MESH_NO_DEGENERATE = 1, /* no zero-area triangle */
    PBD_MESH_MANIFOLD = 2,      /* no edge in more than two triangles */
    PBD_MESH_CLOSED = 4         /* every edge in exactly two, consistently oriented */
};
#define PBD_MESH_CLOTH (PBD_MESH_NO_DEGENERATE | PBD_MESH_MANIFOLD)
#define PBD_MESH_CLOSED_SURFACE (PBD_MESH_CLOTH | PBD_MESH_CLOSED)
pbd_status pbd_trimesh_require(const pbd_trimesh *m, int require);
/* Reverse every triangle when a closed mesh's volume is negative (normals inward). */
void pbd_trimesh_orient_outward(pbd_trimesh *m);
/* Flip tets of negative volume (swap the last two vertices). Returns how many. */
int pbd_tetmesh_orient(pbd_tetmesh *m);

/* ---- files written under a temporary name (experiments/mesh/atomic_file.c) ---------- */

/* NAME is written as NAME.partial-<pid> and renamed when complete: a reader never sees a
 * half-written file under NAME, concurrent writers never mix (the last rename wins whole),
 * and pbd_atomic_unlink_all (SIGINT/SIGTERM) removes what is being written. */
typedef struct pbd_atomic_file {
    char path[4096], tmp[4200];
    int slot; /* in the registry of temporary names, or -1 */
} pbd_atomic_file;
/* Name the temporary file and register it (PBD_EIO when path is a directory or too long). */
pbd_status pbd_atomic_begin(pbd_atomic_file *a, const char *path);
/* pbd_atomic_begin + fopen(tmp, "w"); NULL with pbd_last_error() set. */
FILE *pbd_atomic_fopen(pbd_atomic_file *a, const char *path);
/* Rename the temporary file to its final name (removed when that fails). */
pbd_status pbd_atomic_commit(pbd_atomic_file *a);
/* Close a stream from pbd_atomic_fopen and commit, unless failed or a write error: then
 * remove it. PBD_OK or PBD_EIO. */
pbd_status pbd_atomic_fclose(pbd_atomic_file *a, FILE *f, int failed);
/* Remove the temporary file. */
void pbd_atomic_abort(pbd_atomic_file *a);
/* Unlink every registered temporary file: async-signal-safe (the programs' signal handler). */
void pbd_atomic_unlink_all(void);

/* Wavefront OBJ (experiments/mesh/mesh_obj.c): `v x y z [w]`, `f` with i, i/t, i//n, i/t/n
 * (negative i counts back from the last vertex defined so far), polygons fan-triangulated,
 * other statements ignored. On error *out stays empty and the status is PBD_EINPUT with
 * one line "file:line: expected …, found …". */
pbd_status pbd_trimesh_load_obj(const char *path, int require, pbd_trimesh *out);
pbd_status pbd_trimesh_save_obj(const pbd_trimesh *m, const char *path, const char *comment);
/* TetGen .node + the .ele beside it (experiments/mesh/mesh_tetgen.c); path ends in .node (or has
 * no extension). Numbering from 0 or 1 as the first point says; attributes and boundary
 * markers ignored; tets of negative volume re-oriented, zero volume rejected. */
pbd_status pbd_tetmesh_load_tetgen(const char *node_path, pbd_tetmesh *out);
pbd_status pbd_tetmesh_save_tetgen(const pbd_tetmesh *m, const char *node_path,
                                   const char *comment);

/* Generators (experiments/mesh/mesh_generate.c, mesh_tet_beam.c). */
typedef enum {
    PBD_DIAGONAL_SAME = 0,      /* every quad split along (i,j)–(i+1,j+1) */
    PBD_DIAGONAL_ALTERNATE = 1, /* the direction alternates from row to row */
    PBD_DIAGONAL_UNION_JACK = 2 /* checkerboard: diagonals meet in stars (union jack) */
} pbd_diagonal;
extern const char *const pbd_diagonal_names[4]; /* "same", "alternate", "union-jack", NULL */
/* nx × ny vertices, vertex (i, j) = j·nx + i at (sx·i/(nx-1), -sy·j/(ny-1), 0); triangles
 * counter-clockwise seen from +z. */
pbd_status pbd_mesh_grid(int nx, int ny, double sx, double sy, pbd_diagonal d,
                         pbd_trimesh *out);
/* Icosahedron subdivided `level` times, projected on the sphere of that radius about the
 * origin: 10·4^level + 2 vertices, outward triangles. */
pbd_status pbd_mesh_icosphere(int level, double radius, pbd_trimesh *out);
/* Cloth bag (PBD Fig. 3): the surface of a cube of side `size`, n × n quads per face,
 * x and z in [-size/2, size/2], y in [-size, 0]; open: without the top face (y = 0).
 * Outward triangles. */
pbd_status pbd_mesh_cloth_bag(int n, double size, int closed, pbd_diagonal d,
                              pbd_trimesh *out);
/* Box [0,lx]×[0,ly]×[0,lz] of nx×ny×nz cubes, each split into 5 or 6 tets (conforming:
 * the 5-tet split alternates its mirror image like a checkerboard). */
pbd_status pbd_mesh_tet_beam(int nx, int ny, int nz, double lx, double ly, double lz,
                             int tets_per_cube, pbd_tetmesh *out);

#ifdef __cplusplus
}
#endif

#endif
