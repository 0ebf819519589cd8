/* A run-away as a run's result: a run declared with pbd_exp_divergence_is_finding records the
 * divergence watchdog's stop (solver/step.c) as its finding instead of failing
 * (experiments/README.md "Run-aways as findings"). Only the watchdog's status, PBD_ENUMERIC,
 * is taken; an interruption, a write error or an undeclared run fails as before. */
#include "pbd_drivers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pbd_exp_divergence_is_finding(pbd_exp_ctx *ctx, const char *why)
{
    ctx->divergence_finding = why;
}

int pbd_exp_diverged(const pbd_exp_ctx *ctx) { return ctx->diverged; }

pbd_status pbd_exp_step(pbd_exp_ctx *ctx, pbd_world *w)
{
    if (!ctx->divergence_finding) return pbd_step(w);
    if (ctx->diverged) /* the run is over: its driver should have stopped */
        return pbd_error(PBD_EINVAL, "pbd_exp_step: the run diverged at step %ld already",
                         ctx->diverged_step);
    size_t need = 3 * (size_t)w->n;
    if (need > ctx->last_cap) {
        double *x = realloc(ctx->last_x, need * sizeof *x);
        if (x) ctx->last_x = x;
        double *v = x ? realloc(ctx->last_v, need * sizeof *v) : NULL;
        if (v) ctx->last_v = v;
        if (!x || !v) return pbd_error(PBD_ENOMEM, "pbd_exp_step: out of memory");
        ctx->last_cap = need;
    }
    memcpy(ctx->last_x, w->x, need * sizeof *w->x);
    memcpy(ctx->last_v, w->v, need * sizeof *w->v);
    ctx->last_n = w->n;
    ctx->last_step = w->step_count;
    ctx->last_time = w->time;
    pbd_status st = pbd_step(w);
    if (st != PBD_ENUMERIC) return st;
    ctx->diverged = 1;
    ctx->diverged_step = ctx->last_step + 1;
    ctx->diverged_time = w->time;
    snprintf(ctx->diverged_reason, sizeof ctx->diverged_reason, "%s", pbd_last_error());
    return PBD_OK;
}

pbd_status pbd_exp_runaway_write(pbd_exp_ctx *ctx, pbd_h5log *log)
{
    if (!ctx->divergence_finding) return PBD_OK;
    pbd_status st = pbd_h5log_attr_string(log, "divergence_is_finding", ctx->divergence_finding);
    if (st != PBD_OK || !ctx->diverged) return st;
    long rows = ctx->last_n;
    if ((st = pbd_h5log_attr_int(log, "result.diverged", 1)) != PBD_OK ||
        (st = pbd_h5log_attr_int(log, "result.diverged_step", ctx->diverged_step)) != PBD_OK ||
        (st = pbd_h5log_attr_double(log, "result.diverged_time", ctx->diverged_time)) != PBD_OK ||
        (st = pbd_h5log_attr_string(log, "result.diverged_reason", ctx->diverged_reason)) != PBD_OK ||
        (st = pbd_h5log_attr_int(log, "result.diverged_last_step", ctx->last_step)) != PBD_OK ||
        (st = pbd_h5log_attr_double(log, "result.diverged_last_time", ctx->last_time)) != PBD_OK)
        return st;
    st = pbd_h5log_dataset(log, "diverged_last_x", ctx->last_x, rows, 3, "m",
                           "positions after the last step the watchdog accepted");
    if (st == PBD_OK)
        st = pbd_h5log_dataset(log, "diverged_last_v", ctx->last_v, rows, 3, "m/s",
                               "velocities after the last step the watchdog accepted");
    if (st == PBD_OK && !ctx->quiet)
        printf("%s/%s: diverged at step %ld (t = %.4g s), recorded as this run's finding: %s\n",
               ctx->exp->name, ctx->current_run, ctx->diverged_step, ctx->diverged_time,
               ctx->diverged_reason);
    return st;
}

void pbd_exp_runaway_findings(const pbd_exp_ctx *ctx, char **text)
{
    *text = NULL;
    size_t used = 0;
    for (int i = 0; i < ctx->n_runs; i++) {
        char path[4096], reason[1024], line[1400];
        double step = 0.0, t = NAN;
        pbd_exp_run_path(ctx, ctx->runs[i], path, sizeof path);
        if (pbd_h5_read_attr_string(path, "result.diverged_reason", reason, sizeof reason) != 0)
            continue;
        pbd_h5_read_attr_double(path, "result.diverged_step", &step);
        pbd_h5_read_attr_double(path, "result.diverged_time", &t);
        int len = snprintf(line, sizeof line, "%s%s: diverged at step %.0f (t = %.4g s): %s",
                           used ? "\n" : "", ctx->runs[i], step, t, reason);
        char *s = realloc(*text, used + (size_t)len + 1);
        if (!s) return;
        memcpy(s + used, line, (size_t)len + 1);
        *text = s;
        used += (size_t)len;
    }
}

void pbd_exp_runaway_free(pbd_exp_ctx *ctx)
{
    free(ctx->last_x);
    free(ctx->last_v);
    ctx->last_x = ctx->last_v = NULL;
    ctx->last_cap = 0;
}
