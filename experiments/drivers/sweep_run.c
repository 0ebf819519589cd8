/* `pbd-run --sweep=FILE --out=DIR` (experiments/README.md "Your own sweep"): the grid of a
 * sweep file (sweep_file.c) as runs of an experiment: one `pbd-run SCENE …` process and one
 * file each, DIR/<scene>/<run>.h5, checked and merged into DIR/<scene>/summary.h5 by the
 * experiments' own framework (pbd_exp_want, pbd_exp_validate_runs, pbd_exp_summary_*). */
#include "drivers_private.h"

#include <errno.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const pbd_sweep *the_sweep; /* the sweep the callbacks below enumerate */
static char the_hash[32];
static int first_failure;           /* the first run's exit status that was not 0 */
static int n_failed;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A complete file of this sweep is there already: an interrupted sweep resumes. */
static int done_before(const pbd_exp_ctx *ctx, const char *run)
{
    char path[4096], hash[64];
    double complete = 0.0;
    pbd_exp_run_path(ctx, run, path, sizeof path);
    return pbd_h5_read_attr_double(path, "complete", &complete) == 0 && complete == 1.0 &&
           pbd_h5_read_attr_string(path, "sweep_hash", hash, sizeof hash) == 0 &&
           !strcmp(hash, the_hash);
}

/* pbd-run SCENE --KEY=VALUE… --out=DIR --run=NAME --sweep-hash=H --quiet, waited for: its
 * exit status (128 + N when a signal ended it). */
static int run_child(const pbd_exp_ctx *ctx, long r, const char *name)
{
    const pbd_sweep *s = the_sweep;
    char **argv = calloc((size_t)s->n_keys + 8, sizeof *argv);
    char out[4200], run[300], hash[64];
    if (!argv) return pbd_exit_status(PBD_ENOMEM);
    int n = 0;
    argv[n++] = "pbd-run";
    argv[n++] = (char *)s->scene;
    for (int k = 0; k < s->n_keys; k++) {
        const char *v = s->keys[k].values[pbd_sweep_value(s, r, k)];
        if (s->keys[k].flag && !strcmp(v, "no")) continue;
        size_t len = strlen(s->keys[k].name) + strlen(v) + 4;
        if (!(argv[n] = malloc(len))) break;
        if (s->keys[k].flag) snprintf(argv[n++], len, "--%s", s->keys[k].name);
        else snprintf(argv[n++], len, "--%s=%s", s->keys[k].name, v);
    }
    snprintf(out, sizeof out, "--out=%s", ctx->out_dir);
    snprintf(run, sizeof run, "--run=%s", name);
    snprintf(hash, sizeof hash, "--sweep-hash=%s", the_hash);
    argv[n++] = out;
    argv[n++] = run;
    argv[n++] = hash;
    argv[n++] = "--quiet";
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        if (ctx->quiet && !freopen("/dev/null", "w", stdout)) _exit(127);
        execv("/proc/self/exe", argv);
        fprintf(stderr, "pbd-run --sweep: cannot start /proc/self/exe: %s\n", strerror(errno));
        _exit(127);
    }
    int status = -1, forwarded = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        if (pbd_interrupt_signal() && !forwarded) { /* a signal to this process alone */
            kill(pid, pbd_interrupt_signal());          /* stops its run too */
            forwarded = 1;
        }
    for (int k = 2; k < n - 4; k++) free(argv[k]);
    free(argv);
    if (pid < 0) return pbd_exit_status(PBD_ENOMEM);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int sweep_run(pbd_exp_ctx *ctx)
{
    const pbd_sweep *s = the_sweep;
    for (long r = 0; r < s->n_runs; r++) {
        char name[PBD_SWEEP_NAME];
        pbd_sweep_run_name(s, r, name, sizeof name);
        if (!pbd_exp_want(ctx, name)) continue;
        if (done_before(ctx, name)) {
            if (!ctx->quiet) printf("pbd-run --sweep: run %ld of %ld (%s): kept from before\n",
                                    r + 1, s->n_runs, name);
            ctx->n_done++;
            continue;
        }
        double t0 = now_seconds();
        int rc = run_child(ctx, r, name);
        if (rc != 0) {
            fprintf(stderr, "pbd-run --sweep: run %ld of %ld (%s) FAILED (exit status %d)\n",
                    r + 1, s->n_runs, name, rc);
            if (!first_failure) first_failure = rc;
            n_failed++;
        } else if (!ctx->quiet) {
            printf("pbd-run --sweep: run %ld of %ld (%s) done in %.1f s\n", r + 1, s->n_runs,
                   name, now_seconds() - t0);
        }
        ctx->n_done++;
    }
    return PBD_OK;
}

/* The last finite value of a one-column series, or NaN. */
static double last_finite(const double *v, long rows, long cols, long col)
{
    for (long i = rows - 1; v && i >= 0; i--)
        if (isfinite(v[i * cols + col])) return v[i * cols + col];
    return NAN;
}

static double series(const char *path, const char *name, int last, int norm)
{
    double *v = NULL, x = NAN;
    long rows = 0, cols = 0;
    if (pbd_h5_read_dataset(path, name, &v, &rows, &cols) == 0 && rows > 0) {
        if (norm) { /* |v| of the last row of a rows × 3 column */
            double s2 = 0.0;
            for (long c = 0; c < cols; c++) s2 += v[(rows - 1) * cols + c] * v[(rows - 1) * cols + c];
            x = sqrt(s2);
        } else if (last) {
            x = last_finite(v, rows, cols, 0);
        } else {
            for (long i = 0; i < rows && !isfinite(x); i++) x = v[i * cols];
        }
    }
    free(v);
    return x;
}

/* The whole run's wall time in its solver stages (s): the sum of /series/stage_seconds. */
static double wall_seconds(const char *path)
{
    double *v = NULL, sum = 0.0;
    long rows = 0, cols = 0;
    if (pbd_h5_read_dataset(path, "/series/stage_seconds", &v, &rows, &cols) != 0) return NAN;
    for (long i = 0; i < rows * cols; i++) sum += isfinite(v[i]) ? v[i] : 0.0;
    free(v);
    return sum;
}

/* One row per merged run: its grid index, the value of each swept key (a number, or the
 * value's position in the file's list for words), then what every run file holds. */
static int sweep_summarize(pbd_exp_ctx *ctx)
{
    const pbd_sweep *s = the_sweep;
    int swept[PBD_SWEEP_MAX_KEYS], n_swept = 0;
    for (int k = 0; k < s->n_keys; k++)
        if (s->keys[k].n > 1) swept[n_swept++] = k;
    enum { N_RESULTS = 8 };
    const int n_cols = 1 + n_swept + N_RESULTS;
    double *rows = calloc((size_t)ctx->n_runs * (size_t)n_cols + 1, sizeof *rows);
    const char **cols = calloc((size_t)n_cols, sizeof *cols);
    char units[2048] = "1", max_c_unit[64] = "";
    if (!rows || !cols) {
        free(rows);
        free((void *)cols);
        return pbd_error(PBD_ENOMEM, "--sweep --summarize: out of memory");
    }
    cols[0] = "run";
    for (int j = 0; j < n_swept; j++) {
        const pbd_sweep_key *k = &s->keys[swept[j]];
        int numeric = 1;
        for (int v = 0; v < k->n; v++) {
            char *end;
            strtod(k->values[v], &end);
            numeric &= end != k->values[v] && !*end;
        }
        cols[1 + j] = k->name;
        strncat(units, numeric ? " value" : " index", sizeof units - strlen(units) - 1);
    }
    static const char *const result_cols[N_RESULTS] = {
        "t_end", "max_c_end", "total_energy_step1", "total_energy_end", "linear_momentum_end",
        "angular_momentum_end", "wall_seconds", "steps"};
    for (int c = 0; c < N_RESULTS; c++) cols[1 + n_swept + c] = result_cols[c];
    double lo = INFINITY, hi = -INFINITY;
    int lo_run = 0, hi_run = 0;
    for (int i = 0; i < ctx->n_runs; i++) {
        char path[4096], name[PBD_SWEEP_NAME];
        pbd_exp_run_path(ctx, ctx->runs[i], path, sizeof path);
        long r = 0;
        for (; r < s->n_runs; r++) {
            pbd_sweep_run_name(s, r, name, sizeof name);
            if (!strcmp(name, ctx->runs[i])) break;
        }
        double *row = rows + (size_t)i * (size_t)n_cols;
        row[0] = (double)(r + 1);
        for (int j = 0; j < n_swept; j++) {
            const pbd_sweep_key *k = &s->keys[swept[j]];
            int v = pbd_sweep_value(s, r, swept[j]);
            char *end;
            double x = strtod(k->values[v], &end);
            row[1 + j] = end != k->values[v] && !*end ? x : (double)v;
        }
        double *res = row + 1 + n_swept, steps = NAN;
        res[0] = series(path, "/series/time", 1, 0);
        res[1] = series(path, "/series/max_c", 1, 0);
        res[2] = series(path, "/series/total_energy", 0, 0);
        res[3] = series(path, "/series/total_energy", 1, 0);
        res[4] = series(path, "/series/linear_momentum", 1, 1);
        res[5] = series(path, "/series/angular_momentum", 1, 1);
        res[6] = wall_seconds(path);
        pbd_h5_read_attr_double(path, "steps", &steps);
        res[7] = steps;
        if (res[1] < lo) lo = res[1], lo_run = i;
        if (res[1] > hi) hi = res[1], hi_run = i;
        hid_t f = max_c_unit[0] ? -1 : H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        if (f >= 0) { /* /series/max_c is there when every set has the same unit */
            if (H5Lexists(f, "/series", H5P_DEFAULT) > 0 &&
                H5Lexists(f, "/series/max_c", H5P_DEFAULT) > 0)
                H5LTget_attribute_string(f, "/series/max_c", "units", max_c_unit);
            H5Fclose(f);
        }
    }
    char result_units[256];
    snprintf(result_units, sizeof result_units, " s %s J J kg*m/s kg*m^2/s s 1",
             max_c_unit[0] ? max_c_unit : "mixed");
    strncat(units, result_units, sizeof units - strlen(units) - 1);
    pbd_exp_summary *sum = pbd_exp_summary_open(ctx);
    pbd_status st = sum ? PBD_OK : pbd_last_status();
    if (st == PBD_OK) st = pbd_exp_summary_table(sum, "runs", rows, ctx->n_runs, n_cols, cols, units);
    if (st == PBD_OK) /* the file's own text, to see what was swept */
        st = H5LTset_attribute_string((hid_t)pbd_exp_summary_file(sum), "/", "sweep_file",
                                      s->path) < 0 ? PBD_EIO : PBD_OK;
    char keys[1024] = "";
    for (int j = 0; j < n_swept; j++) {
        const pbd_sweep_key *k = &s->keys[swept[j]];
        size_t len = strlen(keys);
        snprintf(keys + len, sizeof keys - len, "%s%s (%d)", j ? " x " : "", k->name, k->n);
    }
    if (sum && st == PBD_OK) {
        if (isfinite(lo))
            st = pbd_exp_summary_finish(sum, "%d runs of %s over %s: max|C| at the end from %.3g "
                                        "%s (%s) to %.3g %s (%s)", ctx->n_runs, s->scene,
                                        n_swept ? keys : "no swept key", lo, max_c_unit,
                                        ctx->runs[lo_run], hi, max_c_unit, ctx->runs[hi_run]);
        else
            st = pbd_exp_summary_finish(sum, "%d runs of %s over %s (sets of different units: "
                                        "max|C| per set in each run's /series/sets)", ctx->n_runs,
                                        s->scene, n_swept ? keys : "no swept key");
    }
    free(rows);
    free((void *)cols);
    return st;
}

int pbd_sweep_main(int argc, char **argv, const cli_option *opts, int n_opts)
{
    const char *file = NULL, *out = NULL, *only = NULL;
    int quiet = 0, list = 0, summarize = 0, allow_missing = 0;
    const cli_option own[] = {
        {"sweep", CLI_STRING, &file, 0, 0, 0, "the sweep file (experiments/README.md \"Your own "
         "sweep\")", NULL},
        {"out", CLI_STRING, &out, 0, 0, 0, "results root: DIR/<scene>/<run>.h5 and "
         "DIR/<scene>/summary.h5 (required)", NULL},
        {"only", CLI_STRING, &only, 0, 0, 0, "run only the run named TEXT (see --list)", NULL},
        {"list", CLI_FLAG, &list, 0, 0, 0, "print the grid's run names and exit", NULL},
        {"summarize", CLI_FLAG, &summarize, 0, 0, 0, "merge the runs present into summary.h5",
         NULL},
        {"allow-missing", CLI_FLAG, &allow_missing, 0, 0, 0,
         "merge the good runs when some are missing or failed, naming the others", NULL},
        {"quiet", CLI_FLAG, &quiet, 0, 0, 0, "print only errors (no per-run lines, no headline)", NULL},
    };
    const char *positional[1];
    int np = 0;
    int rc = cli_parse("pbd-run --sweep", "pbd-run [SCENE] --sweep=FILE --out=DIR [options]\n\n"
                       "Runs the grid of a sweep file, one pbd-run process and one file each, "
                       "then merges them.", argc, argv, 1, own,
                       (int)(sizeof own / sizeof own[0]), positional, 1, &np);
    if (rc == CLI_EXIT_OK) return 0;
    if (rc != CLI_OK) return 2;
    if (!out || !*out) {
        fprintf(stderr, "pbd-run --sweep: --out: expected the results directory, found %s\n",
                out ? "''" : "nothing");
        return 2;
    }
    pbd_sweep s;
    pbd_status st = pbd_sweep_read(file, np ? positional[0] : NULL, opts, n_opts, &s);
    if (st != PBD_OK) {
        if (!s.reported) fprintf(stderr, "pbd-run: %s\n", pbd_last_error());
        pbd_sweep_free(&s);
        return pbd_exit_status(st);
    }
    /* the sweep's parameters: the scene and every key's list (their hash: sweep_hash) */
    cli_option rows[PBD_SWEEP_MAX_KEYS + 1];
    const char *scene_text = s.scene;
    rows[0] = (cli_option){"scene", CLI_STRING, &scene_text, 0, 0, 0, "", NULL};
    for (int k = 0; k < s.n_keys; k++)
        rows[1 + k] = (cli_option){s.keys[k].name, CLI_STRING, &s.keys[k].list, 0, 0, 0, "", NULL};
    char description[1200];
    snprintf(description, sizeof description, "the runs of the sweep file %s (%ld runs)", file,
             s.n_runs);
    pbd_experiment e = {.name = s.scene, .description = description,
                        .paper = "(a sweep of one's own: no paper)"};
    pbd_exp_ctx ctx = {.exp = &e, .out_dir = out, .quiet = quiet, .list = list || summarize,
                       .summarize = summarize, .only = only, .params = rows,
                       .n_params = 1 + s.n_keys, .allow_missing = allow_missing};
    the_sweep = &s;
    pbd_exp_sweep_hash(&ctx, the_hash, sizeof the_hash);
    first_failure = n_failed = 0;
    pbd_interrupt_install();
    st = sweep_run(&ctx);
    int status = 0;
    if (only && !list && ctx.n_done == 0) {
        fprintf(stderr, "pbd-run --sweep: --only: expected a run name from --list, found '%s'\n",
                only);
        status = 2;
    } else if (pbd_interrupt_signal()) {
        fprintf(stderr, "pbd-run --sweep: interrupted by %s; the runs finished so far are kept\n",
                pbd_signal_name(pbd_interrupt_signal()));
        status = 128 + pbd_interrupt_signal();
    } else if (n_failed) {
        fprintf(stderr, "pbd-run --sweep: %d of %ld runs failed (above)%s\n", n_failed, s.n_runs,
                allow_missing ? "; merging the others" : "; no summary (--allow-missing merges "
                "the others)");
        status = first_failure;
    }
    if ((status == 0 || (n_failed && allow_missing)) && (summarize || (!list && !only))) {
        for (int i = 0; i < ctx.n_runs; i++) free(ctx.runs[i]);
        ctx.n_runs = 0;
        ctx.list = ctx.summarize = 1;
        sweep_run(&ctx); /* enumerate the grid again for the merge */
        st = pbd_exp_validate_runs(&ctx, "pbd-run --sweep");
        if (st == PBD_OK) st = sweep_summarize(&ctx);
        if (st != PBD_OK) {
            fprintf(stderr, "pbd-run --sweep: %s\n", pbd_last_error());
            if (!status) status = pbd_exit_status(st);
        }
    }
    for (int i = 0; i < ctx.n_runs; i++) free(ctx.runs[i]);
    free(ctx.runs);
    free(ctx.runs_missing);
    pbd_exp_runaway_free(&ctx);
    pbd_sweep_free(&s);
    pbd_interrupt_done();
    return status;
}
