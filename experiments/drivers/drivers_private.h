/* What the drivers' framework files share and no experiment needs (experiments/drivers/). */
#ifndef PBD_DRIVERS_PRIVATE_H
#define PBD_DRIVERS_PRIVATE_H

#include "pbd_drivers.h"

#include <stddef.h>

/* The sweep's parameters (quick and every parameter row) as 16 hex digits (sweep_check.c). */
void pbd_exp_sweep_hash(const pbd_exp_ctx *ctx, char *hex, size_t size);
/* Every run of the enumerated sweep can be merged: PBD_OK, or an error naming each run that
 * cannot and why (a missing, partial or corrupt file, another sweep's parameters). */
pbd_status pbd_exp_validate_runs(pbd_exp_ctx *ctx, const char *prog);

/* ---- a sweep file (sweep_file.c; pbd-run --sweep=FILE, sweep_run.c) ----------------- */

#define PBD_SWEEP_MAX_KEYS 64
#define PBD_SWEEP_MAX_RUNS 10000
#define PBD_SWEEP_NAME 201 /* a run name: at most 200 bytes (pbd-run --run) */
typedef struct pbd_sweep_key {
    char name[64];   /* a pbd-run option without its -- */
    int line;        /* where the file gives it */
    int flag;        /* a flag: its values are yes and no */
    int n;           /* values */
    char **values;   /* as written, trimmed */
    char *list;      /* the line's value text (the sweep's parameter: its hash) */
} pbd_sweep_key;
typedef struct pbd_sweep {
    char path[4096];
    char scene[64];
    int scene_line;  /* 0: the scene came from the command line */
    int n_keys;
    pbd_sweep_key keys[PBD_SWEEP_MAX_KEYS];
    long n_runs;     /* the product of the keys' value counts */
    int reported;    /* the error line was printed already (the option parser's) */
} pbd_sweep;
/* Read and check the file: every key `scene` or one of opts (pbd-run's scene-mode options,
 * but out, run, quiet, every and the test hooks), each once, every value accepted by the
 * option's own parser (flags: yes or no). scene: the command line's, or NULL. PBD_EINPUT
 * with "FILE:LINE: expected …, found …"; free with pbd_sweep_free either way. */
pbd_status pbd_sweep_read(const char *path, const char *scene, const cli_option *opts,
                          int n_opts, pbd_sweep *s);
void pbd_sweep_free(pbd_sweep *s);
/* Run r of the grid (0-based, the file's last key varying fastest): the index of key k's
 * value, and the run's name (KEY-VALUE joined by _ over the keys with several values;
 * "run" when none has). */
int pbd_sweep_value(const pbd_sweep *s, long run, int key);
void pbd_sweep_run_name(const pbd_sweep *s, long run, char *buf, size_t size);

#endif
