/* `pbd-run <experiment> [options]`: the options every experiment shares, run selection
 * (--only, --list, --summarize), the progress line and the per-run log. */
#include "drivers_private.h"
#include "solver/test_hooks.h"

#include <hdf5.h>
#include <hdf5_hl.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A progress line appears once a run has taken this long: on a terminal one line redrawn
 * every PROGRESS_EVERY_SECONDS; otherwise (a log, the suite's make) a new line every
 * PROGRESS_LOG_SECONDS. --quiet shows none. */
#define PROGRESS_AFTER_SECONDS 2.0
#define PROGRESS_EVERY_SECONDS 0.25
#define PROGRESS_LOG_SECONDS 30.0

static double pbd_exp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void record_run(pbd_exp_ctx *ctx, const char *run)
{
    if (ctx->n_runs == ctx->cap_runs) {
        int cap = ctx->cap_runs ? 2 * ctx->cap_runs : 32;
        char **r = realloc(ctx->runs, (size_t)cap * sizeof *r);
        if (!r) return;
        ctx->runs = r;
        ctx->cap_runs = cap;
    }
    char *copy = malloc(strlen(run) + 1);
    if (!copy) return;
    strcpy(copy, run);
    ctx->runs[ctx->n_runs++] = copy;
}

int pbd_exp_want(pbd_exp_ctx *ctx, const char *run)
{
    record_run(ctx, run);
    if (pbd_interrupt_signal() && !ctx->list) return 0; /* interrupted: start nothing new */
    if (ctx->list) {
        if (!ctx->summarize) printf("%s\n", run);
        return 0;
    }
    if (ctx->only && strcmp(ctx->only, run) != 0) return 0;
    ctx->current_run = ctx->runs[ctx->n_runs - 1];
    ctx->run_start = ctx->last_progress = pbd_exp_now();
    ctx->progress_shown = 0;
    ctx->divergence_finding = NULL; /* a run declares its own (runaway.c) */
    ctx->diverged = 0;
    ctx->bound_column = NULL; /* and its own bound (bounds.c) */
    ctx->bound_step = 0;
    return 1;
}

void pbd_exp_run_path(const pbd_exp_ctx *ctx, const char *run, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s/%s.h5", ctx->out_dir, ctx->exp->name, run);
}

void pbd_exp_progress(pbd_exp_ctx *ctx, long done, long total)
{
    if (ctx->quiet) return;
    const int tty = isatty(STDERR_FILENO);
    double now = pbd_exp_now(), elapsed = now - ctx->run_start;
    if (elapsed < (tty ? PROGRESS_AFTER_SECONDS : PROGRESS_LOG_SECONDS)) return;
    if (now - ctx->last_progress < (tty ? PROGRESS_EVERY_SECONDS : PROGRESS_LOG_SECONDS) &&
        (tty ? ctx->progress_shown : 1))
        return;
    ctx->last_progress = now;
    ctx->progress_shown = tty;
    double fraction = total > 0 ? (double)done / (double)total : 0.0;
    char left[48] = "";
    if (fraction > 1e-6)
        snprintf(left, sizeof left, ", about %.0f s left", elapsed * (1.0 - fraction) / fraction);
    fprintf(stderr, "%s%s/%s: %ld of %ld (%.0f%%) after %.0f s%s%s", tty ? "\r" : "",
            ctx->exp->name, ctx->current_run, done, total, 100.0 * fraction, elapsed, left,
            tty ? "   " : "\n");
    fflush(stderr);
}

static void clear_progress(pbd_exp_ctx *ctx)
{
    if (ctx->progress_shown) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
        ctx->progress_shown = 0;
    }
}

pbd_h5log *pbd_exp_log_open(pbd_exp_ctx *ctx, const char *run, const pbd_world *w,
                            const pbd_h5log_options *opt)
{
    pbd_h5log_options o = {0};
    if (opt) o = *opt;
    if (ctx->frames_every > 0) o.frames_every = ctx->frames_every;
    pbd_h5log *log = pbd_h5log_open(ctx->out_dir, ctx->exp->name, run, w, &o);
    if (!log) return NULL;
    pbd_status st = pbd_h5log_attr_options(log, "param.", ctx->params, ctx->n_params);
    if (st == PBD_OK) st = pbd_h5log_attr_int(log, "quick", ctx->quick);
    char hash[32];
    pbd_exp_sweep_hash(ctx, hash, sizeof hash);
    if (st == PBD_OK) st = pbd_h5log_attr_string(log, "sweep_hash", hash);
    if (st != PBD_OK) {
        pbd_h5log_discard(log);
        return NULL;
    }
    return log;
}

pbd_status pbd_exp_log_finish(pbd_exp_ctx *ctx, pbd_h5log *log, const char *fmt, ...)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", pbd_h5log_path(log));
    pbd_status st = pbd_exp_runaway_write(ctx, log);
    if (st == PBD_OK) st = pbd_exp_bound_write(ctx, log);
    if (st != PBD_OK) return pbd_exp_log_abort(ctx, log, st);
    st = pbd_h5log_finish(log);
    clear_progress(ctx);
    if (st != PBD_OK) return st;
    ctx->n_done++;
    if (!ctx->quiet) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        printf("%s/%s: %s (%.1f s) -> %s\n", ctx->exp->name, ctx->current_run, msg,
               pbd_exp_now() - ctx->run_start, path);
        fflush(stdout);
    }
    return PBD_OK;
}

pbd_status pbd_exp_log_abort(pbd_exp_ctx *ctx, pbd_h5log *log, pbd_status st)
{
    pbd_h5log_stop(log, st);
    clear_progress(ctx);
    return st;
}

static int list_error(pbd_exp_ctx *ctx, const char *option, const char *what, const char *text)
{
    fprintf(stderr, "pbd-run %s: --%s: expected %s, found '%s'\n", ctx->exp->name, option, what,
            text);
    ctx->error_reported = 1;
    return -1;
}

int pbd_exp_numbers(pbd_exp_ctx *ctx, const char *option, const char *text, double *out,
                    int max, double lo, double hi)
{
    char what[160];
    snprintf(what, sizeof what, "a comma-separated list of at most %d numbers in [%g, %g]", max,
             lo, hi);
    int n = 0;
    const char *p = text;
    while (*p) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !(v >= lo && v <= hi) || n >= max || (*end && *end != ','))
            return list_error(ctx, option, what, text);
        for (int k = 0; k < n; k++) /* a value twice would run (and merge) its runs twice */
            if (out[k] == v) return list_error(ctx, option, "a list without repeated values", text);
        out[n++] = v;
        p = *end ? end + 1 : end;
        if (*end && !*p) return list_error(ctx, option, what, text);
    }
    if (n == 0) return list_error(ctx, option, what, text);
    return n;
}

int pbd_exp_words(pbd_exp_ctx *ctx, const char *option, const char *text,
                  const char *const *choices, int *out, int max)
{
    char what[256] = "a comma-separated list of";
    for (const char *const *c = choices; *c; c++) {
        strncat(what, " ", sizeof what - strlen(what) - 1);
        strncat(what, *c, sizeof what - strlen(what) - 1);
    }
    int n = 0;
    const char *p = text;
    while (*p) {
        size_t len = strcspn(p, ",");
        int found = -1;
        for (int c = 0; choices[c]; c++)
            if (strlen(choices[c]) == len && strncmp(choices[c], p, len) == 0) found = c;
        if (found < 0 || n >= max) return list_error(ctx, option, what, text);
        for (int k = 0; k < n; k++)
            if (out[k] == found) return list_error(ctx, option, "a list without repeated words", text);
        out[n++] = found;
        p += len;
        if (*p == ',') {
            p++;
            if (!*p) return list_error(ctx, option, what, text);
        }
    }
    if (n == 0) return list_error(ctx, option, what, text);
    return n;
}

/* ---- summary.h5 --------------------------------------------------------------------- */

struct pbd_exp_summary {
    pbd_exp_ctx *ctx;
    hid_t file;
    char path[4096], partial[4200];
    pbd_atomic_file atomic; /* summary.h5.partial-<pid>, removed on a second signal */
};

pbd_exp_summary *pbd_exp_summary_open(pbd_exp_ctx *ctx)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    pbd_exp_summary *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->ctx = ctx;
    char dir[3800];
    snprintf(dir, sizeof dir, "%s/%s", ctx->out_dir, ctx->exp->name);
    snprintf(s->path, sizeof s->path, "%s/summary.h5", dir);
    if (pbd_mkdirs(dir) != 0 || pbd_atomic_begin(&s->atomic, s->path) != PBD_OK) {
        pbd_error(PBD_EIO, "%s: cannot create the summary file", s->path);
        free(s);
        return NULL;
    }
    snprintf(s->partial, sizeof s->partial, "%s", s->atomic.tmp);
    if ((s->file = pbd_h5_create(s->partial)) < 0) {
        pbd_error(PBD_EIO, "%s: cannot create the summary file", s->partial);
        pbd_atomic_abort(&s->atomic);
        free(s);
        return NULL;
    }
    pbd_h5_write_provenance(s->file);
    H5LTset_attribute_string(s->file, "/", "experiment", ctx->exp->name);
    char description[2048];
    snprintf(description, sizeof description, "%s%s%s", ctx->exp->description,
             ctx->as_run[0] ? ". As run: " : "", ctx->as_run);
    H5LTset_attribute_string(s->file, "/", "description", description);
    H5LTset_attribute_string(s->file, "/", "paper", ctx->exp->paper);
    long quick = ctx->quick;
    H5LTset_attribute_long(s->file, "/", "quick", &quick, 1);
    /* which of the sweep's runs were merged (those the validation kept in ctx->runs), and
     * which were left out (missing or bad, with --allow-missing) */
    size_t len = 1;
    for (int i = 0; i < ctx->n_runs; i++) len += strlen(ctx->runs[i]) + 1;
    char *merged = calloc(len, 1);
    for (int i = 0; merged && i < ctx->n_runs; i++) {
        if (*merged) strcat(merged, " ");
        strcat(merged, ctx->runs[i]);
    }
    long n_merged = ctx->n_runs, n_missing = ctx->n_missing;
    H5LTset_attribute_string(s->file, "/", "runs_merged", merged ? merged : "");
    H5LTset_attribute_string(s->file, "/", "runs_missing",
                             ctx->runs_missing ? ctx->runs_missing : "");
    H5LTset_attribute_long(s->file, "/", "n_runs_merged", &n_merged, 1);
    H5LTset_attribute_long(s->file, "/", "n_runs_missing", &n_missing, 1);
    free(merged);
    char *findings; /* the merged runs' declared run-aways (runaway.c) */
    pbd_exp_runaway_findings(ctx, &findings);
    if (findings) H5LTset_attribute_string(s->file, "/", "findings", findings);
    free(findings);
    return s;
}

pbd_status pbd_exp_summary_table(pbd_exp_summary *s, const char *name, const double *data,
                                 int rows, int n_cols, const char *const *col_names,
                                 const char *units)
{
    hid_t g = H5Gopen2(s->file, "tables", H5P_DEFAULT);
    if (g < 0) g = H5Gcreate2(s->file, "tables", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return pbd_error(PBD_EIO, "%s: cannot create /tables", s->partial);
    hsize_t dims[2] = {(hsize_t)rows, (hsize_t)n_cols};
    double dummy = 0.0;
    int bad = pbd_h5_write_array(g, name, H5T_NATIVE_DOUBLE, 2, dims, rows > 0 ? data : &dummy) != 0;
    char cols[1024] = "";
    for (int c = 0; c < n_cols; c++) {
        if (c) strncat(cols, " ", sizeof cols - strlen(cols) - 1);
        strncat(cols, col_names[c], sizeof cols - strlen(cols) - 1);
    }
    if (!bad) {
        hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
        H5LTset_attribute_string(d, ".", "columns", cols);
        H5LTset_attribute_string(d, ".", "units", units ? units : "");
        H5Dclose(d);
    }
    H5Gclose(g);
    return bad ? pbd_error(PBD_EIO, "%s: cannot write /tables/%s", s->partial, name) : PBD_OK;
}

pbd_status pbd_exp_summary_double(pbd_exp_summary *s, const char *name, double v)
{
    if (H5LTset_attribute_double(s->file, "/", name, &v, 1) < 0)
        return pbd_error(PBD_EIO, "%s: attribute %s: cannot write", s->partial, name);
    return PBD_OK;
}

long long pbd_exp_summary_file(pbd_exp_summary *s) { return (long long)s->file; }

pbd_status pbd_exp_summary_finish(pbd_exp_summary *s, const char *fmt, ...)
{
    va_list ap; /* the whole headline, however long (no buffer cuts it) */
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *headline = malloc(len > 0 ? (size_t)len + 1 : 1);
    if (!headline) {
        H5Fclose(s->file);
        pbd_atomic_abort(&s->atomic);
        free(s);
        return pbd_error(PBD_ENOMEM, "summary: out of memory");
    }
    headline[0] = '\0';
    va_start(ap, fmt);
    if (len > 0) vsnprintf(headline, (size_t)len + 1, fmt, ap);
    va_end(ap);
    int bad = H5LTset_attribute_string(s->file, "/", "headline", headline) < 0;
    bad |= H5Fclose(s->file) < 0;
    pbd_status st = PBD_OK;
    if (bad) pbd_atomic_abort(&s->atomic);
    if (bad || pbd_atomic_commit(&s->atomic) != PBD_OK) {
        st = pbd_error(PBD_EIO, "%s: cannot write the summary", s->path);
    } else if (!s->ctx->quiet) {
        printf("%s: %s\n    paper: %s\n", s->ctx->exp->name, headline, s->ctx->exp->paper);
    }
    free(headline);
    free(s);
    return st;
}

static void free_runs(pbd_exp_ctx *ctx)
{
    for (int i = 0; i < ctx->n_runs; i++) free(ctx->runs[i]);
    free(ctx->runs);
    ctx->runs = NULL;
    ctx->n_runs = ctx->cap_runs = 0;
}

/* Runs of the enumerated sweep whose file exists and was made by a full (not --quick) run. */
static int count_full_runs(const pbd_exp_ctx *ctx)
{
    int n = 0;
    for (int i = 0; i < ctx->n_runs; i++) {
        char path[4096];
        double q = 1.0;
        pbd_exp_run_path(ctx, ctx->runs[i], path, sizeof path);
        n += pbd_h5_read_attr_double(path, "quick", &q) == 0 && q == 0.0;
    }
    return n;
}

/* A signal that arrived outside a logged step (between runs, in a summary): no run was cut,
 * but the program stops and says so. */
static int check_interrupted(int status)
{
    int sig = pbd_interrupt_signal();
    if (status != PBD_OK || !sig) return status;
    return pbd_error(PBD_EINTR, "interrupted by %s; the runs finished so far are kept",
                     pbd_signal_name(sig));
}

int pbd_experiment_main(const pbd_experiment *e, int argc, char **argv)
{
    int quick = 0;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
    cli_option opts[PBD_MAX_OPTIONS + 16];
    int n_params = e->options(opts, quick);
    const char *out_dir = "data/results", *only = NULL;
    int quiet = 0, list = 0, summarize = 0, frames = 0, fault_step = 0, allow_missing = 0,
        fault_kind = 0;
    static const char *const fault_kinds[] = {"nan", "hang", NULL};
    const cli_option common[] = {
        {"quick", CLI_FLAG, &quick, 0, 0, 0, "reduced sizes and steps (the CI suite)", NULL},
        {"quiet", CLI_FLAG, &quiet, 0, 0, 0, "print only errors (no per-run lines, no progress)",
         NULL},
        {"out", CLI_STRING, &out_dir, 0, 0, 0,
         "results root; files go to DIR/<experiment>/<run>.h5 (default data/results)", NULL},
        {"only", CLI_STRING, &only, 0, 0, 0, "run only the run named TEXT (see --list)", NULL},
        {"list", CLI_FLAG, &list, 0, 0, 0, "print the sweep's run names and exit", NULL},
        {"summarize", CLI_FLAG, &summarize, 0, 0, 0,
         "merge the runs' files into summary.h5 and print the headline (every run's file is "
         "checked first: a bad or missing run is an error, exit 1)", NULL},
        {"allow-missing", CLI_FLAG, &allow_missing, 0, 0, 0,
         "with --summarize: merge the good runs of a partial sweep, naming the others", NULL},
        {"frames", CLI_INT, &frames, 0, 1e9, 0, "write /frames every N steps (0: default)", NULL},
        {"test-fault-step", CLI_INT, &fault_step, 0, 1e9, 0,
         "TEST ONLY: step N of each run gets a NaN velocity, so that the watchdog stops it "
         "(0: off)", NULL},
        {"test-fault", CLI_CHOICE, &fault_kind, 0, 0, 0,
         "TEST ONLY: what --test-fault-step does (hang: the step never ends, as a stuck "
         "factorisation)", fault_kinds},
    };
    int n_opts = n_params;
    for (unsigned i = 0; i < sizeof common / sizeof common[0]; i++) opts[n_opts++] = common[i];
    char prog[128], usage[1024];
    snprintf(prog, sizeof prog, "pbd-run %s", e->name);
    snprintf(usage, sizeof usage,
             "pbd-run %s [options]\n\n%s\nPaper: %s\n\nWithout --only, every run of the sweep "
             "runs in turn and the summary is written.\nParameters (defaults of the %s suite):",
             e->name, e->description, e->paper, quick ? "quick" : "full");
    int rc = cli_parse(prog, usage, argc, argv, 1, opts, n_opts, NULL, 0, NULL);
    if (rc == CLI_EXIT_OK) return 0;
    if (rc != CLI_OK) return 2;
    if (!*out_dir) {
        fprintf(stderr, "%s: --out: expected a directory, found ''\n", prog);
        return 2;
    }
    if (cli_given(&fault_kind) && fault_step == 0) {
        fprintf(stderr, "%s: --test-fault: cannot act here: it says what --test-fault-step does: "
                "give --test-fault-step=N\n", prog);
        return 2;
    }
    pbd_test_fault_step = fault_step;
    pbd_test_fault_hang = fault_kind == 1;
    pbd_interrupt_install();

    pbd_exp_ctx ctx = {
        .exp = e, .out_dir = out_dir, .quick = quick, .quiet = quiet, .list = list || summarize,
        .summarize = summarize, .only = only, .frames_every = frames,
        .params = opts, .n_params = n_params,
        .allow_missing = allow_missing,
    };
    int status = e->run(&ctx);
    if (status == PBD_OK && summarize && !quick && count_full_runs(&ctx) == 0) {
        /* no file of a full run: merge the quick sweep's files */
        free_runs(&ctx);
        quick = 1;
        n_params = e->options(opts, 1);
        cli_parse(prog, usage, argc, argv, 1, opts, n_opts, NULL, 0, NULL);
        ctx.quick = 1;
        status = e->run(&ctx);
    }
    if (status == PBD_OK && only && !ctx.list && ctx.n_done == 0) {
        int matched = 0;
        for (int i = 0; i < ctx.n_runs; i++) matched |= strcmp(ctx.runs[i], only) == 0;
        if (!matched) {
            fprintf(stderr, "%s: --only: expected a run name from --list, found '%s'\n", prog, only);
            ctx.error_reported = 1;
            status = PBD_EINVAL;
        }
    }
    status = check_interrupted(status); /* no summary of a sweep cut short */
    if (status == PBD_OK && (summarize || (!list && !only)) && e->summarize) {
        if (!summarize) { /* the sweep just ran: enumerate it again for the merge */
            free_runs(&ctx);
            ctx.list = ctx.summarize = 1;
            status = e->run(&ctx);
        }
        if (status == PBD_OK && e->run != NULL) status = pbd_exp_validate_runs(&ctx, prog);
        if (status == PBD_OK) status = e->summarize(&ctx);
    }
    status = check_interrupted(status);
    if (status != PBD_OK && !ctx.error_reported) fprintf(stderr, "%s: %s\n", prog, pbd_last_error());
    pbd_interrupt_done();
    free_runs(&ctx);
    free(ctx.runs_missing);
    pbd_exp_runaway_free(&ctx);
    return pbd_exit_status(status);
}

/* The key count of the sort in progress (summaries are merged by one thread). */
static int sort_keys;

static int cmp_rows(const void *a, const void *b)
{
    const double *x = a, *y = b;
    for (int k = 0; k < sort_keys; k++)
        if (x[k] != y[k]) return (x[k] > y[k]) - (x[k] < y[k]);
    return 0;
}

void pbd_exp_sort_rows(double *rows, int n_rows, int n_cols, int n_keys)
{
    if (n_rows < 2) return;
    sort_keys = n_keys;
    qsort(rows, (size_t)n_rows, (size_t)n_cols * sizeof *rows, cmp_rows);
}
