/* pbdlab — the programs' plumbing: the command-line parser, the option rows of the solver
 * definition and the scene parameters, directories, interruption and exit statuses
 * (experiments/cli/; README in experiments/). */
#ifndef PBD_CLI_H
#define PBD_CLI_H

#include <stdio.h>

#include "experiments/mesh/pbd_mesh.h"
#include "experiments/scenes/pbd_scenes.h"
#include "solver/pbd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- command line ------------------------------------------------------------------ */

typedef enum { CLI_DOUBLE, CLI_INT, CLI_FLAG, CLI_STRING, CLI_CHOICE } cli_kind;

/* One option. Numbers are checked against [lo, hi] (lo excluded when lo_open);
 * CLI_CHOICE stores the index of the matching word of `choices` (NULL-terminated). */
typedef struct cli_option {
    const char *name; /* without the leading "--" */
    cli_kind kind;
    void *value;      /* double*, int*, int* (flag / choice) or const char** */
    double lo, hi;
    int lo_open;      /* 1: lo excluded; 2: hi excluded; 3: both */
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
/* 1 when the last cli_parse set the option whose `value` this is (given on the command line,
 * whatever the value, the default included), else 0: for refusing a given option that cannot
 * act (experiments/README.md "Robustness"). */
int cli_given(const void *value);

/* Rows for the solver definition's fields and the scene parameters; `out` must hold
 * PBD_MAX_OPTIONS rows. Returns the number written. */
#define PBD_MAX_OPTIONS 128
struct pbd_scene_params;
int pbd_solver_options(pbd_solver_def *def, cli_option *out);
int pbd_scene_options(struct pbd_scene_params *sp, cli_option *out);
const char *pbd_scheme_name(int scheme);
const char *pbd_damping_name(int damping);
/* What a solver option's rule needs besides the definition: the world has a fluid, the run
 * is compared with the Newton reference (--reference=newton), it writes a run file (--out). */
typedef struct pbd_solver_context {
    int fluid, reference, out;
} pbd_solver_context;
/* NULL when the given solver option (its name without "--") can act under d, else why it
 * cannot (a static string): e.g. --sor-omega without --scheme=jacobi (solver_reads.c). */
const char *pbd_solver_unread(const pbd_solver_def *d, const pbd_solver_context *ctx,
                              const char *option);
/* The world's definition set from def (the options cli_parse filled), then what a run must
 * refuse before its first step (exit status 2): NULL, or one line (static) without the
 * program's name — an invalid definition, a given solver option that cannot act
 * (pbd_solver_unread), what the Newton reference (--method=newton, ctx->reference), a fluid
 * or the VBD/PD families cannot take (run_refusals.c). pbd-run and pbd-soak. */
const char *pbd_run_refusal(pbd_world *w, pbd_solver_def *def, const pbd_solver_context *ctx);

/* mkdir -p of a directory, and of the directory part of a file path (experiments/cli/paths.c).
 * Return 0 on success, -1 with errno set. */
int pbd_mkdirs(const char *dir);
int pbd_mkdir_parents(const char *file_path);

/* ---- interruption and exit statuses (interrupt.c; experiments/README.md "Robustness") */

/* SIGINT, SIGTERM and SIGHUP set a flag (async-signal-safe) that the solver core checks
 * once per iteration (pbd_set_stop_flag: the step returns PBD_EINTR, abandoning the step in
 * flight) and pbd_h5log_step between steps. Install it before any expensive set-up. The
 * first signal also arms a grace timer (SIGALRM): a program still running after
 * PBD_INTERRUPT_GRACE_SECONDS (a factorisation that cannot look at the flag) is ended with
 * 128 + signal, its run's file renamed to the partial name given to
 * pbd_interrupt_keep_file (when not inside pbd_interrupt_busy), its temporary files removed.
 * A second signal does the same at once and gets the default action. No SA_RESTART: a
 * blocking open(2) or read(2) sees EINTR. */
/* The timer stops when the program ends in order (pbd_h5log_stop, pbd_interrupt_done). */
#define PBD_INTERRUPT_GRACE_SECONDS 0.8
void pbd_interrupt_install(void);
/* For programs that only write files: SIGINT/SIGTERM/SIGHUP remove the temporary files being
 * written and end the program with the signal's default action (exit status 128 + signal). */
void pbd_interrupt_install_cleanup(void);
/* A section that writes the run's HDF5 file (enter = 1 … enter = 0, nested): the grace timer
 * waits for its end. Outside these sections the file on disk is as its last flush left it. */
void pbd_interrupt_busy(int enter);
/* The run's file being written and the name the grace timer renames it to (NULL: none;
 * partial_name NULL: the file holds no step yet and is removed instead). */
void pbd_interrupt_keep_file(const char *writing, const char *partial_name);
/* The program has reported its stop and is about to exit: the grace timer is disarmed. */
void pbd_interrupt_done(void);
/* The signal received since pbd_interrupt_install, or 0. */
int pbd_interrupt_signal(void);
const char *pbd_signal_name(int sig);
/* The programs' exit status for a status: 0 OK, 1 bad input file, 2 bad command line,
 * 3 output cannot be written, 4 out of memory, 5 the watchdog stopped the run,
 * 128 + signal when interrupted. */
int pbd_exit_status(pbd_status st);
/* One line "<program>: <pbd_last_error()>" on stderr for a status other than PBD_OK; a stop
 * by a signal names it ("interrupted by SIGTERM: step 12 abandoned …") when the message does
 * not already. */
void pbd_report_status(const char *program, pbd_status st);

#ifdef __cplusplus
}
#endif

#endif
