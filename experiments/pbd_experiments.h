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
