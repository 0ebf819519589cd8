/* The sweep's parameters in every run file, and what a merge (--summarize) accepts: the
 * runs made with this sweep's parameters, complete, of this experiment (experiments/README.md
 * "HDF5 results": sweep_hash). */
#include "drivers_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What the sweep was asked for: FNV-1a 64 of quick and every parameter row (name=value,
 * numbers as %.17g), as 16 hex digits. Every run's file carries it (sweep_hash), and
 * --summarize merges only files whose sweep_hash is the one its own command line gives. */
void pbd_exp_sweep_hash(const pbd_exp_ctx *ctx, char *hex, size_t size)
{
    unsigned long long h = 0;
    pbd_hash_text(&h, ctx->quick ? "quick=1" : "quick=0");
    for (int i = 0; i < ctx->n_params; i++) {
        const cli_option *o = &ctx->params[i];
        char text[1200];
        const char *str = NULL;
        switch (o->kind) {
        case CLI_DOUBLE: snprintf(text, sizeof text, "%.17g", *(const double *)o->value); break;
        case CLI_INT:
        case CLI_FLAG: snprintf(text, sizeof text, "%d", *(const int *)o->value); break;
        case CLI_CHOICE: str = o->choices[*(const int *)o->value]; break;
        case CLI_STRING: str = *(const char *const *)o->value; break;
        }
        if (o->kind == CLI_CHOICE || o->kind == CLI_STRING)
            snprintf(text, sizeof text, "%s", str ? str : "");
        pbd_hash_text(&h, o->name);
        pbd_hash_text(&h, text);
    }
    snprintf(hex, size, "%016llx", h);
}

/* Why a run's file cannot be merged ("" when it can): it must open as HDF5, say complete = 1
 * and experiment = this one, and (a run of steps) hold as many /series/time rows as its
 * attribute steps. */
static void run_problem(const pbd_exp_ctx *ctx, const char *run, char *why, size_t size)
{
    char path[4096], text[256];
    struct stat sb;
    double v = 0.0;
    why[0] = '\0';
    pbd_exp_run_path(ctx, run, path, sizeof path);
    if (stat(path, &sb) != 0) { /* why, when known: the suite's record, the partial file's */
        char partial[4200], failed[4200], line[1024] = "", stopped[1024] = "";
        snprintf(partial, sizeof partial, "%s/%s/%s.partial.h5", ctx->out_dir, ctx->exp->name, run);
        snprintf(failed, sizeof failed, "%s/logs/%s/%s.failed", ctx->out_dir, ctx->exp->name, run);
        FILE *f = fopen(failed, "r"); /* experiments/drivers/suite_run.sh */
        if (f) {
            if (!fgets(line, sizeof line, f)) line[0] = '\0';
            line[strcspn(line, "\n")] = '\0';
            fclose(f);
        }
        int have_partial = stat(partial, &sb) == 0;
        if (have_partial) pbd_h5_read_attr_string(partial, "stopped", stopped, sizeof stopped);
        snprintf(why, size, "missing%s%s%s%s%s", *line ? "; the suite's run: " : "", line,
                 have_partial ? "; stopped early" : "", *stopped ? ": " : "", stopped);
        if (have_partial) {
            size_t len = strlen(why);
            snprintf(why + len, size - len, ", see %s", partial);
        }
        return;
    }
    /* a FIFO, a corrupt file: named, never a hang or a crash */
    if (pbd_h5_check_file(path, why, size) != 0) return;
    if (pbd_h5_read_attr_double(path, "complete", &v) != 0 || v != 1.0) {
        snprintf(why, size, "%s: expected the attribute complete = 1, found %s", path,
                 pbd_h5_read_attr_double(path, "complete", &v) != 0 ? "none" : "0");
        return;
    }
    if (pbd_h5_read_attr_string(path, "experiment", text, sizeof text) != 0 ||
        strcmp(text, ctx->exp->name) != 0) {
        snprintf(why, size, "%s: expected the attribute experiment = %s", path, ctx->exp->name);
        return;
    }
    /* made with the sweep's parameters (and quick flag): the same hash as this command's
     * (every run file pbd_exp_log_open made; not the gradient checker's, which has no
     * steps and no sweep_hash) */
    if (pbd_h5_read_attr_double(path, "steps", &v) != 0) return;
    char want[32];
    pbd_exp_sweep_hash(ctx, want, sizeof want);
    if (pbd_h5_read_attr_string(path, "sweep_hash", text, sizeof text) != 0) text[0] = '\0';
    if (strcmp(text, want) != 0) {
        char differ[600] = "";
        for (int i = 0; i < ctx->n_params && !*differ; i++) { /* name one that differs */
            const cli_option *o = &ctx->params[i];
            char name[160];
            double have = 0.0, mine = 0.0;
            snprintf(name, sizeof name, "param.%s", o->name);
            if (o->kind == CLI_DOUBLE) mine = *(const double *)o->value;
            else if (o->kind == CLI_INT || o->kind == CLI_FLAG) mine = *(const int *)o->value;
            else continue;
            if (pbd_h5_read_attr_double(path, name, &have) == 0 && have != mine)
                snprintf(differ, sizeof differ, ": %s = %.17g in the file, %.17g in this sweep",
                         name, have, mine);
        }
        if (!*differ && pbd_h5_read_attr_double(path, "quick", &v) == 0 && v != ctx->quick)
            snprintf(differ, sizeof differ, ": made %s --quick", v != 0.0 ? "with" : "without");
        if (snprintf(why, size, "%s: expected the parameters of this sweep (sweep_hash %s), "
                     "found %s%s%s", path, want, *text ? "sweep_hash " : "no sweep_hash (an "
                     "older pbdlab?)", *text ? text : "", differ) >= (int)size)
            why[size - 1] = '\0'; /* cut: the line stays one line */
        return;
    }
    double *t = NULL;
    long rows = 0, cols = 0;
    if (pbd_h5_read_attr_double(path, "steps", &v) != 0) return; /* no steps (gradcheck) */
    if (pbd_h5_read_dataset(path, "/series/time", &t, &rows, &cols) != 0 || (double)rows != v)
        snprintf(why, size, "%s: expected /series/time with as many rows as the attribute "
                 "steps, found %ld rows", path, rows);
    free(t);
}

/* --summarize: check every run's file before merging. Bad or missing runs are an error
 * (one line naming them) unless --allow-missing, which merges the others; zero runs to
 * merge is always an error. The good runs stay in ctx->runs; the others go to
 * ctx->runs_missing. */
pbd_status pbd_exp_validate_runs(pbd_exp_ctx *ctx, const char *prog)
{
    size_t cap = 256, used = 0;
    char *list = calloc(cap, 1);
    if (!list) return pbd_error(PBD_ENOMEM, "%s --summarize: out of memory", prog);
    int kept = 0;
    ctx->n_missing = 0;
    for (int i = 0; i < ctx->n_runs; i++) {
        char why[4600];
        run_problem(ctx, ctx->runs[i], why, sizeof why);
        if (!*why) {
            ctx->runs[kept++] = ctx->runs[i];
            continue;
        }
        size_t need = strlen(ctx->runs[i]) + strlen(why) + 8;
        if (used + need >= cap) {
            char *l = realloc(list, cap = 2 * (used + need));
            if (!l) break;
            list = l;
        }
        used += (size_t)sprintf(list + used, "%s%s (%s)", used ? "; " : "", ctx->runs[i], why);
        ctx->n_missing++;
        free(ctx->runs[i]);
    }
    int total = ctx->n_runs;
    ctx->n_runs = kept;
    ctx->runs_missing = list;
    if (ctx->n_missing == 0) return PBD_OK;
    if (kept == 0)
        return pbd_error(PBD_EINPUT, "--summarize: no run to merge: all %d runs are bad or "
                         "missing: %s", total, list);
    if (!ctx->allow_missing)
        return pbd_error(PBD_EINPUT, "--summarize: %d of %d runs bad or missing: %s (run "
                         "them again, or merge the others with --allow-missing)",
                         ctx->n_missing, total, list);
    if (!ctx->quiet)
        fprintf(stderr, "%s --summarize: merging %d of %d runs; left out: %s\n", prog, kept,
                total, list);
    return PBD_OK;
}

