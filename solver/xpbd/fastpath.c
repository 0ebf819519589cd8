/* The fast path: the sweeps hand a whole set (Gauss–Seidel) or one thread's share of a
 * colour (coloured GS) to the type's batched kernel, which reads the set's parallel arrays
 * directly. Nothing here knows the type: the kernels come from its table. */
#include "solver/xpbd/fastpath.h"
#include "solver/method.h"

pbd_batch_fn pbd_set_kernel(const pbd_world *w, const pbd_constraint_set *s, int colour)
{
    const pbd_kernels *k = s->type->kernels;
    if (!w->def.kernels || !k) return NULL;
    if (pbd_method_of(&w->def)->compliance) {
        if (w->def.xpbd_beta > 0.0) return NULL;
        return colour && k->colour_xpbd ? k->colour_xpbd : k->gauss_seidel_xpbd;
    }
    return colour && k->colour_pbd ? k->colour_pbd : k->gauss_seidel_pbd;
}

pbd_batch pbd_set_batch(pbd_world *w, pbd_constraint_set *s, double h)
{
    pbd_batch b = {
        .pos = w->p,
        .inv_mass = w->w,
        .idx = s->idx,
        .rest = s->rest,
        .stiffness = s->k_eff,
        .compliance = s->compliance,
        .lambda = s->lambda,
        .alpha_scale = 1.0 / (h * h), /* as the generic path: α̃ = α/Δt² */
        .arity = s->arity,
    };
    return b;
}
