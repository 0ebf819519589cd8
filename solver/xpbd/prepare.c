/* Getting PBD/XPBD's schemes ready for a step: the colouring (solver/xpbd/colouring.c) and
 * the sort by colour (solver/xpbd/layout.c) when the topology changed, the Jacobi buffers. */
#include "solver/pbd.h"
#include "solver/xpbd/xpbd.h"

#include <stdlib.h>

pbd_status pbd_variants_prepare(pbd_world *w)
{
    pbd_scheme scheme = w->def.scheme;
    if (scheme != PBD_SCHEME_JACOBI && scheme != PBD_SCHEME_COLORED_GS) return PBD_OK;
    struct pbd_variants_state *vs = pbd_variants_state_of(w);
    if (!vs) return pbd_error(PBD_ENOMEM, "out of memory for the solver variants");
    uint64_t key = pbd_topology_key(w);
    pbd_status st;
    if (scheme == PBD_SCHEME_JACOBI) {
        if (!vs->jac_valid || vs->jac_key != key) {
            if ((st = pbd_variants_reserve_jacobi(w, vs)) != PBD_OK) return st;
            vs->jac_key = key;
            vs->jac_valid = 1;
        }
        return PBD_OK;
    }
    if ((st = pbd_variants_reserve_workspaces(vs, pbd_variants_threads(w), w->max_arity)) != PBD_OK)
        return st;
    if (!vs->col_valid || vs->col_key != key) {
        if ((st = pbd_colour_sets(w)) != PBD_OK) return st;
        vs->col_key = key;
        vs->col_valid = 1;
    }
    if (w->def.sort_by_colour) /* solver/xpbd/layout.c: sorts only sets not sorted yet */
        if ((st = pbd_sort_sets_by_colour(w)) != PBD_OK) return st;
    return PBD_OK;
}
