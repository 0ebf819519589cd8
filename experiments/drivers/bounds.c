/* A run's declared physical bound: the driver names a /series column and the largest value
 * a physical run reaches; the first step past it (or not finite) is the step the run
 * diverged at, a finding rather than data (experiments/README.md "Run-aways as findings").
 * The bound and the step go into the run file, and pbd_exp_bound_recompute finds the step
 * again from the file's own series. */
#include "pbd_drivers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pbd_exp_bound(pbd_exp_ctx *ctx, const char *column, double limit, const char *what,
                   const char *why)
{
    ctx->bound_column = column;
    ctx->bound_limit = limit;
    ctx->bound_what = what;
    ctx->bound_why = why;
    ctx->bound_step = 0;
}

static int leaves(double v, double limit) { return !(v <= limit); } /* NaN leaves too */

int pbd_exp_bound_check(pbd_exp_ctx *ctx, const pbd_world *w, double v)
{
    if (!ctx->bound_column || !leaves(v, ctx->bound_limit)) return 0;
    if (ctx->bound_step == 0) {
        ctx->bound_step = w->step_count;
        ctx->bound_time = w->time;
        ctx->bound_value = v;
    }
    return 1;
}

long pbd_exp_bound_step(const pbd_exp_ctx *ctx) { return ctx->bound_column ? ctx->bound_step : 0; }

pbd_status pbd_exp_bound_write(pbd_exp_ctx *ctx, pbd_h5log *log)
{
    if (!ctx->bound_column) return PBD_OK;
    pbd_status st;
    if ((st = pbd_h5log_attr_string(log, "bound.column", ctx->bound_column)) != PBD_OK ||
        (st = pbd_h5log_attr_double(log, "bound.limit", ctx->bound_limit)) != PBD_OK ||
        (st = pbd_h5log_attr_string(log, "bound.what", ctx->bound_what)) != PBD_OK ||
        (ctx->bound_why &&
         (st = pbd_h5log_attr_string(log, "bound.why", ctx->bound_why)) != PBD_OK) ||
        ctx->bound_step == 0)
        return st;
    char reason[1024];
    snprintf(reason, sizeof reason, "%s %.3g, above the bound %.3g declared for it%s%s",
             ctx->bound_what, ctx->bound_value, ctx->bound_limit,
             ctx->bound_why ? ": " : " (cause not established)",
             ctx->bound_why ? ctx->bound_why : "");
    if ((st = pbd_h5log_attr_int(log, "result.diverged", 1)) != PBD_OK ||
        (st = pbd_h5log_attr_int(log, "result.diverged_step", ctx->bound_step)) != PBD_OK ||
        (st = pbd_h5log_attr_double(log, "result.diverged_time", ctx->bound_time)) != PBD_OK)
        return st;
    return pbd_h5log_attr_string(log, "result.diverged_reason", reason);
}

int pbd_exp_bound_recompute(const char *path, long *step)
{
    char column[256], name[300];
    double limit;
    *step = 0;
    if (pbd_h5_read_attr_string(path, "bound.column", column, sizeof column) != 0 ||
        pbd_h5_read_attr_double(path, "bound.limit", &limit) != 0)
        return -1;
    snprintf(name, sizeof name, "/series/%s", column);
    double *v = NULL, *steps = NULL;
    long rows = 0, cols = 0, srows = 0, scols = 0;
    int rc = -1;
    if (pbd_h5_read_dataset(path, name, &v, &rows, &cols) == 0 && cols == 1 &&
        pbd_h5_read_dataset(path, "/series/step", &steps, &srows, &scols) == 0 && srows == rows) {
        rc = 0;
        for (long i = 0; i < rows && !*step; i++)
            if (leaves(v[i], limit)) *step = (long)steps[i];
    }
    free(v);
    free(steps);
    return rc;
}
