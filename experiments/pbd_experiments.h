/* pbdlab — scenes, the command-line parser and (later) HDF5 logging.
 * Public header of experiments/. */
#ifndef PBD_EXPERIMENTS_H
#define PBD_EXPERIMENTS_H

#include <stdio.h>

#include "../solver/pbd.h"

/* ---- command line ------------------------------------------------------------------ */

typedef enum { CLI_DOUBLE, CLI_INT, CLI_FLAG, CLI_STRING, CLI_CHOICE } cli_kind;

/* One option. Numbers are checked against [lo, hi] (lo excluded when lo_open);
 * CLI_CHOICE stores the index of the matching word of `choices` (NULL-terminated). */
typedef struct cli_option {
    const char *name; /* without the leading "--" */
    cli_kind kind;
    void *value;      /* double*, int*, int* (flag / choice) or const char** */
    double lo, hi;
    int lo_open;
    const char *help;
    const char *const *choices;
} cli_option;

enum { CLI_OK = 0, CLI_EXIT_OK = 1, CLI_ERROR = 2 };

/* Parse argv[first..argc). Positional arguments are collected into positional[] (up to
 * max_positional). --help prints usage + options (CLI_EXIT_OK), --version prints the
 * version (CLI_EXIT_OK); an error prints one line naming the flag, the value and the
 * allowed range to stderr and returns CLI_ERROR. */
int cli_parse(const char *prog, const char *usage, int argc, char **argv, int first,
              const cli_option *opts, int n_opts, const char **positional, int max_positional,
              int *n_positional);
void cli_print_options(FILE *out, const cli_option *opts, int n_opts);

/* Rows for the solver definition's fields and the scene parameters; `out` must hold
 * PBD_MAX_OPTIONS rows. Returns the number written. */
#define PBD_MAX_OPTIONS 64
struct pbd_scene_params;
int pbd_solver_options(pbd_solver_def *def, cli_option *out);
int pbd_scene_options(struct pbd_scene_params *sp, cli_option *out);
const char *pbd_method_name(int method);
const char *pbd_scheme_name(int scheme);
const char *pbd_damping_name(int damping);

/* ---- meshes (experiments/mesh*.c) ------------------------------------------------- */

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

/* Wavefront OBJ (experiments/mesh_obj.c): `v x y z [w]`, `f` with i, i/t, i//n, i/t/n
 * (negative i counts back from the last vertex defined so far), polygons fan-triangulated,
 * other statements ignored. On error *out stays empty and the status is PBD_EINPUT with
 * one line "file:line: expected …, found …". */
pbd_status pbd_trimesh_load_obj(const char *path, int require, pbd_trimesh *out);
pbd_status pbd_trimesh_save_obj(const pbd_trimesh *m, const char *path, const char *comment);
/* TetGen .node + the .ele beside it (experiments/mesh_tetgen.c); path ends in .node (or has
 * no extension). Numbering from 0 or 1 as the first point says; attributes and boundary
 * markers ignored; tets of negative volume re-oriented, zero volume rejected. */
pbd_status pbd_tetmesh_load_tetgen(const char *node_path, pbd_tetmesh *out);
pbd_status pbd_tetmesh_save_tetgen(const pbd_tetmesh *m, const char *node_path,
                                   const char *comment);

/* Generators (experiments/mesh_generate.c, mesh_tet_beam.c). */
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

/* ---- scenes ------------------------------------------------------------------------ */

typedef struct pbd_scene_params {
    int resolution;     /* particles along the chain, or the cloth grid's side */
    double size;        /* m: chain length or cloth side */
    double total_mass;  /* kg */
    double stiffness;   /* PBD k of every constraint */
    double compliance;  /* XPBD α of every constraint */
    unsigned long seed;
    /* mesh scenes */
    int diagonal;            /* pbd_diagonal of the generated cloth grid and bag */
    double k_bend;           /* PBD stiffness of the bending constraints */
    double bend_compliance;  /* XPBD α of the bending constraints */
    double k_pressure;       /* balloon overpressure factor (PBD Eq. 14) */
    int tets_per_cube;       /* tet_beam: 5 or 6 */
    const char *mesh_path;   /* --mesh: OBJ surface replacing the generated one */
    const char *tet_path;    /* --tet: TetGen .node (+ .ele) replacing the generated tets */
    double tear_threshold;   /* tear scene: relative stretch at which an edge tears; 0 = off */
} pbd_scene_params;

pbd_scene_params pbd_scene_params_default(void);

/* Hanging chain along -y with particle 0 attached at the origin. */
pbd_world *pbd_scene_chain(const pbd_scene_params *sp);
/* Cloth grid of resolution × resolution particles in the x–y plane, hanging from its two
 * top corners; stretch (distance) constraints on every triangle edge. */
pbd_world *pbd_scene_cloth(const pbd_scene_params *sp);
/* The cloth grid laid horizontal (x–z plane), hanging from the same two corners, plus a
 * bend_dihedral constraint (stiffness k_bend) on every interior edge. */
pbd_world *pbd_scene_cloth_bend(const pbd_scene_params *sp);
/* A beam of tets (or --tet), distance on every edge and tet_volume per tet, the end at
 * the smallest x attached (cantilever); masses lumped by tet volume. */
pbd_world *pbd_scene_tet_beam(const pbd_scene_params *sp);
/* An icosphere (level = resolution, diameter size) or a closed --mesh: distances, bending
 * and the balloon_volume constraint with k_pressure; hangs from its top vertex. */
pbd_world *pbd_scene_balloon(const pbd_scene_params *sp);
/* The open cloth bag (PBD Fig. 3): distances and bending, hung from its rim's 4 corners. */
pbd_world *pbd_scene_cloth_bag(const pbd_scene_params *sp);

typedef struct pbd_scene_entry {
    const char *name;
    const char *description;
    pbd_world *(*build)(const pbd_scene_params *sp);
    int default_resolution;
} pbd_scene_entry;

int pbd_scene_count(void);
const pbd_scene_entry *pbd_scene_at(int i);
const pbd_scene_entry *pbd_scene_find(const char *name);

/* ---- tearing (experiments/tearing.c, scene_tear.c; PBD Sec. 5) ---------------------- */

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

/* The mesh (copied) must be a cloth (no edge in more than two triangles, no zero-area
 * triangle) whose every vertex's triangles form one fan; its triangles index world
 * particles; its x is taken as the rest positions (mesh vertices beyond m->n_vertices
 * take the world's x). distance_set: the set (arity 2) of its edge constraints;
 * bending_set: its hinges' (arity 4, stencils as in pbd_trimesh_hinges), or -1.
 * threshold > 0. NULL with pbd_last_error() on bad input. */
pbd_tearing *pbd_tearing_create(const pbd_world *w, const pbd_trimesh *m, int distance_set,
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
const pbd_trimesh *pbd_tearing_mesh(const pbd_tearing *t);
/* Splits by the threshold rule since creation, and by the manifold repair. */
long pbd_tearing_splits(const pbd_tearing *t);
long pbd_tearing_repairs(const pbd_tearing *t);

/* Cloth torn apart: the cloth scene's grid (vertical, x–y plane, bulged by 1 % of its size
 * along z; or --mesh) with bending (k_bend) on its hinges, held by its top row except the
 * row's middle vertex; the left
 * part of the row moves towards -x and the right part towards +x at 0.5 m/s each for 1 m
 * (2 s), then holds; edges tear beyond tear_threshold (0: off), starting at the free middle
 * vertex. */
pbd_world *pbd_scene_tear(const pbd_scene_params *sp);

#endif
