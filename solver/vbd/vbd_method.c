/* The method table's rows for VBD and AVBD (solver/method.h): what they refuse beyond the
 * families' shared refusals, and their iteration on the families' step (solver/families.c). */
#include "solver/families.h"
#include "solver/method.h"

/* VBD's and AVBD's refusals: each constraint an energy C²/(2α) a vertex visit differentiates
 * whole; AVBD also takes hard ones (α = 0, k = 1) through its augmented Lagrangian. */
static pbd_status vbd_check(const pbd_world *w)
{
    const pbd_method_ops *m = pbd_method_of(&w->def);
    const char *name = m->name;
    pbd_status st = pbd_family_check_shared(w);
    if (st != PBD_OK) return st;
    if (w->collision_stages && w->def.vbd_chebyshev_rho > 0.0)
        return pbd_error(PBD_EINVAL, "vbd-chebyshev: expected 0 in a world with contacts, found "
                         "%g: the extrapolation x = w (x^ - x') + x' (VBD Sec. 3.8) moves "
                         "particles past the displacement bound that keeps the contacts (VBD "
                         "Sec. 4), and the contacts are not held (solver/vbd/README.md "
                         "\"Contact\")", w->def.vbd_chebyshev_rho);
    for (int s = 0; s < pbd_family_static_sets(w); s++) { /* contacts: vbd_contact.c */
        const pbd_constraint_set *set = &w->sets[s];
        if (set->count == 0) continue;
        /* each vertex visit differentiates every constraint on the vertex: one over all n
         * particles makes a sweep n visits × O(n) */
        if (set->arity > PBD_FAMILY_MAX_ARITY)
            return pbd_error(PBD_EINVAL, "%s: set %d (%s): expected constraints on at most %d "
                             "particles, found %d (of %d): every vertex visit differentiates "
                             "the whole constraint, so one sweep costs O(n^2) (use "
                             "--method=xpbd, pd or newton)", name, s, set->type->name,
                             PBD_FAMILY_MAX_ARITY, set->arity, w->n);
        if (!set->type->eval)
            return pbd_error(PBD_EINVAL, "%s: set %d (%s): expected constraints with a scalar C "
                             "(an energy C²/(2α)), found a type without one", name, s,
                             set->type->name);
        for (int c = 0; c < set->count; c++) {
            if (set->compliance[c] > 0.0) continue;
            if (!m->augmented)
                return pbd_error(PBD_EINVAL, "%s: set %d (%s) constraint %d: expected a "
                                 "compliance alpha > 0, found alpha = 0 (a hard constraint has "
                                 "no energy C^2/(2 alpha) for VBD to minimise; use --method=avbd, "
                                 "whose augmented Lagrangian takes it)", name, s,
                                 set->type->name, c);
            if (set->stiffness[c] < 1.0)
                return pbd_error(PBD_EINVAL, "%s: set %d (%s) constraint %d: expected a "
                                 "compliance, or k = 1 for a hard constraint, found PBD "
                                 "stiffness k = %g with compliance 0 (PBD's k has no energy)",
                                 name, s, set->type->name, c, set->stiffness[c]);
        }
    }
    return PBD_OK;
}

static const pbd_family_iteration vbd_iteration = {
    .begin = pbd_vbd_begin,
    .iteration = pbd_vbd_iteration,
    .force = pbd_vbd_force,
    .from_target = 0,
    .contact_forces = pbd_vbd_contact_forces,
};

static pbd_status vbd_step(pbd_world *w, void *ws, double h, int threads)
{
    (void)threads; /* the families choose their own (PBD_FAMILY_PARALLEL_MIN) */
    return pbd_family_step(w, ws, h, &vbd_iteration);
}

const pbd_method_ops pbd_vbd_method = {
    .name = "vbd",
    .check = vbd_check,
    .workspace = pbd_family_make,
    .workspace_free = pbd_family_release,
    .step = vbd_step,
    .running = "a --method=vbd iteration, which looks at the stop flag only between iterations",
    .energy = 1,
    .memory = pbd_memory_family,
};

const pbd_method_ops pbd_avbd_method = {
    .name = "avbd",
    .check = vbd_check,
    .workspace = pbd_family_make,
    .workspace_free = pbd_family_release,
    .step = vbd_step,
    .running = "a --method=avbd iteration, which looks at the stop flag only between "
               "iterations",
    .energy = 1,
    .augmented = 1,
    .memory = pbd_memory_family,
};
