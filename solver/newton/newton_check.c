/* What the Newton reference cannot take (solver/newton/README.md "Newton reference": its limits),
 * refused before the first step with one line each: pbd_newton_check. */
#include "newton_private.h"
#include "solver/method.h"

#include <float.h>
#include <math.h>

pbd_status newton_check_world(const pbd_world *w, int max_iter, double tol)
{
    pbd_status st = pbd_solver_def_validate(&w->def);
    if (st != PBD_OK) return st;
    if (max_iter < 0 || !(tol >= 0.0))
        return pbd_error(PBD_EINVAL, "newton: expected max_iter >= 0 and tol >= 0, found %d "
                         "and %g", max_iter, tol);
    if (w->collision_stages)
        return pbd_error(PBD_EINVAL, "newton: expected a world without colliders or contacts, "
                         "found some: the implicit step takes equality constraints only "
                         "(no active set of contacts; solver/README.md)");
    if (w->fluid_stages)
        return pbd_error(PBD_EINVAL, "newton: expected a world without a fluid, found one: "
                         "its density rows change with the neighbours every step "
                         "(solver/fluid/README.md)");
    if (w->def.newton_solver == PBD_NEWTON_DENSE) {
        long unknowns = 0;
        for (int i = 0; i < w->n; i++) unknowns += 3 * (w->w[i] > 0.0);
        for (int s = 0; s < w->n_sets; s++) unknowns += w->sets[s].count;
        if (unknowns > PBD_NEWTON_DENSE_MAX)
            return pbd_error(PBD_EINVAL, "newton: solver dense: expected at most %d unknowns "
                             "(the dense oracle is for small scenes), found %ld",
                             PBD_NEWTON_DENSE_MAX, unknowns);
    }
    if (w->post_step)
        return pbd_error(PBD_EINVAL, "newton: expected a world without a post-step hook, found "
                         "one (tearing): the implicit step takes a fixed topology, and the torn "
                         "cloth's pulled rows have no equilibrium to converge to before it tears "
                         "(solver/README.md)");
    if (w->n_orient > 0)
        return pbd_error(PBD_EINVAL, "newton: expected a world of particles only, found %d "
                         "orientations (rods): the reference has no rotational unknowns "
                         "(solver/README.md \"Orientations\")", w->n_orient);
    for (int s = 0; s < w->n_sets; s++)
        if (!w->sets[s].type->eval && w->sets[s].count > 0)
            return pbd_error(PBD_EINVAL, "newton: set %d (%s): expected constraints with a "
                             "scalar C, found a type without one", s, w->sets[s].type->name);
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        if (set->type->inequality && set->count > 0)
            return pbd_error(PBD_EINVAL, "newton: set %d (%s): expected equality constraints "
                             "only, found an inequality type (contacts are refused)", s,
                             set->type->name);
        for (int c = 0; c < set->count; c++)
            if (set->compliance[c] == 0.0 && set->stiffness[c] < 1.0)
                return pbd_error(PBD_EINVAL, "newton: set %d (%s) constraint %d: expected an "
                                 "XPBD compliance for the implicit step, found PBD stiffness "
                                 "k = %g with compliance 0 (PBD's k has no implicit "
                                 "counterpart: give a compliance, or k = 1 for a rigid "
                                 "constraint)", s, set->type->name, c, set->stiffness[c]);
    }
    /* a stiff membrane with no out-of-plane stiffness under a normal load (newton_membrane.c):
     * judged on the world as built, before its first step (up front, not in mid-run) */
    if (w->step_count > 0) return PBD_OK;
    const double h = pbd_method_of(&w->def)->reference ? w->def.dt / w->def.substeps
                                                       : w->def.dt;
    int ms = -1, me = -1;
    const double kappa = newton_membrane_ratio(w, h, &ms, &me);
    if (kappa < 0.0) return pbd_error(PBD_ENOMEM, "newton: out of memory");
    if (isinf(kappa))
        return pbd_error(PBD_EINVAL, "newton: the springs' triangle at particle %d: expected "
                         "compliant springs where the step loads a sheet of them along its "
                         "normal, found rigid ones (compliance 0): the rigid rows' linearisation "
                         "has no normal direction at flat, whether or not bending holds the "
                         "sheet, and Newton does not converge (solver/README.md \"Newton "
                         "reference\"); give the springs a compliance (--compliance)", me);
    if (kappa > 1.0 / sqrt(DBL_EPSILON))
        return pbd_error(PBD_EINVAL, "newton: %s %d%s%s: expected a membrane whose "
                         "stiffness against the mass, kappa = k dt^2/m, is at most 1/sqrt(eps) "
                         "= %.2e where nothing but the mass holds it out of its plane and the "
                         "step loads it normally, found kappa = %.3e (dt = %g s): beyond it the "
                         "forces' rounding (kappa eps) outweighs what the mass resolves (1/kappa) "
                         "and Newton is not assured to converge (it failed at E = 1e11; "
                         "solver/newton/README.md \"Newton reference\"); "
                         "give it bending (--bend-compliance), more compliance or smaller steps",
                         ms >= 0 ? "element" : "the springs' triangle at particle", me,
                         ms >= 0 ? " of set " : "", ms >= 0 ? w->sets[ms].type->name : "",
                         1.0 / sqrt(DBL_EPSILON), kappa, h);
    return PBD_OK;
}

