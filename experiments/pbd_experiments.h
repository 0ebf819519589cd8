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

/* ---- scenes ------------------------------------------------------------------------ */

typedef struct pbd_scene_params {
    int resolution;     /* particles along the chain, or the cloth grid's side */
    double size;        /* m: chain length or cloth side */
    double total_mass;  /* kg */
    double stiffness;   /* PBD k of every constraint */
    double compliance;  /* XPBD α of every constraint */
    unsigned long seed;
} pbd_scene_params;

pbd_scene_params pbd_scene_params_default(void);

/* Hanging chain along -y with particle 0 attached at the origin. */
pbd_world *pbd_scene_chain(const pbd_scene_params *sp);
/* Cloth grid of resolution × resolution particles in the x–y plane, hanging from its two
 * top corners; stretch (distance) constraints on every triangle edge. */
pbd_world *pbd_scene_cloth(const pbd_scene_params *sp);

/* Scenes of the performance table (experiments/bench_scenes.c). Hinges (index rows
 * p1, p2, p3, p4 as in pbd_constraint.h) on every edge that two of the n_tri triangles share,
 * in a new set of the bending type; returns the number of hinges or -1. */
int pbd_add_hinges(pbd_world *w, const pbd_constraint_type *type, const int32_t *tri, int n_tri,
                   double stiffness, double compliance);
/* pbd_scene_cloth plus, when bending != NULL, a hinge on every interior edge; with bending
 * the cloth lies flat (in the x-z plane) and drapes from its two attached corners. */
pbd_world *pbd_bench_cloth(const pbd_scene_params *sp, const pbd_constraint_type *bending,
                           double bend_stiffness, double bend_compliance);
/* nx × ny × nz cubes of side `size`, 6 tets each: distance constraints on the tets' edges and
 * tet_volume per tet; the x = 0 end attached. */
pbd_world *pbd_bench_tet_beam(int nx, int ny, int nz, double size, double total_mass,
                              double stiffness, double compliance);

typedef struct pbd_scene_entry {
    const char *name;
    const char *description;
    pbd_world *(*build)(const pbd_scene_params *sp);
    int default_resolution;
} pbd_scene_entry;

int pbd_scene_count(void);
const pbd_scene_entry *pbd_scene_at(int i);
const pbd_scene_entry *pbd_scene_find(const char *name);

#endif
