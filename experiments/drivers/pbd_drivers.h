/* pbdlab — the experiment suite: one driver per experiment, run by `pbd-run <experiment>`
 * (experiments/drivers/). */
#ifndef PBD_DRIVERS_H
#define PBD_DRIVERS_H

#include "experiments/log/pbd_log.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- experiments: `pbd-run <experiment> [options]` (experiments/drivers/experiment.c) */

typedef struct pbd_experiment pbd_experiment;

/* What one invocation does: every run of the sweep, one run (--only), list the runs
 * (--list) or merge the runs' files into summary.h5 (--summarize). */
typedef struct pbd_exp_ctx {
    const pbd_experiment *exp;
    const char *out_dir; /* results root, default data/results */
    int quick, quiet, list, summarize;
    const char *only;    /* run name or NULL */
    int frames_every;    /* --frames=K */
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
    int allow_missing;        /* --allow-missing: merge the good runs of a partial sweep */
    char *runs_missing;       /* --summarize: the runs left out (missing or bad), and why */
    int n_missing;
    char as_run[512];         /* summarize: what the runs really were (e.g. "24x24 cloth,
                               * 3218 constraints"), appended to summary.h5's description */
    /* the current run's declared run-away (experiments/drivers/runaway.c) */
    const char *divergence_finding; /* why a run-away is this run's finding; NULL: it is not */
    int diverged;             /* pbd_exp_step recorded the watchdog's stop as the finding */
    long diverged_step, last_step;  /* the step the watchdog stopped, the last one it accepted */
    double diverged_time, last_time;
    char diverged_reason[512];      /* the watchdog's line */
    double *last_x, *last_v;  /* the last accepted state (3n each) */
    size_t last_cap;
    int last_n;               /* particles in last_x */
    /* the current run's declared physical bound (experiments/drivers/bounds.c) */
    const char *bound_column, *bound_what, *bound_why; /* NULL column: none declared */
    double bound_limit, bound_time, bound_value;
    long bound_step;          /* the first step past the bound; 0: within it */
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

/* `pbd-run [SCENE] --sweep=FILE --out=DIR [--list|--only=RUN|--summarize]
 * [--allow-missing] [--quiet]` (sweep_run.c): the grid of runs a sweep file lists, each run
 * a `pbd-run SCENE …` process of its own (this program, /proc/self/exe) writing
 * DIR/<scene>/<run>.h5, then merged into DIR/<scene>/summary.h5 as an experiment's runs.
 * opts: pbd-run's scene-mode option rows (the keys a file may set). The exit status. */
int pbd_sweep_main(int argc, char **argv, const cli_option *opts, int n_opts);

/* 1 when the run named `run` should be executed now (records the name in every mode). */
int pbd_exp_want(pbd_exp_ctx *ctx, const char *run);
/* Open the run's log: pbd_h5log_open (provenance: the true command line) + the experiment's
 * param.* attributes and quick. */
pbd_h5log *pbd_exp_log_open(pbd_exp_ctx *ctx, const char *run, const pbd_world *w,
                            const pbd_h5log_options *opt);
/* The run failed with status st after the log was opened (the watchdog, an interruption, a
 * write error): keep its steps as <run>.partial.h5 (pbd_h5log_finish_partial) and make
 * pbd_last_error() the one line "<why it stopped>; kept steps 1-N in <path>". Returns st. */
pbd_status pbd_exp_log_abort(pbd_exp_ctx *ctx, pbd_h5log *log, pbd_status st);
/* Finish the log and print the run's one-line result (unless --quiet). */
pbd_status pbd_exp_log_finish(pbd_exp_ctx *ctx, pbd_h5log *log, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Progress of the current run: done of total (steps; frames or iteration counts where the
 * driver says so). Unless --quiet, on stderr: after 2 s one line redrawn in place when it is
 * a terminal, otherwise after 30 s a new line every 30 s (the suite's log). */
void pbd_exp_progress(pbd_exp_ctx *ctx, long done, long total);
/* ---- a run-away as a run's result (experiments/drivers/runaway.c) ------------------- */

/* A run whose purpose is to show a run-away declares it right after pbd_exp_want returned
 * 1: pbd_exp_divergence_is_finding(ctx, why), `why` a sentence kept as the run file's
 * attribute divergence_is_finding. Its steps go through pbd_exp_step, which keeps the last
 * state the watchdog accepted. When the watchdog then stops a step (PBD_ENUMERIC), the stop
 * is recorded as the run's finding (pbd_exp_diverged(ctx) = 1) and pbd_exp_step returns
 * PBD_OK: the driver ends its loop, writes its results and calls pbd_exp_log_finish, which
 * adds result.diverged = 1, result.diverged_step, result.diverged_time,
 * result.diverged_reason and /results/diverged_last_x, diverged_last_v (the last finite
 * state, at result.diverged_last_step). The run is complete and exits 0. Any other failure,
 * and the watchdog in an undeclared run, still ends the run with its status (exit 5). */
void pbd_exp_divergence_is_finding(pbd_exp_ctx *ctx, const char *why);
pbd_status pbd_exp_step(pbd_exp_ctx *ctx, pbd_world *w);
int pbd_exp_diverged(const pbd_exp_ctx *ctx);
/* Write the finding into the run's log (called by pbd_exp_log_finish). */
pbd_status pbd_exp_runaway_write(pbd_exp_ctx *ctx, pbd_h5log *log);
/* summary.h5's attribute "findings": every merged run's recorded run-away, one per line. */
void pbd_exp_runaway_findings(const pbd_exp_ctx *ctx, char **text);
void pbd_exp_runaway_free(pbd_exp_ctx *ctx);

/* ---- a run's declared physical bound (experiments/drivers/bounds.c) ------------------ */

/* A run whose state can leave physical bounds declares them right after pbd_exp_want
 * returned 1: `column` is the /series column (one number per step) the driver sets, `limit`
 * the largest value a physical run reaches, `what` the quantity in words (with its unit),
 * `why` one sentence saying why a run leaves it where the cause is known (NULL: not
 * established). After each step the driver calls pbd_exp_bound_check with the column's value:
 * 1 when it is above limit or not finite (the first such step is recorded), and decides
 * whether the run goes on. pbd_exp_log_finish writes bound.column, bound.limit, bound.what,
 * bound.why and, when the bound was left, result.diverged = 1, result.diverged_step,
 * result.diverged_time and result.diverged_reason, so that --summarize lists it among the
 * findings and the tables and figures mark the run "diverged at step N". */
void pbd_exp_bound(pbd_exp_ctx *ctx, const char *column, double limit, const char *what,
                   const char *why);
int pbd_exp_bound_check(pbd_exp_ctx *ctx, const pbd_world *w, double value);
/* The first step past the bound so far; 0 when within it or none declared. */
long pbd_exp_bound_step(const pbd_exp_ctx *ctx);
pbd_status pbd_exp_bound_write(pbd_exp_ctx *ctx, pbd_h5log *log);
/* From a run file alone: *step = the /series/step of the first row of /series/<bound.column>
 * above bound.limit or not finite, 0 when none is. Returns 0, or -1 when the file declares
 * no bound or its series cannot be read. */
int pbd_exp_bound_recompute(const char *path, long *step);

/* Comma-separated lists in a parameter ("1,5,10", "pbd,xpbd"): the count, or -1 after one
 * error line naming the option (then return PBD_EINVAL: exit status 2). */
int pbd_exp_numbers(pbd_exp_ctx *ctx, const char *option, const char *text, double *out,
                    int max, double lo, double hi);
int pbd_exp_words(pbd_exp_ctx *ctx, const char *option, const char *text,
                  const char *const *choices, int *out, int max);
/* Path of a run's result file. */
void pbd_exp_run_path(const pbd_exp_ctx *ctx, const char *run, char *buf, size_t size);

/* Sort n_rows rows of n_cols doubles by their first n_keys columns (lexicographically,
 * increasing): a summary table in sweep order. */
void pbd_exp_sort_rows(double *rows, int n_rows, int n_cols, int n_keys);

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


/* ---- --reference=newton (experiments/drivers/reference.c) -------------------------- */

/* A run measured against the Newton reference: before each step pbd_exp_reference_solve
 * solves the implicit step (XPBD Eq. 8–9, Δt = def.dt, to def.newton_tol) from the world's
 * state; after pbd_step, pbd_exp_reference_compare measures the step against it and, with a
 * log, fills the /series columns newton_max_distance, newton_rms_distance (m),
 * newton_reference_iterations, newton_reference_residual and per set
 * newton_force_error_<NN>_<type>:
 * ||f - f_N||_2 / ||f_N||_2 with f = λ/h² of the step's last substep and f_N = λ_N/Δt². */
typedef struct pbd_exp_reference {
    int n, n_sets, m;
    double *x, *lambda;      /* Newton's positions (3n) and multipliers (set after set) */
    int iterations;
    double residual;         /* ||(g, h)||_2 where Newton stopped */
    int minimum;             /* its answer checked: PBD_NEWTON_MINIMUM_* (solver/pbd.h) */
    double max_distance, rms_distance; /* m, over particles */
    double *force_error;     /* per set; NaN where Newton's forces are all zero */
    pbd_h5log *log;
    int c_max, c_rms, c_it, c_res, c_min, *c_force;
    /* record_failures: a step whose reference does not converge (PBD_ENUMERIC) is recorded
     * (failed = 1, NaN distances and force errors, the reason in the root attribute
     * reference_failures, /series/newton_reference_failed) and the run goes on */
    int record_failures, failed;
    long n_failed;
    int c_failed;
    char failures[2048];     /* "step N: reason; …" of the first failures */
} pbd_exp_reference;
/* log may be NULL (no columns). The world's topology must stay as it is. record_failures: 0
 * stops the run at a reference that fails (pbd_exp_reference_solve returns its status). */
pbd_status pbd_exp_reference_init(pbd_exp_reference *r, const pbd_world *w, pbd_h5log *log,
                                  int record_failures);
pbd_status pbd_exp_reference_solve(pbd_exp_reference *r, pbd_world *w);
void pbd_exp_reference_compare(pbd_exp_reference *r, const pbd_world *w);
/* Set the log columns from r's fields again (after a caller changed them). */
void pbd_exp_reference_compare_log(pbd_exp_reference *r, const pbd_world *w);
void pbd_exp_reference_free(pbd_exp_reference *r);

/* ---- scenes the experiments share (experiments/drivers/exp_scenes.c) ---------------- */

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
/* Strain e = (|d| - d0)/d0 of set `set`'s distance constraints: the mean of e and the largest
 * stretch, max(0, max e) (an edge shorter than its rest length is not stretched: 0 when
 * none is longer); pbd_exp_compression: the largest compression, max(0, max -e). */
void pbd_exp_stretch(const pbd_world *w, int set, double *mean, double *max);
double pbd_exp_compression(const pbd_world *w, int set);
/* Residuals over the sets whose type's C is in `unit` (e.g. "m": the distance-like sets),
 * from the last measure stage: max |C|, and ||C||_2 or ||C + α̃λ||_2 over them together
 * (never across units: DESIGN.md "The constraint is the unit"). */
double pbd_exp_max_c(const pbd_world *w, const char *unit);
double pbd_exp_l2_c(const pbd_world *w, const char *unit);
double pbd_exp_xpbd_residual(const pbd_world *w, const char *unit);
/* Wall time of the step's solver stages (all but the measurement), in s. */
double pbd_exp_step_seconds(const pbd_world *w);

/* The static equilibrium of w under gravity (experiments/drivers/exp_static.c): the minimum of
 * Σ C²/(2α) − Σ m g·x over the free particles by Newton's method, from w->x; on success w->x
 * and w->p hold it and w->v = 0. Every set: equality constraints with a scalar C and α > 0.
 * Converged when |∇E|∞ <= tol × (the largest particle weight m|g|) or below its round-off
 * floor (64 ε × the largest coordinate × the largest Hessian diagonal). Indefinite
 * stiffness is projected, steps are Armijo on E and never turn a tet inside out, so a
 * converged state has every tet upright (exp_static.c). PBD_ENUMERIC, with the reason, when
 * it does not get there within max_iter iterations. */
pbd_status pbd_exp_static_equilibrium(pbd_world *w, double tol, int max_iter, int *n_iter);

#ifdef __cplusplus
}
#endif

#endif
