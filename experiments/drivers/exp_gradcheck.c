/* gradcheck — the gradient checker (analysis/gradcheck.c) over every registered constraint
 * type, as one run of the suite: <out>/gradcheck/all.h5 in pbd-gradcheck's format (one group
 * per type; see analysis/README.md "Gradient check"). The summary counts the types that pass
 * and names the worst relative error and the lowest Taylor order; the report prints the
 * table. */
#include "analysis/pbd_analysis.h"
#include "pbd_drivers.h"

#include <hdf5.h>
#include <hdf5_hl.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    int samples, degenerate_samples, seed;
} P;

static int options(cli_option *out, int quick)
{
    P.samples = quick ? 1000 : 10000;
    P.degenerate_samples = -1;
    P.seed = 1;
    const cli_option rows[] = {
        {"samples", CLI_INT, &P.samples, 1, 1e8, 0, "regular random samples per type", NULL},
        {"degenerate-samples", CLI_INT, &P.degenerate_samples, -1, 1e8, 0,
         "near-degenerate samples per type (-1: samples/4)", NULL},
        {"seed", CLI_INT, &P.seed, 0, 1e9, 0, "random seed", NULL},
    };
    int n = (int)(sizeof rows / sizeof rows[0]);
    for (int i = 0; i < n; i++) out[i] = rows[i];
    return n;
}

static int run(pbd_exp_ctx *ctx)
{
    if (!pbd_exp_want(ctx, "all")) return PBD_OK;
    pbd_gradcheck_options o = pbd_gradcheck_options_default();
    o.samples = P.samples;
    o.degenerate_samples = P.degenerate_samples < 0 ? (P.samples + 3) / 4 : P.degenerate_samples;
    o.seed = (uint64_t)P.seed;
    int n = pbd_constraint_type_count();
    pbd_gradcheck_result *res = calloc((size_t)n, sizeof *res);
    if (!res) return pbd_error(PBD_ENOMEM, "gradcheck: out of memory");
    pbd_status st = PBD_OK;
    int passed = 0, done = 0;
    for (int i = 0; i < n && st == PBD_OK; i++, done++) {
        st = pbd_gradcheck_type(pbd_constraint_type_at(i), &o, &res[i]);
        passed += st == PBD_OK && res[i].pass;
        pbd_exp_progress(ctx, i + 1, n);
    }
    char path[4096];
    pbd_exp_run_path(ctx, "all", path, sizeof path);
    if (st == PBD_OK) st = pbd_gradcheck_write_h5(path, &o, res, n);
    if (st == PBD_OK) { /* the suite's attributes beside the checker's own */
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
        long quick = ctx->quick;
        if (f < 0 || H5LTset_attribute_long(f, "/", "quick", &quick, 1) < 0 ||
            H5LTset_attribute_string(f, "/", "experiment", "gradcheck") < 0 ||
            pbd_h5_write_provenance(f) != 0 ||
            /* last: a file cut short before this line reads as incomplete */
            H5LTset_attribute_long(f, "/", "complete", &(long){1}, 1) < 0)
            st = pbd_error(PBD_EIO, "%s: cannot add the suite's attributes", path);
        if (f >= 0) H5Fclose(f);
    }
    for (int i = 0; i < done; i++) pbd_gradcheck_result_free(&res[i]);
    free(res);
    if (st == PBD_OK && !ctx->quiet)
        printf("gradcheck/all: %d of %d constraint types pass -> %s\n", passed, n, path);
    return st;
}

typedef struct gc_row {
    char name[64];
    double pass, max_rel_err, taylor_order, nonfinite, degenerate_nonfinite;
} gc_row;

static herr_t read_group(hid_t loc, const char *name, const H5L_info_t *info, void *data)
{
    (void)info;
    gc_row *rows = data;
    int k = 0;
    while (k < 64 && rows[k].name[0]) k++;
    if (k >= 64) return 1;
    H5O_info_t oi;
    if (H5Oget_info_by_name(loc, name, &oi, H5P_DEFAULT) < 0 || oi.type != H5O_TYPE_GROUP) return 0;
    gc_row *r = &rows[k];
    snprintf(r->name, sizeof r->name, "%s", name);
    int bad = H5LTget_attribute_double(loc, name, "pass", &r->pass) < 0;
    bad |= H5LTget_attribute_double(loc, name, "max_rel_err", &r->max_rel_err) < 0;
    bad |= H5LTget_attribute_double(loc, name, "taylor_order", &r->taylor_order) < 0;
    bad |= H5LTget_attribute_double(loc, name, "nonfinite", &r->nonfinite) < 0;
    bad |= H5LTget_attribute_double(loc, name, "degenerate_nonfinite", &r->degenerate_nonfinite) < 0;
    if (bad) r->pass = NAN;
    return 0;
}

static int summarize(pbd_exp_ctx *ctx)
{
    char path[4096];
    pbd_exp_run_path(ctx, "all", path, sizeof path);
    gc_row rows[64];
    memset(rows, 0, sizeof rows);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f >= 0) {
        H5Literate(f, H5_INDEX_NAME, H5_ITER_INC, NULL, read_group, rows);
        H5Fclose(f);
    }
    int n = 0, passed = 0;
    double worst = 0.0, low_order = INFINITY;
    const char *worst_name = "-", *low_name = "-";
    double table[64 * 5];
    for (; n < 64 && rows[n].name[0]; n++) {
        gc_row *r = &rows[n];
        passed += r->pass == 1.0;
        if (r->max_rel_err > worst) {
            worst = r->max_rel_err;
            worst_name = r->name;
        }
        if (r->taylor_order < low_order) {
            low_order = r->taylor_order;
            low_name = r->name;
        }
        double row[5] = {r->pass, r->max_rel_err, r->taylor_order, r->nonfinite,
                         r->degenerate_nonfinite};
        memcpy(table + 5 * n, row, sizeof row);
    }
    pbd_exp_summary *s = pbd_exp_summary_open(ctx);
    if (!s) return PBD_EIO;
    const char *cols[] = {"pass", "max_rel_err", "taylor_order", "nonfinite",
                          "degenerate_nonfinite"};
    pbd_exp_summary_table(s, "types", table, n, 5, cols, "1 1 1 samples samples");
    char names[2048] = "";
    for (int i = 0; i < n; i++) { /* (GCC -O3 flagged a strncat form as truncating) */
        size_t len = strlen(names);
        int wrote = snprintf(names + len, sizeof names - len, "%s%s", i ? " " : "", rows[i].name);
        if (wrote < 0 || (size_t)wrote >= sizeof names - len) break; /* full: the rest is cut */
    }
    H5LTset_attribute_string(pbd_exp_summary_file(s), "/", "types", names);
    pbd_exp_summary_double(s, "headline.types", n);
    pbd_exp_summary_double(s, "headline.passed", passed);
    pbd_exp_summary_double(s, "headline.max_rel_err", worst);
    pbd_exp_summary_double(s, "headline.min_taylor_order", low_order);
    char orders[128];
    if (isinf(low_order)) snprintf(orders, sizeof orders, "exact");
    else snprintf(orders, sizeof orders, "%.3g (%.60s)", low_order, low_name);
    return pbd_exp_summary_finish(
        s, "%d of %d constraint types pass; largest relative gradient error %.2g (%s); lowest "
        "median Taylor order %s", passed, n, worst, worst_name, orders);
}

const pbd_experiment pbd_exp_gradcheck = {
    .name = "gradcheck",
    .description = "every constraint type's analytic gradient against central finite "
                   "differences (random and near-degenerate samples), Taylor order and "
                   "momentum conservation (analysis/gradcheck.c)",
    .paper = "no number in the papers; the checker's bar for an exact analytic gradient: "
             "relative error <= 1e-6 against central differences, Taylor order >= 1.8",
    .timing = 0,
    .options = options,
    .run = run,
    .summarize = summarize,
};
