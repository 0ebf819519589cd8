/* The rigid experiments' runs and summaries' rows (rigid_run.h). */
#include "experiments/drivers/rigid_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pbd_status rigid_run_open(pbd_exp_ctx *ctx, const char *name, pbd_rigid_world *w, rigid_run *r)
{
    memset(r, 0, sizeof *r);
    r->w = w;
    r->rl.rigid = w;
    r->rl.mirror = w ? pbd_rigid_mirror_create(w) : NULL;
    pbd_h5log_options o = {.frames_every = ctx->frames_every};
    pbd_h5log *log = r->rl.mirror ? pbd_exp_log_open(ctx, name, r->rl.mirror, &o) : NULL;
    pbd_status st = log ? pbd_rigid_log_begin(&r->rl, log) : PBD_EIO;
    if (st != PBD_OK) {
        pbd_status why = pbd_last_status() ? pbd_last_status() : st;
        if (log) pbd_h5log_discard(log);
        pbd_world_free(r->rl.mirror);
        pbd_rigid_world_free(w);
        memset(r, 0, sizeof *r);
        return why;
    }
    return PBD_OK;
}

pbd_status rigid_run_step(pbd_exp_ctx *ctx, rigid_run *r)
{
    pbd_status st = pbd_rigid_step(r->w);
    if (st == PBD_OK && pbd_stop_requested()) st = pbd_error(PBD_EINTR, "stopped on request");
    if (st == PBD_OK) st = pbd_rigid_log_step(&r->rl);
    (void)ctx;
    return st;
}

pbd_status rigid_run_close(pbd_exp_ctx *ctx, rigid_run *r, pbd_status st, const char *result)
{
    if (st == PBD_OK) st = pbd_exp_log_finish(ctx, r->rl.log, "%s", result);
    else pbd_exp_log_abort(ctx, r->rl.log, st);
    pbd_world_free(r->rl.mirror);
    pbd_rigid_world_free(r->w);
    memset(r, 0, sizeof *r);
    return st;
}

int rigid_rows(const pbd_exp_ctx *ctx, const char *prefix, const char *const *attrs,
               int n_attrs, int n_keys, double **rows)
{
    *rows = malloc(((size_t)ctx->n_runs + 1) * (size_t)n_attrs * sizeof **rows);
    if (!*rows) return -1;
    int n = 0;
    for (int i = 0; i < ctx->n_runs; i++) {
        if (strncmp(ctx->runs[i], prefix, strlen(prefix))) continue;
        char path[4096];
        pbd_exp_run_path(ctx, ctx->runs[i], path, sizeof path);
        double *row = *rows + (size_t)n * n_attrs;
        int ok = 1;
        for (int k = 0; k < n_attrs && ok; k++)
            ok = !pbd_h5_read_attr_double(path, attrs[k], &row[k]);
        n += ok;
    }
    pbd_exp_sort_rows(*rows, n, n_attrs, n_keys);
    return n;
}

int rigid_each_substeps(pbd_exp_ctx *ctx, const char *option, const char *text,
                        const char *prefix, rigid_run_fn fn, void *user)
{
    double sub[64];
    int n = pbd_exp_numbers(ctx, option, text, sub, 64, 1, 10000);
    if (n < 0) return PBD_EINVAL;
    for (int k = 0; k < n; k++) {
        char name[96];
        snprintf(name, sizeof name, "%ss%d", prefix, (int)sub[k]);
        if (!pbd_exp_want(ctx, name)) continue;
        int st = fn(ctx, name, (int)sub[k], 1, user);
        if (st != PBD_OK) return st;
    }
    return PBD_OK;
}

int rigid_each_pair(pbd_exp_ctx *ctx, const char *option, const char *text, const char *prefix,
                    rigid_run_fn fn, void *user)
{
    char list[512];
    snprintf(list, sizeof list, "%s", text);
    char *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int s, i;
        if (sscanf(tok, "%dx%d", &s, &i) != 2 || s < 1 || i < 1 || s > 10000 || i > 10000)
            return pbd_error(PBD_EINVAL, "--%s: expected SxI with 1 <= S, I <= 10000 (e.g. "
                             "20x1,5x4), found '%s'", option, tok);
        char name[96];
        snprintf(name, sizeof name, "%ss%d_i%d", prefix, s, i);
        if (!pbd_exp_want(ctx, name)) continue;
        int st = fn(ctx, name, s, i, user);
        if (st != PBD_OK) return st;
    }
    return PBD_OK;
}
