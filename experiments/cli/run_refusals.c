/* What a run refuses on its built world before the first step (exit status 2), the same in
 * every program that steps a scene with the solver options (pbd-run, pbd-soak): a definition
 * that cannot run (pbd_solver_def_validate), a given solver option the method or scheme does
 * not read (solver_reads.c), what the Newton reference cannot take (pbd_newton_check), what a
 * fluid's update cannot run (pbd_fluid_check: XPBD with compliance 0) and what the VBD/PD
 * families cannot (pbd_family_check). experiments/README.md "Robustness". */
#include "pbd_cli.h"
#include "solver/fluid/pbd_fluid.h"

#include <stdio.h>

const char *pbd_run_refusal(pbd_world *w, pbd_solver_def *def, const pbd_solver_context *ctx)
{
    static char why[1024];
    w->def = *def;
    if (pbd_solver_def_validate(&w->def) != PBD_OK) {
        snprintf(why, sizeof why, "--%s", pbd_last_error());
        return why;
    }
    cli_option rows[PBD_MAX_OPTIONS];
    int n_rows = pbd_solver_options(def, rows);
    for (int i = 0; i < n_rows; i++) {
        const char *unread = cli_given(rows[i].value)
                                 ? pbd_solver_unread(def, ctx, rows[i].name) : NULL;
        if (unread) {
            snprintf(why, sizeof why, "--%s: cannot act here: %s", rows[i].name, unread);
            return why;
        }
    }
    if (def->rod_projection == PBD_ROD_CLOSED_FORM) {
        int rods = 0;
        for (int s = 0; s < w->n_sets; s++) rods |= w->sets[s].type->project_element != NULL;
        if (!rods)
            return "--rod-projection: cannot act here: no constraint set of the scene has a "
                   "closed form (only the rods' rod_stretch_shear and rod_bend_twist do)";
    }
    if (def->method == PBD_METHOD_NEWTON && def->linearize_stiffness)
        return "--linearize: expected no PBD stiffness linearisation with --method=newton (the "
               "implicit step uses XPBD compliance), found it set";
    if ((def->method == PBD_METHOD_NEWTON || ctx->reference) && pbd_newton_check(w) != PBD_OK) {
        snprintf(why, sizeof why, "%s%s", ctx->reference ? "--reference=newton: " : "",
                 pbd_last_error());
        return why;
    }
    if (pbd_fluid_check(w) != PBD_OK || /* what the fluid's update cannot run */
        (def->method >= PBD_METHOD_VBD && pbd_family_check(w) != PBD_OK)) {
        snprintf(why, sizeof why, "%s", pbd_last_error());
        return why;
    }
    return NULL;
}
