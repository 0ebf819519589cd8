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
 * max_positional); a word starting with '-' is an option (only --help has a short form,
 * -h) unless it is an option's value, "-" or after "--", which ends the options.
 * --help prints usage + options (CLI_EXIT_OK), --version prints the
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

/* mkdir -p of a directory, and of the directory part of a file path (experiments/paths.c).
 * Return 0 on success, -1 with errno set. */
int pbd_mkdirs(const char *dir);
int pbd_mkdir_parents(const char *file_path);

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

/* ---- HDF5 logging: one file per run (experiments/h5log.c; README "HDF5 results") --- */

/* A run's file: written as <out>/<experiment>/<run>.h5.partial-<pid>, flushed every block of
 * steps (an interrupted run keeps valid data under that name) and renamed to <run>.h5 by
 * pbd_h5log_finish. */
typedef struct pbd_h5log pbd_h5log;

typedef struct pbd_h5log_options {
    int frames_every;         /* positions to /frames every K steps (0: no /frames) */
    int block;                /* steps buffered per write + flush (0: 64) */
    const int32_t *triangles; /* optional surface for the XDMF sidecar, 3 per triangle */
    int n_triangles;
    int scene_counts_only;    /* /scene without its arrays (huge scenes): counts and types only */
} pbd_h5log_options;

/* Open the run's file and write the root attributes (experiment, run, solver.* from w->def,
 * seed, git revision, compiler, flags, date, version) and /scene (initial positions,
 * inverse masses, every constraint set). /iterations is written when w->def.record_iterations.
 * Returns NULL with pbd_last_error() set when the file cannot be made. */
pbd_h5log *pbd_h5log_open(const char *out_dir, const char *experiment, const char *run,
                          const pbd_world *w, const pbd_h5log_options *opt);
/* Final path (<out>/<experiment>/<run>.h5) and the temporary one being written. */
const char *pbd_h5log_path(const pbd_h5log *log);
const char *pbd_h5log_partial_path(const pbd_h5log *log);

/* Root attributes. Names may carry a prefix ("scene.size", "result.sag"). */
pbd_status pbd_h5log_attr_double(pbd_h5log *log, const char *name, double v);
pbd_status pbd_h5log_attr_int(pbd_h5log *log, const char *name, long v);
pbd_status pbd_h5log_attr_string(pbd_h5log *log, const char *name, const char *v);
/* One attribute per option row, named prefix + row name, holding the row's current value. */
pbd_status pbd_h5log_attr_options(pbd_h5log *log, const char *prefix, const cli_option *rows,
                                  int n_rows);
pbd_status pbd_h5log_scene_params(pbd_h5log *log, const pbd_scene_params *sp);

/* An extra per-step column /series/<name> of `width` doubles (before the first step).
 * Returns its id, or -1. pbd_h5log_set stores this step's values (NaN when not set). */
int pbd_h5log_column(pbd_h5log *log, const char *name, int width, const char *units);
void pbd_h5log_set(pbd_h5log *log, int column, const double *values);
void pbd_h5log_set1(pbd_h5log *log, int column, double value);

/* A small dataset /results/<name> (rows × cols doubles; cols = 1 gives 1-D) written at once. */
pbd_status pbd_h5log_dataset(pbd_h5log *log, const char *name, const double *data, long rows,
                             long cols, const char *units, const char *description);

/* Append the world's state after a step: /series row, /iterations row, /frames.
 * PBD_EINTR (the step is kept) when SIGINT/SIGTERM arrived since pbd_interrupt_install:
 * the caller stops and keeps the file with pbd_h5log_finish_partial. */
pbd_status pbd_h5log_step(pbd_h5log *log, const pbd_world *w);
/* Write what is buffered, close, write the XDMF sidecar and rename to the final name.
 * Frees log. */
pbd_status pbd_h5log_finish(pbd_h5log *log);
/* Close and delete the temporary file (an error path before any step). Frees log. */
void pbd_h5log_discard(pbd_h5log *log);
/* A run stopped early (the watchdog, an interruption, a write error): write what is
 * buffered, mark the file complete = 0 with the attribute stopped = reason, close it and
 * rename it to <out>/<experiment>/<run>.partial.h5 — never the final name. The file is then
 * opened again to count the steps it really holds (*steps_kept). When it cannot be read
 * (e.g. the disk filled up while HDF5 wrote its metadata) it is deleted, *steps_kept = -1
 * and kept = "". kept (may be NULL) receives the kept file's path. Frees log.
 * PBD_OK or PBD_EIO (pbd_last_error() says why). */
pbd_status pbd_h5log_finish_partial(pbd_h5log *log, const char *reason, char *kept,
                                    size_t kept_size, long *steps_kept);
/* The usual error path after a failed step or write (status st, pbd_last_error() saying
 * why): pbd_h5log_finish_partial with that reason, then pbd_last_error() becomes the one
 * line "<why it stopped>; kept steps 1-N in <dir>/<run>.partial.h5" (or why nothing could be
 * kept). Frees log; returns st. */
pbd_status pbd_h5log_stop(pbd_h5log *log, pbd_status st);

/* Reading results back (summaries, pbd-report, pbd-h5extract). Return 0 on success. */
int pbd_h5_read_attr_double(const char *path, const char *name, double *v);
int pbd_h5_read_attr_string(const char *path, const char *name, char *buf, size_t size);
/* Read a whole 1-D or 2-D double dataset; *data is malloc'd (rows × cols). */
int pbd_h5_read_dataset(const char *path, const char *dataset, double **data, long *rows,
                        long *cols);

/* ---- interruption and exit statuses (experiments/interrupt.c; README "Robustness") --- */

/* SIGINT and SIGTERM set a flag (async-signal-safe) that pbd_h5log_step checks between
 * steps; a second signal gets the default action. */
void pbd_interrupt_install(void);
/* The signal received since pbd_interrupt_install, or 0. */
int pbd_interrupt_signal(void);
const char *pbd_signal_name(int sig);
/* The programs' exit status for a status: 0 OK, 1 bad input file, 2 bad command line,
 * 3 output cannot be written, 4 out of memory, 5 the watchdog stopped the run,
 * 128 + signal when interrupted. */
int pbd_exit_status(pbd_status st);

/* ---- experiments: `pbd-run <experiment> [options]` (experiments/experiment.c) ------- */

typedef struct pbd_experiment pbd_experiment;

/* What one invocation does: every run of the sweep, one run (--only), list the runs
 * (--list) or merge the runs' files into summary.h5 (--summarize). */
typedef struct pbd_exp_ctx {
    const pbd_experiment *exp;
    const char *out_dir; /* results root, default data/results */
    int quick, quiet, list, summarize;
    const char *only;    /* run name or NULL */
    int frames_every;    /* --frames=K */
    const char *command; /* the command line, for the files' "command" attribute */
    /* the runs the sweep enumerated (filled in every mode) */
    char **runs;
    int n_runs, cap_runs, n_done;
    /* progress line */
    double run_start, last_progress;
    int progress_shown;
    const char *current_run;
    const cli_option *params; /* the experiment's option rows, written as param.* */
    int n_params;
    int error_reported;       /* an error line was printed already */
} pbd_exp_ctx;

struct pbd_experiment {
    const char *name;
    const char *description;
    const char *paper;  /* what the paper reports, shown beside the headline */
    int timing;         /* measures wall time: the suite runs it alone */
    /* Fill `out` (PBD_MAX_OPTIONS rows) with the parameters, reset to their defaults for the
     * full or the quick (--quick) suite. Returns the number of rows. */
    int (*options)(cli_option *out, int quick);
    /* Enumerate the sweep: for each run call pbd_exp_want(ctx, name) and run it when that
     * returns 1. Returns PBD_OK or an error status. */
    int (*run)(pbd_exp_ctx *ctx);
    /* Merge the runs' files: print the headline, write it with the tables the plots need
     * into summary.h5 (pbd_exp_summary_*). */
    int (*summarize)(pbd_exp_ctx *ctx);
};

int pbd_experiment_count(void);
const pbd_experiment *pbd_experiment_at(int i);
const pbd_experiment *pbd_experiment_find(const char *name);
/* `pbd-run <experiment> args…` (argv[0] is the experiment's name). Returns the exit status. */
int pbd_experiment_main(const pbd_experiment *e, int argc, char **argv);

/* 1 when the run named `run` should be executed now (records the name in every mode). */
int pbd_exp_want(pbd_exp_ctx *ctx, const char *run);
/* Open the run's log: pbd_h5log_open + the experiment's param.* attributes, quick, command. */
pbd_h5log *pbd_exp_log_open(pbd_exp_ctx *ctx, const char *run, const pbd_world *w,
                            const pbd_h5log_options *opt);
/* The run failed with status st after the log was opened (the watchdog, an interruption, a
 * write error): keep its steps as <run>.partial.h5 (pbd_h5log_finish_partial) and make
 * pbd_last_error() the one line "<why it stopped>; kept steps 1-N in <path>". Returns st. */
pbd_status pbd_exp_log_abort(pbd_exp_ctx *ctx, pbd_h5log *log, pbd_status st);
/* Finish the log and print the run's one-line result (unless --quiet). */
pbd_status pbd_exp_log_finish(pbd_exp_ctx *ctx, pbd_h5log *log, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Progress of the current run in [0, 1]: a line on stderr after 2 s, when it is a tty. */
void pbd_exp_progress(pbd_exp_ctx *ctx, double fraction);
/* Comma-separated lists in a parameter ("1,5,10", "pbd,xpbd"): the count, or -1 after one
 * error line naming the option (then return PBD_EINVAL: exit status 2). */
int pbd_exp_numbers(pbd_exp_ctx *ctx, const char *option, const char *text, double *out,
                    int max, double lo, double hi);
int pbd_exp_words(pbd_exp_ctx *ctx, const char *option, const char *text,
                  const char *const *choices, int *out, int max);
/* Path of a run's result file. */
void pbd_exp_run_path(const pbd_exp_ctx *ctx, const char *run, char *buf, size_t size);

/* summary.h5: <out>/<experiment>/summary.h5, written by the summarize step. */
typedef struct pbd_exp_summary pbd_exp_summary;
pbd_exp_summary *pbd_exp_summary_open(pbd_exp_ctx *ctx);
/* A table /tables/<name>: rows × n_cols doubles with the columns' names and units. */
pbd_status pbd_exp_summary_table(pbd_exp_summary *s, const char *name, const double *data,
                                 int rows, int n_cols, const char *const *col_names,
                                 const char *units);
pbd_status pbd_exp_summary_double(pbd_exp_summary *s, const char *name, double v);
/* The open summary file (an hid_t), for attributes of other kinds. */
long long pbd_exp_summary_file(pbd_exp_summary *s);
/* Print the headline (unless --quiet), store it with the paper's number, close. */
pbd_status pbd_exp_summary_finish(pbd_exp_summary *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));


/* ---- scenes the experiments share (experiments/exp_scenes.c) ------------------------ */

/* A cloth grid of resolution² particles, side `size` m, total mass `mass` kg, in the x–y
 * plane (hanging along -y) with distance constraints on the structural edges, optionally
 * both diagonals of every quad (shear) and the edges two apart (bend); pinned at its two
 * top corners when pinned != 0. With shear and bend, 64² particles give 23 938 constraints. */
typedef struct pbd_exp_cloth {
    int resolution;
    double size, mass;
    int shear, bend, pinned;
    int horizontal; /* in the x–z plane (swings down when released) instead of x–y */
    double stiffness, compliance;
} pbd_exp_cloth;
/* *triangles (2 per quad, malloc'd) may be NULL when not wanted. */
pbd_world *pbd_exp_cloth_build(const pbd_exp_cloth *c, int32_t **triangles, int *n_triangles);
/* The cloth's parameters as scene.* attributes of a run. */
pbd_status pbd_exp_cloth_attrs(pbd_h5log *log, const pbd_exp_cloth *c);
/* Relative elongation (|d| - d0)/d0 of set `set`'s distance constraints: mean and max. */
void pbd_exp_stretch(const pbd_world *w, int set, double *mean, double *max);
/* Wall time of the step's solver stages (all but the measurement), in s. */
double pbd_exp_step_seconds(const pbd_world *w);

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
