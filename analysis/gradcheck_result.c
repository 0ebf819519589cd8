/* What the checkers (gradcheck.c, goalcheck.c, orientcheck.c) share: a type's random stream
 * from its name, allocating and freeing a result, one sample's verdict. */
#include "analysis_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a of the name: each type's stream depends only on (seed, name), so checking one
 * type with --constraint draws the same samples as checking them all. */
uint64_t pbd_gradcheck_name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

pbd_status pbd_gradcheck_result_alloc(pbd_gradcheck_result *r, int N, int M)
{
    r->rel_err = malloc(sizeof(double) * (size_t)N);
    r->order = malloc(sizeof(double) * (size_t)N);
    r->momentum_errs = malloc(sizeof(double) * (size_t)N);
    r->status = calloc((size_t)N, 1);
    r->degenerate_rel_err = malloc(sizeof(double) * (size_t)(M ? M : 1));
    r->degenerate_status = calloc(M ? (size_t)M : 1, 1);
    r->hessian_rel_err = malloc(sizeof(double) * (size_t)N);
    r->hessian_order = malloc(sizeof(double) * (size_t)N);
    if (r->rel_err && r->order && r->momentum_errs && r->status && r->degenerate_rel_err &&
        r->degenerate_status && r->hessian_rel_err && r->hessian_order)
        return PBD_OK;
    pbd_gradcheck_result_free(r);
    return pbd_error(PBD_ENOMEM, "analysis: out of memory for %d gradient-check samples", N);
}

void pbd_gradcheck_result_free(pbd_gradcheck_result *r)
{
    free(r->rel_err);
    free(r->order);
    free(r->momentum_errs);
    free(r->status);
    free(r->degenerate_rel_err);
    free(r->degenerate_status);
    free(r->hessian_rel_err);
    free(r->hessian_order);
    memset(r, 0, sizeof *r);
}

int pbd_gradcheck_record(pbd_gradcheck_result *r, int s, double e, double o, double *orders,
                         int *n_orders)
{
    if (e < 0.0 || o < 0.0) { /* -1: non-finite C at a perturbed point */
        r->status[s] = PBD_GC_SAMPLE_NONFINITE;
        r->nonfinite++;
        return 0;
    }
    if (isnan(e) || isnan(o)) { /* a perturbed point was degenerate: too close to call */
        r->status[s] = PBD_GC_SAMPLE_DEGENERATE;
        r->skipped++;
        return 0;
    }
    r->checked++;
    r->rel_err[s] = e;
    r->order[s] = o;
    orders[(*n_orders)++] = o;
    if (isinf(o)) r->taylor_exact++;
    if (e > r->max_rel_err) r->max_rel_err = e;
    return 1;
}

int pbd_gradcheck_degenerate_sample(pbd_gradcheck_result *r, int s, int finite, int eval_ok)
{
    if (!finite) {
        r->degenerate_status[s] = PBD_GC_SAMPLE_NONFINITE;
        r->degenerate_nonfinite++;
        return 0;
    }
    if (!eval_ok) {
        r->degenerate_status[s] = PBD_GC_SAMPLE_DEGENERATE;
        r->degenerate_skipped++;
        return 0;
    }
    return 1;
}

int pbd_gradcheck_degenerate_record(pbd_gradcheck_result *r, int s, double e)
{
    if (e < 0.0) return pbd_gradcheck_degenerate_sample(r, s, 0, 1); /* non-finite: 0 */
    r->degenerate_rel_err[s] = e;
    if (isnan(e)) return 0;
    if (e > r->degenerate_max_rel_err) r->degenerate_max_rel_err = e;
    return 1;
}
