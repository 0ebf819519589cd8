/* What the checkers (gradcheck.c, goalcheck.c) share: a type's random stream from its name,
 * and freeing a result. */
#include "analysis_private.h"

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
